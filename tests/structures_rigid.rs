//! Rigid structures that must stand (002 §7) and the card tent (validation case 10), with the
//! nonsmooth pipeline and exact Coulomb friction.
//!
//! Drift bounds: the bodies start touching with zero gaps and zero velocity; an exact solution
//! keeps them there. What moves them is the solver's residual (relative natural-map error 1e-6:
//! contact velocities off by ~1e-6 of the step's velocity scale g h = 1e-2 m/s, i.e. ~1e-8 m/s,
//! 1e-11 m per step) and the linearization of the contacts at the start of each step. Over 1000
//! steps that bounds the drift by ~1e-8 m; 1e-6 m is asserted (measured: below 1e-7 m), which
//! is 1e-5 of the blocks' size and still catches any sliding, sinking or toppling.

use fricsim::simulation::Simulation;
use std::path::Path;

fn load(scene: &str, overrides: &[&str]) -> Simulation {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("scenes").join(scene);
    let ov: Vec<String> = overrides.iter().map(|s| s.to_string()).collect();
    Simulation::from_file(&path, &ov).unwrap_or_else(|e| panic!("{e}"))
}

/// Largest displacement of any body's center of mass after `steps` steps, and the number of
/// steps whose contact solve failed its tolerance.
fn drift(sim: &mut Simulation, steps: usize) -> (f64, usize) {
    let x0: Vec<_> = sim.state.rigid.iter().map(|b| b.position).collect();
    let mut failed = 0;
    for _ in 0..steps {
        failed += usize::from(!sim.step().expect("finite").converged);
    }
    let d = sim.state.rigid.iter().zip(&x0).map(|(b, x)| (b.position - x).norm()).fold(0.0, f64::max);
    (d, failed)
}

#[test]
fn two_block_stack_stands_still() {
    let mut sim = load(
        "box_stack.ron",
        &[
            "bodies=[Rigid(name: \"a\", material: \"wood\", shape: Box(size: (0.1, 0.1, 0.1)), position: (0.0, 0.0, 0.05)), Rigid(name: \"b\", material: \"wood\", shape: Box(size: (0.1, 0.1, 0.1)), position: (0.02, 0.0, 0.15))]",
            "pipeline.solver=StaggeredProjections(samples: None)",
        ],
    );
    let (d, failed) = drift(&mut sim, 1000);
    assert_eq!(failed, 0, "every contact solve converges");
    assert!(d < 1e-6, "the stack drifted {d:e} m in 1000 steps");
}

/// The shipped five-box stack with its default solver (`Auto`): every contact solve converges
/// and nothing moves by a micrometre in a second (measured: 5e-9 m in 2 s).
#[test]
fn five_box_stack_stands_still_with_auto() {
    let mut sim = load("box_stack.ron", &[]);
    let (d, failed) = drift(&mut sim, 1000);
    assert_eq!(failed, 0, "every contact solve converges");
    assert!(d < 1e-6, "the stack drifted {d:e} m in 1000 steps");
}

#[test]
fn arch_stands_still() {
    let mut sim = load("arch.ron", &["pipeline.solver=GaussSeidel"]);
    let (d, failed) = drift(&mut sim, 1000);
    assert_eq!(failed, 0, "every contact solve converges");
    assert!(d < 1e-6, "the arch drifted {d:e} m in 1000 steps");
}

/// Card tent (case 10): two cards leaning at alpha = 20 degrees stand iff the floor's
/// coefficient reaches the threshold. For cards of thickness T the floor force may act anywhere
/// on a bottom face of half-width e = T / (2 cos alpha) and the top force anywhere on the shared
/// face; equilibrium exists iff mu >= ((L/2) sin alpha - e) / (L cos alpha) (the most favourable
/// placement), 0.1763 for L = 0.1 m, T = 1 mm, against tan(alpha)/2 = 0.1820 for ideal thin
/// cards. The test runs 5 % below the first (must slide apart) and 5 % above the second (must
/// stand); the band between is the thickness effect, ~3 %.
#[test]
fn card_tent_stands_above_the_threshold_and_slides_apart_below() {
    let alpha = 20f64.to_radians();
    let (l, t) = (0.1, 0.001);
    let e = t / (2.0 * alpha.cos());
    let thick = (0.5 * l * alpha.sin() - e) / (l * alpha.cos());
    let thin = alpha.tan() / 2.0;
    assert!(thick < thin);
    for (mu, stands) in [(0.95 * thick, false), (1.05 * thin, true)] {
        let floor = format!("friction.pairs=[(between: (\"card\", \"floor\"), mu: {mu})]");
        let mut sim = load("validation/card_tent.ron", &[&floor, "pipeline.solver=FischerBurmeister"]);
        let (d, failed) = drift(&mut sim, 300);
        assert_eq!(failed, 0, "mu {mu}: every contact solve converges");
        if stands {
            assert!(d < 1e-6, "mu {mu}: the tent must stand, but moved {d:e} m");
        } else {
            assert!(d > 1e-4, "mu {mu}: the tent must slide apart, but moved only {d:e} m");
        }
    }
}

/// Case 11: the 4-level house of 26 cards (mu = 0.8, h = 1e-3, ~220 contacts) stands for 500
/// steps. Block Gauss–Seidel with the exact local solver, warm-started, reaches 1e-5 at every
/// step (measured: 9.6 sweeps on average, 1934 at most, ~10 ms per step). Staggered Projections
/// holds it too (`card_house_staggered_projections`); the polyhedral PGS-LCP baseline fails its
/// tolerance at every step (its box cone is not the Coulomb cone).
#[test]
fn card_house_stands_for_500_steps() {
    let mut sim = load(
        "card_house.ron",
        &["pipeline.solver=GaussSeidel", "pipeline.tolerance=1e-5", "pipeline.max_iterations=5000"],
    );
    let (d, failed) = drift(&mut sim, 500);
    assert_eq!(failed, 0, "every contact solve converges");
    assert!(d < 1e-6, "the card house moved {d:e} m");
}

/// Case 11 with Staggered Projections (002's method, exact cone), as the issue states it, at
/// tolerance 1e-6: the house stands still for 500 steps. Warm-started SP with Anderson
/// acceleration takes ~2 outer iterations per step here (27 on the cold first step).
#[test]
fn card_house_staggered_projections() {
    let mut sim = load("card_house.ron", &["pipeline.solver=StaggeredProjections(samples: None)"]);
    let (d, failed) = drift(&mut sim, 500);
    assert_eq!(failed, 0, "every contact solve converges");
    assert!(d < 1e-6, "the card house moved {d:e} m");
}

/// A run of `steps` steps: the deepest penetration over it (`-min_gap`, m), the steps whose
/// contact solve failed its tolerance, and the largest speed of any body at the end (m/s).
fn impact_run(sim: &mut Simulation, steps: usize) -> (f64, usize, f64) {
    let (mut deepest, mut failed) = (0.0f64, 0);
    for _ in 0..steps {
        let st = sim.step().expect("finite");
        failed += usize::from(!st.converged);
        deepest = deepest.max(-st.min_gap);
    }
    let speed = sim.state.rigid.iter().map(|b| b.linear_velocity.norm()).fold(0.0, f64::max);
    (deepest, failed, speed)
}

fn moved(sim: &Simulation, x0: &[nalgebra::Vector3<f64>], range: std::ops::Range<usize>) -> f64 {
    range.map(|i| (sim.state.rigid[i].position - x0[i]).norm()).fold(0.0, f64::max)
}

/// 002's experiment 7, dropped blocks: two 8 cm stone cubes (12.3 kg, as much as 1.6
/// voussoirs) fall 0.2 m and 0.35 m onto the keystone with restitution 0.1. The arch must take
/// them without moving (every voussoir within 1 mm; measured below 0.5 mm), the cubes must end
/// at rest stacked on the crown (the keystone's flat top at 0.5 sin 80° = 0.4924 m: centres at
/// 0.5324 and 0.6124 m, within 2 mm), nothing may sink into another body by more than 1 mm (a
/// tenth of a voussoir's thickness; measured 1e-8 m), and the contact solves may miss the
/// tolerance only at the impacts (measured 1 step of 1500; at most 1 % asserted).
#[test]
fn arch_takes_dropped_blocks_and_settles() {
    let mut sim = load("arch_dropped.ron", &[]);
    let x0: Vec<_> = sim.state.rigid.iter().map(|b| b.position).collect();
    let (deepest, failed, speed) = impact_run(&mut sim, 1500);
    println!("deepest penetration {deepest:e} m, {failed} failed steps, final speed {speed:e} m/s");
    assert!(moved(&sim, &x0, 0..9) < 1e-3, "the arch moved {} m", moved(&sim, &x0, 0..9));
    let crown = 0.5 * 80f64.to_radians().sin();
    for (i, want) in [(9, crown + 0.04), (10, crown + 0.12)] {
        let z = sim.state.rigid[i].position.z;
        assert!((z - want).abs() < 2e-3, "block {i} at z = {z}, expected {want}");
    }
    assert!(speed < 1e-2, "still moving at {speed} m/s");
    assert!(deepest < 1e-3, "penetration {deepest} m");
    assert!(failed <= 15, "{failed} steps failed");
}

/// 002's experiment 7, thrown block, on an arch of 6 cm voussoirs (the 10 cm arch only moves by
/// 1–3 mm when hit at 8 m/s: its wedges jam under inward blows; measured): an 8 cm stone cube
/// thrown horizontally at its leg 0.1 m above the floor. At 2 m/s the arch stands (every
/// voussoir within 1 mm; measured below 0.5 mm); at 8 m/s it collapses: the keystone, 0.46 m
/// up, ends below 0.1 m (measured 0.03 m: on the floor among the others). Either way nothing
/// sinks by more than 1 mm (measured 2e-5 m in the collapse) and at most 1 % of the contact
/// solves miss the tolerance (measured 1 of 1500 each).
#[test]
fn thin_arch_stands_a_slow_throw_and_collapses_under_a_fast_one() {
    for (speed, collapses) in [(2.0, false), (8.0, true)] {
        let mut sim = load("arch_thrown.ron", &[&format!("bodies[9].velocity=(-{speed:.1}, 0.0, 0.0)")]);
        let x0: Vec<_> = sim.state.rigid.iter().map(|b| b.position).collect();
        let (deepest, failed, _) = impact_run(&mut sim, 1500);
        let (arch, key) = (moved(&sim, &x0, 0..9), sim.state.rigid[4].position.z);
        println!("{speed} m/s: arch moved {arch:e} m, keystone at {key} m, penetration {deepest:e} m, {failed} failed");
        if collapses {
            assert!(key < 0.1, "{speed} m/s: the keystone is still at {key} m");
        } else {
            assert!(arch < 1e-3, "{speed} m/s: the arch moved {arch} m");
        }
        assert!(deepest < 1e-3, "{speed} m/s: penetration {deepest} m");
        assert!(failed <= 15, "{speed} m/s: {failed} steps failed");
    }
}
