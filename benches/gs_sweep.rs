//! Throughput of the matrix-free Gauss–Seidel contact projection of nodal ADMM (004 Algorithm 3,
//! `dfcp::admm::ContactProjection`) on a hair-like problem at scale: 8000 rods of 16 nodes
//! (384k dofs) and 200k contacts of 1, 3 and 4 nodes (`dfcp::synthetic::hair`). One call is one
//! projection: the warm-start pass plus 10 sweeps over every contact (nothing sleeps: δ∞ is
//! infinite), reported as contact updates per second (criterion's "elements").
//!
//! Run: `cargo bench --bench gs_sweep` (filter e.g. `-- nodal/`). `nodal/*` uses 004's compact
//! nodal layout (the default), `generic/*` the per-dof layout any `H` can use. `sequential` is the
//! plain sweep in contact order; `colored_1`/`colored_2` the coloured sweep on a rayon pool of 1
//! and 2 threads (bit-identical results). The bytes of per-contact data each case streams are
//! printed before it runs. `GS_SCALE=n` builds `8n` rods and `200n` contacts instead (default
//! 1000; `GS_SCALE=25`, 5000 contacts, fits in cache).
//!
//! Two groups: `gs_sweep_hair_200k` measures wall time; `gs_sweep_hair_200k_cpu` measures the
//! CPU time of all the process's threads (Linux `/proc/self/task/*/schedstat`), so its
//! throughput is updates per CPU-second, i.e. per core, and is not diluted when other jobs share
//! the cores (cache sharing with them still shows).

use criterion::measurement::{Measurement, ValueFormatter, WallTime};
use criterion::{BatchSize, Criterion, Throughput, criterion_group, criterion_main};
use fricsim::dfcp::admm::{AdmmParams, ContactProjection};
use fricsim::dfcp::problem::GlobalProblem;
use std::time::Duration;

/// CPU time of every thread of this process, summed (ns resolution).
fn process_cpu_time() -> Duration {
    let tasks = std::fs::read_dir("/proc/self/task").expect("the CPU-time group needs Linux /proc");
    let ns: u64 = tasks
        .filter_map(|t| std::fs::read_to_string(t.ok()?.path().join("schedstat")).ok())
        .filter_map(|s| s.split_whitespace().next()?.parse::<u64>().ok())
        .sum();
    Duration::from_nanos(ns)
}

/// Criterion measurement: process CPU time. Every thread that runs during a measurement lives
/// across it (the rayon pools are built before benchmarking), so the sum is consistent.
struct CpuTime;

static WALL: WallTime = WallTime;

impl Measurement for CpuTime {
    type Intermediate = Duration;
    type Value = Duration;
    fn start(&self) -> Duration {
        process_cpu_time()
    }
    fn end(&self, i: Duration) -> Duration {
        process_cpu_time().saturating_sub(i)
    }
    fn add(&self, a: &Duration, b: &Duration) -> Duration {
        *a + *b
    }
    fn zero(&self) -> Duration {
        Duration::ZERO
    }
    fn to_f64(&self, v: &Duration) -> f64 {
        v.as_nanos() as f64
    }
    fn formatter(&self) -> &dyn ValueFormatter {
        WALL.formatter()
    }
}

/// The problem, a start velocity and warm-start forces.
fn setup() -> (GlobalProblem, Vec<f64>, Vec<f64>) {
    let sc: usize = std::env::var("GS_SCALE").ok().and_then(|s| s.parse().ok()).unwrap_or(1000);
    let g = fricsim::dfcp::synthetic::hair(8 * sc, 16, 200 * sc, 0.3, 7);
    // Start from the free velocity M⁻¹ f (diagonal M) and the forces of one earlier projection,
    // as in a later ADMM iteration.
    let m = g.m.as_ref();
    let p0: Vec<f64> = (0..g.ndof()).map(|i| g.f[i] / m.val_of_col(i)[0]).collect();
    let mut r0 = vec![0.0; 3 * g.nc()];
    let mut p = p0.clone();
    ContactProjection::new(&g, &AdmmParams::default()).expect("positive masses").project(
        &mut p,
        &mut r0,
        f64::INFINITY,
    );
    (g, p0, r0)
}

fn run<M: Measurement>(c: &mut Criterion<M>, group: &str) {
    let (g, p0, r0) = setup();
    let pools: Vec<rayon::ThreadPool> =
        [1, 2].iter().map(|&n| rayon::ThreadPoolBuilder::new().num_threads(n).build().expect("thread pool")).collect();
    let mut grp = c.benchmark_group(group);
    grp.sample_size(10).warm_up_time(Duration::from_secs(1)).measurement_time(Duration::from_secs(6));
    let cases: [(&str, bool, usize); 3] = [("sequential", false, 1), ("colored_1", true, 1), ("colored_2", true, 2)];
    for compact in [true, false] {
        for (name, parallel, threads) in cases {
            let prm = AdmmParams { parallel, compact, ..Default::default() };
            let mut proj = ContactProjection::new(&g, &prm).expect("positive masses");
            assert_eq!(proj.is_compact(), compact, "the hair problem is nodal");
            let name = format!("{}/{name}", if compact { "nodal" } else { "generic" });
            eprintln!("{name}: {:.0} bytes of per-contact data per update", proj.bytes_per_contact());
            grp.throughput(Throughput::Elements((prm.gs_sweeps * g.nc()) as u64));
            let pool = &pools[threads - 1];
            grp.bench_function(name, |b| {
                b.iter_batched_ref(
                    || (p0.clone(), r0.clone()),
                    |(p, r)| {
                        let n = pool.install(|| proj.project(p, r, f64::INFINITY));
                        assert_eq!(n, prm.gs_sweeps * g.nc(), "every contact updated in every sweep");
                    },
                    BatchSize::LargeInput,
                )
            });
        }
    }
    grp.finish();
}

fn wall(c: &mut Criterion) {
    run(c, "gs_sweep_hair_200k");
}

fn cpu(c: &mut Criterion<CpuTime>) {
    run(c, "gs_sweep_hair_200k_cpu");
}

criterion_group!(wall_group, wall);
criterion_group! {
    name = cpu_group;
    config = Criterion::default().with_measurement(CpuTime);
    targets = cpu
}
criterion_main!(wall_group, cpu_group);
