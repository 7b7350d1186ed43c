//! The nonsmooth pipeline for rigid bodies: the two-step velocity-level scheme of 002 (§4.7,
//! §5.2; digest D6) with exact Coulomb friction.
//!
//! One step:
//! 1. predictor: `v_p = v + h g` for every dynamic body, the gyroscopic term implicit (one
//!    Newton step on `I ω̇ + ω × I ω = 0` in body axes, which stays stable for fast spinning
//!    asymmetric bodies where the explicit term gains energy); scripted bodies take their
//!    prescribed velocity;
//! 2. contacts at the start-of-step poses, within a margin covering the step's travel;
//! 3. corrector: the discrete frictional contact problem `u = W r + q`, `(u_c, r_c)` Coulomb with
//!    the pair's (isotropic or matchstick) cone, solved by the scene's DFCP solver, warm-started
//!    from the previous step's forces of the same contacts;
//! 4. `v = v_p + M⁻¹ Jᵀ r`, then positions from the new velocity (`x += h v`, `q = exp(h ω/2) q`).
//!
//! The solve is reported honestly: its natural-map error, iterations and time go to stats.csv,
//! and a step whose solver did not reach the tolerance is a failed step (the scene's
//! `on_failure` decides whether the run stops).

mod admm_integrator;
pub mod assemble;
mod attached;
pub mod detect;
mod drilling;
mod global_islands;
pub mod islands;
mod joint_map;
pub mod joints;
pub mod nodal;
mod nodal_elastic;
mod reduced_nodes;
mod rod_twist;
pub mod warm;

use super::{ContactPoint, Pipeline, StepError, StepStats};
use crate::dfcp::cohesion::Cohesion;
use crate::dfcp::compliance::Compliance;
use crate::dfcp::contact_scaling::ContactScaling;
use crate::dfcp::problem::LocalProblem;
use crate::dfcp::solver::{SolveReport, SolverOptions};
use crate::dfcp::staggered_projections::{SpCone, SpContactQp, SpParams, SpStop};
use crate::dfcp::{
    dispatch, fb_newton, gauss_seidel, lemke_st, pgs_lcp, pgs_polygon, prox, prox_point, regularised_lcp, sqp,
    staggered_projections,
};
use crate::model::{Model, State};
use crate::rigid::RigidBody;
use crate::scene::schema::{
    DfcpSolverSpec, NonsmoothSpec, RigidIntegratorSpec, SpAcceleration, SpContactQpSpec, SpStopSpec,
};
use assemble::{ContactJacobian, local_problem, relative_velocity};
use detect::Contact;
use joints::JointSystem;
use nalgebra::{Matrix3, SVector, UnitQuaternion, Vector3};
use std::time::Instant;
use warm::WarmStart;

/// What the Nonsmooth pipeline carries from one step to the next: the rigid contacts' forces
/// (warm starts) and the nodal step's data.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Carried {
    warm: warm::Saved,
    nodal: Option<nodal::Carried>,
}

pub struct NonsmoothPipeline {
    spec: NonsmoothSpec,
    /// Cloth and rods, when the scene has any.
    nodal: Option<nodal::NodalStep>,
    nodal_error: Option<String>,
    warm: WarmStart,
    /// The last step's contacts and forces (N), for output.
    last: Vec<ContactPoint>,
    r: Vec<f64>,
    u: Vec<f64>,
}

/// Solve `p` with the scene's solver; `r` holds the warm start on entry. The solver works on
/// the problem scaled per contact to consistent units (`dfcp::contact_scaling`), so that its
/// stopping test, and the residual it reports, measure the physics; `r` and `u` come back in
/// the problem's own units.
pub fn solve(
    solver: DfcpSolverSpec,
    p: &LocalProblem,
    r: &mut [f64],
    u: &mut [f64],
    opts: &SolverOptions,
) -> SolveReport {
    solve_scaled(solver, p, &ContactScaling::of(p), r, u, opts)
}

/// [`solve`] with the problem's scaling given (a caller that measures in it too).
pub fn solve_scaled(
    solver: DfcpSolverSpec,
    p: &LocalProblem,
    scaling: &ContactScaling,
    r: &mut [f64],
    u: &mut [f64],
    opts: &SolverOptions,
) -> SolveReport {
    // The scaled problem has the sizes of `p`; should building it fail, the unscaled one is
    // solved rather than none.
    let Ok(scaled) = scaling.local(p) else { return solve_unscaled(solver, p, r, u, opts) };
    scaling.to_scaled_impulse(r);
    let report = solve_unscaled(solver, &scaled, r, u, opts);
    if !report.converged {
        dump_unconverged(&scaled);
    }
    scaling.to_original(r, u);
    report
}

/// The folder named by `FRICSIM_DUMP_UNCONVERGED`, if set: every local contact problem a solver
/// does not converge on (rigid steps, and the Delassus solves of nodal steps, which run at a
/// tenth of the step's tolerance) is written there (scaled, as the solver saw it) as an FCLib
/// text problem, `unconverged-PID-N.txt` (N counts the process's problems in the order they
/// were missed), for `fricsim fclib solve` to study offline. A problem with its factor
/// `W = G Gᵀ` is written in the factored global form (`M = I`, `H = Gᵀ`, `f = 0`, `w = q`),
/// which every solver reads and `velocity-admm` solves natively. Writing is best-effort and
/// never overwrites a file: a failure is reported on stderr and the run goes on.
fn dump_unconverged(p: &LocalProblem) {
    use crate::dfcp::fclib::{FclibProblem, write_text_problem};
    use std::sync::atomic::{AtomicUsize, Ordering};
    static COUNT: AtomicUsize = AtomicUsize::new(0);
    let Some(dir) = std::env::var_os("FRICSIM_DUMP_UNCONVERGED") else { return };
    let n = COUNT.fetch_add(1, Ordering::Relaxed);
    let path = std::path::Path::new(&dir).join(format!("unconverged-{}-{n}.txt", std::process::id()));
    if path.exists() {
        eprintln!("FRICSIM_DUMP_UNCONVERGED: {} exists; not overwritten", path.display());
        return;
    }
    let problem = match &p.factor {
        Some(g) => crate::dfcp::velocity_admm::factored_form(p, g).map(FclibProblem::Global),
        None => Ok(FclibProblem::Local(p.clone())),
    };
    let written = problem.map_err(anyhow::Error::msg).and_then(|q| write_text_problem(&path, &q));
    if let Err(e) = written {
        eprintln!("FRICSIM_DUMP_UNCONVERGED: {e:#}");
    }
}

fn solve_unscaled(
    solver: DfcpSolverSpec,
    p: &LocalProblem,
    r: &mut [f64],
    u: &mut [f64],
    opts: &SolverOptions,
) -> SolveReport {
    match solver {
        DfcpSolverSpec::StaggeredProjections { samples, acceleration, proximal, stop, contact_qp } => {
            let prm = SpParams {
                cone: samples.map_or(SpCone::Exact, SpCone::Polyhedral),
                anderson: match acceleration {
                    SpAcceleration::Off => 0,
                    SpAcceleration::Anderson(m) => m,
                },
                rho_rel: proximal,
                stop: match stop {
                    SpStopSpec::NaturalMap => SpStop::NaturalMap,
                    SpStopSpec::RelativeChange(e) => SpStop::RelativeChange(e),
                    SpStopSpec::Residual(e) => SpStop::Residual(e),
                },
                contact_qp: match contact_qp {
                    SpContactQpSpec::Dual => SpContactQp::Dual,
                    SpContactQpSpec::Primal => SpContactQp::Primal,
                    SpContactQpSpec::Auto => SpContactQp::Auto,
                },
                ..SpParams::default()
            };
            staggered_projections::solve_with(p, r, u, opts, &prm)
        }
        DfcpSolverSpec::Prox => prox::solve(p, r, u, opts),
        DfcpSolverSpec::FischerBurmeister => fb_newton::solve(p, r, u, opts),
        DfcpSolverSpec::ProximalPoint => prox_point::solve(p, r, u, opts),
        DfcpSolverSpec::GaussSeidel => gauss_seidel::solve(p, r, u, opts),
        DfcpSolverSpec::PgsLcp => pgs_lcp::solve(p, r, u, opts),
        DfcpSolverSpec::PgsPolygon { samples } => pgs_polygon::solve_with(p, r, u, opts, samples),
        DfcpSolverSpec::Lemke { samples } => lemke_st::solve_with(p, r, u, opts, samples),
        DfcpSolverSpec::RegularisedLcp { samples } => regularised_lcp::solve_with(p, r, u, opts, samples),
        DfcpSolverSpec::Sqp { samples } => sqp::solve_with(p, r, u, opts, samples),
        DfcpSolverSpec::VelocityAdmm if p.factor.is_some() => dispatch::factored(p, r, u, opts),
        DfcpSolverSpec::VelocityAdmm => {
            // No factor: compliant contacts regularise `W`, which `G Gᵀ` then no longer is
            // (validation keeps joints away). The whole `W` was assembled (`diagonal_only`
            // needs a factor); the robust default answers, and says why.
            let mut rep = dispatch::auto(p, r, u, opts);
            rep.message += "; velocity-admm needs the factor W = G Gᵀ, which this problem does not carry (compliant contacts change W)";
            rep
        }
        // Validation keeps the global-only solvers away from local problems; should one arrive,
        // the robust default answers it.
        DfcpSolverSpec::Auto | DfcpSolverSpec::Admm | DfcpSolverSpec::NlIca => dispatch::auto(p, r, u, opts),
    }
}

/// Angular velocity after a step `h` of torque-free rotation, with the gyroscopic term implicit:
/// one Newton step on `f(ω) = I (ω - ω0) + h ω × I ω` in body axes from `ω0`.
fn gyroscopic(b: &RigidBody, h: f64) -> Vector3<f64> {
    let r = b.rotation();
    let w0 = r.transpose() * b.angular_velocity;
    let i = &b.inertia_body;
    let iw = i * w0;
    let f = h * w0.cross(&iw);
    let jac = i + h * (w0.cross_matrix() * i - iw.cross_matrix());
    let dw = jac.lu().solve(&f).unwrap_or_else(Vector3::zeros);
    r * (w0 - dw)
}

impl NonsmoothPipeline {
    pub fn new(model: &Model, spec: NonsmoothSpec) -> NonsmoothPipeline {
        // The contact mesh is validated with the scene; a failure here is a bug, reported at the
        // first step rather than by a panic.
        let nodal = (model.node_count() > 0).then(|| nodal::NodalStep::new(model));
        let (nodal, nodal_error) = match nodal {
            Some(Ok(n)) => (Some(n), None),
            Some(Err(e)) => (None, Some(e)),
            None => (None, None),
        };
        NonsmoothPipeline {
            spec,
            nodal,
            nodal_error,
            warm: WarmStart::default(),
            last: Vec::new(),
            r: Vec::new(),
            u: Vec::new(),
        }
    }

    fn options(&self) -> SolverOptions {
        SolverOptions::new(self.spec.tolerance, self.spec.max_iterations)
    }
}

impl Pipeline for NonsmoothPipeline {
    fn step(&mut self, model: &Model, state: &mut State) -> Result<StepStats, StepError> {
        let nodal = match (self.nodal.as_mut(), &self.nodal_error) {
            (Some(n), _) => Some(n.step(model, state, &self.spec)),
            (None, Some(e)) => Some(StepStats { failure: Some(e.clone()), ..Default::default() }),
            (None, None) => None,
        };
        // With nodal bodies the rigid bodies are unknowns of the same global problem.
        let rigid = (!state.rigid.is_empty() && self.nodal.is_none()).then(|| self.rigid_step(model, state));
        let stats = match (nodal, rigid) {
            (Some(mut n), Some(r)) => {
                n.accumulate(&r);
                n.substeps = 1;
                n.warm_started += r.warm_started;
                n
            }
            (Some(s), None) | (None, Some(s)) => s,
            (None, None) => StepStats { substeps: 1, converged: true, min_gap: f64::INFINITY, ..Default::default() },
        };
        state.time += model.dt;
        state.step += 1;
        let finite = state.q.iter().chain(&state.v).all(|x| x.is_finite())
            && state.rigid.iter().all(|b| {
                b.position
                    .iter()
                    .chain(b.linear_velocity.iter())
                    .chain(b.angular_velocity.iter())
                    .all(|x| x.is_finite())
            });
        if !finite {
            return Err(StepError::NonFinite { time: state.time });
        }
        Ok(stats)
    }

    fn contact_forces(&mut self, model: &Model, _state: &State) -> (Vec<f64>, Vec<f64>) {
        match &self.nodal {
            Some(n) => n.forces.clone(),
            None => (vec![0.0; model.dof_count()], vec![0.0; model.dof_count()]),
        }
    }

    fn contact_points(&self) -> &[ContactPoint] {
        // With nodal bodies the rigid bodies' contacts are solved (and recorded) by the nodal step.
        match &self.nodal {
            Some(n) => &n.rigid_points,
            None => &self.last,
        }
    }

    fn save(&self) -> crate::checkpoint::PipelineData {
        let carried = Carried { warm: self.warm.saved(), nodal: self.nodal.as_ref().map(nodal::NodalStep::saved) };
        crate::checkpoint::PipelineData::of("Nonsmooth", &carried)
    }

    fn restore(&mut self, data: crate::checkpoint::PipelineData) -> Result<(), String> {
        let c: Carried = data.read("Nonsmooth")?;
        self.warm = WarmStart::restored(c.warm);
        match (self.nodal.as_mut(), c.nodal) {
            (Some(n), Some(saved)) => n.restore(saved),
            (None, None) => Ok(()),
            _ => Err("the checkpoint's nodal bodies are not this scene's".into()),
        }
    }

    fn describe(&self) -> String {
        format!(
            "Nonsmooth (velocity-level predictor-corrector, exact Coulomb, {:?}, tolerance {:e}, warm start {})",
            self.spec.solver, self.spec.tolerance, self.spec.warm_start
        )
    }
}

/// Passes of a step's contact solve when the joints' motors change their active set after it
/// (each pass settles at least one motor that the contacts moved; one is the rule).
const MOTOR_PASSES: usize = 4;

impl NonsmoothPipeline {
    /// The rigid bodies' step (time is advanced by the caller).
    fn rigid_step(&mut self, model: &Model, state: &mut State) -> StepStats {
        let (h, t) = (model.dt, state.time);
        let variational = self.spec.integrator == RigidIntegratorSpec::Variational;
        let bodies = &mut state.rigid;
        // Normal approach speeds at the start of the step are needed for restitution, at the
        // contacts found below; keep the start velocities to evaluate them.
        let start_velocity: Vec<_> = bodies.iter().map(RigidBody::velocity).collect();
        predict_rigid(model, bodies, t, h);
        let minv = assemble::inverse_masses(model, bodies);
        let mut joints = JointSystem::new(model, bodies, &minv, h, true);
        let mut stats = StepStats { substeps: 1, converged: true, ..Default::default() };
        if !joints.settle_motors(bodies, &minv) {
            stats.converged = false;
            stats.failure = Some("joint motors: the active set of their torque limits did not settle".into());
        }
        let clock = Instant::now();
        let meshes = detect::posed_meshes(model, t, h);
        let mut contacts = detect::detect(model, bodies, &meshes, t, h, self.spec.contact_margin);
        if variational {
            // 002 §4.5.1: the contacts of the step are those touching or overlapping at its start.
            contacts.retain(|c| c.contact.gap <= 0.0);
        }
        let (mut contacts, islands) = islands::group(model, contacts, &joints.links());
        stats.detection_s = clock.elapsed().as_secs_f64();
        stats.active_contacts = contacts.len();
        let predicted: Vec<_> = bodies.iter().map(RigidBody::velocity).collect();
        let approach: Vec<f64> = if contacts.is_empty() {
            Vec::new()
        } else {
            for (b, v) in bodies.iter_mut().zip(&start_velocity) {
                b.set_velocity(v);
            }
            let approach = contacts.iter().map(|c| relative_velocity(model, bodies, c, t, h).x).collect();
            for (b, v) in bodies.iter_mut().zip(&predicted) {
                b.set_velocity(v);
            }
            approach
        };
        let step = Step { minv: &minv, islands: &islands, approach: &approach, predicted: &predicted, t, h };
        let verdict = (stats.converged, stats.failure.clone());
        self.solve_passes(model, bodies, &contacts, &mut joints, &step, &mut stats);
        // Frames are regenerated around a solved step only (a failed solve's end configuration
        // says nothing of where the frames belong).
        if self.spec.implicit_frames > 0 && !contacts.is_empty() && stats.converged {
            let start = (&start_velocity[..], variational);
            self.implicit_frames(model, bodies, &mut contacts, &mut joints, &step, start, (verdict, &mut stats));
        }
        if contacts.is_empty() {
            self.warm.clear();
            stats.min_gap = f64::INFINITY;
        } else {
            stats.min_gap = contacts
                .iter()
                .enumerate()
                .map(|(i, c)| c.contact.gap + h * self.u[3 * i])
                .fold(f64::INFINITY, f64::min);
            self.warm.store(&contacts, &self.r, bodies);
        }
        self.last = contact_points(&contacts, &self.r, h);
        advance_step_poses(model, bodies, (&start_velocity, variational), t, h);
        if !joints.is_empty() {
            joints::project_positions(model, bodies, &minv);
        }
        stats
    }

    /// The contact problem of the step at the joint-projected predicted velocities `bodies`
    /// hold, solved and applied (`v += M⁻¹ Jᵀ r`).
    #[allow(clippy::too_many_arguments)]
    fn solve_contacts(
        &mut self,
        model: &Model,
        bodies: &mut [RigidBody],
        contacts: &[Contact],
        islands: &[std::ops::Range<usize>],
        jac: &ContactJacobian,
        joints: &JointSystem,
        approach: &[f64],
        (t, h): (f64, f64),
        stats: &mut StepStats,
    ) {
        let nc = contacts.len();
        // Sized first: a problem refused below still leaves the step's forces and velocities
        // (zero) for the caller's statistics.
        self.r.resize(3 * nc, 0.0);
        self.u.resize(3 * nc, 0.0);
        if drilling::any(contacts) {
            // Validation keeps cohesion, compliance and diagnostics out of scenes with drilling
            // torque.
            self.warm_start(contacts, bodies, stats);
            let opts = self.options();
            let report = drilling::solve(
                model,
                bodies,
                contacts,
                jac,
                approach,
                (t, h),
                &self.spec,
                joints,
                (&mut self.r, &mut self.u),
                &opts,
            );
            match report {
                Ok(report) => record(stats, &report),
                Err(e) => {
                    stats.converged = false;
                    stats.failure = Some(e);
                }
            }
            return;
        }
        let clock = Instant::now();
        // Without joints W = J M⁻¹ Jᵀ, and its factor lets Staggered Projections pose the
        // contact QP in the bodies' velocities (002 §5.3.6), and the velocity ADMM work in them.
        let factor = if joints.is_empty() && self.spec.solver.uses_factor() { jac.factor(bodies.len()) } else { None };
        // The velocity ADMM reads `W` only through its factor; unless compliance, cohesion or
        // the diagnostics read the whole of it, its diagonal blocks are all that is assembled.
        let diagonal_only = factor.is_some()
            && self.spec.solver == DfcpSolverSpec::VelocityAdmm
            && !self.spec.diagnostics
            && contacts.iter().all(|c| c.compliance == 0.0 && c.cohesion == 0.0);
        let blocks = if diagonal_only {
            jac.delassus_diagonal()
        } else {
            let mut blocks = jac.delassus_blocks(bodies.len(), |i| joints.joins(i));
            joints.add_delassus(jac, bodies, &mut blocks);
            blocks
        };
        let w = assemble::blocks_to_csc(nc, &blocks);
        let mut problem = match local_problem(model, bodies, contacts, w, approach, (t, h), &self.spec) {
            Ok(p) => match factor {
                Some(g) => p.with_factor(g).expect("the factor of the same contacts"),
                None => p,
            },
            Err(e) => {
                stats.converged = false;
                stats.failure = Some(e);
                return;
            }
        };
        // Compliant pairs: `W` regularised by their slack (`dfcp::compliance`); then cohesive
        // pairs: the problem in the shifted impulses (`dfcp::cohesion`), with that `W`.
        let compliance = Compliance::new(contacts.iter().map(|c| c.compliance), h);
        if let Some(c) = &compliance {
            problem = match c.regularise_local(problem) {
                Ok(p) => p,
                Err(e) => {
                    stats.converged = false;
                    stats.failure = Some(format!("compliant contacts: {e}"));
                    return;
                }
            };
        }
        let cohesion = Cohesion::new(contacts.iter().map(|c| c.cohesion * h));
        if let Some(c) = &cohesion {
            c.shift_local(&mut problem);
        }
        stats.assembly_s += clock.elapsed().as_secs_f64();
        self.warm_start(contacts, bodies, stats);
        if let Some(c) = &cohesion {
            c.shift_impulses(&mut self.r);
        }
        let opts = self.options();
        let solver = self.spec.solver;
        let report = if self.spec.islands && islands.len() > 1 {
            islands::solve(&problem, islands, &mut self.r, &mut self.u, &opts, |p, r, u, o| solve(solver, p, r, u, o))
        } else {
            solve(solver, &problem, &mut self.r, &mut self.u, &opts)
        };
        record(stats, &report);
        if self.spec.diagnostics {
            let k = solver.samples().unwrap_or(lemke_st::DEFAULT_SAMPLES);
            stats.diagnostics = Some(crate::dfcp::diagnostics::diagnose(&problem, &self.r, &self.u, k));
        }
        if let Some(c) = &cohesion {
            c.unshift_impulses(&mut self.r);
        }
        if let Some(c) = &compliance {
            c.contact_velocity(&self.r, &mut self.u);
        }
        jac.apply_impulses(&self.r, bodies);
    }
}

/// What the contact passes of a rigid step share: the bodies' inverse masses, the islands, the
/// contacts' approach speeds at the step's start, the predicted velocities, and the step.
struct Step<'a> {
    minv: &'a [assemble::Minv],
    islands: &'a [std::ops::Range<usize>],
    approach: &'a [f64],
    predicted: &'a [SVector<f64, 6>],
    t: f64,
    h: f64,
}

impl NonsmoothPipeline {
    /// The step's contact solve from the predicted velocities `bodies` hold, between the joints'
    /// projections, repeated while the motors change their active set.
    fn solve_passes(
        &mut self,
        model: &Model,
        bodies: &mut [RigidBody],
        contacts: &[Contact],
        joints: &mut JointSystem,
        step: &Step,
        stats: &mut StepStats,
    ) {
        let (minv, islands, approach, predicted, t, h) =
            (step.minv, step.islands, step.approach, step.predicted, step.t, step.h);
        let jac = ContactJacobian::new(model, bodies, contacts, minv.to_vec());
        for pass in 0.. {
            joints.begin_pass(bodies, minv);
            if !contacts.is_empty() {
                self.solve_contacts(model, bodies, contacts, islands, &jac, joints, approach, (t, h), stats);
                joints.end_pass(bodies, minv);
            }
            if !joints.update_motors(bodies, minv) {
                break;
            }
            if pass + 1 == MOTOR_PASSES {
                stats.converged = false;
                stats.failure =
                    Some(format!("joint motors: their active set still changed after {MOTOR_PASSES} contact solves"));
                break;
            }
            for (b, v) in bodies.iter_mut().zip(predicted) {
                b.set_velocity(v);
            }
        }
    }

    /// 003's fully implicit frame generator (`implicit_frames`): the contacts' frames and cones
    /// generated again at the end configuration the solve gives, and the step solved again from
    /// its predicted velocities with them, until no frame turns by more than the solve's
    /// `tolerance` in radians: a frame turned by δ turns the friction forces by δ, relative, the
    /// accuracy the solve itself has (and the end configuration a solve to that tolerance gives
    /// moves the frames by about as much, so a smaller threshold would chase the solver's
    /// error). The last solve's frames are the ones kept; a step whose frames still turn after
    /// `implicit_frames` re-solves fails. Jointed bodies' end poses are read before the joints'
    /// position projection (a second-order correction).
    #[allow(clippy::too_many_arguments)]
    fn implicit_frames(
        &mut self,
        model: &Model,
        bodies: &mut [RigidBody],
        contacts: &mut Vec<Contact>,
        joints: &mut JointSystem,
        step: &Step,
        start: (&[SVector<f64, 6>], bool),
        (verdict, stats): ((bool, Option<String>), &mut StepStats),
    ) {
        for pass in 0..=self.spec.implicit_frames {
            let mut end = bodies.to_vec();
            advance_step_poses(model, &mut end, start, step.t, step.h);
            let mut next = contacts.clone();
            let change = detect::regenerate(model, bodies, &end, &mut next, step.t + step.h);
            if change <= self.spec.tolerance {
                return;
            }
            if pass == self.spec.implicit_frames {
                stats.converged = false;
                stats.failure = Some(format!(
                    "implicit frames: the friction laws still change by {change:.1e} (rad, or relative) after {pass} re-solves (implicit_frames)"
                ));
                return;
            }
            *contacts = next;
            for (b, v) in bodies.iter_mut().zip(step.predicted) {
                b.set_velocity(v);
            }
            // Each solve is judged alone: an earlier pass's miss does not fail the last one.
            (stats.converged, stats.failure) = verdict.clone();
            self.solve_passes(model, bodies, contacts, joints, step, stats);
        }
    }
}

/// The step's position update from the end velocities `bodies` hold: from them (Moreau), or
/// from the mean of the start and end velocities (002's variational integrator, (4.54)).
fn advance_step_poses(
    model: &Model,
    bodies: &mut [RigidBody],
    (start_velocity, variational): (&[SVector<f64, 6>], bool),
    t: f64,
    h: f64,
) {
    if variational {
        let end: Vec<_> = bodies.iter().map(RigidBody::velocity).collect();
        for (b, (v0, v1)) in bodies.iter_mut().zip(start_velocity.iter().zip(&end)) {
            b.set_velocity(&((v0 + v1) * 0.5));
        }
        advance_rigid_poses(model, bodies, t, h);
        for (b, v1) in bodies.iter_mut().zip(&end) {
            b.set_velocity(v1);
        }
    } else {
        advance_rigid_poses(model, bodies, t, h);
    }
}

impl NonsmoothPipeline {
    /// The step's initial forces in `self.r`: the previous step's where the scene warm-starts.
    fn warm_start(&mut self, contacts: &[Contact], bodies: &[RigidBody], stats: &mut StepStats) {
        if self.spec.warm_start {
            let radius = self.spec.contact_margin.max(1e-3);
            stats.warm_started = self.warm.fill(contacts, bodies, radius, &mut self.r);
        } else {
            self.r.fill(0.0);
        }
    }
}

/// A contact solve in the step's statistics; a solve short of the tolerance fails the step.
fn record(stats: &mut StepStats, report: &SolveReport) {
    stats.add_solve(report);
    stats.final_residual = report.residual_rel;
    stats.linear_solve_s += report.time.as_secs_f64();
    if !report.converged {
        stats.converged = false;
        stats.failure = Some(format!("contact solver {report}"));
    }
}

/// Predicted velocities of the step (002's predictor): gravity and the implicit gyroscopic term
/// for dynamic bodies, the prescribed velocity for scripted ones.
pub(crate) fn predict_rigid(model: &Model, bodies: &mut [RigidBody], t: f64, h: f64) {
    for (b, r) in bodies.iter_mut().zip(&model.rigids) {
        match &r.motion {
            Some(m) => {
                let step = m.step(t, h);
                b.linear_velocity = step.material_velocity(&r.rest_position);
                // A turning script gives the rotation (validation forbids a spin with it).
                b.angular_velocity = if m.rotates() { step.angular_velocity() } else { r.spin };
            }
            None => {
                b.linear_velocity += h * model.gravity;
                b.angular_velocity = gyroscopic(b, h);
            }
        }
    }
}

/// Poses at the end of the step: from the new velocity for dynamic bodies; scripted ones land
/// exactly on their path and either take their scripted orientation or turn at their spin.
pub(crate) fn advance_rigid_poses(model: &Model, bodies: &mut [RigidBody], t: f64, h: f64) {
    for (b, r) in bodies.iter_mut().zip(&model.rigids) {
        match &r.motion {
            Some(m) if m.rotates() => {
                b.position = m.point(&r.rest_position, t + h);
                b.orientation = m.rotation(t + h) * r.rest_orientation;
            }
            Some(m) => {
                b.position = m.point(&r.rest_position, t + h);
                let dq = UnitQuaternion::from_scaled_axis(h * r.spin);
                b.orientation = UnitQuaternion::new_normalize((dq * b.orientation).into_inner());
            }
            None => b.integrate_position(h),
        }
    }
}

/// Contact points with their forces (impulse / h, in N) split into normal and friction parts.
fn contact_points(contacts: &[Contact], r: &[f64], h: f64) -> Vec<ContactPoint> {
    contacts
        .iter()
        .enumerate()
        .map(|(i, c)| {
            let f: &Matrix3<f64> = &c.contact.frame;
            let rn = r.get(3 * i).copied().unwrap_or(0.0) / h;
            let (rt, rb) = (r.get(3 * i + 1).copied().unwrap_or(0.0) / h, r.get(3 * i + 2).copied().unwrap_or(0.0) / h);
            ContactPoint {
                point: c.contact.point,
                normal_force: f.column(0) * rn,
                friction_force: f.column(1) * rt + f.column(2) * rb,
                tangent: f.column(1).into_owned(),
                mu: [c.cone.mu_t, c.cone.mu_b],
                gap: c.contact.gap,
            }
        })
        .collect()
}
