//! ADMM's global step solved three ways (004 §5.3, `admm.linear_solver`): one Cholesky, one
//! Cholesky per object (exact where no matrix entry joins two bodies, else CG's preconditioner)
//! and Jacobi-preconditioned CG. Where the per-object factors are exact they must follow the
//! one-Cholesky path to round-off; where they are a preconditioner, CG must still let every
//! step meet the natural-map tolerance.

mod common;
#[path = "support/scene_run.rs"]
mod scene_run;

use common::max_abs_diff;
use fricsim::pipeline::StepStats;

/// Runs `scene` (under `scenes/`) with `overrides` for `steps` steps: the nodal positions and
/// the rigid bodies' centres after them, and every step's statistics.
fn run(scene: &str, overrides: &[&str], steps: usize) -> (Vec<f64>, Vec<StepStats>, Vec<f64>) {
    let overrides: Vec<String> = overrides.iter().map(|s| s.to_string()).collect();
    let mut sim = scene_run::scene_file(scene, &overrides);
    let stats = (0..steps).map(|_| sim.step().expect("finite")).collect();
    let centres = sim.state.rigid.iter().flat_map(|b| b.position.iter().copied().collect::<Vec<_>>()).collect();
    (sim.state.q.clone(), stats, centres)
}

#[test]
fn per_object_factors_follow_the_one_cholesky_path_on_separate_bodies() {
    // 1000 thick hairs of 16 nodes (the scene's count): 48000 unknowns in blocks of whole rods,
    // no entry between rods; thick, so they touch each other from the first steps.
    let base = ["materials.\"hair\".radius=5e-4"];
    let with = |linear: &str| {
        let mut o = base.to_vec();
        o.push(linear);
        run("hairy_ball.ron", &o, 10)
    };
    let (q1, s1, _) = with("pipeline.admm.linear_solver=Cholesky");
    for linear in ["pipeline.admm.linear_solver=Objects", "pipeline.admm.linear_solver=Auto"] {
        let (q, s, _) = with(linear);
        // The same factorisations of the same blocks in another grouping: only the order of
        // round-off may differ (measured: the same bits); 1e-10 m is a ten-thousandth of the
        // hair radius, far below any difference in the contacts or iterations.
        assert!(max_abs_diff(&q, &q1) <= 1e-10, "{linear}: positions differ by {:e}", max_abs_diff(&q, &q1));
        let contacts = |s: &[StepStats]| s.iter().map(|x| x.active_contacts).sum::<usize>();
        assert_eq!(contacts(&s), contacts(&s1), "{linear}");
        assert!(contacts(&s) > 0, "the hair touches");
        assert_eq!(s.iter().map(|x| x.linear_iterations).sum::<usize>(), 0, "{linear}: exact, no CG");
    }
}

#[test]
fn coupled_bodies_take_cg_and_every_step_still_meets_the_tolerance() {
    // 200 hairs rooted on a dynamic ball (the scene has 48): each root's row joins its hair to
    // the ball's six unknowns, and 3600 unknowns make two blocks, so the per-body factors are
    // CG's preconditioner.
    // The hair lands from step 50 on. Solved to natural-map error 1e-6: at the scene's 1e-4 the
    // ball of one Cholesky moves 1.2e-4 m off its 1e-6 path within 110 steps, and one
    // Cholesky and per-object CG part by 7.7e-5 m, inside that; at 1e-6 they part by 2.5e-7 m.
    let steps = 75;
    let base = [
        "pipeline.solver=Admm",
        "bodies[1].curves.count=200",
        "pipeline.tolerance=1e-6",
        "pipeline.max_iterations=3000",
    ];
    let with = |linear: &str| {
        let mut o = base.to_vec();
        o.push(linear);
        run("hairy_body.ron", &o, steps)
    };
    let (_, s1, c1) = with("pipeline.admm.linear_solver=Cholesky");
    let (_, s, c) = with("pipeline.admm.linear_solver=Objects");
    let cg: usize = s.iter().map(|x| x.linear_iterations).sum();
    assert!(cg > 0, "CG ran");
    for (k, (a, b)) in s.iter().zip(&s1).enumerate() {
        assert!(a.converged && b.converged, "step {k}: {:?} / {:?}", a.failure, b.failure);
    }
    let touching = s.iter().filter(|x| x.active_contacts > 0).count();
    assert!(touching > 10, "the hair lands: {touching} steps with contacts");
    // The hair tips, flicked by contacts, part by more (0.6 mm at 1e-6 after 110 steps, as
    // between one Cholesky and Jacobi CG; 9 mm at 1e-4: it shrinks with the tolerance). The
    // ball carries the hair's forces: its centre must agree to 2.5e-6 m, ten times the
    // difference measured over 110 steps.
    let d = max_abs_diff(&c, &c1);
    assert!(d <= 2.5e-6, "ball centres differ by {d:e} m");
    println!("coupled hair: {cg} CG iterations over {steps} steps, the ball within {d:.2e} m of one Cholesky's");
}
