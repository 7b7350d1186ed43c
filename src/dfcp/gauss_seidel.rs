//! Block Gauss–Seidel on the local form with an exact one-contact solver (the workhorse).
//!
//! One sweep visits the contacts in order; contact `c` sees `u* = q_c + sum_{d != c} W_cd r_d`
//! and gets the exact solution of its one-contact problem: the closed form of 004 §3 when
//! `W_cc = s I` and the cone is isotropic, the enumerative solver of
//! [`crate::friction::local_solver`] otherwise (full 3x3 blocks, elliptic cones). The
//! natural-map error is measured after every sweep once within 10x of the tolerance, every
//! `CHECK_EVERY` sweeps before, and always on the returned iterate.

use super::problem::LocalProblem;
use super::residual::local_error;
use super::solver::{SolveReport, SolverOptions, check_buffers};
use crate::friction::local_solver::{ContactCase, solve_contact, solve_isotropic_diagonal};
use std::time::Instant;

/// Sweeps between error measurements while far from the tolerance.
const CHECK_EVERY: usize = 8;

/// `Some(s)` if the block is `s I` with `s > 0` up to round-off (64 ulps of `s`): nodal
/// Jacobians `R_c^T` with orthonormal frames give `R^T R / w = I / w` only to rounding, and the
/// closed form on the mean diagonal is then exact to the same rounding.
pub fn isotropic_diagonal(b: &[f64; 9]) -> Option<f64> {
    let s = (b[0] + b[4] + b[8]) / 3.0;
    let tol = 64.0 * f64::EPSILON * s;
    let dev = [b[0] - s, b[4] - s, b[8] - s, b[1], b[2], b[3], b[5], b[6], b[7]];
    (s > 0.0 && dev.iter().all(|x| x.abs() <= tol)).then_some(s)
}

/// Solve the local problem. `r` is the warm start and the result; `u` receives `W r + q`.
pub fn solve(p: &LocalProblem, r: &mut [f64], u: &mut [f64], opts: &SolverOptions) -> SolveReport {
    const NAME: &str = "gs";
    let n = 3 * p.nc();
    if let Some(rep) = check_buffers(NAME, n, r, u) {
        return rep;
    }
    let start = Instant::now();
    let b = &p.blocks;
    let diag_s: Vec<Option<f64>> =
        (0..p.nc()).map(|c| if p.cones[c].is_isotropic() { isotropic_diagonal(&b.diag[c]) } else { None }).collect();
    let mut fallbacks = 0usize;
    let mut it = 0;
    let mut err = {
        p.velocity(r, u);
        local_error(p, r, u)
    };
    let mut reason = "iteration limit";
    while it < opts.max_iter {
        if let Some(why) = opts.stop_reason(err.rel, start) {
            reason = why;
            break;
        }
        it += 1;
        for c in 0..p.nc() {
            let o = b.off_diag_row(c, r);
            let us = [p.q[3 * c] + o[0], p.q[3 * c + 1] + o[1], p.q[3 * c + 2] + o[2]];
            let rc = [r[3 * c], r[3 * c + 1], r[3 * c + 2]];
            let new = match diag_s[c] {
                Some(s) => {
                    let (uc, _) = solve_isotropic_diagonal(us, p.cones[c].mu_t);
                    [(uc[0] - us[0]) / s, (uc[1] - us[1]) / s, (uc[2] - us[2]) / s]
                }
                None => {
                    let (rn, case) = solve_contact(&b.diag[c], us, &p.cones[c], rc);
                    fallbacks += (case == ContactCase::Fallback) as usize;
                    rn
                }
            };
            r[3 * c..3 * c + 3].copy_from_slice(&new);
        }
        // The full error costs about one sweep. Far from the tolerance it is measured every
        // CHECK_EVERY sweeps (the solve may then run up to CHECK_EVERY - 1 extra sweeps); within
        // a factor 10 of it, every sweep. The last iterate is always measured.
        let far = err.rel > 10.0 * opts.tol;
        if far && it % CHECK_EVERY != 0 && it < opts.max_iter && !opts.out_of_time(start) {
            continue;
        }
        p.velocity(r, u);
        err = local_error(p, r, u);
        if !err.natmap_abs.is_finite() {
            reason = "diverged (non-finite iterate)";
            break;
        }
    }
    SolveReport::finish(NAME, &err, opts, it, start, reason, format_args!("{fallbacks} local fallbacks"))
}
