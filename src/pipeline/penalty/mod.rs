//! The penalty pipeline of 001: cubic penalty contact with adaptive stiffening, smoothed
//! Coulomb/Stribeck friction evaluated implicitly (or lagged), any integrator of
//! `crate::integrator` with the whole force in every stage, damped Newton with a backtracking line
//! search on the residual norm.

pub mod contacts;
pub mod elements;
pub mod linear_choice;
pub mod matrix_free;
mod newton;
mod node_blocks;
pub mod stiffness_cholesky;
pub mod system;

use super::{Pipeline, StepError, StepStats};
use crate::contact::penalty::Penalty;
use crate::integrator::{Level, LevelState, Levels, Scheme};
use crate::linalg::newton_solver::Direct;
use crate::model::{Model, State, StepHistory, node};
use crate::scene::schema::{FrictionEvaluation, IntegratorSpec, LinearSolverSpec, PenaltySpec};
use contacts::{Detector, lagged_entries};
use newton::StageProblem;
use system::{StageSystem, System};

pub struct PenaltyPipeline {
    spec: PenaltySpec,
    system: System,
    kappa0: f64,
    // Buffers reused every step.
    q: Vec<f64>,
    v_trial: Vec<f64>,
    dir: Vec<f64>,
    lagged: Vec<contacts::ContactEntry>,
    /// The last stage of the last step, for force output.
    last: Option<StageSystem>,
    /// Name of the scheme of the last step.
    scheme_name: &'static str,
    /// Work space of the matrix-free Newton (made at its first use).
    iterative: Option<matrix_free::IterativeSolver>,
}

/// Outcome of the stages of one step.
struct StagesOutcome {
    failure: Option<String>,
    residual: f64,
    /// Smallest active gap over every stage's final contacts.
    min_gap: f64,
    active_contacts: usize,
}

impl PenaltyPipeline {
    pub fn new(model: &Model, state: &State, spec: PenaltySpec) -> PenaltyPipeline {
        let n = model.dof_count();
        // Whether Newton runs matrix-free (`Iterative`, or `Auto` on soft solids) is held by the
        // system as `!assembled`.
        let mut system = System::new(model, !linear_choice::is_matrix_free(model, &spec.newton));
        system.linear.direct = if spec.newton.linear_solver == LinearSolverSpec::Lu { Direct::Lu } else { Direct::Off };
        let nf = system.n_free;
        PenaltyPipeline {
            scheme_name: Scheme::new(spec.integrator, false).name,
            spec,
            system,
            kappa0: state.kappa,
            q: vec![0.0; n],
            v_trial: vec![0.0; n],
            dir: vec![0.0; nf],
            lagged: Vec::new(),
            last: None,
            iterative: None,
        }
    }

    /// Body and contact forces at a known level `(q, v)` in the window `sys`; with `lagged`, the
    /// friction of the current lagged entries (a stage's own force), otherwise implicit.
    #[allow(clippy::too_many_arguments)]
    fn known_force(
        &mut self,
        model: &Model,
        detector: &Detector,
        penalty: Penalty,
        sys: StageSystem,
        level: &LevelState,
        lagged: bool,
        stats: &mut StepStats,
    ) -> Result<(Vec<f64>, Vec<f64>), String> {
        let start = std::time::Instant::now();
        let basis = self.spec.newton.sliding_basis_derivatives;
        detector.detect(model, &level.q, sys.t1(), penalty, basis, &mut self.system.contacts);
        if lagged {
            contacts::strip_friction(&mut self.system.contacts);
            self.system.contacts.extend_from_slice(&self.lagged);
        }
        let res = self.system.evaluate(model, &sys.forces_only(), &level.q, &level.v, &level.v, false, None);
        stats.assembly_s += start.elapsed().as_secs_f64();
        res.map_err(|e| format!("force undefined at a known level of the integrator: {e:?}"))?;
        Ok((self.system.force_body.clone(), self.system.force_contact.clone()))
    }

    /// Solve every stage of `scheme` in order, pushing each result onto `levels.stages`. A failed
    /// stage is recorded and the later stages still run, so the step always covers all of h.
    #[allow(clippy::too_many_arguments)]
    fn solve_stages(
        &mut self,
        model: &Model,
        scheme: &Scheme,
        levels: &mut Levels,
        detector: &Detector,
        penalty: Penalty,
        h: f64,
        stats: &mut StepStats,
    ) -> StagesOutcome {
        let t0 = levels.start.t;
        let explicit = scheme.explicit_force_levels();
        let lagged = self.spec.friction == FrictionEvaluation::Lagged;
        let mut out = StagesOutcome { failure: None, residual: 0.0, min_gap: f64::INFINITY, active_contacts: 0 };
        if explicit.contains(&Level::Start) {
            // The start force is the whole force at (q0, v0): lagged and implicit friction agree there.
            let window =
                StageSystem { dq_dv: 0.0, bh: crate::integrator::ForceWeights::whole(0.0), t0: t0 - h, duration: h };
            match self.known_force(model, detector, penalty, window, &levels.start, false, stats) {
                Ok(f) => levels.start.force = Some(f),
                Err(e) => out.failure = Some(e),
            }
        }
        let n = model.dof_count();
        for (s, st) in scheme.stages.iter().enumerate() {
            let (mut q_hat, mut v_hat) = (vec![0.0; n], vec![0.0; n]);
            if levels.start.force.is_none() && explicit.contains(&Level::Start) {
                break;
            }
            st.known(levels, h, &model.node_mass, &mut q_hat, &mut v_hat);
            let sys = StageSystem {
                dq_dv: st.a * h,
                bh: crate::integrator::ForceWeights { body: st.b.body * h, contact: st.b.contact * h },
                t0,
                duration: st.c * h,
            };
            model.set_stage_kinematic_velocities(&levels.start.q, &q_hat, t0, sys.duration, sys.dq_dv, &mut v_hat);
            // Initial guess: the latest known velocity, scripted nodes on their path. (The velocity
            // extrapolated from the two latest levels saves Newton iterations while accelerations
            // are constant, ramp_6k 2.42 -> 2.18 per step, but costs more where contacts come and
            // go, the tube bend 9.0 -> 10.7; measured.)
            let mut v = levels.stages.last().unwrap_or(&levels.start).v.clone();
            for (i, vi) in v.iter_mut().enumerate() {
                if model.node_is_kinematic[i / 3] {
                    *vi = v_hat[i];
                }
            }
            let rounds = if lagged { 1 + self.spec.lagged_iterations } else { 1 };
            let mut q_s = levels.start.q.clone();
            let mut t_lag = t0;
            for _ in 0..rounds {
                if lagged {
                    // Round 0 freezes normal forces and sliding basis at the step start (IPC);
                    // each fixed-point round takes them from the previous round's end positions.
                    let mut at = Vec::new();
                    detector.detect(model, &q_s, t_lag, penalty, false, &mut at);
                    self.lagged = lagged_entries(&at, model, &detector.implicit, &q_s, t_lag);
                }
                let prob = StageProblem { detector, penalty, q_hat: &q_hat, v_hat: &v_hat, sys };
                let outcome = if !self.system.assembled {
                    self.newton_matrix_free(model, &prob, &mut v, stats)
                } else {
                    self.newton(model, &prob, &mut v, stats)
                };
                stats.newton_iterations += outcome.iterations;
                stats.line_search_steps += outcome.line_search_steps;
                out.residual = out.residual.max(outcome.residual);
                if out.failure.is_none() {
                    out.failure = outcome.failure.map(|f| format!("stage {} of {}: {f}", s + 1, scheme.name));
                }
                for ((qi, qh), vi) in q_s.iter_mut().zip(&q_hat).zip(&v) {
                    *qi = qh + sys.dq_dv * vi;
                }
                t_lag = sys.t1();
            }
            let active = self.system.contacts.iter().filter(|c| c.params.penalty.kappa > 0.0);
            out.active_contacts = out.active_contacts.max(active.clone().count());
            out.min_gap = active.map(|c| c.gap).fold(out.min_gap, f64::min);
            let mut level = LevelState { q: q_s, v, force: None, t: sys.t1() };
            if explicit.contains(&Level::Stage(s)) {
                match self.known_force(model, detector, penalty, sys, &level, lagged, stats) {
                    Ok(f) => level.force = Some(f),
                    Err(e) => {
                        out.failure.get_or_insert(e);
                        break;
                    }
                }
            }
            levels.stages.push(level);
            self.last = Some(sys.forces_only());
        }
        out
    }

    /// One step of size `h` from `state` (committed even when it failed, see `step`).
    fn advance(&mut self, model: &Model, state: &mut State, h: f64) -> Result<StepStats, StepError> {
        let t0 = state.time;
        let history = state.history.take().filter(|past| past.h == h);
        let scheme = Scheme::new(self.spec.integrator, history.is_some());
        self.scheme_name = scheme.name;
        let mut levels = Levels {
            previous: history.map(|p| LevelState { q: p.q, v: p.v, force: None, t: t0 - h }),
            start: LevelState { q: state.q.clone(), v: state.v.clone(), force: None, t: t0 },
            stages: Vec::new(),
        };
        let delta = self.spec.contact.delta;
        let mut detector = Detector::new(model, &state.q, Self::search_margin(model, state, delta, h));
        self.system.implicit = detector.implicit.clone();
        let mut stats = StepStats::default();
        if let Err(e) = self.system.prepare_damping(model, &state.q) {
            stats.failure = Some(format!("damping stiffness undefined at the step start: {e:?}"));
        }
        let max_ci = self.spec.contact.max_contact_iterations;
        for ci in 0..=max_ci {
            stats.contact_iterations = ci + 1;
            let penalty = Penalty { delta, kappa: state.kappa };
            levels.stages.clear();
            levels.start.force = None;
            let outcome = self.solve_stages(model, &scheme, &mut levels, &detector, penalty, h, &mut stats);
            stats.final_residual = outcome.residual;
            stats.failure = outcome.failure;
            stats.active_contacts = outcome.active_contacts;
            stats.min_gap = outcome.min_gap;
            stats.elastic_energy = self.system.elastic_energy;
            if ci == max_ci || stats.failure.is_some() {
                break;
            }
            let end = &levels.stages.last().expect("every stage ran").q;
            let missed = detector.missed_contacts(model, end, delta);
            if stats.min_gap < 0.0 {
                state.kappa *= penalty.stiffening_factor(stats.min_gap);
            } else if !missed {
                break;
            }
            if missed {
                detector = Detector::new(model, &state.q, 2.0 * detector.margin);
                self.system.implicit = detector.implicit.clone();
            }
        }
        // Relax a stiffened penalty only once nothing is in contact (never while contacts are active).
        if stats.active_contacts == 0 && state.kappa > self.kappa0 {
            state.kappa = (0.5 * state.kappa).max(self.kappa0);
        }
        stats.kappa = state.kappa;
        stats.converged = stats.failure.is_none();
        stats.substeps = 1;
        let Some(end) = levels.stages.pop() else {
            let why = stats.failure.unwrap_or_default();
            return Err(StepError::Undefined { time: t0, why });
        };
        if self.spec.integrator == IntegratorSpec::Bdf2 {
            let start = std::mem::take(&mut levels.start);
            state.history = Some(StepHistory { q: start.q, v: start.v, h });
        }
        state.q = end.q;
        state.v = end.v;
        state.time = t0 + h;
        state.step += 1;
        if state.q.iter().chain(&state.v).any(|x| !x.is_finite()) {
            return Err(StepError::NonFinite { time: state.time });
        }
        Ok(stats)
    }

    /// A step of size `h`; if Newton fails, redo it as two steps of `h/2` (up to `levels` times
    /// recursively). Stick-slip (Stribeck) friction whose negative slope exceeds `M/h` makes the
    /// implicit step bistable, so Newton can stall at a minimum of |r| that is no root; a smaller
    /// step restores a unique solution. Statistics of the sub-steps are summed.
    fn step_halving(
        &mut self,
        model: &Model,
        state: &mut State,
        h: f64,
        levels: usize,
    ) -> Result<StepStats, StepError> {
        let saved = (levels > 0).then(|| state.clone());
        let stats = self.advance(model, state, h)?;
        let Some(saved) = saved.filter(|_| stats.failure.is_some()) else { return Ok(stats) };
        *state = saved;
        let step = state.step;
        // Both halves always run, so the step covers all of h (the time grid and the frame times
        // stay exact even when the run continues past a failure); the first failure is reported.
        let mut total = StepStats { substeps: 0, converged: true, ..StepStats::default() };
        for _ in 0..2 {
            let s = self.step_halving(model, state, 0.5 * h, levels - 1)?;
            total.accumulate(&s);
        }
        state.step = step + 1;
        total.add_work(&stats);
        Ok(total)
    }

    fn search_margin(model: &Model, state: &State, delta: f64, h: f64) -> f64 {
        let vmax = (0..model.node_count()).map(|i| node(&state.v, i).norm()).fold(0.0, f64::max);
        2.0 * delta + 2.0 * h * (vmax + h * model.gravity.norm())
    }
}

impl Pipeline for PenaltyPipeline {
    fn step(&mut self, model: &Model, state: &mut State) -> Result<StepStats, StepError> {
        self.step_halving(model, state, model.dt, self.spec.newton.max_step_halvings)
    }

    fn contact_forces(&mut self, model: &Model, state: &State) -> (Vec<f64>, Vec<f64>) {
        let n = model.dof_count();
        let (mut fnorm, mut ffric) = (vec![0.0; n], vec![0.0; n]);
        if let Some(sys) = self.last {
            // The last evaluation's contact entries are those of the final iterate; evaluate their
            // forces at the committed state (q = q1, v = v1).
            let _ =
                self.system.evaluate(model, &sys, &state.q, &state.v, &state.v, false, Some((&mut fnorm, &mut ffric)));
        }
        (fnorm, ffric)
    }

    fn save(&self) -> crate::checkpoint::PipelineData {
        crate::checkpoint::PipelineData::of("Penalty", &self.system.snapshot())
    }

    fn restore(&mut self, data: crate::checkpoint::PipelineData) -> Result<(), String> {
        self.system.restore(data.read("Penalty")?)
    }

    fn describe(&self) -> String {
        format!(
            "Penalty ({}, {:?} friction, delta {} m, damped Newton, {} linear solves)",
            self.scheme_name,
            self.spec.friction,
            self.spec.contact.delta,
            linear_choice::name(self.spec.newton.linear_solver, !self.system.assembled)
        )
    }
}
