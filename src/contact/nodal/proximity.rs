//! Narrow phase: distances and closest points between a point and a triangle, a point and a
//! segment, and two segments, and the [`NodalContact`] record built from them.
//!
//! Two kinds of query live here. The *distance* functions return the exact minimum (to rounding)
//! and are what CCD relies on. The *feature* functions pick where a contact sits: the closest
//! feature pair, with near-boundary parameters snapped onto the boundary (see [`SNAP`]) so that
//! one physical contact gets one canonical description, and a symmetric choice for parallel
//! segments.

use crate::contact::point_triangle::{Feature, closest_feature, evaluate};
use crate::contact::vec3::{add, cross, dot, scale, sub};

/// Which features a contact is between. The order is also the canonical sort order.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum ContactKind {
    /// A vertex against the interior of a triangle. Nodes `[v, t0, t1, t2]`, weights
    /// `(1, -b0, -b1, -b2)`; features `[v node, triangle index]`.
    VertexFace,
    /// Interior points of two edges. Nodes `[a0, a1, b0, b1]`, weights `(1-s, s, -(1-t), -t)`;
    /// features `[edge a, edge b]` with `a < b`.
    EdgeEdge,
    /// A vertex against the interior of an edge. Nodes `[v, e0, e1, v]`, weights
    /// `(1, -(1-t), -t, 0)`; features `[v node, edge index]`.
    VertexEdge,
    /// Two vertices. Nodes `[v, w, v, v]`, weights `(1, -1, 0, 0)`; features `[v, w]`, `v < w`.
    VertexVertex,
}

impl ContactKind {
    /// Number of meaningful entries in `nodes`/`weights`; the rest repeat `nodes[0]` with weight 0.
    pub fn node_count(self) -> usize {
        match self {
            ContactKind::VertexFace | ContactKind::EdgeEdge => 4,
            ContactKind::VertexEdge => 3,
            ContactKind::VertexVertex => 2,
        }
    }
}

/// One contact between two features, as data (DESIGN.md principle 4). The relative position
/// `p = Σ weights[i] x[nodes[i]]` is the vector from the closest point of the second feature to
/// that of the first; `gap = normal · p − thickness`, where the thickness is the sum of the two
/// features' radii, and `normal` (unit) points from the second feature to the first.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct NodalContact {
    pub nodes: [usize; 4],
    pub weights: [f64; 4],
    pub normal: [f64; 3],
    pub gap: f64,
    pub kind: ContactKind,
    /// The two features (see [`ContactKind`]): with `kind`, a key that identifies the contact
    /// across detections (for warm starts).
    pub features: [usize; 2],
}

impl NodalContact {
    /// `Σ w_i x_i` at positions `x` (node `i` at `x[3 i..]`). Panics if `x` does not hold the
    /// contact's nodes.
    pub fn relative_position(&self, x: &[f64]) -> [f64; 3] {
        let mut p = [0.0; 3];
        for (&n, &w) in self.nodes.iter().zip(&self.weights) {
            for k in 0..3 {
                p[k] += w * x[3 * n + k];
            }
        }
        p
    }

    /// The sort key: kind, then features.
    pub fn key(&self) -> (ContactKind, [usize; 2]) {
        (self.kind, self.features)
    }
}

/// Parameters within this distance of 0 or 1 (barycentric or along an edge, so relative to the
/// primitive's size) are snapped onto the boundary when classifying a contact. Rounding puts
/// parameters of a point on a shared edge some 1e-16 (over the sine of the triangle's smallest
/// angle) to either side; 1e-9 is far above that for any usable triangle, and moving a contact
/// point by 1e-9 of an edge changes nothing physically. Without it the two triangles around an
/// edge, or the two segments around a rod node, would each report their own copy of a contact.
pub const SNAP: f64 = 1e-9;

/// Squared sine of the angle below which two segments count as parallel when placing a contact:
/// the contact goes to the middle of their overlap instead of wherever rounding puts the (then
/// ill-conditioned) closest pair. At that angle (1e-6 rad) the distance varies by at most 1e-6
/// of the segment length over the overlap.
pub const PARALLEL_SIN2: f64 = 1e-12;

/// Squared sine of a triangle's angle below which it counts as degenerate (a segment): its normal
/// would carry a relative error of order ε/sin ≈ 1e-8 there, and its interior is no wider than
/// 1e-8 of its edges, so the boundary edges describe it fully.
const DEGENERATE_SIN2: f64 = 1e-16;

#[inline]
fn lerp(a: [f64; 3], b: [f64; 3], t: f64) -> [f64; 3] {
    add(a, scale(sub(b, a), t))
}

#[inline]
fn norm2(a: [f64; 3]) -> f64 {
    dot(a, a)
}

/// Parameter `t` of the closest point of segment `[a, b]` to `x` and the squared distance.
pub fn point_segment(x: [f64; 3], a: [f64; 3], b: [f64; 3]) -> (f64, f64) {
    let d = sub(b, a);
    let dd = norm2(d);
    let t = if dd > 0.0 { (dot(sub(x, a), d) / dd).clamp(0.0, 1.0) } else { 0.0 };
    (t, norm2(sub(x, lerp(a, b, t))))
}

/// Squared sine of the angle above which two segments are well conditioned for the closed-form
/// closest points: the stationary point's parameters carry a relative error of about ε/sin²,
/// at most 2e-10 here, which changes the distance only in second order.
const WELL_CONDITIONED_SIN2: f64 = 1e-6;

/// Exact closest points `(s, t)` of segments `[p0, p1]` and `[q0, q1]` and the squared distance.
///
/// Well-conditioned pairs (angle above 1e-3 rad) use the clamped stationary point (Ericson,
/// Real-Time Collision Detection §5.1.9). Otherwise the minimum of the convex quadratic over the
/// unit square is either its interior stationary point or on the square's boundary, where it is
/// one of four point–segment problems: all five candidates are evaluated from actual points and
/// the smallest kept, so an ill-conditioned stationary point (nearly parallel segments) can only
/// lose to an accurate boundary candidate, never produce a distance that is too large. The
/// remaining error is in the nearly parallel, crossing case: about `ε^½` of the segment length
/// when the stationary point is lost to rounding (sin² of the angle near ε).
pub fn segment_segment(p0: [f64; 3], p1: [f64; 3], q0: [f64; 3], q1: [f64; 3]) -> (f64, f64, f64) {
    let (d1, d2, r) = (sub(p1, p0), sub(q1, q0), sub(p0, q0));
    let (a, e, b) = (norm2(d1), norm2(d2), dot(d1, d2));
    let dist2 = |s: f64, t: f64| norm2(sub(lerp(p0, p1, s), lerp(q0, q1, t)));
    let denom = a * e - b * b;
    if denom > WELL_CONDITIONED_SIN2 * a * e {
        let (c, f) = (dot(d1, r), dot(d2, r));
        let mut s = ((b * f - c * e) / denom).clamp(0.0, 1.0);
        let mut t = (b * s + f) / e;
        if t < 0.0 {
            t = 0.0;
            s = (-c / a).clamp(0.0, 1.0);
        } else if t > 1.0 {
            t = 1.0;
            s = ((b - c) / a).clamp(0.0, 1.0);
        }
        return (s, t, dist2(s, t));
    }
    let mut best = (0.0, 0.0, f64::INFINITY);
    let mut consider = |s: f64, t: f64| {
        let d = dist2(s, t);
        if d < best.2 {
            best = (s, t, d);
        }
    };
    if denom > 0.0 {
        let (c, f) = (dot(d1, r), dot(d2, r));
        let s = (b * f - c * e) / denom;
        let t = (a * f - b * c) / denom;
        if (0.0..=1.0).contains(&s) && (0.0..=1.0).contains(&t) {
            consider(s, t);
        }
    }
    consider(0.0, point_segment(p0, q0, q1).0);
    consider(1.0, point_segment(p1, q0, q1).0);
    consider(point_segment(q0, p0, p1).0, 0.0);
    consider(point_segment(q1, p0, p1).0, 1.0);
    best
}

/// Where a contact between two segments sits: the exact closest pair, except for (nearly)
/// parallel segments whose projections overlap, where it is the middle of the overlap (a
/// symmetric choice among practically equidistant pairs, see [`PARALLEL_SIN2`]). `closest` is
/// the `(s, t)` of [`segment_segment`] for the same segments.
pub fn segment_segment_contact_params(
    p0: [f64; 3],
    p1: [f64; 3],
    q0: [f64; 3],
    q1: [f64; 3],
    closest: (f64, f64),
) -> (f64, f64) {
    let (d1, d2) = (sub(p1, p0), sub(q1, q0));
    let (a, e) = (norm2(d1), norm2(d2));
    let c = cross(d1, d2);
    if a > 0.0 && e > 0.0 && norm2(c) <= PARALLEL_SIN2 * a * e {
        // Projections of q0, q1 onto p's line, in p's parameter.
        let sq0 = dot(sub(q0, p0), d1) / a;
        let sq1 = dot(sub(q1, p0), d1) / a;
        let lo = sq0.min(sq1).max(0.0);
        let hi = sq0.max(sq1).min(1.0);
        if lo <= hi {
            let s = 0.5 * (lo + hi);
            let t = point_segment(lerp(p0, p1, s), q0, q1).0;
            return (s, t);
        }
    }
    closest
}

fn is_degenerate(t: &[[f64; 3]; 3]) -> bool {
    let (ab, ac) = (sub(t[1], t[0]), sub(t[2], t[0]));
    norm2(cross(ab, ac)) <= DEGENERATE_SIN2 * norm2(ab) * norm2(ac)
}

/// Squared distance from `x` to the (closed) triangle `t`. A degenerate triangle is measured as
/// its three edges. Points within [`crate::contact::point_triangle`]'s inside slack of an edge
/// get the plane distance, which is never larger than the true distance.
pub fn point_triangle_distance2(x: [f64; 3], t: &[[f64; 3]; 3]) -> f64 {
    if is_degenerate(t) {
        return (0..3).map(|k| point_segment(x, t[k], t[(k + 1) % 3]).1).fold(f64::INFINITY, f64::min);
    }
    closest_feature(x, t).1
}

/// The closest feature of a triangle to a point, for placing a contact.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum TriangleFeature {
    /// Interior; barycentric weights of the projection, each at least [`SNAP`].
    Face([f64; 3]),
    /// Edge `k` (vertex `k` to vertex `(k+1) % 3`) at parameter `t` in `(SNAP, 1 - SNAP)`.
    Edge(usize, f64),
    Vertex(usize),
}

/// Closest feature of triangle `t` to `x`: the face when the projection lies inside by at least
/// [`SNAP`] in every barycentric coordinate, otherwise the nearest edge or vertex. Degenerate
/// triangles have no face.
pub fn closest_triangle_feature(x: [f64; 3], t: &[[f64; 3]; 3]) -> TriangleFeature {
    if !is_degenerate(t) {
        let w = evaluate(Feature::Face, 1.0, x, t).weights;
        if w.iter().all(|&b| b >= SNAP) {
            return TriangleFeature::Face(w);
        }
    }
    let mut best = (0, 0.0, f64::INFINITY);
    for k in 0..3 {
        let (s, d) = point_segment(x, t[k], t[(k + 1) % 3]);
        if d < best.2 {
            best = (k, s, d);
        }
    }
    let (k, s, _) = best;
    if s <= SNAP {
        TriangleFeature::Vertex(k)
    } else if s >= 1.0 - SNAP {
        TriangleFeature::Vertex((k + 1) % 3)
    } else {
        TriangleFeature::Edge(k, s)
    }
}

/// Any unit vector orthogonal to `d` (for normals of zero-distance contacts, where every
/// direction is as good as another).
fn any_perpendicular(d: [f64; 3]) -> [f64; 3] {
    let a = d.map(f64::abs);
    let axis = if a[0] <= a[1] && a[0] <= a[2] {
        [1.0, 0.0, 0.0]
    } else if a[1] <= a[2] {
        [0.0, 1.0, 0.0]
    } else {
        [0.0, 0.0, 1.0]
    };
    let c = cross(d, axis);
    let n = norm2(c).sqrt();
    if n > 0.0 { scale(c, 1.0 / n) } else { [0.0, 0.0, 1.0] }
}

/// `p` without its component along `d`: the difference between a point and its closest point in
/// the interior of a segment is orthogonal to the segment, up to rounding that would otherwise
/// dominate the normal at (near) zero distance.
fn orthogonal_part(p: [f64; 3], d: [f64; 3]) -> [f64; 3] {
    let dd = norm2(d);
    if dd > 0.0 { sub(p, scale(d, dot(p, d) / dd)) } else { p }
}

/// `p / |p|`, or `fallback()` when `|p|²` underflows (the features touch).
fn direction(p: [f64; 3], fallback: impl FnOnce() -> [f64; 3]) -> ([f64; 3], f64) {
    let n2 = norm2(p);
    if n2 > f64::MIN_POSITIVE {
        let n = n2.sqrt();
        (scale(p, 1.0 / n), n)
    } else {
        (fallback(), 0.0)
    }
}

impl NodalContact {
    /// Vertex `v` (at `x`) against the interior of triangle `tri` (nodes, positions `t`,
    /// barycentric weights `w` of the projection).
    pub fn vertex_face(
        v: usize,
        tri: (usize, [usize; 3]),
        x: [f64; 3],
        t: &[[f64; 3]; 3],
        w: [f64; 3],
        thickness: f64,
        one_sided: bool,
    ) -> Self {
        // The face normal is exact for an interior closest point, also at zero distance. Two-sided,
        // the vertex is on the side it is on; one-sided, outside is where the normal faces.
        let prox = evaluate(Feature::Face, 1.0, x, t);
        let (normal, dist) =
            if prox.gap < 0.0 && !one_sided { (prox.normal.map(|c| -c), -prox.gap) } else { (prox.normal, prox.gap) };
        let n = tri.1;
        NodalContact {
            nodes: [v, n[0], n[1], n[2]],
            weights: [1.0, -w[0], -w[1], -w[2]],
            normal,
            gap: dist - thickness,
            kind: ContactKind::VertexFace,
            features: [v, tri.0],
        }
    }

    /// Interior points `s` of edge `a` and `t` of edge `b` (`a.0 < b.0` are the edge indices).
    pub fn edge_edge(
        a: (usize, [usize; 2]),
        b: (usize, [usize; 2]),
        pa: [[f64; 3]; 2],
        pb: [[f64; 3]; 2],
        (s, t): (f64, f64),
        thickness: f64,
    ) -> Self {
        let (d1, d2) = (sub(pa[1], pa[0]), sub(pb[1], pb[0]));
        let p = sub(lerp(pa[0], pa[1], s), lerp(pb[0], pb[1], t));
        let c = cross(d1, d2);
        let c2 = norm2(c);
        // Interior closest points of non-parallel segments differ along d1 × d2, which stays
        // accurate when the points meet; parallel ones use the difference itself.
        let normal = if c2 > PARALLEL_SIN2 * norm2(d1) * norm2(d2) {
            let n = scale(c, 1.0 / c2.sqrt());
            if dot(n, p) < 0.0 { n.map(|x| -x) } else { n }
        } else {
            direction(orthogonal_part(p, d1), || any_perpendicular(d1)).0
        };
        NodalContact {
            nodes: [a.1[0], a.1[1], b.1[0], b.1[1]],
            weights: [1.0 - s, s, -(1.0 - t), -t],
            normal,
            gap: dot(normal, p) - thickness,
            kind: ContactKind::EdgeEdge,
            features: [a.0, b.0],
        }
    }

    /// Vertex `v` at `x` against the interior point `t` of edge `e` (index, nodes, positions).
    pub fn vertex_edge(
        v: usize,
        e: (usize, [usize; 2]),
        x: [f64; 3],
        pe: [[f64; 3]; 2],
        t: f64,
        thickness: f64,
    ) -> Self {
        let d = sub(pe[1], pe[0]);
        let (normal, dist) = direction(orthogonal_part(sub(x, lerp(pe[0], pe[1], t)), d), || any_perpendicular(d));
        NodalContact {
            nodes: [v, e.1[0], e.1[1], v],
            weights: [1.0, -(1.0 - t), -t, 0.0],
            normal,
            gap: dist - thickness,
            kind: ContactKind::VertexEdge,
            features: [v, e.0],
        }
    }

    /// Vertex `v` at `xv` against vertex `w` at `xw` (`v < w`).
    pub fn vertex_vertex(v: usize, w: usize, xv: [f64; 3], xw: [f64; 3], thickness: f64) -> Self {
        let (normal, dist) = direction(sub(xv, xw), || [0.0, 0.0, 1.0]);
        NodalContact {
            nodes: [v, w, v, v],
            weights: [1.0, -1.0, 0.0, 0.0],
            normal,
            gap: dist - thickness,
            kind: ContactKind::VertexVertex,
            features: [v, w],
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    use crate::test_rng::symmetric as uniform;
    fn point(seed: &mut u64) -> [f64; 3] {
        [uniform(seed), uniform(seed), uniform(seed)]
    }

    /// Reference segment distance: golden-section search on s of the exact point–segment
    /// distance, which is convex in s.
    fn reference_segments(p0: [f64; 3], p1: [f64; 3], q0: [f64; 3], q1: [f64; 3]) -> f64 {
        let f = |s: f64| point_segment(lerp(p0, p1, s), q0, q1).1;
        let (mut lo, mut hi) = (0.0f64, 1.0f64);
        let g = 0.5 * (5f64.sqrt() - 1.0);
        for _ in 0..200 {
            let (m1, m2) = (hi - g * (hi - lo), lo + g * (hi - lo));
            if f(m1) < f(m2) { hi = m2 } else { lo = m1 }
        }
        f(0.0).min(f(1.0)).min(f(0.5 * (lo + hi)))
    }

    #[test]
    fn segment_distance_matches_reference_on_random_segments() {
        let mut seed = 1;
        for i in 0..20_000 {
            let (p0, p1, q0) = (point(&mut seed), point(&mut seed), point(&mut seed));
            // Exactly parallel, nearly parallel, and around the conditioning threshold (angles of
            // about 1e-3 rad) of the closed form.
            let q1 = match i % 8 {
                0 => add(q0, scale(sub(p1, p0), 0.7)),
                4 => add(add(q0, scale(sub(p1, p0), -1.3)), scale(point(&mut seed), 1e-7)),
                2 | 6 => add(add(q0, scale(sub(p1, p0), 0.9)), scale(point(&mut seed), 1e-3)),
                _ => point(&mut seed),
            };
            let (s, t, d2) = segment_segment(p0, p1, q0, q1);
            let r = reference_segments(p0, p1, q0, q1);
            assert!((d2.sqrt() - r.sqrt()).abs() <= 1e-12, "case {i}: {} vs {}", d2.sqrt(), r.sqrt());
            assert!((0.0..=1.0).contains(&s) && (0.0..=1.0).contains(&t));
            assert!((norm2(sub(lerp(p0, p1, s), lerp(q0, q1, t))) - d2).abs() <= 1e-15);
        }
    }

    #[test]
    fn parallel_collinear_and_degenerate_segments() {
        let (o, x) = ([0.0; 3], [1.0, 0.0, 0.0]);
        // (second segment's ends, distance, contact parameters)
        type Case = ([f64; 3], [f64; 3], f64, Option<(f64, f64)>);
        let cases: &[Case] = &[
            // Parallel, overlapping [0.5, 1]: contact in the middle of the overlap.
            ([0.5, 0.3, 0.0], [2.0, 0.3, 0.0], 0.3, Some((0.75, 0.25 / 1.5))),
            // Anti-parallel, same overlap.
            ([2.0, 0.3, 0.0], [0.5, 0.3, 0.0], 0.3, Some((0.75, 1.25 / 1.5))),
            // Collinear, overlapping.
            ([0.25, 0.0, 0.0], [0.75, 0.0, 0.0], 0.0, Some((0.5, 0.5))),
            // Collinear, disjoint: end to end.
            ([1.5, 0.0, 0.0], [3.0, 0.0, 0.0], 0.5, Some((1.0, 0.0))),
            // Parallel, no overlap.
            ([-2.0, 1.0, 0.0], [-1.0, 1.0, 0.0], 2f64.sqrt(), Some((0.0, 1.0))),
            // Crossing.
            ([0.5, -1.0, 0.2], [0.5, 1.0, 0.2], 0.2, Some((0.5, 0.5))),
            // A zero-length second segment (a point).
            ([0.3, 0.4, 0.0], [0.3, 0.4, 0.0], 0.4, Some((0.3, 0.0))),
        ];
        for &(q0, q1, dist, params) in cases {
            let (_, _, d2) = segment_segment(o, x, q0, q1);
            assert!((d2.sqrt() - dist).abs() < 1e-15, "{q0:?} {q1:?}: {}", d2.sqrt());
            if let Some((s, t)) = params {
                let (s0, t0, _) = segment_segment(o, x, q0, q1);
                let (cs, ct) = segment_segment_contact_params(o, x, q0, q1, (s0, t0));
                assert!((cs - s).abs() < 1e-15 && (ct - t).abs() < 1e-15, "{q0:?} {q1:?}: ({cs}, {ct})");
            }
        }
        // Both segments are points.
        assert_eq!(segment_segment(o, o, x, x).2, 1.0);
        // Parallel edges at zero distance still get a unit normal orthogonal to them.
        let c = NodalContact::edge_edge(
            (0, [0, 1]),
            (1, [2, 3]),
            [o, x],
            [[0.2, 0.0, 0.0], [0.9, 0.0, 0.0]],
            (0.55, 0.5),
            0.1,
        );
        assert!((norm2(c.normal) - 1.0).abs() < 1e-15 && c.normal[0] == 0.0 && (c.gap + 0.1).abs() < 1e-16, "{c:?}");
    }

    /// Reference point–triangle distance: plane distance if the projection is inside, else the
    /// nearest edge (exact point–segment).
    fn reference_triangle(x: [f64; 3], t: &[[f64; 3]; 3]) -> f64 {
        let edges = (0..3).map(|k| point_segment(x, t[k], t[(k + 1) % 3]).1).fold(f64::INFINITY, f64::min);
        let w = evaluate(Feature::Face, 1.0, x, t);
        if w.weights.iter().all(|&b| b >= 0.0) { edges.min(w.gap * w.gap) } else { edges }
    }

    #[test]
    fn point_triangle_matches_reference_and_weights_rebuild_the_point() {
        let mut seed = 2;
        for i in 0..20_000 {
            let t = [point(&mut seed), point(&mut seed), point(&mut seed)];
            let x = scale(point(&mut seed), 1.5);
            let d2 = point_triangle_distance2(x, &t);
            let r = reference_triangle(x, &t);
            assert!((d2.sqrt() - r.sqrt()).abs() <= 1e-12, "case {i}");
            // The contact built from the closest feature reproduces the distance and its normal
            // points from the triangle to the vertex.
            let c = match closest_triangle_feature(x, &t) {
                TriangleFeature::Face(w) => NodalContact::vertex_face(0, (0, [1, 2, 3]), x, &t, w, 0.0, false),
                TriangleFeature::Edge(k, s) => {
                    NodalContact::vertex_edge(0, (0, [1 + k, 1 + (k + 1) % 3]), x, [t[k], t[(k + 1) % 3]], s, 0.0)
                }
                TriangleFeature::Vertex(k) => NodalContact::vertex_vertex(0, 1 + k, x, t[k], 0.0),
            };
            let pos: Vec<f64> = [x, t[0], t[1], t[2]].concat();
            let p = c.relative_position(&pos);
            assert!((c.gap - r.sqrt()).abs() <= 1e-12, "case {i}: {:?} gap {} vs {}", c.kind, c.gap, r.sqrt());
            assert!((dot(c.normal, p) - c.gap).abs() <= 1e-12);
            assert!(norm2(sub(p, scale(c.normal, c.gap))) <= 1e-20, "p is along the normal");
        }
    }

    #[test]
    fn snapping_and_degenerate_triangles() {
        let t = [[0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0]];
        // Above the interior: face.
        assert!(matches!(closest_triangle_feature([0.2, 0.2, 0.1], &t), TriangleFeature::Face(_)));
        // Exactly above an edge, or within SNAP of it on either side: the edge.
        for y in [0.0, 1e-12, -1e-12] {
            assert!(
                matches!(closest_triangle_feature([0.5, y, 0.1], &t), TriangleFeature::Edge(0, s) if (s - 0.5).abs() < 1e-15)
            );
        }
        // Above a corner: the vertex.
        assert_eq!(closest_triangle_feature([1e-12, 1e-12, 0.3], &t), TriangleFeature::Vertex(0));
        assert_eq!(closest_triangle_feature([1.2, -0.1, 0.0], &t), TriangleFeature::Vertex(1));
        // A collinear triangle is its edges.
        let line = [[0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [2.0, 0.0, 0.0]];
        assert!(matches!(closest_triangle_feature([1.5, 0.5, 0.0], &line), TriangleFeature::Edge(_, _)));
        assert_eq!(point_triangle_distance2([1.5, 0.5, 0.0], &line), 0.25);
        let point = [[1.0, 1.0, 1.0]; 3];
        assert_eq!(point_triangle_distance2([1.0, 1.0, 3.0], &point), 4.0);
        assert_eq!(closest_triangle_feature([1.0, 1.0, 3.0], &point), TriangleFeature::Vertex(0));
        // Zero-distance contacts still have unit normals.
        let c = NodalContact::vertex_face(9, (0, [0, 1, 2]), [0.2, 0.2, 0.0], &t, [0.6, 0.2, 0.2], 0.0, false);
        assert_eq!((c.normal, c.gap), ([0.0, 0.0, 1.0], 0.0));
        // A vertex a hair behind a face: two-sided it is on the back, one-sided it is inside.
        let behind = [0.2, 0.2, -1e-6];
        let c = NodalContact::vertex_face(9, (0, [0, 1, 2]), behind, &t, [0.6, 0.2, 0.2], 0.0, false);
        assert_eq!((c.normal, c.gap), ([0.0, 0.0, -1.0], 1e-6));
        let c = NodalContact::vertex_face(9, (0, [0, 1, 2]), behind, &t, [0.6, 0.2, 0.2], 0.0, true);
        assert_eq!((c.normal, c.gap), ([0.0, 0.0, 1.0], -1e-6));
        let c = NodalContact::vertex_edge(9, (0, [0, 1]), [0.5, 0.0, 0.0], [t[0], t[1]], 0.5, 0.0);
        assert!((norm2(c.normal) - 1.0).abs() < 1e-15 && c.normal[0] == 0.0);
        let c = NodalContact::vertex_vertex(1, 2, [0.5; 3], [0.5; 3], 1e-3);
        assert_eq!((norm2(c.normal), c.gap), (1.0, -1e-3));
    }
}
