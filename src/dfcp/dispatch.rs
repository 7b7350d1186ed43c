//! Solver selection by name, for the CLI, the benches and the pipelines: one entry point that
//! takes any FCLib problem and returns `r`, `u` (and `v` for global problems) with the report.

use super::admm::{self, AdmmParams};
use super::fclib::FclibProblem;
use super::global_reduction::{Reduced, solve_reduced};
use super::problem::{GlobalProblem, LocalProblem};
use super::residual::local_error;
use super::solver::{SolveReport, SolverOptions};
use super::{fb_newton, gauss_seidel, local_admm, pgs_lcp, polar_sp, prox, prox_point, staggered_projections};
use anyhow::{Result, bail};
use std::time::Instant;

/// Names accepted by [`solve`]. `auto` is the robust default.
pub const SOLVERS: [&str; 11] =
    ["auto", "gs", "fb", "prox", "prox-point", "admm-local", "pgs-lcp", "sp", "sp-exact", "sp-polar", "admm"];

type LocalFn = fn(&LocalProblem, &mut [f64], &mut [f64], &SolverOptions) -> SolveReport;

pub fn local_fn(name: &str) -> Option<LocalFn> {
    Some(match name {
        "auto" => auto,
        "gs" => gauss_seidel::solve,
        "fb" => fb_newton::solve,
        "prox" => prox::solve,
        "prox-point" => prox_point::solve,
        "admm-local" => local_admm::solve,
        "pgs-lcp" => pgs_lcp::solve,
        "sp" => staggered_projections::solve,
        "sp-exact" => staggered_projections::solve_exact,
        "sp-polar" => polar_sp::solve,
        _ => return None,
    })
}

/// Gauss–Seidel sweeps per progress check in `auto`.
const AUTO_CHUNK: usize = 250;
/// Chunks over which `auto` requires the error to halve.
const AUTO_WINDOW: usize = 8;

/// Robust default: block Gauss–Seidel (cheap, converges on most problems) while it makes
/// progress, then Fischer–Burmeister Newton warm-started from the GS iterate. "Progress" means
/// the error at least halved over the last `AUTO_WINDOW` chunks (2000 sweeps): GS is erratic
/// where it converges (Capsules: plateau at 1.5e-6 for 750 sweeps, then 5e-9 by 2300) and
/// stalls where it does not (BoxesStack: 3.8e-4 at 2000 sweeps, 3.5e-4 at 3000, 7e-6 at 1e5 in
/// Siconos), so a short window would switch too early.
pub fn auto(p: &LocalProblem, r: &mut [f64], u: &mut [f64], opts: &SolverOptions) -> SolveReport {
    let start = Instant::now();
    let mut sweeps = 0;
    let mut history: Vec<f64> = Vec::new();
    let mut gs;
    loop {
        let chunk = SolverOptions {
            max_iter: AUTO_CHUNK.min(opts.max_iter - sweeps),
            max_time: opts.max_time.map(|t| t.saturating_sub(start.elapsed())),
            ..opts.clone()
        };
        gs = gauss_seidel::solve(p, r, u, &chunk);
        sweeps += gs.iterations;
        history.push(gs.residual_rel);
        let stalled = history.len() > AUTO_WINDOW && gs.residual_rel > 0.5 * history[history.len() - 1 - AUTO_WINDOW];
        if gs.converged || gs.iterations == 0 || sweeps >= opts.max_iter || opts.out_of_time(start) || stalled {
            break;
        }
    }
    if gs.converged || sweeps >= opts.max_iter || opts.out_of_time(start) {
        return SolveReport {
            solver: "auto",
            iterations: sweeps,
            time: start.elapsed(),
            message: format!("gs only: {}", gs.message),
            ..gs
        };
    }
    let rest = SolverOptions {
        max_iter: opts.max_iter - sweeps,
        max_time: opts.max_time.map(|t| t.saturating_sub(start.elapsed())),
        ..opts.clone()
    };
    let fb = fb_newton::solve(p, r, u, &rest);
    let e = local_error(p, r, u);
    SolveReport {
        solver: "auto",
        converged: e.rel <= opts.tol,
        iterations: sweeps + fb.iterations,
        residual_abs: e.natmap_abs,
        residual_rel: e.rel,
        time: start.elapsed(),
        message: format!(
            "gs {sweeps} sweeps (stalled at rel {:.1e}) then fb {} iterations: {}",
            gs.residual_rel, fb.iterations, fb.message
        ),
    }
}

/// A solution with its report. `v` is present for global problems.
#[derive(Clone, Debug)]
pub struct Solution {
    pub r: Vec<f64>,
    pub u: Vec<f64>,
    pub v: Option<Vec<f64>>,
    pub report: SolveReport,
}

/// Solve a local problem with the named solver (cold start).
pub fn solve_local(p: &LocalProblem, name: &str, opts: &SolverOptions) -> Result<Solution> {
    let Some(f) = local_fn(name) else {
        bail!("solver {name:?} does not apply to local problems (choose one of {})", SOLVERS[..10].join(", "));
    };
    let n = 3 * p.nc();
    let (mut r, mut u) = (vec![0.0; n], vec![0.0; n]);
    let report = f(p, &mut r, &mut u, opts);
    Ok(Solution { r, u, v: None, report })
}

/// Solve a global problem: `admm` natively, the local solvers on the Delassus form (the timing
/// includes the factorisation and the Delassus assembly).
pub fn solve_global(g: &GlobalProblem, name: &str, opts: &SolverOptions) -> Result<Solution> {
    let (n, ndof) = (3 * g.nc(), g.ndof());
    let (mut r, mut v) = (vec![0.0; n], vec![0.0; ndof]);
    let report = if name == "admm" {
        admm::solve(g, &mut r, &mut v, opts, &AdmmParams::default())?
    } else if let Some(f) = local_fn(name) {
        let start = Instant::now();
        let red = Reduced::new(g)?;
        let mut rep = solve_reduced(g, &red, f, &mut r, &mut v, opts);
        rep.time = start.elapsed();
        rep
    } else {
        bail!("unknown solver {name:?} (choose one of {})", SOLVERS.join(", "));
    };
    let mut u = vec![0.0; n];
    g.velocity(&v, &mut u);
    Ok(Solution { r, u, v: Some(v), report })
}

/// Solve any FCLib problem with the named solver.
pub fn solve(p: &FclibProblem, name: &str, opts: &SolverOptions) -> Result<Solution> {
    match p {
        FclibProblem::Local(l) => solve_local(l, name, opts),
        FclibProblem::Global(g) => solve_global(g, name, opts),
    }
}
