//! Nodal ADMM with a matrix-free Gauss–Seidel contact projection for the global form
//! (004 Algorithms 2 and 3), generalised from scaled-identity Jacobians to any `H`.
//!
//! Outer ADMM iteration with a diagonal weight `W` (one weight per dof):
//! 1. `(A + W) v = f + W (p + λ)` (`A = M` as stored, factorised once: Cholesky if symmetric, else LU);
//! 2. `p = v - λ`, then the contact projection: the DFCP with diagonal stiffness
//!    `W p = W (v - λ) + H r`, `u = H^T p + w`, solved matrix-free by block Gauss–Seidel on `r`
//!    with `p` updated in place (`p += W^{-1} H_c Δr_c`); every contact's Delassus block
//!    `S_cc = H_c^T W^{-1} H_c` is a 3x3 (isotropic only in the nodal case of 004: then the closed
//!    form is used, otherwise the exact full-block local solver);
//! 3. `δ∞ = |v - v_prev|_inf + |v - p|_inf`, `λ += p - v`.
//!
//! The returned velocity is `p` (feasible, 004's "geometric correction"). Stopping: Siconos's
//! gfc3d error of `(r, p)` `<= tol`, or optionally `δ∞ <= eps_inf` (004's rule; `converged`
//! still reflects the measured error, and [`AdmmReport::delta_inf_met`] says the rule stopped it). Optionally a detection callback runs
//! every few iterations (004 §5.2: CCD) and appends the contacts it finds to the running solve. Sleeping: a contact whose update moved its velocity by less
//! than `0.01 δ∞` sleeps for a few sweeps; all wake at each projection. The sweep is coloured
//! (≤ 8 colours + sequential tail): within a colour, contacts touch disjoint dofs, so they are
//! solved in parallel (rayon) from the same `p` and applied afterwards: bit-identical for any
//! thread count. The projection data is stored in sweep order (colour by colour), and, when every
//! contact is a weighted sum of nodes in one orthonormal frame (004's nodal assumption), in a
//! compact 192-byte record per contact instead of per-dof rows.
// Numeric kernels index several parallel arrays with one counter; iterator zips would hide that.
#![allow(clippy::needless_range_loop)]

use super::coloring::{Coloring, greedy_blocks};
use super::global_reduction::{Factor, is_symmetric, symmetrized};
use super::problem::{Csc, GlobalProblem};
use super::residual::{GlobalErrorWork, global_error_rhs, global_error_with};
use super::solver::{SolveReport, SolverOptions, check_len, rejected};
use crate::friction::cone::{Cone, hyp};
use crate::friction::local_solver::{solve_contact, solve_isotropic_diagonal};
use anyhow::{Result, anyhow};
use faer::Mat;
use faer::sparse::Triplet;
use rayon::prelude::*;
use std::time::Instant;

/// ADMM parameters (defaults from 004 Table 5 / §6.2.6 where they apply).
#[derive(Clone, Debug)]
pub struct AdmmParams {
    /// Gauss–Seidel sweeps per ADMM iteration (N_GS).
    pub gs_sweeps: usize,
    /// W heuristic `w_j = max(σ η_j, min(β m_j, η_j))`.
    pub sigma: f64,
    pub beta: f64,
    /// Optional δ∞ stopping threshold (velocity units).
    pub eps_inf: Option<f64>,
    pub sleeping: bool,
    /// Sweeps a sleeping contact skips.
    pub sleep_sweeps: usize,
    /// Use the coloured parallel sweep (else plain sequential GS).
    pub parallel: bool,
    pub max_colors: usize,
    /// Accelerated ADMM with restart (004 Alg. 4, after Goldstein et al. 2014); δ∞ is the
    /// residual whose increase triggers a restart.
    pub accelerated: bool,
    /// Store the projection in 004's compact nodal layout (per contact: up to 4 nodes with
    /// weights, one frame, one scalar Delassus block) when every contact has that form; else, or
    /// when false, the generic per-dof layout. Same problem, same result to round-off.
    pub compact: bool,
    /// Start from the multiplier λ of the previous solve with the same cache and dof count
    /// (004 §5.1: "λ ... is always carried over from the previous step or PN iteration").
    pub carry_lambda: bool,
}

impl Default for AdmmParams {
    fn default() -> Self {
        AdmmParams {
            gs_sweeps: 10,
            sigma: 1e-3,
            beta: 25.0,
            eps_inf: None,
            sleeping: true,
            sleep_sweeps: 4,
            parallel: true,
            max_colors: 8,
            accelerated: false,
            carry_lambda: false,
            compact: true,
        }
    }
}

/// Minimum eigenvalue of a symmetric 3x3 matrix.
fn min_eig3(a: &[[f64; 3]; 3]) -> f64 {
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

/// One contact in 004's compact nodal form (Algorithm 3): `H_c` consists of node blocks
/// `b_cj R_c` (rows: the node's 3 dofs; columns: normal, tangent, binormal) with an orthonormal
/// frame `R_c`, so with one weight `w_j` per node the Delassus block is `s_c I`,
/// `s_c = Σ_j b_cj² / w_j`, and the whole update needs only this record. 192 bytes, three cache
/// lines; contacts with fewer than 4 nodes repeat their first node with `b = γ = 0`, so the
/// loops have no branches.
#[derive(Clone, Copy, Debug)]
#[repr(C, align(64))]
struct NodalContact {
    /// Node indices (dofs `3 n .. 3 n + 3` of `p`).
    node: [u32; 4],
    /// Node weights `b_cj`.
    b: [f64; 4],
    /// `γ_cj = b_cj / (s_c w_j)`: the velocity change of node `j` per unit scaled force
    /// `r̄ = s_c r` (world axes).
    gamma: [f64; 4],
    /// `R_c` row-major: `frame[3 a + k]` is world axis `a` of contact axis `k`.
    frame: [f64; 9],
    /// The isotropic Delassus block `s_c`.
    s: f64,
    /// Isotropic friction coefficient.
    mu: f64,
    /// The known relative velocity `w_c` of the problem.
    wc: [f64; 3],
}

/// Largest number of nodes a compact contact holds (edge–edge and vertex–triangle: 4).
const NODES: usize = 4;

impl NodalContact {
    /// `Σ_j b_j p_j` (world axes).
    #[inline(always)]
    fn gather(&self, p: &[f64]) -> [f64; 3] {
        let mut q = [0.0; 3];
        for j in 0..NODES {
            let n = 3 * self.node[j] as usize;
            let b = self.b[j];
            q[0] += b * p[n];
            q[1] += b * p[n + 1];
            q[2] += b * p[n + 2];
        }
        q
    }

    /// `p_j += γ_j R x` for every node.
    #[inline(always)]
    fn scatter(&self, x: [f64; 3], p: &mut [f64]) {
        let f = &self.frame;
        let dq = [
            f[0] * x[0] + f[1] * x[1] + f[2] * x[2],
            f[3] * x[0] + f[4] * x[1] + f[5] * x[2],
            f[6] * x[0] + f[7] * x[1] + f[8] * x[2],
        ];
        for j in 0..NODES {
            let n = 3 * self.node[j] as usize;
            let g = self.gamma[j];
            p[n] += g * dq[0];
            p[n + 1] += g * dq[1];
            p[n + 2] += g * dq[2];
        }
    }
}

/// Build the compact record of contact `c`, or `None` if its `H` columns are not of the nodal
/// form (more than 4 nodes, a node whose 3 dofs are not one aligned block with one weight, blocks
/// not multiples of one orthonormal frame, an elliptic cone). `blocks` is scratch space.
fn nodal_contact(
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

/// The general layout (any `H`): per contact, the dofs it touches with `H` rows and `W^{-1} H`
/// rows (`ptr` delimits each contact's entries), its 3x3 block `S_cc` and, when `S_cc` is
/// isotropic on an isotropic cone, the scalar of the closed form.
struct GenericContacts {
    ptr: Vec<usize>,
    dof: Vec<usize>,
    h: Vec<[f64; 3]>,
    gamma: Vec<[f64; 3]>,
    s: Vec<[f64; 9]>,
    iso: Vec<Option<f64>>,
    wc: Vec<[f64; 3]>,
    cone: Vec<Cone>,
}

impl GenericContacts {
    /// The data of contacts `order[0], order[1], ...` in that order.
    fn new(g: &GlobalProblem, w: &[f64], order: &[usize]) -> Self {
        let hr = g.h.as_ref();
        let mut gc = GenericContacts {
            ptr: vec![0],
            dof: Vec::new(),
            h: Vec::new(),
            gamma: Vec::new(),
            s: Vec::with_capacity(order.len()),
            iso: Vec::with_capacity(order.len()),
            wc: Vec::with_capacity(order.len()),
            cone: Vec::with_capacity(order.len()),
        };
        let mut slot = vec![usize::MAX; g.ndof()];
        for &c in order {
            let base = gc.dof.len();
            for k in 0..3 {
                for (i, v) in hr.row_idx_of_col_raw(3 * c + k).iter().zip(hr.val_of_col(3 * c + k)) {
                    let i = *i;
                    if slot[i] == usize::MAX {
                        slot[i] = gc.dof.len();
                        gc.dof.push(i);
                        gc.h.push([0.0; 3]);
                    }
                    gc.h[slot[i]][k] += v;
                }
            }
            let mut sc = [0.0; 9];
            for e in base..gc.dof.len() {
                slot[gc.dof[e]] = usize::MAX;
                let he = gc.h[e];
                let inv = 1.0 / w[gc.dof[e]];
                gc.gamma.push([he[0] * inv, he[1] * inv, he[2] * inv]);
                for a in 0..3 {
                    for b in 0..3 {
                        sc[3 * a + b] += he[a] * he[b] * inv;
                    }
                }
            }
            let cone = g.cones[c];
            gc.iso.push(if cone.is_isotropic() { super::gauss_seidel::isotropic_diagonal(&sc) } else { None });
            gc.s.push(sc);
            gc.ptr.push(gc.dof.len());
            gc.wc.push([g.w[3 * c], g.w[3 * c + 1], g.w[3 * c + 2]]);
            gc.cone.push(cone);
        }
        gc
    }
}

/// One contact update of a layout, addressed by its position in sweep order (its slot).
/// Forces are held scaled by `force_scale` during a projection (`r̄ = scale · r`).
trait Contacts: Sync {
    /// The factor between the layout's force variable and `r`.
    fn force_scale(&self, slot: usize) -> f64;
    /// New (scaled) force of the contact at `slot` given the current `p` and its (scaled) force
    /// `rc` (reads only the contact's own dofs).
    fn local(&self, slot: usize, p: &[f64], rc: [f64; 3]) -> [f64; 3];
    /// `p += W^{-1} H_c x` for the (scaled) force `x`.
    fn spread(&self, slot: usize, x: [f64; 3], p: &mut [f64]);
    /// `|S_cc d|_inf`, the velocity change of a (scaled) force change `d`.
    fn velocity_change(&self, slot: usize, d: [f64; 3]) -> f64;
}

impl Contacts for GenericContacts {
    #[inline]
    fn force_scale(&self, _slot: usize) -> f64 {
        1.0
    }

    #[inline]
    fn local(&self, slot: usize, p: &[f64], rc: [f64; 3]) -> [f64; 3] {
        let mut u = self.wc[slot];
        for e in self.ptr[slot]..self.ptr[slot + 1] {
            let pv = p[self.dof[e]];
            let he = &self.h[e];
            u[0] += he[0] * pv;
            u[1] += he[1] * pv;
            u[2] += he[2] * pv;
        }
        let s = &self.s[slot];
        let us = [
            u[0] - (s[0] * rc[0] + s[1] * rc[1] + s[2] * rc[2]),
            u[1] - (s[3] * rc[0] + s[4] * rc[1] + s[5] * rc[2]),
            u[2] - (s[6] * rc[0] + s[7] * rc[1] + s[8] * rc[2]),
        ];
        let cone = &self.cone[slot];
        match self.iso[slot] {
            Some(sc) => {
                let (un, _) = solve_isotropic_diagonal(us, cone.mu_t);
                [(un[0] - us[0]) / sc, (un[1] - us[1]) / sc, (un[2] - us[2]) / sc]
            }
            None => solve_contact(s, us, cone, rc).0,
        }
    }

    #[inline]
    fn spread(&self, slot: usize, x: [f64; 3], p: &mut [f64]) {
        for e in self.ptr[slot]..self.ptr[slot + 1] {
            let ge = &self.gamma[e];
            p[self.dof[e]] += ge[0] * x[0] + ge[1] * x[1] + ge[2] * x[2];
        }
    }

    #[inline]
    fn velocity_change(&self, slot: usize, d: [f64; 3]) -> f64 {
        let s = &self.s[slot];
        (s[0] * d[0] + s[1] * d[1] + s[2] * d[2])
            .abs()
            .max((s[3] * d[0] + s[4] * d[1] + s[5] * d[2]).abs())
            .max((s[6] * d[0] + s[7] * d[1] + s[8] * d[2]).abs())
    }
}

/// 004's closed form for the block `s I` (as `solve_isotropic_diagonal`: the post-solve velocity
/// from `u*`), written without data-dependent branches: a contact's case (take-off, stick,
/// slide) varies from one contact to the next, so a branch per case is mispredicted often and
/// costs more than computing the slide factor always. `1 - α/τ` clamped at 0 is the stick case
/// too (`τ ≤ α`), including `τ = 0`, where `α/τ` is `∞` or `0/0 = NaN` and `max` returns 0.
/// Equal to `solve_isotropic_diagonal` bit for bit except the sign of zero tangential
/// components when sticking (`0 · u*_T`).
#[inline(always)]
fn closed_form(us: [f64; 3], mu: f64) -> [f64; 3] {
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
    fn local(&self, slot: usize, p: &[f64], rc: [f64; 3]) -> [f64; 3] {
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
    fn spread(&self, slot: usize, x: [f64; 3], p: &mut [f64]) {
        self[slot].scatter(x, p);
    }

    #[inline]
    fn velocity_change(&self, _slot: usize, d: [f64; 3]) -> f64 {
        d[0].abs().max(d[1].abs()).max(d[2].abs())
    }
}

/// The two layouts of the projection data.
enum Layout {
    /// 004's compact nodal records (every contact qualified).
    Nodal(Vec<NodalContact>),
    /// Per-dof rows, any `H`.
    Generic(GenericContacts),
}

/// A part of the coloured sweep: slot ranges of colour classes (within one, contacts touch
/// disjoint dofs and are solved in parallel), then slots swept sequentially.
struct Stage {
    colors: Vec<std::ops::Range<usize>>,
    tail: std::ops::Range<usize>,
}

/// Contacts per independently coloured block of the sweep (see `coloring::greedy_blocks`): 16k
/// contacts touch a few hundred kB of velocities, which stay in L2 while the block's colours
/// pass over them, and their colour classes (thousands of contacts) are long enough to share
/// between threads.
const SWEEP_BLOCK: usize = 16_384;

/// The matrix-free projection data, stored in sweep order: block by block, the contacts of
/// colour 0, colour 1, ..., then the block's sequential tail (or all contacts in their own order
/// for the plain sequential sweep), so that every pass streams its data contiguously instead of
/// gathering it.
struct Projection {
    /// `order[slot]` is the contact at sweep position `slot`.
    order: Vec<usize>,
    stages: Vec<Stage>,
    layout: Layout,
    /// Nodal layout only: contacts without free dofs, `(contact, w_c, cone)`; their force solves
    /// the local problem with a zero Delassus block, as in the generic layout.
    inert: Vec<(usize, [f64; 3], Cone)>,
}

impl Projection {
    /// `colored`: the coloured parallel sweep (blocks of ≤ `max_colors` colours + tail), else the
    /// plain sequential one. `compact`: use the nodal records when every contact qualifies.
    fn new(g: &GlobalProblem, w: &[f64], colored: bool, max_colors: usize, compact: bool) -> Self {
        let nc = g.nc();
        let mut nodal = Vec::new();
        // Contacts between kinematic nodes only (a fixed hair root on the core) have empty `H`
        // columns: they move no velocity, so the nodal layout solves them apart (`inert`).
        let mut inert = Vec::new();
        let mut is_nodal = compact && nc > 0;
        if is_nodal {
            let hr = g.h.as_ref();
            let mut blocks = Vec::with_capacity(NODES + 1);
            nodal.reserve(nc);
            for c in 0..nc {
                if (0..3).all(|k| hr.row_idx_of_col_raw(3 * c + k).is_empty()) {
                    inert.push(c);
                    continue;
                }
                match nodal_contact(g, w, c, &mut blocks) {
                    Some(rec) => nodal.push((c, rec)),
                    None => {
                        is_nodal = false;
                        break;
                    }
                }
            }
        }
        if !is_nodal {
            nodal = Vec::new();
            inert = Vec::new();
        }
        // The contacts the sweep visits, in contact order (all of them in the generic layout).
        let swept: Vec<usize> = if is_nodal { nodal.iter().map(|x| x.0).collect() } else { (0..nc).collect() };
        let ns = swept.len();
        // Colourings number the swept contacts 0..ns (`swept[i]` is the contact).
        let colorings = if !colored {
            vec![Coloring { colors: Vec::new(), tail: (0..ns).collect() }]
        } else if is_nodal {
            // Contacts conflict exactly when they share a node (all 3 dofs of a node go together).
            let nodes: Vec<[usize; NODES]> = nodal.iter().map(|k| k.1.node.map(|n| n as usize)).collect();
            greedy_blocks(ns, g.ndof().div_ceil(3), max_colors, SWEEP_BLOCK, |c| &nodes[c][..])
        } else {
            let gc = GenericContacts::new(g, w, &(0..nc).collect::<Vec<_>>());
            greedy_blocks(nc, g.ndof(), max_colors, SWEEP_BLOCK, |c| &gc.dof[gc.ptr[c]..gc.ptr[c + 1]])
        };
        let mut order = Vec::with_capacity(ns);
        let mut stages = Vec::with_capacity(colorings.len());
        for coloring in &colorings {
            let mut colors = Vec::with_capacity(coloring.colors.len());
            for class in &coloring.colors {
                let start = order.len();
                order.extend_from_slice(class);
                colors.push(start..order.len());
            }
            let start = order.len();
            order.extend_from_slice(&coloring.tail);
            stages.push(Stage { colors, tail: start..order.len() });
        }
        let layout = if is_nodal {
            Layout::Nodal(order.iter().map(|&i| nodal[i].1).collect())
        } else {
            Layout::Generic(GenericContacts::new(g, w, &order))
        };
        let order = order.iter().map(|&i| swept[i]).collect();
        let inert = inert.iter().map(|&c| (c, [g.w[3 * c], g.w[3 * c + 1], g.w[3 * c + 2]], g.cones[c])).collect();
        Projection { order, stages, layout, inert }
    }

    /// Number of contacts swept in parallel (in colours) and sequentially (in tails).
    fn colored_and_tail(&self) -> (usize, usize) {
        let colored = self.stages.iter().flat_map(|s| &s.colors).map(|r| r.len()).sum();
        (colored, self.order.len() - colored)
    }

    /// Contacts solved by the isotropic closed form (all of them in the nodal layout).
    fn closed_form_count(&self) -> usize {
        match &self.layout {
            Layout::Nodal(v) => v.len(),
            Layout::Generic(gc) => gc.iso.iter().filter(|x| x.is_some()).count(),
        }
    }

    /// Bytes of per-contact data one sweep reads or writes per contact update, counted from the
    /// layout. The velocities `p` a contact touches are not counted (shared between contacts and
    /// mostly cached), nor the gather/scatter of `r` and `order` once per projection.
    /// - Nodal: the 192-byte record, the force (3 f64) and the sleep counter (usize).
    /// - Generic: per dof entry its index (usize), `H` row and `W^{-1} H` row (3 f64 each); per
    ///   contact `ptr` (usize), `S_cc` (9 f64), the closed-form scalar (`Option<f64>`, 16 bytes),
    ///   `w_c` (3 f64), the cone (2 f64), the force and the sleep counter.
    /// - With colours, each update also writes and reads its `delta` (3 f64).
    fn bytes_per_contact(&self) -> f64 {
        use std::mem::size_of;
        let nc = self.order.len().max(1) as f64;
        let state = size_of::<[f64; 3]>()
            + size_of::<usize>()
            + if self.colored_and_tail().0 == 0 { 0 } else { size_of::<[f64; 3]>() };
        let data = match &self.layout {
            Layout::Nodal(_) => size_of::<NodalContact>() as f64,
            Layout::Generic(gc) => {
                let entries = gc.dof.len() * (size_of::<usize>() + 2 * size_of::<[f64; 3]>());
                let per_contact = size_of::<usize>()
                    + size_of::<[f64; 9]>()
                    + size_of::<Option<f64>>()
                    + size_of::<[f64; 3]>()
                    + size_of::<Cone>();
                entries as f64 / nc + per_contact as f64
            }
        };
        data + state as f64
    }
}

/// Contacts of one colour solved (in parallel) before they are applied: 2048 nodal records and
/// the velocities they touch (about 0.6 MB) stay in cache between the two passes, and a chunk is
/// long enough (tens of µs) to amortise rayon's fork-join.
const COLOR_CHUNK: usize = 2048;

/// Work buffers of the sweep (allocated once per solve), indexed by slot.
struct SweepState {
    /// Forces in sweep order (gathered from `r` at the start of a projection, scattered back).
    r: Vec<[f64; 3]>,
    sleep_until: Vec<usize>,
    delta: Vec<[f64; 3]>,
}

impl SweepState {
    fn new(nc: usize) -> Self {
        SweepState { r: vec![[0.0; 3]; nc], sleep_until: vec![0; nc], delta: vec![[0.0; 3]; nc] }
    }
}

fn project(
    pr: &Projection,
    prm: &AdmmParams,
    p: &mut [f64],
    r: &mut [f64],
    delta_inf: f64,
    st: &mut SweepState,
) -> usize {
    // Contacts without free dofs touch no velocity: each sweep's update of one is the local
    // solve with `S = 0` and `u* = w_c`, independent of all others.
    for &(c, wc, ref cone) in &pr.inert {
        for _ in 0..prm.gs_sweeps {
            let rc = [r[3 * c], r[3 * c + 1], r[3 * c + 2]];
            r[3 * c..3 * c + 3].copy_from_slice(&solve_contact(&[0.0; 9], wc, cone, rc).0);
        }
    }
    prm.gs_sweeps * pr.inert.len()
        + match &pr.layout {
            Layout::Nodal(k) => project_with(pr, k, prm, p, r, delta_inf, st),
            Layout::Generic(k) => project_with(pr, k, prm, p, r, delta_inf, st),
        }
}

/// Algorithm 3 over the contacts `k` (one monomorphised loop per layout).
fn project_with<K: Contacts>(
    pr: &Projection,
    k: &K,
    prm: &AdmmParams,
    p: &mut [f64],
    r: &mut [f64],
    delta_inf: f64,
    st: &mut SweepState,
) -> usize {
    for (slot, &c) in pr.order.iter().enumerate() {
        let sc = k.force_scale(slot);
        st.r[slot] = [sc * r[3 * c], sc * r[3 * c + 1], sc * r[3 * c + 2]];
    }
    // Line (1) of Algorithm 3: re-apply the warm-start forces to the target velocity.
    for slot in 0..pr.order.len() {
        k.spread(slot, st.r[slot], p);
    }
    st.sleep_until.fill(0);
    // No δ∞ yet (first ADMM iteration): nothing sleeps, every contact is swept.
    let thresh = if prm.sleeping && delta_inf.is_finite() { 0.01 * delta_inf } else { -1.0 };
    let mut updates = 0;
    // Apply a force change: `p += W^{-1} H_c d`, `r_c += d`, and sleep if the velocity barely moved.
    let visit = |slot: usize, d: [f64; 3], sweep: usize, p: &mut [f64], st: &mut SweepState| {
        k.spread(slot, d, p);
        let rc = &mut st.r[slot];
        for a in 0..3 {
            rc[a] += d[a];
        }
        if k.velocity_change(slot, d) < thresh {
            st.sleep_until[slot] = sweep + 1 + prm.sleep_sweeps;
        }
    };
    for sweep in 0..prm.gs_sweeps {
        for stage in &pr.stages {
            // A colour is solved in chunks that stay in cache between the solve and the apply.
            let chunks = stage
                .colors
                .iter()
                .flat_map(|class| class.clone().step_by(COLOR_CHUNK).map(move |a| a..class.end.min(a + COLOR_CHUNK)));
            for chunk in chunks {
                let (p_ref, r_ref, sl): (&[f64], &[[f64; 3]], &[usize]) = (p, &st.r, &st.sleep_until);
                // Parallel solve: each contact reads only its own dofs, which no other contact of
                // this colour writes; results land in `delta` by position, then apply in order.
                st.delta[..chunk.len()].par_iter_mut().enumerate().for_each(|(i, d)| {
                    let slot = chunk.start + i;
                    *d = if sl[slot] > sweep {
                        [0.0; 3]
                    } else {
                        let rc = r_ref[slot];
                        let rn = k.local(slot, p_ref, rc);
                        [rn[0] - rc[0], rn[1] - rc[1], rn[2] - rc[2]]
                    };
                });
                for slot in chunk.clone() {
                    if st.sleep_until[slot] <= sweep {
                        updates += 1;
                        let d = st.delta[slot - chunk.start];
                        visit(slot, d, sweep, p, st);
                    }
                }
            }
            for slot in stage.tail.clone() {
                if st.sleep_until[slot] <= sweep {
                    updates += 1;
                    let rc = st.r[slot];
                    let rn = k.local(slot, p, rc);
                    visit(slot, [rn[0] - rc[0], rn[1] - rc[1], rn[2] - rc[2]], sweep, p, st);
                }
            }
        }
    }
    for (slot, &c) in pr.order.iter().enumerate() {
        let (sc, rs) = (k.force_scale(slot), st.r[slot]);
        r[3 * c..3 * c + 3].copy_from_slice(&[rs[0] / sc, rs[1] / sc, rs[2] / sc]);
    }
    updates
}

/// The contact projection of one ADMM solve (004 Algorithm 3) on its own: [`solve`] builds the
/// same data once per call. Exposed so that the sweep's throughput can be benchmarked alone and
/// the two data layouts compared.
pub struct ContactProjection {
    pr: Projection,
    st: SweepState,
    prm: AdmmParams,
}

impl ContactProjection {
    /// The projection data of `g` with the weights `W` that [`solve`] uses.
    pub fn new(g: &GlobalProblem, prm: &AdmmParams) -> Result<Self> {
        let w = checked_weights(&g.m, prm)?;
        let pr = Projection::new(g, &w, prm.parallel, prm.max_colors, prm.compact);
        Ok(ContactProjection { pr, st: SweepState::new(g.nc()), prm: prm.clone() })
    }

    /// Project `p` (Algorithm 3 with `prm.gs_sweeps` sweeps, warm-started from `r`); `delta_inf`
    /// is the last ADMM δ∞ that sets the sleeping threshold (infinite: nothing sleeps). Returns
    /// the number of contact updates.
    pub fn project(&mut self, p: &mut [f64], r: &mut [f64], delta_inf: f64) -> usize {
        project(&self.pr, &self.prm, p, r, delta_inf, &mut self.st)
    }

    /// Whether the compact nodal layout is in use (else the generic per-dof one).
    pub fn is_compact(&self) -> bool {
        matches!(self.pr.layout, Layout::Nodal(_))
    }

    /// Bytes of per-contact data one sweep streams per contact update, counted from the layout
    /// (see `Projection::bytes_per_contact`).
    pub fn bytes_per_contact(&self) -> f64 {
        self.pr.bytes_per_contact()
    }
}

/// The ADMM weights of the global matrix `a`, which must be positive.
fn checked_weights(a: &Csc, prm: &AdmmParams) -> Result<Vec<f64>> {
    let w = weights(a, prm.sigma, prm.beta);
    if let Some(j) = w.iter().position(|x| x.is_nan() || *x <= 0.0) {
        return Err(anyhow!("ADMM weight of dof {j} is {} (M must be positive definite)", w[j]));
    }
    Ok(w)
}

/// Reusable analysis across solves of problems with the same matrix pattern (successive Newton
/// iterations and time steps of one scene): the symbolic Cholesky of `A + W`, whose pattern is
/// that of `A` (which always holds its diagonal here).
#[derive(Default)]
pub struct AdmmCache {
    pattern: Option<(Vec<usize>, Vec<usize>)>,
    symbolic: Option<faer::sparse::linalg::solvers::SymbolicLlt<usize>>,
    /// The last solve's multiplier λ (on the dofs): 004 §5.1 carries it over to the next
    /// Newton iteration and step when `AdmmParams::carry_lambda` is set.
    lambda: Vec<f64>,
    /// The last numeric factorisation and the values of `A + W` it factors: reused when the next
    /// solve has the same matrix (the ADMM integrator's constant global matrix).
    numeric: Option<(Vec<f64>, SolveInPlace)>,
}

impl AdmmCache {
    /// The multiplier carried to the next solve (for a checkpoint).
    pub fn carried_lambda(&self) -> &[f64] {
        &self.lambda
    }

    pub fn set_carried_lambda(&mut self, lambda: Vec<f64>) {
        self.lambda = lambda;
    }
}

/// Solve a global problem. `r` and `v` are warm starts and results (`v` = the feasible `p`).
pub fn solve(
    g: &GlobalProblem,
    r: &mut [f64],
    v: &mut [f64],
    opts: &SolverOptions,
    prm: &AdmmParams,
) -> Result<SolveReport> {
    solve_cached(g, r, v, opts, prm, &mut AdmmCache::default())
}

/// A factorisation as an in-place solve.
type SolveInPlace = std::sync::Arc<dyn Fn(faer::MatMut<'_, f64>) + Send + Sync>;

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
        let key = (ar.col_ptr().to_vec(), ar.row_idx().to_vec());
        if cache.pattern.as_ref() != Some(&key) {
            cache.symbolic =
                Some(SymbolicLlt::try_new(k.symbolic(), faer::Side::Lower).map_err(|e| anyhow!("A + W: {e:?}"))?);
            cache.pattern = Some(key);
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

/// Contacts found while the solve runs (004 §5.2: CCD every few ADMM iterations, appended
/// without reassembling anything): their `H` columns as `(dof, column among the new contacts,
/// value)`, their free terms `w` and cones.
pub struct NewContacts {
    pub h: Vec<Triplet<usize, usize, f64>>,
    pub w: Vec<f64>,
    pub cones: Vec<Cone>,
}

/// A detection pass run on the iterate `p` every `every` ADMM iterations and before the solve
/// returns converged; `None` when it finds nothing new.
pub struct Detection<'d> {
    pub every: usize,
    pub detect: &'d mut dyn FnMut(&[f64]) -> Option<NewContacts>,
}

/// A second family of constraints sharing the ADMM loop: 004 §6.1's "use with an ADMM implicit
/// time integrator" (after Narain et al. 2016), where the elastic energy is split per element
/// like the contacts are. The problem's `m` is then the mass matrix (the exact equation is
/// `M v = f(v) + H r`), and the global step solves with [`Splitting::matrix`] instead.
pub trait Splitting {
    /// The global step's matrix without the contact weights `W` (mass plus the elements'
    /// consensus weights); constant across solves, so its factorisation is cached.
    fn matrix(&self) -> &Csc;
    /// Add the elements' part `h Σ w_e D_eᵀ (z_e − u_e − c_e)` to the global right-hand side.
    fn add_rhs(&self, f: &mut [f64]);
    /// The elements' local steps (proximal maps) and dual updates at the global iterate `v`;
    /// returns the primal residual `max_e |D_e x(v) − z_e|∞ / h` (a velocity) for δ∞.
    fn update(&mut self, v: &[f64]) -> f64;
    /// The exact right-hand side `f(v) = M v̄ − h ∇E(x(v))` at `v`, for the error measure.
    fn exact_rhs(&mut self, v: &[f64], f: &mut [f64]);
}

/// As [`solve`], reusing `cache` across calls.
pub fn solve_cached(
    g: &GlobalProblem,
    r: &mut [f64],
    v: &mut [f64],
    opts: &SolverOptions,
    prm: &AdmmParams,
    cache: &mut AdmmCache,
) -> Result<SolveReport> {
    let mut rv = r.to_vec();
    let rep = solve_detecting(g, &mut rv, v, opts, prm, cache, None, None)?;
    if rv.len() == r.len() {
        r.copy_from_slice(&rv);
    }
    Ok(rep.report)
}

/// A solve's report, whether the δ∞ rule ended it, and the wall time of its contact
/// projections (the rest is the global linear solves, error measures and detection).
pub struct AdmmReport {
    pub report: SolveReport,
    pub delta_inf_met: bool,
    pub projection_s: f64,
}

/// The weights `W` restricted to the dofs some contact acts on (`w_all` there, 0 elsewhere).
/// A dof no contact touches has no constraint to agree on: its consensus `p_j = v_j` holds
/// exactly and `λ_j` stays 0, so a weight there would only add the proximal term
/// `W_j (v_j − v_j^prev)` to the global step and slow the motion of uncontacted parts (rigid
/// modes, whose stiffness is the mass alone, converged by a factor `W/(m + W)` per
/// iteration). The fixed point is the same.
fn contact_weights(w_all: &[f64], h: &Csc, w: &mut [f64]) {
    w.fill(0.0);
    let hr = h.as_ref();
    for j in 0..hr.ncols() {
        for &i in hr.row_idx_of_col_raw(j) {
            w[i] = w_all[i];
        }
    }
}

/// The error of `(r, p)`: for `gp` as stored, or, with a splitting, for the exact equation
/// `M p = f(p) + H r` (`fx` receives `f(p)`).
fn error(
    gp: &GlobalProblem,
    r: &[f64],
    p: &[f64],
    split: &mut Option<&mut dyn Splitting>,
    fx: &mut [f64],
    work: &mut GlobalErrorWork,
) -> super::residual::GlobalError {
    match split.as_deref_mut() {
        Some(s) => {
            s.exact_rhs(p, fx);
            global_error_rhs(gp, fx, r, p, work)
        }
        None => global_error_with(gp, r, p, work),
    }
}

/// As [`solve_cached`], with contacts appended during the solve by `detection`: `r` grows by
/// three entries per new contact (their forces, in the order [`NewContacts`] gave them); and
/// with an elastic [`Splitting`] sharing the loop when `split` is given (the ADMM integrator;
/// then plain, not accelerated, ADMM: the extrapolation would also have to act on the
/// elements' duals).
#[allow(clippy::too_many_arguments)]
pub fn solve_detecting(
    g: &GlobalProblem,
    r: &mut Vec<f64>,
    v: &mut [f64],
    opts: &SolverOptions,
    prm: &AdmmParams,
    cache: &mut AdmmCache,
    mut detection: Option<Detection<'_>>,
    mut split: Option<&mut dyn Splitting>,
) -> Result<AdmmReport> {
    const NAME: &str = "admm";
    let (n, ndof) = (3 * g.nc(), g.ndof());
    if let Err(m) = check_len("r", r.len(), n).and(check_len("v", v.len(), ndof)) {
        return Ok(AdmmReport { report: rejected(NAME, m), delta_inf_met: false, projection_s: 0.0 });
    }
    let start = Instant::now();
    let split_matrix = split.as_ref().map(|s| s.matrix().clone());
    let a = split_matrix.as_ref().unwrap_or(&g.m);
    let w_all = checked_weights(a, prm)?;
    let mut w = vec![0.0; ndof];
    let accelerated = prm.accelerated && split.is_none();
    let mut fx = g.f.clone();
    let mut st = SweepState::new(g.nc());
    let mut p = v.to_vec();
    let mut lambda = if prm.carry_lambda && cache.lambda.len() == ndof {
        std::mem::take(&mut cache.lambda)
    } else {
        vec![0.0; ndof]
    };
    let (mut p_hat, mut lambda_hat) = (p.clone(), lambda.clone());
    let (mut p_prev, mut lambda_prev) = (p.clone(), lambda.clone());
    let (mut theta, mut restarts) = (1.0f64, 0usize);
    let mut vk = vec![0.0; ndof];
    let mut v_prev = v.to_vec();
    let mut rhs = Mat::<f64>::zeros(ndof, 1);
    let mut delta_inf = f64::INFINITY;
    let (mut it, mut updates) = (0usize, 0usize);
    let mut ework = GlobalErrorWork::default();
    let mut reason = "iteration limit";
    // The problem grows when detection appends contacts; `Projection` is rebuilt for each set.
    let mut grown: Option<GlobalProblem> = None;
    let (mut added, mut passes, mut detected_at) = (0usize, 0usize, usize::MAX);
    let mut projection_s = 0.0;
    let (err, summary) = loop {
        let gp = grown.as_ref().unwrap_or(g);
        contact_weights(&w_all, &gp.h, &mut w);
        let llt = factor_a_plus_w(a, &w, cache)?;
        let pr = Projection::new(gp, &w, prm.parallel, prm.max_colors, prm.compact);
        if st.sleep_until.len() != gp.nc() {
            st = SweepState::new(gp.nc());
        }
        let mut err = error(gp, r, &p, &mut split, &mut fx, &mut ework);
        let mut found = None;
        while it < opts.max_iter {
            let done = err.total <= opts.tol || prm.eps_inf.is_some_and(|e| delta_inf <= e);
            // Detection at the period, and on the iterate about to be returned as solved.
            if let Some(d) = detection.as_mut()
                && d.every > 0
                && detected_at != it
                && (done || (it > 0 && it % d.every == 0))
            {
                detected_at = it;
                passes += 1;
                found = (d.detect)(&p);
                if found.is_some() {
                    break;
                }
            }
            if err.total <= opts.tol {
                break;
            }
            if prm.eps_inf.is_some_and(|e| delta_inf <= e) {
                reason = "δ∞ threshold reached";
                break;
            }
            if opts.out_of_time(start) {
                reason = "time limit";
                break;
            }
            it += 1;
            // (p_hat, lambda_hat) are the extrapolated points of 004 Alg. 4 when accelerated, and
            // simply (p, lambda) otherwise.
            for i in 0..ndof {
                fx[i] = g.f[i] + w[i] * (p_hat[i] + lambda_hat[i]);
            }
            if let Some(s) = split.as_deref() {
                s.add_rhs(&mut fx);
            }
            for i in 0..ndof {
                rhs[(i, 0)] = fx[i];
            }
            llt(rhs.as_mut());
            for i in 0..ndof {
                vk[i] = rhs[(i, 0)];
                p[i] = vk[i] - lambda_hat[i];
            }
            let clock = Instant::now();
            updates += project(&pr, prm, &mut p, r, delta_inf, &mut st);
            projection_s += clock.elapsed().as_secs_f64();
            let dv = (0..ndof).fold(0.0f64, |m, i| m.max((vk[i] - v_prev[i]).abs()));
            let dvp = (0..ndof).fold(0.0f64, |m, i| m.max((vk[i] - p[i]).abs()));
            let delta_prev = delta_inf;
            delta_inf = dv + dvp;
            if let Some(s) = split.as_deref_mut() {
                delta_inf += s.update(&vk);
            }
            v_prev.copy_from_slice(&vk);
            for i in 0..ndof {
                lambda[i] = lambda_hat[i] + p[i] - vk[i];
            }
            if accelerated && delta_inf <= delta_prev {
                // Nesterov/Goldstein extrapolation (004 Alg. 4).
                let theta_new = 0.5 * (1.0 + (1.0 + 4.0 * theta * theta).sqrt());
                let beta = (theta - 1.0) / theta_new;
                for i in 0..ndof {
                    p_hat[i] = p[i] + beta * (p[i] - p_prev[i]);
                    lambda_hat[i] = lambda[i] + beta * (lambda[i] - lambda_prev[i]);
                }
                theta = theta_new;
            } else {
                // Plain ADMM step, or a restart when δ∞ increased (Alg. 4's "residual increasing").
                restarts += (accelerated && it > 1) as usize;
                theta = 1.0;
                p_hat.copy_from_slice(&p);
                lambda_hat.copy_from_slice(&lambda);
            }
            p_prev.copy_from_slice(&p);
            lambda_prev.copy_from_slice(&lambda);
            err = error(gp, r, &p, &mut split, &mut fx, &mut ework);
            if !err.total.is_finite() {
                reason = "diverged (non-finite iterate)";
                break;
            }
        }
        let (coloured, sequential) = pr.colored_and_tail();
        let summary = format!(
            "{} closed-form contacts ({} layout), {} blocks: {coloured} coloured + {sequential} sequential",
            pr.closed_form_count(),
            if matches!(pr.layout, Layout::Nodal(_)) { "nodal" } else { "generic" },
            pr.stages.len(),
        );
        match found {
            Some(new) => {
                // The new contacts start without force; λ and p carry over (the ADMM state
                // lives on the dofs), so the solve continues rather than restarts.
                added += new.cones.len();
                let next = gp.with_contacts(&new)?;
                r.resize(3 * next.nc(), 0.0);
                grown = Some(next);
            }
            None => break (err, summary),
        }
    };
    v.copy_from_slice(&p);
    if prm.carry_lambda && lambda.iter().all(|x| x.is_finite()) {
        cache.lambda = lambda;
    }
    let converged = err.total <= opts.tol;
    if converged {
        reason = "tolerance reached";
    }
    let detected =
        if detection.is_some() { format!(", {passes} detection passes added {added} contacts") } else { String::new() };
    let report = SolveReport {
        solver: NAME,
        converged,
        iterations: it,
        residual_abs: err.natmap_abs,
        residual_rel: err.total,
        time: start.elapsed(),
        message: format!(
            "{reason}; δ∞ {delta_inf:.2e}, eq_rel {:.1e}, {updates} contact updates, {summary}{}{detected}",
            err.eq_rel,
            if accelerated { format!(", accelerated ({restarts} restarts)") } else { String::new() }
        ),
    };
    Ok(AdmmReport { report, delta_inf_met: prm.eps_inf.is_some_and(|e| delta_inf <= e), projection_s })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dfcp::synthetic::{hair, particles};
    use faer::sparse::Triplet;

    fn max_abs_diff(a: &[f64], b: &[f64]) -> f64 {
        a.iter().zip(b).fold(0.0f64, |m, (x, y)| m.max((x - y).abs()))
    }

    fn max_abs(a: &[f64]) -> f64 {
        a.iter().fold(0.0f64, |m, x| m.max(x.abs()))
    }

    #[test]
    fn branch_free_closed_form_equals_the_local_solver() {
        let mut seed = 11u64;
        let mut cases: Vec<([f64; 3], f64)> = vec![
            ([-1.0, 0.0, 0.0], 0.0), // τ = α = 0: 0/0
            ([-1.0, 0.0, 0.0], 0.5), // τ = 0 < α: α/0
            ([-1.0, 0.3, 0.4], 0.0), // frictionless slide
            ([-1.0, 0.3, 0.4], 0.5), // τ = α exactly: stick
            ([0.0, 0.3, -0.4], 0.5), // u*_N = 0: take-off
            ([2.0, -0.3, 0.4], 0.5), // take-off
        ];
        for _ in 0..2000 {
            let us = [0.0, 1.0, 2.0].map(|_| crate::test_rng::symmetric(&mut seed));
            cases.push((us, crate::test_rng::unit(&mut seed)));
        }
        for (us, mu) in cases {
            let a = closed_form(us, mu);
            let b = solve_isotropic_diagonal(us, mu).0;
            // Equal as numbers (so +0 == -0: a sticking tangent may be -0 here).
            assert_eq!(a, b, "u* = {us:?}, mu = {mu}");
        }
    }

    #[test]
    fn nodal_layout_is_detected_and_gives_the_generic_result() {
        // 120 rods of 8 nodes, 1500 contacts of 1, 3 and 4 nodes: every contact is nodal.
        let g = hair(120, 8, 1500, 0.4, 3);
        let compact = ContactProjection::new(&g, &AdmmParams::default()).unwrap();
        assert!(compact.is_compact());
        assert_eq!(compact.bytes_per_contact(), 192.0 + 24.0 + 8.0 + 24.0);
        let generic = ContactProjection::new(&g, &AdmmParams { compact: false, ..Default::default() }).unwrap();
        assert!(!generic.is_compact());
        // A fixed 40 ADMM iterations (unreachable tolerance) from the free velocity, with both
        // layouts.
        let opts = SolverOptions { tol: 1e-300, max_iter: 40, max_time: None };
        let run = |compact: bool| {
            let m = g.m.as_ref();
            let mut v: Vec<f64> = (0..g.ndof()).map(|i| g.f[i] / m.val_of_col(i)[0]).collect();
            let mut r = vec![0.0; 3 * g.nc()];
            let rep = solve(&g, &mut r, &mut v, &opts, &AdmmParams { compact, ..Default::default() }).unwrap();
            assert_eq!(rep.iterations, 40);
            assert!(rep.message.contains(if compact { "nodal layout" } else { "generic layout" }), "{}", rep.message);
            (v, r, rep.residual_rel)
        };
        let ((vc, rc, ec), (vg, rg, eg)) = (run(true), run(false));
        // The layouts compute the same products in a different association (`b_j (R^T p_j)`
        // against `(b_j R)^T p_j`, scaled against unscaled forces), so they differ by rounding,
        // and the projection is non-expansive, so rounding does not grow across the 400 sweeps:
        // measured 3e-15 (v) and 1e-13 (r, whose small entries carry the 1/s amplification) of
        // the largest value; 1e-11 leaves room for cases (stick/slide) flipped by rounding and
        // is far below any real difference (one skipped sweep changes the forces by more than
        // 1e-3 of their size).
        assert!(max_abs_diff(&vc, &vg) <= 1e-11 * max_abs(&vg), "v differs by {:e}", max_abs_diff(&vc, &vg));
        assert!(max_abs_diff(&rc, &rg) <= 1e-11 * max_abs(&rg), "r differs by {:e}", max_abs_diff(&rc, &rg));
        // Same for the error measure (a ratio of norms of those vectors).
        assert!((ec - eg).abs() <= 1e-9 * eg, "errors {ec:e} and {eg:e}");
    }

    #[test]
    fn non_nodal_contacts_fall_back_to_the_generic_layout() {
        // The particle problem is nodal (one or two unit-weight nodes per contact).
        let g = particles(50, 0.5);
        assert!(ContactProjection::new(&g, &AdmmParams::default()).unwrap().is_compact());
        // Scale the tangent column of one contact: its blocks are no longer a multiple of an
        // orthonormal frame (as for a rigid body's angular rows), so the whole problem uses
        // the generic layout.
        let mut g2 = g.clone();
        let (cp, vals) = (g2.h.symbolic().col_ptr().to_vec(), g2.h.val_mut());
        for e in cp[3 * 7 + 1]..cp[3 * 7 + 2] {
            vals[e] *= 1.5;
        }
        assert!(!ContactProjection::new(&g2, &AdmmParams::default()).unwrap().is_compact());
        // An elliptic cone also needs the generic layout's full local solver.
        let mut g3 = g.clone();
        g3.cones[3] = Cone { mu_t: 0.5, mu_b: 0.2 };
        assert!(!ContactProjection::new(&g3, &AdmmParams::default()).unwrap().is_compact());
    }

    #[test]
    fn contacts_without_free_dofs_keep_the_nodal_layout_and_its_result() {
        // The particle problem plus two contacts with empty `H` columns (both sides kinematic),
        // one approaching (w_N < 0) and one separating.
        let g = particles(40, 0.5);
        let (nc, ndof) = (g.nc(), g.ndof());
        let hr = g.h.as_ref();
        let mut t = Vec::new();
        for j in 0..3 * nc {
            for (i, v) in hr.row_idx_of_col_raw(j).iter().zip(hr.val_of_col(j)) {
                t.push(Triplet::new(*i, j, *v));
            }
        }
        let h = Csc::try_new_from_triplets(ndof, 3 * nc + 6, &t).unwrap();
        let mut w = g.w.clone();
        w.extend([-0.3, 0.1, 0.0, 0.2, 0.0, -0.1]);
        let mut cones = g.cones.clone();
        cones.extend([cones[0]; 2]);
        let g = GlobalProblem::new(g.m.clone(), h, g.f.clone(), w, cones).unwrap();
        assert!(ContactProjection::new(&g, &AdmmParams::default()).unwrap().is_compact());
        let opts = SolverOptions { tol: 1e-300, max_iter: 30, max_time: None };
        let run = |compact: bool| {
            let (mut v, mut r) = (vec![0.0; ndof], vec![0.0; 3 * g.nc()]);
            solve(&g, &mut r, &mut v, &opts, &AdmmParams { compact, ..Default::default() }).unwrap();
            (v, r)
        };
        let ((vc, rc), (vg, rg)) = (run(true), run(false));
        // Rounding differences only, as in the test above (measured about 1e-15).
        assert!(max_abs_diff(&vc, &vg) <= 1e-11 * max_abs(&vg), "v differs by {:e}", max_abs_diff(&vc, &vg));
        assert!(max_abs_diff(&rc, &rg) <= 1e-11 * max_abs(&rg), "r differs by {:e}", max_abs_diff(&rc, &rg));
    }

    #[test]
    fn nodal_projection_is_bit_identical_for_one_and_two_threads() {
        // 40k contacts: three blocks of the coloured sweep, with sleeping on (finite δ∞).
        let g = hair(1600, 16, 40_000, 0.3, 5);
        let m = g.m.as_ref();
        let p0: Vec<f64> = (0..g.ndof()).map(|i| g.f[i] / m.val_of_col(i)[0]).collect();
        let run = |threads: usize| {
            let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build().unwrap();
            let mut pr = ContactProjection::new(&g, &AdmmParams::default()).unwrap();
            let (mut p, mut r) = (p0.clone(), vec![0.0; 3 * g.nc()]);
            let n1 = pool.install(|| pr.project(&mut p, &mut r, f64::INFINITY));
            let n2 = pool.install(|| pr.project(&mut p, &mut r, 1e-2));
            (p, r, n1, n2)
        };
        let (a, b) = (run(1), run(2));
        assert_eq!(a.2, 10 * g.nc());
        assert!(a.3 < 10 * g.nc(), "some contacts sleep");
        assert_eq!((a.2, a.3), (b.2, b.3));
        assert!(a.0.iter().zip(&b.0).all(|(x, y)| x.to_bits() == y.to_bits()));
        assert!(a.1.iter().zip(&b.1).all(|(x, y)| x.to_bits() == y.to_bits()));
    }
}
