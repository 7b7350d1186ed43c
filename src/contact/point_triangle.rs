//! Point–triangle proximity: the closest feature (face interior, edge, vertex) found in f64, then
//! the signed gap, unit normal and barycentric weights evaluated generically over the AD scalar
//! for that feature, so contact kernels get exact derivatives.
//!
//! The gap gradient with respect to the stencil `(x, p0, p1, p2)` is `(n, -w0 n, -w1 n, -w2 n)` for
//! every feature (envelope theorem on the closest point), which is what the kernels use.

use super::vec3::{Scalar, V3, add, cross, dot, norm, scale, sub};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Feature {
    Face,
    /// Edge from vertex `k` to vertex `(k + 1) % 3`.
    Edge(u8),
    Vertex(u8),
}

/// Barycentric slack within which a projection counts as inside the triangle. A point exactly
/// above an edge shared by two coplanar triangles must get the face's (smooth) plane distance from
/// either of them, not the edge's, whose normal `(x - c)/|x - c|` has the spurious derivative
/// `(I - n n^T)/d` there; rounding must not decide between the two.
const INSIDE_SLACK: f64 = 1e-9;

/// Closest feature of triangle `t` to point `x` and the squared distance (Ericson, Real-Time
/// Collision Detection §5.1.5, region tests on barycentric coordinates), with projections on the
/// triangle's boundary (within [`INSIDE_SLACK`]) counted as the face.
pub fn closest_feature(x: [f64; 3], t: &[[f64; 3]; 3]) -> (Feature, f64) {
    let (a, b, c) = (t[0], t[1], t[2]);
    let ab = sub(b, a);
    let ac = sub(c, a);
    let ap = sub(x, a);
    let (d00, d01, d11) = (dot(ab, ab), dot(ab, ac), dot(ac, ac));
    let denom = d00 * d11 - d01 * d01;
    if denom > 0.0 {
        let (d20, d21) = (dot(ap, ab), dot(ap, ac));
        let w1 = (d11 * d20 - d01 * d21) / denom;
        let w2 = (d00 * d21 - d01 * d20) / denom;
        if w1 >= -INSIDE_SLACK && w2 >= -INSIDE_SLACK && 1.0 - w1 - w2 >= -INSIDE_SLACK {
            let n = cross(ab, ac);
            let h = dot(ap, n);
            return (Feature::Face, h * h / dot(n, n));
        }
    }
    let d1 = dot(ab, ap);
    let d2 = dot(ac, ap);
    let dist2 = |p: [f64; 3]| {
        let d = sub(x, p);
        dot(d, d)
    };
    if d1 <= 0.0 && d2 <= 0.0 {
        return (Feature::Vertex(0), dist2(a));
    }
    let bp = sub(x, b);
    let d3 = dot(ab, bp);
    let d4 = dot(ac, bp);
    if d3 >= 0.0 && d4 <= d3 {
        return (Feature::Vertex(1), dist2(b));
    }
    let vc = d1 * d4 - d3 * d2;
    if vc <= 0.0 && d1 >= 0.0 && d3 <= 0.0 {
        let v = d1 / (d1 - d3);
        return (Feature::Edge(0), dist2(add(a, scale(ab, v))));
    }
    let cp = sub(x, c);
    let d5 = dot(ab, cp);
    let d6 = dot(ac, cp);
    if d6 >= 0.0 && d5 <= d6 {
        return (Feature::Vertex(2), dist2(c));
    }
    let vb = d5 * d2 - d1 * d6;
    if vb <= 0.0 && d2 >= 0.0 && d6 <= 0.0 {
        let w = d2 / (d2 - d6);
        return (Feature::Edge(2), dist2(add(a, scale(ac, w))));
    }
    let va = d3 * d6 - d5 * d4;
    if va <= 0.0 && (d4 - d3) >= 0.0 && (d5 - d6) >= 0.0 {
        let w = (d4 - d3) / ((d4 - d3) + (d5 - d6));
        return (Feature::Edge(1), dist2(add(b, scale(sub(c, b), w))));
    }
    let inv = 1.0 / (va + vb + vc);
    (Feature::Face, dist2(add(a, add(scale(ab, vb * inv), scale(ac, vc * inv)))))
}

/// The point of triangle `t` nearest to `x`, given its closest `feature` (from
/// [`closest_feature`]).
pub fn closest_point(feature: Feature, x: [f64; 3], t: &[[f64; 3]; 3]) -> [f64; 3] {
    let w = evaluate::<f64>(feature, 1.0, x, t).weights;
    std::array::from_fn(|i| w[0] * t[0][i] + w[1] * t[1][i] + w[2] * t[2][i])
}

/// Gap, normal and weights of a point against one triangle feature.
#[derive(Debug, Clone, Copy)]
pub struct Proximity<T> {
    /// Signed gap (positive on the side the normal points to).
    pub gap: T,
    /// Unit normal from the triangle towards the point's side.
    pub normal: V3<T>,
    /// Barycentric weights of the closest point on the triangle.
    pub weights: [T; 3],
}

/// Evaluate the proximity of `x` to triangle `p` (counter-clockwise seen from outside) for a
/// fixed `feature`. For edges and vertices the gap is `sign * |x - c|` with `sign` (+1 outside,
/// -1 inside) decided by the caller from the surrounding faces; on the face it is the plane
/// distance, already signed by the winding.
pub fn evaluate<T: Scalar>(feature: Feature, sign: f64, x: V3<T>, p: &[V3<T>; 3]) -> Proximity<T> {
    let zero = T::from(0.0);
    let one = T::from(1.0);
    let face = || {
        let e0 = sub(p[1], p[0]);
        let e1 = sub(p[2], p[0]);
        let nn = cross(e0, e1);
        let n = scale(nn, norm(nn).recip());
        let xp = sub(x, p[0]);
        let gap = dot(xp, n);
        // Barycentrics of the projection (x - p0 differs from it only along n, orthogonal to e0, e1).
        let (d00, d01, d11) = (dot(e0, e0), dot(e0, e1), dot(e1, e1));
        let (d20, d21) = (dot(xp, e0), dot(xp, e1));
        let inv = (d00 * d11 - d01 * d01).recip();
        let w1 = (d11 * d20 - d01 * d21) * inv;
        let w2 = (d00 * d21 - d01 * d20) * inv;
        Proximity { gap, normal: n, weights: [one - w1 - w2, w1, w2] }
    };
    let towards = |c: V3<T>, weights: [T; 3]| {
        let diff = sub(x, c);
        let dist = norm(diff);
        if dist.re() <= f64::MIN_POSITIVE {
            // The point lies on the feature: the normal is undefined there, use the face's.
            return Proximity { weights, ..face() };
        }
        Proximity { gap: dist * sign, normal: scale(diff, dist.recip() * sign), weights }
    };
    match feature {
        Feature::Face => face(),
        Feature::Edge(k) => {
            let (i, j) = (k as usize, (k as usize + 1) % 3);
            let e = sub(p[j], p[i]);
            let t = dot(sub(x, p[i]), e) / dot(e, e);
            let mut w = [zero; 3];
            w[i] = one - t;
            w[j] = t;
            towards(add(p[i], scale(e, t)), w)
        }
        Feature::Vertex(k) => {
            let mut w = [zero; 3];
            w[k as usize] = one;
            towards(p[k as usize], w)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const TRI: [[f64; 3]; 3] = [[0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0]];

    #[test]
    fn features_and_distances() {
        let cases = [
            ([0.2, 0.2, 0.5], Feature::Face, 0.25),
            ([0.5, -1.0, 0.0], Feature::Edge(0), 1.0),
            ([1.0, 1.0, 0.0], Feature::Edge(1), 0.5),
            ([-1.0, 0.5, 0.0], Feature::Edge(2), 1.0),
            ([-1.0, -1.0, 1.0], Feature::Vertex(0), 3.0),
            ([2.0, 0.0, 0.0], Feature::Vertex(1), 1.0),
            ([0.0, 2.0, 0.0], Feature::Vertex(2), 1.0),
        ];
        for (x, f, d2) in cases {
            let (g, e) = closest_feature(x, &TRI);
            assert_eq!(g, f, "{x:?}");
            assert!((e - d2).abs() < 1e-14, "{x:?}: {e} vs {d2}");
            let p = evaluate(f, 1.0, x, &TRI);
            assert!((p.gap.abs() - d2.sqrt()).abs() < 1e-14);
            // Weights sum to one and reproduce the closest point x - gap * n.
            assert!((p.weights.iter().sum::<f64>() - 1.0).abs() < 1e-14);
            let c: Vec<f64> = (0..3).map(|k| (0..3).map(|j| p.weights[j] * TRI[j][k]).sum()).collect();
            for k in 0..3 {
                assert!((x[k] - p.gap * p.normal[k] - c[k]).abs() < 1e-14);
            }
        }
        // A point exactly above an edge is the face's (smooth plane distance), not the edge's.
        assert_eq!(closest_feature([0.5, 0.0, 0.3], &TRI).0, Feature::Face);
        assert_eq!(closest_feature([0.5, -1e-3, 0.3], &TRI).0, Feature::Edge(0));
        // Below the face the plane distance is negative.
        assert!(evaluate(Feature::Face, 1.0, [0.2, 0.2, -0.1], &TRI).gap < 0.0);
    }
}
