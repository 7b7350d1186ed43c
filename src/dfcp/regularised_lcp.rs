//! The regularised iterative LCP baseline of 002 (§5.7: "a regularized iterative LCP method
//! [Cottle, Pang & Stone 1992] for the full Stewart–Trinkle LCP"): projected Gauss–Seidel on the
//! LCP with a Tikhonov term `ε |y − y_k|²` centred at the last iterate (the proximal form of CPS
//! §5.6's regularisation), one sweep per centre:
//!
//! `y_i <- max(0, y_i − (A y + b)_i / (A_ii + ε))`.
//!
//! Its fixed points are exactly the LCP's solutions, and the term gives the Coulomb rows, whose
//! diagonal is zero, a pivot. Why the centre moves and ε stays: the Coulomb rows couple to the
//! friction rows skew-symmetrically (`+E`, `−Eᵀ`), and Gauss–Seidel on that coupling with the
//! Tikhonov term centred at zero has the rate `1 / ((1 + ε) ε)` on the equilibrated LCP (one
//! contact, one active sample), so it diverges for ε below 0.62 and cannot take ε to zero; with
//! the moving centre the same 2x2 analysis gives the rate 0.71 at ε = 1 and divergence only below
//! ε ≈ 0.3. Measured with the zero-centred form and ε divided by 10 per solved subproblem, the
//! one-contact FCLib problem stalled at ε = 1 with a natural-map error of 0.06.
//!
//! The thesis reports the method failing with friction "regardless of the number of
//! iterations". The answer is judged by the exact cone's natural map after every sweep.
// Numeric kernels index several parallel arrays with one counter; iterator zips would hide that.
#![allow(clippy::needless_range_loop)]

use super::problem::LocalProblem;
use super::residual::local_error;
use super::solver::{SolveReport, SolverOptions, check_buffers};
use super::stewart_trinkle::StewartTrinkle;
use std::time::Instant;

/// The proximal weight on the equilibrated LCP (unit diagonal on the impulse rows): the rate of
/// the 2x2 model above is best near 1 (0.71) and the method slows as ε grows (0.95 at 10).
const EPS: f64 = 1.0;
/// The LCP counts as solved at this fraction of the tolerance: its relative residual and the
/// natural map's are scaled differently (a rolling ball's step: natural map 7.5 times the LCP's),
/// and a stop at the tolerance itself left unfaceted problems short of it.
const LCP_MARGIN: f64 = 1e-2;
/// Sweeps between checks of the LCP's own residual (one product with `A`, the cost of a sweep).
const LCP_CHECK: usize = 10;

pub fn solve(p: &LocalProblem, r: &mut [f64], u: &mut [f64], opts: &SolverOptions) -> SolveReport {
    solve_with(p, r, u, opts, super::lemke_st::DEFAULT_SAMPLES)
}

/// `opts.max_iter` bounds the sweeps. The normal impulses of `r` warm-start `α`; friction starts
/// from zero (as in Staggered Projections' polygon, where a sample decomposition is not unique).
pub fn solve_with(p: &LocalProblem, r: &mut [f64], u: &mut [f64], opts: &SolverOptions, k: usize) -> SolveReport {
    const NAME: &str = "reg-lcp";
    if let Some(rep) = check_buffers(NAME, 3 * p.nc(), r, u) {
        return rep;
    }
    let start = Instant::now();
    let st = StewartTrinkle::new(p, k);
    let mut y = vec![0.0; st.n()];
    (0..p.nc()).for_each(|c| y[st.alpha(c)] = r[3 * c].max(0.0) / st.scale[st.alpha(c)]);
    let diag = diagonal(&st);
    st.forces(&y, r);
    p.velocity(r, u);
    let mut err = local_error(p, r, u);
    let (mut sweeps, mut reason) = (0, "sweep limit");
    while sweeps < opts.max_iter {
        if let Some(why) = opts.stop_reason(err.rel, start) {
            reason = why;
            break;
        }
        sweep(&st, &diag, &mut y);
        sweeps += 1;
        st.forces(&y, r);
        p.velocity(r, u);
        err = local_error(p, r, u);
        if !err.natmap_abs.is_finite() {
            reason = "diverged (non-finite iterate)";
            break;
        }
        // Its own problem solved, the faceting error stays: further sweeps cannot lower it.
        if sweeps % LCP_CHECK == 0 && err.rel > opts.tol && st.residual(&y).rel <= LCP_MARGIN * opts.tol {
            reason = "LCP solved, exact-cone error above tolerance (faceting)";
            break;
        }
    }
    let lcp = st.residual(&y);
    SolveReport::finish(
        NAME,
        &err,
        opts,
        sweeps,
        start,
        reason,
        format_args!("{k} samples, LCP residual {:.2e} (rel {:.2e})", lcp.abs, lcp.rel),
    )
}

/// One proximal Gauss–Seidel sweep, in place.
fn sweep(st: &StewartTrinkle, diag: &[f64], y: &mut [f64]) {
    let rows = st.rows.as_ref();
    for i in 0..y.len() {
        let mut w = st.b[i];
        for (j, a) in rows.row_idx_of_col_raw(i).iter().zip(rows.val_of_col(i)) {
            w += a * y[*j];
        }
        y[i] = (y[i] - w / (diag[i] + EPS)).max(0.0);
    }
}

fn diagonal(st: &StewartTrinkle) -> Vec<f64> {
    let rows = st.rows.as_ref();
    (0..st.n())
        .map(|i| {
            rows.row_idx_of_col_raw(i).iter().zip(rows.val_of_col(i)).filter(|(j, _)| **j == i).map(|(_, a)| *a).sum()
        })
        .collect()
}
