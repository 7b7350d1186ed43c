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
    /// Build from a square `3n x 3n` CSC matrix (duplicates already summed by faer).
    pub fn from_csc(a: SparseColMatRef<'_, usize, f64>) -> Self {
        let n = a.nrows() / 3;
        let mut entries: Vec<(usize, usize, usize, f64)> = Vec::with_capacity(a.compute_nnz());
        for j in 0..a.ncols() {
            let rows = a.row_idx_of_col_raw(j);
            let vals = a.val_of_col(j);
            for (i, v) in rows.iter().zip(vals) {
                let i = *i;
                entries.push((i / 3, j / 3, 3 * (i % 3) + j % 3, *v));
            }
        }
        entries.sort_unstable_by_key(|e| (e.0, e.1));
        let mut row_ptr = vec![0usize; n + 1];
        let mut col = Vec::new();
        let mut val: Vec<[f64; 9]> = Vec::new();
        let mut diag = vec![[0.0; 9]; n];
        let mut k = 0;
        for c in 0..n {
            while k < entries.len() && entries[k].0 == c {
                let d = entries[k].1;
                let mut blk = [0.0; 9];
                while k < entries.len() && entries[k].0 == c && entries[k].1 == d {
                    blk[entries[k].2] += entries[k].3;
                    k += 1;
                }
                if d == c {
                    diag[c] = blk;
                } else {
                    col.push(d);
                    val.push(blk);
                }
            }
            row_ptr[c + 1] = col.len();
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
