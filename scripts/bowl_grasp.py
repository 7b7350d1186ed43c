#!/usr/bin/env python3
"""Writes scenes/bowl_grasp.ron (001 §V-A2): three pads at 120 degrees around an upside-down bowl.

    python3 scripts/bowl_grasp.py [--squeeze M] [--out PATH]

The pads are held by their top layers; each closes `squeeze` metres towards the bowl's axis in
0.2 s, holds 0.1 s, then lifts 5 cm by t = 1.5 s.
"""
import argparse
import math

p = argparse.ArgumentParser()
p.add_argument("--squeeze", type=float, default=0.004)
p.add_argument("--out", default="scenes/bowl_grasp.ron")
a = p.parse_args()

pads = []
for k, phi in enumerate([0.0, 120.0, 240.0]):
    c, s = math.cos(math.radians(phi)), math.sin(math.radians(phi))
    cx, cy = 0.0615 * c, 0.0615 * s
    sx, sy = -a.squeeze * c, -a.squeeze * s
    pads.append(f"""        Solid(
            name: "pad{k}",
            material: "pad",
            mesh: Box(size: (0.02, 0.03, 0.03), cells: (2, 3, 3)),
            position: ({cx:.6f}, {cy:.6f}, 0.017),
            rotation: (0.0, 0.0, {phi:.1f}),
            kinematic: [ (
                region: Box(min: ({cx - 0.025:.4f}, {cy - 0.025:.4f}, 0.0315), max: ({cx + 0.025:.4f}, {cy + 0.025:.4f}, 0.0330)),
                motion: Keyframes([
                    (0.0, (0.0, 0.0, 0.0)),
                    (0.2, ({sx:.6f}, {sy:.6f}, 0.0)),
                    (0.3, ({sx:.6f}, {sy:.6f}, 0.0)),
                    (1.5, ({sx:.6f}, {sy:.6f}, 0.05)),
                ]),
            ) ],
        ),""")

scene = f"""// 001 §V-A2 (Fig. 1, Fig. 5): three soft pads lift an upside-down bowl by friction alone.
// Pads: rho 1000 kg/m^3, E 600 kPa, nu 0.49; bowl: rho 400, E 11 MPa, nu 0.1; mu 0.65 (the
// paper's values; its geometry and pad motion are not given, these are ours). The pads, held by
// their top layers, close {a.squeeze * 1000:g} mm on the bowl above its rim in 0.2 s, then lift 5 cm
// by 1.5 s (150 frames). They touch the dome above its widest part, where the normal force pushes
// the bowl down: only friction lifts it. Written by scripts/bowl_grasp.py.
//   fricsim run scenes/bowl_grasp.ron
//   fricsim run scenes/bowl_grasp.ron --set dt=0.0025 --set pipeline.friction=Lagged
// Compare bowl.z with pad0.z in stats.csv.
Scene(
    name: "bowl_grasp",
    dt: 0.005,
    duration: 1.5,
    frame_rate: 100.0,
    gravity: (0.0, 0.0, -9.81),
    materials: {{
        "pad": (density: 1000.0, youngs_modulus: 6e5, poisson_ratio: 0.49),
        "bowl": (density: 400.0, youngs_modulus: 1.1e7, poisson_ratio: 0.1),
        "table": (),
    }},
    friction: (default: (mu: 0.65), epsilon: 1e-3),
    bodies: [
        Solid(
            name: "bowl",
            material: "bowl",
            // A hemispherical shell, 5 cm outside, 1 cm wall, its rim on the table.
            mesh: Bowl(radius: 0.05, inner_radius: 0.04, resolution: 8),
            position: (0.0, 0.0, 0.0008),
        ),
{chr(10).join(pads)}
    ],
    colliders: [ Plane(name: "table", material: "table") ],
    pipeline: Penalty(
        contact: (delta: 1e-3, kappa: 1e6),
        newton: (residual_tolerance: 1e-4),
    ),
)
"""
open(a.out, "w").write(scene)
