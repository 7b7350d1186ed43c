//! `fricsim run`: step a scene frame by frame and write its outputs.

use super::RunArgs;
use crate::checkpoint::{self, Checkpoint};
use crate::model::{Model, State};
use crate::output::frames::FrameWriter;
use crate::output::stats::{StatValue, StatsWriter};
use crate::output::summary::{RunStatus, RunSummary};
use crate::pipeline::StepStats;
use crate::scene::schema::{BodySpec, MeshSpec, OnFailure, RigidShapeSpec, StructureSpec};
use crate::scene::{self};
use crate::simulation::Simulation;
use indicatif::{ProgressBar, ProgressStyle};
use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Instant;

pub fn run(args: &RunArgs) -> ExitCode {
    match run_inner(args) {
        Ok(code) => code,
        Err(RunError::BadInput(msg)) => {
            eprintln!("{msg}");
            ExitCode::from(super::exit::BAD_INPUT)
        }
        Err(RunError::Failed(msg)) => {
            eprintln!("error: {msg}");
            ExitCode::from(super::exit::FAILED)
        }
    }
}

enum RunError {
    BadInput(String),
    Failed(String),
}

/// Why the stepping loop ended early.
enum Stop {
    Failed(String),
    Interrupted,
}

/// Set by the Ctrl-C / SIGTERM handler; the loop checks it after every step.
static INTERRUPTED: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

fn interrupted() -> bool {
    INTERRUPTED.load(std::sync::atomic::Ordering::Relaxed)
}

fn failed(e: impl std::fmt::Display) -> RunError {
    RunError::Failed(format!("{e:#}"))
}

/// Column names of stats.csv (the README documents each).
pub fn stats_columns(model: &Model) -> Vec<String> {
    let mut cols: Vec<String> = [
        "step",
        "time",
        "wall_s",
        "newton_iters",
        "final_residual",
        "line_search_steps",
        "contact_iterations",
        "kappa",
        "active_contacts",
        "min_gap",
        "kinetic_energy",
        "elastic_energy",
        "converged",
        "substeps",
        "linear_iters",
        "factorizations",
        "assembly_s",
        "linear_solve_s",
        "detection_s",
        "solver_iterations",
        "prox_sweeps",
        "prox_rejections",
        "warm_started",
        "ccd_contacts",
        "projection_s",
        "friction_residual",
        "passes_per_projection",
        "contact_constraints",
        "lcp_residual",
        "st_objective",
        "painleve_deg",
    ]
    .map(String::from)
    .to_vec();
    for b in &model.solids {
        for c in ["x", "y", "z", "vx", "vy", "vz"] {
            cols.push(format!("{}.{c}", b.name));
        }
    }
    for c in &model.cloths {
        for k in ["x", "y", "z", "vx", "vy", "vz"] {
            cols.push(format!("{}.{k}", c.name));
        }
    }
    for (name, _) in model.volume_zones() {
        cols.push(format!("{name}.volume"));
        cols.push(format!("{name}.volume_loss_pct"));
    }
    for b in &model.rigids {
        for c in RIGID_COLUMNS {
            cols.push(format!("{}.{c}", b.name));
        }
    }
    cols
}

/// Per rigid body: center of mass, orientation quaternion (w, x, y, z), velocity, angular
/// velocity (rad/s).
const RIGID_COLUMNS: [&str; 13] = ["x", "y", "z", "qw", "qx", "qy", "qz", "vx", "vy", "vz", "wx", "wy", "wz"];

fn stats_row(model: &Model, state: &State, s: &StepStats, wall: f64) -> Vec<StatValue> {
    let mut row = vec![
        StatValue::Int(state.step as i64),
        StatValue::Float(state.time),
        StatValue::Float(wall),
        StatValue::Int(s.newton_iterations as i64),
        StatValue::Float(s.final_residual),
        StatValue::Int(s.line_search_steps as i64),
        StatValue::Int(s.contact_iterations as i64),
        StatValue::Float(s.kappa),
        StatValue::Int(s.active_contacts as i64),
        StatValue::Float(s.min_gap),
        StatValue::Float(state.kinetic_energy(model)),
        StatValue::Float(s.elastic_energy),
        StatValue::Int(s.converged as i64),
        StatValue::Int(s.substeps as i64),
        StatValue::Int(s.linear_iterations as i64),
        StatValue::Int(s.factorizations as i64),
        StatValue::Float(s.assembly_s),
        StatValue::Float(s.linear_solve_s),
        StatValue::Float(s.detection_s),
        StatValue::Int(s.solver_iterations as i64),
        StatValue::Int(s.prox_sweeps as i64),
        StatValue::Int(s.prox_rejections as i64),
        StatValue::Int(s.warm_started as i64),
        StatValue::Int(s.ccd_contacts as i64),
        StatValue::Float(s.projection_s),
        StatValue::Float(s.friction_residual),
        StatValue::Float(if s.projections > 0 { s.projection_passes as f64 / s.projections as f64 } else { 0.0 }),
        StatValue::Int(s.constraints.unwrap_or(s.active_contacts) as i64),
    ];
    let d = s.diagnostics.map_or([f64::NAN; 3], |d| [d.lcp_residual, d.objective, d.painleve_deg]);
    row.extend(d.map(StatValue::Float));
    let nodal = model.solids.iter().map(|b| b.nodes.clone()).chain(model.cloths.iter().map(|c| c.nodes.clone()));
    for nodes in nodal {
        let (x, v) = state.nodes_centroid(model, nodes);
        row.extend([x.x, x.y, x.z, v.x, v.y, v.z].map(StatValue::Float));
    }
    for (_, zone) in model.volume_zones() {
        let v = crate::energy::volume::enclosed_volume(&zone.triangles, &state.q);
        row.extend([v, 100.0 * (zone.rest_volume - v) / zone.rest_volume].map(StatValue::Float));
    }
    for b in &state.rigid {
        row.extend(b.pose_and_velocity().map(StatValue::Float));
    }
    row
}

/// The scene, overrides and output folder of a run, and the checkpoint it resumes from.
struct Plan {
    scene: PathBuf,
    overrides: Vec<String>,
    out_dir: Option<PathBuf>,
    resume: Option<Checkpoint>,
    checkpoint_every: usize,
}

fn plan(args: &RunArgs) -> Result<Plan, RunError> {
    let Some(dir) = &args.resume else {
        return Ok(Plan {
            scene: args.scene.clone().expect("clap requires the scene without --resume"),
            overrides: args.overrides.clone(),
            out_dir: args.out.clone(),
            resume: None,
            checkpoint_every: args.checkpoint_every.unwrap_or(0) as usize,
        });
    };
    let c = checkpoint::read(dir).map_err(RunError::BadInput)?;
    // Named again: the scene and overrides given; else the checkpoint's, plus any --set given.
    let (scene, overrides) = match &args.scene {
        Some(s) => (s.clone(), args.overrides.clone()),
        None => (PathBuf::from(&c.scene_path), [c.overrides.clone(), args.overrides.clone()].concat()),
    };
    Ok(Plan {
        scene,
        overrides,
        out_dir: Some(dir.clone()),
        checkpoint_every: args.checkpoint_every.map_or(c.checkpoint_every, |n| n as usize),
        resume: Some(c),
    })
}

fn run_inner(args: &RunArgs) -> Result<ExitCode, RunError> {
    let plan = plan(args)?;
    let mut overrides = plan.overrides.clone();
    if let Some(f) = args.frames {
        overrides.push(format!("frames={f}"));
        overrides.push("duration=None".into());
    }
    let loaded = scene::load_scene_with(&plan.scene, &overrides, args.allow_large)
        .map_err(|e| RunError::BadInput(e.to_string()))?;
    let scene_hash = checkpoint::scene_hash(&loaded.scene).map_err(failed)?;
    if let Some(c) = &plan.resume
        && c.scene_hash != scene_hash
    {
        return Err(RunError::BadInput(format!(
            "error: {} changed since the checkpoint in {} was taken (only the run length may change): \
             resuming would not continue the same run; restore the scene or start a new run",
            plan.scene.display(),
            plan.out_dir.as_deref().unwrap_or(Path::new(".")).display()
        )));
    }
    let (model, state) = scene::build::build(&loaded).map_err(|e| RunError::BadInput(e.to_string()))?;
    let out_dir = plan.out_dir.clone().unwrap_or_else(|| PathBuf::from("output").join(&model.name));
    std::fs::create_dir_all(&out_dir)
        .map_err(|e| failed(format!("cannot create output folder {}: {e}", out_dir.display())))?;
    let effective = effective_ron_for(&loaded).map_err(failed)?;
    crate::output::atomic::write_bytes_atomically(&out_dir.join("scene.effective.ron"), effective.as_bytes())
        .map_err(failed)?;
    if !args.quiet {
        eprint!("{}", super::check::summary(&model, state.kappa, &state.rigid));
        eprint!("{}", super::check::implicit_surfaces(&model, &state.q, &state.rigid));
        eprintln!("  output: {}", out_dir.display());
    }
    let mut summary = RunSummary::start(&model.name, &plan.scene, &out_dir);
    summary.exit_status = RunStatus::Running;
    summary.write(&out_dir.join("run.json")).map_err(failed)?;
    let started = Instant::now();
    if model.settle_steps > 0 && !args.quiet {
        eprintln!("  settling for {} steps before t = 0", model.settle_steps);
    }
    let mut sim = Simulation::new(model, state);
    let checkpoints = Checkpoints {
        every: plan.checkpoint_every,
        scene_hash,
        scene_path: std::path::absolute(&plan.scene).unwrap_or(plan.scene.clone()).display().to_string(),
        overrides: plan.overrides.clone(),
    };
    let start = match plan.resume {
        Some(c) => start_resumed(&mut sim, &out_dir, c),
        None => start_new(&mut sim, &out_dir),
    };
    // A second signal while the first is being handled falls through to the default (kill).
    let _ = ctrlc::set_handler(|| INTERRUPTED.store(true, std::sync::atomic::Ordering::Relaxed));
    let mut totals = Totals::default();
    let result = start.and_then(|mut st| {
        let r = simulate(&mut sim, &out_dir, args.quiet, &mut st, &checkpoints);
        totals = st.totals;
        r
    });
    let state = sim.state;
    let code = match &result {
        Ok(()) => {
            summary.exit_status = RunStatus::Completed;
            ExitCode::SUCCESS
        }
        Err(Stop::Failed(msg)) => {
            summary.exit_status = RunStatus::Failed(msg.clone());
            ExitCode::from(super::exit::FAILED)
        }
        Err(Stop::Interrupted) => {
            summary.exit_status = RunStatus::Interrupted;
            ExitCode::from(super::exit::INTERRUPTED)
        }
    };
    summary.end_time = crate::output::summary::rfc3339_utc(std::time::SystemTime::now());
    summary.wall_seconds = started.elapsed().as_secs_f64();
    summary.steps = state.step;
    summary.frames_written = totals.frames_written;
    summary.simulated_time = state.time;
    summary.totals = totals.to_json();
    summary.write(&out_dir.join("run.json")).map_err(failed)?;
    match result {
        Err(Stop::Failed(msg)) => eprintln!("error: {msg}\nframes written so far remain in {}", out_dir.display()),
        Err(Stop::Interrupted) => eprintln!(
            "interrupted at t = {} s (step {}); frames written so far remain in {}",
            state.time,
            state.step,
            out_dir.display()
        ),
        Ok(()) => {}
    }
    Ok(code)
}

/// The effective scene as written to the output folder. Mesh paths in a scene are relative to
/// the scene file, but `scene.effective.ron` lives in the output folder: write them absolute so
/// that the file re-runs from there.
fn effective_ron_for(loaded: &scene::LoadedScene) -> Result<String, ron::Error> {
    let mut s = loaded.scene.clone();
    let absolute = |path: &mut String| *path = scene::resolve_path(&loaded.base_dir, path).display().to_string();
    for body in &mut s.bodies {
        match body {
            BodySpec::Solid(b) => {
                if let MeshSpec::File { path, .. } = &mut b.mesh {
                    absolute(path);
                }
            }
            BodySpec::Cloth(b) => {
                if let crate::scene::schema::ClothMeshSpec::File { path, .. } = &mut b.mesh {
                    absolute(path);
                }
            }
            BodySpec::Rods(_) => {}
            BodySpec::Rigid(b) => {
                if let RigidShapeSpec::Mesh { path, .. } = &mut b.shape {
                    absolute(path);
                }
                if let Some(StructureSpec::Texture { path }) = &mut b.structure {
                    absolute(path);
                }
            }
        }
    }
    scene::load::to_ron(&s)
}

/// Counters accumulated over a run for run.json (kept in checkpoints).
#[derive(Debug, Default, serde::Serialize, serde::Deserialize)]
struct Totals {
    newton_iterations: u64,
    line_search_steps: u64,
    contact_iterations: u64,
    failed_steps: u64,
    linear_iterations: u64,
    factorizations: u64,
    solver_iterations: u64,
    max_kappa: f64,
    max_active_contacts: u64,
    assembly_s: f64,
    linear_solve_s: f64,
    frames_written: u64,
}

impl Totals {
    fn add_step(&mut self, s: &StepStats) {
        self.newton_iterations += s.newton_iterations as u64;
        self.line_search_steps += s.line_search_steps as u64;
        self.contact_iterations += s.contact_iterations as u64;
        self.failed_steps += u64::from(!s.converged);
        self.linear_iterations += s.linear_iterations as u64;
        self.factorizations += s.factorizations as u64;
        self.solver_iterations += s.solver_iterations as u64;
        self.max_kappa = self.max_kappa.max(s.kappa);
        self.max_active_contacts = self.max_active_contacts.max(s.active_contacts as u64);
        self.assembly_s += s.assembly_s;
        self.linear_solve_s += s.linear_solve_s;
    }

    fn to_json(&self) -> std::collections::BTreeMap<String, serde_json::Value> {
        use serde_json::json;
        [
            ("newton_iterations", json!(self.newton_iterations)),
            ("line_search_steps", json!(self.line_search_steps)),
            ("contact_iterations", json!(self.contact_iterations)),
            ("failed_steps", json!(self.failed_steps)),
            ("linear_iterations", json!(self.linear_iterations)),
            ("factorizations", json!(self.factorizations)),
            ("solver_iterations", json!(self.solver_iterations)),
            ("max_kappa", json!(self.max_kappa)),
            ("max_active_contacts", json!(self.max_active_contacts)),
            ("assembly_s", json!(self.assembly_s)),
            ("linear_solve_s", json!(self.linear_solve_s)),
        ]
        .into_iter()
        .map(|(k, v)| (k.to_string(), v))
        .collect()
    }
}

/// How often checkpoints are written, and what identifies the run in them.
struct Checkpoints {
    /// Frames between checkpoints (0: none).
    every: usize,
    scene_hash: u64,
    scene_path: String,
    overrides: Vec<String>,
}

/// The writers and counters of a run, and the last frame written.
struct Progress {
    frames: FrameWriter,
    stats: Option<StatsWriter>,
    totals: Totals,
    frame: usize,
}

/// A new run: fresh writers, and frame 0.
fn start_new(sim: &mut Simulation, out_dir: &Path) -> Result<Progress, Stop> {
    let failed = |e: &dyn std::fmt::Display| Stop::Failed(e.to_string());
    let Simulation { model, state, pipeline } = sim;
    let mut frames = FrameWriter::new(model, state, out_dir).map_err(|e| failed(&e))?;
    let stats = if model.output.stats {
        Some(StatsWriter::create(out_dir.join("stats.csv"), stats_columns(model)).map_err(|e| failed(&e))?)
    } else {
        None
    };
    let (fn0, ff0) = pipeline.contact_forces(model, state);
    frames.write_frame(model, state, 0, &fn0, &ff0, pipeline.contact_points()).map_err(|e| failed(&e))?;
    let totals = Totals { frames_written: 1, ..Totals::default() };
    Ok(Progress { frames, stats, totals, frame: 0 })
}

/// A resumed run: `sim` was built from the scene's initial state (which also sizes the collider
/// patches); the checkpoint's state, pipeline data, writers and totals are laid over it.
fn start_resumed(sim: &mut Simulation, out_dir: &Path, c: Checkpoint) -> Result<Progress, Stop> {
    let failed = |e: &dyn std::fmt::Display| Stop::Failed(format!("cannot resume from {}: {e}", out_dir.display()));
    let Simulation { model, state, pipeline } = sim;
    let frames = FrameWriter::resume(model, state, out_dir, c.frame, c.frames).map_err(|e| failed(&e))?;
    c.state.apply(state).map_err(|e| failed(&e))?;
    pipeline.restore(c.pipeline).map_err(|e| failed(&e))?;
    let stats = match (model.output.stats, c.stats) {
        (true, Some((rows, bytes))) => Some(
            StatsWriter::resume(out_dir.join("stats.csv"), stats_columns(model), rows, bytes)
                .map_err(|e| failed(&e))?,
        ),
        (false, None) => None,
        _ => return Err(failed(&"the checkpoint's statistics setting is not the scene's")),
    };
    let totals = postcard::from_bytes(&c.totals).map_err(|e| failed(&e))?;
    Ok(Progress { frames, stats, totals, frame: c.frame })
}

fn write_checkpoint(sim: &Simulation, out_dir: &Path, p: &Progress, c: &Checkpoints) -> Result<(), Stop> {
    let failed = |e: &dyn std::fmt::Display| Stop::Failed(format!("writing the checkpoint: {e}"));
    let ckpt = Checkpoint {
        format_version: checkpoint::FORMAT_VERSION,
        fricsim_version: env!("CARGO_PKG_VERSION").to_string(),
        scene_hash: c.scene_hash,
        scene_path: c.scene_path.clone(),
        overrides: c.overrides.clone(),
        checkpoint_every: c.every,
        frame: p.frame,
        state: checkpoint::SavedState::of(&sim.state),
        pipeline: sim.pipeline.save(),
        frames: p.frames.saved(),
        stats: p.stats.as_ref().map(|w| (w.rows_written(), w.bytes_written())),
        totals: postcard::to_stdvec(&p.totals).map_err(|e| failed(&e))?,
    };
    checkpoint::write(out_dir, &ckpt).map_err(|e| failed(&e))
}

fn simulate(
    sim: &mut Simulation,
    out_dir: &Path,
    quiet: bool,
    p: &mut Progress,
    ckpt: &Checkpoints,
) -> Result<(), Stop> {
    let failed = |e: &dyn std::fmt::Display| Stop::Failed(e.to_string());
    let (on_failure, frames, steps_per_frame) =
        (sim.model.pipeline.on_failure(), sim.model.frames, sim.model.steps_per_frame);
    let total_steps = sim.model.step_count() as u64;
    let tty = std::io::stderr().is_terminal();
    let bar = if quiet || !tty { ProgressBar::hidden() } else { ProgressBar::new(total_steps) };
    bar.set_style(
        ProgressStyle::with_template("{bar:30} frame {msg} | {per_sec} | ETA {eta}")
            .unwrap_or_else(|_| ProgressStyle::default_bar()),
    );
    bar.set_position(sim.state.step.min(total_steps));
    let start = Instant::now();
    let first_step = sim.state.step;
    let mut failures = 0usize;
    for frame in p.frame + 1..=frames {
        for _ in 0..steps_per_frame {
            let Simulation { model, state, pipeline } = &mut *sim;
            let t = Instant::now();
            let s = pipeline.step(model, state).map_err(|e| failed(&e))?;
            p.totals.add_step(&s);
            if let Some(w) = p.stats.as_mut() {
                w.write_row(&stats_row(model, state, &s, t.elapsed().as_secs_f64())).map_err(|e| failed(&e))?;
            }
            if let Some(reason) = &s.failure {
                failures += 1;
                if on_failure == OnFailure::Stop {
                    return Err(Stop::Failed(format!(
                        "step {} (t = {:.6} s) did not converge: {reason}",
                        state.step, state.time
                    )));
                }
                if !quiet {
                    bar.suspend(|| {
                        eprintln!("warning: step {} (t = {:.6} s) did not converge: {reason}", state.step, state.time)
                    });
                }
            }
            bar.inc(1);
            if interrupted() {
                bar.finish_and_clear();
                return Err(Stop::Interrupted);
            }
        }
        let Simulation { model, state, pipeline } = &mut *sim;
        let (fnorm, ffric) = pipeline.contact_forces(model, state);
        p.frames.write_frame(model, state, frame, &fnorm, &ffric, pipeline.contact_points()).map_err(|e| failed(&e))?;
        p.totals.frames_written += 1;
        p.frame = frame;
        if ckpt.every > 0 && frame % ckpt.every == 0 {
            write_checkpoint(sim, out_dir, p, ckpt)?;
        }
        let (model, state) = (&sim.model, &sim.state);
        bar.set_message(format!("{frame}/{} t={:.4} s", model.frames, state.time));
        if !quiet && !tty {
            let el = start.elapsed().as_secs_f64();
            eprintln!(
                "frame {frame}/{} t={:.6} s steps/s {:.1} elapsed {:.1} s",
                model.frames,
                state.time,
                (state.step - first_step) as f64 / el.max(1e-9),
                el
            );
        }
    }
    bar.finish_and_clear();
    if failures > 0 && !quiet {
        eprintln!("{failures} step(s) did not converge (see stats.csv, column converged)");
    }
    Ok(())
}
