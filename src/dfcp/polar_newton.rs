//! Newton steps inside the two projections of polar Staggered Projections ([`super::polar_sp`]).
//!
//! Each projection minimises `E(r) = ½ rᵀ W r + qᵀ r` over one part of `r` (the normal impulses,
//! or the friction impulses inside their ellipses) with the other part fixed, by block
//! Gauss–Seidel over the contacts. On a stiff body every contact sees every other through `W`,
//! and Gauss–Seidel converges linearly at a rate near one: 160 passes per projection on a
//! 3072-tet block resting on 81 contacts. 000 solved each projection with an interior-point
//! method instead, counting its iterations as `i_k`.
//!
//! Here a few Gauss–Seidel passes find which contacts are at a bound (separated; sliding on the
//! boundary of the friction ellipse), and Newton steps with that active set, dense over the
//! contacts, finish the projection:
//! * `P_N`: the free normal impulses solve `W_FF r_F = −(q + W r)_F + W_FF r_F`, the others stay 0;
//! * `P_T`: a sliding contact moves along its ellipse, `y = (a cos θ, b sin θ)`, one unknown θ;
//!   a sticking one moves freely in its plane. The Hessian in these unknowns is `W_TT` seen
//!   through the tangents `dy/dθ` plus `−g · y` on a sliding contact's diagonal (the boundary's
//!   curvature; positive at a sliding optimum, clamped at zero on the way).
//!
//! A Newton step is kept only where it at least halves the projection's optimality error (its
//! natural map) after returning to the feasible set; the projection ends when that error meets
//! the pass tolerance, and otherwise a Gauss–Seidel pass follows; a refused step hands back to
//! Gauss–Seidel passes.
//! The dense factorisations cost `n³/3` against a pass's `9 n²` for `n` mutually coupled
//! contacts, so Newton serves problems of at most [`MAX_CONTACTS`] contacts.

use super::problem::LocalProblem;
use crate::friction::cone::project_ellipse;
use nalgebra::{DMatrix, DVector, SMatrix, Vector2};

/// Largest number of contacts for which the dense Newton steps run. A step's Hessian is built
/// block by block (O(n²), like a pass) and factored in at most (2n)³/3 flops: at 300 contacts
/// about as much as 100 passes of 9n², against the hundreds a coupled projection needs.
pub const MAX_CONTACTS: usize = 300;
/// Rounds of `P_N`'s step that drop contacts its solution would pull (each a factorisation).
const MAX_ACTIVE_SET_ROUNDS: usize = 4;
/// A friction impulse whose squared elliptic norm `(y₁/a)² + (y₂/b)²` is within this of 1 counts
/// as sliding (Gauss–Seidel's exact per-contact update leaves it on the boundary to rounding).
const BOUNDARY_TOL: f64 = 1e-9;

/// `W` as a dense matrix, for the Newton steps of a problem of at most [`MAX_CONTACTS`] contacts.
pub struct DenseW {
    w: DMatrix<f64>,
}

impl DenseW {
    /// `None` when the problem has no contact or more than [`MAX_CONTACTS`].
    pub fn new(p: &LocalProblem) -> Option<DenseW> {
        let n = p.nc();
        if n == 0 || n > MAX_CONTACTS {
            return None;
        }
        let b = &p.blocks;
        let mut w = DMatrix::zeros(3 * n, 3 * n);
        let mut put = |c: usize, d: usize, v: &[f64; 9]| {
            for (k, x) in v.iter().enumerate() {
                w[(3 * c + k / 3, 3 * d + k % 3)] = *x;
            }
        };
        for c in 0..n {
            put(c, c, &b.diag[c]);
            for k in b.row_ptr[c]..b.row_ptr[c + 1] {
                put(c, b.col[k], &b.val[k]);
            }
        }
        Some(DenseW { w })
    }

    /// `u = W r + q`.
    fn velocity(&self, p: &LocalProblem, r: &[f64]) -> DVector<f64> {
        &self.w * DVector::from_column_slice(r) + DVector::from_column_slice(&p.q)
    }

    /// Take `trial` if it is closer to optimal than `r` by `measure` (a natural map of the
    /// projection's own problem). `E` itself cannot judge: near the answer a step of relative
    /// size 1e-11 changes it by 1e-22, far below its round-off, and a test on `E` refused the
    /// last steps (then Gauss–Seidel crawled through the last digits) or, with a round-off
    /// allowance, accepted steps that undid each other.
    /// Returns the trial's error if it was taken.
    /// A step must at least halve the error: one that barely helps would be followed by another
    /// after every pass, each a dense factorisation.
    /// `u` is `r`'s velocity, which the step computed already.
    fn accept(
        &self,
        p: &LocalProblem,
        r: &mut [f64],
        u: &DVector<f64>,
        trial: Vec<f64>,
        measure: Measure,
    ) -> Option<f64> {
        let after = measure(p, &self.velocity(p, &trial), &trial);
        let closer = after.is_finite() && after < 0.5 * measure(p, u, r);
        if closer {
            r.copy_from_slice(&trial);
        }
        closer.then_some(after)
    }
}

/// The optimality error of one projection's problem at `r` with velocities `u`.
type Measure = fn(&LocalProblem, &DVector<f64>, &[f64]) -> f64;

/// The larger of two errors, infinite if either is not a number (`f64::max` drops a NaN).
fn largest(a: f64, b: f64) -> f64 {
    if a.is_nan() || b.is_nan() { f64::INFINITY } else { a.max(b) }
}

/// `P_N`'s: the largest `|r_N − max(0, r_N − u_N / W_NN)|`.
fn normal_error(p: &LocalProblem, u: &DVector<f64>, r: &[f64]) -> f64 {
    (0..p.nc())
        .map(|c| {
            let w = p.blocks.diag[c][0];
            if w > 0.0 { (r[3 * c] - (r[3 * c] - u[3 * c] / w).max(0.0)).abs() } else { 0.0 }
        })
        .fold(0.0, largest)
}

/// `P_T`'s: the largest `|y − Π_E(y − u_T / w)|` with `w` the mean of the contact's tangential
/// diagonal and `E` its ellipse at the current normal impulse.
fn friction_error(p: &LocalProblem, u: &DVector<f64>, r: &[f64]) -> f64 {
    (0..p.nc())
        .map(|c| {
            let d = &p.blocks.diag[c];
            let w = 0.5 * (d[4] + d[8]);
            let (a, b) = (p.cones[c].mu_t * r[3 * c], p.cones[c].mu_b * r[3 * c]);
            if w <= 0.0 {
                return 0.0;
            }
            let y = [r[3 * c + 1], r[3 * c + 2]];
            let z = project_ellipse([y[0] - u[3 * c + 1] / w, y[1] - u[3 * c + 2] / w], a, b);
            (y[0] - z[0]).abs().max((y[1] - z[1]).abs())
        })
        .fold(0.0, largest)
}

/// One Newton step of `P_N`: the projection's optimality error after it ([`normal_error`], in
/// impulse units like a Gauss–Seidel pass's change), or `None` if it was not taken (no free
/// contact, a singular block, or no progress).
pub fn normal_step(p: &LocalProblem, d: &DenseW, r: &mut [f64]) -> Option<f64> {
    let u = d.velocity(p, r);
    // Free: pushing now, or pulled in by the others (Gauss–Seidel would lift it off zero); a
    // contact no dof reaches (W_NN = 0) is left to Gauss–Seidel, which skips it.
    let mut free: Vec<usize> =
        (0..p.nc()).filter(|&c| p.blocks.diag[c][0] > 0.0 && (r[3 * c] > 0.0 || u[3 * c] < 0.0)).collect();
    // The normal velocities without any normal impulse: the free ones solve W_FF r_F = −b_F.
    let mut trial = r.to_vec();
    (0..p.nc()).for_each(|c| trial[3 * c] = 0.0);
    let b = d.velocity(p, &trial);
    // Contacts the solution would pull (r < 0) leave the free set and the rest is solved
    // again (a few rounds; the acceptance test judges what is left).
    for _ in 0..MAX_ACTIVE_SET_ROUNDS {
        if free.is_empty() {
            return None;
        }
        let h = DMatrix::from_fn(free.len(), free.len(), |i, j| d.w[(3 * free[i], 3 * free[j])]);
        let g = DVector::from_fn(free.len(), |i, _| -b[3 * free[i]]);
        let x = h.cholesky()?.solve(&g);
        let pulled = x.iter().any(|v| *v < 0.0);
        for (i, &c) in free.iter().enumerate() {
            trial[3 * c] = x[i].max(0.0);
        }
        if !pulled {
            break;
        }
        free = free.iter().zip(x.iter()).filter(|(_, v)| **v >= 0.0).map(|(c, _)| *c).collect();
        free.iter().for_each(|&c| trial[3 * c] = 0.0);
    }
    d.accept(p, r, &u, trial, normal_error)
}

/// How a contact's friction moves in the Newton step of `P_T`.
#[derive(Clone, Copy)]
enum Move {
    /// On its ellipse, by θ (one unknown).
    Slide { theta: f64 },
    /// In its plane (two unknowns).
    Stick,
}

impl Move {
    /// Its number of unknowns.
    fn width(self) -> usize {
        if matches!(self, Move::Slide { .. }) { 1 } else { 2 }
    }
}

/// One Newton step of `P_T` (see the module doc): the optimality error after it
/// ([`friction_error`]), or `None` if it was not taken.
pub fn friction_step(p: &LocalProblem, d: &DenseW, r: &mut [f64]) -> Option<f64> {
    let u = d.velocity(p, r);
    let axes = |c: usize| (p.cones[c].mu_t * r[3 * c], p.cones[c].mu_b * r[3 * c]);
    // The contacts whose friction can move, how, and the columns of their unknowns.
    let mut moving: Vec<(usize, Move, usize)> = Vec::new();
    let mut cols = 0;
    for c in 0..p.nc() {
        let (a, b) = axes(c);
        let diag = &p.blocks.diag[c];
        // No friction to move, or a tangential block no dof reaches (left to Gauss–Seidel).
        if a <= 0.0 || b <= 0.0 || diag[4] * diag[8] - diag[5] * diag[7] <= 0.0 {
            continue;
        }
        let y = [r[3 * c + 1], r[3 * c + 2]];
        let on_boundary = (y[0] / a).powi(2) + (y[1] / b).powi(2) >= 1.0 - BOUNDARY_TOL;
        // Sliding only if friction pushes outwards there; otherwise it may leave the boundary.
        let outward = u[3 * c + 1] * y[0] / (a * a) + u[3 * c + 2] * y[1] / (b * b) < 0.0;
        let how = if on_boundary && outward { Move::Slide { theta: (y[1] / b).atan2(y[0] / a) } } else { Move::Stick };
        moving.push((c, how, cols));
        cols += how.width();
    }
    if moving.is_empty() {
        return None;
    }
    // Tangent columns: a sliding contact's dy/dθ, a sticking contact's two unit vectors.
    let tangents: Vec<SMatrix<f64, 2, 2>> = moving
        .iter()
        .map(|&(c, how, _)| match how {
            Move::Slide { theta } => {
                let (a, b) = axes(c);
                SMatrix::<f64, 2, 2>::new(-a * theta.sin(), 0.0, b * theta.cos(), 0.0)
            }
            Move::Stick => SMatrix::<f64, 2, 2>::identity(),
        })
        .collect();
    // H = Tᵀ W_TT T block by block (T is block diagonal), and the gradient Tᵀ u_T.
    let mut hess = DMatrix::zeros(cols, cols);
    let mut grad = DVector::zeros(cols);
    for (k, &(c, how, col)) in moving.iter().enumerate() {
        let g = tangents[k].transpose() * Vector2::new(u[3 * c + 1], u[3 * c + 2]);
        for i in 0..how.width() {
            grad[col + i] = g[i];
        }
        for (l, &(e, how_e, col_e)) in moving.iter().enumerate() {
            let w = SMatrix::<f64, 2, 2>::from_fn(|i, j| d.w[(3 * c + 1 + i, 3 * e + 1 + j)]);
            let block = tangents[k].transpose() * w * tangents[l];
            for i in 0..how.width() {
                for j in 0..how_e.width() {
                    hess[(col + i, col_e + j)] = block[(i, j)];
                }
            }
        }
        if let Move::Slide { .. } = how {
            // The boundary's curvature, −u_T · y: positive at a sliding optimum (friction
            // opposes the slip), possibly not on the way there for an elliptic cone; a
            // negative value would make the step a saddle's, so it is clamped.
            hess[(col, col)] += (-(u[3 * c + 1] * r[3 * c + 1] + u[3 * c + 2] * r[3 * c + 2])).max(0.0);
        }
    }
    let step = hess.cholesky()?.solve(&(-grad));
    let mut trial = r.to_vec();
    for &(c, how, col) in &moving {
        let (a, b) = axes(c);
        let y = match how {
            Move::Slide { theta } => [a * (theta + step[col]).cos(), b * (theta + step[col]).sin()],
            Move::Stick => project_ellipse([r[3 * c + 1] + step[col], r[3 * c + 2] + step[col + 1]], a, b),
        };
        trial[3 * c + 1] = y[0];
        trial[3 * c + 2] = y[1];
    }
    d.accept(p, r, &u, trial, friction_error)
}
