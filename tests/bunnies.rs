//! 004 §8.4's bunnies (`scenes/bunnies.ron`, made by `scripts/bunnies.py`) at a size the default
//! suite runs: four 2520-triangle critter surfaces embedded in voxel cages of fixed co-rotated
//! tets, dropped into the bin with 004's solver settings (one projected Newton iteration per
//! step, ADMM to δ∞ = 0.01 mm within 250 iterations, 10 Gauss–Seidel sweeps).

#[path = "support/scene_run.rs"]
mod scene_run;

use fricsim::model::node;
use fricsim::simulation::Simulation;

/// The first `count` critters of `scenes/bunnies.ron`, in its bin, with its settings.
fn bunnies(count: usize) -> Simulation {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("scenes/bunnies.ron");
    let text = std::fs::read_to_string(&path).unwrap();
    // Keep the first `count` bodies: each is two lines starting `Solid(name: "bK"`.
    let kept: Vec<&str> = text
        .lines()
        .scan(true, |keep, line| {
            if let Some(k) = line.trim_start().strip_prefix("Solid(name: \"b") {
                let k: usize = k.split('"').next().unwrap().parse().unwrap();
                *keep = k < count;
            } else if !line.starts_with("              ") {
                *keep = true;
            }
            Some((*keep).then_some(line))
        })
        .flatten()
        .collect();
    scene_run::simulation_in(&kept.join("\n"), path.parent().unwrap())
}

/// Four critters land on the floor and on each other. Every step meets 004's δ∞ = 0.01 mm
/// within its 250 ADMM iterations (004: "always reached"), no surface vertex gets below the
/// floor or through a wall by more than that rule lets a step move (δ∞ bounds a step's
/// position error: 1e-5 m), and every embedded vertex stays on its cage.
#[test]
fn four_bunnies_land_in_the_bin_without_tunnelling() {
    let mut s = bunnies(4);
    assert_eq!(s.model.solids.len(), 4);
    let (mut worst_gap, mut iterations, mut residuals) = (f64::INFINITY, Vec::new(), Vec::new());
    let (half_x, half_y) = (0.3, 0.25);
    for _ in 0..300 {
        let st = s.step().expect("finite state");
        assert!(st.converged, "step {} did not meet δ∞ in 250 iterations: {:?}", s.state.step, st.failure);
        if st.active_contacts > 0 {
            iterations.push(st.solver_iterations as f64);
            residuals.push(st.final_residual);
        }
        for solid in &s.model.solids {
            let e = solid.embedding.as_ref().unwrap();
            for i in e.nodes.clone() {
                let x = node(&s.state.q, i);
                worst_gap = worst_gap.min(x.z).min(half_x - x.x.abs()).min(half_y - x.y.abs());
            }
            let off = e
                .nodes
                .clone()
                .enumerate()
                .map(|(k, i)| (node(&s.state.q, i) - e.on_cage(&s.state.q, k)).norm())
                .fold(0.0, f64::max);
            // A linear map moved by h v each step: round-off of coordinates ~0.3 m.
            assert!(off < 1e-14, "{}: surface off its cage by {off:e}", solid.name);
        }
    }
    assert!(worst_gap > -1e-5, "a surface vertex got {worst_gap:e} m past the floor or a wall");
    assert!(!iterations.is_empty(), "the critters never touched anything");
    residuals.sort_by(f64::total_cmp);
    eprintln!(
        "{} contact steps: mean {:.1} ADMM iterations; natural-map error at the δ∞ stop: median {:.2e}, worst {:.2e}; deepest {:.2e} m",
        iterations.len(),
        iterations.iter().sum::<f64>() / iterations.len() as f64,
        residuals[residuals.len() / 2],
        residuals[residuals.len() - 1],
        worst_gap
    );
}
