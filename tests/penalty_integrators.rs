//! The integrators of the penalty pipeline (001 §IV, `crate::integrator`) on whole scenes.

use fricsim::simulation::Simulation;
use std::path::Path;

fn scene(name: &str) -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("scenes/validation").join(name)
}

fn sim(name: &str, overrides: &[String]) -> Simulation {
    Simulation::from_file(&scene(name), overrides).unwrap_or_else(|e| panic!("{name}: {e}"))
}

/// Positions of the cantilever at t = 0.1 s with `integrator` at step `h`.
fn cantilever(integrator: &str, h: f64) -> Vec<f64> {
    let ov = [format!("pipeline.integrator={integrator}"), format!("dt={h}")];
    let mut s = sim("cantilever.ron", &ov);
    let steps = (0.1 / h).round() as usize;
    for _ in 0..steps {
        let st = s.step().expect("finite");
        assert!(st.converged, "{integrator} h={h}: {:?}", st.failure);
        assert_eq!(st.substeps, 1, "no step halving in an order study");
    }
    s.state.q
}

fn max_diff(a: &[f64], b: &[f64]) -> f64 {
    a.iter().zip(b).fold(0.0f64, |m, (x, y)| m.max((x - y).abs()))
}

/// Every integrator's order on a smooth problem (issue gate: slopes 1 for BE, 2 for the others,
/// within 0.2, from four step sizes). The cantilever starts at rest under gravity: a step load,
/// but the mesh's highest mode (about 20 Hz) is resolved by every step used (omega h <= 0.5).
#[test]
fn order_of_accuracy_on_a_cantilever_without_contact() {
    for (name, order) in [
        ("BackwardEuler", 1.0),
        ("Trapezoid", 2.0),
        ("Bdf2", 2.0),
        ("TrBdf2", 2.0),
        ("TrBdf2(gamma:0.5)", 2.0),
        ("TrapezoidDecoupled", 2.0),
        ("Sdirk2", 2.0),
    ] {
        let hs = [0.004, 0.002, 0.001, 0.0005];
        let reference = cantilever(name, 0.0005 / 8.0);
        let errors: Vec<f64> = hs.iter().map(|&h| max_diff(&cantilever(name, h), &reference)).collect();
        let slopes: Vec<f64> = errors.windows(2).map(|e| (e[0] / e[1]).log2()).collect();
        println!(
            "{name}: errors {:?}, slopes {slopes:.3?}",
            errors.iter().map(|e| format!("{e:.3e}")).collect::<Vec<_>>()
        );
        // The gate: each slope within 0.2 of the order. The reference (h/8 of the finest
        // step) carries 1/8 (BE) or 1/64 of the finest error, which biases the last slope by at
        // most log2(8/7) = 0.19 (BE) or 0.02; the Newton tolerance (1e-10 m/s^2) is far below.
        for (k, slope) in slopes.iter().enumerate() {
            assert!((slope - order).abs() < 0.2, "{name}: slope {slope:.3} between h = {} and {}", hs[k], hs[k + 1]);
        }
    }
}

const EPS: f64 = 1e-4;

/// The block of validation case 2 (001 §V-A1) slides down the 10° ramp at 0.1 m/s with
/// mu = 0.177: exact stop after 0.7690 m at 15.380 s. Returns (stop time, stop distance): the
/// first time the downhill centroid speed falls below 2 eps (smoothed friction then creeps at
/// v* = 0.94 eps), or `None` if it never stops within 16.5 s; an error names a failed step.
fn block_slide(overrides: &[&str], h: f64) -> Result<Option<(f64, f64)>, String> {
    let mut ov: Vec<String> = overrides.iter().map(|s| s.to_string()).collect();
    ov.push(format!("dt={h}"));
    ov.push(format!("frame_rate={}", 1.0 / h));
    ov.push("pipeline.newton.max_step_halvings=0".into());
    let mut s = sim("ramp10_stop.ron", &ov);
    let th = 10f64.to_radians();
    let down = nalgebra::Vector3::new(-th.cos(), 0.0, -th.sin());
    let (x0, _) = s.state.centroid(&s.model, &s.model.solids[0]);
    let steps = (16.5 / h).round() as usize;
    for _ in 0..steps {
        let st = s.step().expect("finite");
        if !st.converged {
            return Err(format!("step {} failed: {}", s.state.step, st.failure.unwrap_or_default()));
        }
        let (x, v) = s.state.centroid(&s.model, &s.model.solids[0]);
        if v.dot(&down) < 2.0 * EPS {
            return Ok(Some((s.state.time, (x - x0).dot(&down))));
        }
    }
    Ok(None)
}

/// The exact stop of case 2 as this test measures it: where the speed falls to 2 eps, 2 eps / a
/// before the true stop (a = g (mu cos - sin) = 0.006502 m/s^2).
fn exact_threshold_stop() -> (f64, f64) {
    let th = 10f64.to_radians();
    let a = 9.81 * (0.177 * th.cos() - th.sin());
    let (t_stop, v0) = (0.1 / a, 0.1);
    let t = t_stop - 2.0 * EPS / a;
    (t, v0 * t - 0.5 * a * t * t)
}

/// 001 §V-A1 with every integrator, implicit friction, the block started in the steady state of
/// its slide (`settle_in_motion`): the stop converges to the exact one. Distance gate 1 % at the
/// finest h (the issue's), and for BE the error must shrink as h falls; stop times are only
/// resolved to the step, so they must be within h + 0.1 % of it. The second-order schemes,
/// the trapezoid included, are already within 2e-5 at h = 0.1 (measured), below what the
/// threshold detection resolves, so only the bound is asserted for them.
#[test]
fn block_slide_stops_where_the_analytic_block_does() {
    let (te, de) = exact_threshold_stop();
    let cases: [(&str, &[f64]); 5] = [
        ("BackwardEuler", &[0.1, 0.05, 0.01, 0.005]),
        ("Trapezoid", &[0.1, 0.05, 0.01]),
        ("Bdf2", &[0.1, 0.05, 0.01]),
        ("TrBdf2", &[0.1, 0.05, 0.01]),
        ("Sdirk2", &[0.1, 0.05, 0.01]),
    ];
    for (integ, hs) in cases {
        let mut last = f64::INFINITY;
        for &h in hs {
            let outcome = block_slide(&[&format!("pipeline.integrator={integ}")], h);
            let (t, d) = outcome.unwrap_or_else(|e| panic!("{integ} h={h}: {e}")).expect("the block stops");
            let err = ((d - de) / de).abs();
            println!("{integ} h={h}: stop t = {t:.3} (exact {te:.3}), d = {d:.6} (exact {de:.6}, rel {err:.2e})");
            assert!(err < 0.01, "{integ} h={h}: distance {d} vs {de}");
            assert!((t - te).abs() <= h + 1e-3 * te, "{integ} h={h}: time {t} vs {te}");
            if integ == "BackwardEuler" {
                assert!(err < last, "{integ}: the error must shrink with h ({err:.3e} after {last:.3e})");
            }
            last = err;
        }
    }
}

/// The other side of the trapezoid's stop: started at the static equilibrium (no settling in
/// motion), the onset of sliding friction rings the stiff block, the trapezoid keeps (and the
/// stiff penalty layer pumps) that ringing, and the block never stops: still above 2ε at 16.5 s,
/// where it has gone past the exact stop by more than 10 % (0.884 m, measured).
#[test]
fn the_trapezoid_started_at_rest_equilibrium_does_not_stop() {
    let (_, de) = exact_threshold_stop();
    let ov = ["pipeline.integrator=Trapezoid", "settle_in_motion=false", "settle=0"].map(String::from);
    let mut s = sim("ramp10_stop.ron", &ov);
    let th = 10f64.to_radians();
    let down = nalgebra::Vector3::new(-th.cos(), 0.0, -th.sin());
    let (x0, _) = s.state.centroid(&s.model, &s.model.solids[0]);
    let mut slowest = f64::INFINITY;
    for _ in 0..1650 {
        s.step().expect("finite");
        slowest = slowest.min(s.state.centroid(&s.model, &s.model.solids[0]).1.dot(&down));
    }
    let d = (s.state.centroid(&s.model, &s.model.solids[0]).0 - x0).dot(&down);
    assert!(slowest >= 2.0 * EPS, "the ringing block must not stop: {slowest} m/s");
    println!(
        "trapezoid from the static equilibrium: {d:.4} m at 16.5 s (exact stop {de:.4} m), slowest {slowest:.2e} m/s"
    );
    assert!(d > 1.1 * de, "{d} m");
}

/// 001 Fig. 4 on this scene: every integrator and friction treatment at the paper's four steps.
/// Recorded, not asserted (see the README's table); run with
/// `cargo test --release --test penalty_integrators block_slide_study -- --ignored --nocapture`.
#[test]
#[ignore]
fn block_slide_study() {
    let (te, de) = exact_threshold_stop();
    println!("exact: stop (speed 2 eps) at t = {te:.3} s, d = {de:.5} m");
    let variants: [(&str, &[&str]); 11] = [
        ("BE implicit", &["pipeline.integrator=BackwardEuler"]),
        ("BE lagged", &["pipeline.integrator=BackwardEuler", "pipeline.friction=Lagged"]),
        (
            "BE lagged 1 it.",
            &["pipeline.integrator=BackwardEuler", "pipeline.friction=Lagged", "pipeline.lagged_iterations=1"],
        ),
        (
            "BE lagged 5 it.",
            &["pipeline.integrator=BackwardEuler", "pipeline.friction=Lagged", "pipeline.lagged_iterations=5"],
        ),
        ("TR implicit", &["pipeline.integrator=Trapezoid"]),
        ("TR lagged", &["pipeline.integrator=Trapezoid", "pipeline.friction=Lagged"]),
        (
            "TR lagged 1 it.",
            &["pipeline.integrator=Trapezoid", "pipeline.friction=Lagged", "pipeline.lagged_iterations=1"],
        ),
        (
            "TR lagged 5 it.",
            &["pipeline.integrator=Trapezoid", "pipeline.friction=Lagged", "pipeline.lagged_iterations=5"],
        ),
        ("TR decoupled (IPC)", &["pipeline.integrator=TrapezoidDecoupled", "pipeline.friction=Lagged"]),
        ("BDF2 implicit", &["pipeline.integrator=Bdf2"]),
        ("SDIRK2 implicit", &["pipeline.integrator=Sdirk2"]),
    ];
    for (label, ov) in variants {
        for h in [0.1, 0.05, 0.01, 0.005] {
            let clock = std::time::Instant::now();
            let r = block_slide(ov, h);
            let wall = clock.elapsed().as_secs_f64();
            match r {
                Ok(Some((t, d))) => {
                    println!("| {label} | {h} | {t:.3} | {d:.5} | {:+.2e} | {wall:.1} |", (d - de) / de)
                }
                Ok(None) => println!("| {label} | {h} | no stop by 16.5 s | | | {wall:.1} |"),
                Err(e) => println!("| {label} | {h} | {e} | | | {wall:.1} |"),
            }
        }
    }
}

/// Total energy of the bounce scene: kinetic, gravity (floor at z = 0), elastic and the penalty's
/// `b(z)` at every node (the plane's gap is the height).
fn bounce_energy(s: &Simulation, elastic: f64) -> f64 {
    let (m, st) = (&s.model, &s.state);
    let pen = fricsim::contact::penalty::Penalty { delta: 1e-2, kappa: st.kappa };
    let (mut grav, mut contact) = (0.0, 0.0);
    for i in 0..m.node_count() {
        let z = st.q[3 * i + 2];
        grav += m.node_mass[i] * 9.81 * z;
        contact += pen.energy(z);
    }
    st.kinetic_energy(m) + grav + elastic + contact
}

/// Energy band `(min, max, final)` of the bounce relative to the initial energy, and the failed
/// steps, with `integrator` at step `h` over 2 s (about 4 bounces).
fn bounce_band(integrator: &str, h: f64) -> (f64, f64, f64, usize) {
    let ov = [format!("pipeline.integrator={integrator}"), format!("dt={h}"), format!("frame_rate={}", 1.0 / h)];
    let mut s = sim("bounce.ron", &ov);
    let e0 = bounce_energy(&s, 0.0);
    let (mut lo, mut hi, mut last, mut failed) = (e0, e0, e0, 0);
    for _ in 0..(2.0 / h).round() as usize {
        let st = s.step().expect("finite");
        failed += (!st.converged) as usize;
        last = bounce_energy(&s, st.elastic_energy);
        (lo, hi) = (lo.min(last), hi.max(last));
    }
    (lo / e0, hi / e0, last / e0, failed)
}

/// Validation case 14 (frictionless bounce, no damping). The penalty layer (delta 1 cm, kappa
/// 100 N/m) makes the contact an oscillator of about 390 rad/s while it lasts, so omega h is 0.39,
/// 3.9 and 39 at h = 1e-3, 1e-2, 1e-1; the cube itself is stiff (E = 1e8) so that its own modes
/// take almost no energy. Asserted: the trapezoid keeps the energy within 2 % where the contact
/// is resolved (h = 1e-3; measured 0.981–1.000); SDIRK2, L-stable, never gains more than half the
/// initial energy and ends below it at every h (measured max 1.34 at h = 0.1, from the explicit
/// stage force of the unresolved impact). The trapezoid at h = 1e-2 and 1e-1 gains energy
/// (measured up to 3.9e4 and 24 E0): recorded in the README, not asserted.
#[test]
fn frictionless_bounce_energy_band() {
    let (lo, hi, _, failed) = bounce_band("Trapezoid", 1e-3);
    println!("Trapezoid h=1e-3: band [{lo:.4}, {hi:.4}], failed {failed}");
    assert!(lo > 0.98 && hi < 1.02 && failed == 0);
    for h in [0.1, 0.01, 0.001] {
        let (lo, hi, last, failed) = bounce_band("Sdirk2", h);
        println!("Sdirk2 h={h}: band [{lo:.4}, {hi:.4}], final {last:.4}, failed {failed}");
        assert!(hi < 1.5 && last < 1.0 && lo > 0.0, "Sdirk2 h={h}: [{lo}, {hi}], final {last}");
    }
}

/// The whole case-14 table, TR at the coarse steps included:
/// `cargo test --release --test penalty_integrators bounce_study -- --ignored --nocapture`.
#[test]
#[ignore]
fn bounce_study() {
    for integ in ["Trapezoid", "Sdirk2", "Bdf2", "BackwardEuler"] {
        for h in [0.1, 0.01, 0.001] {
            let (lo, hi, last, failed) = bounce_band(integ, h);
            println!("| {integ} | {h} | {lo:.4} | {hi:.4} | {last:.4} | {failed} |");
        }
    }
}
