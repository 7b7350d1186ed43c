//! 001's experiments as shipped scenes (README, "Experiments of 001"): the bowl grasp (§V-A2)
//! and the ball in a box (§V-A3, validation case 15).

use fricsim::simulation::Simulation;
use std::path::Path;

fn sim(path: &str, overrides: &[String]) -> Simulation {
    let p = Path::new(env!("CARGO_MANIFEST_DIR")).join(path);
    Simulation::from_file(&p, overrides).unwrap_or_else(|e| panic!("{path}: {e}"))
}

/// The bowl grasp at step `h` with the given friction evaluation: the largest amount by which
/// the bowl's rise lags the pads' over frames 1–150 (m), and the number of failed steps.
fn bowl_lag(h: f64, friction: &str) -> (f64, usize) {
    let ov = vec![format!("dt={h}"), format!("pipeline.friction={friction}")];
    let mut s = sim("scenes/bowl_grasp.ron", &ov);
    let (bowl, pad) = (s.model.solids[0].nodes.clone(), s.model.solids[1].nodes.clone());
    let z = |s: &Simulation, nodes: &std::ops::Range<usize>| s.state.nodes_centroid(&s.model, nodes.clone()).0.z;
    let (bowl0, pad0) = (z(&s, &bowl), z(&s, &pad));
    let (mut lag, mut failed) = (0.0f64, 0);
    for _ in 0..s.model.step_count() {
        let st = s.step().expect("finite state");
        failed += usize::from(!st.converged);
        lag = lag.max((z(&s, &pad) - pad0) - (z(&s, &bowl) - bowl0));
    }
    (lag, failed)
}

/// 001 §V-A2: with implicit friction the bowl rises with the pads at h = 0.005, 0.0025 and
/// 0.00125 s. The pads lift 5 cm; the bowl may lag by the pads' elastic shear under its weight
/// and the smoothing creep (ε = 1 mm/s over 1.2 s of lifting: 1.2 mm at most), so 1.5 mm
/// separates holding from slipping (a dropped bowl lags by the full 5 cm).
#[test]
fn bowl_grasp_implicit_friction_lifts_the_bowl_at_every_step_size() {
    for h in [0.005, 0.0025, 0.00125] {
        let (lag, failed) = bowl_lag(h, "Implicit");
        println!("bowl grasp, h = {h}, implicit: largest lag {:.3} mm, {failed} failed steps", 1e3 * lag);
        assert_eq!(failed, 0, "h = {h}");
        assert!(lag < 1.5e-3, "h = {h}: the bowl lags the pads by {lag} m");
    }
}

/// Lagged friction on the same grasp: recorded (001 reports drops at frames 35, 40 and 100).
/// `cargo test --release --test penalty_experiments bowl_grasp_lagged_study -- --ignored --nocapture`
#[test]
#[ignore = "study: prints the lagged grasp at the three step sizes (about 15 s)"]
fn bowl_grasp_lagged_study() {
    for h in [0.005, 0.0025, 0.00125] {
        let (lag, failed) = bowl_lag(h, "Lagged");
        println!("bowl grasp, h = {h}, lagged: largest lag {:.3} mm, {failed} failed steps", 1e3 * lag);
    }
}

/// Total energy (kinetic + elastic) of the ball-in-box scene after every step with `integrator`,
/// and the number of failed steps.
fn ball_in_box_energy(integrator: &str) -> (Vec<f64>, usize) {
    ball_in_box_energy_with(integrator, &[])
}

/// The same with more overrides; a run whose energy passes 10 times its first step's has blown
/// up and is stopped there.
fn ball_in_box_energy_with(integrator: &str, more: &[String]) -> (Vec<f64>, usize) {
    let mut ov = vec![format!("pipeline.integrator={integrator}"), "pipeline.on_failure=Continue".into()];
    ov.extend_from_slice(more);
    let mut s = sim("scenes/ball_in_box.ron", &ov);
    let (mut energy, mut failed) = (Vec::new(), 0);
    for _ in 0..s.model.step_count() {
        let Ok(st) = s.step() else { break };
        failed += usize::from(!st.converged);
        let e = s.state.kinetic_energy(&s.model) + st.elastic_energy;
        energy.push(e);
        if !e.is_finite() || e > 10.0 * energy[0] {
            break;
        }
    }
    (energy, failed)
}

/// 001 says its coupled trapezoid dissipates in the ball-in-box "even with a slightly weaker
/// damping"; here it blows up without stiffness damping (README). The one parameter believed
/// responsible, Rayleigh β (on both materials, α 0.1 kept), swept down from the scene's 1 ms to
/// find where the coupled trapezoid stops being bounded: recorded, not asserted.
/// `cargo test --release --test penalty_experiments ball_in_box_beta_study -- --ignored --nocapture`
#[test]
#[ignore = "study: coupled trapezoid on the ball in the box against Rayleigh beta (about 15 min)"]
fn ball_in_box_beta_study() {
    for beta in [1e-3, 8e-4, 6e-4, 5e-4, 4e-4, 3e-4, 1e-4, 3e-5, 1e-5, 3e-6, 0.0] {
        let more: Vec<String> =
            ["box", "rubber"].iter().map(|m| format!("materials.{m}.damping.beta={beta:e}")).collect();
        let (energy, failed) = ball_in_box_energy_with("Trapezoid", &more);
        let max = energy.iter().cloned().fold(0.0, f64::max);
        println!(
            "ball in box, coupled TR, beta {beta:e} s: {} steps, E first {:.5} J, max {max:.5e} J, last {:.5e} J, \
             {failed} failed steps",
            energy.len(),
            energy[0],
            energy.last().unwrap()
        );
    }
}

/// Validation case 15 (001 §V-A3): the spinning ball in the elastic box, 800 steps at h = 0.01
/// with the whole force in the trapezoid's stages: no blow-up. The box settles on the floor
/// before t = 0, so the energy at the first step bounds everything after it: nothing in the scene
/// gains energy (gravity does work only while the ball falls, 0.2 mJ of 27 mJ), hence the
/// gate 1.1 E(first step) and no failed step.
#[test]
fn ball_in_box_coupled_trapezoid_stays_bounded() {
    let (energy, failed) = ball_in_box_energy("Trapezoid");
    let (first, max, last) = (energy[0], energy.iter().cloned().fold(0.0, f64::max), *energy.last().unwrap());
    println!("ball in box, coupled TR: E first {first:.5} J, max {max:.5} J, last {last:.5} J, {failed} failed steps");
    assert_eq!(energy.len(), 800);
    assert_eq!(failed, 0);
    assert!(max <= 1.1 * first && last.is_finite(), "energy grew: {first} -> {max}");
}

/// IPC's contact-decoupled trapezoid and SDIRK2 on the same scene: recorded, not asserted.
/// `cargo test --release --test penalty_experiments ball_in_box_study -- --ignored --nocapture`
#[test]
#[ignore = "study: the decoupled trapezoid and SDIRK2 on the ball in the box (about 2 min)"]
fn ball_in_box_study() {
    for integrator in ["TrapezoidDecoupled", "Sdirk2"] {
        let (energy, failed) = ball_in_box_energy(integrator);
        let max = energy.iter().cloned().fold(0.0, f64::max);
        println!(
            "ball in box, {integrator}: E first {:.5} J, max {max:.5} J, last {:.5} J, {failed} failed steps",
            energy[0],
            energy.last().unwrap()
        );
    }
}
