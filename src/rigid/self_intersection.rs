//! Whether a closed mesh crosses itself: every pair of triangles whose bounding boxes overlap and
//! that share no edge is tested by passing each triangle's edges through the other (two
//! triangles in general position cross exactly when an edge of one pierces the other). Pairs
//! sharing one vertex cross only away from it. Coplanar overlaps are not detected (a pierced
//! plane needs a transversal edge); such meshes are also rejected by nothing else, so they are
//! documented as the one defect that passes.

use super::mesh_distance::TriangleTree;
use nalgebra::Vector3;

/// Barycentric and segment-parameter slack: a touch within rounding of a triangle's boundary
/// counts as a crossing (two separate parts of a solid's boundary may not touch either).
const SLACK: f64 = 1e-9;

/// The first crossing pair `(i, j)`, `i < j`, lowest `i` first; `None` when the mesh is embedded.
pub fn first_crossing(
    vertices: &[Vector3<f64>],
    triangles: &[[usize; 3]],
    tree: &TriangleTree,
) -> Option<(usize, usize)> {
    let scale = vertices.iter().map(|v| v.amax()).fold(0.0, f64::max);
    for (i, ti) in triangles.iter().enumerate() {
        let pi = ti.map(|k| vertices[k]);
        let lo = pi.iter().fold(Vector3::repeat(f64::INFINITY), |m, v| m.inf(v));
        let hi = pi.iter().fold(Vector3::repeat(f64::NEG_INFINITY), |m, v| m.sup(v));
        let mut hits: Vec<usize> = tree.overlapping(lo.into(), hi.into()).filter(|&j| j > i).collect();
        hits.sort_unstable();
        for j in hits {
            let tj = triangles[j];
            let shared: Vec<usize> = ti.iter().copied().filter(|v| tj.contains(v)).collect();
            if shared.len() >= 2 {
                continue;
            }
            let at = shared.first().map(|&v| vertices[v]);
            let pj = tj.map(|k| vertices[k]);
            if pierces(&pi, &pj, at, scale) || pierces(&pj, &pi, at, scale) {
                return Some((i, j));
            }
        }
    }
    None
}

/// Whether an edge of triangle `a` passes through triangle `b`, away from the shared vertex `at`.
fn pierces(a: &[Vector3<f64>; 3], b: &[Vector3<f64>; 3], at: Option<Vector3<f64>>, scale: f64) -> bool {
    (0..3).any(|k| {
        segment_triangle(&a[k], &a[(k + 1) % 3], b)
            .is_some_and(|hit| at.is_none_or(|v| (hit - v).norm() > SLACK.sqrt() * scale))
    })
}

/// Where segment `p q` meets triangle `t` (Möller–Trumbore), within [`SLACK`]; `None` if it
/// misses or runs parallel to the triangle's plane.
fn segment_triangle(p: &Vector3<f64>, q: &Vector3<f64>, t: &[Vector3<f64>; 3]) -> Option<Vector3<f64>> {
    let d = q - p;
    let (e1, e2) = (t[1] - t[0], t[2] - t[0]);
    let h = d.cross(&e2);
    let det = e1.dot(&h);
    if det.abs() <= SLACK * e1.norm() * e2.norm() * d.norm() {
        return None;
    }
    let s = p - t[0];
    let u = s.dot(&h) / det;
    let qv = s.cross(&e1);
    let v = d.dot(&qv) / det;
    let along = e2.dot(&qv) / det;
    let inside = u >= -SLACK && v >= -SLACK && u + v <= 1.0 + SLACK;
    (inside && (-SLACK..=1.0 + SLACK).contains(&along)).then(|| p + along * d)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_segment_through_a_triangle_is_found_and_one_beside_it_is_not() {
        let t = [Vector3::new(0.0, 0.0, 0.0), Vector3::new(1.0, 0.0, 0.0), Vector3::new(0.0, 1.0, 0.0)];
        let hit = segment_triangle(&Vector3::new(0.2, 0.2, -1.0), &Vector3::new(0.2, 0.2, 1.0), &t);
        assert!((hit.unwrap() - Vector3::new(0.2, 0.2, 0.0)).norm() < 1e-15);
        assert!(segment_triangle(&Vector3::new(0.6, 0.6, -1.0), &Vector3::new(0.6, 0.6, 1.0), &t).is_none());
        assert!(segment_triangle(&Vector3::new(0.2, 0.2, 0.5), &Vector3::new(0.2, 0.2, 1.0), &t).is_none());
    }
}
