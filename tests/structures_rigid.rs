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

/// 002's experiment 6 (Figs. 5.6, 7.6): three 2 cm wooden cubes (4.8 g; a card is 6 g) dropped
/// from 0.68–1.1 m onto the 4-level card house, μ = 0.8, restitution 0.1, 3 s. 002 reports that
/// sections fall and the house regains equilibrium. Measured at 931862e (20 min on 2 cores):
/// 19 of 29 bodies moved more than 1 cm (the upper three levels and a flat card of the first),
/// the first level's six standing tent cards within 1 mm, everything at rest by the end (largest
/// mean speed over the last 0.1 s 6.5e-4 m/s), deepest penetration 0.81 mm (a cube's impact at
/// about 3 m/s), 140 of 3000 contact solves above the 1e-6 tolerance (impact steps stall just
/// above it, then Continue), none after 1.5 s. Asserted: sections fall (at least 10 bodies by
/// 1 cm), the first level's tents stand (5 mm), rest at the end (1 cm/s over 0.1 s),
/// penetration below 1.5 mm, at most 5 % failed solves, none in the last second.
/// `cargo test --release --test structures_rigid -- --ignored card_house_takes`
#[test]
#[ignore = "20 minutes: the collapse's steps take up to a second each"]
fn card_house_takes_dropped_blocks_and_comes_back_to_rest() {
    let mut sim = load("card_house_blocks.ron", &[]);
    let x0: Vec<_> = sim.state.rigid.iter().map(|b| b.position).collect();
    let (mut deepest, mut failed, mut late_failed) = (0.0f64, 0, 0);
    let mut before_end = Vec::new();
    for step in 0..3000 {
        let st = sim.step().expect("finite");
        failed += usize::from(!st.converged);
        late_failed += usize::from(!st.converged && step >= 2000);
        deepest = deepest.max(-st.min_gap);
        if step == 2899 {
            before_end = sim.state.rigid.iter().map(|b| b.position).collect();
        }
    }
    let names: Vec<String> = sim.model.rigids.iter().map(|b| b.name.clone()).collect();
    let fell = (0..x0.len()).filter(|&i| (sim.state.rigid[i].position - x0[i]).norm() > 0.01).count();
    let tents = (0..x0.len())
        .filter(|&i| names[i].starts_with("L0_") && !names[i].ends_with('f'))
        .map(|i| (sim.state.rigid[i].position - x0[i]).norm())
        .fold(0.0, f64::max);
    let speed = (0..x0.len()).map(|i| (sim.state.rigid[i].position - before_end[i]).norm() / 0.1).fold(0.0, f64::max);
    println!(
        "{fell} bodies fell, first-level tents moved {tents:e} m, end speed {speed:e} m/s, penetration {deepest:e} m, {failed} failed ({late_failed} in the last second)"
    );
    assert!(fell >= 10, "only {fell} bodies moved by 1 cm");
    assert!(tents < 5e-3, "the first level's tents moved {tents} m");
    assert!(speed < 1e-2, "still moving at {speed} m/s");
    assert!(deepest < 1.5e-3, "penetration {deepest} m");
    assert!(failed <= 150 && late_failed == 0, "{failed} failed solves, {late_failed} in the last second");
}

/// 002 §5.3.6 in a scene: the card house's 26 cards (156 velocities) touch at about 228 points,
/// so SP as printed (no proximal term) with `contact_qp: Auto` poses its contact QP in the
/// cards' velocities (eq. 5.11), through the factor the pipeline builds (`W = G Gᵀ`); `Dual`
/// keeps the impulses. Either way the house stands over 50 steps (1e-5 m asserted; measured
/// 1.7e-6 m primal, 4.3e-6 m dual over 100 steps, where 002's eq. 5.21 stops each step at about
/// 1e-4 natural-map error: the README's card-house table). The reports name the form.
#[test]
fn card_house_stands_with_the_primal_contact_qp() {
    for (form, named) in [("Auto", "contact QP primal"), ("Dual", "contact QP dual")] {
        let solver = format!(
            "pipeline.solver=StaggeredProjections(samples: Some(8), acceleration: Off, proximal: 0.0, stop: RelativeChange(1e-4), contact_qp: {form})"
        );
        let mut sim = load("card_house.ron", &[&solver, "pipeline.on_failure=Continue"]);
        let x0: Vec<_> = sim.state.rigid.iter().map(|b| b.position).collect();
        let mut messages = 0;
        for _ in 0..50 {
            let st = sim.step().expect("finite");
            messages += usize::from(st.failure.as_deref().is_some_and(|m| m.contains(named)));
        }
        let d = (0..x0.len()).map(|i| (sim.state.rigid[i].position - x0[i]).norm()).fold(0.0, f64::max);
        println!("{form}: drift {d:e} m, {messages} reports naming '{named}'");
        assert!(d < 1e-5, "{form}: the house moved {d} m");
        assert!(messages > 0, "{form}: no step report names '{named}'");
    }
}
