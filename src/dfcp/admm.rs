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
//! thread count.
// Numeric kernels index several parallel arrays with one counter; iterator zips would hide that.
#![allow(clippy::needless_range_loop)]

use super::coloring::{Coloring, greedy};
use super::global_reduction::{Factor, is_symmetric, symmetrized};
use super::problem::{Csc, GlobalProblem};
use super::residual::{GlobalErrorWork, global_error_with};
use super::solver::{SolveReport, SolverOptions, check_len, rejected};
use crate::friction::cone::Cone;
use crate::friction::local_solver::{solve_contact, solve_isotropic_diagonal};
use anyhow::{Result, anyhow};
use faer::Mat;
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
}

impl Default for AdmmParams {
    fn default() -> Self {
        AdmmParams {
            gs_sweeps: 10,
            sigma: 1e-3,
            beta: 25.0,
            eps_inf: None,
            sleeping: true,
            sleep_sweeps: 4,
            parallel: true,
            max_colors: 8,
            accelerated: false,
        }
    }
}

/// Minimum eigenvalue of a symmetric 3x3 matrix.
fn min_eig3(a: &[[f64; 3]; 3]) -> f64 {
    let m = nalgebra::Matrix3::from_fn(|i, j| 0.5 * (a[i][j] + a[j][i]));
    m.symmetric_eigenvalues().min()
}

/// Per-dof weights from 004 §5.4, on consecutive 3-dof blocks of `A`: `η_j` the minimum
/// eigenvalue of the 3x3 diagonal block, `m_j` its mean diagonal (FCLib has no separate mass);
/// a trailing partial block uses its diagonal entries.
pub fn weights(a: &Csc, sigma: f64, beta: f64) -> Vec<f64> {
    let n = a.nrows();
    let ar = a.as_ref();
    let mut blocks = vec![[[0.0; 3]; 3]; n.div_ceil(3)];
    let mut diag = vec![0.0; n];
    for j in 0..n {
        for (i, v) in ar.row_idx_of_col_raw(j).iter().zip(ar.val_of_col(j)) {
            let i = *i;
            if i / 3 == j / 3 {
                blocks[i / 3][i % 3][j % 3] += v;
            }
            if i == j {
                diag[i] += v;
            }
        }
    }
    let mut w = vec![0.0; n];
    for (b, blk) in blocks.iter().enumerate() {
        if 3 * b + 3 <= n {
            let eta = min_eig3(blk);
            let m = (blk[0][0] + blk[1][1] + blk[2][2]) / 3.0;
            let wj = (sigma * eta).max((beta * m).min(eta));
            w[3 * b..3 * b + 3].fill(wj);
        } else {
            w[3 * b..n].copy_from_slice(&diag[3 * b..n]);
        }
    }
    w
}

/// The matrix-free projection data: per contact, the dofs it touches with `H` rows and
/// `W^{-1} H` rows, and its 3x3 block `S_cc`.
struct Projection<'a> {
    g: &'a GlobalProblem,
    ptr: Vec<usize>,
    dof: Vec<usize>,
    h: Vec<[f64; 3]>,
    gamma: Vec<[f64; 3]>,
    s: Vec<[f64; 9]>,
    iso: Vec<Option<f64>>,
    coloring: Coloring,
}

impl<'a> Projection<'a> {
    fn new(g: &'a GlobalProblem, w: &[f64], max_colors: usize) -> Self {
        let nc = g.nc();
        let hr = g.h.as_ref();
        let (mut ptr, mut dof, mut h, mut gamma, mut s) = (vec![0], Vec::new(), Vec::new(), Vec::new(), Vec::new());
        let mut slot = vec![usize::MAX; g.ndof()];
        for c in 0..nc {
            let base = dof.len();
            for k in 0..3 {
                for (i, v) in hr.row_idx_of_col_raw(3 * c + k).iter().zip(hr.val_of_col(3 * c + k)) {
                    let i = *i;
                    if slot[i] == usize::MAX {
                        slot[i] = dof.len();
                        dof.push(i);
                        h.push([0.0; 3]);
                    }
                    h[slot[i]][k] += v;
                }
            }
            let mut sc = [0.0; 9];
            for e in base..dof.len() {
                slot[dof[e]] = usize::MAX;
                let he = h[e];
                let inv = 1.0 / w[dof[e]];
                gamma.push([he[0] * inv, he[1] * inv, he[2] * inv]);
                for a in 0..3 {
                    for b in 0..3 {
                        sc[3 * a + b] += he[a] * he[b] * inv;
                    }
                }
            }
            s.push(sc);
            ptr.push(dof.len());
        }
        let iso = (0..nc)
            .map(|c| if g.cones[c].is_isotropic() { super::gauss_seidel::isotropic_diagonal(&s[c]) } else { None })
            .collect();
        let coloring = greedy(nc, g.ndof(), max_colors, |c| &dof[ptr[c]..ptr[c + 1]]);
        Projection { g, ptr, dof, h, gamma, s, iso, coloring }
    }

    /// New force of contact `c` given the current `p` (reads only the dofs of `c`).
    #[inline]
    fn local(&self, c: usize, p: &[f64], r: &[f64]) -> [f64; 3] {
        let mut u = [self.g.w[3 * c], self.g.w[3 * c + 1], self.g.w[3 * c + 2]];
        for e in self.ptr[c]..self.ptr[c + 1] {
            let pv = p[self.dof[e]];
            let he = &self.h[e];
            u[0] += he[0] * pv;
            u[1] += he[1] * pv;
            u[2] += he[2] * pv;
        }
        let rc = [r[3 * c], r[3 * c + 1], r[3 * c + 2]];
        let s = &self.s[c];
        let us = [
            u[0] - (s[0] * rc[0] + s[1] * rc[1] + s[2] * rc[2]),
            u[1] - (s[3] * rc[0] + s[4] * rc[1] + s[5] * rc[2]),
            u[2] - (s[6] * rc[0] + s[7] * rc[1] + s[8] * rc[2]),
        ];
        let cone: &Cone = &self.g.cones[c];
        match self.iso[c] {
            Some(sc) => {
                let (un, _) = solve_isotropic_diagonal(us, cone.mu_t);
                [(un[0] - us[0]) / sc, (un[1] - us[1]) / sc, (un[2] - us[2]) / sc]
            }
            None => solve_contact(s, us, cone, rc).0,
        }
    }

    /// `p += W^{-1} H_c d` and `r_c += d`; returns `|S_cc d|_inf` (the velocity change).
    #[inline]
    fn apply(&self, c: usize, d: [f64; 3], p: &mut [f64], r: &mut [f64]) -> f64 {
        for e in self.ptr[c]..self.ptr[c + 1] {
            let ge = &self.gamma[e];
            p[self.dof[e]] += ge[0] * d[0] + ge[1] * d[1] + ge[2] * d[2];
        }
        for k in 0..3 {
            r[3 * c + k] += d[k];
        }
        let s = &self.s[c];
        (s[0] * d[0] + s[1] * d[1] + s[2] * d[2])
            .abs()
            .max((s[3] * d[0] + s[4] * d[1] + s[5] * d[2]).abs())
            .max((s[6] * d[0] + s[7] * d[1] + s[8] * d[2]).abs())
    }
}

/// Work buffers of the sweep (allocated once per solve).
struct SweepState {
    sleep_until: Vec<usize>,
    delta: Vec<[f64; 3]>,
}

fn project(
    pr: &Projection<'_>,
    prm: &AdmmParams,
    p: &mut [f64],
    r: &mut [f64],
    delta_inf: f64,
    st: &mut SweepState,
) -> usize {
    let nc = pr.g.nc();
    // Line (1) of Algorithm 3: re-apply the warm-start forces to the target velocity.
    for c in 0..nc {
        for e in pr.ptr[c]..pr.ptr[c + 1] {
            let ge = &pr.gamma[e];
            p[pr.dof[e]] += ge[0] * r[3 * c] + ge[1] * r[3 * c + 1] + ge[2] * r[3 * c + 2];
        }
    }
    st.sleep_until.fill(0);
    // No δ∞ yet (first ADMM iteration): nothing sleeps, every contact is swept.
    let thresh = if prm.sleeping && delta_inf.is_finite() { 0.01 * delta_inf } else { -1.0 };
    let mut updates = 0;
    let visit = |c: usize, d: [f64; 3], sweep: usize, p: &mut [f64], r: &mut [f64], sl: &mut [usize]| {
        let dv = pr.apply(c, d, p, r);
        if dv < thresh {
            sl[c] = sweep + 1 + prm.sleep_sweeps;
        }
    };
    for sweep in 0..prm.gs_sweeps {
        if prm.parallel {
            for class in &pr.coloring.colors {
                let pr_ref: &[f64] = p;
                let r_ref: &[f64] = r;
                let sl: &[usize] = &st.sleep_until;
                // Parallel solve: each contact reads only its own dofs, which no other contact of
                // this colour writes; results land in `delta` by position, then apply in order.
                st.delta[..class.len()].par_iter_mut().zip(class.par_iter()).for_each(|(d, &c)| {
                    *d = if sl[c] > sweep {
                        [0.0; 3]
                    } else {
                        let rn = pr.local(c, pr_ref, r_ref);
                        [rn[0] - r_ref[3 * c], rn[1] - r_ref[3 * c + 1], rn[2] - r_ref[3 * c + 2]]
                    };
                });
                for (k, &c) in class.iter().enumerate() {
                    if st.sleep_until[c] <= sweep {
                        updates += 1;
                        visit(c, st.delta[k], sweep, p, r, &mut st.sleep_until);
                    }
                }
            }
            for &c in &pr.coloring.tail {
                if st.sleep_until[c] <= sweep {
                    updates += 1;
                    let rn = pr.local(c, p, r);
                    let d = [rn[0] - r[3 * c], rn[1] - r[3 * c + 1], rn[2] - r[3 * c + 2]];
                    visit(c, d, sweep, p, r, &mut st.sleep_until);
                }
            }
        } else {
            for c in 0..nc {
                if st.sleep_until[c] <= sweep {
                    updates += 1;
                    let rn = pr.local(c, p, r);
                    let d = [rn[0] - r[3 * c], rn[1] - r[3 * c + 1], rn[2] - r[3 * c + 2]];
                    visit(c, d, sweep, p, r, &mut st.sleep_until);
                }
            }
        }
    }
    updates
}

/// Reusable analysis across solves of problems with the same matrix pattern (successive Newton
/// iterations and time steps of one scene): the symbolic Cholesky of `A + W`, whose pattern is
/// that of `A` (which always holds its diagonal here).
#[derive(Default)]
pub struct AdmmCache {
    pattern: Option<(Vec<usize>, Vec<usize>)>,
    symbolic: Option<faer::sparse::linalg::solvers::SymbolicLlt<usize>>,
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

/// A factorisation as an in-place solve.
type SolveInPlace = Box<dyn Fn(faer::MatMut<'_, f64>)>;

/// `A + W` factorised: with the cached symbolic Cholesky when `A` is symmetric and its pattern
/// (with full diagonal) matches the cache's, else from scratch (Cholesky or LU).
fn factor_a_plus_w(a: &Csc, w: &[f64], cache: &mut AdmmCache) -> Result<SolveInPlace> {
    use faer::sparse::linalg::solvers::{Llt, SymbolicLlt};
    let ndof = a.nrows();
    let ar = a.as_ref();
    let has_diagonal = (0..ndof).all(|j| ar.row_idx_of_col_raw(j).binary_search(&j).is_ok());
    if is_symmetric(a) && has_diagonal {
        let mut values = ar.val().to_vec();
        for j in 0..ndof {
            let rows = ar.row_idx_of_col_raw(j);
            let k = ar.col_range(j).start + rows.binary_search(&j).expect("checked above");
            values[k] += w[j];
        }
        let k = Csc::new(a.symbolic().to_owned().map_err(|e| anyhow!("{e:?}"))?, values);
        let key = (ar.col_ptr().to_vec(), ar.row_idx().to_vec());
        if cache.pattern.as_ref() != Some(&key) {
            cache.symbolic =
                Some(SymbolicLlt::try_new(k.symbolic(), faer::Side::Lower).map_err(|e| anyhow!("A + W: {e:?}"))?);
            cache.pattern = Some(key);
        }
        let sym = cache.symbolic.clone().expect("set above");
        let llt = Llt::try_new_with_symbolic(sym, k.as_ref(), faer::Side::Lower)
            .map_err(|e| anyhow!("A + W is not positive definite (Cholesky: {e:?})"))?;
        return Ok(Box::new(move |x| {
            faer::linalg::solvers::SolveCore::solve_in_place_with_conj(&llt, faer::Conj::No, x)
        }));
    }
    let a = if is_symmetric(a) { symmetrized(a)? } else { a.clone() };
    let ar = a.as_ref();
    let mut t = Vec::with_capacity(ar.compute_nnz() + ndof);
    for j in 0..ndof {
        for (i, x) in ar.row_idx_of_col_raw(j).iter().zip(ar.val_of_col(j)) {
            t.push(Triplet::new(*i, j, *x));
        }
        t.push(Triplet::new(j, j, w[j]));
    }
    let k = Csc::try_new_from_triplets(ndof, ndof, &t).map_err(|e| anyhow!("assembling A + W: {e:?}"))?;
    let f = Factor::new(&k, "A + W")?;
    Ok(Box::new(move |x| f.solve_in_place(x)))
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
    let rep = solve_detecting(g, &mut rv, v, opts, prm, cache, None)?;
    if rv.len() == r.len() {
        r.copy_from_slice(&rv);
    }
    Ok(rep.report)
}

/// A solve's report, and whether the δ∞ rule ended it.
pub struct AdmmReport {
    pub report: SolveReport,
    pub delta_inf_met: bool,
}

/// As [`solve_cached`], with contacts appended during the solve by `detection`: `r` grows by
/// three entries per new contact (their forces, in the order [`NewContacts`] gave them).
pub fn solve_detecting(
    g: &GlobalProblem,
    r: &mut Vec<f64>,
    v: &mut [f64],
    opts: &SolverOptions,
    prm: &AdmmParams,
    cache: &mut AdmmCache,
    mut detection: Option<Detection<'_>>,
) -> Result<AdmmReport> {
    const NAME: &str = "admm";
    let (n, ndof) = (3 * g.nc(), g.ndof());
    if let Err(m) = check_len("r", r.len(), n).and(check_len("v", v.len(), ndof)) {
        return Ok(AdmmReport { report: rejected(NAME, m), delta_inf_met: false });
    }
    let start = Instant::now();
    let w = weights(&g.m, prm.sigma, prm.beta);
    if let Some(j) = w.iter().position(|x| x.is_nan() || *x <= 0.0) {
        return Err(anyhow!("ADMM weight of dof {j} is {} (M must be positive definite)", w[j]));
    }
    let llt = factor_a_plus_w(&g.m, &w, cache)?;
    let mut st = SweepState { sleep_until: Vec::new(), delta: Vec::new() };
    let mut p = v.to_vec();
    let mut lambda = vec![0.0; ndof];
    let (mut p_hat, mut lambda_hat) = (p.clone(), lambda.clone());
    let (mut p_prev, mut lambda_prev) = (p.clone(), lambda.clone());
    let (mut theta, mut restarts) = (1.0f64, 0usize);
    let mut vk = vec![0.0; ndof];
    let mut v_prev = v.to_vec();
    let mut rhs = Mat::<f64>::zeros(ndof, 1);
    let mut delta_inf = f64::INFINITY;
    let (mut it, mut updates) = (0usize, 0usize);
    let mut ework = GlobalErrorWork::default();
    let mut reason = "iteration limit";
    // The problem grows when detection appends contacts; `Projection` is rebuilt for each set.
    let mut grown: Option<GlobalProblem> = None;
    let (mut added, mut passes, mut detected_at) = (0usize, 0usize, usize::MAX);
    let (err, summary) = loop {
        let gp = grown.as_ref().unwrap_or(g);
        let pr = Projection::new(gp, &w, prm.max_colors);
        st.sleep_until.clear();
        st.sleep_until.resize(gp.nc(), 0);
        st.delta.resize(gp.nc(), [0.0; 3]);
        let mut err = global_error_with(gp, r, &p, &mut ework);
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
            for i in 0..ndof {
                rhs[(i, 0)] = g.f[i] + w[i] * (p_hat[i] + lambda_hat[i]);
            }
            llt(rhs.as_mut());
            for i in 0..ndof {
                vk[i] = rhs[(i, 0)];
                p[i] = vk[i] - lambda_hat[i];
            }
            updates += project(&pr, prm, &mut p, r, delta_inf, &mut st);
            let dv = (0..ndof).fold(0.0f64, |m, i| m.max((vk[i] - v_prev[i]).abs()));
            let dvp = (0..ndof).fold(0.0f64, |m, i| m.max((vk[i] - p[i]).abs()));
            let delta_prev = delta_inf;
            delta_inf = dv + dvp;
            v_prev.copy_from_slice(&vk);
            for i in 0..ndof {
                lambda[i] = lambda_hat[i] + p[i] - vk[i];
            }
            if prm.accelerated && delta_inf <= delta_prev {
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
                restarts += (prm.accelerated && it > 1) as usize;
                theta = 1.0;
                p_hat.copy_from_slice(&p);
                lambda_hat.copy_from_slice(&lambda);
            }
            p_prev.copy_from_slice(&p);
            lambda_prev.copy_from_slice(&lambda);
            err = global_error_with(gp, r, &p, &mut ework);
            if !err.total.is_finite() {
                reason = "diverged (non-finite iterate)";
                break;
            }
        }
        let summary = (pr.iso.iter().filter(|x| x.is_some()).count(), pr.coloring.colors.len(), pr.coloring.tail.len());
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
            "{reason}; δ∞ {delta_inf:.2e}, eq_rel {:.1e}, {updates} contact updates, {} closed-form contacts, {} colours + tail {}{}{detected}",
            err.eq_rel,
            summary.0,
            summary.1,
            summary.2,
            if prm.accelerated { format!(", accelerated ({restarts} restarts)") } else { String::new() }
        ),
    };
    Ok(AdmmReport { report, delta_inf_met: prm.eps_inf.is_some_and(|e| delta_inf <= e) })
}
