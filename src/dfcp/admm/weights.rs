//! ADMM weights: one per dof from the 3x3 diagonal blocks of the global matrix (004 §5.1), checked
//! positive, and restricted to the dofs a contact touches.

use super::*;

/// Minimum eigenvalue of a symmetric 3x3 matrix.
pub(super) fn min_eig3(a: &[[f64; 3]; 3]) -> f64 {
    let m = nalgebra::Matrix3::from_fn(|i, j| 0.5 * (a[i][j] + a[j][i]));
    m.symmetric_eigenvalues().min()
}

/// Per-dof weights from 004 §5.4, `w_j = max(σ η_j, min(β m_j, η_j))` on consecutive 3-dof
/// blocks of `A`: `η_j` the minimum eigenvalue of the 3x3 diagonal block, `m_j` the block's mean
/// entry of `mass` (the nodal mass, as printed) where it is given and covers the block, else the
/// block's mean diagonal of `A` (FCLib has no separate mass). With the latter `m_j ≥ η_j`, so
/// `w_j = η_j` and the mass guard never acts; with the mass it caps the weight of a stiff node
/// at `β m_j`. A trailing partial block uses its diagonal entries.
pub fn weights(a: &Csc, sigma: f64, beta: f64, mass: Option<&[f64]>) -> Vec<f64> {
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
            let m = match mass {
                Some(ms) if 3 * b + 3 <= ms.len() => ms[3 * b..3 * b + 3].iter().sum::<f64>() / 3.0,
                _ => (blk[0][0] + blk[1][1] + blk[2][2]) / 3.0,
            };
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
    let mut w = weights(a, prm.sigma, prm.beta, prm.mass.as_ref().map(|m| &m.0[..]));
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

#[cfg(test)]
mod tests {
    use super::*;

    /// Two nodes: a stiff one (block 1000 I, mass 1) and a soft one (block 2 I, mass 1). With the
    /// mass, the stiff node's weight is capped at β m = 25 and the soft one keeps η = 2; with the
    /// block's mean diagonal as `m_j`, both keep η (the guard cannot act); σ η bounds from below.
    #[test]
    fn the_mass_guard_caps_stiff_nodes_only() {
        let t: Vec<_> = (0..6).map(|i| faer::sparse::Triplet::new(i, i, if i < 3 { 1000.0 } else { 2.0 })).collect();
        let a = Csc::try_new_from_triplets(6, 6, &t).unwrap();
        let mass = [1.0; 6];
        assert_eq!(weights(&a, 1e-3, 25.0, Some(&mass)), [25.0, 25.0, 25.0, 2.0, 2.0, 2.0]);
        assert_eq!(weights(&a, 1e-3, 25.0, None), [1000.0, 1000.0, 1000.0, 2.0, 2.0, 2.0]);
        let light = [1e-9; 6];
        assert_eq!(weights(&a, 1e-3, 25.0, Some(&light)), [1.0, 1.0, 1.0, 2e-3, 2e-3, 2e-3]);
        // A mass shorter than the matrix (rigid unknowns appended) leaves the rest to the diagonal.
        assert_eq!(weights(&a, 1e-3, 25.0, Some(&mass[..3])), [25.0, 25.0, 25.0, 2.0, 2.0, 2.0]);
    }
}
