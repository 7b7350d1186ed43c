//! `fricsim sweep`: a 3×3 study of a validation scene (μ across the stick/slip threshold × three
//! step sizes) run two at a time, whose `sweep.csv` says stick or slide exactly where the closed
//! form does; finished points are skipped on a second run and redone with `--force`; a bad value
//! is refused before anything runs; a failing point is recorded as failed.

use std::path::Path;
use std::process::Command;

const BIN: &str = env!("CARGO_BIN_EXE_fricsim");

fn scene(rel: &str) -> String {
    Path::new(env!("CARGO_MANIFEST_DIR")).join(rel).to_string_lossy().into_owned()
}

/// `sweep.csv` as a header and rows of fields (no field here holds a comma).
fn table(path: &Path) -> (Vec<String>, Vec<Vec<String>>) {
    let text = std::fs::read_to_string(path).expect("sweep.csv");
    let mut lines = text.lines().map(|l| l.split(',').map(str::to_string).collect::<Vec<_>>());
    (lines.next().expect("header"), lines.collect())
}

fn sweep(out: &Path, extra: &[&str]) -> std::process::Output {
    let ramp = scene("scenes/validation/smooth_rigid_ramp10.ron");
    let mut args = vec!["sweep", &ramp, "--out", out.to_str().unwrap(), "--quiet", "--jobs", "2"];
    args.extend_from_slice(&["--list", "friction.pairs[0].mu=0.17,0.1762,0.1765", "--grid", "dt=0.005:0.02:3"]);
    args.extend_from_slice(&["--metric", "box.vx", "--metric", "box.vz", "--metric", "time"]);
    args.extend_from_slice(extra);
    Command::new(BIN).args(&args).output().expect("run fricsim sweep")
}

/// Stuck: under 1e-6 m/s after 1 s (the rigid box's solvers leave 4e-7); sliding: at a·t within
/// 2 % (the fitted accelerations are within 0.006 %; the last step's speed is a t exactly for
/// a constant a).
#[test]
fn a_three_by_three_study_finds_the_threshold_and_reruns_only_what_is_asked() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("study");
    let first = sweep(&out, &[]);
    assert!(first.status.success(), "{}", String::from_utf8_lossy(&first.stderr));
    let (h, rows) = table(&out.join("sweep.csv"));
    let col = |name: &str| h.iter().position(|c| c == name).unwrap_or_else(|| panic!("no column {name} in {h:?}"));
    assert_eq!(rows.len(), 9);
    let theta = 10f64.to_radians();
    for r in &rows {
        let mu: f64 = r[col("friction.pairs[0].mu")].parse().unwrap();
        assert_eq!(r[col("status")], "completed", "{r:?}");
        let (vx, vz, t): (f64, f64, f64) =
            (r[col("box.vx")].parse().unwrap(), r[col("box.vz")].parse().unwrap(), r[col("time")].parse().unwrap());
        let speed = -(vx * theta.cos() + vz * theta.sin());
        let a = 9.81 * (theta.sin() - mu * theta.cos());
        if a > 0.0 {
            assert!((speed - a * t).abs() < 0.02 * a * t, "mu {mu}: speed {speed}, exact {}", a * t);
        } else {
            assert!(speed.abs() < 1e-6, "mu {mu}: moves at {speed} m/s");
        }
    }
    // Every point has its folder and parameters (grids are the first axes, so dt varies slowest).
    let p = std::fs::read_to_string(out.join("p0004_dt=0.0125_mu=0.1762/point.json")).expect("point.json");
    assert!(p.contains("\"dt\": \"0.0125\""), "{p}");
    // Again: nothing to run. With --force: every point runs again.
    let stamp = |k: &str| std::fs::metadata(out.join(k).join("run.json")).unwrap().modified().unwrap();
    let before = stamp("p0000_dt=0.005_mu=0.17");
    let again = sweep(&out, &[]);
    assert!(again.status.success());
    assert_eq!(stamp("p0000_dt=0.005_mu=0.17"), before, "a finished point ran again");
    let forced = sweep(&out, &["--force"]);
    assert!(forced.status.success());
    assert_ne!(stamp("p0000_dt=0.005_mu=0.17"), before, "--force did not rerun the point");
    assert_eq!(table(&out.join("sweep.csv")).1.len(), 9);
}

#[test]
fn a_bad_value_is_refused_before_anything_runs_and_a_failed_point_is_recorded() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("bad");
    let ramp = scene("scenes/validation/smooth_rigid_ramp10.ron");
    let bad = Command::new(BIN)
        .args(["sweep", &ramp, "--out", out.to_str().unwrap(), "--quiet", "--list", "dt=0.01,-1"])
        .output()
        .unwrap();
    assert_eq!(bad.status.code(), Some(2));
    let err = String::from_utf8_lossy(&bad.stderr);
    assert!(err.contains("point 1 (dt=-1)") && err.contains("dt"), "{err}");
    assert!(!out.exists(), "a refused sweep wrote {out:?}");
    // The fixture fails at its landing step with the default cap; 1 Newton iteration fails sooner.
    let failing = scene("tests/fixtures/no_converge.ron");
    let out = dir.path().join("fails");
    let run = Command::new(BIN)
        .args(["sweep", &failing, "--out", out.to_str().unwrap(), "--quiet", "--list", "frame_rate=50.0"])
        .output()
        .unwrap();
    assert_eq!(run.status.code(), Some(1), "{}", String::from_utf8_lossy(&run.stderr));
    let (h, rows) = table(&out.join("sweep.csv"));
    let status = h.iter().position(|c| c == "status").unwrap();
    assert_eq!(rows[0][status], "failed", "{rows:?}");
}

/// The local sweep's table without its wall times.
fn without_wall_time(path: &Path) -> Vec<Vec<String>> {
    let (h, rows) = table(path);
    let w = h.iter().position(|c| c == "wall_s").unwrap();
    std::iter::once(h)
        .chain(rows)
        .map(|mut r| {
            r.remove(w);
            r
        })
        .collect()
}

/// Emit the study with `emit_args`, let `engine` run the emitted folder, collect it, and compare
/// the table with a local sweep's.
fn emitted_study_gives_the_local_table(emit_args: &[&str], engine: impl FnOnce(&Path)) {
    let dir = tempfile::tempdir().unwrap();
    let (local, cluster) = (dir.path().join("local"), dir.path().join("cluster"));
    assert!(sweep(&local, &[]).status.success());
    let emitted = sweep(&cluster, emit_args);
    assert!(emitted.status.success(), "{}", String::from_utf8_lossy(&emitted.stderr));
    engine(&cluster);
    let collected =
        Command::new(BIN).args(["sweep", "--quiet", "--collect", cluster.to_str().unwrap()]).status().unwrap();
    assert!(collected.success());
    assert_eq!(without_wall_time(&cluster.join("sweep.csv")), without_wall_time(&local.join("sweep.csv")));
}

/// The same 3×3 study emitted for GNU parallel, run by real GNU parallel (Debian `parallel`) and
/// collected, gives the local sweep's table (wall times aside).
/// `apt-get install -y parallel && cargo test --release --test cli_sweep -- --ignored`
#[test]
#[ignore = "needs GNU parallel (apt-get install -y parallel)"]
fn gnu_parallel_runs_the_emitted_job_list_to_the_same_table() {
    emitted_study_gives_the_local_table(&["--emit", "parallel"], |cluster| {
        let jobs = std::fs::File::open(cluster.join("jobs.txt")).unwrap();
        let st =
            Command::new("parallel").args(["--will-cite", "--jobs", "2"]).stdin(jobs).status().expect("GNU parallel");
        assert!(st.success());
    });
}

/// The same study emitted for Slurm, submitted as a job array (two tasks at a time) to a
/// single-node Slurm on localhost and collected, gives the local sweep's table (wall times
/// aside). `apt-get install -y slurm-wlm munge && scripts/slurm_localhost.sh && cargo test
/// --release --test cli_sweep -- --ignored` (or `.ci/run --cluster`).
#[test]
#[ignore = "needs a running Slurm (apt-get install -y slurm-wlm munge; scripts/slurm_localhost.sh)"]
fn a_slurm_job_array_runs_the_points_to_the_same_table() {
    let slurm = ["--emit", "slurm", "--array-limit", "2", "--mem", "1G", "--time", "00:10:00"];
    emitted_study_gives_the_local_table(&slurm, |cluster| {
        let script = std::fs::read_to_string(cluster.join("sweep.sbatch")).unwrap();
        assert!(script.contains("#SBATCH --array=0-8%2"), "{script}");
        let st = Command::new("sbatch").arg("--wait").arg(cluster.join("sweep.sbatch")).status().expect("sbatch");
        assert!(st.success());
    });
}
