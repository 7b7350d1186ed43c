#!/usr/bin/env python3
"""Two of the cloth problems of 004 Table 1 (after Li et al. 2018, "Argus"), as scenes:

- `scenes/argus_drag.ron`: a cloth lying on the floor, dragged by one edge (Table 1's
  "Dragging");
- `scenes/argus_box_cone.ron`: a cloth dropped over a box and a cone (Table 1's "Box & Cone"),
  the cone a closed mesh collider written to `scenes/data/cone.obj`.

004 gives neither scene's sizes; these are chosen to run in seconds to a minute here.
Usage: python3 scripts/argus.py
"""
import math
import os

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SCENES = os.path.join(ROOT, "scenes")

COTTON = '"cotton": (density: 300.0, youngs_modulus: 1e6, poisson_ratio: 0.3, thickness: 1e-3)'
PIPELINE = "Nonsmooth(solver: Admm, tolerance: 1e-4, max_iterations: 500, on_failure: Continue)"


def cone_obj(radius, height, segments):
    """A closed cone, apex up, base on z = 0, outward-facing triangles."""
    lines = [f"# cone r={radius} h={height}, {segments} segments (scripts/argus.py)", f"v 0 0 {height}", "v 0 0 0"]
    for k in range(segments):
        a = 2.0 * math.pi * k / segments
        lines.append(f"v {radius * math.cos(a):.9f} {radius * math.sin(a):.9f} 0")
    for k in range(segments):
        i, j = 3 + k, 3 + (k + 1) % segments
        lines.append(f"f 1 {i} {j}")  # side, counter-clockwise seen from outside
        lines.append(f"f 2 {j} {i}")  # base, facing down
    return "\n".join(lines) + "\n"


def drag_scene():
    return f"""// 004 Table 1's "Dragging" (after Li et al. 2018): a 40 cm cotton cloth (16 x 16 cells)
// lying on the floor is dragged by its left edge, held still for 0.1 s and then pulled along
// +x at 0.25 m/s. While it slides, the floor's friction on it is mu times the normal force.
// Written by scripts/argus.py.
Scene(
    name: "argus_drag",
    dt: 2e-3, duration: 0.6, frame_rate: 50.0,
    materials: {{ {COTTON}, "floor": () }},
    friction: (default: (mu: 0.4)),
    bodies: [
        Cloth(name: "sheet", material: "cotton", mesh: Grid(size: (0.4, 0.4), cells: (16, 16)),
              position: (0.0, 0.0, 0.0006),
              kinematic: [ (region: Box(min: (-1.0, -1.0, -1.0), max: (-0.199, 1.0, 1.0)),
                            motion: Keyframes([(0.0, (0.0, 0.0, 0.0)), (0.1, (0.0, 0.0, 0.0)), (0.6, (0.125, 0.0, 0.0))])) ]),
    ],
    colliders: [ Plane(name: "floor", material: "floor") ],
    pipeline: {PIPELINE},
)
"""


def box_cone_scene():
    return f"""// 004 Table 1's "Box & Cone" (after Li et al. 2018): a 1 m x 0.8 m cotton cloth (40 x 32
// cells) dropped over a box and a cone side by side; it drapes over both and comes to rest,
// in contact with itself where its folds meet. The cone is data/cone.obj (radius 0.15 m,
// height 0.35 m). 004's ADMM leaves the 14 steps of the first touch on the cone's apex short
// of the tolerance (at any contact weight tried; see the README). Written by scripts/argus.py.
Scene(
    name: "argus_box_cone",
    dt: 2e-3, duration: 1.5, frame_rate: 50.0,
    materials: {{ {COTTON}, "wood": () }},
    friction: (default: (mu: 0.5)),
    bodies: [
        Cloth(name: "sheet", material: "cotton", mesh: Grid(size: (1.0, 0.8), cells: (40, 32)),
              position: (0.0, 0.0, 0.45)),
    ],
    colliders: [
        Box(name: "box", material: "wood", size: (0.3, 0.3, 0.3), position: (-0.25, 0.0, 0.15)),
        Mesh(name: "cone", material: "wood", path: "data/cone.obj", position: (0.25, 0.0, 0.0)),
        Plane(name: "floor", material: "wood"),
    ],
    pipeline: {PIPELINE},
)
"""


def main():
    with open(os.path.join(SCENES, "data", "cone.obj"), "w") as f:
        f.write(cone_obj(0.15, 0.35, 32))
    for name, text in [("argus_drag.ron", drag_scene()), ("argus_box_cone.ron", box_cone_scene())]:
        with open(os.path.join(SCENES, name), "w") as f:
            f.write(text)
        print(f"scenes/{name}")


if __name__ == "__main__":
    main()
