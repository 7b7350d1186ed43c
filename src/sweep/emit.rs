//! Sweeps beyond this machine: the job list GNU parallel runs (`jobs.txt`, one shell command per
//! point), the Slurm array script that runs the same lines (`sweep.sbatch`, one array task per
//! point), and the manifest (`manifest.json`) from which `fricsim sweep --collect DIR` builds
//! the same `sweep.csv` afterwards. fricsim schedules nothing itself here: these are the engines
//! clusters already have.

use serde::{Deserialize, Serialize};

/// What `--collect` needs to rebuild the table: the axes' paths, the metrics, and per point its
/// folder (relative to the manifest) and values.
#[derive(Debug, Serialize, Deserialize)]
pub struct Manifest {
    pub scene: String,
    pub paths: Vec<String>,
    pub metrics: Vec<String>,
    pub points: Vec<ManifestPoint>,
}

#[derive(Debug, Serialize, Deserialize)]
pub struct ManifestPoint {
    pub point: usize,
    pub folder: String,
    pub values: Vec<String>,
}

/// A word for a POSIX shell: single-quoted, a `'` written as `'\''`.
pub fn shell_quote(s: &str) -> String {
    format!("'{}'", s.replace('\'', "'\\''"))
}

/// One shell command line.
pub fn command_line(words: &[String]) -> String {
    words.iter().map(|w| shell_quote(w)).collect::<Vec<_>>().join(" ")
}

/// The Slurm array script for the sweep in `folder` (an absolute path on the cluster's shared
/// file system): task `i` runs line `i + 1` of `jobs.txt`.
pub fn sbatch(folder: &str, name: &str, tasks: usize, limit: Option<usize>, time: &str, mem: &str) -> String {
    let limit = limit.map_or(String::new(), |l| format!("%{l}"));
    let dir = shell_quote(folder);
    let last = tasks.saturating_sub(1);
    [
        "#!/bin/bash".to_string(),
        "# A fricsim sweep as a Slurm job array: one task per point, each running its line of jobs.txt.".into(),
        format!("# Submit: sbatch {dir}/sweep.sbatch; then fricsim sweep --collect {dir} builds sweep.csv."),
        format!("#SBATCH --job-name={name}"),
        format!("#SBATCH --array=0-{last}{limit}"),
        format!("#SBATCH --time={time}"),
        format!("#SBATCH --mem={mem}"),
        "#SBATCH --cpus-per-task=1".into(),
        format!("#SBATCH --output={folder}/slurm-%A_%a.out"),
        "set -euo pipefail".into(),
        "export RAYON_NUM_THREADS=\"${SLURM_CPUS_PER_TASK:-1}\"".into(),
        format!("line=$(sed -n \"$((SLURM_ARRAY_TASK_ID + 1))p\" {dir}/jobs.txt)"),
        "eval \"$line\"".into(),
        String::new(),
    ]
    .join("\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quoting_survives_the_shell() {
        assert_eq!(shell_quote("a'b"), "'a'\\''b'");
        let line = command_line(&["echo".into(), "friction.pairs[0].mu=0.1".into(), "it's".into()]);
        let out = std::process::Command::new("sh").arg("-c").arg(&line).output().unwrap();
        assert_eq!(String::from_utf8_lossy(&out.stdout), "friction.pairs[0].mu=0.1 it's\n");
    }
}
