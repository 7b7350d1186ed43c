#!/usr/bin/env python3
"""002 experiment 10 (stick-slip chairs, Fig. 7.3) at 002's scale: a grid of reduced stools
pushed down a 10 degree ramp, each at its own speed, and a check of where each one stops.

002 Table 7.1's chairs row has 1,766 unknowns, 9,025 contacts and h = 1e-2. Here a stool is
scenes/chairs.ron's (12 linear modes: 18 unknowns), so 98 stools make 1,764 unknowns. Meshes:

  paper   scenes/data/stool_paper.vtk (000 Table 2's size, 11K tets, 6 cm legs): 100 vertices on
          the ramp per stool, so 98 stools touch at 9,800 points, 002's count
  flexible scenes/data/stool.vtk (792 tets, 3 cm legs, the chattering stool of chairs.ron):
          16 points per stool

Stool k starts at v0 = V_MIN + (V_MAX - V_MIN) k / (N - 1) down the ramp, mu = 0.2. A rigid stool
decelerates at a = g (mu cos - sin) = 0.2287 m/s^2 and stops after v0^2 / 2a. The stools stand
far enough apart never to meet, so each is an island of its own.

  scripts/chairs_grid.py write [N] [--mesh paper|flexible] [--dt H] [--out F.ron (default: the temporary folder)]
  scripts/chairs_grid.py check STATS.csv SCENE.ron    each stool's stop against v0^2 / 2a
"""
import argparse
import csv
import math
import os
import re
import statistics
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
THETA = math.radians(10.0)
MU = 0.2
G = 9.81
A = G * (MU * math.cos(THETA) - math.sin(THETA))  # rigid deceleration along the ramp
V_MIN, V_MAX = 0.15, 0.35  # m/s: stops after 0.049 to 0.268 m
ACROSS = 0.5  # m between stool centres across the ramp (seats are 0.3 m)
ALONG = 0.9  # m between rows along it: seat 0.3 + the longest slide 0.27 + room
MESHES = {"paper": "stool_paper.vtk", "flexible": "stool.vtk"}


def ramp(u, w, z=0.0):
    """A point given in the ramp's frame (u up the ramp's x, w across, z along its normal) in
    world coordinates: the scene's rotation (0, -10, 0) about y."""
    c, s = math.cos(THETA), math.sin(THETA)
    return (c * u + s * z, w, s * u + c * z)


def speeds(n):
    return [V_MIN + (V_MAX - V_MIN) * k / max(n - 1, 1) for k in range(n)]


def write(n, mesh, dt):
    cols = max(1, round(math.sqrt(2.0 * n)))  # about twice as wide as long
    bodies = []
    for k, v0 in enumerate(speeds(n)):
        row, col = divmod(k, cols)
        at = ramp(row * ALONG, (col - (cols - 1) / 2) * ACROSS)
        vel = tuple(-v0 * c for c in ramp(1.0, 0.0))
        bodies.append(
            '        Solid(name: "stool%d", material: "wood", mesh: File(path: "%s"), reduced: Modal(modes: 12),\n'
            '              rotation: (0.0, -10.0, 0.0), position: (%.6f, %.6f, %.6f), velocity: (%.9f, 0.0, %.9f)),'
            % (k, mesh, *at, vel[0], vel[2]))
    return """// 002 Table 7.1's chairs at its scale: %d reduced stools (12 modes, 18 unknowns each) pushed down
// a 10 degree ramp at %.2f to %.2f m/s, mu = 0.2. Written by scripts/chairs_grid.py, which also
// checks each stool's stop against v0^2 / 2g(mu cos - sin).
Scene(
    name: "chairs_grid",
    dt: %s,
    duration: 2.0,
    frame_rate: 10.0,
    gravity: (0.0, 0.0, -9.81),
    materials: {
        "wood": (density: 700.0, youngs_modulus: 5e6, poisson_ratio: 0.3, model: StableNeoHookean),
        "ramp": (),
    },
    friction: ( pairs: [ (between: ("wood", "ramp"), mu: 0.2) ] ),
    bodies: [
%s
    ],
    colliders: [ Plane(name: "ramp", material: "ramp", rotation: (0.0, -10.0, 0.0)) ],
    // A stool coming to rest on 100 contacts (18 unknowns: W is 300 x 300 of rank 18) can stall
    // Auto's FB Newton and local ADMM; the nodal step then takes the proximal point method, so
    // a larger limit would only spend more time in the ADMM first.
    pipeline: Nonsmooth(solver: Auto, tolerance: 1e-6, max_iterations: 2000),
)
""" % (n, V_MIN, V_MAX, dt, "\n".join(bodies))


def check(stats, scene):
    """Each stool's slide from stats.csv's centre-of-mass columns: distance down the ramp and the
    time its speed first fell under 1 mm/s, against the rigid stool's."""
    n = len(re.findall(r'name: "stool\d+"', open(scene).read()))
    rows = list(csv.DictReader(open(stats)))
    down = [-c for c in ramp(1.0, 0.0)]
    dt = float(rows[1]["time"]) - float(rows[0]["time"])
    errors, late = [], []
    for k, v0 in enumerate(speeds(n)):
        pos = [[float(r["stool%d.%s" % (k, a)]) for a in "xyz"] for r in rows]
        vel = [[float(r["stool%d.v%s" % (k, a)]) for a in "xyz"] for r in rows]
        # Before the first step the centre was one step of v0 behind the first row's.
        start = [p - dt * v for p, v in zip(pos[0], vel[0])]
        slid = sum((p - s) * d for p, s, d in zip(pos[-1], start, down))
        stop = next((float(r["time"]) for r, v in zip(rows, vel) if math.sqrt(sum(c * c for c in v)) < 1e-3), math.inf)
        errors.append(slid / (v0 * v0 / (2 * A)) - 1.0)
        late.append(stop - v0 / A)
    touching = [r for r in rows if int(r["active_contacts"]) > 0]
    mean = lambda key: statistics.mean(float(r[key]) for r in touching)
    print("%d stools, %d unknowns, %d steps: contacts mean %.0f max %d; iterations %.1f; solve %.4f s/step; "
          "total %.4f s/step; converged %d/%d"
          % (n, 18 * n, len(rows), mean("active_contacts"), max(int(r["active_contacts"]) for r in rows),
             mean("solver_iterations"), mean("linear_solve_s"), statistics.mean(float(r["wall_s"]) for r in rows),
             sum(int(r["converged"]) for r in rows), len(rows)))
    print("slide against v0^2/2a (0.049-0.268 m): mean %+.2f %%, from %+.2f %% to %+.2f %%; stop against v0/a: %+.3f to %+.3f s"
          % (100 * statistics.mean(errors), 100 * min(errors), 100 * max(errors), min(late), max(late)))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    w = sub.add_parser("write")
    w.add_argument("n", nargs="?", type=int, default=98)
    w.add_argument("--mesh", choices=sorted(MESHES), default="paper")
    w.add_argument("--dt", default="1e-2")
    w.add_argument("--out", default=os.path.join(tempfile.gettempdir(), "chairs_grid.ron"))
    c = sub.add_parser("check")
    c.add_argument("stats")
    c.add_argument("scene")
    args = ap.parse_args()
    if args.cmd == "write":
        with open(args.out, "w") as f:
            f.write(write(args.n, os.path.join(ROOT, "scenes", "data", MESHES[args.mesh]), args.dt))
    else:
        check(args.stats, args.scene)


if __name__ == "__main__":
    main()
