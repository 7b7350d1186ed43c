//! The Smooth pipeline of 000 (Algorithm 1, "Velocity Step"): contacts on smooth implicit
//! surfaces (the MLS potential of every solid's boundary, the exact distance of colliders), an
//! implicit-Euler predictor under the linearized non-penetration constraints with the previous
//! friction forwarded, an exact Coulomb friction solve on the Delassus operator (polar Staggered
//! Projections by default), and the corrector.
//!
//! Solids, cloths and rigid bodies take part in one solve (nodes have 3 velocities, rigid bodies 6:
//! see [`layout`]); contact is between different bodies only (000 §5.3: no self-contact), and
//! rigid bodies touch colliders, solids, cloths and each other (not bodies a joint links).
//! Forwarded friction is stored per vertex and field as a world vector and projected onto the
//! next step's tangent plane, so it survives a change of contact set or frame.

pub mod contacts;
pub mod friction;
mod joints;
pub mod layout;
pub mod predictor;
pub mod rigid_field;

use super::{ContactPoint, Pipeline, StepError, StepStats};
use crate::integrator::ForceWeights;
use crate::model::{Model, State};
use crate::pipeline::penalty::system::{StageSystem, System};
use crate::scene::schema::{DelassusSpec, SmoothSpec};
use contacts::{FieldId, Fields, SmoothContact};
use layout::Layout;
use nalgebra::Vector3;
use std::collections::HashMap;
use std::time::Instant;

pub struct SmoothPipeline {
    spec: SmoothSpec,
    system: System,
    fields: Fields,
    /// Friction impulse (world, N·s, on the vertex) of the last step per vertex and field.
    forwarded: HashMap<(usize, FieldId), Vector3<f64>>,
    /// Normal impulse (N·s) of the last step per vertex and field: the predictor's initial
    /// multipliers.
    normal: HashMap<(usize, FieldId), f64>,
    /// Contacts and contact-frame impulses of the last step.
    last: Vec<SmoothContact>,
    last_r: Vec<f64>,
    points: Vec<ContactPoint>,
    /// The layout of the last step (for its contacts' forces).
    layout: Layout,
}

/// What the Smooth pipeline carries from one step to the next: the forwarded friction and normal
/// impulses per vertex and field, the side of each cloth a vertex is on, and the Jacobian's
/// pattern and preconditioner.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Carried {
    forwarded: Vec<((usize, FieldId), [f64; 3])>,
    normal: Vec<((usize, FieldId), f64)>,
    sides: Vec<((usize, usize), f64)>,
    solver: Option<crate::linalg::newton_solver::SolverSnapshot>,
}

impl SmoothPipeline {
    pub fn new(model: &Model, state: &State, spec: SmoothSpec) -> SmoothPipeline {
        let fields = Fields::new(model, &state.rigid, spec.field.kernel, spec.field.radius, &state.q);
        SmoothPipeline {
            system: System::new(model, true),
            spec,
            fields,
            forwarded: HashMap::new(),
            normal: HashMap::new(),
            last: Vec::new(),
            last_r: Vec::new(),
            points: Vec::new(),
            layout: Layout::new(model, &state.rigid),
        }
    }

    /// The forwarded friction of each contact in its frame (3 per contact, normal part zero).
    fn forwarded_impulses(&self, contacts: &[SmoothContact]) -> Vec<f64> {
        contacts
            .iter()
            .flat_map(|c| match self.forwarded.get(&(c.vertex, c.field)).filter(|_| self.spec.forwarding) {
                Some(f) => [0.0, c.frame.column(1).dot(f), c.frame.column(2).dot(f)],
                None => [0.0; 3],
            })
            .collect()
    }

    /// Largest extent of a deformable body at `q` (the scale of 000's pruning rule).
    fn largest_extent(model: &Model, q: &[f64]) -> f64 {
        let ranges = model.solids.iter().map(|s| s.nodes.clone()).chain(model.cloths.iter().map(|c| c.nodes.clone()));
        ranges
            .map(|r| {
                let (mut lo, mut hi) = (Vector3::repeat(f64::INFINITY), Vector3::repeat(f64::NEG_INFINITY));
                for i in r {
                    let x = crate::model::node(q, i);
                    lo = lo.inf(&x);
                    hi = hi.sup(&x);
                }
                (hi - lo).max()
            })
            .fold(0.0, f64::max)
    }

    fn record(&mut self, contacts: Vec<SmoothContact>, r: Vec<f64>, h: f64) {
        self.forwarded.clear();
        self.normal.clear();
        self.points.clear();
        for (c, k) in contacts.iter().enumerate() {
            let rc = Vector3::new(r[3 * c], r[3 * c + 1], r[3 * c + 2]);
            let friction = k.frame.column(1) * rc.y + k.frame.column(2) * rc.z;
            if rc.x > 0.0 || friction.norm() > 0.0 {
                self.forwarded.insert((k.vertex, k.field), friction);
                self.normal.insert((k.vertex, k.field), rc.x);
            }
            if rc.x > 0.0 {
                self.points.push(ContactPoint {
                    point: k.point,
                    normal_force: k.frame.column(0) * (rc.x / h),
                    friction_force: friction / h,
                    tangent: k.frame.column(1).into_owned(),
                    mu: [k.cone.mu_t, k.cone.mu_b],
                    gap: k.gap,
                });
            }
        }
        self.last = contacts;
        self.last_r = r;
    }
}

impl Pipeline for SmoothPipeline {
    fn step(&mut self, model: &Model, state: &mut State) -> Result<StepStats, StepError> {
        let (h, t0) = (model.dt, state.time);
        let mut stats = StepStats { substeps: 1, contact_iterations: 1, ..StepStats::default() };
        let start = Instant::now();
        self.fields.update(model, &state.q, t0, h);
        let layout = Layout::new(model, &state.rigid);
        let contacts = contacts::detect(model, &mut self.fields, &layout, (&state.q, &state.v, &state.rigid), t0, h);
        stats.detection_s = start.elapsed().as_secs_f64();
        let stage = StageSystem { dq_dv: h, bh: ForceWeights::whole(h), t0, duration: h };
        // Predicted velocities without contact: the nodes' kinematic ones, the rigid bodies'
        // gravity and gyroscopic term (or their script).
        let mut bodies = state.rigid.clone();
        crate::pipeline::nonsmooth::predict_rigid(model, &mut bodies, t0, h);
        let joints = joints::RigidSpace::new(model, &layout, &bodies, h);
        let mut v_hat = state.v.clone();
        model.set_stage_kinematic_velocities(&state.q, &state.q, t0, h, h, &mut v_hat);
        for b in &bodies {
            v_hat.extend(b.linear_velocity.iter().chain(b.angular_velocity.iter()));
        }
        if let Err(e) = self.system.prepare_damping(model, &state.q) {
            return Err(StepError::Undefined { time: t0, why: format!("damping stiffness undefined: {e:?}") });
        }
        // Predictor (eq. 23) with the forwarded friction as a known impulse.
        let r_fwd = self.forwarded_impulses(&contacts);
        let forward = predictor::generalized_impulse(&layout, &contacts, &r_fwd);
        let lambda0: Vec<f64> =
            contacts.iter().map(|c| self.normal.get(&(c.vertex, c.field)).copied().unwrap_or(0.0)).collect();
        let prob = predictor::Predictor {
            layout: &layout,
            stage,
            q0: &state.q,
            v_hat: &v_hat,
            contacts: &contacts,
            forward: &forward,
            lambda0: &lambda0,
            speed_mass: Default::default(),
            curvature_slots: Default::default(),
            joints: joints.as_ref(),
        };
        let mut v = v_hat.clone();
        let pred = prob.solve(&mut self.system, model, &mut v, &self.spec.predictor, &mut stats);
        stats.newton_iterations = pred.iterations;
        stats.final_residual = pred.error;
        stats.failure = pred.failure;
        // Friction (eqs. 24–28) on the contacts kept after pruning, then the corrector (eq. 22).
        let mut r_prev = r_fwd;
        for (c, l) in pred.lambda.iter().enumerate() {
            r_prev[3 * c] = *l;
        }
        let rigid_extent = state.rigid.iter().map(|b| 2.0 * b.shape.bounding_radius()).fold(0.0, f64::max);
        let extent = Self::largest_extent(model, &state.q).max(rigid_extent);
        let kept =
            friction::kept(&contacts, &pred.lambda, self.spec.prune * extent, 10.0 * self.spec.predictor.tolerance);
        let start = Instant::now();
        let mut response = match self.spec.delassus {
            DelassusSpec::Mass => friction::Response::Mass(&layout, joints.as_ref()),
            DelassusSpec::Stiffness => {
                // The implicit-Euler matrix at q̇*, without the predictor's constraint terms.
                let q: Vec<f64> = state.q.iter().zip(&v).map(|(q, v)| q + h * v).collect();
                let n = q.len();
                self.system
                    .evaluate(model, &stage, &q, &v[..n], &v_hat[..n], true, None)
                    .map_err(|e| StepError::Undefined { time: t0, why: format!("elasticity at q̇*: {e:?}") })?;
                friction::Response::Stiffness(&layout, &mut self.system, joints.as_ref())
            }
        };
        let undefined = |why| StepError::Undefined { time: t0, why };
        let fr = friction::solve(model, &contacts, &kept, &v, &r_prev, &self.spec, &mut response).map_err(undefined)?;
        friction::correct(model, &contacts, &fr.r, &r_prev, &mut v, &mut response).map_err(undefined)?;
        stats.projection_s = start.elapsed().as_secs_f64();
        if let Some(rep) = &fr.report {
            stats.solver_iterations = rep.iterations;
            stats.projection_passes = fr.counts.passes;
            stats.projections = fr.counts.projections;
            stats.friction_residual = rep.residual_rel;
            if !rep.converged && stats.failure.is_none() {
                stats.failure = Some(format!("friction solve: {rep}"));
            }
        }
        stats.active_contacts = kept.iter().filter(|&&c| fr.r[3 * c] > 0.0).count();
        stats.constraints = Some(contacts.len());
        stats.min_gap = kept.iter().map(|&c| contacts[c].gap).fold(f64::INFINITY, f64::min);
        stats.elastic_energy = self.system.elastic_energy;
        stats.converged = stats.failure.is_none();
        for (q, v) in state.q.iter_mut().zip(&v) {
            *q += h * v;
        }
        for (r, b) in bodies.iter_mut().enumerate() {
            if model.rigids[r].motion.is_none() {
                (b.linear_velocity, b.angular_velocity) = layout.rigid_velocity(&v, r);
            }
        }
        crate::pipeline::nonsmooth::advance_rigid_poses(model, &mut bodies, t0, h);
        if joints.is_some() {
            let minv = crate::pipeline::nonsmooth::assemble::inverse_masses(model, &bodies);
            crate::pipeline::nonsmooth::joints::project_positions(model, &mut bodies, &minv);
        }
        state.rigid = bodies;
        v.truncate(state.q.len());
        state.v = v;
        state.time = t0 + h;
        state.step += 1;
        self.record(contacts, fr.r, h);
        self.layout = layout;
        let rigid_finite =
            state.rigid.iter().all(|b| b.velocity().iter().chain(b.position.iter()).all(|x| x.is_finite()));
        if !rigid_finite || state.q.iter().chain(&state.v).any(|x| !x.is_finite()) {
            return Err(StepError::NonFinite { time: state.time });
        }
        Ok(stats)
    }

    fn contact_forces(&mut self, model: &Model, _state: &State) -> (Vec<f64>, Vec<f64>) {
        let h = model.dt;
        let split = |normal: bool| -> Vec<f64> {
            let r: Vec<f64> = self
                .last_r
                .chunks(3)
                .flat_map(|c| if normal { [c[0] / h, 0.0, 0.0] } else { [0.0, c[1] / h, c[2] / h] })
                .collect();
            let mut f = predictor::generalized_impulse(&self.layout, &self.last, &r);
            f.truncate(model.dof_count());
            f
        };
        (split(true), split(false))
    }

    fn contact_points(&self) -> &[ContactPoint] {
        &self.points
    }

    fn save(&self) -> crate::checkpoint::PipelineData {
        use crate::checkpoint::sorted;
        let carried = Carried {
            forwarded: sorted(&self.forwarded).into_iter().map(|(k, f)| (k, f.into())).collect(),
            normal: sorted(&self.normal),
            sides: sorted(&self.fields.sides),
            solver: self.system.snapshot(),
        };
        crate::checkpoint::PipelineData::of("Smooth", &carried)
    }

    fn restore(&mut self, data: crate::checkpoint::PipelineData) -> Result<(), String> {
        let c: Carried = data.read("Smooth")?;
        self.forwarded = c.forwarded.into_iter().map(|(k, f)| (k, f.into())).collect();
        self.normal = c.normal.into_iter().collect();
        self.fields.sides = c.sides.into_iter().collect();
        self.system.restore(c.solver)
    }

    fn describe(&self) -> String {
        format!(
            "Smooth (000: MLS fields {:?} R = {} m, interior-point predictor, {:?} friction{})",
            self.spec.field.kernel,
            self.spec.field.radius,
            self.spec.friction.solver,
            if self.spec.forwarding { ", forwarded" } else { ", not forwarded" }
        )
    }
}
