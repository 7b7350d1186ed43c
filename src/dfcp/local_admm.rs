//! ADMM on the local (Delassus) form with an adaptive penalty. With the De Saxcé shift
//! `s = (μ|u_T|, 0, 0)` of the current `u = W r + q` folded into every iteration, the Coulomb
//! problem is the cone-constrained fixed point of `min ½ rᵀWr + (q + s)ᵀr, r ∈ K`, split as
//! `r` (the quadratic) and `z ∈ K` (the cone) with the scaled dual `ξ`:
//!
//! ```text
//! r = (W + ρI)⁻¹ (ρ (ẑ − ξ̂) − q − s)      one factorisation per ρ
//! z = Π_K(r + ξ̂)                           per contact, closed form
//! ξ = ξ̂ + r − z
//! ```
//!
//! accelerated (Nesterov, with a restart whenever the combined residual fails to fall by η, as
//! in Goldstein et al.'s fast ADMM). ρ starts at `W`'s mean diagonal over 20 and is adapted only
//! when the error stops falling: then it is balanced between the primal residual `|r − z|` and
//! the dual residual `ρ|ẑ − z|`, each relative to its scale (Boyd et al. §3.4.1), a residual ten
//! times the other doubling or halving ρ (the dual rescaled, `W + ρI` refactored). An iterate
//! that runs away is replaced by the best one with ρ ten times larger. The iterate reported is `z` (in the cones) with `u = W z + q`, and the
//! solve stops on its natural-map error. A symmetric `W` is factored by sparse Cholesky, a
//! non-symmetric one (rigid bodies with gyroscopic terms, some FCLib problems) by sparse LU.
//! Elliptic cones go through the equivalent isotropic problem.

// Numeric kernels index several parallel arrays with one counter; iterator zips would hide that.
#![allow(clippy::needless_range_loop)]

use super::global_reduction::is_symmetric_within;
use super::problem::{LocalProblem, norm2};
use super::residual::local_error;
use super::solver::{SolveReport, SolverOptions, check_buffers, rejected};
use crate::friction::cone::{hyp, project_isotropic};
use faer::linalg::solvers::SolveCore;
use faer::sparse::linalg::solvers::{Llt, Lu, SymbolicLlt, SymbolicLu};
use faer::{Conj, MatMut, Side};
use std::time::Instant;

/// ρ starts at this fraction of `W`'s mean diagonal and stays there while the error falls.
/// Measured at a constant ρ on the shared problems (iterations to 1e-8, before the dual was
/// started at `−û/ρ`): w̄/20 converges on every one but RockPile (Kaplas 53, Capsules 545,
/// PerioBox 31, BoxesStack 31k); w̄ itself stalls on BoxesStack and takes 149 on Kaplas; w̄/50
/// takes 1430 on Capsules. Balancing ρ at every
/// iteration (Boyd's rule) did worse than any of these: BoxesStack stalled at 3e-4.
const RHO_START: f64 = 0.05;
/// Residual balancing, only when the error has not halved for `STALL` iterations: a residual
/// `BALANCE` times the other changes ρ by `RHO_STEP`.
const STALL: usize = 200;
const BALANCE: f64 = 10.0;
const RHO_STEP: f64 = 2.0;
/// A diverging iterate (error above this many times its best) is replaced by the best, with ρ
/// multiplied by `BLOW_UP_RHO`: the De Saxcé fixed point can run away when ρ is too small.
const BLOW_UP: f64 = 1e3;
const BLOW_UP_RHO: f64 = 10.0;
/// Acceleration restarts when the combined residual does not fall below η times the last one.
const ETA: f64 = 0.999;

/// `W` counts as symmetric when `max|W − Wᵀ|` is below this fraction of `max|W|`.
const SYMMETRY_TOL: f64 = 1e-12;

const NAME: &str = "admm-local";

pub fn solve(p: &LocalProblem, r: &mut [f64], u: &mut [f64], opts: &SolverOptions) -> SolveReport {
    let n = 3 * p.nc();
    if let Some(rep) = check_buffers(NAME, n, r, u) {
        return rep;
    }
    if let Some((ps, s)) = p.scaled_isotropic() {
        return super::isotropic::solve_scaled(p, &ps, &s, r, u, opts, NAME, solve);
    }
    let start = Instant::now();
    let mu: Vec<f64> = p.cones.iter().map(|k| k.mu_ref()).collect();
    let symmetric = is_symmetric_within(&p.w, SYMMETRY_TOL);
    let mut rho = RHO_START * p.mean_diagonal();
    let mut factor = match Factor::new(p, rho, symmetric) {
        Ok(f) => f,
        Err(e) => return rejected(NAME, format!("W + rho I cannot be factored: {e}")),
    };
    // z: the cone iterate (warm start), ξ: the scaled dual; hats are the extrapolated points.
    let mut z: Vec<f64> =
        (0..p.nc()).flat_map(|c| project_isotropic(&[r[3 * c], r[3 * c + 1], r[3 * c + 2]], mu[c])).collect();
    p.velocity(&z, u);
    // At the solution `ξ = −û/ρ` (the r-step's optimality with `x = z`): a warm start gets the
    // multiplier that goes with it.
    let mut xi = dual_of(u, &mu, rho);
    let (mut z_hat, mut xi_hat, mut z_prev, mut xi_prev) = (z.clone(), xi.clone(), z.clone(), xi.clone());
    let mut x = vec![0.0; n];
    let mut ux = vec![0.0; n];
    let mut shift = vec![0.0; p.nc()];
    let (mut tau, mut e_prev) = (1.0f64, f64::INFINITY);
    let mut err = local_error(p, &z, u);
    let (mut best, mut best_rel) = (z.clone(), err.rel);
    let (mut it, mut refactors, mut restarts, mut blow_ups) = (0usize, 0usize, 0usize, 0usize);
    let (mut progress_rel, mut progress_it) = (err.rel, 0usize);
    let mut reason = "iteration limit";
    while it < opts.max_iter {
        if let Some(why) = opts.stop_reason(err.rel, start) {
            reason = why;
            break;
        }
        it += 1;
        // r-step. The De Saxcé shift uses the velocity of the last r-step's `x` (as Siconos
        // does; at the first iteration, of the warm start): measured, the shift taken from the
        // projected `z` instead diverges on KaplasTower at a fixed ρ and stalls on PerioBox.
        let ushift: &[f64] = if it > 1 { &ux } else { u };
        for c in 0..p.nc() {
            shift[c] = mu[c] * hyp(ushift[3 * c + 1], ushift[3 * c + 2]);
        }
        for k in 0..n {
            x[k] = rho * (z_hat[k] - xi_hat[k]) - p.q[k] - if k % 3 == 0 { shift[k / 3] } else { 0.0 };
        }
        factor.solve_in_place(&mut x);
        // `W x + q` for the next shift, read off the r-step's own equation `(W + ρI) x = b`
        // instead of a product with W: one of the two per iteration (Kaplas 11.2 -> 10.8 ms).
        for k in 0..n {
            ux[k] = rho * (z_hat[k] - xi_hat[k] - x[k]) - if k % 3 == 0 { shift[k / 3] } else { 0.0 };
        }
        // z-step and dual step.
        for c in 0..p.nc() {
            let k = 3 * c;
            let v = [x[k] + xi_hat[k], x[k + 1] + xi_hat[k + 1], x[k + 2] + xi_hat[k + 2]];
            z[k..k + 3].copy_from_slice(&project_isotropic(&v, mu[c]));
        }
        for k in 0..n {
            xi[k] = xi_hat[k] + x[k] - z[k];
        }
        let primal = dist(&x, &z);
        let dual = rho * dist(&z_hat, &z);
        // Acceleration with restart.
        let e = primal * primal + dual * dual;
        if e < ETA * e_prev {
            let tau_next = 0.5 * (1.0 + (1.0 + 4.0 * tau * tau).sqrt());
            let a = (tau - 1.0) / tau_next;
            for k in 0..n {
                z_hat[k] = z[k] + a * (z[k] - z_prev[k]);
                xi_hat[k] = xi[k] + a * (xi[k] - xi_prev[k]);
            }
            tau = tau_next;
            e_prev = e;
        } else {
            restarts += 1;
            tau = 1.0;
            e_prev /= ETA;
            z_hat.copy_from_slice(&z);
            xi_hat.copy_from_slice(&xi);
        }
        z_prev.copy_from_slice(&z);
        xi_prev.copy_from_slice(&xi);
        p.velocity(&z, u);
        err = local_error(p, &z, u);
        // Residual balancing, each residual relative to its scale.
        let primal_rel = primal / norm2(&x).max(norm2(&z)).max(f64::MIN_POSITIVE);
        let dual_rel = dual / (rho * norm2(&xi)).max(f64::MIN_POSITIVE);
        let ratio = primal_rel / dual_rel.max(f64::MIN_POSITIVE);
        if err.rel < 0.5 * progress_rel {
            (progress_rel, progress_it) = (err.rel, it);
        }
        let stalled = it >= progress_it + STALL;
        let mut scale = if stalled && !(1.0 / BALANCE..=BALANCE).contains(&ratio) {
            progress_it = it;
            if ratio > 1.0 { RHO_STEP } else { 1.0 / RHO_STEP }
        } else {
            1.0
        };
        if err.rel < best_rel {
            best_rel = err.rel;
            best.copy_from_slice(&z);
        } else if err.rel.is_nan() || err.rel > BLOW_UP * best_rel {
            blow_ups += 1;
            for v in [&mut z, &mut z_hat, &mut z_prev] {
                v.copy_from_slice(&best);
            }
            p.velocity(&z, u);
            err = local_error(p, &z, u);
            xi = dual_of(u, &mu, rho);
            xi_hat.copy_from_slice(&xi);
            xi_prev.copy_from_slice(&xi);
            (tau, e_prev) = (1.0, f64::INFINITY);
            scale = BLOW_UP_RHO;
        }
        if scale != 1.0 && err.rel > opts.tol {
            rho *= scale;
            xi.iter_mut().chain(xi_hat.iter_mut()).chain(xi_prev.iter_mut()).for_each(|v| *v /= scale);
            if let Err(e) = factor.refactor(p, rho) {
                reason = "W + rho I became singular";
                r.copy_from_slice(&z);
                return SolveReport::finish(NAME, &err, opts, it, start, reason, format_args!("{e}"));
            }
            refactors += 1;
        }
    }
    if err.rel.is_nan() || err.rel > best_rel {
        z.copy_from_slice(&best);
        p.velocity(&z, u);
        err = local_error(p, &z, u);
    }
    r.copy_from_slice(&z);
    let kind = if symmetric { "Cholesky" } else { "LU" };
    SolveReport::finish(
        NAME,
        &err,
        opts,
        it,
        start,
        reason,
        format_args!(
            "{kind}, {refactors} refactorisations, final rho {rho:.2e}, {restarts} restarts, {blow_ups} blow-ups"
        ),
    )
}

/// `−û/ρ` with the De Saxcé velocity `û = u + (μ|u_T|, 0, 0)`.
fn dual_of(u: &[f64], mu: &[f64], rho: f64) -> Vec<f64> {
    let mut xi: Vec<f64> = u.iter().map(|v| -v / rho).collect();
    for (c, m) in mu.iter().enumerate() {
        xi[3 * c] -= m * hyp(u[3 * c + 1], u[3 * c + 2]) / rho;
    }
    xi
}

fn dist(a: &[f64], b: &[f64]) -> f64 {
    a.iter().zip(b).map(|(x, y)| (x - y) * (x - y)).sum::<f64>().sqrt()
}

/// The factorisation of `W + ρI`; its symbolic analysis is kept across changes of ρ.
enum Factor {
    Llt(SymbolicLlt<usize>, Llt<usize, f64>),
    Lu(SymbolicLu<usize>, Box<Lu<usize, f64>>),
}

impl Factor {
    fn new(p: &LocalProblem, rho: f64, symmetric: bool) -> Result<Factor, String> {
        let a = p.w_plus_identity(rho);
        let e = |e: &dyn std::fmt::Debug| format!("{e:?}");
        if symmetric {
            let s = SymbolicLlt::try_new(a.symbolic(), Side::Lower).map_err(|x| e(&x))?;
            let f = Llt::try_new_with_symbolic(s.clone(), a.as_ref(), Side::Lower).map_err(|x| e(&x))?;
            Ok(Factor::Llt(s, f))
        } else {
            let s = SymbolicLu::try_new(a.symbolic()).map_err(|x| e(&x))?;
            let f = Lu::try_new_with_symbolic(s.clone(), a.as_ref()).map_err(|x| e(&x))?;
            Ok(Factor::Lu(s, Box::new(f)))
        }
    }

    fn refactor(&mut self, p: &LocalProblem, rho: f64) -> Result<(), String> {
        let a = p.w_plus_identity(rho);
        let e = |e: &dyn std::fmt::Debug| format!("{e:?}");
        match self {
            Factor::Llt(s, f) => {
                *f = Llt::try_new_with_symbolic(s.clone(), a.as_ref(), Side::Lower).map_err(|x| e(&x))?
            }
            Factor::Lu(s, f) => **f = Lu::try_new_with_symbolic(s.clone(), a.as_ref()).map_err(|x| e(&x))?,
        }
        Ok(())
    }

    fn solve_in_place(&self, x: &mut [f64]) {
        let n = x.len();
        let m = MatMut::from_column_major_slice_mut(x, n, 1);
        match self {
            Factor::Llt(_, f) => f.solve_in_place_with_conj(Conj::No, m),
            Factor::Lu(_, f) => f.solve_in_place_with_conj(Conj::No, m),
        }
    }
}
