//! Projected Gauss–Seidel on the LCP with a polyhedral (box, 4-sample) friction cone: the
//! classic baseline of 002 (digest §D4: its PGS baselines use the box, which decouples the
//! friction components). Scalar updates per component with the diagonal of `W`:
//! `r_N <- max(0, r_N - u_N/W_NN)`, `r_t <- clamp(r_t - u_t/W_tt, ±mu_t r_N)`, same for `b`.
//!
//! It solves a *different* (faceted) problem: its error is still measured with the exact cone's
//! natural map, so on problems with sliding contacts off the box axes it plateaus and reports
//! failure. That is the expected, tested behaviour (002 shows PGS failing on stacks).

use super::problem::LocalProblem;
use super::solver::{SolveReport, SolverOptions, check_buffers, sweep_until};
use std::time::Instant;

pub fn solve(p: &LocalProblem, r: &mut [f64], u: &mut [f64], opts: &SolverOptions) -> SolveReport {
    const NAME: &str = "pgs-lcp";
    let n = 3 * p.nc();
    if let Some(rep) = check_buffers(NAME, n, r, u) {
        return rep;
    }
    let start = Instant::now();
    let b = &p.blocks;
    let (err, it, reason) = sweep_until(p, r, u, opts, start, |r| {
        for c in 0..p.nc() {
            let o = b.off_diag_row(c, r);
            let d = &b.diag[c];
            let mut rc = [r[3 * c], r[3 * c + 1], r[3 * c + 2]];
            let k = &p.cones[c];
            for i in 0..3 {
                let wii = d[4 * i];
                if wii <= 0.0 {
                    continue; // no curvature along this component: PGS cannot update it
                }
                let ui = p.q[3 * c + i] + o[i] + d[3 * i] * rc[0] + d[3 * i + 1] * rc[1] + d[3 * i + 2] * rc[2];
                let x = rc[i] - ui / wii;
                rc[i] = match i {
                    0 => x.max(0.0),
                    1 => x.clamp(-k.mu_t * rc[0], k.mu_t * rc[0]),
                    _ => x.clamp(-k.mu_b * rc[0], k.mu_b * rc[0]),
                };
            }
            r[3 * c..3 * c + 3].copy_from_slice(&rc);
        }
    });
    SolveReport::finish(NAME, &err, opts, it, start, reason, format_args!("box (4-sample) friction cone"))
}
