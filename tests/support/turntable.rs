//! The turntable of the animated-collider gates: a 5 cm rigid box riding at radius R on a plate
//! turning at OMEGA about +z, in the Smooth pipeline or another the caller names, the plate
//! given by the caller (a rigid `Spin`, an OBJ sequence or a glTF clip).

#![allow(dead_code)]

use std::path::Path;

pub const G: f64 = 9.81;
/// Turntable speed (rad/s) and the box's distance from its axis (m): μ* = ω² r / g = 0.2752.
pub const OMEGA: f64 = 3.0;
pub const R: f64 = 0.3;
pub const DT: f64 = 1e-3;

/// A square plate of side 0.8 m in the plane z = 0, normal up, turned by `angle` about z.
pub fn plate_obj(angle: f64) -> String {
    let (c, s) = (angle.cos(), angle.sin());
    let mut text = String::new();
    for (x, y) in [(-0.4, -0.4), (0.4, -0.4), (0.4, 0.4), (-0.4, 0.4)] {
        text += &format!("v {} {} 0\n", c * x - s * y, s * x + c * y);
    }
    text + "f 1 2 3\nf 1 3 4\n"
}

/// The plate as a rigid `Spin` collider (writes `plate.obj` into `dir`).
pub fn spun_plate(dir: &Path) -> String {
    std::fs::write(dir.join("plate.obj"), plate_obj(0.0)).unwrap();
    format!(
        r#"Mesh(name: "plate", material: "m", path: "plate.obj", motion: Spin(pivot: (0.0, 0.0, 0.0), axis: (0.0, 0.0, 1.0), rate: {}))"#,
        OMEGA.to_degrees()
    )
}

/// The Smooth pipeline, with the box starting just inside the field's reach.
pub const SMOOTH: (&str, f64) = ("Smooth(field: (radius: 0.02))", 0.0251);
/// The Nonsmooth pipeline, with the box starting on the plate.
pub const NONSMOOTH: (&str, f64) = ("Nonsmooth()", 0.025);

/// The box starts riding on the table: its velocity is the chord velocity of a table point over
/// the step before t = 0 (what backward Euler's velocity is for a point turning by ω h per
/// step), so that staying put asks of friction only the centripetal impulse `m ω² r h` per step.
pub fn turntable(dir: &Path, mu: f64, collider: &str) -> fricsim::simulation::Simulation {
    turntable_in(dir, mu, collider, SMOOTH)
}

/// [`turntable`] in `pipeline` (its text and the box's start height).
pub fn turntable_in(dir: &Path, mu: f64, collider: &str, pipeline: (&str, f64)) -> fricsim::simulation::Simulation {
    let (pipeline, z) = pipeline;
    let text = format!(
        r#"Scene(
    name: "turntable", dt: {DT}, frames: 1, frame_rate: 1.0,
    materials: {{ "m": (density: 500.0) }},
    friction: (default: (mu: {mu})),
    bodies: [ Rigid(name: "box", material: "m", shape: Box(size: (0.05, 0.05, 0.05)), position: ({R}, 0.0, {z}),
                    velocity: ({vx}, {vy}, 0.0), angular_velocity: (0.0, 0.0, {w})) ],
    colliders: [ {collider} ],
    pipeline: {pipeline},
)"#,
        vx = R * (1.0 - (OMEGA * DT).cos()) / DT,
        vy = R * (OMEGA * DT).sin() / DT,
        w = OMEGA.to_degrees()
    );
    let loaded = fricsim::scene::parse_scene_str(&text, "turntable", dir, &[]).unwrap_or_else(|e| panic!("{e}"));
    let (model, state) = fricsim::scene::build::build(&loaded).unwrap_or_else(|e| panic!("{e}"));
    fricsim::simulation::Simulation::new(model, state)
}

/// The largest distance over 100 steps between the box on the rigid `Spin` plate and on `plate`;
/// and where the box on `plate` is then.
pub fn distance_from_spin(dir: &Path, plate: &str) -> (f64, nalgebra::Vector3<f64>) {
    distance_from_spin_in(dir, plate, &spun_plate(dir), SMOOTH)
}

/// [`distance_from_spin`] in `pipeline`, against the `reference` plate.
pub fn distance_from_spin_in(
    dir: &Path,
    plate: &str,
    reference: &str,
    pipeline: (&str, f64),
) -> (f64, nalgebra::Vector3<f64>) {
    let mu = 0.4;
    let (mut spin, mut other) = (turntable_in(dir, mu, reference, pipeline), turntable_in(dir, mu, plate, pipeline));
    let mut worst: f64 = 0.0;
    for _ in 0..100 {
        for s in [&mut spin, &mut other] {
            let st = s.step().expect("finite state");
            assert!(st.converged, "step {} failed: {:?}", s.state.step, st.failure);
        }
        worst = worst.max((spin.state.rigid[0].position - other.state.rigid[0].position).norm());
    }
    println!("largest difference {worst:e} m");
    (worst, other.state.rigid[0].position)
}

/// Stick iff μ g ≥ ω² r on `plate`: at 1.02 μ* the box keeps its radius over 1 s to 1 mm, at
/// 0.98 μ* it slides out more than 1 cm (the net outward acceleration 0.02 ω² r = 0.054 m/s²).
pub fn sticks_iff_mu_g_reaches_omega_squared_r(dir: &Path, plate: &str) {
    sticks_iff_mu_g_reaches_omega_squared_r_in(dir, plate, SMOOTH)
}

/// [`sticks_iff_mu_g_reaches_omega_squared_r`] in `pipeline`.
pub fn sticks_iff_mu_g_reaches_omega_squared_r_in(dir: &Path, plate: &str, pipeline: (&str, f64)) {
    let critical = OMEGA * OMEGA * R / G;
    for (factor, sticks) in [(1.02, true), (0.98, false)] {
        let mut s = turntable_in(dir, factor * critical, plate, pipeline);
        for _ in 0..(1.0 / DT).round() as usize {
            let st = s.step().expect("finite state");
            assert!(st.converged, "step {} failed: {:?}", s.state.step, st.failure);
        }
        let drift = s.state.rigid[0].position.xy().norm() - R;
        println!("mu = {factor} mu*: radial drift {drift:e} m");
        if sticks {
            assert!(drift.abs() < 1e-3, "mu {factor} mu*: drifted {drift} m");
        } else {
            assert!(drift > 1e-2, "mu {factor} mu*: drifted only {drift} m");
        }
    }
}
