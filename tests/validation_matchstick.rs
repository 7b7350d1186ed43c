//! Validation case 7 (anisotropic, matchstick friction, 003) with a rigid box on an incline whose
//! surface and the box's share a structure direction at angle gamma to the down-slope direction,
//! so that the matchstick law gives the extreme ellipse `(mu_t, mu_b)` with `t` along the
//! structure.
//!
//! Tolerances and why (the gate asks for 1 %):
//! - The static threshold `tan(theta*) = (cos^2 g / mu_t^2 + sin^2 g / mu_b^2)^(-1/2)` is probed
//!   at +/- 0.5 % of `tan(theta*)`: inside the gate. Below it the box must not move (speed
//!   < 1e-6 m/s after 0.4 s; solver tolerance 1e-6 relative: velocity errors ~1e-8 m/s per step,
//!   which a stuck contact does not accumulate, as each step solves for its rest); above it
//!   it slides at > 1e-3 m/s by then.
//! - Sliding: the friction force's direction in the (t, b) frame must satisfy
//!   `tan(angle) = mu_b^2 v_b / (mu_t^2 v_t)` (maximal dissipation on the ellipse); asserted to
//!   1 % of the angle's tangent, far above the solver's 1e-6 error.

#[path = "support/scene_run.rs"]
mod scene_run;

use fricsim::simulation::Simulation;
use nalgebra::Vector3;

const H: f64 = 1e-3;

fn sim(theta_deg: f64, gamma_deg: f64, mu: f64, mu_t: f64, mu_b: f64) -> Simulation {
    let t = theta_deg.to_radians();
    let (n, g) = (Vector3::new(t.sin(), 0.0, t.cos()), gamma_deg.to_radians());
    let c = n * 0.025;
    // The structure in the plane's (and the aligned box's) own frame: angle gamma from local +x,
    // which the tilt about +y turns into the down-slope direction.
    let s = format!("({}, {}, 0.0)", g.cos(), g.sin());
    let text = format!(
        r#"Scene(
    name: "m", dt: {H}, frames: 1, frame_rate: 1.0,
    materials: {{ "wood": (density: 600.0) }},
    friction: (default: (mu: {mu}, mu_t: {mu_t}, mu_b: {mu_b})),
    bodies: [ Rigid(name: "b", material: "wood", shape: Box(size: (0.1, 0.08, 0.05)),
                    position: ({}, {}, {}), rotation: (0.0, {theta_deg}, 0.0), structure: Direction{s}) ],
    colliders: [ Plane(name: "ramp", material: "wood", rotation: (0.0, {theta_deg}, 0.0), structure: {s}) ],
    pipeline: Nonsmooth(solver: FischerBurmeister, tolerance: 1e-6),
)"#,
        c.x, c.y, c.z
    );
    scene_run::simulation(&text)
}

fn run(s: &mut Simulation, seconds: f64) {
    scene_run::run_for(s, seconds, H);
}

fn threshold(mu_t: f64, mu_b: f64, gamma_deg: f64) -> f64 {
    let g = gamma_deg.to_radians();
    fricsim::friction::matchstick::incline_threshold(mu_t, mu_b, g)
}

#[test]
fn static_threshold_follows_the_ellipse_for_every_structure_angle() {
    let (mu_t, mu_b) = (0.3, 0.6);
    for gamma in [0.0, 30.0, 45.0, 60.0, 90.0] {
        let tan_star = threshold(mu_t, mu_b, gamma);
        for (factor, sticks) in [(0.995, true), (1.005, false)] {
            let theta = (tan_star * factor).atan().to_degrees();
            let mut s = sim(theta, gamma, 0.45, mu_t, mu_b);
            run(&mut s, 0.4);
            let speed = s.state.rigid[0].linear_velocity.norm();
            if sticks {
                assert!(speed < 1e-6, "gamma {gamma}: sticks below the threshold, but moves at {speed:e}");
            } else {
                assert!(speed > 1e-3, "gamma {gamma}: slides above the threshold, but moves at {speed:e}");
            }
        }
    }
}

#[test]
fn sliding_friction_follows_maximal_dissipation_on_the_ellipse() {
    let (mu_t, mu_b) = (0.2, 0.6);
    for gamma in [20.0, 45.0, 70.0] {
        let mut s = sim(35.0, gamma, 0.4, mu_t, mu_b);
        run(&mut s, 0.3);
        let v = s.state.rigid[0].linear_velocity;
        let cps = s.pipeline.contact_points();
        assert!(!cps.is_empty());
        let t = cps[0].tangent;
        // The ramp's normal: the box's four contacts share it, and may share its weight in any
        // split (a rigid box on four coplanar points), so one of them may carry none.
        let n: Vector3<f64> = cps.iter().map(|c| c.normal_force).sum::<Vector3<f64>>().normalize();
        let b = n.cross(&t);
        let f: Vector3<f64> = cps.iter().map(|c| c.friction_force).sum();
        let (v1, v2, f1, f2) = (v.dot(&t), v.dot(&b), f.dot(&t), f.dot(&b));
        // The force opposes the slip, turned towards the low-friction axis t.
        let expected = (mu_b * mu_b * v2) / (mu_t * mu_t * v1);
        let got = f2 / f1;
        assert!((got - expected).abs() < 0.01 * expected.abs(), "gamma {gamma}: tan = {got} vs {expected}");
        assert!(f.dot(&v) < 0.0, "friction dissipates");
        // Not anti-parallel to the slip unless along an axis: the ellipse matters.
        assert!((f2 / f1 - v2 / v1).abs() > 0.1 * (v2 / v1).abs());
    }
}

#[test]
fn equal_axes_reproduce_the_isotropic_answers() {
    for gamma in [0.0, 40.0] {
        for theta in [20.0, 30.0] {
            let mut aniso = sim(theta, gamma, 0.45, 0.45, 0.45);
            run(&mut aniso, 0.2);
            // Isotropic reference: the same scene without matchstick parameters.
            let mut iso = {
                let t = f64::to_radians(theta);
                let c = Vector3::new(t.sin(), 0.0, t.cos()) * 0.025;
                let text = format!(
                    r#"Scene(name: "i", dt: {H}, frames: 1, frame_rate: 1.0, materials: {{ "wood": (density: 600.0) }},
                    friction: (default: (mu: 0.45)),
                    bodies: [ Rigid(name: "b", material: "wood", shape: Box(size: (0.1, 0.08, 0.05)), position: ({}, {}, {}), rotation: (0.0, {theta}, 0.0)) ],
                    colliders: [ Plane(name: "ramp", material: "wood", rotation: (0.0, {theta}, 0.0)) ],
                    pipeline: Nonsmooth(solver: FischerBurmeister, tolerance: 1e-6))"#,
                    c.x, c.y, c.z
                );
                let loaded = fricsim::scene::parse_scene_str(&text, "iso", std::path::Path::new("."), &[]).unwrap();
                let (m, st) = fricsim::scene::build::build(&loaded).unwrap();
                Simulation::new(m, st)
            };
            run(&mut iso, 0.2);
            assert_eq!(aniso.state.rigid[0].position, iso.state.rigid[0].position, "gamma {gamma} theta {theta}");
            assert_eq!(aniso.state.rigid[0].linear_velocity, iso.state.rigid[0].linear_velocity);
        }
    }
}
