//! Global-form solvers (ADMM + matrix-free GS natively; local solvers on the Delassus form) on
//! the shared FCLib global problems, and the determinism of the coloured parallel sweep.

mod common;
use common::*;
use fricsim::dfcp::admm::{self, AdmmParams};
use fricsim::dfcp::dispatch::solve_global;
use fricsim::dfcp::fclib::FclibProblem;
use fricsim::dfcp::problem::GlobalProblem;
use fricsim::dfcp::solver::SolverOptions;

fn global(stem: &str) -> GlobalProblem {
    match problem(stem) {
        FclibProblem::Global(p) => p,
        _ => panic!("{stem} is not global"),
    }
}

/// Converged to 1e-10 (Siconos's gfc3d error, like the references), and v agrees with the
/// Siconos NSGS_WR v to 1e-6 relative to |v_ref|_inf (the gate; v is unique here since
/// M is invertible and u = H^T v + w is pinned by the contact law up to the residual).
fn gate(stem: &str, solver: &str) {
    let g = global(stem);
    let s = solve_global(&g, solver, &SolverOptions::new(1e-10, 20_000)).unwrap();
    println!("{stem}: {}", s.report);
    assert!(s.report.converged && s.report.residual_rel <= 1e-10, "{stem} {solver}");
    let vref = &reference(stem, "NSGS_WR")["v"];
    let d = max_abs_diff(s.v.as_ref().unwrap(), vref) / inf_norm(vref);
    println!("{stem} {solver}: max|v-v_ref|/|v_ref| = {d:.2e}");
    assert!(d <= 1e-6, "{stem} {solver}: v differs by {d:e}");
}

#[test]
fn gs_on_delassus_box_stacks() {
    gate("Box_Stacks-i0122-82-5", "gs");
}

#[test]
fn gs_on_delassus_lmgc_fem() {
    gate("LMGC_GlobalFrictionContactProblem00046", "gs");
}

#[test]
fn fb_on_delassus_both() {
    gate("Box_Stacks-i0122-82-5", "fb");
    gate("LMGC_GlobalFrictionContactProblem00046", "fb");
}

#[test]
fn admm_box_stacks() {
    gate("Box_Stacks-i0122-82-5", "admm");
}

#[test]
fn admm_lmgc_fem() {
    gate("LMGC_GlobalFrictionContactProblem00046", "admm");
}

#[test]
fn parallel_sweep_is_bit_identical_for_1_and_2_threads() {
    // The two FCLib problems, and a synthetic nodal one large enough (3999 contacts in 3 colours)
    // that rayon really splits every colour across both threads.
    let problems = [
        ("Box_Stacks-i0122-82-5", global("Box_Stacks-i0122-82-5")),
        ("LMGC_GlobalFrictionContactProblem00046", global("LMGC_GlobalFrictionContactProblem00046")),
        ("particles-2000", fricsim::dfcp::synthetic::particles(2000, 0.4)),
    ];
    for (stem, g) in problems {
        let run = |threads: usize| {
            let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build().unwrap();
            pool.install(|| {
                let (mut r, mut v) = (vec![0.0; 3 * g.nc()], vec![0.0; g.ndof()]);
                // A fixed iteration count (tolerance unreachable) so both runs do the same work.
                let opts = SolverOptions::new(1e-300, 40);
                let rep = admm::solve(&g, &mut r, &mut v, &opts, &AdmmParams::default()).unwrap();
                (r, v, rep.iterations)
            })
        };
        let (r1, v1, i1) = run(1);
        let (r2, v2, i2) = run(2);
        assert_eq!(i1, 40);
        assert_eq!(i1, i2);
        // Bitwise: compare the bit patterns, not approximate values.
        assert!(r1.iter().zip(&r2).all(|(a, b)| a.to_bits() == b.to_bits()), "{stem}: r differs");
        assert!(v1.iter().zip(&v2).all(|(a, b)| a.to_bits() == b.to_bits()), "{stem}: v differs");
    }
}

#[test]
fn admm_sequential_sweep_and_no_sleeping_also_converge() {
    let g = global("Box_Stacks-i0122-82-5");
    for prm in
        [AdmmParams { parallel: false, ..Default::default() }, AdmmParams { sleeping: false, ..Default::default() }]
    {
        let (mut r, mut v) = (vec![0.0; 3 * g.nc()], vec![0.0; g.ndof()]);
        let rep = admm::solve(&g, &mut r, &mut v, &SolverOptions::new(1e-8, 5_000), &prm).unwrap();
        println!("{rep}");
        assert!(rep.converged, "{prm:?}");
    }
}

#[test]
fn delta_inf_stop_is_reported_honestly() {
    // A loose δ∞ threshold stops ADMM early: the report must say so and not claim 1e-12.
    let g = global("Box_Stacks-i0122-82-5");
    let (mut r, mut v) = (vec![0.0; 3 * g.nc()], vec![0.0; g.ndof()]);
    let prm = AdmmParams { eps_inf: Some(1e-3), ..Default::default() };
    let rep = admm::solve(&g, &mut r, &mut v, &SolverOptions::new(1e-12, 5_000), &prm).unwrap();
    println!("{rep}");
    assert!(rep.message.contains("δ∞ threshold"));
    assert!(!rep.converged && rep.residual_rel > 1e-12);
}

#[test]
fn sp_exact_on_delassus_box_stacks() {
    gate("Box_Stacks-i0122-82-5", "sp-exact");
}

#[test]
fn fem_problem_takes_the_nodal_closed_form_path() {
    // LMGC's FEM contacts act on single mesh nodes with frame-rotation Jacobians: with per-node
    // weights every S_cc is isotropic, so ADMM uses 004's closed form on all 9 contacts.
    let g = global("LMGC_GlobalFrictionContactProblem00046");
    let (mut r, mut v) = (vec![0.0; 3 * g.nc()], vec![0.0; g.ndof()]);
    let rep = admm::solve(&g, &mut r, &mut v, &SolverOptions::new(1e-8, 5_000), &AdmmParams::default()).unwrap();
    assert!(rep.converged, "{rep}");
    assert!(rep.message.contains("9 closed-form contacts"), "{rep}");
}
