//! Simple polygons in the plane: triangulation by ear clipping and extrusion into a closed prism
//! mesh, for prisms whose profile is not convex (L-brackets, notched logs, T-beams).

use nalgebra::Vector3;

/// Why a profile cannot be triangulated.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum PolygonError {
    #[error("a polygon needs at least 3 points, got {0}")]
    TooFew(usize),
    #[error("the polygon encloses no area")]
    NoArea,
    #[error("the polygon is not simple (its edges cross or touch): no ear left among points {0:?}")]
    NotSimple(Vec<usize>),
}

/// Vertices and outward triangles of a closed surface.
pub type Surface = (Vec<Vector3<f64>>, Vec<[usize; 3]>);

fn cross(o: [f64; 2], a: [f64; 2], b: [f64; 2]) -> f64 {
    (a[0] - o[0]) * (b[1] - o[1]) - (a[1] - o[1]) * (b[0] - o[0])
}

/// Twice the signed area (positive counter-clockwise).
fn doubled_area(p: &[[f64; 2]]) -> f64 {
    (0..p.len()).map(|i| cross([0.0, 0.0], p[i], p[(i + 1) % p.len()])).sum()
}

/// Triangles of a simple polygon (either orientation), counter-clockwise, as indices into `p`.
/// Ear clipping, O(n²): fine for hand-written profiles.
pub fn triangulate(p: &[[f64; 2]]) -> Result<Vec<[usize; 3]>, PolygonError> {
    if p.len() < 3 {
        return Err(PolygonError::TooFew(p.len()));
    }
    let area = doubled_area(p);
    let scale = p.iter().map(|q| q[0].abs().max(q[1].abs())).fold(0.0, f64::max);
    if area.is_nan() || area.abs() <= 1e-12 * scale * scale {
        return Err(PolygonError::NoArea);
    }
    let mut left: Vec<usize> = if area > 0.0 { (0..p.len()).collect() } else { (0..p.len()).rev().collect() };
    let mut tris = Vec::with_capacity(p.len() - 2);
    while left.len() > 3 {
        let n = left.len();
        let ear = (0..n).find(|&k| {
            let (a, b, c) = (left[(k + n - 1) % n], left[k], left[(k + 1) % n]);
            // A strictly convex corner whose triangle holds no other remaining point.
            let eps = 1e-12 * scale * scale;
            cross(p[a], p[b], p[c]) > eps
                && left.iter().all(|&o| o == a || o == b || o == c || !in_triangle(p[o], p[a], p[b], p[c], eps))
        });
        let Some(k) = ear else {
            return Err(PolygonError::NotSimple(left));
        };
        tris.push([left[(k + n - 1) % n], left[k], left[(k + 1) % n]]);
        left.remove(k);
    }
    tris.push([left[0], left[1], left[2]]);
    Ok(tris)
}

/// Whether `x` lies in the counter-clockwise triangle `(a, b, c)` or within `eps` (a doubled
/// area) of its boundary: a point on the cut `c a`, up to rounding, must stop the cut, or the
/// last triangle left may be flat.
fn in_triangle(x: [f64; 2], a: [f64; 2], b: [f64; 2], c: [f64; 2], eps: f64) -> bool {
    cross(a, b, x) >= -eps && cross(b, c, x) >= -eps && cross(c, a, x) >= -eps
}

/// The closed surface of the simple polygon `p` (xy plane) extruded from `z = -half_length` to
/// `z = +half_length`, outward oriented: vertices (bottom ring, then top ring) and triangles.
pub fn extrude(p: &[[f64; 2]], half_length: f64) -> Result<Surface, PolygonError> {
    let caps = triangulate(p)?;
    let n = p.len();
    let ccw = doubled_area(p) > 0.0;
    let vertices: Vec<Vector3<f64>> =
        [-half_length, half_length].iter().flat_map(|&z| p.iter().map(move |q| Vector3::new(q[0], q[1], z))).collect();
    let mut triangles: Vec<[usize; 3]> = Vec::with_capacity(2 * caps.len() + 2 * n);
    for t in &caps {
        triangles.push([t[0], t[2], t[1]]); // bottom faces -z
        triangles.push([n + t[0], n + t[1], n + t[2]]);
    }
    for k in 0..n {
        // Walls: counter-clockwise profile edges (k, k + 1) face outward to their right.
        let (a, b) = if ccw { (k, (k + 1) % n) } else { ((k + 1) % n, k) };
        triangles.push([a, b, n + b]);
        triangles.push([a, n + b, n + a]);
    }
    Ok((vertices, triangles))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_l_profile_is_cut_into_four_triangles_covering_its_area() {
        let l = [[0.0, 0.0], [3.0, 0.0], [3.0, 1.0], [1.0, 1.0], [1.0, 3.0], [0.0, 3.0]];
        for profile in [l.to_vec(), l.iter().rev().copied().collect()] {
            let tris = triangulate(&profile).unwrap();
            assert_eq!(tris.len(), 4);
            let area: f64 = tris.iter().map(|t| 0.5 * cross(profile[t[0]], profile[t[1]], profile[t[2]])).sum();
            // Every triangle counter-clockwise, and together exactly the L's area 5.
            assert!(tris.iter().all(|t| cross(profile[t[0]], profile[t[1]], profile[t[2]]) > 0.0));
            assert!((area - 5.0).abs() < 1e-12, "{area}");
        }
    }

    #[test]
    fn a_notched_log_with_collinear_corners_gets_no_flat_triangle() {
        // The Lincoln log of scripts/nonconvex_scenes.py: corners (0.255, 0.0075), (0.285, 0.0225)
        // and (0.3, 0.03) lie on one line.
        let (a, w, q, l, h) = (0.015, 0.03, 0.0075, 0.3, 0.03);
        let b = l - a - w;
        let p = [
            [0.0, 0.0],
            [a, 0.0],
            [a, q],
            [a + w, q],
            [a + w, 0.0],
            [b, 0.0],
            [b, q],
            [b + w, q],
            [b + w, 0.0],
            [l, 0.0],
            [l, h],
            [b + w, h],
            [b + w, h - q],
            [b, h - q],
            [b, h],
            [a + w, h],
            [a + w, h - q],
            [a, h - q],
            [a, h],
            [0.0, h],
        ];
        let tris = triangulate(&p).unwrap();
        assert_eq!(tris.len(), p.len() - 2);
        assert!(tris.iter().all(|t| cross(p[t[0]], p[t[1]], p[t[2]]) > 1e-9), "{tris:?}");
    }

    #[test]
    fn a_bow_tie_is_not_simple() {
        assert!(triangulate(&[[0.0, 0.0], [1.0, 1.0], [1.0, 0.0], [0.0, 1.0]]).is_err());
        assert_eq!(triangulate(&[[0.0, 0.0], [1.0, 1.0]]), Err(PolygonError::TooFew(2)));
        assert_eq!(triangulate(&[[0.0, 0.0], [1.0, 1.0], [2.0, 2.0]]), Err(PolygonError::NoArea));
    }
}
