//! Global problems solved through their local (Delassus) form, like Siconos's `*_WR` solvers:
//! `W = H^T M^{-1} H`, `q = H^T M^{-1} f + w`, solve the local problem, then
//! `v = M^{-1} (H r + f)`.
//!
//! `M` is used exactly as stored, as FCLib, Siconos and `fclib_tools.py` do: sparse Cholesky
//! when it is symmetric, sparse LU otherwise. (The LMGC FEM file stores only the upper triangle
//! of its mass matrix; Siconos's reference solves with that triangle as given, and its `v`
//! satisfies `M_stored v = H r + f` to 1.5e-16. Symmetrising would solve a different problem.)

use super::problem::{Csc, GlobalProblem, LocalProblem, csc_mul_add};
use super::residual::global_error;
use super::solver::{SolveReport, SolverOptions};
use anyhow::{Result, anyhow};
use faer::linalg::solvers::Solve;
use faer::sparse::Triplet;
use faer::sparse::linalg::solvers::{Llt, Lu};
use faer::{Mat, Side};

/// `(M + M^T)/2` as a CSC matrix.
pub fn symmetrized(m: &Csc) -> Result<Csc> {
    let a = m.as_ref();
    let mut t = Vec::with_capacity(2 * a.compute_nnz());
    for j in 0..a.ncols() {
        for (i, v) in a.row_idx_of_col_raw(j).iter().zip(a.val_of_col(j)) {
            let i = *i;
            t.push(Triplet::new(i, j, 0.5 * v));
            t.push(Triplet::new(j, i, 0.5 * v));
        }
    }
    Csc::try_new_from_triplets(a.nrows(), a.ncols(), &t).map_err(|e| anyhow!("symmetrising M: {e:?}"))
}

/// True if `max |A - A^T| <= 1e-13 max |A|` (round-off of an assembled symmetric matrix).
pub fn is_symmetric(a: &Csc) -> bool {
    is_symmetric_within(a, 1e-13)
}

/// Columns per parallel task of [`is_symmetric_within`]: small enough that a local problem of a
/// few thousand unknowns is split across threads (KaplasTower, 1710 columns: 1.0 -> 0.7 ms on
/// 2 threads against 4096 per task).
const MIN_COLUMNS_PER_TASK: usize = 128;

/// Whether every entry of `A − Aᵀ` is within `tol` times the largest entry of `A`, all
/// entries being finite (a NaN or infinity anywhere, the diagonal included, is not symmetric).
/// Each stored `a_ij` is compared with `a_ji`, found by binary search in column `i` (an entry
/// missing from the pattern is 0); no copy of `A` is made, so checking the global matrices of
/// large scenes (10M entries) costs a pass over them, not the gigabyte of a transpose.
pub fn is_symmetric_within(a: &Csc, tol: f64) -> bool {
    use rayon::prelude::*;
    let ar = a.as_ref();
    if ar.nrows() != ar.ncols() {
        return false;
    }
    if !a.val().iter().all(|x| x.is_finite()) {
        return false;
    }
    let amax = a.val().iter().fold(0.0f64, |m, x| m.max(x.abs()));
    let bound = tol * amax;
    // The lookup needs strictly increasing rows in each column (faer's own constructors give
    // them; a matrix built from unchecked parts might not): otherwise sum a copy instead.
    let sorted = (0..ar.ncols()).all(|j| ar.row_idx_of_col_raw(j).windows(2).all(|w| w[0] < w[1]));
    if !sorted {
        let mut t = Vec::with_capacity(2 * ar.compute_nnz());
        for j in 0..ar.ncols() {
            for (i, v) in ar.row_idx_of_col_raw(j).iter().zip(ar.val_of_col(j)) {
                t.push(Triplet::new(*i, j, *v));
                t.push(Triplet::new(j, *i, -*v));
            }
        }
        return Csc::try_new_from_triplets(a.nrows(), a.ncols(), &t)
            .is_ok_and(|d| d.val().iter().all(|x| x.abs() <= bound));
    }
    let entry = |i: usize, j: usize| -> f64 {
        let rows = ar.row_idx_of_col_raw(j);
        rows.binary_search(&i).map_or(0.0, |k| ar.val_of_col(j)[k])
    };
    (0..ar.ncols()).into_par_iter().with_min_len(MIN_COLUMNS_PER_TASK).all(|j| {
        let rows = ar.row_idx_of_col_raw(j);
        rows.iter().zip(ar.val_of_col(j)).all(|(&i, &v)| i == j || (v - entry(j, i)).abs() <= bound)
    })
}

/// A factorised square matrix: Cholesky if symmetric, LU otherwise.
// Built once per problem: the size difference of the variants does not matter.
#[allow(clippy::large_enum_variant)]
pub enum Factor {
    Llt(Llt<usize, f64>),
    Lu(Lu<usize, f64>),
}

impl Factor {
    pub fn new(a: &Csc, what: &str) -> Result<Self> {
        if is_symmetric(a) {
            let s = symmetrized(a)?;
            let f =
                s.sp_cholesky(Side::Lower).map_err(|e| anyhow!("{what} is not positive definite (Cholesky: {e:?})"))?;
            Ok(Factor::Llt(f))
        } else {
            Ok(Factor::Lu(a.sp_lu().map_err(|e| anyhow!("{what} is singular (LU: {e:?})"))?))
        }
    }

    pub fn solve_in_place(&self, x: faer::MatMut<'_, f64>) {
        match self {
            Factor::Llt(f) => f.solve_in_place(x),
            Factor::Lu(f) => f.solve_in_place(x),
        }
    }

    pub fn kind(&self) -> &'static str {
        match self {
            Factor::Llt(_) => "Cholesky",
            Factor::Lu(_) => "LU",
        }
    }
}

/// A global problem with its factorised mass matrix and the equivalent local problem.
pub struct Reduced {
    pub local: LocalProblem,
    pub factor: Factor,
}

impl Reduced {
    pub fn new(g: &GlobalProblem) -> Result<Self> {
        let llt = Factor::new(&g.m, "M")?;
        let (ndof, n) = (g.ndof(), 3 * g.nc());
        // M^{-1} H, column by column in one dense multi-RHS solve.
        let mut x = Mat::<f64>::zeros(ndof, n);
        let h = g.h.as_ref();
        for j in 0..n {
            for (i, v) in h.row_idx_of_col_raw(j).iter().zip(h.val_of_col(j)) {
                x[(*i, j)] = *v;
            }
        }
        llt.solve_in_place(x.as_mut());
        // W = H^T (M^{-1} H): entry (a, b) = sum_i H_ia X_ib, sparse in H.
        let mut t = Vec::new();
        for b in 0..n {
            for a in 0..n {
                let mut s = 0.0;
                for (i, v) in h.row_idx_of_col_raw(a).iter().zip(h.val_of_col(a)) {
                    s += v * x[(*i, b)];
                }
                if s != 0.0 {
                    t.push(Triplet::new(a, b, s));
                }
            }
        }
        let w = Csc::try_new_from_triplets(n, n, &t).map_err(|e| anyhow!("Delassus assembly: {e:?}"))?;
        let mut mf = Mat::<f64>::from_fn(ndof, 1, |i, _| g.f[i]);
        llt.solve_in_place(mf.as_mut());
        let mut q = g.w.clone();
        let v0: Vec<f64> = (0..ndof).map(|i| mf[(i, 0)]).collect();
        g.velocity(&v0, &mut q);
        let local = LocalProblem::new(w, q, g.cones.clone())?;
        Ok(Reduced { local, factor: llt })
    }

    /// `v = M^{-1} (H r + f)`.
    pub fn velocity(&self, g: &GlobalProblem, r: &[f64], v: &mut [f64]) {
        let mut rhs = Mat::<f64>::from_fn(g.ndof(), 1, |i, _| g.f[i]);
        let mut hr = vec![0.0; g.ndof()];
        csc_mul_add(&g.h, r, &mut hr);
        for (i, x) in hr.iter().enumerate() {
            rhs[(i, 0)] += x;
        }
        self.factor.solve_in_place(rhs.as_mut());
        for (i, x) in v.iter_mut().enumerate() {
            *x = rhs[(i, 0)];
        }
    }
}

/// Solve a global problem with a local solver on its Delassus form. The stopping rule of the
/// local solver is applied to the local error; the report carries the *global* error (Siconos's
/// gfc3d measure), and `converged` is re-decided on it.
pub fn solve_reduced(
    g: &GlobalProblem,
    red: &Reduced,
    local_solver: impl Fn(&LocalProblem, &mut [f64], &mut [f64], &SolverOptions) -> SolveReport,
    r: &mut [f64],
    v: &mut [f64],
    opts: &SolverOptions,
) -> SolveReport {
    let mut u = vec![0.0; r.len()];
    let start = std::time::Instant::now();
    // The local error bounds the global natural-map part; the equation part is at round-off
    // after the back-substitution. Tighten by 10x so the global measure meets `tol`.
    let local_opts = SolverOptions { tol: opts.tol * 0.1, ..opts.clone() };
    let mut rep = local_solver(&red.local, r, &mut u, &local_opts);
    red.velocity(g, r, v);
    let e = global_error(g, r, v);
    rep.residual_abs = e.natmap_abs;
    rep.residual_rel = e.total;
    rep.converged = e.total <= opts.tol;
    rep.time = start.elapsed();
    rep.message = format!("{} (on the Delassus form; global eq_rel {:.1e})", rep.message, e.eq_rel);
    rep
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Dense reference: max |a_ij - a_ji| against tol * max |a|.
    fn dense_symmetric(n: usize, t: &[Triplet<usize, usize, f64>], tol: f64) -> bool {
        let mut d = vec![0.0; n * n];
        for e in t {
            d[e.row * n + e.col] += e.val;
        }
        let amax = d.iter().fold(0.0f64, |m, x| m.max(x.abs()));
        (0..n).all(|i| (0..n).all(|j| (d[i * n + j] - d[j * n + i]).abs() <= tol * amax))
    }

    #[test]
    fn symmetry_test_agrees_with_a_dense_comparison() {
        let mut seed = 5u64;
        let mut rnd = || crate::test_rng::unit(&mut seed);
        for case in 0..300 {
            let n = 1 + (rnd() * 12.0) as usize;
            let mut t = Vec::new();
            for _ in 0..(rnd() * 3.0 * n as f64) as usize {
                let (i, j) = ((rnd() * n as f64) as usize, (rnd() * n as f64) as usize);
                let v = rnd() - 0.5;
                t.push(Triplet::new(i, j, v));
                // Mostly symmetric pairs; some entries only one side (pattern asymmetric), some
                // mirrored with a small or a large error, some mirrored as explicit zeros.
                match case % 5 {
                    0 | 1 => t.push(Triplet::new(j, i, v)),
                    2 => t.push(Triplet::new(j, i, v * (1.0 + 1e-15))),
                    3 => t.push(Triplet::new(j, i, v * (1.0 + 1e-6))),
                    _ => t.push(Triplet::new(j, i, 0.0)),
                }
            }
            let a = Csc::try_new_from_triplets(n, n, &t).unwrap();
            for tol in [1e-13, 1e-3] {
                assert_eq!(is_symmetric_within(&a, tol), dense_symmetric(n, &t, tol), "case {case}, tol {tol}");
            }
        }
    }

    #[test]
    fn a_non_finite_entry_is_never_symmetric() {
        for bad in [f64::NAN, f64::INFINITY] {
            // On the diagonal (which the mirror comparison skips) and mirrored off it.
            let diag = [Triplet::new(0, 0, bad), Triplet::new(1, 1, 1.0)];
            let off = [Triplet::new(0, 1, bad), Triplet::new(1, 0, bad), Triplet::new(1, 1, 1.0)];
            for t in [&diag[..], &off[..]] {
                let a = Csc::try_new_from_triplets(2, 2, t).unwrap();
                assert!(!is_symmetric_within(&a, 1e-3), "{bad} accepted in {t:?}");
            }
        }
    }
}
