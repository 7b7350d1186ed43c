//! Block-row (3x3 BSR) copy of a contact-space matrix, for the per-contact sweeps of the
//! Gauss–Seidel family: contact `c` needs `sum_d W_cd r_d` with `d != c` and its diagonal block.
//! The faer CSC matrix stays the reference storage; this is a read-optimised view built once.

use faer::sparse::SparseColMatRef;

#[derive(Clone, Debug)]
pub struct BlockRows {
    /// Number of block rows (contacts).
    pub n: usize,
    /// `row_ptr[c]..row_ptr[c+1]` indexes the off-diagonal blocks of block row `c`.
    pub row_ptr: Vec<usize>,
    pub col: Vec<usize>,
    /// Row-major 3x3 blocks.
    pub val: Vec<[f64; 9]>,
    /// Diagonal blocks (zero if structurally absent).
    pub diag: Vec<[f64; 9]>,
}

impl BlockRows {
    /// Build from a square `3n x 3n` CSC matrix (duplicates already summed by faer), in two
    /// passes over its columns by block column `d`: the first counts each block row's
    /// off-diagonal blocks, the second appends block `(c, d)` to row `c` the first time a
    /// column of `d` reaches it and adds the entries in. Sweeping `d` in order leaves each row's
    /// blocks ordered by column. (A comparison sort of all entries took a third of a cloth
    /// band's step, with `W` of 10⁶ entries.)
    pub fn from_csc(a: SparseColMatRef<'_, usize, f64>) -> Self {
        debug_assert!(a.nrows() == a.ncols() && a.nrows() % 3 == 0, "a square 3n x 3n matrix");
        let n = a.nrows() / 3;
        // `seen[c]`: the last block column that reached block row `c`.
        let mut seen = vec![usize::MAX; n];
        let mut row_ptr = vec![0usize; n + 1];
        for j in 0..a.ncols() {
            for &i in a.row_idx_of_col_raw(j) {
                let (c, d) = (i / 3, j / 3);
                if seen[c] != d && c != d {
                    row_ptr[c + 1] += 1;
                }
                seen[c] = d;
            }
        }
        for c in 0..n {
            row_ptr[c + 1] += row_ptr[c];
        }
        let (mut col, mut val) = (vec![0usize; row_ptr[n]], vec![[0.0; 9]; row_ptr[n]]);
        let mut diag = vec![[0.0; 9]; n];
        let mut next = row_ptr.clone();
        seen.fill(usize::MAX);
        for j in 0..a.ncols() {
            for (&i, v) in a.row_idx_of_col_raw(j).iter().zip(a.val_of_col(j)) {
                let (c, d, slot) = (i / 3, j / 3, 3 * (i % 3) + j % 3);
                if c == d {
                    diag[c][slot] += v;
                    continue;
                }
                if seen[c] != d {
                    seen[c] = d;
                    col[next[c]] = d;
                    next[c] += 1;
                }
                val[next[c] - 1][slot] += v;
            }
        }
        BlockRows { n, row_ptr, col, val, diag }
    }

    /// `sum_{d != c} W_cd x_d`.
    #[inline]
    pub fn off_diag_row(&self, c: usize, x: &[f64]) -> [f64; 3] {
        let mut y = [0.0; 3];
        for k in self.row_ptr[c]..self.row_ptr[c + 1] {
            let d = self.col[k];
            let b = &self.val[k];
            let (x0, x1, x2) = (x[3 * d], x[3 * d + 1], x[3 * d + 2]);
            y[0] += b[0] * x0 + b[1] * x1 + b[2] * x2;
            y[1] += b[3] * x0 + b[4] * x1 + b[5] * x2;
            y[2] += b[6] * x0 + b[7] * x1 + b[8] * x2;
        }
        y
    }

    /// `y = A x + b`.
    pub fn mul_add(&self, x: &[f64], b: &[f64], y: &mut [f64]) {
        (0..self.n).for_each(|c| self.row_mul_add(c, x, b, y));
    }

    /// `y = A x + b` on the block rows `rows` only (the others of `y` untouched).
    pub fn mul_add_rows(&self, rows: &[usize], x: &[f64], b: &[f64], y: &mut [f64]) {
        rows.iter().for_each(|&c| self.row_mul_add(c, x, b, y));
    }

    /// Block row `c` of `y = A x + b`.
    #[inline]
    fn row_mul_add(&self, c: usize, x: &[f64], b: &[f64], y: &mut [f64]) {
        let o = self.off_diag_row(c, x);
        let d = &self.diag[c];
        let (x0, x1, x2) = (x[3 * c], x[3 * c + 1], x[3 * c + 2]);
        y[3 * c] = b[3 * c] + o[0] + d[0] * x0 + d[1] * x1 + d[2] * x2;
        y[3 * c + 1] = b[3 * c + 1] + o[1] + d[3] * x0 + d[4] * x1 + d[5] * x2;
        y[3 * c + 2] = b[3 * c + 2] + o[2] + d[6] * x0 + d[7] * x1 + d[8] * x2;
    }

    /// Number of stored 3x3 blocks (off-diagonal + diagonal).
    pub fn nnz_blocks(&self) -> usize {
        self.col.len() + self.n
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use faer::sparse::{SparseColMat, Triplet};

    /// A random 3n x 3n matrix with some blocks empty and the others missing entries at random
    /// (a block may first be reached by its second or third column; a diagonal block may be
    /// empty): its block rows multiply as the matrix does, to rounding (the same at most 21
    /// products summed in another order: 1e-14 of `Σ|a_ij x_j|`), list each row's blocks in
    /// increasing column order, and keep the diagonal blocks apart.
    #[test]
    fn block_rows_multiply_as_the_matrix_and_are_ordered() {
        let n = 9;
        let mut seed = 11u64;
        let mut rnd = move || {
            seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            (seed >> 11) as f64 / (1u64 << 53) as f64
        };
        let mut t = Vec::new();
        for c in 0..n {
            for d in 0..n {
                if rnd() < 0.5 {
                    for k in 0..9 {
                        if rnd() < 0.6 {
                            t.push(Triplet::new(3 * c + k / 3, 3 * d + k % 3, rnd() - 0.5));
                        }
                    }
                }
            }
        }
        let a = SparseColMat::<usize, f64>::try_new_from_triplets(3 * n, 3 * n, &t).unwrap();
        let b = BlockRows::from_csc(a.as_ref());
        let x: Vec<f64> = (0..3 * n).map(|_| rnd()).collect();
        let mut y = vec![0.0; 3 * n];
        b.mul_add(&x, &vec![0.0; 3 * n], &mut y);
        let dense = a.to_dense();
        for i in 0..3 * n {
            let expect: f64 = (0..3 * n).map(|j| dense[(i, j)] * x[j]).sum();
            let size: f64 = (0..3 * n).map(|j| (dense[(i, j)] * x[j]).abs()).sum();
            assert!((y[i] - expect).abs() <= 1e-14 * size, "row {i}: {} vs {expect}", y[i]);
        }
        for c in 0..n {
            let cols = &b.col[b.row_ptr[c]..b.row_ptr[c + 1]];
            assert!(cols.windows(2).all(|w| w[0] < w[1]) && !cols.contains(&c), "row {c}: {cols:?}");
            assert!((0..9).all(|k| b.diag[c][k] == dense[(3 * c + k / 3, 3 * c + k % 3)]));
        }
    }
}
