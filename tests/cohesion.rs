//! Cohesion (004 §6.3): a body held under a ceiling by the cohesive pull of its contacts stays
//! iff its weight is at most the total cohesion, in the Nonsmooth pipeline for a rigid body and
//! for nodal bodies (rods), at ±5 % of the threshold and with two solvers.

use fricsim::simulation::Simulation;

const G: f64 = 9.81;

fn run(text: &str, steps: usize) -> Simulation {
    let loaded = fricsim::scene::parse_scene_str(text, "cohesion", std::path::Path::new("."), &[])
        .unwrap_or_else(|e| panic!("{e}"));
    let (model, state) = fricsim::scene::build::build(&loaded).unwrap_or_else(|e| panic!("{e}"));
    let mut sim = Simulation::new(model, state);
    for _ in 0..steps {
        let st = sim.step().expect("finite");
        assert!(st.converged, "{:?}", st.failure);
    }
    sim
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
            println!("{solver}, ξ = {factor} m g / 4: drop {drop:e} m");
            if factor > 1.0 {
                assert!(drop.abs() < 1e-6, "{solver}: hangs at {factor} m g / 4, dropped {drop}");
            } else {
                assert!(drop > 1e-2, "{solver}: falls at {factor} m g / 4, dropped only {drop}");
            }
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
            println!("{solver}, ξ = {factor} m_node g: drop {drop:e} m");
            if factor > 1.0 {
                assert!(drop.abs() < 1e-6, "{solver}: hangs at {factor} m g, dropped {drop}");
            } else {
                assert!(drop > 1e-2, "{solver}: falls at {factor} m g, dropped only {drop}");
            }
        }
    }
}

/// Bad cohesion input is refused with the field named.
#[test]
fn bad_cohesion_is_refused() {
    for (bad, field, pipeline) in [
        ("(force: -1.0, range: 1e-3)", "friction.default.cohesion.force", "Nonsmooth()"),
        ("(force: 1.0, range: 0.0)", "friction.default.cohesion.range", "Nonsmooth()"),
        ("(force: 1.0, range: 1e-3)", "friction.default.cohesion", "Penalty()"),
    ] {
        let text = format!(
            r#"Scene(name: "bad", dt: 1e-3, duration: 0.01, frame_rate: 100.0,
    materials: {{ "steel": (density: 2000.0) }},
    friction: (default: (mu: 0.5, cohesion: {bad})),
    bodies: [ Rigid(name: "box", material: "steel", shape: Box(size: (0.1, 0.1, 0.1))) ],
    pipeline: {pipeline})"#
        );
        let err = fricsim::scene::parse_scene_str(&text, "bad", std::path::Path::new("."), &[])
            .err()
            .unwrap_or_else(|| panic!("{bad} in {pipeline} accepted"))
            .to_string();
        assert!(err.contains(field), "{bad}: {err}");
    }
}
