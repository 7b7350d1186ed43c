//! Rigid shapes in the body frame (origin at the center of mass, axes as given).

use super::hull::ConvexMesh;
use super::surface_mesh::SurfaceMesh;
use nalgebra::Vector3;
use std::f64::consts::PI;
use std::sync::Arc;

/// A rigid body's shape, in its body frame. Cylinder and capsule axes are the body z axis.
#[derive(Debug, Clone, PartialEq)]
pub enum RigidShape {
    Box {
        half: Vector3<f64>,
    },
    Sphere {
        radius: f64,
    },
    /// Solid capped cylinder: radius, and half the length along z.
    Cylinder {
        radius: f64,
        half_length: f64,
    },
    /// Segment from `-half_length` to `+half_length` along z, swept by a ball of `radius`.
    Capsule {
        radius: f64,
        half_length: f64,
    },
    /// Closed convex polyhedron; the body origin should be its center of mass.
    ConvexMesh(ConvexMesh),
    /// Closed polyhedron of any shape, with its distance tree (shared: bodies are cloned with the
    /// state every step, the tree never changes); the body origin should be its center of mass.
    NonConvex(Arc<SurfaceMesh>),
}

impl RigidShape {
    /// Largest distance of a point of the shape from the body origin (for broad phases).
    pub fn bounding_radius(&self) -> f64 {
        match self {
            RigidShape::Box { half } => half.norm(),
            RigidShape::Sphere { radius } => *radius,
            RigidShape::Cylinder { radius, half_length } => radius.hypot(*half_length),
            RigidShape::Capsule { radius, half_length } => radius + half_length,
            RigidShape::ConvexMesh(m) => m.bounding_radius(),
            RigidShape::NonConvex(m) => m.radius,
        }
    }

    /// The same shape moved by `-center` (so that a center of mass at `center` comes to the
    /// origin); primitives are centered already and come back unchanged. A centre closer to the
    /// origin than rounding (1e-12 of the shape's size) is left alone, so a shape recentered
    /// once is not copied again.
    pub fn recentered(self, center: &Vector3<f64>) -> RigidShape {
        if center.norm() <= 1e-12 * self.bounding_radius() {
            return self;
        }
        match self {
            RigidShape::ConvexMesh(m) => RigidShape::ConvexMesh(m.recentered(center)),
            RigidShape::NonConvex(m) => RigidShape::NonConvex(Arc::new(m.recentered(center))),
            s => s,
        }
    }

    /// A closed, outward-oriented triangle mesh of the surface (for output, and to check the
    /// polyhedral mass properties against the closed forms). `segments` is the number of divisions
    /// around a circle (at least 3); rings along a half circle are `segments / 2`.
    pub fn tessellate(&self, segments: usize) -> (Vec<Vector3<f64>>, Vec<[usize; 3]>) {
        let segments = segments.max(3);
        match self {
            RigidShape::Box { half } => {
                let m = ConvexMesh::cuboid(half);
                (m.vertices, m.triangles)
            }
            RigidShape::ConvexMesh(m) => (m.vertices.clone(), m.triangles.clone()),
            RigidShape::NonConvex(m) => (m.vertices.clone(), m.triangles.clone()),
            RigidShape::Sphere { radius } => revolve(&arc(*radius, 0.0, 0.0, PI, (segments / 2).max(2)), segments),
            RigidShape::Capsule { radius, half_length } => {
                let rings = (segments / 4).max(1);
                let mut profile = arc(*radius, *half_length, 0.0, 0.5 * PI, rings);
                profile.extend(arc(*radius, -*half_length, 0.5 * PI, 0.5 * PI, rings));
                revolve(&profile, segments)
            }
            RigidShape::Cylinder { radius, half_length } => revolve(
                &[(0.0, *half_length), (*radius, *half_length), (*radius, -*half_length), (0.0, -*half_length)],
                segments,
            ),
        }
    }
}

/// Profile points (radius, z) of the arc of a circle of radius `r` centered on the axis at height
/// `z0`, from polar angle `from` (0 = top pole) over `span`, in `rings` steps.
fn arc(r: f64, z0: f64, from: f64, span: f64, rings: usize) -> Vec<(f64, f64)> {
    (0..=rings)
        .map(|k| {
            let a = from + span * k as f64 / rings as f64;
            let (s, c) = a.sin_cos();
            (r * s, z0 + r * c)
        })
        .collect()
}

/// Surface of revolution about z of a profile (radius, z) going from the top axis point down to
/// the bottom axis point; points with radius 0 are poles.
fn revolve(profile: &[(f64, f64)], segments: usize) -> (Vec<Vector3<f64>>, Vec<[usize; 3]>) {
    let mut verts = Vec::new();
    let mut rings: Vec<Vec<usize>> = Vec::new();
    for &(rho, z) in profile {
        if rho.abs() < 1e-15 {
            verts.push(Vector3::new(0.0, 0.0, z));
            rings.push(vec![verts.len() - 1; segments]);
        } else {
            let start = verts.len();
            for k in 0..segments {
                let (s, c) = (2.0 * PI * k as f64 / segments as f64).sin_cos();
                verts.push(Vector3::new(rho * c, rho * s, z));
            }
            rings.push((start..start + segments).collect());
        }
    }
    // Consecutive duplicate rings (capsule equators meet where the cylinder part has zero length)
    // would give degenerate triangles; drop them.
    rings.dedup_by(|b, a| a.iter().zip(b.iter()).all(|(&i, &j)| (verts[i] - verts[j]).norm() < 1e-15));
    let mut tris = Vec::new();
    for w in rings.windows(2) {
        let (upper, lower) = (&w[0], &w[1]);
        for k in 0..segments {
            let k1 = (k + 1) % segments;
            // Upper ring above lower ring, angles increasing counter-clockwise about +z: the
            // quad (u_k, l_k, l_k1, u_k1) is counter-clockwise seen from outside.
            let (a, b, c, d) = (upper[k], lower[k], lower[k1], upper[k1]);
            if b != c {
                tris.push([a, b, c]);
            }
            if a != d {
                tris.push([a, c, d]);
            }
        }
    }
    (verts, tris)
}

/// A deterministic right-handed orthonormal basis `(u, w)` of the plane orthogonal to the unit
/// vector `n`, so that `(n, u, w)` is a right-handed frame: `u` is the projection of the world axis
/// along which `n` is smallest (ties to the lowest index), which keeps `u` well conditioned.
pub fn tangent_basis(n: &Vector3<f64>) -> (Vector3<f64>, Vector3<f64>) {
    let a = n.abs();
    let k = if a.x <= a.y && a.x <= a.z {
        0
    } else if a.y <= a.z {
        1
    } else {
        2
    };
    let e = Vector3::ith(k, 1.0);
    let u = (e - n * n.dot(&e)).normalize();
    (u, n.cross(&u))
}
