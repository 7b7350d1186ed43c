//! The accuracy measure of the FCLib/Siconos community: the natural-map residual with the De Saxcé
//! modified velocity, `sqrt(sum_c |r_c - P_K(r_c - û_c)|^2)`, `û_c = u_c + (mu |u_T,c|, 0, 0)`
//! (Siconos `fc3d_unitary_compute_and_add_error`), and its relative forms (see
//! `shared/fclib/README.md`):
//! * local: `abs / max(|q|, |r|, |u|)`;
//! * global: `natmap_rel = abs / max(|u|, |r|)`, `eq_rel = |Mv - Hr - f| / max(|f|, |Mv|, |Hr|)`,
//!   and Siconos's gfc3d error, their sum.
//!
//! Elliptic cones are measured in the scaled variables `r' = S^{-1} r`, `u' = S u` of
//! [`crate::friction::cone`], where the contact is an isotropic one with `mu = sqrt(mu_t mu_b)`;
//! for `mu_t == mu_b` this is exactly the Siconos measure.

use super::par_kernels::{self, MulWork, norm2};
use super::problem::{GlobalProblem, LocalProblem};
use crate::friction::cone::Cone;
use crate::friction::local_solver::local_residual_sq;

/// Natural-map residual (squared) of one contact on any cone.
#[inline]
pub fn contact_residual_sq(r: &[f64], u: &[f64], cone: &Cone) -> f64 {
    let [st, sb] = cone.scale();
    let rs = [r[0], r[1] / st, r[2] / sb];
    let us = [u[0], u[1] * st, u[2] * sb];
    local_residual_sq(&rs, &us, cone.mu_ref())
}

/// `sqrt(sum_c |r_c - P_K(r_c - û_c)|^2)` (summed as `par_kernels::sum`: the same bits on any
/// thread count).
pub fn natural_map_abs(r: &[f64], u: &[f64], cones: &[Cone]) -> f64 {
    par_kernels::sum(cones.len(), |c| contact_residual_sq(&r[3 * c..3 * c + 3], &u[3 * c..3 * c + 3], &cones[c])).sqrt()
}

/// Residual of a local problem.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct LocalError {
    pub natmap_abs: f64,
    /// Siconos's relative measure: `abs / max(|q|, |r|, |u|)`.
    pub rel: f64,
}

/// Error of `(r, u)` with `u = W r + q` already computed by the caller.
pub fn local_error(p: &LocalProblem, r: &[f64], u: &[f64]) -> LocalError {
    let a = natural_map_abs(r, u, &p.cones);
    let d = norm2(&p.q).max(norm2(r)).max(norm2(u)).max(1e-300);
    // A diverged iterate is never converged (a / inf would be zero).
    let rel = if a.is_finite() && d.is_finite() { a / d } else { f64::INFINITY };
    LocalError { natmap_abs: a, rel }
}

/// Error of `r` (computes `u`).
pub fn local_error_of(p: &LocalProblem, r: &[f64]) -> LocalError {
    let mut u = vec![0.0; r.len()];
    p.velocity(r, &mut u);
    local_error(p, r, &u)
}

/// Residual of a global problem.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct GlobalError {
    pub natmap_abs: f64,
    pub natmap_rel: f64,
    pub eq_rel: f64,
    /// Siconos gfc3d error: `eq_rel + natmap_rel`. Solvers stop on this.
    pub total: f64,
}

/// Work buffers for [`global_error_with`] (so iterative solvers measure without allocating).
#[derive(Default)]
pub struct GlobalErrorWork {
    u: Vec<f64>,
    mv: Vec<f64>,
    hr: Vec<f64>,
    mul: MulWork,
}

/// Error of `(r, v)` for a global problem.
pub fn global_error(p: &GlobalProblem, r: &[f64], v: &[f64]) -> GlobalError {
    global_error_with(p, r, v, &mut GlobalErrorWork::default())
}

/// [`global_error`] with caller-owned buffers.
pub fn global_error_with(p: &GlobalProblem, r: &[f64], v: &[f64], w: &mut GlobalErrorWork) -> GlobalError {
    global_error_rhs(p, &p.f, r, v, w)
}

/// [`global_error_with`] for the equation `M v = f + H r` with the right-hand side `f` in place of
/// `p.f` (a right-hand side that depends on `v`, as the ADMM integrator's elastic forces do).
pub fn global_error_rhs(p: &GlobalProblem, f: &[f64], r: &[f64], v: &[f64], w: &mut GlobalErrorWork) -> GlobalError {
    w.u.resize(r.len(), 0.0);
    w.mv.resize(v.len(), 0.0);
    w.hr.resize(v.len(), 0.0);
    p.velocity(v, &mut w.u);
    let a = natural_map_abs(r, &w.u, &p.cones);
    par_kernels::mul_into(&p.m, v, &mut w.mv, &mut w.mul);
    par_kernels::mul_into(&p.h, r, &mut w.hr, &mut w.mul);
    let (mv, hr) = (&w.mv, &w.hr);
    let eq = par_kernels::sum(f.len(), |i| (mv[i] - hr[i] - f[i]).powi(2)).sqrt();
    let eq_rel = eq / norm2(f).max(norm2(mv)).max(norm2(hr)).max(1e-300);
    let natmap_rel = a / norm2(&w.u).max(norm2(r)).max(1e-300);
    GlobalError { natmap_abs: a, natmap_rel, eq_rel, total: eq_rel + natmap_rel }
}
