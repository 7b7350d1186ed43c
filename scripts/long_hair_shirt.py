#!/usr/bin/env python3
"""Generate scenes/long_hair_shirt.ron, 004 W7's long hair over a shirt (Fig. 1), at a size that
runs in minutes here, on the skinned torso and the tank top of scripts/tank_top.py
(scenes/data/torso.glb, scenes/data/tank_top.obj).

The torso leans forward LEAN degrees, as a runner does, so that hair hanging from the back of the
head lies along the back; its clip "Sway" rolls the chest +-10 degrees from 0.5 s on. A head (a
9 cm sphere, no part of the glTF) sits on the neck and moves with the chest: its `Rigid` keys are
the clip's, turned into the scene's axes. ROWS x PER_ROW long strands (54-60 cm, SEGMENTS segments,
004 Table 4's long hair) are rooted in rows on the back of the head and combed down over the
neck and the back, 8 mm off the skin (3 mm off the shirt's outer side); the tank top hangs on
the shoulders under them. Friction: hair 0.2 against anything (004's), shirt on body 0.8 (000's
for this tank top; at 004's 0.5 this heavier shirt slides off the shoulders).

    python3 scripts/long_hair_shirt.py            # writes the scene
    python3 scripts/long_hair_shirt.py --time     # 004's cost claim: hair + shirt against hair
                                                  # alone plus shirt alone (target/release/fricsim)

004 Table 2: long hair only 134 s a frame, shirt only 62, both 294 (t_solver 37, 38, 116):
"slightly more" than the sum, 1.5x (1.55x in the solver).
"""
import csv
import math
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import tank_top as tt  # noqa: E402
from hair_band import hair_material, hinge_bending  # noqa: E402

LEAN = 15.0             # the torso's forward lean (degrees about x)
HEAD_R, HEAD_Y = 0.09, 0.65   # the head's radius and its centre's height in the torso's glTF frame
CHEST_Y = 0.25          # the clip's chest joint (glTF frame)
ROWS = (-10.0, 10.0)    # root rows: latitudes on the head (degrees)
PER_ROW = 40            # strands per row, from -SPREAD to +SPREAD degrees about the back
SPREAD = 60.0
END_Y = 0.12            # the strands end at this height of the torso (glTF frame)
SEGMENTS = 40
HAIR_R = 4e-5           # 004 Table 4's long hair: D 0.08 mm, 1.3 g/cm^3, E_b 4 GPa, E_s 100 MPa
OFF = 0.008             # the strands' start: this far off the skin
DT = 2e-3
DURATION = 1.0          # 0.5 s hanging, then half a second of the sway


def to_scene(p):
    """The torso's glTF frame (+y up, back towards -z) to the scene's: +z up, turned by 90 + LEAN
    degrees about x (the torso's `rotation`)."""
    b = math.radians(90.0 + LEAN)
    x, y, z = p
    return (x, y * math.cos(b) - z * math.sin(b), y * math.sin(b) + z * math.cos(b))


def strand(theta, lat):
    """One strand in the glTF frame: from its root on the head at latitude `lat` and angle
    `theta` about the back (0: straight back) down over the head, neck and back, OFF off the
    skin, to END_Y; resampled to SEGMENTS equal segments."""
    s, c = math.sin(theta), math.cos(theta)
    root_y = HEAD_Y + HEAD_R * math.sin(lat)
    dense = []
    for k in range(2001):
        y = root_y + (END_Y - root_y) * k / 2000
        a, b = tt.half_axes(y)
        body = ((a + OFF) * s, -(b + OFF) * c)
        dy = y - HEAD_Y
        rh = math.sqrt(max(0.0, HEAD_R * HEAD_R - dy * dy)) + HAIR_R
        head = (rh * s, -rh * c)
        x, z = max(body, head, key=lambda q: math.hypot(*q))
        dense.append((x, y, z))
    # Resample by arc length.
    lengths = [0.0]
    for p, q in zip(dense, dense[1:]):
        lengths.append(lengths[-1] + math.dist(p, q))
    out, j = [], 0
    for k in range(SEGMENTS + 1):
        target = lengths[-1] * k / SEGMENTS
        while j < len(dense) - 2 and lengths[j + 1] < target:
            j += 1
        f = (target - lengths[j]) / max(lengths[j + 1] - lengths[j], 1e-12)
        out.append(tuple(dense[j][i] + f * (dense[j + 1][i] - dense[j][i]) for i in range(3)))
    return out, lengths[-1]


def strands():
    """Every strand in the scene's axes, and the shortest and longest strand's length."""
    out, lengths = [], []
    for lat in ROWS:
        for k in range(PER_ROW):
            theta = math.radians(-SPREAD + 2.0 * SPREAD * k / (PER_ROW - 1))
            pts, length = strand(theta, math.radians(lat))
            out.append([to_scene(p) for p in pts])
            lengths.append(length)
    return out, (min(lengths), max(lengths))


def euler_xyz(axis, angle):
    """Degrees (rx, ry, rz) of the rotation by `angle` (rad) about unit `axis`, as the scene
    composes them: R = Rz Ry Rx."""
    x, y, z = axis
    c, s, t = math.cos(angle), math.sin(angle), 1.0 - math.cos(angle)
    r = [[t * x * x + c, t * x * y - s * z, t * x * z + s * y],
         [t * x * y + s * z, t * y * y + c, t * y * z - s * x],
         [t * x * z - s * y, t * y * z + s * x, t * z * z + c]]
    ry = -math.asin(max(-1.0, min(1.0, r[2][0])))
    rx = math.atan2(r[2][1], r[2][2])
    rz = math.atan2(r[1][0], r[0][0])
    return tuple(math.degrees(v) for v in (rx, ry, rz))


def head_keys():
    """The clip's keys (scripts/tank_top.py: the chest rolls about the glTF +z axis through the
    chest joint, slerped between keys) in the scene's axes; the head rides on the chest."""
    axis = to_scene((0.0, 0.0, 1.0))
    keys = []
    for t in tt.SWAY_TIMES:
        rx, ry, rz = euler_xyz(axis, math.radians(tt.sway_roll(t)))
        keys.append(f"({t:.3f}, (0.0, 0.0, 0.0), ({rx:.6f}, {ry:.6f}, {rz:.6f}))")
    return "[" + ", ".join(keys) + "]"


def scene():
    hair, (shortest, longest) = strands()
    lines = ",\n            ".join("[" + ", ".join(f"({x:.6f}, {y:.6f}, {z:.6f})" for x, y, z in s) + "]" for s in hair)
    pivot = "({:.6f}, {:.6f}, {:.6f})".format(*to_scene((0.0, CHEST_Y, 0.0)))
    head = "({:.6f}, {:.6f}, {:.6f})".format(*to_scene((0.0, HEAD_Y, 0.0)))
    motion = f"Rigid(pivot: {pivot}, keys: {head_keys()})"
    # 004's shirt: 2 mm, 1 g/cm^3, E_s 1 MPa, E_b 1 kPa.
    bending = hinge_bending(1e3, 2e-3, 0.4)
    return f"""// 004 W7's long hair over a shirt (Fig. 1), at a size that runs in minutes: {len(hair)} strands
// ({shortest * 100:.0f}-{longest * 100:.0f} cm, {SEGMENTS} segments, r = {HAIR_R * 1e6:.0f} um) hang from the back of a {HEAD_R * 100:.0f} cm head over the neck and the back of
// the skinned torso of scenes/tank_top.ron, leaning forward {LEAN:.0f} degrees as a runner does, and over the
// tank top (522 vertices, 004's shirt: 2 mm, E_s 1 MPa) hanging on its shoulders. The chest rolls
// +-10 degrees from 0.5 s on (the clip "Sway"); the head and the roots ride on it (`Rigid` keys:
// the clip's, in this scene's axes). Friction: hair 0.2 against anything (004's), shirt on skin
// 0.8 (000's for this tank top: at 004's 0.5 the heavy shirt slides off these shoulders, its
// mean height 16 cm lower within 0.32 s, with or without the lean). Projected Newton with 004's nodal ADMM and its Table 5 settings (N_GS 10, the delta_inf
// 0.01 mm stop). tests/long_hair_shirt.rs checks that the hair lies on the shirt without passing
// through it; `python3 scripts/long_hair_shirt.py --time` times hair + shirt against each alone.
// Generated by scripts/long_hair_shirt.py (edit that, not this file).
Scene(
    name: "long_hair_shirt",
    dt: {DT}, duration: {DURATION}, frame_rate: 25.0, settle: 0.05,
    materials: {{
        {hair_material(HAIR_R)},
        "shirt": (density: 1000.0, youngs_modulus: 1e6, poisson_ratio: 0.4, thickness: 2e-3, bending: {bending:.4e}),
        "skin": (),
    }},
    friction: (default: (mu: 0.2), pairs: [(between: ("shirt", "skin"), mu: 0.8)]),
    bodies: [
        Cloth(name: "shirt", material: "shirt", mesh: File(path: "data/tank_top.obj"), rotation: ({LEAN}, 0.0, 0.0), self_contact: false),
        Rods(name: "hair", material: "hair", fixed_roots: true, root_motion: {motion},
             curves: Polylines([
            {lines},
        ])),
    ],
    colliders: [
        Mesh(name: "torso", material: "skin", path: "data/torso.glb", rotation: ({90.0 + LEAN}, 0.0, 0.0), animation: (clip: "Sway")),
        Sphere(name: "head", material: "skin", radius: {HEAD_R}, position: {head}, motion: {motion}),
    ],
    pipeline: Nonsmooth(solver: Admm, nodal_integrator: ProjectedNewton, tolerance: 1e-4, max_iterations: 300,
                        contact_margin: 2e-4, on_failure: Continue,
                        admm: (ccd_every: 0, delta_inf: 1e-5, gs_sweeps: 10)),
)
"""


def without(text, name):
    """The scene without the body `name`: from the line it starts on to where its brackets close."""
    lines = text.split("\n")
    start = next(i for i, l in enumerate(lines) if l.lstrip().startswith((f'Rods(name: "{name}"', f'Cloth(name: "{name}"')))
    depth, end = 0, start
    while True:
        depth += sum(lines[end].count(c) for c in "([") - sum(lines[end].count(c) for c in ")]")
        if depth == 0:
            break
        end += 1
    return "\n".join(lines[:start] + lines[end + 1:])


def time_variants(text, root):
    """Runs hair + shirt, hair alone and shirt alone with target/release/fricsim one after the
    other; prints seconds a step (mean wall time of the steps) and the ratio."""
    exe = os.path.join(root, "..", "target", "release", "fricsim")
    rows = {}
    for label, variant in (("hair + shirt", text), ("hair alone", without(text, "shirt")), ("shirt alone", without(text, "hair"))):
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(root, f".timing_{os.getpid()}.ron")
            with open(path, "w") as f:
                f.write(variant)
            try:
                subprocess.run([exe, "run", path, "--out", d, "--quiet"], check=True)
            finally:
                os.remove(path)
            with open(os.path.join(d, "stats.csv")) as f:
                stats = list(csv.DictReader(f))
        wall = sum(float(r["wall_s"]) for r in stats) / len(stats)
        contacts = max(int(r["active_contacts"]) for r in stats)
        rows[label] = wall
        print(f"{label:13s} {wall:.4f} s/step, up to {contacts} contacts")
    print(f"hair + shirt / (hair alone + shirt alone) = {rows['hair + shirt'] / (rows['hair alone'] + rows['shirt alone']):.2f} (004: 1.50 a frame, 1.55 in the solver)")


def main():
    root = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "scenes")
    text = scene()
    if "--time" in sys.argv:
        time_variants(text, root)
        return
    with open(os.path.join(root, "long_hair_shirt.ron"), "w") as f:
        f.write(text)
    print("scenes/long_hair_shirt.ron")


if __name__ == "__main__":
    main()
