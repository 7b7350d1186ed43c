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
    ("LMGC_100_PR_PerioBox-i00361-60-03000", &["gs", "prox", "fb", "sp-exact"]),
    ("Capsules-i125-1213", &["gs", "fb", "sp-exact"]),
    ("Box_Stacks-i0122-82-5", &["gs", "fb", "prox", "admm", "sp-exact"]),
    ("LMGC_GlobalFrictionContactProblem00046", &["gs", "fb", "prox", "admm"]),
];

fn bench(c: &mut Criterion) {
    // As the CLI does: the timings are those users get.
    fricsim::linalg::use_sequential_factorisations();
    let dir = std::env::var_os("FRICSIM_FCLIB_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../shared/fclib"));
    let opts = SolverOptions { tol: 1e-8, max_iter: 100_000, max_time: Some(Duration::from_secs(60)) };
    let mut g = c.benchmark_group("fclib_time_to_1e-8");
    g.sample_size(10).warm_up_time(Duration::from_millis(500)).measurement_time(Duration::from_secs(3));
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

criterion_group!(benches, bench, bench_nodal);
criterion_main!(benches);

/// ADMM on a large synthetic nodal problem (20k particles, 40k contacts), a fixed 10 ADMM
/// iterations x 10 GS sweeps, with 1 and 2 rayon threads: throughput of the coloured sweep
/// (the results are bit-identical, tested in dfcp_global_solvers).
fn bench_nodal(c: &mut Criterion) {
    use fricsim::dfcp::admm::{AdmmParams, solve as admm};
    let g = fricsim::dfcp::synthetic::particles(20_000, 0.5);
    let opts = SolverOptions { tol: 1e-300, max_iter: 10, max_time: None };
    let mut grp = c.benchmark_group("nodal_admm_20k");
    grp.sample_size(10).warm_up_time(Duration::from_millis(500)).measurement_time(Duration::from_secs(5));
    for threads in [1, 2] {
        let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build().expect("thread pool");
        grp.bench_function(format!("threads_{threads}"), |b| {
            b.iter(|| {
                pool.install(|| {
                    let (mut r, mut v) = (vec![0.0; 3 * g.nc()], vec![0.0; g.ndof()]);
                    admm(&g, &mut r, &mut v, &opts, &AdmmParams::default()).expect("factorisation")
                })
            })
        });
    }
    grp.finish();
}
