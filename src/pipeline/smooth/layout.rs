//! The generalized velocities of a Smooth step: every node's 3 entries, then each rigid body's 6
//! (linear, then angular, world frame). A rigid body takes two *pseudo-nodes* after the nodes,
//! `N + 2r` (linear) and `N + 2r + 1` (angular), so that a contact's stencil addresses a node and
//! a rigid body alike: a 3×3 block per (pseudo-)node, and `node(v, i)` reads either.

use crate::model::{Model, State};
use crate::rigid::body::RigidBody;
use nalgebra::{Matrix3, Vector3};

/// What a (pseudo-)node of the layout is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Slot {
    Node(usize),
    Linear(usize),
    Angular(usize),
}

/// A rigid body's mass at the start of the step.
#[derive(Debug, Clone)]
pub struct RigidMass {
    pub mass: f64,
    /// World inertia `R I Rᵀ` and its inverse.
    pub inertia: Matrix3<f64>,
    pub inverse_inertia: Matrix3<f64>,
    /// Bounding radius (m): turns an angular velocity into the speed of the body's surface.
    pub radius: f64,
    /// Scripted bodies are not unknowns: their velocity is prescribed.
    pub kinematic: bool,
}

pub struct Layout {
    pub nodes: usize,
    pub rigid: Vec<RigidMass>,
}

impl Layout {
    pub fn new(model: &Model, bodies: &[RigidBody]) -> Layout {
        let rigid = bodies
            .iter()
            .zip(&model.rigids)
            .map(|(b, r)| RigidMass {
                mass: b.mass,
                inertia: b.world_inertia(),
                inverse_inertia: b.world_inverse_inertia(),
                radius: b.shape.bounding_radius(),
                kinematic: r.motion.is_some(),
            })
            .collect();
        Layout { nodes: model.node_count(), rigid }
    }

    /// Number of entries of a velocity vector.
    pub fn len(&self) -> usize {
        3 * self.nodes + 6 * self.rigid.len()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    pub fn slot(&self, i: usize) -> Slot {
        match i.checked_sub(self.nodes) {
            None => Slot::Node(i),
            Some(k) if k % 2 == 0 => Slot::Linear(k / 2),
            Some(k) => Slot::Angular(k / 2),
        }
    }

    /// The linear and angular pseudo-nodes of rigid body `r`.
    pub fn pseudo_nodes(&self, r: usize) -> (usize, usize) {
        (self.nodes + 2 * r, self.nodes + 2 * r + 1)
    }

    /// Whether a (pseudo-)node's velocity is prescribed.
    pub fn is_fixed(&self, model: &Model, i: usize) -> bool {
        match self.slot(i) {
            Slot::Node(n) => model.node_is_kinematic[n],
            Slot::Linear(r) | Slot::Angular(r) => self.rigid[r].kinematic,
        }
    }

    /// The 3×3 inverse mass of a (pseudo-)node; zero where the velocity is prescribed.
    pub fn inverse_mass(&self, model: &Model, i: usize) -> Matrix3<f64> {
        if self.is_fixed(model, i) {
            return Matrix3::zeros();
        }
        match self.slot(i) {
            Slot::Node(n) => Matrix3::identity() / model.node_mass[n],
            Slot::Linear(r) => Matrix3::identity() / self.rigid[r].mass,
            Slot::Angular(r) => self.rigid[r].inverse_inertia,
        }
    }

    /// The 3×3 mass of a (pseudo-)node.
    pub fn mass(&self, model: &Model, i: usize) -> Matrix3<f64> {
        match self.slot(i) {
            Slot::Node(n) => Matrix3::identity() * model.node_mass[n],
            Slot::Linear(r) => Matrix3::identity() * self.rigid[r].mass,
            Slot::Angular(r) => self.rigid[r].inertia,
        }
    }

    /// A scalar mass per (pseudo-)node that turns its residual (N·s, or N·m·s) into a speed
    /// (m/s): a node's mass, a body's mass, and for its rotation the mean inertia over the
    /// bounding radius (so the speed is that of its surface).
    pub fn speed_mass(&self, model: &Model, i: usize) -> f64 {
        match self.slot(i) {
            Slot::Node(n) => model.node_mass[n],
            Slot::Linear(r) => self.rigid[r].mass,
            Slot::Angular(r) => self.rigid[r].inertia.trace() / (3.0 * self.rigid[r].radius),
        }
    }

    /// The state's velocities in this layout.
    pub fn velocities(&self, state: &State) -> Vec<f64> {
        let mut v = state.v.clone();
        for b in &state.rigid {
            v.extend(b.linear_velocity.iter().chain(b.angular_velocity.iter()));
        }
        v
    }

    /// Rigid body `r`'s (linear, angular) velocity in `v`.
    pub fn rigid_velocity(&self, v: &[f64], r: usize) -> (Vector3<f64>, Vector3<f64>) {
        let (l, a) = self.pseudo_nodes(r);
        (crate::model::node(v, l), crate::model::node(v, a))
    }
}
