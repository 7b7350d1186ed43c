//! Shared helpers for the FCLib tests: locating the shared data and the Siconos references.
#![allow(dead_code)]

use fricsim::dfcp::fclib::{FclibProblem, read_problem, read_vectors};
use std::collections::HashMap;
use std::path::PathBuf;

pub fn fclib_dir() -> PathBuf {
    // The shared data folder sits beside the repository (as in CI); FRICSIM_FCLIB_DIR overrides.
    std::env::var_os("FRICSIM_FCLIB_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../shared/fclib"))
}

pub fn problem(stem: &str) -> FclibProblem {
    read_problem(&fclib_dir().join(format!("{stem}.hdf5"))).expect("shared FCLib problem readable")
}

pub fn reference(stem: &str, solver: &str) -> HashMap<String, Vec<f64>> {
    read_vectors(&fclib_dir().join(format!("{stem}.siconos-{solver}.txt"))).expect("reference readable")
}

/// The `# errors recomputed by fclib_tools.py: {...}` header of a reference file, as a map.
pub fn reference_errors(stem: &str, solver: &str) -> HashMap<String, f64> {
    let s = std::fs::read_to_string(fclib_dir().join(format!("{stem}.siconos-{solver}.txt"))).unwrap();
    let line = s.lines().find(|l| l.contains("errors recomputed")).expect("header line");
    let body = &line[line.find('{').unwrap() + 1..line.find('}').unwrap()];
    body.split(',')
        .map(|kv| {
            let mut it = kv.split(':');
            let k = it.next().unwrap().trim().trim_matches('\'').to_string();
            let v = it.next().unwrap().trim().parse::<f64>().unwrap();
            (k, v)
        })
        .collect()
}

pub fn max_abs_diff(a: &[f64], b: &[f64]) -> f64 {
    assert_eq!(a.len(), b.len());
    a.iter().zip(b).map(|(x, y)| (x - y).abs()).fold(0.0, f64::max)
}

pub fn inf_norm(a: &[f64]) -> f64 {
    a.iter().fold(0.0f64, |m, x| m.max(x.abs()))
}

pub const LOCAL: [(&str, &str); 3] = [
    ("BoxesStack_local_problem_test", "NSN_FB"),
    ("LMGC_100_PR_PerioBox-i00361-60-03000", "NSGS"),
    ("Capsules-i125-1213", "NSGS"),
];
pub const GLOBAL: [(&str, &str); 2] =
    [("Box_Stacks-i0122-82-5", "NSGS_WR"), ("LMGC_GlobalFrictionContactProblem00046", "NSGS_WR")];
