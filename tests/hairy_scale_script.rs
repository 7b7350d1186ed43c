//! The hairy-ball scale script (`scripts/hairy_scale.py`, the README's scale table) at its
//! smallest size: it runs the shipped scene, fills every column, and its numbers agree with the
//! run's own `stats.csv` and `run.json` (the script's `--check`, and here again independently).
//! Needs `python3` (standard library only); about 3 s.

use fricsim::output::csv_table::Table;
use std::path::Path;
use std::process::Command;

/// A CSV column as numbers (the crate's own reader of the files it writes).
fn column(t: &Table, name: &str) -> Vec<f64> {
    let k = t.column(name).unwrap_or_else(|| panic!("no column {name} in {:?}", t.header));
    t.numbers(k)
}

#[test]
fn smallest_size_fills_the_table_from_stats_csv() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let tmp = tempfile::tempdir().expect("a temporary folder");
    let out = tmp.path();
    let table = out.join("table.csv");
    let run = Command::new("python3")
        .arg(root.join("scripts/hairy_scale.py"))
        .args(["--sizes", "1000:0.1", "--check", "--out"])
        .arg(out)
        .arg("--csv")
        .arg(&table)
        .env("FRICSIM", env!("CARGO_BIN_EXE_fricsim"))
        .output()
        .expect("python3 runs");
    let stdout = String::from_utf8_lossy(&run.stdout);
    assert!(run.status.success(), "script failed:\n{stdout}\n{}", String::from_utf8_lossy(&run.stderr));
    // The Markdown table: a header, a rule and one row of 15 filled cells.
    let md: Vec<&str> = stdout.lines().filter(|l| l.starts_with('|')).collect();
    assert_eq!(md.len(), 3, "{stdout}");
    let cells: Vec<&str> = md[2].trim_matches('|').split('|').map(str::trim).collect();
    assert_eq!(cells.len(), 15, "{}", md[2]);
    assert!(cells.iter().all(|c| !c.is_empty() && !c.contains("nan") && !c.contains("inf")), "{}", md[2]);
    assert!(stdout.contains("load average before"), "the table states the load: {stdout}");

    // Independently of the script: its numbers from the run's stats.csv.
    let summary = Table::read(&table).expect("the script's CSV");
    let stats = Table::read(&out.join("rods1000_r0.1mm/stats.csv")).expect("the run's stats.csv");
    assert_eq!(summary.rows.len(), 1);
    let get = |name: &str| column(&summary, name)[0];
    let wall = column(&stats, "wall_s");
    let contacts = column(&stats, "active_contacts");
    let residual = column(&stats, "final_residual");
    let n = stats.rows.len() as f64;
    assert_eq!(n, 10.0, "one frame is 10 steps");
    // Sums of the same printed numbers in another order: equal to rounding (1e-12 relative).
    let close = |a: f64, b: f64| (a - b).abs() <= 1e-12 * b.abs().max(1e-300);
    assert!(close(get("s_per_step"), wall.iter().sum::<f64>() / n));
    assert!(close(get("contacts_mean"), contacts.iter().sum::<f64>() / n));
    assert_eq!(get("contacts_max"), contacts.iter().cloned().fold(0.0, f64::max));
    assert_eq!(get("max_residual"), residual.iter().cloned().fold(0.0, f64::max));
    assert_eq!(get("dof"), 48_000.0, "1000 rods of 16 nodes, 3 dofs each");
    // The scene stops on its natural-map tolerance (1e-4): every step of this size reaches it.
    assert_eq!(get("steps_within_tol"), 10.0);
    assert!(get("max_residual") <= 1e-4);
    let shares = ["linear_pct", "projection_pct", "assembly_pct", "detection_pct"].map(get);
    assert!(shares.iter().all(|s| *s >= 0.0) && shares.iter().sum::<f64>() <= 101.0, "{shares:?}");
    assert!(get("peak_mb") > 10.0, "a process of this size holds more than 10 MB");
}
