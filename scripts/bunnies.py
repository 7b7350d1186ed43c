#!/usr/bin/env python3
"""004 §8.4 (after Verschoor & Jalba 2019, Fig. 11): 120 soft bunnies dropped into a bin.

Writes
  scenes/data/critter_fine.obj  the bunny-like critter of scripts/nonconvex_scenes.py at 004's
                                surface size: 36 rings x 36 segments, 1262 vertices and 2520
                                triangles (004's bunny: 2498);
  scenes/bunnies.ron            N critters (default 120) in layers of 20 above a 0.6 x 0.5 m bin,
                                each its surface embedded in a voxel cage (fixed co-rotated tets,
                                004's non-conforming solids), turned at random about z, dropped.

004's settings: h = 1 ms, mu 0.5, nu 0.4, one projected Newton iteration per step (N_PN = 1),
ADMM to delta_inf = 0.01 mm within 250 iterations, N_GS = 10. Its stiffness and density are
garbled in the paper's Table 4; these are a soft rubber's.

Usage: scripts/bunnies.py [--count N] [--out PATH]
"""
import argparse
import math
import os
import random
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from nonconvex_scenes import critter_surface, write_obj  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PER_LAYER = (5, 4)
SPACING = 0.12          # m between critters in a layer (a critter is about 0.12 m long)
LAYER = 0.14            # m between layers
CELL = 0.012           # m, cage cubes: about 2100 tets per critter (004: 2132)
BIN = (0.6, 0.5, 0.4)   # m, inner size
WALL = 0.05             # m


def scene(count, seed=4):
    rng = random.Random(seed)
    nx, ny = PER_LAYER
    bodies = []
    for k in range(count):
        layer, slot = divmod(k, nx * ny)
        i, j = slot % nx, slot // nx
        x = (i - (nx - 1) / 2) * SPACING
        y = (j - (ny - 1) / 2) * SPACING
        z = 0.08 + layer * LAYER
        bodies.append(
            '        Solid(name: "b%d", material: "bunny", mesh: Embedded(surface: "data/critter_fine.obj", '
            "cage: Grid(cell: %g)),\n              position: (%.4f, %.4f, %.4f), rotation: (0.0, 0.0, %d.0)),"
            % (k, CELL, x, y, z, rng.randrange(360))
        )
    bx, by, bz = BIN
    walls = [
        ("wall_x0", (-(bx + WALL) / 2, 0.0, bz / 2), (WALL, by + 2 * WALL, bz)),
        ("wall_x1", ((bx + WALL) / 2, 0.0, bz / 2), (WALL, by + 2 * WALL, bz)),
        ("wall_y0", (0.0, -(by + WALL) / 2, bz / 2), (bx, WALL, bz)),
        ("wall_y1", (0.0, (by + WALL) / 2, bz / 2), (bx, WALL, bz)),
    ]
    colliders = "\n".join(
        '        Box(name: "%s", material: "bin", size: (%g, %g, %g), position: (%g, %g, %g)),' % (n, *s, *p)
        for n, p, s in walls
    )
    body_text = "\n".join(bodies)
    return f"""// 004 §8.4 (Fig. 11, after Verschoor & Jalba 2019): {count} soft bunny-like critters dropped into a bin,
// each a 2520-triangle surface embedded in a voxel cage of fixed co-rotated tets (004's
// non-conforming solids). Regenerate with scripts/bunnies.py (--count N for fewer).
//   fricsim run scenes/bunnies.ron
Scene(
    name: "bunnies",
    dt: 1e-3,
    duration: 2.0,
    frame_rate: 50.0,
    gravity: (0.0, 0.0, -9.81),
    materials: {{
        "bunny": (density: 1000.0, youngs_modulus: 2e5, poisson_ratio: 0.4, model: FixedCorotated),
        "bin": (),
    }},
    friction: (default: (mu: 0.5)),
    bodies: [
{body_text}
    ],
    colliders: [
        Plane(name: "floor", material: "bin"),
{colliders}
    ],
    pipeline: Nonsmooth(solver: Admm, tolerance: 1e-6, max_iterations: 250, newton_iterations: 1,
                        admm: (gs_sweeps: 10, delta_inf: 1e-5)),
)
"""


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--count", type=int, default=120)
    ap.add_argument("--out", default=os.path.join(ROOT, "scenes", "bunnies.ron"))
    args = ap.parse_args()
    verts, tris = critter_surface(rings=36, segments=36)
    write_obj(os.path.join(ROOT, "scenes", "data", "critter_fine.obj"), verts, tris)
    with open(args.out, "w") as f:
        f.write(scene(args.count))
    print(f"critter_fine.obj: {len(verts)} vertices, {len(tris)} triangles; {args.out}: {args.count} critters")


if __name__ == "__main__":
    main()
