//! ADMM weights: one per dof from the 3x3 diagonal blocks of the global matrix (004 §5.1), checked
//! positive, and restricted to the dofs a contact touches.

use super::*;

/// Minimum eigenvalue of a symmetric 3x3 matrix.
pub(super) fn min_eig3(a: &[[f64; 3]; 3]) -> f64 {
    let m = nalgebra::Matrix3::from_fn(|i, j| 0.5 * (a[i][j] + a[j][i]));
    m.symmetric_eigenvalues().min()
}

/// Per-dof weights from 004 §5.4, on consecutive 3-dof blocks of `A`: `η_j` the minimum
/// eigenvalue of the 3x3 diagonal block, `m_j` its mean diagonal (FCLib has no separate mass);
/// a trailing partial block uses its diagonal entries.
pub fn weights(a: &Csc, sigma: f64, beta: f64) -> Vec<f64> {
    let n = a.nrows();
    let ar = a.as_ref();
    let mut blocks = vec![[[0.0; 3]; 3]; n.div_ceil(3)];
    let mut diag = vec![0.0; n];
    for j in 0..n {
        for (i, v) in ar.row_idx_of_col_raw(j).iter().zip(ar.val_of_col(j)) {
            let i = *i;
            if i / 3 == j / 3 {
                blocks[i / 3][i % 3][j % 3] += v;
            }
            if i == j {
                diag[i] += v;
            }
        }
    }
    let mut w = vec![0.0; n];
    for (b, blk) in blocks.iter().enumerate() {
        if 3 * b + 3 <= n {
            let eta = min_eig3(blk);
            let m = (blk[0][0] + blk[1][1] + blk[2][2]) / 3.0;
            let wj = (sigma * eta).max((beta * m).min(eta));
            w[3 * b..3 * b + 3].fill(wj);
        } else {
            w[3 * b..n].copy_from_slice(&diag[3 * b..n]);
        }
    }
    w
}

/// The ADMM weights of the global matrix `a`, which must be positive.
pub(super) fn checked_weights(a: &Csc, prm: &AdmmParams) -> Result<Vec<f64>> {
    let mut w = weights(a, prm.sigma, prm.beta);
    w.iter_mut().for_each(|x| *x *= prm.weight_scale);
    if let Some(j) = w.iter().position(|x| x.is_nan() || *x <= 0.0) {
        return Err(anyhow!("ADMM weight of dof {j} is {} (M must be positive definite)", w[j]));
    }
    Ok(w)
}

/// The weights `W` restricted to the dofs some contact acts on (`w_all` there, 0 elsewhere).
/// A dof no contact touches has no constraint to agree on: its consensus `p_j = v_j` holds
/// exactly and `λ_j` stays 0, so a weight there would only add the proximal term
/// `W_j (v_j − v_j^prev)` to the global step and slow the motion of uncontacted parts (rigid
/// modes, whose stiffness is the mass alone, converged by a factor `W/(m + W)` per
/// iteration). The fixed point is the same.
pub(super) fn contact_weights(w_all: &[f64], h: &Csc, w: &mut [f64]) {
    w.fill(0.0);
    let hr = h.as_ref();
    for j in 0..hr.ncols() {
        for &i in hr.row_idx_of_col_raw(j) {
            w[i] = w_all[i];
        }
    }
}
