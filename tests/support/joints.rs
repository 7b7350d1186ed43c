//! What the joint tests share: a scene of rigid bodies and joints, the double pendulum, and the
//! measure of a hinge line's parting, the comparison of two runs of the same bodies.
// Each test file uses a part of it.
#![allow(dead_code)]

use fricsim::simulation::Simulation;

/// A scene of `bodies`, `joints` and `colliders` under `pipeline`, with the materials "m"
/// (1000 kg/m³, for rigid bodies), "cotton" (a cloth's) and "foam" (a dense soft solid's).
pub fn scene(dt: f64, mu: f64, pipeline: &str, bodies: &str, joints: &str, colliders: &str) -> String {
    format!(
        r#"Scene(
    name: "joints", dt: {dt}, frames: 1, frame_rate: 1.0,
    materials: {{ "m": (density: 1000.0), "cotton": (density: 200.0, youngs_modulus: 1e5, poisson_ratio: 0.3, thickness: 1e-3),
                  "foam": (density: 8000.0, youngs_modulus: 1e5, poisson_ratio: 0.3) }},
    friction: (default: (mu: {mu})),
    bodies: [ {bodies} ],
    joints: [ {joints} ],
    colliders: [ {colliders} ],
    pipeline: {pipeline},
)"#
    )
}

/// A double pendulum of two bars, the first hinged to the world at (0, 0, 1), the second to the
/// first, both about y, released at 30 degrees with a spin about x that the hinges must remove:
/// its bodies and joints.
pub fn double_pendulum() -> (String, String) {
    let (s30, c30) = (0.5, 0.75f64.sqrt());
    let bodies = format!(
        r#"Rigid(name: "upper", material: "m", shape: Box(size: (0.04, 0.04, 0.5)), position: ({x1}, 0.0, {z1}), rotation: (0.0, -30.0, 0.0), angular_velocity: (60.0, 0.0, 0.0)),
           Rigid(name: "lower", material: "m", shape: Box(size: (0.04, 0.04, 0.4)), position: ({x2}, 0.0, {z2}))"#,
        x1 = 0.25 * s30,
        z1 = 1.0 - 0.25 * c30,
        x2 = 0.5 * s30,
        z2 = 1.0 - 0.5 * c30 - 0.2,
    );
    let joints = format!(
        r#"Hinge(a: "upper", point: (0.0, 0.0, 1.0), axis: (0.0, 1.0, 0.0)),
           Hinge(a: "lower", b: Some("upper"), point: ({x}, 0.0, {z}), axis: (0.0, 1.0, 0.0))"#,
        x = 0.5 * s30,
        z = 1.0 - 0.5 * c30
    );
    (bodies, joints)
}

/// Largest distance between the two sides' copies of each joint's hinge line: the anchors and
/// the points 0.1 m along each side's axis on both sides of them.
pub fn hinge_deviation(s: &Simulation) -> f64 {
    let mut worst: f64 = 0.0;
    for j in &s.model.joints {
        let ([pa, pb], axes) = j.world_frame(&s.state.rigid);
        worst = worst.max((pa - pb).norm());
        if let Some([aa, ab]) = axes {
            for d in [-0.1, 0.1] {
                worst = worst.max(((pa + d * aa) - (pb + d * ab)).norm());
            }
        }
    }
    worst
}

/// Steps `reference` and `other` (the same jointed bodies) together for `steps` steps, every step
/// of `other` required to converge; returns how far apart their bodies got (m and rad), the
/// largest parting of `other`'s hinge lines (m) and how far its second body swung from x = 0 (m).
pub fn compare_runs(reference: &mut Simulation, other: &mut Simulation, steps: usize) -> (f64, f64, f64) {
    let (mut apart, mut worst, mut swing) = (0.0f64, 0.0f64, 0.0f64);
    for step in 1..=steps {
        reference.step().expect("finite");
        let st = other.step().expect("finite");
        assert!(st.converged, "step {step}: {:?}", st.failure);
        for (a, b) in reference.state.rigid.iter().zip(&other.state.rigid) {
            apart = apart.max((a.position - b.position).norm());
            apart = apart.max(a.orientation.angle_to(&b.orientation));
        }
        worst = worst.max(hinge_deviation(other));
        swing = swing.max(other.state.rigid[1].position.x.abs());
        if step % 100 == 0 {
            println!("step {step}: the runs {apart:.1e} apart, hinge lines within {worst:.1e} m");
        }
    }
    (apart, worst, swing)
}
