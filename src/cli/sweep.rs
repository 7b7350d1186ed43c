//! `fricsim sweep SCENE`: a parameter study on this machine. The points (the product of the
//! `--grid` and `--list` axes, or their pairing with `--zip`) run as `fricsim run` processes,
//! `--jobs` at a time, each into its own folder with its `point.json`; `sweep.csv` joins every
//! point's parameters with its outcome and is rewritten (atomically) as each point ends, so an
//! interrupted sweep leaves a truthful table. Finished points are skipped when the sweep is run
//! again (`--force` redoes them).

use super::SweepArgs;
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
    let plan = match plan(args) {
        Ok(p) => p,
        Err(e) => {
            eprintln!("error: {e}");
            return ExitCode::from(super::exit::BAD_INPUT);
        }
    };
    match execute(args, &plan) {
        Ok(code) => code,
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::from(super::exit::FAILED)
        }
    }
}

fn plan(args: &SweepArgs) -> Result<Plan, String> {
    let mut axes: Vec<Axis> = args.grid.iter().map(|g| parse_grid(g)).collect::<Result<_, _>>()?;
    axes.extend(args.list.iter().map(|l| parse_list(l)).collect::<Result<Vec<_>, _>>()?);
    let points = points(&axes, args.zip)?;
    let metrics = args.metrics.iter().map(|m| Metric::parse(m)).collect::<Result<_, _>>()?;
    // Every point's scene must load: a typo in a value is reported before anything runs.
    for (k, p) in points.iter().enumerate() {
        let overrides = overrides(args, p);
        crate::scene::load_scene(&args.scene, &overrides).map_err(|e| format!("point {k} ({}): {e}", describe(p)))?;
    }
    let stem = args.scene.file_stem().map_or("scene".into(), |s| s.to_string_lossy().into_owned());
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

fn execute(args: &SweepArgs, plan: &Plan) -> Result<ExitCode, String> {
    std::fs::create_dir_all(&plan.out).map_err(|e| format!("cannot create {}: {e}", plan.out.display()))?;
    let dirs: Vec<PathBuf> = plan.points.iter().enumerate().map(|(k, p)| plan.out.join(folder_name(k, p))).collect();
    let todo: Vec<usize> =
        (0..plan.points.len()).filter(|&k| args.force || !finished(&dirs[k], &plan.points[k])).collect();
    for &k in &todo {
        std::fs::create_dir_all(&dirs[k]).map_err(|e| format!("cannot create {}: {e}", dirs[k].display()))?;
        let json = serde_json::to_string_pretty(&point_json(k, &plan.points[k])).expect("plain JSON");
        crate::output::atomic::write_bytes_atomically(&dirs[k].join("point.json"), json.as_bytes())
            .map_err(|e| e.to_string())?;
        // A point about to run again has no outcome yet.
        let _ = std::fs::remove_file(dirs[k].join("run.json"));
    }
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
    cmd.arg("run").arg(&args.scene).arg("--out").arg(dir).arg("--quiet").env("RAYON_NUM_THREADS", threads);
    for o in overrides {
        cmd.arg("--set").arg(o);
    }
    cmd.stdout(Stdio::null());
    cmd.stderr(log.map_or(Stdio::null(), Stdio::from));
    cmd.status().is_ok_and(|s| s.success())
}
