//! Per-stencil throughput of the thin-object kernels (stencils/s in criterion's "thrpt" column):
//! rod stretch (6 DOFs, hand-derived), rod bend–twist (11 DOFs, num-dual AD), quasistatic twist
//! (per rod), membrane StVK and neo-Hookean (9 DOFs, hand-derived), discrete-shell hinge (12 DOFs,
//! num-dual AD). Run: `cargo bench --bench thin`.
//!
//! Stencils come from a deformed curly rod (helix, 30 edges per rod like 004's hair) and a
//! deformed cloth grid, so projections meet both definite and indefinite Hessians.

use std::hint::black_box;
use std::time::Duration;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use fricsim::energy::bending::{HingeElement, hinge_stiffness};
use fricsim::energy::membrane::{MembraneElement, MembraneMaterial, MembraneModel};
use fricsim::energy::rod::{Rod, RodStiffness, TwistBoundary, quasistatic_twist};
use nalgebra::Vector3;

/// Deterministic pseudo-random numbers in [-1, 1) (SplitMix64).
fn noise(seed: &mut u64) -> f64 {
    *seed = seed.wrapping_add(0x9E37_79B9_7F4A_7C15);
    let mut z = *seed;
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    ((z ^ (z >> 31)) >> 11) as f64 / (1u64 << 52) as f64 - 1.0
}

fn rods(c: &mut Criterion) {
    let s = RodStiffness::circular(4e9, 1.35e9, 3.7e-5);
    // 34 curly rods × 30 edges ≈ 1000 bend–twist stencils.
    let mut seed = 1;
    let mut cases = Vec::new();
    for r in 0..34 {
        let rest: Vec<Vector3<f64>> = (0..31)
            .map(|i| {
                let p = 0.5 * i as f64;
                Vector3::new(0.004 * p.cos() + r as f64, 0.004 * p.sin(), 0.002 * p)
            })
            .collect();
        let (rod, mut frames) = Rod::from_rest_polyline(&rest, s);
        let x: Vec<Vector3<f64>> = rest
            .iter()
            .map(|p| p + Vector3::new(noise(&mut seed), noise(&mut seed), noise(&mut seed)) * 5e-4)
            .collect();
        frames.update(&x);
        let theta: Vec<f64> = (0..30).map(|_| 0.3 * noise(&mut seed)).collect();
        cases.push((rod, frames, x, theta));
    }
    let n_bt: usize = cases.iter().map(|c| c.0.bend_twist.len()).sum();
    let n_st: usize = cases.iter().map(|c| c.0.stretch.len()).sum();

    let mut g = c.benchmark_group("rod_stretch");
    g.throughput(Throughput::Elements(n_st as u64));
    for (name, mode) in [("energy", 0), ("gradient", 1), ("gradient_hessian", 2), ("gradient_hessian_psd", 3)] {
        g.bench_function(name, |b| {
            b.iter(|| {
                for (rod, _, x, _) in &cases {
                    for el in &rod.stretch {
                        let xs = el.gather(x);
                        match mode {
                            0 => _ = black_box(el.energy(s.stretch, black_box(&xs))),
                            1 => _ = black_box(el.energy_gradient(s.stretch, black_box(&xs))),
                            _ => _ = black_box(el.energy_gradient_hessian(s.stretch, black_box(&xs), mode == 3)),
                        }
                    }
                }
            })
        });
    }
    g.finish();

    let mut g = c.benchmark_group("rod_bend_twist");
    g.throughput(Throughput::Elements(n_bt as u64));
    for (name, mode) in [
        ("energy", 0),
        ("gradient", 1),
        ("gradient_hessian", 2),
        ("gradient_hessian_psd", 3),
        ("gradient_gauss_newton", 4),
    ] {
        g.bench_function(name, |b| {
            b.iter(|| {
                for (rod, frames, x, theta) in &cases {
                    for (k, el) in rod.bend_twist.iter().enumerate() {
                        let i = el.node;
                        let xs = [x[i - 1], x[i], x[i + 1]];
                        let th = [theta[i - 1], theta[i]];
                        let fr = [frames.edges[i - 1], frames.edges[i]];
                        let m = frames.reference_twist[k];
                        match mode {
                            0 => _ = black_box(el.energy(&s, black_box(&xs), &th, &fr, m)),
                            1 => _ = black_box(el.energy_gradient(&s, black_box(&xs), &th, &fr, m)),
                            4 => _ = black_box(el.energy_gradient_gauss_newton(&s, black_box(&xs), &th, &fr, m)),
                            _ => _ = black_box(el.energy_gradient_hessian(&s, black_box(&xs), &th, &fr, m, mode == 3)),
                        }
                    }
                }
            })
        });
    }
    g.finish();

    let mut g = c.benchmark_group("rod_quasistatic_twist");
    g.throughput(Throughput::Elements(cases.len() as u64)); // rods of 30 edges
    g.bench_function("clamped_30_edges", |b| {
        b.iter(|| {
            for (rod, frames, _, _) in &cases {
                black_box(quasistatic_twist(rod, frames, TwistBoundary::Clamped { root_angle: 0.0, tip_angle: 1.0 }));
            }
        })
    });
    g.finish();
}

fn cloth(c: &mut Criterion) {
    // 32 × 32 grid, 2048 triangles, 3008 hinges, draped: a sag with wrinkles and some in-plane
    // stretch/compression.
    let n = 32;
    let a = 0.01;
    let idx = |i: usize, j: usize| j * (n + 1) + i;
    let rest: Vec<Vector3<f64>> =
        (0..=n).flat_map(|j| (0..=n).map(move |i| Vector3::new(i as f64 * a, j as f64 * a, 0.0))).collect();
    let mut tris = Vec::new();
    for j in 0..n {
        for i in 0..n {
            tris.push([idx(i, j), idx(i + 1, j), idx(i + 1, j + 1)]);
            tris.push([idx(i, j), idx(i + 1, j + 1), idx(i, j + 1)]);
        }
    }
    let mut seed = 7;
    let x: Vec<Vector3<f64>> = rest
        .iter()
        .map(|p| {
            let z = 0.05 * (p.x * 20.0).sin() * (p.y * 15.0).cos();
            Vector3::new(p.x * (1.0 + 0.1 * (p.y * 9.0).sin()), p.y, z)
                + Vector3::new(noise(&mut seed), noise(&mut seed), noise(&mut seed)) * 1e-3
        })
        .collect();
    let tri_elems = MembraneElement::from_triangles(&tris, &rest);
    for model in [MembraneModel::StVK, MembraneModel::NeoHookean] {
        let m = MembraneMaterial::from_young_poisson(model, 1e6, 0.4, 2e-3, 1000.0);
        let mut g = c.benchmark_group(format!("membrane_{model:?}"));
        g.throughput(Throughput::Elements(tri_elems.len() as u64));
        for (name, mode) in [("energy", 0), ("gradient", 1), ("gradient_hessian", 2), ("gradient_hessian_psd", 3)] {
            g.bench_function(name, |b| {
                b.iter(|| {
                    for el in &tri_elems {
                        let xs = el.gather(&x);
                        match mode {
                            0 => _ = black_box(el.energy(&m, black_box(&xs))),
                            1 => _ = black_box(el.energy_gradient(&m, black_box(&xs))),
                            _ => _ = black_box(el.energy_gradient_hessian(&m, black_box(&xs), mode == 3)),
                        }
                    }
                })
            });
        }
        g.finish();
    }
    let hinges = HingeElement::from_triangles(&tris, &rest);
    let k = hinge_stiffness(1e6, 0.4, 2e-3);
    let mut g = c.benchmark_group("hinge");
    g.throughput(Throughput::Elements(hinges.len() as u64));
    for (name, mode) in [
        ("energy", 0),
        ("gradient", 1),
        ("gradient_hessian", 2),
        ("gradient_hessian_psd", 3),
        ("gradient_gauss_newton", 4),
    ] {
        g.bench_function(name, |b| {
            b.iter(|| {
                for el in &hinges {
                    let xs = el.gather(&x);
                    match mode {
                        0 => _ = black_box(el.energy(k, black_box(&xs))),
                        1 => _ = black_box(el.energy_gradient(k, black_box(&xs))),
                        4 => _ = black_box(el.energy_gradient_gauss_newton(k, black_box(&xs))),
                        _ => _ = black_box(el.energy_gradient_hessian(k, black_box(&xs), mode == 3)),
                    }
                }
            })
        });
    }
    g.finish();
}

fn config() -> Criterion {
    // 24 functions: short windows keep the whole run near a minute on the shared 2-core machine;
    // each iteration covers ~1000-3000 stencils, so 2 s gives stable per-stencil numbers.
    Criterion::default()
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(2))
        .sample_size(20)
}

criterion_group! { name = benches; config = config(); targets = rods, cloth }
criterion_main!(benches);
