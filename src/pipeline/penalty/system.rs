//! Residual and Jacobian of one implicit integrator stage of the penalty pipeline (001 eq. 22 for
//! backward Euler; every stage of `crate::integrator` has this form):
//!
//! `r(v) = M (v - v_hat) - h (b_body f_body + b_contact f_contact)(q_hat + a h v, v)`,
//! `J = M - h b df/dv - a b h^2 df/dq` (per force class),
//!
//! with `f_body` = elastic + Rayleigh damping + gravity and `f_contact` = penalty contact +
//! friction. Only free DOFs are unknowns; kinematic DOFs carry their prescribed velocity in `v`.

use super::contacts::{ContactEntry, ImplicitCandidates, Stencil};
use super::elements::Element;
use crate::contact::kernel::{collider_force, collider_linearized, triangle_force, triangle_linearized};
use crate::integrator::ForceWeights;
use crate::linalg::newton_solver::{LinearInfo, NewtonSolver, SolverSnapshot};
use crate::linalg::sparse::{LinearSolveError, Pattern, SparseMatrix};
use crate::model::motion::VelocityField;
use crate::model::{Model, node_arr};
use nalgebra::{SMatrix, SVector};
use rayon::prelude::*;

/// The coefficients of one stage's system.
#[derive(Debug, Clone, Copy)]
pub struct StageSystem {
    /// `dq/dv = a h`.
    pub dq_dv: f64,
    /// Force weights times h: `b h` per force class.
    pub bh: ForceWeights,
    /// Start time of the step and the stage's duration `c h` (scripted colliders are placed at
    /// `t0 + duration` and move with their velocity over `[t0, t0 + duration]`).
    pub t0: f64,
    pub duration: f64,
}

impl StageSystem {
    /// End time of the stage.
    pub fn t1(&self) -> f64 {
        self.t0 + self.duration
    }

    /// Collider `index` placed at the stage's end, and the velocity field of its surface over the
    /// stage (an affine field of the position, exact for a turning collider).
    pub fn collider<'m>(
        &self,
        model: &'m Model,
        index: usize,
    ) -> (&'m crate::contact::collider::Collider, crate::contact::collider::Placement, VelocityField) {
        let c = &model.colliders[index];
        (c, c.placement(self.t1()), c.motion.step(self.t0, self.duration).field_at_end())
    }

    /// The same stage window with no residual weights: forces only (known forces of a level,
    /// the contact forces of the committed state).
    pub fn forces_only(&self) -> StageSystem {
        StageSystem { dq_dv: 0.0, bh: ForceWeights::whole(0.0), ..*self }
    }
}

const NO_SLOT: u32 = u32::MAX;

/// Workspace for residual/Jacobian evaluation; allocated once per model.
pub struct System {
    /// Global DOF -> free index (usize::MAX for kinematic DOFs).
    pub free: Vec<usize>,
    pub n_free: usize,
    /// Every elastic element (tetrahedra, membranes, hinges) and its four stencil nodes.
    pub(super) elems: Vec<Element>,
    pub(super) elem_nodes: Vec<[usize; 4]>,
    /// Per node: the mass-proportional Rayleigh coefficient of its body.
    pub(super) node_alpha: Vec<f64>,
    /// Element energies and gradients of the last evaluation.
    elem_buf: Vec<(f64, SVector<f64, 12>)>,
    /// Element Hessians of the last evaluation with a Jacobian (assembled systems only).
    elem_hess: Vec<SMatrix<f64, 12, 12>>,
    elem_slots: Vec<[u32; 144]>,
    /// Element stiffness at the start of the step (stiffness-proportional Rayleigh damping).
    pub(super) damping_k: Vec<SMatrix<f64, 12, 12>>,
    /// Whether the Jacobian is assembled (`Gmres`, `Lu`); a matrix-free system (`Iterative`) holds
    /// no pattern, slots or element Hessians.
    pub assembled: bool,
    pub jacobian: SparseMatrix,
    /// GMRES with a cached sparse factorization as preconditioner.
    pub linear: NewtonSolver,
    /// Full-length body and contact forces of the last evaluation, and the free-length residual.
    pub force_body: Vec<f64>,
    pub force_contact: Vec<f64>,
    pub residual: Vec<f64>,
    pub contacts: Vec<ContactEntry>,
    /// The step's vertex–implicit-surface stencils (`contact.geometry: Implicit`), which
    /// `Stencil::Implicit` entries index; set from the step's detector.
    pub implicit: std::sync::Arc<ImplicitCandidates>,
    pub elastic_energy: f64,
    pub any_damping_k: bool,
    /// After an assembly, the dense rank-one terms `u wᵀ` of the volume zones' exact Jacobians on
    /// free DOFs (`u = −b h a h π'(V) ∇V`, `w = ∇V`), applied by the linear solver without
    /// storing them.
    pub low_rank: Vec<(Vec<f64>, Vec<f64>)>,
    /// Enclosed volume of each zone at the last evaluation (m³).
    pub zone_volumes: Vec<f64>,
}

/// Why a residual could not be evaluated.
#[derive(Debug, Clone, PartialEq)]
pub enum EvalError {
    /// A neo-Hookean element has `det F <= 0`, where its energy is undefined.
    Inverted { solid: usize, element: usize },
    /// A neo-Hookean membrane triangle has collapsed to zero area.
    Collapsed { cloth: usize, element: usize },
    /// A logarithmic volume penalty at a volume where it is undefined (V <= 0).
    VolumeCollapsed { zone: usize, volume: f64 },
}

impl System {
    pub fn new(model: &Model, assembled: bool) -> System {
        let (free, n_free) = model.free_dofs();
        let elems = Element::all(model);
        let elem_nodes: Vec<[usize; 4]> = elems.iter().map(|e| e.nodes(model)).collect();
        let any_damping_k = elems.iter().any(|e| e.beta(model) > 0.0);
        let mut entries = Vec::new();
        for nodes in elem_nodes.iter().filter(|_| assembled) {
            {
                for &a in nodes {
                    for &b in nodes {
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
            elem_buf: vec![(0.0, SVector::zeros()); elems.len()],
            elem_hess: if assembled { vec![SMatrix::zeros(); elems.len()] } else { Vec::new() },
            assembled,
            damping_k: if any_damping_k { vec![SMatrix::zeros(); elems.len()] } else { Vec::new() },
            elem_slots: Vec::new(),
            elems,
            elem_nodes,
            node_alpha: model.node_rayleigh_alpha(),
            jacobian,
            // A matrix-free system never solves with it: no Krylov basis (1.3 MB on `ramp_6k`).
            linear: NewtonSolver::new(if assembled { n_free } else { 0 }),
            force_body: vec![0.0; model.dof_count()],
            force_contact: vec![0.0; model.dof_count()],
            residual: vec![0.0; n_free],
            contacts: Vec::new(),
            implicit: Default::default(),
            elastic_energy: 0.0,
            any_damping_k,
            low_rank: Vec::new(),
            zone_volumes: Vec::new(),
        };
        if assembled {
            sys.compute_slots();
        }
        sys
    }

    /// The Jacobian's pattern and the cached preconditioner (assembled systems only), for a
    /// checkpoint.
    pub fn snapshot(&self) -> Option<SolverSnapshot> {
        self.assembled.then(|| self.linear.snapshot(&self.jacobian))
    }

    /// Continue from [`snapshot`](Self::snapshot)'s data.
    pub fn restore(&mut self, s: Option<SolverSnapshot>) -> Result<(), String> {
        match (s, self.assembled) {
            (Some(s), true) => {
                self.linear.restore(&mut self.jacobian, s)?;
                self.compute_slots();
                Ok(())
            }
            (None, false) => Ok(()),
            (Some(_), false) => Err("the checkpoint is of an assembled Newton (`Gmres` or `Lu`, or `Auto` before it \
                                     went matrix-free on soft solids) and this run's is matrix-free: resume with \
                                     `--set pipeline.newton.linear_solver=Gmres` (or `Lu`, as it was run)"
                .into()),
            (None, true) => Err("the checkpoint is of a matrix-free Newton and this run's is assembled: resume \
                                 with `--set pipeline.newton.linear_solver=Iterative`"
                .into()),
        }
    }

    fn compute_slots(&mut self) {
        let pat = &self.jacobian.pattern;
        let free = &self.free;
        self.elem_slots = self
            .elem_nodes
            .iter()
            .map(|nodes| {
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

    /// Evaluate element energies, gradients and (optionally) Hessians at `q`, in parallel.
    fn eval_elements(&mut self, model: &Model, q: &[f64], hessian: bool) -> Result<(), EvalError> {
        debug_assert!(!hessian || self.assembled, "element Hessians are kept by assembled systems only");
        let elems = &self.elems;
        if hessian {
            self.elem_buf.par_iter_mut().zip(self.elem_hess.par_iter_mut()).zip(elems.par_iter()).try_for_each(
                |((out, h), el)| {
                    let (w, g, hm) = el.energy_gradient_hessian(model, q)?;
                    *out = (w, g);
                    *h = hm;
                    Ok(())
                },
            )
        } else {
            self.elem_buf.par_iter_mut().zip(elems.par_iter()).try_for_each(|(out, el)| {
                *out = el.energy_gradient(model, q)?;
                Ok(())
            })
        }
    }

    /// Store element stiffness at the step's start positions for stiffness-proportional damping.
    pub fn prepare_damping(&mut self, model: &Model, q0: &[f64]) -> Result<(), EvalError> {
        if !self.any_damping_k {
            return Ok(());
        }
        self.damping_k.par_iter_mut().zip(self.elems.par_iter()).try_for_each(|(kd, el)| {
            *kd = el.energy_gradient_hessian(model, q0)?.2;
            Ok(())
        })
    }

    /// Evaluate the residual (free DOFs) at velocity `v` and positions `q`, and with `jacobian`
    /// assemble `J`. `contacts` must already hold the active contact entries at `q`. Adds the
    /// per-node contact (normal, friction) forces to `forces` when it is given.
    #[allow(clippy::too_many_arguments)]
    pub fn evaluate(
        &mut self,
        model: &Model,
        stage: &StageSystem,
        q: &[f64],
        v: &[f64],
        v_hat: &[f64],
        jacobian: bool,
        mut forces: Option<(&mut [f64], &mut [f64])>,
    ) -> Result<(), EvalError> {
        self.eval_elements(model, q, jacobian)?;
        self.body_forces(model, v);
        self.volume_forces(model, q)?;
        if jacobian {
            self.assemble_body_jacobian(model, stage);
            self.assemble_volume_jacobian(model, stage, q);
        }
        self.contact_forces(model, stage, q, v, jacobian, &mut forces);
        let bh = stage.bh;
        for i in 0..model.dof_count() {
            let fi = self.free[i];
            if fi != usize::MAX {
                self.residual[fi] = model.node_mass[i / 3] * (v[i] - v_hat[i])
                    - bh.body * self.force_body[i]
                    - bh.contact * self.force_contact[i];
            }
        }
        Ok(())
    }

    /// Gravity, elastic and Rayleigh damping forces into `force_body` (element energies and
    /// gradients already in `elem_buf`).
    fn body_forces(&mut self, model: &Model, v: &[f64]) {
        let f = &mut self.force_body;
        for i in 0..model.node_count() {
            let m = model.node_mass[i];
            for k in 0..3 {
                f[3 * i + k] = m * model.gravity[k];
            }
        }
        self.elastic_energy = 0.0;
        for (k, el) in self.elems.iter().enumerate() {
            let nodes = self.elem_nodes[k];
            let (w, g) = &self.elem_buf[k];
            self.elastic_energy += w;
            let beta = el.beta(model);
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
        for (i, &alpha) in self.node_alpha.iter().enumerate().filter(|(_, a)| **a > 0.0) {
            for k in 0..3 {
                f[3 * i + k] -= alpha * model.node_mass[i] * v[3 * i + k];
            }
        }
    }

    /// The volume penalty's forces `π(V) ∇V` into `force_body` (001 eq. 20).
    fn volume_forces(&mut self, model: &Model, q: &[f64]) -> Result<(), EvalError> {
        self.zone_volumes.clear();
        for (k, (_, zone)) in model.volume_zones().enumerate() {
            let v = zone.add_force(q, &mut self.force_body);
            if !zone.pressure(v).is_finite() {
                return Err(EvalError::VolumeCollapsed { zone: k, volume: v });
            }
            self.zone_volumes.push(v);
        }
        Ok(())
    }

    /// `−b h a h π(V) ∇²V` per zone triangle into the assembled Jacobian, and with an exact
    /// Jacobian the rank-one terms `−b h a h π'(V) ∇V ∇Vᵀ` into `low_rank`.
    fn assemble_volume_jacobian(&mut self, model: &Model, stage: &StageSystem, q: &[f64]) {
        self.low_rank.clear();
        let c = stage.bh.body * stage.dq_dv;
        for (k, (_, zone)) in model.volume_zones().enumerate() {
            let v = self.zone_volumes[k];
            let pi = zone.pressure(v);
            for t in &zone.triangles {
                let h = crate::energy::volume::VolumeZone::triangle_volume_hessian(&t.map(|i| node_arr(q, i)));
                for r in 0..9 {
                    for col in 0..9 {
                        let (fr, fc) = (self.free[3 * t[r / 3] + r % 3], self.free[3 * t[col / 3] + col % 3]);
                        if fr != usize::MAX && fc != usize::MAX && h[(r, col)] != 0.0 {
                            self.jacobian.add(fr, fc, -c * pi * h[(r, col)]);
                        }
                    }
                }
            }
            if zone.exact_jacobian {
                self.low_rank.push(self.volume_low_rank(model, stage, q, k));
            }
        }
    }

    /// Zone `k`'s dense rank-one Jacobian term `u wᵀ` on free DOFs: `u = −b h a h π'(V) ∇V`,
    /// `w = ∇V` at `q` (the zone's volume from the last evaluation).
    pub fn volume_low_rank(&self, model: &Model, stage: &StageSystem, q: &[f64], k: usize) -> (Vec<f64>, Vec<f64>) {
        let zone = model.volume_zones().nth(k).expect("a zone index").1;
        let c = stage.bh.body * stage.dq_dv * zone.pressure_slope(self.zone_volumes[k]);
        let mut grad = vec![0.0; model.dof_count()];
        zone.volume_gradient(q, &mut grad);
        let w: Vec<f64> = self.free_part(&grad);
        let u = w.iter().map(|g| -c * g).collect();
        (u, w)
    }

    /// The free entries of a full-length vector.
    fn free_part(&self, full: &[f64]) -> Vec<f64> {
        let mut out = vec![0.0; self.n_free];
        for (dof, &fi) in self.free.iter().enumerate() {
            if fi != usize::MAX {
                out[fi] = full[dof];
            }
        }
        out
    }

    /// `M (1 + b h alpha) + b h (a h K + beta K0)` into a cleared Jacobian.
    fn assemble_body_jacobian(&mut self, model: &Model, stage: &StageSystem) {
        let (bh, dq_dv) = (stage.bh.body, stage.dq_dv);
        self.jacobian.clear();
        for i in 0..model.node_count() {
            let m = model.node_mass[i];
            let alpha = self.node_alpha[i];
            for k in 0..3 {
                let r = self.free[3 * i + k];
                if r != usize::MAX {
                    self.jacobian.add(r, r, m * (1.0 + bh * alpha));
                }
            }
        }
        let vals = &mut self.jacobian.values;
        for (k, el) in self.elems.iter().enumerate() {
            let beta = el.beta(model);
            let hess = &self.elem_hess[k];
            let slots = &self.elem_slots[k];
            for (idx, &slot) in slots.iter().enumerate() {
                if slot != NO_SLOT {
                    let (r, c) = (idx / 12, idx % 12);
                    let mut val = bh * dq_dv * hess[(r, c)];
                    if beta > 0.0 {
                        val += bh * beta * self.damping_k[k][(r, c)];
                    }
                    vals[slot as usize] += val;
                }
            }
        }
    }

    /// Penalty contact and friction forces into `force_contact` (and their Jacobian).
    fn contact_forces(
        &mut self,
        model: &Model,
        stage: &StageSystem,
        q: &[f64],
        v: &[f64],
        jacobian: bool,
        forces: &mut Option<(&mut [f64], &mut [f64])>,
    ) {
        self.force_contact.iter_mut().for_each(|f| *f = 0.0);
        let (c_q, c_v) = (stage.bh.contact * stage.dq_dv, stage.bh.contact);
        for entry in &self.contacts {
            let lag = entry.lagged.as_ref();
            match entry.stencil {
                Stencil::Collider { node: i, collider } => {
                    let (c, at, vc) = stage.collider(model, collider);
                    let (x, vi) = (node_arr(q, i), node_arr(v, i));
                    if jacobian {
                        let lin = collider_linearized(c, &at, &vc, x, vi, &entry.params, lag);
                        scatter(&mut self.jacobian, &self.free, &[i], &lin.dq, &lin.dv, c_q, c_v);
                    }
                    let fc = collider_force(c, &at, &vc, x, vi, &entry.params, lag);
                    add_stencil(&mut self.force_contact, forces, &[i], &fc.normal, &fc.friction);
                }
                Stencil::Triangle { nodes, feature, sign } => {
                    let xs = nodes.map(|i| node_arr(q, i));
                    let vs = nodes.map(|i| node_arr(v, i));
                    if jacobian {
                        let lin = triangle_linearized(feature, sign, &xs, &vs, &entry.params, lag);
                        scatter(&mut self.jacobian, &self.free, &nodes, &lin.dq, &lin.dv, c_q, c_v);
                    }
                    let ft = triangle_force(feature, sign, &xs, &vs, &entry.params, lag);
                    add_stencil(&mut self.force_contact, forces, &nodes, &ft.normal, &ft.friction);
                }
                Stencil::Implicit { index } => {
                    let (k, imp) = (index as usize, &self.implicit);
                    let (st, field) = (&imp.stencils[k], imp.field());
                    let (xs, vs) = (imp.gather(k, q), imp.gather(k, v));
                    // With a Jacobian the linearization's value is the force: no second evaluation.
                    let force = if jacobian {
                        st.linearized(&xs, &vs, field, &entry.params, lag).map(|(total, normal, dq, dv)| {
                            scatter_dyn(&mut self.jacobian, &self.free, &st.nodes, &dq, &dv, c_q, c_v);
                            let per_node = |x: &nalgebra::DVector<f64>| -> Vec<[f64; 3]> {
                                (0..st.nodes.len()).map(|n| [x[3 * n], x[3 * n + 1], x[3 * n + 2]]).collect()
                            };
                            (per_node(&normal), per_node(&(total - &normal)))
                        })
                    } else {
                        st.force(&xs, &vs, field, &entry.params, lag).map(|f| (f.normal, f.friction))
                    };
                    if let Some((normal, friction)) = force {
                        add_stencil(&mut self.force_contact, forces, &st.nodes, &normal, &friction);
                    }
                }
            }
        }
    }

    /// Grow the Jacobian pattern after an assembly recorded missing entries; returns true if it
    /// grew (the caller re-assembles).
    pub fn grow_pattern_if_needed(&mut self) -> bool {
        if !self.assembled || self.jacobian.missing.is_empty() {
            return false;
        }
        self.jacobian.grow();
        self.compute_slots();
        true
    }

    /// Solve `J p = -r` (free DOFs) into `p`.
    pub fn newton_direction(&mut self, p: &mut [f64]) -> Result<LinearInfo, LinearSolveError> {
        for (pi, ri) in p.iter_mut().zip(&self.residual) {
            *pi = -ri;
        }
        self.linear.solve(&self.jacobian, &self.low_rank, p)
    }
}

/// Add a stencil's normal and friction forces to the contact force (and to the reported
/// per-node forces).
fn add_stencil(
    force: &mut [f64],
    forces: &mut Option<(&mut [f64], &mut [f64])>,
    nodes: &[usize],
    normal: &[[f64; 3]],
    friction: &[[f64; 3]],
) {
    for (n, &i) in nodes.iter().enumerate() {
        for k in 0..3 {
            force[3 * i + k] += normal[n][k] + friction[n][k];
        }
        if let Some((fnorm, ffric)) = forces.as_mut() {
            for k in 0..3 {
                fnorm[3 * i + k] += normal[n][k];
                ffric[3 * i + k] += friction[n][k];
            }
        }
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

/// [`scatter`] for a stencil of any size (implicit-surface contacts).
fn scatter_dyn(
    jac: &mut SparseMatrix,
    free: &[usize],
    nodes: &[usize],
    dq: &nalgebra::DMatrix<f64>,
    dv: &nalgebra::DMatrix<f64>,
    c_q: f64,
    c_v: f64,
) {
    for r in 0..dq.nrows() {
        let fr = free[3 * nodes[r / 3] + r % 3];
        if fr == usize::MAX {
            continue;
        }
        for c in 0..dq.ncols() {
            let fc = free[3 * nodes[c / 3] + c % 3];
            if fc != usize::MAX {
                jac.add(fr, fc, -(c_q * dq[(r, c)] + c_v * dv[(r, c)]));
            }
        }
    }
}
