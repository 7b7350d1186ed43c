#!/usr/bin/env python3
"""Writes scenes/data/cloth_cylinder_strip.obj: 000 Appendix B's cloth hanging over a cylinder
(validation case 9). A strip of length 4 m and width 0.2 m lies over the top half of a cylinder
of radius R = 1.6/pi along the y axis (wrapped length pi R = 1.6 m) with 0.8 m hanging on the
left and 1.6 m on the right, so the ends are 0.8 m apart vertically. It is placed `lift` above the
surface. Usage: scripts/cloth_cylinder.py [segments_along_length] [cells_across]"""
import math
import sys

R = 1.6 / math.pi
LIFT = 1e-4
LENGTH, WIDTH = 4.0, 0.2
LEFT, RIGHT = 0.8, 1.6


def point(s):
    """Position of arc length s along the strip's centre line (x, z)."""
    r = R + LIFT
    if s <= LEFT:
        return (-r, -(LEFT - s))
    s -= LEFT
    if s <= math.pi * R:
        phi = math.pi - s / R
        return (r * math.cos(phi), r * math.sin(phi))
    s -= math.pi * R
    return (r, -s)


def main():
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 80
    m = int(sys.argv[2]) if len(sys.argv) > 2 else 2
    out = "scenes/data/cloth_cylinder_strip.obj"
    with open(out, "w") as f:
        f.write(f"# 000 Appendix B strip: {n} x {m} cells, written by scripts/cloth_cylinder.py\n")
        for i in range(n + 1):
            x, z = point(LENGTH * i / n)
            for j in range(m + 1):
                f.write(f"v {x:.12f} {WIDTH * (j / m - 0.5):.12f} {z:.12f}\n")
        for i in range(n):
            for j in range(m):
                a = i * (m + 1) + j + 1
                b, c, d = a + 1, a + m + 1, a + m + 2
                # Normals point away from the cylinder (outward), counter-clockwise seen from there.
                f.write(f"f {a} {c} {b}\nf {b} {c} {d}\n")
    print(out)


if __name__ == "__main__":
    main()
