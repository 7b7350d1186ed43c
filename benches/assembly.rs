//! Residual/Jacobian assembly of the penalty pipeline over a whole mesh (elements/s in
//! criterion's "thrpt" column). Run: `cargo bench --bench assembly`.
//!
//! Scene: `scenes/bench/ramp_6k.ron`, a 1 m neo-Hookean box of 10 x 10 x 10 cells = 6000 tets
//! (1331 nodes), stepped a few times so that the positions are a real (slightly deformed,
//! sliding) configuration. `System::evaluate` is called with no contact entries, so it measures:
//!
//! - `energy_gradient`: element energies and gradients over all elements (parallel, rayon), their
//!   scatter into the force vector, gravity, and the residual (`jacobian = false`, the line-search
//!   evaluation);
//! - `gradient_hessian_assembly`: the same plus element Hessians and their assembly, together with
//!   the lumped mass, into the sparse Jacobian through the precomputed slot table
//!   (`jacobian = true`, the Newton-iteration evaluation).
//!
//! The per-element kernels alone are in `benches/elastic.rs`; contact detection and the sparse
//! solve are in `benches/penalty_step.rs` (whole steps).

use std::hint::black_box;
use std::path::Path;
use std::time::Duration;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use fricsim::integrator::ForceWeights;
use fricsim::pipeline::penalty::system::{StageSystem, System};
use fricsim::simulation::Simulation;

const SCENE: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/scenes/bench/ramp_6k.ron");
const WARMUP_STEPS: usize = 3;

fn bench(c: &mut Criterion) {
    let mut sim = Simulation::from_file(Path::new(SCENE), &[]).expect("bench scene loads");
    for _ in 0..WARMUP_STEPS {
        sim.step().expect("warm-up step");
    }
    let (model, state) = (&sim.model, &sim.state);
    let h = model.dt;
    // A backward-Euler stage: q = q0 + h v, force weight h.
    let stage = StageSystem { dq_dv: h, bh: ForceWeights::whole(h), t0: state.time, duration: h };
    let mut system = System::new(model, true);
    let n_elements = model.element_count();
    println!(
        "assembly: {} tets, {} nodes, {} free DOFs, Jacobian nnz {}",
        n_elements,
        model.node_count(),
        system.n_free,
        system.jacobian.pattern.nnz()
    );

    let mut g = c.benchmark_group("assembly_6k");
    g.throughput(Throughput::Elements(n_elements as u64));
    // ~1 ms and ~10 ms per evaluation: 20 samples (210 evaluations) fit in 5 s.
    g.sample_size(20);
    g.warm_up_time(Duration::from_secs(1));
    g.measurement_time(Duration::from_secs(5));
    for (name, jacobian) in [("energy_gradient", false), ("gradient_hessian_assembly", true)] {
        g.bench_function(name, |b| {
            b.iter(|| {
                system
                    .evaluate(model, &stage, black_box(&state.q), black_box(&state.v), &state.v, jacobian, None)
                    .expect("no inverted elements");
                black_box(system.elastic_energy)
            })
        });
    }
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
