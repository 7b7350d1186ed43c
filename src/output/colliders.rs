//! The colliders as geometry in the time series, so that what ParaView shows is the whole scene:
//! each collider is a triangle mesh in its own frame, posed at every frame by its script. A plane
//! becomes a square patch around the scene (twice the extent of everything placed at t = 0, and
//! at least 1 m across); boxes, spheres and cylinders are tessellated; a mesh collider is its own
//! mesh (an animated one at each frame's time). Each is its own series `collider_<name>`, with the
//! cell scalar `collider` = 1, so it can be told apart and hidden. A collider that never moves is written once and listed at every
//! frame.

use crate::contact::collider::{Collider, Placement, Shape};
use crate::model::{Model, State, node};
use crate::rigid::shape::RigidShape;
use nalgebra::Vector3;

/// Segments around a tessellated sphere or cylinder: smooth enough to look round.
const SEGMENTS: usize = 48;

/// One collider's output geometry.
pub struct ColliderGeometry {
    /// Series name: `collider_<name>`.
    pub series: String,
    /// Vertices in the collider's own frame, and triangles.
    pub local: Vec<Vector3<f64>>,
    pub triangles: Vec<[usize; 3]>,
    /// Whether the collider's script (or animation) moves it (otherwise one file serves every
    /// frame).
    pub moves: bool,
    /// An animated mesh's per-vertex animation, which replaces `local` at each frame's time.
    pub animation: Option<std::sync::Arc<crate::model::animation::VertexAnimation>>,
}

/// Series-name prefix of the colliders.
pub const PREFIX: &str = "collider_";

impl ColliderGeometry {
    /// World vertices at placement `at`, of time `t`.
    pub fn posed(&self, at: &Placement, t: f64) -> Vec<[f64; 3]> {
        let world = crate::contact::collider::posed(&self.local, self.animation.as_deref(), at, t, &mut Vec::new());
        world.into_iter().map(Into::into).collect()
    }
}

/// Geometry of every collider of the model (analytic ones first, then meshes), for the scene as
/// it is at the start (`state`).
pub fn collider_geometry(model: &Model, state: &State) -> Vec<ColliderGeometry> {
    let (centre, extent) = scene_bounds(model, state);
    let analytic = model.colliders.iter().map(|c| {
        let (local, triangles) = analytic_mesh(c, &centre, extent);
        ColliderGeometry {
            series: format!("{PREFIX}{}", c.name),
            local,
            triangles,
            moves: !c.motion.is_fixed(),
            animation: None,
        }
    });
    let meshes = model.mesh_colliders.iter().map(|m| ColliderGeometry {
        series: format!("{PREFIX}{}", m.name),
        local: m.vertices.clone(),
        triangles: m.triangles.clone(),
        moves: !m.motion.is_fixed() || m.animation.is_some(),
        animation: m.animation.clone(),
    });
    analytic.chain(meshes).collect()
}

/// Placement of collider `k` (analytic ones first, then meshes) at time `t`.
pub fn placement(model: &Model, k: usize, t: f64) -> Placement {
    match model.colliders.get(k) {
        Some(c) => c.placement(t),
        None => model.mesh_colliders[k - model.colliders.len()].placement(t),
    }
}

/// Centre and largest extent (m) of everything placed at the start: nodes, rigid bodies (with
/// their bounding radii) and the bounded colliders.
fn scene_bounds(model: &Model, state: &State) -> (Vector3<f64>, f64) {
    let (mut lo, mut hi) = (Vector3::repeat(f64::INFINITY), Vector3::repeat(f64::NEG_INFINITY));
    let mut grow = |p: Vector3<f64>, r: f64| {
        lo = lo.inf(&(p - Vector3::repeat(r)));
        hi = hi.sup(&(p + Vector3::repeat(r)));
    };
    (0..model.node_count()).for_each(|i| grow(node(&state.q, i), 0.0));
    state.rigid.iter().for_each(|b| grow(b.position, b.shape.bounding_radius()));
    for c in &model.colliders {
        if let Some(r) = c.bounding_radius() {
            grow(c.position, r);
        }
    }
    for m in &model.mesh_colliders {
        m.vertices.iter().for_each(|v| grow(m.position + m.rotation * v, 0.0));
    }
    if lo.x > hi.x {
        return (Vector3::zeros(), 0.0);
    }
    (0.5 * (lo + hi), (hi - lo).max())
}

/// A collider's surface in its own frame.
fn analytic_mesh(c: &Collider, centre: &Vector3<f64>, extent: f64) -> (Vec<Vector3<f64>>, Vec<[usize; 3]>) {
    match &c.shape {
        Shape::Plane => {
            // The square of side max(2 extent, 1 m) in the plane's local xy, centred under the
            // scene's centre.
            let local = c.rotation.transpose() * (centre - c.position);
            let h = extent.max(0.5);
            let corners = [(-h, -h), (h, -h), (h, h), (-h, h)];
            let v = corners.iter().map(|(x, y)| Vector3::new(local.x + x, local.y + y, 0.0)).collect();
            (v, vec![[0, 1, 2], [0, 2, 3]])
        }
        Shape::Box { half } => RigidShape::Box { half: Vector3::from(*half) }.tessellate(SEGMENTS),
        Shape::Sphere { radius } => RigidShape::Sphere { radius: *radius }.tessellate(SEGMENTS),
        Shape::Cylinder { radius, half_length } => {
            RigidShape::Cylinder { radius: *radius, half_length: *half_length }.tessellate(SEGMENTS)
        }
    }
}
