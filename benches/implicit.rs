//! 000's MLS potential: Ψ + ∇Ψ evaluations per second on one core (criterion's "thrpt" column).
//! Run: `cargo bench --bench implicit`.
//!
//! Field: the boundary of `scenes/ball_spin.ron`'s hollow ball (1200 outer and inner triangles,
//! r = 3.35 cm), R = 1 cm (about 4 samples across, 000's guidance for the cubic kernel). Queries:
//! every boundary vertex moved 1 mm outward from the centre, where contacts are evaluated.
//!
//! - `query_and_evaluate/<kernel>`: the R*-tree neighbourhood query and Ψ, ∇Ψ over it (what a
//!   contact costs at detection);
//! - `evaluate/<kernel>`: Ψ and ∇Ψ over a neighbourhood gathered beforehand (the kernel sums
//!   alone).

use std::hint::black_box;
use std::path::Path;
use std::time::Duration;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use fricsim::contact::implicit::potential::potential_gradient;
use fricsim::contact::implicit::{ImplicitSurface, Kernel};
use fricsim::simulation::Simulation;

const SCENE: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/scenes/ball_spin.ron");
const RADIUS: f64 = 0.01;

fn bench(c: &mut Criterion) {
    let sim = Simulation::from_file(Path::new(SCENE), &[]).expect("bench scene loads");
    let (model, q) = (&sim.model, &sim.state.q);
    let solid = &model.solids[0];
    let (centre, _) = sim.state.nodes_centroid(model, solid.nodes.clone());
    let queries: Vec<[f64; 3]> = solid
        .surface_nodes
        .iter()
        .map(|&i| {
            let x = fricsim::model::node(q, i);
            let p = x + (x - centre).normalize() * 1e-3;
            [p.x, p.y, p.z]
        })
        .collect();
    let mut group = c.benchmark_group("implicit");
    group.throughput(Throughput::Elements(queries.len() as u64));
    group.measurement_time(Duration::from_secs(5));
    for (name, kernel) in [("cubic", Kernel::Cubic), ("approximate", Kernel::Approximate { epsilon: 1e-3 })] {
        let surface = ImplicitSurface::new(solid.surface.clone(), kernel, RADIUS, q);
        group.bench_function(format!("query_and_evaluate/{name}"), |b| {
            b.iter(|| queries.iter().filter_map(|&x| surface.potential_gradient(q, black_box(x))).count())
        });
        let neighbourhoods: Vec<Vec<[[f64; 3]; 3]>> = queries
            .iter()
            .map(|&x| {
                surface.neighbours(x).map(|k| surface.triangles[k].map(|i| fricsim::model::node_arr(q, i))).collect()
            })
            .collect();
        let mean = neighbourhoods.iter().map(Vec::len).sum::<usize>() as f64 / queries.len() as f64;
        eprintln!("{name}: {} queries, {mean:.1} samples per neighbourhood on average", queries.len());
        group.bench_function(format!("evaluate/{name}"), |b| {
            b.iter(|| {
                queries
                    .iter()
                    .zip(&neighbourhoods)
                    .filter_map(|(&x, tris)| potential_gradient(black_box(x), tris, kernel, RADIUS))
                    .count()
            })
        });
    }
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
