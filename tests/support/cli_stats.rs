//! `fricsim run` from the command line, and the `stats.csv` it writes, by column: shared by the
//! tests of shipped scenes.
#![allow(dead_code)]

use std::process::Command;

/// The per-step statistics of a run, every value as a number.
pub struct Stats {
    header: Vec<String>,
    rows: Vec<Vec<f64>>,
}

impl Stats {
    /// Every step's value of column `name` (panics naming a missing column: a bug in the test).
    pub fn column(&self, name: &str) -> Vec<f64> {
        let k = self.header.iter().position(|h| h == name).unwrap_or_else(|| panic!("no column {name}"));
        self.rows.iter().map(|r| r[k]).collect()
    }

    /// The last step's value of column `name`.
    pub fn last(&self, name: &str) -> f64 {
        *self.column(name).last().expect("a run of at least one step")
    }
}

/// Runs `fricsim run <scene> --quiet <args>` into a temporary folder, which is returned with the
/// run's statistics; the run must succeed.
pub fn run(scene: &str, args: &[&str]) -> (tempfile::TempDir, Stats) {
    let out = tempfile::tempdir().unwrap();
    let o = Command::new(env!("CARGO_BIN_EXE_fricsim"))
        .args(["run", scene, "--quiet", "--out"])
        .arg(out.path())
        .args(args)
        .output()
        .unwrap();
    assert!(o.status.success(), "{scene}: {}", String::from_utf8_lossy(&o.stderr));
    let text = std::fs::read_to_string(out.path().join("stats.csv")).unwrap();
    let mut lines = text.lines();
    let header = lines.next().expect("a header").split(',').map(str::to_string).collect();
    let rows = lines.map(|l| l.split(',').map(|x| x.parse().unwrap_or(f64::NAN)).collect()).collect();
    (out, Stats { header, rows })
}
