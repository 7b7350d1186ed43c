//! Rotating prescribed motions (`Rigid`, `Oscillate`, `Spin`): kinematic rod roots and vertex
//! sets land on their scripted path in both pipelines, colliders turn and drag what touches them
//! by friction, kinematic rigid bodies take their scripted pose, roots attach to a kinematic body,
//! and bad motions are rejected with the field path.

use fricsim::model::node;
use fricsim::scene::build::motion;
use fricsim::scene::parse_scene_str;
use fricsim::scene::schema::{BodySpec, MotionSpec};
use fricsim::simulation::Simulation;
use nalgebra::{UnitQuaternion, Vector3};
use std::path::Path;

fn sim(text: &str) -> Simulation {
    let loaded = parse_scene_str(text, "test", Path::new("."), &[]).unwrap_or_else(|e| panic!("{e}"));
    let (model, state) = fricsim::scene::build::build(&loaded).unwrap_or_else(|e| panic!("{e}"));
    Simulation::new(model, state)
}

fn err(text: &str) -> String {
    match parse_scene_str(text, "scene.ron", Path::new("."), &[]) {
        Ok(_) => panic!("expected an error for:\n{text}"),
        Err(e) => e.to_string(),
    }
}

fn assert_has(msg: &str, parts: &[&str]) {
    for p in parts {
        assert!(msg.contains(p), "message lacks {p:?}:\n{msg}");
    }
}

const OSCILLATE: &str = "Oscillate(pivot: (0.0, 0.0, 0.12), axis: (0.0, 0.0, 1.0), amplitude: 60.0, period: 0.5)";

/// A small hairy ball whose roots and core follow `root_motion` / `core_motion`.
fn hairy_ball(root_motion: &str, core_motion: &str) -> String {
    format!(
        r#"Scene(name: "hb", dt: 2e-3, frames: 1, frame_rate: 10.0,
        materials: {{ "hair": (density: 1300.0, youngs_modulus: 4e9, poisson_ratio: 0.35, radius: 1e-4), "core": () }},
        friction: (default: (mu: 0.3)),
        bodies: [ Rods(name: "fur", material: "hair",
            curves: HairyBall(center: (0.0, 0.0, 0.12), radius: 0.05, count: 24, length: 0.03, segments: 5, curliness: 0.3),
            fixed_roots: true, root_motion: {root_motion}) ],
        colliders: [ Sphere(name: "core", material: "core", radius: 0.0495, position: (0.0, 0.0, 0.12), motion: {core_motion}) ],
        pipeline: Nonsmooth(solver: Admm, tolerance: 1e-4, max_iterations: 300, contact_margin: 2e-4, on_failure: Continue))"#
    )
}

/// The roots of a hairy ball turned +-60 degrees about z (period 0.5 s as in
/// `scenes/hairy_ball.ron`; 25 steps reach 35 degrees) sit at the scripted rigid motion of their
/// rest positions at the end of every step, and the core sphere turns with them.
///
/// Tolerance 1e-15 m: a root lands at `x + h ((x(t + h) - x) / h)`, one subtraction, one
/// division and multiplication by h, and one addition, each rounding by at most half an ulp of
/// its result; at |x| <= 0.2 m an ulp is 2.8e-17 m, so the error is a few 1e-17 m and does not
/// accumulate (each step aims at the path, not at the previous position plus a chord). A root
/// that ignored the rotation would be off by centimetres, one that used the velocity of the
/// wrong time by ~1e-4 m.
#[test]
fn hairy_ball_roots_land_on_the_rotation() {
    let mut s = sim(&hairy_ball(OSCILLATE, OSCILLATE));
    let m = motion(&serde_motion(OSCILLATE));
    let roots: Vec<usize> = s.model.rod_bundles[0].rods.iter().map(|p| p.first).collect();
    let rest: Vec<Vector3<f64>> = roots.iter().map(|&i| node(&s.state.q, i)).collect();
    let (mut worst, mut moved, mut cuts, mut min_gap) = (0.0f64, 0.0f64, 0, f64::INFINITY);
    for _ in 0..25 {
        let stats = s.step().expect("finite");
        let t = s.state.time;
        if stats.failure.as_deref().is_some_and(|f| f.contains("CCD")) {
            // A step cut short by collision detection stops every node early; the next step
            // aims the roots back at their path.
            cuts += 1;
            continue;
        }
        for (&i, x0) in roots.iter().zip(&rest) {
            let want = m.point(x0, t);
            worst = worst.max((node(&s.state.q, i) - want).norm());
            moved = moved.max((want - x0).norm());
        }
        // Hair pressed on the turning core stays outside it: within 10 um, as ADMM stops at a
        // relative residual of 1e-4 (measured: 2.5 um deep at most; at tolerance 1e-6 no hair
        // reaches the core within these 25 steps).
        for i in 0..s.model.node_count() {
            let gap = (node(&s.state.q, i) - Vector3::new(0.0, 0.0, 0.12)).norm() - 0.0495 - 1e-4;
            min_gap = min_gap.min(gap);
        }
        let core = s.model.colliders[0].placement(t);
        assert!((core.center - Vector3::new(0.0, 0.0, 0.12)).norm() < 1e-15, "the core turns about its center");
        let r = m.rotation(t).to_rotation_matrix().into_inner();
        assert!((core.rotation - r).norm() < 1e-15, "the core turns with the roots");
    }
    assert!(min_gap > -1e-5, "hair {min_gap:e} m inside the core");
    assert!(cuts < 5, "{cuts} of 25 steps were cut by CCD");
    assert!(moved > 0.025, "roots moved only {moved} m");
    assert!(worst < 1e-15, "roots off their path by {worst:e} m");
}

fn serde_motion(text: &str) -> MotionSpec {
    ron::from_str(text).expect("a motion")
}

/// Keyed rigid motion of a kinematic rigid sphere with hair attached to it (`attach_to`): the
/// body's pose and the roots follow the keys (translation and slerped rotation about the pivot).
/// Tolerances: the roots as above (1e-15 m); the body's center likewise, and its orientation is
/// set from the script each step (quaternion products, 1e-15 rad).
#[test]
fn roots_attached_to_a_keyed_kinematic_body() {
    let keys = "Rigid(pivot: (0.0, 0.0, 0.12), keys: [(0.0, (0.0, 0.0, 0.0), (0.0, 0.0, 0.0)), \
                (0.02, (0.01, 0.0, 0.0), (0.0, 45.0, 0.0)), (0.04, (0.0, 0.0, 0.0), (30.0, 0.0, -20.0))])";
    let text = format!(
        r#"Scene(name: "attached", dt: 2e-3, frames: 1, frame_rate: 20.0,
        materials: {{ "hair": (density: 1300.0, youngs_modulus: 4e9, poisson_ratio: 0.35, radius: 1e-4), "core": (density: 1000.0) }},
        friction: (default: (mu: 0.3)),
        bodies: [
            Rigid(name: "core", material: "core", shape: Sphere(radius: 0.0495), position: (0.0, 0.0, 0.12), motion: Some({keys})),
            Rods(name: "fur", material: "hair",
                 curves: HairyBall(center: (0.0, 0.0, 0.12), radius: 0.05, count: 16, length: 0.03, segments: 5),
                 attach_to: Some("core")) ],
        pipeline: Nonsmooth(solver: Admm, tolerance: 1e-4, max_iterations: 300, contact_margin: 2e-4, on_failure: Continue))"#
    );
    let mut s = sim(&text);
    let m = motion(&serde_motion(keys));
    let roots: Vec<usize> = s.model.rod_bundles[0].rods.iter().map(|p| p.first).collect();
    let rest: Vec<Vector3<f64>> = roots.iter().map(|&i| node(&s.state.q, i)).collect();
    let (c0, q0) = (s.state.rigid[0].position, s.state.rigid[0].orientation);
    let mut worst = 0.0f64;
    for _ in 0..25 {
        let stats = s.step().expect("finite");
        let t = s.state.time;
        let b = &s.state.rigid[0];
        assert!((b.position - m.point(&c0, t)).norm() < 1e-15, "body center at t = {t}");
        assert!(b.orientation.angle_to(&(m.rotation(t) * q0)) < 1e-15, "body orientation at t = {t}");
        if stats.failure.as_deref().is_some_and(|f| f.contains("CCD")) {
            continue;
        }
        for (&i, x0) in roots.iter().zip(&rest) {
            worst = worst.max((node(&s.state.q, i) - m.point(x0, t)).norm());
        }
    }
    // By t = 0.05 the keys are held at their last pose: 30 degrees about x, -20 about z.
    let last = UnitQuaternion::from_euler_angles(30f64.to_radians(), 0.0, -20f64.to_radians());
    assert!(s.state.rigid[0].orientation.angle_to(&last) < 1e-14);
    assert!(worst < 1e-15, "roots off their path by {worst:e} m");
}

/// A turntable: a plane turning about its normal at 2 rad/s under a straight rod lying on it
/// at radius 0.2..0.3 m. Friction drags the rod along the surface velocity (+y there, 0.4 to
/// 0.6 m/s): it slides the whole time (it cannot catch up within 0.05 s), so its velocity grows
/// at mu g. Without friction it stays at rest. A collider velocity that ignored the rotation
/// (the plane's origin does not move) would leave the rod at rest in both cases.
///
/// Tolerance 1 %: the surface velocity under the rod turns by atan(omega y / (omega x - v)) <
/// 3 degrees as the rod moves ~6 mm in y, tilting the friction force off y by that angle (cos
/// 3 deg = 0.9986); the rod's stiffness and the 1e-6 solver tolerance add much less (measured:
/// 0.2452 vs 0.24525 m/s).
#[test]
fn turning_plane_drags_a_rod_by_friction() {
    let run = |mu: f64| {
        let text = format!(
            r#"Scene(name: "turntable", dt: 1e-3, frames: 1, frame_rate: 20.0,
            materials: {{ "rope": (density: 1000.0, youngs_modulus: 1e7, poisson_ratio: 0.3, radius: 2e-3), "table": () }},
            friction: (default: (mu: {mu:?})),
            bodies: [ Rods(name: "rod", material: "rope", curves: Straight(start: (0.2, 0.0, 0.002), end: (0.3, 0.0, 0.002), segments: 5)) ],
            colliders: [ Plane(name: "table", material: "table", motion: Spin(axis: (0.0, 0.0, 1.0), rate: 114.59155902616465)) ],
            pipeline: Nonsmooth(solver: Admm, tolerance: 1e-6, max_iterations: 500))"#
        );
        let mut s = sim(&text);
        for _ in 0..50 {
            s.step().expect("finite");
        }
        let n = s.model.node_count();
        let mean = (0..n).map(|i| node(&s.state.v, i)).sum::<Vector3<f64>>() / n as f64;
        (mean, s.state.time)
    };
    let (v, t) = run(0.5);
    let expect = 0.5 * 9.81 * t;
    assert!((v.y - expect).abs() < 0.01 * expect, "dragged at {v} m/s, expected {expect} along y");
    let (v0, _) = run(0.0);
    // Frictionless: only round-off and the solver tolerance move it sideways.
    assert!(v0.y.abs() < 1e-6, "frictionless rod moved at {v0}");
}

/// Penalty pipeline: a vertex set of a solid block spun about z lands on its scripted path
/// every step (tolerance as for the roots above: 1e-15 m at |x| ~ 0.1 m).
#[test]
fn penalty_kinematic_set_follows_a_spin() {
    let text = r#"Scene(name: "spun", dt: 1e-3, frames: 1, frame_rate: 50.0,
        materials: { "rubber": (density: 1100.0, youngs_modulus: 6e5, poisson_ratio: 0.45) },
        bodies: [ Solid(name: "block", material: "rubber", mesh: Box(size: (0.1, 0.1, 0.1), cells: (1, 1, 1)),
            position: (0.05, 0.0, 0.0),
            kinematic: [ (region: Box(min: (-1.0, -1.0, -1.0), max: (1.0, 1.0, -0.04)),
                          motion: Spin(pivot: (0.0, 0.0, 0.0), axis: (0.0, 0.0, 1.0), rate: 180.0)) ]) ],
        pipeline: Penalty())"#;
    let mut s = sim(text);
    let set = s.model.kinematic[0].clone();
    assert_eq!(set.nodes.len(), 4);
    let mut worst = 0.0f64;
    for _ in 0..20 {
        s.step().expect("step");
        for (&i, x0) in set.nodes.iter().zip(&set.rest) {
            worst = worst.max((node(&s.state.q, i) - set.motion.point(x0, s.state.time)).norm());
        }
    }
    // 20 steps at pi rad/s: 0.063 rad, so the far corners moved ~9 mm.
    let far = set.rest.iter().map(|x0| (set.motion.point(x0, s.state.time) - x0).norm()).fold(0.0, f64::max);
    assert!(far > 5e-3, "moved only {far}");
    assert!(worst < 1e-15, "kinematic nodes off their path by {worst:e} m");
}

/// Bad rotating motions and attachments: each names the field path and what is allowed.
#[test]
fn bad_motions_are_rejected_with_the_field_path() {
    let hb = |m: &str| hairy_ball(m, "Fixed");
    let e =
        err(&hb("Rigid(keys: [(0.0, (0.0, 0.0, 0.0), (0.0, 0.0, 0.0)), (0.0, (0.0, 0.0, 0.0), (0.0, 10.0, 0.0))])"));
    assert_has(&e, &["bodies[0].root_motion.keys[1][0]", "strictly increasing"]);
    let e =
        err(&hb("Rigid(keys: [(0.0, (0.0, 0.0, 0.0), (0.0, 0.0, 0.0)), (1.0, (0.0, 0.0, 0.0), (0.0, 0.0, 179.5))])"));
    assert_has(&e, &["bodies[0].root_motion.keys[1][2]", "turns 179.5 degrees", "intermediate key"]);
    let e =
        err(&hb("Rigid(keys: [(0.0, (0.0, 0.0, 0.0), (0.0, 0.0, 0.0)), (1.0, (0.0, 0.0, 0.0), (0.0, 0.0, 200.0))])"));
    assert_has(&e, &["bodies[0].root_motion.keys[1][2]", "at most 180 degrees", "intermediate key"]);
    let e = err(&hb("Rigid(keys: [(0.0, (0.1, 0.0, 0.0), (0.0, 0.0, 0.0))])"));
    assert_has(&e, &["bodies[0].root_motion.keys", "t = 0 must be the scene placement"]);
    let e = err(&hb("Rigid(keys: [])"));
    assert_has(&e, &["bodies[0].root_motion.keys", "at least one"]);
    let e = err(&hb("Rigid(keys: [(0.0, (0.0, 0.0, 0.0), (0.0, 0.0, inf))])"));
    assert_has(&e, &["bodies[0].root_motion.keys[0][2]", "finite"]);
    let e = err(&hb("Oscillate(axis: (0.0, 0.0, 0.0), amplitude: 10.0, period: 0.0)"));
    assert_has(&e, &["bodies[0].root_motion.axis", "non-zero", "bodies[0].root_motion.period", "> 0"]);
    let e = err(&hb("Spin(axis: (0.0, 0.0, 1.0), rate: 1.0, pivto: (0.0, 0.0, 0.0))"));
    assert_has(&e, &["pivto"]);
    let e = err(&hairy_ball("Fixed", "Spin(axis: (0.0, 0.0, 0.0), rate: 1.0)"));
    assert_has(&e, &["colliders[0].motion.axis", "non-zero"]);

    let rigid = |extra: &str, attach: &str| {
        format!(
            r#"Scene(name: "a", dt: 1e-3, frames: 1, frame_rate: 50.0,
            materials: {{ "hair": (density: 1300.0, youngs_modulus: 4e9, poisson_ratio: 0.35, radius: 1e-4), "core": (density: 1000.0) }},
            bodies: [ Rigid(name: "core", material: "core", shape: Sphere(radius: 0.05){extra}),
                      Rods(name: "fur", material: "hair", curves: Straight(start: (0.0, 0.0, 0.05), end: (0.0, 0.0, 0.1), segments: 3),
                           attach_to: Some({attach:?})) ],
            pipeline: Nonsmooth())"#
        )
    };
    // A dynamic body carries the roots itself (tests/rod_dynamic_root.rs): not scripted nodes.
    let loaded = parse_scene_str(&rigid("", "core"), "scene.ron", Path::new("."), &[]).expect("valid");
    let (model, _) = fricsim::scene::build::build(&loaded).expect("builds");
    assert!(model.kinematic.is_empty() && model.rod_bundles[0].attached.is_some());
    let e = err(&rigid(", motion: Some(Fixed)", "nope"));
    assert_has(&e, &["bodies[1].attach_to", "names no rigid body", "\"core\""]);
    let e = err(&rigid(", motion: Some(Fixed), angular_velocity: (0.0, 0.0, 10.0)", "core"));
    assert_has(&e, &["bodies[1].attach_to", "spins"]);
    let e = err(&rigid(
        ", motion: Some(Spin(axis: (0.0, 0.0, 1.0), rate: 5.0)), angular_velocity: (0.0, 0.0, 10.0)",
        "core",
    ));
    assert_has(&e, &["bodies[0].angular_velocity", "takes its rotation from the motion"]);
    // A valid attachment parses and builds.
    let ok = rigid(", motion: Some(Spin(axis: (0.0, 0.0, 1.0), rate: 5.0))", "core");
    let loaded = parse_scene_str(&ok, "scene.ron", Path::new("."), &[]).expect("valid");
    assert!(matches!(&loaded.scene.bodies[1], BodySpec::Rods(r) if r.attach_to.as_deref() == Some("core")));
    let (model, _) = fricsim::scene::build::build(&loaded).expect("builds");
    assert!(model.kinematic[0].motion.rotates());
}

/// Penalty pipeline: a small elastic block on the same turntable (settled into its penalty
/// layer first, with the table frozen) is dragged along the surface velocity at mu g: smoothed
/// Coulomb friction sliding far above its regularization speed. A collider velocity that ignored
/// the rotation would leave it at rest.
///
/// Tolerance 1 %: the direction argument of the rod test (0.15 %) and the block's pitching, which
/// moves load between its front and back edges (measured: 0.24505 vs 0.24525 m/s; the same block
/// in the Nonsmooth pipeline gives 0.2443). The block also drifts sideways at ~6 mm/s, in both
/// pipelines: the table turns under the block faster than the block turns, and its back edge,
/// loaded more, sees relative velocity towards -x.
#[test]
fn penalty_block_dragged_by_a_turning_plane() {
    let text = r#"Scene(name: "turntable", dt: 1e-3, frames: 1, frame_rate: 20.0, settle: 0.1,
        materials: { "rubber": (density: 1100.0, youngs_modulus: 1e6, poisson_ratio: 0.3), "table": () },
        friction: (default: (mu: 0.5)),
        bodies: [ Solid(name: "block", material: "rubber", mesh: Box(size: (0.04, 0.04, 0.04), cells: (1, 1, 1)),
                        position: (0.25, 0.0, 0.02)) ],
        colliders: [ Plane(name: "table", material: "table", motion: Spin(axis: (0.0, 0.0, 1.0), rate: 114.59155902616465)) ],
        pipeline: Penalty())"#;
    let mut s = sim(text);
    for _ in 0..50 {
        let st = s.step().expect("step");
        assert!(st.converged, "{:?}", st.failure);
    }
    let solid = s.model.solids[0].clone();
    let (_, v) = s.state.centroid(&s.model, &solid);
    let expect = 0.5 * 9.81 * s.state.time;
    assert!((v.y - expect).abs() < 0.01 * expect, "dragged at {v} m/s, expected {expect} along y");
}
