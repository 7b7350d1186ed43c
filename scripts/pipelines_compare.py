#!/usr/bin/env python3
"""The three contact pipelines on 000's threshold scenes, one table (README "Smooth pipeline").

For each scene and pipeline: the run just below the threshold (fitted acceleration over the
second half against the exact g (sin - mu cos), or for the cylinder the strip's speed at the
end), the run just above it (speed at the end: 0 for exact Coulomb friction, the creep of a
smoothed law), and the mean wall time per step. Usage:
    scripts/pipelines_compare.py [FRICSIM binary]   (default: target/release/fricsim)
"""
import csv
import math
import os
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BIN = sys.argv[1] if len(sys.argv) > 1 else os.path.join(ROOT, "target", "release", "fricsim")
TAN = math.tan(math.radians(10))
NONSMOOTH = "pipeline=Nonsmooth(tolerance: 1e-8)"
PENALTY_CLOTH = "pipeline=Penalty(friction: Implicit, contact: (delta: 1e-3), newton: (residual_tolerance: 1e-7, max_iterations: 50))"

# (label, scene, body column, mus (below, above), per-pipeline extra overrides or None to skip)
CASES = [
    ("ramp, block 384 tets", "scenes/validation/smooth_ramp10.ron", "block", (0.176, 0.177),
     {"Smooth": [], "Nonsmooth": [NONSMOOTH], "Penalty": None}),
    ("ramp, block (penalty layer)", "scenes/validation/ramp10.ron", "block", (0.176, 0.177),
     {"Penalty": []}),
    ("ramp, cloth 8x8", "scenes/validation/smooth_cloth_ramp10.ron", "sheet", (TAN - 0.001, TAN + 0.001),
     {"Smooth": [], "Nonsmooth": [NONSMOOTH], "Penalty": [PENALTY_CLOTH, "friction.epsilon=1e-4", "settle=0.2"]}),
    ("cloth over cylinder", "scenes/validation/smooth_cloth_cylinder.ron", "strip", (0.13, 0.15),
     {"Smooth": [], "Nonsmooth": [NONSMOOTH], "Penalty": [PENALTY_CLOTH.replace("1e-3", "5e-5"), "friction.epsilon=1e-4"]}),
]


def run(scene, mu, extra, out):
    args = [BIN, "run", scene, "--out", out, "--quiet", "--set", f"friction.pairs[0].mu={mu}"]
    for e in extra:
        args += ["--set", e]
    p = subprocess.run(args, cwd=ROOT, capture_output=True, text=True)
    rows = list(csv.DictReader(open(os.path.join(out, "stats.csv"))))
    return p.returncode, rows


def measure(rows, body, ramp):
    t = [float(r["time"]) for r in rows]
    v = [(float(r[body + ".vx"]), float(r[body + ".vy"]), float(r[body + ".vz"])) for r in rows]
    speed = [math.sqrt(sum(c * c for c in x)) for x in v]
    wall = sum(float(r["wall_s"]) for r in rows) / len(rows)
    if not ramp:
        return None, speed[-1], wall
    th = math.radians(10)
    down = [-(x[0] * math.cos(th) + x[2] * math.sin(th)) for x in v]
    h = len(rows) // 2
    n = len(rows) - h
    mt = sum(t[h:]) / n
    mv = sum(down[h:]) / n
    a = sum((t[i] - mt) * (down[i] - mv) for i in range(h, len(rows))) / sum((t[i] - mt) ** 2 for i in range(h, len(rows)))
    return a, speed[-1], wall


def main():
    print("| scene | pipeline | mu below: result | mu above: speed at end (m/s) | s/step |")
    print("|---|---|---|---|---|")
    with tempfile.TemporaryDirectory() as tmp:
        for label, scene, body, (lo, hi), pipes in CASES:
            ramp = "ramp" in label
            for name, extra in pipes.items():
                if extra is None:
                    continue
                cells = []
                walls = []
                for mu in (lo, hi):
                    code, rows = run(scene, mu, extra, os.path.join(tmp, f"{name}-{mu}"))
                    a, speed, wall = measure(rows, body, ramp)
                    walls.append(wall)
                    failed = "" if code == 0 else f" (exit {code} at step {len(rows)})"
                    if mu == lo and ramp:
                        exact = 9.81 * (math.sin(math.radians(10)) - mu * math.cos(math.radians(10)))
                        cells.append(f"mu {mu:.6g}: a {a:.5g} vs {exact:.5g} ({100 * (a - exact) / exact:+.2f} %){failed}")
                    elif mu == lo:
                        cells.append(f"mu {mu:.6g}: slips, {speed:.3g} m/s at 1 s{failed}")
                    else:
                        cells.append(f"mu {mu:.6g}: {speed:.2e}{failed}")
                print(f"| {label} | {name} | {cells[0]} | {cells[1]} | {sum(walls) / 2:.4f} |", flush=True)


if __name__ == "__main__":
    main()
