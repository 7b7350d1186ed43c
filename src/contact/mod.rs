//! Contact geometry and contact data.
//!
//! Detection produces a flat list of [`Contact`]s; a contact point is a weighted combination of
//! nodes (weights `+1` for the vertex, `-w_k` for the barycentric weights of the point on the other
//! surface), with a normal, a gap and the friction law resolved for the pair. Every pipeline
//! consumes the same contact data.

pub mod collider;
pub mod implicit;
pub mod kernel;
pub mod nodal;
pub mod penalty;
pub mod point_triangle;
pub mod rigid;
pub mod vec3;
