//! Rigid bodies: shapes, mass properties from density, and the body state (pose and velocity).
//!
//! A rigid body owns 6 velocity entries of the generalized vector, `(v, ω)` — linear velocity of
//! the center of mass, then angular velocity, both in the world frame — and a pose (position of
//! the center of mass, unit quaternion). The body frame's origin is the center of mass: shapes are
//! described about it (see [`mass::MassProperties::center`] and [`hull::ConvexMesh::recentered`]).

pub mod body;
pub mod hull;
pub mod joint;
pub mod joint_space;
pub mod mass;
pub mod mesh_distance;
pub mod self_intersection;
pub mod shape;
pub mod surface_mesh;

pub use body::{ANGULAR, DOFS, LINEAR, RigidBody};
pub use hull::ConvexMesh;
pub use mass::MassProperties;
pub use shape::RigidShape;
pub use surface_mesh::{MeshDefect, SurfaceMesh};
