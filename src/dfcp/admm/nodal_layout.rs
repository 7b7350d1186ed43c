//! 004's compact nodal contact record (Algorithm 3) and its branch-free closed-form update.

use super::*;

/// One contact in 004's compact nodal form (Algorithm 3): `H_c` consists of node blocks
/// `b_cj R_c` (rows: the node's 3 dofs; columns: normal, tangent, binormal) with an orthonormal
/// frame `R_c`, so with one weight `w_j` per node the Delassus block is `s_c I`,
/// `s_c = Σ_j b_cj² / w_j`, and the whole update needs only this record. 192 bytes, three cache
/// lines; contacts with fewer than 4 nodes repeat their first node with `b = γ = 0`, so the
/// loops have no branches.
#[derive(Clone, Copy, Debug)]
#[repr(C, align(64))]
pub(super) struct NodalContact {
    /// Node indices (dofs `3 n .. 3 n + 3` of `p`).
    pub(super) node: [u32; 4],
    /// Node weights `b_cj`.
    pub(super) b: [f64; 4],
    /// `γ_cj = b_cj / (s_c w_j)`: the velocity change of node `j` per unit scaled force
    /// `r̄ = s_c r` (world axes).
    pub(super) gamma: [f64; 4],
    /// `R_c` row-major: `frame[3 a + k]` is world axis `a` of contact axis `k`.
    pub(super) frame: [f64; 9],
    /// The isotropic Delassus block `s_c`.
    pub(super) s: f64,
    /// Isotropic friction coefficient.
    pub(super) mu: f64,
    /// The known relative velocity `w_c` of the problem.
    pub(super) wc: [f64; 3],
}

/// Largest number of nodes a compact contact holds (edge–edge and vertex–triangle: 4).
pub(super) const NODES: usize = 4;

impl NodalContact {
    /// `Σ_j b_j p_j` (world axes).
    #[inline(always)]
    pub(super) fn gather(&self, p: &[Shared<f64>]) -> [f64; 3] {
        let mut q = [0.0; 3];
        for j in 0..NODES {
            let n = 3 * self.node[j] as usize;
            let b = self.b[j];
            q[0] += b * p[n].get();
            q[1] += b * p[n + 1].get();
            q[2] += b * p[n + 2].get();
        }
        q
    }

    /// `p_j += γ_j R x` for every node.
    #[inline(always)]
    pub(super) fn scatter(&self, x: [f64; 3], p: &[Shared<f64>]) {
        let f = &self.frame;
        let dq = [
            f[0] * x[0] + f[1] * x[1] + f[2] * x[2],
            f[3] * x[0] + f[4] * x[1] + f[5] * x[2],
            f[6] * x[0] + f[7] * x[1] + f[8] * x[2],
        ];
        for j in 0..NODES {
            let n = 3 * self.node[j] as usize;
            let g = self.gamma[j];
            p[n].add(g * dq[0]);
            p[n + 1].add(g * dq[1]);
            p[n + 2].add(g * dq[2]);
        }
    }
}

/// Build the compact record of contact `c`, or `None` if its `H` columns are not of the nodal
/// form (more than 4 nodes, a node whose 3 dofs are not one aligned block with one weight, blocks
/// not multiples of one orthonormal frame, an elliptic cone). `blocks` is scratch space.
pub(super) fn nodal_contact(
    g: &GlobalProblem,
    w: &[f64],
    c: usize,
    blocks: &mut Vec<(usize, [[f64; 3]; 3])>,
) -> Option<NodalContact> {
    let cone = g.cones[c];
    if !cone.is_isotropic() {
        return None;
    }
    let hr = g.h.as_ref();
    blocks.clear();
    for k in 0..3 {
        for (i, v) in hr.row_idx_of_col_raw(3 * c + k).iter().zip(hr.val_of_col(3 * c + k)) {
            let n = i / 3;
            let pos = match blocks.iter().position(|b| b.0 == n) {
                Some(pos) => pos,
                None => {
                    blocks.push((n, [[0.0; 3]; 3]));
                    blocks.len() - 1
                }
            };
            blocks[pos].1[i % 3][k] += v;
        }
    }
    if blocks.is_empty() || blocks.len() > NODES {
        return None;
    }
    // The frame from the largest block (scaled to unit columns); every block must be a multiple
    // of it to the rounding of `b_cj R_c` products (64 ulps of the largest entry, as in
    // `isotropic_diagonal`).
    let fro = |m: &[[f64; 3]; 3]| m.iter().flatten().map(|x| x * x).sum::<f64>();
    let big = (0..blocks.len()).max_by(|&a, &b| fro(&blocks[a].1).total_cmp(&fro(&blocks[b].1)))?;
    let rho = (fro(&blocks[big].1) / 3.0).sqrt();
    if !(rho > 0.0 && rho.is_finite()) {
        return None;
    }
    let mut frame = [0.0; 9];
    for a in 0..3 {
        for k in 0..3 {
            frame[3 * a + k] = blocks[big].1[a][k] / rho;
        }
    }
    let tol = 64.0 * f64::EPSILON;
    for k in 0..3 {
        for l in 0..3 {
            let dot: f64 = (0..3).map(|a| frame[3 * a + k] * frame[3 * a + l]).sum();
            if (dot - if k == l { 1.0 } else { 0.0 }).abs() > tol {
                return None;
            }
        }
    }
    let mut rec = NodalContact {
        node: [0; 4],
        b: [0.0; 4],
        gamma: [0.0; 4],
        frame,
        s: 0.0,
        mu: cone.mu_t,
        wc: [g.w[3 * c], g.w[3 * c + 1], g.w[3 * c + 2]],
    };
    for (j, (n, blk)) in blocks.iter().enumerate() {
        let n = *n;
        if 3 * n + 2 >= w.len() || w[3 * n] != w[3 * n + 1] || w[3 * n] != w[3 * n + 2] {
            return None;
        }
        let b = (0..9).map(|e| blk[e / 3][e % 3] * frame[e]).sum::<f64>() / 3.0;
        if (0..9).any(|e| (blk[e / 3][e % 3] - b * frame[e]).abs() > tol * rho) {
            return None;
        }
        rec.node[j] = u32::try_from(n).ok()?;
        rec.b[j] = b;
        rec.s += b * b / w[3 * n];
    }
    if !(rec.s > 0.0 && rec.s.is_finite()) {
        return None;
    }
    for (j, (n, _)) in blocks.iter().enumerate() {
        rec.gamma[j] = rec.b[j] / (rec.s * w[3 * n]);
    }
    for j in blocks.len()..NODES {
        rec.node[j] = rec.node[0];
    }
    Some(rec)
}

/// 004's closed form for the block `s I` (as `solve_isotropic_diagonal`: the post-solve velocity
/// from `u*`), written without data-dependent branches: a contact's case (take-off, stick,
/// slide) varies from one contact to the next, so a branch per case is mispredicted often and
/// costs more than computing the slide factor always. `1 - α/τ` clamped at 0 is the stick case
/// too (`τ ≤ α`), including `τ = 0`, where `α/τ` is `∞` or `0/0 = NaN` and `max` returns 0.
/// Equal to `solve_isotropic_diagonal` bit for bit except the sign of zero tangential
/// components when sticking (`0 · u*_T`).
#[inline(always)]
pub(super) fn closed_form(us: [f64; 3], mu: f64) -> [f64; 3] {
    let tau = hyp(us[1], us[2]);
    let slide = (1.0 - (-mu * us[0]) / tau).max(0.0);
    let take_off = us[0] >= 0.0;
    let normal = if take_off { us[0] } else { 0.0 };
    let tangent = if take_off { 1.0 } else { slide };
    [normal, tangent * us[1], tangent * us[2]]
}

/// The nodal layout works on 004 Algorithm 3's scaled forces `r̄_c = s_c r_c`, so the update has
/// no division by `s_c`: `u* = u - r̄`, new `r̄ = u_new - u*`, `p_j += γ_cj R d̄` with
/// `γ_cj = b_cj / (s_c w_j)`, and the velocity change is `|d̄|_inf`.
impl Contacts for Vec<NodalContact> {
    #[inline]
    fn force_scale(&self, slot: usize) -> f64 {
        self[slot].s
    }

    #[inline]
    fn local(&self, slot: usize, p: &[Shared<f64>], rc: [f64; 3]) -> [f64; 3] {
        let k = &self[slot];
        let q = k.gather(p);
        let f = &k.frame;
        let u = [
            k.wc[0] + f[0] * q[0] + f[3] * q[1] + f[6] * q[2],
            k.wc[1] + f[1] * q[0] + f[4] * q[1] + f[7] * q[2],
            k.wc[2] + f[2] * q[0] + f[5] * q[1] + f[8] * q[2],
        ];
        let us = [u[0] - rc[0], u[1] - rc[1], u[2] - rc[2]];
        let un = closed_form(us, k.mu);
        [un[0] - us[0], un[1] - us[1], un[2] - us[2]]
    }

    #[inline]
    fn spread(&self, slot: usize, x: [f64; 3], p: &[Shared<f64>]) {
        self[slot].scatter(x, p);
    }

    #[inline]
    fn velocity_change(&self, _slot: usize, d: [f64; 3]) -> f64 {
        d[0].abs().max(d[1].abs()).max(d[2].abs())
    }
}
