//! NL-ICA, 004's baseline (its Tables 1 and 3): the nested relaxation of Otaduy et al. 2009
//! ("implicit contact handling", iterative constraint anticipation), made to solve exact
//! Coulomb friction with a one-contact solver (Daviet et al. 2011) as 004 runs it. It works on
//! the global form `A v = f + H r`, `u = Hᵀ v + w`, `(u, r)` Coulomb, and never forms the
//! Delassus operator.
//!
//! One iteration:
//! 1. relax the dynamics: a Gauss–Seidel sweep over the unknowns of `A v = f + H r`;
//! 2. sweep the contacts, each anticipating its own effect through the diagonal `D` of `A`:
//!    `W_c = H_cᵀ D⁻¹ H_c`, `u* = H_cᵀ v + w_c − W_c r_c`, `r_c` ← the exact one-contact
//!    solution for `(W_c, u*)`, then `v += D⁻¹ H_c Δr_c`.
//!
//! The fixed point solves the problem: step 1 leaves `A v = f + H r` there and step 2 each
//! contact's law at `u = Hᵀ v + w`. The anticipation sees only the diagonal, so coupling through
//! `A`'s off-diagonal terms (stiff elements) is propagated one sweep at a time: that is why it
//! needs hundreds of iterations where ADMM's global solve needs tens (004 Table 3). The error is
//! the global natural map of the returned iterate, measured every iteration.

use super::problem::{Csc, GlobalProblem, diagonal};
use super::residual::{GlobalErrorWork, global_error_with};
use super::solver::{SolveReport, SolverOptions};
use crate::friction::cone::Cone;
use crate::friction::local_solver::solve_contact;
use std::time::Instant;

/// Solve `g` from the warm starts `r` (impulses) and `v` (velocities); both hold the result.
pub fn solve(g: &GlobalProblem, r: &mut [f64], v: &mut [f64], opts: &SolverOptions) -> SolveReport {
    let start = Instant::now();
    let a = &g.m;
    let diag = diagonal(a);
    // Per contact: its H entries (dof, column block row) and its anticipated block W_c.
    let columns: Vec<Vec<(usize, [f64; 3])>> = (0..g.nc()).map(|c| contact_rows(&g.h, c)).collect();
    let blocks: Vec<[f64; 9]> = columns.iter().map(|rows| anticipated_block(rows, &diag)).collect();
    let mut hr = vec![0.0; v.len()];
    for (c, rows) in columns.iter().enumerate() {
        for (i, h) in rows {
            hr[*i] += h[0] * r[3 * c] + h[1] * r[3 * c + 1] + h[2] * r[3 * c + 2];
        }
    }
    let mut work = GlobalErrorWork::default();
    let mut err = global_error_with(g, r, v, &mut work);
    let (mut it, mut reason) = (0, "iteration limit");
    while it < opts.max_iter {
        if let Some(why) = opts.stop_reason(err.total, start) {
            reason = why;
            break;
        }
        it += 1;
        relax_dynamics(a, &diag, &g.f, &hr, v);
        for (c, rows) in columns.iter().enumerate() {
            sweep_contact(c, rows, &blocks[c], &g.cones[c], (g.w.as_slice(), &diag), (r, v, &mut hr));
        }
        err = global_error_with(g, r, v, &mut work);
        if !err.total.is_finite() {
            reason = "diverged (non-finite iterate)";
            break;
        }
    }
    let converged = err.total <= opts.tol;
    if converged {
        reason = "tolerance reached";
    }
    SolveReport {
        solver: "nl-ica",
        converged,
        iterations: it,
        residual_abs: err.natmap_abs,
        residual_rel: err.total,
        time: start.elapsed(),
        message: reason.into(),
        prox: None,
    }
}

/// Contact `c`'s rows of `H`: each dof it touches with the three entries of its column block.
fn contact_rows(h: &Csc, c: usize) -> Vec<(usize, [f64; 3])> {
    let hr = h.as_ref();
    let mut rows: Vec<(usize, [f64; 3])> = Vec::new();
    for k in 0..3 {
        for (&i, &x) in hr.row_idx_of_col_raw(3 * c + k).iter().zip(hr.val_of_col(3 * c + k)) {
            match rows.iter_mut().find(|(j, _)| *j == i) {
                Some((_, e)) => e[k] += x,
                None => {
                    let mut e = [0.0; 3];
                    e[k] = x;
                    rows.push((i, e));
                }
            }
        }
    }
    rows
}

/// `W_c = Σ_i h_i h_iᵀ / D_i` over the contact's rows (row-major 3×3).
fn anticipated_block(rows: &[(usize, [f64; 3])], diag: &[f64]) -> [f64; 9] {
    let mut w = [0.0; 9];
    for (i, h) in rows {
        for a in 0..3 {
            for b in 0..3 {
                w[3 * a + b] += h[a] * h[b] / diag[*i];
            }
        }
    }
    w
}

/// One Gauss–Seidel sweep on `A v = f + H r` (`A` symmetric: row i is column i).
fn relax_dynamics(a: &Csc, diag: &[f64], f: &[f64], hr: &[f64], v: &mut [f64]) {
    let ar = a.as_ref();
    for i in 0..v.len() {
        let off: f64 = ar
            .row_idx_of_col_raw(i)
            .iter()
            .zip(ar.val_of_col(i))
            .filter(|(j, _)| **j != i)
            .map(|(&j, &x)| x * v[j])
            .sum();
        v[i] = (f[i] + hr[i] - off) / diag[i];
    }
}

/// Contact `c`'s exact one-contact update against its anticipated block, pushed into `v` and
/// `H r` through `D⁻¹`.
fn sweep_contact(
    c: usize,
    rows: &[(usize, [f64; 3])],
    block: &[f64; 9],
    cone: &Cone,
    (w, diag): (&[f64], &[f64]),
    (r, v, hr): (&mut [f64], &mut [f64], &mut [f64]),
) {
    let rc = [r[3 * c], r[3 * c + 1], r[3 * c + 2]];
    let mut u = [w[3 * c], w[3 * c + 1], w[3 * c + 2]];
    for (i, h) in rows {
        for k in 0..3 {
            u[k] += h[k] * v[*i];
        }
    }
    let ustar: [f64; 3] = std::array::from_fn(|a| u[a] - (0..3).map(|b| block[3 * a + b] * rc[b]).sum::<f64>());
    let (new, _) = solve_contact(block, ustar, cone, rc);
    let d = [new[0] - rc[0], new[1] - rc[1], new[2] - rc[2]];
    r[3 * c..3 * c + 3].copy_from_slice(&new);
    for (i, h) in rows {
        let push = h[0] * d[0] + h[1] * d[1] + h[2] * d[2];
        hr[*i] += push;
        v[*i] += push / diag[*i];
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dfcp::problem::GlobalProblem;
    use faer::sparse::Triplet;

    /// Two particles (unit masses, a spring between them along z) resting on a plane under
    /// gravity, each with one contact: the exact answer holds both at rest with normal impulses
    /// equal to their weights. Spring stiffness makes `A` off-diagonal, which the anticipation
    /// cannot see: the iteration must still converge, to the natural map's tolerance.
    #[test]
    fn converges_to_the_resting_solution_of_a_coupled_pair() {
        let (m, k, h, g) = (1.0, 50.0, 0.01, 9.81);
        let mut t = Vec::new();
        for i in 0..6 {
            t.push(Triplet::new(i, i, m + h * h * k));
        }
        // The spring couples the particles' z.
        t.push(Triplet::new(2, 5, -h * h * k));
        t.push(Triplet::new(5, 2, -h * h * k));
        let a = Csc::try_new_from_triplets(6, 6, &t).unwrap();
        // Contact frames: normal z, tangents x and y.
        let ht: Vec<_> = [(2, 0), (0, 1), (1, 2), (5, 3), (3, 4), (4, 5)]
            .iter()
            .map(|&(dof, col)| Triplet::new(dof, col, 1.0))
            .collect();
        let hmat = Csc::try_new_from_triplets(6, 6, &ht).unwrap();
        let f = vec![0.3 * m * h, 0.0, -m * g * h, 0.0, 0.0, -m * g * h];
        let cones = vec![Cone::isotropic(0.5).unwrap(); 2];
        let p = GlobalProblem::new(a, hmat, f, vec![0.0; 6], cones).unwrap();
        let (mut r, mut v) = (vec![0.0; 6], vec![0.0; 6]);
        let opts = SolverOptions::new(1e-10, 10_000);
        let rep = solve(&p, &mut r, &mut v, &opts);
        assert!(rep.converged, "{rep:?}");
        // Both rest: normal impulses m g h, the first particle's push 0.3 m h held by friction.
        assert!((r[0] - m * g * h).abs() < 1e-9 && (r[3] - m * g * h).abs() < 1e-9, "{r:?}");
        assert!((r[1] + 0.3 * m * h).abs() < 1e-9, "{r:?}");
        assert!(v.iter().all(|x| x.abs() < 1e-9), "{v:?}");
    }
}
