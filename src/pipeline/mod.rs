//! Pipelines: a pipeline advances the `State` by one time step.

pub mod nonsmooth;
pub mod penalty;
pub mod smooth;

use crate::model::{Model, State};

/// Statistics of one time step, one row of `stats.csv`.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct StepStats {
    pub newton_iterations: usize,
    /// Final residual as an acceleration, `|M^-1 r / h|_inf` over free DOFs (m/s^2).
    pub final_residual: f64,
    pub line_search_steps: usize,
    /// Solves of this step (1 + repeats with a stiffer penalty or new contact candidates).
    pub contact_iterations: usize,
    pub kappa: f64,
    pub active_contacts: usize,
    /// Contact constraints of the step's problem where they outnumber the active contacts
    /// (`Smooth`: every vertex within a field's reach, 000 Table 2's n); `None`: the active ones.
    pub constraints: Option<usize>,
    /// Smallest gap among active contacts at the end of the step (+inf without contacts).
    pub min_gap: f64,
    pub converged: bool,
    /// Why the step did not converge.
    pub failure: Option<String>,
    pub elastic_energy: f64,
    /// Time steps actually taken for this step (1, or more when Newton failures halved it).
    pub substeps: usize,
    /// GMRES iterations and sparse factorizations of the Newton linear solves (under ADMM: the
    /// CG iterations of its global steps).
    pub linear_iterations: usize,
    pub factorizations: usize,
    /// Wall time spent assembling (s) and in the linear solves (s); for the nonsmooth pipeline
    /// the contact problem's assembly and its solver.
    pub assembly_s: f64,
    pub linear_solve_s: f64,
    /// Wall time of contact detection (s).
    pub detection_s: f64,
    /// Iterations of the contact solver (nonsmooth pipeline).
    pub solver_iterations: usize,
    /// PROX's sweeps and rejected sweeps (divergences, each answered by an r-factor
    /// reduction) over the step's solves (`solver: Prox`).
    pub prox_sweeps: usize,
    pub prox_rejections: usize,
    /// Contacts whose solve started from the previous step's force.
    pub warm_started: usize,
    /// Contacts added by continuous collision detection (during the ADMM iterations or after
    /// the solve).
    pub ccd_contacts: usize,
    /// Wall time of the nodal ADMM's contact projections (s), not counted in `linear_solve_s`.
    pub projection_s: f64,
    /// Smooth pipeline: projections of the friction solve (Staggered Projections) and the passes
    /// over the contacts they took (000 Table 2's `i_k` is their ratio).
    pub projections: usize,
    pub projection_passes: usize,
    /// Relative natural-map error of the step's friction problem (Smooth pipeline).
    pub friction_residual: f64,
    /// 002's diagnostics of the step's rigid-body contact problem, when the scene asks.
    pub diagnostics: Option<crate::dfcp::diagnostics::Diagnostics>,
}

impl StepStats {
    /// Count a contact solve's work: its iterations, and PROX's sweeps and rejections.
    pub fn add_solve(&mut self, report: &crate::dfcp::solver::SolveReport) {
        self.solver_iterations += report.iterations;
        if let Some(p) = report.prox {
            self.prox_sweeps += p.sweeps;
            self.prox_rejections += p.rejected;
        }
    }

    /// Add the work counters and times of another solve (e.g. a failed attempt).
    pub fn add_work(&mut self, s: &StepStats) {
        self.newton_iterations += s.newton_iterations;
        self.line_search_steps += s.line_search_steps;
        self.contact_iterations += s.contact_iterations;
        self.linear_iterations += s.linear_iterations;
        self.factorizations += s.factorizations;
        self.assembly_s += s.assembly_s;
        self.linear_solve_s += s.linear_solve_s;
        self.detection_s += s.detection_s;
        self.solver_iterations += s.solver_iterations;
        self.prox_sweeps += s.prox_sweeps;
        self.prox_rejections += s.prox_rejections;
        self.projections += s.projections;
        self.projection_passes += s.projection_passes;
    }

    /// Add a sub-step: work and sub-step counts summed, state-like fields taken from it.
    pub fn accumulate(&mut self, s: &StepStats) {
        self.add_work(s);
        self.substeps += s.substeps;
        self.final_residual = s.final_residual;
        self.kappa = s.kappa;
        self.active_contacts = s.active_contacts;
        self.constraints = s.constraints;
        self.min_gap = s.min_gap;
        self.elastic_energy = s.elastic_energy;
        self.friction_residual = s.friction_residual;
        self.diagnostics = s.diagnostics;
        self.converged &= s.converged;
        if self.failure.is_none() {
            self.failure = s.failure.clone();
        }
    }
}

/// An error that makes further stepping meaningless.
#[derive(Debug, thiserror::Error)]
pub enum StepError {
    #[error("the state became non-finite (NaN or infinity) at t = {time} s")]
    NonFinite { time: f64 },
    #[error("the step from t = {time} s cannot be taken: {why}")]
    Undefined { time: f64, why: String },
}

/// The contact-point record pipelines report and the output writes (it lives below both).
pub use crate::contact::ContactPoint;

pub trait Pipeline {
    /// Advance `state` by `model.dt`.
    fn step(&mut self, model: &Model, state: &mut State) -> Result<StepStats, StepError>;
    /// Per-node contact (normal) and friction forces (N) of the last step, 3 entries per node.
    fn contact_forces(&mut self, model: &Model, state: &State) -> (Vec<f64>, Vec<f64>);
    /// Contact points of the last step (pipelines with discrete contact forces).
    fn contact_points(&self) -> &[ContactPoint] {
        &[]
    }
    /// Human-readable name for summaries.
    fn describe(&self) -> String;
    /// What the pipeline carries from one step to the next (for a checkpoint).
    fn save(&self) -> crate::checkpoint::PipelineData;
    /// Continue from a checkpoint's data; the pipeline was built from the run's initial state.
    fn restore(&mut self, data: crate::checkpoint::PipelineData) -> Result<(), String>;
}

/// The refusal of a checkpoint taken by another pipeline.
/// The pipeline a model's scene asks for.
pub fn build(model: &Model, state: &State) -> Box<dyn Pipeline> {
    match &model.pipeline {
        crate::scene::schema::PipelineSpec::Penalty(spec) => {
            Box::new(penalty::PenaltyPipeline::new(model, state, spec.clone()))
        }
        crate::scene::schema::PipelineSpec::Nonsmooth(spec) => {
            Box::new(nonsmooth::NonsmoothPipeline::new(model, spec.clone()))
        }
        crate::scene::schema::PipelineSpec::Smooth(spec) => {
            Box::new(smooth::SmoothPipeline::new(model, state, spec.clone()))
        }
    }
}
