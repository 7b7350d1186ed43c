//! Dense LU with partial pivoting, factored in place with its permutation and scratch kept
//! across calls. faer's `Mat::partial_piv_lu` copies the matrix and splits it into fresh `L` and
//! `U` on every call; at 144 unknowns those are three 166 kB allocations per Newton iteration,
//! each served by mmap and faulted in page by page (measured: page faults and memset took a
//! fifth of FB Newton's time on BoxesStack).

use faer::dyn_stack::{MemBuffer, MemStack};
use faer::linalg::lu::partial_pivoting::{factor, solve};
use faer::{Conj, MatMut, Par};

pub struct DenseLu {
    perm: Vec<usize>,
    perm_inv: Vec<usize>,
    factor_mem: MemBuffer,
    solve_mem: MemBuffer,
}

impl DenseLu {
    /// Buffers for systems of up to `n × n` with one right-hand side.
    pub fn new(n: usize) -> Self {
        DenseLu {
            perm: vec![0; n],
            perm_inv: vec![0; n],
            factor_mem: MemBuffer::new(factor::lu_in_place_scratch::<usize, f64>(n, n, Par::Seq, Default::default())),
            solve_mem: MemBuffer::new(solve::solve_in_place_scratch::<usize, f64>(n, 1, Par::Seq)),
        }
    }

    /// Solve `A x = b` in place for a `k × k` `A` with `k = b.len()` at most the capacity: `a`
    /// is overwritten by its factors, `b` by `x`. A singular `A` gives non-finite entries in
    /// `x`, which the caller checks.
    pub fn factor_and_solve(&mut self, mut a: MatMut<'_, f64>, b: &mut [f64]) {
        let k = b.len();
        assert!(a.nrows() == k && a.ncols() == k && k <= self.perm.len(), "a {k} x {k} system within capacity");
        let (_, perm) = factor::lu_in_place(
            a.as_mut(),
            &mut self.perm[..k],
            &mut self.perm_inv[..k],
            Par::Seq,
            MemStack::new(&mut self.factor_mem),
            Default::default(),
        );
        let a = a.as_ref();
        // The unit-lower and upper solves read only their own triangles of the packed factors.
        solve::solve_in_place_with_conj(
            a,
            a,
            perm,
            Conj::No,
            MatMut::from_column_major_slice_mut(b, k, 1),
            Par::Seq,
            MemStack::new(&mut self.solve_mem),
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Against faer's own `partial_piv_lu` on systems that need pivoting, twice with one
    /// `DenseLu` (the kept buffers must not leak state between calls), then a smaller system
    /// in the same buffers.
    #[test]
    fn matches_faers_lu_and_reuses_its_buffers() {
        use faer::Mat;
        use faer::linalg::solvers::Solve;
        let n = 7;
        let mut lu = DenseLu::new(n);
        for shift in [0.0, 3.0] {
            let a =
                Mat::<f64>::from_fn(n, n, |i, j| ((i * 5 + j * 3) % 7) as f64 - 3.0 + if i == j { shift } else { 0.0 });
            let b: Vec<f64> = (0..n).map(|i| i as f64 - 2.5).collect();
            let reference = a.partial_piv_lu().solve(Mat::<f64>::from_fn(n, 1, |i, _| b[i]));
            let (mut f, mut x) = (a.clone(), b.clone());
            lu.factor_and_solve(f.as_mut(), &mut x);
            for i in 0..n {
                // Same algorithm, same pivots: equal up to a few ulps of |x| (here O(1)).
                assert!(
                    (x[i] - reference[(i, 0)]).abs() <= 1e-12,
                    "shift {shift}, x[{i}] {} vs {}",
                    x[i],
                    reference[(i, 0)]
                );
            }
        }
        let mut small = Mat::<f64>::from_fn(2, 2, |i, j| [[0.0, 2.0], [4.0, 1.0]][i][j]);
        let mut x = [2.0, 9.0];
        lu.factor_and_solve(small.as_mut(), &mut x);
        // 2 y = 2, 4 x + y = 9: exact in binary.
        assert_eq!(x, [2.0, 1.0]);
    }
}
