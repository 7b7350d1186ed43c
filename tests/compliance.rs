//! Contact compliance (004 §6.3): a body resting on a compliant floor sinks until each contact's
//! spring `1/compliance` carries its share of the weight, in the Nonsmooth pipeline for a rigid
//! box (4 corner contacts) and a rod (2 contact nodes), with two solvers each.
//!
//! The box: 2 kg on 4 contacts of stiffness k = 1e5 N/m sinks m g / (4 k) = 49 µm; its bounce on
//! the 4 springs (ω = √(4 k / m) = 447 rad/s, ω h = 0.45 at h = 1 ms) is damped by backward
//! Euler within the first ~100 steps, so after 0.4 s it rests at the closed form up to the
//! solver tolerance (1e-10) and what is left of the bounce: measured 1e-9 relative for the box,
//! 2.2e-7 for the rod (its nodes bounce at ω h = 0.28, which backward Euler damps by
//! (1 + ω²h²)^(−1/2) per step: e^(−15.4) = 2e-7 left after 400 steps), asserted 1e-5. A stiffer floor (k × 10) sinks 10 times less.

use fricsim::simulation::Simulation;

const G: f64 = 9.81;

fn settle(text: &str, steps: usize) -> Simulation {
    let loaded = fricsim::scene::parse_scene_str(text, "compliance", std::path::Path::new("."), &[])
        .unwrap_or_else(|e| panic!("{e}"));
    let (model, state) = fricsim::scene::build::build(&loaded).unwrap_or_else(|e| panic!("{e}"));
    let mut sim = Simulation::new(model, state);
    for _ in 0..steps {
        let st = sim.step().expect("finite");
        assert!(st.converged, "{:?}", st.failure);
    }
    sim
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
            let sim = settle(&text, 400);
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
        let sim = settle(&text, 400);
        let sink = radius - 0.5 * (sim.state.q[2] + sim.state.q[5]);
        let want = node_mass * G / k;
        println!("{solver}: sink {sink:e} m, closed form {want:e} m");
        assert!((sink / want - 1.0).abs() < 1e-5, "{solver}: {sink} vs {want}");
    }
}

/// Compliance outside its range or pipeline is refused with the field named.
#[test]
fn bad_compliance_is_refused() {
    for (law, pipeline, expect) in [
        ("compliance: 0.0", "Nonsmooth()", "must be from 1e-15 to 1"),
        ("compliance: 5.0", "Nonsmooth()", "must be from 1e-15 to 1"),
        ("compliance: 1e-5", "Penalty()", "Nonsmooth pipeline only"),
        ("compliance: 1e-5", "Nonsmooth(integrator: Variational)", "Variational"),
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
        assert!(err.contains("friction.default.compliance") && err.contains(expect), "{law}: {err}");
    }
}
