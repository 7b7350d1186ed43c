//! Nodal contact detection at scale (`contact::nodal`): BVH build, refit and self query, the full
//! proximity pass and the CCD pass, on a 224 x 224-quad cloth (100,352 triangles) folded onto
//! itself and on a bundle of 2000 rods x 50 segments whose neighbours touch along their length.
//! Criterion's "thrpt" column is primitives per second (the tree's primitives for build, refit
//! and queries; all primitives for proximity and CCD). The scene sizes, pair and contact counts
//! are printed once before the measurements. Run: `cargo bench --bench nodal_contact`.

#[path = "../tests/support/nodal_scenes.rs"]
mod nodal_scenes;
#[path = "../tests/support/rng.rs"]
#[allow(dead_code)]
mod rng;

use std::hint::black_box;
use std::time::{Duration, Instant};

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use fricsim::contact::nodal::{Aabb, Bvh, CcdOptions, ContactMesh, Detector, PrimitiveKind, primitive_boxes};
use nodal_scenes::{cloth_scene, rod_scene};
use rng::Rng;

struct Scene {
    name: &'static str,
    mesh: ContactMesh,
    x0: Vec<f64>,
    /// End of a step for CCD.
    x1: Vec<f64>,
    /// Proximity margin and CCD max separation (m).
    margin: f64,
    /// The tree the BVH benchmarks measure (triangles for cloth, edges for rods).
    kind: PrimitiveKind,
}

fn scenes() -> Vec<Scene> {
    let mut rng = Rng(2026);
    // Cloth: 1 m square, half-thickness 1 mm, folded over a 2.5 mm bend, so the two layers are
    // 0.5 mm apart beyond their thickness. The step pushes the upper layer 5 mm down (through
    // the lower one) with 1 mm of random sliding.
    let (mesh, x0) = cloth_scene(224, 1e-3, 2.5e-3, &mut rng);
    let x1 = x0
        .chunks(3)
        .flat_map(|p| {
            let dz = if p[2] > 1.25e-3 { -5e-3 } else { 0.0 };
            [p[0] + 1e-3 * rng.sym(), p[1] + 1e-3 * rng.sym(), p[2] + dz]
        })
        .collect();
    let cloth = Scene { name: "cloth_100k", mesh, x0, x1, margin: 1e-3, kind: PrimitiveKind::Triangle };
    // Rods: radius 0.1 mm, 2.2 radii apart, waving by one radius; in the step every rod moves
    // by up to one radius as a whole, and each node by up to a tenth of a radius more.
    let r = 1e-4;
    let (mesh, x0) = rod_scene(2000, 50, r, &mut rng);
    let mut x1 = x0.clone();
    for rod in x1.chunks_mut(3 * 51) {
        let shift = [r * rng.sym(), r * rng.sym(), r * rng.sym()];
        for p in rod.chunks_mut(3) {
            for (c, s) in p.iter_mut().zip(shift) {
                *c += s + 0.1 * r * rng.sym();
            }
        }
    }
    let rods = Scene { name: "rods_2000x50", mesh, x0, x1, margin: r, kind: PrimitiveKind::Edge };
    vec![cloth, rods]
}

fn boxes(s: &Scene, kind: PrimitiveKind, x: &[f64]) -> Vec<Aabb> {
    let mut b = Vec::new();
    primitive_boxes(&s.mesh, kind, x, x, s.margin, &mut b).expect("valid scene");
    b
}

fn report(s: &Scene) {
    let m = &s.mesh;
    let t = Instant::now();
    let mut d = Detector::new();
    let contacts = d.proximity(m, &s.x0, s.margin).expect("valid scene");
    let t_prox = t.elapsed();
    let cand = d.candidates(m).expect("trees built by proximity");
    let t = Instant::now();
    let opts = CcdOptions { max_separation: s.margin, ..CcdOptions::default() };
    let ccd = d.ccd(m, &s.x0, &s.x1, &opts).expect("valid scene");
    let t_ccd = t.elapsed();
    let kinds = |k| contacts.iter().filter(|c| c.kind == k).count();
    use fricsim::contact::nodal::ContactKind::*;
    println!(
        "{}: {} vertices, {} edges, {} triangles; proximity (first call, with builds) {:.1} ms: \
         {} vertex-triangle + {} edge-edge candidates -> {} contacts (VF {}, EE {}, VE {}, VV {}); \
         CCD (refit) {:.1} ms: {} impacts, global toi {:.3e}",
        s.name,
        m.vertex_count(),
        m.edge_count(),
        m.triangle_count(),
        t_prox.as_secs_f64() * 1e3,
        cand.vertex_triangle.len(),
        cand.edge_edge.len(),
        contacts.len(),
        kinds(VertexFace),
        kinds(EdgeEdge),
        kinds(VertexEdge),
        kinds(VertexVertex),
        t_ccd.as_secs_f64() * 1e3,
        ccd.impacts.len(),
        ccd.toi,
    );
}

fn detection(c: &mut Criterion) {
    for s in scenes() {
        report(&s);
        let m = &s.mesh;
        let all = (m.vertex_count() + m.edge_count() + m.triangle_count()) as u64;
        let b0 = boxes(&s, s.kind, &s.x0);
        let b1 = boxes(&s, s.kind, &s.x1);
        let mut g = c.benchmark_group(format!("nodal_{}", s.name));
        g.throughput(Throughput::Elements(b0.len() as u64));
        g.bench_function(format!("bvh_build_{:?}", s.kind), |b| b.iter(|| Bvh::build(black_box(&b0))));
        let mut tree = Bvh::build(&b0).expect("valid boxes");
        let mut flip = false;
        g.bench_function(format!("bvh_refit_{:?}", s.kind), |b| {
            b.iter(|| {
                flip = !flip;
                tree.refit(if flip { &b1 } else { &b0 })
            })
        });
        tree.refit(&b0).expect("same primitives");
        println!("{}: self query of the {:?} tree: {} overlapping pairs", s.name, s.kind, tree.self_pairs().len());
        g.bench_function(format!("bvh_self_query_{:?}", s.kind), |b| b.iter(|| tree.self_pairs().len()));
        g.throughput(Throughput::Elements(all));
        let mut d = Detector::new();
        g.bench_function("proximity", |b| b.iter(|| d.proximity(m, black_box(&s.x0), s.margin).map(|c| c.len())));
        let opts = CcdOptions { max_separation: s.margin, ..CcdOptions::default() };
        g.bench_function("ccd", |b| b.iter(|| d.ccd(m, black_box(&s.x0), &s.x1, &opts).map(|r| r.toi)));
        g.finish();
    }
}

fn config() -> Criterion {
    Criterion::default().warm_up_time(Duration::from_secs(1)).measurement_time(Duration::from_secs(4)).sample_size(10)
}

criterion_group! { name = benches; config = config(); targets = detection }
criterion_main!(benches);
