//! 001's "Iterative" solver (Algorithm 2): inexact damped Newton whose linear systems are solved by
//! BiCGSTAB with Eisenstat–Walker forcing, on Jacobian-vector products — so no Jacobian is ever
//! assembled or factored. The elements' part of a product: under block Jacobi, the node blocks
//! (`node_blocks`) summed once per Newton iterate from the element Hessians block Jacobi needs
//! anyway; under the Cholesky, element by element, tetrahedra applying ∂P/∂F in product form
//! taken once per Newton iterate (`Material::stress_linearization`) and the rest by forward-mode
//! AD of the residual code seeded with a direction (fixed co-rotated stress
//! `Material::pk1_generic`, the membrane's and hinge's `gradient_generic`). Contacts are always
//! forward-mode AD of their kernels (`contact::kernel`). The preconditioner is a sparse Cholesky
//! of the Jacobian's positive definite part (`stiffness_cholesky`) or, as 001 has it, block
//! Jacobi: the 3×3 diagonal block of each free node, from the node blocks and contact by contact.

use super::PenaltyPipeline;
use super::contacts::Stencil;
use super::newton::{NewtonOutcome, StageProblem};
use super::node_blocks::NodeBlocks;
use super::stiffness_cholesky::{StiffnessCholesky, chooses_cholesky};
use super::system::{StageSystem, System};
use crate::contact::kernel::{collider_force, collider_linearized, triangle_force, triangle_linearized};
use crate::energy::elastic::StressLinearization;
use crate::linalg::bicgstab::Bicgstab;
use crate::model::{Model, node_arr};
use crate::pipeline::StepStats;
use crate::scene::schema::IterativePreconditioner;
use nalgebra::{DMatrixView, Matrix3};
use num_dual::Dual64;
use rayon::prelude::*;
use std::time::Instant;

/// Forcing-term cap σ, Eisenstat–Walker exponent φ (001 Algorithm 2's defaults).
const SIGMA_MAX: f64 = 0.01;
const PHI: f64 = 1.618_033_988_749_895;

fn dual(x: [f64; 3], dx: [f64; 3]) -> [Dual64; 3] {
    std::array::from_fn(|k| Dual64::new(x[k], dx[k]))
}

/// Jacobian-vector products: the direction and its product buffers, O(nodes + elements).
pub struct MatrixFree {
    /// The direction on every DOF (kinematic ones 0).
    direction: Vec<f64>,
    /// The elements' stiffness as node blocks where the preconditioner computes their Hessians
    /// anyway (block Jacobi); then `elem_product` and `linearized` stay empty.
    blocks: Option<NodeBlocks>,
    /// Per element: the elastic Hessian times `dq_dv p` (12 entries).
    elem_product: Vec<[f64; 12]>,
    /// Per element: ∂P/∂F at `linearized_at` where it has a product form (`Element::linearize`):
    /// BiCGSTAB's products within one Newton iterate share it, so the stress's logarithm and
    /// cofactor are evaluated once per iterate, not once per product.
    linearized: Vec<Option<StressLinearization>>,
    linearized_at: Vec<f64>,
    /// d f_body and d f_contact along the direction (full length).
    d_body: Vec<f64>,
    d_contact: Vec<f64>,
    /// Dual positions and forces for the volume zones (empty without zones).
    q_dual: Vec<Dual64>,
    f_dual: Vec<Dual64>,
}

/// The block-Jacobi preconditioner: per node the inverse of its 3×3 diagonal block of J, the
/// stiffness part read from the products' node blocks.
pub struct BlockJacobi {
    inverse: Vec<Matrix3<f64>>,
}

/// BiCGSTAB's preconditioner (`newton.preconditioner`).
pub enum Preconditioner {
    BlockJacobi(BlockJacobi),
    Cholesky(Box<StiffnessCholesky>),
}

impl Preconditioner {
    /// Ready for the Newton iterate at `q`, `v`; `fresh` at a solve's first iteration.
    #[allow(clippy::too_many_arguments)]
    fn prepare(
        &mut self,
        sys: &System,
        model: &Model,
        stage: &StageSystem,
        q: &[f64],
        v: &[f64],
        fresh: bool,
        blocks: Option<&NodeBlocks>,
    ) {
        match self {
            Preconditioner::BlockJacobi(b) => {
                b.build(sys, model, stage, q, v, blocks.expect("block Jacobi's products hold node blocks"))
            }
            Preconditioner::Cholesky(c) => c.prepare(sys, model, stage, q, v, fresh),
        }
    }

    /// `out = K⁻¹ y` on free DOFs.
    fn apply(&self, free: &[usize], y: &[f64], out: &mut [f64]) {
        match self {
            Preconditioner::BlockJacobi(b) => b.apply(free, y, out),
            Preconditioner::Cholesky(c) => c.apply(y, out),
        }
    }
}

/// Everything `linear_solver: Iterative` keeps between solves (never the Jacobian).
pub struct IterativeSolver {
    products: MatrixFree,
    preconditioner: Preconditioner,
    krylov: Bicgstab,
}

impl IterativeSolver {
    pub fn new(model: &Model, system: &System, kind: IterativePreconditioner) -> IterativeSolver {
        // The symbolic analysis cannot fail on a pattern with its whole diagonal; block Jacobi
        // stands in if it ever does.
        let cholesky = match chooses_cholesky(model, system, kind) {
            true => StiffnessCholesky::new(system).ok(),
            false => None,
        };
        // Block Jacobi computes every element's Hessian at each Newton iterate: kept as node
        // blocks, they serve the products too.
        let node_blocks = cholesky.is_none();
        let preconditioner = match cholesky {
            Some(c) => Preconditioner::Cholesky(Box::new(c)),
            None => Preconditioner::BlockJacobi(BlockJacobi { inverse: vec![Matrix3::zeros(); model.node_count()] }),
        };
        IterativeSolver {
            products: MatrixFree::new(model, system, node_blocks),
            preconditioner,
            krylov: Bicgstab::new(system.n_free),
        }
    }
}

impl MatrixFree {
    /// Products by `node_blocks` or element by element.
    pub fn new(model: &Model, system: &System, node_blocks: bool) -> MatrixFree {
        let n = model.dof_count();
        let zoned = model.volume_zones().next().is_some();
        let per_elem = if node_blocks { 0 } else { system.elems.len() };
        MatrixFree {
            direction: vec![0.0; n],
            blocks: node_blocks.then(|| NodeBlocks::new(model.node_count(), &system.elem_nodes)),
            elem_product: vec![[0.0; 12]; per_elem],
            linearized: vec![None; per_elem],
            linearized_at: Vec::new(),
            d_body: vec![0.0; n],
            d_contact: vec![0.0; n],
            q_dual: if zoned { vec![Dual64::from(0.0); n] } else { Vec::new() },
            f_dual: if zoned { vec![Dual64::from(0.0); n] } else { Vec::new() },
        }
    }

    /// Ready for products at `q`: the node blocks assembled there, or the elements' ∂P/∂F.
    fn prepare(&mut self, sys: &System, model: &Model, stage: &StageSystem, q: &[f64]) {
        match &mut self.blocks {
            Some(b) => b.assemble(&sys.elems, model, q, stage.dq_dv, &sys.damping_k),
            None => self.linearize(sys, model, q),
        }
    }

    /// The elements' ∂P/∂F at `q`, recomputed only when `q` is not where they were taken.
    fn linearize(&mut self, sys: &System, model: &Model, q: &[f64]) {
        if self.linearized_at == q {
            return;
        }
        self.linearized_at.clear();
        self.linearized_at.extend_from_slice(q);
        let elems = sys.elems.par_iter();
        self.linearized.par_iter_mut().zip(elems).for_each(|(lin, el)| *lin = el.linearize(model, q));
    }

    /// `out = J p` on free DOFs at positions `q` and velocities `v` (the last evaluation's contacts
    /// and damping stiffness): `J p = d/dt r(v + t p)` with `q(v + t p) = q + t dq_dv p`, by the
    /// tetrahedra's product form and forward-mode AD elsewhere.
    #[allow(clippy::too_many_arguments)]
    pub fn jacobian_product(
        &mut self,
        sys: &System,
        model: &Model,
        stage: &StageSystem,
        q: &[f64],
        v: &[f64],
        p_free: &[f64],
        out: &mut [f64],
    ) {
        self.prepare(sys, model, stage, q);
        let full = &mut *self.direction;
        for (dof, &fi) in sys.free.iter().enumerate() {
            full[dof] = if fi == usize::MAX { 0.0 } else { p_free[fi] };
        }
        let (full, dq_dv) = (&*full, stage.dq_dv);
        let force = &mut *self.d_body;
        match &self.blocks {
            Some(blocks) => blocks.product(full, force),
            None => elements_product(sys, model, dq_dv, q, &self.linearized, &mut self.elem_product, full, force),
        }
        for (dof, f) in force.iter_mut().enumerate() {
            // -d f_body: the elastic and stiffness-damping part above, mass-proportional damping here.
            *f = -*f - sys.node_alpha[dof / 3] * model.node_mass[dof / 3] * full[dof];
        }
        if !self.q_dual.is_empty() {
            // The volume force π(V) ∇V differentiated whole: its dense rank-one part comes free.
            for (dof, qd) in self.q_dual.iter_mut().enumerate() {
                *qd = Dual64::new(q[dof], dq_dv * full[dof]);
            }
            self.f_dual.iter_mut().for_each(|f| *f = Dual64::from(0.0));
            for (_, zone) in model.volume_zones() {
                zone.add_force(&self.q_dual, &mut self.f_dual);
            }
            for (f, fd) in force.iter_mut().zip(&self.f_dual) {
                *f += fd.eps;
            }
        }
        let dforce_contact = &mut *self.d_contact;
        dforce_contact.iter_mut().for_each(|f| *f = 0.0);
        for entry in &sys.contacts {
            let lag = entry.lagged.as_ref();
            match entry.stencil {
                Stencil::Collider { node: i, collider } => {
                    let (c, at, vc) = stage.collider(model, collider);
                    let dx = node_arr(full, i);
                    let x = dual(node_arr(q, i), dx.map(|d| dq_dv * d));
                    let f = collider_force(c, &at, &vc, x, dual(node_arr(v, i), dx), &entry.params, lag);
                    for k in 0..3 {
                        dforce_contact[3 * i + k] += f.normal[0][k].eps + f.friction[0][k].eps;
                    }
                }
                Stencil::Triangle { nodes, feature, sign } => {
                    let dx = nodes.map(|i| node_arr(full, i));
                    let xs = std::array::from_fn(|n| dual(node_arr(q, nodes[n]), dx[n].map(|d| dq_dv * d)));
                    let vs = std::array::from_fn(|n| dual(node_arr(v, nodes[n]), dx[n]));
                    let f = triangle_force(feature, sign, &xs, &vs, &entry.params, lag);
                    for (n, &i) in nodes.iter().enumerate() {
                        for k in 0..3 {
                            dforce_contact[3 * i + k] += f.normal[n][k].eps + f.friction[n][k].eps;
                        }
                    }
                }
                Stencil::Implicit { index } => {
                    let (k, imp) = (index as usize, &sys.implicit);
                    let st = &imp.stencils[k];
                    let xs: Vec<_> =
                        st.nodes.iter().map(|&i| dual(node_arr(q, i), node_arr(full, i).map(|d| dq_dv * d))).collect();
                    let vs: Vec<_> = st.nodes.iter().map(|&i| dual(node_arr(v, i), node_arr(full, i))).collect();
                    if let Some(f) = st.force(&xs, &vs, imp.field(), &entry.params, lag) {
                        for (n, &i) in st.nodes.iter().enumerate() {
                            for c in 0..3 {
                                dforce_contact[3 * i + c] += f.normal[n][c].eps + f.friction[n][c].eps;
                            }
                        }
                    }
                }
            }
        }
        for (dof, &fi) in sys.free.iter().enumerate() {
            if fi != usize::MAX {
                out[fi] = model.node_mass[dof / 3] * full[dof]
                    - stage.bh.body * self.d_body[dof]
                    - stage.bh.contact * self.d_contact[dof];
            }
        }
    }
}

/// `out = Σ_e (dq_dv H_e + β_e D_e) p` element by element: the Hessian products by `linearized`
/// where given (tetrahedra), else by forward-mode AD, in parallel, then added serially.
#[allow(clippy::too_many_arguments)]
fn elements_product(
    sys: &System,
    model: &Model,
    dq_dv: f64,
    q: &[f64],
    linearized: &[Option<StressLinearization>],
    elem_product: &mut [[f64; 12]],
    full: &[f64],
    out: &mut [f64],
) {
    let elems = sys.elems.par_iter().zip(sys.elem_nodes.par_iter()).zip(linearized.par_iter());
    elem_product.par_iter_mut().zip(elems).for_each(|(hp, ((el, nodes), lin))| {
        let dq = nodes.map(|i| node_arr(full, i).map(|d| dq_dv * d));
        *hp = el.hessian_product(model, q, lin.as_ref(), &dq);
    });
    out.iter_mut().for_each(|f| *f = 0.0);
    for (k, el) in sys.elems.iter().enumerate() {
        let nodes = sys.elem_nodes[k];
        let beta = el.beta(model);
        let kp = if beta > 0.0 {
            let pe = nalgebra::SVector::<f64, 12>::from_fn(|r, _| full[3 * nodes[r / 3] + r % 3]);
            sys.damping_k[k] * pe * beta
        } else {
            nalgebra::SVector::zeros()
        };
        for r in 0..12 {
            out[3 * nodes[r / 3] + r % 3] += elem_product[k][r] + kp[r];
        }
    }
}

impl BlockJacobi {
    /// Inverses of the 3×3 diagonal blocks of `J` per node (block Jacobi), from element Hessians
    /// and the contact kernels' linearizations at `q`, `v`. A block that cannot be inverted falls
    /// back to the inverse of its diagonal.
    pub fn build(
        &mut self,
        sys: &System,
        model: &Model,
        stage: &StageSystem,
        q: &[f64],
        v: &[f64],
        node_blocks: &NodeBlocks,
    ) {
        let (bh, dq_dv) = (stage.bh, stage.dq_dv);
        let blocks = &mut self.inverse;
        for (i, b) in blocks.iter_mut().enumerate() {
            *b = Matrix3::identity() * model.node_mass[i] * (1.0 + bh.body * sys.node_alpha[i]);
        }
        for (i, b) in blocks.iter_mut().enumerate() {
            *b += node_blocks.diagonal(i) * bh.body;
        }
        for (k, (_, zone)) in model.volume_zones().enumerate() {
            // The rank-one term's diagonal blocks −b h a h π' g_i g_iᵀ (∇²V has zero diagonal blocks).
            let c = -bh.body * dq_dv * zone.pressure_slope(sys.zone_volumes[k]);
            let mut grad = vec![0.0; q.len()];
            zone.volume_gradient(q, &mut grad);
            for i in zone.triangles.iter().flatten().copied().collect::<std::collections::BTreeSet<_>>() {
                let g = crate::model::node(&grad, i);
                blocks[i] += g * g.transpose() * c;
            }
        }
        contact_blocks(sys, model, stage, q, v, |nodes, d| {
            for (n, &i) in nodes.iter().enumerate() {
                blocks[i] += d.fixed_view::<3, 3>(3 * n, 3 * n);
            }
        });
        for b in blocks.iter_mut() {
            *b = b.try_inverse().unwrap_or_else(|| Matrix3::from_diagonal(&b.diagonal().map(|d| 1.0 / d)));
        }
    }

    /// `out = K⁻¹ y` (free DOFs).
    fn apply(&self, free: &[usize], y: &[f64], out: &mut [f64]) {
        for (i, b) in self.inverse.iter().enumerate() {
            let f = free[3 * i];
            if f == usize::MAX {
                continue;
            }
            let r = b * nalgebra::Vector3::new(y[f], y[f + 1], y[f + 2]);
            out[f..f + 3].copy_from_slice(r.as_slice());
        }
    }
}

/// Each contact's block of `J`, `−(b_c h a h ∂f/∂q + b_c h ∂f/∂v)` at `q`, `v`, on its stencil's
/// nodes (3 per node, column-major), handed to `add(nodes, block)`: the contact part of the
/// block-Jacobi and Cholesky preconditioners.
pub(super) fn contact_blocks(
    sys: &System,
    model: &Model,
    stage: &StageSystem,
    q: &[f64],
    v: &[f64],
    mut add: impl FnMut(&[usize], DMatrixView<f64>),
) {
    let (c_q, c_v) = (stage.bh.contact * stage.dq_dv, stage.bh.contact);
    for entry in &sys.contacts {
        let lag = entry.lagged.as_ref();
        match entry.stencil {
            Stencil::Collider { node: i, collider } => {
                let (c, at, vc) = stage.collider(model, collider);
                let lin = collider_linearized(c, &at, &vc, node_arr(q, i), node_arr(v, i), &entry.params, lag);
                let d = -(lin.dq * c_q + lin.dv * c_v);
                add(&[i], DMatrixView::from_slice(d.as_slice(), 3, 3));
            }
            Stencil::Triangle { nodes, feature, sign } => {
                let xs = nodes.map(|i| node_arr(q, i));
                let vs = nodes.map(|i| node_arr(v, i));
                let lin = triangle_linearized(feature, sign, &xs, &vs, &entry.params, lag);
                let d = -(lin.dq * c_q + lin.dv * c_v);
                add(&nodes, DMatrixView::from_slice(d.as_slice(), 12, 12));
            }
            Stencil::Implicit { index } => {
                let (k, imp) = (index as usize, &sys.implicit);
                let st = &imp.stencils[k];
                let lin = st.linearized(&imp.gather(k, q), &imp.gather(k, v), imp.field(), &entry.params, lag);
                if let Some((_, _, dq, dv)) = lin {
                    let d = -(dq * c_q + dv * c_v);
                    add(&st.nodes, d.as_view());
                }
            }
        }
    }
}

impl PenaltyPipeline {
    /// Inexact damped Newton (001 Algorithm 2) from the initial guess in `v`: BiCGSTAB to the
    /// forcing term `σ_k = min(σ, (|r_k| / |r_k-1|)^φ)` on matrix-free products, and backtracking
    /// until `|r(v + α p)| <= (1 − c1 α (1 − σ_k)) |r(v)|`. Norms are the acceleration-weighted
    /// ones of the stopping test, so the forcing term and the line search measure the same thing.
    pub(super) fn newton_matrix_free(
        &mut self,
        model: &Model,
        prob: &StageProblem,
        v: &mut [f64],
        stats: &mut StepStats,
    ) -> NewtonOutcome {
        let spec = self.spec.newton;
        let mut out = NewtonOutcome { iterations: 0, line_search_steps: 0, residual: f64::INFINITY, failure: None };
        let mut previous: Option<f64> = None;
        let n = self.system.n_free;
        let (mut rhs, mut scale, mut unscaled) = (vec![0.0; n], vec![0.0; n], vec![0.0; n]);
        for (dof, &fi) in self.system.free.iter().enumerate() {
            if fi != usize::MAX {
                scale[fi] = 1.0 / (model.node_mass[dof / 3] * prob.sys.bh.body.max(prob.sys.bh.contact));
            }
        }
        loop {
            let Some((res, merit)) = self.next_iterate(model, prob, v, false, &mut out, stats) else { return out };
            let sigma = previous.map_or(SIGMA_MAX, |prev| (merit / prev).powf(PHI).min(SIGMA_MAX));
            previous = Some(merit);
            let start = Instant::now();
            for ((b, r), w) in rhs.iter_mut().zip(&self.system.residual).zip(&scale) {
                *b = -r * w;
            }
            let IterativeSolver { products, preconditioner, krylov } =
                self.iterative.get_or_insert_with(|| IterativeSolver::new(model, &self.system, spec.preconditioner));
            let (system, q) = (&self.system, &self.q);
            if out.iterations == 0
                && let Some(b) = &mut products.blocks
            {
                b.invalidate();
            }
            products.prepare(system, model, &prob.sys, q);
            let blocks = products.blocks.as_ref();
            preconditioner.prepare(system, model, &prob.sys, q, v, out.iterations == 0, blocks);
            // BiCGSTAB on the scaled system (W J) p = -W r, W = diag(1 / (m b h)).
            let info = krylov.solve(
                |y, o| {
                    products.jacobian_product(system, model, &prob.sys, q, v, y, o);
                    o.iter_mut().zip(&scale).for_each(|(oi, w)| *oi *= w);
                },
                |y, o| {
                    // (W J)⁻¹ ≈ B⁻¹ W⁻¹: undo the row scaling before the blocks of J.
                    o.iter_mut().zip(y).zip(&scale).for_each(|((oi, yi), w)| *oi = yi / w);
                    unscaled.copy_from_slice(o);
                    preconditioner.apply(&system.free, &unscaled, o)
                },
                &rhs,
                &mut self.dir,
                sigma,
                spec.max_linear_iterations,
            );
            if let Preconditioner::Cholesky(c) = preconditioner {
                c.observe(info.iterations);
                stats.factorizations += std::mem::take(&mut c.factorizations);
            }
            stats.linear_solve_s += start.elapsed().as_secs_f64();
            stats.linear_iterations += info.iterations;
            out.iterations += 1;
            let dir = std::mem::take(&mut self.dir);
            let accepted =
                self.line_search(model, prob, v, &dir, merit, |a| 1.0 - spec.armijo * a * (1.0 - sigma), stats);
            let step_inf = accepted.map_or(0.0, |(a, ..)| a) * dir.iter().fold(0.0f64, |m, d| m.max(d.abs()));
            self.dir = dir;
            let Some((_, steps, reached)) = accepted else {
                out.line_search_steps += spec.max_line_search_steps + 1;
                out.failure = Some(format!(
                    "line search found no decrease in {} halvings (residual {res:.3e} m/s^2; BiCGSTAB reached {:.2e} of the forcing term {sigma:.2e} in {} iterations)",
                    spec.max_line_search_steps, info.relative_residual, info.iterations
                ));
                return out;
            };
            out.line_search_steps += steps;
            v.copy_from_slice(&self.v_trial);
            // Converged at the line search's iterate (see `newton`).
            if reached <= spec.residual_tolerance {
                out.residual = reached;
                return out;
            }
            if step_inf <= spec.step_tolerance {
                return self.stalled(model, prob, v, step_inf, out, stats);
            }
        }
    }
}
