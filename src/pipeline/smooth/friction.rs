//! The friction step of 000 (Algorithm 1 lines 4–18): the contacts kept after pruning form a
//! local frictional contact problem on the Delassus operator `W = G H⁻¹ Gᵀ` (G: the contacts'
//! blocks over free nodes; H the lumped mass M as in 000, or the predictor's implicit-Euler
//! matrix `M + h² K`), centred on the predictor's impulses:
//!
//! `u = W (r − r_prev) + u*`, `u* = G q̇* + bias`, `r_prev = (r_N*, r_T^t)`,
//!
//! so that `r = r_prev` reproduces the predictor's velocities (eq. 27's `z`, with the normal part
//! the predictor's multiplier). The solve is exact Coulomb (Signorini on the linearized gap rate
//! and the cone of each contact); the corrector (eq. 22) applies `H⁻¹ Gᵀ (r − r_prev)`.
//!
//! With `H = M` a friction impulse moves only the contact vertices, and the rest of the body
//! learns of it through forwarding in the next steps: a block released on a ramp slides for a
//! few steps before the friction has reached all of it, and with μ just above tan θ the momentum
//! gained then takes seconds to lose. With `H = M + h² K` the impulse moves the whole body as the
//! implicit step would, and the block sticks from the first step.

use super::contacts::SmoothContact;
use super::joints::RigidSpace;
use super::layout::Layout;
use crate::dfcp::problem::{Csc, LocalProblem};
use crate::dfcp::solver::{SolveReport, SolverOptions};
use crate::dfcp::{dispatch, polar_sp};
use crate::model::Model;
use crate::pipeline::penalty::system::System;
use crate::scene::schema::{SmoothFrictionSolver, SmoothSpec};
use nalgebra::Matrix3;
use std::collections::BTreeMap;

/// Outcome of the friction step.
pub struct FrictionOutcome {
    /// Contact-frame impulses of every contact (3 each): the solved ones for kept contacts,
    /// `(r_N*, 0, 0)` for pruned ones.
    pub r: Vec<f64>,
    pub report: Option<SolveReport>,
    pub counts: polar_sp::ProjectionCounts,
    /// Contacts in the friction problem.
    pub solved: usize,
}

/// Contacts of the friction solve: those whose gap at the step start is within `prune_distance`
/// (000 §6 prunes by potential over bounding-box size), and those the predictor pushed (an
/// impulse that changes the vertex's velocity by more than `active_speed`; the interior-point
/// multipliers of inactive contacts are positive but vanishing).
pub fn kept(contacts: &[SmoothContact], lambda: &[f64], prune_distance: f64, active_speed: f64) -> Vec<usize> {
    let active = |c: usize| lambda[c] / contacts[c].mass > active_speed;
    (0..contacts.len()).filter(|&c| contacts[c].gap <= prune_distance || active(c)).collect()
}

/// How the free dofs respond to an impulse.
/// With joints, the rigid bodies respond by the joints' `P` (`joints::RigidSpace::response`)
/// instead of `M_r⁻¹`.
pub enum Response<'a> {
    /// `M⁻¹` (000).
    Mass(&'a Layout, Option<&'a RigidSpace>),
    /// `(M + h² K)⁻¹` with the system's assembled Jacobian (factorized by its linear solver) on
    /// the nodes, `M_r⁻¹` on rigid bodies.
    Stiffness(&'a Layout, &'a mut System, Option<&'a RigidSpace>),
}

impl Response<'_> {
    fn layout(&self) -> &Layout {
        match self {
            Response::Mass(l, _) | Response::Stiffness(l, _, _) => l,
        }
    }

    /// Velocity change (in the layout, zero where the velocity is prescribed) of the
    /// generalized impulse `f`.
    fn apply(&mut self, model: &Model, f: &[f64]) -> Result<Vec<f64>, String> {
        let mut dv = self.lumped_part(model, f);
        if let Response::Stiffness(_, sys, _) = self {
            let mut rhs = vec![0.0; sys.n_free];
            gather_free(&sys.free, f, &mut rhs);
            sys.linear.solve(&sys.jacobian, &sys.low_rank, &mut rhs).map_err(|e| e.to_string())?;
            scatter_free(&sys.free, &rhs, &mut dv);
        }
        Ok(dv)
    }

    /// The part of the response that needs no solve (see [`lumped_response`]).
    fn lumped_part(&self, model: &Model, f: &[f64]) -> Vec<f64> {
        match self {
            Response::Mass(l, j) => lumped_response(model, l, *j, false, f),
            Response::Stiffness(l, _, j) => lumped_response(model, l, *j, true, f),
        }
    }

    /// `W = G H⁻¹ Gᵀ` over the kept contacts.
    pub fn delassus(&mut self, model: &Model, contacts: &[SmoothContact], kept: &[usize]) -> Result<Csc, String> {
        let (layout, sys, joints) = match self {
            Response::Mass(layout, joints) => return Ok(lumped_delassus(model, layout, *joints, contacts, kept)),
            Response::Stiffness(layout, sys, joints) => (*layout, &mut **sys, *joints),
        };
        // Column by column: the velocity response to a unit impulse on one contact row, seen by
        // every kept contact. The nodes' responses come from one factorization of `M + h²K`,
        // `COLUMN_BLOCK` columns solved together (each alone, by GMRES, took 63 % of a 3072-tet
        // block's friction step).
        let solver = sys.linear.column_solver(&sys.jacobian, &sys.low_rank).map_err(|e| e.to_string())?;
        let n = sys.n_free.max(1);
        let columns: Vec<(usize, usize)> = (0..kept.len()).flat_map(|j| (0..3).map(move |row| (j, row))).collect();
        let mut b = vec![0.0; n * COLUMN_BLOCK.min(columns.len())];
        // Columns come in order and each one's rows in order (contacts, then their 3 rows), so W
        // is written straight into compressed columns: a rigid body couples all its contacts,
        // and sorting its dense block as triplets took most of a rigid pile's friction step.
        let (mut col_ptr, mut rows, mut vals) = (vec![0], Vec::new(), Vec::new());
        for block in columns.chunks(COLUMN_BLOCK) {
            let impulses: Vec<Vec<f64>> =
                block.iter().map(|&(j, row)| contacts[kept[j]].row_impulse(row, layout.len())).collect();
            let b = &mut b[..n * block.len()];
            b.fill(0.0);
            for (f, col) in impulses.iter().zip(b.chunks_mut(n)) {
                gather_free(&sys.free, f, col);
            }
            solver.solve(b).map_err(|e| e.to_string())?;
            for ((&(j, row), f), col) in block.iter().zip(&impulses).zip(b.chunks(n)) {
                let mut y = lumped_response(model, layout, joints, true, f);
                scatter_free(&sys.free, col, &mut y);
                debug_assert_eq!(col_ptr.len(), 3 * j + row + 1);
                for (k, &ck) in kept.iter().enumerate() {
                    let u = contacts[ck].velocity(&y) - contacts[ck].bias;
                    for (e, ue) in u.iter().enumerate().filter(|(_, ue)| **ue != 0.0) {
                        rows.push(3 * k + e);
                        vals.push(*ue);
                    }
                }
                col_ptr.push(rows.len());
            }
            if rows.len() > MAX_DELASSUS_ENTRIES {
                return Err(format!(
                    "the Delassus operator of {} contacts (delassus: Stiffness) passed {MAX_DELASSUS_ENTRIES} \
                     non-zeros ({:.1} GB); use delassus: Mass or a smaller field radius",
                    kept.len(),
                    rows.len() as f64 * 16e-9
                ));
            }
        }
        let n = 3 * kept.len();
        let pattern = faer::sparse::SymbolicSparseColMat::new_checked(n, n, col_ptr, None, rows);
        Ok(Csc::new(pattern, vals))
    }
}

/// The part of an impulse's response that needs no solve: `M⁻¹` per (pseudo-)node (all of them
/// with `Mass`; with `stiffness`, where the nodes take the solve of `M + h²K`, the rigid bodies'),
/// or the joints' `P` on rigid bodies.
fn lumped_response(
    model: &Model,
    layout: &Layout,
    joints: Option<&RigidSpace>,
    stiffness: bool,
    f: &[f64],
) -> Vec<f64> {
    let mut dv: Vec<f64> = vec![0.0; f.len()];
    let pseudo = layout.nodes..layout.nodes + 2 * layout.rigid.len();
    let start = if stiffness { pseudo.start } else { 0 };
    let end = if joints.is_some() { pseudo.start } else { pseudo.end };
    for i in start..end {
        let y = layout.inverse_mass(model, i) * crate::model::node(f, i);
        dv[3 * i..3 * i + 3].copy_from_slice(y.as_slice());
    }
    if let Some(js) = joints {
        let rigid = 3 * pseudo.start..3 * pseudo.end;
        let y = &js.response * nalgebra::DVector::from_column_slice(&f[rigid.clone()]);
        dv[rigid].copy_from_slice(y.as_slice());
    }
    dv
}

/// Columns of the stiffness-response Delassus operator solved together: their impulses and
/// solutions take about `3 × 8 × COLUMN_BLOCK` bytes per dof (6 MB per thousand dofs).
const COLUMN_BLOCK: usize = 256;

/// `x[free[dof]] = f[dof]` over the free dofs.
fn gather_free(free: &[usize], f: &[f64], x: &mut [f64]) {
    for (dof, &k) in free.iter().enumerate() {
        if k != usize::MAX {
            x[k] = f[dof];
        }
    }
}

/// `dv[dof] = x[free[dof]]` over the free dofs.
fn scatter_free(free: &[usize], x: &[f64], dv: &mut [f64]) {
    for (dof, &k) in free.iter().enumerate() {
        if k != usize::MAX {
            dv[dof] = x[k];
        }
    }
}

/// The most non-zeros the stiffness-response Delassus operator may take (1.6 GB):
/// it couples every pair of contacts on one body, so it grows as the square of their number.
const MAX_DELASSUS_ENTRIES: usize = 100_000_000;

/// `W = G M⁻¹ Gᵀ` over the kept contacts (kinematic nodes have infinite mass), assembled from
/// the contacts sharing (pseudo-)nodes.
///
/// With joints the rigid bodies' pseudo-nodes respond by the 3×3 blocks of the joints' `P`, which
/// couple the pseudo-nodes of one articulated component (a push on one body moves the others).
fn lumped_delassus(
    model: &Model,
    layout: &Layout,
    joints: Option<&RigidSpace>,
    contacts: &[SmoothContact],
    kept: &[usize],
) -> Csc {
    let mut per_node: BTreeMap<usize, Vec<(usize, &Matrix3<f64>)>> = BTreeMap::new();
    for (c, &k) in kept.iter().enumerate() {
        for (&i, b) in contacts[k].nodes.iter().zip(&contacts[k].blocks) {
            if !layout.is_fixed(model, i) {
                per_node.entry(i).or_default().push((c, b));
            }
        }
    }
    let mut blocks: BTreeMap<(usize, usize), Matrix3<f64>> = BTreeMap::new();
    // The response of (pseudo-)node `i` to a push on `j`: `M⁻¹` on the diagonal, or `P`'s block.
    let response = |i: usize, j: usize| -> Option<Matrix3<f64>> {
        match joints {
            Some(js) if i >= layout.nodes && j >= layout.nodes => {
                let (a, b) = (3 * (i - layout.nodes), 3 * (j - layout.nodes));
                let m = Matrix3::from_fn(|r, c| js.response[(a + r, b + c)]);
                (m != Matrix3::zeros()).then_some(m)
            }
            _ => (i == j).then(|| layout.inverse_mass(model, i)),
        }
    };
    let pseudo: Vec<usize> = per_node.keys().copied().filter(|&i| i >= layout.nodes).collect();
    for (i, list) in &per_node {
        let partners: Vec<usize> = if joints.is_some() && *i >= layout.nodes { pseudo.clone() } else { vec![*i] };
        for j in partners {
            let Some(inv_m) = response(*i, j) else { continue };
            for (c, bc) in list {
                for (d, bd) in &per_node[&j] {
                    *blocks.entry((*c, *d)).or_insert_with(Matrix3::zeros) += *bc * inv_m * bd.transpose();
                }
            }
        }
    }
    // Every contact keeps its diagonal block, even one touching only kinematic nodes.
    for c in 0..kept.len() {
        blocks.entry((c, c)).or_insert_with(Matrix3::zeros);
    }
    let triplets: Vec<_> = blocks
        .iter()
        .flat_map(|(&(c, d), b)| {
            (0..9).map(move |e| faer::sparse::Triplet::new(3 * c + e / 3, 3 * d + e % 3, b[(e / 3, e % 3)]))
        })
        .collect();
    let n = 3 * kept.len();
    Csc::try_new_from_triplets(n, n, &triplets).expect("indices within the contacts")
}

/// Solve the friction problem of the kept contacts. `r_prev` holds the predictor's impulses of
/// every contact (3 each); `v_star` the predictor's velocities.
pub fn solve(
    model: &Model,
    contacts: &[SmoothContact],
    kept: &[usize],
    v_star: &[f64],
    r_prev: &[f64],
    spec: &SmoothSpec,
    response: &mut Response,
) -> Result<FrictionOutcome, String> {
    let mut out = FrictionOutcome {
        r: r_prev.to_vec(),
        report: None,
        counts: polar_sp::ProjectionCounts::default(),
        solved: kept.len(),
    };
    let mut is_kept = vec![false; contacts.len()];
    kept.iter().for_each(|&c| is_kept[c] = true);
    for c in (0..contacts.len()).filter(|&c| !is_kept[c]) {
        // A pruned contact keeps its normal impulse and gets no friction.
        out.r[3 * c + 1] = 0.0;
        out.r[3 * c + 2] = 0.0;
    }
    if kept.is_empty() {
        return Ok(out);
    }
    let w = response.delassus(model, contacts, kept)?;
    let prev: Vec<f64> = kept.iter().flat_map(|&c| [r_prev[3 * c], r_prev[3 * c + 1], r_prev[3 * c + 2]]).collect();
    let mut wr = vec![0.0; prev.len()];
    crate::dfcp::problem::csc_mul(&w, &prev, &mut wr);
    let q: Vec<f64> = kept
        .iter()
        .enumerate()
        .flat_map(|(j, &c)| {
            let u = contacts[c].velocity(v_star);
            [u.x - wr[3 * j], u.y - wr[3 * j + 1], u.z - wr[3 * j + 2]]
        })
        .collect();
    // Solve in velocity units, `r' = s r` with `s` the mean diagonal of W (an inverse effective
    // mass): the relative natural-map error compares impulses with velocities, and in N·s a
    // light cloth's impulses (1e-7) would pass any tolerance next to its velocities (1e-2).
    let n = prev.len();
    let s = (0..n).map(|k| w.as_ref().get(k, k).copied().unwrap_or(0.0)).sum::<f64>() / n as f64;
    let s = if s > 0.0 && s.is_finite() { s } else { 1.0 };
    let w = scaled(w, 1.0 / s);
    let cones = kept.iter().map(|&c| contacts[c].cone).collect();
    let p = LocalProblem::new(w, q, cones).map_err(|e| format!("friction problem: {e}"))?;
    let opts = SolverOptions::new(spec.friction.tolerance, spec.friction.max_iterations);
    let mut r: Vec<f64> = prev.iter().map(|x| x * s).collect();
    let mut u = vec![0.0; r.len()];
    let r0 = r.clone();
    let mut report = if spec.friction.solver == SmoothFrictionSolver::PolarStaggeredProjections {
        let (rep, counts) = polar_sp::solve_counted(&p, &mut r, &mut u, &opts, spec.friction.stop, true);
        out.counts = counts;
        rep
    } else {
        let f = dispatch::local_fn(spec.friction.solver.dispatch_name()).expect("every choice is a local solver");
        f(&p, &mut r, &mut u, &opts)
    };
    if !report.converged && spec.friction.solver != SmoothFrictionSolver::FischerBurmeister {
        // Splitting and projection methods crawl on the redundant contacts of a rigid body (a box
        // face resting on a solid: 40 contacts, 6 dofs; measured: polar SP at 1.5e-5 after 1000
        // iterations); Fischer–Burmeister's Newton steps solve it, from the warm start (from the
        // stalled iterate they failed their line searches).
        let fb = dispatch::local_fn("fb").expect("fb is a local solver");
        r.copy_from_slice(&r0);
        let mut finished = fb(&p, &mut r, &mut u, &opts);
        finished.iterations += report.iterations;
        finished.time += report.time;
        finished.message = format!("{} from {}: {}", finished.message, report.solver, report.message);
        report = finished;
    }
    for (j, &c) in kept.iter().enumerate() {
        for k in 0..3 {
            out.r[3 * c + k] = r[3 * j + k] / s;
        }
    }
    out.report = Some(report);
    Ok(out)
}

/// `a W` with the same pattern.
fn scaled(mut w: Csc, a: f64) -> Csc {
    w.val_mut().iter_mut().for_each(|v| *v *= a);
    w
}

/// The corrector (eq. 22): `v += H⁻¹ Gᵀ (r − r_prev)` on free nodes.
pub fn correct(
    model: &Model,
    contacts: &[SmoothContact],
    r: &[f64],
    r_prev: &[f64],
    v: &mut [f64],
    response: &mut Response,
) -> Result<(), String> {
    let dr: Vec<f64> = r.iter().zip(r_prev).map(|(a, b)| a - b).collect();
    let impulse = super::predictor::generalized_impulse(response.layout(), contacts, &dr);
    let dv = response.apply(model, &impulse)?;
    v.iter_mut().zip(&dv).for_each(|(v, d)| *v += d);
    Ok(())
}
