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
