//! The penalty pipeline of 001: cubic penalty contact with adaptive stiffening, smoothed
//! Coulomb/Stribeck friction evaluated implicitly (or lagged), backward Euler, damped Newton with
//! sparse LU and a backtracking line search on the residual norm.

pub mod contacts;
pub mod system;

use super::{Pipeline, StepError, StepStats};
use crate::contact::penalty::Penalty;
use crate::model::{Model, State, node};
use crate::scene::schema::{FrictionEvaluation, LinearSolverSpec, NewtonSpec, PenaltySpec};
use contacts::{Detector, lagged_entries, strip_friction};
use std::time::Instant;
use system::{BACKWARD_EULER, Stage, System};

pub struct PenaltyPipeline {
    spec: PenaltySpec,
    system: System,
    kappa0: f64,
    // Buffers reused every step.
    q: Vec<f64>,
    v_trial: Vec<f64>,
    dir: Vec<f64>,
    lagged: Vec<contacts::ContactEntry>,
    last: Option<(f64, f64)>, // (t1, h) of the last step, for force output
    /// Step size of the solve in progress (the scene's dt, or a fraction of it when halving).
    h: f64,
}

/// Outcome of one Newton solve.
struct NewtonOutcome {
    iterations: usize,
    line_search_steps: usize,
    residual: f64,
    failure: Option<String>,
}

impl PenaltyPipeline {
    pub fn new(model: &Model, state: &State, spec: PenaltySpec) -> PenaltyPipeline {
        let n = model.dof_count();
        let mut system = System::new(model);
        system.linear.direct_lu = spec.newton.linear_solver == LinearSolverSpec::Lu;
        let nf = system.n_free;
        PenaltyPipeline {
            spec,
            system,
            kappa0: state.kappa,
            q: vec![0.0; n],
            v_trial: vec![0.0; n],
            dir: vec![0.0; nf],
            lagged: Vec::new(),
            last: None,
            h: model.dt,
        }
    }

    fn stage(&self) -> Stage {
        match self.spec.integrator {
            crate::scene::schema::IntegratorSpec::BackwardEuler => BACKWARD_EULER,
        }
    }

    /// Acceleration norms of the residual: (inf-norm, 2-norm) of `r_i / (m_i h)` over free DOFs.
    fn residual_norms(&self, model: &Model, h: f64) -> (f64, f64) {
        let (mut inf, mut sq) = (0.0f64, 0.0);
        for (dof, &fi) in self.system.free.iter().enumerate() {
            if fi != usize::MAX {
                let a = self.system.residual[fi] / (model.node_mass[dof / 3] * h);
                inf = inf.max(a.abs());
                sq += a * a;
            }
        }
        (if sq.is_finite() { inf } else { f64::INFINITY }, sq.sqrt())
    }

    /// Positions `q = q0 + a h v`, then contacts at `q`, then the residual (and Jacobian).
    #[allow(clippy::too_many_arguments)]
    fn evaluate(
        &mut self,
        model: &Model,
        detector: &Detector,
        penalty: Penalty,
        q0: &[f64],
        v: &[f64],
        v_hat: &[f64],
        t1: f64,
        jacobian: bool,
        timing: &mut StepStats,
    ) -> Result<(), system::EvalError> {
        let start = Instant::now();
        let stage = self.stage();
        let h = self.h;
        for ((qi, q0i), vi) in self.q.iter_mut().zip(q0).zip(v) {
            *qi = q0i + stage.a * h * vi;
        }
        let basis = self.spec.newton.sliding_basis_derivatives;
        detector.detect(model, &self.q, t1, penalty, basis, &mut self.system.contacts);
        if self.spec.friction == FrictionEvaluation::Lagged {
            strip_friction(&mut self.system.contacts);
            self.system.contacts.extend_from_slice(&self.lagged);
        }
        let q = std::mem::take(&mut self.q);
        let mut res = self.system.evaluate(model, stage, h, t1, &q, v, v_hat, jacobian, None);
        if res.is_ok() && jacobian && self.system.grow_pattern_if_needed(model) {
            res = self.system.evaluate(model, stage, h, t1, &q, v, v_hat, jacobian, None);
        }
        self.q = q;
        timing.assembly_s += start.elapsed().as_secs_f64();
        res
    }

    /// Damped Newton (001 Algorithm 1) from the initial guess in `v`.
    #[allow(clippy::too_many_arguments)]
    fn newton(
        &mut self,
        model: &Model,
        detector: &Detector,
        penalty: Penalty,
        q0: &[f64],
        v_hat: &[f64],
        v: &mut [f64],
        t1: f64,
        stats: &mut StepStats,
    ) -> NewtonOutcome {
        let NewtonSpec {
            residual_tolerance,
            step_tolerance,
            max_iterations,
            armijo,
            backtrack,
            max_line_search_steps,
            ..
        } = self.spec.newton;
        let h = self.h;
        let mut out = NewtonOutcome { iterations: 0, line_search_steps: 0, residual: f64::INFINITY, failure: None };
        loop {
            if let Err(e) = self.evaluate(model, detector, penalty, q0, v, v_hat, t1, true, stats) {
                out.failure = Some(format!("residual undefined at the current iterate: {e:?}"));
                return out;
            }
            let (res, merit) = self.residual_norms(model, h);
            out.residual = res;
            if res <= residual_tolerance {
                return out;
            }
            if !res.is_finite() {
                out.failure = Some("residual is not finite".into());
                return out;
            }
            if out.iterations >= max_iterations {
                out.failure =
                    Some(format!("no convergence in {max_iterations} Newton iterations (residual {res:.3e} m/s^2)"));
                return out;
            }
            // Inexact Newton forcing: the linear residual only needs to fall a decade below what
            // the Newton tolerance asks of this iterate; tighter solves buy nothing.
            self.system.linear.rel_tol = (0.1 * residual_tolerance / res).clamp(1e-10, 1e-3);
            let start = Instant::now();
            let mut dir = std::mem::take(&mut self.dir);
            let solved = self.system.newton_direction(&mut dir);
            stats.linear_solve_s += start.elapsed().as_secs_f64();
            match solved {
                Ok(info) => {
                    stats.linear_iterations += info.gmres_iterations;
                    stats.factorizations += info.factorizations;
                }
                Err(e) => {
                    self.dir = dir;
                    out.failure = Some(e.to_string());
                    return out;
                }
            }
            out.iterations += 1;
            // Backtracking on the acceleration-weighted residual norm (a descent direction for any
            // fixed weighting since J p = -r).
            let mut alpha = 1.0;
            let mut accepted = false;
            for _ in 0..=max_line_search_steps {
                self.v_trial.copy_from_slice(v);
                for (dof, &fi) in self.system.free.iter().enumerate() {
                    if fi != usize::MAX {
                        self.v_trial[dof] += alpha * dir[fi];
                    }
                }
                let trial = std::mem::take(&mut self.v_trial);
                let ok = self.evaluate(model, detector, penalty, q0, &trial, v_hat, t1, false, stats).is_ok();
                self.v_trial = trial;
                let merit_trial = if ok { self.residual_norms(model, h).1 } else { f64::INFINITY };
                if merit_trial <= (1.0 - armijo * alpha) * merit {
                    accepted = true;
                    break;
                }
                alpha *= backtrack;
                out.line_search_steps += 1;
            }
            let step_inf = alpha * dir.iter().fold(0.0f64, |m, d| m.max(d.abs()));
            self.dir = dir;
            if !accepted {
                out.failure = Some(format!(
                    "line search found no decrease in {max_line_search_steps} halvings (residual {res:.3e} m/s^2)"
                ));
                return out;
            }
            v.copy_from_slice(&self.v_trial);
            if step_inf <= step_tolerance {
                // Re-evaluate to report the residual at the final iterate, then decide.
                if self.evaluate(model, detector, penalty, q0, v, v_hat, t1, false, stats).is_ok() {
                    out.residual = self.residual_norms(model, h).0;
                }
                if out.residual > residual_tolerance {
                    out.failure = Some(format!(
                        "Newton stalled: step {step_inf:.3e} m/s below step_tolerance with residual {:.3e} m/s^2",
                        out.residual
                    ));
                }
                return out;
            }
        }
    }

    /// One implicit step of size `h` from `state` (committed even when it failed, see `step`).
    fn advance(&mut self, model: &Model, state: &mut State, h: f64) -> Result<StepStats, StepError> {
        self.h = h;
        let (t0, t1) = (state.time, state.time + h);
        let q0 = state.q.clone();
        let mut v_hat = state.v.clone();
        // Scripted nodes move with their mean velocity over the step, so they land on their path.
        model.set_kinematic_velocities(&q0, t0, h, &mut v_hat);
        let delta = self.spec.contact.delta;
        let mut detector = Detector::new(model, &q0, Self::search_margin(model, state, delta, h));
        let mut stats = StepStats::default();
        if let Err(e) = self.system.prepare_damping(model, &q0) {
            stats.failure = Some(format!("damping stiffness undefined at the step start: {e:?}"));
        }
        let mut v = v_hat.clone();
        let max_ci = self.spec.contact.max_contact_iterations;
        for ci in 0..=max_ci {
            stats.contact_iterations = ci + 1;
            let penalty = Penalty { delta, kappa: state.kappa };
            self.lagged.clear();
            if self.spec.friction == FrictionEvaluation::Lagged {
                let mut at_q0 = Vec::new();
                detector.detect(model, &q0, t0, penalty, false, &mut at_q0);
                self.lagged = lagged_entries(&at_q0, model, &q0, t0);
            }
            v.copy_from_slice(&v_hat);
            let outcome = self.newton(model, &detector, penalty, &q0, &v_hat, &mut v, t1, &mut stats);
            stats.newton_iterations += outcome.iterations;
            stats.line_search_steps += outcome.line_search_steps;
            stats.final_residual = outcome.residual;
            stats.failure = outcome.failure;
            let contacts = &self.system.contacts;
            stats.active_contacts = contacts.iter().filter(|c| c.params.penalty.kappa > 0.0).count();
            stats.min_gap =
                contacts.iter().filter(|c| c.params.penalty.kappa > 0.0).map(|c| c.gap).fold(f64::INFINITY, f64::min);
            stats.elastic_energy = self.system.elastic_energy;
            if ci == max_ci || stats.failure.is_some() {
                break;
            }
            let missed = detector.missed_contacts(model, &self.q, delta);
            if stats.min_gap < 0.0 {
                state.kappa *= penalty.stiffening_factor(stats.min_gap);
            } else if !missed {
                break;
            }
            if missed {
                detector = Detector::new(model, &q0, 2.0 * detector.margin);
            }
        }
        // Relax a stiffened penalty only once nothing is in contact (never while contacts are active).
        if stats.active_contacts == 0 && state.kappa > self.kappa0 {
            state.kappa = (0.5 * state.kappa).max(self.kappa0);
        }
        stats.kappa = state.kappa;
        stats.converged = stats.failure.is_none();
        stats.substeps = 1;
        let stage = self.stage();
        for ((qi, q0i), vi) in state.q.iter_mut().zip(&q0).zip(&v) {
            *qi = q0i + stage.a * h * vi;
        }
        state.v = v;
        state.time = t1;
        state.step += 1;
        self.last = Some((t1, h));
        if state.q.iter().chain(&state.v).any(|x| !x.is_finite()) {
            return Err(StepError::NonFinite { time: t1 });
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
        if let Some((t1, h)) = self.last {
            // The last evaluation's contact entries are those of the final iterate; evaluate their
            // forces at the committed state (q = q1, v = v1).
            let stage = Stage { a: 0.0, ..self.stage() };
            let _ = self.system.evaluate(
                model,
                stage,
                h,
                t1,
                &state.q,
                &state.v,
                &state.v,
                false,
                Some((&mut fnorm, &mut ffric)),
            );
        }
        (fnorm, ffric)
    }

    fn describe(&self) -> String {
        format!(
            "Penalty (backward Euler, {:?} friction, delta {} m, damped Newton + sparse LU)",
            self.spec.friction, self.spec.contact.delta
        )
    }
}
