//! Elliptic (anisotropic) cones at the problem level: every solver that supports them agrees,
//! the law holds per contact, and mu_t == mu_b reduces exactly to the isotropic problem.

mod common;
use common::*;
use fricsim::dfcp::fclib::FclibProblem;
use fricsim::dfcp::problem::LocalProblem;
use fricsim::dfcp::solver::{SolveReport, SolverOptions};
use fricsim::dfcp::{fb_newton, gauss_seidel, polar_sp, prox, staggered_projections};
use fricsim::friction::cone::Cone;

type Solver = fn(&LocalProblem, &mut [f64], &mut [f64], &SolverOptions) -> SolveReport;

fn with_cones(stem: &str, f: impl Fn(f64) -> Cone) -> LocalProblem {
    let FclibProblem::Local(p) = problem(stem) else { panic!() };
    let cones = p.cones.iter().map(|k| f(k.mu_t)).collect();
    LocalProblem::new(p.w, p.q, cones).unwrap()
}

fn run(p: &LocalProblem, s: Solver, tol: f64) -> (Vec<f64>, Vec<f64>, SolveReport) {
    let n = 3 * p.nc();
    let (mut r, mut u) = (vec![0.0; n], vec![0.0; n]);
    let rep = s(p, &mut r, &mut u, &SolverOptions::new(tol, 50_000));
    println!("{rep}");
    (r, u, rep)
}

/// The Delassus (local) form of the global Box_Stacks problem: well conditioned, every solver
/// converges on it, with sliding contacts.
fn box_stacks_local(mut f: impl FnMut(f64) -> Cone) -> LocalProblem {
    let FclibProblem::Global(g) = problem("Box_Stacks-i0122-82-5") else { panic!() };
    let l = fricsim::dfcp::global_reduction::Reduced::new(&g).unwrap().local;
    let cones = l.cones.iter().map(|k| f(k.mu_t)).collect();
    LocalProblem::new(l.w, l.q, cones).unwrap()
}

#[test]
fn equal_axes_reduce_bitwise_to_isotropic() {
    for (iso, ell) in [
        (
            with_cones("LMGC_100_PR_PerioBox-i00361-60-03000", |m| Cone::isotropic(m).unwrap()),
            with_cones("LMGC_100_PR_PerioBox-i00361-60-03000", |m| Cone::elliptic(m, m).unwrap()),
        ),
        (box_stacks_local(|m| Cone::isotropic(m).unwrap()), box_stacks_local(|m| Cone::elliptic(m, m).unwrap())),
    ] {
        for s in [gauss_seidel::solve as Solver, fb_newton::solve, prox::solve] {
            let (r1, _, a) = run(&iso, s, 1e-8);
            let (r2, _, b) = run(&ell, s, 1e-8);
            assert!(a.converged);
            assert_eq!(a.iterations, b.iterations);
            assert!(r1.iter().zip(&r2).all(|(x, y)| x.to_bits() == y.to_bits()), "{}", a.solver);
        }
    }
}

#[test]
fn anisotropic_solvers_agree_and_dissipate_maximally() {
    // mu_t = 0.5 mu, mu_b = 1.5 mu (aspect ratio 3).
    let p = box_stacks_local(|m| Cone::elliptic(0.5 * m, 1.5 * m).unwrap());
    let (r_gs, u_gs, rep) = run(&p, gauss_seidel::solve, 1e-12);
    assert!(rep.converged);
    let scale = inf_norm(&p.q);
    for s in [fb_newton::solve as Solver, prox::solve, staggered_projections::solve_exact, polar_sp::solve] {
        let (_, u, rep) = run(&p, s, 1e-10);
        assert!(rep.converged, "{rep}");
        let d = max_abs_diff(&u_gs, &u) / scale;
        println!("{}: max|u - u_gs| / |q| = {d:.2e}", rep.solver);
        // The agreement level, on the velocity scale.
        assert!(d <= 1e-6, "{}: {d:e}", rep.solver);
    }
    // Per contact: sliding contacts carry f = -r_N M^2 u_T/|M u_T| (validation case 7).
    let mut sliding = 0;
    for (c, k) in p.cones.iter().enumerate() {
        let (r, u) = (&r_gs[3 * c..3 * c + 3], &u_gs[3 * c..3 * c + 3]);
        let m = (k.mu_t * u[1]).hypot(k.mu_b * u[2]);
        if m > 1e-6 * scale && r[0] > 1e-6 * inf_norm(&r_gs) {
            sliding += 1;
            let f = [-r[0] * k.mu_t * k.mu_t * u[1] / m, -r[0] * k.mu_b * k.mu_b * u[2] / m];
            // Residual 1e-12 against slips >= 1e-6 of the scale: the direction to ~1e-6.
            assert!((r[1] - f[0]).abs() <= 1e-5 * r[0] && (r[2] - f[1]).abs() <= 1e-5 * r[0], "contact {c}");
        }
    }
    println!("{sliding} sliding contacts checked");
    assert!(sliding > 0, "the check must exercise sliding contacts");
}

#[test]
fn random_coefficients_and_warm_starts_all_exact_solvers_agree() {
    // Box_Stacks' Delassus form with per-contact random cones (isotropic and elliptic mixed,
    // mu in [0.1, 1]) and a random non-physical warm start: every exact solver converges from it
    // and they agree on u (the u of this problem family is unique in practice; the gate level).
    let mut seed = 99u64;
    let mut rnd = || {
        seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        (seed >> 11) as f64 / (1u64 << 53) as f64
    };
    for trial in 0..3 {
        let mus: Vec<(f64, f64)> = (0..82).map(|_| (0.1 + 0.9 * rnd(), 0.1 + 0.9 * rnd())).collect();
        let iso = trial == 0;
        let mut k = 0;
        let p = box_stacks_local(|_| {
            let (a, b) = mus[k];
            k += 1;
            if iso || k % 2 == 0 { Cone::isotropic(a).unwrap() } else { Cone::elliptic(a, b).unwrap() }
        });
        let warm: Vec<f64> = (0..3 * p.nc()).map(|_| 1e-3 * (rnd() - 0.3)).collect();
        let mut results = Vec::new();
        for s in [gauss_seidel::solve as Solver, fb_newton::solve, prox::solve, staggered_projections::solve_exact] {
            let (mut r, mut u) = (warm.clone(), vec![0.0; 3 * p.nc()]);
            let rep = s(&p, &mut r, &mut u, &SolverOptions::new(1e-10, 50_000));
            assert!(rep.converged, "trial {trial}: {rep}");
            results.push((rep.solver, u));
        }
        let scale = inf_norm(&p.q);
        for (name, u) in &results[1..] {
            let d = max_abs_diff(u, &results[0].1) / scale;
            assert!(d <= 1e-6, "trial {trial}: {name} vs gs differ by {d:e}");
        }
    }
}
