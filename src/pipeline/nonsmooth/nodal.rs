//! The nonsmooth step of nodal thin bodies (cloth and rods), 004's projected Newton: each of a
//! fixed number of Newton iterations linearizes backward Euler at the current velocity iterate,
//! `A v = f + H r` with `A = M + h² K` (K the PSD-projected or Gauss–Newton Hessian of the
//! elastic energy), and solves that linearized frictional contact problem exactly with the
//! nodal ADMM + Gauss–Seidel solver (`dfcp::admm`, 004 Algorithms 2–3), warm-started from the
//! previous iterate and step.
//!
//! Contacts are found once per step at the start positions, within a margin covering the
//! step's travel: nodes against the analytic colliders, and vertex–triangle / edge–edge
//! proximity between and within cloths and rods (`contact::nodal`). Each is a weighted
//! combination of nodes (004's nodal assumption), linearized at velocity level: the gap may
//! close within the step (`u_N + gap/h >= 0`). After the solve, continuous collision detection
//! over the step checks every mesh pair; pairs that would pass through each other are added as
//! contacts and the step re-solved, and if any impact remains the step is cut at the first
//! time of impact, so nothing tunnels.
//!
//! **Anisotropic friction.** When a contact's material pair has matchstick coefficients
//! (`mu_t`, `mu_b`, 003) and at least one side has a structure direction, the contact gets the
//! elliptic cone and frame of [`MatchstickPair::resolve`] (both sides structured: the
//! alignment rule of 003; one side: the extreme ellipse along it, a fibre being anisotropic
//! against any surface). Structure directions, at the step's start positions:
//! - rods: the tangent — at a node the bisector of its two edges (sum of the unit edge
//!   vectors), on an edge the edge itself (friction along vs across the fibre);
//! - cloth and tet solids with `structure`: each (boundary) triangle carries its rest
//!   direction mapped by its deformation
//!   gradient, `F s`; a contact on a triangle's interior uses that triangle's, a node the
//!   rest-area-weighted mean of its triangles', an edge the contact-weighted mean of its nodes';
//! - colliders (Plane, Box) and rigid bodies: their `structure`.
//!
//! Otherwise the cone is the isotropic `mu` in the contact's default frame, bit for bit as
//! without anisotropy. Every solver of the step takes elliptic cones: ADMM's projection uses
//! the closed form only for isotropic contacts and the exact full-block local solver otherwise,
//! the Delassus-form local solvers scale elliptic contacts exactly, and the reported error is
//! the natural map of the elliptic cone (in the scaled variables of `friction::cone`).

// Nodal kernels index several parallel arrays (positions, velocities, free-dof map) with one counter.
#![allow(clippy::needless_range_loop)]

use super::super::StepStats;
use super::admm_integrator::{ElasticSplit, StepSplit};
use super::attached::Roots;
use super::global_islands;
use super::joint_map::JointMap;
use super::nodal_elastic::ElasticAssembly;
use crate::contact::nodal::{
    CcdOptions, ContactKind, ContactMesh, ContactMeshBuilder, Detector, NodalContact, impact_contacts,
};
use crate::contact::rigid::{Participant, frame};
use crate::dfcp::admm::{self, AdmmParams};
use crate::dfcp::cohesion::Cohesion;
use crate::dfcp::compliance::Compliance;
use crate::dfcp::contact_scaling::ContactScaling;
use crate::dfcp::global_reduction::Reduced;
use crate::dfcp::problem::{Csc, GlobalProblem};
use crate::dfcp::residual::global_error;
use crate::dfcp::solver::SolverOptions;
use crate::friction::cone::Cone;
use crate::friction::matchstick::MatchstickPair;
use crate::model::{Model, State, node};
use crate::rigid::RigidBody;
use crate::scene::schema::{AdmmLinearSpec, AdmmWeightsSpec, DfcpSolverSpec, NodalIntegratorSpec, NonsmoothSpec};
use faer::sparse::Triplet;
use nalgebra::{Matrix3, SMatrix, Vector3};
use std::collections::HashMap;
use std::time::Instant;

/// Solve the linearized problem: ADMM on the global form, or any local solver on its Delassus
/// form (`A` factorized once, `W = Hᵀ A⁻¹ H`), with the global error reported; with `islands`,
/// each group of unknowns no matrix entry or contact joins on its own (`global_islands`).
#[allow(clippy::too_many_arguments)]
fn solve_global(
    solver: DfcpSolverSpec,
    islands: bool,
    g: &GlobalProblem,
    r: &mut Vec<f64>,
    v: &mut [f64],
    opts: &SolverOptions,
    prm: &AdmmParams,
    cache: &mut admm::AdmmCache,
    detection: Option<admm::Detection<'_>>,
    split: Option<&mut dyn admm::Splitting>,
) -> anyhow::Result<(crate::dfcp::solver::SolveReport, f64, usize)> {
    if solver == DfcpSolverSpec::Admm {
        // 004's δ∞ rule, when the scene sets it, accepts the solve; the measured error stays
        // in the report and the step's statistics.
        let mut out = admm::solve_detecting(g, r, v, opts, prm, cache, detection, split)?;
        out.report.converged |= out.delta_inf_met;
        return Ok((out.report, out.projection_s, out.linear_iterations));
    }
    if split.is_some() {
        anyhow::bail!("the ADMM integrator needs `solver: Admm`");
    }
    if solver == DfcpSolverSpec::NlIca {
        return Ok((crate::dfcp::nl_ica::solve(g, r, v, opts), 0.0, 0));
    }
    let parts = if islands { global_islands::split(g) } else { Vec::new() };
    if parts.len() > 1 {
        let rep = global_islands::solve(g, &parts, r, v, |sub, r, v| by_delassus(solver, sub, r, v, opts));
        return Ok((rep, 0.0, 0));
    }
    Ok((by_delassus(solver, g, r, v, opts)?, 0.0, 0))
}

/// [`solve_global`] by the Delassus form: the local problem solved to a tenth of the tolerance,
/// then once more from there if the global measure still misses it.
fn by_delassus(
    solver: DfcpSolverSpec,
    g: &GlobalProblem,
    r: &mut [f64],
    v: &mut [f64],
    opts: &SolverOptions,
) -> anyhow::Result<crate::dfcp::solver::SolveReport> {
    let red = Reduced::new(g)?;
    if g.nc() == 0 {
        // No contact: nothing to solve but the velocities, exactly.
        red.velocity(g, r, v);
        return Ok(crate::dfcp::solver::SolveReport::no_contacts());
    }
    let mut u = vec![0.0; r.len()];
    // The local error bounds the global natural-map part; the equation part is at round-off
    // after the back-substitution. Tightened by 10x so that the global measure meets `tol`.
    let mut local = SolverOptions { tol: opts.tol * 0.1, ..opts.clone() };
    // One scaling for the local solves and the global measure (`dfcp::contact_scaling`).
    let scaling = ContactScaling::of(&red.local);
    let scaled = scaling.global(g)?;
    let mut r_scaled = vec![0.0; r.len()];
    let mut error = |r: &[f64], v: &[f64]| {
        r_scaled.copy_from_slice(r);
        scaling.to_scaled_impulse(&mut r_scaled);
        global_error(&scaled, &r_scaled, v)
    };
    let mut rep = super::solve_scaled(solver, &red.local, &scaling, r, &mut u, &local);
    if !rep.converged && solver == DfcpSolverSpec::Auto {
        // Many contacts on few unknowns make `W` singular: a reduced stool coming to rest on the
        // 100 contacts of its feet (W 300 x 300 of rank 18) stalls FB Newton at 1.1e-6 from both
        // starts and the local ADMM at 1.4e-5 after 10,000 iterations. The proximal point
        // method's inner Newton solves on `W + αI` are regular there (8 outer iterations, 65 to
        // 475 Newton steps, from zero). Kept out of `auto` itself: in a rigid capsule funnel it
        // took steps that `auto` had failed and flung a capsule out at 110 m/s.
        let pp = super::solve_scaled(DfcpSolverSpec::ProximalPoint, &red.local, &scaling, r, &mut u, &local);
        let message = format!("{}; then prox-point: {}", rep.message, pp.message);
        rep = crate::dfcp::solver::SolveReport { iterations: rep.iterations + pp.iterations, message, ..pp };
    }
    red.velocity(g, r, v);
    let mut e = error(r, v);
    // The two measures are scaled differently; tighten once more (from where it stopped) if the
    // global one is still above the tolerance.
    if e.total > opts.tol && rep.converged {
        local.tol = rep.residual_rel.min(local.tol) * 0.5 * opts.tol / e.total;
        let more = super::solve_scaled(solver, &red.local, &scaling, r, &mut u, &local);
        let prox = crate::dfcp::solver::ProxCounts::add(rep.prox, more.prox);
        rep = crate::dfcp::solver::SolveReport { iterations: rep.iterations + more.iterations, prox, ..more };
        red.velocity(g, r, v);
        e = error(r, v);
    }
    rep.residual_abs = e.natmap_abs;
    rep.residual_rel = e.total;
    rep.converged = e.total <= opts.tol;
    Ok(rep)
}

/// The scene's ADMM settings; δ∞ is a length in the scene (004) and a velocity in the solver.
/// `bodies_apart`: no matrix entry joins two bodies' unknowns, so `Auto` takes the per-object
/// Cholesky, which is then exact (measured by `scripts/admm_linear.py`: the same iterates, 1.8x
/// less global-step time on 16 bunnies, 1.1x on 4000 hairs, equal on one body); where bodies
/// are coupled it would be CG, 6.4x slower than one Cholesky on the furry bunny.
fn admm_params(
    spec: &NonsmoothSpec,
    h: f64,
    mass: &admm::DofMass,
    labels: &admm::DofLabels,
    bodies_apart: bool,
) -> AdmmParams {
    let a = &spec.admm;
    AdmmParams {
        linear: linear_solve(spec, bodies_apart),
        tau_ls: a.tau_ls,
        labels: Some(labels.clone()),
        mass: (a.weights == AdmmWeightsSpec::Mass).then(|| mass.clone()),
        block_weights: a.weights == AdmmWeightsSpec::Blocks,
        gs_sweeps: a.gs_sweeps,
        eps_inf: a.delta_inf.map(|d| d / h),
        sleeping: a.sleeping,
        accelerated: a.accelerated,
        weight_scale: a.contact_weight,
        // 004 §5.1: λ carries over between Newton iterations and steps (measured: 55 → 40
        // iterations per step on cloth_on_box, 19 → 9 on mixed_drop, 34 → 9 on the ADMM rope).
        carry_lambda: true,
        ..AdmmParams::default()
    }
}

/// How the scene asks ADMM's global step (and the contact-free solve) to be solved.
fn linear_solve(spec: &NonsmoothSpec, bodies_apart: bool) -> admm::LinearSolve {
    match spec.admm.linear_solver {
        AdmmLinearSpec::Auto if bodies_apart => admm::LinearSolve::Objects,
        AdmmLinearSpec::Auto | AdmmLinearSpec::Cholesky => admm::LinearSolve::Cholesky,
        AdmmLinearSpec::Objects => admm::LinearSolve::Objects,
        AdmmLinearSpec::Jacobi => admm::LinearSolve::Jacobi,
    }
}

/// One label per unknown for ADMM's per-object global step: a nodal unknown takes its scene
/// body's index, each dynamic rigid body and then each reduced body a label of its own (their
/// unknowns follow the nodal ones in that order).
fn object_labels(
    model: &Model,
    free: &[usize],
    n_free: usize,
    roots: &Roots,
    rigid_off: &[usize],
    n_total: usize,
) -> Vec<u32> {
    let mut body = vec![0u32; n_free];
    for (d, &fi) in free.iter().enumerate().filter(|(_, fi)| **fi != usize::MAX) {
        body[fi] = model.node_body[d / 3] as u32;
    }
    let mut labels = Vec::with_capacity(n_total);
    roots.restrict(&body, &mut labels);
    // Past any scene body's index.
    let mut next = model.node_body.iter().filter(|&&b| b != usize::MAX).max().map_or(0, |b| b + 1) as u32;
    for _ in rigid_off.iter().filter(|&&o| o != usize::MAX) {
        labels.extend([next; 6]);
        next += 1;
    }
    for b in &model.reduced {
        labels.extend(std::iter::repeat_n(next, b.dofs()));
        next += 1;
    }
    debug_assert_eq!(labels.len(), n_total, "one label per unknown");
    labels
}

/// The isotropic cone of a pair (validated coefficients; a frictionless cone if one is not).
fn iso_cone(mu: f64) -> Cone {
    Cone::isotropic(mu).unwrap_or(Cone { mu_t: 0.0, mu_b: 0.0 })
}

/// One contact of the step: weighted nodes, frame, gap, cone, known velocity part.
struct Contact {
    nodes: [usize; 4],
    weights: [f64; 4],
    frame: Matrix3<f64>,
    gap: f64,
    cone: Cone,
    /// The pair's cohesive force at this gap (N; 0 for a non-cohesive pair).
    cohesion: f64,
    /// The pair's compliance (m/N; 0 for a rigid contact).
    compliance: f64,
    /// Known relative velocity (collider motion) in world axes.
    known: Vector3<f64>,
    /// Warm-start key.
    key: (u8, usize, usize),
    /// Rows on dynamic rigid bodies: `(body, Fᵀ J)` with the participant's sign.
    rigid: [Option<(usize, SMatrix<f64, 3, 6>)>; 2],
    /// World contact point (for output; those of contacts with a rigid body are reported).
    point: Vector3<f64>,
}

/// What the nodal step carries from one step to the next: contact forces by contact key (warm
/// starts), ADMM's multiplier, and the ADMM integrator's elements and their consensus and dual.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Carried {
    warm: Vec<((u8, usize, usize), [f64; 3])>,
    lambda: Vec<f64>,
    split: Option<super::admm_integrator::SplitSaved>,
}

pub struct NodalStep {
    /// Free index of every dof (`usize::MAX` for kinematic nodes' dofs).
    free: Vec<usize>,
    n_free: usize,
    /// Nodes of cloth and rods, their contact radius and material.
    thin_nodes: Vec<(usize, f64, usize)>,
    node_material: Vec<usize>,
    mesh: Option<ContactMesh>,
    detector: Detector,
    warm: HashMap<(u8, usize, usize), Vector3<f64>>,
    /// Per-node contact and friction forces of the last step (N).
    pub forces: (Vec<f64>, Vec<f64>),
    /// The last step's contacts with a rigid body, with their forces (N): those carry no node
    /// for `forces` to hold them.
    pub rigid_points: Vec<super::super::ContactPoint>,
    elastic: ElasticAssembly,
    /// Symbolic Cholesky of `M + h² K` for contact-free solves, with the pattern it analysed
    /// (which changes only with the joints' motor set).
    llt: Option<(Vec<usize>, Vec<usize>, faer::sparse::linalg::solvers::SymbolicLlt<usize>)>,
    /// The same per component of `M + h² K`, under ADMM's per-object global step.
    free_objects: crate::linalg::object_cholesky::ObjectCholesky,
    admm: admm::AdmmCache,
    /// Per rigid body: offset of its 6 velocity unknowns after the nodal ones (`usize::MAX` for a
    /// scripted body); rigid bodies share the global problem with the nodal bodies.
    rigid_off: Vec<usize>,
    /// Unknowns of the global problem: the nodal free dofs less the roots riding on dynamic
    /// bodies, then 6 per dynamic body.
    n_total: usize,
    /// Rod roots riding on dynamic rigid bodies, eliminated onto the bodies' unknowns.
    roots: Roots,
    /// The joints, eliminated onto the velocities they allow (`joint_map`); empty without.
    joints: JointMap,
    /// Per rigid body: its predicted velocity of this step, whose momentum `M v_pred` every
    /// Newton iteration's right-hand side carries (the body's own velocity holds the iterate).
    rigid_pred: Vec<nalgebra::SVector<f64, 6>>,
    /// Penetration recovery of rigid contacts (see `NonsmoothSpec`).
    erp: f64,
    slop: f64,
    /// Whether any material pair is anisotropic (else no structure is computed).
    aniso: bool,
    /// Per node: its structure direction at the step's start (zero: none). See the module doc.
    node_dir: Vec<Vector3<f64>>,
    /// Per node: whether it is a rod node (a rod edge's structure is the edge itself).
    rod_node: Vec<bool>,
    /// Per contact-mesh triangle: its nodes and structure coefficients on its rest edges
    /// (`model::triangle_structure`), if it belongs to a structured cloth or solid boundary.
    mesh_structure: Vec<Option<([usize; 3], [f64; 2])>>,
    /// The ADMM integrator's per-element state (`nodal_integrator: Admm`), built at its first step.
    split: Option<ElasticSplit>,
    /// The nodal mass per unknown of the global problem (rigid bodies' unknowns not included),
    /// the `m_j` of 004's ADMM weights.
    dof_mass: admm::DofMass,
    /// Per unknown, the object it belongs to (ADMM's per-object global step).
    dof_labels: admm::DofLabels,
    /// The reduced bodies' elastic energy at the last assembly.
    reduced_energy: f64,
    /// The rods' edge angles: quasistatic or dynamic (`rod_twist`).
    twist: super::rod_twist::RodTwist,
}

impl NodalStep {
    pub fn saved(&self) -> Carried {
        Carried {
            warm: crate::checkpoint::sorted(&self.warm).into_iter().map(|(k, f)| (k, f.into())).collect(),
            lambda: self.admm.carried_lambda().to_vec(),
            split: self.split.as_ref().map(ElasticSplit::saved),
        }
    }

    pub fn restore(&mut self, c: Carried) -> Result<(), String> {
        self.warm = c.warm.into_iter().map(|(k, f)| (k, f.into())).collect();
        self.admm.set_carried_lambda(c.lambda);
        self.split = c.split.map(|s| ElasticSplit::restored(s, self.elastic.stencils().len())).transpose()?;
        Ok(())
    }

    pub fn new(model: &Model) -> Result<NodalStep, String> {
        let (free, n_free) = model.free_dofs();
        let mut node_material = vec![0; model.node_count()];
        let mut thin_nodes = Vec::new();
        let mut builder = ContactMeshBuilder::new();
        // Contact-mesh triangles are numbered in insertion order: solids' surfaces, then cloths,
        // then mesh colliders.
        let mut mesh_structure = Vec::new();
        let structured = |tris: &[[usize; 3]], coeffs: &[[f64; 2]]| -> Vec<Option<([usize; 3], [f64; 2])>> {
            (0..tris.len()).map(|k| coeffs.get(k).map(|c| (tris[k], *c))).collect()
        };
        let mut rod_node = vec![false; model.node_count()];
        for solid in &model.solids {
            mesh_structure.extend(structured(&solid.surface, &solid.structure));
            for i in solid.nodes.clone() {
                node_material[i] = solid.material;
            }
            // Surface vertices touch colliders at the surface itself (no thickness).
            thin_nodes.extend(solid.surface_nodes.iter().map(|&i| (i, 0.0, solid.material)));
            let obj = builder.add_object(false);
            builder.add_surface(obj, &solid.surface, 0.0).map_err(|e| format!("solid '{}': {e}", solid.name))?;
        }
        for c in &model.cloths {
            mesh_structure.extend(structured(&c.triangles, &c.structure));
            for i in c.nodes.clone() {
                node_material[i] = c.material;
                thin_nodes.push((i, 0.5 * c.thickness, c.material));
            }
            let obj = builder.add_object(c.self_contact);
            builder
                .add_surface(obj, &c.triangles, 0.5 * c.thickness)
                .map_err(|e| format!("cloth '{}': {e}", c.name))?;
        }
        for b in &model.rod_bundles {
            for i in b.nodes.clone() {
                node_material[i] = b.material;
                rod_node[i] = true;
                thin_nodes.push((i, b.radius, b.material));
            }
            let obj = builder.add_object(b.self_contact);
            for r in &b.rods {
                let nodes: Vec<usize> = (r.first..r.first + r.len).collect();
                builder.add_rod(obj, &nodes, b.radius).map_err(|e| format!("rods '{}': {e}", b.name))?;
            }
        }
        // Mesh colliders: prescribed one-sided surfaces (their contacts with themselves are pairs
        // of prescribed nodes, left out).
        let surfaces = model.mesh_colliders.iter().filter(|m| !m.nodes.is_empty());
        for m in surfaces.clone() {
            mesh_structure.extend(std::iter::repeat_n(None, m.node_triangles.len()));
            for i in m.nodes.clone() {
                node_material[i] = m.material;
            }
            let obj = builder.add_one_sided_object();
            builder.add_surface(obj, &m.node_triangles, 0.0).map_err(|e| format!("mesh collider '{}': {e}", m.name))?;
        }
        let has_mesh = !model.solids.is_empty()
            || !model.cloths.is_empty()
            || !model.rod_bundles.is_empty()
            || surfaces.count() > 0;
        let mesh = if has_mesh { Some(builder.build().map_err(|e| e.to_string())?) } else { None };
        if let Some(m) = &mesh {
            // The numbering assumed above; a mismatch would attach structures to wrong triangles.
            let ok = m.triangle_count() == mesh_structure.len()
                && mesh_structure.iter().enumerate().all(|(t, s)| s.is_none_or(|(tri, _)| m.triangle(t as u32) == tri));
            if !ok {
                return Err("internal: contact-mesh triangles are not in body order".into());
            }
        }
        let elastic = ElasticAssembly::new(model, &free, n_free)?;
        let (roots, rigid_off, n_total) = Roots::new(model, &free, n_free);
        let mut free_mass = vec![0.0; n_free];
        for (d, &fi) in free.iter().enumerate() {
            if fi != usize::MAX {
                free_mass[fi] = model.node_mass[d / 3];
            }
        }
        let mut dof_mass = Vec::with_capacity(n_total);
        roots.restrict(&free_mass, &mut dof_mass);
        let dof_labels = admm::DofLabels(object_labels(model, &free, n_free, &roots, &rigid_off, n_total).into());
        let (erp, slop) = match &model.pipeline {
            crate::scene::schema::PipelineSpec::Nonsmooth(s) => (s.penetration_correction, s.allowed_penetration),
            _ => (0.0, 0.0),
        };
        Ok(NodalStep {
            reduced_energy: 0.0,
            twist: super::rod_twist::RodTwist::new(model),
            split: None,
            dof_mass: admm::DofMass(dof_mass.into()),
            dof_labels,
            aniso: model.friction.any_anisotropy(),
            node_dir: vec![Vector3::zeros(); model.node_count()],
            rod_node,
            mesh_structure,
            erp,
            slop,
            rigid_off,
            n_total,
            roots,
            joints: JointMap::default(),
            rigid_pred: Vec::with_capacity(model.rigids.len()),
            elastic,
            llt: None,
            free_objects: Default::default(),
            admm: admm::AdmmCache::default(),
            free,
            n_free,
            thin_nodes,
            node_material,
            mesh,
            detector: Detector::new(),
            warm: HashMap::new(),
            forces: (vec![0.0; model.dof_count()], vec![0.0; model.dof_count()]),
            rigid_points: Vec::new(),
        })
    }

    fn contacts(&mut self, model: &Model, x: &[f64], v: &[f64], t: f64, h: f64, margin: f64) -> Vec<Contact> {
        let mut out = Vec::new();
        for (k, col) in model.colliders.iter().enumerate() {
            let at = col.placement(t);
            // Mean step velocity of the collider's surface point at a world position (uniform for
            // a translating collider; a turning one drags what touches it).
            let field = col.motion.step(t, h).field_at_start();
            for &(i, radius, mat) in &self.thin_nodes {
                // A prescribed node against a prescribed collider: nothing the solve can change
                // (e.g. fixed roots resting on a core); such a contact would only cost sweeps.
                if self.free[3 * i] == usize::MAX {
                    continue;
                }
                let xi = node(x, i);
                let reach = margin + h * (node(v, i).norm() + field.at(&xi).norm());
                if let Some(r) = col.bounding_radius()
                    && (xi - at.center).norm() > r + radius + reach
                {
                    continue;
                }
                let (d, n) = col.signed_distance(&at, [xi.x, xi.y, xi.z]);
                let gap = d - radius;
                if gap < reach {
                    let n = Vector3::from(n);
                    // The surface point under the node, and the collider's structure there.
                    let surface = xi - n * d;
                    let structure = model.collider_structure_at(k, &surface, t).unwrap_or_else(Vector3::zeros);
                    let (frame, cone) =
                        self.friction(model, (mat, col.material), frame(&n), self.node_dir[i], structure);
                    let vc = field.at(&surface);
                    out.push(Contact {
                        nodes: [i; 4],
                        weights: [1.0, 0.0, 0.0, 0.0],
                        frame,
                        gap,
                        cone,
                        cohesion: model.friction.cohesion(mat, col.material, gap),
                        compliance: model.friction.compliance(mat, col.material),
                        known: -vc,
                        key: (0, i, k),
                        rigid: [None, None],
                        point: surface,
                    });
                }
            }
        }
        if let Some(mesh) = &self.mesh {
            let surfaces = model.mesh_colliders.iter().flat_map(|m| m.nodes.clone());
            let moving = self.thin_nodes.iter().map(|&(i, _, _)| i).chain(surfaces);
            let vmax = moving.map(|i| node(v, i).norm()).fold(0.0, f64::max);
            // A detection failure (non-finite positions) is caught by the state check after the step.
            let found = self.detector.proximity(mesh, x, margin + 2.0 * h * vmax).unwrap_or_default();
            // Pairs of prescribed nodes only are left out, as above.
            out.extend(found.iter().filter(|c| self.moves(c)).map(|c| self.mesh_contact(model, x, c, t)));
        }
        out
    }

    /// Contacts of the rigid bodies: with each other and the colliders (shared with the rigid
    /// pipeline's detection), and with every contact node (a node as a ball of its thickness).
    fn rigid_contacts(
        &self,
        model: &Model,
        bodies: &[RigidBody],
        x: &[f64],
        t: f64,
        h: f64,
        margin: f64,
    ) -> Vec<Contact> {
        let mut out = Vec::new();
        let block = |p: Participant, point: &Vector3<f64>, frame: &Matrix3<f64>, sign: f64| match p {
            Participant::Body(i) if self.rigid_off[i] != usize::MAX => {
                Some((i, frame.transpose() * bodies[i].point_jacobian(point) * sign))
            }
            _ => None,
        };
        // Dynamic bodies are unknowns; scripted bodies and colliders move at known velocities.
        let known = |p: Participant, point: &Vector3<f64>| match p {
            Participant::Body(i) if self.rigid_off[i] != usize::MAX => Vector3::zeros(),
            _ => super::assemble::participant_velocity(model, bodies, p, point, t, h),
        };
        let meshes = super::detect::posed_meshes(model, t, h);
        for c in super::detect::detect(model, bodies, &meshes, t, h, margin) {
            let rc = &c.contact;
            let (ka, kb) = match (rc.a, rc.b) {
                (Participant::Body(a), Participant::Body(b)) => (a, b),
                (Participant::Body(a), Participant::Collider(k)) => (a, usize::MAX - k),
                (Participant::Body(a), Participant::Mesh(k)) => (a, usize::MAX / 2 - k),
                (Participant::Collider(k) | Participant::Mesh(k), _) => (usize::MAX - k, usize::MAX),
            };
            out.push(Contact {
                nodes: [0; 4],
                weights: [0.0; 4],
                frame: rc.frame,
                gap: rc.gap,
                cone: c.cone,
                cohesion: c.cohesion,
                compliance: c.compliance,
                known: known(rc.a, &rc.point) - known(rc.b, &rc.point) - c.own_velocity,
                key: (10, ka, kb),
                rigid: [block(rc.a, &rc.point, &rc.frame, 1.0), block(rc.b, &rc.point, &rc.frame, -1.0)],
                point: rc.point,
            });
        }
        for (b, body) in bodies.iter().enumerate() {
            let reach = body.shape.bounding_radius() + margin + h * body.linear_velocity.norm();
            let mat_b = model.rigids[b].material;
            for &(i, radius, mat) in &self.thin_nodes {
                // A root riding on this body touches it by construction; their relative velocity
                // is zero whatever the solve does.
                if self.roots.body_of(i) == Some(b) {
                    continue;
                }
                let xi = node(x, i);
                if (xi - body.position).norm() > reach + radius + h * body.angular_velocity.norm() * reach {
                    continue;
                }
                let ball = crate::rigid::RigidShape::Sphere { radius: radius.max(1e-9) };
                let pose = nalgebra::Isometry3::translation(xi.x, xi.y, xi.z);
                for g in crate::contact::rigid::collide_shapes(&ball, &pose, &body.shape, &body.pose(), margin) {
                    let p = Participant::Body(b);
                    let s_body = if self.aniso {
                        super::detect::structure(model, bodies, p, &g.point, t).unwrap_or_else(Vector3::zeros)
                    } else {
                        Vector3::zeros()
                    };
                    let (frame, cone) = self.friction(model, (mat, mat_b), g.frame, self.node_dir[i], s_body);
                    out.push(Contact {
                        nodes: [i; 4],
                        weights: [1.0, 0.0, 0.0, 0.0],
                        frame,
                        gap: g.gap,
                        cone,
                        cohesion: model.friction.cohesion(mat, mat_b, g.gap),
                        compliance: model.friction.compliance(mat, mat_b),
                        known: -known(p, &g.point),
                        key: (11, i, b),
                        rigid: [None, block(p, &g.point, &frame, -1.0)],
                        point: g.point,
                    });
                }
            }
        }
        out
    }

    /// A mesh–mesh contact at start positions `x`. The first feature is `nodes[0]`'s; the
    /// second starts at `nodes[2]` for an edge–edge contact and at `nodes[1]` otherwise (for
    /// vertex–edge and vertex–vertex contacts `nodes[3]` repeats the vertex, see `ContactKind`).
    fn mesh_contact(&self, model: &Model, x: &[f64], c: &NodalContact, t: f64) -> Contact {
        let n = Vector3::from(c.normal);
        let second = if c.kind == ContactKind::EdgeEdge { c.nodes[2] } else { c.nodes[1] };
        let (ma, mb) = (self.node_material[c.nodes[0]], self.node_material[second]);
        let (s_a, s_b) =
            if self.aniso { self.mesh_structures(model, x, c, t) } else { (Vector3::zeros(), Vector3::zeros()) };
        let (frame, cone) = self.friction(model, (ma, mb), frame(&n), s_a, s_b);
        let (kind, [f0, f1]) = c.key();
        Contact {
            nodes: c.nodes,
            weights: c.weights,
            frame,
            gap: c.gap,
            cone,
            cohesion: model.friction.cohesion(ma, mb, c.gap),
            compliance: model.friction.compliance(ma, mb),
            known: Vector3::zeros(),
            key: (1 + kind as u8, f0, f1),
            rigid: [None, None],
            point: node(x, c.nodes[0]),
        }
    }

    /// The friction law of a contact between materials `mats` with default frame `frame` (first
    /// column the normal) and the two sides' structure directions (zero: none): the isotropic
    /// `mu` in `frame` unless the pair is anisotropic and a side is structured (module doc).
    fn friction(
        &self,
        model: &Model,
        (ma, mb): (usize, usize),
        frame: Matrix3<f64>,
        s_a: Vector3<f64>,
        s_b: Vector3<f64>,
    ) -> (Matrix3<f64>, Cone) {
        let mu = model.friction.get(ma, mb).mu_d;
        let Some([mu_t, mu_b]) = model.friction.anisotropy(ma, mb) else {
            return (frame, iso_cone(mu));
        };
        // Validation guarantees valid coefficients; should it not, the isotropic law is the safe side.
        let Ok(pair) = MatchstickPair::new(mu, mu_t, mu_b) else {
            return (frame, iso_cone(mu));
        };
        let law = pair.resolve(&frame.column(0).into_owned(), Some(&s_a), Some(&s_b));
        // An isotropic result keeps the contact's own frame: the orientation of an isotropic
        // cone is irrelevant, and this keeps `mu_t == mu_b` bit for bit the plain `mu` contact.
        if law.cone.is_isotropic() { (frame, law.cone) } else { (law.frame, law.cone) }
    }

    /// Structure directions of every node at positions `x` (module doc): rod tangents and the
    /// rest-area-weighted mean of the structured cloth and solid-boundary triangles around a node.
    fn update_structure(&mut self, model: &Model, x: &[f64]) {
        self.node_dir.fill(Vector3::zeros());
        for c in model.cloths.iter().filter(|c| !c.structure.is_empty()) {
            for (k, (tri, el)) in c.triangles.iter().zip(&c.membrane).enumerate() {
                let d = c.triangle_structure(k, x) * el.rest_area;
                for &i in tri {
                    self.node_dir[i] += d;
                }
            }
        }
        for s in model.solids.iter().filter(|s| !s.structure.is_empty()) {
            for (k, (tri, area)) in s.surface.iter().zip(&s.surface_rest_area).enumerate() {
                let d = s.triangle_structure(k, x) * *area;
                for &i in tri {
                    self.node_dir[i] += d;
                }
            }
        }
        for b in &model.rod_bundles {
            for r in &b.rods {
                for i in r.first..r.first + r.len - 1 {
                    let e = node(x, i + 1) - node(x, i);
                    // A zero-length edge (not finite after normalizing) adds nothing.
                    let e = e / e.norm();
                    if e.iter().all(|v| v.is_finite()) {
                        self.node_dir[i] += e;
                        self.node_dir[i + 1] += e;
                    }
                }
            }
        }
    }

    /// The structure directions of the two features of a mesh contact at positions `x` and time
    /// `t` (zero: none): a structured mesh collider's field at the contact, else the bodies'.
    fn mesh_structures(&self, model: &Model, x: &[f64], c: &NodalContact, t: f64) -> (Vector3<f64>, Vector3<f64>) {
        let nd = &c.nodes;
        // A mesh collider's side takes its own structure at the contact point (the first
        // feature's vertex, on or next to its surface).
        let second = if c.kind == ContactKind::EdgeEdge { nd[2] } else { nd[1] };
        let collider = |i: usize| model.mesh_colliders.iter().find(|m| m.nodes.contains(&i) && m.structure.is_some());
        let on_collider =
            |i: usize| collider(i).map(|m| m.structure_at(&node(x, nd[0]), t).unwrap_or_else(Vector3::zeros));
        let (s_a, s_b) = self.body_structures(x, c);
        (on_collider(nd[0]).unwrap_or(s_a), on_collider(second).unwrap_or(s_b))
    }

    /// The structures of the two sides of a mesh contact from the nodal bodies: a vertex's own,
    /// an edge's (a rod edge itself; otherwise its nodes' weighted by the contact weights), a
    /// triangle's `F s`; zero elsewhere.
    fn body_structures(&self, x: &[f64], c: &NodalContact) -> (Vector3<f64>, Vector3<f64>) {
        let (nd, w) = (&c.nodes, &c.weights);
        let edge = |a: usize, b: usize, wa: f64, wb: f64| {
            if self.rod_node[a] && self.rod_node[b] {
                node(x, b) - node(x, a)
            } else {
                self.node_dir[a] * wa.abs() + self.node_dir[b] * wb.abs()
            }
        };
        match c.kind {
            ContactKind::VertexFace => {
                let tri = match self.mesh_structure.get(c.features[1]) {
                    Some(Some((tri, coeffs))) => crate::model::triangle_structure(tri, coeffs, x),
                    _ => Vector3::zeros(),
                };
                (self.node_dir[nd[0]], tri)
            }
            ContactKind::EdgeEdge => (edge(nd[0], nd[1], w[0], w[1]), edge(nd[2], nd[3], w[2], w[3])),
            ContactKind::VertexEdge => (self.node_dir[nd[0]], edge(nd[1], nd[2], w[1], w[2])),
            ContactKind::VertexVertex => (self.node_dir[nd[0]], self.node_dir[nd[1]]),
        }
    }

    /// Advance the nodal DOFs by one step `h` from time `t`. Returns the step's statistics.
    pub fn step(&mut self, model: &Model, state: &mut State, spec: &NonsmoothSpec) -> StepStats {
        let (h, t) = (model.dt, state.time);
        let mut stats = StepStats { substeps: 1, converged: true, ..Default::default() };
        let ndof = model.dof_count();
        let x0 = state.q.clone();
        let v0 = state.v.clone();
        let mut v = state.v.clone();
        // Scripted nodes move with their mean velocity over the step, so they land on their path.
        model.set_kinematic_velocities(&x0, t, h, &mut v);
        // Rod frames follow the start positions; the edge angles the step sees.
        let theta = self.twist.begin_step(model, state, &x0);
        // Rigid bodies: predicted (scripted: prescribed) velocities, as in the rigid pipeline.
        super::predict_rigid(model, &mut state.rigid, t, h);
        self.rigid_pred.clear();
        self.rigid_pred.extend(state.rigid.iter().map(RigidBody::velocity));
        // Roots on dynamic bodies: linearized at the start pose. Their first iterate is their
        // start velocity, like every other node's (the body's prediction would stretch the root
        // edges by `h² g` and cost Newton iterations).
        self.roots.begin_step(model, &state.rigid, &state.reduced);
        self.joints.begin_step(model, &state.rigid, &self.rigid_off, self.n_total, h);
        let motor_passes = if self.joints.has_motors() { 2 * model.joints.len() + 1 } else { 0 };
        let clock = Instant::now();
        if self.aniso {
            self.update_structure(model, &x0);
        }
        let mut contacts = self.contacts(model, &x0, &v0, t, h, spec.contact_margin);
        if !state.rigid.is_empty() {
            contacts.extend(self.rigid_contacts(model, &state.rigid, &x0, t, h, spec.contact_margin));
        }
        stats.detection_s = clock.elapsed().as_secs_f64();
        let mass_dof = |d: usize| model.node_mass[d / 3];
        let mut grad = vec![0.0; ndof];
        let mut r: Vec<f64> = Vec::new();
        let mut x = x0.clone();
        let nf = self.n_free;
        // The ADMM integrator is one ADMM loop per step (it needs no linearization).
        let integrator = spec.nodal_integrator == NodalIntegratorSpec::Admm;
        let linearizations = if integrator { 1 } else { spec.newton_iterations.max(1) };
        for round in 0..3 {
            let (mut lin, mut motor_changes) = (0, 0);
            while lin < linearizations {
                lin += 1;
                for d in 0..ndof {
                    x[d] = x0[d] + h * v[d];
                }
                self.roots.turn_with_bodies(&state.rigid, h, &mut x);
                let clock = Instant::now();
                let vf: Vec<f64> = (0..ndof).filter(|&d| self.free[d] != usize::MAX).map(|d| v[d]).collect();
                let (a, f) = if integrator {
                    // M (the exact equation's matrix) and M v̄; the split holds the rest.
                    let split = self.split.get_or_insert_with(|| {
                        ElasticSplit::new(
                            model,
                            state,
                            &theta,
                            self.elastic.stencils(),
                            &self.free,
                            &x0,
                            spec.admm.element_weight,
                        )
                    });
                    split.prepare(model, state, &theta, self.elastic.stencils(), &self.free, &x0, &v, h);
                    (split.mass.clone().expect("set by prepare"), split.f_base.clone())
                } else {
                    // A = M + h² K (free dofs), f = M v0 + h (M g - ∇E) + h² K v_k.
                    let mut kv = vec![0.0; nf];
                    let (energy, a) =
                        match self.elastic.assemble(model, state, &theta, &self.free, &x, h, &vf, &mut grad, &mut kv) {
                            Ok(r) => r,
                            Err(e) => {
                                stats.converged = false;
                                stats.failure = Some(e);
                                return stats;
                            }
                        };
                    stats.elastic_energy = energy;
                    let mut f = vec![0.0; nf];
                    for d in 0..ndof {
                        let fi = self.free[d];
                        if fi != usize::MAX {
                            let m = mass_dof(d);
                            f[fi] = m * v0[d] + h * (m * model.gravity[d % 3] - grad[d]) + h * h * kv[fi];
                        }
                    }
                    (a, f)
                };
                let (a, mut f, vf) = self.with_rigid(model, (a, f, vf), &state.rigid, &state.reduced, h);
                if !model.reduced.is_empty() {
                    // The reduced bodies' elastic energy at the iterate (the nodal part has none of theirs).
                    stats.elastic_energy += self.reduced_energy;
                }
                // Jointed bodies: the problem on the velocities the joints allow (the whole
                // step's problem kept for the motors' impulses).
                let whole = (!self.joints.is_empty()).then(|| {
                    self.joints.add_known_impulses(&self.rigid_off, &mut f);
                    (a.clone(), f.clone())
                });
                let (a, f, vf) = if whole.is_some() { self.joints.reduce(&a, &f, &vf) } else { (a, f, vf) };
                stats.assembly_s += clock.elapsed().as_secs_f64();
                let clock = Instant::now();
                let mut vf_new = vf.clone();
                if contacts.is_empty() && !integrator {
                    let per_object = linear_solve(spec, self.bodies_apart()) == admm::LinearSolve::Objects;
                    match self.solve_free(&a, &f, per_object) {
                        Ok(sol) => vf_new = sol,
                        Err(e) => {
                            stats.converged = false;
                            stats.failure = Some(e);
                            return stats;
                        }
                    }
                } else {
                    let (mut g, warm) = match self.problem(a, f, &contacts, &v, h) {
                        Ok(p) => p,
                        Err(e) => {
                            stats.converged = false;
                            stats.failure = Some(e);
                            return stats;
                        }
                    };
                    if r.len() != 3 * contacts.len() {
                        r = warm;
                    }
                    // Compliant pairs: their slack dofs appended (`dfcp::compliance`); then cohesive
                    // pairs: the problem in the shifted impulses (`dfcp::cohesion`).
                    if let Some(c) = Compliance::new(contacts.iter().map(|c| c.compliance), h) {
                        match c.augment_global(&g) {
                            Ok(augmented) => g = augmented,
                            Err(e) => {
                                stats.converged = false;
                                stats.failure = Some(format!("compliant contacts: {e}"));
                                return stats;
                            }
                        }
                        vf_new.resize(g.ndof(), 0.0);
                    }
                    let cohesion = Cohesion::new(contacts.iter().map(|c| c.cohesion * h));
                    if let Some(c) = &cohesion {
                        c.shift_global(&mut g);
                        c.shift_impulses(&mut r);
                    }
                    let opts = SolverOptions::new(spec.tolerance, spec.max_iterations);
                    let prm = self.admm_params(spec, h);
                    // CCD inside the ADMM iterations (004 §5.2): contacts found on an iterate are
                    // appended to the running solve.
                    let mut detector = std::mem::take(&mut self.detector);
                    let mut cache = std::mem::take(&mut self.admm);
                    let mut split = self.split.take();
                    let mut known: std::collections::HashSet<_> = contacts.iter().map(|c| c.key).collect();
                    let (mut appended, mut ccd_s) = (Vec::new(), 0.0);
                    let mut detect = |p: &[f64]| {
                        let clock = Instant::now();
                        let expanded = (!self.joints.is_empty()).then(|| self.joints.expand(p));
                        let new = self
                            .impacts(
                                &mut detector,
                                model,
                                &x0,
                                &v,
                                Some(expanded.as_deref().unwrap_or(p)),
                                (t, h),
                                &known,
                            )
                            .map(|f| f.1)
                            .unwrap_or_default();
                        ccd_s += clock.elapsed().as_secs_f64();
                        if new.is_empty() {
                            return None;
                        }
                        let mut trip = Vec::new();
                        let mut w = Vec::with_capacity(3 * new.len());
                        for (c, ct) in new.iter().enumerate() {
                            w.extend(self.column(ct, c, &v, h, &mut trip));
                            known.insert(ct.key);
                        }
                        if !self.joints.is_empty() {
                            trip = self.joints.reduce_columns(&trip, &mut w);
                        }
                        let cones = new.iter().map(|c| c.cone).collect();
                        appended.extend(new);
                        Some(admm::NewContacts { h: trip, w, cones })
                    };
                    let detection = (self.mesh.is_some() && spec.admm.ccd_every > 0)
                        .then_some(admm::Detection { every: spec.admm.ccd_every, detect: &mut detect });
                    let mut step_split = split.as_mut().map(|split| StepSplit {
                        split,
                        model,
                        state,
                        theta: &theta,
                        stencils: self.elastic.stencils(),
                        free: &self.free,
                        h,
                        energy: 0.0,
                    });
                    let result = solve_global(
                        spec.solver,
                        spec.islands,
                        &g,
                        &mut r,
                        &mut vf_new,
                        &opts,
                        &prm,
                        &mut cache,
                        detection,
                        step_split.as_mut().map(|s| s as &mut dyn admm::Splitting),
                    );
                    if let Some(s) = &step_split {
                        stats.elastic_energy = s.energy;
                    }
                    if let Some(c) = &cohesion {
                        c.unshift_impulses(&mut r);
                    }
                    // The slack velocities (if any) are not the bodies'.
                    vf_new.truncate(if self.joints.is_empty() { self.n_total } else { self.joints.len() });
                    self.split = split;
                    self.detector = detector;
                    self.admm = cache;
                    stats.detection_s += ccd_s;
                    stats.linear_solve_s -= ccd_s;
                    stats.ccd_contacts += appended.len();
                    contacts.extend(appended);
                    match result {
                        Ok((rep, projection_s, cg)) => {
                            stats.projection_s += projection_s;
                            stats.linear_iterations += cg;
                            stats.linear_solve_s -= projection_s;
                            stats.add_solve(&rep);
                            stats.final_residual = rep.residual_rel;
                            if !rep.converged {
                                stats.converged = false;
                                stats.failure = Some(format!("contact solver {rep}"));
                            }
                        }
                        Err(e) => {
                            stats.converged = false;
                            stats.failure = Some(e.to_string());
                            return stats;
                        }
                    }
                }
                stats.linear_solve_s += clock.elapsed().as_secs_f64();
                stats.newton_iterations += 1;
                if let Some((a, f)) = &whole {
                    vf_new = self.joints.expand(&vf_new);
                    // A motor's set changed: the same linearization again with the new set.
                    if motor_passes > 0 && self.motors_changed(a, f, &vf_new, &contacts, &r, &v, h, &state.rigid) {
                        motor_changes += 1;
                        if motor_changes <= motor_passes {
                            lin -= 1;
                        } else {
                            stats.failure.get_or_insert_with(|| "the motors' active set did not settle".into());
                        }
                    }
                }
                for d in 0..ndof {
                    if self.free[d] != usize::MAX {
                        v[d] = self.roots.value(&vf_new, self.free[d]);
                    }
                }
                for (b, &off) in state.rigid.iter_mut().zip(&self.rigid_off) {
                    if off != usize::MAX {
                        b.set_velocity(&nalgebra::SVector::<f64, 6>::from_column_slice(&vf_new[off..off + 6]));
                    }
                }
                self.roots.reduced.set_velocities(model, &mut state.reduced, &vf_new);
            }
            // Continuous collision detection over the step: nothing may pass through anything.
            let known: std::collections::HashSet<_> = contacts.iter().map(|c| c.key).collect();
            let clock = Instant::now();
            let mut detector = std::mem::take(&mut self.detector);
            let found = self.impacts(&mut detector, model, &x0, &v, None, (t, h), &known);
            self.detector = detector;
            stats.detection_s += clock.elapsed().as_secs_f64();
            let Some((toi, new)) = found else { break };
            if round == 2 {
                // Still impacting after re-solving with the impacts as contacts: stop the motion
                // at the first time of impact (safe by CCD's guarantee).
                stats.failure.get_or_insert_with(|| format!("step cut at {toi:.3} of dt by CCD"));
                for d in 0..ndof {
                    v[d] *= toi;
                }
                break;
            }
            if new.is_empty() {
                break;
            }
            stats.ccd_contacts += new.len();
            contacts.extend(new);
            r.clear();
            stats.contact_iterations += 1;
        }
        stats.active_contacts = contacts.len();
        stats.min_gap = contacts.iter().map(|c| c.gap).fold(f64::INFINITY, f64::min);
        self.store(&contacts, &r, h);
        for d in 0..ndof {
            state.q[d] = x0[d] + h * v[d];
        }
        state.v = v;
        super::advance_rigid_poses(model, &mut state.rigid, t, h);
        if !model.joints.is_empty() {
            // The joints' position errors left by the update (second order in h), as in the
            // rigid step; the roots then follow their bodies.
            let minv = super::assemble::inverse_masses(model, &state.rigid);
            super::joints::project_positions(model, &mut state.rigid, &minv);
        }
        self.roots.finish_step(&state.rigid, &mut state.q, &mut state.v);
        self.roots.reduced.finish_step(model, &mut state.reduced, h, (&mut state.q, &mut state.v));
        self.twist.finish_step(model, state, theta, t, h, &mut stats);
        stats
    }

    /// The nodal system extended by the dynamic rigid bodies' 6 unknowns each: their mass
    /// blocks `diag(m 1, R I Rᵀ)` and momenta `M v_pred` (the step's prediction, not the
    /// current iterate their velocities hold: that would count the previous iteration's
    /// impulses twice), and their current velocities as the starting guess.
    /// Roots riding on a body are eliminated onto it (`Pᵀ A P`, `Pᵀ f`, see `attached`), and so
    /// are the nodes of reduced bodies, whose dense blocks and elastic terms are added here
    /// (`reduced_nodes`; their energy is left in `reduced_energy`).
    fn with_rigid(
        &mut self,
        model: &Model,
        (a, f, vf): (Csc, Vec<f64>, Vec<f64>),
        bodies: &[RigidBody],
        reduced: &[crate::reduced::ReducedState],
        h: f64,
    ) -> (Csc, Vec<f64>, Vec<f64>) {
        if self.n_total == self.n_free && self.roots.is_empty() {
            return (a, f, vf);
        }
        let ar = a.as_ref();
        let mut t = Vec::with_capacity(ar.compute_nnz() + 36 * bodies.len());
        self.roots.reduce_matrix(&a, &mut t);
        let mut fr = vec![0.0; self.n_total];
        self.roots.reduce_vector(&f, &mut fr);
        let mut vr = Vec::with_capacity(self.n_total);
        self.roots.restrict(&vf, &mut vr);
        vr.resize(self.n_total, 0.0);
        for ((b, &off), pred) in bodies.iter().zip(&self.rigid_off).zip(&self.rigid_pred) {
            if off == usize::MAX {
                continue;
            }
            let m = b.mass_matrix();
            let mv = m * pred;
            for i in 0..6 {
                // Added: the roots on this body have put their momenta here.
                fr[off + i] += mv[i];
                vr[off + i] = b.velocity()[i];
                // Zeros too, as the pattern must not depend on the pose (one symbolic
                // Cholesky serves every contact-free solve).
                for j in 0..6 {
                    t.push(Triplet::new(off + i, off + j, m[(i, j)]));
                }
            }
        }
        self.reduced_energy = self.roots.reduced.add_blocks(model, reduced, h, &mut t, &mut fr);
        for (b, (body, s)) in model.reduced.iter().zip(reduced).enumerate() {
            let off = self.roots.reduced.offset(b);
            vr[off..off + body.dofs()].copy_from_slice(&s.velocity());
        }
        // A counting sort by column: the whole system's triplets every Newton iteration (millions
        // with embedded solids), where a sort of all of them cost most of the assembly.
        let total = crate::dfcp::problem::csc_from_triplets(self.n_total, self.n_total, &t)
            .expect("indices within the unknowns");
        (total, fr, vr)
    }

    /// The joints' motors checked after a solve (`JointMap::update_motors`): their impulses from
    /// the momentum balance `A v − f − H r` of the whole step's problem (`a`, `f`, velocities
    /// `vt`), all of the step's contacts with their impulses `r`. Whether the set changed.
    #[allow(clippy::too_many_arguments)]
    fn motors_changed(
        &mut self,
        a: &Csc,
        f: &[f64],
        vt: &[f64],
        contacts: &[Contact],
        r: &[f64],
        v: &[f64],
        h: f64,
        bodies: &[RigidBody],
    ) -> bool {
        let mut res = vec![0.0; f.len()];
        crate::dfcp::par_kernels::mul_into(a, vt, &mut res, &mut Default::default());
        res.iter_mut().zip(f).for_each(|(x, f)| *x -= f);
        if r.len() == 3 * contacts.len() {
            let mut trip = Vec::new();
            for (c, ct) in contacts.iter().enumerate() {
                self.column(ct, c, v, h, &mut trip);
            }
            for e in &trip {
                res[e.row] -= e.val * r[e.col];
            }
        }
        self.joints.update_motors(bodies, &self.rigid_off, vt, &res)
    }

    /// The step's ADMM parameters.
    fn admm_params(&self, spec: &NonsmoothSpec, h: f64) -> AdmmParams {
        admm_params(spec, h, &self.dof_mass, &self.dof_labels, self.bodies_apart())
    }

    /// Whether no matrix entry joins two bodies' unknowns (no node riding on a body, no joint).
    fn bodies_apart(&self) -> bool {
        !self.roots.has_roots() && self.joints.is_empty()
    }

    /// `A v = f` by sparse Cholesky, the symbolic analysis kept while the pattern stays; with
    /// `per_object`, one Cholesky per component of `A` (exact, in parallel).
    fn solve_free(&mut self, a: &Csc, f: &[f64], per_object: bool) -> Result<Vec<f64>, String> {
        if per_object {
            self.free_objects.factor(a, &vec![0.0; f.len()], None).map_err(|e| format!("M + h^2 K: {e}"))?;
            let mut x = f.to_vec();
            self.free_objects.solve_in_place(&mut x);
            return Ok(x);
        }
        use faer::sparse::linalg::solvers::{Llt, SymbolicLlt};
        let ar = a.as_ref();
        let same = self.llt.as_ref().is_some_and(|(cp, ri, _)| cp[..] == *ar.col_ptr() && ri[..] == *ar.row_idx());
        if !same {
            let sym = SymbolicLlt::try_new(a.symbolic(), faer::Side::Lower).map_err(|e| format!("{e:?}"))?;
            self.llt = Some((ar.col_ptr().to_vec(), ar.row_idx().to_vec(), sym));
        }
        let sym = self.llt.as_ref().expect("set above").2.clone();
        let llt = Llt::try_new_with_symbolic(sym, a.as_ref(), faer::Side::Lower)
            .map_err(|e| format!("M + h^2 K is not positive definite: {e:?}"))?;
        let mut rhs = faer::Mat::<f64>::from_fn(f.len(), 1, |i, _| f[i]);
        faer::linalg::solvers::SolveCore::solve_in_place_with_conj(&llt, faer::Conj::No, rhs.as_mut());
        Ok((0..f.len()).map(|i| rhs[(i, 0)]).collect())
    }

    /// The global problem `A v = f + H r`, `u = Hᵀ v + w` over free dofs, and warm-start forces.
    fn problem(
        &self,
        a: Csc,
        f: Vec<f64>,
        contacts: &[Contact],
        v: &[f64],
        h: f64,
    ) -> Result<(GlobalProblem, Vec<f64>), String> {
        let nc = contacts.len();
        let mut trip = Vec::with_capacity(36 * nc);
        let mut w = vec![0.0; 3 * nc];
        let mut warm = vec![0.0; 3 * nc];
        for (c, ct) in contacts.iter().enumerate() {
            let wc = self.column(ct, c, v, h, &mut trip);
            w[3 * c..3 * c + 3].copy_from_slice(&wc);
            if let Some(fw) = self.warm.get(&ct.key) {
                let rf = ct.frame.transpose() * fw * h;
                if rf.x > 0.0 {
                    warm[3 * c..3 * c + 3].copy_from_slice(rf.as_slice());
                }
            }
        }
        let (trip, rows) = if self.joints.is_empty() {
            (trip, self.n_total)
        } else {
            (self.joints.reduce_columns(&trip, &mut w), self.joints.len())
        };
        // Duplicate (node, contact) entries, if any, are summed by the triplet assembly.
        let hm = crate::dfcp::problem::csc_from_triplets(rows, 3 * nc, &trip)
            .expect("indices within the unknowns and contacts");
        let cones = contacts.iter().map(|c| c.cone).collect();
        // Sizes come from the same contacts and dofs; what can fail is a non-finite value.
        let g =
            GlobalProblem::new(a, hm, f, w, cones).map_err(|e| format!("the contact problem is not finite: {e}"))?;
        Ok((g, warm))
    }

    /// Contact `ct` as column block `c` of `H` (entries pushed to `trip`); returns its free term
    /// `w_c` (known velocities of kinematic nodes and colliders, gap closing, recovery).
    fn column(
        &self,
        ct: &Contact,
        c: usize,
        v: &[f64],
        h: f64,
        trip: &mut Vec<Triplet<usize, usize, f64>>,
    ) -> [f64; 3] {
        let mut known = ct.known;
        for (&i, &wt) in ct.nodes.iter().zip(&ct.weights) {
            if wt == 0.0 {
                continue;
            }
            if self.free[3 * i] == usize::MAX {
                known += node(v, i) * wt;
                continue;
            }
            // A reduced body's node, or a root riding on a body: its weight goes onto the body's
            // columns (`Pᵀ H`).
            if self.roots.push_reduced_column(&self.free, i, (wt, &ct.frame), c, trip) {
                continue;
            }
            if let Some((off, blk)) = self.roots.contact_block(i, wt, &ct.frame) {
                for j in 0..6 {
                    for k in 0..3 {
                        if blk[(k, j)] != 0.0 {
                            trip.push(Triplet::new(off + j, 3 * c + k, blk[(k, j)]));
                        }
                    }
                }
                continue;
            }
            // An unknown of its own (one term), or an embedded surface node's cage corners.
            for a in 0..3 {
                self.roots.for_terms(self.free[3 * i + a], |row, coef| {
                    for b in 0..3 {
                        let val = wt * coef * ct.frame[(a, b)];
                        if val != 0.0 {
                            trip.push(Triplet::new(row, 3 * c + b, val));
                        }
                    }
                });
            }
        }
        for (b, blk) in ct.rigid.iter().flatten() {
            let off = self.rigid_off[*b];
            for j in 0..6 {
                for k in 0..3 {
                    if blk[(k, j)] != 0.0 {
                        trip.push(Triplet::new(off + j, 3 * c + k, blk[(k, j)]));
                    }
                }
            }
        }
        let kn = ct.frame.transpose() * known;
        // Rigid contacts get the rigid pipeline's penetration recovery (nodal ones close
        // their gap with the step and CCD keeps them from crossing).
        // A compliant contact closes its whole gap, penetration included: with its slack that
        // is the spring `force = penetration / compliance` (`dfcp::compliance`).
        if ct.compliance > 0.0 {
            return [kn.x + ct.gap / h, kn.y, kn.z];
        }
        let recovery =
            if ct.rigid.iter().any(Option::is_some) { self.erp * (-ct.gap - self.slop).max(0.0) / h } else { 0.0 };
        [kn.x + ct.gap.max(0.0) / h - recovery, kn.y, kn.z]
    }

    /// Whether the solve can change a mesh contact's relative velocity (else it can only cost
    /// sweeps): it has a free node, and not only roots of one body (`Roots::moves`).
    fn moves(&self, c: &NodalContact) -> bool {
        self.roots.moves(&self.free, &c.nodes, &c.weights)
    }

    /// Continuous collision detection over the step `x0 → x0 + h v` (velocities of the free
    /// unknowns from `p` when given, else from `v`): `None` without impacts, else the first time
    /// of impact (fraction of the step) and the impacting pairs not yet among `known`, as contacts.
    #[allow(clippy::too_many_arguments)]
    fn impacts(
        &self,
        detector: &mut Detector,
        model: &Model,
        x0: &[f64],
        v: &[f64],
        p: Option<&[f64]>,
        (t, h): (f64, f64),
        known: &std::collections::HashSet<(u8, usize, usize)>,
    ) -> Option<(f64, Vec<Contact>)> {
        let mesh = self.mesh.as_ref()?;
        let x1: Vec<f64> = (0..x0.len())
            .map(|d| {
                let vd = match (p, self.free[d]) {
                    (Some(p), fd) if fd != usize::MAX => self.roots.value(p, fd),
                    _ => v[d],
                };
                x0[d] + h * vd
            })
            .collect();
        // A detection failure (non-finite positions) is caught by the state check after the step.
        let report = detector.ccd(mesh, x0, &x1, &CcdOptions::default()).ok()?;
        if report.impacts.is_empty() {
            return None;
        }
        let extra = impact_contacts(mesh, x0, &report.impacts, f64::INFINITY).unwrap_or_default();
        let new: Vec<Contact> = extra
            .iter()
            .filter(|c| self.moves(c))
            .map(|c| self.mesh_contact(model, x0, c, t))
            .filter(|c| !known.contains(&c.key))
            .collect();
        Some((report.toi, new))
    }

    /// Remember the forces (N, world) for warm starts and output.
    fn store(&mut self, contacts: &[Contact], r: &[f64], h: f64) {
        self.warm.clear();
        let (fnorm, ffric) = &mut self.forces;
        fnorm.fill(0.0);
        ffric.fill(0.0);
        self.rigid_points.clear();
        if r.len() != 3 * contacts.len() {
            return;
        }
        for (c, ct) in contacts.iter().enumerate() {
            let rn = ct.frame.column(0) * (r[3 * c] / h);
            let rt = (ct.frame.column(1) * r[3 * c + 1] + ct.frame.column(2) * r[3 * c + 2]) / h;
            self.warm.insert(ct.key, rn + rt);
            if ct.rigid.iter().any(Option::is_some) {
                self.rigid_points.push(super::super::ContactPoint {
                    point: ct.point,
                    normal_force: rn,
                    friction_force: rt,
                    tangent: ct.frame.column(1).into_owned(),
                    mu: [ct.cone.mu_t, ct.cone.mu_b],
                    gap: ct.gap,
                });
            }
            for (&i, &wt) in ct.nodes.iter().zip(&ct.weights) {
                for k in 0..3 {
                    fnorm[3 * i + k] += wt * rn[k];
                    ffric[3 * i + k] += wt * rt[k];
                }
            }
        }
    }
}
