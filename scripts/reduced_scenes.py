#!/usr/bin/env python3
"""Scenes of reduced deformable bodies (002 experiment 12, the dinosaur piles):

  scenes/data/critter_tets.vtk  the bunny-like critter of scripts/nonconvex_scenes.py as a tet
                                mesh, with broader ears: the cubes of a grid whose centres lie in
                                the unit ball, each vertex then moved along its ray to the
                                critter's radius r(d). That map scales rays by a positive function
                                of the direction only; with ears 0.6 high and 0.3 rad wide no tet
                                turns over (0.75 and 0.22, the rigid critter's, turn 2 to 3).
  scenes/critter_pile.ron       StVK critters dropped onto the floor, where they end in a pile.
  scenes/reduced_hopper.ron     002 experiment 11 (jamming): reduced balls poured into a funnel.

Usage: scripts/reduced_scenes.py [N] [--out PILE.ron]   (N critters in the pile, default 8)
"""
import argparse
import math
import os
import random
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from nonconvex_scenes import critter_radius  # noqa: E402
from stool_mesh import voxel_tets, write_vtk  # noqa: E402
import field_hopper  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CELLS = 6  # per side of the cube mapped onto the critter


def critter_tets(n=CELLS):
    def inside(i, j, k):
        return sum((2.0 * (c + 0.5) / n - 1.0) ** 2 for c in (i, j, k)) < 1.0

    def place(i, j, k):
        p = [2.0 * c / n - 1.0 for c in (i, j, k)]
        norm = math.sqrt(sum(c * c for c in p))
        if norm == 0.0:
            return (0.0, 0.0, 0.0)
        scale = critter_radius([c / norm for c in p], ears=(0.6, 0.3))
        return tuple(scale * c for c in p)

    return voxel_tets((n, n, n), inside, place)


def header(name, frame_rate):
    """A scene's opening: name, 2 ms steps for 1.5 s, frames, gravity."""
    return """Scene(
    name: "%s",
    dt: 2e-3,
    duration: 1.5,
    frame_rate: %.1f,
    gravity: (0.0, 0.0, -9.81),
""" % (name, frame_rate)


def critter_pile(n):
    bodies = []
    for k in range(n):
        layer, slot = divmod(k, 4)
        x = (slot % 2 - 0.5) * 0.13 + 0.03 * layer
        y = (slot // 2 - 0.5) * 0.13 - 0.02 * layer
        z = 0.07 + 0.12 * layer
        bodies.append(
            '        Solid(name: "critter%d", material: "rubber", mesh: File(path: "data/critter_tets.vtk"),\n'
            '              position: (%.3f, %.3f, %.3f), rotation: (%d.0, 0.0, %d.0), reduced: StVK(modes: 12)),'
            % (k, x, y, z, 20 * (k % 3), 45 * k))
    return """// 002 experiment 12 (the dinosaur piles), with bunny-like critters: %d StVK-reduced critters
// (scenes/data/critter_tets.vtk, 12 modes each: 18 unknowns instead of 753) dropped in layers
// onto the floor, mu = 0.5 as in 002. They bounce off each other, deform and come to rest in a pile.
// Regenerate with scripts/reduced_scenes.py.
//   fricsim run scenes/critter_pile.ron
%s    materials: {
        "rubber": (density: 1000.0, youngs_modulus: 2e5, poisson_ratio: 0.3, damping: (alpha: 0.0, beta: 0.002)),
        "floor": (),
    },
    friction: (default: (mu: 0.5)),
    bodies: [
%s
    ],
    colliders: [ Plane(name: "floor", material: "floor") ],
    // ADMM on the global form works in the bodies' 18 unknowns each: about 300 contacts on 144
    // unknowns make the Delassus operator dense and rank-deficient, where Fischer-Burmeister takes
    // 0.2-1.2 s per step and Auto stops at its iteration limit. ADMM converges linearly: most
    // steps take 20-80 iterations, but a pile of 32 has a step that takes 2,100 (at 2,000 it is
    // at 1.6e-6), hence the limit.
    pipeline: Nonsmooth(solver: Admm, tolerance: 1e-6, max_iterations: 6000),
)
""" % (n, header("critter_pile", 50.0), "\n".join(bodies))


def hopper(mu, side=3, layers=3):
    """002 experiment 11 (jamming): side x side x layers reduced rubber balls (4 cm, 6 linear
    modes) poured into the square funnel of scripts/field_hopper.py (45 degree walls, a 10 cm
    outlet: 2.5 ball diameters) at friction mu."""
    rng = random.Random(11)
    bodies = []
    for layer in range(layers):
        for i in range(side):
            for j in range(side):
                x = (i - (side - 1) / 2) * 0.05 + rng.uniform(-0.004, 0.004)
                y = (j - (side - 1) / 2) * 0.05 + rng.uniform(-0.004, 0.004)
                z = field_hopper.Z_OUT + (field_hopper.TOP - field_hopper.OUTLET) + 0.04 + layer * 0.05
                bodies.append(
                    '        Solid(name: "b%d", material: "rubber", mesh: Ball(radius: 0.02, resolution: 4),\n'
                    '              position: (%.4f, %.4f, %.4f), reduced: Modal(modes: 6)),' % (len(bodies), x, y, z))
    return """// 002 experiment 11 (jamming): %d reduced rubber balls (4 cm, 6 linear modes each) poured into a
// square funnel with 45 degree walls and a 10 cm outlet (2.5 ball diameters; scripts/field_hopper.py's
// funnel) at mu = %s. Whether the flow jams depends on mu: see the README.
// Regenerate with scripts/reduced_scenes.py.
//   fricsim run scenes/reduced_hopper.ron
%s    materials: {
        "rubber": (density: 1000.0, youngs_modulus: 1e6, poisson_ratio: 0.3),
        "board": (),
    },
    friction: (default: (mu: %s)),
    bodies: [
%s
    ],
    colliders: [
%s
        Plane(name: "floor", material: "board"),
    ],
    // A jammed arch is hard for ADMM: a few steps can end above the tolerance (reported in
    // stats.csv's converged column); the run goes on.
    pipeline: Nonsmooth(solver: Admm, tolerance: 1e-6, max_iterations: 4000, on_failure: Continue),
)
""" % (len(bodies), mu, header("reduced_hopper", 25.0), mu, "\n".join(bodies), "\n".join(field_hopper.walls(None)))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("n", nargs="?", type=int, default=8, help="critters in the pile")
    ap.add_argument("--out", help="write only the pile, to this file (its mesh path made absolute)")
    args = ap.parse_args()
    if args.out:
        mesh = os.path.join(ROOT, "scenes", "data", "critter_tets.vtk")
        with open(args.out, "w") as f:
            f.write(critter_pile(args.n).replace("data/critter_tets.vtk", mesh))
        return
    write_vtk(os.path.join(ROOT, "scenes", "data", "critter_tets.vtk"), "critter (scripts/reduced_scenes.py)",
              *critter_tets())
    with open(os.path.join(ROOT, "scenes", "critter_pile.ron"), "w") as f:
        f.write(critter_pile(args.n))
    with open(os.path.join(ROOT, "scenes", "reduced_hopper.ron"), "w") as f:
        f.write(hopper("0.6"))


if __name__ == "__main__":
    main()
