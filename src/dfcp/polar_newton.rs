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
//!   curvature; positive where friction opposes the slip).
//!
//! A Newton step is kept only where it brings the projection's optimality error (its natural
//! map) down after returning to the feasible set, and a Gauss–Seidel pass after it checks the
//! active set; a refused step hands back to Gauss–Seidel passes.
//! The dense factorisations cost `n³/3` against a pass's `9 n²` for `n` mutually coupled
//! contacts, so Newton serves problems of at most [`MAX_CONTACTS`] contacts.

use super::problem::LocalProblem;
use crate::friction::cone::project_ellipse;
use nalgebra::{DMatrix, DVector};

/// Largest number of contacts for which the dense Newton steps run: a step then costs at most
/// about as much as 70 Gauss–Seidel passes (a friction Hessian of 2n = 600 unknowns).
pub const MAX_CONTACTS: usize = 300;
/// A friction impulse within this relative distance of its ellipse counts as sliding
/// (Gauss–Seidel's exact per-contact update leaves it on the boundary to rounding).
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
    fn accept(&self, p: &LocalProblem, r: &mut [f64], trial: Vec<f64>, measure: Measure) -> Option<f64> {
        let after = measure(p, &self.velocity(p, &trial), &trial);
        let closer = after < measure(p, &self.velocity(p, r), r);
        if closer {
            r.copy_from_slice(&trial);
        }
        closer.then_some(after)
    }
}

/// The optimality error of one projection's problem at `r` with velocities `u`.
type Measure = fn(&LocalProblem, &DVector<f64>, &[f64]) -> f64;

/// `P_N`'s: the largest `|r_N − max(0, r_N − u_N / W_NN)|`.
fn normal_error(p: &LocalProblem, u: &DVector<f64>, r: &[f64]) -> f64 {
    (0..p.nc())
        .map(|c| {
            let w = p.blocks.diag[c][0];
            if w > 0.0 { (r[3 * c] - (r[3 * c] - u[3 * c] / w).max(0.0)).abs() } else { 0.0 }
        })
        .fold(0.0, f64::max)
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
        .fold(0.0, f64::max)
}

/// One Newton step of `P_N`: the projection's optimality error after it ([`normal_error`], in
/// impulse units like a Gauss–Seidel pass's change), or `None` if it was not taken (no free
/// contact, a singular block, or no progress).
pub fn normal_step(p: &LocalProblem, d: &DenseW, r: &mut [f64]) -> Option<f64> {
    let u = d.velocity(p, r);
    // Free: pushing now, or pulled in by the others (Gauss–Seidel would lift it off zero).
    let free: Vec<usize> = (0..p.nc()).filter(|&c| r[3 * c] > 0.0 || u[3 * c] < 0.0).collect();
    if free.is_empty() {
        return None;
    }
    let h = DMatrix::from_fn(free.len(), free.len(), |i, j| d.w[(3 * free[i], 3 * free[j])]);
    let g = DVector::from_fn(free.len(), |i, _| -u[3 * free[i]]);
    let step = h.cholesky()?.solve(&g);
    let mut trial = r.to_vec();
    for (i, &c) in free.iter().enumerate() {
        trial[3 * c] = (trial[3 * c] + step[i]).max(0.0);
    }
    d.accept(p, r, trial, normal_error)
}

/// How a contact's friction moves in the Newton step of `P_T`.
#[derive(Clone, Copy)]
enum Move {
    /// On its ellipse, by θ (one unknown).
    Slide { theta: f64 },
    /// In its plane (two unknowns).
    Stick,
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
        if a <= 0.0 || b <= 0.0 {
            continue;
        }
        let y = [r[3 * c + 1], r[3 * c + 2]];
        let on_boundary = (y[0] / a).powi(2) + (y[1] / b).powi(2) >= 1.0 - BOUNDARY_TOL;
        // Sliding only if friction pushes outwards there; otherwise it may leave the boundary.
        let outward = u[3 * c + 1] * y[0] / (a * a) + u[3 * c + 2] * y[1] / (b * b) < 0.0;
        let how = if on_boundary && outward { Move::Slide { theta: (y[1] / b).atan2(y[0] / a) } } else { Move::Stick };
        moving.push((c, how, cols));
        cols += if matches!(how, Move::Slide { .. }) { 1 } else { 2 };
    }
    if moving.is_empty() {
        return None;
    }
    // Tangent columns: a sliding contact's dy/dθ, a sticking contact's two unit vectors.
    let mut t = DMatrix::zeros(2 * moving.len(), cols);
    for (k, &(c, how, col)) in moving.iter().enumerate() {
        match how {
            Move::Slide { theta } => {
                let (a, b) = axes(c);
                t[(2 * k, col)] = -a * theta.sin();
                t[(2 * k + 1, col)] = b * theta.cos();
            }
            Move::Stick => {
                t[(2 * k, col)] = 1.0;
                t[(2 * k + 1, col + 1)] = 1.0;
            }
        }
    }
    let rows: Vec<usize> = moving.iter().flat_map(|&(c, _, _)| [3 * c + 1, 3 * c + 2]).collect();
    let wtt = DMatrix::from_fn(rows.len(), rows.len(), |i, j| d.w[(rows[i], rows[j])]);
    let g = DVector::from_fn(rows.len(), |i, _| u[rows[i]]);
    let mut hess = t.transpose() * wtt * &t;
    for &(c, how, col) in &moving {
        if let Move::Slide { .. } = how {
            hess[(col, col)] -= u[3 * c + 1] * r[3 * c + 1] + u[3 * c + 2] * r[3 * c + 2];
        }
    }
    let grad = t.transpose() * g;
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
    d.accept(p, r, trial, friction_error)
}
