#!/usr/bin/env python3
"""Generate 000's belt drive (E7, Fig. 9) for the Nonsmooth pipeline: a motorised driver pulley
turns a second, braked pulley through a tensioned cloth belt, by friction alone.

- scenes/belt_drive_belt.obj: the belt, a closed band (stadium loop) around both pulleys, its
  nodes a hair outside the pulleys' surfaces (cloth nodes touch rigid bodies as balls of half
  the thickness);
- scenes/belt_drive_ring.vtk: a soft ring of tetrahedra, the driven pulley of the soft variant;
- scenes/belt_drive.ron: the scene. The belt's rest shape is the band scaled by REST_SCALE, so it
  starts stretched around the pulleys (the pretension). Both pulleys turn on world hinges about y;
  the driver's motor spins it up to DRIVER_SPEED, the driven pulley's hinge carries a brake (a
  motor with target 0 and torque limit LOAD): the load the belt must carry.

- scenes/belt_drive_soft.ron: 000's own arrangement, the driven pulley a soft ring (E = RING_E)
  whose bore rides on a rigid hub (`attach_to`) that turns on the hinge with the brake.

By the capstan equation the belt carries at most `tau = R (T1 - T2) = R F tanh(mu pi / 2)` on a
half wrap, F = T1 + T2 the belt's pull on the pulley: below it the driven pulley follows the
driver (same radius, same speed), above it the belt slips on it (tests/belt_drive.rs).

    python3 scripts/belt_drive.py
"""
import math
import os

R = 0.08            # pulley radius (m)
LENGTH = 0.06       # pulley length along the axle (m)
D = 0.3             # distance between the axles (m)
Z = 0.5             # height of the axles (m)
WIDTH = 0.04        # belt width (m)
THICK = 0.002       # belt thickness (m)
CLEAR = 1e-4        # nodes' clearance from the pulley surface at the start (m)
SEGMENT = 0.02      # belt segment length (m)
ACROSS = 1          # cells across the belt
REST_SCALE = 0.985  # rest shape scale: 1.5 % stretch around the pulleys
DRIVER_SPEED = 120.0  # driver's target spin (deg/s)
DRIVER_TORQUE = 2.0   # driver's torque limit (N m): above what the belt can carry
LOAD = 0.3            # brake torque on the driven pulley (N m)
MU_DRIVEN = 0.3       # belt on the driven pulley (the driver's is 0.8)
BETA = 2e-3           # the belt's stiffness-proportional damping (s): the pulleys' ringing
                      # through the elastic belt (about 34 rad/s) dies out in a few periods

RING_INNER = 0.05    # the soft ring's bore radius (m), the hub's radius
RING_E = 5e6         # the soft ring's Young's modulus (Pa)
RING_CELLS = (24, 1, 1)  # around, across the wall, along the axle

HERE = os.path.dirname(os.path.abspath(__file__))
SCENES = os.path.join(HERE, "..", "scenes")


def loop_points():
    """Points along the stadium loop in the x-z plane at about SEGMENT spacing: the bottom run,
    the half circle around the driven pulley (x = D), the top run, the half circle around the
    driver (x = 0)."""
    rho = R + THICK / 2 + CLEAR
    straight = D
    arc = math.pi * rho
    total = 2 * straight + 2 * arc
    n = max(8, round(total / SEGMENT))
    pts = []
    for k in range(n):
        s = total * k / n
        if s < straight:  # bottom run, driver to driven
            pts.append((s, Z - rho))
        elif s < straight + arc:  # around the driven pulley
            a = -math.pi / 2 + (s - straight) / rho
            pts.append((D + rho * math.cos(a), Z + rho * math.sin(a)))
        elif s < 2 * straight + arc:  # top run, driven to driver
            pts.append((D - (s - straight - arc), Z + rho))
        else:  # around the driver
            a = math.pi / 2 + (s - 2 * straight - arc) / rho
            pts.append((rho * math.cos(a), Z + rho * math.sin(a)))
    return pts


def write_belt(path):
    pts = loop_points()
    n = len(pts)
    verts, tris = [], []
    for (x, z) in pts:
        for j in range(ACROSS + 1):
            verts.append((x, -WIDTH / 2 + WIDTH * j / ACROSS, z))
    idx = lambda k, j: (k % n) * (ACROSS + 1) + j
    for k in range(n):
        for j in range(ACROSS):
            a, b, c, d = idx(k, j), idx(k + 1, j), idx(k + 1, j + 1), idx(k, j + 1)
            tris.append((a, b, c))
            tris.append((a, c, d))
    with open(path, "w") as f:
        f.write("# belt drive band: %d segments x %d cells (scripts/belt_drive.py)\n" % (n, ACROSS))
        for v in verts:
            f.write("v %.9f %.9f %.9f\n" % v)
        for t in tris:
            f.write("f %d %d %d\n" % tuple(i + 1 for i in t))
    return n


def write_ring(path):
    """A hollow cylinder about y (bore RING_INNER, outer R, length LENGTH) centred at the origin:
    a structured grid of hexahedra, each cut into 6 tetrahedra along its diagonal (the same cut
    in every cell, so neighbours share their faces), as legacy VTK."""
    na, nr, ny = RING_CELLS
    verts = []
    for k in range(ny + 1):
        y = -LENGTH / 2 + LENGTH * k / ny
        for j in range(nr + 1):
            rad = RING_INNER + (R - RING_INNER) * j / nr
            for i in range(na):
                a = 2 * math.pi * i / na
                verts.append((rad * math.cos(a), y, rad * math.sin(a)))

    def vid(i, j, k):
        return k * (nr + 1) * na + j * na + (i % na)

    tets = []
    paths = [(0, 1, 2), (0, 2, 1), (1, 0, 2), (1, 2, 0), (2, 0, 1), (2, 1, 0)]
    for k in range(ny):
        for j in range(nr):
            for i in range(na):
                for path_ in paths:
                    corner = [0, 0, 0]
                    tet = [vid(i, j, k)]
                    for axis in path_:
                        corner[axis] = 1
                        tet.append(vid(i + corner[0], j + corner[1], k + corner[2]))
                    a, b, c, d = (verts[t] for t in tet)
                    u = [b[m] - a[m] for m in range(3)]
                    v = [c[m] - a[m] for m in range(3)]
                    w = [d[m] - a[m] for m in range(3)]
                    vol = (u[0] * (v[1] * w[2] - v[2] * w[1]) - u[1] * (v[0] * w[2] - v[2] * w[0])
                           + u[2] * (v[0] * w[1] - v[1] * w[0]))
                    if vol < 0:
                        tet[2], tet[3] = tet[3], tet[2]
                    tets.append(tet)
    with open(path, "w") as f:
        f.write("# vtk DataFile Version 2.0\nbelt drive soft ring (scripts/belt_drive.py)\nASCII\n")
        f.write("DATASET UNSTRUCTURED_GRID\nPOINTS %d double\n" % len(verts))
        for v in verts:
            f.write("%.9f %.9f %.9f\n" % v)
        f.write("CELLS %d %d\n" % (len(tets), 5 * len(tets)))
        for t in tets:
            f.write("4 %d %d %d %d\n" % tuple(t))
        f.write("CELL_TYPES %d\n" % len(tets))
        f.write("10\n" * len(tets))
    return len(tets)


def driven_pulley(soft):
    """The driven pulley's bodies, its material and a phrase for the header."""
    if not soft:
        body = (f'        Rigid(name: "driven", material: "steel_driven", shape: Cylinder(radius: {R}, length: {LENGTH}),\n'
                f'              position: ({D}, 0.0, {Z}), rotation: (90.0, 0.0, 0.0)),')
        return body, '"steel_driven": (density: 7800.0)', "both pulleys rigid"
    body = (f'        Rigid(name: "driven", material: "steel", shape: Cylinder(radius: {RING_INNER - 1e-3}, length: {LENGTH}),\n'
            f'              position: ({D}, 0.0, {Z}), rotation: (90.0, 0.0, 0.0)),\n'
            f'        Solid(name: "ring", material: "steel_driven", mesh: File(path: "belt_drive_ring.vtk"),\n'
            f'              position: ({D}, 0.0, {Z}),\n'
            f'              kinematic: [ (region: Cylinder(center: ({D}, 0.0, {Z}), axis: (0.0, 1.0, 0.0),\n'
            f'                                             radius: {RING_INNER + 1e-4}, length: {2 * LENGTH}),\n'
            f'                            attach_to: "driven") ]),')
    material = f'"steel_driven": (density: 1100.0, youngs_modulus: {RING_E}, poisson_ratio: 0.45)'
    return body, material, f"the driven pulley a soft ring (E = {RING_E:g} Pa) on a rigid hub"


def write_scene(path, segments, soft=False):
    name = os.path.splitext(os.path.basename(path))[0]
    driven, material, what = driven_pulley(soft)
    with open(path, "w") as f:
        f.write(f"""// 000's belt drive (E7): a motorised driver pulley (left) turns a braked pulley (right)
// through a tensioned cloth belt by friction; {what}. Generated by scripts/belt_drive.py
// ({segments} belt segments, {ACROSS} cells across, rest scale {REST_SCALE}). The driven pulley
// follows the driver while the brake torque `joints[1].motor.max_torque` stays below the
// capstan bound R F tanh(mu pi / 2); above it the belt slips (tests/belt_drive.rs):
//   fricsim run scenes/{name}.ron --set 'joints[1].motor.max_torque=2.0'
Scene(
    name: "{name}",
    dt: 0.004,
    duration: 1.0,
    frame_rate: 50.0,
    materials: {{
        "steel": (density: 7800.0),
        {material},
        "rubber": (density: 1100.0, youngs_modulus: 1e7, poisson_ratio: 0.3, thickness: {THICK},
                   damping: (alpha: 0.0, beta: {BETA})),
    }},
    friction: (
        default: (mu: 0.8),
        pairs: [ (between: ("rubber", "steel_driven"), mu: {MU_DRIVEN}) ],
    ),
    bodies: [
        Rigid(name: "driver", material: "steel", shape: Cylinder(radius: {R}, length: {LENGTH}),
              position: (0.0, 0.0, {Z}), rotation: (90.0, 0.0, 0.0)),
{driven}
        Cloth(name: "belt", material: "rubber", mesh: File(path: "belt_drive_belt.obj"),
              rest_scale: {REST_SCALE}, self_contact: false),
    ],
    joints: [
        Hinge(a: "driver", point: (0.0, 0.0, {Z}), axis: (0.0, 1.0, 0.0),
              motor: (speed: {DRIVER_SPEED}, max_torque: {DRIVER_TORQUE})),
        Hinge(a: "driven", point: ({D}, 0.0, {Z}), axis: (0.0, 1.0, 0.0),
              motor: (speed: 0.0, max_torque: {LOAD})),
    ],
    pipeline: Nonsmooth(tolerance: 1e-6),
)
""")


if __name__ == "__main__":
    n = write_belt(os.path.join(SCENES, "belt_drive_belt.obj"))
    write_scene(os.path.join(SCENES, "belt_drive.ron"), n)
    tets = write_ring(os.path.join(SCENES, "belt_drive_ring.vtk"))
    write_scene(os.path.join(SCENES, "belt_drive_soft.ron"), n, soft=True)
    print("wrote scenes/belt_drive.ron, belt_drive_soft.ron, belt_drive_belt.obj (%d segments), "
          "belt_drive_ring.vtk (%d tetrahedra)" % (n, tets))
