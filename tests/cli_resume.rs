//! Checkpoints and `fricsim run --resume`: for one scene of each pipeline and kind of body, 10
//! frames straight and 5 + resume to 10 give byte-identical VTU/PLY files, `.pvd` collections and
//! `stats.csv` rows (wall-time columns excepted); SIGKILL during a checkpoint write leaves the
//! previous checkpoint usable; a changed scene, a damaged checkpoint and a missing one are
//! refused with a message.

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

const BIN: &str = env!("CARGO_BIN_EXE_fricsim");

fn scene(rel: &str) -> String {
    Path::new(env!("CARGO_MANIFEST_DIR")).join(rel).to_string_lossy().into_owned()
}

fn fricsim(args: &[&str]) -> Output {
    Command::new(BIN).args(args).output().expect("run fricsim")
}

fn ok(o: Output) -> Output {
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    o
}

fn files(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for sub in ["vtk", "ply"] {
        if let Ok(entries) = std::fs::read_dir(dir.join(sub)) {
            out.extend(entries.flatten().map(|e| Path::new(sub).join(e.file_name())));
        }
    }
    if let Ok(entries) = std::fs::read_dir(dir) {
        out.extend(
            entries
                .flatten()
                .map(|e| PathBuf::from(e.file_name()))
                .filter(|p| p.extension().is_some_and(|e| e == "pvd")),
        );
    }
    out.sort();
    out
}

/// `stats.csv` without its wall-time columns (`wall_s` and every `*_s` timing).
fn stats_without_times(dir: &Path) -> Vec<Vec<String>> {
    let text = std::fs::read_to_string(dir.join("stats.csv")).expect("stats.csv");
    let rows: Vec<Vec<String>> = text.lines().map(|l| l.split(',').map(str::to_string).collect()).collect();
    let keep: Vec<bool> = rows[0].iter().map(|c| !c.ends_with("_s")).collect();
    rows.iter().map(|r| r.iter().zip(&keep).filter(|(_, k)| **k).map(|(v, _)| v.clone()).collect()).collect()
}

/// Every frame file, collection and statistics row of `a` is in `b`, byte for byte.
fn assert_same_output(a: &Path, b: &Path, what: &str) {
    let (fa, fb) = (files(a), files(b));
    assert!(fa.len() > 4, "{what}: only {fa:?}");
    assert_eq!(fa, fb, "{what}: the same files");
    for f in &fa {
        let (x, y) = (std::fs::read(a.join(f)).unwrap(), std::fs::read(b.join(f)).unwrap());
        assert!(x == y, "{what}: {} differs after the resume", f.display());
    }
    let (sa, sb) = (stats_without_times(a), stats_without_times(b));
    assert_eq!(sa.len(), sb.len(), "{what}: stats rows");
    for (ra, rb) in sa.iter().zip(&sb) {
        assert_eq!(ra, rb, "{what}: stats row {}", ra[0]);
    }
}

/// 10 frames straight, and 5 frames with a checkpoint then `--resume` to 10 in a new process.
/// Each scene below has contacts before its checkpoint, so warm starts, multipliers and grown
/// patterns are all in it.
fn straight_and_resumed(rel: &str, sets: &[&str], frames: usize) {
    let dir = tempfile::tempdir().unwrap();
    let (a, b) = (dir.path().join("a"), dir.path().join("b"));
    let sc = scene(rel);
    let n = frames.to_string();
    let half = (frames / 2).to_string();
    let mut args = vec!["run", sc.as_str(), "--quiet", "--frames", &n, "--out", a.to_str().unwrap()];
    args.extend(sets.iter().flat_map(|s| ["--set", s]));
    ok(fricsim(&args));
    let mut args =
        vec!["run", &sc, "--quiet", "--frames", &half, "--checkpoint-every", &half, "--out", b.to_str().unwrap()];
    args.extend(sets.iter().flat_map(|s| ["--set", s]));
    ok(fricsim(&args));
    assert!(b.join("checkpoint.bin").is_file());
    // The checkpoint remembers the scene and its overrides.
    ok(fricsim(&["run", "--resume", b.to_str().unwrap(), "--quiet", "--frames", &n]));
    assert_same_output(&a, &b, rel);
    let summary = std::fs::read_to_string(b.join("run.json")).unwrap();
    let steps = |s: &str| serde_json::from_str::<serde_json::Value>(s).unwrap()["steps"].clone();
    assert_eq!(steps(&summary), steps(&std::fs::read_to_string(a.join("run.json")).unwrap()));
}

#[test]
fn penalty_solid_and_bdf2_history_resume_bit_for_bit() {
    straight_and_resumed("scenes/validation/ramp10.ron", &["pipeline.integrator=Bdf2"], 10);
}

#[test]
fn penalty_cloth_resumes_bit_for_bit() {
    straight_and_resumed("scenes/validation/cloth_ramp10.ron", &[], 10);
}

#[test]
fn nonsmooth_rigid_bodies_resume_bit_for_bit() {
    straight_and_resumed("scenes/capsule_hopper.ron", &[], 10);
}

#[test]
fn nonsmooth_rods_resume_bit_for_bit() {
    straight_and_resumed("scenes/anisotropic_hair.ron", &[], 10);
}

#[test]
fn nonsmooth_rods_with_dynamic_twist_resume_bit_for_bit() {
    // The edge angles and their rates are state: a resume that lost them would restart the twist.
    straight_and_resumed("scenes/twisted_rod.ron", &[], 10);
}

#[test]
fn nonsmooth_reduced_body_resumes_bit_for_bit() {
    straight_and_resumed("scenes/chairs.ron", &[], 10);
}

#[test]
fn nonsmooth_rigid_bodies_on_a_solid_resume_bit_for_bit() {
    straight_and_resumed("scenes/mixed_drop.ron", &[], 10);
}

#[test]
fn nonsmooth_cloth_with_the_admm_integrator_resumes_bit_for_bit() {
    // Lowered onto the table and coarsened so that it touches from the first step (2 steps a frame).
    let sets = [
        "pipeline.nodal_integrator=Admm",
        "bodies[0].position=(0.0,0.0,0.302)",
        "bodies[0].mesh.cells=(16,16)",
        "frame_rate=250",
    ];
    straight_and_resumed("scenes/cloth_on_box.ron", &sets, 10);
}

#[test]
fn smooth_solid_rigid_and_cloth_resume_bit_for_bit() {
    straight_and_resumed("scenes/validation/smooth_ramp10.ron", &[], 10);
    straight_and_resumed("scenes/validation/smooth_rigid_ramp10.ron", &[], 10);
    straight_and_resumed("scenes/validation/smooth_cloth_on_cloth10.ron", &[], 10);
}

/// The trampoline resumed at frame 7 (t = 0.28 s), while the ball presses into the sheet: its
/// contacts are rows on the ball's whole MLS surface, solved around the factor the checkpoint
/// carries (`newton_solver::row_system`), whose refresh decisions are made per step.
#[test]
fn smooth_contacts_on_a_deformable_field_resume_bit_for_bit() {
    straight_and_resumed("scenes/trampoline.ron", &[], 14);
}

#[test]
fn a_kill_during_a_checkpoint_write_leaves_the_previous_one_usable() {
    let dir = tempfile::tempdir().unwrap();
    let (a, b) = (dir.path().join("a"), dir.path().join("b"));
    let sc = scene("scenes/validation/ramp10.ron");
    ok(fricsim(&["run", &sc, "--quiet", "--frames", "8", "--out", a.to_str().unwrap()]));
    // The checkpoint of frame 6 stalls half-written; the one of frame 3 is on disk.
    let mut child = Command::new(BIN)
        .args(["run", &sc, "--quiet", "--frames", "8", "--checkpoint-every", "3", "--out", b.to_str().unwrap()])
        .env("FRICSIM_TEST_STALL_CHECKPOINT_WRITE", "6")
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut lines = BufReader::new(child.stderr.take().unwrap()).lines();
    let said = lines.find_map(|l| l.ok().filter(|l| l.contains("checkpoint write stalled")));
    assert!(said.is_some(), "the writer stalls at frame 6");
    child.kill().unwrap(); // SIGKILL
    child.wait().unwrap();
    let run = std::fs::read_to_string(b.join("run.json")).unwrap();
    assert!(run.contains("\"running\""), "a killed run says running: {run}");
    ok(fricsim(&["run", "--resume", b.to_str().unwrap(), "--quiet", "--frames", "8"]));
    assert_same_output(&a, &b, "resumed from frame 3 after a kill at frame 6");
}

#[test]
fn a_changed_scene_a_damaged_checkpoint_and_none_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let b = dir.path().join("b");
    let sc = scene("scenes/validation/ramp10.ron");
    ok(fricsim(&["run", &sc, "--quiet", "--frames", "2", "--checkpoint-every", "2", "--out", b.to_str().unwrap()]));
    let bs = b.to_str().unwrap();
    let refused = |args: &[&str], message: &str| {
        let o = fricsim(args);
        let err = String::from_utf8_lossy(&o.stderr).into_owned();
        assert_eq!(o.status.code(), Some(2), "{args:?}: {err}");
        assert!(err.contains(message), "{args:?}: {err}");
    };
    refused(&["run", "--resume", bs, "--set", "friction.pairs[0].mu=0.3"], "changed since the checkpoint");
    // Another scene named explicitly: also a changed scene.
    refused(&["run", &scene("scenes/validation/cloth_ramp10.ron"), "--resume", bs], "changed since the checkpoint");
    // A longer run is what resuming is for.
    ok(fricsim(&["run", "--resume", bs, "--quiet", "--frames", "3"]));
    let ck = b.join("checkpoint.bin");
    let mut bytes = std::fs::read(&ck).unwrap();
    let last = bytes.len() - 1;
    bytes[last] ^= 0x55;
    std::fs::write(&ck, &bytes).unwrap();
    refused(&["run", "--resume", bs], "damaged");
    std::fs::write(&ck, b"not a checkpoint").unwrap();
    refused(&["run", "--resume", bs], "not a fricsim checkpoint");
    std::fs::remove_file(&ck).unwrap();
    refused(&["run", "--resume", bs], "no checkpoint; run with --checkpoint-every N");
}
