//! Nodal ADMM with a matrix-free Gauss–Seidel contact projection for the global form
//! (004 Algorithms 2 and 3), generalised from scaled-identity Jacobians to any `H`.
//!
//! Outer ADMM iteration with a diagonal weight `W` (one weight per dof):
//! 1. `(A + W) v = f + W (p + λ)` (`A = M` as stored, factorised once: Cholesky if symmetric, else LU);
//! 2. `p = v - λ`, then the contact projection: the DFCP with diagonal stiffness
//!    `W p = W (v - λ) + H r`, `u = H^T p + w`, solved matrix-free by block Gauss–Seidel on `r`
//!    with `p` updated in place (`p += W^{-1} H_c Δr_c`); every contact's Delassus block
//!    `S_cc = H_c^T W^{-1} H_c` is a 3x3 (isotropic only in the nodal case of 004: then the closed
//!    form is used, otherwise the exact full-block local solver);
//! 3. `δ∞ = |v - v_prev|_inf + |v - p|_inf`, `λ += p - v`.
//!
//! The returned velocity is `p` (feasible, 004's "geometric correction"). Stopping: Siconos's
//! gfc3d error of `(r, p)` `<= tol`, or optionally `δ∞ <= eps_inf` (004's rule; `converged`
//! still reflects the measured error, and [`AdmmReport::delta_inf_met`] says the rule stopped it). Optionally a detection callback runs
//! every few iterations (004 §5.2: CCD) and appends the contacts it finds to the running solve. Sleeping: a contact whose update moved its velocity by less
//! than `0.01 δ∞` sleeps for a few sweeps; all wake at each projection. The sweep is coloured
//! (≤ 8 colours + sequential tail): within a colour, contacts touch disjoint dofs, so they are
//! solved in parallel (rayon) from the same `p` and applied afterwards: bit-identical for any
//! thread count. The projection data is stored in sweep order (colour by colour), and, when every
//! contact is a weighted sum of nodes in one orthonormal frame (004's nodal assumption), in a
//! compact 192-byte record per contact instead of per-dof rows.
// Numeric kernels index several parallel arrays with one counter; iterator zips would hide that.
#![allow(clippy::needless_range_loop)]

use super::coloring::{Coloring, greedy_blocks};
use super::problem::{Csc, GlobalProblem};
use super::residual::{GlobalErrorWork, global_error_rhs, global_error_with};
use super::solver::{SolveReport, SolverOptions, check_len, rejected};
use crate::friction::cone::{Cone, hyp};
use crate::friction::local_solver::{solve_contact, solve_isotropic_diagonal};
use anyhow::{Result, anyhow};
use faer::sparse::Triplet;
use rayon::prelude::*;
use std::time::Instant;

/// ADMM parameters (defaults from 004 Table 5 / §6.2.6 where they apply).
#[derive(Clone, Debug)]
pub struct AdmmParams {
    /// Gauss–Seidel sweeps per ADMM iteration (N_GS).
    pub gs_sweeps: usize,
    /// W heuristic `w_j = max(σ η_j, min(β m_j, η_j))`.
    pub sigma: f64,
    pub beta: f64,
    /// A factor on every weight of that heuristic (1: 004's weights).
    pub weight_scale: f64,
    /// The heuristic's `m_j` per dof of `A` (the nodal mass); `None`, or dofs past its end
    /// (rigid bodies appended to nodal ones), take the mean diagonal of `A`'s 3x3 block, for
    /// which the mass guard never acts (see [`weights`]).
    pub mass: Option<DofMass>,
    /// Table 3's "anisotropic" variant: each node's weight is its full 3x3 diagonal block of `A`
    /// (times `weight_scale`) instead of `w_j I`, every contact then taking the full-block local
    /// solver (see `block_weights`).
    pub block_weights: bool,
    /// Optional δ∞ stopping threshold (velocity units).
    pub eps_inf: Option<f64>,
    pub sleeping: bool,
    /// Sweeps a sleeping contact skips.
    pub sleep_sweeps: usize,
    /// Use the coloured parallel sweep (else plain sequential GS).
    pub parallel: bool,
    pub max_colors: usize,
    /// Accelerated ADMM with restart (004 Alg. 4, after Goldstein et al. 2014); δ∞ is the
    /// residual whose increase triggers a restart.
    pub accelerated: bool,
    /// Store the projection in 004's compact nodal layout (per contact: up to 4 nodes with
    /// weights, one frame, one scalar Delassus block) when every contact has that form; else, or
    /// when false, the generic per-dof layout. Same problem, same result to round-off.
    pub compact: bool,
    /// Start from the multiplier λ of the previous solve with the same cache and dof count
    /// (004 §5.1: "λ ... is always carried over from the previous step or PN iteration").
    pub carry_lambda: bool,
    /// How the global step `(A + W) v = b` is solved (see [`global_step`]).
    pub linear: LinearSolve,
    /// CG's tolerance as a fraction of δ∞ (004's τ_LS) when the global step is iterative.
    pub tau_ls: f64,
    /// Per dof, the object it belongs to, for `LinearSolve::Objects`: entries of `A` between
    /// dofs of different labels are left to CG. `None`: the objects are `A`'s components.
    pub labels: Option<DofLabels>,
}

/// One object label per dof, shared by the solves of a run.
#[derive(Clone)]
pub struct DofLabels(pub std::sync::Arc<[u32]>);

impl std::fmt::Debug for DofLabels {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "DofLabels({} dofs)", self.0.len())
    }
}

/// A per-dof mass shared by the solves of a run (cloned with the parameters, not copied).
#[derive(Clone)]
pub struct DofMass(pub std::sync::Arc<[f64]>);

impl std::fmt::Debug for DofMass {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "DofMass({} dofs)", self.0.len())
    }
}

impl Default for AdmmParams {
    fn default() -> Self {
        AdmmParams {
            gs_sweeps: 10,
            sigma: 1e-3,
            beta: 25.0,
            weight_scale: 1.0,
            mass: None,
            block_weights: false,
            eps_inf: None,
            sleeping: true,
            sleep_sweeps: 4,
            parallel: true,
            max_colors: 8,
            accelerated: false,
            carry_lambda: false,
            compact: true,
            linear: LinearSolve::Cholesky,
            // 004 §7's value (Furry Bunny).
            tau_ls: 1e-4,
            labels: None,
        }
    }
}

mod block_weights;
mod generic_layout;
mod global_step;
mod nodal_layout;
mod projection;
mod weights;

use block_weights::BlockWeights;
use generic_layout::*;
pub use global_step::LinearSolve;
use global_step::{GlobalStep, SolveInPlace};
use nodal_layout::*;
pub use projection::ContactProjection;
use projection::*;
pub use weights::weights;
use weights::*;

/// Reusable analysis across solves of problems with the same matrix pattern (successive Newton
/// iterations and time steps of one scene): the symbolic Cholesky of `A + W`, whose pattern is
/// that of `A` (which always holds its diagonal here).
#[derive(Default)]
pub struct AdmmCache {
    pattern: Option<(Vec<usize>, Vec<usize>)>,
    symbolic: Option<faer::sparse::linalg::solvers::SymbolicLlt<usize>>,
    /// The last solve's multiplier λ (on the dofs): 004 §5.1 carries it over to the next
    /// Newton iteration and step when `AdmmParams::carry_lambda` is set.
    lambda: Vec<f64>,
    /// The last numeric factorisation and the values of `A + W` it factors: reused when the next
    /// solve has the same matrix (the ADMM integrator's constant global matrix).
    numeric: Option<(Vec<f64>, SolveInPlace)>,
    /// The per-object factors of `LinearSolve::Objects`.
    objects: crate::linalg::object_cholesky::ObjectCholesky,
}

impl AdmmCache {
    /// The multiplier carried to the next solve (for a checkpoint).
    pub fn carried_lambda(&self) -> &[f64] {
        &self.lambda
    }

    pub fn set_carried_lambda(&mut self, lambda: Vec<f64>) {
        self.lambda = lambda;
    }
}

/// Solve a global problem. `r` and `v` are warm starts and results (`v` = the feasible `p`).
pub fn solve(
    g: &GlobalProblem,
    r: &mut [f64],
    v: &mut [f64],
    opts: &SolverOptions,
    prm: &AdmmParams,
) -> Result<SolveReport> {
    solve_cached(g, r, v, opts, prm, &mut AdmmCache::default())
}

/// Contacts found while the solve runs (004 §5.2: CCD every few ADMM iterations, appended
/// without reassembling anything): their `H` columns as `(dof, column among the new contacts,
/// value)`, their free terms `w` and cones.
pub struct NewContacts {
    pub h: Vec<Triplet<usize, usize, f64>>,
    pub w: Vec<f64>,
    pub cones: Vec<Cone>,
}

/// A detection pass run on the iterate `p` every `every` ADMM iterations and before the solve
/// returns converged; `None` when it finds nothing new.
pub struct Detection<'d> {
    pub every: usize,
    pub detect: &'d mut dyn FnMut(&[f64]) -> Option<NewContacts>,
}

/// A second family of constraints sharing the ADMM loop: 004 §6.1's "use with an ADMM implicit
/// time integrator" (after Narain et al. 2016), where the elastic energy is split per element
/// like the contacts are. The problem's `m` is then the mass matrix (the exact equation is
/// `M v = f(v) + H r`), and the global step solves with [`Splitting::matrix`] instead.
pub trait Splitting {
    /// The global step's matrix without the contact weights `W` (mass plus the elements'
    /// consensus weights); constant across solves, so its factorisation is cached.
    fn matrix(&self) -> &Csc;
    /// Add the elements' part `h Σ w_e D_eᵀ (z_e − u_e − c_e)` to the global right-hand side.
    fn add_rhs(&self, f: &mut [f64]);
    /// The elements' local steps (proximal maps) and dual updates at the global iterate `v`;
    /// returns the primal residual `max_e |D_e x(v) − z_e|∞ / h` (a velocity) for δ∞.
    fn update(&mut self, v: &[f64]) -> f64;
    /// The exact right-hand side `f(v) = M v̄ − h ∇E(x(v))` at `v`, for the error measure.
    fn exact_rhs(&mut self, v: &[f64], f: &mut [f64]);
}

/// As [`solve`], reusing `cache` across calls.
pub fn solve_cached(
    g: &GlobalProblem,
    r: &mut [f64],
    v: &mut [f64],
    opts: &SolverOptions,
    prm: &AdmmParams,
    cache: &mut AdmmCache,
) -> Result<SolveReport> {
    let mut rv = r.to_vec();
    let rep = solve_detecting(g, &mut rv, v, opts, prm, cache, None, None)?;
    if rv.len() == r.len() {
        r.copy_from_slice(&rv);
    }
    Ok(rep.report)
}

/// A solve's report, whether the δ∞ rule ended it, and the wall time of its contact
/// projections (the rest is the global linear solves, error measures and detection).
pub struct AdmmReport {
    pub report: SolveReport,
    pub delta_inf_met: bool,
    pub projection_s: f64,
    /// CG iterations of the global steps (0 when they are direct).
    pub linear_iterations: usize,
}

/// The error of `(r, p)`: for `gp` as stored, or, with a splitting, for the exact equation
/// `M p = f(p) + H r` (`fx` receives `f(p)`).
fn error(
    gp: &GlobalProblem,
    r: &[f64],
    p: &[f64],
    split: &mut Option<&mut dyn Splitting>,
    fx: &mut [f64],
    work: &mut GlobalErrorWork,
) -> super::residual::GlobalError {
    match split.as_deref_mut() {
        Some(s) => {
            s.exact_rhs(p, fx);
            global_error_rhs(gp, fx, r, p, work)
        }
        None => global_error_with(gp, r, p, work),
    }
}

/// As [`solve_cached`], with contacts appended during the solve by `detection`: `r` grows by
/// three entries per new contact (their forces, in the order [`NewContacts`] gave them); and
/// with an elastic [`Splitting`] sharing the loop when `split` is given (the ADMM integrator;
/// then plain, not accelerated, ADMM: the extrapolation would also have to act on the
/// elements' duals).
#[allow(clippy::too_many_arguments)]
pub fn solve_detecting(
    g: &GlobalProblem,
    r: &mut Vec<f64>,
    v: &mut [f64],
    opts: &SolverOptions,
    prm: &AdmmParams,
    cache: &mut AdmmCache,
    mut detection: Option<Detection<'_>>,
    mut split: Option<&mut dyn Splitting>,
) -> Result<AdmmReport> {
    const NAME: &str = "admm";
    let (n, ndof) = (3 * g.nc(), g.ndof());
    if let Err(m) = check_len("r", r.len(), n).and(check_len("v", v.len(), ndof)) {
        return Ok(AdmmReport {
            report: rejected(NAME, m),
            delta_inf_met: false,
            projection_s: 0.0,
            linear_iterations: 0,
        });
    }
    let start = Instant::now();
    let split_matrix = split.as_ref().map(|s| s.matrix().clone());
    let a = split_matrix.as_ref().unwrap_or(&g.m);
    let w_all = checked_weights(a, prm)?;
    let blocks = if prm.block_weights { Some(BlockWeights::new(a, prm.weight_scale)?) } else { None };
    let mut w = vec![0.0; ndof];
    let accelerated = prm.accelerated && split.is_none();
    let mut fx = g.f.clone();
    let mut st = SweepState::new(g.nc());
    let mut p = v.to_vec();
    let mut lambda = if prm.carry_lambda && cache.lambda.len() == ndof {
        std::mem::take(&mut cache.lambda)
    } else {
        vec![0.0; ndof]
    };
    let (mut p_hat, mut lambda_hat) = (p.clone(), lambda.clone());
    let (mut p_prev, mut lambda_prev) = (p.clone(), lambda.clone());
    let (mut theta, mut restarts) = (1.0f64, 0usize);
    let mut vk = vec![0.0; ndof];
    let mut v_prev = v.to_vec();
    let zeros = vec![0.0; ndof];
    let mut delta_inf = f64::INFINITY;
    let (mut it, mut updates) = (0usize, 0usize);
    let mut ework = GlobalErrorWork::default();
    let mut reason = "iteration limit";
    // The problem grows when detection appends contacts; `Projection` is rebuilt for each set.
    let mut grown: Option<GlobalProblem> = None;
    let (mut added, mut passes, mut detected_at) = (0usize, 0usize, usize::MAX);
    let (mut projection_s, mut linear_iterations) = (0.0, 0);
    let (err, summary) = loop {
        let gp = grown.as_ref().unwrap_or(g);
        // The global matrix is `a + diag(w)`, or, with block weights, `a` with the touched
        // nodes' blocks added (then nothing on the diagonal: `w` are the projection's weights).
        let (matrix, pr, touched) = match &blocks {
            None => {
                contact_weights(&w_all, &gp.h, &mut w);
                let pr = Projection::new(gp, &w, prm.parallel, prm.max_colors, prm.compact);
                (std::borrow::Cow::Borrowed(a), pr, Vec::new())
            }
            Some(bw) => {
                let touched = bw.touched(&gp.h);
                bw.diagonal(&touched, &mut w);
                // The projection in `p' = Lᵀ p`: `H' = L⁻¹ H` with the diagonal weights `s_b`.
                let empty = Csc::try_new_from_triplets(ndof, ndof, &[]).map_err(|e| anyhow!("{e:?}"))?;
                let scaled = GlobalProblem {
                    m: empty,
                    h: bw.transformed(&gp.h)?,
                    f: Vec::new(),
                    w: gp.w.clone(),
                    cones: gp.cones.clone(),
                };
                let pr = Projection::new(&scaled, &w, prm.parallel, prm.max_colors, false);
                (std::borrow::Cow::Owned(bw.add_to(a, &touched)?), pr, touched)
            }
        };
        let on_diagonal = if blocks.is_some() { &zeros[..] } else { &w[..] };
        let mut global = GlobalStep::new(&matrix, on_diagonal, prm, cache)?;
        if st.sleep_until.len() != gp.nc() {
            st = SweepState::new(gp.nc());
        }
        let mut err = error(gp, r, &p, &mut split, &mut fx, &mut ework);
        let mut found = None;
        while it < opts.max_iter {
            let done = err.total <= opts.tol || prm.eps_inf.is_some_and(|e| delta_inf <= e);
            // Detection at the period, and on the iterate about to be returned as solved.
            if let Some(d) = detection.as_mut()
                && d.every > 0
                && detected_at != it
                && (done || (it > 0 && it % d.every == 0))
            {
                detected_at = it;
                passes += 1;
                found = (d.detect)(&p);
                if found.is_some() {
                    break;
                }
            }
            if err.total <= opts.tol {
                break;
            }
            if prm.eps_inf.is_some_and(|e| delta_inf <= e) {
                reason = "δ∞ threshold reached";
                break;
            }
            if opts.out_of_time(start) {
                reason = "time limit";
                break;
            }
            it += 1;
            // (p_hat, lambda_hat) are the extrapolated points of 004 Alg. 4 when accelerated, and
            // simply (p, lambda) otherwise.
            match &blocks {
                None => {
                    for i in 0..ndof {
                        fx[i] = g.f[i] + w[i] * (p_hat[i] + lambda_hat[i]);
                    }
                }
                Some(bw) => {
                    for i in 0..ndof {
                        vk[i] = p_hat[i] + lambda_hat[i];
                    }
                    bw.add_product(&touched, &g.f, &vk, &mut fx);
                }
            }
            if let Some(s) = split.as_deref() {
                s.add_rhs(&mut fx);
            }
            // Warm start (for CG): the last global iterate.
            vk.copy_from_slice(&v_prev);
            global.solve(&fx, &mut vk, prm.tau_ls * delta_inf);
            for i in 0..ndof {
                p[i] = vk[i] - lambda_hat[i];
            }
            let clock = Instant::now();
            if let Some(bw) = &blocks {
                bw.to_scaled(&touched, &mut p);
            }
            updates += project(&pr, prm, &mut p, r, delta_inf, &mut st);
            if let Some(bw) = &blocks {
                bw.to_unscaled(&touched, &mut p);
            }
            projection_s += clock.elapsed().as_secs_f64();
            let dv = (0..ndof).fold(0.0f64, |m, i| m.max((vk[i] - v_prev[i]).abs()));
            let dvp = (0..ndof).fold(0.0f64, |m, i| m.max((vk[i] - p[i]).abs()));
            let delta_prev = delta_inf;
            delta_inf = dv + dvp;
            if let Some(s) = split.as_deref_mut() {
                delta_inf += s.update(&vk);
            }
            v_prev.copy_from_slice(&vk);
            for i in 0..ndof {
                lambda[i] = lambda_hat[i] + p[i] - vk[i];
            }
            if accelerated && delta_inf <= delta_prev {
                // Nesterov/Goldstein extrapolation (004 Alg. 4).
                let theta_new = 0.5 * (1.0 + (1.0 + 4.0 * theta * theta).sqrt());
                let beta = (theta - 1.0) / theta_new;
                for i in 0..ndof {
                    p_hat[i] = p[i] + beta * (p[i] - p_prev[i]);
                    lambda_hat[i] = lambda[i] + beta * (lambda[i] - lambda_prev[i]);
                }
                theta = theta_new;
            } else {
                // Plain ADMM step, or a restart when δ∞ increased (Alg. 4's "residual increasing").
                restarts += (accelerated && it > 1) as usize;
                theta = 1.0;
                p_hat.copy_from_slice(&p);
                lambda_hat.copy_from_slice(&lambda);
            }
            p_prev.copy_from_slice(&p);
            lambda_prev.copy_from_slice(&lambda);
            err = error(gp, r, &p, &mut split, &mut fx, &mut ework);
            if !err.total.is_finite() {
                reason = "diverged (non-finite iterate)";
                break;
            }
        }
        let (coloured, sequential) = pr.colored_and_tail();
        let summary = format!(
            "{} closed-form contacts ({} layout), {} blocks: {coloured} coloured + {sequential} sequential; global step: {}",
            pr.closed_form_count(),
            if matches!(pr.layout, Layout::Nodal(_)) { "nodal" } else { "generic" },
            pr.stages.len(),
            global.describe(),
        );
        linear_iterations += global.cg_iterations;
        match found {
            Some(new) => {
                // The new contacts start without force; λ and p carry over (the ADMM state
                // lives on the dofs), so the solve continues rather than restarts.
                added += new.cones.len();
                let next = gp.with_contacts(&new)?;
                r.resize(3 * next.nc(), 0.0);
                grown = Some(next);
            }
            None => break (err, summary),
        }
    };
    v.copy_from_slice(&p);
    if prm.carry_lambda && lambda.iter().all(|x| x.is_finite()) {
        cache.lambda = lambda;
    }
    let converged = err.total <= opts.tol;
    if converged {
        reason = "tolerance reached";
    }
    let detected =
        if detection.is_some() { format!(", {passes} detection passes added {added} contacts") } else { String::new() };
    let report = SolveReport {
        solver: NAME,
        converged,
        iterations: it,
        residual_abs: err.natmap_abs,
        residual_rel: err.total,
        time: start.elapsed(),
        message: format!(
            "{reason}; δ∞ {delta_inf:.2e}, eq_rel {:.1e}, {updates} contact updates, {summary}{}{detected}",
            err.eq_rel,
            if accelerated { format!(", accelerated ({restarts} restarts)") } else { String::new() }
        ),
        prox: None,
    };
    Ok(AdmmReport {
        report,
        delta_inf_met: prm.eps_inf.is_some_and(|e| delta_inf <= e),
        projection_s,
        linear_iterations,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dfcp::synthetic::{hair, particles};
    use faer::sparse::Triplet;

    fn max_abs_diff(a: &[f64], b: &[f64]) -> f64 {
        a.iter().zip(b).fold(0.0f64, |m, (x, y)| m.max((x - y).abs()))
    }

    fn max_abs(a: &[f64]) -> f64 {
        a.iter().fold(0.0f64, |m, x| m.max(x.abs()))
    }

    #[test]
    fn branch_free_closed_form_equals_the_local_solver() {
        let mut seed = 11u64;
        let mut cases: Vec<([f64; 3], f64)> = vec![
            ([-1.0, 0.0, 0.0], 0.0), // τ = α = 0: 0/0
            ([-1.0, 0.0, 0.0], 0.5), // τ = 0 < α: α/0
            ([-1.0, 0.3, 0.4], 0.0), // frictionless slide
            ([-1.0, 0.3, 0.4], 0.5), // τ = α exactly: stick
            ([0.0, 0.3, -0.4], 0.5), // u*_N = 0: take-off
            ([2.0, -0.3, 0.4], 0.5), // take-off
        ];
        for _ in 0..2000 {
            let us = [0.0, 1.0, 2.0].map(|_| crate::test_rng::symmetric(&mut seed));
            cases.push((us, crate::test_rng::unit(&mut seed)));
        }
        for (us, mu) in cases {
            let a = closed_form(us, mu);
            let b = solve_isotropic_diagonal(us, mu).0;
            // Equal as numbers (so +0 == -0: a sticking tangent may be -0 here).
            assert_eq!(a, b, "u* = {us:?}, mu = {mu}");
        }
    }

    #[test]
    fn nodal_layout_is_detected_and_gives_the_generic_result() {
        // 120 rods of 8 nodes, 1500 contacts of 1, 3 and 4 nodes: every contact is nodal.
        let g = hair(120, 8, 1500, 0.4, 3);
        let compact = ContactProjection::new(&g, &AdmmParams::default()).unwrap();
        assert!(compact.is_compact());
        assert_eq!(compact.bytes_per_contact(), 192.0 + 24.0 + 8.0);
        let generic = ContactProjection::new(&g, &AdmmParams { compact: false, ..Default::default() }).unwrap();
        assert!(!generic.is_compact());
        // A fixed 40 ADMM iterations (unreachable tolerance) from the free velocity, with both
        // layouts.
        let opts = SolverOptions { tol: 1e-300, max_iter: 40, max_time: None };
        let run = |compact: bool| {
            let m = g.m.as_ref();
            let mut v: Vec<f64> = (0..g.ndof()).map(|i| g.f[i] / m.val_of_col(i)[0]).collect();
            let mut r = vec![0.0; 3 * g.nc()];
            let rep = solve(&g, &mut r, &mut v, &opts, &AdmmParams { compact, ..Default::default() }).unwrap();
            assert_eq!(rep.iterations, 40);
            assert!(rep.message.contains(if compact { "nodal layout" } else { "generic layout" }), "{}", rep.message);
            (v, r, rep.residual_rel)
        };
        let ((vc, rc, ec), (vg, rg, eg)) = (run(true), run(false));
        // The layouts compute the same products in a different association (`b_j (R^T p_j)`
        // against `(b_j R)^T p_j`, scaled against unscaled forces), so they differ by rounding,
        // and the projection is non-expansive, so rounding does not grow across the 400 sweeps:
        // measured 3e-15 (v) and 1e-13 (r, whose small entries carry the 1/s amplification) of
        // the largest value; 1e-11 leaves room for cases (stick/slide) flipped by rounding and
        // is far below any real difference (one skipped sweep changes the forces by more than
        // 1e-3 of their size).
        assert!(max_abs_diff(&vc, &vg) <= 1e-11 * max_abs(&vg), "v differs by {:e}", max_abs_diff(&vc, &vg));
        assert!(max_abs_diff(&rc, &rg) <= 1e-11 * max_abs(&rg), "r differs by {:e}", max_abs_diff(&rc, &rg));
        // Same for the error measure (a ratio of norms of those vectors).
        assert!((ec - eg).abs() <= 1e-9 * eg, "errors {ec:e} and {eg:e}");
    }

    /// `g` with springs of stiffness `s` (times `h²`, as in `M + h² K`) between successive nodes
    /// of each of its rods of `nodes` nodes: `A` then couples the dofs of a rod.
    fn with_rod_springs(g: &GlobalProblem, nodes: usize, s: f64) -> GlobalProblem {
        let gm = g.m.as_ref();
        let mut t: Vec<_> = (0..g.ndof()).map(|j| Triplet::new(j, j, gm.val_of_col(j)[0])).collect();
        for a in (0..g.ndof() / 3).filter(|a| (a + 1) % nodes != 0) {
            for k in 0..3 {
                let (i, j) = (3 * a + k, 3 * (a + 1) + k);
                t.extend([
                    Triplet::new(i, i, s),
                    Triplet::new(j, j, s),
                    Triplet::new(i, j, -s),
                    Triplet::new(j, i, -s),
                ]);
            }
        }
        let m = Csc::try_new_from_triplets(g.ndof(), g.ndof(), &t).unwrap();
        GlobalProblem { m, ..g.clone() }
    }

    #[test]
    fn every_global_step_reaches_the_same_solution() {
        // 200 rods of 8 nodes (4800 dofs, three object blocks) tied by springs 70x their nodes'
        // masses, 1200 frictionless contacts (a strictly convex QP in v: one solution), solved
        // to 1e-10 with the global step as one Cholesky, per-object Cholesky (exact: the rods
        // are A's components), per-object CG with each rod cut in two by its labels (the
        // blocks put the halves back together except where a block ends), and Jacobi CG.
        let nodes = 8;
        let g = with_rod_springs(&hair(200, nodes, 1200, 0.0, 11), nodes, 1e-5);
        let v0 = vec![0.0; g.ndof()];
        let opts = SolverOptions { tol: 1e-10, max_iter: 20_000, max_time: None };
        let halves: Vec<u32> = (0..g.ndof()).map(|i| (2 * (i / 3) / nodes) as u32).collect();
        let run = |linear: LinearSolve, labels: Option<&Vec<u32>>| {
            let (mut v, mut r) = (v0.clone(), vec![0.0; 3 * g.nc()]);
            let labels = labels.map(|l| DofLabels(l.clone().into()));
            let prm = AdmmParams { linear, labels, ..Default::default() };
            let rep = solve(&g, &mut r, &mut v, &opts, &prm).unwrap();
            assert!(rep.converged, "{linear:?}: {rep}");
            (v, rep.message)
        };
        let (v1, _) = run(LinearSolve::Cholesky, None);
        for (linear, labels, says) in [
            (LinearSolve::Objects, None, "exact"),
            (LinearSolve::Objects, Some(&halves), "CG on"),
            (LinearSolve::Jacobi, None, "Jacobi CG"),
        ] {
            let (v, message) = run(linear, labels);
            assert!(message.contains(says), "{linear:?}: {message}");
            // As in the weight-scale test: two solves at 1e-10 agree far below 1e-7 of the
            // largest velocity, an inexact global step that biased the fixed point would not.
            assert!(
                max_abs_diff(&v, &v1) <= 1e-7 * max_abs(&v1),
                "{linear:?}: v differs by {:e}",
                max_abs_diff(&v, &v1)
            );
        }
    }

    #[test]
    fn contact_weight_scale_changes_the_path_not_the_solution() {
        // 100 rods of 8 nodes, 600 frictionless contacts (a strictly convex QP in v, so its
        // solution is unique; with friction this synthetic problem is not solved to a tight
        // tolerance by ADMM at all), solved to 1e-10 with 004's weights, a tenth and ten times.
        let g = hair(100, 8, 600, 0.0, 7);
        let m = g.m.as_ref();
        let v0: Vec<f64> = (0..g.ndof()).map(|i| g.f[i] / m.val_of_col(i)[0]).collect();
        let opts = SolverOptions { tol: 1e-10, max_iter: 20_000, max_time: None };
        let run = |weight_scale: f64| {
            let (mut v, mut r) = (v0.clone(), vec![0.0; 3 * g.nc()]);
            let prm = AdmmParams { weight_scale, accelerated: true, ..Default::default() };
            let rep = solve(&g, &mut r, &mut v, &opts, &prm).unwrap();
            assert!(rep.converged, "scale {weight_scale}: {rep}");
            (v, rep.iterations)
        };
        let (v1, n1) = run(1.0);
        for scale in [0.1, 10.0] {
            let (v, n) = run(scale);
            // The velocities are unique (M is diagonal positive: strongly convex in v); two solves
            // at relative error 1e-10 agree to about that times the conditioning of the contact
            // set, and 1e-7 of the largest velocity leaves room for that while a weight-dependent
            // fixed point would differ by O(1) of the contact velocities.
            assert!(
                max_abs_diff(&v, &v1) <= 1e-7 * max_abs(&v1),
                "scale {scale}: v differs by {:e}",
                max_abs_diff(&v, &v1)
            );
            assert_ne!(n, n1, "the weights change the iterations");
        }
    }

    /// Table 3's anisotropic variant (full 3x3 weight blocks) on a problem whose node blocks
    /// are not isotropic: the synthetic hair of the test above with `c n nᵀ` added to each
    /// node's mass block (a random unit `n`, `c` up to the mass), frictionless so the velocities
    /// are unique. Both weightings reach 1e-10 and agree to 1e-7 of the largest velocity (as in
    /// the test above); the block variant takes no closed form (its Delassus blocks are not
    /// isotropic; measured: 52 iterations for both, 2.3e-11 against 6.1e-11).
    #[test]
    fn block_weights_reach_the_diagonal_weights_solution() {
        let g = hair(60, 8, 300, 0.0, 11);
        let mut seed = 5u64;
        let mut t = Vec::new();
        let m = g.m.as_ref();
        for j in 0..g.ndof() {
            for (&i, &v) in m.row_idx_of_col_raw(j).iter().zip(m.val_of_col(j)) {
                t.push(Triplet::new(i, j, v));
            }
        }
        for b in 0..g.ndof() / 3 {
            let n = nalgebra::Vector3::from_fn(|_, _| crate::test_rng::symmetric(&mut seed)).normalize();
            let c = m.val_of_col(3 * b)[0] * crate::test_rng::unit(&mut seed);
            for r in 0..3 {
                for k in 0..3 {
                    t.push(Triplet::new(3 * b + r, 3 * b + k, c * n[r] * n[k]));
                }
            }
        }
        let g = GlobalProblem { m: Csc::try_new_from_triplets(g.ndof(), g.ndof(), &t).unwrap(), ..g };
        let opts = SolverOptions { tol: 1e-10, max_iter: 20_000, max_time: None };
        let run = |block_weights: bool| {
            let (mut v, mut r) = (vec![0.0; g.ndof()], vec![0.0; 3 * g.nc()]);
            let prm = AdmmParams { block_weights, accelerated: true, ..Default::default() };
            let rep = solve(&g, &mut r, &mut v, &opts, &prm).unwrap();
            assert!(rep.converged, "blocks {block_weights}: {rep}");
            (v, rep)
        };
        let (v1, diag) = run(false);
        let (v2, blocks) = run(true);
        println!("diagonal: {diag}\nblocks: {blocks}");
        assert!(max_abs_diff(&v1, &v2) <= 1e-7 * max_abs(&v1), "v differs by {:e}", max_abs_diff(&v1, &v2));
        assert!(blocks.message.contains(" 0 closed-form contacts"), "{}", blocks.message);
    }

    #[test]
    fn non_nodal_contacts_fall_back_to_the_generic_layout() {
        // The particle problem is nodal (one or two unit-weight nodes per contact).
        let g = particles(50, 0.5);
        assert!(ContactProjection::new(&g, &AdmmParams::default()).unwrap().is_compact());
        // Scale the tangent column of one contact: its blocks are no longer a multiple of an
        // orthonormal frame (as for a rigid body's angular rows), so the whole problem uses
        // the generic layout.
        let mut g2 = g.clone();
        let (cp, vals) = (g2.h.symbolic().col_ptr().to_vec(), g2.h.val_mut());
        for e in cp[3 * 7 + 1]..cp[3 * 7 + 2] {
            vals[e] *= 1.5;
        }
        assert!(!ContactProjection::new(&g2, &AdmmParams::default()).unwrap().is_compact());
        // An elliptic cone also needs the generic layout's full local solver.
        let mut g3 = g.clone();
        g3.cones[3] = Cone { mu_t: 0.5, mu_b: 0.2 };
        assert!(!ContactProjection::new(&g3, &AdmmParams::default()).unwrap().is_compact());
    }

    #[test]
    fn contacts_without_free_dofs_keep_the_nodal_layout_and_its_result() {
        // The particle problem plus two contacts with empty `H` columns (both sides kinematic),
        // one approaching (w_N < 0) and one separating.
        let g = particles(40, 0.5);
        let (nc, ndof) = (g.nc(), g.ndof());
        let hr = g.h.as_ref();
        let mut t = Vec::new();
        for j in 0..3 * nc {
            for (i, v) in hr.row_idx_of_col_raw(j).iter().zip(hr.val_of_col(j)) {
                t.push(Triplet::new(*i, j, *v));
            }
        }
        let h = Csc::try_new_from_triplets(ndof, 3 * nc + 6, &t).unwrap();
        let mut w = g.w.clone();
        w.extend([-0.3, 0.1, 0.0, 0.2, 0.0, -0.1]);
        let mut cones = g.cones.clone();
        cones.extend([cones[0]; 2]);
        let g = GlobalProblem::new(g.m.clone(), h, g.f.clone(), w, cones).unwrap();
        assert!(ContactProjection::new(&g, &AdmmParams::default()).unwrap().is_compact());
        let opts = SolverOptions { tol: 1e-300, max_iter: 30, max_time: None };
        let run = |compact: bool| {
            let (mut v, mut r) = (vec![0.0; ndof], vec![0.0; 3 * g.nc()]);
            solve(&g, &mut r, &mut v, &opts, &AdmmParams { compact, ..Default::default() }).unwrap();
            (v, r)
        };
        let ((vc, rc), (vg, rg)) = (run(true), run(false));
        // Rounding differences only, as in the test above (measured about 1e-15).
        assert!(max_abs_diff(&vc, &vg) <= 1e-11 * max_abs(&vg), "v differs by {:e}", max_abs_diff(&vc, &vg));
        assert!(max_abs_diff(&rc, &rg) <= 1e-11 * max_abs(&rg), "r differs by {:e}", max_abs_diff(&rc, &rg));
    }

    #[test]
    fn nodal_projection_is_bit_identical_for_one_and_two_threads() {
        // 40k contacts: three blocks of the coloured sweep, with sleeping on (finite δ∞).
        let g = hair(1600, 16, 40_000, 0.3, 5);
        let m = g.m.as_ref();
        let p0: Vec<f64> = (0..g.ndof()).map(|i| g.f[i] / m.val_of_col(i)[0]).collect();
        let run = |threads: usize| {
            let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build().unwrap();
            let mut pr = ContactProjection::new(&g, &AdmmParams::default()).unwrap();
            let (mut p, mut r) = (p0.clone(), vec![0.0; 3 * g.nc()]);
            let n1 = pool.install(|| pr.project(&mut p, &mut r, f64::INFINITY));
            let n2 = pool.install(|| pr.project(&mut p, &mut r, 1e-2));
            (p, r, n1, n2)
        };
        let (a, b) = (run(1), run(2));
        assert_eq!(a.2, 10 * g.nc());
        assert!(a.3 < 10 * g.nc(), "some contacts sleep");
        assert_eq!((a.2, a.3), (b.2, b.3));
        assert!(a.0.iter().zip(&b.0).all(|(x, y)| x.to_bits() == y.to_bits()));
        assert!(a.1.iter().zip(&b.1).all(|(x, y)| x.to_bits() == y.to_bits()));
    }
}
