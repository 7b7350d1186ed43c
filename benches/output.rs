//! Output throughput on a 31^3-node grid cut into 5 tets per cube (29,791 points, 135,000
//! tets) with a velocity field, and PLY of its boundary surface (with all points).
//!
//! Run: `CARGO_TARGET_DIR=/work/target cargo bench --bench output`
//! Throughput is reported as bytes of the written file per second.

use std::collections::HashMap;
use std::hint::black_box;
use std::path::Path;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use fricsim::output::ply::{PlyPrecision, write_ply_with};
use fricsim::output::vtu::{Cells, UnstructuredSnapshot, VtuCompression, write_vtu_with};

/// Grid of `n`^3 nodes, each cube split into 5 tets (alternating so faces match).
fn tet_grid(n: usize) -> (Vec<[f64; 3]>, Vec<[usize; 4]>) {
    let id = |i: usize, j: usize, k: usize| (k * n + j) * n + i;
    let h = 1.0 / (n - 1) as f64;
    let mut pts = Vec::with_capacity(n * n * n);
    for k in 0..n {
        for j in 0..n {
            for i in 0..n {
                pts.push([i as f64 * h, j as f64 * h, k as f64 * h]);
            }
        }
    }
    let mut tets = Vec::with_capacity(5 * (n - 1).pow(3));
    for k in 0..n - 1 {
        for j in 0..n - 1 {
            for i in 0..n - 1 {
                let c = |a: usize, b: usize, d: usize| id(i + a, j + b, k + d);
                let (v0, v1, v2, v3) = (c(0, 0, 0), c(1, 0, 0), c(0, 1, 0), c(1, 1, 0));
                let (v4, v5, v6, v7) = (c(0, 0, 1), c(1, 0, 1), c(0, 1, 1), c(1, 1, 1));
                if (i + j + k) % 2 == 0 {
                    tets.extend([
                        [v0, v1, v2, v4],
                        [v1, v3, v2, v7],
                        [v1, v2, v4, v7],
                        [v1, v5, v4, v7],
                        [v2, v4, v7, v6],
                    ]);
                } else {
                    tets.extend([
                        [v0, v1, v3, v5],
                        [v0, v3, v2, v6],
                        [v0, v5, v3, v6],
                        [v0, v4, v5, v6],
                        [v3, v5, v7, v6],
                    ]);
                }
            }
        }
    }
    (pts, tets)
}

/// Faces that belong to exactly one tet.
fn boundary(tets: &[[usize; 4]]) -> Vec<[usize; 3]> {
    let mut count: HashMap<[usize; 3], ([usize; 3], u32)> = HashMap::new();
    for t in tets {
        for f in [[t[0], t[1], t[2]], [t[0], t[1], t[3]], [t[0], t[2], t[3]], [t[1], t[2], t[3]]] {
            let mut key = f;
            key.sort_unstable();
            count.entry(key).or_insert((f, 0)).1 += 1;
        }
    }
    count.into_values().filter(|(_, c)| *c == 1).map(|(f, _)| f).collect()
}

fn bench(c: &mut Criterion) {
    let (pts, tets) = tet_grid(31);
    let vel: Vec<[f64; 3]> = pts.iter().map(|p| [p[1].sin(), p[2] * 0.3, -p[0]]).collect();
    let energy: Vec<f64> = (0..tets.len()).map(|i| (i as f64 * 0.37).cos()).collect();
    let tris = boundary(&tets);
    let dir = tempfile::tempdir().expect("temp dir for bench output");
    eprintln!("mesh: {} points, {} tets, {} boundary triangles", pts.len(), tets.len(), tris.len());

    let mut s = UnstructuredSnapshot::new(&pts, Cells::Tetra(&tets));
    s.point_vectors.push(("velocity", &vel));
    s.cell_scalars.push(("energy", &energy));

    let mut group = c.benchmark_group("output");
    group.sample_size(10);
    for (label, comp) in [
        ("vtu_none", VtuCompression::None),
        ("vtu_lz4", VtuCompression::Lz4),
        ("vtu_zlib1", VtuCompression::Zlib { level: 1 }),
    ] {
        let path = dir.path().join(format!("{label}.vtu"));
        write_vtu_with(&path, &s, comp).expect("bench write");
        let bytes = file_len(&path);
        eprintln!("{label}: {bytes} bytes");
        group.throughput(Throughput::Bytes(bytes));
        group.bench_function(label, |b| {
            b.iter(|| write_vtu_with(black_box(&path), black_box(&s), comp).expect("bench write"))
        });
    }
    for (label, prec) in [("ply_float", PlyPrecision::Float), ("ply_double", PlyPrecision::Double)] {
        let path = dir.path().join(format!("{label}.ply"));
        let vv: [(&str, &[[f64; 3]]); 1] = [("velocity", &vel)];
        write_ply_with(&path, &pts, &tris, &vv, prec).expect("bench write");
        let bytes = file_len(&path);
        eprintln!("{label}: {bytes} bytes");
        group.throughput(Throughput::Bytes(bytes));
        group.bench_function(label, |b| {
            b.iter(|| write_ply_with(black_box(&path), &pts, &tris, &vv, prec).expect("bench write"))
        });
    }
    group.finish();
}

fn file_len(p: &Path) -> u64 {
    std::fs::metadata(p).map(|m| m.len()).unwrap_or(0)
}

criterion_group!(benches, bench);
criterion_main!(benches);
