#!/usr/bin/env python3
"""Generate the rope scenes of issue 5 and predict their friction thresholds:

- scenes/rope_over_cylinder.ron: a rope draped over one horizontal cylinder, a load at each end
  (0.1 kg and 0.3 kg).
- scenes/rope_cylinders.ron: 004 Fig. 2, a rope snaked over, under and over three horizontal
  cylinders (total wrap 3 pi), a heavy body (2 kg) tied to one end, a light one (0.08 kg) to the
  other; locks at mu = 0.5, unravels at mu = 0.2.

Both ropes are made of vertical spans and half circles around the cylinders (axis y, the rope in
the xz plane at y = 0), so every wrap is exactly pi. The root (first node, `root_mass`) is the
light end and the tip (last node, `tip_mass`) the heavy end.

Predicted threshold (Euler-Eytelwein with the rope's own weight): at impending slip the rope
moves from the light end towards the heavy end, and along the path (arc length s, direction of
travel t, outward cylinder normal n, centre-line radius rho = R + r, weight per length lam g):

    spans:  dT/ds = lam g t_z
    arcs:   dT/ds = mu N + lam g t_z,   N = T / rho + lam g n_z   (normal force per length)

from T = m_light g at the root. The rope holds iff the tension this gives at the tip is at least
m_heavy g; mu* is where they are equal (bisection). Without rope weight mu* = ln(ratio) / theta.

    python3 scripts/ropes.py            # rewrites both scenes, prints the thresholds
"""
import math
import os

G = 9.81
ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")


class Path:
    """A rope centre line: pieces ("line", a, b) and ("arc", centre, rho, a0, a1) in the xz plane."""

    def __init__(self, start):
        self.pieces = []
        self.end = start

    def line_to(self, b):
        self.pieces.append(("line", self.end, b))
        self.end = b

    def arc(self, centre, rho, a0, a1):
        self.pieces.append(("arc", centre, rho, a0, a1))
        self.end = (centre[0] + rho * math.cos(a1), centre[1] + rho * math.sin(a1))

    def polyline(self, seg):
        """Nodes (x, z): each piece cut into round(length / seg) equal segments."""
        pts = []
        for p in self.pieces:
            if p[0] == "line":
                (ax, az), (bx, bz) = p[1], p[2]
                n = max(1, round(math.hypot(bx - ax, bz - az) / seg))
                pts += [(ax + (bx - ax) * k / n, az + (bz - az) * k / n) for k in range(n)]
            else:
                (cx, cz), rho, a0, a1 = p[1:]
                n = max(1, round(rho * abs(a1 - a0) / seg))
                pts += [(cx + rho * math.cos(a0 + (a1 - a0) * k / n), cz + rho * math.sin(a0 + (a1 - a0) * k / n)) for k in range(n)]
        pts.append(self.end)
        return pts

    def length(self):
        return sum(math.hypot(p[2][0] - p[1][0], p[2][1] - p[1][1]) if p[0] == "line" else p[2] * abs(p[4] - p[3]) for p in self.pieces)

    def wrap(self):
        return sum(abs(p[4] - p[3]) for p in self.pieces if p[0] == "arc")

    def tip_tension(self, mu, t_root, lam):
        """Tension at the tip at impending slip towards the tip (RK4 on the arcs)."""
        t = t_root
        for p in self.pieces:
            if p[0] == "line":
                t += lam * G * (p[2][1] - p[1][1])
                continue
            (cx, cz), rho, a0, a1 = p[1:]
            sgn = 1.0 if a1 > a0 else -1.0  # counterclockwise travel: t = (-sin a, cos a)

            def rate(a, tt):
                n_z = math.sin(a)
                t_z = sgn * math.cos(a)
                normal = max(0.0, tt / rho + lam * G * n_z)
                return (mu * normal + lam * G * t_z) * rho  # dT/da along the travel
            n = 2000
            h = (a1 - a0) / n
            a = a0
            for _ in range(n):
                k1 = rate(a, t)
                k2 = rate(a + h / 2, t + abs(h) / 2 * k1)
                k3 = rate(a + h / 2, t + abs(h) / 2 * k2)
                k4 = rate(a + h, t + abs(h) * k3)
                t += abs(h) / 6 * (k1 + 2 * k2 + 2 * k3 + k4)
                a += h
        return t

    def threshold(self, m_light, m_heavy, lam):
        lo, hi = 0.0, 5.0
        for _ in range(100):
            mid = 0.5 * (lo + hi)
            if self.tip_tension(mid, m_light * G, lam) >= m_heavy * G:
                hi = mid
            else:
                lo = mid
        return 0.5 * (lo + hi)


def sci(x):
    """2e9, not 2e+09."""
    return f"{x:.0e}".replace("e+0", "e").replace("e+", "e")


def fmt(x):
    """A RON float: shortest round-trip form of x rounded to 1e-9 m (so 0.2025, not 0.20249999...)."""
    return repr(round(float(x), 9)) if abs(x) > 1e-12 else "0.0"


def write_scene(name, header, path, seg, rope, m_light, m_heavy, cylinders, mu, extra_colliders, duration):
    pts = path.polyline(seg)
    poly = ",\n            ".join(", ".join(f"({fmt(x)}, 0.0, {fmt(z)})" for x, z in pts[i:i + 4]) for i in range(0, len(pts), 4))
    cyl = "\n".join(
        f'        Cylinder(name: "{n}", material: "steel", radius: {fmt(r)}, length: 0.1, position: ({fmt(x)}, 0.0, {fmt(z)}), rotation: (90.0, 0.0, 0.0)),'
        for n, (x, z), r in cylinders
    )
    text = f"""{header}
Scene(
    name: "{name}",
    dt: 2e-3, duration: {duration}, frame_rate: 50.0,
    materials: {{
        "rope": (density: {fmt(rope['density'])}, youngs_modulus: {sci(rope['E'])}, poisson_ratio: 0.3, radius: {fmt(rope['r'])}),
        "steel": (),
    }},
    friction: (default: (mu: {mu})),
    bodies: [
        Rods(name: "rope", material: "rope", root_mass: {fmt(m_light)}, tip_mass: {fmt(m_heavy)}, self_contact: false,
             curves: Polylines([[
            {poly}
        ]])),
    ],
    colliders: [
{cyl}{extra_colliders}
    ],
    pipeline: Nonsmooth(solver: FischerBurmeister, tolerance: 1e-6, max_iterations: 2000),
)
"""
    out = os.path.join(ROOT, "scenes", f"{name}.ron")
    with open(out, "w") as f:
        f.write(text)
    return len(pts)


def one_cylinder():
    big_r, r, span, seg = 0.05, 0.0005, 0.2, 0.01
    rope = {"density": 1000.0, "E": 1e9, "r": r}
    lam = rope["density"] * math.pi * r * r
    rho = big_r + r
    m_light, m_heavy = 0.1, 0.3
    p = Path((rho, -span))
    p.line_to((rho, 0.0))
    p.arc((0.0, 0.0), rho, 0.0, math.pi)
    p.line_to((-rho, -span))
    mu_star = p.threshold(m_light, m_heavy, lam)
    ideal = math.log(m_heavy / m_light) / p.wrap()
    header = f"""// A rope over one horizontal cylinder (R = {big_r} m, axis y) with a load at each end:
// {m_light} kg on the first node (root_mass, right), {m_heavy} kg on the last (tip_mass, left),
// {span} m vertical spans, wrap pi. Released from rest. Euler-Eytelwein: it holds iff
// {m_heavy} / {m_light} <= exp(mu pi), mu* = ln 3 / pi = {ideal:.4f} ({mu_star:.4f} with the rope's
// weight). mu = 0.5 holds (exp(0.5 pi) = 4.81 > 3); `--set friction.default.mu=0.2` slides
// (exp(0.2 pi) = 1.87 < 3). Rope: r = {r} m, E = {sci(rope['E'])} Pa (strain at 3 N {100 * m_heavy * G / (rope['E'] * math.pi * r * r):.2f} %),
// {seg} m segments. Generated by `python3 scripts/ropes.py`; tests/ropes.rs checks both sides."""
    n = write_scene("rope_over_cylinder", header, p, seg, rope, m_light, m_heavy,
                    [("drum", (0.0, 0.0), big_r)], 0.5, "", 1.0)
    print(f"rope_over_cylinder: {n} nodes, length {p.length():.4f} m, wrap {p.wrap():.4f}, "
          f"mu* = {mu_star:.5f} (ideal {ideal:.5f})")


def three_cylinders():
    big_r, r, h, seg = 0.04, 0.0005, 0.15, 0.01
    span_light, span_heavy = 0.4, 0.15
    rope = {"density": 1000.0, "E": 2e9, "r": r}
    lam = rope["density"] * math.pi * r * r
    rho = big_r + r
    m_light, m_heavy = 0.08, 2.0
    c1, c2, c3 = (0.0, 0.0), (2 * rho, -h), (4 * rho, 0.0)
    p = Path((5 * rho, -span_light))
    p.line_to((5 * rho, 0.0))
    p.arc(c3, rho, 0.0, math.pi)  # over the right cylinder
    p.line_to((3 * rho, -h))
    p.arc(c2, rho, 0.0, -math.pi)  # under the middle one
    p.line_to((rho, 0.0))
    p.arc(c1, rho, 0.0, math.pi)  # over the left one
    p.line_to((-rho, -span_heavy))
    mu_star = p.threshold(m_light, m_heavy, lam)
    ratio = m_heavy / m_light
    ideal = math.log(ratio) / p.wrap()
    header = f"""// 004 Fig. 2: a rope over several cylinders holding a heavy body. The paper gives no geometry;
// ours: three horizontal cylinders (R = {big_r} m, axis y) at x = 0, 2 rho, 4 rho (rho = R + r
// = {rho} m), the middle one {h} m lower. The rope (r = {r} m, E = {sci(rope['E'])} Pa, {seg} m
// segments, {lam * p.length() * 1000:.2f} g) hangs {span_light} m down right of the right cylinder with a light
// body ({m_light} kg, root_mass) at its end, goes over it, down, under the middle one, up, over
// the left one and {span_heavy} m down to the heavy body ({m_heavy} kg, tip_mass). Every span is
// vertical, so each wrap is pi and the total wrap theta = 3 pi.
// Euler-Eytelwein: static iff m_heavy / m_light = {ratio:g} <= exp(mu theta), i.e.
// mu >= mu* = ln {ratio:g} / (3 pi) = {ideal:.4f} ({mu_star:.4f} with the rope's weight along the
// path). mu = 0.5 locks (exp(1.5 pi) = 111); `--set friction.default.mu=0.2` unravels
// (exp(0.6 pi) = 6.6): the heavy body falls (0.58 g for a massless rope; measured ~0.45 g over
// the first 0.3 s at this dt), pulls the rope off the cylinders and lands on the floor at ~0.8 s.
// Generated by `python3 scripts/ropes.py`; tests/ropes.rs checks mu = 0.5, 0.2 and mu* +- 15 %."""
    floor = '\n        Plane(name: "floor", material: "steel", position: (0.0, 0.0, -0.8)),'
    n = write_scene("rope_cylinders", header, p, seg, rope, m_light, m_heavy,
                    [("left", c1, big_r), ("middle", c2, big_r), ("right", c3, big_r)], 0.5, floor, 1.5)
    print(f"rope_cylinders: {n} nodes, length {p.length():.4f} m, wrap {p.wrap():.4f}, "
          f"mu* = {mu_star:.5f} (ideal {ideal:.5f})")


if __name__ == "__main__":
    one_cylinder()
    three_cylinders()
