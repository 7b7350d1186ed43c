#!/usr/bin/env python3
"""fricsim vs Siconos on every shared FCLib problem, in one run, to relative tolerance 1e-8.

    /usr/bin/python3 benches/fclib_compare.py [FRICSIM_BIN] [FCLIB_DIR] > table.md

Needs Debian python3-siconos (with numpy, scipy, h5py). Problems: every `*.hdf5` and the
text-only ones (KaplasTower, RockPile, the single contact). Each Siconos solve runs in its own
process with a time limit (some Siconos solvers abort on these problems), local problems in
Siconos's sparse storage (its native choice for FCLib files; dense W is 6-12x slower there).
Each fricsim solve is `fricsim fclib solve --output`, re-measured with fclib_tools.errors
(independent of fricsim's own report), with u (local, on the velocity scale max(|q|inf,
|u_ref|inf)) or v (global, relative to |v_ref|inf) compared with the Siconos reference where one
exists. Prints the per-solver table, then per problem the best of each and the ratios.
"""
import glob, json, os, re, subprocess, sys, tempfile, time
import numpy as np
import scipy.sparse as sp

HERE = os.path.dirname(os.path.abspath(__file__))
BIN = sys.argv[1] if len(sys.argv) > 1 and not sys.argv[1].startswith('--') else os.path.join(
    os.environ.get('CARGO_TARGET_DIR', os.path.join(HERE, '..', 'target')), 'release', 'fricsim')
DIR = sys.argv[2] if len(sys.argv) > 2 and not sys.argv[1].startswith('--') else os.path.join(HERE, '..', '..', 'shared', 'fclib')
sys.path.insert(0, DIR)
import fclib_tools as T  # noqa: E402

TOL = 1e-8
LIMIT_S = 20  # per solve, both codes
SICONOS_LOCAL = ['NSGS', 'NSN_FB', 'PROX', 'ADMM']
SICONOS_GLOBAL = ['NSGS_WR', 'ADMM', 'NSN_AC_WR']
FRICSIM_LOCAL = ['auto', 'gs', 'fb', 'prox-point', 'admm-local', 'prox', 'sp-exact']
FRICSIM_GLOBAL = ['auto', 'gs', 'fb', 'prox-point', 'sp-exact', 'admm']


def read_text(path):
    """A problem in the shared text format, as fclib_tools.read_problem returns it."""
    mats, vecs, kind = {}, {}, None
    lines = [l.split('#')[0].strip() for l in open(path)]
    lines = [l for l in lines if l]
    i = 0
    while i < len(lines):
        t = lines[i].split()
        if t[0] == 'matrix':
            m, n, nnz = int(t[2]), int(t[3]), int(t[4])
            a = np.array([[float(x) for x in lines[i + 1 + k].split()] for k in range(nnz)]).reshape(-1, 3)
            mats[t[1]] = sp.csr_matrix((a[:, 2], (a[:, 0].astype(int), a[:, 1].astype(int))), shape=(m, n))
            i += 1 + nnz
        elif t[0] == 'vector':
            n = int(t[2])
            vecs[t[1]] = np.array([float(x) for x in lines[i + 1:i + 1 + n]])
            i += 1 + n
        else:
            if t[0] == 'kind':
                kind = t[1]
            i += 1
    if kind == 'local':
        return dict(kind='local', W=mats['W'], q=vecs['q'], mu=vecs['mu'])
    return dict(kind='global', M=mats['M'], H=mats['H'], f=vecs['f'], w=vecs['w'], mu=vecs['mu'])


def load(path):
    return T.read_problem(path) if path.endswith('.hdf5') else read_text(path)


def siconos_worker(path, s):
    import siconos.numerics as sn
    P = load(path); nc = len(P['mu'])
    r, u = np.zeros(3 * nc), np.zeros(3 * nc)
    if P['kind'] == 'local':
        prob = sn.FrictionContactProblem(3, nc, sp.csc_matrix(P['W']), P['q'], P['mu'])
        so = sn.SolverOptions(getattr(sn, 'SICONOS_FRICTION_3D_' + s))
        so.iparam[sn.SICONOS_IPARAM_MAX_ITER] = 100000; so.dparam[sn.SICONOS_DPARAM_TOL] = TOL
        t = time.perf_counter(); info = sn.fc3d_driver(prob, r, u, so); dt = time.perf_counter() - t
        e = T.errors(P, r)['siconos_rel']
    else:
        prob = sn.GlobalFrictionContactProblem(); prob.dimension, prob.numberOfContacts = 3, nc
        prob.M, prob.H, prob.q, prob.b, prob.mu = P['M'].toarray(), P['H'].toarray(), P['f'], P['w'], P['mu']
        so = sn.SolverOptions(getattr(sn, 'SICONOS_GLOBAL_FRICTION_3D_' + s))
        so.iparam[sn.SICONOS_IPARAM_MAX_ITER] = 20000; so.dparam[sn.SICONOS_DPARAM_TOL] = TOL
        v = np.zeros(P['M'].shape[0])
        t = time.perf_counter(); info = sn.gfc3d_driver(prob, r, u, v, so); dt = time.perf_counter() - t
        e = T.errors(P, r, v)['siconos_gfc3d_error']
    print(json.dumps(dict(info=int(info), it=int(so.iparam[sn.SICONOS_IPARAM_ITER_DONE]), ms=dt * 1e3, err=float(e))))


def siconos(path, s):
    """One Siconos solve in its own process: (converged, iterations, ms, error, note)."""
    try:
        p = subprocess.run([sys.executable, os.path.abspath(__file__), '--siconos-worker', path, s],
                           capture_output=True, text=True, timeout=LIMIT_S + 10)
    except subprocess.TimeoutExpired:
        return False, 0, float('nan'), float('nan'), 'over %d s' % LIMIT_S
    line = [l for l in p.stdout.splitlines() if l.startswith('{')]
    if p.returncode != 0 or not line:
        return False, 0, float('nan'), float('nan'), 'aborted (exit %d)' % p.returncode
    d = json.loads(line[-1])
    return d['info'] == 0 and d['err'] <= TOL, d['it'], d['ms'], d['err'], ''


def fricsim(path, s, out):
    p = subprocess.run([BIN, 'fclib', 'solve', path, '--solver', s, '--output', out, '--max-time', str(LIMIT_S)],
                       capture_output=True, text=True)
    m = re.search(r'(converged|FAILED) after (\d+) iterations, .* rel ([0-9.e+-]+|NaN|inf), ([0-9.]+) ms', p.stdout)
    if not m:
        return None
    return dict(ok=m.group(1) == 'converged', it=int(m.group(2)), ms=float(m.group(4)))


def problems():
    hdf5 = sorted(glob.glob(os.path.join(DIR, '*.hdf5')))
    stems = {os.path.basename(h)[:-5] for h in hdf5}
    texts = [t for t in sorted(glob.glob(os.path.join(DIR, '*.txt')))
             if '.siconos-' not in t and os.path.basename(t)[:-4] not in stems]
    return hdf5 + texts


def main():
    rows, summary = [], []
    tmp = tempfile.mkdtemp()
    for path in problems():
        stem = re.sub(r'\.(hdf5|txt)$', '', os.path.basename(path))
        P = load(path)
        refs = sorted(glob.glob(os.path.join(DIR, stem + '.siconos-*.txt')))
        ref = T.read_txt_vectors(refs[-1]) if refs else None
        best_sic = (float('inf'), '-')
        for s in (SICONOS_LOCAL if P['kind'] == 'local' else SICONOS_GLOBAL):
            ok, it, ms, e, note = siconos(path, s)
            rows.append((stem, 'siconos ' + s, ok, it, ms, e, note))
            if ok and ms < best_sic[0]:
                best_sic = (ms, s)
        best_fs, auto_ms = (float('inf'), '-'), float('nan')
        for s in (FRICSIM_LOCAL if P['kind'] == 'local' else FRICSIM_GLOBAL):
            out = os.path.join(tmp, stem + '.' + s + '.txt')
            r = fricsim(path, s, out)
            if r is None or not os.path.exists(out):
                rows.append((stem, 'fricsim ' + s, False, 0, float('nan'), float('nan'), 'no output'))
                continue
            V = T.read_txt_vectors(out)
            note = ''
            if P['kind'] == 'local':
                e = T.errors(P, V['r'])['siconos_rel']
                if ref is not None:
                    scale = max(np.abs(P['q']).max(), np.abs(ref['u']).max())
                    note = 'u diff %.1e' % (np.abs(V['u'] - ref['u']).max() / scale)
            else:
                e = T.errors(P, V['r'], V['v'])['siconos_gfc3d_error']
                if ref is not None:
                    note = 'v diff %.1e' % (np.abs(V['v'] - ref['v']).max() / np.abs(ref['v']).max())
            ok = r['ok'] and e <= TOL
            rows.append((stem, 'fricsim ' + s, ok, r['it'], r['ms'], e, note))
            if ok and r['ms'] < best_fs[0]:
                best_fs = (r['ms'], s)
            if s == 'auto' and ok:
                auto_ms = r['ms']
        summary.append((stem, best_sic, auto_ms, best_fs))
    print('| problem | solver | converged | iterations | time ms | error (fclib_tools) | note |')
    print('|---|---|---|---|---|---|---|')
    for r in rows:
        print('| %s | %s | %s | %d | %.2f | %.2e | %s |' % (r[0][:34], r[1], 'yes' if r[2] else '**no**', r[3], r[4], r[5], r[6]))
    print('\n| problem | Siconos best (ms) | fricsim auto (ms) | fricsim best (ms) | auto / Siconos best | fricsim best / Siconos best |')
    print('|---|---|---|---|---|---|')
    for stem, (sm, ss), am, (fm, fs) in summary:
        ratio = lambda a, b: '%.2f' % (a / b) if np.isfinite(a) and np.isfinite(b) else '-'
        print('| %s | %s %.1f | %.1f | %s %.1f | %s | %s |' % (stem[:34], ss, sm, am, fs, fm, ratio(am, sm), ratio(fm, sm)))


if __name__ == '__main__':
    if len(sys.argv) > 1 and sys.argv[1] == '--siconos-worker':
        siconos_worker(sys.argv[2], sys.argv[3])
    else:
        main()
