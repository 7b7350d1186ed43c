#!/usr/bin/env python3
"""Writes scenes/data/cloth_cylinder_strip.obj: 000 Appendix B's cloth hanging over a cylinder
(validation case 9). A strip of length 4 m and width 0.2 m lies over the top half of a cylinder
of radius R = 1.6/pi along the y axis (wrapped length pi R = 1.6 m) with 0.8 m hanging on the
left and 1.6 m on the right, so the ends are 0.8 m apart vertically (offset 0.4 m from the
balanced 1.2 / 1.2). It is placed `lift` above the surface.

    scripts/cloth_cylinder.py [segments_along_length] [cells_across] [--offset D] [--out PATH]

`--offset D` shifts the strip D metres from balanced (1.2 - D hanging on the left, 1.2 + D on
the right; default 0.4). `critical_mu(D)` is Appendix B's threshold (the misprint corrected: the
wrapped length pi R where the paper prints mu R)."""
import math
import sys

R = 1.6 / math.pi
LIFT = 1e-4
LENGTH, WIDTH = 4.0, 0.2
LEFT, RIGHT = 0.8, 1.6


def critical_mu(offset):
    """The mu at which an inextensible strip hanging 1.2 - offset / 1.2 + offset is on the verge
    of slipping: the root of (l - pi R) e^{-pi mu/2} / (2 cosh(pi mu/2)) - 2 R mu/(mu^2+1) = l_short."""
    short = (LENGTH - math.pi * R) / 2 - offset

    def f(mu):
        return (LENGTH - math.pi * R) * math.exp(-math.pi * mu / 2) / (2 * math.cosh(math.pi * mu / 2)) \
            - 2 * R * mu / (mu * mu + 1) - short

    lo, hi = 0.0, 2.0
    for _ in range(200):
        mid = 0.5 * (lo + hi)
        lo, hi = (mid, hi) if f(mid) > 0 else (lo, mid)
    return 0.5 * (lo + hi)


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


def write(out, n, m):
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


def main():
    global LEFT, RIGHT
    args = sys.argv[1:]
    opts = {}
    for flag in ("--offset", "--out"):
        if flag in args:
            k = args.index(flag)
            opts[flag] = args[k + 1]
            del args[k:k + 2]
    n = int(args[0]) if len(args) > 0 else 80
    m = int(args[1]) if len(args) > 1 else 2
    offset = float(opts.get("--offset", 0.4))
    balanced = (LENGTH - math.pi * R) / 2
    LEFT, RIGHT = balanced - offset, balanced + offset
    out = opts.get("--out", "scenes/data/cloth_cylinder_strip.obj")
    write(out, n, m)
    print(out)


if __name__ == "__main__":
    main()
