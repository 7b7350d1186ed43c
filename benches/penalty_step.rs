//! One full time step of the penalty pipeline (`Simulation::step`: contact detection, damped
//! Newton with assembly, sparse LU and line search, adaptive stiffening) on the 10 degree ramp of
//! validation case 1 at two mesh sizes; steps/s in criterion's "thrpt" column (one "element" =
//! one step). Run: `cargo bench --bench penalty_step`.
//!
//! - `ramp10_192`: `scenes/validation/ramp10.ron`, the validation block, 4 x 4 x 2 cells = 192 tets;
//! - `ramp10_5184`: `scenes/bench/ramp_block_fine.ron`, the same block at 12 x 12 x 6 cells = 5184 tets.
//!
//! Each scene is stepped `WARMUP_STEPS` steps first (past the initial settling on the penalty
//! layer, Jacobian pattern grown, solver workspaces allocated); every sample then steps a clone of
//! that state with the same pipeline, so all samples time the same step. With mu = 0.177 the block
//! sticks (creeping at the smoothing speed), so a warmed-up step is a short Newton solve; the
//! Newton iterations of the timed step are printed.

use std::path::Path;
use std::time::Duration;

use criterion::{BatchSize, Criterion, SamplingMode, Throughput, criterion_group, criterion_main};
use fricsim::simulation::Simulation;

const WARMUP_STEPS: usize = 20;

fn bench(c: &mut Criterion) {
    let root = env!("CARGO_MANIFEST_DIR");
    let mut g = c.benchmark_group("penalty_step");
    g.throughput(Throughput::Elements(1));
    g.warm_up_time(Duration::from_secs(1));
    // (name, scene, samples, measurement seconds, sampling): ~2 ms and ~0.15 s per step; the slow
    // step uses flat sampling (the same number of steps in every sample).
    for (name, scene, samples, seconds, mode) in [
        ("ramp10_192", "scenes/validation/ramp10.ron", 50, 4, SamplingMode::Auto),
        ("ramp10_5184", "scenes/bench/ramp_block_fine.ron", 10, 6, SamplingMode::Flat),
    ] {
        let mut sim = Simulation::from_file(&Path::new(root).join(scene), &[]).expect("bench scene loads");
        for _ in 0..WARMUP_STEPS {
            sim.step().expect("warm-up step");
        }
        let s0 = sim.state.clone();
        let stats = sim.pipeline.step(&sim.model, &mut s0.clone()).expect("timed step");
        assert!(stats.converged, "{name}: the timed step does not converge: {:?}", stats.failure);
        println!(
            "{name}: {} tets, step {} from t = {:.2} s: {} Newton iterations, {} line-search steps, \
             {} contact iterations, {} active contacts",
            sim.model.element_count(),
            s0.step + 1,
            s0.time,
            stats.newton_iterations,
            stats.line_search_steps,
            stats.contact_iterations,
            stats.active_contacts
        );
        g.sample_size(samples);
        g.measurement_time(Duration::from_secs(seconds));
        g.sampling_mode(mode);
        g.bench_function(name, |b| {
            b.iter_batched(
                || s0.clone(),
                |mut state| {
                    let stats = sim.pipeline.step(&sim.model, &mut state).expect("step");
                    (state, stats)
                },
                BatchSize::SmallInput,
            )
        });
    }
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
