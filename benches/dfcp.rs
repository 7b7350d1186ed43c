//! Time to relative natural-map error 1e-8 per FCLib problem per solver (cold start).
//! Run: `CARGO_TARGET_DIR=/work/target-dfcp cargo bench --bench dfcp` (FRICSIM_FCLIB_DIR overrides
//! the data folder; filter with e.g. `-- Capsules/gs`). Only (problem, solver) pairs that
//! converge are benchmarked; each iteration asserts convergence so a regression cannot hide
//! as a fast failure.

use criterion::{Criterion, criterion_group, criterion_main};
use fricsim::dfcp::dispatch::solve;
use fricsim::dfcp::fclib::read_problem;
use fricsim::dfcp::solver::SolverOptions;
use std::hint::black_box;
use std::path::PathBuf;
use std::time::Duration;

const CASES: [(&str, &[&str]); 5] = [
    ("BoxesStack_local_problem_test", &["fb", "sp", "auto"]),
    (
        "LMGC_100_PR_PerioBox-i00361-60-03000",
        &["gs", "prox", "fb", "sp-exact"],
    ),
    ("Capsules-i125-1213", &["gs", "fb", "sp-exact"]),
    (
        "Box_Stacks-i0122-82-5",
        &["gs", "fb", "prox", "admm", "sp-exact"],
    ),
    (
        "LMGC_GlobalFrictionContactProblem00046",
        &["gs", "fb", "prox", "admm"],
    ),
];

fn bench(c: &mut Criterion) {
    let dir = std::env::var_os("FRICSIM_FCLIB_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from("/work/shared/fclib"));
    let opts = SolverOptions {
        tol: 1e-8,
        max_iter: 100_000,
        max_time: Some(Duration::from_secs(60)),
    };
    let mut g = c.benchmark_group("fclib_time_to_1e-8");
    g.sample_size(10)
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(3));
    for (stem, solvers) in CASES {
        let p = read_problem(&dir.join(format!("{stem}.hdf5"))).expect("problem readable");
        for s in solvers {
            g.bench_function(format!("{stem}/{s}"), |b| {
                b.iter(|| {
                    let sol = solve(black_box(&p), s, &opts).expect("solver applies");
                    assert!(sol.report.converged, "{stem}/{s}: {}", sol.report);
                    sol
                })
            });
        }
    }
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
