//! 000 E10, the tank-top fit (Fig. 12; `scenes/tank_top.ron`, `Smooth`): a cotton tank top hangs
//! by two straps on the shoulders of a skinned glTF torso. 000: "friction keeps the straps on the
//! shoulders". The straps cross the shoulders where the skin falls outward at about 20° (the
//! torso's profile at the straps' middle, x = 9.5 cm: slope 0.37), so a strap sliding outward
//! lowers the garment; without enough friction it slides off. Measured on the strap's highest
//! point (the garment's highest vertex: 0.4775 m once settled; the shoulders' edge is at 0.38 m)
//! and the garment's centroid.

use fricsim::simulation::Simulation;
use std::path::Path;

/// The garment's highest vertex and its centroid height (all nodes weigh the same here up to
/// the mesh's areas; the plain mean is enough to see it fall).
fn heights(s: &Simulation) -> (f64, f64) {
    let z: Vec<f64> = s.state.q.chunks(3).map(|p| p[2]).collect();
    (z.iter().copied().fold(f64::NEG_INFINITY, f64::max), z.iter().sum::<f64>() / z.len() as f64)
}

/// A run at friction `mu` for `seconds`: the lowest the straps' top got after the first 0.1 s
/// (the garment settles onto the skin from 4 mm off in that time), the centroid's height at
/// 0.1 s and at the end, and the steps that did not converge.
fn hang(mu: f64, seconds: f64) -> (f64, f64, f64, Vec<u64>) {
    let p = Path::new(env!("CARGO_MANIFEST_DIR")).join("scenes/tank_top.ron");
    let mut s = Simulation::from_file(&p, &[format!("friction.default.mu={mu}"), format!("duration={seconds}")])
        .unwrap_or_else(|e| panic!("tank_top.ron: {e}"));
    let (mut lowest_top, mut settled, mut failed) = (f64::INFINITY, f64::NAN, Vec::new());
    for _ in 0..s.model.step_count() {
        let st = s.step().expect("finite state");
        if !st.converged {
            println!("mu {mu}: step {} at {:.3} s failed: {:?}", s.state.step, s.state.time, st.failure);
            failed.push(s.state.step);
        }
        let (top, centroid) = heights(&s);
        if s.state.time >= 0.1 - 1e-9 {
            if settled.is_nan() {
                settled = centroid;
            }
            lowest_top = lowest_top.min(top);
        }
    }
    (lowest_top, settled, heights(&s).1, failed)
}

/// Before the sway: at μ = 0.8 the straps stay where they settled for 0.4 s (their top within
/// 2 mm of 0.4775 m, measured 0.4775, and the centroid within 1 mm of where it settled); at
/// μ = 0.3, below the slope's 0.37, they slide outward down the shoulders: within 0.16 s their
/// top is more than 5 cm lower (measured 0.3776 m, 10 cm lower), past the shoulders' edge at 0.38 m. The
/// sliding run stops at 0.16 s (whole frames of 0.04 s): later, as the garment slides over the shoulders' edge, the
/// predictor fails on some steps (README, "The tank top"). The two runs go in parallel.
#[test]
fn friction_keeps_the_straps_on_the_shoulders() {
    let (held, slid) = std::thread::scope(|scope| {
        let held = scope.spawn(|| hang(0.8, 0.4));
        let slid = scope.spawn(|| hang(0.3, 0.16));
        (held.join().unwrap(), slid.join().unwrap())
    });
    println!("mu 0.8: straps' top >= {:.4} m, centroid {:.4} -> {:.4} m", held.0, held.1, held.2);
    println!("mu 0.3: straps' top down to {:.4} m, centroid {:.4} -> {:.4} m", slid.0, slid.1, slid.2);
    assert!(held.3.is_empty() && slid.3.is_empty(), "failed steps: {:?} and {:?}", held.3, slid.3);
    assert!(held.0 > 0.4755, "at mu 0.8 the straps slid down to {} m", held.0);
    assert!((held.2 - held.1).abs() < 1e-3, "at mu 0.8 the garment moved {} m", held.2 - held.1);
    assert!(slid.0 < 0.4275, "at mu 0.3 the straps' top stayed at {} m", slid.0);
}

/// Through the sway (2.5 s, the chest rolling ±10° from 0.5 s on): the straps ride the shoulders
/// up and down and stay on (their top above 0.44 m throughout; measured 0.459). Not every step
/// converges: where the chest rolls, 280–360 contacts at once, the predictor or the friction
/// solve fails on a few steps (8 of 625 when measured, README "The tank top"); they are printed
/// and counted, not hidden. Run with `cargo test --release --test tank_top -- --ignored
/// --nocapture` (about 6 min).
#[test]
#[ignore = "2.5 s of sway, about 6 min"]
fn the_straps_ride_the_sway() {
    let (top, settled, end, failed) = hang(0.8, 2.5);
    println!(
        "mu 0.8 through the sway: straps' top >= {top:.4} m, centroid {settled:.4} -> {end:.4} m, {} failed steps",
        failed.len()
    );
    assert!(top > 0.44, "the straps slid down to {top} m during the sway");
}
