//! Elliptic cones through the exactly equivalent isotropic problem (`LocalProblem::
//! scaled_isotropic`), for solvers whose cone operations are isotropic: solve the scaled problem,
//! map back. The two problems' natural-map errors differ by up to the cones' axis ratio, so the
//! scaled problem's tolerance is tightened (from where it stopped) until the original problem's
//! measured error meets `opts.tol`, at most a few times.

use super::problem::LocalProblem;
use super::residual::local_error;
use super::solver::{SolveReport, SolverOptions};
use std::time::Instant;

type LocalFn = fn(&LocalProblem, &mut [f64], &mut [f64], &SolverOptions) -> SolveReport;

/// Tightenings of the scaled problem's tolerance before giving up.
const TIGHTENINGS: usize = 4;

/// Solve `p` (elliptic cones) with `inner` on `ps`, its isotropic equivalent with `r = S r'`.
#[allow(clippy::too_many_arguments)]
pub fn solve_scaled(
    p: &LocalProblem,
    ps: &LocalProblem,
    s: &[f64],
    r: &mut [f64],
    u: &mut [f64],
    opts: &SolverOptions,
    name: &'static str,
    inner: LocalFn,
) -> SolveReport {
    let start = Instant::now();
    let n = r.len();
    let mut rs: Vec<f64> = r.iter().zip(s).map(|(r, s)| r / s).collect();
    let mut us = vec![0.0; n];
    let mut scaled_opts = opts.clone();
    let mut iterations = 0;
    for _ in 0..TIGHTENINGS {
        let rep = inner(ps, &mut rs, &mut us, &scaled_opts);
        iterations += rep.iterations;
        r.iter_mut().zip(rs.iter().zip(s)).for_each(|(r, (x, s))| *r = x * s);
        p.velocity(r, u);
        let e = local_error(p, r, u);
        if e.rel <= opts.tol || !rep.converged || iterations >= opts.max_iter {
            return SolveReport {
                residual_abs: e.natmap_abs,
                residual_rel: e.rel,
                converged: e.rel <= opts.tol,
                iterations,
                time: start.elapsed(),
                ..rep
            };
        }
        scaled_opts.tol = rep.residual_rel.min(scaled_opts.tol) * 0.5 * opts.tol / e.rel;
        scaled_opts.max_iter = opts.max_iter - iterations;
    }
    let e = local_error(p, r, u);
    SolveReport::finish(
        name,
        &e,
        opts,
        iterations,
        start,
        "scaled-problem tolerance tightened 4 times",
        format_args!("elliptic cones solved through the scaled isotropic problem"),
    )
}
