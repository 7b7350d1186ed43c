//! 003 #15: the contact solver's own statistics per step in `stats.csv`. PROX (003 Algorithm
//! 2) counts its Gauss–Seidel sweeps and the sweeps it rejected because the error grew (each a
//! divergence, answered by multiplying every r-factor by ν = 0.9).

#[path = "support/cli_stats.rs"]
mod cli_stats;

/// The 9-voussoir arch of `scenes/arch.ron` under PROX for 100 steps: every iteration is one
/// sweep, so `prox_sweeps` equals `solver_iterations` on every step (0 where the warm start
/// meets the tolerance); some steps diverge and back off (14 rejections in 1244 sweeps
/// measured). Under another solver both columns are 0.
#[test]
fn prox_sweeps_and_rejections_are_in_stats_csv() {
    let scene = concat!(env!("CARGO_MANIFEST_DIR"), "/scenes/arch.ron");
    let (_dir, stats) = cli_stats::run(scene, &["--frames", "5", "--set", "pipeline.solver=Prox"]);
    let (sweeps, rejected) = (stats.column("prox_sweeps"), stats.column("prox_rejections"));
    assert_eq!(sweeps, stats.column("solver_iterations"));
    assert!(sweeps.iter().sum::<f64>() > 0.0);
    let total: f64 = rejected.iter().sum();
    println!("{} steps: {} sweeps, {total} rejected", sweeps.len(), sweeps.iter().sum::<f64>());
    assert!(total > 0.0, "some steps back off");
    let (_dir, gs) = cli_stats::run(scene, &["--frames", "1", "--set", "pipeline.solver=GaussSeidel"]);
    assert!(gs.column("prox_sweeps").iter().chain(&gs.column("prox_rejections")).all(|x| *x == 0.0));
}
