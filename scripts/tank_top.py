#!/usr/bin/env python3
"""Generate 000 E10, the tank-top fit (Fig. 12), at a size that runs in minutes here:

  scenes/data/torso.glb   a skinned torso (glTF 2.0, +y up): elliptic sections 32 x 22 cm below the
                          shoulders, rounding over the shoulders into a 12 cm neck; two bones,
                          "Hips" (the root, at the waist) and "Chest" (at y = 0.25 m), the skin
                          blended between y = 0.15 and 0.35 m; clip "Sway": the chest rolls
                          +-10 degrees about the forward axis (period 1 s) from 0.5 s on, twice
  scenes/data/tank_top.obj the garment: a tube about the torso from y = 0.08 to 0.32 m, 4 mm off it,
                          and two straps, 4 cm wide, from its front edge over the shoulders to its back
                          edge, 4 mm above the skin
  scenes/tank_top.ron     the scene (Smooth)

    python3 scripts/tank_top.py [SCENES_DIR]
"""
import math
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import make_gltf as g  # noqa: E402

A, B = 0.16, 0.11          # half width (x) and half depth (z) below the shoulders
NECK = 0.06                # neck radius
Y_SHOULDER, Y_NECK, Y_TOP = 0.38, 0.48, 0.58
AROUND = 48                # garment columns
SKIN_AROUND = 96           # torso columns: about 1 cm apart, so the smooth field follows the skin
SWAY = 10.0               # the chest's roll amplitude (degrees)
OFF = 0.004                # garment offset from the skin


def half_axes(y):
    """The torso's elliptic section at height y: (a, b)."""
    if y <= Y_SHOULDER:
        return A, B
    if y >= Y_NECK:
        return NECK, NECK
    s = math.sqrt(max(0.0, 1.0 - ((y - Y_SHOULDER) / (Y_NECK - Y_SHOULDER)) ** 2))
    return NECK + (A - NECK) * s, NECK + (B - NECK) * s


def torso_mesh():
    ys = [Y_SHOULDER * k / 19 for k in range(20)]
    ys += [Y_SHOULDER + (Y_NECK - Y_SHOULDER) * math.sin(0.5 * math.pi * k / 12) for k in range(13)]
    ys += [0.50, 0.52, 0.54, 0.56, Y_TOP]
    n = SKIN_AROUND
    rings = []
    for y in ys:
        a, b = half_axes(y)
        rings.append([(a * math.cos(2 * math.pi * j / n), y, b * math.sin(2 * math.pi * j / n)) for j in range(n)])
    # The rings turn from +x towards +z: clockwise seen from above (+y), hence `flip`.
    return g.closed_rings(rings, (0.0, 0.0, 0.0), (0.0, Y_TOP, 0.0), flip=True)


def signed_volume(verts, tris):
    vol = 0.0
    for a, b, c in tris:
        (ax, ay, az), (bx, by, bz), (cx, cy, cz) = verts[a], verts[b], verts[c]
        vol += (ax * (by * cz - bz * cy) - ay * (bx * cz - bz * cx) + az * (bx * cy - by * cx)) / 6
    return vol


def surface_in_plane(x, y0, angle):
    """The torso's surface point in the plane x = const, on the ray from (x, y0, 0) at `angle`
    (0: +z, front; pi/2: +y, up; pi: -z, back), by bisection on the inside test."""
    def inside(t):
        y = y0 + t * math.sin(angle)
        z = t * math.cos(angle)
        a, b = half_axes(y)
        return y <= Y_TOP and (x / a) ** 2 + (z / b) ** 2 < 1.0
    lo, hi = 0.0, 0.5
    for _ in range(60):
        mid = 0.5 * (lo + hi)
        lo, hi = (mid, hi) if inside(mid) else (lo, mid)
    t = lo
    return (x, y0 + t * math.sin(angle), t * math.cos(angle))


def garment():
    """The tube (AROUND columns by ROWS rows) and the two straps; returns vertices (y up) and
    triangles facing outward."""
    y_lo, y_hi, rows = 0.08, 0.32, 8
    verts, index = [], {}
    def vid(key, p):
        if key not in index:
            index[key] = len(verts)
            verts.append(p)
        return index[key]
    def column(j):
        """Tube column j's (x, z): the skin's section below the shoulders, OFF further out."""
        t = 2 * math.pi * j / AROUND
        return (A + OFF) * math.cos(t), (B + OFF) * math.sin(t)

    ys = [y_lo + (y_hi - y_lo) * r / rows for r in range(rows + 1)]
    for r, y in enumerate(ys):
        for j in range(AROUND):
            x, z = column(j)
            vid(("tube", r, j), (x, y, z))
    tris = []
    for r in range(rows):
        for j in range(AROUND):
            a, b, c, d = [index[("tube", rr, jj % AROUND)] for rr, jj in ((r, j), (r, j + 1), (r + 1, j + 1), (r + 1, j))]
            tris += [(a, d, c), (a, c, b)]
    # Straps: over each shoulder, between two tube columns on the front edge and their mirror
    # images on the back edge, following the skin 4 mm out in planes x = const.
    for side in (-1, 1):
        cols_front = [j for j in range(AROUND) if column(j)[1] > 0 and 0.07 <= side * column(j)[0] <= 0.12]
        cols_front.sort(key=lambda j: side * column(j)[0])
        steps = 16
        strap_rows = []
        for j in cols_front:
            x = column(j)[0]
            back = (AROUND - j) % AROUND  # the mirror column (z -> -z)
            row = [index[("tube", rows, j)]]
            # the top edge of the tube is at y_hi; the strap leaves it and goes over the shoulder
            for k in range(1, steps):
                angle = math.pi * k / steps
                px, py, pz = surface_in_plane(x, y_hi, angle)
                n = (0.0, math.sin(angle), math.cos(angle))
                row.append(vid(("strap", side, j, k), (px, py + OFF * n[1], pz + OFF * n[2])))
            row.append(index[("tube", rows, back)])
            strap_rows.append(row)
        for s in range(len(strap_rows) - 1):
            r0, r1 = strap_rows[s], strap_rows[s + 1]
            for k in range(steps):
                a, b, c, d = r0[k], r0[k + 1], r1[k + 1], r1[k]
                # Outward (up over the shoulder) and consistent with the tube along the shared
                # edge: the next column lies towards -x on the left, towards +x on the right.
                tris += [(a, b, c), (a, c, d)] if side < 0 else [(a, c, b), (a, d, c)]
    return verts, tris


def write_obj(path, verts, tris):
    with open(path, "w") as f:
        f.write("# the tank top of scenes/tank_top.ron, in the scene's z-up axes; made by scripts/tank_top.py\n")
        for x, y, z in verts:
            f.write(f"v {x:.7f} {-z:.7f} {y:.7f}\n")  # glTF-style y-up to the scene's z-up
        for a, b, c in tris:
            f.write(f"f {a + 1} {b + 1} {c + 1}\n")


# The clip "Sway": keys every 1/8 s, the chest's roll (degrees about the glTF +z axis, forward)
# still until 0.5 s and then a sine of period 1 s, twice.
SWAY_TIMES = [0.0, 0.5] + [0.5 + 0.125 * k for k in range(1, 17)]


def sway_roll(t):
    return 0.0 if t <= 0.5 else SWAY * math.sin(2 * math.pi * (t - 0.5))


def torso_gltf(out):
    verts, tris = torso_mesh()
    assert signed_volume(verts, tris) > 0, "the torso faces inward"
    b = g.Builder()
    blend = lambda y: min(1.0, max(0.0, (y - 0.15) / 0.2))
    prim = b.primitive(verts, tris, [(0, 1, 0, 0)] * len(verts), [(1.0 - blend(v[1]), blend(v[1]), 0.0, 0.0) for v in verts])
    chest = 0.25
    ibm = b.accessor([tuple(g.column_major(g.translation(0, 0, 0))), tuple(g.column_major(g.translation(0, -chest, 0)))],
                     g.FLOAT, "MAT4")
    quats = []
    for t in SWAY_TIMES:
        h = math.radians(sway_roll(t)) / 2
        quats.append((0.0, 0.0, math.sin(h), math.cos(h)))  # about +z, the forward axis in glTF
    t, q = b.keys(SWAY_TIMES, quats, "VEC4")
    gltf = {
        "scene": 0,
        "scenes": [{"nodes": [0, 2]}],
        "nodes": [
            {"name": "Hips", "children": [1]},
            {"name": "Chest", "translation": [0, chest, 0]},
            {"name": "Torso", "mesh": 0, "skin": 0},
        ],
        "meshes": [{"name": "Torso", "primitives": [prim]}],
        "skins": [{"joints": [0, 1], "inverseBindMatrices": ibm}],
        "animations": [{"name": "Sway", "samplers": [{"input": t, "output": q, "interpolation": "LINEAR"}],
                        "channels": [{"sampler": 0, "target": {"node": 1, "path": "rotation"}}]}],
    }
    g.write_all(b, gltf, out, "torso", glb_only=True)


SCENE = """// 000 E10, the tank-top fit (Fig. 12), at a size that runs in minutes here: a cotton tank top
// (522 vertices) hangs by its two straps on the shoulders of a skinned torso (a glTF clip,
// scenes/data/torso.glb) that sways its chest +-10 degrees from 0.5 s on. Friction keeps the straps
// on the shoulders: with mu = 0.8 (000's) the garment hangs and rides the sway; frictionless, or
// at mu = 0.3, the straps slide outward down the shoulders' slope and the garment falls off
// (tests/tank_top.rs):
//     fricsim run scenes/tank_top.ron --set friction.default.mu=0.3
// Generated by scripts/tank_top.py (edit that, not this file). The torso file is in glTF's +y-up
// axes; `rotation` turns it into this scene's +z-up.
Scene(
    name: "tank_top",
    dt: 0.004,
    duration: 2.5,
    frame_rate: 25.0,
    gravity: (0.0, 0.0, -9.81),
    materials: {
        "cotton": (density: 200.0, youngs_modulus: 5e5, poisson_ratio: 0.3, thickness: 1e-3),
        "skin": (),
    },
    friction: (default: (mu: 0.8)),
    bodies: [
        Cloth(name: "top", material: "cotton", mesh: File(path: "data/tank_top.obj"), self_contact: false),
    ],
    colliders: [
        Mesh(name: "torso", material: "skin", path: "data/torso.glb", rotation: (90.0, 0.0, 0.0), animation: (clip: "Sway")),
    ],
    pipeline: Smooth(field: (kernel: Cubic, radius: 0.02)),
)
"""


def main():
    root = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "scenes")
    torso_gltf(os.path.join(root, "data"))
    verts, tris = garment()
    write_obj(os.path.join(root, "data", "tank_top.obj"), verts, tris)
    with open(os.path.join(root, "tank_top.ron"), "w") as f:
        f.write(SCENE)
    print(f"torso and a garment of {len(verts)} vertices, {len(tris)} triangles")


if __name__ == "__main__":
    main()
