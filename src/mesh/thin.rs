//! Procedural thin geometry: cloth grids, tubes and closed spheres, and rod polylines (straight,
//! helix, hairy ball).

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
    (vertices, quad_triangles([nx, ny], idx))
}

/// Two triangles per cell of an `nx × ny` grid of quads whose corner `(i, j)` is vertex `idx(i, j)`,
/// split along alternating diagonals (no directional bias), counter-clockwise as the grid's
/// (i, j) axes.
fn quad_triangles(cells: [usize; 2], idx: impl Fn(usize, usize) -> usize) -> Vec<[usize; 3]> {
    let [nx, ny] = cells;
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
    triangles
}

/// An open tube of `radius` about the z axis from `z = -length/2` to `length/2`: `cells[0]`
/// quads around (at least 3), `cells[1]` along, each split in two as in [`grid`], with outward
/// normals (counter-clockwise seen from outside).
pub fn tube(radius: f64, length: f64, cells: [usize; 2]) -> (Vec<Vector3<f64>>, Vec<[usize; 3]>) {
    let [na, nz] = cells;
    let idx = |i: usize, j: usize| j * na + i % na;
    let vertices = (0..=nz)
        .flat_map(|j| {
            (0..na).map(move |i| {
                let t = 2.0 * PI * i as f64 / na as f64;
                Vector3::new(radius * t.cos(), radius * t.sin(), length * (j as f64 / nz as f64 - 0.5))
            })
        })
        .collect();
    // Around is the grid's x, along its y: e_theta x e_z = e_r, so the grid's winding faces
    // outward.
    (vertices, quad_triangles([na, nz], idx))
}

/// A closed sphere of `radius` about the origin: a cube with `resolution` squares along each edge
/// (each split in two), projected radially, outward normals. `6 resolution² + 2` vertices.
pub fn sphere(radius: f64, resolution: usize) -> (Vec<Vector3<f64>>, Vec<[usize; 3]>) {
    let n = resolution;
    let mut vertices: Vec<Vector3<f64>> = Vec::new();
    let mut index: std::collections::HashMap<[i64; 3], usize> = Default::default();
    let mut triangles = Vec::with_capacity(12 * n * n);
    // Each face: a fixed axis `k` at side `s`, spanned by the two other axes in a right-handed
    // order so that (u, v, s e_k) winds counter-clockwise seen from outside.
    for (k, s) in [(0, 1i64), (0, -1), (1, 1), (1, -1), (2, 1), (2, -1)] {
        let (a, b) = if s > 0 { ((k + 1) % 3, (k + 2) % 3) } else { ((k + 2) % 3, (k + 1) % 3) };
        // Integer lattice coordinates in [-n, n] (step 2) identify shared edge vertices exactly.
        let mut id = |i: usize, j: usize| -> usize {
            let mut key = [0i64; 3];
            key[k] = s * n as i64;
            key[a] = 2 * i as i64 - n as i64;
            key[b] = 2 * j as i64 - n as i64;
            *index.entry(key).or_insert_with(|| {
                let p = Vector3::new(key[0] as f64, key[1] as f64, key[2] as f64);
                vertices.push(p.normalize() * radius);
                vertices.len() - 1
            })
        };
        for j in 0..n {
            for i in 0..n {
                let (p, q, r, t) = (id(i, j), id(i + 1, j), id(i + 1, j + 1), id(i, j + 1));
                if (i + j) % 2 == 0 {
                    triangles.extend([[p, q, r], [p, r, t]]);
                } else {
                    triangles.extend([[p, q, t], [q, r, t]]);
                }
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

    /// Every edge of a closed surface is shared by exactly two triangles, in opposite
    /// directions (a consistently oriented 2-manifold).
    fn assert_closed(t: &[[usize; 3]]) {
        let mut edges = std::collections::HashMap::new();
        for tri in t {
            for k in 0..3 {
                *edges.entry((tri[k], tri[(k + 1) % 3])).or_insert(0) += 1;
            }
        }
        for (&(a, b), &count) in &edges {
            assert_eq!(count, 1, "edge {a}-{b} used twice in one direction");
            assert_eq!(edges.get(&(b, a)), Some(&1), "edge {a}-{b} has no opposite");
        }
    }

    #[test]
    fn sphere_is_closed_outward_and_round() {
        let (v, t) = sphere(0.5, 6);
        assert_eq!(v.len(), 6 * 36 + 2);
        assert_eq!(t.len(), 12 * 36);
        assert_closed(&t);
        let flat: Vec<f64> = v.iter().flat_map(|x| [x.x, x.y, x.z]).collect();
        let vol = crate::energy::volume::enclosed_volume(&t, &flat);
        let exact = 4.0 / 3.0 * PI * 0.125;
        // Inscribed polyhedron: below the ball's volume, within a few percent at 6 cells per edge.
        assert!(vol > 0.93 * exact && vol < exact, "{vol} vs {exact}");
        assert!(v.iter().all(|x| (x.norm() - 0.5).abs() < 1e-12));
    }

    #[test]
    fn tube_wraps_around_with_outward_normals() {
        let (v, t) = tube(0.2, 1.0, [12, 4]);
        assert_eq!(v.len(), 12 * 5);
        assert_eq!(t.len(), 2 * 12 * 4);
        for tri in &t {
            let n = (v[tri[1]] - v[tri[0]]).cross(&(v[tri[2]] - v[tri[0]]));
            let c = (v[tri[0]] + v[tri[1]] + v[tri[2]]) / 3.0;
            assert!(n.dot(&Vector3::new(c.x, c.y, 0.0)) > 0.0, "outward");
        }
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
