//! Box–box contact generation (SAT over 15 axes, face clipping, manifold reduction), in pairs/s
//! (criterion's "thrpt" column; one "element" = one pair). Run: `cargo bench --bench rigid_contact`.
//!
//! - `resting`: a box resting on a larger box, rotated about z (face contact, 4 points);
//! - `edge_edge`: two boxes crossing edge on edge (1 point);
//! - `separated`: boxes 0.1 apart with margin 0.01 (exits at the first separating face axis);
//! - `random`: 1024 fixed pseudo-random overlapping poses (mixed face and edge contacts);
//! - `mesh_resting`: the resting case with both boxes as general convex meshes.

use std::hint::black_box;
use std::time::Duration;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use fricsim::contact::rigid::collide_shapes;
use fricsim::rigid::{ConvexMesh, RigidShape};
use nalgebra::{Isometry3, Translation3, UnitQuaternion, Vector3};

fn pose(p: [f64; 3], q: UnitQuaternion<f64>) -> Isometry3<f64> {
    Isometry3::from_parts(Translation3::new(p[0], p[1], p[2]), q)
}

fn mesh(half: Vector3<f64>) -> RigidShape {
    let c = ConvexMesh::cuboid(&half);
    RigidShape::ConvexMesh(ConvexMesh::new(c.vertices, c.triangles).expect("a box"))
}

/// Deterministic pseudo-random numbers in [0, 1) (xorshift), so every run times the same poses.
fn uniform(state: &mut u64) -> f64 {
    *state ^= *state << 13;
    *state ^= *state >> 7;
    *state ^= *state << 17;
    (*state >> 11) as f64 / (1u64 << 53) as f64
}

fn bench(c: &mut Criterion) {
    let small = RigidShape::Box { half: Vector3::new(0.3, 0.2, 0.25) };
    let big = RigidShape::Box { half: Vector3::new(1.0, 1.0, 0.5) };
    let id = Isometry3::identity();
    let resting = pose([0.1, -0.2, 0.7499], UnitQuaternion::from_euler_angles(0.0, 0.0, 0.4));
    let a = RigidShape::Box { half: Vector3::new(1.0, 0.2, 0.2) };
    let b = RigidShape::Box { half: Vector3::new(0.2, 1.0, 0.2) };
    let pa = pose([0.0, 0.0, 0.4 * 2f64.sqrt() - 0.01], UnitQuaternion::from_euler_angles(0.785, 0.0, 0.0));
    let pb = pose([0.0, 0.0, 0.0], UnitQuaternion::from_euler_angles(0.0, 0.785, 0.0));
    let apart = pose([0.1, -0.2, 0.85], UnitQuaternion::from_euler_angles(0.0, 0.0, 0.4));
    let mut s = 0x9e3779b97f4a7c15u64;
    let random: Vec<Isometry3<f64>> = (0..1024)
        .map(|_| {
            let p = [0.6 * uniform(&mut s) - 0.3, 0.6 * uniform(&mut s) - 0.3, 0.55 + 0.2 * uniform(&mut s)];
            let q =
                UnitQuaternion::from_euler_angles(6.3 * uniform(&mut s), 6.3 * uniform(&mut s), 6.3 * uniform(&mut s));
            pose(p, q)
        })
        .collect();
    let (small_mesh, big_mesh) = (mesh(Vector3::new(0.3, 0.2, 0.25)), mesh(Vector3::new(1.0, 1.0, 0.5)));

    let mut g = c.benchmark_group("box_box");
    g.warm_up_time(Duration::from_secs(1)).measurement_time(Duration::from_secs(3));
    g.throughput(Throughput::Elements(1));
    g.bench_function("resting", |bn| bn.iter(|| collide_shapes(&small, black_box(&resting), &big, &id, 1e-3)));
    g.bench_function("edge_edge", |bn| bn.iter(|| collide_shapes(&a, black_box(&pa), &b, &pb, 1e-3)));
    g.bench_function("separated", |bn| bn.iter(|| collide_shapes(&small, black_box(&apart), &big, &id, 1e-2)));
    g.bench_function("mesh_resting", |bn| {
        bn.iter(|| collide_shapes(&small_mesh, black_box(&resting), &big_mesh, &id, 1e-3))
    });
    g.throughput(Throughput::Elements(random.len() as u64));
    g.bench_function("random", |bn| {
        bn.iter(|| {
            let mut n = 0;
            for p in &random {
                n += collide_shapes(&small, black_box(p), &big, &id, 1e-3).len();
            }
            n
        })
    });
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
