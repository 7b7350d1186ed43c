//! Linear solves of Newton steps: GMRES preconditioned by a sparse factorization that is kept
//! across Newton iterations and time steps, and refreshed only when GMRES stops converging fast.
//!
//! The Jacobian of implicit friction is non-symmetric, but its non-symmetric part is confined to
//! the friction blocks of contact nodes. Cholesky of the symmetric part `(J + J^T)/2` costs a
//! fraction of a sparse LU and, as a preconditioner, leaves GMRES a few iterations; consecutive
//! Jacobians differ little, so one factorization serves many solves. Where the symmetric part is
//! not positive definite (compressed elements), its symmetric indefinite `LBLᵀ` takes the
//! Cholesky's place at the Cholesky's cost (`lblt`); sparse LU of `J` itself is the fallback
//! when neither factors or the preconditioner is not good enough.

mod lblt;
mod row_system;

use super::gmres::{Gmres, GmresInfo};
use super::row_terms::{RowTerms, RowWoodbury, SELECT, SELECT_EXACT};
use super::sparse::{LinearSolveError, SparseMatrix};
use super::woodbury::Woodbury;
use faer::linalg::solvers::SolveCore;
use faer::sparse::linalg::cholesky::SymbolicCholesky;
use faer::sparse::linalg::solvers::{Llt, Lu, SymbolicLlt, SymbolicLu};
use faer::sparse::{SparseColMatRef, SymbolicSparseColMatRef};
use faer::{Conj, MatMut, Side};
use std::sync::Arc;

enum Factor {
    Llt(Llt<usize, f64>),
    /// Of a symmetric part that is not positive definite.
    Lblt(lblt::Lblt),
    Lu(Box<Lu<usize, f64>>),
}

impl Factor {
    /// Overwrite the columns of `v` (column-major, `n` rows each) with their solutions.
    fn solve_columns(&self, v: &mut [f64], n: usize) {
        if n == 0 {
            return;
        }
        let m = MatMut::from_column_major_slice_mut(v, n, v.len() / n);
        match self {
            Factor::Llt(f) => f.solve_in_place_with_conj(Conj::No, m),
            Factor::Lblt(f) => f.solve_in_place(m),
            Factor::Lu(f) => f.solve_in_place_with_conj(Conj::No, m),
        }
    }

    fn solve_in_place(&self, v: &mut [f64]) {
        self.solve_columns(v, v.len());
    }
}

/// A Jacobian pattern and the values its cached preconditioner was factored from (`lu`: an LU of
/// the Jacobian, else a Cholesky or `LBLᵀ` of its symmetric part, which factoring the same
/// values again chooses the same way).
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct SolverSnapshot {
    pub n: usize,
    pub col_ptr: Vec<usize>,
    pub row_idx: Vec<usize>,
    pub generation: u64,
    pub factor: Option<(bool, Vec<f64>)>,
}

/// Counters of one solve (added to the step statistics).
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct LinearInfo {
    pub gmres_iterations: usize,
    pub factorizations: usize,
}

/// How [`NewtonSolver::solve`] factors.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Direct {
    /// GMRES around a cached factor, refreshed only when GMRES slows down.
    Off,
    /// A fresh sparse LU of `A` per solve, no GMRES (the penalty pipeline's `linear_solver: Lu`).
    Lu,
    /// A fresh exact factor per solve, no GMRES: Cholesky where `A` is symmetric (to rounding,
    /// [`SYMMETRY_TOL`]) and positive definite, else LU.
    Exact,
}

/// Largest `|a_ij − a_ji| / max|a|` for which a matrix counts as symmetric. An assembled Hessian is
/// symmetric to a few ulps; its Cholesky then solves a system perturbed by that much, far below
/// the 1e-10 that GMRES would leave. A friction Jacobian's asymmetry is of order one.
pub const SYMMETRY_TOL: f64 = 1e-14;

pub struct NewtonSolver {
    gmres: Gmres,
    factor: Option<Factor>,
    /// Pattern generation the cached symbolic data and slots belong to.
    generation: Option<u64>,
    sym_llt: Option<SymbolicLlt<usize>>,
    sym_lblt: Option<Arc<SymbolicCholesky<usize>>>,
    sym_lu: Option<SymbolicLu<usize>>,
    /// Slot of the transposed entry, if the pattern is structurally symmetric.
    transpose: Option<Vec<usize>>,
    sym_values: Vec<f64>,
    /// The values the cached LU was factored from (a checkpoint refactors them).
    lu_values: Vec<f64>,
    x: Vec<f64>,
    /// The row terms' Woodbury correction around `factor` (cleared with it).
    rows: RowWoodbury,
    /// After a solve with row terms and no low-rank terms: the multipliers
    /// `y_k = d_k (a_k · x)` of the rows its Woodbury correction took, as its small system gave
    /// them (`row_system`).
    pub row_multipliers: Option<Vec<(usize, f64)>>,
    /// `direct` at the last row-system solve: a switch to `Exact` refreshes the factor once.
    last_direct: Direct,
    /// GMRES iterations of the last row-system solve (`row_system::REFRESH_AFTER`).
    last_row_iterations: usize,
    /// Relative GMRES tolerance: small enough that Newton keeps its quadratic convergence.
    pub rel_tol: f64,
    /// GMRES iterations after which the preconditioner is considered stale.
    pub max_iterations: usize,
    /// Factor at every solve instead of iterating (no GMRES, no reuse).
    pub direct: Direct,
}

impl NewtonSolver {
    pub fn new(n: usize) -> NewtonSolver {
        NewtonSolver {
            gmres: Gmres::new(n, 40),
            factor: None,
            generation: None,
            sym_llt: None,
            sym_lblt: None,
            sym_lu: None,
            transpose: None,
            sym_values: Vec::new(),
            lu_values: Vec::new(),
            x: vec![0.0; n],
            rows: RowWoodbury::default(),
            row_multipliers: None,
            last_direct: Direct::Off,
            last_row_iterations: 0,
            rel_tol: 1e-10,
            max_iterations: 20,
            direct: Direct::Off,
        }
    }

    fn reset_for(&mut self, a: &SparseMatrix) {
        let p = &a.pattern;
        let mut t = Vec::with_capacity(p.nnz());
        let mut symmetric = true;
        for (r, c) in p.entries() {
            match p.slot(c, r) {
                Some(s) => t.push(s),
                None => {
                    symmetric = false;
                    break;
                }
            }
        }
        self.transpose = symmetric.then_some(t);
        self.sym_values = vec![0.0; p.nnz()];
        self.factor = None;
        self.rows.clear();
        self.sym_llt = None;
        self.sym_lblt = None;
        self.sym_lu = None;
        self.generation = Some(a.generation());
    }

    fn symbolic(a: &SparseMatrix) -> SymbolicSparseColMatRef<'_, usize> {
        let n = a.pattern.n;
        SymbolicSparseColMatRef::new_checked(n, n, &a.pattern.col_ptr, None, &a.pattern.row_idx)
    }

    /// A factor of the symmetric part: its Cholesky, else (not positive definite) its `LBLᵀ`;
    /// `None` if neither.
    fn factor_symmetric(&mut self, a: &SparseMatrix) -> Option<Factor> {
        let t = self.transpose.as_ref()?;
        for (k, &tk) in t.iter().enumerate() {
            self.sym_values[k] = 0.5 * (a.values[k] + a.values[tk]);
        }
        let values = std::mem::take(&mut self.sym_values);
        let f = self.llt_of(a, &values).or_else(|| self.lblt_of(a, &values));
        self.sym_values = values;
        f
    }

    /// `LBLᵀ` of `a`'s pattern holding `values` (its lower triangle is read).
    fn lblt_of(&mut self, a: &SparseMatrix, values: &[f64]) -> Option<Factor> {
        let sym = Self::symbolic(a);
        if self.sym_lblt.is_none() {
            self.sym_lblt = lblt::Lblt::analyse(sym);
        }
        let s = self.sym_lblt.clone()?;
        lblt::Lblt::new(s, SparseColMatRef::new(sym, values)).map(Factor::Lblt)
    }

    /// Cholesky of `a`'s pattern holding `values` (its lower triangle is read).
    fn llt_of(&mut self, a: &SparseMatrix, values: &[f64]) -> Option<Factor> {
        let sym = Self::symbolic(a);
        if self.sym_llt.is_none() {
            self.sym_llt = SymbolicLlt::try_new(sym, Side::Lower).ok();
        }
        let s = self.sym_llt.clone()?;
        Llt::try_new_with_symbolic(s, SparseColMatRef::new(sym, values), Side::Lower).ok().map(Factor::Llt)
    }

    fn factor_lu(&mut self, a: &SparseMatrix) -> Result<Factor, LinearSolveError> {
        let sym = Self::symbolic(a);
        if self.sym_lu.is_none() {
            self.sym_lu = Some(SymbolicLu::try_new(sym).map_err(|e| LinearSolveError::Singular(format!("{e:?}")))?);
        }
        let s = self.sym_lu.clone().expect("set above");
        Lu::try_new_with_symbolic(s, SparseColMatRef::new(sym, &a.values))
            .map(|f| Factor::Lu(Box::new(f)))
            .map_err(|e| LinearSolveError::Singular(format!("{e:?}")))
    }

    /// Whether the stored values are symmetric to [`SYMMETRY_TOL`] of the largest.
    fn is_symmetric(&self, a: &SparseMatrix) -> bool {
        let Some(t) = &self.transpose else { return false };
        let scale = a.values.iter().fold(0.0_f64, |m, v| m.max(v.abs()));
        t.iter().enumerate().all(|(k, &tk)| (a.values[k] - a.values[tk]).abs() <= SYMMETRY_TOL * scale)
    }

    /// An exact factor of `a`: Cholesky if it is symmetric and positive definite, else LU.
    fn factor_exact(&mut self, a: &SparseMatrix) -> Result<Factor, LinearSolveError> {
        // `a` itself, not its symmetric part in `sym_values`: those are the cached
        // preconditioner's values, which a checkpoint stores to rebuild it bit for bit.
        if self.is_symmetric(a)
            && let Some(f) = self.llt_of(a, &a.values)
        {
            return Ok(f);
        }
        self.factor_lu(a)
    }

    /// The preconditioner kept across steps, as the values it was factored from: a checkpoint
    /// holds these and [`restore`](Self::restore) factors them again, bit for bit the same
    /// factor (same pattern, ordering and values).
    pub fn snapshot(&self, a: &SparseMatrix) -> SolverSnapshot {
        let factor = match (&self.factor, self.generation == Some(a.generation())) {
            (Some(Factor::Llt(_) | Factor::Lblt(_)), true) => Some((false, self.sym_values.clone())),
            (Some(Factor::Lu(_)), true) => Some((true, self.lu_values.clone())),
            _ => None,
        };
        let p = &a.pattern;
        SolverSnapshot {
            n: p.n,
            col_ptr: p.col_ptr.clone(),
            row_idx: p.row_idx.clone(),
            generation: a.generation(),
            factor,
        }
    }

    /// Continue from a snapshot: `a` takes its pattern, and the factor is rebuilt.
    pub fn restore(&mut self, a: &mut SparseMatrix, s: SolverSnapshot) -> Result<(), String> {
        let pattern = super::sparse::Pattern { n: s.n, col_ptr: s.col_ptr, row_idx: s.row_idx };
        *a = a.restored(pattern, s.generation)?;
        self.reset_for(a);
        let Some((lu, values)) = s.factor else { return Ok(()) };
        if values.len() != a.pattern.nnz() {
            return Err("the checkpoint's factor values do not match its pattern".into());
        }
        // The factored values stand in the Jacobian until the next assembly overwrites them; a
        // Cholesky's are its symmetric part already, which symmetrising leaves bit for bit.
        a.values = values;
        let factor = if lu { self.factor_lu(a).ok() } else { self.factor_symmetric(a) };
        let factor = factor.ok_or("the checkpoint's preconditioner cannot be factored again")?;
        if lu {
            self.lu_values.clone_from(&a.values);
        }
        self.factor = Some(factor);
        Ok(())
    }

    fn gmres(&mut self, a: &SparseMatrix, low_rank: &[(Vec<f64>, Vec<f64>)], rows: RowTerms, rhs: &[f64]) -> GmresInfo {
        let factor = self.factor.as_ref().expect("factor present");
        // Precondition with the factor corrected for the row terms that matter and then for the
        // low-rank terms, so that neither a stiff volume penalty's rank-one Jacobian nor the
        // active contacts slow GMRES down.
        if !rows.is_empty() {
            let n = a.pattern.n;
            self.rows.prepare(rows, &a.diagonal(), SELECT, n, |v| factor.solve_columns(v, n));
        }
        let row_wb = &self.rows;
        let solve = |v: &mut [f64]| {
            factor.solve_in_place(v);
            row_wb.apply(v);
        };
        let wb = if low_rank.is_empty() { None } else { Woodbury::new(solve, low_rank) };
        self.x.iter_mut().for_each(|v| *v = 0.0);
        self.gmres.solve(
            |x, y| product(a, low_rank, rows, x, y),
            |v| {
                solve(v);
                if let Some(wb) = &wb {
                    wb.apply(low_rank, v);
                }
            },
            rhs,
            &mut self.x,
            self.rel_tol,
            self.max_iterations,
        )
    }

    /// Solve `(A + Σ u wᵀ) x = rhs` in place: `A` sparse, the low-rank terms (a volume penalty's
    /// exact Jacobian) applied without forming them — in GMRES's products, or by the
    /// Sherman–Morrison–Woodbury formula around the direct factor.
    pub fn solve(
        &mut self,
        a: &SparseMatrix,
        low_rank: &[(Vec<f64>, Vec<f64>)],
        rhs: &mut [f64],
    ) -> Result<LinearInfo, LinearSolveError> {
        self.solve_with_rows(a, low_rank, RowTerms::NONE, rhs)
    }

    /// Forget the row terms' cached columns: the next rows belong to a new problem (a new time
    /// step's contacts), not to the rows the columns were solved for.
    pub fn clear_rows(&mut self) {
        self.rows.clear();
        // Per problem, like the columns, so that a run resumed at a step boundary decides as
        // the uninterrupted one.
        self.last_direct = Direct::Off;
        self.last_row_iterations = 0;
    }

    /// [`solve`](Self::solve) with `A + Σ u wᵀ + Σ d_k a_k a_kᵀ`, the row terms (the contacts of
    /// an interior-point step) applied in products and by their own Woodbury correction.
    pub fn solve_with_rows(
        &mut self,
        a: &SparseMatrix,
        low_rank: &[(Vec<f64>, Vec<f64>)],
        rows: RowTerms,
        rhs: &mut [f64],
    ) -> Result<LinearInfo, LinearSolveError> {
        if self.generation != Some(a.generation()) {
            self.reset_for(a);
        }
        self.row_multipliers = None;
        if !rows.is_empty() && low_rank.is_empty() && self.direct != Direct::Lu {
            return self.solve_row_system(a, rows, rhs);
        }
        if self.direct != Direct::Off {
            let f = if self.direct == Direct::Lu { self.factor_lu(a)? } else { self.factor_exact(a)? };
            let n = a.pattern.n;
            let mut exact = RowWoodbury::default();
            if !rows.is_empty() && !exact.prepare(rows, &a.diagonal(), SELECT_EXACT, n, |v| f.solve_columns(v, n)) {
                return Err(LinearSolveError::NonFinite);
            }
            let solve = |v: &mut [f64]| {
                f.solve_in_place(v);
                exact.apply(v);
            };
            solve(rhs);
            if !low_rank.is_empty() {
                let wb = Woodbury::new(solve, low_rank).ok_or(LinearSolveError::NonFinite)?;
                wb.apply(low_rank, rhs);
            }
            let info = LinearInfo { factorizations: 1, ..Default::default() };
            return if rhs.iter().all(|v| v.is_finite()) { Ok(info) } else { Err(LinearSolveError::NonFinite) };
        }
        self.refreshing(a, false, rhs, |s, b, info| {
            let g = s.gmres(a, low_rank, rows, b);
            info.gmres_iterations += g.iterations;
            g.converged
        })
    }

    /// Solve `rhs` in place by `attempt` (which leaves its answer in `self.x`) around 1. the
    /// cached factor (unless `fresh` or there is none), 2. a fresh factor of the symmetric part,
    /// 3. a fresh LU of `A`, until it reports success.
    fn refreshing(
        &mut self,
        a: &SparseMatrix,
        fresh: bool,
        rhs: &mut [f64],
        mut attempt: impl FnMut(&mut Self, &[f64], &mut LinearInfo) -> bool,
    ) -> Result<LinearInfo, LinearSolveError> {
        let mut info = LinearInfo::default();
        if self.factor.is_some() && !fresh && attempt(self, rhs, &mut info) {
            rhs.copy_from_slice(&self.x);
            return Ok(info);
        }
        for use_lu in [false, true] {
            let f = if use_lu { Some(self.factor_lu(a)?) } else { self.factor_symmetric(a) };
            let Some(f) = f else { continue };
            if use_lu {
                // Kept across steps: a checkpoint needs the values it was factored from (the
                // Cholesky's are in `sym_values` already). The direct path keeps no factor.
                self.lu_values.clone_from(&a.values);
            }
            self.factor = Some(f);
            self.rows.clear();
            info.factorizations += 1;
            if attempt(self, rhs, &mut info) {
                rhs.copy_from_slice(&self.x);
                return Ok(info);
            }
        }
        if self.x.iter().any(|v| !v.is_finite()) {
            return Err(LinearSolveError::NonFinite);
        }
        Err(LinearSolveError::NotConverged)
    }
}

/// `y = (A + Σ u wᵀ + Σ d_k a_k a_kᵀ) x`.
fn product(a: &SparseMatrix, low_rank: &[(Vec<f64>, Vec<f64>)], rows: RowTerms, x: &[f64], y: &mut [f64]) {
    a.mul_vec(x, y);
    rows.add_product(x, y);
    for (u, w) in low_rank {
        let wx: f64 = w.iter().zip(x).map(|(a, b)| a * b).sum();
        y.iter_mut().zip(u).for_each(|(yi, ui)| *yi += ui * wx);
    }
}

/// Exact solves with `A + Σ u wᵀ` for many right-hand sides (a Delassus operator's columns):
/// one exact factor of `A` (Cholesky where it is symmetric and positive definite, else LU), the
/// columns of a block solved together by its triangular solves, each corrected for the low-rank
/// terms. No GMRES; the Newton solver's cached preconditioner is left as it was.
pub struct ColumnSolver<'a> {
    factor: Factor,
    woodbury: Option<Woodbury>,
    low_rank: &'a [(Vec<f64>, Vec<f64>)],
    n: usize,
}

impl NewtonSolver {
    /// A [`ColumnSolver`] for `a` and its low-rank terms (one factorization).
    pub fn column_solver<'a>(
        &mut self,
        a: &SparseMatrix,
        low_rank: &'a [(Vec<f64>, Vec<f64>)],
    ) -> Result<ColumnSolver<'a>, LinearSolveError> {
        if self.generation != Some(a.generation()) {
            self.reset_for(a);
        }
        let factor = self.factor_exact(a)?;
        let woodbury = if low_rank.is_empty() {
            None
        } else {
            Some(Woodbury::new(|v| factor.solve_in_place(v), low_rank).ok_or(LinearSolveError::NonFinite)?)
        };
        Ok(ColumnSolver { factor, woodbury, low_rank, n: a.pattern.n })
    }
}

impl ColumnSolver<'_> {
    /// Overwrite the columns of `b` (column-major, `n` rows) with their solutions.
    pub fn solve(&self, b: &mut [f64]) -> Result<(), LinearSolveError> {
        if self.n == 0 {
            return Ok(());
        }
        self.factor.solve_columns(b, self.n);
        if let Some(wb) = &self.woodbury {
            b.chunks_mut(self.n).for_each(|x| wb.apply(self.low_rank, x));
        }
        if b.iter().all(|v| v.is_finite()) { Ok(()) } else { Err(LinearSolveError::NonFinite) }
    }
}
