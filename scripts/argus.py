#!/usr/bin/env python3
"""Four of the cloth problems of 004 Table 1 (after Li et al. 2018, "Argus"), as scenes:

- `scenes/argus_drag.ron`: a cloth lying on the floor, dragged by one edge (Table 1's
  "Dragging");
- `scenes/argus_box_cone.ron`: a cloth dropped over a box and a cone (Table 1's "Box & Cone"),
  the cone a closed mesh collider written to `scenes/data/cone.obj`;
- `scenes/argus_cards.ron`: a house of 7 cloth cards in two levels of A-frames and flat cards
  (Table 1's "Cards"), at mu = 0.6; `--set 'friction.default.mu=0.2'` is the other column;
- `scenes/argus_belt.ron`: a conveyor (Table 1's "Belt"): the rubber belt of
  `scripts/belt_drive.py` stretched 3 % around a motorised pulley and an idler, carrying a
  leather napkin on its upper run.

004 gives neither scene's sizes; these are chosen to run in seconds to a minute here.
Usage: python3 scripts/argus.py
"""
import math
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import belt_drive  # noqa: E402  (the belt's loop and pulleys)

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


CARD = (0.064, 0.089, 1.5e-4)  # width, length, half thickness (m): a playing card of 0.3 mm stock
APEX_DROP = 5e-4  # an A-frame's card A rests its top edge this far below card B's top edge (m)
THETA = 25.0  # the house's cards lean 25 degrees from vertical (see cards_scene)
GAP = 2e-5  # every contact starts open by this much (m)


def a_frame(theta_deg):
    """Two cards leaning on each other, feet on z = 0, B's top edge at y = 0: the A-frame of
    tests/leaning_card.rs (its statics thresholds are tested there). Returns the cards as
    (centre y, centre z, rotation about x in degrees) and B's top edge (y, z)."""
    _, length, r = CARD
    tb = math.radians(theta_deg)
    top_b = (0.0, r + length * math.cos(tb))
    gap = 2 * r + GAP
    top_a = (top_b[0] + APEX_DROP * math.sin(tb) - gap * math.cos(tb),
             top_b[1] - APEX_DROP * math.cos(tb) - gap * math.sin(tb))
    ta = math.acos((top_a[1] - r) / length)
    card_a = (top_a[0] - 0.5 * length * math.sin(ta), top_a[1] - 0.5 * length * math.cos(ta),
              90.0 - math.degrees(ta))
    card_b = (top_b[0] + 0.5 * length * math.sin(tb), top_b[1] - 0.5 * length * math.cos(tb),
              -(90.0 - theta_deg))
    return [card_a, card_b], top_b


def card_house(levels, theta_deg, spacing):
    """The cards of a house with `levels` A-frames at the bottom: each level's A-frames stand
    `spacing` apart, flat cards bridge neighbouring apexes, and the next level's A-frames stand
    on the flat cards between them. Returns (name, y, z, rotation about x) per card."""
    _, _, r = CARD
    frame, top_b = a_frame(theta_deg)
    cards, base = [], 0.0
    for level in range(levels):
        count = levels - level
        apexes = [(k - 0.5 * (count - 1)) * spacing for k in range(count)]
        for k, y in enumerate(apexes):
            for side, (cy, cz, rx) in zip("ab", frame):
                cards.append((f"L{level}_{k}{side}", y + cy, base + cz, rx))
        flat_z = base + top_b[1] + 2 * r + GAP
        for k in range(count - 1):
            cards.append((f"L{level}_{k}f", 0.5 * (apexes[k] + apexes[k + 1]), flat_z, 0.0))
        base = flat_z + r + GAP
    return cards


def cards_scene():
    width, length, _ = CARD
    cards = card_house(2, THETA, 0.08)
    bodies = ",\n".join(
        f'        Cloth(name: "{name}", material: "card", mesh: Grid(size: ({width}, {length}), cells: (4, 6)),\n'
        f"              position: (0.0, {y:.9f}, {z:.9f}), rotation: ({rx:.9f}, 0.0, 0.0), self_contact: false)"
        for name, y, z, rx in cards)
    return f"""// 004 Table 1's "Cards" (after Li et al. 2018): a house of {len(cards)} cloth playing cards
// (6.4 x 8.9 cm, 0.3 mm card stock, E = 4 GPa): two A-frames at {THETA:g} degrees, a flat card on
// their apexes, a third A-frame on it. In each A-frame card A's top edge rests 0.5 mm down card
// B's face, so the load on B's top (the flat card) pushes B into A. Rigid statics (the rods of
// tests/leaning_card.rs, which checks the unloaded frame's thresholds) then asks, with the load
// on B's top from 0 to 2 cards' weight, for card-on-card friction of at most 0.55 and floor friction
// 0.24-0.36: at mu = 0.6 the house stands; at mu = 0.2 (--set 'friction.default.mu=0.2') every
// frame's feet slip. (At 20 degrees a three-level house asks up to 0.97 of its bottom apexes
// under 4 cards' weight; at 30 degrees the frames are wider than a flat card can bridge.)
// Written by scripts/argus.py.
Scene(
    name: "argus_cards",
    dt: 1e-3, duration: 1.0, frame_rate: 50.0,
    materials: {{ "card": (density: 800.0, youngs_modulus: 4e9, poisson_ratio: 0.3, thickness: 3e-4), "floor": () }},
    friction: (default: (mu: 0.6)),
    bodies: [
{bodies},
    ],
    colliders: [ Plane(name: "floor", material: "floor") ],
    pipeline: {PIPELINE},
)
"""


NAPKIN = (0.04, 1e-3, 0.08)  # side, thickness, centre's x on the upper run (m)
NAPKIN_MU = 0.1  # napkin on belt: it slides until it has the belt's speed
BELT_REST_SCALE = 0.97  # 3 % stretch around the pulleys: the "high tension"


def belt_scene():
    b = belt_drive
    side, thick, x = NAPKIN
    rho = b.R + b.THICK / 2 + b.CLEAR  # the belt's mid-surface around the pulleys
    z = b.Z + rho + b.THICK / 2 + thick / 2 + GAP
    speed = math.radians(b.DRIVER_SPEED) * rho
    catch_up = speed / (NAPKIN_MU * 9.81)
    return f"""// 004 Table 1's "Belt" (after Li et al. 2018): a high-tension conveyor. The rubber belt of
// scripts/belt_drive.py (4 cm wide, 2 mm, E = 1e7 Pa) is stretched {100 * (1 - BELT_REST_SCALE):.0f} % around a motorised
// steel pulley (left, {b.DRIVER_SPEED:g} deg/s) and an idler {b.D} m away, both spinning from the start. A
// {100 * side:g} cm leather napkin lies on the upper run at rest; at mu = {NAPKIN_MU} it slides, gaining
// mu g = {NAPKIN_MU * 9.81:.3f} m/s^2, until it has the belt's {speed:.4f} m/s ({catch_up:.3f} s), then rides with it.
// Written by scripts/argus.py.
Scene(
    name: "argus_belt",
    dt: 0.004, duration: 0.6, frame_rate: 50.0,
    materials: {{
        "steel": (density: 7800.0),
        "rubber": (density: 1100.0, youngs_modulus: 1e7, poisson_ratio: 0.3, thickness: {b.THICK},
                   damping: (alpha: 0.0, beta: {b.BETA})),
        "leather": (density: 1000.0, youngs_modulus: 1e6, poisson_ratio: 0.3, thickness: {thick}),
    }},
    friction: (default: (mu: 0.8), pairs: [ (between: ("rubber", "leather"), mu: {NAPKIN_MU}) ]),
    bodies: [
        Rigid(name: "driver", material: "steel", shape: Cylinder(radius: {b.R}, length: {b.LENGTH}),
              position: (0.0, 0.0, {b.Z}), rotation: (90.0, 0.0, 0.0), angular_velocity: (0.0, {b.DRIVER_SPEED}, 0.0)),
        Rigid(name: "idler", material: "steel", shape: Cylinder(radius: {b.R}, length: {b.LENGTH}),
              position: ({b.D}, 0.0, {b.Z}), rotation: (90.0, 0.0, 0.0), angular_velocity: (0.0, {b.DRIVER_SPEED}, 0.0)),
        Cloth(name: "belt", material: "rubber", mesh: File(path: "belt_drive_belt.obj"),
              rest_scale: {BELT_REST_SCALE}, self_contact: false),
        Cloth(name: "napkin", material: "leather", mesh: Grid(size: ({side}, {side}), cells: (4, 4)),
              position: ({x}, 0.0, {z:.9f}), self_contact: false),
    ],
    joints: [
        Hinge(a: "driver", point: (0.0, 0.0, {b.Z}), axis: (0.0, 1.0, 0.0),
              motor: (speed: {b.DRIVER_SPEED}, max_torque: {b.DRIVER_TORQUE})),
        Hinge(a: "idler", point: ({b.D}, 0.0, {b.Z}), axis: (0.0, 1.0, 0.0)),
    ],
    pipeline: {PIPELINE},
)
"""


def main():
    with open(os.path.join(SCENES, "data", "cone.obj"), "w") as f:
        f.write(cone_obj(0.15, 0.35, 32))
    for name, text in [("argus_drag.ron", drag_scene()), ("argus_box_cone.ron", box_cone_scene()),
                       ("argus_cards.ron", cards_scene()), ("argus_belt.ron", belt_scene())]:
        with open(os.path.join(SCENES, name), "w") as f:
            f.write(text)
        print(f"scenes/{name}")


if __name__ == "__main__":
    main()
