//! The run summary (`run.json`): what ran, how long, how it ended.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::{SystemTime, UNIX_EPOCH};

use serde::{Serialize, Serializer};

use super::OutputError;
use super::atomic::write_bytes_atomically;

/// How a run ended.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum RunStatus {
    /// Reached the scene's duration.
    Completed,
    /// Stopped by an error; the reason is the error message.
    Failed(String),
    /// Stopped by the user (Ctrl-C / SIGTERM).
    Interrupted,
    /// Still running: written when the run starts, so a run killed outright (SIGKILL, a lost
    /// machine) is recognisable afterwards.
    Running,
}

impl std::fmt::Display for RunStatus {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            RunStatus::Completed => f.write_str("completed"),
            RunStatus::Failed(reason) => write!(f, "failed: {reason}"),
            RunStatus::Interrupted => f.write_str("interrupted"),
            RunStatus::Running => f.write_str("running"),
        }
    }
}

/// Serialized as one string (`"completed"`, `"failed: <reason>"`, `"interrupted"`, `"running"`) so
/// that
/// `jq -r .exit_status run.json` reads naturally in scripts.
impl Serialize for RunStatus {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

/// Contents of `run.json`. Field names are the JSON keys.
#[derive(Clone, Debug, Serialize)]
pub struct RunSummary {
    /// `CARGO_PKG_VERSION` of the fricsim that ran.
    pub fricsim_version: String,
    /// The scene's `name`.
    pub scene_name: String,
    /// The scene file as given on the command line.
    pub scene_file: PathBuf,
    /// The output folder.
    pub output_dir: PathBuf,
    /// Wall-clock start, RFC 3339 UTC (see [`rfc3339_utc`]).
    pub start_time: String,
    /// Wall-clock end, RFC 3339 UTC.
    pub end_time: String,
    /// Elapsed wall time in seconds.
    pub wall_seconds: f64,
    /// Time steps taken.
    pub steps: u64,
    /// Output frames written.
    pub frames_written: u64,
    /// Simulated (physical) time reached, in seconds.
    pub simulated_time: f64,
    /// How the run ended.
    pub exit_status: RunStatus,
    /// Free-form totals, e.g. `"newton_iterations"`, `"failed_steps"`. Sorted by key.
    pub totals: BTreeMap<String, serde_json::Value>,
}

impl RunSummary {
    /// A summary of a run starting now, with zero counters and status `interrupted` (the
    /// honest status until the run says otherwise).
    pub fn start(scene_name: &str, scene_file: &Path, output_dir: &Path) -> Self {
        let now = rfc3339_utc(SystemTime::now());
        RunSummary {
            fricsim_version: env!("CARGO_PKG_VERSION").to_string(),
            scene_name: scene_name.to_string(),
            scene_file: scene_file.to_path_buf(),
            output_dir: output_dir.to_path_buf(),
            start_time: now.clone(),
            end_time: now,
            wall_seconds: 0.0,
            steps: 0,
            frames_written: 0,
            simulated_time: 0.0,
            exit_status: RunStatus::Interrupted,
            totals: BTreeMap::new(),
        }
    }

    /// Marks the run as ended now: sets `end_time`, `wall_seconds` and `exit_status`.
    pub fn finish(&mut self, wall_seconds: f64, status: RunStatus) {
        self.end_time = rfc3339_utc(SystemTime::now());
        self.wall_seconds = wall_seconds;
        self.exit_status = status;
    }

    /// Writes the summary to `path` as pretty-printed JSON, atomically. Call it whenever the
    /// run ends, also on failure or interruption, so every output folder says how it ended.
    pub fn write(&self, path: &Path) -> Result<(), OutputError> {
        let mut json = serde_json::to_vec_pretty(self).map_err(|e| OutputError::encode(path, e))?;
        json.push(b'\n');
        write_bytes_atomically(path, &json)
    }
}

/// Formats `t` as RFC 3339 in UTC with millisecond precision, e.g. `2026-11-21T07:05:09.123Z`.
/// Times before 1970 are clamped to the epoch (they cannot come from a real run).
pub fn rfc3339_utc(t: SystemTime) -> String {
    let since = t.duration_since(UNIX_EPOCH).unwrap_or_default();
    let secs = since.as_secs();
    let millis = since.subsec_millis();
    let days = (secs / 86_400) as i64;
    let rem = secs % 86_400;
    let (y, m, d) = civil_from_days(days);
    format!("{y:04}-{m:02}-{d:02}T{:02}:{:02}:{:02}.{millis:03}Z", rem / 3600, (rem / 60) % 60, rem % 60)
}

/// Proleptic Gregorian date of a day count since 1970-01-01 (H. Hinnant's `civil_from_days`),
/// so no date crate is needed for one timestamp format.
fn civil_from_days(z: i64) -> (i64, u32, u32) {
    let z = z + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    let y = yoe + era * 400 + i64::from(m <= 2);
    (y, m, d)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    #[test]
    fn rfc3339_known_instants() {
        let at = |s: u64, ms: u64| UNIX_EPOCH + Duration::from_millis(s * 1000 + ms);
        assert_eq!(rfc3339_utc(at(0, 0)), "1970-01-01T00:00:00.000Z");
        // 2000-02-29 (leap day of a century leap year) 12:34:56.789
        assert_eq!(rfc3339_utc(at(951_827_696, 789)), "2000-02-29T12:34:56.789Z");
        // 2100-03-01: 2100 is not a leap year.
        assert_eq!(rfc3339_utc(at(4_107_542_400, 0)), "2100-03-01T00:00:00.000Z");
        assert_eq!(rfc3339_utc(at(1_795_305_599, 999)), "2026-11-21T23:59:59.999Z");
    }
}
