//! A square sparse matrix with a fixed (growable) pattern, assembled by scatter-add into
//! precomputed slots, and factorized with faer's sparse LU reusing the symbolic analysis.
//!
//! Newton iterations re-assemble the same pattern many times; building CSC from triplets each time
//! costs more than the element kernels. Instead every stencil looks up its slots once (or by binary
//! search for contacts) and adds into `values`. The pattern only grows (contacts between bodies
//! add couplings); when it grows the symbolic factorization is redone.

use faer::linalg::solvers::SolveCore;
use faer::sparse::linalg::solvers::{Lu, SymbolicLu};
use faer::sparse::{SparseColMatRef, SymbolicSparseColMatRef};
use faer::{Conj, MatMut};

/// Column-compressed sparsity pattern of an `n x n` matrix; row indices sorted in each column.
#[derive(Debug, Clone, Default)]
pub struct Pattern {
    pub n: usize,
    pub col_ptr: Vec<usize>,
    pub row_idx: Vec<usize>,
}

impl Pattern {
    /// Pattern holding every `(row, col)` given (duplicates merged) plus the diagonal.
    pub fn from_entries(n: usize, entries: impl IntoIterator<Item = (usize, usize)>) -> Pattern {
        let mut cols: Vec<Vec<usize>> = (0..n).map(|i| vec![i]).collect();
        for (r, c) in entries {
            cols[c].push(r);
        }
        let mut col_ptr = Vec::with_capacity(n + 1);
        let mut row_idx = Vec::new();
        col_ptr.push(0);
        for mut rows in cols {
            rows.sort_unstable();
            rows.dedup();
            row_idx.extend_from_slice(&rows);
            col_ptr.push(row_idx.len());
        }
        Pattern { n, col_ptr, row_idx }
    }

    pub fn nnz(&self) -> usize {
        self.row_idx.len()
    }

    /// Index into the value array of entry `(row, col)`, if it is in the pattern.
    #[inline]
    pub fn slot(&self, row: usize, col: usize) -> Option<usize> {
        let (a, b) = (self.col_ptr[col], self.col_ptr[col + 1]);
        self.row_idx[a..b].binary_search(&row).ok().map(|k| a + k)
    }

    /// All entries, column by column.
    pub fn entries(&self) -> impl Iterator<Item = (usize, usize)> + '_ {
        (0..self.n).flat_map(move |c| self.row_idx[self.col_ptr[c]..self.col_ptr[c + 1]].iter().map(move |&r| (r, c)))
    }
}

#[derive(Debug, thiserror::Error)]
pub enum LinearSolveError {
    #[error("sparse LU failed: the Jacobian is singular to working precision ({0})")]
    Singular(String),
    #[error("linear solve produced non-finite values")]
    NonFinite,
    #[error("GMRES did not reach its tolerance even with a fresh sparse LU preconditioner")]
    NotConverged,
}

/// Assembled values over a [`Pattern`] plus the cached symbolic LU.
pub struct SparseMatrix {
    pub pattern: Pattern,
    pub values: Vec<f64>,
    symbolic: Option<SymbolicLu<usize>>,
    /// Entries requested by `add` that are not in the pattern (grow the pattern and re-assemble).
    pub missing: Vec<(usize, usize)>,
    /// Incremented whenever the pattern changes (cached factorizations depend on it).
    generation: u64,
}

impl SparseMatrix {
    pub fn new(pattern: Pattern) -> SparseMatrix {
        let values = vec![0.0; pattern.nnz()];
        SparseMatrix { pattern, values, symbolic: None, missing: Vec::new(), generation: 0 }
    }

    pub fn clear(&mut self) {
        self.values.iter_mut().for_each(|v| *v = 0.0);
        self.missing.clear();
    }

    /// Add `v` at `(row, col)`; records the entry in `missing` if the pattern lacks it.
    #[inline]
    pub fn add(&mut self, row: usize, col: usize, v: f64) {
        match self.pattern.slot(row, col) {
            Some(s) => self.values[s] += v,
            None => self.missing.push((row, col)),
        }
    }

    /// Grow the pattern by the recorded missing entries (values are reset; re-assemble after).
    pub fn grow(&mut self) {
        let extra = std::mem::take(&mut self.missing);
        let entries: Vec<_> = self.pattern.entries().chain(extra).collect();
        let generation = self.generation + 1;
        *self = SparseMatrix::new(Pattern::from_entries(self.pattern.n, entries));
        self.generation = generation;
    }

    pub fn generation(&self) -> u64 {
        self.generation
    }

    /// A matrix over `pattern` at pattern generation `generation` (a checkpoint's), if the pattern
    /// is well formed and holds every entry of this one's (patterns only grow).
    pub fn restored(&self, pattern: Pattern, generation: u64) -> Result<SparseMatrix, String> {
        let p = &pattern;
        let sorted = p.col_ptr.windows(2).all(|w| w[0] <= w[1])
            && p.col_ptr.first() == Some(&0)
            && p.col_ptr.last() == Some(&p.row_idx.len())
            && (0..p.n).all(|c| p.row_idx[p.col_ptr[c]..p.col_ptr[c + 1]].windows(2).all(|w| w[0] < w[1]))
            && p.row_idx.iter().all(|&r| r < p.n);
        if p.n != self.pattern.n || p.col_ptr.len() != p.n + 1 || !sorted {
            return Err(format!(
                "the checkpoint's Jacobian pattern is malformed or for {} unknowns, not {}",
                p.n, self.pattern.n
            ));
        }
        if self.pattern.entries().any(|(r, c)| p.slot(r, c).is_none()) {
            return Err("the checkpoint's Jacobian pattern lacks entries of this scene's".into());
        }
        let mut m = SparseMatrix::new(pattern);
        m.generation = generation;
        Ok(m)
    }

    /// The diagonal (zero where the pattern has no diagonal entry).
    pub fn diagonal(&self) -> Vec<f64> {
        (0..self.pattern.n).map(|i| self.pattern.slot(i, i).map_or(0.0, |s| self.values[s])).collect()
    }

    /// `y = A x`.
    pub fn mul_vec(&self, x: &[f64], y: &mut [f64]) {
        self.mul_vec_of(|k| self.values[k], x, y);
    }

    /// `y = (A − B) x`, `B` holding `base` on `A`'s pattern (the values a cached factor was
    /// computed from): one pass, no cancellation beyond the entries' own.
    pub fn mul_vec_minus(&self, base: &[f64], x: &[f64], y: &mut [f64]) {
        self.mul_vec_of(|k| self.values[k] - base[k], x, y);
    }

    fn mul_vec_of(&self, value: impl Fn(usize) -> f64, x: &[f64], y: &mut [f64]) {
        y.iter_mut().for_each(|v| *v = 0.0);
        for (c, &xc) in x.iter().enumerate().take(self.pattern.n) {
            for k in self.pattern.col_ptr[c]..self.pattern.col_ptr[c + 1] {
                y[self.pattern.row_idx[k]] += value(k) * xc;
            }
        }
    }

    /// Solve `A x = b` in place with sparse LU (partial pivoting within faer's supernodal LU).
    /// The symbolic analysis (COLAMD ordering, elimination structure) is computed once per pattern.
    pub fn solve_in_place(&mut self, rhs: &mut [f64]) -> Result<(), LinearSolveError> {
        let n = self.pattern.n;
        let sym = SymbolicSparseColMatRef::new_checked(n, n, &self.pattern.col_ptr, None, &self.pattern.row_idx);
        if self.symbolic.is_none() {
            self.symbolic = Some(SymbolicLu::try_new(sym).map_err(|e| LinearSolveError::Singular(format!("{e:?}")))?);
        }
        let symbolic = self.symbolic.clone().expect("set above");
        let mat = SparseColMatRef::new(sym, &self.values);
        let lu = Lu::try_new_with_symbolic(symbolic, mat).map_err(|e| LinearSolveError::Singular(format!("{e:?}")))?;
        let rhs_mat = MatMut::from_column_major_slice_mut(rhs, n, 1);
        lu.solve_in_place_with_conj(Conj::No, rhs_mat);
        if rhs.iter().all(|v| v.is_finite()) { Ok(()) } else { Err(LinearSolveError::NonFinite) }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nonsymmetric_solve_and_pattern_growth() {
        // 1D Laplacian plus an upper off-diagonal perturbation (non-symmetric).
        let n = 50;
        let entries = (0..n - 1).flat_map(|i| [(i, i + 1), (i + 1, i)]);
        let mut a = SparseMatrix::new(Pattern::from_entries(n, entries));
        let assemble = |a: &mut SparseMatrix| {
            a.clear();
            for i in 0..n {
                a.add(i, i, 2.5);
                if i + 1 < n {
                    a.add(i, i + 1, -1.3);
                    a.add(i + 1, i, -0.7);
                }
            }
            a.add(0, n - 1, 0.4); // not in the pattern yet
        };
        assemble(&mut a);
        assert_eq!(a.missing, vec![(0, n - 1)]);
        a.grow();
        assemble(&mut a);
        assert!(a.missing.is_empty());
        let x: Vec<f64> = (0..n).map(|i| (i as f64 * 0.37).sin()).collect();
        let mut b = vec![0.0; n];
        a.mul_vec(&x, &mut b);
        a.solve_in_place(&mut b).unwrap();
        // Well-conditioned (diagonally dominant) system: LU backward error ~ n eps.
        for i in 0..n {
            assert!((b[i] - x[i]).abs() < 1e-12, "{i}: {} vs {}", b[i], x[i]);
        }
    }
}
