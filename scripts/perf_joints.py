#!/usr/bin/env python3
"""Time per step of a free-falling chain of capsules on ball joints (README, Joints: cost).

    python3 scripts/perf_joints.py [links ...]      (default: 20 100)

Writes the chain scenes to a temporary folder, runs `target/release/fricsim` on each (100 steps
of 1 ms) and prints the mean and largest wall time per step from stats.csv.
"""
import csv
import os
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
LINK = 0.13  # capsule length 0.1 + two radii 0.015


def chain(links):
    top = LINK * links + 0.5
    lines = [f'Scene(name: "chain{links}", dt: 1e-3, frames: 1, frame_rate: 10.0,',
             '    materials: { "steel": (density: 7800.0) },',
             '    friction: (default: (mu: 0.4)),',
             '    bodies: [']
    for i in range(links):
        lines.append(f'        Rigid(name: "l{i}", material: "steel", shape: Capsule(radius: 0.015, length: 0.1), '
                     f'position: ({LINK * (i + 0.5):.3f}, 0.0, {top:.3f}), rotation: (0.0, 90.0, 0.0)),')
    lines.append('    ],\n    joints: [')
    lines.append(f'        Ball(a: "l0", point: (0.0, 0.0, {top:.3f})),')
    for i in range(1, links):
        lines.append(f'        Ball(a: "l{i}", b: "l{i - 1}", point: ({LINK * i:.3f}, 0.0, {top:.3f})),')
    lines.append('    ],\n    colliders: [ Plane(name: "floor", material: "steel") ],')
    lines.append('    pipeline: Nonsmooth(solver: Auto, tolerance: 1e-6, max_iterations: 2000),\n)')
    return "\n".join(lines) + "\n"


def main():
    sizes = [int(a) for a in sys.argv[1:]] or [20, 100]
    exe = os.path.join(ROOT, "target", "release", "fricsim")
    with tempfile.TemporaryDirectory() as tmp:
        for n in sizes:
            scene = os.path.join(tmp, f"chain{n}.ron")
            with open(scene, "w") as f:
                f.write(chain(n))
            out = os.path.join(tmp, f"out{n}")
            subprocess.run([exe, "run", scene, "--quiet", "--out", out], check=True)
            with open(os.path.join(out, "stats.csv")) as f:
                wall = [float(r["wall_s"]) for r in csv.DictReader(f)]
            print(f"{n} links ({3 * n} rows): {1e3 * sum(wall) / len(wall):.3f} ms per step, "
                  f"largest {1e3 * max(wall):.3f} ms")


if __name__ == "__main__":
    main()
