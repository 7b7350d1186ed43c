//! `run.json`: the fields, the exit-status strings, RFC 3339 times, atomic pretty JSON.

use std::path::Path;

use fricsim::output::summary::{RunStatus, RunSummary, rfc3339_utc};
use serde_json::{Value, json};

#[test]
fn summary_is_written_as_pretty_json_with_every_field() {
    let dir = tempfile::tempdir().expect("temp dir");
    let path = dir.path().join("run.json");
    let mut s = RunSummary::start("pinch", Path::new("scenes/pinch.ron"), dir.path());
    assert_eq!(s.exit_status, RunStatus::Interrupted, "honest default");
    s.steps = 2000;
    s.frames_written = 101;
    s.simulated_time = 2.0;
    s.finish(12.5, RunStatus::Failed("solver diverged at step 42".into()));
    s.totals.insert("newton_iterations".into(), json!(8123));
    s.totals.insert("failed_steps".into(), json!(0));
    s.write(&path).expect("write");

    let text = std::fs::read_to_string(&path).expect("read");
    assert!(text.contains("\n  \"scene_name\": \"pinch\""), "pretty-printed: {text}");
    let v: Value = serde_json::from_str(&text).expect("valid JSON");
    assert_eq!(v["fricsim_version"], env!("CARGO_PKG_VERSION"));
    assert_eq!(v["scene_file"], "scenes/pinch.ron");
    assert_eq!(v["output_dir"], dir.path().to_str().expect("utf8"));
    assert_eq!(v["steps"], 2000);
    assert_eq!(v["frames_written"], 101);
    assert_eq!(v["simulated_time"], 2.0);
    assert_eq!(v["wall_seconds"], 12.5);
    assert_eq!(v["exit_status"], "failed: solver diverged at step 42");
    assert_eq!(v["totals"], json!({"failed_steps": 0, "newton_iterations": 8123}));
    assert!(v["end_time"].as_str() >= v["start_time"].as_str(), "end after start");
    for k in ["start_time", "end_time"] {
        let t = v[k].as_str().expect("string");
        assert_eq!(t.len(), 24, "{t}");
        assert!(t.ends_with('Z') && t.as_bytes()[10] == b'T', "{t}");
    }
    assert_eq!(std::fs::read_dir(dir.path()).expect("list").count(), 1, "no temp files");
}

#[test]
fn exit_status_strings() {
    let s = |st: RunStatus| serde_json::to_value(st).expect("serialize");
    assert_eq!(s(RunStatus::Completed), "completed");
    assert_eq!(s(RunStatus::Interrupted), "interrupted");
    assert_eq!(s(RunStatus::Running), "running");
    assert_eq!(s(RunStatus::Failed("NaN in velocity".into())), "failed: NaN in velocity");
}

#[test]
fn timestamps_are_now_in_rfc3339_utc() {
    let t = rfc3339_utc(std::time::SystemTime::now());
    // Cheap sanity: the year is plausible and the format parses field by field.
    let year: i32 = t[..4].parse().expect("year");
    assert!((2024..3000).contains(&year), "{t}");
    for (range, max) in [(5..7, 12), (8..10, 31), (11..13, 23), (14..16, 59), (17..19, 60)] {
        let n: u32 = t[range].parse().expect("field");
        assert!(n <= max, "{t}");
    }
}
