//! Local-form solvers on the shared FCLib problems: convergence gates, agreement of u with the
//! Siconos references, and the known weaknesses reported as failures.

mod common;
use common::*;
use fricsim::dfcp::fclib::{FclibProblem, read_problem};
use fricsim::dfcp::problem::LocalProblem;
use fricsim::dfcp::solver::{SolveReport, SolverOptions};
use fricsim::dfcp::{fb_newton, gauss_seidel, pgs_lcp, prox};

type Solver = fn(&LocalProblem, &mut [f64], &mut [f64], &SolverOptions) -> SolveReport;

fn local(stem: &str) -> LocalProblem {
    match problem(stem) {
        FclibProblem::Local(p) => p,
        _ => panic!("{stem} is not local"),
    }
}

fn run(p: &LocalProblem, s: Solver, tol: f64, max_iter: usize) -> (Vec<f64>, Vec<f64>, SolveReport) {
    let n = 3 * p.nc();
    let (mut r, mut u) = (vec![0.0; n], vec![0.0; n]);
    let rep = s(p, &mut r, &mut u, &SolverOptions::new(tol, max_iter));
    println!("{rep}");
    (r, u, rep)
}

/// Converged to `tol`, and u agrees with Siconos's u to 1e-6 (the gate) on the velocity
/// scale of the problem, `max(|q|_inf, |u_ref|_inf)`: on BoxesStack every contact is at rest
/// (|u| ~ 1e-8 against |q| ~ 5e-3), so a ratio to |u| alone would compare round-off.
/// `tol` is per problem: the relative measure divides by max(|q|, |r|, |u|), and on PerioBox
/// |r| ~ 5e5 against |q| ~ 0.8, so 1e-10 there still allows |Δu| ~ 1e-5; 1e-14 pins u to ~1e-8.
fn gate(stem: &str, solver: &str, s: Solver, max_iter: usize, tol: f64) {
    let p = local(stem);
    let (_, u, rep) = run(&p, s, tol, max_iter);
    assert!(rep.converged, "{stem}: {rep}");
    assert!(rep.residual_rel <= tol);
    let uref = &reference(stem, solver)["u"];
    let scale = inf_norm(&p.q).max(inf_norm(uref));
    let d = max_abs_diff(&u, uref) / scale;
    println!("{stem}: max|u-u_ref| / velocity scale = {d:.2e}");
    assert!(d <= 1e-6, "{stem}: u differs from Siconos by {d:e}");
}

const PERIO: &str = "LMGC_100_PR_PerioBox-i00361-60-03000";
const CAPS: &str = "Capsules-i125-1213";
const BOXES: &str = "BoxesStack_local_problem_test";

#[test]
fn single_contact_known_solution() {
    let p = match read_problem(&fclib_dir().join("Siconos_FrictionContact3D_1c.txt")).unwrap() {
        FclibProblem::Local(p) => p,
        _ => unreachable!(),
    };
    let rref = [0.065695682897738, -0.003678614906807, -0.005443070813559];
    for s in [gauss_seidel::solve as Solver, fb_newton::solve, prox::solve] {
        let (r, _, rep) = run(&p, s, 1e-14, 10_000);
        assert!(rep.converged, "{rep}");
        // The reference is printed with 15 decimals; W is SPD so r is unique.
        assert!(max_abs_diff(&r, &rref) <= 1e-12, "{}: {r:?}", rep.solver);
    }
}

#[test]
fn gs_perio_box() {
    gate(PERIO, "NSGS", gauss_seidel::solve, 20_000, 1e-14);
}

#[test]
fn gs_capsules() {
    gate(CAPS, "NSGS", gauss_seidel::solve, 20_000, 1e-10);
}

#[test]
fn fb_boxes_stack() {
    gate(BOXES, "NSN_FB", fb_newton::solve, 5_000, 1e-10);
}

#[test]
fn pgs_lcp_fails_honestly_on_boxes_stack() {
    // 002's baseline: the box cone is not the Coulomb cone, so the exact-cone error plateaus.
    let p = local("BoxesStack_local_problem_test");
    let (_, _, rep) = run(&p, pgs_lcp::solve, 1e-8, 3_000);
    assert!(!rep.converged);
    assert!(rep.residual_rel > 1e-8, "a failure must carry its real error: {rep}");
}

#[test]
fn gs_stalls_on_boxes_stack_and_says_so() {
    // Siconos NSGS stalls at 7e-6 after 1e5 iterations on this problem (fclib README); ours must
    // likewise not claim convergence within a modest budget.
    let p = local("BoxesStack_local_problem_test");
    let (_, _, rep) = run(&p, gauss_seidel::solve, 1e-8, 2_000);
    assert!(!rep.converged && rep.residual_rel > 1e-8, "{rep}");
    assert_eq!(rep.iterations, 2_000);
}

#[test]
fn prox_perio_box() {
    gate(PERIO, "NSGS", prox::solve, 20_000, 1e-14);
}

#[test]
fn auto_reaches_1e8_on_every_local_problem() {
    // The CLI default must be robust: GS first, the ADMM (then FB Newton) where GS is slow.
    for (stem, _) in LOCAL {
        let p = local(stem);
        let s = fricsim::dfcp::dispatch::solve_local(&p, "auto", &SolverOptions::new(1e-8, 20_000)).unwrap();
        println!("{stem}: {}", s.report);
        assert!(s.report.converged && s.report.residual_rel <= 1e-8, "{stem}");
    }
}

/// `auto`'s stages: where GS finishes within its 50-sweep budget (PerioBox, 34 sweeps) it is the
/// whole solve; where its rate predicts hundreds of sweeps (KaplasTower, about 230; BoxesStack,
/// stalling) it hands over after two 8-sweep chunks instead of spending the budget, to FB
/// Newton on a small problem (BoxesStack, 144 unknowns) and to the ADMM on a large one
/// (KaplasTower, 1710).
#[test]
fn auto_keeps_gs_only_where_its_rate_predicts_it_finishes() {
    let stages = |p: &LocalProblem| {
        let s = fricsim::dfcp::dispatch::solve_local(p, "auto", &SolverOptions::new(1e-8, 20_000)).unwrap();
        assert!(s.report.converged, "{}", s.report);
        s.report.message
    };
    let sweeps =
        |m: &str| m.strip_prefix("gs ").and_then(|t| t.split(' ').next()).and_then(|t| t.parse::<usize>().ok());
    let m = stages(&local(PERIO));
    assert!(m.starts_with("gs only"), "PerioBox: GS alone, got {m}");
    let m = stages(&local(BOXES));
    assert_eq!(sweeps(&m), Some(16), "BoxesStack: two chunks, got {m}");
    assert!(m.contains(" then fb:"), "BoxesStack: then FB Newton, got {m}");
    let FclibProblem::Local(k) = text_problem("KaplasTower-i1061-4") else { panic!() };
    let m = stages(&k);
    assert_eq!(sweeps(&m), Some(16), "KaplasTower: two chunks, got {m}");
    assert!(m.contains(" then admm-local from zero:"), "KaplasTower: then the ADMM, got {m}");
}

#[test]
fn sp_exact_perio_box_reaches_1e8() {
    let p = local(PERIO);
    let (_, _, rep) = run(&p, fricsim::dfcp::staggered_projections::solve_exact, 1e-8, 2_000);
    assert!(rep.converged && rep.residual_rel <= 1e-8, "{rep}");
}

#[test]
fn sp_polyhedral_fails_honestly_on_sliding_problem() {
    // Capsules has sliding contacts off the octagon's vertices: the 8-sample cone is up to
    // cos(pi/8) = 0.92 of the disc, so the exact-cone error stays far above 1e-8 (measured 1e-4).
    let p = local(CAPS);
    let (_, _, rep) = run(&p, fricsim::dfcp::staggered_projections::solve, 1e-8, 300);
    assert!(!rep.converged && rep.residual_rel > 1e-6, "{rep}");
    assert_eq!(rep.iterations, 300);
}

#[test]
fn prox_back_off_stalls_on_capsules_and_says_so() {
    // 003 Alg. 2's rule rejects every sweep whose |Δλ|inf grows and shrinks the r-factors by
    // nu = 0.9; on Capsules that happens ~170 times in 1e5 sweeps and PROX stalls near 1e-6.
    // Within 3000 sweeps it must report failure with its real error.
    let p = local(CAPS);
    let (_, _, rep) = run(&p, prox::solve, 1e-8, 3_000);
    assert!(!rep.converged && rep.residual_rel > 1e-8, "{rep}");
    assert!(rep.message.contains("rejected"), "{rep}");
}

#[test]
fn prox_without_back_off_converges_on_capsules() {
    // The stall above is caused by the back-off itself: with nu = 1 (rejected sweeps are retried
    // with the same r-factor, i.e. no shrinking) PROX reaches 1e-8 on Capsules (~7200 sweeps).
    let p = local(CAPS);
    let n = 3 * p.nc();
    let (mut r, mut u) = (vec![0.0; n], vec![0.0; n]);
    let prm = prox::ProxParams { nu: 1.0, ..Default::default() };
    let rep = prox::solve_with(&p, &mut r, &mut u, &SolverOptions::new(1e-8, 20_000), &prm);
    println!("{rep}");
    assert!(rep.converged, "{rep}");
}

/// The proximal point (Siconos's PROX scheme around FB Newton) on every shared local problem
/// but RockPile: 1e-8 by an error computed independently of fricsim's residual module, and u
/// agreeing with Siconos's to 1e-6 at a tolerance of 1e-12 where a reference exists.
#[test]
fn prox_point_reaches_1e8_on_every_local_problem_and_agrees_with_siconos() {
    for (stem, reference_solver) in LOCAL {
        gate(stem, reference_solver, fricsim::dfcp::prox_point::solve, 2_000, 1e-12);
    }
    for stem in ["KaplasTower-i1061-4", "Siconos_FrictionContact3D_1c"] {
        let FclibProblem::Local(p) = text_problem(stem) else { panic!("{stem} is local") };
        let (r, _, rep) = run(&p, fricsim::dfcp::prox_point::solve, 1e-8, 2_000);
        let e = independent_local_error(&p, &r);
        println!("{stem}: independent error {e:.2e}");
        assert!(rep.converged && e <= 1e-8, "{stem}: {rep}, independent error {e:e}");
    }
}

/// The local ADMM on every shared local problem but RockPile: u within 1e-6 of Siconos's at
/// 1e-12 (1e-14 on PerioBox, whose |r| ~ 5e5 lets 1e-12 leave |Δu| ~ 1e-6; see `gate`), and 1e-8
/// on KaplasTower by the independent error.
#[test]
fn local_admm_reaches_1e8_on_every_local_problem_and_agrees_with_siconos() {
    for (stem, reference_solver) in LOCAL {
        let tol = if stem == PERIO { 1e-14 } else { 1e-12 };
        gate(stem, reference_solver, fricsim::dfcp::local_admm::solve, 20_000, tol);
    }
    let FclibProblem::Local(k) = text_problem("KaplasTower-i1061-4") else { panic!() };
    let (r, _, rep) = run(&k, fricsim::dfcp::local_admm::solve, 1e-8, 2_000);
    assert!(rep.converged && independent_local_error(&k, &r) <= 1e-8, "{rep}");
}

/// RockPile to 1e-8 by an error computed independently of fricsim's residual module: the local
/// ADMM gets there, sublinearly, in about 3.3M iterations (over three minutes on 2 cores), so
/// the test is ignored: `cargo test --release --test dfcp_local_solvers
/// rock_pile_reaches_1e8_with_the_local_admm -- --ignored --nocapture`. The 15-minute limit
/// leaves room for a slower machine; on a time-out the test fails.
#[test]
#[ignore]
fn rock_pile_reaches_1e8_with_the_local_admm() {
    let FclibProblem::Local(p) = text_problem("RockPile_tob1") else { panic!() };
    let n = 3 * p.nc();
    let (mut r, mut u) = (vec![0.0; n], vec![0.0; n]);
    let opts =
        SolverOptions { max_time: Some(std::time::Duration::from_secs(900)), ..SolverOptions::new(1e-8, 20_000_000) };
    let rep = fricsim::dfcp::local_admm::solve(&p, &mut r, &mut u, &opts);
    let e = independent_local_error(&p, &r);
    println!("{rep}; independent error {e:.3e}");
    assert!(rep.converged && e <= 1e-8, "{rep}, independent error {e:e}");
}

/// RockPile: no Siconos solver reaches 1e-8, and fricsim only after minutes (above; why, in
/// the README's exact-solver section and `scripts/rock_pile_diagnosis.py`). The study prints
/// where each solver stands after a minute: `cargo test --release --test dfcp_local_solvers
/// rock_pile_study -- --ignored --nocapture`.
#[test]
#[ignore]
fn rock_pile_study() {
    let FclibProblem::Local(p) = text_problem("RockPile_tob1") else { panic!() };
    for (name, s) in [
        ("prox-point", fricsim::dfcp::prox_point::solve as Solver),
        ("fb", fb_newton::solve),
        ("gs", gauss_seidel::solve),
        ("admm-local", fricsim::dfcp::local_admm::solve),
    ] {
        let n = 3 * p.nc();
        let (mut r, mut u) = (vec![0.0; n], vec![0.0; n]);
        let opts =
            SolverOptions { max_time: Some(std::time::Duration::from_secs(60)), ..SolverOptions::new(1e-8, 1_000_000) };
        let rep = s(&p, &mut r, &mut u, &opts);
        println!("{name}: {rep}; independent error {:.2e}", independent_local_error(&p, &r));
    }
    // Chained: the local ADMM's iterate (where it stalls) as the warm start of the Newton methods.
    for (name, s) in [("prox-point", fricsim::dfcp::prox_point::solve as Solver), ("fb", fb_newton::solve)] {
        let n = 3 * p.nc();
        let (mut r, mut u) = (vec![0.0; n], vec![0.0; n]);
        let opts =
            SolverOptions { max_time: Some(std::time::Duration::from_secs(30)), ..SolverOptions::new(1e-8, 1_000_000) };
        let first = fricsim::dfcp::local_admm::solve(&p, &mut r, &mut u, &opts);
        let rep = s(&p, &mut r, &mut u, &opts);
        println!(
            "admm-local ({:.2e}) then {name}: {rep}; independent error {:.2e}",
            first.residual_rel,
            independent_local_error(&p, &r)
        );
    }
}
