//! Procedural thin geometry: cloth grids and rod polylines (straight, helix, hairy ball).

use nalgebra::Vector3;
use std::f64::consts::PI;

/// A rectangle of `size` in the xy plane, centered at the origin: `cells` squares, each split
/// into two triangles along alternating diagonals (no directional bias), counter-clockwise
/// seen from +z.
pub fn grid(size: [f64; 2], cells: [usize; 2]) -> (Vec<Vector3<f64>>, Vec<[usize; 3]>) {
    let [nx, ny] = cells;
    let idx = |i: usize, j: usize| j * (nx + 1) + i;
    let vertices = (0..=ny)
        .flat_map(|j| {
            (0..=nx).map(move |i| {
                Vector3::new(size[0] * (i as f64 / nx as f64 - 0.5), size[1] * (j as f64 / ny as f64 - 0.5), 0.0)
            })
        })
        .collect();
    let mut triangles = Vec::with_capacity(2 * nx * ny);
    for j in 0..ny {
        for i in 0..nx {
            let (a, b, c, d) = (idx(i, j), idx(i + 1, j), idx(i + 1, j + 1), idx(i, j + 1));
            if (i + j) % 2 == 0 {
                triangles.extend([[a, b, c], [a, c, d]]);
            } else {
                triangles.extend([[a, b, d], [b, c, d]]);
            }
        }
    }
    (vertices, triangles)
}

/// `segments + 1` evenly spaced nodes from `start` to `end`.
pub fn straight(start: Vector3<f64>, end: Vector3<f64>, segments: usize) -> Vec<Vector3<f64>> {
    (0..=segments).map(|k| start + (end - start) * (k as f64 / segments as f64)).collect()
}

/// A helix about the z axis through `center`, starting at angle 0 and `z = center.z`.
pub fn helix(center: Vector3<f64>, radius: f64, pitch: f64, turns: f64, segments: usize) -> Vec<Vector3<f64>> {
    (0..=segments)
        .map(|k| {
            let s = turns * k as f64 / segments as f64;
            let a = 2.0 * PI * s;
            center + Vector3::new(radius * a.cos(), radius * a.sin(), pitch * s)
        })
        .collect()
}

/// `count` rods rooted on a sphere at Fibonacci-lattice points (even coverage, deterministic),
/// each growing outwards over `length` with `segments` edges. `curliness` in [0, 1) coils the
/// rods about their normal: the helix radius is `curliness * length / 4`, with 3 turns.
pub fn hairy_ball(
    center: Vector3<f64>,
    radius: f64,
    count: usize,
    length: f64,
    segments: usize,
    curliness: f64,
) -> Vec<Vec<Vector3<f64>>> {
    let golden = PI * (3.0 - 5f64.sqrt());
    (0..count)
        .map(|k| {
            let z = 1.0 - 2.0 * (k as f64 + 0.5) / count as f64;
            let r = (1.0 - z * z).sqrt();
            let phi = golden * k as f64;
            let n = Vector3::new(r * phi.cos(), r * phi.sin(), z);
            let (u, w) = crate::rigid::shape::tangent_basis(&n);
            let coil = curliness * length / 4.0;
            (0..=segments)
                .map(|j| {
                    let s = j as f64 / segments as f64;
                    let a = 6.0 * PI * s;
                    // The coil grows from zero at the root so that the root edge leaves along n.
                    center + n * (radius + length * s) + (u * (a.cos() - 1.0) + w * a.sin()) * (coil * s)
                })
                .collect()
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn grid_counts_and_orientation() {
        let (v, t) = grid([2.0, 1.0], [4, 2]);
        assert_eq!(v.len(), 15);
        assert_eq!(t.len(), 16);
        for tri in &t {
            let n = (v[tri[1]] - v[tri[0]]).cross(&(v[tri[2]] - v[tri[0]]));
            assert!(n.z > 0.0, "counter-clockwise from +z");
        }
        let area: f64 = t.iter().map(|tri| 0.5 * (v[tri[1]] - v[tri[0]]).cross(&(v[tri[2]] - v[tri[0]])).norm()).sum();
        assert!((area - 2.0).abs() < 1e-12);
    }

    #[test]
    fn hairy_ball_roots_on_the_sphere_and_lengths() {
        let rods = hairy_ball(Vector3::zeros(), 0.1, 50, 0.05, 10, 0.0);
        assert_eq!(rods.len(), 50);
        for r in &rods {
            assert!((r[0].norm() - 0.1).abs() < 1e-12);
            assert!((r[10].norm() - 0.15).abs() < 1e-12);
        }
    }
}
