//! Options and reports shared by all DFCP solvers.

use std::time::{Duration, Instant};

/// Stopping rule and limits. Every solver stops when Siconos's relative natural-map error
/// (local: `abs/max(|q|,|r|,|u|)`; global: `eq_rel + natmap_rel`) is `<= tol`.
#[derive(Clone, Debug)]
pub struct SolverOptions {
    pub tol: f64,
    pub max_iter: usize,
    pub max_time: Option<Duration>,
}

impl Default for SolverOptions {
    fn default() -> Self {
        SolverOptions { tol: 1e-8, max_iter: 100_000, max_time: None }
    }
}

impl SolverOptions {
    pub fn new(tol: f64, max_iter: usize) -> Self {
        SolverOptions { tol, max_iter, max_time: None }
    }

    pub(crate) fn out_of_time(&self, start: Instant) -> bool {
        self.max_time.is_some_and(|t| start.elapsed() > t)
    }

    /// Why an iterative solver stops before its next iteration, if it does: the measured relative
    /// error has reached the tolerance, or the wall-time limit has passed.
    pub(crate) fn stop_reason(&self, rel_error: f64, start: Instant) -> Option<&'static str> {
        if rel_error <= self.tol {
            Some("tolerance reached")
        } else if self.out_of_time(start) {
            Some("time limit")
        } else {
            None
        }
    }
}

/// Outcome of a solve: honest about convergence, always with the final measured error.
#[derive(Clone, Debug)]
pub struct SolveReport {
    pub solver: &'static str,
    /// True only if the final iterate's measured error is `<= tol`.
    pub converged: bool,
    pub iterations: usize,
    /// Natural-map residual, absolute.
    pub residual_abs: f64,
    /// Relative error the stopping rule uses (see [`SolverOptions`]).
    pub residual_rel: f64,
    pub time: Duration,
    /// Why it stopped, and solver-specific statistics.
    pub message: String,
    /// PROX's own counts (003 Algorithm 2), when PROX solved.
    pub prox: Option<ProxCounts>,
}

/// What PROX did in a solve: its Gauss–Seidel sweeps, and the sweeps it rejected because the
/// error grew (each a divergence, answered by multiplying every r-factor by ν).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct ProxCounts {
    pub sweeps: usize,
    pub rejected: usize,
}

impl ProxCounts {
    /// The counts of two solves of one step together.
    pub fn add(a: Option<ProxCounts>, b: Option<ProxCounts>) -> Option<ProxCounts> {
        match (a, b) {
            (Some(a), Some(b)) => Some(ProxCounts { sweeps: a.sweeps + b.sweeps, rejected: a.rejected + b.rejected }),
            (a, b) => a.or(b),
        }
    }
}

impl std::fmt::Display for SolveReport {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{}: {} after {} iterations, natmap abs {:.3e}, rel {:.3e}, {:.3} ms ({})",
            self.solver,
            if self.converged { "converged" } else { "FAILED" },
            self.iterations,
            self.residual_abs,
            self.residual_rel,
            self.time.as_secs_f64() * 1e3,
            self.message
        )
    }
}

impl SolveReport {
    /// The report of a problem without contacts: nothing to solve, converged exactly.
    pub fn no_contacts() -> SolveReport {
        SolveReport {
            solver: "none",
            converged: true,
            iterations: 0,
            residual_abs: 0.0,
            residual_rel: 0.0,
            time: Duration::ZERO,
            message: "no contacts".into(),
            prox: None,
        }
    }

    /// The report of a finished local solve. This is the one place where "converged" is decided:
    /// the final iterate's measured error against the tolerance, never the solver's own belief.
    /// `reason` says why iterating stopped when it did not converge; `details` are statistics.
    pub(crate) fn finish(
        solver: &'static str,
        err: &crate::dfcp::residual::LocalError,
        opts: &SolverOptions,
        iterations: usize,
        start: Instant,
        reason: &str,
        details: std::fmt::Arguments<'_>,
    ) -> SolveReport {
        let converged = err.rel <= opts.tol;
        let reason = if converged { "tolerance reached" } else { reason };
        SolveReport {
            solver,
            converged,
            iterations,
            residual_abs: err.natmap_abs,
            residual_rel: err.rel,
            time: start.elapsed(),
            message: format!("{reason}; {details}"),
            prox: None,
        }
    }
}

/// The loop of a projected Gauss–Seidel method: `sweep` over `r` until the natural map meets
/// the tolerance, the iteration or time limit, or a non-finite iterate; `u` and the measured
/// error follow each sweep. Returns the error, the sweeps and why it stopped.
pub(crate) fn sweep_until(
    p: &crate::dfcp::problem::LocalProblem,
    r: &mut [f64],
    u: &mut [f64],
    opts: &SolverOptions,
    start: Instant,
    mut sweep: impl FnMut(&mut [f64]),
) -> (crate::dfcp::residual::LocalError, usize, &'static str) {
    use crate::dfcp::residual::local_error;
    p.velocity(r, u);
    let mut err = local_error(p, r, u);
    let (mut it, mut reason) = (0, "iteration limit");
    while it < opts.max_iter {
        if let Some(why) = opts.stop_reason(err.rel, start) {
            reason = why;
            break;
        }
        it += 1;
        sweep(r);
        p.velocity(r, u);
        err = local_error(p, r, u);
        if !err.natmap_abs.is_finite() {
            reason = "diverged (non-finite iterate)";
            break;
        }
    }
    (err, it, reason)
}

/// Validate warm-start buffers.
pub(crate) fn check_len(name: &str, got: usize, want: usize) -> Result<(), String> {
    if got != want { Err(format!("{name} has length {got}, expected {want}")) } else { Ok(()) }
}

/// The rejection of a local solve whose `r` or `u` is not `n` long, if it is not.
pub(crate) fn check_buffers(solver: &'static str, n: usize, r: &[f64], u: &[f64]) -> Option<SolveReport> {
    check_len("r", r.len(), n).and(check_len("u", u.len(), n)).err().map(|m| rejected(solver, m))
}

/// Report for a call rejected before iterating (wrong buffer sizes).
pub(crate) fn rejected(solver: &'static str, message: String) -> SolveReport {
    SolveReport {
        solver,
        converged: false,
        iterations: 0,
        residual_abs: f64::NAN,
        residual_rel: f64::NAN,
        time: Duration::ZERO,
        message,
        prox: None,
    }
}
