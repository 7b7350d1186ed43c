//! Analytic validation of the penalty pipeline (../shared/validation cases 1–4) with a stiff
//! elastic block (192 tets, E = 1e7 Pa) on planes, fully implicit smoothed friction, backward Euler.
//!
//! Tolerances and why:
//! - Sliding accelerations and stop distances: 2 % (the gate). The sources of error are the
//!   time discretization (backward Euler is exact for the velocity under constant force; positions
//!   lag by v dt / 2, 0.5 % in the flat case), the smoothing (friction is exact once |v_t| > eps =
//!   1e-4 m/s) and the Newton tolerance (1e-7 m/s^2 on every DOF).
//! - "Sticking": smoothed friction cannot hold a block still; it creeps at
//!   v* = eps (1 - sqrt(1 - tan(theta)/mu)) (case 4), approached from below. A sticking block may
//!   exceed v* by 0.1 % at most: the Newton residual (1e-7 m/s^2 per DOF) integrated over the 1 s
//!   run bounds the velocity error by 1e-7 m/s = 0.1 % of eps.
//! - The scenes start the block in static equilibrium on its penalty layer (see equilibrium.py and
//!   the `settle` phase of ramp_half.ron): exactly at mu = tan(theta) every speed >= eps is an
//!   equilibrium of smoothed friction, so start-up rocking above eps would never decay.

use fricsim::friction::smooth::SmoothFriction;
use fricsim::simulation::Simulation;
use std::path::Path;

const G: f64 = 9.81;
const EPS: f64 = 1e-4;

struct Trace {
    t: Vec<f64>,
    /// Centroid displacement along the downhill direction (m).
    s: Vec<f64>,
    /// Centroid velocity along the downhill direction (m/s).
    v: Vec<f64>,
}

fn scene(name: &str) -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("scenes/validation").join(name)
}

/// Run a scene for `duration` seconds; `downhill` is the unit slope direction.
fn run(name: &str, overrides: &[&str], duration: f64, downhill: [f64; 3]) -> Trace {
    let ov: Vec<String> = overrides.iter().map(|s| s.to_string()).collect();
    let mut sim = Simulation::from_file(&scene(name), &ov).unwrap_or_else(|e| panic!("{name}: {e}"));
    let along = |v: nalgebra::Vector3<f64>| v.x * downhill[0] + v.y * downhill[1] + v.z * downhill[2];
    let (x0, _) = sim.state.centroid(&sim.model, &sim.model.solids[0]);
    let mut tr = Trace { t: vec![0.0], s: vec![0.0], v: vec![0.0] };
    let steps = (duration / sim.model.dt).round() as usize;
    for _ in 0..steps {
        let st = sim.step().expect("finite state");
        assert!(st.converged, "{name} {overrides:?}: step {} failed: {:?}", sim.state.step, st.failure);
        let (x, v) = sim.state.centroid(&sim.model, &sim.model.solids[0]);
        tr.t.push(sim.state.time);
        tr.s.push(along(x - x0));
        tr.v.push(along(v));
    }
    tr
}

fn downhill(theta_deg: f64) -> [f64; 3] {
    let t = theta_deg.to_radians();
    [-t.cos(), 0.0, -t.sin()]
}

fn at(tr: &Trace, time: f64) -> usize {
    tr.t.iter().position(|&t| t >= time - 1e-9).expect("time within the run")
}

/// Mean acceleration between two times from the velocity trace.
fn acceleration(tr: &Trace, t0: f64, t1: f64) -> f64 {
    let (i, j) = (at(tr, t0), at(tr, t1));
    (tr.v[j] - tr.v[i]) / (tr.t[j] - tr.t[i])
}

fn assert_sticks(label: &str, tr: &Trace, tan_theta: f64, mu: f64) {
    let vstar = SmoothFriction::coulomb(mu, EPS).creep_speed(tan_theta).expect("sticking case");
    let i = at(tr, 0.5);
    let vmax = tr.v[i..].iter().fold(0.0f64, |m, v| m.max(v.abs()));
    let mean = (tr.s[tr.s.len() - 1] - tr.s[i]) / (tr.t[tr.t.len() - 1] - tr.t[i]);
    println!("{label}: creep v* = {vstar:.4e}, max speed after 0.5 s = {vmax:.4e}, mean = {mean:.4e} m/s");
    assert!(vmax <= 1.001 * vstar, "{label}: speed {vmax:.4e} exceeds the creep allowance {vstar:.4e}");
    assert!(mean <= 1.001 * vstar);
}

fn assert_slides(label: &str, tr: &Trace, theta_deg: f64, mu: f64, t0: f64, t1: f64) {
    let th = theta_deg.to_radians();
    let exact = G * (th.sin() - mu * th.cos());
    let a = acceleration(tr, t0, t1);
    println!("{label}: a = {a:.6e}, exact {exact:.6e}, rel. error {:.3e}", (a - exact) / exact);
    assert!(((a - exact) / exact).abs() < 0.02, "{label}: a = {a:.6e} vs {exact:.6e}");
}

#[test]
fn case1_ramp10_sticks_at_0177_and_slides_at_0176() {
    let tan = 10f64.to_radians().tan();
    let stick = run("ramp10.ron", &["friction.pairs[0].mu=0.177", "duration=1.0"], 1.0, downhill(10.0));
    assert_sticks("10deg mu=0.177", &stick, tan, 0.177);
    let slide = run("ramp10.ron", &["friction.pairs[0].mu=0.176"], 2.0, downhill(10.0));
    // Measured once the block slides faster than eps everywhere (v(1 s) ~ 3e-3 m/s >> 1e-4).
    assert_slides("10deg mu=0.176", &slide, 10.0, 0.176, 1.0, 2.0);
    // The direct solver (fresh sparse LU of the non-symmetric Jacobian each iteration) agrees.
    let lu =
        run("ramp10.ron", &["friction.pairs[0].mu=0.176", "pipeline.newton.linear_solver=Lu"], 2.0, downhill(10.0));
    assert_slides("10deg mu=0.176 (LU)", &lu, 10.0, 0.176, 1.0, 2.0);
}

#[test]
fn case1_half_slope_sticks_at_05_and_slides_at_049() {
    let theta = 0.5f64.atan().to_degrees();
    let stick = run("ramp_half.ron", &["friction.pairs[0].mu=0.5"], 1.0, downhill(theta));
    assert_sticks("tan=0.5 mu=0.5", &stick, 0.5, 0.5);
    let slide = run("ramp_half.ron", &["friction.pairs[0].mu=0.49"], 1.0, downhill(theta));
    assert_slides("tan=0.5 mu=0.49", &slide, theta, 0.49, 0.5, 1.0);
}

/// First time the downhill speed falls below 2 eps (it then creeps at v* < eps), and the distance.
fn stop(tr: &Trace) -> Option<(f64, f64)> {
    let i = tr.v.iter().skip(1).position(|&v| v < 2.0 * EPS)? + 1;
    Some((tr.t[i], tr.s[i]))
}

#[test]
fn case2_block_slides_to_a_stop_on_the_10_degree_ramp() {
    let tr = run("ramp10_stop.ron", &[], 16.5, downhill(10.0));
    let (t, d) = stop(&tr).expect("the block stops within 16.5 s");
    println!("case 2: stopped at t = {t:.4} s (exact 15.380), d = {d:.5} m (exact 0.7690)");
    assert!((d - 0.768992).abs() / 0.768992 < 0.02, "distance {d}");
    assert!((t - 15.3798).abs() / 15.3798 < 0.02, "time {t}");
}

#[test]
fn case3_flat_ground_stop_distance() {
    for (v0, mu) in [(1.0, 0.5), (2.0, 0.3)] {
        let dur = v0 / (mu * G) + 0.05;
        let ov = [
            format!("bodies[0].velocity=({v0}, 0.0, 0.0)"),
            format!("friction.pairs[0].mu={mu}"),
            format!("duration={dur}"),
        ];
        let ov: Vec<&str> = ov.iter().map(|s| s.as_str()).collect();
        let tr = run("flat_stop.ron", &ov, dur, [1.0, 0.0, 0.0]);
        let (t, d) = stop(&tr).expect("the block stops");
        let (te, de) = (v0 / (mu * G), v0 * v0 / (2.0 * mu * G));
        println!(
            "case 3 v0={v0} mu={mu}: d = {d:.5} (exact {de:.5}, rel {:.2e}), t = {t:.4} (exact {te:.4})",
            (d - de) / de
        );
        assert!(((d - de) / de).abs() < 0.02, "distance {d} vs {de}");
        assert!(((t - te) / te).abs() < 0.02, "time {t} vs {te}");
    }
}

/// Lagged friction (normal force and sliding basis from the start of the step, IPC's way) on
/// cases 1 and 2, with the implicit cases' gates. 001 reports that it misses the threshold and
/// the stop; on this flat contact, where neither the normal force nor the basis changes within a
/// step, it does not (measured: creep 9.38e-5 m/s at the allowance, the acceleration to 7
/// digits, the stop at 0.76849 m against 0.7690). 001's difference needs a contact whose normal
/// force or basis changes within a step (see the README's lagged-friction studies).
#[test]
fn lagged_friction_keeps_the_threshold_and_the_stop_on_flat_contact() {
    let lag = "pipeline.friction=Lagged";
    let tan = 10f64.to_radians().tan();
    let stick = run("ramp10.ron", &["friction.pairs[0].mu=0.177", "duration=1.0", lag], 1.0, downhill(10.0));
    assert_sticks("lagged 10deg mu=0.177", &stick, tan, 0.177);
    let slide = run("ramp10.ron", &["friction.pairs[0].mu=0.176", lag], 2.0, downhill(10.0));
    assert_slides("lagged 10deg mu=0.176", &slide, 10.0, 0.176, 1.0, 2.0);
    let tr = run("ramp10_stop.ron", &[lag], 16.5, downhill(10.0));
    let (t, d) = stop(&tr).expect("the lagged block stops within 16.5 s");
    println!("lagged case 2: stopped at t = {t:.4} s (exact 15.380), d = {d:.5} m (exact 0.7690)");
    // The implicit case's gates (2 %).
    assert!((d - 0.768992).abs() / 0.768992 < 0.02, "distance {d}");
    assert!((t - 15.3798).abs() / 15.3798 < 0.02, "time {t}");
}

/// Case 1 again with contact between two deformable solids (block vertices against the triangles
/// of a tilted slab whose vertices are fixed): same threshold, same creep, same acceleration.
#[test]
fn case1_block_on_tilted_solid_slab() {
    let tan = 10f64.to_radians().tan();
    let stick = run("block_on_slab.ron", &["friction.pairs[0].mu=0.177", "duration=1.0"], 1.0, downhill(10.0));
    assert_sticks("slab 10deg mu=0.177", &stick, tan, 0.177);
    let slide = run("block_on_slab.ron", &["friction.pairs[0].mu=0.176"], 2.0, downhill(10.0));
    assert_slides("slab 10deg mu=0.176", &slide, 10.0, 0.176, 1.0, 2.0);
}

/// A moving collider drags through friction: a block at rest on a floor moving at 0.05 m/s
/// accelerates at mu g (relative slip >> eps) until it moves with the floor (t* = v / (mu g)).
#[test]
fn conveyor_floor_accelerates_the_block_at_mu_g_then_carries_it() {
    let ov = [
        "bodies[0].velocity=(0.0, 0.0, 0.0)",
        "colliders[0].motion=Velocity(0.05, 0.0, 0.0)",
        "friction.pairs[0].mu=0.1",
        "duration=0.1",
    ];
    let tr = run("flat_stop.ron", &ov, 0.1, [1.0, 0.0, 0.0]);
    // Acceleration while slipping (t* = 0.051 s): 2 %, as for the other sliding cases.
    let a = acceleration(&tr, 0.01, 0.04);
    println!("conveyor: a = {a:.5} (mu g = 0.981)");
    assert!((a - 0.981).abs() / 0.981 < 0.02, "a = {a}");
    // Carried: mean velocity over the last 30 ms within 3 % of the floor's. The block's shear
    // oscillation on its contact layer after the lock (amplitude ~4 % at 0.06 s, decaying under
    // backward Euler) averages out over that window.
    let (i, j) = (at(&tr, 0.07), tr.t.len() - 1);
    let mean = (tr.s[j] - tr.s[i]) / (tr.t[j] - tr.t[i]);
    println!("conveyor: mean velocity after lock {mean:.5} (floor 0.05)");
    assert!((mean - 0.05).abs() / 0.05 < 0.03, "mean {mean}");
}
