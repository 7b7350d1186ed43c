//! The velocities a set of joint rows allows: the articulated components of a step and, for
//! each, an orthonormal basis `N` of the null space of its active rows `G` and the least-norm
//! velocity `c` meeting their right-hand sides, so that `v_B = N z + c` is every velocity of
//! the component's bodies the rows allow. The nodal step (`pipeline::nonsmooth::joint_map`) and
//! the Smooth predictor eliminate joints this way.

use super::RigidBody;
use super::joint::{Joint, Row, RowKind};
use nalgebra::{DMatrix, DVector};

/// Dynamic bodies linked by joints: each component's bodies (ascending) and its joints' rows at
/// the bodies' current poses (motor rows included with `motors`). `dynamic[i]` says whether
/// body `i` is an unknown; a joint whose sides are both fixed (refused by validation) is left out.
pub fn components(
    joints: &[Joint],
    dynamic: &[bool],
    bodies: &[RigidBody],
    motors: bool,
) -> Vec<(Vec<usize>, Vec<Row>)> {
    let n = bodies.len();
    let dyn_side = |side: Option<usize>| side.filter(|&i| dynamic[i]);
    let mut parent: Vec<usize> = (0..n).collect();
    fn root(parent: &mut [usize], mut i: usize) -> usize {
        while parent[i] != i {
            parent[i] = parent[parent[i]];
            i = parent[i];
        }
        i
    }
    for j in joints {
        if let (Some(a), Some(b)) = (dyn_side(Some(j.a)), dyn_side(j.b)) {
            let (ra, rb) = (root(&mut parent, a), root(&mut parent, b));
            parent[ra.max(rb)] = ra.min(rb);
        }
    }
    let mut of_root: Vec<Option<usize>> = vec![None; n];
    let mut out: Vec<(Vec<usize>, Vec<Row>)> = Vec::new();
    for j in joints {
        let Some(body) = dyn_side(Some(j.a)).or(dyn_side(j.b)) else { continue };
        let r = root(&mut parent, body);
        let k = *of_root[r].get_or_insert_with(|| {
            out.push((Vec::new(), Vec::new()));
            out.len() - 1
        });
        j.rows(bodies, motors, &mut out[k].1);
    }
    for i in (0..n).filter(|&i| dynamic[i]) {
        if let Some(k) = of_root[root(&mut parent, i)] {
            out[k].0.push(i);
        }
    }
    out
}

/// The active rows (those with `saturated[i] == 0`) of a component over its members'
/// velocities (6 per body, in `members` order), and their right-hand sides: `−C/h` for an
/// equality row, a motor's speed, less the part `known(body)` gives for a side that is not a
/// member (a scripted body's prescribed velocity; `None` for the world).
pub fn active_rows(
    rows: &[Row],
    saturated: &[f64],
    members: &[usize],
    known: impl Fn(usize) -> Option<[f64; 6]>,
    h: f64,
) -> (DMatrix<f64>, DVector<f64>) {
    let active: Vec<usize> = (0..rows.len()).filter(|&i| saturated[i] == 0.0).collect();
    let mut g = DMatrix::zeros(active.len(), 6 * members.len());
    let mut rhs = DVector::zeros(active.len());
    for (a, &ri) in active.iter().enumerate() {
        let row = &rows[ri];
        rhs[a] = match row.kind {
            RowKind::Equality => -row.error / h,
            RowKind::Motor(m) => m.speed,
        };
        for s in 0..2 {
            let Some(b) = row.body[s] else { continue };
            if let Ok(l) = members.binary_search(&b) {
                for d in 0..6 {
                    g[(a, 6 * l + d)] += row.jac[s][d];
                }
            } else if let Some(v) = known(b) {
                rhs[a] -= (0..6).map(|d| row.jac[s][d] * v[d]).sum::<f64>();
            }
        }
    }
    (g, rhs)
}

/// `N` (orthonormal columns spanning the null space of `g`: the eigenvectors of `gᵀ g` below
/// 1e-10 of its largest eigenvalue, the rows being O(1), so redundant rows of a closed loop
/// cost nothing) and `c = g⁺ rhs` (least norm, in the other eigenvectors).
pub fn allowed(g: &DMatrix<f64>, rhs: &DVector<f64>) -> (DMatrix<f64>, DVector<f64>) {
    let dim = g.ncols();
    let eig = (g.transpose() * g).symmetric_eigen();
    let top = eig.eigenvalues.iter().copied().fold(0.0, f64::max);
    let free: Vec<usize> = (0..dim).filter(|&k| eig.eigenvalues[k] <= 1e-10 * top).collect();
    let basis = DMatrix::from_fn(dim, free.len(), |r, c| eig.eigenvectors[(r, free[c])]);
    let gt_rhs = g.transpose() * rhs;
    let mut particular = DVector::zeros(dim);
    for k in (0..dim).filter(|&k| eig.eigenvalues[k] > 1e-10 * top) {
        let vk = eig.eigenvectors.column(k);
        particular += vk * (vk.dot(&gt_rhs) / eig.eigenvalues[k]);
    }
    (basis, particular)
}

/// `λ` minimizing `|gᵀ λ − res|`: `(g gᵀ)⁺ g res` (redundant rows share their impulse).
pub fn least_squares_impulses(g: &DMatrix<f64>, res: &DVector<f64>) -> DVector<f64> {
    let eig = (g * g.transpose()).symmetric_eigen();
    let top = eig.eigenvalues.iter().copied().fold(0.0, f64::max);
    let rhs = g * res;
    let mut lambda = DVector::zeros(g.nrows());
    for k in (0..g.nrows()).filter(|&k| eig.eigenvalues[k] > 1e-10 * top) {
        let vk = eig.eigenvectors.column(k);
        lambda += vk * (vk.dot(&rhs) / eig.eigenvalues[k]);
    }
    lambda
}
