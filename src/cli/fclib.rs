//! `fricsim fclib solve|bench`: run the DFCP solvers on FCLib problem files.

use crate::dfcp::dispatch::{GLOBAL_ONLY, POLYGON_SOLVERS, SOLVERS, Solution, solve, solve_with};
use crate::dfcp::fclib::{FclibProblem, read_problem, write_solution};
use crate::dfcp::solver::SolverOptions;
use anyhow::{Context, Result, bail};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Duration;

#[derive(Debug, clap::Subcommand)]
pub enum FclibCommand {
    /// Solve one FCLib problem (.hdf5 or its .txt copy) and print iterations, residual and time.
    Solve {
        /// Problem file: FCLib HDF5 or its plain-text copy (detected from the content).
        file: PathBuf,
        /// Solver: auto (default: Gauss–Seidel while its rate promises to finish within 50
        /// sweeps, then FB Newton on problems of at most 600 unknowns, then the local ADMM, then
        /// FB Newton if needed), gs, fb, prox (003's PROX Gauss–Seidel),
        /// prox-point (proximal point around FB Newton), admm-local, pgs-lcp, pgs-polygon (003's
        /// polygon inscribed in the friction ellipse), lemke, reg-lcp and sqp
        /// (002's baselines on the Stewart–Trinkle LCP, 8 samples), sp (staggered
        /// projections, 8-sample cone), sp-exact, sp-polar, admm and velocity-admm (global
        /// problems only).
        #[arg(long, default_value = "auto")]
        solver: String,
        /// Relative natural-map tolerance (Siconos's measure).
        #[arg(long, default_value_t = 1e-8)]
        tol: f64,
        /// Iteration limit: sweeps (gs, prox, pgs-lcp, reg-lcp), pivots (lemke), QPs (sqp), Newton steps (fb), outer iterations
        /// (sp, admm, admm-local, velocity-admm, prox-point; for prox-point it bounds the inner Newton steps).
        #[arg(long, default_value_t = 100_000)]
        max_iter: usize,
        /// Wall-time limit in seconds.
        #[arg(long)]
        max_time: Option<f64>,
        /// Write r, u (and v) in the text format `fclib_tools.py check` reads.
        #[arg(long)]
        output: Option<PathBuf>,
        /// Sides of the friction polygon for sp, lemke, reg-lcp, sqp and pgs-polygon (3 to 64; default 8, 002's).
        #[arg(long)]
        samples: Option<usize>,
        /// Also print 002's diagnostics of the answer on the 8-sample polygon: the
        /// Stewart–Trinkle LCP residual, the objective (5.32) and the Painlevé angle (6.42).
        #[arg(long)]
        diagnostics: bool,
    },
    /// Run several solvers on several problems: CSV plus a Dolan–Moré performance profile.
    Bench {
        /// Problem files, or directories (every .hdf5 inside).
        inputs: Vec<PathBuf>,
        /// Comma-separated solver names (see `fclib solve --solver`).
        #[arg(long, default_value = "auto,gs,fb,prox-point,admm-local,prox,pgs-lcp,sp,admm", value_delimiter = ',')]
        solvers: Vec<String>,
        #[arg(long, default_value_t = 1e-8)]
        tol: f64,
        #[arg(long, default_value_t = 100_000)]
        max_iter: usize,
        /// Wall-time limit per run in seconds.
        #[arg(long, default_value_t = 60.0)]
        max_time: f64,
        /// CSV output path (default: fclib_bench.csv in the system's temporary folder, so that a
        /// bench never leaves a file in the current folder unasked; the path is printed).
        #[arg(long, alias = "csv")]
        out: Option<PathBuf>,
    },
}

fn options(tol: f64, max_iter: usize, max_time: Option<f64>) -> Result<SolverOptions> {
    if !(tol > 0.0 && tol.is_finite()) {
        bail!("--tol must be a positive number, got {tol}");
    }
    if max_iter == 0 {
        bail!("--max-iter must be at least 1");
    }
    let max_time = match max_time {
        Some(t) if !(t > 0.0 && t.is_finite()) => {
            bail!("--max-time must be a positive number of seconds, got {t}")
        }
        Some(t) => Some(Duration::from_secs_f64(t)),
        None => None,
    };
    Ok(SolverOptions { tol, max_iter, max_time })
}

fn check_solver(name: &str) -> Result<()> {
    if !SOLVERS.contains(&name) {
        bail!("unknown solver {name:?}; choose one of {}", SOLVERS.join(", "));
    }
    Ok(())
}

fn check_samples(solver: &str, samples: Option<usize>) -> Result<()> {
    let Some(k) = samples else { return Ok(()) };
    if !POLYGON_SOLVERS.contains(&solver) {
        bail!("--samples applies to {} only, not to {solver:?}", POLYGON_SOLVERS.join(", "));
    }
    if !crate::dfcp::stewart_trinkle::SAMPLES.contains(&k) {
        bail!("--samples must be from 3 to 64 (002 uses 8), got {k}");
    }
    Ok(())
}

pub fn run(cmd: FclibCommand) -> Result<ExitCode> {
    match cmd {
        FclibCommand::Solve { file, solver, tol, max_iter, max_time, output, samples, diagnostics } => {
            check_solver(&solver)?;
            check_samples(&solver, samples)?;
            let opts = options(tol, max_iter, max_time)?;
            let p = read_problem(&file)?;
            let kind = if matches!(p, FclibProblem::Local(_)) { "local" } else { "global" };
            println!("{}: {kind} problem, {} contacts", file.display(), p.nc());
            let s = solve_with(&p, &solver, &opts, samples)?;
            println!("{}", s.report);
            if diagnostics {
                print_diagnostics(&p, &s)?;
            }
            if let Some(out) = output {
                let header =
                    format!("fricsim {} solution of {}\n{}", env!("CARGO_PKG_VERSION"), file.display(), s.report);
                write_solution(&out, &header, &s.r, &s.u, s.v.as_deref())?;
                println!("wrote {}", out.display());
            }
            Ok(if s.report.converged { ExitCode::SUCCESS } else { ExitCode::from(1) })
        }
        FclibCommand::Bench { inputs, solvers, tol, max_iter, max_time, out } => {
            let csv = out.unwrap_or_else(|| std::env::temp_dir().join("fclib_bench.csv"));
            for s in &solvers {
                check_solver(s)?;
            }
            let opts = options(tol, max_iter, Some(max_time))?;
            bench(&inputs, &solvers, &opts, &csv)?;
            Ok(ExitCode::SUCCESS)
        }
    }
}

/// 002's diagnostics of a solution (global problems on their Delassus form).
fn print_diagnostics(p: &FclibProblem, s: &Solution) -> Result<()> {
    use crate::dfcp::{diagnostics::diagnose, global_reduction::Reduced, lemke_st::DEFAULT_SAMPLES};
    let d = match p {
        FclibProblem::Local(l) => diagnose(l, &s.r, &s.u, DEFAULT_SAMPLES),
        FclibProblem::Global(g) => diagnose(&Reduced::new(g)?.local, &s.r, &s.u, DEFAULT_SAMPLES),
    };
    println!(
        "002 diagnostics ({DEFAULT_SAMPLES} samples): Stewart–Trinkle LCP residual {:.3e} (relative, equilibrated), objective (5.32) {:.3e}, Painlevé angle of the pushing contacts {:.2} deg",
        d.lcp_residual, d.objective, d.painleve_deg
    );
    Ok(())
}

fn collect_files(inputs: &[PathBuf]) -> Result<Vec<PathBuf>> {
    let mut files = Vec::new();
    for i in inputs {
        if i.is_dir() {
            let mut v: Vec<PathBuf> = std::fs::read_dir(i)
                .with_context(|| format!("listing {}", i.display()))?
                .filter_map(|e| e.ok().map(|e| e.path()))
                .filter(|p| p.extension().is_some_and(|e| e == "hdf5"))
                .collect();
            v.sort();
            files.extend(v);
        } else {
            files.push(i.clone());
        }
    }
    if files.is_empty() {
        bail!("no problem files given (directories are searched for *.hdf5)");
    }
    Ok(files)
}

struct Row {
    problem: String,
    solver: String,
    result: Option<Solution>,
}

fn bench(inputs: &[PathBuf], solvers: &[String], opts: &SolverOptions, csv: &Path) -> Result<()> {
    let files = collect_files(inputs)?;
    let mut rows = Vec::new();
    for f in &files {
        let p = read_problem(f)?;
        let stem = f.file_stem().map_or_else(|| f.display().to_string(), |s| s.to_string_lossy().into_owned());
        for s in solvers {
            let is_local = matches!(p, FclibProblem::Local(_));
            if is_local && GLOBAL_ONLY.contains(&s.as_str()) {
                continue;
            }
            let res = solve(&p, s, opts)?;
            println!("{stem:42} {}", res.report);
            rows.push(Row { problem: stem.clone(), solver: s.clone(), result: Some(res) });
        }
    }
    let mut out = String::from("problem,solver,converged,iterations,time_s,residual_rel,residual_abs\n");
    for r in &rows {
        if let Some(s) = &r.result {
            let rep = &s.report;
            let _ = writeln!(
                out,
                "{},{},{},{},{:.6e},{:.3e},{:.3e}",
                r.problem,
                r.solver,
                rep.converged,
                rep.iterations,
                rep.time.as_secs_f64(),
                rep.residual_rel,
                rep.residual_abs
            );
        }
    }
    std::fs::write(csv, out).with_context(|| format!("writing {}", csv.display()))?;
    println!("wrote {}", csv.display());
    print_profile(&rows, solvers);
    Ok(())
}

/// Dolan–Moré performance profile on time to tolerance: for each solver, the fraction of
/// problems it solved within a factor tau of the fastest solver on that problem.
fn print_profile(rows: &[Row], solvers: &[String]) {
    let mut problems: Vec<&str> = rows.iter().map(|r| r.problem.as_str()).collect();
    problems.dedup();
    let time = |p: &str, s: &str| -> Option<f64> {
        rows.iter()
            .find(|r| r.problem == p && r.solver == s)
            .and_then(|r| r.result.as_ref())
            .filter(|x| x.report.converged)
            .map(|x| x.report.time.as_secs_f64())
    };
    let taus = [1.0, 2.0, 4.0, 10.0, 100.0];
    println!("\nDolan–Moré profile (fraction of {} problems solved within tau x best time)", problems.len());
    print!("{:10}", "solver");
    for t in taus {
        print!(" tau={t:<6}");
    }
    println!();
    for s in solvers {
        print!("{s:10}");
        for t in taus {
            let k = problems
                .iter()
                .filter(|p| {
                    let best = solvers.iter().filter_map(|x| time(p, x)).fold(f64::INFINITY, f64::min);
                    time(p, s).is_some_and(|ts| ts <= t * best)
                })
                .count();
            print!(" {:<10.2}", k as f64 / problems.len().max(1) as f64);
        }
        println!();
    }
}
