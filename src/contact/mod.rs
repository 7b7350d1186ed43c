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

/// A contact point of the last step with its force on the first participant (N): what every
/// pipeline reports and the output writes.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ContactPoint {
    pub point: nalgebra::Vector3<f64>,
    pub normal_force: nalgebra::Vector3<f64>,
    pub friction_force: nalgebra::Vector3<f64>,
    /// First tangent of the contact frame: the structure axis of a matchstick contact.
    pub tangent: nalgebra::Vector3<f64>,
    /// Friction coefficients along the tangent and the binormal.
    pub mu: [f64; 2],
    pub gap: f64,
}
