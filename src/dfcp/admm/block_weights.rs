//! Table 3's "anisotropic" ADMM (004 §8.2): the weight of each node is the full 3×3 diagonal
//! block `A_bb` of the global matrix instead of a multiple of the identity, so contact Delassus
//! blocks are no longer isotropic and every contact takes the full-block local solver (Daviet
//! 2011's, `solve_contact`).
//!
//! The projection stays the diagonal one by a change of variables per touched block:
//! `W_b = s_b L_b L_bᵀ` with `s_b = tr(W_b)/3` and `L_b` the Cholesky factor of `W_b / s_b`, so
//! `|p − q|²_W = Σ_b s_b |L_bᵀ (p_b − q_b)|²`. In `p' = Lᵀ p` (velocity units, `p' = p` when
//! `W_b` is isotropic) with `H' = L⁻¹ H` the projection is the diagonal-weight one with weights
//! `s_b`, and `p = L⁻ᵀ p'` afterwards.

use super::*;
use nalgebra::{Matrix3, Vector3};

/// The per-node weight blocks of `A` and their factors.
pub(super) struct BlockWeights {
    /// Per 3-dof block: `s_b` and the lower Cholesky factor `L_b` of `W_b / s_b`.
    scale: Vec<f64>,
    factor: Vec<Matrix3<f64>>,
}

impl BlockWeights {
    /// `W_b = weight_scale · A_bb` (symmetrised) for every block of `A`, which must have a
    /// multiple of 3 unknowns and positive definite diagonal blocks.
    pub(super) fn new(a: &Csc, weight_scale: f64) -> Result<Self> {
        let n = a.nrows();
        if !n.is_multiple_of(3) {
            return Err(anyhow!("block ADMM weights need 3 unknowns per node; the problem has {n}"));
        }
        let mut blocks = vec![Matrix3::<f64>::zeros(); n / 3];
        let ar = a.as_ref();
        for j in 0..n {
            for (&i, v) in ar.row_idx_of_col_raw(j).iter().zip(ar.val_of_col(j)) {
                if i / 3 == j / 3 {
                    blocks[i / 3][(i % 3, j % 3)] += v;
                }
            }
        }
        let (mut scale, mut factor) = (Vec::with_capacity(blocks.len()), Vec::with_capacity(blocks.len()));
        for (b, blk) in blocks.iter().enumerate() {
            let w = 0.5 * weight_scale * (blk + blk.transpose());
            let s = w.trace() / 3.0;
            let l = (s > 0.0).then(|| (w / s).cholesky()).flatten().ok_or_else(|| {
                anyhow!("the 3x3 block of unknowns {}..{} is not positive definite (M must be)", 3 * b, 3 * b + 3)
            })?;
            scale.push(s);
            factor.push(l.l());
        }
        Ok(BlockWeights { scale, factor })
    }

    /// Per block: whether some contact of `h` acts on it (only those carry a weight, as in
    /// `contact_weights`).
    pub(super) fn touched(&self, h: &Csc) -> Vec<bool> {
        let mut t = vec![false; self.scale.len()];
        let hr = h.as_ref();
        for j in 0..hr.ncols() {
            for &i in hr.row_idx_of_col_raw(j) {
                t[i / 3] = true;
            }
        }
        t
    }

    /// The diagonal weights of the transformed projection: `s_b` on touched blocks, else 0.
    pub(super) fn diagonal(&self, touched: &[bool], w: &mut [f64]) {
        for (b, &t) in touched.iter().enumerate() {
            w[3 * b..3 * b + 3].fill(if t { self.scale[b] } else { 0.0 });
        }
    }

    fn block(&self, b: usize) -> Matrix3<f64> {
        self.scale[b] * self.factor[b] * self.factor[b].transpose()
    }

    /// `A + W` with `W` the touched blocks, as one matrix (its diagonal is `A`'s, which holds it).
    pub(super) fn add_to(&self, a: &Csc, touched: &[bool]) -> Result<Csc> {
        let ar = a.as_ref();
        let mut t = Vec::with_capacity(ar.compute_nnz() + 9 * touched.len());
        for j in 0..a.ncols() {
            for (&i, &v) in ar.row_idx_of_col_raw(j).iter().zip(ar.val_of_col(j)) {
                t.push(Triplet::new(i, j, v));
            }
        }
        for (b, _) in touched.iter().enumerate().filter(|x| *x.1) {
            let w = self.block(b);
            for r in 0..3 {
                for c in 0..3 {
                    t.push(Triplet::new(3 * b + r, 3 * b + c, w[(r, c)]));
                }
            }
        }
        super::super::problem::csc_from_triplets(a.nrows(), a.ncols(), &t).map_err(|e| anyhow!("A + W: {e}"))
    }

    /// `out[i] = base[i] + (W x)[i]` on touched blocks, `base[i]` elsewhere.
    pub(super) fn add_product(&self, touched: &[bool], base: &[f64], x: &[f64], out: &mut [f64]) {
        out.copy_from_slice(base);
        for (b, _) in touched.iter().enumerate().filter(|x| *x.1) {
            let wx = self.block(b) * Vector3::new(x[3 * b], x[3 * b + 1], x[3 * b + 2]);
            for k in 0..3 {
                out[3 * b + k] += wx[k];
            }
        }
    }

    /// `H' = L⁻¹ H` (row blocks of touched nodes mixed by `L_b⁻¹`).
    pub(super) fn transformed(&self, h: &Csc) -> Result<Csc> {
        let hr = h.as_ref();
        let mut t = Vec::with_capacity(3 * hr.compute_nnz());
        for j in 0..h.ncols() {
            // Group the column's entries by block (rows are sorted, so a block's are adjacent).
            let (rows, vals) = (hr.row_idx_of_col_raw(j), hr.val_of_col(j));
            let mut k = 0;
            while k < rows.len() {
                let b = rows[k] / 3;
                let mut x = Vector3::zeros();
                while k < rows.len() && rows[k] / 3 == b {
                    x[rows[k] % 3] += vals[k];
                    k += 1;
                }
                let y = self.factor[b].solve_lower_triangular(&x).expect("positive diagonal");
                for r in 0..3 {
                    t.push(Triplet::new(3 * b + r, j, y[r]));
                }
            }
        }
        super::super::problem::csc_from_triplets(h.nrows(), h.ncols(), &t).map_err(|e| anyhow!("L⁻¹ H: {e}"))
    }

    /// `p ← Lᵀ p` on touched blocks.
    pub(super) fn to_scaled(&self, touched: &[bool], p: &mut [f64]) {
        for (b, _) in touched.iter().enumerate().filter(|x| *x.1) {
            let y = self.factor[b].transpose() * Vector3::new(p[3 * b], p[3 * b + 1], p[3 * b + 2]);
            p[3 * b..3 * b + 3].copy_from_slice(y.as_slice());
        }
    }

    /// `p ← L⁻ᵀ p` on touched blocks.
    pub(super) fn to_unscaled(&self, touched: &[bool], p: &mut [f64]) {
        for (b, _) in touched.iter().enumerate().filter(|x| *x.1) {
            let x = Vector3::new(p[3 * b], p[3 * b + 1], p[3 * b + 2]);
            let y = self.factor[b].transpose().solve_upper_triangular(&x).expect("positive diagonal");
            p[3 * b..3 * b + 3].copy_from_slice(y.as_slice());
        }
    }
}
