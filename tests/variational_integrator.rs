//! 002's variational integrator with friction (§4.5) against backward Euler and the Moreau-type
//! step, on its two experiments (§4.8): the bouncing particle and the 2-DoF nonlinear
//! oscillator `V = |q|²(|q|² − 1)²` on the half-plane `y >= 0`.
//!
//! Tolerances and why:
//! - Bouncing particle: with gravity linear, the half-step scheme is exact in flight and an
//!   impact reverses the velocity in place (`Nᵀ(v⁺ + v) = 0`, `q⁺ = q`), so the energy is kept
//!   to rounding: 1e-12 relative over 10 s (up to 10⁴ steps of O(1e-16) each).
//! - Oscillator without contact: the implicit midpoint rule keeps a modified energy, so the
//!   energy oscillates in a band fixed by h with no drift: the band's mean over the last tenth of
//!   the run equals the first tenth's within 1e-3 relative, and the band is below 1 %.
//! - With friction the energy may only drop while the particle slides on the line, and never
//!   rise by more than the frictionless band.

use fricsim::integrator::variational::{Gravity, HalfSpace, Oscillator, ParticleSystem, Potential, Scheme};
use nalgebra::Vector3;

const G: f64 = 9.81;

fn floor(mu: f64, normal: Vector3<f64>) -> HalfSpace {
    HalfSpace { particle: 0, normal, offset: 0.0, mu }
}

fn run<P: Potential>(
    s: &ParticleSystem<P>,
    scheme: Scheme,
    q: &mut [f64],
    v: &mut [f64],
    h: f64,
    steps: usize,
) -> Vec<f64> {
    let mut e = Vec::with_capacity(steps + 1);
    e.push(s.energy(q, v));
    for i in 0..steps {
        s.step(scheme, q, v, h).unwrap_or_else(|m| panic!("{scheme:?} step {i}: {m}"));
        e.push(s.energy(q, v));
    }
    e
}

/// Experiment 1: a unit mass dropped from 1 m on the floor, frictionless, h = 0.1, 0.01, 0.001
/// over 10 s. The variational scheme keeps the energy and every impact reverses the velocity
/// exactly (restitution 1 for every h); backward Euler and the Moreau step stop the particle on
/// the floor (restitution 0) and lose the energy.
#[test]
fn bouncing_particle_keeps_its_energy_for_every_step_size() {
    let sys = ParticleSystem {
        mass: vec![1.0; 3],
        potential: Gravity { mass: vec![1.0], g: G },
        constraints: vec![floor(0.0, Vector3::z())],
    };
    println!("| h | scheme | energy after 10 s / initial | bounces | restitution (min, max) |");
    for h in [1e-1f64, 1e-2, 1e-3] {
        let steps = (10.0 / h).round() as usize;
        for scheme in [Scheme::Variational, Scheme::BackwardEuler, Scheme::Moreau] {
            let (mut q, mut v) = (vec![0.0, 0.0, 1.0], vec![0.0; 3]);
            let e0 = sys.energy(&q, &v);
            let mut restitution = Vec::new();
            let mut last = e0;
            for i in 0..steps {
                let before = v[2];
                sys.step(scheme, &mut q, &mut v, h).unwrap_or_else(|m| panic!("{scheme:?} h {h} step {i}: {m}"));
                if before < 0.0 && v[2] >= 0.0 && before < -2.0 * G * h {
                    restitution.push(v[2] / -before);
                }
                last = sys.energy(&q, &v);
            }
            let (lo, hi) = restitution.iter().fold((f64::INFINITY, 0.0f64), |(a, b), e| (a.min(*e), b.max(*e)));
            println!("| {h} | {scheme:?} | {:.6} | {} | {lo:.3}, {hi:.3} |", last / e0, restitution.len());
            if scheme == Scheme::Variational {
                assert!((last - e0).abs() <= 1e-12 * e0, "h {h}: energy {last} vs {e0}");
                assert!(restitution.len() >= 3, "h {h}: {} bounces", restitution.len());
                assert!(restitution.iter().all(|e| (e - 1.0).abs() < 1e-12), "h {h}: {restitution:?}");
            } else {
                // The particle comes to rest on the floor: what is left is the potential energy
                // of a penetration of at most one step's fall, g h² (h = 0.1: 0.1 m).
                assert!(last < 0.15 * e0, "{scheme:?} h {h}: {last}");
                assert!(restitution.iter().all(|e| *e < 1e-12), "{scheme:?}: {restitution:?}");
            }
        }
    }
}

fn oscillator(mu: Option<f64>) -> ParticleSystem<Oscillator> {
    ParticleSystem {
        mass: vec![1.0; 3],
        potential: Oscillator,
        constraints: mu.map(|mu| floor(mu, Vector3::y())).into_iter().collect(),
    }
}

fn band(e: &[f64]) -> (f64, f64, f64) {
    let k = e.len() / 10;
    let mean = |s: &[f64]| s.iter().sum::<f64>() / s.len() as f64;
    let (lo, hi) = e.iter().fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), x| (a.min(*x), b.max(*x)));
    (mean(&e[..k]), mean(&e[e.len() - k..]), (hi - lo) / e[0])
}

/// Experiment 2 without contact: the oscillator from rest at (1.3, 0.4) (energy 0.55, inside
/// the outer well), h = 0.01, 10⁵ steps. The variational scheme's energy stays in a band with no
/// drift; backward Euler loses energy steadily.
#[test]
fn oscillator_without_contact_has_no_drift() {
    let sys = oscillator(None);
    let h = 1e-2;
    let (mut q, mut v) = (vec![1.3, 0.4, 0.0], vec![0.0; 3]);
    let e = run(&sys, Scheme::Variational, &mut q, &mut v, h, 100_000);
    let (first, last, width) = band(&e);
    println!("variational: first-tenth mean {first:.6}, last-tenth mean {last:.6}, band {width:.2e} of E0 {:.6}", e[0]);
    assert!((last - first).abs() <= 1e-3 * e[0], "drift {first} -> {last}");
    assert!(width < 1e-2, "band {width}");
    let (mut q, mut v) = (vec![1.3, 0.4, 0.0], vec![0.0; 3]);
    let be = run(&sys, Scheme::BackwardEuler, &mut q, &mut v, h, 10_000);
    println!("backward Euler: {:.6} -> {:.6} after 10⁴ steps", be[0], be[be.len() - 1]);
    assert!(be[be.len() - 1] < 0.9 * be[0]);
}

/// Experiment 2 with the floor `y >= 0`, from rest at (4, 4) (002's start, energy 30752; the
/// particle runs down the diagonal and meets the line with equal normal and tangential speeds),
/// h = 1e-3, 2 s. Frictionless, the energy stays where it was (impacts are elastic). With
/// friction it drops, and only on steps that start on the line: elsewhere a step changes it by
/// the midpoint rule's band alone (below 1e-3 of E0; 1.4e-4 measured). The impact's normal impulse
/// (2 m v_n, e = 1) can stop a tangential speed equal to v_n when μ >= 0.5: 002's μ = 0.5 and 5
/// then end at the same energy (37 % of E0: the tangential motion stops at the first impact and
/// the rest bounces). μ = 0.1 cannot stop it: the particle keeps sliding along the line and
/// loses more (8 % left after 2 s, measured).
#[test]
fn oscillator_on_a_line_loses_energy_only_while_sliding() {
    let h = 1e-3;
    let steps = 2000;
    let mut finals = Vec::new();
    for mu in [0.0, 0.1, 0.5, 5.0] {
        let sys = oscillator(Some(mu));
        let (mut q, mut v) = (vec![4.0, 4.0, 0.0], vec![0.0; 3]);
        let e0 = sys.energy(&q, &v);
        let mut e = e0;
        let mut off_line = 0.0f64;
        for i in 0..steps {
            let touching = q[1] <= 0.0;
            sys.step(Scheme::Variational, &mut q, &mut v, h).unwrap_or_else(|m| panic!("μ {mu} step {i}: {m}"));
            let next = sys.energy(&q, &v);
            if !touching || mu == 0.0 {
                off_line = off_line.max((e - next).abs() / e0);
            }
            e = next;
        }
        println!("μ {mu}: E {e0:.1} -> {e:.1}; largest change on a step without friction {off_line:.2e}");
        assert!(off_line < 1e-3, "μ {mu}: {off_line}");
        finals.push(e / e0);
    }
    assert!((finals[0] - 1.0).abs() < 1e-3, "frictionless: {}", finals[0]);
    assert!(finals[1] < 0.99 && finals[2] < 0.99, "{finals:?}");
    assert!((finals[3] - finals[2]).abs() < 1e-6, "{finals:?}");
}

fn rigid_scene(body: &str, mu: f64, integrator: &str) -> fricsim::simulation::Simulation {
    let text = format!(
        r#"Scene(
    name: "v", dt: 1e-3, frames: 1, frame_rate: 1.0,
    materials: {{ "m": (density: 1000.0) }},
    friction: (default: (mu: {mu})),
    bodies: [ {body} ],
    colliders: [ Plane(name: "floor", material: "m") ],
    pipeline: Nonsmooth(solver: FischerBurmeister, tolerance: 1e-12, integrator: {integrator}),
)"#
    );
    let loaded = fricsim::scene::parse_scene_str(&text, "test", std::path::Path::new("."), &[])
        .unwrap_or_else(|e| panic!("{e}"));
    let (model, state) = fricsim::scene::build::build(&loaded).unwrap_or_else(|e| panic!("{e}"));
    fricsim::simulation::Simulation::new(model, state)
}

fn rigid_energy(s: &fricsim::simulation::Simulation) -> f64 {
    let b = &s.state.rigid[0];
    let m = b.mass;
    0.5 * m * b.linear_velocity.norm_squared() + m * G * b.position.z
}

/// `Nonsmooth(integrator: Variational)`: a ball dropped from 0.2 m onto the floor keeps its
/// energy over 2 s of bounces (to 1e-9 relative: each contact solve is exact to 1e-12 of the
/// velocity scale) and bounces back to its height; the default Moreau step with restitution 0
/// stops it. A block sliding at 1 m/s with μ = 0.3 stops at v₀/(μg) (0.340 s) within one step:
/// the friction set scales with the whole normal impulse.
#[test]
fn rigid_scenes_take_the_variational_integrator() {
    let ball = "Rigid(name: \"b\", material: \"m\", shape: Sphere(radius: 0.05), position: (0.0, 0.0, 0.25))";
    let mut s = rigid_scene(ball, 0.5, "Variational");
    let e0 = rigid_energy(&s);
    let mut top_after_bounce = 0.0f64;
    let mut bounced = 0;
    for _ in 0..2000 {
        let vz = s.state.rigid[0].linear_velocity.z;
        let st = s.step().expect("finite");
        assert!(st.converged, "{:?}", st.failure);
        if vz < 0.0 && s.state.rigid[0].linear_velocity.z > 0.0 {
            bounced += 1;
        }
        if bounced > 0 {
            top_after_bounce = top_after_bounce.max(s.state.rigid[0].position.z);
        }
        assert!((rigid_energy(&s) - e0).abs() < 1e-9 * e0, "energy {} vs {e0}", rigid_energy(&s));
    }
    assert!(bounced >= 3, "{bounced} bounces");
    assert!((top_after_bounce - 0.25).abs() < 1e-3, "back to {top_after_bounce}");
    let mut s = rigid_scene(ball, 0.5, "Moreau");
    for _ in 0..2000 {
        s.step().expect("finite");
    }
    assert!(rigid_energy(&s) < 0.5 * e0);
    let block = "Rigid(name: \"b\", material: \"m\", shape: Box(size: (0.1, 0.08, 0.05)), position: (0.0, 0.0, 0.025), velocity: (1.0, 0.0, 0.0))";
    let mut s = rigid_scene(block, 0.3, "Variational");
    let mut stop = None;
    for i in 1..=600 {
        let st = s.step().expect("finite");
        assert!(st.converged, "{:?}", st.failure);
        if stop.is_none() && s.state.rigid[0].linear_velocity.x.abs() < 1e-9 {
            stop = Some(i as f64 * 1e-3);
        }
    }
    let want = 1.0 / (0.3 * G);
    let stop = stop.expect("the block stops");
    assert!((stop - want).abs() <= 1e-3 + 1e-9, "stops at {stop} vs {want}");
}
