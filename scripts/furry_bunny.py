#!/usr/bin/env python3
"""004 §8.5 (Fig. 12), the furry bunny, at a size that runs in minutes here: the bunny-like
critter of scripts/nonconvex_scenes.py (a non-convex rigid body, issue 24's `Mesh` shape) with a
fur of short curly rods rooted at its surface vertices (`attach_to` the body), sliding down a
ramp into a hanging cloth, which it pushes aside.

Writes
  scenes/data/bunny_fur.ply  one rod per vertex of scenes/data/critter.obj, placed with it: from the vertex
                             outwards along its direction from the critter's centre, LENGTH long
                             in SEGMENTS edges, coiled as `HairyBall`'s curliness coils;
  scenes/furry_bunny.ron     the scene.

004's bunny is soft (embedded fixed co-rotated tets) with 29k rods, its cloth 1.7k vertices; here
the body is rigid, with 182 rods, and the cloth has 21 x 17 vertices.

Usage: scripts/furry_bunny.py
"""
import math
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from nonconvex_scenes import critter_surface  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
LENGTH = 0.015      # m
SEGMENTS = 5
CURL = 0.3          # coil radius CURL * LENGTH / 4, 3 turns (as HairyBall)
RAMP_DEG = 30.0


def basis(n):
    """Two unit vectors normal to n and to each other."""
    a = (1.0, 0.0, 0.0) if abs(n[0]) < 0.9 else (0.0, 1.0, 0.0)
    u = (n[1] * a[2] - n[2] * a[1], n[2] * a[0] - n[0] * a[2], n[0] * a[1] - n[1] * a[0])
    lu = math.sqrt(sum(c * c for c in u))
    u = tuple(c / lu for c in u)
    w = (n[1] * u[2] - n[2] * u[1], n[2] * u[0] - n[0] * u[2], n[0] * u[1] - n[1] * u[0])
    return u, w


def fur(verts):
    rods = []
    coil = CURL * LENGTH / 4.0
    for p in verts:
        lp = math.sqrt(sum(c * c for c in p))
        n = tuple(c / lp for c in p)
        u, w = basis(n)
        rod = []
        for j in range(SEGMENTS + 1):
            s = j / SEGMENTS
            a = 6.0 * math.pi * s
            rod.append(tuple(p[k] + n[k] * LENGTH * s + (u[k] * (math.cos(a) - 1.0) + w[k] * math.sin(a)) * coil * s
                             for k in range(3)))
        rods.append(rod)
    return rods


def write_ply(path, rods):
    pts = [p for r in rods for p in r]
    edges = []
    k = 0
    for r in rods:
        edges += [(k + j, k + j + 1) for j in range(len(r) - 1)]
        k += len(r)
    with open(path, "w") as f:
        f.write("ply\nformat ascii 1.0\ncomment fur of the critter, scripts/furry_bunny.py\n")
        f.write(f"element vertex {len(pts)}\nproperty float x\nproperty float y\nproperty float z\n")
        f.write(f"element edge {len(edges)}\nproperty int vertex1\nproperty int vertex2\nend_header\n")
        f.writelines("%.9g %.9g %.9g\n" % p for p in pts)
        f.writelines("%d %d\n" % e for e in edges)


def turn(p):
    """R_y(RAMP_DEG) p: the critter's and the ramp's turn (fricsim's rotation (0, RAMP_DEG, 0))."""
    t = math.radians(RAMP_DEG)
    return (p[0] * math.cos(t) + p[2] * math.sin(t), p[1], -p[0] * math.sin(t) + p[2] * math.cos(t))


def start_position():
    """The critter's mesh origin: 0.12 m up the slope from its foot at the origin, lifted along
    the slope's normal by its half height (0.7 of its size), the fur and 5 mm."""
    t = math.radians(RAMP_DEG)
    s0, lift = 0.12, 0.05 * 0.7 + LENGTH + 0.005
    return (-s0 * math.cos(t) + lift * math.sin(t), 0.0, s0 * math.sin(t) + lift * math.cos(t))


def scene():
    t = math.radians(RAMP_DEG)
    # The ramp's top face runs down along +x to the floor at x = 0; the critter starts on it
    # 0.25 m up the slope, 1 cm above it, moving down at 0.5 m/s.
    ramp_len, ramp_thick = 0.5, 0.04
    # The box turned by R_y(t) with its top face's lower edge at the origin.
    cx = -ramp_len / 2 * math.cos(t) - ramp_thick / 2 * math.sin(t)
    cz = ramp_len / 2 * math.sin(t) - ramp_thick / 2 * math.cos(t)
    start = start_position()
    v = (1.0 * math.cos(t), 0.0, -1.0 * math.sin(t))
    return f"""// 004 §8.5 (Fig. 12), the furry bunny, at a size that runs in minutes: a bunny-like critter
// (scenes/data/critter.obj, a non-convex rigid body) with 182 curly rods of fur rooted at its
// surface (scenes/data/bunny_fur.ply, attach_to the body) slides down a {RAMP_DEG:.0f} degree ramp into a
// hanging cloth and pushes it aside. 004's bunny is soft, with 29k rods. Friction as 004's text:
// ground 1.0, the rest 0.5. Regenerate with scripts/furry_bunny.py.
//   fricsim run scenes/furry_bunny.ron
Scene(
    name: "furry_bunny",
    dt: 1e-3,
    duration: 0.6,
    frame_rate: 50.0,
    gravity: (0.0, 0.0, -9.81),
    materials: {{
        "body": (density: 500.0),
        "fur": (density: 1300.0, youngs_modulus: 4e8, poisson_ratio: 0.48, radius: 1e-4),
        "cloth": (density: 500.0, youngs_modulus: 1e6, poisson_ratio: 0.4, thickness: 2e-3),
        "ground": (),
    }},
    friction: (
        default: (mu: 0.5),
        pairs: [ (between: ("body", "ground"), mu: 1.0), (between: ("fur", "ground"), mu: 1.0),
                 (between: ("cloth", "ground"), mu: 1.0) ],
    ),
    bodies: [
        Rigid(name: "bunny", material: "body", shape: Mesh(path: "data/critter.obj"),
              position: ({start[0]:.5f}, {start[1]:.5f}, {start[2]:.5f}), rotation: (0.0, {RAMP_DEG:.1f}, 0.0),
              velocity: ({v[0]:.5f}, {v[1]:.5f}, {v[2]:.5f})),
        Rods(name: "fur", material: "fur", curves: File(path: "data/bunny_fur.ply"),
             attach_to: Some("bunny"), velocity: ({v[0]:.5f}, {v[1]:.5f}, {v[2]:.5f})),
        Cloth(name: "curtain", material: "cloth", mesh: Grid(size: (0.3, 0.24), cells: (20, 16)),
              position: (0.12, 0.0, 0.145), rotation: (90.0, 0.0, 90.0),
              kinematic: [ (region: Box(min: (0.1, -1.0, 0.26), max: (0.14, 1.0, 0.3))) ]),
    ],
    colliders: [
        Plane(name: "floor", material: "ground"),
        Box(name: "ramp", material: "ground", size: ({ramp_len}, 0.4, {ramp_thick}), position: ({cx:.5f}, 0.0, {cz:.5f}),
            rotation: (0.0, {RAMP_DEG:.1f}, 0.0)),
    ],
    pipeline: Nonsmooth(solver: Auto, tolerance: 1e-4, contact_margin: 2e-4, on_failure: Continue),
)
"""


def main():
    verts, _ = critter_surface()
    # Placed where the scene puts the critter (rod files are in world coordinates).
    x0 = start_position()
    rods = [[tuple(a + b for a, b in zip(turn(p), x0)) for p in r] for r in fur(verts)]
    write_ply(os.path.join(ROOT, "scenes", "data", "bunny_fur.ply"), rods)
    with open(os.path.join(ROOT, "scenes", "furry_bunny.ron"), "w") as f:
        f.write(scene())
    print(f"bunny_fur.ply: {len(verts)} rods of {SEGMENTS} segments; scenes/furry_bunny.ron")


if __name__ == "__main__":
    main()
