//! PROX Gauss–Seidel (003 Algorithm 2) with drilling torque: per contact, with
//! `u_c = (W r + q)_c` and in the scaled variables of [`super`],
//! `z = r'_c - ρ_c u'_c`, `r'_N = max(0, z_N)`, `r'_F = P_B(μ r'_N)(z_F)` with `B` the ball of
//! three dimensions (force and torque), then `r_c = S r'_c`.
//!
//! The ball projection in `r'` is 003's ellipsoid prox in the metric `S⁻²`: both have the fixed
//! point `-u_F ∈ N_E(r_F)` (maximal dissipation over the ellipsoid `E`), since the normal cone
//! of `S⁻¹E` at `S⁻¹r` is `S N_E(r)` and `u' = S u`. Working in `r'` keeps one scalar `ρ_c` in
//! one unit: in `r` it would take `1 / max diag W_cc` over entries in 1/kg and 1/(kg m²).

use super::DrillingProblem;
use super::residual::error;
use crate::dfcp::prox::{ProxParams, iterate, report};
use crate::dfcp::solver::{SolveReport, SolverOptions, check_buffers};
use std::time::Instant;

pub fn solve(p: &DrillingProblem, r: &mut [f64], u: &mut [f64], opts: &SolverOptions) -> SolveReport {
    solve_with(p, r, u, opts, &ProxParams::default())
}

pub fn solve_with(
    p: &DrillingProblem,
    r: &mut [f64],
    u: &mut [f64],
    opts: &SolverOptions,
    prm: &ProxParams,
) -> SolveReport {
    const NAME: &str = "prox (drilling torque)";
    if let Some(rep) = check_buffers(NAME, 4 * p.nc(), r, u) {
        return rep;
    }
    let start = Instant::now();
    let scales: Vec<[f64; 4]> = (0..p.nc()).map(|c| p.scale(c)).collect();
    let mut rho: Vec<f64> = (0..p.nc())
        .map(|c| {
            // A contact without torque keeps r_τ at zero: its spin row must not set its r-factor
            // (1/I against 1/m would slow its force rows a thousandfold).
            let (d, s) = (&p.diag[c], &scales[c]);
            let rows = if p.drills(c) { 4 } else { 3 };
            let m = (0..rows).map(|i| s[i] * s[i] * d[5 * i]).fold(0.0, f64::max);
            if m > 0.0 { prm.rho_scale / m } else { 1.0 }
        })
        .collect();
    let measure = |r: &[f64], u: &mut [f64]| {
        p.velocity(r, u);
        error(p, r, u)
    };
    let sweep = |r: &mut [f64], rho: &[f64]| {
        let mut eps = 0.0f64;
        for c in 0..p.nc() {
            let uc = p.contact_velocity(c, r);
            let s = &scales[c];
            let rc: [f64; 4] = std::array::from_fn(|i| r[4 * c + i] / s[i]);
            let mut z: [f64; 4] = std::array::from_fn(|i| rc[i] - rho[c] * uc[i] * s[i]);
            if !p.drills(c) {
                z[3] = 0.0;
            }
            let rn = z[0].max(0.0);
            let nf = (z[1] * z[1] + z[2] * z[2] + z[3] * z[3]).sqrt();
            let radius = p.cones[c].mu_ref() * rn;
            let f = if nf > radius { radius / nf } else { 1.0 };
            let new = [rn, f * z[1], f * z[2], f * z[3]];
            for i in 0..4 {
                eps = eps.max((new[i] - rc[i]).abs());
                r[4 * c + i] = new[i] * s[i];
            }
        }
        eps
    };
    let (err, it, counts, reason) = iterate(r, u, &mut rho, opts, prm, start, measure, sweep);
    report(NAME, &err, opts, prm, (it, counts), start, reason)
}
