//! A rigid body or a mesh collider in the Smooth pipeline: its field and its contact points.
//!
//! The surface is the shape's tessellation, refined until no edge is longer than the field's
//! radius R (so that R exceeds half the largest triangle with room to spare, and the field is
//! smooth over a box's large faces), in the body frame. Its MLS field (000 §4.1: "a rigid mesh
//! generates a field" as any triangle surface does) is the field of mesh colliders and convex
//! hulls. An analytic shape or a closed non-convex mesh is its exact signed distance instead, as
//! the analytic colliders are: an MLS field bulges out of a face near its edges (2.1 mm for a
//! 10 cm box at R = 2 cm under the cubic kernel), which a deformable surface absorbs but a rigid
//! body resting on the face does not. A rigid body's field never deforms: a world point is
//! queried at its body-frame position `Rᵀ (x − p)`. An animated mesh collider's is moved to the
//! animation's vertices at the start of every step (the refined vertices are midpoints of its
//! own, so they follow), carrying their velocities. The refined vertices, with their
//! angle-weighted normals, are the body's contact points against colliders, the fields of solids
//! and other rigid bodies.

use crate::contact::implicit::{ImplicitSurface, Kernel};
use crate::contact::point_triangle::{closest_feature, closest_point};
use crate::contact::rigid::sampled::Distance;
use crate::model::animation::barycentric;
use crate::rigid::body::RigidBody;
use crate::rigid::shape::RigidShape;
use crate::rigid::surface_mesh::angle_weighted_normals;
use nalgebra::{Matrix3, Vector3};
use std::collections::HashMap;

/// Refinement stops at this many triangles (a body far larger than R): the field is then
/// coarser than asked, which `fricsim check`'s radius rule reports.
const MAX_TRIANGLES: usize = 200_000;

pub struct RigidSurface {
    /// Body-frame vertex positions, 3 per vertex: the field's "generalized positions".
    pub q: Vec<f64>,
    pub field: ImplicitSurface,
    /// The two vertices each vertex added by the refinement is the midpoint of, in order: an
    /// animated mesh's refined vertices follow its own.
    parents: Vec<(usize, usize)>,
    /// Per refined vertex, its velocity in the surface's frame (an animated mesh's over the
    /// current step; empty for a surface that does not deform).
    velocity: Vec<Vector3<f64>>,
    /// An analytic shape (box, sphere, cylinder, capsule) or a closed non-convex mesh: its exact
    /// signed distance (`contact::rigid::sampled::Distance`, as `Nonsmooth` measures it) is the
    /// field. Its MLS field is still built: its radius sets the contacts' reach.
    exact: Option<RigidShape>,
    /// Per refined vertex, its outward unit normal in the body frame (angle-weighted over its
    /// triangles: a box's corner gets the diagonal).
    normals: Vec<Vector3<f64>>,
}

impl RigidSurface {
    pub fn new(shape: &RigidShape, kernel: Kernel, radius: f64) -> RigidSurface {
        let segments = match shape {
            RigidShape::Sphere { radius: r }
            | RigidShape::Cylinder { radius: r, .. }
            | RigidShape::Capsule { radius: r, .. } => {
                (2.0 * std::f64::consts::PI * r / radius).ceil().clamp(24.0, 512.0) as usize
            }
            _ => 12,
        };
        let (v, t) = shape.tessellate(segments);
        // A convex hull's exact distance places its planes per query: it keeps the MLS field.
        let exact = (!matches!(shape, RigidShape::ConvexMesh(_))).then(|| shape.clone());
        RigidSurface { exact, ..RigidSurface::from_mesh(v, t, kernel, radius) }
    }

    /// Whether the field is the shape's exact signed distance.
    pub fn is_exact(&self) -> bool {
        self.exact.is_some()
    }

    /// The field of a triangle mesh in its own frame (refined like a shape's tessellation: 000
    /// advises resampling static collision meshes to a uniform triangulation).
    pub fn from_mesh(v: Vec<Vector3<f64>>, t: Vec<[usize; 3]>, kernel: Kernel, radius: f64) -> RigidSurface {
        let (v, t, parents) = refine(v, t, radius);
        let faces: Vec<Vector3<f64>> =
            t.iter().map(|f| (v[f[1]] - v[f[0]]).cross(&(v[f[2]] - v[f[0]])).normalize()).collect();
        let normals = angle_weighted_normals(&v, &t, &faces);
        let q: Vec<f64> = v.iter().flat_map(|x| [x.x, x.y, x.z]).collect();
        let field = ImplicitSurface::new(t, kernel, radius, &q);
        RigidSurface { q, field, parents, velocity: Vec::new(), exact: None, normals }
    }

    /// Moves the mesh's own vertices to `x` with velocities `v` (an animated mesh at the start of
    /// a step), the refined ones to their parents' midpoints, and rebuilds the field there.
    pub fn repose(&mut self, x: &[Vector3<f64>], v: &[Vector3<f64>]) {
        let own = x.len();
        self.velocity.clear();
        self.velocity.extend_from_slice(v);
        for (k, p) in x.iter().enumerate() {
            self.q[3 * k..3 * k + 3].copy_from_slice(p.as_slice());
        }
        for (j, &(a, b)) in self.parents.iter().enumerate() {
            let k = own + j;
            for d in 0..3 {
                self.q[3 * k + d] = 0.5 * (self.q[3 * a + d] + self.q[3 * b + d]);
            }
            self.velocity.push(0.5 * (self.velocity[a] + self.velocity[b]));
        }
        self.field.update(&self.q);
    }

    /// The surface's own velocity (its frame's) at the surface point nearest to the frame point
    /// `p`, interpolated in the nearest triangle among those within the field's radius; zero for
    /// a surface that does not deform or where none is near.
    pub fn velocity_at(&self, p: &Vector3<f64>) -> Vector3<f64> {
        if self.velocity.is_empty() {
            return Vector3::zeros();
        }
        let x = [p.x, p.y, p.z];
        let corners = |k: usize| self.field.triangles[k].map(|i| [self.q[3 * i], self.q[3 * i + 1], self.q[3 * i + 2]]);
        let nearest =
            self.field.neighbours(x).map(|k| (k, closest_feature(x, &corners(k)).1)).min_by(|a, b| a.1.total_cmp(&b.1));
        let Some((k, _)) = nearest else { return Vector3::zeros() };
        let t = corners(k);
        let (feature, _) = closest_feature(x, &t);
        let c = Vector3::from(closest_point(feature, x, &t));
        let w = barycentric(&c, &t.map(Vector3::from));
        let tri = self.field.triangles[k];
        w[0] * self.velocity[tri[0]] + w[1] * self.velocity[tri[1]] + w[2] * self.velocity[tri[2]]
    }

    /// Body-frame contact points.
    pub fn points(&self) -> impl Iterator<Item = Vector3<f64>> + '_ {
        self.q.chunks(3).map(|p| Vector3::new(p[0], p[1], p[2]))
    }

    /// Body-frame outward unit normal at contact point `k`.
    pub fn normal(&self, k: usize) -> Vector3<f64> {
        self.normals[k]
    }

    /// `Ψ/|∇Ψ|` (m, first-order distance to the zero set), or the exact signed distance of an
    /// analytic shape, and the world unit normal at world point `x` for the body's pose; `None`
    /// outside the MLS field's reach.
    pub fn distance(&self, body: &RigidBody, x: &Vector3<f64>) -> Option<(f64, Vector3<f64>)> {
        self.distance_at(&body.position, &body.rotation(), x)
    }

    /// The same for the surface placed at `center` with the local-to-world `rotation`.
    pub fn distance_at(
        &self,
        center: &Vector3<f64>,
        rotation: &Matrix3<f64>,
        x: &Vector3<f64>,
    ) -> Option<(f64, Vector3<f64>)> {
        let local = rotation.transpose() * (x - center);
        if let Some(shape) = &self.exact {
            return Distance::of(shape).nearest(&local).map(|(d, n)| (d, rotation * n));
        }
        let (psi, g) = self.field.potential_gradient(&self.q, [local.x, local.y, local.z])?;
        let g = Vector3::from(g);
        let n = g.norm();
        (n > 0.0 && n.is_finite()).then(|| (psi / n, rotation * (g / n)))
    }
}

/// Split every triangle with an edge longer than `max_edge` into four at its edge midpoints,
/// repeatedly. Midpoints are shared between the triangles of an edge; a neighbour left whole
/// leaves a T-junction, which an MLS field (one sample per triangle) does not mind.
/// Returns the refined mesh and, for each added vertex in order, the two it is the midpoint of.
#[allow(clippy::type_complexity)]
fn refine(
    mut v: Vec<Vector3<f64>>,
    mut t: Vec<[usize; 3]>,
    max_edge: f64,
) -> (Vec<Vector3<f64>>, Vec<[usize; 3]>, Vec<(usize, usize)>) {
    let mut mid: HashMap<(usize, usize), usize> = HashMap::new();
    let mut parents = Vec::new();
    loop {
        let long =
            |tri: &[usize; 3], v: &[Vector3<f64>]| (0..3).any(|e| (v[tri[e]] - v[tri[(e + 1) % 3]]).norm() > max_edge);
        let splits = t.iter().filter(|tri| long(tri, &v)).count();
        if splits == 0 || t.len() + 3 * splits > MAX_TRIANGLES {
            return (v, t, parents);
        }
        let mut next = Vec::with_capacity(t.len() + 3 * splits);
        for tri in t {
            if !long(&tri, &v) {
                next.push(tri);
                continue;
            }
            let mut m = [0; 3];
            for e in 0..3 {
                let (a, b) = (tri[e], tri[(e + 1) % 3]);
                m[e] = *mid.entry((a.min(b), a.max(b))).or_insert_with(|| {
                    v.push(0.5 * (v[a] + v[b]));
                    parents.push((a, b));
                    v.len() - 1
                });
            }
            next.extend([[tri[0], m[0], m[2]], [m[0], tri[1], m[1]], [m[2], m[1], tri[2]], m]);
        }
        t = next;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A 10 cm box's field under R = 1 cm: refined to edges of at most R, its zero set on the box
    /// (h_err under 2 % of its size: the cubic kernel rounds the edges), and the distance of a
    /// world point above its top face for a turned, moved body.
    #[test]
    fn a_refined_box_generates_a_field_on_its_faces() {
        let shape = RigidShape::Box { half: Vector3::new(0.05, 0.05, 0.05) };
        let s = RigidSurface::new(&shape, Kernel::Cubic, 0.01);
        assert!(s.field.largest_triangle(&s.q) <= 0.01 + 1e-12);
        let h = s.field.approximation_error(&s.q);
        assert!(h < 0.02, "h_err {h}");
        let (mut body, _) = RigidBody::from_density(
            shape,
            1000.0,
            Vector3::new(1.0, 2.0, 3.0),
            nalgebra::UnitQuaternion::from_scaled_axis(Vector3::new(0.0, 0.0, 0.3)),
        );
        body.linear_velocity = Vector3::zeros();
        let (d, n) = s.distance(&body, &Vector3::new(1.0, 2.0, 3.057)).unwrap();
        assert!((d - 0.007).abs() < 1e-4 && (n - Vector3::z()).norm() < 1e-3, "d {d}, n {n}");
    }
}
