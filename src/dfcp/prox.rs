//! PROX Gauss–Seidel with r-factors and the divergence back-off of 003 Algorithm 2.
//!
//! Per contact `c`: `z = r_c - rho_c u_c` (with the current `u_c = (W r + q)_c`),
//! `r_N = max(0, z_N)`, `r_T = P_E(r_N)(z_T)` with `E(r_N)` the friction ellipse of semi-axes
//! `mu_t r_N`, `mu_b r_N` (exact projection, 1-D root find). One **scalar** `rho_c` per contact:
//! a per-component r-factor would change the fixed point of the tangential prox away from maximal
//! dissipation (digest 003 §3.2, "metric caution"). `rho_c = 1 / max_i (W_cc)_ii` initially
//! ([R]'s "local" strategy, made scalar). After each sweep, if `eps = |r^{k+1} - r^k|_inf`
//! grew, every `rho_c` is multiplied by `nu` and the sweep is rejected (rolled back).

use super::problem::LocalProblem;
use super::residual::{LocalError, local_error};
use super::solver::{ProxCounts, SolveReport, SolverOptions, check_buffers};
use crate::friction::cone::project_ellipse;
use std::time::Instant;

/// PROX parameters.
#[derive(Clone, Debug)]
pub struct ProxParams {
    /// Reduction factor of the r-factors on divergence (003's ν; [R] uses 0.9).
    pub nu: f64,
    /// Scale of the initial r-factor `rho_c = scale / max diag(W_cc)`.
    pub rho_scale: f64,
}

impl Default for ProxParams {
    fn default() -> Self {
        ProxParams { nu: 0.9, rho_scale: 1.0 }
    }
}

pub fn solve(p: &LocalProblem, r: &mut [f64], u: &mut [f64], opts: &SolverOptions) -> SolveReport {
    solve_with(p, r, u, opts, &ProxParams::default())
}

pub fn solve_with(
    p: &LocalProblem,
    r: &mut [f64],
    u: &mut [f64],
    opts: &SolverOptions,
    prm: &ProxParams,
) -> SolveReport {
    const NAME: &str = "prox";
    let n = 3 * p.nc();
    if let Some(rep) = check_buffers(NAME, n, r, u) {
        return rep;
    }
    let start = Instant::now();
    let b = &p.blocks;
    let mut rho: Vec<f64> = b
        .diag
        .iter()
        .map(|d| {
            let m = d[0].max(d[4]).max(d[8]);
            if m > 0.0 { prm.rho_scale / m } else { 1.0 }
        })
        .collect();
    let measure = |r: &[f64], u: &mut [f64]| {
        p.velocity(r, u);
        local_error(p, r, u)
    };
    let sweep = |r: &mut [f64], rho: &[f64]| {
        let mut eps = 0.0f64;
        for c in 0..p.nc() {
            let o = b.off_diag_row(c, r);
            let d = &b.diag[c];
            let rc = [r[3 * c], r[3 * c + 1], r[3 * c + 2]];
            let uc = [
                p.q[3 * c] + o[0] + d[0] * rc[0] + d[1] * rc[1] + d[2] * rc[2],
                p.q[3 * c + 1] + o[1] + d[3] * rc[0] + d[4] * rc[1] + d[5] * rc[2],
                p.q[3 * c + 2] + o[2] + d[6] * rc[0] + d[7] * rc[1] + d[8] * rc[2],
            ];
            let k = &p.cones[c];
            let z = [rc[0] - rho[c] * uc[0], rc[1] - rho[c] * uc[1], rc[2] - rho[c] * uc[2]];
            let rn = z[0].max(0.0);
            let t = project_ellipse([z[1], z[2]], k.mu_t * rn, k.mu_b * rn);
            let new = [rn, t[0], t[1]];
            for i in 0..3 {
                eps = eps.max((new[i] - rc[i]).abs());
            }
            r[3 * c..3 * c + 3].copy_from_slice(&new);
        }
        eps
    };
    let (err, it, counts, reason) = iterate(r, u, &mut rho, opts, prm, start, measure, sweep);
    report(NAME, &err, opts, prm, (it, counts), start, reason)
}

/// The report of a PROX solve, with its sweep counts.
pub(crate) fn report(
    name: &'static str,
    err: &LocalError,
    opts: &SolverOptions,
    prm: &ProxParams,
    (it, counts): (usize, ProxCounts),
    start: Instant,
    reason: &str,
) -> SolveReport {
    let details = format_args!("{} sweeps, {} rejected (r-factor x{} each)", counts.sweeps, counts.rejected, prm.nu);
    SolveReport { prox: Some(counts), ..SolveReport::finish(name, err, opts, it, start, reason, details) }
}

/// 003 Algorithm 2's outer loop: `sweep` (given the r-factors, returning the sweep's largest
/// change) until `measure` (which fills `u`) meets the tolerance or a limit is reached; a sweep
/// whose change grew is rolled back and every r-factor multiplied by `ν`. Returns the final
/// error, the iterations, the sweep counts and why it stopped.
#[allow(clippy::too_many_arguments)]
pub(crate) fn iterate(
    r: &mut [f64],
    u: &mut [f64],
    rho: &mut [f64],
    opts: &SolverOptions,
    prm: &ProxParams,
    start: Instant,
    mut measure: impl FnMut(&[f64], &mut [f64]) -> LocalError,
    mut sweep: impl FnMut(&mut [f64], &[f64]) -> f64,
) -> (LocalError, usize, ProxCounts, &'static str) {
    let mut r_old = r.to_vec();
    let mut eps_prev = f64::INFINITY;
    let (mut it, mut sweeps, mut rejections) = (0usize, 0usize, 0usize);
    let mut err = measure(r, u);
    let mut reason = "iteration limit";
    while it < opts.max_iter {
        if let Some(why) = opts.stop_reason(err.rel, start) {
            reason = why;
            break;
        }
        it += 1;
        sweeps += 1;
        r_old.copy_from_slice(r);
        let eps = sweep(r, rho);
        if eps > eps_prev || !eps.is_finite() {
            // Divergence: shrink the r-factors and reject the sweep (003 Alg. 2, lines 13-14).
            r.copy_from_slice(&r_old);
            rho.iter_mut().for_each(|x| *x *= prm.nu);
            rejections += 1;
            // Accept the next sweep's eps as the new reference so a smaller rho can make progress.
            eps_prev = f64::INFINITY;
            continue;
        }
        eps_prev = eps;
        err = measure(r, u);
    }
    err = measure(r, u);
    (err, it, ProxCounts { sweeps, rejected: rejections }, reason)
}
