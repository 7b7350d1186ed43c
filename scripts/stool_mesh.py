#!/usr/bin/env python3
"""Writes scenes/data/stool.vtk: a four-legged stool of tetrahedra (000 Fig. 8's stick-slip
chatter scene), feet in the plane z = 0, centred on the z axis.

Cubes of side CELL on a structured grid are kept where they belong to the seat (the top layer)
or to a leg (a one-cell column at each corner), each split into the 6 tetrahedra of the
Freudenthal subdivision along its main diagonal, which conforms across shared faces.
Usage: scripts/stool_mesh.py [OUT] [--refine N] [--legs K]  (default scenes/data/stool.vtk, N 1, K 1)
  --refine N   split each 3 cm cell into N^3 cubes (N = 2: 8x the tetrahedra)
  --legs K     legs K x K cells thick (3 K cm)
scenes/data/stool_paper.vtk, the size of 000 Table 2's stool (11K elements, 3K vertices), is
`scripts/stool_mesh.py scenes/data/stool_paper.vtk --refine 2 --legs 2`.
"""
import argparse
import itertools
import os

CELL = 0.03              # m
SEAT = (10, 10, 1)       # cells: 30 x 30 x 3 cm
LEG_CELLS = 8            # 24 cm legs


def stool_cell(i, j, k, legs=1):
    """Whether 3 cm cell (i, j, k) belongs to the stool: the seat (top layer) or a leg (a
    `legs` x `legs` column at each corner)."""
    if k >= LEG_CELLS:
        return True
    return (i < legs or i >= SEAT[0] - legs) and (j < legs or j >= SEAT[1] - legs)


def voxel_tets(cells, kept, place):
    """Cubes (i, j, k) of a grid of `cells` for which `kept(i, j, k)`, each split into the 6
    tetrahedra of the Freudenthal subdivision along its main diagonal (conforming across shared
    faces). `place(i, j, k)` gives a grid vertex's position. Returns (points, tets)."""
    index, points, tets = {}, [], []

    def vertex(i, j, k):
        if (i, j, k) not in index:
            index[(i, j, k)] = len(points)
            points.append(place(i, j, k))
        return index[(i, j, k)]

    for i, j, k in itertools.product(*(range(n) for n in cells)):
        if not kept(i, j, k):
            continue
        for order in itertools.permutations(range(3)):
            corner = [i, j, k]
            path = [vertex(*corner)]
            for axis in order:
                corner[axis] += 1
                path.append(vertex(*corner))
            tets.append(path)
    return points, tets


def write_vtk(out, title, points, tets):
    """A legacy VTK unstructured grid of tetrahedra."""
    with open(out, "w") as f:
        f.write(f"# vtk DataFile Version 3.0\n{title}\nASCII\nDATASET UNSTRUCTURED_GRID\n")
        f.write(f"POINTS {len(points)} double\n")
        f.writelines(f"{x:.9g} {y:.9g} {z:.9g}\n" for x, y, z in points)
        f.write(f"CELLS {len(tets)} {5 * len(tets)}\n")
        f.writelines("4 " + " ".join(map(str, t)) + "\n" for t in tets)
        f.write(f"CELL_TYPES {len(tets)}\n")
        f.writelines("10\n" for _ in tets)
    print(f"{out}: {len(points)} vertices, {len(tets)} tetrahedra")


def main():
    default = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "scenes", "data", "stool.vtk")
    args = argparse.ArgumentParser(description="Write the stool's tetrahedral mesh.")
    args.add_argument("out", nargs="?", default=default)
    args.add_argument("--refine", type=int, default=1, help="cubes per 3 cm cell edge")
    args.add_argument("--legs", type=int, default=1, help="leg thickness in 3 cm cells")
    a = args.parse_args()
    if a.refine < 1 or not 1 <= a.legs <= SEAT[0] // 2:
        args.error(f"--refine must be at least 1 and --legs between 1 and {SEAT[0] // 2}")
    n, h = a.refine, CELL / a.refine
    cells = (SEAT[0] * n, SEAT[1] * n, (LEG_CELLS + SEAT[2]) * n)
    points, tets = voxel_tets(
        cells,
        lambda i, j, k: stool_cell(i // n, j // n, k // n, a.legs),
        lambda i, j, k: ((i - cells[0] / 2) * h, (j - cells[1] / 2) * h, k * h),
    )
    write_vtk(a.out, "stool (scripts/stool_mesh.py)", points, tets)


if __name__ == "__main__":
    main()
