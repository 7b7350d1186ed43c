#!/usr/bin/env python3
"""ADMM's global step three ways (README "ADMM's global step"): one Cholesky, one Cholesky per
object, Jacobi CG (`pipeline.admm.linear_solver`), on the shipped scenes.

Each case is run with each linear solver in turn, the solvers alternated over `--repeat`
rounds so that the machine's load falls on all of them alike; the table gives each one's
median. Every number comes from the runs' `stats.csv`: seconds per step, the global steps'
time (`linear_solve_s`: the factorisations, the solves and ADMM's error measures), CG
iterations (`linear_iters`), ADMM iterations, the largest natural-map error a step ended at,
failed steps, and the last step's kinetic energy (the same trajectory or not).

Usage:
  python3 scripts/admm_linear.py [--repeat 2] [--cases hair,bunnies,furry,cloth]
                                 [--out DIR]
FRICSIM=path/to/binary skips the release build. The default cases take about 15 minutes.
"""
import argparse
import csv
import datetime
import os
import statistics
import subprocess
import sys
import tempfile

from fricsim_bin import fricsim_binary

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# name: (description, scene, --set overrides, linear solvers).
CASES = {
    "hair": ("hairy ball, 4000 rods of 0.5 mm, 10 steps", "hairy_ball.ron",
             ["bodies[0].curves.count=4000", 'materials."hair".radius=5e-4', "duration=None", "frames=1"],
             ["Cholesky", "Objects"]),
    "bunnies": ("16 bunnies (`scripts/bunnies.py --count 16`), 0.15 s", None,
                ["duration=0.15"], ["Cholesky", "Objects"]),
    "furry": ("furry bunny, `solver: Admm`, 0.1 s (182 rods rooted on a rigid body)", "furry_bunny.ron",
              ["pipeline.solver=Admm", "duration=0.1"], ["Cholesky", "Objects"]),
    "cloth": ("cloth on a box (one body), 0.1 s", "cloth_on_box.ron",
              ["pipeline.solver=Admm", "duration=None", "frames=10"], ["Cholesky", "Objects", "Jacobi"]),
}


def scene_path(case, out):
    if CASES[case][1]:
        return os.path.join(ROOT, "scenes", CASES[case][1])
    # The generated scene names its meshes as `data/...`: beside it, a link to the shipped ones.
    path = os.path.join(out, "bunnies16.ron")
    if not os.path.exists(os.path.join(out, "data")):
        os.symlink(os.path.join(ROOT, "scenes", "data"), os.path.join(out, "data"))
    subprocess.run([sys.executable, os.path.join(ROOT, "scripts", "bunnies.py"), "--count", "16", "--out", path],
                   check=True, capture_output=True)
    return path


def run(fricsim, scene, sets, linear, out_dir):
    args = [fricsim, "run", scene, "--quiet", "--out", out_dir]
    for s in sets + [f"pipeline.admm.linear_solver={linear}"]:
        args += ["--set", s]
    done = subprocess.run(args, capture_output=True, text=True)
    if done.returncode != 0:
        sys.exit(f"{' '.join(args)} exited with {done.returncode}:\n{done.stderr}")
    with open(os.path.join(out_dir, "stats.csv")) as f:
        rows = list(csv.DictReader(f))
    total = lambda k: sum(float(r[k]) for r in rows)
    return {
        "steps": len(rows),
        "s_per_step": total("wall_s") / len(rows),
        "linear_s": total("linear_solve_s"),
        "cg": int(total("linear_iters")),
        "admm": int(total("solver_iterations")),
        "worst": max(float(r["final_residual"]) for r in rows),
        "failed": sum(r["converged"] not in ("1", "true") for r in rows),
        "kinetic": float(rows[-1]["kinetic_energy"]),
    }


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--repeat", type=int, default=2)
    ap.add_argument("--cases", default=",".join(CASES))
    ap.add_argument("--out", help="keep the runs here (default: a temporary folder)")
    a = ap.parse_args()
    cases = a.cases.split(",")
    for c in cases:
        if c not in CASES:
            sys.exit(f"--cases: unknown case '{c}' (known: {', '.join(CASES)})")
    fricsim = fricsim_binary()
    out = a.out or tempfile.mkdtemp(prefix="admm_linear_")
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True,
                            text=True).stdout.strip()
    print(f"Measured {datetime.datetime.now(datetime.timezone.utc):%Y-%m-%d %H:%M} UTC at {commit}, "
          f"median of {a.repeat} alternated runs.\n")
    print("| case | global step | s/step | global steps (s) | CG iterations | ADMM iterations | "
          "largest error | failed steps | final kinetic energy (J) |")
    print("|---|---|---|---|---|---|---|---|---|")
    for case in cases:
        desc, _, sets, solvers = CASES[case]
        scene = scene_path(case, out)
        runs = {s: [] for s in solvers}
        for k in range(a.repeat):
            for s in solvers:
                runs[s].append(run(fricsim, scene, sets, s, os.path.join(out, f"{case}_{s}_{k}")))
        for s in solvers:
            r = runs[s][0]
            med = lambda key: statistics.median(x[key] for x in runs[s])
            print(f"| {desc} | `{s}` | {med('s_per_step'):.3f} | {med('linear_s'):.2f} | {r['cg']} | {r['admm']} | "
                  f"{r['worst']:.1e} | {r['failed']}/{r['steps']} | {r['kinetic']:.6g} |")
            desc = ""


if __name__ == "__main__":
    main()
