//! The `fricsim fclib` command line: solve, solution files, exit codes, bench CSV, bad input.

mod common;
use common::*;
use fricsim::dfcp::fclib::{FclibProblem, read_vectors};
use fricsim::dfcp::residual::{global_error, local_error_of};
use std::process::Command;

fn fricsim(args: &[&str]) -> (i32, String, String) {
    let o = Command::new(env!("CARGO_BIN_EXE_fricsim")).args(args).output().unwrap();
    (
        o.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&o.stdout).into_owned(),
        String::from_utf8_lossy(&o.stderr).into_owned(),
    )
}

/// Runs `scene` (under `scenes/`) with the further `run` arguments `args` and
/// `FRICSIM_DUMP_UNCONVERGED` pointing into a temporary folder; the folder (kept alive) and the
/// problems written there, sorted.
fn run_dumping(scene: &str, args: &[&str]) -> (tempfile::TempDir, Vec<std::path::PathBuf>) {
    let dir = tempfile::tempdir().unwrap();
    let dump = dir.path().join("dump");
    std::fs::create_dir(&dump).unwrap();
    let scene = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("scenes").join(scene);
    let o = Command::new(env!("CARGO_BIN_EXE_fricsim"))
        .args(["run", scene.to_str().unwrap(), "--quiet", "--out"])
        .arg(dir.path().join("out"))
        .args(args)
        .env("FRICSIM_DUMP_UNCONVERGED", &dump)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let mut files: Vec<_> = std::fs::read_dir(&dump).unwrap().map(|e| e.unwrap().path()).collect();
    files.sort();
    (dir, files)
}

#[test]
fn solve_writes_a_checkable_solution() {
    let dir = tempfile::tempdir().unwrap();
    for (stem, ext) in [("Capsules-i125-1213", "hdf5"), ("LMGC_GlobalFrictionContactProblem00046", "txt")] {
        let out = dir.path().join(format!("{stem}.sol.txt"));
        let file = fclib_dir().join(format!("{stem}.{ext}"));
        let (code, stdout, stderr) =
            fricsim(&["fclib", "solve", file.to_str().unwrap(), "--output", out.to_str().unwrap()]);
        assert_eq!(code, 0, "{stdout}{stderr}");
        assert!(stdout.contains("converged"), "{stdout}");
        let v = read_vectors(&out).unwrap();
        // Re-measure independently of the solver's own report: the default tolerance is 1e-8.
        match problem(stem) {
            FclibProblem::Local(p) => assert!(local_error_of(&p, &v["r"]).rel <= 1e-8),
            FclibProblem::Global(g) => assert!(global_error(&g, &v["r"], &v["v"]).total <= 1e-8),
        }
    }
}

#[test]
fn failure_exits_nonzero_and_says_failed() {
    let file = fclib_dir().join("BoxesStack_local_problem_test.hdf5");
    let (code, stdout, _) =
        fricsim(&["fclib", "solve", file.to_str().unwrap(), "--solver", "pgs-lcp", "--max-iter", "50"]);
    assert_eq!(code, 1);
    assert!(stdout.contains("FAILED after 50 iterations"), "{stdout}");
}

#[test]
fn bad_input_is_reported() {
    let file = fclib_dir().join("Capsules-i125-1213.hdf5");
    let f = file.to_str().unwrap();
    for (args, msg) in [
        (vec!["fclib", "solve", f, "--solver", "magic"], "unknown solver \"magic\""),
        (vec!["fclib", "solve", "/nonexistent.hdf5"], "cannot read /nonexistent.hdf5"),
        (vec!["fclib", "solve", f, "--tol=-1"], "--tol must be a positive number"),
        (vec!["fclib", "solve", f, "--solver", "admm"], "does not apply to local problems"),
        (vec!["fclib", "solve", f, "--solver", "velocity-admm"], "does not apply to local problems"),
        (
            vec!["fclib", "solve", f, "--solver", "gs", "--samples", "8"],
            "--samples applies to sp, lemke, reg-lcp, sqp, pgs-polygon only",
        ),
        (vec!["fclib", "solve", f, "--solver", "lemke", "--samples", "2"], "--samples must be from 3 to 64"),
    ] {
        let (code, _, stderr) = fricsim(&args);
        assert_eq!(code, 2, "{args:?}: {stderr}");
        assert!(stderr.contains(msg), "{args:?}: expected {msg:?} in {stderr:?}");
    }
}

#[test]
fn bench_writes_csv_and_profile() {
    let dir = tempfile::tempdir().unwrap();
    let csv = dir.path().join("b.csv");
    let a = fclib_dir().join("LMGC_100_PR_PerioBox-i00361-60-03000.hdf5");
    let b = fclib_dir().join("Box_Stacks-i0122-82-5.hdf5");
    let (code, stdout, stderr) = fricsim(&[
        "fclib",
        "bench",
        a.to_str().unwrap(),
        b.to_str().unwrap(),
        "--solvers",
        "gs,prox,admm,velocity-admm",
        "--out",
        csv.to_str().unwrap(),
    ]);
    assert_eq!(code, 0, "{stderr}");
    assert!(stdout.contains("Dolan–Moré"), "{stdout}");
    let text = std::fs::read_to_string(&csv).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines[0], "problem,solver,converged,iterations,time_s,residual_rel,residual_abs");
    // 2 problems x 4 solvers, minus the two global-only ones on the local problem.
    assert_eq!(lines.len(), 1 + 6, "{text}");
    for s in ["admm", "velocity-admm"] {
        assert!(lines.iter().any(|l| l.starts_with(&format!("Box_Stacks-i0122-82-5,{s},true,"))), "{text}");
    }
}

/// `--samples` refines the polygon of the LCP solvers: on the single sliding contact the
/// exact-cone error of Lemke's answer is the faceting error, 3.4e-4 with 8 samples, and falls
/// with 64 (9.5e-6 measured; the octagon's edge is cos(π/8) = 0.92 of the disc, the 64-gon's
/// cos(π/64) = 0.9988); `--diagnostics` prints 002's three measures.
#[test]
fn samples_refine_the_polygon_and_diagnostics_print() {
    let file = fclib_dir().join("Siconos_FrictionContact3D_1c.txt");
    let f = file.to_str().unwrap();
    let rel = |stdout: &str| -> f64 {
        let i = stdout.find(", rel ").expect("a relative error") + 6;
        stdout[i..].split(',').next().unwrap().trim().parse().unwrap()
    };
    let (_, coarse, _) = fricsim(&["fclib", "solve", f, "--solver", "lemke"]);
    let (_, fine, _) = fricsim(&["fclib", "solve", f, "--solver", "lemke", "--samples", "64", "--diagnostics"]);
    assert!(coarse.contains("8 samples") && fine.contains("64 samples"), "{coarse}{fine}");
    assert!(rel(&fine) < 0.1 * rel(&coarse), "{coarse}{fine}");
    assert!(fine.contains("Stewart–Trinkle LCP residual") && fine.contains("Painlevé angle"), "{fine}");
}

/// `FRICSIM_DUMP_UNCONVERGED`: the box stack run with one solver iteration per step misses
/// its steps, and each problem missed is written as an FCLib text problem that `fclib solve`
/// reads and solves to its default tolerance (1e-8): under `Auto` the local problem, under
/// `VelocityAdmm` (whose problems carry the factor `W = G Gᵀ`) the factored global form, which
/// `velocity-admm` solves natively.
#[test]
fn unconverged_problems_are_dumped_for_offline_study() {
    for (solver, global) in [("Auto", false), ("VelocityAdmm", true)] {
        let solver_set = format!("pipeline.solver={solver}");
        let set = [solver_set.as_str(), "pipeline.max_iterations=1", "pipeline.on_failure=Continue"];
        let args: Vec<&str> = ["--frames", "1"].into_iter().chain(set.iter().flat_map(|s| ["--set", *s])).collect();
        let (_dir, files) = run_dumping("box_stack.ron", &args);
        assert!(!files.is_empty(), "{solver}: nothing dumped");
        let first = &files[0];
        let p = fricsim::dfcp::fclib::read_problem(first).unwrap();
        assert_eq!(matches!(p, FclibProblem::Global(_)), global, "{solver}");
        let by = if global { "velocity-admm" } else { "auto" };
        let (code, stdout, stderr) = fricsim(&["fclib", "solve", first.to_str().unwrap(), "--solver", by]);
        assert_eq!(code, 0, "{solver}: {stdout}{stderr}");
        assert!(stdout.contains(&format!("{by}: converged")), "{stdout}");
    }
}

/// A run whose solves all converge dumps nothing: the box stack at its own iteration limit.
#[test]
fn a_converged_run_dumps_nothing() {
    let (_dir, files) = run_dumping("box_stack.ron", &["--frames", "1"]);
    assert!(files.is_empty(), "{files:?}");
}
