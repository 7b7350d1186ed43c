//! Residual and Jacobian of one implicit step of the penalty pipeline (001 eq. 22 for backward
//! Euler, written for a general one-stage integrator):
//!
//! `r(v) = M (v - v_hat) - b h f(q_hat + a h v, v)`,
//! `J = M - b h df/dv - a b h^2 df/dq`,
//!
//! with `f` = elastic + Rayleigh damping + gravity + penalty contact + friction. Only free DOFs are
//! unknowns; kinematic DOFs carry their prescribed velocity in `v`.

use super::contacts::{ContactEntry, Stencil};
use crate::contact::kernel::{collider_force, collider_linearized, triangle_force, triangle_linearized};
use crate::energy::ElasticModel;
use crate::linalg::newton_solver::{LinearInfo, NewtonSolver};
use crate::linalg::sparse::{LinearSolveError, Pattern, SparseMatrix};
use crate::model::{Model, node, node_arr};
use nalgebra::{SMatrix, SVector, Vector3};
use rayon::prelude::*;

/// Coefficients of a one-stage implicit update `q = q_hat + a h v`, force weight `b h`
/// (backward Euler: a = b = 1; trapezoid: 1/2; BDF2: 2/3).
#[derive(Debug, Clone, Copy)]
pub struct Stage {
    pub a: f64,
    pub b: f64,
}

pub const BACKWARD_EULER: Stage = Stage { a: 1.0, b: 1.0 };

type ElemResult = (f64, SVector<f64, 12>, SMatrix<f64, 12, 12>);
const NO_SLOT: u32 = u32::MAX;

/// Workspace for residual/Jacobian evaluation; allocated once per model.
pub struct System {
    /// Global DOF -> free index (usize::MAX for kinematic DOFs).
    pub free: Vec<usize>,
    pub n_free: usize,
    /// Flat list of (solid, element) for parallel loops.
    elems: Vec<(u32, u32)>,
    elem_buf: Vec<ElemResult>,
    elem_slots: Vec<[u32; 144]>,
    /// Element stiffness at the start of the step (stiffness-proportional Rayleigh damping).
    damping_k: Vec<SMatrix<f64, 12, 12>>,
    pub jacobian: SparseMatrix,
    /// GMRES with a cached sparse factorization as preconditioner.
    pub linear: NewtonSolver,
    /// Full-length force vector and free-length residual.
    force: Vec<f64>,
    pub residual: Vec<f64>,
    pub contacts: Vec<ContactEntry>,
    pub elastic_energy: f64,
    pub any_damping_k: bool,
}

/// Why a residual could not be evaluated.
#[derive(Debug, Clone, PartialEq)]
pub enum EvalError {
    /// A neo-Hookean element has `det F <= 0`, where its energy is undefined.
    Inverted { solid: usize, element: usize },
}

impl System {
    pub fn new(model: &Model) -> System {
        let (free, n_free) = model.free_dofs();
        let elems: Vec<(u32, u32)> = model
            .solids
            .iter()
            .enumerate()
            .flat_map(|(s, b)| (0..b.elements.len()).map(move |e| (s as u32, e as u32)))
            .collect();
        let any_damping_k = model.solids.iter().any(|s| s.rayleigh.1 > 0.0);
        let mut entries = Vec::new();
        for s in &model.solids {
            for e in &s.elements {
                for &a in &e.nodes {
                    for &b in &e.nodes {
                        for i in 0..3 {
                            for j in 0..3 {
                                let (r, c) = (free[3 * a + i], free[3 * b + j]);
                                if r != usize::MAX && c != usize::MAX {
                                    entries.push((r, c));
                                }
                            }
                        }
                    }
                }
            }
        }
        let jacobian = SparseMatrix::new(Pattern::from_entries(n_free, entries));
        let mut sys = System {
            free,
            n_free,
            elem_buf: vec![(0.0, SVector::zeros(), SMatrix::zeros()); elems.len()],
            damping_k: if any_damping_k { vec![SMatrix::zeros(); elems.len()] } else { Vec::new() },
            elem_slots: Vec::new(),
            elems,
            jacobian,
            linear: NewtonSolver::new(n_free),
            force: vec![0.0; model.dof_count()],
            residual: vec![0.0; n_free],
            contacts: Vec::new(),
            elastic_energy: 0.0,
            any_damping_k,
        };
        sys.compute_slots(model);
        sys
    }

    fn compute_slots(&mut self, model: &Model) {
        let pat = &self.jacobian.pattern;
        let free = &self.free;
        self.elem_slots = self
            .elems
            .iter()
            .map(|&(s, e)| {
                let nodes = model.solids[s as usize].elements[e as usize].nodes;
                let mut slots = [NO_SLOT; 144];
                for a in 0..12 {
                    for b in 0..12 {
                        let (r, c) = (free[3 * nodes[a / 3] + a % 3], free[3 * nodes[b / 3] + b % 3]);
                        if r != usize::MAX && c != usize::MAX {
                            slots[a * 12 + b] = pat.slot(r, c).expect("element entries are in the pattern") as u32;
                        }
                    }
                }
                slots
            })
            .collect();
    }

    fn element_positions(model: &Model, q: &[f64], s: usize, e: usize) -> [Vector3<f64>; 4] {
        model.solids[s].elements[e].nodes.map(|i| node(q, i))
    }

    /// Evaluate element energies, gradients and (optionally) Hessians at `q`, in parallel.
    fn eval_elements(&mut self, model: &Model, q: &[f64], hessian: bool) -> Result<(), EvalError> {
        let failed = std::sync::Mutex::new(None);
        self.elem_buf.par_iter_mut().zip(self.elems.par_iter()).for_each(|(out, &(s, e))| {
            let solid = &model.solids[s as usize];
            let el = &solid.elements[e as usize];
            let x = Self::element_positions(model, q, s as usize, e as usize);
            if solid.elastic.model == ElasticModel::NeoHookean && el.deformation_gradient(&x).determinant() <= 0.0 {
                *failed.lock().unwrap_or_else(|p| p.into_inner()) =
                    Some(EvalError::Inverted { solid: s as usize, element: e as usize });
                return;
            }
            if hessian {
                *out = el.energy_gradient_hessian(&solid.elastic, &x, false);
            } else {
                let (w, g) = el.energy_gradient(&solid.elastic, &x);
                out.0 = w;
                out.1 = g;
            }
        });
        match failed.into_inner().unwrap_or_else(|p| p.into_inner()) {
            Some(err) => Err(err),
            None => Ok(()),
        }
    }

    /// Store element stiffness at the step's start positions for stiffness-proportional damping.
    pub fn prepare_damping(&mut self, model: &Model, q0: &[f64]) -> Result<(), EvalError> {
        if !self.any_damping_k {
            return Ok(());
        }
        self.eval_elements(model, q0, true)?;
        for (k, buf) in self.damping_k.iter_mut().zip(&self.elem_buf) {
            *k = buf.2;
        }
        Ok(())
    }

    /// Evaluate the residual (free DOFs) at velocity `v` and, with `jacobian`, assemble `J`.
    /// `contacts` must already hold the active contact entries at `q = q_hat + a h v`.
    /// Returns the per-node contact (normal, friction) forces when `forces` is given.
    #[allow(clippy::too_many_arguments)]
    pub fn evaluate(
        &mut self,
        model: &Model,
        stage: Stage,
        h: f64,
        t1: f64,
        q: &[f64],
        v: &[f64],
        v_hat: &[f64],
        jacobian: bool,
        mut forces: Option<(&mut [f64], &mut [f64])>,
    ) -> Result<(), EvalError> {
        self.eval_elements(model, q, jacobian)?;
        let (a, bh) = (stage.a, stage.b * h);
        let f = &mut self.force;
        for i in 0..model.node_count() {
            let m = model.node_mass[i];
            for k in 0..3 {
                f[3 * i + k] = m * model.gravity[k];
            }
        }
        self.elastic_energy = 0.0;
        for (k, &(s, e)) in self.elems.iter().enumerate() {
            let solid = &model.solids[s as usize];
            let nodes = solid.elements[e as usize].nodes;
            let (w, g, _) = &self.elem_buf[k];
            self.elastic_energy += w;
            let beta = solid.rayleigh.1;
            let vd = if beta > 0.0 {
                let ve = SVector::<f64, 12>::from_fn(|r, _| v[3 * nodes[r / 3] + r % 3]);
                self.damping_k[k] * ve * beta
            } else {
                SVector::zeros()
            };
            for r in 0..12 {
                f[3 * nodes[r / 3] + r % 3] -= g[r] + vd[r];
            }
        }
        // Mass-proportional damping acts per node.
        for s in &model.solids {
            let alpha = s.rayleigh.0;
            if alpha > 0.0 {
                for i in s.nodes.clone() {
                    for k in 0..3 {
                        f[3 * i + k] -= alpha * model.node_mass[i] * v[3 * i + k];
                    }
                }
            }
        }
        if jacobian {
            self.jacobian.clear();
            for i in 0..model.node_count() {
                let m = model.node_mass[i];
                let alpha = model.solids[model.node_body[i]].rayleigh.0;
                for k in 0..3 {
                    let r = self.free[3 * i + k];
                    if r != usize::MAX {
                        self.jacobian.add(r, r, m * (1.0 + bh * alpha));
                    }
                }
            }
            let vals = &mut self.jacobian.values;
            for (k, &(s, _)) in self.elems.iter().enumerate() {
                let beta = model.solids[s as usize].rayleigh.1;
                let hess = &self.elem_buf[k].2;
                let slots = &self.elem_slots[k];
                for (idx, &slot) in slots.iter().enumerate() {
                    if slot != NO_SLOT {
                        let (r, c) = (idx / 12, idx % 12);
                        let mut val = a * bh * h * hess[(r, c)];
                        if beta > 0.0 {
                            val += bh * beta * self.damping_k[k][(r, c)];
                        }
                        vals[slot as usize] += val;
                    }
                }
            }
        }
        self.add_contacts(model, a, bh, h, t1, q, v, jacobian, &mut forces);
        for i in 0..model.dof_count() {
            let fi = self.free[i];
            if fi != usize::MAX {
                self.residual[fi] = model.node_mass[i / 3] * (v[i] - v_hat[i]) - bh * self.force[i];
            }
        }
        Ok(())
    }

    #[allow(clippy::too_many_arguments)]
    fn add_contacts(
        &mut self,
        model: &Model,
        a: f64,
        bh: f64,
        h: f64,
        t1: f64,
        q: &[f64],
        v: &[f64],
        jacobian: bool,
        forces: &mut Option<(&mut [f64], &mut [f64])>,
    ) {
        for entry in &self.contacts {
            let lag = entry.lagged.as_ref();
            match entry.stencil {
                Stencil::Collider { node: i, collider } => {
                    let c = &model.colliders[collider];
                    let at = c.placement(t1);
                    // The velocity of the collider's surface point found at the node's end-of-step
                    // position (an affine field of that position, exact for a turning collider).
                    let vc = c.motion.step(t1 - h, h).field_at_end();
                    let (x, vi) = (node_arr(q, i), node_arr(v, i));
                    if jacobian {
                        let lin = collider_linearized(c, &at, &vc, x, vi, &entry.params, lag);
                        scatter(&mut self.jacobian, &self.free, &[i], &lin.dq, &lin.dv, a * bh * h, bh);
                    }
                    let fc = collider_force(c, &at, &vc, x, vi, &entry.params, lag);
                    for k in 0..3 {
                        self.force[3 * i + k] += fc.normal[0][k] + fc.friction[0][k];
                    }
                    if let Some((fnorm, ffric)) = forces.as_mut() {
                        for k in 0..3 {
                            fnorm[3 * i + k] += fc.normal[0][k];
                            ffric[3 * i + k] += fc.friction[0][k];
                        }
                    }
                }
                Stencil::Triangle { nodes, feature, sign } => {
                    let xs = nodes.map(|i| node_arr(q, i));
                    let vs = nodes.map(|i| node_arr(v, i));
                    if jacobian {
                        let lin = triangle_linearized(feature, sign, &xs, &vs, &entry.params, lag);
                        scatter(&mut self.jacobian, &self.free, &nodes, &lin.dq, &lin.dv, a * bh * h, bh);
                    }
                    let ft = triangle_force(feature, sign, &xs, &vs, &entry.params, lag);
                    for (n, &i) in nodes.iter().enumerate() {
                        for k in 0..3 {
                            self.force[3 * i + k] += ft.normal[n][k] + ft.friction[n][k];
                        }
                        if let Some((fnorm, ffric)) = forces.as_mut() {
                            for k in 0..3 {
                                fnorm[3 * i + k] += ft.normal[n][k];
                                ffric[3 * i + k] += ft.friction[n][k];
                            }
                        }
                    }
                }
            }
        }
    }

    /// Grow the Jacobian pattern after an assembly recorded missing entries; returns true if it
    /// grew (the caller re-assembles).
    pub fn grow_pattern_if_needed(&mut self, model: &Model) -> bool {
        if self.jacobian.missing.is_empty() {
            return false;
        }
        self.jacobian.grow();
        self.compute_slots(model);
        true
    }

    /// Solve `J p = -r` (free DOFs) into `p`.
    pub fn newton_direction(&mut self, p: &mut [f64]) -> Result<LinearInfo, LinearSolveError> {
        for (pi, ri) in p.iter_mut().zip(&self.residual) {
            *pi = -ri;
        }
        self.linear.solve(&self.jacobian, p)
    }
}

/// Add `-(c_q dF/dq + c_v dF/dv)` of a stencil force into the Jacobian (free rows and columns).
fn scatter<const D: usize>(
    jac: &mut SparseMatrix,
    free: &[usize],
    nodes: &[usize],
    dq: &SMatrix<f64, D, D>,
    dv: &SMatrix<f64, D, D>,
    c_q: f64,
    c_v: f64,
) {
    for r in 0..D {
        let fr = free[3 * nodes[r / 3] + r % 3];
        if fr == usize::MAX {
            continue;
        }
        for c in 0..D {
            let fc = free[3 * nodes[c / 3] + c % 3];
            if fc != usize::MAX {
                jac.add(fr, fc, -(c_q * dq[(r, c)] + c_v * dv[(r, c)]));
            }
        }
    }
}
