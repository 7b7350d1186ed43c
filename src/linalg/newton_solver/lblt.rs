//! A sparse symmetric indefinite factor `Q A Qᵀ = L B Lᵀ`: faer's supernodal Bunch–Kaufman,
//! pivoting within supernodes, over the fill-reducing ordering a Cholesky would use.
//!
//! A Newton Jacobian's symmetric part stops being positive definite when elements are
//! compressed past their stability (a sheet buckling under a ball, a neo-Hookean tet squashed);
//! its Cholesky then fails and the preconditioner was a sparse LU, with its own ordering and
//! row pivoting: measured on the trampoline at 540 contacts, an LU took 0.11 s against the
//! Cholesky's 0.025 s and half the factorisations of a contact step were LUs. This factor
//! keeps the Cholesky's structure and cost for such matrices. Pivoting only within supernodes
//! bounds its growth less than a full pivoting would, so it serves as a preconditioner under
//! GMRES, which checks it: a factor with non-finite entries is refused, and a zero pivot (whose
//! solves are not finite) fails GMRES, after which the caller's LU takes over.

use faer::dyn_stack::{MemBuffer, MemStack};
use faer::perm::PermRef;
use faer::sparse::linalg::SupernodalThreshold;
use faer::sparse::linalg::cholesky::{
    CholeskySymbolicParams, IntranodeLbltRef, SymbolicCholesky, factorize_symbolic_cholesky,
};
use faer::sparse::{SparseColMatRef, SymbolicSparseColMatRef};
use faer::{Conj, MatMut, Par, Side};
use std::sync::Arc;

pub struct Lblt {
    symbolic: Arc<SymbolicCholesky<usize>>,
    values: Vec<f64>,
    subdiag: Vec<f64>,
    forward: Vec<usize>,
    inverse: Vec<usize>,
}

impl Lblt {
    /// The symbolic analysis of a pattern (AMD ordering, supernodes), shared by its factors.
    /// Always supernodal: faer's simplicial variant of this factor is an `LDLᵀ` without pivoting.
    pub fn analyse(a: SymbolicSparseColMatRef<'_, usize>) -> Option<Arc<SymbolicCholesky<usize>>> {
        let params = CholeskySymbolicParams {
            supernodal_flop_ratio_threshold: SupernodalThreshold::FORCE_SUPERNODAL,
            ..Default::default()
        };
        factorize_symbolic_cholesky(a, Side::Lower, Default::default(), params).ok().map(Arc::new)
    }

    /// Factor the lower triangle of `a`; `None` if the factor has non-finite entries.
    pub fn new(symbolic: Arc<SymbolicCholesky<usize>>, a: SparseColMatRef<'_, usize, f64>) -> Option<Lblt> {
        let n = symbolic.nrows();
        let mut f = Lblt {
            values: vec![0.0; symbolic.len_val()],
            subdiag: vec![0.0; n],
            forward: vec![0; n],
            inverse: vec![0; n],
            symbolic,
        };
        let scratch = f.symbolic.factorize_numeric_intranode_lblt_scratch::<f64>(Par::Seq, Default::default());
        let mut mem = MemBuffer::try_new(scratch).ok()?;
        f.symbolic.factorize_numeric_intranode_lblt(
            &mut f.values,
            &mut f.subdiag,
            &mut f.forward,
            &mut f.inverse,
            a,
            Side::Lower,
            Par::Seq,
            MemStack::new(&mut mem),
            Default::default(),
        );
        f.values.iter().chain(&f.subdiag).all(|v| v.is_finite()).then_some(f)
    }

    /// Overwrite the columns of `v` with their solutions.
    pub fn solve_in_place(&self, v: MatMut<'_, f64>) {
        let n = self.symbolic.nrows();
        let perm = PermRef::new_checked(&self.forward, &self.inverse, n);
        let factor = IntranodeLbltRef::new(&self.symbolic, &self.values, &self.subdiag, perm);
        let mut mem = MemBuffer::new(self.symbolic.solve_in_place_scratch::<f64>(v.ncols(), Par::Seq));
        factor.solve_in_place_with_conj(Conj::No, v, Par::Seq, MemStack::new(&mut mem));
    }
}

#[cfg(test)]
mod tests {
    use super::Lblt;
    use crate::linalg::sparse::{Pattern, SparseMatrix};
    use faer::MatMut;
    use faer::sparse::{SparseColMatRef, SymbolicSparseColMatRef};

    /// A 2D grid's 5-point Laplacian shifted by `-shift` (indefinite for a shift inside its
    /// spectrum, as a stiff sheet's Hessian under compression), on `k × k` nodes.
    fn shifted_grid(k: usize, shift: f64) -> SparseMatrix {
        let n = k * k;
        let id = |i: usize, j: usize| i * k + j;
        let mut entries = Vec::new();
        for i in 0..k {
            for j in 0..k {
                if i + 1 < k {
                    entries.extend([(id(i, j), id(i + 1, j)), (id(i + 1, j), id(i, j))]);
                }
                if j + 1 < k {
                    entries.extend([(id(i, j), id(i, j + 1)), (id(i, j + 1), id(i, j))]);
                }
            }
        }
        let mut a = SparseMatrix::new(Pattern::from_entries(n, entries.iter().copied()));
        for r in 0..n {
            a.add(r, r, 4.0 - shift + 1e-3 * r as f64);
        }
        for (r, c) in entries {
            a.add(r, c, -1.0);
        }
        a
    }

    fn factor(a: &SparseMatrix) -> Option<Lblt> {
        let n = a.pattern.n;
        let sym = SymbolicSparseColMatRef::new_checked(n, n, &a.pattern.col_ptr, None, &a.pattern.row_idx);
        Lblt::new(Lblt::analyse(sym)?, SparseColMatRef::new(sym, &a.values))
    }

    /// An indefinite matrix (the grid Laplacian shifted into its spectrum: about half its
    /// eigenvalues negative) is factored and solves to rounding: bound 1e-12 relative residual,
    /// for a condition number of a few thousand.
    #[test]
    fn indefinite_systems_solve_to_rounding() {
        for shift in [2.0, 4.0, 5.5] {
            let a = shifted_grid(20, shift);
            let n = a.pattern.n;
            let f = factor(&a).expect("an indefinite nonsingular matrix factors");
            let b: Vec<f64> = (0..n).map(|i| (0.37 * i as f64).sin()).collect();
            let mut x = b.clone();
            f.solve_in_place(MatMut::from_column_major_slice_mut(&mut x, n, 1));
            let mut ax = vec![0.0; n];
            a.mul_vec(&x, &mut ax);
            let r = ax.iter().zip(&b).map(|(p, q)| (p - q).powi(2)).sum::<f64>().sqrt();
            let bn = b.iter().map(|v| v * v).sum::<f64>().sqrt();
            assert!(r <= 1e-12 * bn, "shift {shift}: residual {:e}", r / bn);
        }
    }

    /// A singular matrix (a zero row and column) factors with a zero pivot, whose solves are
    /// not finite: the Newton solver's GMRES then reports no convergence, its LU fares no better,
    /// and the solve is an error, not a panic or a non-finite answer.
    #[test]
    fn a_singular_matrix_is_an_error() {
        let mut a = SparseMatrix::new(Pattern::from_entries(3, [(0, 1), (1, 0)]));
        a.add(0, 0, 1.0);
        a.add(0, 1, 0.5);
        a.add(1, 0, 0.5);
        a.add(1, 1, -1.0);
        let mut x = vec![1.0, 2.0, 3.0];
        assert!(crate::linalg::newton_solver::NewtonSolver::new(3).solve(&a, &[], &mut x).is_err());
    }
}
