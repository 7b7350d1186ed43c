//! Edge cases: no contacts, frictionless contacts, wrong buffer sizes.

mod common;
use common::*;
use fricsim::dfcp::dispatch::{GLOBAL_ONLY, SOLVERS, solve_global, solve_local};
use fricsim::dfcp::fclib::FclibProblem;
use fricsim::dfcp::global_reduction::Reduced;
use fricsim::dfcp::problem::{Csc, GlobalProblem, LocalProblem};
use fricsim::dfcp::solver::SolverOptions;
use fricsim::dfcp::{fb_newton, gauss_seidel};
use fricsim::friction::cone::Cone;

#[test]
fn no_contacts_is_solved_trivially_by_every_solver() {
    let l = LocalProblem::new(Csc::try_new_from_triplets(0, 0, &[]).unwrap(), vec![], vec![]).unwrap();
    let m = Csc::try_new_from_triplets(
        2,
        2,
        &[faer::sparse::Triplet::new(0, 0, 1.0), faer::sparse::Triplet::new(1, 1, 2.0)],
    )
    .unwrap();
    let g =
        GlobalProblem::new(m, Csc::try_new_from_triplets(2, 0, &[]).unwrap(), vec![1.0, 1.0], vec![], vec![]).unwrap();
    let opts = SolverOptions::new(1e-8, 100);
    for s in SOLVERS {
        if !GLOBAL_ONLY.contains(&s) {
            let x = solve_local(&l, s, &opts).unwrap();
            assert!(x.report.converged && x.report.iterations == 0, "{s}: {}", x.report);
        }
        let x = solve_global(&g, s, &opts).unwrap();
        assert!(x.report.converged, "{s}: {}", x.report);
        // v = M^{-1} f (no contact force): exact for the Delassus path (one solve), to the
        // tolerance for the ADMMs (their equation error is part of the stopping measure).
        let v = x.v.unwrap();
        let tol = if GLOBAL_ONLY.contains(&s) { 1e-7 } else { 1e-15 };
        assert!((v[0] - 1.0).abs() < tol && (v[1] - 0.5).abs() < tol, "{s}: {v:?}");
    }
}

#[test]
fn frictionless_contacts_all_solvers_agree() {
    let FclibProblem::Global(g) = problem("Box_Stacks-i0122-82-5") else { panic!() };
    let l = Reduced::new(&g).unwrap().local;
    let p = LocalProblem::new(l.w, l.q, vec![Cone::isotropic(0.0).unwrap(); l.cones.len()]).unwrap();
    let opts = SolverOptions::new(1e-10, 50_000);
    let base = solve_local(&p, "gs", &opts).unwrap();
    assert!(base.report.converged, "{}", base.report);
    // Frictionless: no tangential force at all.
    assert!((0..p.nc()).all(|c| base.r[3 * c + 1] == 0.0 && base.r[3 * c + 2] == 0.0));
    let scale = inf_norm(&p.q);
    for s in ["fb", "prox", "pgs-lcp", "sp", "sp-exact", "lemke", "reg-lcp"] {
        let x = solve_local(&p, s, &opts).unwrap();
        println!("{}", x.report);
        assert!(x.report.converged, "{s}: {}", x.report);
        // With mu = 0 the problem is a convex QP in r_N (the box, polyhedral and exact cones all
        // coincide), u is unique: agreement to 1e-6 of the velocity scale.
        assert!(max_abs_diff(&x.u, &base.u) <= 1e-6 * scale, "{s}");
    }
}

#[test]
fn wrong_buffer_sizes_are_rejected_not_panicking() {
    let FclibProblem::Local(p) = problem("LMGC_100_PR_PerioBox-i00361-60-03000") else { panic!() };
    let (mut r, mut u) = (vec![0.0; 5], vec![0.0; 3 * p.nc()]);
    for rep in [
        gauss_seidel::solve(&p, &mut r, &mut u, &SolverOptions::default()),
        fb_newton::solve(&p, &mut r, &mut u, &SolverOptions::default()),
    ] {
        assert!(!rep.converged && rep.iterations == 0);
        assert!(rep.message.contains("r has length 5, expected 180"), "{}", rep.message);
    }
}
