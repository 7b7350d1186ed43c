#!/usr/bin/env python3
"""Writes scenes/data/stool.vtk: a four-legged stool of tetrahedra (000 Fig. 8's stick-slip
chatter scene), feet in the plane z = 0, centred on the z axis.

Cubes of side CELL on a structured grid are kept where they belong to the seat (the top layer)
or to a leg (a one-cell column at each corner), each split into the 6 tetrahedra of the
Freudenthal subdivision along its main diagonal, which conforms across shared faces.
Usage: scripts/stool_mesh.py [OUT]  (default scenes/data/stool.vtk)
"""
import itertools
import os
import sys

CELL = 0.03              # m
SEAT = (10, 10, 1)       # cells: 30 x 30 x 3 cm
LEG_CELLS = 8            # 24 cm legs


def kept(i, j, k):
    if k >= LEG_CELLS:
        return True
    return i in (0, SEAT[0] - 1) and j in (0, SEAT[1] - 1)


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
    out = sys.argv[1] if len(sys.argv) > 1 else os.path.join(
        os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "scenes", "data", "stool.vtk")
    nz = LEG_CELLS + SEAT[2]
    points, tets = voxel_tets(
        (SEAT[0], SEAT[1], nz), kept, lambda i, j, k: ((i - SEAT[0] / 2) * CELL, (j - SEAT[1] / 2) * CELL, k * CELL))
    write_vtk(out, "stool (scripts/stool_mesh.py)", points, tets)


if __name__ == "__main__":
    main()
