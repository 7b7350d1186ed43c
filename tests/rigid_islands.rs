//! Islands in the nonsmooth pipeline: contacts that share no dynamic body are solved as separate
//! problems. Where the whole problem has one solution in velocities (bodies resting or sliding
//! on a floor, whatever their forces), the split gives the monolithic solve's motion: both runs
//! agree to the solver tolerance's effect on the velocities.
//!
//! Tolerance: both runs stop at a relative natural-map error of 1e-9, so each velocity is
//! accurate to about 1e-9 of the problem's scale (g h ~ 1e-2 m/s): 1e-8 m/s on velocities and,
//! over 500 steps of 1e-3 s, 1e-8 m on positions bound the difference with margin; angular
//! velocities: 1e-8 m/s over the bodies' 0.02–0.05 m lever arms is up to 5e-7 rad/s, so 1e-6.

#[path = "support/scene_run.rs"]
mod scene_run;

use fricsim::simulation::Simulation;

fn sim(islands: bool) -> Simulation {
    // Three groups that never touch each other: a two-box stack, a box sliding at 1 m/s, and an
    // L (non-convex) with a box resting on its foot. A fourth box sits alone.
    let text = format!(
        r#"Scene(
    name: "islands", dt: 1e-3, frames: 1, frame_rate: 1.0,
    materials: {{ "m": (density: 1000.0) }},
    friction: (default: (mu: 0.3)),
    bodies: [
        Rigid(name: "a0", material: "m", shape: Box(size: (0.1, 0.1, 0.1)), position: (0.0, 0.0, 0.05)),
        Rigid(name: "a1", material: "m", shape: Box(size: (0.1, 0.1, 0.1)), position: (0.01, 0.0, 0.1505)),
        Rigid(name: "s", material: "m", shape: Box(size: (0.1, 0.1, 0.05)), position: (1.0, 0.0, 0.025), velocity: (1.0, 0.2, 0.0)),
        Rigid(name: "l", material: "m", shape: Prism(profile: [(0.0, 0.0), (0.15, 0.0), (0.15, 0.05), (0.05, 0.05), (0.05, 0.15), (0.0, 0.15)], length: 0.1), position: (0.0, 1.0, 0.0), rotation: (90.0, 0.0, 0.0)),
        Rigid(name: "lb", material: "m", shape: Box(size: (0.04, 0.04, 0.04)), position: (0.1, 1.0, 0.0705)),
        Rigid(name: "lone", material: "m", shape: Box(size: (0.1, 0.1, 0.1)), position: (-1.0, -1.0, 0.05), angular_velocity: (0.0, 0.0, 90.0)),
    ],
    colliders: [ Plane(name: "floor", material: "m") ],
    pipeline: Nonsmooth(solver: Auto, tolerance: 1e-9, max_iterations: 5000, islands: {islands}),
)"#
    );
    scene_run::simulation(&text)
}

#[test]
fn islands_move_the_bodies_as_the_monolithic_solve() {
    let (mut split, mut whole) = (sim(true), sim(false));
    let mut compared = 0;
    for step in 0..500 {
        let a = split.step().expect("finite");
        let b = whole.step().expect("finite");
        assert!(a.converged && b.converged, "step {step}: {:?} / {:?}", a.failure, b.failure);
        assert_eq!(a.active_contacts, b.active_contacts, "step {step}");
        for (x, y) in split.state.rigid.iter().zip(&whole.state.rigid) {
            assert!(
                (x.linear_velocity - y.linear_velocity).norm() < 1e-8,
                "step {step}: {} against {}",
                x.linear_velocity,
                y.linear_velocity
            );
            assert!((x.angular_velocity - y.angular_velocity).norm() < 1e-6, "step {step}");
            assert!((x.position - y.position).norm() < 1e-8, "step {step}");
        }
        compared += 1;
    }
    assert_eq!(compared, 500);
    // The sliding box did slide (the islands were not trivially at rest).
    assert!(split.state.rigid[2].position.x > 1.05);
}
