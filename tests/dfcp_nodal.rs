//! A synthetic nodal problem (004's setting: every contact Jacobian block is a rotation times a
//! scaled identity, so with per-node weights every Delassus diagonal block is isotropic and the
//! ADMM projection uses the closed-form local solver), plus warm start and time limits.

use fricsim::dfcp::admm::{self, AdmmParams};
use fricsim::dfcp::dispatch::solve_global;
use fricsim::dfcp::gauss_seidel;
use fricsim::dfcp::global_reduction::Reduced;
use fricsim::dfcp::residual::global_error;
use fricsim::dfcp::solver::SolverOptions;
use std::time::Duration;

use fricsim::dfcp::synthetic::particles;

#[test]
fn nodal_admm_uses_closed_form_and_matches_delassus_gs() {
    let g = particles(40, 0.3);
    let (mut r, mut v) = (vec![0.0; 3 * g.nc()], vec![0.0; g.ndof()]);
    let rep = admm::solve(&g, &mut r, &mut v, &SolverOptions::new(1e-10, 10_000), &AdmmParams::default()).unwrap();
    println!("{rep}");
    assert!(rep.converged);
    // Every contact block is isotropic here: the 004 closed form is the local solver.
    assert!(rep.message.contains(&format!("{} closed-form contacts", g.nc())), "{rep}");
    let s = solve_global(&g, "gs", &SolverOptions::new(1e-12, 100_000)).unwrap();
    assert!(s.report.converged, "{}", s.report);
    let vs = s.v.unwrap();
    let scale = vs.iter().fold(0.0f64, |m, x| m.max(x.abs()));
    let d = v.iter().zip(&vs).fold(0.0f64, |m, (a, b)| m.max((a - b).abs())) / scale;
    println!("max |v_admm - v_gs| / |v| = {d:.2e}");
    // M diagonal, W well conditioned: errors 1e-10 / 1e-12 pin v to ~1e-7 (measured 8e-8);
    // 1e-6 is the gate.
    assert!(d <= 1e-6);
    // Some contacts stick, some slide, some separate: the test exercises all three branches.
    let u = {
        let mut u = vec![0.0; r.len()];
        g.velocity(&v, &mut u);
        u
    };
    let (mut sep, mut stick, mut slide) = (0, 0, 0);
    for c in 0..g.nc() {
        let (rn, ut) = (r[3 * c], u[3 * c + 1].hypot(u[3 * c + 2]));
        if rn <= 1e-9 {
            sep += 1
        } else if ut <= 1e-7 {
            stick += 1
        } else {
            slide += 1
        }
    }
    println!("separating {sep}, sticking {stick}, sliding {slide}");
    assert!(sep > 0 && stick > 0 && slide > 0);
}

#[test]
fn warm_start_from_a_solution_needs_no_iteration() {
    let g = particles(20, 0.5);
    let red = Reduced::new(&g).unwrap();
    let n = 3 * g.nc();
    let (mut r, mut u) = (vec![0.0; n], vec![0.0; n]);
    let opts = SolverOptions::new(1e-10, 100_000);
    let cold = gauss_seidel::solve(&red.local, &mut r, &mut u, &opts);
    assert!(cold.converged && cold.iterations > 1);
    let warm = gauss_seidel::solve(&red.local, &mut r, &mut u, &opts);
    assert!(warm.converged);
    assert_eq!(warm.iterations, 0, "{warm}");
    // ADMM warm-started from the converged (r, v) also stops at once.
    let (mut r2, mut v2) = (vec![0.0; n], vec![0.0; g.ndof()]);
    let a = admm::solve(&g, &mut r2, &mut v2, &opts, &AdmmParams::default()).unwrap();
    assert!(a.converged);
    let b = admm::solve(&g, &mut r2, &mut v2, &opts, &AdmmParams::default()).unwrap();
    assert_eq!(b.iterations, 0);
    assert!(global_error(&g, &r2, &v2).total <= 1e-10);
}

#[test]
fn time_limit_is_honoured_and_reported() {
    let g = particles(200, 0.8);
    let red = Reduced::new(&g).unwrap();
    let n = 3 * g.nc();
    let (mut r, mut u) = (vec![0.0; n], vec![0.0; n]);
    let opts = SolverOptions { tol: 1e-300, max_iter: usize::MAX, max_time: Some(Duration::from_millis(50)) };
    let rep = gauss_seidel::solve(&red.local, &mut r, &mut u, &opts);
    assert!(!rep.converged);
    assert!(rep.message.contains("time limit"), "{rep}");
    // One sweep past the limit at most (a sweep here is ~10 µs); generous bound for a loaded box.
    assert!(rep.time < Duration::from_millis(500), "{rep}");
}

#[test]
fn accelerated_admm_converges_to_the_same_solution() {
    let g = particles(40, 0.3);
    let run = |accelerated: bool| {
        let (mut r, mut v) = (vec![0.0; 3 * g.nc()], vec![0.0; g.ndof()]);
        let prm = AdmmParams { accelerated, ..Default::default() };
        let rep = admm::solve(&g, &mut r, &mut v, &SolverOptions::new(1e-10, 10_000), &prm).unwrap();
        println!("{rep}");
        (v, rep)
    };
    let (v0, plain) = run(false);
    let (v1, acc) = run(true);
    assert!(plain.converged && acc.converged);
    assert!(acc.message.contains("accelerated"));
    let scale = v0.iter().fold(0.0f64, |m, x| m.max(x.abs()));
    // Both at 1e-10: the same solution to ~1e-7 of |v| (see the GS comparison above).
    assert!(v0.iter().zip(&v1).all(|(a, b)| (a - b).abs() <= 1e-6 * scale));
}
