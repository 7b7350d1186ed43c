//! Command-line subcommands.

pub mod check;
pub mod fclib;
pub mod plot;
pub mod run;
pub mod sweep;

use clap::{Parser, Subcommand};
use std::path::PathBuf;

#[derive(Debug, Parser)]
#[command(name = "fricsim", version, about = "Batch simulator of frictional contact", long_about = None)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Simulate a scene and write the VTK/PLY time series, stats.csv and run.json.
    Run(RunArgs),
    /// Validate a scene and print a summary without running it.
    Check(CheckArgs),
    /// A parameter study: run a scene over a grid of `--set` values, `--jobs` at a time, and
    /// collect the outcomes in sweep.csv.
    Sweep(SweepArgs),
    /// Plot stats.csv columns of runs or sweeps (PNG or SVG), with closed-form curves beside them.
    Plot(PlotArgs),
    /// Exact Coulomb contact solvers on FCLib problem files (solve, bench).
    #[command(subcommand)]
    Fclib(fclib::FclibCommand),
}

#[derive(Debug, clap::Args)]
pub struct RunArgs {
    /// The scene file (.ron). With --resume, the checkpoint's scene file when left out.
    #[arg(required_unless_present = "resume")]
    pub scene: Option<PathBuf>,
    /// Output folder (default: output/<scene name>/).
    #[arg(long)]
    pub out: Option<PathBuf>,
    /// Override a scene field, e.g. --set friction.pairs[0].mu=0.176 (repeatable).
    #[arg(long = "set", value_name = "PATH=VALUE")]
    pub overrides: Vec<String>,
    /// Number of frames to simulate (overrides the scene's duration/frames).
    #[arg(long)]
    pub frames: Option<usize>,
    /// No progress output.
    #[arg(long)]
    pub quiet: bool,
    /// Write a checkpoint every N frames (OUT/checkpoint.bin, replaced atomically), from which
    /// --resume continues.
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..))]
    pub checkpoint_every: Option<u64>,
    /// Continue the run in OUT from its checkpoint, bit for bit as if it had not stopped
    /// (--frames sets the new total; the scene must be unchanged apart from its length).
    #[arg(long, value_name = "OUT", conflicts_with = "out")]
    pub resume: Option<PathBuf>,
    /// Run a scene whose estimated memory exceeds this machine's (refused otherwise).
    #[arg(long)]
    pub allow_large: bool,
}

#[derive(Debug, clap::Args)]
pub struct SweepArgs {
    /// The scene file (.ron).
    #[arg(required_unless_present = "collect")]
    pub scene: Option<PathBuf>,
    /// Build sweep.csv from the folders of a sweep emitted with --emit (its manifest.json).
    #[arg(long, value_name = "DIR", conflicts_with_all = ["grid", "list", "emit"])]
    pub collect: Option<PathBuf>,
    /// Write the points for a cluster instead of running them: `parallel` (jobs.txt for GNU
    /// parallel) or `slurm` (jobs.txt and an sbatch array script, sweep.sbatch).
    #[arg(long, value_enum)]
    pub emit: Option<EmitKind>,
    /// Slurm: at most this many array tasks at once (`--array=0-N%LIMIT`).
    #[arg(long, value_name = "N")]
    pub array_limit: Option<usize>,
    /// Slurm: time limit per task.
    #[arg(long, default_value = "01:00:00")]
    pub time: String,
    /// Slurm: memory per task.
    #[arg(long, default_value = "4G")]
    pub mem: String,
    /// A numeric axis: PATH=a:b:n (n values from a to b) or PATH=a:b:n:log (geometric). Repeatable.
    #[arg(long, value_name = "PATH=a:b:n[:log]")]
    pub grid: Vec<String>,
    /// An axis of RON values: PATH=v1,v2,... (commas inside brackets stay). Repeatable; lists come
    /// after the grids.
    #[arg(long, value_name = "PATH=v1,v2,...")]
    pub list: Vec<String>,
    /// Pair the axes value by value instead of taking every combination.
    #[arg(long)]
    pub zip: bool,
    /// Runs at a time (default: the number of cores; each run gets cores / jobs threads).
    #[arg(long)]
    pub jobs: Option<usize>,
    /// Output folder (default: output/<scene file stem>_sweep/), one folder per point inside.
    #[arg(long)]
    pub out: Option<PathBuf>,
    /// A fixed override for every point (repeatable).
    #[arg(long = "set", value_name = "PATH=VALUE")]
    pub overrides: Vec<String>,
    /// A stats.csv column to report per point: COLUMN (its last value), max:COLUMN, min:COLUMN
    /// or mean:COLUMN. Repeatable.
    #[arg(long = "metric", value_name = "[max:|min:|mean:]COLUMN")]
    pub metrics: Vec<String>,
    /// Run again the points that already completed.
    #[arg(long)]
    pub force: bool,
    /// No progress bar.
    #[arg(long)]
    pub quiet: bool,
}

#[derive(Debug, clap::Args)]
pub struct PlotArgs {
    /// What to plot: run folders (their stats.csv), CSV files, or sweeps (a folder with sweep.csv,
    /// or the sweep.csv itself).
    #[arg(required = true)]
    pub inputs: Vec<PathBuf>,
    /// A column for the vertical axis (repeatable), e.g. -y block.x, or a sweep.csv metric.
    #[arg(short = 'y', long = "y", value_name = "COLUMN", required = true)]
    pub y: Vec<String>,
    /// The column for the horizontal axis; a swept parameter plots the sweep's sweep.csv.
    #[arg(short = 'x', long = "x", value_name = "COLUMN", default_value = "time")]
    pub x: String,
    #[arg(long)]
    pub log_x: bool,
    #[arg(long)]
    pub log_y: bool,
    /// A closed-form curve in t (the abscissa), drawn dashed: 'LABEL=EXPR' with + - * / ^,
    /// numbers, pi and sin cos tan sqrt exp ln log10 abs rad (degrees to radians). Repeatable.
    #[arg(long = "curve", value_name = "LABEL=EXPR")]
    pub curves: Vec<String>,
    /// Legend label of each input, in order (default: the run's folder name).
    #[arg(long = "label")]
    pub labels: Vec<String>,
    /// The picture (.png or .svg; default: <first input>/<y column>.png).
    #[arg(short = 'o', long)]
    pub out: Option<PathBuf>,
    #[arg(long)]
    pub title: Option<String>,
    /// Picture size in pixels.
    #[arg(long, default_value = "1000x640", value_name = "WxH")]
    pub size: String,
}

#[derive(Debug, Clone, Copy, PartialEq, clap::ValueEnum)]
pub enum EmitKind {
    Parallel,
    Slurm,
}

#[derive(Debug, clap::Args)]
pub struct CheckArgs {
    pub scene: PathBuf,
    #[arg(long = "set", value_name = "PATH=VALUE")]
    pub overrides: Vec<String>,
    /// Accept a scene whose estimated memory exceeds this machine's (refused otherwise).
    #[arg(long)]
    pub allow_large: bool,
}

/// Exit codes: 0 success, 1 the run failed (divergence, a failed step the scene says must stop
/// the run, an output error), 2 bad input (scene, mesh, command line).
pub mod exit {
    pub const FAILED: u8 = 1;
    pub const BAD_INPUT: u8 = 2;
    /// Stopped by Ctrl-C or SIGTERM after finishing the current step (128 + SIGINT, as shells do).
    pub const INTERRUPTED: u8 = 130;
}
