//! Terms of the exact contact law beyond Coulomb friction (004 §6.3) in the Nonsmooth
//! pipeline: cohesion and compliance.
//!
//! Cohesion: a body held under a ceiling by the cohesive pull of its contacts stays
//! iff its weight is at most the total cohesion, in the Nonsmooth pipeline for a rigid body and
//! for nodal bodies (rods), at ±5 % of the threshold and with two solvers.
//!
//! Compliance: a body resting on a compliant floor sinks until each contact's
//! spring `1/compliance` carries its share of the weight, in the Nonsmooth pipeline for a rigid
//! box (4 corner contacts) and a rod (2 contact nodes), with two solvers each.
//!
//! The box: 2 kg on 4 contacts of stiffness k = 1e5 N/m sinks m g / (4 k) = 49 µm; its bounce on
//! the 4 springs (ω = √(4 k / m) = 447 rad/s, ω h = 0.45 at h = 1 ms) is damped by backward
//! Euler within the first ~100 steps, so after 0.4 s it rests at the closed form up to the
//! solver tolerance (1e-10) and what is left of the bounce: measured 1e-9 relative for the box,
//! 2.2e-7 for the rod (its nodes bounce at ω h = 0.28, which backward Euler damps by
//! (1 + ω²h²)^(−1/2) per step: e^(−15.4) = 2e-7 left after 400 steps), asserted 1e-5. A
//! stiffer floor (k × 10) sinks 10 times less.

#[path = "support/scene_run.rs"]
mod scene_run;

use fricsim::simulation::Simulation;
use scene_run::scene_file;

const G: f64 = 9.81;

fn run(text: &str, steps: usize) -> Simulation {
    let mut sim = scene_run::simulation(text);
    for _ in 0..steps {
        let st = sim.step().expect("finite");
        assert!(st.converged, "{:?}", st.failure);
    }
    sim
}

/// A body held by `factor` times the cohesion that carries it hangs (moves below 1 µm) iff
/// `factor > 1`, and otherwise falls (more than 1 cm).
fn hangs_iff_carried(label: &str, factor: f64, drop: f64) {
    println!("{label}: drop {drop:e} m");
    if factor > 1.0 {
        assert!(drop.abs() < 1e-6, "{label}: hangs, dropped {drop}");
    } else {
        assert!(drop > 1e-2, "{label}: falls, dropped only {drop}");
    }
}

/// A 0.1 m steel-like box (2 kg) pressed against a ceiling (a plane turned upside down at
/// z = 1 m) touches it at its 4 top corners: it hangs iff 4 ξ ≥ m g. Over 0.3 s at h = 1e-3 a
/// box that hangs moves by round-off (asserted below 1 µm); one that does not has fallen
/// ½ (g − 4ξ/m) t² until it left the 1 mm cohesion range, then freely: far beyond 1 cm.
#[test]
fn a_box_hangs_under_a_ceiling_iff_its_weight_is_below_the_cohesion() {
    let (side, density) = (0.1, 2000.0);
    let m = density * side * side * side;
    for solver in ["GaussSeidel", "FischerBurmeister"] {
        for factor in [0.95, 1.05] {
            let xi = factor * m * G / 4.0;
            let text = format!(
                r#"Scene(name: "hang", dt: 1e-3, duration: 0.3, frame_rate: 100.0,
    materials: {{ "steel": (density: {density}) }},
    friction: (default: (mu: 0.5, cohesion: (force: {xi}, range: 1e-3))),
    bodies: [ Rigid(name: "box", material: "steel", shape: Box(size: ({side}, {side}, {side})), position: (0.0, 0.0, {z})) ],
    colliders: [ Plane(name: "ceiling", material: "steel", position: (0.0, 0.0, 1.0), rotation: (180.0, 0.0, 0.0)) ],
    pipeline: Nonsmooth(solver: {solver}, tolerance: 1e-10, max_iterations: 1000))"#,
                z = 1.0 - side / 2.0
            );
            let sim = run(&text, 300);
            let drop = 1.0 - side / 2.0 - sim.state.rigid[0].position.z;
            hangs_iff_carried(&format!("{solver}, ξ = {factor} m g / 4"), factor, drop);
        }
    }
}

/// A free rod of one segment (two nodes of mass ρ π r² L / 2 each) lying against the ceiling
/// touches it at both nodes: it hangs iff ξ ≥ ρ π r² L g / 2 per node. Same bounds as above.
#[test]
fn a_rod_hangs_under_a_ceiling_iff_its_weight_is_below_the_cohesion() {
    let (length, radius, density) = (0.2, 2e-3, 1000.0);
    let node_mass = density * std::f64::consts::PI * radius * radius * length / 2.0;
    for solver in ["Admm", "GaussSeidel"] {
        for factor in [0.95, 1.05] {
            let xi = factor * node_mass * G;
            let z = 1.0 - radius;
            let text = format!(
                r#"Scene(name: "hang", dt: 1e-3, duration: 0.3, frame_rate: 100.0,
    materials: {{ "hair": (density: {density}, youngs_modulus: 1e7, poisson_ratio: 0.3, radius: {radius}) }},
    friction: (default: (mu: 0.5, cohesion: (force: {xi:e}, range: 1e-3))),
    bodies: [ Rods(name: "r", material: "hair",
                   curves: Straight(start: (0.0, 0.0, {z}), end: ({length}, 0.0, {z}), segments: 1)) ],
    colliders: [ Plane(name: "ceiling", material: "hair", position: (0.0, 0.0, 1.0), rotation: (180.0, 0.0, 0.0)) ],
    pipeline: Nonsmooth(solver: {solver}, tolerance: 1e-10, max_iterations: 2000))"#
            );
            let sim = run(&text, 300);
            let drop = z - 0.5 * (sim.state.q[2] + sim.state.q[5]);
            hangs_iff_carried(&format!("{solver}, ξ = {factor} m_node g"), factor, drop);
        }
    }
}

#[test]
fn a_box_on_a_compliant_floor_sinks_its_weight_over_the_contact_stiffness() {
    let (side, density) = (0.1, 2000.0);
    let m = density * side * side * side;
    for solver in ["GaussSeidel", "FischerBurmeister"] {
        for k in [1e5, 1e6] {
            let text = format!(
                r#"Scene(name: "rest", dt: 1e-3, duration: 0.4, frame_rate: 100.0,
    materials: {{ "steel": (density: {density}) }},
    friction: (default: (mu: 0.5, compliance: {c:e})),
    bodies: [ Rigid(name: "box", material: "steel", shape: Box(size: ({side}, {side}, {side})), position: (0.0, 0.0, {z})) ],
    colliders: [ Plane(name: "floor", material: "steel") ],
    pipeline: Nonsmooth(solver: {solver}, tolerance: 1e-10, max_iterations: 1000))"#,
                c = 1.0 / k,
                z = side / 2.0
            );
            let sim = run(&text, 400);
            let sink = side / 2.0 - sim.state.rigid[0].position.z;
            let want = m * G / (4.0 * k);
            println!("{solver}, k {k:e}: sink {sink:e} m, closed form {want:e} m");
            assert!((sink / want - 1.0).abs() < 1e-5, "{solver}, k {k}: {sink} vs {want}");
            assert!(sim.state.rigid[0].linear_velocity.norm() < 1e-6, "still moving");
        }
    }
}

/// A free rod of one segment lying on a compliant floor: each node sinks m_node g / k.
#[test]
fn a_rod_on_a_compliant_floor_sinks_its_weight_over_the_contact_stiffness() {
    let (length, radius, density, k) = (0.2, 2e-3, 1000.0, 100.0);
    let node_mass = density * std::f64::consts::PI * radius * radius * length / 2.0;
    for solver in ["Admm", "GaussSeidel"] {
        let text = format!(
            r#"Scene(name: "rest", dt: 1e-3, duration: 0.4, frame_rate: 100.0,
    materials: {{ "hair": (density: {density}, youngs_modulus: 1e7, poisson_ratio: 0.3, radius: {radius}) }},
    friction: (default: (mu: 0.5, compliance: {c:e})),
    bodies: [ Rods(name: "r", material: "hair",
                   curves: Straight(start: (0.0, 0.0, {radius}), end: ({length}, 0.0, {radius}), segments: 1)) ],
    colliders: [ Plane(name: "floor", material: "hair") ],
    pipeline: Nonsmooth(solver: {solver}, tolerance: 1e-10, max_iterations: 5000))"#,
            c = 1.0 / k
        );
        let sim = run(&text, 400);
        let sink = radius - 0.5 * (sim.state.q[2] + sim.state.q[5]);
        let want = node_mass * G / k;
        println!("{solver}: sink {sink:e} m, closed form {want:e} m");
        assert!((sink / want - 1.0).abs() < 1e-5, "{solver}: {sink} vs {want}");
    }
}

/// Cohesion and compliance outside their ranges or pipelines are refused with the field named.
#[test]
fn bad_cohesion_and_compliance_are_refused() {
    for (law, pipeline, field, expect) in [
        ("cohesion: (force: -1.0, range: 1e-3)", "Nonsmooth()", "cohesion.force", ">= 0"),
        ("cohesion: (force: 1.0, range: 0.0)", "Nonsmooth()", "cohesion.range", "length"),
        ("cohesion: (force: 1.0, range: 1e-3)", "Penalty()", "cohesion", "Nonsmooth pipeline only"),
        ("compliance: 0.0", "Nonsmooth()", "compliance", "must be from 1e-15 to 1"),
        ("compliance: 5.0", "Nonsmooth()", "compliance", "must be from 1e-15 to 1"),
        ("compliance: 1e-5", "Penalty()", "compliance", "Nonsmooth pipeline only"),
        ("compliance: 1e-5", "Nonsmooth(integrator: Variational)", "compliance", "Variational"),
    ] {
        let text = format!(
            r#"Scene(name: "bad", dt: 1e-3, duration: 0.01, frame_rate: 100.0,
    materials: {{ "steel": (density: 2000.0) }},
    friction: (default: (mu: 0.5, {law})),
    bodies: [ Rigid(name: "box", material: "steel", shape: Box(size: (0.1, 0.1, 0.1))) ],
    pipeline: {pipeline})"#
        );
        let err = fricsim::scene::parse_scene_str(&text, "bad", std::path::Path::new("."), &[])
            .err()
            .unwrap_or_else(|| panic!("{law} in {pipeline} accepted"))
            .to_string();
        let at = format!("friction.default.{field}");
        assert!(err.contains(&at) && err.contains(expect), "{law} in {pipeline}: {err}");
    }
}

/// The pinch of `scenes/pinched_cloth.ron` (with `overrides`): over the held part (0.4–1 s,
/// the spheres still 0.5 mm apart), the pinched node's largest distance from the pinch point and
/// its largest speed, and the steps that missed the tolerance.
fn pinch(overrides: &[String]) -> (f64, f64, usize) {
    let mut sim = scene_file("pinched_cloth.ron", overrides);
    // The 11 x 11 grid's middle node, under the spheres' poles at the origin.
    let centre = 5 * 11 + 5;
    let (mut off, mut speed, mut missed) = (0.0f64, 0.0f64, 0);
    for step in 1..=500 {
        let st = sim.step().expect("finite state");
        missed += usize::from(!st.converged);
        if step > 200 {
            let at = |a: &[f64]| nalgebra::Vector3::new(a[3 * centre], a[3 * centre + 1], a[3 * centre + 2]).norm();
            off = off.max(at(&sim.state.q));
            speed = speed.max(at(&sim.state.v));
        }
    }
    (off, speed, missed)
}

/// 004 Fig. 7: a cloth (1 mm thick) pinched at its centre between two kinematic spheres closed
/// to 0.5 mm apart, which 004 shows unstable without compliance and damped with it. Here both
/// hold still. With a compliance of 1e-4 m/N on the pair each pole carries the squeeze on its
/// slack spring and the pinched node stays at the pinch (2e-5 m, bound 1e-4; under 1e-3 m/s,
/// bound 1e-2). With hard contacts the node is pushed 0.13 mm aside, where the poles' curved
/// surfaces leave room, and rests there (3e-8 m/s, bound 1e-3); while the poles close through
/// the cloth its contact problem has no exact solution, and 5 of the 500 steps end above the
/// tolerance (10 allowed), none once the node is aside. 004's
/// instability does not reproduce: it did here while the contact solve stopped on FCLib's
/// mixed-unit residual, which accepted impulses that threw the light node about (4 mm from the
/// pinch at 0.6 m/s; `dfcp::contact_scaling`).
#[test]
fn a_pinched_cloth_holds_still_with_or_without_compliance() {
    let (off, speed, missed) = pinch(&[]);
    let (off_hard, speed_hard, missed_hard) = pinch(&["friction.pairs[0].compliance=None".to_string()]);
    println!("compliant: {off:.2e} m from the pinch at up to {speed:.2e} m/s, {missed} steps missed");
    println!("hard: {off_hard:.2e} m from the pinch at up to {speed_hard:.2e} m/s, {missed_hard} steps missed");
    assert!(missed == 0 && off < 1e-4 && speed < 1e-2, "the compliant pinch must hold");
    assert!(missed_hard <= 10 && off_hard < 1e-3 && speed_hard < 1e-3, "the hard pinch holds too");
}

/// `scenes/cohesive_hair.ron` (with `overrides`) over its second: the fewest hairs touching the
/// ball (a node within 1 mm of it) at any 50th step, and the fraction of hair nodes on it at
/// the end, when the rocking ball is upright again.
fn rocked_hair(overrides: &[String]) -> (usize, f64) {
    let mut sim = scene_file("cohesive_hair.ron", overrides);
    let centre = nalgebra::Vector3::new(0.0, 0.0, 0.2);
    let on_ball = |q: &[f64], i: usize| {
        (nalgebra::Vector3::new(q[3 * i], q[3 * i + 1], q[3 * i + 2]) - centre).norm() - 0.08 < 1e-3
    };
    let rods: Vec<std::ops::Range<usize>> =
        sim.model.rod_bundles[0].rods.iter().map(|r| r.first..r.first + r.len).collect();
    let mut fewest = rods.len();
    for step in 1..=500 {
        let st = sim.step().expect("finite state");
        assert!(st.converged, "step {step}: {:?}", st.failure);
        if step % 50 == 0 {
            let holding = rods.iter().filter(|r| (*r).clone().any(|i| on_ball(&sim.state.q, i))).count();
            fewest = fewest.min(holding);
        }
    }
    let n = sim.model.node_count();
    (fewest, (0..n).filter(|&i| on_ball(&sim.state.q, i)).count() as f64 / n as f64)
}

/// 004 Fig. 6 (hairs clumping and sticking to an animated ball), at 12 hairs of 11 cm laid over
/// an 8 cm ball rocked ±90° about a horizontal axis: with hair–ball and hair–hair cohesion
/// (1e-4 N per contact point over 1 mm) every hair keeps hold of the ball while its top turns
/// vertical, hanging from it, and lies back on it as it comes upright (92 % of the nodes on it
/// at 1 s, bound 80 %); with friction alone (μ 0.3) they slide off and fall (none left). 35 s:
/// `cargo test --release --test contact_law_terms -- --ignored hairs_stick`.
#[test]
#[ignore = "35 s: cohesive contacts take the default solver ~0.06 s a step on these 156 nodes"]
fn hairs_stick_to_a_rocking_ball_with_cohesion_and_fall_without() {
    let (fewest, end) = rocked_hair(&[]);
    let (fewest_plain, end_plain) = rocked_hair(&["friction.pairs=[]".to_string()]);
    println!("cohesive: at least {fewest} of 12 hairs on the ball, {:.0} % of nodes at the end", 100.0 * end);
    println!("plain: at least {fewest_plain} of 12 hairs on the ball, {:.0} % of nodes at the end", 100.0 * end_plain);
    assert!(fewest == 12 && end > 0.8, "cohesion must hold every hair");
    assert!(fewest_plain == 0 && end_plain == 0.0, "without it they must fall");
}
