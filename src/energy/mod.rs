//! Element energy kernels (DESIGN.md, Principle 3): energy, gradient and Hessian of one element
//! on a fixed-size stencil, with no heap allocation, so that assembly (shared, parallel) can call
//! them per element.
//!
//! So far: hyperelastic linear tetrahedra ([`elastic`]); thin objects: Discrete Elastic Rods
//! ([`rod`]), cloth membranes ([`membrane`]) and discrete-shell hinge bending ([`bending`]).

pub mod bending;
pub mod elastic;
pub mod membrane;
pub mod psd;
pub mod rod;
pub mod volume;

pub use elastic::{ElasticModel, Lame, Material, TetElement};
pub use psd::project_psd;
