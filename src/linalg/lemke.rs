//! Lemke's complementary pivoting for the linear complementarity problem
//! `w = M z + q`, `w >= 0`, `z >= 0`, `w^T z = 0` (Cottle, Pang & Stone 1992, §4.4), with the
//! covering vector `d = 1` and the lexicographic minimum-ratio rule against cycling.
//!
//! The scheme works on `w - M z - d z0 = q`: `z0` enters first, at the value that makes every `w`
//! non-negative, and each pivot then brings in the complement of the variable that just left.
//! It ends with a solution when `z0` leaves the basis, and with a *secondary ray* when no
//! variable can leave: for matrices that are not copositive-plus (002's Stewart–Trinkle LCP is
//! only copositive) the ray is a real outcome, reported, never dressed up as a solution.
//!
//! Dense: the basis inverse is kept as an `n x n` matrix and updated by one elimination per
//! pivot (`O(n^2)`, by columns in parallel), and the final basic solution is recomputed by a
//! fresh LU of the basis so that the rounding of the updates does not reach the answer.
// Numeric kernels index several parallel arrays with one counter; iterator zips would hide that.
#![allow(clippy::needless_range_loop)]

use faer::sparse::SparseColMatRef;
use rayon::prelude::*;

/// Largest LCP the dense scheme takes: its basis inverse and the final LU need `2 n^2` doubles
/// (144 MB at 3000). Larger problems are refused, not attempted.
pub const DENSE_MAX: usize = 3000;
/// Columns updated in parallel from this size on (below it the hand-off costs more than the
/// `n^2` update it splits).
const PAR_MIN: usize = 256;

/// How a Lemke run ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LemkeOutcome {
    /// `z0` left the basis: `z` solves the LCP (to the accuracy `residual` states).
    Solved,
    /// No variable could leave: a secondary ray, no solution found.
    Ray,
    /// The pivot limit or the time limit was reached first.
    Limit,
    /// The final basis is numerically singular: its solution could not be recomputed.
    Singular,
    /// The problem exceeds [`DENSE_MAX`].
    TooLarge,
}

#[derive(Clone, Debug)]
pub struct Lemke {
    pub outcome: LemkeOutcome,
    pub pivots: usize,
    /// The last basic solution's `z` (zero if the run never pivoted).
    pub z: Vec<f64>,
}

/// Variable numbering: `w_i` is `i`, `z_i` is `n + i`, `z0` is `2n`.
struct Tableau<'a> {
    n: usize,
    m: SparseColMatRef<'a, usize, f64>,
    /// Column-major basis inverse: `binv[j * n + i]` is row `i`, column `j`.
    binv: Vec<f64>,
    /// Basic variable of each row, and its value.
    basic: Vec<usize>,
    xb: Vec<f64>,
    col: Vec<f64>,
}

impl Tableau<'_> {
    /// `col = B^{-1} a_v` for the column `a_v` of variable `v` in `[I, -M, -d]`.
    fn entering_column(&mut self, v: usize) {
        let n = self.n;
        let (binv, col) = (&self.binv, &mut self.col);
        if v < n {
            col.copy_from_slice(&binv[v * n..(v + 1) * n]);
            return;
        }
        col.fill(0.0);
        let mut add = |k: usize, s: f64| {
            for (c, b) in col.iter_mut().zip(&binv[k * n..(k + 1) * n]) {
                *c -= s * b;
            }
        };
        if v == 2 * n {
            (0..n).for_each(|k| add(k, 1.0));
        } else {
            let j = v - n;
            for (k, mkj) in self.m.row_idx_of_col_raw(j).iter().zip(self.m.val_of_col(j)) {
                add(*k, *mkj);
            }
        }
    }

    /// Make the entering variable basic in row `r` (`col` holds its column).
    fn pivot(&mut self, r: usize, entering: usize) -> usize {
        let (n, col) = (self.n, &self.col);
        let p = col[r];
        let xr = self.xb[r] / p;
        for i in 0..n {
            self.xb[i] -= col[i] * xr;
        }
        self.xb[r] = xr;
        // The ratio test keeps every basic value non-negative; what falls below zero is rounding,
        // and left negative it would be divided by the next small pivot.
        self.xb.iter_mut().for_each(|x| *x = x.max(0.0));
        let update = |bj: &mut [f64]| {
            let t = bj[r] / p;
            if t != 0.0 {
                for i in 0..n {
                    bj[i] -= col[i] * t;
                }
                bj[r] = t;
            }
        };
        if n >= PAR_MIN {
            self.binv.par_chunks_mut(n).for_each(update);
        } else {
            self.binv.chunks_mut(n).for_each(update);
        }
        std::mem::replace(&mut self.basic[r], entering)
    }

    /// The leaving row by the lexicographic minimum ratio over rows with a positive pivot, `z0`'s
    /// row first among ties (the run then ends with a solution); `None`: a ray.
    ///
    /// Ties are judged by what they mean, not by the ratios' digits: row `i` ties at step `θ`
    /// when `x_i - θ c_i` is within rounding of zero (relative to the largest basic value);
    /// likewise for each column of `B^{-1}` in the lexicographic order.
    fn leaving_row(&self) -> Option<usize> {
        let (n, col) = (self.n, &self.col);
        let big = col.iter().fold(0.0f64, |m, c| m.max(c.abs()));
        // Entries below this are rounding of a zero: pivoting on one turns rounding-level
        // basic values into large ones of either sign.
        let piv_tol = 1e-7 * big;
        let mut ties: Vec<usize> = (0..n).filter(|&i| col[i] > piv_tol).collect();
        let narrow = |ties: &mut Vec<usize>, value: &dyn Fn(usize) -> f64| {
            let scale = ties.iter().map(|&i| value(i).abs()).fold(0.0f64, f64::max);
            let theta = ties.iter().map(|&i| value(i) / col[i]).fold(f64::INFINITY, f64::min);
            ties.retain(|&i| value(i) - theta * col[i] <= 1e-12 * scale);
        };
        narrow(&mut ties, &|i| self.xb[i]);
        if let Some(&r) = ties.iter().find(|&&i| self.basic[i] == 2 * n) {
            return Some(r);
        }
        for j in 0..n {
            if ties.len() <= 1 {
                break;
            }
            narrow(&mut ties, &|i| self.binv[j * n + i]);
        }
        ties.first().copied()
    }

    /// Recompute the basic solution from a fresh LU of the basis (drops the rounding of the
    /// product-form updates). `false` if the basis is singular.
    fn refine(&mut self, q: &[f64]) -> bool {
        use faer::linalg::solvers::Solve;
        let n = self.n;
        let mut b = faer::Mat::<f64>::zeros(n, n);
        for (i, &v) in self.basic.iter().enumerate() {
            if v < n {
                b[(v, i)] = 1.0;
            } else if v == 2 * n {
                (0..n).for_each(|k| b[(k, i)] = -1.0);
            } else {
                for (k, mkj) in self.m.row_idx_of_col_raw(v - n).iter().zip(self.m.val_of_col(v - n)) {
                    b[(*k, i)] = -mkj;
                }
            }
        }
        let x = b.partial_piv_lu().solve(faer::Mat::<f64>::from_fn(n, 1, |i, _| q[i]));
        if (0..n).any(|i| !x[(i, 0)].is_finite()) {
            return false;
        }
        (0..n).for_each(|i| self.xb[i] = x[(i, 0)]);
        true
    }

    fn z(&self) -> Vec<f64> {
        let n = self.n;
        let mut z = vec![0.0; n];
        for (i, &v) in self.basic.iter().enumerate() {
            if (n..2 * n).contains(&v) {
                z[v - n] = self.xb[i].max(0.0);
            }
        }
        z
    }
}

/// Solve `LCP(M, q)` by Lemke's method; `stop` is polled before each pivot (a time limit).
pub fn solve(m: SparseColMatRef<'_, usize, f64>, q: &[f64], max_pivots: usize, stop: impl Fn() -> bool) -> Lemke {
    let n = q.len();
    let done = |outcome, pivots, z| Lemke { outcome, pivots, z };
    if n > DENSE_MAX {
        return done(LemkeOutcome::TooLarge, 0, vec![0.0; n]);
    }
    if q.iter().all(|&x| x >= 0.0) {
        return done(LemkeOutcome::Solved, 0, vec![0.0; n]);
    }
    let mut binv = vec![0.0; n * n];
    (0..n).for_each(|i| binv[i * n + i] = 1.0);
    let mut t = Tableau { n, m, binv, basic: (0..n).collect(), xb: q.to_vec(), col: vec![0.0; n] };
    // z0 enters at the row of the most negative q_i / d_i, which makes every w non-negative.
    let r = (0..n).min_by(|&a, &b| q[a].total_cmp(&q[b])).expect("n > 0");
    t.entering_column(2 * n);
    let mut leaving = t.pivot(r, 2 * n);
    let mut pivots = 1;
    loop {
        if pivots >= max_pivots || stop() {
            return done(LemkeOutcome::Limit, pivots, t.z());
        }
        let entering = if leaving < n { leaving + n } else { leaving - n };
        t.entering_column(entering);
        let Some(r) = t.leaving_row() else {
            return done(LemkeOutcome::Ray, pivots, t.z());
        };
        leaving = t.pivot(r, entering);
        pivots += 1;
        if leaving == 2 * n {
            // A basis the LU finds singular keeps the updated solution: the report's residual
            // then says how good it is.
            let outcome = if t.refine(q) { LemkeOutcome::Solved } else { LemkeOutcome::Singular };
            return done(outcome, pivots, t.z());
        }
    }
}

/// `|min(z, M z + q)|`: zero exactly at a solution of the LCP.
pub fn min_map_residual(m: SparseColMatRef<'_, usize, f64>, q: &[f64], z: &[f64]) -> f64 {
    let mut w = q.to_vec();
    for j in 0..m.ncols() {
        for (i, v) in m.row_idx_of_col_raw(j).iter().zip(m.val_of_col(j)) {
            w[*i] += v * z[j];
        }
    }
    w.iter().zip(z).map(|(w, z)| w.min(*z).powi(2)).sum::<f64>().sqrt()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dfcp::problem::{Csc, csc_from_triplets};
    use faer::sparse::Triplet;

    fn dense(n: usize, f: impl Fn(usize, usize) -> f64) -> Csc {
        let t: Vec<_> =
            (0..n).flat_map(|i| (0..n).map(move |j| (i, j))).map(|(i, j)| Triplet::new(i, j, f(i, j))).collect();
        csc_from_triplets(n, n, &t).unwrap()
    }

    /// A 2x2 P-matrix LCP solved by hand: w = M z + q with M = [[2, 1], [1, 2]], q = (-5, -6):
    /// both z positive, M z = -q, z = (4/3, 7/3).
    #[test]
    fn small_p_matrix_by_hand() {
        let m = dense(2, |i, j| if i == j { 2.0 } else { 1.0 });
        let s = solve(m.as_ref(), &[-5.0, -6.0], 100, || false);
        assert_eq!(s.outcome, LemkeOutcome::Solved);
        // Recomputed from a fresh LU of a 2x2 basis: a few ulps of the answer.
        assert!((s.z[0] - 4.0 / 3.0).abs() < 1e-14 && (s.z[1] - 7.0 / 3.0).abs() < 1e-14, "{:?}", s.z);
    }

    /// Random positive-definite (hence P-matrix) LCPs: Lemke always ends with a solution whose
    /// min-map residual is at rounding level (1e-12 on O(1) data), and a degenerate one
    /// (repeated columns, zero entries of q) does not cycle.
    #[test]
    fn random_positive_definite_problems_are_solved() {
        let mut seed = 11u64;
        let mut rnd = || crate::test_rng::unit(&mut seed) - 0.5;
        for case in 0..60 {
            let n = 1 + case % 25;
            let g: Vec<f64> = (0..n * n).map(|_| rnd()).collect();
            let m = dense(n, |i, j| {
                (0..n).map(|k| g[i * n + k] * g[j * n + k]).sum::<f64>() + if i == j { 0.1 } else { 0.0 }
            });
            let q: Vec<f64> = (0..n).map(|i| if case % 3 == 0 && i % 2 == 0 { 0.0 } else { rnd() }).collect();
            let s = solve(m.as_ref(), &q, 10 * n + 10, || false);
            assert_eq!(s.outcome, LemkeOutcome::Solved, "case {case}");
            let res = min_map_residual(m.as_ref(), &q, &s.z);
            assert!(res <= 1e-12, "case {case}: residual {res:e}");
        }
    }

    /// An infeasible LCP (w = -z - 1 can never be >= 0) ends on a ray, reported as such.
    #[test]
    fn infeasible_problem_ends_on_a_ray() {
        let m = dense(1, |_, _| -1.0);
        let s = solve(m.as_ref(), &[-1.0], 100, || false);
        assert_eq!(s.outcome, LemkeOutcome::Ray);
    }

    #[test]
    fn limits_are_reported() {
        let m = dense(3, |i, j| if i == j { 1.0 } else { 0.5 });
        assert_eq!(solve(m.as_ref(), &[-1.0, -2.0, -3.0], 1, || false).outcome, LemkeOutcome::Limit);
        assert_eq!(solve(m.as_ref(), &[-1.0, -2.0, -3.0], 100, || true).outcome, LemkeOutcome::Limit);
        let big = csc_from_triplets(DENSE_MAX + 1, DENSE_MAX + 1, &[]).unwrap();
        let q = vec![-1.0; DENSE_MAX + 1];
        assert_eq!(solve(big.as_ref(), &q, 100, || false).outcome, LemkeOutcome::TooLarge);
    }
}
