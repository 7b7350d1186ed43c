//! Contacts between convex polyhedra (boxes, convex meshes, and cylinders as inscribed prisms) by
//! the separating axis test, and of a polyhedron with a plane.
//!
//! Why SAT with clipping rather than GJK/EPA: resting stacks and card houses need a *manifold*
//! (up to 4 points spanning the contact face) that stays the same from step to step; GJK/EPA gives
//! one deepest point per call and needs persistent manifolds across steps to build one, whereas
//! clipping the incident face against the reference face gives the whole face contact at once,
//! deterministically. For a box the candidate axes are the 3 + 3 face normals and the 3 x 3 edge
//! cross products (the classic 15 axes); a mesh contributes its face normals and its distinct edge
//! directions. The cost is O(axes x vertices), fine for the small hulls of rigid bodies.

use super::ContactGeometry;
use crate::rigid::hull::ConvexMesh;
use crate::rigid::shape::{RigidShape, tangent_basis};
use nalgebra::{Isometry3, Vector3};
use std::sync::LazyLock;

/// The unit cube's hull: a box reuses its topology and normals, scaling the vertices by the half
/// extents (a positive axis scaling keeps the face normals of a box).
static UNIT_CUBE: LazyLock<ConvexMesh> = LazyLock::new(|| ConvexMesh::cuboid(&Vector3::new(1.0, 1.0, 1.0)));

/// Sides of the polygonal cylinder used where a cylinder meets a polyhedron, a capsule or another
/// cylinder: the inscribed 32-gon is within r (1 - cos(π/32)) = 0.0048 r of the circle.
pub const CYLINDER_SEGMENTS: usize = 32;

/// Largest distance between a round cylinder of radius `r` and its inscribed prism, r (1 - cos(π/N)).
pub fn cylinder_sag(r: f64) -> f64 {
    r * (1.0 - (std::f64::consts::PI / CYLINDER_SEGMENTS as f64).cos())
}

/// The unit cylinder's polygonal hull (radius 1, half length 1), scaled by (r, r, h): a scaling
/// equal in x and y keeps the side normals radial and the cap normals axial.
static UNIT_CYLINDER: LazyLock<ConvexMesh> = LazyLock::new(|| {
    let (v, t) = RigidShape::Cylinder { radius: 1.0, half_length: 1.0 }.tessellate(CYLINDER_SEGMENTS);
    ConvexMesh::new(v, t).expect("the tessellated cylinder is a convex hull")
});

/// A box, convex mesh or (polygonal) cylinder placed in the world: hull topology plus world vertices.
pub struct PosedHull<'a> {
    pub(super) hull: &'a ConvexMesh,
    pub(super) pose: Isometry3<f64>,
    /// World vertices.
    pub(super) verts: Vec<Vector3<f64>>,
    /// World face normals (computed once: every axis test and the clipping use them).
    pub(super) normals: Vec<Vector3<f64>>,
    /// Bounding radius, the length scale of the tolerances.
    pub(super) radius: f64,
}

impl<'a> PosedHull<'a> {
    /// `None` for spheres and capsules; a cylinder becomes its inscribed polygonal prism.
    pub fn new(shape: &'a RigidShape, pose: &Isometry3<f64>) -> Option<PosedHull<'a>> {
        let (hull, scale) = match shape {
            RigidShape::Box { half } => (&*UNIT_CUBE, *half),
            RigidShape::Cylinder { radius, half_length } => {
                (&*UNIT_CYLINDER, Vector3::new(*radius, *radius, *half_length))
            }
            RigidShape::ConvexMesh(m) => (m, Vector3::new(1.0, 1.0, 1.0)),
            _ => return None,
        };
        let verts =
            hull.vertices.iter().map(|v| pose.transform_point(&v.component_mul(&scale).into()).coords).collect();
        let normals = hull.faces.iter().map(|f| pose.rotation * f.normal).collect();
        Some(PosedHull { hull, pose: *pose, verts, normals, radius: shape.bounding_radius() })
    }

    pub(super) fn face_normal(&self, f: usize) -> Vector3<f64> {
        self.normals[f]
    }

    pub(super) fn face_offset(&self, f: usize, n: &Vector3<f64>) -> f64 {
        n.dot(&self.verts[self.hull.faces[f].polygon[0]])
    }

    /// (min, max) of the vertices' projections on `axis`.
    fn extent(&self, axis: &Vector3<f64>) -> (f64, f64) {
        self.verts.iter().fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), v| {
            let p = axis.dot(v);
            (lo.min(p), hi.max(p))
        })
    }

    /// Largest separation of `other` from this hull's face planes: (separation, face).
    fn best_face(&self, other: &PosedHull) -> (f64, usize) {
        let mut best = (f64::NEG_INFINITY, 0);
        for f in 0..self.hull.faces.len() {
            let n = self.face_normal(f);
            let s = other.extent(&n).0 - self.face_offset(f, &n);
            if s > best.0 {
                best = (s, f);
            }
        }
        best
    }

    /// The feature edge parallel to `dir` that is extremal along `n` (lowest if `lowest`).
    fn support_edge(&self, dir: &Vector3<f64>, n: &Vector3<f64>, lowest: bool) -> (Vector3<f64>, Vector3<f64>) {
        let sign = if lowest { 1.0 } else { -1.0 };
        let mut best = (f64::INFINITY, [0, 0]);
        for e in &self.hull.edges {
            let (p, q) = (self.verts[e[0]], self.verts[e[1]]);
            let d = q - p;
            // Parallel within 1e-9 rad² (as the directions were deduplicated).
            if d.cross(dir).norm_squared() > 1e-18 * d.norm_squared() {
                continue;
            }
            let h = sign * n.dot(&(p + q));
            if h < best.0 {
                best = (h, *e);
            }
        }
        (self.verts[best.1[0]], self.verts[best.1[1]])
    }
}

/// A face axis must beat another candidate by this fraction of the bounding radius to be
/// preferred over A's face (so ties and rounding do not flip the reference face between steps);
/// edge axes must beat the best face axis by the same margin, since a face contact is the stable
/// one whenever both describe the configuration.
const AXIS_BIAS: f64 = 1e-5;

/// Contacts between hulls A and B with gap below `margin` (at most 4, deterministic).
pub fn hull_hull(a: &PosedHull, b: &PosedHull, margin: f64) -> Vec<ContactGeometry> {
    let (sep_a, fa) = a.best_face(b);
    if sep_a > margin {
        return Vec::new();
    }
    let (sep_b, fb) = b.best_face(a);
    if sep_b > margin {
        return Vec::new();
    }
    let bias = AXIS_BIAS * (a.radius + b.radius);
    // Best edge-pair axis, oriented from B to A.
    let mut edge: Option<(f64, Vector3<f64>, usize, usize)> = None;
    for (i, ea) in a.hull.edge_directions.iter().enumerate() {
        let ea = a.pose.rotation * ea;
        for (j, eb) in b.hull.edge_directions.iter().enumerate() {
            let eb = b.pose.rotation * eb;
            let axis = ea.cross(&eb);
            let len = axis.norm();
            // Nearly parallel edges: their plane's normal is a face axis already covered.
            if len < 1e-6 {
                continue;
            }
            let axis = axis / len;
            let ((amin, amax), (bmin, bmax)) = (a.extent(&axis), b.extent(&axis));
            let (s, n) = if amin - bmax >= bmin - amax { (amin - bmax, axis) } else { (bmin - amax, -axis) };
            if s > margin {
                return Vec::new();
            }
            if edge.is_none_or(|e| s > e.0) {
                edge = Some((s, n, i, j));
            }
        }
    }
    let face_sep = sep_a.max(sep_b);
    if let Some((s, n, i, j)) = edge
        && s > face_sep + bias
    {
        return edge_contact(a, b, &n, i, j, margin).into_iter().collect();
    }
    if sep_b > sep_a + bias { face_contact(b, fb, a, false, margin) } else { face_contact(a, fa, b, true, margin) }
}

/// Closest points of the two support edges along `n` (from B to A): one contact.
fn edge_contact(
    a: &PosedHull,
    b: &PosedHull,
    n: &Vector3<f64>,
    i: usize,
    j: usize,
    margin: f64,
) -> Option<ContactGeometry> {
    let da = a.pose.rotation * a.hull.edge_directions[i];
    let db = b.pose.rotation * b.hull.edge_directions[j];
    let (pa, qa) = a.support_edge(&da, n, true);
    let (pb, qb) = b.support_edge(&db, n, false);
    let (ca, ua, ha) = ((pa + qa) * 0.5, (qa - pa).normalize(), (qa - pa).norm() * 0.5);
    let (cb, ub, hb) = ((pb + qb) * 0.5, (qb - pb).normalize(), (qb - pb).norm() * 0.5);
    let (s, t) = super::round::segment_segment(&ca, &ua, ha, &cb, &ub, hb);
    let (wa, wb) = (ca + s * ua, cb + t * ub);
    let d = wa - wb;
    // Closest points inside both edges are apart along `n` exactly. When one is clamped to an
    // edge's end (a corner configuration, where the face/edge axes underestimate the distance),
    // a separated pair is reported along its own direction with its true distance, so the
    // witnesses stay on the surfaces; an overlapping pair keeps the SAT axis.
    let normal = if d.dot(n) > 0.0 { d.normalize() } else { *n };
    let g = ContactGeometry::from_witnesses(wa, wb, normal);
    (g.gap < margin).then_some(g)
}

/// Clip the incident face of `inc` against the reference face `f` of `rf`. `ref_is_a` says which
/// of the pair the reference hull is, for the normal's direction (from B to A).
fn face_contact(rf: &PosedHull, f: usize, inc: &PosedHull, ref_is_a: bool, margin: f64) -> Vec<ContactGeometry> {
    let n = rf.face_normal(f);
    let offset = rf.face_offset(f, &n);
    // Incident face: the one most anti-parallel to the reference normal.
    let fi = (0..inc.hull.faces.len())
        .min_by(|&x, &y| inc.face_normal(x).dot(&n).total_cmp(&inc.face_normal(y).dot(&n)))
        .expect("a hull has faces");
    let mut poly: Vec<Vector3<f64>> = inc.hull.faces[fi].polygon.iter().map(|&k| inc.verts[k]).collect();
    let rpoly = &rf.hull.faces[f].polygon;
    for k in 0..rpoly.len() {
        let (p, q) = (rf.verts[rpoly[k]], rf.verts[rpoly[(k + 1) % rpoly.len()]]);
        // Outward normal of the side plane through edge (p, q) of a face counter-clockwise about n.
        let side = (q - p).cross(&n);
        poly = clip(&poly, &side, side.dot(&p));
        if poly.is_empty() {
            break;
        }
    }
    let normal = if ref_is_a { -n } else { n };
    let mut found: Vec<ContactGeometry> = poly
        .iter()
        .filter_map(|x| {
            let depth = n.dot(x) - offset;
            (depth < margin).then(|| {
                let on_ref = x - depth * n;
                if ref_is_a {
                    ContactGeometry::from_witnesses(on_ref, *x, normal)
                } else {
                    ContactGeometry::from_witnesses(*x, on_ref, normal)
                }
            })
        })
        .collect();
    if found.is_empty() && poly.is_empty() {
        // The incident face misses the reference face's prism although no axis separates by the
        // margin (separated corners, where the SAT underestimates the distance, or rounding at a
        // grazing side plane): the incident vertex nearest the reference hull, with its exact
        // closest point, still gives a contact with both witnesses on the surfaces.
        let (d, x, q, m) = inc
            .verts
            .iter()
            .map(|x| {
                let (d, q, m) = super::hull_round::point_hull(rf, x);
                (d, *x, q, m)
            })
            .min_by(|a, b| a.0.total_cmp(&b.0))
            .expect("a hull has vertices");
        if d < margin {
            // `m` points from the reference hull to the incident vertex.
            found.push(if ref_is_a {
                ContactGeometry::from_witnesses(q, x, -m)
            } else {
                ContactGeometry::from_witnesses(x, q, m)
            });
        }
    }
    reduce_manifold(found)
}

/// Sutherland–Hodgman: the part of polygon `poly` with `side · x <= d`.
fn clip(poly: &[Vector3<f64>], side: &Vector3<f64>, d: f64) -> Vec<Vector3<f64>> {
    let mut out = Vec::with_capacity(poly.len() + 2);
    for k in 0..poly.len() {
        let (p, q) = (poly[k], poly[(k + 1) % poly.len()]);
        let (dp, dq) = (side.dot(&p) - d, side.dot(&q) - d);
        if dp <= 0.0 {
            out.push(p);
        }
        if (dp < 0.0 && dq > 0.0) || (dp > 0.0 && dq < 0.0) {
            out.push(p + (q - p) * (dp / (dp - dq)));
        }
    }
    out
}

/// A hull (A) against the half-space below the plane through `p0` with unit normal `n` (B): every
/// vertex with gap below the margin, reduced to at most 4.
pub fn hull_plane(h: &PosedHull, p0: &Vector3<f64>, n: &Vector3<f64>, margin: f64) -> Vec<ContactGeometry> {
    let found = h
        .verts
        .iter()
        .filter_map(|x| {
            let gap = n.dot(&(x - p0));
            (gap < margin).then(|| ContactGeometry::from_witnesses(*x, x - gap * n, *n))
        })
        .collect();
    reduce_manifold(found)
}

/// Reduces a contact set to at most 4 points spanning it, deterministically (ties go to the
/// earlier point): the deepest point, the point farthest from it, then the points with the largest
/// positive and negative area of the triangle they form with those two (in the plane of the first
/// normal). The kept points stay in their input order.
pub fn reduce_manifold(found: Vec<ContactGeometry>) -> Vec<ContactGeometry> {
    if found.len() <= 4 {
        return found;
    }
    let n = found[0].normal;
    let (u, w) = tangent_basis(&n);
    let p: Vec<(f64, f64)> = found.iter().map(|c| (c.point.dot(&u), c.point.dot(&w))).collect();
    let argmax =
        |key: &dyn Fn(usize) -> f64| (0..found.len()).fold(0, |best, k| if key(k) > key(best) { k } else { best });
    let i0 = argmax(&|k| -found[k].gap);
    let i1 = argmax(&|k| (p[k].0 - p[i0].0).powi(2) + (p[k].1 - p[i0].1).powi(2));
    let area = |k: usize| (p[i1].0 - p[i0].0) * (p[k].1 - p[i0].1) - (p[i1].1 - p[i0].1) * (p[k].0 - p[i0].0);
    let i2 = argmax(&area);
    let i3 = argmax(&|k| -area(k));
    let mut keep = vec![i0, i1];
    if area(i2) > 0.0 {
        keep.push(i2);
    }
    if area(i3) < 0.0 {
        keep.push(i3);
    }
    keep.sort_unstable();
    keep.dedup();
    keep.into_iter().map(|k| found[k]).collect()
}

/// Cylinder A (`radius`, `half_length`, pose `pa`) against hull B (a box, mesh or cylinder). The
/// contact is found on A's polygonal prism; when its face is a flat face of B (a box or mesh face,
/// a cylinder's cap), the points are recomputed exactly as the round cylinder against that face's
/// plane, kept inside the face, so a cylinder rolling on a plank or standing on a block is exact.
/// Otherwise (the cylinder's side against an edge or a curved side) the polygonal result stands,
/// with gaps overestimated by at most 0.0048 r.
pub fn cylinder_hull(
    (radius, half_length, pa): (f64, f64, &Isometry3<f64>),
    a: &PosedHull,
    b: &PosedHull,
    b_is_cylinder: bool,
    margin: f64,
) -> Vec<ContactGeometry> {
    // The prisms lie inside the round cylinders by up to the sag r (1 - cos(π/N)): search with the
    // margin widened by it (for a cylinder B, with its bounding radius, which bounds its radius), so
    // a round cylinder within the margin is never missed, and filter the
    // points by the true margin afterwards.
    let widened = margin + cylinder_sag(radius) + if b_is_cylinder { cylinder_sag(b.radius) } else { 0.0 };
    let faceted = hull_hull(a, b, widened);
    let Some(first) = faceted.first() else { return faceted };
    let n = first.normal;
    // A flat face of B with exactly this normal (1e-9: rounding of rotated normals).
    let face = (0..b.normals.len()).find(|&k| {
        b.normals[k].dot(&n) > 1.0 - 1e-9
            && (!b_is_cylinder || (b.pose.rotation * Vector3::z()).dot(&n).abs() > 1.0 - 1e-9)
    });
    let Some(f) = face else { return faceted.into_iter().filter(|c| c.gap < margin).collect() };
    let poly = &b.hull.faces[f].polygon;
    let p0 = b.verts[poly[0]];
    let tol = 1e-12 * (a.radius + b.radius);
    let exact: Vec<ContactGeometry> = super::round::cylinder_plane(pa, radius, half_length, &p0, &n, margin)
        .into_iter()
        .filter(|c| {
            let x = c.point_on_b();
            (0..poly.len()).all(|k| {
                let (p, q) = (b.verts[poly[k]], b.verts[poly[(k + 1) % poly.len()]]);
                (q - p).cross(&n).dot(&(x - p)) <= tol
            })
        })
        .collect();
    if exact.is_empty() { faceted.into_iter().filter(|c| c.gap < margin).collect() } else { exact }
}
