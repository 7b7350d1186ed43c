#!/usr/bin/env python3
"""002 Table 7.2 (left): Staggered Projections iterations per step with and without warm
starts, SP as 002 prints it (8 samples, no acceleration, no proximal term, eq. 5.21 at 1e-4),
on the card house and the arch. Per scene and start: mean and median SP iterations per step,
the steps whose natural map met the scene's tolerance, and the solver time per step.
Usage:
    scripts/sp_warm_study.py [--bin FRICSIM] [--steps N]   (defaults: target/release/fricsim, 500)
"""
import argparse
import os
import statistics
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from sp_baselines import run  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PRINTED = "StaggeredProjections(samples: Some(8), acceleration: Off, proximal: 0.0, stop: RelativeChange(1e-4))"
# 002's Table 7.2 (left): mean iterations with / without warm start.
THESIS = {"card_house": (3.2, 57.1), "arch": (5.6, 133.7)}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bin", default=os.path.join(ROOT, "target", "release", "fricsim"))
    ap.add_argument("--steps", type=int, default=500)
    a = ap.parse_args()
    print(f"SP as printed, {a.steps} steps of 1 ms\n")
    print("| scene | start | mean iterations | median | steps converged | solver ms per step | 002 (warm / cold) |")
    print("|---|---|---|---|---|---|---|")
    with tempfile.TemporaryDirectory() as tmp:
        for scene in ["card_house", "arch"]:
            for warm in [True, False]:
                sets = [f"pipeline.solver={PRINTED}", f"pipeline.warm_start={'true' if warm else 'false'}",
                        "pipeline.max_iterations=1000"]
                rows = run(a.bin, scene, sets, a.steps, os.path.join(tmp, f"{scene}{warm}"))
                it = [int(r["solver_iterations"]) for r in rows]
                ok = sum(int(r["converged"]) for r in rows)
                ms = 1e3 * statistics.mean(float(r["linear_solve_s"]) for r in rows)
                t = THESIS[scene]
                print(f"| {scene} | {'warm' if warm else 'cold'} | {statistics.mean(it):.1f} | {statistics.median(it):g} | {ok}/{len(rows)} | {ms:.3g} | {t[0]} / {t[1]} |", flush=True)


if __name__ == "__main__":
    main()
