//! The ADMM time integrator of nodal bodies (`nodal_integrator: Admm`, 004 §6.1 after Narain et
//! al. 2016): it solves the same backward Euler step with contacts as projected Newton, so at a
//! tight tolerance both give the same velocities.

use fricsim::simulation::Simulation;

fn sim(text: &str) -> Simulation {
    let loaded =
        fricsim::scene::parse_scene_str(text, "test", std::path::Path::new("."), &[]).unwrap_or_else(|e| panic!("{e}"));
    let (model, state) = fricsim::scene::build::build(&loaded).unwrap_or_else(|e| panic!("{e}"));
    Simulation::new(model, state)
}

/// A small cloth falling on a sphere with a curly rod falling on the cloth: membrane, hinge,
/// rod stretch and bend–twist elements; node–collider and rod–cloth contacts with friction.
fn scene(pipeline: &str) -> String {
    format!(
        r#"Scene(name: "split", dt: 2e-3, frames: 1, frame_rate: 1.0,
        materials: {{
            "cotton": (density: 300.0, youngs_modulus: 1e5, poisson_ratio: 0.3, thickness: 1e-3),
            "hair": (density: 1300.0, youngs_modulus: 1e7, poisson_ratio: 0.3, radius: 1e-3),
            "ball": (),
        }},
        friction: (default: (mu: 0.4)),
        bodies: [
            Cloth(name: "sheet", material: "cotton", mesh: Grid(size: (0.3, 0.3), cells: (8, 8)), position: (0.0, 0.0, 0.106)),
            Rods(name: "strand", material: "hair", curves: Helix(center: (0.02, 0.0, 0.112), radius: 0.015, pitch: 0.01,
                 turns: 1.5, segments: 14), fixed_roots: false, self_contact: false),
        ],
        colliders: [ Sphere(name: "ball", material: "ball", radius: 0.1) ],
        pipeline: Nonsmooth({pipeline}))"#
    )
}

fn max_abs(a: &[f64]) -> f64 {
    a.iter().fold(0.0f64, |m, x| m.max(x.abs()))
}

#[test]
fn one_step_matches_converged_projected_newton() {
    // Settle into contact with projected Newton.
    let mut a = sim(&scene("solver: FischerBurmeister, tolerance: 1e-10, max_iterations: 500, newton_iterations: 40"));
    for _ in 0..25 {
        let s = a.step().unwrap();
        assert!(s.converged, "{s:?}");
    }
    let start = a.state.clone();
    let s = a.step().unwrap();
    assert!(s.converged && s.active_contacts > 10, "a contact-rich step: {s:?}");
    let v_pn = a.state.v.clone();
    // The default element weight, at two tolerances of the exact step error.
    let mut rel = Vec::new();
    for tol in [1e-5, 1e-6] {
        let mut b =
            sim(&scene(&format!("solver: Admm, nodal_integrator: Admm, tolerance: {tol}, max_iterations: 5000")));
        b.state = start.clone();
        let s = b.step().unwrap();
        assert!(s.converged, "tolerance {tol}: {s:?}");
        assert_eq!(s.newton_iterations, 1, "one ADMM loop, no linearization");
        let diff: Vec<f64> = v_pn.iter().zip(&b.state.v).map(|(x, y)| x - y).collect();
        rel.push(max_abs(&diff) / max_abs(&v_pn));
        eprintln!("tolerance {tol:e}: {} iterations, |dv|/|v| = {:e}", s.solver_iterations, rel.last().unwrap());
    }
    // Measured 3.8e-4 and 3.8e-5: the velocity's distance to projected Newton's solution is
    // about 40x the error measure and falls with it. A different fixed point (a wrong elastic
    // force, a lost contact) would leave a floor instead: the ratio must be near 10 (gate 5),
    // and the distance at 1e-6 below 1e-4 (2.6x the measured value).
    assert!(rel[1] < 1e-4, "velocities differ by {:e} of their size", rel[1]);
    assert!(rel[0] / rel[1] > 5.0, "distance {rel:?} does not fall with the tolerance");
}

#[test]
fn free_fall_is_exact_in_one_iteration() {
    // No contact and no deformation: the split's consensus is already met, one iteration.
    let mut b = sim(&scene("solver: Admm, nodal_integrator: Admm, tolerance: 1e-10"));
    let g = 9.81;
    for n in 1..=10 {
        let s = b.step().unwrap();
        assert!(s.converged && s.solver_iterations == 1, "{s:?}");
        // Backward Euler's free fall: v_n = -g n h exactly up to round-off (1e-12 m/s at 0.2 m/s).
        let vz = -g * n as f64 * 2e-3;
        assert!(b.state.v.chunks(3).all(|v| v[0].abs() < 1e-12 && v[1].abs() < 1e-12 && (v[2] - vz).abs() < 1e-12));
    }
}

#[test]
fn the_integrator_needs_the_admm_solver_and_no_dynamic_rigid_body() {
    let err = |text: &str| match fricsim::scene::parse_scene_str(text, "s.ron", std::path::Path::new("."), &[]) {
        Ok(_) => panic!("accepted"),
        Err(e) => e.to_string(),
    };
    let e = err(&scene("solver: FischerBurmeister, nodal_integrator: Admm"));
    assert!(e.contains("pipeline.solver") && e.contains("set `solver: Admm`"), "{e}");
    let e = err(&scene("solver: Admm, nodal_integrator: Admm, admm: (element_weight: 0.0)"));
    assert!(e.contains("pipeline.admm.element_weight") && e.contains("must be > 0"), "{e}");
    let with_body = scene("solver: Admm, nodal_integrator: Admm").replace(
        "self_contact: false),",
        r#"self_contact: false),
            Rigid(name: "box", material: "hair", shape: Box(size: (0.05, 0.05, 0.05)), position: (0.3, 0.0, 0.3)),"#,
    );
    let e = err(&with_body);
    assert!(e.contains("pipeline.nodal_integrator") && e.contains("bodies[2] is a dynamic rigid body"), "{e}");
}
