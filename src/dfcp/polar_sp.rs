//! Staggered Projections in 000's polar form (§5.5.2, eqs. 24–28) on the local form.
//!
//! The energy of the contact impulses is `E(r) = ½ rᵀ W r + qᵀ r` (its gradient is `u`), which
//! is the W-metric form of 000's projections: the printed `M_e` norm of (24)–(25) is its inverse,
//! the Delassus operator, which is the metric in which maximal dissipation is a projection. Each
//! outer iteration alternates
//! * `P_T`: friction at fixed normal impulses, `min E` over `r_T,c = (μ_t α cos θ, μ_b α sin θ)`,
//!   `0 ≤ α ≤ r_N,c` (eq. 28; the ellipse of an elliptic cone comes for free in this form);
//! * `P_N`: normal impulses at fixed friction, `min E` over `r_N ≥ 0` (eq. 25).
//!
//! Both are solved by block coordinate descent over the contacts (each pass is counted as one
//! inner iteration, 000's `i_k`): a contact's friction subproblem is a 2×2 quadratic over an
//! ellipse; its unconstrained minimum is taken when `α < r_N`, otherwise Newton's method in `θ`
//! on the boundary `α = r_N`. With a block-diagonal `W` (a body against a static field, where
//! `W = J M⁻¹ Jᵀ` couples no two contacts) one pass is exact and the second confirms it. Where
//! contacts are coupled and passes alone do not finish the projection, Newton steps over all the
//! contacts at once take over ([`super::polar_newton`]; each counted as one inner iteration).
//! The outer loop stops on the natural-map error like every solver of this module, or by
//! choice on 000's own rule, the relative change of the friction impulse ([`PolarStop`]).
// Numeric kernels index several parallel arrays with one counter; iterator zips would hide that.
#![allow(clippy::needless_range_loop)]

use super::polar_newton::{self, DenseW};
use super::problem::LocalProblem;
use super::residual::local_error;
use super::solver::{SolveReport, SolverOptions, check_buffers};
use crate::friction::cone::project_ellipse;
use std::time::Instant;

/// Passes over the contacts per projection before it is cut short (each pass is exact per
/// contact; coupled contacts converge linearly, and the outer loop absorbs a cut-short pass).
const MAX_PASSES: usize = 200;
/// A projection has converged when no impulse changed in a pass by more than this fraction of
/// the outer tolerance times the largest impulse: an inner error well below what the outer loop
/// measures, without sweeping a coupled block to round-off.
const PASS_TOL: f64 = 1e-2;
/// Gauss–Seidel passes before a projection tries Newton steps: enough to settle which contacts
/// are at a bound, which the Newton step takes as given (it is then exact on a linear-rate
/// problem), and no more: on the 81-contact block each pass removes under 10 % of the error.
const PASSES_BEFORE_NEWTON: usize = 3;
/// Newton iterations on `θ` per contact (it converges quadratically from the Euclidean
/// projection's angle; the cap only guards a degenerate `W` block).
const MAX_THETA_NEWTON: usize = 50;

/// Work of one solve: projections run and the passes over the contacts and Newton steps they
/// took (000 Table 2's `k_t` is `iterations` of the report, its `i_k` is `passes / projections`).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct ProjectionCounts {
    pub projections: usize,
    pub passes: usize,
}

/// When the outer loop stops.
#[derive(Clone, Copy, Debug, Default, PartialEq, serde::Serialize, serde::Deserialize)]
pub enum PolarStop {
    /// The natural-map error reaches the tolerance (every solver's rule).
    #[default]
    NaturalMap,
    /// 000's rule (§6): the friction impulse changed by less than this fraction of its norm in
    /// the last outer iteration (000 uses 1e-4), so that the iteration counts `k_t` compare with
    /// its Table 2. The natural-map error reached is still reported.
    RelativeChange(f64),
}

/// Solve the local problem (the `sp-polar` solver of [`super::dispatch`]).
pub fn solve(p: &LocalProblem, r: &mut [f64], u: &mut [f64], opts: &SolverOptions) -> SolveReport {
    solve_counted(p, r, u, opts, PolarStop::NaturalMap, true).0
}

/// [`solve`] with the stop rule `stop`, with or without the projections' Newton steps
/// (`newton: false` is Gauss–Seidel alone, for comparison), also returning the inner work.
pub fn solve_counted(
    p: &LocalProblem,
    r: &mut [f64],
    u: &mut [f64],
    opts: &SolverOptions,
    stop: PolarStop,
    newton: bool,
) -> (SolveReport, ProjectionCounts) {
    const NAME: &str = "sp-polar";
    let n = 3 * p.nc();
    if let Some(rep) = check_buffers(NAME, n, r, u) {
        return (rep, ProjectionCounts::default());
    }
    let start = Instant::now();
    let mut counts = ProjectionCounts::default();
    for c in 0..p.nc() {
        r[3 * c] = r[3 * c].max(0.0);
        let k = &p.cones[c];
        let [a, b] = project_ellipse([r[3 * c + 1], r[3 * c + 2]], k.mu_t * r[3 * c], k.mu_b * r[3 * c]);
        r[3 * c + 1] = a;
        r[3 * c + 2] = b;
    }
    p.velocity(r, u);
    let mut err = local_error(p, r, u);
    let (mut it, mut reason) = (0, "iteration limit");
    let mut friction_before = vec![0.0; 2 * p.nc()];
    let dense = if newton { DenseW::new(p) } else { None };
    let mut small_change = false;
    while it < opts.max_iter {
        if let Some(why) = opts.stop_reason(err.rel, start) {
            reason = why;
            break;
        }
        if small_change {
            reason = "relative change of the friction impulse below the stop rule's";
            break;
        }
        it += 1;
        for c in 0..p.nc() {
            friction_before[2 * c..2 * c + 2].copy_from_slice(&r[3 * c + 1..3 * c + 3]);
        }
        let tol = PASS_TOL * opts.tol;
        counts.passes += project(p, r, tol, friction_update, dense.as_ref().map(|d| (d, FRICTION)));
        counts.passes += project(p, r, tol, normal_update, dense.as_ref().map(|d| (d, NORMAL)));
        counts.projections += 2;
        p.velocity(r, u);
        err = local_error(p, r, u);
        if !err.natmap_abs.is_finite() {
            reason = "diverged (non-finite iterate)";
            break;
        }
        if let PolarStop::RelativeChange(eps) = stop {
            small_change = friction_change(r, &friction_before) <= eps;
        }
    }
    let details = format_args!("{} projections, {} passes", counts.projections, counts.passes);
    let mut report = SolveReport::finish(NAME, &err, opts, it, start, reason, details);
    if small_change && !report.converged {
        // The caller chose 000's rule: it is met, and the natural-map error says how far that is.
        report.converged = true;
    }
    (report, counts)
}

/// `|r_T - before| / |r_T|` over all contacts (0 when there is no friction at all).
fn friction_change(r: &[f64], before: &[f64]) -> f64 {
    let (mut diff, mut norm) = (0.0, 0.0);
    for (c, b) in before.chunks(2).enumerate() {
        let (t, bn) = (r[3 * c + 1], r[3 * c + 2]);
        diff += (t - b[0]).powi(2) + (bn - b[1]).powi(2);
        norm += t * t + bn * bn;
    }
    if norm > 0.0 { (diff / norm).sqrt() } else { diff.sqrt() }
}

/// A projection's Newton step over all contacts ([`polar_newton`]): its optimality error after,
/// or `None` if not taken.
type NewtonStep = fn(&LocalProblem, &DenseW, &mut [f64]) -> Option<f64>;
const FRICTION: NewtonStep = polar_newton::friction_step;
const NORMAL: NewtonStep = polar_newton::normal_step;

/// One projection: passes of `update` over the contacts until a pass changes nothing (relative
/// to the largest impulse), with a Newton step after each pass from the
/// [`PASSES_BEFORE_NEWTON`]th on (after a refused step, twice as many passes as before first);
/// returns the passes and Newton steps (000's `i_k` counts both).
fn project(
    p: &LocalProblem,
    r: &mut [f64],
    tol: f64,
    update: fn(&LocalProblem, usize, [f64; 3], &mut [f64]) -> f64,
    newton: Option<(&DenseW, NewtonStep)>,
) -> usize {
    let (mut work, mut next_newton, mut backoff) = (0, PASSES_BEFORE_NEWTON, PASSES_BEFORE_NEWTON);
    for pass in 1..=MAX_PASSES {
        work += 1;
        let mut change = 0.0f64;
        for c in 0..p.nc() {
            let o = p.blocks.off_diag_row(c, r);
            let uc = [p.q[3 * c] + o[0], p.q[3 * c + 1] + o[1], p.q[3 * c + 2] + o[2]];
            change = change.max(update(p, c, uc, r));
        }
        let scale = r.iter().fold(0.0f64, |m, x| m.max(x.abs()));
        if change <= tol * scale || scale == 0.0 {
            return work;
        }
        if let Some((dense, step)) = newton.filter(|_| pass >= next_newton) {
            work += 1;
            match step(p, dense, r) {
                // The error is a contact's distance to its optimum, the measure of a pass's change
                // (and a pass after an exact step would only stir round-off: measured, a cycle
                // at 1.04 times the tolerance between the two for 200 passes).
                Some(error) if error <= tol * scale => return work,
                Some(_) => {}
                // A wrong active set, or a singular block: Gauss–Seidel passes first, twice as
                // many after each refusal (a factorisation wasted every few passes cost more
                // than the passes on a rigid body's rank-6 W).
                None => {
                    next_newton = pass + backoff;
                    backoff *= 2;
                }
            }
        }
    }
    work
}

/// `P_N` for contact `c`: `r_N = max(0, r_N − u_N / W_NN)` with `u_N` the normal velocity at the
/// current impulses (exact minimum over `r_N ≥ 0` at fixed friction). `o` is the velocity
/// without the contact's own impulse. Returns the change.
fn normal_update(p: &LocalProblem, c: usize, o: [f64; 3], r: &mut [f64]) -> f64 {
    let d = &p.blocks.diag[c];
    if d[0] <= 0.0 {
        return 0.0;
    }
    let un_other = o[0] + d[1] * r[3 * c + 1] + d[2] * r[3 * c + 2];
    let new = (-un_other / d[0]).max(0.0);
    let change = (new - r[3 * c]).abs();
    r[3 * c] = new;
    change
}

/// `P_T` for contact `c` in polar form: the friction impulse minimizing `½ yᵀ W_TT y + gᵀ y` over
/// the ellipse `(μ_t α cos θ, μ_b α sin θ)`, `0 ≤ α ≤ r_N`. Returns the change.
fn friction_update(p: &LocalProblem, c: usize, o: [f64; 3], r: &mut [f64]) -> f64 {
    let d = &p.blocks.diag[c];
    let rn = r[3 * c];
    let k = &p.cones[c];
    let (a, b) = (k.mu_t * rn, k.mu_b * rn);
    let g = [o[1] + d[3] * rn, o[2] + d[6] * rn];
    let w = [[d[4], d[5]], [d[7], d[8]]];
    let new = if a <= 0.0 || b <= 0.0 { [0.0, 0.0] } else { ellipse_minimum(w, g, a, b) };
    let change = (new[0] - r[3 * c + 1]).abs().max((new[1] - r[3 * c + 2]).abs());
    r[3 * c + 1] = new[0];
    r[3 * c + 2] = new[1];
    change
}

/// Minimum of `f(y) = ½ yᵀ W y + gᵀ y` (W symmetric positive definite 2×2) over the ellipse with
/// semi-axes `a`, `b`: the unconstrained minimum where it lies inside (`α < r_N`), otherwise the
/// boundary point `(a cos θ, b sin θ)` found by Newton's method on `f(θ)` from the angle of the
/// Euclidean projection of the unconstrained minimum.
pub fn ellipse_minimum(w: [[f64; 2]; 2], g: [f64; 2], a: f64, b: f64) -> [f64; 2] {
    let det = w[0][0] * w[1][1] - w[0][1] * w[1][0];
    let free = if det > 0.0 {
        [(-w[1][1] * g[0] + w[0][1] * g[1]) / det, (w[1][0] * g[0] - w[0][0] * g[1]) / det]
    } else {
        // A singular block (a contact whose tangential motion no dof reaches): steepest descent
        // direction, scaled onto the ellipse below.
        [-g[0] * 1e300, -g[1] * 1e300]
    };
    if (free[0] / a).powi(2) + (free[1] / b).powi(2) <= 1.0 {
        return free;
    }
    let start = project_ellipse(free, a, b);
    let mut theta = (start[1] / b).atan2(start[0] / a);
    let f = |t: f64| {
        let y = [a * t.cos(), b * t.sin()];
        0.5 * (y[0] * (w[0][0] * y[0] + w[0][1] * y[1]) + y[1] * (w[1][0] * y[0] + w[1][1] * y[1]))
            + g[0] * y[0]
            + g[1] * y[1]
    };
    for _ in 0..MAX_THETA_NEWTON {
        let (s, co) = theta.sin_cos();
        let y = [a * co, b * s];
        let dy = [-a * s, b * co];
        let grad = [w[0][0] * y[0] + w[0][1] * y[1] + g[0], w[1][0] * y[0] + w[1][1] * y[1] + g[1]];
        let d1 = grad[0] * dy[0] + grad[1] * dy[1];
        let wdy = [w[0][0] * dy[0] + w[0][1] * dy[1], w[1][0] * dy[0] + w[1][1] * dy[1]];
        let d2 = dy[0] * wdy[0] + dy[1] * wdy[1] - (grad[0] * y[0] + grad[1] * y[1]);
        // Newton where f is convex in θ, otherwise a gradient step of the curvature scale.
        let curvature = if d2 > 0.0 { d2 } else { (w[0][0] + w[1][1]).abs() * a.max(b).powi(2) + d1.abs() };
        let mut step = -d1 / curvature;
        let f0 = f(theta);
        while f(theta + step) > f0 && step.abs() > 1e-16 {
            step *= 0.5;
        }
        theta += step;
        if step.abs() <= 1e-15 * (1.0 + theta.abs()) {
            break;
        }
    }
    [a * theta.cos(), b * theta.sin()]
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The boundary minimum agrees with a dense scan of the ellipse (fine angle grid, then the
    /// interior is checked to be no better), for skewed W and elliptic axes.
    #[test]
    fn ellipse_minimum_matches_a_scan() {
        let cases = [
            ([[2.0, 0.3], [0.3, 1.0]], [3.0, -1.0], 0.5, 0.2),
            ([[1.0, 0.0], [0.0, 1.0]], [0.1, 0.05], 0.5, 0.5),
            ([[5.0, -2.0], [-2.0, 1.5]], [-4.0, 7.0], 1.0, 0.1),
        ];
        for (w, g, a, b) in cases {
            let y = ellipse_minimum(w, g, a, b);
            let f = |y: [f64; 2]| {
                0.5 * (y[0] * (w[0][0] * y[0] + w[0][1] * y[1]) + y[1] * (w[1][0] * y[0] + w[1][1] * y[1]))
                    + g[0] * y[0]
                    + g[1] * y[1]
            };
            let mut best = f64::INFINITY;
            for i in 0..2000 {
                for j in 0..=200 {
                    let (t, s) = (i as f64 * std::f64::consts::TAU / 2000.0, j as f64 / 200.0);
                    best = best.min(f([s * a * t.cos(), s * b * t.sin()]));
                }
            }
            // The grid's angular step (3e-3 rad) leaves a quadratic error ~ |W| (a dt)^2 below 1e-4.
            assert!(f(y) <= best + 1e-12, "{y:?}: {} vs grid {best}", f(y));
            assert!(f(y) >= best - 1e-4, "{y:?}: {} vs grid {best}", f(y));
            assert!((y[0] / a).powi(2) + (y[1] / b).powi(2) <= 1.0 + 1e-12);
        }
    }
}
