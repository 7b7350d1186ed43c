//! The contact problem with drilling torque (003 §2.7): four rows per contact, `r_c = (r_N,
//! r_t, r_b, r_τ)`, the last the torque impulse about the normal and `u_τ` the relative spin
//! about it. Friction force and torque share one ellipsoid,
//! `(r_t/μ_t)² + (r_b/μ_b)² + (r_τ/μ_τ)² ≤ r_N²`, with `μ_τ` a length; a contact with `μ_τ = 0`
//! takes no torque (`r_τ = 0`, `u_τ` free).
//!
//! Solvers and the error measure work in the scaled variables `r' = S⁻¹ r`, `u' = S u` with
//! `S = diag(1, μ_t, μ_b, μ_τ) / μ` (`μ = √(μ_t μ_b)`, the map of [`crate::friction::cone`] with a
//! fourth entry), where the ellipsoid is the ball of radius `μ r'_N` and the contact an
//! isotropic Coulomb contact in four dimensions. `r'_τ = μ r_τ / μ_τ` is a force and
//! `u'_τ = μ_τ u_τ / μ` a velocity, so force and torque rows are measured in one unit.

pub mod problem;
pub mod prox;
pub mod residual;

pub use problem::DrillingProblem;

#[cfg(test)]
mod tests;
