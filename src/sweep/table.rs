//! `sweep.csv`: one row per point, its parameters joined with its outcome (from the point's
//! `run.json` and `stats.csv`): exit status, wall time, steps, failed steps, and the metrics asked
//! for (`COLUMN`: the last row's value; `max:COLUMN`, `min:COLUMN`, `mean:COLUMN` over the rows).

use crate::output::csv_table::Table;
use std::path::Path;

/// A reduction of one `stats.csv` column.
#[derive(Debug, Clone, PartialEq)]
pub struct Metric {
    pub reduce: Reduce,
    pub column: String,
}

#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Reduce {
    Last,
    Max,
    Min,
    Mean,
}

impl Metric {
    pub fn parse(spec: &str) -> Result<Metric, String> {
        let (reduce, column) = match spec.split_once(':') {
            Some(("max", c)) => (Reduce::Max, c),
            Some(("min", c)) => (Reduce::Min, c),
            Some(("mean", c)) => (Reduce::Mean, c),
            Some((r, _)) => return Err(format!("--metric {spec:?}: unknown reduction {r:?}; use max:, min: or mean:")),
            None => (Reduce::Last, spec),
        };
        if column.is_empty() {
            return Err(format!("--metric {spec:?}: no column"));
        }
        Ok(Metric { reduce, column: column.to_string() })
    }

    /// The header of its column in `sweep.csv` (the spec as given).
    pub fn header(&self) -> String {
        match self.reduce {
            Reduce::Last => self.column.clone(),
            Reduce::Max => format!("max:{}", self.column),
            Reduce::Min => format!("min:{}", self.column),
            Reduce::Mean => format!("mean:{}", self.column),
        }
    }

    /// The reduced value over a `stats.csv`'s rows, `None` if the column is missing or empty.
    fn value(&self, stats: &Table) -> Option<f64> {
        let c = stats.column(&self.column)?;
        let mut xs = stats.numbers(c).into_iter();
        match self.reduce {
            Reduce::Last => xs.next_back(),
            Reduce::Max => xs.reduce(f64::max),
            Reduce::Min => xs.reduce(f64::min),
            Reduce::Mean => {
                let v: Vec<f64> = xs.collect();
                (!v.is_empty()).then(|| v.iter().sum::<f64>() / v.len() as f64)
            }
        }
    }
}

/// The outcome columns after the parameters.
pub const OUTCOME: [&str; 5] = ["status", "exit_status", "wall_s", "steps", "failed_steps"];

/// The header of `sweep.csv`.
pub fn header(paths: &[String], metrics: &[Metric]) -> Vec<String> {
    let mut h = vec!["point".to_string()];
    h.extend(paths.iter().cloned());
    h.extend(OUTCOME.iter().map(|s| s.to_string()));
    h.extend(metrics.iter().map(Metric::header));
    h
}

/// One row for the point in `dir`: `status` is `completed`, `failed`, `running` (still running,
/// or killed outright) or `not run` (no `run.json`), `exit_status` the run's own words. Metric cells are empty where the run wrote no
/// such column.
pub fn row(index: usize, values: &[String], dir: &Path, metrics: &[Metric]) -> Vec<String> {
    let mut r = vec![index.to_string()];
    r.extend(values.iter().cloned());
    let json: Option<serde_json::Value> =
        std::fs::read_to_string(dir.join("run.json")).ok().and_then(|s| serde_json::from_str(&s).ok());
    let Some(j) = json else {
        r.extend(["not run".to_string(), String::new(), String::new(), String::new(), String::new()]);
        r.extend(metrics.iter().map(|_| String::new()));
        return r;
    };
    let exit = j["exit_status"].as_str().unwrap_or("").to_string();
    // `running`: still running (a collected cluster sweep), or killed outright.
    let status = match exit.as_str() {
        "completed" | "running" => exit.as_str(),
        _ => "failed",
    };
    r.push(status.to_string());
    r.push(exit);
    r.push(j["wall_seconds"].as_f64().map_or(String::new(), |w| format!("{w:.3}")));
    r.push(j["steps"].as_u64().map_or(String::new(), |s| s.to_string()));
    r.push(j["totals"]["failed_steps"].as_u64().map_or(String::new(), |s| s.to_string()));
    let stats = Table::read(&dir.join("stats.csv")).ok();
    let value = |m: &Metric| stats.as_ref().and_then(|t| m.value(t));
    r.extend(metrics.iter().map(|m| value(m).map_or(String::new(), |v| format!("{v:?}"))));
    r
}

/// A CSV field, quoted where it holds a comma, a quote or a line break.
fn field(s: &str) -> String {
    if s.contains([',', '"', '\n', '\r']) { format!("\"{}\"", s.replace('"', "\"\"")) } else { s.to_string() }
}

/// Write `sweep.csv` atomically (a reader never sees half a table).
pub fn write(path: &Path, header: &[String], rows: &[Vec<String>]) -> Result<(), crate::output::OutputError> {
    let mut text = String::new();
    for r in std::iter::once(header).chain(rows.iter().map(Vec::as_slice)) {
        text.push_str(&r.iter().map(|s| field(s)).collect::<Vec<_>>().join(","));
        text.push('\n');
    }
    crate::output::atomic::write_bytes_atomically(path, text.as_bytes())
}
