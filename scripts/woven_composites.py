#!/usr/bin/env python3
"""002 experiment 9 (Fig. 7.1), woven elastic-frictional composites hanging on pegs:

  scenes/woven_composites.ron   a grid of composites, friction 0.1 / 0.3 / 0.5 from left to right
                                and two stiffnesses, the stiffer on top.

Each composite is 4 horizontal and 4 vertical flat strips (12 x 2 x 0.2 cm, a stiff rubber)
woven over and under, each strip a reduced deformable of 18 linear modes (002 Table 7.1: 192
unknowns per composite). A strip's rest shape is flat; it starts bent over and under its
neighbours (`displacement`, mid-surfaces t + GAP apart at each crossing), so its own stiffness
presses it on them: that pretension is what friction works with. The top strip rests on two
pegs; every other strip hangs from it by friction alone. Where friction and pretension do not
carry the weight, the vertical strips slide down out of the top strip and the composite comes
apart.

Status (not yet a shipped scene; measured on one composite, E 2e6 Pa, contact margin 0.5 mm):
- Contacts: with 5 mm cells (24 x 4 x 1) the crossings make 5,184 vertex-face and edge-edge
  contacts on the composite's 192 unknowns (the default 2 mm margin: about 10,800); with the
  7.5 mm cells below, about 1,400. 002 Table 7.1: 921 contacts, 0.56 s per step.
- Solvers: `Admm` (004's settings) misses 1e-6 in 6,000 iterations per Newton step on both
  meshes; `Auto` converges in 11,356 iterations and minutes per step. With 004's stop
  `admm: (delta_inf: 1e-6)` the first six steps take 2.2-10.1 s (704-1,793 iterations at
  1,397-5,828 contacts) and end as converged.
- Physics: at mu 1.0 the strips then pass through each other at the crossings within two steps
  (0.65 mm overlap at the top-left crossing after step 2) as the pretension springs them at each
  other at about 0.25 m/s, while no contact reports a negative gap: the elastic energy falls
  tenfold in 0.04 s without the strips sliding.

The single composite above: scripts/woven_composites.py --mus 1.0 --stiffness 2e6 --out w.ron,
then `fricsim check w.ron` (the modes take the weave to within 8.2e-5 m, under GAP / 2, so the
crossings start apart: 0.04-0.08 mm at their centres) and `fricsim run w.ron --frames 3` with
`admm: (delta_inf: 1e-6)` added to the pipeline.

Usage: scripts/woven_composites.py [--mus 0.1,0.3,0.5] [--stiffness 2e6,5e5] [--duration S] [--out F.ron]
       (default: the temporary folder's woven_composites.ron)
"""
import argparse
import itertools
import math
import os
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
LENGTH, WIDTH, THICK = 0.12, 0.02, 0.002  # strip (m)
CELLS = (16, 2, 1)  # 7.5 mm cells along (a vertex at every crossing), 1 cm across, one through the thickness
SPACING = 0.03  # between strip centres: 1 cm openings for the pegs
GAP = 2e-4  # between the strips' faces at each crossing at the start (m)
PEG_RADIUS = 0.003
MODES = 18
DENSITY = 1100.0
CELL_PITCH = 0.16  # between composites of the grid (m), horizontally and vertically


def euler_degrees(target):
    """Scene rotation (degrees about x, then y, then z) whose matrix is `target`."""

    def rot(axis, deg):
        c, s = round(math.cos(math.radians(deg))), round(math.sin(math.radians(deg)))
        i, j = [(1, 2), (2, 0), (0, 1)][axis]
        m = [[float(r == k) for k in range(3)] for r in range(3)]
        m[i][i], m[i][j], m[j][i], m[j][j] = c, -s, s, c
        return m

    def mul(a, b):
        return [[sum(a[r][k] * b[k][c] for k in range(3)) for c in range(3)] for r in range(3)]

    for a, b, c in itertools.product((0, 90, 180, 270), repeat=3):
        if mul(rot(2, c), mul(rot(1, b), rot(0, a))) == target:
            return (a, b, c)
    raise ValueError("no rotation in quarter turns")


# A strip's local axes: x along it, y across, z through its thickness. The composite lies in the
# world's x-z plane (gravity -z) with its thickness along y.
HORIZONTAL = euler_degrees([[1, 0, 0], [0, 0, -1], [0, 1, 0]])  # local z -> world -y
VERTICAL = euler_degrees([[0, 1, 0], [0, 0, 1], [1, 0, 0]])  # local x -> z, z -> y


def strip_displacement(sign, phase):
    """The local z displacement of a strip: +-a at its crossings, a cosine between them (and on
    to its ends), with a = (THICK + GAP) / 2 so that crossing strips' faces are GAP apart."""
    a = 0.5 * (THICK + GAP)
    shift = "x - %.6f" % phase if phase >= 0 else "x + %.6f" % -phase
    k = math.pi / SPACING
    # Cross-sections turn with the mid-surface (Kirchhoff): u_x = -z dw/dx, so the field is a
    # bending the modes can take rather than a shear.
    ux = "%.9f * z * sin(%.10f * (%s))" % (sign * a * k, k, shift)
    uz = "%.7f * cos(%.10f * (%s))" % (sign * a, k, shift)
    return '(x: "%s", y: "0", z: "%s")' % (ux, uz)


def composite(tag, material, origin):
    """Eight strips and two pegs of one composite, centred at `origin` (x, z)."""
    ox, oz = origin
    bodies, pegs = [], []
    first = -1.5 * SPACING
    for k in range(4):  # horizontal strips, top (k = 0) down; world y at crossing j: (-1)^(j+k) a
        # y_world = -z_local, so z_local = -(-1)^k a cos(pi (x - first) / s).
        sign = -((-1) ** k)
        bodies.append(strip(f"{tag}_h{k}", material, (ox, oz - first - k * SPACING), HORIZONTAL,
                            strip_displacement(sign, first)))
    for j in range(4):  # vertical strips: world y at crossing k is -(-1)^(j+k) a
        # local x = world z - oz, row k at local x = -first - k s; y_world = z_local.
        sign = -((-1) ** j)
        bodies.append(strip(f"{tag}_v{j}", material, (ox + first + j * SPACING, oz), VERTICAL,
                            strip_displacement(sign, -first)))
    for x in (-SPACING, SPACING):  # in the openings under the top strip
        z = oz - first - 0.5 * WIDTH - PEG_RADIUS - 1e-4
        pegs.append(f"""        Cylinder(name: "{tag}_peg{'l' if x < 0 else 'r'}", material: "peg", radius: {PEG_RADIUS},
                 length: 0.03, position: ({ox + x:.4f}, 0.0, {z:.5f}), rotation: (90.0, 0.0, 0.0)),""")
    return bodies, pegs


def strip(name, material, xz, rotation, displacement):
    return f"""        Solid(name: "{name}", material: "{material}",
              mesh: Box(size: ({LENGTH}, {WIDTH}, {THICK}), cells: {CELLS}),
              position: ({xz[0]:.4f}, 0.0, {xz[1]:.4f}), rotation: ({rotation[0]:.1f}, {rotation[1]:.1f}, {rotation[2]:.1f}),
              displacement: {displacement},
              reduced: Modal(modes: {MODES})),"""


def scene(mus, stiffnesses, duration):
    materials, pairs, bodies, pegs = [], [], [], []
    for row, e in enumerate(stiffnesses):
        for col, mu in enumerate(mus):
            tag = f"c{row}{col}"
            materials.append(f'        "{tag}": (density: {DENSITY}, youngs_modulus: {e:g}, poisson_ratio: 0.45),')
            pairs.append(f'            (between: ("{tag}", "{tag}"), mu: {mu}),')
            origin = ((col - 0.5 * (len(mus) - 1)) * CELL_PITCH, -row * CELL_PITCH)
            b, p = composite(tag, tag, origin)
            bodies += b
            pegs += p
    grid = ", ".join(f"{m}" for m in mus)
    return f"""// 002 experiment 9 (Fig. 7.1): woven elastic-frictional composites hanging on pegs, friction
// {grid} from left to right, Young's modulus {', '.join(f'{e:g}' for e in stiffnesses)} Pa from the top row down.
// Each composite: 8 flat strips (12 x 2 x 0.2 cm, 18 linear modes each) woven over and under,
// starting bent so that they press on each other; the top strip rests on two pegs and the others
// hang from it by friction. Regenerate with scripts/woven_composites.py.
//   fricsim run scenes/woven_composites.ron
Scene(
    name: "woven_composites",
    dt: 2.5e-3,
    duration: {duration},
    frame_rate: 50.0,
    gravity: (0.0, 0.0, -9.81),
    materials: {{
{chr(10).join(materials)}
        "peg": (),
    }},
    friction: (
        default: (mu: 0.5),
        pairs: [
{chr(10).join(pairs)}
        ],
    ),
    bodies: [
{chr(10).join(bodies)}
    ],
    colliders: [
{chr(10).join(pegs)}
    ],
    pipeline: Nonsmooth(solver: Admm, tolerance: 1e-6, max_iterations: 6000, contact_margin: 5e-4),
)
"""


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--mus", default="0.1,0.3,0.5")
    ap.add_argument("--stiffness", default="2e6,5e5")
    ap.add_argument("--duration", type=float, default=1.0)
    ap.add_argument("--out", default=os.path.join(tempfile.gettempdir(), "woven_composites.ron"))
    args = ap.parse_args()
    mus = [float(m) for m in args.mus.split(",")]
    stiff = [float(e) for e in args.stiffness.split(",")]
    with open(args.out, "w") as f:
        f.write(scene(mus, stiff, args.duration))
    print(args.out)


if __name__ == "__main__":
    main()
