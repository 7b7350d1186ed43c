//! Joints in the Smooth pipeline (`pipeline::smooth::joints`: the predictor's rigid velocities
//! kept to those the joints allow, the friction step moving jointed bodies by the joints'
//! response): the same double pendulum as the Nonsmooth rigid step's, and a hinged lever
//! resting on a ball, whose support the statics give.

#[path = "support/joints.rs"]
mod joints;
#[path = "support/scene_run.rs"]
mod scene_run;

use fricsim::simulation::Simulation;

const SMOOTH: &str = "Smooth(field: (kernel: Cubic, radius: 0.01))";

fn scene(pipeline: &str, mu: f64, bodies: &str, joints: &str, colliders: &str) -> Simulation {
    scene_run::simulation(&joints::scene(1e-3, mu, pipeline, bodies, joints, colliders))
}

/// The double pendulum of `tests/rigid_joints.rs` (two hinged bars released at 30° with a spin
/// about x the hinges remove) under Smooth and under Nonsmooth's rigid step. Without contacts
/// both steps are the mass-metric projection of the same prediction onto the same rows (the
/// predictor's objective is quadratic in the rigid velocities), so they agree to round-off that
/// the pendulum then amplifies: gate 1e-9 (m and rad) over 500 steps. The Smooth run's hinge
/// lines stay one line to 1e-8 m.
#[test]
fn a_double_pendulum_moves_as_in_the_nonsmooth_step() {
    let (bodies, joints) = joints::double_pendulum();
    let mut rigid = scene("Nonsmooth(solver: Auto, tolerance: 1e-10)", 0.5, &bodies, &joints, "");
    let mut smooth = scene(SMOOTH, 0.5, &bodies, &joints, "");
    let (apart, worst, swing) = joints::compare_runs(&mut rigid, &mut smooth, 500);
    assert!(apart < 1e-9, "the Smooth pendulum left the Nonsmooth one by {apart:e}");
    assert!(worst < 1e-8, "a hinge line parted by {worst:e} m");
    assert!(swing > 0.2, "the pendulum did not swing ({swing} m)");
}

/// A 1 m bar hinged at one end to the world, its other end resting on a fixed ball collider
/// 0.9 m out, at μ = 0 and 0.5 (the friction step then moves the bar by the joint's response):
/// after 0.3 s it rests (its spin under 1e-4 rad/s, against the 0.39 rad/s it would reach in
/// 0.3 s of free fall about the hinge; measured 1e-14), leaning on the ball: its underside within
/// 0.1 mm of the ball's top (the smooth surface of a 2 cm ball at a 1 cm field radius; measured
/// 61 µm below it), with the hinge line held to 1e-8 m.
#[test]
fn a_hinged_lever_rests_on_a_ball() {
    let bodies =
        r#"Rigid(name: "bar", material: "m", shape: Box(size: (1.0, 0.05, 0.05)), position: (0.5, 0.0, 0.025))"#;
    let joints = r#"Hinge(a: "bar", point: (0.0, 0.0, 0.025), axis: (0.0, 1.0, 0.0))"#;
    let ball = r#"Sphere(name: "post", material: "m", radius: 0.02, position: (0.9, 0.0, -0.02))"#;
    for mu in [0.0, 0.5] {
        let mut s = scene(SMOOTH, mu, bodies, joints, ball);
        let mut worst: f64 = 0.0;
        for step in 1..=300 {
            let st = s.step().expect("finite");
            assert!(st.converged, "mu {mu}, step {step}: {:?}", st.failure);
            worst = worst.max(joints::hinge_deviation(&s));
        }
        let bar = &s.state.rigid[0];
        // The bar's underside above the ball's centre (x = 0.9).
        let under = bar.world_point(&nalgebra::Vector3::new(0.4, 0.0, -0.025)).z;
        let spin = bar.angular_velocity.norm();
        println!("mu {mu}: spin {spin:.1e} rad/s, underside {under:.2e} m above the ball, hinge {worst:.1e} m");
        assert!(spin < 1e-4, "mu {mu}: the bar must rest");
        assert!(under.abs() < 1e-4, "mu {mu}: the bar must lean on the ball ({under} m)");
        assert!(worst < 1e-8, "mu {mu}: the hinge line parted by {worst:e} m");
    }
}

/// A motor needs the Nonsmooth pipeline; Smooth refuses it with the field.
#[test]
fn smooth_refuses_a_motor() {
    let text = format!(
        r#"Scene(
    name: "joints", dt: 1e-3, frames: 1, frame_rate: 1.0,
    materials: {{ "m": (density: 1000.0) }},
    bodies: [ Rigid(name: "wheel", material: "m", shape: Cylinder(radius: 0.1, length: 0.05)) ],
    joints: [ Hinge(a: "wheel", point: (0.0, 0.0, 0.0), axis: (0.0, 0.0, 1.0), motor: (speed: 90.0, max_torque: 1.0)) ],
    pipeline: {SMOOTH},
)"#
    );
    let e = fricsim::scene::parse_scene_str(&text, "scene.ron", std::path::Path::new("."), &[])
        .err()
        .map(|e| e.to_string())
        .unwrap_or_default();
    assert!(e.contains("joints[0].motor") && e.contains("`Nonsmooth` pipeline only"), "{e}");
}

/// A box (0.125 kg) welded by a `Fixed` joint onto a capsule lying along x (0.68 kg), the pair
/// sliding along the capsule's axis on the floor at 1 m/s with μ = 0.3: only the capsule
/// touches, so the friction step must move the pair by the joint's response (per body it would
/// stop the capsule 18 % too fast and leave the box sliding on). Closed form: the pair
/// decelerates at μ g and stops after v0² / (2 μ g) = 0.1699 m. Measured against it: the speed
/// at 0.2 s (measured 1.2e-6 m/s off) and the distance where it stops, to 1 %; the relative pose
/// held to 1e-8 m. (A box base would touch at 1089 points, whose dense Delassus operator costs
/// 1.6 s per step with or without a joint; the capsule touches at 33.)
#[test]
fn welded_bodies_slide_to_a_stop_at_mu_g() {
    let bodies = r#"Rigid(name: "base", material: "m", shape: Capsule(radius: 0.03, length: 0.2), position: (0.0, 0.0, 0.03), rotation: (0.0, 90.0, 0.0), velocity: (1.0, 0.0, 0.0)),
                    Rigid(name: "top", material: "m", shape: Box(size: (0.05, 0.05, 0.05)), position: (0.0, 0.0, 0.085), velocity: (1.0, 0.0, 0.0))"#;
    let floor = r#"Plane(name: "floor", material: "m")"#;
    let (mu, g, v0) = (0.3, 9.81, 1.0);
    let mut s = scene(SMOOTH, mu, bodies, r#"Fixed(a: "top", b: Some("base"))"#, floor);
    let offset = |s: &Simulation| {
        let (b, t) = (&s.state.rigid[0], &s.state.rigid[1]);
        b.orientation.inverse() * (t.position - b.position)
    };
    let offset0 = offset(&s);
    let mut pose: f64 = 0.0;
    let mut at_02 = f64::NAN;
    for step in 1..=400 {
        let st = s.step().expect("finite");
        assert!(st.converged, "step {step}: {:?}", st.failure);
        pose = pose.max((offset(&s) - offset0).norm());
        if step == 200 {
            at_02 = s.state.rigid[0].linear_velocity.x;
        }
    }
    let (expected_v, expected_x) = (v0 - mu * g * 0.2, v0 * v0 / (2.0 * mu * g));
    let x = s.state.rigid[0].position.x;
    println!(
        "speed at 0.2 s {at_02:.9} (closed form {expected_v:.9}), stopped at {x:.4} m ({expected_x:.4}), pose {pose:.1e} m"
    );
    assert!((at_02 - expected_v).abs() < 0.01 * v0, "speed {at_02} at 0.2 s against {expected_v}");
    assert!((x - expected_x).abs() < 0.01 * expected_x, "stopped at {x} m against {expected_x}");
    assert!(pose < 1e-8, "the weld moved by {pose:e} m");
}

/// Bodies a joint links do not touch each other: two boxes welded so that they overlap by 1 cm,
/// falling freely, have no contact (a contact there would push them apart against the weld) and
/// fall as one at g: their centre's height is z0 − g t (t + h) / 2 after the symplectic steps, to
/// 1e-12 m.
#[test]
fn welded_overlapping_bodies_do_not_touch_each_other() {
    let bodies = r#"Rigid(name: "a", material: "m", shape: Box(size: (0.1, 0.1, 0.1)), position: (0.0, 0.0, 1.0)),
                    Rigid(name: "b", material: "m", shape: Box(size: (0.1, 0.1, 0.1)), position: (0.0, 0.0, 1.09))"#;
    let mut s = scene(SMOOTH, 0.5, bodies, r#"Fixed(a: "b", b: Some("a"))"#, "");
    for step in 1..=100 {
        let st = s.step().expect("finite");
        assert!(st.converged, "step {step}: {:?}", st.failure);
        assert_eq!(st.constraints, Some(0), "step {step}: the welded boxes touch");
    }
    let (t, h, g) = (s.state.time, s.model.dt, 9.81);
    let z = s.state.rigid[0].position.z;
    let expected = 1.0 - g * t * (t + h) / 2.0;
    assert!((z - expected).abs() < 1e-12, "the pair fell to {z}, not {expected}");
}
