//! Contacts of non-convex meshes, with any other shape: points sampled on each body's skeleton
//! (its corners and its creases, or a round shape's core) are tested against the other body's
//! exact signed distance, in both directions (002 §7's sample-against-distance-field scheme, with
//! exact distances, see [`crate::rigid::mesh_distance`]).
//!
//! A polyhedron touches another body first at a vertex, or along an edge crossing a face or
//! edge of the other, so corners plus crease samples find every contact of a polyhedral pair; a
//! crease is sampled only where it lies within the other body's bounding ball, at a spacing of
//! [`SPACING`] times the smaller body's radius, so contact along an edge is resolved to that
//! spacing. Two findings of one touch from both sides are merged, and points with normals within 30°
//! are reduced to the 4 that span them, as for convex pairs.

use super::ContactGeometry;
use super::hull_round::point_hull;
use super::polyhedral::PosedHull;
use super::polyhedral::reduce_manifold;
use crate::contact::collider::{Shape, local_sdf};
use crate::rigid::{RigidShape, SurfaceMesh};
use nalgebra::{Isometry3, Vector3};

/// Crease sampling spacing relative to the smaller body's bounding radius.
pub const SPACING: f64 = 1.0 / 16.0;

/// Sides of the polygons that sample a cylinder's rims (as the convex pairs' prisms).
const RIM_SEGMENTS: usize = super::polyhedral::CYLINDER_SEGMENTS;

/// A shape's skeleton in its body frame: points and segments, each carrying the radius of the
/// ball swept around it to make the surface (0 for polyhedra).
struct Skeleton {
    corners: Vec<(Vector3<f64>, f64)>,
    segments: Vec<([Vector3<f64>; 2], f64)>,
}

/// The skeleton of `shape`; of a mesh, only the part that can touch a body inside the box
/// `(lo, hi)` of its body frame (its triangles meeting that box).
fn skeleton(shape: &RigidShape, (lo, hi): (Vector3<f64>, Vector3<f64>)) -> Skeleton {
    let mesh = |v: &[Vector3<f64>], edges: &mut dyn Iterator<Item = [usize; 2]>| Skeleton {
        corners: v.iter().map(|p| (*p, 0.0)).collect(),
        segments: edges.map(|[a, b]| ([v[a], v[b]], 0.0)).collect(),
    };
    match shape {
        RigidShape::Sphere { radius } => Skeleton { corners: vec![(Vector3::zeros(), *radius)], segments: Vec::new() },
        RigidShape::Capsule { radius, half_length } => {
            let (a, b) = (Vector3::new(0.0, 0.0, -half_length), Vector3::new(0.0, 0.0, *half_length));
            Skeleton { corners: vec![(a, *radius), (b, *radius)], segments: vec![([a, b], *radius)] }
        }
        RigidShape::Box { half } => {
            let corner = |i: usize| Vector3::from_fn(|k, _| if i >> k & 1 == 1 { half[k] } else { -half[k] });
            let v: Vec<Vector3<f64>> = (0..8).map(corner).collect();
            // Corners differing in one coordinate bit are joined by an edge.
            let mut edges = (0..8).flat_map(|i| (0..3).map(move |k| [i, i | 1 << k])).filter(|[i, j]| i != j);
            mesh(&v, &mut edges)
        }
        RigidShape::Cylinder { radius, half_length } => {
            let rim = |z: f64| {
                (0..RIM_SEGMENTS).map(move |k| {
                    let (s, c) = (2.0 * std::f64::consts::PI * k as f64 / RIM_SEGMENTS as f64).sin_cos();
                    Vector3::new(radius * c, radius * s, z)
                })
            };
            let v: Vec<Vector3<f64>> = rim(-half_length).chain(rim(*half_length)).collect();
            let n = RIM_SEGMENTS;
            let mut edges = (0..2 * n).map(|k| [k, k / n * n + (k + 1) % n]);
            mesh(&v, &mut edges)
        }
        RigidShape::ConvexMesh(m) => mesh(&m.vertices, &mut m.edges.iter().copied()),
        RigidShape::NonConvex(m) => {
            let (verts, creases) = m.skeleton_in(lo, hi);
            let v = &m.vertices;
            Skeleton {
                corners: verts.iter().map(|&i| (v[i], 0.0)).collect(),
                segments: creases.iter().map(|&[i, j]| ([v[i], v[j]], 0.0)).collect(),
            }
        }
    }
}

/// A shape's signed distance in its body frame, prepared once per probe (a hull's planes and
/// vertices are placed once, not at every sample).
pub(crate) enum Distance<'a> {
    Analytic(Shape),
    Capsule { radius: f64, half_length: f64 },
    Hull(PosedHull<'a>),
    Mesh(&'a SurfaceMesh),
}

impl<'a> Distance<'a> {
    pub(crate) fn of(shape: &'a RigidShape) -> Distance<'a> {
        match shape {
            RigidShape::Sphere { radius } => Distance::Analytic(Shape::Sphere { radius: *radius }),
            RigidShape::Box { half } => Distance::Analytic(Shape::Box { half: (*half).into() }),
            RigidShape::Cylinder { radius, half_length } => {
                Distance::Analytic(Shape::Cylinder { radius: *radius, half_length: *half_length })
            }
            RigidShape::Capsule { radius, half_length } => {
                Distance::Capsule { radius: *radius, half_length: *half_length }
            }
            RigidShape::ConvexMesh(_) => {
                Distance::Hull(PosedHull::new(shape, &Isometry3::identity()).expect("a convex mesh has a hull"))
            }
            RigidShape::NonConvex(m) => Distance::Mesh(m),
        }
    }

    /// The signed distance and outward unit normal at body-frame point `p` (the nearest surface
    /// point only); `None` where a mesh has no nearest triangle.
    pub(crate) fn nearest(&self, p: &Vector3<f64>) -> Option<(f64, Vector3<f64>)> {
        let mut found = None;
        self.each(p, 0.0, f64::INFINITY, |d, n| found = found.or(Some((d, n))));
        found
    }

    /// Signed distances and outward unit normals at body-frame point `p` where a ball of radius
    /// `r` around it comes within `margin` of the surface: the nearest point, and where a mesh
    /// meets a ball (`r > 0`) each other face the ball touches as well, as in a concave corner
    /// (see [`SurfaceMesh::faces_within`]). A ball can touch a face from any direction; a
    /// polyhedron's corner or crease sample only along its own normal cone, which the samples
    /// do not carry, so they keep the nearest point (a step's edge lying along an L's edge
    /// would otherwise press on the L's bottom face, which it cannot touch).
    fn each(&self, p: &Vector3<f64>, r: f64, margin: f64, mut emit: impl FnMut(f64, Vector3<f64>)) {
        let (d, n) = match self {
            Distance::Analytic(s) => {
                let (d, n) = local_sdf::<f64>(s, [p.x, p.y, p.z]);
                (d, Vector3::from(n))
            }
            Distance::Capsule { radius, half_length } => {
                let c = Vector3::new(0.0, 0.0, p.z.clamp(-half_length, *half_length));
                let d = (p - c).norm();
                (d - radius, if d > 0.0 { (p - c) / d } else { Vector3::x() })
            }
            Distance::Hull(h) => {
                let (d, _, n) = point_hull(h, p);
                (d, n)
            }
            Distance::Mesh(m) => {
                let Some(c) = m.closest(p, margin + r) else { return };
                if c.distance - r < margin {
                    emit(c.distance, c.normal);
                }
                if r > 0.0 {
                    // In front of each face: a face seen from behind (the far side of a thin part)
                    // is not touched by a ball that is only a point.
                    let band = ((r - margin).max(0.0), r + margin);
                    m.faces_within(p, band, c.triangle, |f| emit(f.distance, f.normal));
                }
                return;
            }
        };
        if d - r < margin {
            emit(d, n);
        }
    }
}

/// Contacts between shape `a` at pose `pa` and shape `b` at pose `pb` (normal from B to A), gap
/// below `margin`, where at least one of them is a non-convex mesh.
pub fn collide(
    a: &RigidShape,
    pa: &Isometry3<f64>,
    b: &RigidShape,
    pb: &Isometry3<f64>,
    margin: f64,
) -> Vec<ContactGeometry> {
    let spacing = SPACING * a.bounding_radius().min(b.bounding_radius());
    let mut found = probe(a, pa, b, pb, margin, spacing);
    found.extend(probe(b, pb, a, pa, margin, spacing).iter().map(ContactGeometry::flipped));
    reduce(merge(found, spacing))
}

/// Contacts found by the skeleton samples of `a` against the distance of `b` (normal from B to A).
fn probe(
    a: &RigidShape,
    pa: &Isometry3<f64>,
    b: &RigidShape,
    pb: &Isometry3<f64>,
    margin: f64,
    spacing: f64,
) -> Vec<ContactGeometry> {
    let (center, reach) = (pb.translation.vector, b.bounding_radius() + margin);
    // B's ball in A's frame bounds the part of A that can touch B.
    let c = pa.inverse_transform_point(&center.into()).coords;
    let sk = skeleton(a, (c.add_scalar(-reach), c.add_scalar(reach)));
    let distance = Distance::of(b);
    let mut found = Vec::new();
    let mut test = |q: Vector3<f64>, r: f64| {
        let local = pb.inverse_transform_point(&q.into()).coords;
        distance.each(&local, r, margin, |d, n| {
            let n = pb.rotation * n;
            found.push(ContactGeometry::from_witnesses(q - r * n, q - d * n, n));
        });
    };
    for &(c, r) in &sk.corners {
        let q = pa.transform_point(&c.into()).coords;
        if (q - center).norm() <= reach + r {
            test(q, r);
        }
    }
    for &([p0, p1], r) in &sk.segments {
        let (p, q) = (pa.transform_point(&p0.into()).coords, pa.transform_point(&p1.into()).coords);
        let Some((t0, t1)) = clip_to_ball(&p, &q, &center, reach + r) else {
            continue;
        };
        let steps = ((t1 - t0) * (q - p).norm() / spacing).ceil().max(1.0) as usize;
        for k in 0..=steps {
            test(p + (t0 + (t1 - t0) * k as f64 / steps as f64) * (q - p), r);
        }
    }
    found
}

/// The parameter interval of segment `p q` inside the ball `(c, radius)`, if any.
fn clip_to_ball(p: &Vector3<f64>, q: &Vector3<f64>, c: &Vector3<f64>, radius: f64) -> Option<(f64, f64)> {
    let d = q - p;
    let (a, b, cc) = (d.norm_squared(), d.dot(&(p - c)), (p - c).norm_squared() - radius * radius);
    if a == 0.0 {
        return (cc <= 0.0).then_some((0.0, 0.0));
    }
    let disc = b * b - a * cc;
    if disc < 0.0 {
        return None;
    }
    let root = disc.sqrt();
    let (t0, t1) = (((-b - root) / a).max(0.0), ((-b + root) / a).min(1.0));
    (t0 <= t1).then_some((t0, t1))
}

/// One touch found twice (from both sides, or by a corner and a crease sample next to it): points
/// closer than half the spacing with normals within about 20° keep the deeper one.
fn merge(found: Vec<ContactGeometry>, spacing: f64) -> Vec<ContactGeometry> {
    let mut kept: Vec<ContactGeometry> = Vec::with_capacity(found.len());
    for c in found {
        let twin =
            kept.iter().position(|k| (k.point - c.point).norm() < 0.5 * spacing && k.normal.dot(&c.normal) > 0.94);
        match twin {
            Some(i) if c.gap < kept[i].gap => kept[i] = c,
            Some(_) => {}
            None => kept.push(c),
        }
    }
    kept
}

/// Normals within this angle of a group's first normal (cosine of 30°) join its group.
const GROUP_COS: f64 = 0.866;

/// Points with nearly one normal reduced to the 4 that span them: a face resting on a face, or
/// a patch where two curved surfaces meet (their sample normals differ by the tessellation's
/// angles; without grouping, two blobs approaching fast have hundreds of contacts within the
/// step's travel). Groups take normals within 30° of their first one and keep their order of
/// first appearance; faces of a box or an L, 90° apart, stay apart.
fn reduce(found: Vec<ContactGeometry>) -> Vec<ContactGeometry> {
    let mut groups: Vec<Vec<ContactGeometry>> = Vec::new();
    for c in found {
        match groups.iter_mut().find(|g| g[0].normal.dot(&c.normal) > GROUP_COS) {
            Some(g) => g.push(c),
            None => groups.push(vec![c]),
        }
    }
    groups.into_iter().flat_map(reduce_manifold).collect()
}

/// Contacts between a non-convex mesh at pose `pa` and the half-space below the plane through
/// `point` with unit normal `normal`: its vertices below the margin (a polyhedron's lowest points
/// are vertices), reduced to the 4 that span them.
pub fn mesh_plane(
    m: &SurfaceMesh,
    pa: &Isometry3<f64>,
    point: &Vector3<f64>,
    normal: &Vector3<f64>,
    margin: f64,
) -> Vec<ContactGeometry> {
    let found = m
        .vertices
        .iter()
        .filter_map(|v| {
            let x = pa.transform_point(&(*v).into()).coords;
            let gap = normal.dot(&(x - point));
            (gap < margin).then(|| ContactGeometry::from_witnesses(x, x - gap * normal, *normal))
        })
        .collect();
    reduce_manifold(found)
}
