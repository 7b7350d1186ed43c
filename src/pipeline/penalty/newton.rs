//! The Newton solves of one integrator stage: damped Newton on the assembled Jacobian (001
//! Algorithm 1, `linear_solver: Gmres | Lu`, and `Auto` where it assembles) and its stopping and line-search rules.

use super::PenaltyPipeline;
use super::contacts::{Detector, strip_friction};
use super::system::{EvalError, StageSystem};
use crate::contact::penalty::Penalty;
use crate::model::Model;
use crate::pipeline::StepStats;
use crate::scene::schema::{FrictionEvaluation, NewtonSpec};
use std::time::Instant;

/// What one stage's Newton solve knows: `q = q_hat + dq_dv v`, `r = M (v - v_hat) - b h f`.
pub(super) struct StageProblem<'a> {
    pub detector: &'a Detector,
    pub penalty: Penalty,
    pub q_hat: &'a [f64],
    pub v_hat: &'a [f64],
    pub sys: StageSystem,
}

/// Outcome of one Newton solve.
pub(super) struct NewtonOutcome {
    pub iterations: usize,
    pub line_search_steps: usize,
    pub residual: f64,
    pub failure: Option<String>,
}

impl PenaltyPipeline {
    /// Positions `q = q_hat + dq_dv v`, then contacts at `q`, then the residual (and Jacobian).
    pub(super) fn evaluate(
        &mut self,
        model: &Model,
        prob: &StageProblem,
        v: &[f64],
        jacobian: bool,
        timing: &mut StepStats,
    ) -> Result<(), EvalError> {
        let start = Instant::now();
        for ((qi, qh), vi) in self.q.iter_mut().zip(prob.q_hat).zip(v) {
            *qi = qh + prob.sys.dq_dv * vi;
        }
        let basis = self.spec.newton.sliding_basis_derivatives;
        prob.detector.detect(model, &self.q, prob.sys.t1(), prob.penalty, basis, &mut self.system.contacts);
        if self.spec.friction == FrictionEvaluation::Lagged {
            strip_friction(&mut self.system.contacts);
            self.system.contacts.extend_from_slice(&self.lagged);
        }
        let q = std::mem::take(&mut self.q);
        let mut res = self.system.evaluate(model, &prob.sys, &q, v, prob.v_hat, jacobian, None);
        if res.is_ok() && jacobian && self.system.grow_pattern_if_needed() {
            res = self.system.evaluate(model, &prob.sys, &q, v, prob.v_hat, jacobian, None);
        }
        self.q = q;
        timing.assembly_s += start.elapsed().as_secs_f64();
        res
    }

    /// Norms of the residual as the stage's acceleration imbalance `r_i / (m_i b h)` over free
    /// DOFs: (inf-norm, 2-norm).
    pub(super) fn residual_norms(&self, model: &Model, sys: &StageSystem) -> (f64, f64) {
        let bh = sys.bh.body.max(sys.bh.contact);
        let (mut inf, mut sq) = (0.0f64, 0.0);
        for (dof, &fi) in self.system.free.iter().enumerate() {
            if fi != usize::MAX {
                let a = self.system.residual[fi] / (model.node_mass[dof / 3] * bh);
                inf = inf.max(a.abs());
                sq += a * a;
            }
        }
        (if sq.is_finite() { inf } else { f64::INFINITY }, sq.sqrt())
    }

    /// Damped Newton (001 Algorithm 1) from the initial guess in `v`.
    pub(super) fn newton(
        &mut self,
        model: &Model,
        prob: &StageProblem,
        v: &mut [f64],
        stats: &mut StepStats,
    ) -> NewtonOutcome {
        let NewtonSpec { residual_tolerance, step_tolerance, armijo, max_line_search_steps, .. } = self.spec.newton;
        let mut out = NewtonOutcome { iterations: 0, line_search_steps: 0, residual: f64::INFINITY, failure: None };
        loop {
            let Some((res, merit)) = self.next_iterate(model, prob, v, true, &mut out, stats) else { return out };
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
            let accepted = self.line_search(model, prob, v, &dir, merit, |alpha| 1.0 - armijo * alpha, stats);
            let step_inf = accepted.map_or(0.0, |(alpha, ..)| alpha) * dir.iter().fold(0.0f64, |m, d| m.max(d.abs()));
            self.dir = dir;
            let Some((_, steps, reached)) = accepted else {
                out.line_search_steps += max_line_search_steps + 1;
                out.failure = Some(format!(
                    "line search found no decrease in {max_line_search_steps} halvings (residual {res:.3e} m/s^2)"
                ));
                return out;
            };
            out.line_search_steps += steps;
            v.copy_from_slice(&self.v_trial);
            // The accepted iterate, evaluated by the line search, may already meet the tolerance:
            // stopping here saves evaluating it again, with the Jacobian, only to find so.
            if reached <= residual_tolerance {
                out.residual = reached;
                return out;
            }
            if step_inf <= step_tolerance {
                return self.stalled(model, prob, v, step_inf, out, stats);
            }
        }
    }

    /// Evaluate at `v` (with the Jacobian if asked) and apply the stopping tests: the residual's
    /// (inf-norm, 2-norm) to go on, or `None` when `out` is final (converged or failed).
    pub(super) fn next_iterate(
        &mut self,
        model: &Model,
        prob: &StageProblem,
        v: &[f64],
        jacobian: bool,
        out: &mut NewtonOutcome,
        stats: &mut StepStats,
    ) -> Option<(f64, f64)> {
        if let Err(e) = self.evaluate(model, prob, v, jacobian, stats) {
            out.failure = Some(format!("residual undefined at the current iterate: {e:?}"));
            return None;
        }
        let (res, merit) = self.residual_norms(model, &prob.sys);
        out.residual = res;
        let max = self.spec.newton.max_iterations;
        if res <= self.spec.newton.residual_tolerance {
            None
        } else if !res.is_finite() {
            out.failure = Some("residual is not finite".into());
            None
        } else if out.iterations >= max {
            out.failure = Some(format!("no convergence in {max} Newton iterations (residual {res:.3e} m/s^2)"));
            None
        } else {
            Some((res, merit))
        }
    }

    /// Backtracking from `v` along `dir` (free DOFs) until the 2-norm merit falls below
    /// `decrease(alpha) * merit`; the accepted iterate is left in `v_trial` (and the system
    /// evaluated there). Returns the step length, the number of reductions and the accepted
    /// iterate's residual inf-norm, or `None` when none was accepted.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn line_search(
        &mut self,
        model: &Model,
        prob: &StageProblem,
        v: &[f64],
        dir: &[f64],
        merit: f64,
        decrease: impl Fn(f64) -> f64,
        stats: &mut StepStats,
    ) -> Option<(f64, usize, f64)> {
        let (backtrack, max_steps) = (self.spec.newton.backtrack, self.spec.newton.max_line_search_steps);
        let mut alpha = 1.0;
        for reductions in 0..=max_steps {
            self.v_trial.copy_from_slice(v);
            for (dof, &fi) in self.system.free.iter().enumerate() {
                if fi != usize::MAX {
                    self.v_trial[dof] += alpha * dir[fi];
                }
            }
            let trial = std::mem::take(&mut self.v_trial);
            let ok = self.evaluate(model, prob, &trial, false, stats).is_ok();
            self.v_trial = trial;
            let (inf, merit_trial) =
                if ok { self.residual_norms(model, &prob.sys) } else { (f64::INFINITY, f64::INFINITY) };
            if merit_trial <= decrease(alpha) * merit {
                return Some((alpha, reductions, inf));
            }
            alpha *= backtrack;
        }
        None
    }

    /// Newton's step fell below `step_tolerance`: re-evaluate to report the residual at the final
    /// iterate, and fail unless it meets the tolerance.
    pub(super) fn stalled(
        &mut self,
        model: &Model,
        prob: &StageProblem,
        v: &[f64],
        step_inf: f64,
        mut out: NewtonOutcome,
        stats: &mut StepStats,
    ) -> NewtonOutcome {
        if self.evaluate(model, prob, v, false, stats).is_ok() {
            out.residual = self.residual_norms(model, &prob.sys).0;
        }
        if out.residual > self.spec.newton.residual_tolerance {
            out.failure = Some(format!(
                "Newton stalled: step {step_inf:.3e} m/s below step_tolerance with residual {:.3e} m/s^2",
                out.residual
            ));
        }
        out
    }
}
