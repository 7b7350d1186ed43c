#!/usr/bin/env python3
"""fricsim vs Siconos on the shared FCLib problems, in one run, to relative tolerance 1e-8.

    /usr/bin/python3 benches/fclib_compare.py [FRICSIM_BIN] [FCLIB_DIR] > table.md

Needs Debian python3-siconos (+ numpy, scipy, h5py). For each problem it times the Siconos
solvers of siconos_bench.py and the fricsim solvers (`fricsim fclib solve --output`), re-measures
each fricsim solution with fclib_tools.errors (independent of fricsim's own report) and compares
u (local, on the velocity scale max(|q|inf, |u_ref|inf)) or v (global, relative to |v_ref|inf)
with the Siconos reference file. Prints a markdown table and the time ratios per family.
"""
import glob, os, re, subprocess, sys, tempfile, time
import numpy as np

BIN = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.environ.get('CARGO_TARGET_DIR', os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'target')), 'release', 'fricsim')
DIR = sys.argv[2] if len(sys.argv) > 2 else os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', '..', 'shared', 'fclib')
sys.path.insert(0, DIR)
import fclib_tools as T  # noqa: E402
import siconos_bench as SB  # noqa: E402

FRICSIM_LOCAL = ['auto', 'gs', 'fb', 'prox', 'pgs-lcp', 'sp', 'sp-exact']
FRICSIM_GLOBAL = ['auto', 'gs', 'fb', 'prox', 'sp-exact', 'admm']
FAMILY = {'gs': 'NSGS', 'fb': 'NSN_FB', 'admm': 'ADMM'}  # same algorithm family in Siconos


def fricsim(path, solver, out):
    t = time.perf_counter()
    p = subprocess.run([BIN, 'fclib', 'solve', path, '--solver', solver, '--output', out, '--max-time', '60'],
                       capture_output=True, text=True)
    wall = time.perf_counter() - t
    m = re.search(r'(converged|FAILED) after (\d+) iterations, .* rel ([0-9.e+-]+|NaN), ([0-9.]+) ms', p.stdout)
    if not m:
        return None
    return dict(ok=m.group(1) == 'converged', it=int(m.group(2)), rel=float(m.group(3)), ms=float(m.group(4)), wall=wall)


def main():
    rows, ratios = [], []
    tmp = tempfile.mkdtemp()
    for path in sorted(glob.glob(os.path.join(DIR, '*.hdf5'))):
        stem = os.path.basename(path)[:-5]
        P = T.read_problem(path)
        ref_file = sorted(glob.glob(os.path.join(DIR, stem + '.siconos-*.txt')))[-1]
        ref = T.read_txt_vectors(ref_file)
        sic = {}
        for s in (SB.LOCAL if P['kind'] == 'local' else SB.GLOBAL):
            if s == 'NSN_FB' and 'Perio' in path:
                continue  # Siconos 4.4 aborts on an internal assertion (siconos_bench.py)
            info, it, dt, e = SB.run(path, s)
            sic[s] = (info == 0 and e <= 1e-8, it, dt * 1e3, e)
            rows.append((stem, 'siconos ' + s, sic[s][0], it, dt * 1e3, e, ''))
        best_sic = min([v[2] for v in sic.values() if v[0]], default=float('nan'))
        best_fs = float('inf')
        for s in (FRICSIM_LOCAL if P['kind'] == 'local' else FRICSIM_GLOBAL):
            out = os.path.join(tmp, stem + '.' + s + '.txt')
            r = fricsim(path, s, out)
            if r is None:
                rows.append((stem, 'fricsim ' + s, False, 0, float('nan'), float('nan'), 'no output'))
                continue
            V = T.read_txt_vectors(out)
            if P['kind'] == 'local':
                e = T.errors(P, V['r'])['siconos_rel']
                scale = max(np.abs(P['q']).max(), np.abs(ref['u']).max())
                d = np.abs(V['u'] - ref['u']).max() / scale
            else:
                e = T.errors(P, V['r'], V['v'])['siconos_gfc3d_error']
                d = np.abs(V['v'] - ref['v']).max() / np.abs(ref['v']).max()
            rows.append((stem, 'fricsim ' + s, r['ok'], r['it'], r['ms'], e, '%.1e' % d))
            if r['ok']:
                best_fs = min(best_fs, r['ms'])
            fam = FAMILY.get(s)
            if P['kind'] == 'global' and s == 'gs':
                fam = 'NSGS_WR'
            if fam in sic and sic[fam][0] and r['ok']:
                ratios.append((stem, s + ' / ' + fam, r['ms'] / sic[fam][2]))
        ratios.append((stem, 'best fricsim / best Siconos', best_fs / best_sic))
    print('| problem | solver | converged | iterations | time ms | error (fclib_tools) | max diff u or v vs ref |')
    print('|---|---|---|---|---|---|---|')
    for r in rows:
        print('| %s | %s | %s | %d | %.2f | %.2e | %s |' % (r[0][:34], r[1], 'yes' if r[2] else '**no**', r[3], r[4], r[5], r[6]))
    print('\n| problem | ratio | fricsim time / Siconos time |\n|---|---|---|')
    for r in ratios:
        print('| %s | %s | %.3f |' % (r[0][:34], r[1], r[2]))


if __name__ == '__main__':
    main()
