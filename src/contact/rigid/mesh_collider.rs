//! Rigid bodies against triangle-mesh colliders (static, moved by a script, or animated per
//! vertex): the collider's surface is a [`SurfaceMesh`] in its own frame, met by the same
//! skeleton-against-exact-distance sampling as non-convex bodies ([`super::sampled`]), so every
//! body shape touches it, at its faces, creases and corners alike.
//!
//! An animated collider is re-posed at the start of each step (its frame of time `t`, the
//! normals and the distance tree rebuilt), and each contact carries the surface's own velocity
//! there: the mean velocity of its triangle's corners over the step, interpolated at the
//! contact's point on the mesh, as the nodal pipelines give a mesh node's.

use super::{ContactGeometry, Participant, RigidContact, collide_shapes};
use crate::contact::collider::MeshCollider;
use crate::model::animation::barycentric;
use crate::rigid::{RigidBody, RigidShape, SurfaceMesh};
use nalgebra::{Isometry3, Rotation3, Translation3, UnitQuaternion, Vector3};
use std::sync::Arc;

/// A mesh collider's surface over one step, in its own frame.
#[derive(Debug, Clone)]
pub struct PosedMesh {
    surface: Arc<SurfaceMesh>,
    /// An animated surface's vertex velocities over the step (own frame); empty otherwise.
    velocities: Vec<Vector3<f64>>,
}

impl PosedMesh {
    /// Collider `c`'s surface for the step `[t, t + h]`; `None` when it has none (no rigid body
    /// meets it).
    pub fn at(c: &MeshCollider, t: f64, h: f64) -> Option<PosedMesh> {
        let surface = c.surface.as_ref()?;
        let Some(animation) = &c.animation else {
            return Some(PosedMesh { surface: Arc::clone(surface), velocities: Vec::new() });
        };
        let (x, velocities) = animation.step(t, h);
        Some(PosedMesh { surface: Arc::new(surface.reposed(x)), velocities })
    }

    /// The fastest vertex's own speed over the step (0 unless animated).
    pub fn own_speed_bound(&self) -> f64 {
        self.velocities.iter().map(|v| v.norm()).fold(0.0, f64::max)
    }

    /// The surface's own velocity (own frame) at own-frame point `p` on or near it: its nearest
    /// triangle's corner velocities, interpolated there; zero when not animated.
    pub fn own_velocity(&self, p: &Vector3<f64>) -> Vector3<f64> {
        let m = &self.surface;
        let Some(c) = (!self.velocities.is_empty()).then(|| m.closest(p, f64::INFINITY)).flatten() else {
            return Vector3::zeros();
        };
        let tri = m.triangles[c.triangle];
        let w = barycentric(&c.point, &tri.map(|i| m.vertices[i]));
        (0..3).map(|k| w[k] * self.velocities[tri[k]]).sum()
    }
}

/// Contacts between rigid body `i` (A) and mesh collider `k` (B, posed as `mesh` at time `t`),
/// gap below `margin`, each with the collider's own (animation) velocity at its point, world.
pub fn collide_body_mesh(
    bodies: &[RigidBody],
    i: usize,
    collider: &MeshCollider,
    mesh: &PosedMesh,
    k: usize,
    t: f64,
    margin: f64,
) -> Vec<(RigidContact, Vector3<f64>)> {
    let at = collider.placement(t);
    let rotation = UnitQuaternion::from_rotation_matrix(&Rotation3::from_matrix(&at.rotation));
    let pose = Isometry3::from_parts(Translation3::from(at.center), rotation);
    let body = &bodies[i];
    // The surface as a shape of the shared narrow phase (an `Arc` clone, no copy of the mesh).
    let shape = RigidShape::NonConvex(Arc::clone(&mesh.surface));
    let found: Vec<ContactGeometry> = collide_shapes(&body.shape, &body.pose(), &shape, &pose, margin);
    found
        .iter()
        .map(|g| {
            let local = at.rotation.transpose() * (g.point_on_b() - at.center);
            let own = at.rotation * mesh.own_velocity(&local);
            (RigidContact::new(Participant::Body(i), Participant::Mesh(k), g), own)
        })
        .collect()
}
