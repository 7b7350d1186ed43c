//! 000 Fig. 14, the thumb (`scenes/thumb_drag.ron`, `Smooth`): an animated thumb, a glTF skinned
//! clip, presses 3 mm into a soft block (its bottom held still) and drags 2 cm across it. 000 shows
//! surface artifacts on the pressed surface without friction forwarding, although friction is
//! converged in both runs. The artifacts are measured here as the roughness of the block's top
//! surface: at each top node away from the border, the tangential displacement minus the mean of
//! its four grid neighbours' (a discrete Laplacian; a smooth shear field has a small one, a few
//! contact vertices dragged alone stand out).
//!
//! The default test checks the contact law on the moving, skinned thumb: per contact vertex the
//! friction force never exceeds μ times the normal force, and while the pad slides over the gel
//! their sums reach μ; with friction the surface is dragged along, without it not.
//! A second one checks 000's claim for forwarding where its lumped-mass operator applies (a soft,
//! coarse gel at h = 1e-3): with forwarding that operator gives the full one's surface, without
//! it not.

use fricsim::simulation::Simulation;
use std::path::Path;

fn sim(overrides: &[String]) -> Simulation {
    let p = Path::new(env!("CARGO_MANIFEST_DIR")).join("scenes/thumb_drag.ron");
    Simulation::from_file(&p, overrides).unwrap_or_else(|e| panic!("thumb_drag.ron: {e}"))
}

/// The top surface's interior nodes and their four grid neighbours, from the rest positions.
fn top_grid(q0: &[f64]) -> Vec<(usize, [usize; 4])> {
    let n = q0.len() / 3;
    let at = |i: usize| [q0[3 * i], q0[3 * i + 1], q0[3 * i + 2]];
    let top: Vec<usize> = (0..n).filter(|&i| at(i)[2].abs() < 1e-9).collect();
    let find =
        |x: f64, y: f64| top.iter().copied().find(|&j| (at(j)[0] - x).abs() < 1e-9 && (at(j)[1] - y).abs() < 1e-9);
    let h = 0.0025;
    top.iter()
        .filter_map(|&i| {
            let [x, y, _] = at(i);
            let nb = [find(x - h, y)?, find(x + h, y)?, find(x, y - h)?, find(x, y + h)?];
            Some((i, nb))
        })
        .collect()
}

/// The largest tangential Laplacian of the displacement over the top surface (m).
fn roughness(grid: &[(usize, [usize; 4])], q0: &[f64], q: &[f64]) -> f64 {
    let u = |i: usize, c: usize| q[3 * i + c] - q0[3 * i + c];
    grid.iter()
        .map(|(i, nb)| {
            let d = |c: usize| u(*i, c) - nb.iter().map(|&j| u(j, c)).sum::<f64>() / 4.0;
            d(0).hypot(d(1))
        })
        .fold(0.0, f64::max)
}

/// The mean x displacement of `nodes` from `q0` to `q` (m).
fn mean_drag(nodes: impl ExactSizeIterator<Item = usize>, q0: &[f64], q: &[f64]) -> f64 {
    let n = nodes.len() as f64;
    nodes.map(|i| q[3 * i] - q0[3 * i]).sum::<f64>() / n
}

/// A 3-vector's length.
fn norm(c: &[f64]) -> f64 {
    (c[0] * c[0] + c[1] * c[1] + c[2] * c[2]).sqrt()
}

/// `Σ_i |f_i|` over per-node forces.
fn total(f: &[f64]) -> f64 {
    f.chunks(3).map(norm).sum()
}

/// One run: the largest roughness over the drag, the roughness at its end, failed steps and
/// the mean wall time per step.
fn run(overrides: &[&str]) -> (f64, f64, usize, f64) {
    let mut s = sim(&overrides.iter().map(|o| o.to_string()).collect::<Vec<_>>());
    let q0 = s.state.q.clone();
    let grid = top_grid(&q0);
    assert!(grid.len() > 100, "only {} interior top nodes found", grid.len());
    let (mut worst, mut failed) = (0.0f64, 0usize);
    let steps = s.model.step_count();
    let clock = std::time::Instant::now();
    for _ in 0..steps {
        let st = s.step().expect("finite state");
        failed += (!st.converged) as usize;
        let r = roughness(&grid, &q0, &s.state.q);
        if std::env::var("THUMB_TRACE").is_ok() && s.state.step.is_multiple_of(5) {
            let (normal, friction) = s.pipeline.contact_forces(&s.model, &s.state);
            let fx: f64 = friction.chunks(3).map(|c| c[0]).sum();
            let ux = mean_drag(grid.iter().map(|g| g.0), &q0, &s.state.q);
            println!(
                "  step {} t {:.2} roughness {:.4} mm converged {} N {:.4} F {:.4} F/N {:.4} Fx {:.4} mean ux {:.4} mm",
                s.state.step,
                s.state.time,
                r * 1e3,
                st.converged,
                total(&normal),
                total(&friction),
                total(&friction) / total(&normal),
                fx,
                ux * 1e3
            );
        }
        worst = worst.max(r);
    }
    let wall = clock.elapsed().as_secs_f64() / steps as f64;
    (worst, roughness(&grid, &q0, &s.state.q), failed, wall)
}

/// Over the press and 0.4 s of the drag (70 steps) at friction `mu`: the largest cone excess
/// `|f_i| − μ |n_i|` of a contact vertex relative to the step's total normal force `Σ|n_i|`
/// (the friction solve's tolerance is a relative natural-map error over the whole problem, so
/// a vertex with a tiny normal force may leave its own cone by a tiny absolute amount), the
/// largest `Σ|f_i| / Σ|n_i|` after 0.5 s (the drag under way), and the mean x displacement of
/// the top surface at the end.
fn drag(mu: f64) -> (f64, f64, f64) {
    let mut s = sim(&[format!("friction.default.mu={mu}"), "duration=0.7".into()]);
    let q0 = s.state.q.clone();
    let grid = top_grid(&q0);
    let (mut worst, mut ratio) = (0.0f64, 0.0f64);
    for _ in 0..s.model.step_count() {
        let st = s.step().expect("finite state");
        assert!(st.converged, "mu {mu}: step {} failed: {:?}", s.state.step, st.failure);
        let (normal, friction) = s.pipeline.contact_forces(&s.model, &s.state);
        let (n_sum, f_sum) = (total(&normal), total(&friction));
        if n_sum > 0.0 {
            let excess =
                normal.chunks(3).zip(friction.chunks(3)).map(|(n, f)| norm(f) - mu * norm(n)).fold(0.0, f64::max);
            worst = worst.max(excess / n_sum);
        }
        if s.state.time > 0.5 {
            ratio = ratio.max(f_sum / n_sum);
        }
    }
    (worst, ratio, mean_drag(grid.iter().map(|g| g.0), &q0, &s.state.q))
}

/// The thumb presses (3 mm, by 0.3 s) and drags (2.9 cm/s from 0.3 s). With μ = 0.8:
/// - no contact vertex's friction leaves its cone by more than 1e-5 of the total normal force
///   (the friction solve stops at a relative natural-map error of 1e-6; a tenfold margin for
///   the velocity scaling it solves in);
/// - after 0.5 s the pad slides: Σ|f| / Σ|n| reaches μ within 0.5 % (measured 0.80000 at
///   0.70 s, where every contact vertex slides; in between some stick, and it dips to 0.75);
/// - the gel's top surface is dragged along by a mean 1.7 mm (asserted > 1 mm).
///
/// Frictionless (μ = 0) there is no friction force (the same excess bound holds with μ = 0) and
/// the mean drag is 0.045 mm, the asymmetry of an indentation moving with the thumb (asserted
/// under 0.1 mm, a twentieth of the frictional drag's). The two runs go in parallel.
#[test]
fn the_thumb_drags_the_gel_by_friction_within_the_cone() {
    let (with, without) = std::thread::scope(|scope| {
        let with = scope.spawn(|| drag(0.8));
        let without = scope.spawn(|| drag(0.0));
        (with.join().unwrap(), without.join().unwrap())
    });
    println!("mu 0.8: cone excess {:.3e}, sliding sum ratio {:.5}, mean drag {:.4} mm", with.0, with.1, with.2 * 1e3);
    println!("mu 0: friction {:.3e}, mean drag {:.4} mm", without.0, without.2 * 1e3);
    for (mu, excess) in [(0.8, with.0), (0.0, without.0)] {
        assert!(
            excess <= 1e-5,
            "mu {mu}: a contact vertex's friction leaves the cone by {excess:e} of the normal force"
        );
    }
    assert!((with.1 / 0.8 - 1.0).abs() < 5e-3, "while sliding, sum|f| / sum|n| reached only {}", with.1);
    assert!(with.2 > 1e-3, "the surface was dragged by only {} m", with.2);
    assert!(without.2.abs() < 1e-4, "frictionless, the surface was dragged by {} m", without.2);
}

/// The mean x displacement of the top surface at 0.8 s (mid-drag) and at the end, for a soft,
/// coarse gel (E = 5 kPa, 10 × 6 × 3 cells) at h = 1e-3, where a surface vertex's period
/// √(m/k) (about 2 ms) exceeds the step, so that 000's lumped-mass operator is sound.
fn soft_drag(delassus: &str, forwarding: bool) -> (f64, f64) {
    let mut s = sim(&[
        "materials.\"gel\".youngs_modulus=5e3".into(),
        "bodies[0].mesh.cells=(10,6,3)".into(),
        "dt=0.001".into(),
        format!("pipeline.delassus={delassus}"),
        format!("pipeline.forwarding={forwarding}"),
    ]);
    let q0 = s.state.q.clone();
    let top: Vec<usize> = (0..q0.len() / 3).filter(|&i| q0[3 * i + 2].abs() < 1e-9).collect();
    let drag = |q: &[f64]| mean_drag(top.iter().copied(), &q0, q);
    let mut mid = f64::NAN;
    for _ in 0..s.model.step_count() {
        let st = s.step().expect("finite state");
        assert!(st.converged, "{delassus}/{forwarding}: step {} failed: {:?}", s.state.step, st.failure);
        if s.state.step == 800 {
            mid = drag(&s.state.q);
        }
    }
    (mid, drag(&s.state.q))
}

/// 000 §5.4's argument for forwarding, where its operator applies (h below the surface vertices'
/// period): with `delassus: Mass` friction moves only the contact vertices in the step it is
/// found, and forwarding carries it into the next elastic solve. With forwarding, Mass gives the
/// full operator's surface (mean drag 2.637 against 2.643 mm mid-drag, 2.960 against 2.959 at
/// rest: asserted within 1 %); without it the top overshoots mid-drag (3.197 mm, +21 %) and comes
/// to rest short (2.542 mm, −14 %): asserted off by more than 5 % at both times. Every step
/// converges. About 15 s per run; the three go in parallel.
#[test]
fn forwarding_makes_the_lumped_mass_operator_match_the_full_one() {
    let (full, mass_on, mass_off) = std::thread::scope(|scope| {
        let full = scope.spawn(|| soft_drag("Stiffness", true));
        let on = scope.spawn(|| soft_drag("Mass", true));
        let off = scope.spawn(|| soft_drag("Mass", false));
        (full.join().unwrap(), on.join().unwrap(), off.join().unwrap())
    });
    println!(
        "mean drag (mid, rest) in mm: Stiffness {:.3?}, Mass+forwarding {:.3?}, Mass alone {:.3?}",
        (full.0 * 1e3, full.1 * 1e3),
        (mass_on.0 * 1e3, mass_on.1 * 1e3),
        (mass_off.0 * 1e3, mass_off.1 * 1e3)
    );
    let rel = |a: f64, b: f64| (a / b - 1.0).abs();
    assert!(
        rel(mass_on.0, full.0) < 0.01 && rel(mass_on.1, full.1) < 0.01,
        "Mass with forwarding: {mass_on:?} against {full:?}"
    );
    assert!(
        rel(mass_off.0, full.0) > 0.05 && rel(mass_off.1, full.1) > 0.05,
        "Mass without forwarding: {mass_off:?} against {full:?}"
    );
}

/// The forwarding ablation: the roughness with forwarding on and off under both Delassus
/// operators (README, "The thumb"). `THUMB_ONLY=Mass-false` (operator-forwarding) runs one
/// variant; `THUMB_DT=1e-4` sets the step (default the scene's 0.01 s); `THUMB_TRACE=1` prints
/// the roughness, the contact forces and the mean drag every 5 steps. With `Mass` at 0.01 s the
/// predictor fails from about 0.46 s on (README); those steps are counted.
#[test]
#[ignore = "the four variants, 4 min with Stiffness and much longer with Mass: cargo test --release --test thumb_drag -- --ignored --nocapture"]
fn thumb_forwarding_study() {
    let only = std::env::var("THUMB_ONLY").unwrap_or_default();
    for delassus in ["Stiffness", "Mass"] {
        for fwd in ["true", "false"] {
            if !only.is_empty() && only != format!("{delassus}-{fwd}") {
                continue;
            }
            let d = format!("pipeline.delassus={delassus}");
            let f = format!("pipeline.forwarding={fwd}");
            let dt = std::env::var("THUMB_DT").map_or("dt=0.01".to_string(), |h| format!("dt={h}"));
            let (worst, end, failed, wall) = run(&[&d, &f, &dt, "pipeline.on_failure=Continue"]);
            println!(
                "{delassus:9} forwarding {fwd:5} {dt}: roughness max {:.4} mm, at the end {:.4} mm, {failed} failed steps, {wall:.3} s/step",
                worst * 1e3,
                end * 1e3
            );
        }
    }
}
