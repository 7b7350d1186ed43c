//! Per-element throughput of the hyperelastic tet kernels (elements/s in criterion's
//! "thrpt" column). Run: `cargo bench --bench elastic`.
//!
//! The element set is a deformed ball mesh: a mix of stretched and compressed elements (as in a
//! squished ball), so the PSD projection meets both definite (fast path) and indefinite ∂P/∂F.

use std::hint::black_box;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use fricsim::energy::{ElasticModel, Lame, Material, TetElement};
use fricsim::mesh::ball_tets;
use nalgebra::Vector3;

fn bench(c: &mut Criterion) {
    let mesh = ball_tets(0.1, 8).unwrap(); // 3072 tets
    let elements = TetElement::from_mesh(&mesh);
    // Squash along z by 40% (compression, J < 1) with a lateral bulge and a twist.
    let x: Vec<Vector3<f64>> = mesh
        .vertices
        .iter()
        .map(|p| {
            let a = 3.0 * p.z;
            Vector3::new(1.3 * (p.x * a.cos() - p.y * a.sin()), 1.3 * (p.x * a.sin() + p.y * a.cos()), 0.6 * p.z)
        })
        .collect();
    let stencils: Vec<[Vector3<f64>; 4]> = elements.iter().map(|e| e.gather(&x)).collect();
    // Mildly deformed (2% stretch): ∂P/∂F stays positive definite, the projection's fast path.
    let mild: Vec<Vector3<f64>> = mesh.vertices.iter().map(|p| Vector3::new(1.02 * p.x, p.y, 0.99 * p.z)).collect();
    let mild: Vec<[Vector3<f64>; 4]> = elements.iter().map(|e| e.gather(&mild)).collect();
    let lame = Lame::from_young_poisson(1e6, 0.45);
    for model in [ElasticModel::NeoHookean, ElasticModel::StableNeoHookean] {
        let m = Material::new(model, lame);
        let mut g = c.benchmark_group(format!("{model:?}"));
        g.throughput(Throughput::Elements(elements.len() as u64));
        g.bench_function("energy", |b| {
            b.iter(|| elements.iter().zip(&stencils).map(|(e, x)| e.energy(&m, black_box(x))).sum::<f64>())
        });
        g.bench_function("gradient", |b| {
            b.iter(|| {
                for (e, x) in elements.iter().zip(&stencils) {
                    black_box(e.energy_gradient(&m, black_box(x)));
                }
            })
        });
        for (name, psd) in [("gradient_hessian", false), ("gradient_hessian_psd", true)] {
            g.bench_function(name, |b| {
                b.iter(|| {
                    for (e, x) in elements.iter().zip(&stencils) {
                        black_box(e.energy_gradient_hessian(&m, black_box(x), psd));
                    }
                })
            });
        }
        g.bench_function("gradient_hessian_psd_mild", |b| {
            b.iter(|| {
                for (e, x) in elements.iter().zip(&mild) {
                    black_box(e.energy_gradient_hessian(&m, black_box(x), true));
                }
            })
        });
        let indefinite = elements
            .iter()
            .zip(&stencils)
            .filter(|(e, x)| {
                let (_, _, h) = e.energy_gradient_hessian(&m, x, false);
                let (_, _, hp) = e.energy_gradient_hessian(&m, x, true);
                h != hp
            })
            .count();
        println!("{model:?}: {indefinite} of {} squashed elements needed a projection", elements.len());
        g.finish();
    }
}

criterion_group!(benches, bench);
criterion_main!(benches);
