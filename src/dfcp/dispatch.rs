//! Solver selection by name, for the CLI, the benches and the pipelines: one entry point that
//! takes any FCLib problem and returns `r`, `u` (and `v` for global problems) with the report.

use super::admm::{self, AdmmParams};
use super::fclib::FclibProblem;
use super::global_reduction::{Reduced, solve_reduced};
use super::problem::{GlobalProblem, LocalProblem};
use super::residual::local_error;
use super::solver::{SolveReport, SolverOptions};
use super::{
    fb_newton, gauss_seidel, lemke_st, local_admm, pgs_lcp, pgs_polygon, polar_sp, prox, prox_point, regularised_lcp,
    sqp, staggered_projections, velocity_admm,
};
use anyhow::{Result, bail};
use std::time::Instant;

/// Solvers of the global form only: they work in the bodies' velocities, which an FCLib local
/// problem does not carry (the pipeline's own local problems may carry them as the factor of
/// `W`, see [`factored`]).
pub const GLOBAL_ONLY: [&str; 2] = ["admm", "velocity-admm"];

/// Names accepted by [`solve`]. `auto` is the robust default.
pub const SOLVERS: [&str; 16] = [
    "auto",
    "gs",
    "fb",
    "prox",
    "prox-point",
    "admm-local",
    "pgs-lcp",
    "pgs-polygon",
    "sp",
    "sp-exact",
    "sp-polar",
    "lemke",
    "reg-lcp",
    "sqp",
    "admm",
    "velocity-admm",
];

type LocalFn = fn(&LocalProblem, &mut [f64], &mut [f64], &SolverOptions) -> SolveReport;

/// Solvers on a friction polygon, whose number of samples can be chosen (`--samples`).
pub const POLYGON_SOLVERS: [&str; 5] = ["sp", "lemke", "reg-lcp", "sqp", "pgs-polygon"];

type BoxedSolver = Box<dyn Fn(&LocalProblem, &mut [f64], &mut [f64], &SolverOptions) -> SolveReport>;

/// The named solver, with `samples` sides for the polygon solvers.
fn local_solver(name: &str, samples: Option<usize>) -> Option<BoxedSolver> {
    let Some(k) = samples else {
        let f = local_fn(name)?;
        return Some(Box::new(f));
    };
    Some(match name {
        "sp" => Box::new(move |p, r, u, o| {
            let prm = staggered_projections::SpParams {
                cone: staggered_projections::SpCone::Polyhedral(k),
                ..Default::default()
            };
            staggered_projections::solve_with(p, r, u, o, &prm)
        }),
        "lemke" => Box::new(move |p, r, u, o| lemke_st::solve_with(p, r, u, o, k)),
        "reg-lcp" => Box::new(move |p, r, u, o| regularised_lcp::solve_with(p, r, u, o, k)),
        "sqp" => Box::new(move |p, r, u, o| sqp::solve_with(p, r, u, o, k)),
        "pgs-polygon" => Box::new(move |p, r, u, o| pgs_polygon::solve_with(p, r, u, o, k)),
        _ => return None,
    })
}

pub fn local_fn(name: &str) -> Option<LocalFn> {
    Some(match name {
        "auto" => auto,
        "gs" => gauss_seidel::solve,
        "fb" => fb_newton::solve,
        "prox" => prox::solve,
        "prox-point" => prox_point::solve,
        "admm-local" => local_admm::solve,
        "pgs-lcp" => pgs_lcp::solve,
        "pgs-polygon" => pgs_polygon::solve,
        "sp" => staggered_projections::solve,
        "sp-exact" => staggered_projections::solve_exact,
        "sp-polar" => polar_sp::solve,
        "lemke" => lemke_st::solve,
        "reg-lcp" => regularised_lcp::solve,
        "sqp" => sqp::solve,
        _ => return None,
    })
}

/// Gauss–Seidel sweeps `auto` spends at most before it switches.
const AUTO_GS_SWEEPS: usize = 50;
/// GS runs in chunks of this many sweeps (its error-check period); from the second chunk on,
/// the error's rate per sweep over the last chunk predicts the sweeps still needed.
const AUTO_GS_CHUNK: usize = 8;
/// Newton steps `auto` gives FB Newton on a small problem before it turns to the ADMM (on
/// BoxesStack it needs 46 from zero).
const AUTO_FB_STEPS: usize = 100;

/// Robust default, in stages, each warm-started from the last:
/// 1. block Gauss–Seidel: the cheapest method, and enough on easy problems (PerioBox 34 sweeps,
///    Box_Stacks 37, the LMGC FEM problem 8). It runs in chunks of `AUTO_GS_CHUNK` sweeps and
///    stops early when the last chunk's rate predicts more than `AUTO_GS_SWEEPS` in all:
///    measured after 16 sweeps, KaplasTower falls by 0.59 per chunk (about 230 sweeps to 1e-8,
///    1.7 ms spent instead of 3.5 ms for 50), BoxesStack 0.81, Capsules 0.42, while PerioBox
///    (0.19) and Box_Stacks (0.02) are predicted, and found, to finish;
/// 2. on a small problem (at most `fb_newton::DENSE_MAX` unknowns, where its Newton systems
///    are dense LUs of a fraction of a millisecond), Fischer–Burmeister Newton for up to
///    `AUTO_FB_STEPS` steps, once more from zero if it fails from a warm start: BoxesStack 6.8 ms against 10.5 ms for the ADMM, and the box-stack
///    scene's steps 0.08 against 0.12 ms (card house and capsule hopper unchanged);
/// 3. the local ADMM where that did not finish: it converges on every shared problem, in tens
///    to a few thousand iterations (KaplasTower 40, Capsules 307, BoxesStack 1947 from a cold
///    start; RockPile 3.3M), where GS needs thousands of sweeps (KaplasTower 1056, Capsules
///    2304) or stalls (BoxesStack at 7e-6 after 1e5);
/// 4. Fischer–Burmeister Newton from the ADMM's best iterate if the ADMM did not converge.
///
/// FB Newton starts from the probe's iterate. After a cold start (`r = 0`) the ADMM starts from
/// zero again: measured, it takes 307 against 388 iterations on Capsules (7.9 against 9.8 ms)
/// and 40 against 38 on KaplasTower. FB Newton from zero would take 46 against 66 steps on
/// BoxesStack, but in the box-stack scene, many of whose steps start from zero, 0.71 against
/// 0.08 ms per step. A caller's warm start (the pipelines' last step) is kept with the probe's
/// improvement.
pub fn auto(p: &LocalProblem, r: &mut [f64], u: &mut [f64], opts: &SolverOptions) -> SolveReport {
    let start = Instant::now();
    let rest = |used: usize| SolverOptions {
        max_iter: opts.max_iter.saturating_sub(used),
        max_time: opts.max_time.map(|t| t.saturating_sub(start.elapsed())),
        ..opts.clone()
    };
    let cold = r.iter().all(|&x| x == 0.0);
    let gs = gs_probe(p, r, u, opts, start, &rest);
    let mut used = gs.iterations;
    let out_of_budget = |used: usize| used >= opts.max_iter || opts.out_of_time(start);
    let done = |stage: SolveReport, used: usize, message: String| SolveReport {
        solver: "auto",
        iterations: used,
        time: start.elapsed(),
        message,
        ..stage
    };
    if gs.converged || out_of_budget(used) {
        let message = format!("gs only: {}", gs.message);
        return done(gs, used, message);
    }
    let from = if cold { " from zero" } else { "" };
    let probe = format!("gs {} sweeps (rel {:.1e})", gs.iterations, gs.residual_rel);
    if 3 * p.nc() <= fb_newton::DENSE_MAX {
        // FB's merit function has stationary points that solve nothing, and a warm start can lead
        // Newton to one: a two-box body welded by a joint landing on four contacts stalls at
        // 1.4e-6 after 100 steps from the probe's iterate and converges in 10 from zero. So a
        // warm FB that fails is tried once more from zero before the ADMM.
        for restart in [false, true] {
            if restart {
                if cold {
                    break;
                }
                r.fill(0.0);
            }
            let fb = fb_newton::solve(
                p,
                r,
                u,
                &SolverOptions { max_iter: AUTO_FB_STEPS.min(opts.max_iter - used), ..rest(used) },
            );
            used += fb.iterations;
            if fb.converged || out_of_budget(used) {
                let again = if restart { " from zero" } else { "" };
                let message = format!("{probe} then fb{again}: {}", fb.message);
                return done(fb, used, message);
            }
        }
    }
    if cold {
        r.fill(0.0);
    }
    let admm = local_admm::solve(p, r, u, &rest(used));
    used += admm.iterations;
    if admm.converged || out_of_budget(used) {
        let message = format!("{probe} then admm-local{from}: {}", admm.message);
        return done(admm, used, message);
    }
    let fb = fb_newton::solve(p, r, u, &rest(used));
    let e = local_error(p, r, u);
    SolveReport {
        solver: "auto",
        converged: e.rel <= opts.tol,
        iterations: used + fb.iterations,
        residual_abs: e.natmap_abs,
        residual_rel: e.rel,
        time: start.elapsed(),
        message: format!(
            "{probe}, admm-local {} iterations (rel {:.1e}), then fb {} iterations: {}",
            admm.iterations, admm.residual_rel, fb.iterations, fb.message
        ),
        prox: None,
    }
}

/// A problem carrying its factor `W = G Gᵀ` (rigid bodies without joints): the velocity ADMM in
/// the factor's velocities, except on a problem small enough for FB Newton's dense systems
/// (at most `fb_newton::DENSE_MAX` unknowns), where [`auto`] answers on `W` formed from the
/// factor. Measured on the 283 islands the velocity ADMM missed in the first 30 steps of the
/// 2000-body drop, re-solved to 1e-6: 12 to 152 contacts took it 1,000 to 97,000 iterations
/// (4 to 700 ms) where `auto` took 20 to 48 (2.5 to 14 ms, the forming of `W` included). The
/// report's time includes forming `W`; should that fail, the velocity ADMM answers.
pub fn factored(p: &LocalProblem, r: &mut [f64], u: &mut [f64], opts: &SolverOptions) -> SolveReport {
    let start = Instant::now();
    let small = 3 * p.nc() <= fb_newton::DENSE_MAX;
    let whole = match &p.factor {
        Some(g) if small => velocity_admm::delassus_of_factor(g)
            .and_then(|w| LocalProblem::new(w, p.q.clone(), p.cones.clone()).map_err(|e| e.to_string())),
        _ => return velocity_admm::solve(p, r, u, opts),
    };
    let whole = match whole {
        Ok(whole) => whole,
        Err(e) => {
            let mut rep = velocity_admm::solve(p, r, u, opts);
            rep.message += &format!("; W could not be formed from its factor for auto: {e}");
            return rep;
        }
    };
    let rest = SolverOptions { max_time: opts.max_time.map(|t| t.saturating_sub(start.elapsed())), ..opts.clone() };
    let mut rep = auto(&whole, r, u, &rest);
    rep.message = format!(
        "velocity-admm handed {} contacts (at most 200) to auto on W formed from its factor: {}",
        p.nc(),
        rep.message
    );
    rep.time = start.elapsed();
    rep
}

/// Stage 1 of [`auto`]: Gauss–Seidel in chunks while its rate predicts that it finishes within
/// `AUTO_GS_SWEEPS` sweeps (or the caller's limit). The report counts every sweep.
fn gs_probe(
    p: &LocalProblem,
    r: &mut [f64],
    u: &mut [f64],
    opts: &SolverOptions,
    start: Instant,
    rest: &dyn Fn(usize) -> SolverOptions,
) -> SolveReport {
    let budget = AUTO_GS_SWEEPS.min(opts.max_iter);
    let mut used = 0;
    let mut before = f64::NAN;
    loop {
        let chunk = AUTO_GS_CHUNK.min(budget - used);
        let rep = gauss_seidel::solve(p, r, u, &SolverOptions { max_iter: chunk, ..rest(used) });
        used += rep.iterations;
        let done = rep.converged || used >= budget || opts.out_of_time(start) || rep.iterations < chunk;
        // The first chunk from a cold start falls faster than GS's asymptotic rate: judge from
        // the second on, by the chunk's own start and end.
        let rate = (rep.residual_rel / before).powf(1.0 / rep.iterations.max(1) as f64);
        let needed = (opts.tol / rep.residual_rel).ln() / rate.ln();
        if done || (before.is_finite() && !(rate < 1.0 && used as f64 + needed <= budget as f64)) {
            return SolveReport { iterations: used, ..rep };
        }
        before = rep.residual_rel;
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
    solve_local_with(p, name, opts, None)
}

/// [`solve_local`] with `samples` sides for a polygon solver ([`POLYGON_SOLVERS`]).
pub fn solve_local_with(
    p: &LocalProblem,
    name: &str,
    opts: &SolverOptions,
    samples: Option<usize>,
) -> Result<Solution> {
    let Some(f) = local_solver(name, samples) else {
        bail!(
            "solver {name:?} does not apply to local problems (choose one of {})",
            SOLVERS.iter().filter(|s| !GLOBAL_ONLY.contains(s)).copied().collect::<Vec<_>>().join(", ")
        );
    };
    let n = 3 * p.nc();
    let (mut r, mut u) = (vec![0.0; n], vec![0.0; n]);
    let report = f(p, &mut r, &mut u, opts);
    Ok(Solution { r, u, v: None, report })
}

/// Solve a global problem: `admm` and `velocity-admm` natively, the local solvers on the Delassus form (the timing
/// includes the factorisation and the Delassus assembly).
pub fn solve_global(g: &GlobalProblem, name: &str, opts: &SolverOptions) -> Result<Solution> {
    solve_global_with(g, name, opts, None)
}

/// [`solve_global`] with `samples` sides for a polygon solver ([`POLYGON_SOLVERS`]).
pub fn solve_global_with(
    g: &GlobalProblem,
    name: &str,
    opts: &SolverOptions,
    samples: Option<usize>,
) -> Result<Solution> {
    let (n, ndof) = (3 * g.nc(), g.ndof());
    let (mut r, mut v) = (vec![0.0; n], vec![0.0; ndof]);
    let report = if name == "admm" {
        admm::solve(g, &mut r, &mut v, opts, &AdmmParams::default())?
    } else if name == "velocity-admm" {
        velocity_admm::solve_global(g, &mut r, &mut v, opts)
    } else if let Some(f) = local_solver(name, samples) {
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
    solve_with(p, name, opts, None)
}

/// [`solve`] with `samples` sides for a polygon solver ([`POLYGON_SOLVERS`]).
pub fn solve_with(p: &FclibProblem, name: &str, opts: &SolverOptions, samples: Option<usize>) -> Result<Solution> {
    match p {
        FclibProblem::Local(l) => solve_local_with(l, name, opts, samples),
        FclibProblem::Global(g) => solve_global_with(g, name, opts, samples),
    }
}
