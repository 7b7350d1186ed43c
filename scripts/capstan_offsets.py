#!/usr/bin/env python3
"""000 experiment 6e with Appendix B (E3b): the 4 m cloth strip over the cylinder of validation
case 9, shifted 0 / 0.16 / 0.32 / 0.40 / 0.48 / 0.64 m from balanced, each run with friction 10 %
below and 10 % above Appendix B's critical mu* (the misprint corrected); then the 0.40 m case at
three resolutions. Prints the README's tables (Markdown).

    python3 scripts/capstan_offsets.py [--seconds 1.0] [--quick]

A strip "slips" when its centroid moves faster than 1 cm/s after `seconds`; it "holds" when its
centroid has dropped less than 0.1 mm (a slide of the strip lowers it: at 0.9 mu* it drops
centimetres in a second). A holding strip still sways at 1e-4 m/s after its release, so speed
alone does not tell holding from creeping. Anything else is reported as "creeps". `--quick` runs only the
0.40 m offset at the base resolution. FRICSIM names the binary (default: built here).
"""
import argparse
import csv
import math
import os
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import cloth_cylinder  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SCENE = os.path.join(ROOT, "scenes/validation/smooth_cloth_cylinder.ron")
OFFSETS = [0.0, 0.16, 0.32, 0.40, 0.48, 0.64]


def fricsim():
    exe = os.environ.get("FRICSIM")
    if exe:
        return exe
    subprocess.run(["cargo", "build", "--release", "--quiet"], cwd=ROOT, check=True)
    return os.path.join(os.environ.get("CARGO_TARGET_DIR", os.path.join(ROOT, "target")), "release", "fricsim")


def run(exe, offset, mu, seconds, segments=80, cells=2):
    """Centroid speed of the strip after `seconds` (m/s), its slide along the strip (m: how far
    the shorter end rose), and the wall time per step (s)."""
    with tempfile.TemporaryDirectory() as d:
        balanced = (cloth_cylinder.LENGTH - math.pi * cloth_cylinder.R) / 2
        cloth_cylinder.LEFT, cloth_cylinder.RIGHT = balanced - offset, balanced + offset
        cloth_cylinder.write(os.path.join(d, "strip.obj"), segments, cells)
        with open(SCENE) as f:
            text = f.read().replace("../data/cloth_cylinder_strip.obj", "strip.obj")
        scene = os.path.join(d, "strip.ron")
        with open(scene, "w") as f:
            f.write(text)
        out = os.path.join(d, "out")
        start = time.time()
        subprocess.run([exe, "run", scene, "--quiet", "--out", out, "--set", f"friction.pairs[0].mu={mu}",
                        "--set", f"duration={seconds}"], check=True)
        wall = time.time() - start
        with open(os.path.join(out, "stats.csv")) as f:
            rows = list(csv.DictReader(f))
        last = rows[-1]
        speed = math.sqrt(sum(float(last[f"strip.v{c}"]) ** 2 for c in "xyz"))
        # The centroid falls as the longer side lengthens: its drop measures the slide.
        drop = float(rows[0]["strip.z"]) - float(last["strip.z"])
        return speed, drop, wall / len(rows)


def verdict(speed, drop):
    return "slips" if speed > 1e-2 else ("holds" if drop < 1e-4 else "creeps")


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--seconds", type=float, default=1.0)
    p.add_argument("--quick", action="store_true")
    a = p.parse_args()
    exe = fricsim()
    offsets = [0.40] if a.quick else OFFSETS
    print(f"Offsets ({a.seconds} s, 80 x 2 cells, h = 0.01):\n")
    print("| offset (m) | mu* (App. B) | mu below | speed (m/s) | drop (m) | | mu above | speed (m/s) | drop (m) | |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for d in offsets:
        star = cloth_cylinder.critical_mu(d)
        below, above = (0.0, 0.05) if d == 0.0 else (0.9 * star, 1.1 * star)
        (s1, d1, _), (s2, d2, _) = run(exe, d, below, a.seconds), run(exe, d, above, a.seconds)
        print(f"| {d:.2f} | {star:.4f} | {below:.4f} | {s1:.2e} | {d1:.1e} | {verdict(s1, d1)} "
              f"| {above:.4f} | {s2:.2e} | {d2:.1e} | {verdict(s2, d2)} |", flush=True)
    print(f"\nResolution (offset 0.40, mu* = 0.1402, {a.seconds} s):\n")
    print("| cells along x across | triangles | mu 0.13: speed (m/s) | centroid drop (m) | mu 0.15: speed (m/s) | s / step |")
    print("|---|---|---|---|---|---|")
    for n in ([80] if a.quick else [40, 80, 160]):
        (s1, d1, w1), (s2, _, w2) = run(exe, 0.40, 0.13, a.seconds, n), run(exe, 0.40, 0.15, a.seconds, n)
        print(f"| {n} x 2 | {4 * n} | {s1:.4f} | {d1:.4f} | {s2:.2e} | {0.5 * (w1 + w2):.3f} |", flush=True)


if __name__ == "__main__":
    main()
