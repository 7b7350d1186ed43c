//! ADMM in the bodies' velocities, with the contact velocities split off (the global ADMM of
//! Siconos, `GFC3D_ADMM`; Acary, Brémond & Huber 2018): for problems with more contact unknowns
//! than body unknowns (piles of rigid or reduced bodies), where the Delassus operator `W` is
//! low-rank and need not be assembled at all.
//!
//! The global problem `A v = f + H r`, `u = Hᵀ v + w`, `r ∈ K`, `û = u + s(u) ∈ K*`, `r ⟂ û`
//! (`s` the De Saxcé shift `μ |u_T|` on the normal) is, with `s` frozen, the optimality system
//! of `min ½ vᵀ A v − fᵀ v` subject to `Hᵀ v + w + s ∈ K*`, with `r` its multiplier. ADMM on the
//! split `ξ = Hᵀ v + w + s`, `ξ ∈ K*`, with a penalty `ρ P` (`P` one weight per contact,
//! [`weights`]):
//! 1. `(A + ρ H P Hᵀ) v = f + H (r − ρ P (w + s − ξ))`, the matrix factorised once per `ρ`;
//! 2. `u = Hᵀ v + w`, and `s = s(u)` (the shift follows the iterate, as in Siconos);
//! 3. the projection and the multiplier step in one (Moreau's decomposition of `K*` and `−K`),
//!    over-relaxed (`ẑ = α (u + s) + (1 − α) ξ`): `r ← Π_K(r − ρ_c ẑ)`, `ξ = ẑ − (r_old − r)/ρ_c`;
//! 4. every [`BALANCE_EVERY`] iterations `ρ` is balanced between the primal residual
//!    `|u + s − ξ|` and the dual one `ρ |H P (ξ − ξ_old)|` (Boyd et al. 2011, §3.4.1), each
//!    relative to its own scale, and the matrix refactorised when `ρ` changes.
//!
//! `r` stays in `K` at every iterate. Without relaxation and with the shift frozen the dual
//! residual would be the equation's residual `A v − f − H r`; with them it is part of it, so
//! the stopping test measures the equation itself (the global error), and balancing steers by
//! the dual residual alone. A local problem with its factor
//! `W = G Gᵀ` (rigid bodies) is the global problem with `A = I`, `H = Gᵀ`, `f = 0`, `w = q`, in
//! the `m` scaled velocities `Gᵀ r`. Elliptic cones are solved in the scaled variables of
//! `friction::cone`, where they are isotropic (the same solutions, a closed-form projection).
//!
//! Known weakness: the shift's fixed point converges slowly at large μ where many contacts
//! slide (50 of 004's particles at μ 0.8: 8e-6 after 20,000 iterations; at μ 0.5, 2,000).

use super::par_kernels::{self, MulWork, norm2};
use super::problem::{Csc, GlobalProblem, LocalProblem};
use super::residual::{GlobalErrorWork, global_error_with, local_error};
use super::solver::{SolveReport, SolverOptions, rejected};
use crate::friction::cone::{Cone, hyp, project_isotropic};
use faer::linalg::solvers::SolveCore;
use faer::sparse::linalg::solvers::{Llt, SymbolicLlt};
use faer::sparse::{SparseColMatRef, SymbolicSparseColMat};
use faer::{Conj, Mat, Side};
use std::time::Instant;

const NAME: &str = "velocity-admm";
/// Iterations between two balancings of `ρ`: enough for the residuals to show a trend, few
/// enough that a poor start costs little.
const BALANCE_EVERY: usize = 10;
/// `ρ` changes when one residual exceeds the other by this factor, by [`RHO_STEP`] (Boyd et
/// al.'s 10 and 2).
const BALANCE_RATIO: f64 = 10.0;
const RHO_STEP: f64 = 2.0;
/// The first `ρ`, in the per-contact scaled units of `dfcp::contact_scaling` (every contact's
/// Delassus diagonal 1) and with the contacts' [`weights`]. Measured on a 108-critter pile
/// (325 contacts on 648 velocities, iterations to 1e-6 at a fixed ρ): 1 and 5 more than
/// 20,000 (5e-5, 4e-6), 20 took 7,137, 100 took 1,522 and 1000 took 4,410. With balancing and
/// relaxation, 10 took 1,600, and 1 and 100 about 3,300 and 2,200.
const RHO_START: f64 = 10.0;
/// `ρ` stays within this factor of [`RHO_START`]: beyond it `A + ρ H P Hᵀ` is conditioned by
/// `ρ` alone (for a low-rank `H Hᵀ`, up to `ρ |H|² / λ_min(A)`), and its solves lose digits.
const RHO_RANGE: f64 = 1e6;
/// Over-relaxation of the split (Boyd et al. 2011 §3.4.3 suggest 1.5–1.8): on the pile above,
/// 1.6 took 961 iterations at ρ 100 where 1 took 1,522.
const RELAXATION: f64 = 1.6;
/// A stall: over this many balancing windows the error's best has not fallen by
/// [`STALL_GAIN`]. Where many contacts slide at large μ the shift's fixed point can cycle at a
/// large ρ without converging (004's particles at μ 0.5 at ρ 160) while a smaller one
/// converges; a pile converging slowly but steadily must not count (its error falls by a few
/// per cent a window).
const STALL_WINDOWS: usize = 20;
const STALL_GAIN: f64 = 0.9;
/// Stalls lower ρ no further than this: below it a slowly converging pile stalls again and
/// again and ρ collapses (a three-critter bin fell to ρ 1e-5 and missed 1e-6 in 5,000
/// iterations).
const STALL_FLOOR: f64 = RHO_START / 10.0;

/// The matrix `A + ρ H P Hᵀ` on the union of the two patterns, its values kept apart so that a
/// new `ρ` is one pass over them and a numeric factorisation.
struct Penalised {
    pattern: SymbolicSparseColMat<usize>,
    a: Vec<f64>,
    hh: Vec<f64>,
    values: Vec<f64>,
    symbolic: SymbolicLlt<usize>,
    factor: Llt<usize, f64>,
    rho: f64,
    refactorisations: usize,
}

impl Penalised {
    fn new(a: &Csc, h: &Csc, weight: &[f64], rho: f64) -> Result<Penalised, String> {
        let n = a.nrows();
        let (ar, hr) = (a.as_ref(), h.as_ref());
        // (column, row, A's part, H Hᵀ's part)
        let mut t: Vec<(usize, usize, f64, f64)> = Vec::with_capacity(ar.compute_nnz());
        for j in 0..n {
            for (i, v) in ar.row_idx_of_col_raw(j).iter().zip(ar.val_of_col(j)) {
                t.push((j, *i, *v, 0.0));
            }
        }
        // `H P Hᵀ = Σ_j p_j h_j h_jᵀ` over the columns of `H` (a contact touches a few dozen
        // dofs), `p_j` its contact's weight.
        for j in 0..hr.ncols() {
            let (rows, vals) = (hr.row_idx_of_col_raw(j), hr.val_of_col(j));
            for (i, vi) in rows.iter().zip(vals) {
                for (k, vk) in rows.iter().zip(vals) {
                    t.push((*k, *i, 0.0, weight[j / 3] * vi * vk));
                }
            }
        }
        // Sort once and sum duplicates into the two value arrays on one pattern.
        t.sort_unstable_by_key(|e| (e.0, e.1));
        let (mut col_ptr, mut rows, mut av, mut hv) = (vec![0usize; n + 1], Vec::new(), Vec::new(), Vec::new());
        let mut last = None;
        for &(j, i, a, hh) in &t {
            if last == Some((j, i)) {
                *av.last_mut().expect("an entry before") += a;
                *hv.last_mut().expect("an entry before") += hh;
            } else {
                rows.push(i);
                av.push(a);
                hv.push(hh);
                col_ptr[j + 1] = rows.len();
                last = Some((j, i));
            }
        }
        for j in 0..n {
            col_ptr[j + 1] = col_ptr[j + 1].max(col_ptr[j]);
        }
        let pattern = SymbolicSparseColMat::new_checked(n, n, col_ptr, None, rows);
        let symbolic = SymbolicLlt::try_new(pattern.as_ref(), Side::Lower)
            .map_err(|e| format!("the analysis of A + ρ H P Hᵀ failed: {e:?}"))?;
        let mut values = vec![0.0; av.len()];
        let factor = factorise(&pattern, &symbolic, (&av, &hv, rho), &mut values)?;
        Ok(Penalised { pattern, a: av, hh: hv, values, symbolic, factor, rho, refactorisations: 0 })
    }

    fn refactor(&mut self, rho: f64) -> Result<(), String> {
        self.factor = factorise(&self.pattern, &self.symbolic, (&self.a, &self.hh, rho), &mut self.values)?;
        self.rho = rho;
        self.refactorisations += 1;
        Ok(())
    }

    fn solve_in_place(&self, x: &mut Mat<f64>) {
        self.factor.solve_in_place_with_conj(Conj::No, x.as_mut());
    }
}

/// The Cholesky factor of `a + ρ hh` (values on one pattern, its lower triangle read).
fn factorise(
    pattern: &SymbolicSparseColMat<usize>,
    symbolic: &SymbolicLlt<usize>,
    (a, hh, rho): (&[f64], &[f64], f64),
    values: &mut [f64],
) -> Result<Llt<usize, f64>, String> {
    for ((k, a), hh) in values.iter_mut().zip(a).zip(hh) {
        *k = a + rho * hh;
    }
    let mat = SparseColMatRef::new(pattern.as_ref(), values);
    Llt::try_new_with_symbolic(symbolic.clone(), mat, Side::Lower)
        .map_err(|e| format!("A + ρ H P Hᵀ is not positive definite at ρ = {rho:.3e}: {e:?}"))
}

/// How an ADMM run ended.
struct Outcome {
    iterations: usize,
    reason: &'static str,
    rho: f64,
    refactorisations: usize,
}

/// Each contact's share of the penalty: its own Delassus diagonal over its row's absolute sum,
/// both lumped (`A` by its diagonal) and taken per dof on the contact's three rows together,
/// `Σ_i n_ci² / a_i` over `Σ_i n_ci Σ_d n_di / a_i` with `n_ci = |H_i,c|` (the norm of the
/// contact's three entries on dof `i`, so that the tangent frame does not matter): 1 for a
/// contact alone on its bodies, `1/k` for one of `k` alike at one spot, which then weigh
/// together as one.
fn weights(g: &GlobalProblem) -> Vec<f64> {
    let a = super::problem::diagonal(&g.m);
    let h = g.h.as_ref();
    // Per contact, `(dof, n_ci)`; per dof, `Σ_d n_di`.
    let mut norms: Vec<Vec<(usize, f64)>> = Vec::with_capacity(g.nc());
    let (mut acc, mut row) = (vec![0.0; g.ndof()], vec![0.0; g.ndof()]);
    for c in 0..g.nc() {
        let mut touched = Vec::new();
        for j in 3 * c..3 * c + 3 {
            for (i, x) in h.row_idx_of_col_raw(j).iter().zip(h.val_of_col(j)) {
                if acc[*i] == 0.0 {
                    touched.push(*i);
                }
                acc[*i] += x * x;
            }
        }
        let list: Vec<_> = touched.iter().map(|&i| (i, std::mem::take(&mut acc[i]).sqrt())).collect();
        list.iter().for_each(|&(i, n)| row[i] += n);
        norms.push(list);
    }
    norms
        .iter()
        .map(|list| {
            let own: f64 = list.iter().map(|&(i, n)| n * n / a[i]).sum();
            let all: f64 = list.iter().map(|&(i, n)| n * row[i] / a[i]).sum();
            if own > 0.0 && all.is_finite() && all > 0.0 { own / all } else { 1.0 }
        })
        .collect()
}

/// The De Saxcé shift `μ |u_T|` of one isotropic contact (on the normal).
#[inline]
fn shift(cone: &Cone, u: &[f64]) -> f64 {
    cone.mu_t * hyp(u[1], u[2])
}

/// ADMM on `g` from `r` and the velocity guess `v`, until `error(r, v)` meets the tolerance or
/// a limit stops it; `r` and `v` hold the last iterate. Elliptic cones are solved in the
/// scaled variables `r = S r'`, `u' = S u` of `friction::cone` (`H' = H S`, `w' = S w`), where
/// every cone is isotropic and its projection closed-form.
fn iterate(
    g: &GlobalProblem,
    r: &mut [f64],
    v: &mut [f64],
    opts: &SolverOptions,
    start: Instant,
    mut error: impl FnMut(&[f64], &[f64]) -> f64,
) -> Result<Outcome, String> {
    if g.cones.iter().all(Cone::is_isotropic) {
        return admm(g, r, v, opts, start, error);
    }
    let s: Vec<f64> = g.cones.iter().flat_map(|k| [1.0, k.scale()[0], k.scale()[1]]).collect();
    // `H S`: each column scaled, the pattern kept.
    let mut h = g.h.clone();
    let col_ptr = g.h.symbolic().col_ptr();
    let vals = h.val_mut();
    for (j, sj) in s.iter().enumerate() {
        vals[col_ptr[j]..col_ptr[j + 1]].iter_mut().for_each(|x| *x *= sj);
    }
    let w = g.w.iter().zip(&s).map(|(w, s)| w * s).collect();
    let cones = g.cones.iter().map(|k| Cone::isotropic(k.mu_ref()).expect("a valid cone's mean")).collect();
    let iso = GlobalProblem::new(g.m.clone(), h, g.f.clone(), w, cones).map_err(|e| e.to_string())?;
    r.iter_mut().zip(&s).for_each(|(r, s)| *r /= s);
    let mut original = vec![0.0; r.len()];
    let out = admm(&iso, r, v, opts, start, |ri, v| {
        original.iter_mut().zip(ri).zip(&s).for_each(|((o, r), s)| *o = r * s);
        error(&original, v)
    });
    r.iter_mut().zip(&s).for_each(|(r, s)| *r *= s);
    out
}

/// The iteration of the module's header on a problem with isotropic cones, from `r` (projected
/// onto `K` first) and `v`.
fn admm(
    g: &GlobalProblem,
    r: &mut [f64],
    v: &mut [f64],
    opts: &SolverOptions,
    start: Instant,
    mut error: impl FnMut(&[f64], &[f64]) -> f64,
) -> Result<Outcome, String> {
    let mut split = Split::new(g, r, v)?;
    let mut rel = error(r, v);
    let mut stall = Stall::new(rel);
    let (mut it, mut reason) = (0, "iteration limit");
    while it < opts.max_iter {
        if let Some(why) = opts.stop_reason(rel, start) {
            reason = why;
            break;
        }
        it += 1;
        split.velocity_step(g, r, v);
        let primal = split.project(g, r);
        rel = error(r, v);
        if !rel.is_finite() {
            reason = "diverged (non-finite iterate)";
            break;
        }
        if it % BALANCE_EVERY == 0 {
            if stall.cycling(rel) && split.k.rho > STALL_FLOOR {
                split.ceiling = split.k.rho / RHO_STEP;
                split.k.refactor(split.ceiling)?;
            } else {
                split.balance(g, r, primal)?;
            }
        }
    }
    Ok(Outcome { iterations: it, reason, rho: split.k.rho, refactorisations: split.k.refactorisations })
}

/// The watch for a cycling iteration: the best error, and the best at the start of the window.
struct Stall {
    best: f64,
    before: f64,
    windows: usize,
}

impl Stall {
    fn new(rel: f64) -> Stall {
        Stall { best: rel, before: rel, windows: 0 }
    }

    /// Whether the last [`STALL_WINDOWS`] windows, ending with the error `rel`, made no progress.
    fn cycling(&mut self, rel: f64) -> bool {
        self.best = self.best.min(rel);
        self.windows += 1;
        if self.best < STALL_GAIN * self.before {
            (self.before, self.windows) = (self.best, 0);
        }
        let stalled = self.windows >= STALL_WINDOWS;
        if stalled {
            (self.before, self.windows) = (self.best, 0);
        }
        stalled
    }
}

/// What the iteration keeps besides `r` and `v`: the penalised matrix, the contacts' weights,
/// the split `ξ`, the shift `s`, and work buffers (allocated once).
struct Split {
    k: Penalised,
    /// The largest ρ balancing may choose: lowered below each ρ that cycled.
    ceiling: f64,
    weight: Vec<f64>,
    u: Vec<f64>,
    s: Vec<f64>,
    xi: Vec<f64>,
    /// The last change of `ξ`, weighted (the dual residual's part).
    dxi: Vec<f64>,
    y: Vec<f64>,
    hy: Vec<f64>,
    rhs: Mat<f64>,
    mul: MulWork,
}

impl Split {
    /// Projects `r` onto `K`, and starts the split where the guess `v` puts it, so that a
    /// solution given is a fixed point.
    fn new(g: &GlobalProblem, r: &mut [f64], v: &[f64]) -> Result<Split, String> {
        let (n, m) = (3 * g.nc(), g.ndof());
        let weight = weights(g);
        let k = Penalised::new(&g.m, &g.h, &weight, RHO_START)?;
        for (c, cone) in g.cones.iter().enumerate() {
            let rc = &mut r[3 * c..3 * c + 3];
            rc.copy_from_slice(&project_isotropic(&[rc[0], rc[1], rc[2]], cone.mu_t));
        }
        let mut u = vec![0.0; n];
        g.velocity(v, &mut u);
        let mut s = vec![0.0; n];
        for (c, cone) in g.cones.iter().enumerate() {
            s[3 * c] = shift(cone, &u[3 * c..3 * c + 3]);
        }
        let xi = u.iter().zip(&s).map(|(u, s)| u + s).collect();
        let (y, dxi, hy, rhs) = (vec![0.0; n], vec![0.0; n], vec![0.0; m], Mat::zeros(m, 1));
        let ceiling = RHO_START * RHO_RANGE;
        Ok(Split { k, ceiling, weight, u, s, xi, dxi, y, hy, rhs, mul: MulWork::default() })
    }

    /// Step 1: `(A + ρ H P Hᵀ) v = f + H (r − ρ P (w + s − ξ))`, `P` the weights.
    fn velocity_step(&mut self, g: &GlobalProblem, r: &[f64], v: &mut [f64]) {
        let rho = self.k.rho;
        for (i, y) in self.y.iter_mut().enumerate() {
            *y = r[i] - rho * self.weight[i / 3] * (g.w[i] + self.s[i] - self.xi[i]);
        }
        par_kernels::mul_into(&g.h, &self.y, &mut self.hy, &mut self.mul);
        (0..v.len()).for_each(|i| self.rhs[(i, 0)] = g.f[i] + self.hy[i]);
        self.k.solve_in_place(&mut self.rhs);
        (0..v.len()).for_each(|i| v[i] = self.rhs[(i, 0)]);
        g.velocity(v, &mut self.u);
    }

    /// Steps 2 and 3 per contact, the split over-relaxed: the shift, then
    /// `r ← Π_K(r − ρ_c ẑ)` and `ξ = ẑ − (r_old − r)/ρ_c` with `ẑ = α (u + s) + (1 − α) ξ`.
    /// Returns the primal residual `|u + s − ξ|`.
    fn project(&mut self, g: &GlobalProblem, r: &mut [f64]) -> f64 {
        let mut primal = 0.0;
        for (c, cone) in g.cones.iter().enumerate() {
            let i = 3 * c;
            self.s[i] = shift(cone, &self.u[i..i + 3]);
            let z = [self.u[i] + self.s[i], self.u[i + 1], self.u[i + 2]];
            let zr = [0, 1, 2].map(|a| RELAXATION * z[a] + (1.0 - RELAXATION) * self.xi[i + a]);
            let rc = self.k.rho * self.weight[c];
            let old = [r[i], r[i + 1], r[i + 2]];
            let new = project_isotropic(&[0, 1, 2].map(|a| old[a] - rc * zr[a]), cone.mu_t);
            for a in 0..3 {
                let xi = zr[a] - (old[a] - new[a]) / rc;
                self.dxi[i + a] = self.weight[c] * (xi - self.xi[i + a]);
                self.xi[i + a] = xi;
                r[i + a] = new[a];
                primal += (z[a] - xi).powi(2);
            }
        }
        primal.sqrt()
    }

    /// Step 4: each residual relative to the size of what it is the error of — the primal one
    /// to the split velocities and the free velocity `w` (the split alone is zero at a resting
    /// solution), the dual one `ρ |H P Δξ|` to the forces `H r` and `f`.
    fn balance(&mut self, g: &GlobalProblem, r: &[f64], primal: f64) -> Result<(), String> {
        let rho = self.k.rho;
        par_kernels::mul_into(&g.h, &self.dxi, &mut self.hy, &mut self.mul);
        let dual = rho * norm2(&self.hy);
        par_kernels::mul_into(&g.h, r, &mut self.hy, &mut self.mul);
        let primal_rel = primal / norm2(&self.xi).max(norm2(&g.w)).max(1e-300);
        let dual_rel = dual / norm2(&self.hy).max(norm2(&g.f)).max(1e-300);
        if primal_rel > BALANCE_RATIO * dual_rel && rho * RHO_STEP <= self.ceiling {
            self.k.refactor(rho * RHO_STEP)?;
        } else if dual_rel > BALANCE_RATIO * primal_rel && rho > RHO_START / RHO_RANGE {
            self.k.refactor(rho / RHO_STEP)?;
        }
        Ok(())
    }
}

/// The global problem `A = I`, `H = Gᵀ`, `f = 0`, `w = q` of a local problem with its factor.
pub fn factored_form(p: &LocalProblem, g: &Csc) -> Result<GlobalProblem, String> {
    let m = g.ncols();
    let h = g.as_ref().transpose().to_col_major().map_err(|e| format!("Gᵀ: {e:?}"))?;
    let eye: Vec<_> = (0..m).map(|j| faer::sparse::Triplet::new(j, j, 1.0)).collect();
    let a = super::problem::csc_from_triplets(m, m, &eye)?;
    GlobalProblem::new(a, h, vec![0.0; m], p.q.clone(), p.cones.clone()).map_err(|e| e.to_string())
}

/// `W = G Gᵀ` from the factor `g` (one row per contact unknown): per dof (column of `G`), the
/// outer product of the rows touching it, duplicates summed.
pub fn delassus_of_factor(g: &Csc) -> Result<Csc, String> {
    let gr = g.as_ref();
    let mut t = Vec::new();
    for k in 0..gr.ncols() {
        let (rows, vals) = (gr.row_idx_of_col_raw(k), gr.val_of_col(k));
        for (i, a) in rows.iter().zip(vals) {
            for (j, b) in rows.iter().zip(vals) {
                t.push(faer::sparse::Triplet::new(*i, *j, a * b));
            }
        }
    }
    super::problem::csc_from_triplets(gr.nrows(), gr.nrows(), &t)
}

/// Solve the local problem `p`, which must carry its factor `W = G Gᵀ`, in the factor's `m`
/// velocities; the stopping measure is the local one on `(r, W r + q)`.
pub fn solve(p: &LocalProblem, r: &mut [f64], u: &mut [f64], opts: &SolverOptions) -> SolveReport {
    let start = Instant::now();
    if let Some(rep) = super::solver::check_buffers(NAME, 3 * p.nc(), r, u) {
        return rep;
    }
    let Some(factor) = &p.factor else {
        return rejected(NAME, "needs the factor W = G Gᵀ of the problem (rigid bodies without joints)".into());
    };
    let g = match factored_form(p, factor) {
        Ok(g) => g,
        Err(e) => return rejected(NAME, e),
    };
    let (mut v, mut x) = (vec![0.0; g.ndof()], vec![0.0; g.ndof()]);
    let mut mul = MulWork::default();
    par_kernels::mul_into(&g.h, r, &mut v, &mut mul);
    let outcome = {
        // `u = G (Gᵀ r) + q`: the local problem's velocity from `r` alone, as every local
        // solver is measured.
        let error = |r: &[f64], _: &[f64]| {
            par_kernels::mul_into(&g.h, r, &mut x, &mut mul);
            g.velocity(&x, u);
            local_error(p, r, u).rel
        };
        iterate(&g, r, &mut v, opts, start, error)
    };
    let out = match outcome {
        Ok(out) => out,
        Err(e) => return rejected(NAME, e),
    };
    par_kernels::mul_into(&g.h, r, &mut x, &mut mul);
    g.velocity(&x, u);
    let err = local_error(p, r, u);
    let details = format_args!(
        "ρ {:.3e} after {} refactorisations; {} velocities for {} contacts",
        out.rho,
        out.refactorisations,
        g.ndof(),
        p.nc()
    );
    SolveReport::finish(NAME, &err, opts, out.iterations, start, out.reason, details)
}

/// Solve the global problem `g` (`A` symmetric positive definite); the stopping measure is
/// Siconos's global error of `(r, v)`.
pub fn solve_global(g: &GlobalProblem, r: &mut [f64], v: &mut [f64], opts: &SolverOptions) -> SolveReport {
    let start = Instant::now();
    if let Err(e) =
        super::solver::check_len("r", r.len(), 3 * g.nc()).and(super::solver::check_len("v", v.len(), g.ndof()))
    {
        return rejected(NAME, e);
    }
    let mut work = GlobalErrorWork::default();
    let out = match iterate(g, r, v, opts, start, |r, v| global_error_with(g, r, v, &mut work).total) {
        Ok(out) => out,
        Err(e) => return rejected(NAME, e),
    };
    let err = global_error_with(g, r, v, &mut work);
    let converged = err.total <= opts.tol;
    SolveReport {
        solver: NAME,
        converged,
        iterations: out.iterations,
        residual_abs: err.natmap_abs,
        residual_rel: err.total,
        time: start.elapsed(),
        message: format!(
            "{}; natural map {:.1e} + equation {:.1e}; ρ {:.3e} after {} refactorisations; {} velocities for {} contacts",
            if converged { "tolerance reached" } else { out.reason },
            err.natmap_rel,
            err.eq_rel,
            out.rho,
            out.refactorisations,
            g.ndof(),
            g.nc()
        ),
        prox: None,
    }
}
