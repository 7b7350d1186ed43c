//! The natural-map error of a drilling problem: per contact `|r' - P_K(r' - û')|` in the scaled
//! variables of [`super`], `û' = u' + (μ |u'_F|, 0, 0, 0)` (De Saxcé) with `K` the isotropic cone
//! `|r'_F| ≤ μ r'_N` in four dimensions; for a contact without torque, the three-row measure of
//! [`crate::dfcp::residual`] plus `r_τ²`. Relative as Siconos's local measure:
//! `abs / max(|q|, |r|, |u|)`.

use super::DrillingProblem;
use crate::dfcp::par_kernels::norm2;
use crate::dfcp::residual::{LocalError, contact_residual_sq};
use crate::friction::cone::isotropic_projection;

/// The squared natural-map residual of contact `c` at `(r_c, u_c)`.
pub fn contact_residual_sq4(p: &DrillingProblem, c: usize, r: &[f64], u: &[f64]) -> f64 {
    if !p.drills(c) {
        return contact_residual_sq(&r[..3], &u[..3], &p.cones[c]) + r[3] * r[3];
    }
    let s = p.scale(c);
    let mu = p.cones[c].mu_ref();
    let rs: [f64; 4] = std::array::from_fn(|i| r[i] / s[i]);
    let us: [f64; 4] = std::array::from_fn(|i| u[i] * s[i]);
    let friction_speed = (us[1] * us[1] + us[2] * us[2] + us[3] * us[3]).sqrt();
    let mut x = [rs[0] - us[0] - mu * friction_speed, rs[1] - us[1], rs[2] - us[2], rs[3] - us[3]];
    let nt = (x[1] * x[1] + x[2] * x[2] + x[3] * x[3]).sqrt();
    if let Some((n, radius)) = isotropic_projection(x[0], nt, mu) {
        let f = if radius > 0.0 { radius / nt } else { 0.0 };
        x = [n, f * x[1], f * x[2], f * x[3]];
    }
    (0..4).map(|i| (rs[i] - x[i]).powi(2)).sum()
}

/// The error of `(r, u)`, `u = W r + q` computed by the caller.
pub fn error(p: &DrillingProblem, r: &[f64], u: &[f64]) -> LocalError {
    let a =
        (0..p.nc()).map(|c| contact_residual_sq4(p, c, &r[4 * c..4 * c + 4], &u[4 * c..4 * c + 4])).sum::<f64>().sqrt();
    let d = norm2(&p.q).max(norm2(r)).max(norm2(u)).max(1e-300);
    let rel = if a.is_finite() && d.is_finite() { a / d } else { f64::INFINITY };
    LocalError { natmap_abs: a, rel }
}
