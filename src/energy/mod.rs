//! Element energy kernels (DESIGN.md, Principle 3): energy, gradient and Hessian of one element
//! on a fixed-size stencil, with no heap allocation, so that assembly (shared, parallel) can call
//! them per element.
//!
//! So far: hyperelastic linear tetrahedra ([`elastic`]).

pub mod elastic;
pub mod psd;

pub use elastic::{ElasticModel, Lame, Material, TetElement};
pub use psd::project_psd;
