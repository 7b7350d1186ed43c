//! Proximal-point outer loop on the local problem (the scheme of Siconos's PROX): each outer
//! iteration solves the regularised problem
//!
//! `u = (W + αI) r + (q − α r_k)`, `(u_c, r_c)` in the Coulomb law,
//!
//! whose fixed point `r = r_k` solves the original one (then `u = W r + q`). `W + αI` is
//! positive definite even where `W` is singular or slightly indefinite (every FCLib problem
//! here), so the inner Fischer–Burmeister Newton solve is well posed and fast. α follows the
//! error, `α = σ · err · w̄` (w̄ the mean diagonal of `W`, so α has `W`'s units): strong
//! regularisation far from the solution, vanishing near it. An inner solve that fails multiplies
//! α by 10 and is retried from `r_k`. The inner solve must cut the natural-map error tenfold
//! (down to `tol / nc`), as in Siconos's adaptive rule: each outer step only has to beat the
//! current error.

use super::fb_newton;
use super::problem::{LocalProblem, norm2};
use super::residual::local_error;
use super::solver::{SolveReport, SolverOptions, check_buffers};
use std::time::Instant;

/// α = `SIGMA` · err · w̄ after an accepted step (Siconos's σ = 5, ν = 1, made unit-consistent).
const SIGMA: f64 = 5.0;
/// After an accepted step α shrinks by at least this factor: where `W` is singular the
/// proximal iteration converges only linearly along its null space, at a rate set by α.
const SHRINK: f64 = 10.0;
/// α grows by this factor after a failed inner solve.
const FAIL_GROWTH: f64 = 10.0;
/// Inner tolerance: the outer error divided by this (Siconos's `INTERNAL_ERROR_RATIO`).
const INNER_RATIO: f64 = 10.0;
/// The smallest α, relative to w̄: below it the regularisation no longer helps the inner solve
/// and round-off in `q − α r_k` is below the tolerance anyway.
const ALPHA_MIN: f64 = 1e-12;

pub fn solve(p: &LocalProblem, r: &mut [f64], u: &mut [f64], opts: &SolverOptions) -> SolveReport {
    const NAME: &str = "prox-point";
    let n = 3 * p.nc();
    if let Some(rep) = check_buffers(NAME, n, r, u) {
        return rep;
    }
    let start = Instant::now();
    let wbar = p.mean_diagonal();
    p.velocity(r, u);
    let mut err = local_error(p, r, u);
    let mut alpha = SIGMA * err.rel.min(1.0) * wbar;
    let (mut outer, mut inner_iterations, mut failures) = (0usize, 0usize, 0usize);
    let mut trial = r.to_vec();
    let mut trial_u = vec![0.0; n];
    let mut reason = "iteration limit";
    while inner_iterations < opts.max_iter {
        if let Some(why) = opts.stop_reason(err.rel, start) {
            reason = why;
            break;
        }
        outer += 1;
        let reg = regularised(p, alpha, r);
        // The inner problem measures its error relative to its own scale, `max(|q − α r_k|, |r|,
        // |u|)`, which a large α inflates: ask it for the natural-map error (absolute, the same
        // for both problems at `r = r_k`) that the outer step needs, in its units.
        let outer_scale = err.natmap_abs / err.rel.max(f64::MIN_POSITIVE);
        let inner_scale = norm2(&reg.q).max(norm2(r)).max(norm2(u)).max(f64::MIN_POSITIVE);
        let wanted_abs = (err.natmap_abs / INNER_RATIO).max(opts.tol * outer_scale / p.nc().max(1) as f64);
        let inner_opts = SolverOptions {
            tol: wanted_abs / inner_scale,
            max_iter: opts.max_iter - inner_iterations,
            max_time: opts.max_time.map(|t| t.saturating_sub(start.elapsed())),
        };
        trial.copy_from_slice(r);
        let rep = fb_newton::solve(&reg, &mut trial, &mut trial_u, &inner_opts);
        inner_iterations += rep.iterations.max(1);
        p.velocity(&trial, &mut trial_u);
        let e = local_error(p, &trial, &trial_u);
        if rep.converged && e.rel.is_finite() {
            r.copy_from_slice(&trial);
            u.copy_from_slice(&trial_u);
            err = e;
            alpha = (SIGMA * err.rel.min(1.0) * wbar).min(alpha / SHRINK).max(ALPHA_MIN * wbar);
        } else {
            failures += 1;
            if e.rel < err.rel {
                r.copy_from_slice(&trial);
                u.copy_from_slice(&trial_u);
                err = e;
            }
            alpha *= FAIL_GROWTH;
        }
    }
    SolveReport::finish(
        NAME,
        &err,
        opts,
        outer,
        start,
        reason,
        format_args!(
            "{inner_iterations} inner Newton iterations, {failures} failed inner solves, final alpha {alpha:.2e}"
        ),
    )
}

/// `W + αI`, `q − α r_k` on the same cones.
fn regularised(p: &LocalProblem, alpha: f64, rk: &[f64]) -> LocalProblem {
    let q: Vec<f64> = p.q.iter().zip(rk).map(|(q, r)| q - alpha * r).collect();
    LocalProblem::new(p.w_plus_identity(alpha), q, p.cones.clone()).expect("finite: W, q and r_k are")
}
