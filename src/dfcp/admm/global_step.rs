//! ADMM's global step `(A + W) v = b`, three ways (004 §5.3):
//! - `Cholesky`: one sparse Cholesky of the whole matrix (LU if `A` is not symmetric), its
//!   symbolic analysis and, for an unchanged matrix, its factor cached across solves;
//! - `Objects`: one Cholesky per object ([`ObjectCholesky`], the objects factored and solved in
//!   parallel). Objects that no matrix entry couples make it exact; entries between objects
//!   (labels cutting a rod from the body it is rooted on) make it CG's preconditioner;
//! - `Jacobi`: CG preconditioned by the diagonal (004's reproduction inside Argus).
//!
//! CG stops when its preconditioned residual, the error it estimates in `v`, is below
//! `τ_LS δ∞`: a fraction of the step ADMM's last iteration took (004's rule; `δ∞` is infinite
//! before the first iteration, and CG then makes one correction).

use super::super::global_reduction::{Factor, is_symmetric, symmetrized};
use super::super::par_kernels::{MulWork, mul_into};
use super::super::problem::{Csc, diagonal};
use super::{AdmmCache, AdmmParams};
use crate::linalg::object_cholesky::ObjectCholesky;
use crate::linalg::pcg::Pcg;
use anyhow::{Result, anyhow};
use faer::Mat;
use faer::sparse::Triplet;

/// How the global step is solved.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum LinearSolve {
    #[default]
    Cholesky,
    Objects,
    Jacobi,
}

/// CG iterations allowed per global step: with a block preconditioner the counts measured are a
/// few; the cap keeps a nearly singular coupling from stalling an ADMM iteration (ADMM goes on
/// from an inexact step, and its error is measured on the exact equations).
const MAX_CG: usize = 200;

/// A factorisation as an in-place solve.
pub(super) type SolveInPlace = std::sync::Arc<dyn Fn(faer::MatMut<'_, f64>) + Send + Sync>;

/// The global step of one set of contacts: built when the weights change, then applied once per
/// ADMM iteration.
pub(super) struct GlobalStep<'c> {
    kind: Kind<'c>,
    /// CG iterations over the solve, for the report.
    pub cg_iterations: usize,
}

enum Kind<'c> {
    Direct(SolveInPlace, Mat<f64>),
    Exact(&'c mut ObjectCholesky),
    Cg { a: &'c Csc, w: &'c [f64], pre: Preconditioner<'c>, pcg: Pcg, work: MulWork },
}

enum Preconditioner<'c> {
    Objects(&'c mut ObjectCholesky),
    Jacobi(Vec<f64>),
}

impl<'c> GlobalStep<'c> {
    /// Prepare the solve of `(a + diag(w)) v = b` as `prm` asks.
    pub fn new(a: &'c Csc, w: &'c [f64], prm: &AdmmParams, cache: &'c mut AdmmCache) -> Result<Self> {
        let kind = match prm.linear {
            LinearSolve::Objects if is_symmetric(a) => {
                let labels = prm.labels.as_ref().map(|l| covering(&l.0, a.nrows()));
                cache.objects.factor(a, w, labels.as_deref()).map_err(|e| anyhow!("A + W: {e}"))?;
                if cache.objects.coupled() {
                    let pre = Preconditioner::Objects(&mut cache.objects);
                    Kind::Cg { a, w, pre, pcg: Pcg::default(), work: MulWork::default() }
                } else {
                    Kind::Exact(&mut cache.objects)
                }
            }
            LinearSolve::Jacobi if is_symmetric(a) => {
                let inv = diagonal(a).iter().zip(w).map(|(d, w)| 1.0 / (d + w)).collect::<Vec<_>>();
                if let Some(j) = inv.iter().position(|x| !(x.is_finite() && *x > 0.0)) {
                    return Err(anyhow!("A + W has a non-positive diagonal at dof {j}"));
                }
                Kind::Cg { a, w, pre: Preconditioner::Jacobi(inv), pcg: Pcg::default(), work: MulWork::default() }
            }
            _ => Kind::Direct(factor_a_plus_w(a, w, cache)?, Mat::zeros(a.nrows(), 1)),
        };
        Ok(GlobalStep { kind, cg_iterations: 0 })
    }

    /// `x ←` the solution of the global step with right-hand side `b`; `x` holds a warm start,
    /// used by CG, which stops at an estimated error below `tol` (in `x`'s unit).
    pub fn solve(&mut self, b: &[f64], x: &mut [f64], tol: f64) {
        match &mut self.kind {
            Kind::Direct(f, rhs) => {
                for (i, bi) in b.iter().enumerate() {
                    rhs[(i, 0)] = *bi;
                }
                f(rhs.as_mut());
                for (i, xi) in x.iter_mut().enumerate() {
                    *xi = rhs[(i, 0)];
                }
            }
            Kind::Exact(oc) => {
                x.copy_from_slice(b);
                oc.solve_in_place(x);
            }
            Kind::Cg { a, w, pre, pcg, work } => {
                let apply = |y: &[f64], out: &mut [f64]| {
                    mul_into(a, y, out, work);
                    out.iter_mut().zip(y).zip(w.iter()).for_each(|((o, y), w)| *o += w * y);
                };
                let precondition = |y: &mut [f64]| match pre {
                    Preconditioner::Objects(oc) => oc.solve_in_place(y),
                    Preconditioner::Jacobi(inv) => y.iter_mut().zip(inv.iter()).for_each(|(y, d)| *y *= d),
                };
                self.cg_iterations += pcg.solve(apply, precondition, b, x, tol, MAX_CG).iterations;
            }
        }
    }

    /// The report's phrase for this solve.
    pub fn describe(&self) -> String {
        match &self.kind {
            Kind::Direct(..) => "one Cholesky".into(),
            Kind::Exact(oc) => format!("{} object blocks, exact", oc.blocks()),
            Kind::Cg { pre: Preconditioner::Objects(oc), .. } => {
                format!("CG on {} coupled object blocks, {} iterations", oc.blocks(), self.cg_iterations)
            }
            Kind::Cg { .. } => format!("Jacobi CG, {} iterations", self.cg_iterations),
        }
    }
}

/// `labels` for `n` dofs: dofs appended past them (compliant contacts' slack dofs) each get a
/// label of their own.
fn covering(labels: &[u32], n: usize) -> std::borrow::Cow<'_, [u32]> {
    if labels.len() >= n {
        return std::borrow::Cow::Borrowed(&labels[..n]);
    }
    let next = labels.iter().max().map_or(0, |m| m + 1);
    let extra = (0..(n - labels.len()) as u32).map(|k| next + k);
    std::borrow::Cow::Owned(labels.iter().copied().chain(extra).collect())
}

/// `A + W` factorised: with the cached symbolic Cholesky when `A` is symmetric and its pattern
/// (with full diagonal) matches the cache's, else from scratch (Cholesky or LU).
fn factor_a_plus_w(a: &Csc, w: &[f64], cache: &mut AdmmCache) -> Result<SolveInPlace> {
    use faer::sparse::linalg::solvers::{Llt, SymbolicLlt};
    let ndof = a.nrows();
    let ar = a.as_ref();
    let has_diagonal = (0..ndof).all(|j| ar.row_idx_of_col_raw(j).binary_search(&j).is_ok());
    if is_symmetric(a) && has_diagonal {
        let mut values = ar.val().to_vec();
        for j in 0..ndof {
            let rows = ar.row_idx_of_col_raw(j);
            let k = ar.col_range(j).start + rows.binary_search(&j).expect("checked above");
            values[k] += w[j];
        }
        let k = Csc::new(a.symbolic().to_owned().map_err(|e| anyhow!("{e:?}"))?, values.clone());
        let same_pattern =
            cache.pattern.as_ref().is_some_and(|(cp, ri)| cp[..] == *ar.col_ptr() && ri[..] == *ar.row_idx());
        if !same_pattern {
            cache.symbolic =
                Some(SymbolicLlt::try_new(k.symbolic(), faer::Side::Lower).map_err(|e| anyhow!("A + W: {e:?}"))?);
            cache.pattern = Some((ar.col_ptr().to_vec(), ar.row_idx().to_vec()));
            cache.numeric = None;
        }
        if let Some((vals, f)) = &cache.numeric
            && *vals == values
        {
            return Ok(f.clone());
        }
        let sym = cache.symbolic.clone().expect("set above");
        let llt = Llt::try_new_with_symbolic(sym, k.as_ref(), faer::Side::Lower)
            .map_err(|e| anyhow!("A + W is not positive definite (Cholesky: {e:?})"))?;
        let f: SolveInPlace = std::sync::Arc::new(move |x| {
            faer::linalg::solvers::SolveCore::solve_in_place_with_conj(&llt, faer::Conj::No, x)
        });
        cache.numeric = Some((values, f.clone()));
        return Ok(f);
    }
    let a = if is_symmetric(a) { symmetrized(a)? } else { a.clone() };
    let ar = a.as_ref();
    let mut t = Vec::with_capacity(ar.compute_nnz() + ndof);
    for j in 0..ndof {
        for (i, x) in ar.row_idx_of_col_raw(j).iter().zip(ar.val_of_col(j)) {
            t.push(Triplet::new(*i, j, *x));
        }
        t.push(Triplet::new(j, j, w[j]));
    }
    let k = Csc::try_new_from_triplets(ndof, ndof, &t).map_err(|e| anyhow!("assembling A + W: {e:?}"))?;
    let f = Factor::new(&k, "A + W")?;
    Ok(std::sync::Arc::new(move |x| f.solve_in_place(x)))
}
