//! NL-ICA (`solver: NlIca`, `dfcp::nl_ica`), 004's baseline: Otaduy 2009's nested relaxation
//! of the global problem with an exact one-contact solver. Where the problem has one solution,
//! it must land where ADMM lands.

#[path = "support/scene_run.rs"]
mod scene_run;

/// `scenes/cloth_on_box.ron` (a cloth dropped on a box; 261–269 contacts from step 30) under
/// both solvers at tolerance 1e-10 for 50 steps, 20 of them touching: every step converges, and
/// the cloths agree to within what the tolerance leaves. The difference follows the tolerance
/// (measured: 8.9e-8 m at 1e-8, 7.5e-10 m at 1e-10), so both reach the one solution; 1e-8 m at
/// 1e-10 is a bound that a wrong contact law (a missed friction impulse moves a node by
/// millimetres) cannot meet.
#[test]
fn nl_ica_lands_the_cloth_where_admm_does() {
    let run = |solver: &str| {
        let sets = [
            format!("pipeline.solver={solver}"),
            "pipeline.tolerance=1e-10".to_string(),
            "pipeline.max_iterations=200000".to_string(),
            "pipeline.on_failure=Stop".to_string(),
        ];
        let mut s = scene_run::scene_file("cloth_on_box.ron", &sets);
        let mut iterations = 0;
        for _ in 0..50 {
            let st = s.step().expect("finite state");
            assert!(st.converged, "{solver}: step {} failed: {:?}", s.state.step, st.failure);
            iterations += st.solver_iterations;
        }
        (s, iterations)
    };
    let (admm, admm_iterations) = run("Admm");
    let (ica, ica_iterations) = run("NlIca");
    let diff = admm.state.q.iter().zip(&ica.state.q).map(|(a, b)| (a - b).abs()).fold(0.0, f64::max);
    eprintln!("ADMM {admm_iterations} iterations, NL-ICA {ica_iterations}; largest difference {diff:e} m");
    assert!(diff < 1e-8, "the cloths differ by {diff:e} m");
}
