//! Spheres and capsules against boxes and convex meshes, through the exact signed distance from a
//! point to a convex polyhedron.
//!
//! The signed distance to a convex set is a convex function of the point, hence of the parameter
//! along a capsule's segment: its minimum is found by golden-section search, and the sub-segment
//! within the margin by bisection, with no case analysis of features.

use super::ContactGeometry;
use super::polyhedral::PosedHull;
use nalgebra::Vector3;

/// Below this |cos| between the capsule axis and the surface normal at the closest point, the
/// capsule counts as lying along the surface and gets two points (the ends of the part within the
/// margin), so it does not rock on one point; 0.05 (about 3 degrees) covers resting capsules
/// perturbed by a solver's drift, and a steeper capsule touches at one point.
const LYING_COS: f64 = 0.05;

/// Golden-section iterations: the bracket shrinks by 0.618 each, so 80 reach 1e-17 of the
/// segment length, below rounding.
const GOLDEN_ITERATIONS: usize = 80;

/// Signed distance from `p` to the hull (negative inside), the closest surface point, and the
/// outward unit normal there (the gradient of the distance).
pub fn point_hull(h: &PosedHull, p: &Vector3<f64>) -> (f64, Vector3<f64>, Vector3<f64>) {
    // Inside a convex polyhedron the distance is the largest face-plane distance.
    let (mut best, mut face) = (f64::NEG_INFINITY, 0);
    for f in 0..h.normals.len() {
        let n = h.normals[f];
        let d = n.dot(p) - h.face_offset(f, &n);
        if d > best {
            (best, face) = (d, f);
        }
    }
    if best <= 0.0 {
        let n = h.normals[face];
        return (best, p - best * n, n);
    }
    // Outside: the nearest point over the surface triangles.
    let mut q = h.verts[0];
    let mut d2 = f64::INFINITY;
    for t in &h.hull.triangles {
        let c = closest_on_triangle(p, &h.verts[t[0]], &h.verts[t[1]], &h.verts[t[2]]);
        let e = (p - c).norm_squared();
        if e < d2 {
            (q, d2) = (c, e);
        }
    }
    let d = d2.sqrt();
    // A face plane is at distance `best` > 0, so d >= best > 0 and the division is safe.
    (d, q, (p - q) / d)
}

/// Closest point of triangle (a, b, c) to `p` (Ericson, Real-Time Collision Detection §5.1.5).
fn closest_on_triangle(p: &Vector3<f64>, a: &Vector3<f64>, b: &Vector3<f64>, c: &Vector3<f64>) -> Vector3<f64> {
    let (ab, ac, ap) = (b - a, c - a, p - a);
    let (d1, d2) = (ab.dot(&ap), ac.dot(&ap));
    if d1 <= 0.0 && d2 <= 0.0 {
        return *a;
    }
    let bp = p - b;
    let (d3, d4) = (ab.dot(&bp), ac.dot(&bp));
    if d3 >= 0.0 && d4 <= d3 {
        return *b;
    }
    let vc = d1 * d4 - d3 * d2;
    if vc <= 0.0 && d1 >= 0.0 && d3 <= 0.0 {
        return a + ab * (d1 / (d1 - d3));
    }
    let cp = p - c;
    let (d5, d6) = (ab.dot(&cp), ac.dot(&cp));
    if d6 >= 0.0 && d5 <= d6 {
        return *c;
    }
    let vb = d5 * d2 - d1 * d6;
    if vb <= 0.0 && d2 >= 0.0 && d6 <= 0.0 {
        return a + ac * (d2 / (d2 - d6));
    }
    let va = d3 * d6 - d5 * d4;
    if va <= 0.0 && d4 - d3 >= 0.0 && d5 - d6 >= 0.0 {
        return b + (c - b) * ((d4 - d3) / ((d4 - d3) + (d5 - d6)));
    }
    let denom = 1.0 / (va + vb + vc);
    a + ab * (vb * denom) + ac * (vc * denom)
}

/// Minimizer of the convex function `f` on `[lo, hi]` by golden-section search.
fn argmin(f: &dyn Fn(f64) -> f64, mut lo: f64, mut hi: f64) -> f64 {
    const R: f64 = 0.618_033_988_749_894_9;
    let (mut x1, mut x2) = (hi - R * (hi - lo), lo + R * (hi - lo));
    let (mut f1, mut f2) = (f(x1), f(x2));
    for _ in 0..GOLDEN_ITERATIONS {
        // Ties keep the left part, so a flat minimum resolves to a deterministic point.
        if f1 <= f2 {
            (hi, x2, f2) = (x2, x1, f1);
            x1 = hi - R * (hi - lo);
            f1 = f(x1);
        } else {
            (lo, x1, f1) = (x1, x2, f2);
            x2 = lo + R * (hi - lo);
            f2 = f(x2);
        }
    }
    0.5 * (lo + hi)
}

/// Capsule A (center `c`, unit axis `axis`, half length `h`, radius `r`; a sphere when `h` = 0)
/// against hull B. One point at the closest point of the segment; but when that point's nearest
/// hull feature is a face and the capsule lies along it, the segment clipped to the face's prism
/// gives two points (its ends, each kept while its gap is below the margin), so a lying capsule
/// does not rock on one point.
pub fn capsule_hull(
    c: &Vector3<f64>,
    axis: &Vector3<f64>,
    h: f64,
    r: f64,
    hull: &PosedHull,
    margin: f64,
) -> Vec<ContactGeometry> {
    let at = |s: f64| c + axis * s;
    let f = |s: f64| point_hull(hull, &at(s)).0;
    let s0 = if h > 0.0 { argmin(&f, -h, h) } else { 0.0 };
    let p0 = at(s0);
    let (d0, q0, n0) = point_hull(hull, &p0);
    if d0 - r >= margin {
        return Vec::new();
    }
    let single = vec![ContactGeometry::from_witnesses(p0 - r * n0, q0, n0)];
    if h == 0.0 || axis.dot(&n0).abs() >= LYING_COS {
        return single;
    }
    // The nearest feature is a face when the distance gradient is that face's normal (1e-9:
    // rounding of the closest point; an edge's normal differs from both faces' by its angle).
    let Some(face) = (0..hull.normals.len()).find(|&k| hull.normals[k].dot(&n0) > 1.0 - 1e-9) else {
        return single;
    };
    let n = hull.normals[face];
    let offset = hull.face_offset(face, &n);
    // Clip s in [-h, h] to the prism over the face: side · (c + s axis) <= side · p for each edge.
    let poly = &hull.hull.faces[face].polygon;
    let (mut lo, mut hi) = (-h, h);
    for k in 0..poly.len() {
        let (p, q) = (hull.verts[poly[k]], hull.verts[poly[(k + 1) % poly.len()]]);
        let side = (q - p).cross(&n);
        let (rate, slack) = (side.dot(axis), side.dot(&(p - c)));
        if rate > 0.0 {
            hi = hi.min(slack / rate);
        } else if rate < 0.0 {
            lo = lo.max(slack / rate);
        }
    }
    // A clipped part shorter than 1e-9 of the capsule is the single point.
    if hi - lo <= 1e-9 * h {
        return single;
    }
    [lo, hi]
        .iter()
        .map(|&s| {
            let x = at(s);
            let depth = n.dot(&x) - offset;
            ContactGeometry::from_witnesses(x - r * n, x - depth * n, n)
        })
        .filter(|g| g.gap < margin)
        .collect()
}
