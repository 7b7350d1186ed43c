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

/// A text-only shared problem (`KaplasTower-i1061-4`, `RockPile_tob1`, ...).
pub fn text_problem(stem: &str) -> FclibProblem {
    read_problem(&fclib_dir().join(format!("{stem}.txt"))).expect("shared FCLib text problem readable")
}

/// Siconos's relative natural-map error of `r` for a local problem with isotropic cones,
/// computed here from `W`, `q` and μ alone (the formula of `shared/fclib/README.md`), independent
/// of fricsim's `dfcp::residual`: `|r − P_K(r − û)| / max(|q|, |r|, |u|)`, `û = u + (μ|u_T|, 0, 0)`.
pub fn independent_local_error(p: &fricsim::dfcp::problem::LocalProblem, r: &[f64]) -> f64 {
    let w = p.w.as_ref();
    let mut u = p.q.clone();
    for (j, rj) in r.iter().enumerate().take(w.ncols()) {
        for (i, v) in w.row_idx_of_col_raw(j).iter().zip(w.val_of_col(j)) {
            u[*i] += v * rj;
        }
    }
    let mut sq = 0.0;
    for (c, k) in p.cones.iter().enumerate() {
        assert!(k.is_isotropic(), "the independent measure is for isotropic cones");
        let mu = k.mu_ref();
        let (rc, uc) = (&r[3 * c..3 * c + 3], &u[3 * c..3 * c + 3]);
        let uhat_n = uc[0] + mu * uc[1].hypot(uc[2]);
        let x = [rc[0] - uhat_n, rc[1] - uc[1], rc[2] - uc[2]];
        // Projection on {|x_T| <= mu x_N}: inside, the polar cone (to 0), or the cone's surface.
        let t = x[1].hypot(x[2]);
        let proj = if t <= mu * x[0] {
            x
        } else if mu * t <= -x[0] {
            [0.0; 3]
        } else {
            let a = (x[0] + mu * t) / (1.0 + mu * mu);
            [a, mu * a * x[1] / t, mu * a * x[2] / t]
        };
        sq += (0..3).map(|d| (rc[d] - proj[d]).powi(2)).sum::<f64>();
    }
    let norm = |v: &[f64]| v.iter().map(|x| x * x).sum::<f64>().sqrt();
    sq.sqrt() / norm(&p.q).max(norm(r)).max(norm(&u))
}
