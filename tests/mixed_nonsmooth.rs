//! Mixed scenes in the nonsmooth pipeline: rigid bodies and elastic solids (and cloth) in one
//! global contact problem.

use fricsim::model::node;
use fricsim::simulation::Simulation;

fn sim(text: &str) -> Simulation {
    let loaded =
        fricsim::scene::parse_scene_str(text, "test", std::path::Path::new("."), &[]).unwrap_or_else(|e| panic!("{e}"));
    let (model, state) = fricsim::scene::build::build(&loaded).unwrap_or_else(|e| panic!("{e}"));
    Simulation::new(model, state)
}

/// A rigid box dropped onto an elastic block resting on the floor comes to rest on it: the
/// vertices of the block's top face meet the box's bottom face (gap within 1 mm: the contact is
/// velocity-level, with 0.1 mm allowed penetration and recovery), and the box stops (speed below
/// 1 mm/s after 0.7 s).
#[test]
fn rigid_box_lands_and_rests_on_an_elastic_block() {
    let text = r#"Scene(name: "mixed", dt: 1e-3, frames: 1, frame_rate: 1.0,
        materials: { "rubber": (density: 1000.0, youngs_modulus: 1e6, poisson_ratio: 0.3), "steel": (density: 2000.0) },
        friction: (default: (mu: 0.5)),
        bodies: [
            Solid(name: "block", material: "rubber", mesh: Box(size: (0.2, 0.2, 0.1), cells: (4, 4, 2)), position: (0.0, 0.0, 0.05)),
            Rigid(name: "box", material: "steel", shape: Box(size: (0.1, 0.1, 0.05)), position: (0.01, 0.0, 0.15), rotation: (0.0, 0.0, 10.0)),
        ],
        colliders: [ Plane(name: "floor", material: "steel") ],
        pipeline: Nonsmooth(solver: FischerBurmeister, tolerance: 1e-6, max_iterations: 2000))"#;
    let mut s = sim(text);
    for k in 0..700 {
        let st = s.step().expect("finite");
        assert!(st.converged, "step {k}: {:?}", st.failure);
    }
    let b = &s.state.rigid[0];
    let bottom = b.position.z - 0.025;
    let top = (0..s.model.node_count()).map(|i| node(&s.state.q, i).z).fold(f64::NEG_INFINITY, f64::max);
    assert!((bottom - top).abs() < 1e-3, "box bottom {bottom} vs block top {top}");
    assert!(b.linear_velocity.norm() < 1e-3, "the box comes to rest: {}", b.linear_velocity.norm());
    assert!(top > 0.09, "the block is not crushed: top at {top}");
}

/// The same box at rest on the rubber block: the contact forces the nodal step reports for it
/// (`contact_points`, the contacts with a rigid body) carry its weight. Each Newton iteration's
/// right-hand side must hold the box's predicted momentum `M (v + h g)`: taking the previous
/// iterate's velocity instead (as the step once did) counts the earlier iterations' impulses
/// twice.
///
/// The box is dropped from 1 cm above the block and left 0.5 s to settle. Tolerance 1e-6 of the
/// weight: at rest, the box's own momentum balance makes its contact impulses equal its gravity
/// impulse up to what its velocity still changes by in a step (speed 5e-10 m/s here, checked
/// below 1e-6 m/s) and the Delassus back-substitution's round-off; measured 1.0e-9 relative.
/// With the old right-hand side the same run reported 4.37 N, the box still moving at 2e-5 m/s.
#[test]
fn resting_box_contact_forces_carry_its_weight() {
    let text = r#"Scene(name: "mixed", dt: 1e-3, frames: 1, frame_rate: 1.0,
        materials: { "rubber": (density: 1000.0, youngs_modulus: 1e6, poisson_ratio: 0.3), "steel": (density: 2000.0) },
        friction: (default: (mu: 0.5)),
        bodies: [
            Solid(name: "block", material: "rubber", mesh: Box(size: (0.2, 0.2, 0.1), cells: (4, 4, 2)), position: (0.0, 0.0, 0.05)),
            Rigid(name: "box", material: "steel", shape: Box(size: (0.1, 0.1, 0.05)), position: (0.0, 0.0, 0.135)),
        ],
        colliders: [ Plane(name: "floor", material: "steel") ],
        pipeline: Nonsmooth(solver: FischerBurmeister, tolerance: 1e-6, max_iterations: 2000))"#;
    let mut s = sim(text);
    for k in 0..500 {
        let st = s.step().expect("finite");
        assert!(st.converged, "step {k}: {:?}", st.failure);
    }
    let b = &s.state.rigid[0];
    let weight = b.mass * 9.81;
    // Node–body contacts report the forces on the node (the first side): the box pushes down.
    // Normals at the block's deformed top tilt, so friction carries part of the load too.
    let on_box: f64 = -s.pipeline.contact_points().iter().map(|c| c.normal_force.z + c.friction_force.z).sum::<f64>();
    println!("force on the box {on_box} N, weight {weight} N, speed {:e}", b.linear_velocity.norm());
    assert!(b.linear_velocity.norm() < 1e-6, "the box is at rest");
    assert!((on_box - weight).abs() < 1e-6 * weight, "contact force {on_box} N against the weight {weight} N");
}
