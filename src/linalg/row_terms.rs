//! Rank-one terms `Σ d_k a_k a_kᵀ` with sparse rows `a_k`, kept out of an assembled matrix.
//!
//! An interior-point Newton system holds `Aᵀ D A` for its constraints. Condensed into the
//! sparse matrix, a row with `w` entries adds a dense `w × w` block: a contact against a
//! deformable body's implicit surface depends on every vertex of the surface samples within
//! reach, and on 000's trampoline (a 40 × 40 sheet, a 12-resolution ball) 120 such rows of 180
//! entries on average grew the Jacobian to 1.54 M entries, and its factorisations and GMRES
//! iterations took about twice to three times as long as before the ball arrived. Kept as rank
//! one terms they cost a sparse dot product each in a matrix–vector product and, in the
//! preconditioner, one solve per row with the cached factor ([`RowWoodbury`]).

use nalgebra::{DMatrix, DVector};

/// `Σ d_k a_k a_kᵀ`: the rows (sparse, `(index, value)`) and their non-negative weights.
#[derive(Clone, Copy)]
pub struct RowTerms<'a> {
    pub rows: &'a [Vec<(usize, f64)>],
    pub d: &'a [f64],
}

impl RowTerms<'_> {
    pub const NONE: RowTerms<'static> = RowTerms { rows: &[], d: &[] };

    pub fn is_empty(&self) -> bool {
        self.rows.is_empty()
    }

    /// `y += Σ d_k a_k (a_k · x)`.
    pub fn add_product(&self, x: &[f64], y: &mut [f64]) {
        self.add_product_of(|_| true, x, y);
    }

    /// `y += Σ_{keep(k)} d_k a_k (a_k · x)`.
    fn add_product_of(&self, keep: impl Fn(usize) -> bool, x: &[f64], y: &mut [f64]) {
        for (_, (row, &d)) in self.rows.iter().zip(self.d).enumerate().filter(|(k, _)| keep(*k)) {
            let ax = d * dot(row, x);
            row.iter().for_each(|&(i, a)| y[i] += a * ax);
        }
    }
}

fn dot(row: &[(usize, f64)], x: &[f64]) -> f64 {
    row.iter().map(|&(i, a)| a * x[i]).sum()
}

/// A term counts in GMRES's preconditioner (and, for a system of rows alone, in the part `P`
/// that `newton_solver::row_system` applies exactly) when it adds at least this fraction of the
/// matrix's diagonal along its row (`d (aᵀa)² ≥ ε aᵀ diag a`). Below it, it moves the preconditioned
/// spectrum by less than that fraction from one, which GMRES absorbs in an iteration or two;
/// on the trampoline four fifths of the contacts are inactive (`d = λ/s` tiny) and need no solve.
pub const SELECT: f64 = 1e-2;
/// The same bound for an exact solve with low-rank terms beside the rows (a system of rows
/// alone takes `row_system`'s path, exact or not). The rows below it are left out of that solve: each moves
/// the answer by less than this fraction along itself, no more than the 1e-10 relative residual
/// GMRES stops at on the other path, and an inactive contact (`d = λ/s` near zero) then costs
/// no column.
pub const SELECT_EXACT: f64 = 1e-10;

/// A row `ã_k` as it was solved for, and `z_k = B⁻¹ ã_k`.
struct Column {
    row: Vec<(usize, f64)>,
    z: Vec<f64>,
}

/// `(B + Σ_{k∈S} d_k ã_k ã_kᵀ)⁻¹` around a solve with `B` (a cached factor), by the
/// Sherman–Morrison–Woodbury formula in its augmented-system form:
/// `x = B⁻¹b − Z y`, `y = (D⁻¹ + Ã Z)⁻¹ Ã B⁻¹ b`, with `Z = B⁻¹ Ãᵀ`. Its `y` is the rows'
/// multipliers `D Ã x` of the augmented system `[B Ãᵀ; Ã −D⁻¹]`, accurate where `x` itself
/// carries the cancellation of `B⁻¹b` against `Z y` (see
/// [`apply_with_multipliers`](Self::apply_with_multipliers)). The columns `z_k` are computed once
/// per factor and row (`ã_k` is the row as it was then), so a new iterate costs only the small
/// system over the selected rows `S`.
#[derive(Default)]
pub struct RowWoodbury {
    /// Per row index, once computed for the current factor.
    columns: Vec<Option<Column>>,
    /// The selected rows and the LU of `D⁻¹ + Ã Z` over them.
    selected: Vec<usize>,
    /// Per row index: whether it is in `selected`.
    taken: Vec<bool>,
    small: Option<nalgebra::LU<f64, nalgebra::Dyn, nalgebra::Dyn>>,
}

impl RowWoodbury {
    /// Forget every column: the factor changed, or the rows are a new problem's.
    pub fn clear(&mut self) {
        self.columns.clear();
        self.selected.clear();
        self.taken.clear();
        self.small = None;
    }

    /// Prepare for `terms` around `solve_columns` (which overwrites column-major columns of
    /// length `n` with `B⁻¹` of them), taking the rows that add at least `select` of `diag`
    /// ([`SELECT`], [`SELECT_EXACT`]). `false` if the small system is singular.
    pub fn prepare(
        &mut self,
        terms: RowTerms,
        diag: &[f64],
        select: f64,
        n: usize,
        solve_columns: impl Fn(&mut [f64]),
    ) -> bool {
        self.columns.resize_with(terms.rows.len().max(self.columns.len()), || None);
        self.selected = (0..terms.rows.len()).filter(|&k| Self::counts(terms, k, diag, select)).collect();
        self.taken.clear();
        self.taken.resize(terms.rows.len(), false);
        self.selected.iter().for_each(|&k| self.taken[k] = true);
        self.fill_columns(terms, n, solve_columns);
        let m = self.selected.len();
        if m == 0 {
            self.small = None;
            return true;
        }
        let c = DMatrix::from_fn(m, m, |i, j| {
            let row = &self.columns[self.selected[i]].as_ref().expect("filled").row;
            let z = &self.columns[self.selected[j]].as_ref().expect("filled").z;
            let inv_d = if i == j { 1.0 / terms.d[self.selected[i]] } else { 0.0 };
            inv_d + dot(row, z)
        });
        let lu = c.lu();
        let ok = lu.is_invertible();
        self.small = ok.then_some(lu);
        ok
    }

    fn counts(terms: RowTerms, k: usize, diag: &[f64], select: f64) -> bool {
        let d = terms.d[k];
        let row = &terms.rows[k];
        let aa: f64 = row.iter().map(|(_, a)| a * a).sum();
        d > 0.0 && d * aa * aa >= select * row.iter().map(|&(i, a)| a * a * diag[i].abs()).sum::<f64>()
    }

    /// `z_k = B⁻¹ a_k` for the selected rows that lack one (or whose row changed), solved
    /// together.
    fn fill_columns(&mut self, terms: RowTerms, n: usize, solve_columns: impl Fn(&mut [f64])) {
        let current = |k: usize| self.columns[k].as_ref().is_some_and(|c| c.row == terms.rows[k]);
        let missing: Vec<usize> = self.selected.iter().copied().filter(|&k| !current(k)).collect();
        if missing.is_empty() {
            return;
        }
        let mut block = vec![0.0; n * missing.len()];
        for (c, &k) in missing.iter().enumerate() {
            for &(i, a) in &terms.rows[k] {
                block[c * n + i] += a;
            }
        }
        solve_columns(&mut block);
        for (c, &k) in missing.iter().enumerate() {
            self.columns[k] = Some(Column { row: terms.rows[k].clone(), z: block[c * n..(c + 1) * n].to_vec() });
        }
    }

    /// `y += Σ_{k∉S} d_k a_k (a_k · x)`: the terms [`prepare`](Self::prepare) left out.
    pub fn add_unselected_product(&self, terms: RowTerms, x: &[f64], y: &mut [f64]) {
        terms.add_product_of(|k| !self.taken.get(k).copied().unwrap_or(false), x, y);
    }

    /// Given `x = B⁻¹ b`, overwrite it with `(B + Σ_S d_k ã_k ã_kᵀ)⁻¹ b`.
    pub fn apply(&self, x: &mut [f64]) {
        self.correct(x);
    }

    /// [`apply`](Self::apply), returning the selected rows' multipliers `y = D Ã x` as the small
    /// system gives them (row index, value). Formed from `x` they would be the difference of two
    /// nearly equal large numbers amplified by `d`; from the small system they are exact to
    /// working precision, as an augmented system `[B Ãᵀ; Ã −D⁻¹]` would give them.
    pub fn apply_with_multipliers(&self, x: &mut [f64]) -> Vec<(usize, f64)> {
        let coef = self.correct(x);
        self.selected.iter().copied().zip(coef.iter().flat_map(|c| c.iter().copied())).collect()
    }

    /// The correction of [`apply`](Self::apply), returning the small system's solution `y`
    /// (`None` if there is none).
    fn correct(&self, x: &mut [f64]) -> Option<DVector<f64>> {
        let lu = self.small.as_ref()?;
        let rhs = DVector::from_iterator(
            self.selected.len(),
            self.selected.iter().map(|&k| dot(&self.columns[k].as_ref().expect("filled").row, x)),
        );
        let coef = lu.solve(&rhs)?;
        for (&k, c) in self.selected.iter().zip(coef.iter()) {
            let z = &self.columns[k].as_ref().expect("filled").z;
            x.iter_mut().zip(z).for_each(|(xi, zi)| *xi -= c * zi);
        }
        Some(coef)
    }
}

#[cfg(test)]
mod tests {
    use super::RowTerms;
    use crate::linalg::newton_solver::{Direct, NewtonSolver};
    use crate::linalg::sparse::{Pattern, SparseMatrix};
    use nalgebra::{DMatrix, DVector};

    /// A 1D chain's stiffness plus mass (SPD, banded), as the sparse matrix and densely.
    fn chain(n: usize) -> (SparseMatrix, DMatrix<f64>) {
        let entries = (0..n - 1).flat_map(|i| [(i, i + 1), (i + 1, i)]);
        let mut a = SparseMatrix::new(Pattern::from_entries(n, entries));
        let mut dense = DMatrix::zeros(n, n);
        for i in 0..n {
            let mut put = |r: usize, c: usize, v: f64| {
                a.add(r, c, v);
                dense[(r, c)] += v;
            };
            put(i, i, 2.0 + 0.01 * i as f64);
            if i + 1 < n {
                put(i, i + 1, -1.0);
                put(i + 1, i, -1.0);
            }
        }
        (a, dense)
    }

    /// Rows of width 8 spread over the chain, each touching nodes far apart (as a contact on a
    /// field couples a vertex to a surface patch).
    fn rows(n: usize) -> Vec<Vec<(usize, f64)>> {
        (0..5)
            .map(|k| (0..8).map(|j| ((7 * k + 13 * j) % n, 0.3 + 0.1 * j as f64 - 0.05 * k as f64)).collect())
            .collect()
    }

    fn full(dense: &DMatrix<f64>, rows: &[Vec<(usize, f64)>], d: &[f64], low: &[(Vec<f64>, Vec<f64>)]) -> DMatrix<f64> {
        let mut k = dense.clone();
        for (row, &dk) in rows.iter().zip(d) {
            for &(i, a) in row {
                for &(j, b) in row {
                    k[(i, j)] += dk * a * b;
                }
            }
        }
        for (u, w) in low {
            k += DVector::from_column_slice(u) * DVector::from_column_slice(w).transpose();
        }
        k
    }

    fn relative_residual(k: &DMatrix<f64>, x: &[f64], b: &[f64]) -> f64 {
        let b = DVector::from_column_slice(b);
        (k * DVector::from_column_slice(x) - &b).norm() / b.norm()
    }

    /// GMRES around the cached factor and the rows' Woodbury correction, with a dense rank-one
    /// term beside them, solves the whole matrix, the second time on the cached factor and
    /// columns. Weights up to 1e4 times the diagonal: beyond, the true residual GMRES measures
    /// here rounds to `d (a·x)`, which is why systems of rows alone take the left-preconditioned
    /// path (next test). Bound: GMRES stops at 1e-10 of the true residual.
    #[test]
    fn gmres_with_row_terms_solves_the_whole_matrix() {
        let n = 40;
        let (a, dense) = chain(n);
        let rows = rows(n);
        let low = vec![((0..n).map(|i| 0.1 * (i as f64).sin()).collect::<Vec<_>>(), vec![0.2; n])];
        let b: Vec<f64> = (0..n).map(|i| (0.3 * i as f64).cos()).collect();
        let mut solver = NewtonSolver::new(n);
        for d in [[0.0, 1e-6, 1.0, 1e4, 30.0], [1e3, 1e4, 1e-3, 0.0, 5.0]] {
            let k = full(&dense, &rows, &d, &low);
            let mut x = b.clone();
            let info = solver.solve_with_rows(&a, &low, RowTerms { rows: &rows, d: &d }, &mut x).expect("solves");
            let e = relative_residual(&k, &x, &b);
            assert!(e <= 1e-10, "d {d:?}: residual {e:e} ({info:?})");
        }
    }

    /// The dense answer of the augmented system `[K Ãᵀ; Ã −D⁻¹] (x, y) = (b, 0)` over the rows
    /// with a weight: `x` and the multipliers `y = D Ã x` by row index.
    fn augmented(
        k: &DMatrix<f64>,
        rows: &[Vec<(usize, f64)>],
        d: &[f64],
        b: &[f64],
    ) -> (DVector<f64>, Vec<(usize, f64)>) {
        let n = b.len();
        let active: Vec<usize> = (0..d.len()).filter(|&r| d[r] > 0.0).collect();
        let m = active.len();
        let mut aug = DMatrix::zeros(n + m, n + m);
        aug.view_mut((0, 0), (n, n)).copy_from(k);
        for (c, &r) in active.iter().enumerate() {
            for &(i, v) in &rows[r] {
                aug[(i, n + c)] += v;
                aug[(n + c, i)] += v;
            }
            aug[(n + c, n + c)] = -1.0 / d[r];
        }
        let mut rhs = DVector::zeros(n + m);
        rhs.rows_mut(0, n).copy_from_slice(b);
        let exact = aug.lu().solve(&rhs).expect("augmented system solves");
        (exact.rows(0, n).into_owned(), active.iter().enumerate().map(|(c, &r)| (r, exact[n + c])).collect())
    }

    /// Worst relative error of `x` and of the reported multipliers against [`augmented`].
    fn errors_against_augmented(
        k: &DMatrix<f64>,
        rows: &[Vec<(usize, f64)>],
        d: &[f64],
        b: &[f64],
        x: &[f64],
        ys: &[(usize, f64)],
    ) -> (f64, f64) {
        let (xe, ye) = augmented(k, rows, d, b);
        let ex = (DVector::from_column_slice(x) - &xe).norm() / xe.norm();
        let ey = ys.iter().fold(0.0_f64, |m, &(r, y)| {
            let exact = ye.iter().find(|(q, _)| *q == r).expect("a row with weight").1;
            m.max((y - exact).abs() / exact.abs())
        });
        (ex, ey)
    }

    /// Row systems (no low-rank terms) against a dense LU of the augmented system, with weights
    /// from 0 to 1e12 times the diagonal (inactive and active contacts of one interior-point
    /// iterate): first on a fresh exact factor, then on a factor left stale by a changed matrix
    /// and other weights (as the next interior-point iteration finds it). `x` and the
    /// multipliers the solver reports (Woodbury's small system's) agree with the dense answer.
    /// On the fresh factor GMRES has only the inactive rows to take up: measured 3e-16 relative
    /// for `x` and 2.5e-15 for the multipliers, bound 1e-12. On the stale one GMRES stops at
    /// its 1e-10 of the preconditioned residual (13 iterations): measured 1.3e-11 and 1.1e-11,
    /// bound that 1e-10, which holds at d = 1e12 where the multipliers formed as `d (a·x)` would
    /// carry `x`'s error times 1e12 (on the exact path of before, they were 1.9e-6 off at
    /// d = 1e9 and 1.3e-3 at 1e12).
    #[test]
    fn row_systems_give_the_augmented_systems_answer() {
        let n = 40;
        let (a, dense) = chain(n);
        let rows = rows(n);
        let d = [0.0, 1e-6, 1.0, 1e9, 1e12];
        let b: Vec<f64> = (0..n).map(|i| (0.3 * i as f64).cos()).collect();
        let mut solver = NewtonSolver::new(n);
        solver.direct = Direct::Exact;
        let mut x = b.clone();
        solver.solve_with_rows(&a, &[], RowTerms { rows: &rows, d: &d }, &mut x).expect("solves");
        let ys = solver.row_multipliers.take().expect("multipliers");
        let (ex, ey) = errors_against_augmented(&dense, &rows, &d, &b, &x, &ys);
        assert!(ex <= 1e-12 && ey <= 1e-12, "fresh factor: x {ex:e}, multipliers {ey:e}");
        assert!(ys.len() >= 2, "the active rows report multipliers: {ys:?}");

        // The next iterate: the matrix moved (its diagonal by up to a third) and so did the
        // weights, on the same factor.
        solver.direct = Direct::Off;
        let (mut moved, mut moved_dense) = chain(n);
        for i in 0..n {
            let shift = 0.3 * (1.0 + (0.7 * i as f64).sin());
            moved.add(i, i, shift);
            moved_dense[(i, i)] += shift;
        }
        let d2 = [1e12, 1e-6, 1e3, 1e10, 0.0];
        let mut x = b.clone();
        let info = solver.solve_with_rows(&moved, &[], RowTerms { rows: &rows, d: &d2 }, &mut x).expect("solves");
        let ys = solver.row_multipliers.take().expect("multipliers");
        let (ex, ey) = errors_against_augmented(&moved_dense, &rows, &d2, &b, &x, &ys);
        assert_eq!(info.factorizations, 0, "the stale factor serves: {info:?}");
        assert!(ex <= 1e-10 && ey <= 1e-10, "stale factor: x {ex:e}, multipliers {ey:e} ({info:?})");
    }

    /// With every term that matters in the preconditioner, GMRES on the cached factor needs
    /// almost no iterations when only the weights change: the rows left out (below
    /// [`super::SELECT`] of the diagonal) perturb the preconditioned spectrum by less than that.
    #[test]
    fn preconditioner_takes_the_active_rows() {
        let n = 40;
        let (a, _) = chain(n);
        let rows = rows(n);
        let mut solver = NewtonSolver::new(n);
        let mut x: Vec<f64> = (0..n).map(|i| 1.0 + i as f64).collect();
        let d = [1e3, 1e-9, 1e2, 1e-9, 3e3];
        let first = solver.solve_with_rows(&a, &[], RowTerms { rows: &rows, d: &d }, &mut x).expect("solves");
        let mut x: Vec<f64> = (0..n).map(|i| 1.0 - i as f64).collect();
        let d2 = [1e4, 1e-9, 1e1, 1e-9, 3e2];
        let again = solver.solve_with_rows(&a, &[], RowTerms { rows: &rows, d: &d2 }, &mut x).expect("solves");
        assert_eq!(first.factorizations + again.factorizations, 1, "{first:?} {again:?}");
        assert!(again.gmres_iterations <= 3, "{again:?}");
    }
}
