#!/usr/bin/env python3
"""Skinned glTF 2.0 animations made from scratch (no downloaded assets, no Blender needed),
written as Blender writes them: a node hierarchy, a skin with inverse bind matrices, JOINTS_0 /
WEIGHTS_0 per vertex, and named animation clips.

    python3 scripts/make_gltf.py arm  OUT_DIR   # the two-bone arm of tests/animated_gltf.rs
    python3 scripts/make_gltf.py turntable OUT_DIR  # a plate turning at 3 rad/s (tests/animated_gltf.rs)
    python3 scripts/make_gltf.py pincer OUT_DIR  # a two-jaw gripper that closes and lifts (000 E8)
    python3 scripts/make_gltf.py thumb OUT_DIR   # a two-bone thumb that presses and drags (000 Fig. 14)

`arm` writes arm.gltf (buffer embedded as base64), arm.glb (binary) and arm_external.gltf with
arm.bin beside it, all the same content:
  * nodes: Armature (at y = 0.5) > Shoulder > Elbow (1 m along x); the mesh node ArmMesh;
  * the mesh: a square tube 0.25 m wide along x from 0 to 2, rings of 4 vertices at
    x = 0, 0.5, 1, 1.5, 2, capped at both ends, in two primitives that both hold the ring at
    x = 1 (a seam that the reader welds);
  * weights: Shoulder only for x < 1, Elbow only for x > 1, half each at x = 1;
  * clip "Bend": the elbow turns 0 -> 90 degrees about +z over 1 s (LINEAR);
  * clip "Lift": the armature rises 1 m over 2 s (LINEAR).
"""

import base64
import json
import math
import os
import struct
import sys

FLOAT, UBYTE, USHORT, UINT = 5126, 5121, 5123, 5125


class Builder:
    def __init__(self):
        self.bin = bytearray()
        self.views, self.accessors = [], []

    def accessor(self, values, ctype, kind, minmax=False):
        """Appends `values` (a list of tuples or scalars) as one accessor; returns its index."""
        fmt = {FLOAT: "f", UBYTE: "B", USHORT: "H", UINT: "I"}[ctype]
        flat = [x for v in values for x in (v if isinstance(v, (tuple, list)) else (v,))]
        while len(self.bin) % 4:
            self.bin.append(0)
        offset = len(self.bin)
        self.bin += struct.pack("<%d%s" % (len(flat), fmt), *flat)
        self.views.append({"buffer": 0, "byteOffset": offset, "byteLength": len(self.bin) - offset})
        acc = {"bufferView": len(self.views) - 1, "componentType": ctype, "count": len(values), "type": kind}
        if minmax:
            acc["min"] = [min(v[i] for v in values) for i in range(len(values[0]))]
            acc["max"] = [max(v[i] for v in values) for i in range(len(values[0]))]
        self.accessors.append(acc)
        return len(self.accessors) - 1

    def primitive(self, verts, tris, joints, weights):
        """A skinned triangle primitive: positions, JOINTS_0, WEIGHTS_0 and indices."""
        return {
            "attributes": {
                "POSITION": self.accessor(verts, FLOAT, "VEC3", minmax=True),
                "JOINTS_0": self.accessor(joints, UBYTE, "VEC4"),
                "WEIGHTS_0": self.accessor(weights, FLOAT, "VEC4"),
            },
            "indices": self.accessor([i for t in tris for i in t], USHORT, "SCALAR"),
            "mode": 4,
        }

    def keys(self, times, values, kind):
        """An animation sampler's input (times, with their bounds) and output accessors."""
        t = self.accessor(times, FLOAT, "SCALAR")
        self.accessors[t]["min"], self.accessors[t]["max"] = [times[0]], [times[-1]]
        return t, self.accessor(values, FLOAT, kind)

    def document(self, gltf, uri):
        gltf = dict(gltf)
        gltf["asset"] = {"version": "2.0", "generator": "fricsim scripts/make_gltf.py"}
        gltf["bufferViews"] = self.views
        gltf["accessors"] = self.accessors
        buf = {"byteLength": len(self.bin)}
        if uri is not None:
            buf["uri"] = uri
        gltf["buffers"] = [buf]
        return gltf


def write_all(b, gltf, out, stem, glb_only=False):
    """stem.gltf (embedded), stem.glb, stem_external.gltf + stem.bin; or stem.glb alone."""
    os.makedirs(out, exist_ok=True)
    write_glb(b, gltf, os.path.join(out, stem + ".glb"))
    if glb_only:
        return
    data = "data:application/octet-stream;base64," + base64.b64encode(bytes(b.bin)).decode()
    with open(os.path.join(out, stem + ".gltf"), "w") as f:
        json.dump(b.document(gltf, data), f, indent=1)
    with open(os.path.join(out, stem + "_external.gltf"), "w") as f:
        json.dump(b.document(gltf, stem + ".bin"), f, indent=1)
    with open(os.path.join(out, stem + ".bin"), "wb") as f:
        f.write(bytes(b.bin))


def write_glb(b, gltf, path):
    js = json.dumps(b.document(gltf, None)).encode()
    js += b" " * (-len(js) % 4)
    blob = bytes(b.bin) + b"\0" * (-len(b.bin) % 4)
    glb = struct.pack("<4sII", b"glTF", 2, 12 + 8 + len(js) + 8 + len(blob))
    glb += struct.pack("<I4s", len(js), b"JSON") + js + struct.pack("<I4s", len(blob), b"BIN\0") + blob
    with open(path, "wb") as f:
        f.write(glb)


def column_major(m):
    return [m[r][c] for c in range(4) for r in range(4)]


def translation(x, y, z):
    return [[1, 0, 0, x], [0, 1, 0, y], [0, 0, 1, z], [0, 0, 0, 1]]


def tube(stations, half, y0):
    """Rings of 4 vertices at each x of `stations` (square section of half-width `half` about the
    line y = y0, z = 0) and the triangles of its sides, facing outward, plus its end caps."""
    ring = [(half, half), (-half, half), (-half, -half), (half, -half)]  # (y, z), counterclockwise about +x
    verts = [(x, y0 + dy, dz) for x in stations for (dy, dz) in ring]
    tris = []
    for s in range(len(stations) - 1):
        for k in range(4):
            a, b = 4 * s + k, 4 * s + (k + 1) % 4
            c, d = a + 4, b + 4
            tris += [(a, c, b), (b, c, d)]
    return verts, tris


def arm(out):
    b = Builder()
    half, y0 = 0.125, 0.5
    prims = []
    for stations, cap in (([0.0, 0.5, 1.0], "start"), ([1.0, 1.5, 2.0], "end")):
        verts, tris = tube(stations, half, y0)
        n = len(verts)
        if cap == "start":
            tris += [(0, 1, 2), (0, 2, 3)]  # facing -x
        else:
            tris += [(n - 4, n - 2, n - 3), (n - 4, n - 1, n - 2)]  # facing +x
        joints = [(0, 1, 0, 0) if v[0] == 1.0 else ((0, 0, 0, 0) if v[0] < 1.0 else (1, 0, 0, 0)) for v in verts]
        weights = [(0.5, 0.5, 0, 0) if v[0] == 1.0 else (1.0, 0, 0, 0) for v in verts]
        prims.append(b.primitive(verts, tris, joints, weights))
    ibm = b.accessor([tuple(column_major(translation(0, -y0, 0))), tuple(column_major(translation(-1, -y0, 0)))],
                     FLOAT, "MAT4")
    s = math.sqrt(0.5)
    bend_t, bend_q = b.keys([0.0, 1.0], [(0, 0, 0, 1), (0, 0, s, s)], "VEC4")
    lift_t, lift_x = b.keys([0.0, 2.0], [(0, y0, 0), (0, y0 + 1, 0)], "VEC3")
    gltf = {
        "scene": 0,
        "scenes": [{"nodes": [0, 3]}],
        "nodes": [
            {"name": "Armature", "translation": [0, y0, 0], "children": [1]},
            {"name": "Shoulder", "children": [2]},
            {"name": "Elbow", "translation": [1, 0, 0]},
            {"name": "ArmMesh", "mesh": 0, "skin": 0},
        ],
        "meshes": [{"name": "Arm", "primitives": prims}],
        "skins": [{"joints": [1, 2], "inverseBindMatrices": ibm, "skeleton": 1}],
        "animations": [
            {"name": "Bend", "samplers": [{"input": bend_t, "output": bend_q, "interpolation": "LINEAR"}],
             "channels": [{"sampler": 0, "target": {"node": 2, "path": "rotation"}}]},
            {"name": "Lift", "samplers": [{"input": lift_t, "output": lift_x, "interpolation": "LINEAR"}],
             "channels": [{"sampler": 0, "target": {"node": 0, "path": "translation"}}]},
        ],
    }
    write_all(b, gltf, out, "arm")


def turntable(out):
    """A square plate of side 0.8 m in z = 0 (normal +z) on one joint that turns about +z at
    3 rad/s: keys every quarter turn over one revolution (LINEAR, so the slerp turns at a constant
    rate), to be played with `loop: true`."""
    b = Builder()
    omega = 3.0
    verts = [(-0.4, -0.4, 0.0), (0.4, -0.4, 0.0), (0.4, 0.4, 0.0), (-0.4, 0.4, 0.0)]
    prim = b.primitive(verts, [(0, 1, 2), (0, 2, 3)], [(0, 0, 0, 0)] * 4, [(1.0, 0, 0, 0)] * 4)
    times = [k * (math.pi / 2) / omega for k in range(5)]
    quats = [(0.0, 0.0, math.sin(k * math.pi / 4), math.cos(k * math.pi / 4)) for k in range(5)]
    t, q = b.keys(times, quats, "VEC4")
    gltf = {
        "scene": 0,
        "scenes": [{"nodes": [0, 1]}],
        "nodes": [{"name": "Table"}, {"name": "Plate", "mesh": 0, "skin": 0}],
        "meshes": [{"name": "Plate", "primitives": [prim]}],
        "skins": [{"joints": [0]}],
        "animations": [{"name": "Turn", "samplers": [{"input": t, "output": q, "interpolation": "LINEAR"}],
                        "channels": [{"sampler": 0, "target": {"node": 0, "path": "rotation"}}]}],
    }
    write_all(b, gltf, out, "turntable", glb_only=True)


def box(center, half):
    """The 8 corners and 12 outward triangles of an axis-aligned box."""
    (cx, cy, cz), (hx, hy, hz) = center, half
    verts = [(cx + (hx if k & 1 else -hx), cy + (hy if k & 2 else -hy), cz + (hz if k & 4 else -hz)) for k in range(8)]
    quads = [(0, 2, 3, 1), (4, 5, 7, 6), (0, 1, 5, 4), (2, 6, 7, 3), (0, 4, 6, 2), (1, 3, 7, 5)]
    return verts, [t for a, b, c, d in quads for t in ((a, b, c), (a, c, d))]


def fine_box(center, half, step):
    """An axis-aligned box whose every face is a uniform grid of squares of about `step` (so a
    smooth field over it is flat on its faces), outward triangles; vertices shared along edges."""
    index, verts, tris = {}, [], []

    def vertex(p):
        key = tuple(round(c, 9) for c in p)
        if key not in index:
            index[key] = len(verts)
            verts.append(key)
        return index[key]

    n = [max(1, round(2 * h / step)) for h in half]
    for axis in range(3):
        u, v = (axis + 1) % 3, (axis + 2) % 3
        for side in (-1.0, 1.0):
            def point(i, j):
                p = [0.0, 0.0, 0.0]
                p[axis] = center[axis] + side * half[axis]
                p[u] = center[u] - half[u] + 2 * half[u] * i / n[u]
                p[v] = center[v] - half[v] + 2 * half[v] * j / n[v]
                return vertex(p)
            for i in range(n[u]):
                for j in range(n[v]):
                    a, b, c, d = point(i, j), point(i + 1, j), point(i + 1, j + 1), point(i, j + 1)
                    # (u, v, axis) is right-handed: counter-clockwise in (u, v) faces +axis.
                    tris += [(a, b, c), (a, c, d)] if side > 0 else [(a, c, b), (a, d, c)]
    return verts, tris


def pincer(out):
    """A two-jaw gripper (000 E8's pinch, reduced to what grips): a hand bone with two jaw bones,
    each jaw a 2 x 15 x 4 cm box (x across, y up, z along) centred at y = 0, so that it reaches far
    below the 6 cm cup it grips and no jaw edge can get under the cup as it slides up, each face
    a uniform 5 mm grid (a smooth field over it is flat there), skinned to its bone alone, in
    glTF's +y-up axes. Clip "Pinch": the jaws, 9 cm apart between their inner faces, close to 5.8 cm in 0.4 s,
    hold 0.1 s, and the hand rises 5 cm (+y) from 0.5 to 1.0 s, then holds to 1.2 s."""
    b = Builder()
    prims = []
    for j, sign in enumerate((-1.0, 1.0)):
        verts, tris = fine_box((sign * 0.055, 0.0, 0.0), (0.01, 0.075, 0.02), 0.005)
        prims.append(b.primitive(verts, tris, [(j, 0, 0, 0)] * len(verts), [(1.0, 0, 0, 0)] * len(verts)))
    ibm = b.accessor([tuple(column_major(translation(0, 0, 0)))] * 2, FLOAT, "MAT4")

    close = 0.016
    samplers, channels = [], []
    for j, sign in enumerate((-1.0, 1.0)):
        t, v = b.keys([0.0, 0.4], [(0, 0, 0), (-sign * close, 0, 0)], "VEC3")
        samplers.append({"input": t, "output": v, "interpolation": "LINEAR"})
        channels.append({"sampler": len(samplers) - 1, "target": {"node": 1 + j, "path": "translation"}})
    t, v = b.keys([0.0, 0.5, 1.0, 1.2], [(0, 0, 0), (0, 0, 0), (0, 0.05, 0), (0, 0.05, 0)], "VEC3")
    samplers.append({"input": t, "output": v, "interpolation": "LINEAR"})
    channels.append({"sampler": len(samplers) - 1, "target": {"node": 0, "path": "translation"}})
    gltf = {
        "scene": 0,
        "scenes": [{"nodes": [0, 3]}],
        "nodes": [
            {"name": "Hand", "children": [1, 2]},
            {"name": "JawLeft"},
            {"name": "JawRight"},
            {"name": "Pincer", "mesh": 0, "skin": 0},
        ],
        "meshes": [{"name": "Jaws", "primitives": prims}],
        "skins": [{"joints": [1, 2], "inverseBindMatrices": ibm}],
        "animations": [{"name": "Pinch", "samplers": samplers, "channels": channels}],
    }
    write_all(b, gltf, out, "pincer", glb_only=True)


def capsule(length, radius, around, step):
    """A capsule along +x from x = 0 (a hemisphere centred there) to x = `length` (a hemisphere
    centred there), radius `radius`, `around` vertices per ring, rings about `step` apart along
    the body and over the caps; outward triangles."""
    rings = []  # (x, ring radius)
    ncap = max(2, round(0.5 * math.pi * radius / step))
    for k in range(1, ncap):  # the base cap, pole excluded
        a = 0.5 * math.pi * (1 - k / ncap)
        rings.append((-radius * math.sin(a), radius * math.cos(a)))
    nbody = max(1, round(length / step))
    rings += [(length * k / nbody, radius) for k in range(nbody + 1)]
    for k in range(1, ncap):
        a = 0.5 * math.pi * k / ncap
        rings.append((length + radius * math.sin(a), radius * math.cos(a)))
    ring_points = [[(x, r * math.cos(2 * math.pi * j / around), r * math.sin(2 * math.pi * j / around))
                    for j in range(around)] for x, r in rings]
    return closed_rings(ring_points, (-radius, 0.0, 0.0), (length + radius, 0.0, 0.0))


def closed_rings(rings, first_pole, last_pole, flip=False):
    """A closed surface through `rings` (each a list of the same number of points, in order from
    `first_pole` to `last_pole`), capped by the two poles: vertices (first pole, the rings, last
    pole) and triangles. With the rings turning counter-clockwise seen from the last pole the
    triangles face outward; `flip` reverses them all for rings that turn the other way."""
    around = len(rings[0])
    verts = [first_pole] + [p for r in rings for p in r] + [last_pole]
    ring = lambda i, j: 1 + i * around + j % around
    tris = [(0, ring(0, j + 1), ring(0, j)) for j in range(around)]
    for i in range(len(rings) - 1):
        for j in range(around):
            a, b, c, d = ring(i, j), ring(i, j + 1), ring(i + 1, j + 1), ring(i + 1, j)
            tris += [(a, b, c), (a, c, d)]
    last = len(verts) - 1
    tris += [(last, ring(len(rings) - 1, j), ring(len(rings) - 1, j + 1)) for j in range(around)]
    return verts, [(a, c, b) for a, b, c in tris] if flip else tris


def quat_z(deg):
    a = math.radians(deg) / 2
    return (0.0, 0.0, math.sin(a), math.cos(a))


def thumb(out):
    """A thumb (000 Fig. 14, pressing and dragging): a capsule of radius 1 cm along +x, 6 cm
    between its cap centres, on two bones, "Proximal" (the hand, at the origin) and "Distal" (the
    joint, 3 cm along x); the skin blends from the proximal bone to the distal one over
    x = 2..4 cm, as a knuckle does; triangles about 2.5 mm; glTF's +y-up axes. The hand holds the
    thumb pointing 10 degrees down, its pad (the tip cap's lowest point) 1 cm above y = 0 at rest.
    Clip "PressDrag": over 0.3 s the hand lowers and the distal joint flexes 10 degrees, bringing
    the pad 3 mm below y = 0 (into what lies there); then, flexed, the hand drags 2 cm along +x
    from 0.3 to 1.0 s and holds to 1.2 s."""
    b = Builder()
    radius, length, knuckle = 0.01, 0.06, 0.03
    verts, tris = capsule(length, radius, 24, 0.0025)
    blend = lambda x: min(1.0, max(0.0, (x - 0.02) / 0.02))
    joints = [(0, 1, 0, 0)] * len(verts)
    weights = [(1.0 - blend(v[0]), blend(v[0]), 0.0, 0.0) for v in verts]
    prim = b.primitive(verts, tris, joints, weights)
    ibm = b.accessor([tuple(column_major(translation(0, 0, 0))),
                      tuple(column_major(translation(-knuckle, 0, 0)))], FLOAT, "MAT4")

    # The pad's lowest point is the tip cap's, `radius` below its centre: 1 cm above y = 0 at
    # rest, 3 mm below it once the hand has lowered by `press` and the distal bone has flexed.
    tilt, flex = 10.0, 10.0
    sin = lambda deg: math.sin(math.radians(deg))
    y0 = 0.01 + radius + knuckle * sin(tilt) + (length - knuckle) * sin(tilt)
    press = 0.013 - (length - knuckle) * (sin(tilt + flex) - sin(tilt))
    samplers, channels = [], []
    t, v = b.keys([0.0, 0.3, 1.0, 1.2], [(0, y0, 0), (0, y0 - press, 0), (0.02, y0 - press, 0), (0.02, y0 - press, 0)],
                "VEC3")
    samplers.append({"input": t, "output": v, "interpolation": "LINEAR"})
    channels.append({"sampler": 0, "target": {"node": 0, "path": "translation"}})
    t, v = b.keys([0.0, 0.3, 1.2], [quat_z(0.0), quat_z(-flex), quat_z(-flex)], "VEC4")
    samplers.append({"input": t, "output": v, "interpolation": "LINEAR"})
    channels.append({"sampler": 1, "target": {"node": 2, "path": "rotation"}})
    gltf = {
        "scene": 0,
        "scenes": [{"nodes": [0, 3]}],
        "nodes": [
            {"name": "Hand", "translation": [0, y0, 0], "children": [1]},
            {"name": "Proximal", "rotation": list(quat_z(-tilt)), "children": [2]},
            {"name": "Distal", "translation": [knuckle, 0, 0]},
            {"name": "Thumb", "mesh": 0, "skin": 0},
        ],
        "meshes": [{"name": "Thumb", "primitives": [prim]}],
        "skins": [{"joints": [1, 2], "inverseBindMatrices": ibm}],
        "animations": [{"name": "PressDrag", "samplers": samplers, "channels": channels}],
    }
    write_all(b, gltf, out, "thumb", glb_only=True)


def main():
    makers = {"arm": arm, "turntable": turntable, "pincer": pincer, "thumb": thumb}
    if len(sys.argv) != 3 or sys.argv[1] not in makers:
        sys.exit(__doc__)
    makers[sys.argv[1]](sys.argv[2])


if __name__ == "__main__":
    main()
