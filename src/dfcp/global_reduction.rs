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

/// Whether every entry of `A − Aᵀ` is within `tol` times the largest entry of `A`.
pub fn is_symmetric_within(a: &Csc, tol: f64) -> bool {
    let amax = a.val().iter().fold(0.0f64, |m, x| m.max(x.abs()));
    let ar = a.as_ref();
    let mut t = Vec::with_capacity(2 * ar.compute_nnz());
    for j in 0..ar.ncols() {
        for (i, v) in ar.row_idx_of_col_raw(j).iter().zip(ar.val_of_col(j)) {
            t.push(Triplet::new(*i, j, *v));
            t.push(Triplet::new(j, *i, -*v));
        }
    }
    match Csc::try_new_from_triplets(a.nrows(), a.ncols(), &t) {
        Ok(d) => d.val().iter().all(|x| x.abs() <= tol * amax),
        Err(_) => false,
    }
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
    local_solver: fn(&LocalProblem, &mut [f64], &mut [f64], &SolverOptions) -> SolveReport,
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
