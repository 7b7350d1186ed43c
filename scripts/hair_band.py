#!/usr/bin/env python3
"""Generate scenes/hair_band.ron and scenes/data/hair_band.obj, 004 W7 (Fig. 13): a stretched
elastic band holds a groom on a running head by contact and friction alone, at a size that runs
in minutes here.

The head is a 9 cm sphere that runs: it bobs +-BOB at twice the stride rate and turns +-YAW about
the vertical at the stride rate, both eased in over EASE s. COUNT strands rooted on a ring at
ROOT_LAT lie on the scalp, combed down along the meridians past the band with a small wave in
the scalp's plane, to END_LAT. The band (004 Table 4: 5 mm, 0.4 g/cm^3, E_s 1 MPa, E_b 1 kPa,
nu 0.4) is meshed over the hair at BAND_LAT, tangent to the head, and stretched by 1/REST_SCALE
(its hoop tension about 5.9 N, tests/support/band.rs); the scene settles it before the head
moves (a band released unsettled climbs, tests/hair_band.rs). Friction as 004's: hair 0.2
(against anything), band on body 0.5.

At the peak of the turn the scalp's tangential acceleration, YAW (2 pi f)^2 R, is about 11 m/s^2:
more than hair on skin can follow by friction under its weight (0.2 g), so without the band
(`tests/hair_band.rs` removes it) the strands slide across the scalp under where the band would
be; the band's 63 N/m of normal load holds them.

    python3 scripts/hair_band.py
"""
import math
import os

HEAD_R = 0.09          # head radius (m)
CENTER = (0.0, 0.0, 0.2)
COUNT = 96             # strands
ROOT_LAT, END_LAT = 50.0, -20.0  # where the strands start and end (degrees of latitude)
SEGMENTS = 24          # edges per strand (4.6 mm each: two nodes under the 1 cm band)
WAVE = (0.0015, 0.02)  # the strands' wave in the scalp's plane: amplitude and wavelength (m)
HAIR_R = 4e-5          # 004 Table 4's hair: D = 0.08 mm, 1.3 g/cm^3, E_b 4 GPa, E_s 100 MPa
BAND_LAT = 10.0        # the band's latitude (degrees)
BAND_T = 5e-3          # band thickness (m); its nodes touch at half of it
BAND_W = 0.01          # band width (m)
AROUND, ACROSS = 96, 3  # band mesh
REST_SCALE = 0.9
STRIDE = 2.5           # turns per second of the head (Hz); it bobs at twice that
YAW, BOB = 30.0, 0.01  # amplitudes: degrees about the vertical, metres
EASE = 0.2             # the amplitudes grow smoothly from 0 over EASE s
DT = 2e-3              # time step (s)
DURATION = 0.8         # two strides
KEY_EVERY = 2          # a key every KEY_EVERY steps


def scale(s):
    """How far the motion has eased in at time s: smoothstep from 0 to 1 over EASE."""
    u = min(1.0, s / EASE)
    return u * u * (3.0 - 2.0 * u)


def keys():
    """The head's keys: (t, (0, 0, bob), (0, 0, yaw degrees))."""
    out = []
    count = round(DURATION / (KEY_EVERY * DT))
    for k in range(count + 1):
        t = DURATION * k / count
        w = 2.0 * math.pi * STRIDE * t
        yaw = YAW * scale(t) * math.sin(w)
        bob = BOB * scale(t) * math.sin(2.0 * w)
        out.append(f"({t:.4f}, (0.0, 0.0, {bob:.7f}), (0.0, 0.0, {yaw:.6f}))")
    return "[" + ", ".join(out) + "]"


def on_sphere(r, lat, lon):
    return (CENTER[0] + r * math.cos(lat) * math.cos(lon), CENTER[1] + r * math.cos(lat) * math.sin(lon),
            CENTER[2] + r * math.sin(lat))


def strands():
    """Strand k runs down the meridian at longitude 2 pi k / COUNT, its nodes one hair radius off
    the scalp, waving across the meridian (along the parallel) by WAVE[0]."""
    out = []
    r = HEAD_R + HAIR_R
    lat0, lat1 = math.radians(ROOT_LAT), math.radians(END_LAT)
    for k in range(COUNT):
        lon0 = 2.0 * math.pi * k / COUNT
        pts = []
        for j in range(SEGMENTS + 1):
            lat = lat0 + (lat1 - lat0) * j / SEGMENTS
            s = r * (lat0 - lat)  # arc length from the root
            lon = lon0 + WAVE[0] * math.sin(2.0 * math.pi * s / WAVE[1]) / (r * math.cos(lat))
            pts.append(on_sphere(r, lat, lon))
        out.append(pts)
    return out


def band_obj():
    """A conical strip BAND_W wide tangent, along its middle circle, to the sphere its nodes
    touch over the hair (radius R + 2 hair radii + half the band's thickness) at BAND_LAT."""
    rho = HEAD_R + 2.0 * HAIR_R + 0.5 * BAND_T
    phi = math.radians(BAND_LAT)
    lines = []
    for j in range(ACROSS + 1):
        t = BAND_W * (j / ACROSS - 0.5)
        radial, z = rho * math.cos(phi) - t * math.sin(phi), rho * math.sin(phi) + t * math.cos(phi)
        for i in range(AROUND):
            a = 2.0 * math.pi * i / AROUND
            lines.append(f"v {CENTER[0] + radial * math.cos(a):.9f} {CENTER[1] + radial * math.sin(a):.9f} {CENTER[2] + z:.9f}")
    vid = lambda i, j: j * AROUND + i % AROUND + 1
    for j in range(ACROSS):
        for i in range(AROUND):
            lines.append(f"f {vid(i, j)} {vid(i + 1, j)} {vid(i + 1, j + 1)}")
            lines.append(f"f {vid(i, j)} {vid(i + 1, j + 1)} {vid(i, j + 1)}")
    return "\n".join(lines) + "\n"


def hair_material(radius):
    """004 Table 4's hair (D 0.07-0.08 mm, 1.3 g/cm^3, E_b 4 GPa, E_s 100 MPa, nu 0.48) as a
    scene's material entry."""
    return f'"hair": (density: 1300.0, youngs_modulus: 1e8, bending_modulus: 4e9, poisson_ratio: 0.48, radius: {radius})'


def hinge_bending(e_b, h, nu):
    """A cloth's hinge stiffness (J) from 004's separate bending modulus E_b (Pa) at thickness h:
    the plate value E_b h^3 / (72 (1 - nu^2)) that fricsim computes from E when `bending` is
    not given, with E_b in place of the membrane's E_s."""
    return e_b * h ** 3 / (72.0 * (1.0 - nu * nu))


def main():
    # The band: E_b = 1 kPa, its membrane E_s = 1 MPa (004 Table 4).
    bending = hinge_bending(1e3, BAND_T, 0.4)
    lines = ",\n            ".join("[" + ", ".join(f"({x:.7f}, {y:.7f}, {z:.7f})" for x, y, z in s) + "]" for s in strands())
    motion = f"Rigid(pivot: {CENTER}, keys: {keys()})"
    text = f"""// 004 W7 (Fig. 13), the hair band, at a size that runs in minutes: a stretched band holds a
// groom on a running head by contact and friction alone. The head ({HEAD_R * 100:.0f} cm) turns +-{YAW:.0f} degrees at
// {STRIDE} Hz and bobs +-{BOB * 100:.0f} cm at twice that; {COUNT} strands ({SEGMENTS} segments, r = {HAIR_R * 1e6:.0f} um) rooted at {ROOT_LAT:.0f} degrees
// of latitude lie on the scalp, combed down past the band to {END_LAT:.0f} degrees; the band (5 mm, 1 cm wide,
// stretched by 1/{REST_SCALE}) sits over them at {BAND_LAT:.0f} degrees, settled before the head moves. Friction: hair
// 0.2 against anything, band on skin 0.5 (004's). Without the band the strands slide across the scalp under the
// turn's 11 m/s^2; with it they stay (tests/hair_band.rs). Projected Newton with 004's nodal ADMM
// and its Table 5 settings for this scene (N_GS 10, the delta_inf 0.01 mm stop; the natural-map
// error stays in stats.csv). `solver: Auto`'s exact solvers are far slower on these 3700 stiff
// contacts (README, "The hair band and long hair over a shirt").
// Generated by scripts/hair_band.py (edit that, not this file).
Scene(
    name: "hair_band",
    dt: {DT}, duration: {DURATION}, frame_rate: 25.0, settle: 0.05,
    materials: {{
        {hair_material(HAIR_R)},
        "band": (density: 400.0, youngs_modulus: 1e6, poisson_ratio: 0.4, thickness: {BAND_T}, bending: {bending:.4e}),
        "skin": (),
    }},
    friction: (default: (mu: 0.2), pairs: [(between: ("band", "skin"), mu: 0.5)]),
    bodies: [
        Cloth(name: "band", material: "band", mesh: File(path: "data/hair_band.obj"), rest_scale: {REST_SCALE}, self_contact: false),
        Rods(name: "hair", material: "hair", fixed_roots: true, root_motion: {motion},
             curves: Polylines([
            {lines},
        ])),
    ],
    colliders: [
        Sphere(name: "head", material: "skin", radius: {HEAD_R}, position: {CENTER}, motion: {motion}),
    ],
    pipeline: Nonsmooth(solver: Admm, nodal_integrator: ProjectedNewton, tolerance: 1e-4, max_iterations: 1000,
                        contact_margin: 2e-4, on_failure: Continue,
                        admm: (ccd_every: 0, delta_inf: 1e-5, gs_sweeps: 10)),
)
"""
    root = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "scenes")
    with open(os.path.join(root, "data", "hair_band.obj"), "w") as f:
        f.write(band_obj())
    with open(os.path.join(root, "hair_band.ron"), "w") as f:
        f.write(text)
    print("scenes/hair_band.ron, scenes/data/hair_band.obj")


if __name__ == "__main__":
    main()
