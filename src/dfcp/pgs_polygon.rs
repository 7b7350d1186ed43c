//! Projected Gauss–Seidel on the LCP whose friction cone is a polygon inscribed in the
//! friction ellipse (003 §3.4's "polyhedral cone": `k` rays from the origin of the limit
//! surface, one complementarity condition per facet; 002's Stewart–Trinkle samples): the
//! baseline between the box of [`super::pgs_lcp`] and the exact ellipse of PROX. Per contact,
//! the normal impulse by its diagonal, then the tangential impulse by one block step
//! `r_T <- Π_P(r_T − u_T / λ_max(W_TT))` onto the polygon `P` scaled by the normal impulse. A
//! scalar step makes the Euclidean projection's fixed points those of the polygon's contact law
//! (maximal dissipation on `P`); a per-component step, as the box takes, would not.
//!
//! It solves the faceted problem: its answer is judged by the exact cone's natural map, whose
//! error plateaus at the faceting error (about `1 − cos(π/k)` of the friction force) where
//! contacts slide off the samples, reported as a failure when the tolerance is below it.

use super::problem::LocalProblem;
use super::solver::{SolveReport, SolverOptions, check_buffers, sweep_until};
use super::stewart_trinkle::cone_samples;
use crate::friction::cone::project_polygon;
use std::time::Instant;

pub fn solve(p: &LocalProblem, r: &mut [f64], u: &mut [f64], opts: &SolverOptions) -> SolveReport {
    solve_with(p, r, u, opts, super::lemke_st::DEFAULT_SAMPLES)
}

/// `k` samples per contact on its friction ellipse; `opts.max_iter` bounds the sweeps.
pub fn solve_with(p: &LocalProblem, r: &mut [f64], u: &mut [f64], opts: &SolverOptions, k: usize) -> SolveReport {
    const NAME: &str = "pgs-polygon";
    if let Some(rep) = check_buffers(NAME, 3 * p.nc(), r, u) {
        return rep;
    }
    let start = Instant::now();
    let dirs = cone_samples(&p.cones, k);
    let steps: Vec<[f64; 2]> = p.blocks.diag.iter().map(|d| [d[0], tangential_lambda_max(d)]).collect();
    let (err, it, reason) = sweep_until(p, r, u, opts, start, |r| {
        (0..p.nc()).for_each(|c| sweep_contact(p, c, &steps[c], &dirs[k * c..k * (c + 1)], r))
    });
    SolveReport::finish(NAME, &err, opts, it, start, reason, format_args!("{k}-gon inscribed in the friction ellipse"))
}

/// Contact `c`'s update: normal by its diagonal `step[0]`, then the tangential block step by
/// `step[1]` and the projection onto the polygon `dirs` (unit normal impulse) times `r_N`.
fn sweep_contact(p: &LocalProblem, c: usize, step: &[f64; 2], dirs: &[[f64; 2]], r: &mut [f64]) {
    let b = &p.blocks;
    let o = b.off_diag_row(c, r);
    let d = &b.diag[c];
    let row = |i: usize, r: &[f64]| {
        p.q[3 * c + i] + o[i] + d[3 * i] * r[3 * c] + d[3 * i + 1] * r[3 * c + 1] + d[3 * i + 2] * r[3 * c + 2]
    };
    if step[0] > 0.0 {
        r[3 * c] = (r[3 * c] - row(0, r) / step[0]).max(0.0);
    }
    if step[1] > 0.0 {
        let ut = [row(1, r), row(2, r)];
        let x = [r[3 * c + 1] - ut[0] / step[1], r[3 * c + 2] - ut[1] / step[1]];
        let f = project_polygon(x, dirs, r[3 * c]);
        r[3 * c + 1] = f[0];
        r[3 * c + 2] = f[1];
    }
}

/// Largest eigenvalue of the tangential 2x2 block of a row-major 3x3 diagonal block (its
/// symmetric part).
fn tangential_lambda_max(d: &[f64; 9]) -> f64 {
    let (a, b, e) = (d[4], 0.5 * (d[5] + d[7]), d[8]);
    0.5 * (a + e) + (0.25 * (a - e) * (a - e) + b * b).sqrt()
}
