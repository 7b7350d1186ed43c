//! Newton systems `A + Σ d_k a_k a_kᵀ` whose row weights span many orders of magnitude, solved
//! around the cached factor without a residual that holds the large weights.
//!
//! An interior-point iterate's contacts weigh `d = λ/s`: near zero for a contact about to
//! separate, up to 1e12 times the diagonal for one that pushes. Right-preconditioned GMRES
//! measures `b − (A + Σ d a aᵀ) x`, whose rounding `d (a·x)` amplifies: on the trampoline it
//! stalled at a 5e-2 relative residual, and a fresh exact factor per iteration (with a column
//! per row) took over, 3.6 factorisations and 0.76 s of a 1.18 s contact step at 540 constraints.
//!
//! Here the matrix is split as `P + E`. `P = B + Σ_S d_k a_k a_kᵀ` is the cached factor `B`
//! with the rows that matter ([`SELECT`]), applied exactly by [`RowWoodbury`] in its augmented
//! form; `E = (A − B) + Σ_{k∉S} d_k a_k a_kᵀ` is what the factor is stale by plus the rows left
//! out, all of moderate size. GMRES solves `(I + P⁻¹E) x = P⁻¹b`, whose residual never
//! multiplies by a large weight. At convergence `x = P⁻¹(b − E x)` is applied once more, so that
//! the selected rows' multipliers `y = D_S A_S x` come from Woodbury's small system: the
//! augmented system's answer, as the caller needs them for `dλ`. A fresh factor leaves `E` the
//! rows left out alone (an iteration or two); a stale one costs iterations, and past the
//! budget the factor is refreshed as on the plain path, its columns computed once per factor.
//!
//! [`RowWoodbury`]: crate::linalg::row_terms::RowWoodbury

use super::{Direct, Factor, LinearInfo, NewtonSolver};
use crate::linalg::row_terms::{RowTerms, SELECT};
use crate::linalg::sparse::{LinearSolveError, SparseMatrix};

/// GMRES iterations of the last solve past which the next one starts from a fresh factor. An
/// interior-point iterate moves the elastic Hessian enough that a factor one iteration old
/// costs about ten GMRES iterations, and its rows' columns are solved again with a new factor.
/// Measured on the trampoline (contact steps, s of linear solves; 40 × 40 sheet and resolution
/// 12 ball at 123 constraints / 60 × 60 and resolution 8 at 540): a budget of 4 took 0.158 /
/// 0.565 s, 8 took 0.174 / 0.542 s, none (only GMRES's own limit) 0.202 (measured without
/// the `LBLᵀ` factor, where the others had it) / 0.572 s.
const REFRESH_AFTER: usize = 4;

impl NewtonSolver {
    /// Solve `(A + Σ d_k a_k a_kᵀ) x = rhs` in place; `row_multipliers` holds the selected
    /// rows' multipliers afterwards.
    pub(super) fn solve_row_system(
        &mut self,
        a: &SparseMatrix,
        rows: RowTerms,
        rhs: &mut [f64],
    ) -> Result<LinearInfo, LinearSolveError> {
        // A fresh factor leaves `E` the rows left out alone: for a caller turning to exact solves
        // (an interior-point iteration that stalled or whose line search failed), and once the
        // factor has gone stale enough to cost more than `REFRESH_AFTER` iterations.
        let fresh = (self.direct == Direct::Exact && self.last_direct != Direct::Exact)
            || self.last_row_iterations > REFRESH_AFTER;
        self.last_direct = self.direct;
        let diag = a.diagonal();
        self.refreshing(a, fresh, rhs, |s, b, info| s.left_gmres(a, rows, &diag, b, info))
    }

    /// GMRES on `(I + P⁻¹E) x = P⁻¹b` around the current factor; the answer in `self.x`.
    fn left_gmres(&mut self, a: &SparseMatrix, rows: RowTerms, diag: &[f64], b: &[f64], info: &mut LinearInfo) -> bool {
        let n = a.pattern.n;
        let Some(factor) = self.factor.as_ref() else { return false };
        if !self.rows.prepare(rows, diag, SELECT, n, |v| factor.solve_columns(v, n)) {
            return false;
        }
        let base = match factor {
            Factor::Llt(_) | Factor::Lblt(_) => &self.sym_values,
            Factor::Lu(_) => &self.lu_values,
        };
        let woodbury = &self.rows;
        let p_inv = |v: &mut [f64]| {
            factor.solve_in_place(v);
            woodbury.apply(v);
        };
        let e_times = |x: &[f64], y: &mut [f64]| {
            a.mul_vec_minus(base, x, y);
            woodbury.add_unselected_product(rows, x, y);
        };
        let mut pb = b.to_vec();
        p_inv(&mut pb);
        self.x.iter_mut().for_each(|v| *v = 0.0);
        let g = self.gmres.solve(
            |x, y| {
                e_times(x, y);
                p_inv(y);
                y.iter_mut().zip(x).for_each(|(y, x)| *y += x);
            },
            |_| {},
            &pb,
            &mut self.x,
            self.rel_tol,
            self.max_iterations,
        );
        info.gmres_iterations += g.iterations;
        self.last_row_iterations = g.iterations;
        if !g.converged {
            return false;
        }
        let mut ex = vec![0.0; n];
        e_times(&self.x, &mut ex);
        let mut x: Vec<f64> = b.iter().zip(&ex).map(|(b, e)| b - e).collect();
        factor.solve_in_place(&mut x);
        self.row_multipliers = Some(woodbury.apply_with_multipliers(&mut x));
        self.x = x;
        self.x.iter().all(|v| v.is_finite())
    }
}
