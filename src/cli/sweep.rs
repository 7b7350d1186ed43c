//! `fricsim sweep SCENE`: a parameter study on this machine. The points (the product of the
//! `--grid` and `--list` axes, or their pairing with `--zip`) run as `fricsim run` processes,
//! `--jobs` at a time, each into its own folder with its `point.json`; `sweep.csv` joins every
//! point's parameters with its outcome and is rewritten (atomically) as each point ends, so an
//! interrupted sweep leaves a truthful table. Finished points are skipped when the sweep is run
//! again (`--force` redoes them). `--emit parallel|slurm` writes the same runs as a job list
//! and an array script for a cluster, and `--collect DIR` builds the table afterwards.

use super::{EmitKind, SweepArgs};
use crate::sweep::emit::{self, Manifest, ManifestPoint};
use crate::sweep::table::{self, Metric};
use crate::sweep::{Axis, Point, folder_name, parse_grid, parse_list, points};
use indicatif::{ProgressBar, ProgressStyle};
use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode, Stdio};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

static INTERRUPTED: AtomicBool = AtomicBool::new(false);

/// What the sweep was asked for, checked before anything runs.
struct Plan {
    axes: Vec<Axis>,
    points: Vec<Point>,
    metrics: Vec<Metric>,
    out: PathBuf,
    jobs: usize,
}

pub fn run(args: &SweepArgs) -> ExitCode {
    if let Some(dir) = &args.collect {
        return match collect(dir, args) {
            Ok(code) => code,
            Err(e) => {
                eprintln!("error: {e}");
                ExitCode::from(super::exit::BAD_INPUT)
            }
        };
    }
    let plan = match plan(args) {
        Ok(p) => p,
        Err(e) => {
            eprintln!("error: {e}");
            return ExitCode::from(super::exit::BAD_INPUT);
        }
    };
    let done = match args.emit {
        Some(kind) => emit_for_cluster(args, &plan, kind),
        None => execute(args, &plan),
    };
    match done {
        Ok(code) => code,
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::from(super::exit::FAILED)
        }
    }
}

fn scene(args: &SweepArgs) -> &Path {
    args.scene.as_deref().expect("clap requires the scene unless --collect")
}

fn plan(args: &SweepArgs) -> Result<Plan, String> {
    let mut axes: Vec<Axis> = args.grid.iter().map(|g| parse_grid(g)).collect::<Result<_, _>>()?;
    axes.extend(args.list.iter().map(|l| parse_list(l)).collect::<Result<Vec<_>, _>>()?);
    let points = points(&axes, args.zip)?;
    let metrics = args.metrics.iter().map(|m| Metric::parse(m)).collect::<Result<_, _>>()?;
    // Every point's scene must load: a typo in a value is reported before anything runs.
    for (k, p) in points.iter().enumerate() {
        let overrides = overrides(args, p);
        crate::scene::load_scene(scene(args), &overrides).map_err(|e| format!("point {k} ({}): {e}", describe(p)))?;
    }
    let stem = scene(args).file_stem().map_or("scene".into(), |s| s.to_string_lossy().into_owned());
    let out = args.out.clone().unwrap_or_else(|| PathBuf::from("output").join(format!("{stem}_sweep")));
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    let jobs = args.jobs.unwrap_or(cores).clamp(1, 1024);
    Ok(Plan { axes, points, metrics, out, jobs })
}

fn overrides(args: &SweepArgs, p: &Point) -> Vec<String> {
    args.overrides.iter().cloned().chain(p.iter().map(|(k, v)| format!("{k}={v}"))).collect()
}

fn describe(p: &Point) -> String {
    p.iter().map(|(k, v)| format!("{k}={v}")).collect::<Vec<_>>().join(", ")
}

/// The point's folder holds a completed run of the same parameters.
fn finished(dir: &Path, p: &Point) -> bool {
    let read = |f: &str| {
        std::fs::read_to_string(dir.join(f)).ok().and_then(|s| serde_json::from_str::<serde_json::Value>(&s).ok())
    };
    let (Some(run), Some(point)) = (read("run.json"), read("point.json")) else { return false };
    run["exit_status"] == "completed" && point["parameters"] == point_json(0, p)["parameters"]
}

fn point_json(index: usize, p: &Point) -> serde_json::Value {
    let params: serde_json::Map<String, serde_json::Value> =
        p.iter().map(|(k, v)| (k.clone(), serde_json::Value::String(v.clone()))).collect();
    serde_json::json!({ "point": index, "parameters": params })
}

/// Every point's folder, and the points to run: each gets its folder and `point.json`, and loses
/// any earlier `run.json` (a point about to run again has no outcome yet).
fn prepare(args: &SweepArgs, plan: &Plan) -> Result<(Vec<PathBuf>, Vec<usize>), String> {
    std::fs::create_dir_all(&plan.out).map_err(|e| format!("cannot create {}: {e}", plan.out.display()))?;
    let dirs: Vec<PathBuf> = plan.points.iter().enumerate().map(|(k, p)| plan.out.join(folder_name(k, p))).collect();
    let todo: Vec<usize> =
        (0..plan.points.len()).filter(|&k| args.force || !finished(&dirs[k], &plan.points[k])).collect();
    for &k in &todo {
        std::fs::create_dir_all(&dirs[k]).map_err(|e| format!("cannot create {}: {e}", dirs[k].display()))?;
        let json = serde_json::to_string_pretty(&point_json(k, &plan.points[k])).expect("plain JSON");
        crate::output::atomic::write_bytes_atomically(&dirs[k].join("point.json"), json.as_bytes())
            .map_err(|e| e.to_string())?;
        let _ = std::fs::remove_file(dirs[k].join("run.json"));
    }
    Ok((dirs, todo))
}

/// The `fricsim run` words of point `k` (absolute paths: the lines run from anywhere).
fn run_words(exe: &Path, args: &SweepArgs, plan: &Plan, k: usize, dir: &Path) -> Result<Vec<String>, String> {
    let abs = |p: &Path| std::path::absolute(p).map_err(|e| format!("{}: {e}", p.display()));
    let mut w = vec![
        abs(exe)?.to_string_lossy().into_owned(),
        "run".into(),
        abs(scene(args))?.to_string_lossy().into_owned(),
        "--out".into(),
        abs(dir)?.to_string_lossy().into_owned(),
        "--quiet".into(),
    ];
    for o in overrides(args, &plan.points[k]) {
        w.extend(["--set".to_string(), o]);
    }
    Ok(w)
}

/// `jobs.txt` (one command per point still to run, its messages into the point's `run.log`),
/// `manifest.json`, and for Slurm `sweep.sbatch`.
fn emit_for_cluster(args: &SweepArgs, plan: &Plan, kind: EmitKind) -> Result<ExitCode, String> {
    let (dirs, todo) = prepare(args, plan)?;
    let exe = std::env::current_exe().map_err(|e| format!("cannot find the fricsim binary: {e}"))?;
    let mut jobs = String::new();
    for &k in &todo {
        let log = std::path::absolute(dirs[k].join("run.log")).map_err(|e| e.to_string())?;
        let line = emit::command_line(&run_words(&exe, args, plan, k, &dirs[k])?);
        // One thread per run unless the engine says otherwise (Slurm: its CPUs per task).
        let log = emit::shell_quote(&log.to_string_lossy());
        jobs.push_str(&format!("RAYON_NUM_THREADS=\"${{RAYON_NUM_THREADS:-1}}\" {line} 2> {log}\n"));
    }
    let write = |name: &str, text: &str| {
        crate::output::atomic::write_bytes_atomically(&plan.out.join(name), text.as_bytes()).map_err(|e| e.to_string())
    };
    write("jobs.txt", &jobs)?;
    let manifest = Manifest {
        scene: scene(args).to_string_lossy().into_owned(),
        paths: plan.axes.iter().map(|a| a.path.clone()).collect(),
        metrics: args.metrics.clone(),
        points: plan
            .points
            .iter()
            .enumerate()
            .map(|(k, p)| ManifestPoint {
                point: k,
                folder: folder_name(k, p),
                values: p.iter().map(|(_, v)| v.clone()).collect(),
            })
            .collect(),
    };
    write("manifest.json", &serde_json::to_string_pretty(&manifest).expect("plain JSON"))?;
    let folder = std::path::absolute(&plan.out).map_err(|e| e.to_string())?.to_string_lossy().into_owned();
    let next = match kind {
        EmitKind::Parallel => format!("parallel --jobs {} < {folder}/jobs.txt", plan.jobs),
        EmitKind::Slurm => {
            let name = scene(args).file_stem().map_or("fricsim".into(), |s| s.to_string_lossy().into_owned());
            write("sweep.sbatch", &emit::sbatch(&folder, &name, todo.len(), args.array_limit, &args.time, &args.mem))?;
            format!("sbatch {folder}/sweep.sbatch")
        }
    };
    if !args.quiet {
        eprintln!("sweep: {} points to run written to {folder}/jobs.txt", todo.len());
        eprintln!("  run them:  {next}");
        eprintln!("  then:      fricsim sweep --collect {folder}");
    }
    Ok(ExitCode::SUCCESS)
}

/// `sweep.csv` of an emitted sweep, from its manifest and its points' folders.
fn collect(dir: &Path, args: &SweepArgs) -> Result<ExitCode, String> {
    let text = std::fs::read_to_string(dir.join("manifest.json")).map_err(|e| {
        format!("{}: {e} (collect reads the manifest.json that --emit writes)", dir.join("manifest.json").display())
    })?;
    let m: Manifest =
        serde_json::from_str(&text).map_err(|e| format!("{}: {e}", dir.join("manifest.json").display()))?;
    let specs = m.metrics.iter().chain(&args.metrics);
    let metrics: Vec<Metric> = specs.map(|s| Metric::parse(s)).collect::<Result<_, _>>()?;
    let header = table::header(&m.paths, &metrics);
    let rows: Vec<Vec<String>> =
        m.points.iter().map(|p| table::row(p.point, &p.values, &dir.join(&p.folder), &metrics)).collect();
    table::write(&dir.join("sweep.csv"), &header, &rows).map_err(|e| e.to_string())?;
    let done = rows.iter().filter(|r| r.get(m.paths.len() + 1).is_some_and(|s| s == "completed")).count();
    if !args.quiet {
        eprintln!("sweep: {done} of {} points completed; table {}", rows.len(), dir.join("sweep.csv").display());
    }
    Ok(if done == rows.len() { ExitCode::SUCCESS } else { ExitCode::from(super::exit::FAILED) })
}

fn execute(args: &SweepArgs, plan: &Plan) -> Result<ExitCode, String> {
    let (dirs, todo) = prepare(args, plan)?;
    let paths: Vec<String> = plan.axes.iter().map(|a| a.path.clone()).collect();
    let header = table::header(&paths, &plan.metrics);
    let write_table = || {
        let rows: Vec<Vec<String>> = plan
            .points
            .iter()
            .enumerate()
            .map(|(k, p)| table::row(k, &p.iter().map(|(_, v)| v.clone()).collect::<Vec<_>>(), &dirs[k], &plan.metrics))
            .collect();
        table::write(&plan.out.join("sweep.csv"), &header, &rows).map_err(|e| e.to_string())
    };
    write_table()?;
    let bar = progress(args.quiet, todo.len());
    let _ = ctrlc::set_handler(|| INTERRUPTED.store(true, Ordering::Relaxed));
    let exe = std::env::current_exe().map_err(|e| format!("cannot find the fricsim binary: {e}"))?;
    // Each run gets its share of the cores, so `--jobs` runs do not oversubscribe them.
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    let threads = (cores / plan.jobs).max(1).to_string();
    let (next, failed) = (AtomicUsize::new(0), AtomicUsize::new(0));
    let table_lock = Arc::new(Mutex::new(()));
    let error: Mutex<Option<String>> = Mutex::new(None);
    std::thread::scope(|s| {
        for _ in 0..plan.jobs.min(todo.len()) {
            s.spawn(|| {
                while !INTERRUPTED.load(Ordering::Relaxed) {
                    let Some(&k) = todo.get(next.fetch_add(1, Ordering::Relaxed)) else { break };
                    let ok = run_point(&exe, args, &overrides(args, &plan.points[k]), &dirs[k], &threads);
                    if !ok {
                        failed.fetch_add(1, Ordering::Relaxed);
                    }
                    let _guard = table_lock.lock().unwrap_or_else(|e| e.into_inner());
                    if let Err(e) = write_table() {
                        *error.lock().unwrap_or_else(|e| e.into_inner()) = Some(e);
                    }
                    bar.set_message(format!("{} failed", failed.load(Ordering::Relaxed)));
                    bar.inc(1);
                }
            });
        }
    });
    bar.finish_and_clear();
    if let Some(e) = error.into_inner().unwrap_or_else(|e| e.into_inner()) {
        return Err(e);
    }
    let failed = failed.load(Ordering::Relaxed);
    let skipped = plan.points.len() - todo.len();
    if !args.quiet {
        eprintln!(
            "sweep: {} points ({} run, {skipped} already done, {failed} failed); table {}",
            plan.points.len(),
            todo.len(),
            plan.out.join("sweep.csv").display()
        );
    }
    Ok(if INTERRUPTED.load(Ordering::Relaxed) {
        ExitCode::from(super::exit::INTERRUPTED)
    } else if failed > 0 {
        ExitCode::from(super::exit::FAILED)
    } else {
        ExitCode::SUCCESS
    })
}

fn progress(quiet: bool, n: usize) -> ProgressBar {
    if quiet {
        return ProgressBar::hidden();
    }
    let bar = ProgressBar::new(n as u64);
    if let Ok(style) = ProgressStyle::with_template("{bar:40} {pos}/{len} points, {msg}, ETA {eta}") {
        bar.set_style(style);
    }
    bar
}

/// One `fricsim run` of a point, its stderr kept in the point's `run.log`; true if it completed.
fn run_point(exe: &Path, args: &SweepArgs, overrides: &[String], dir: &Path, threads: &str) -> bool {
    let log = std::fs::File::create(dir.join("run.log"));
    let mut cmd = Command::new(exe);
    cmd.arg("run").arg(scene(args)).arg("--out").arg(dir).arg("--quiet").env("RAYON_NUM_THREADS", threads);
    for o in overrides {
        cmd.arg("--set").arg(o);
    }
    cmd.stdout(Stdio::null());
    cmd.stderr(log.map_or(Stdio::null(), Stdio::from));
    cmd.status().is_ok_and(|s| s.success())
}
