//! Hyperelasticity on linear tetrahedra.
//!
//! - [`material`]: the strain-energy densities Ψ(F), their first Piola–Kirchhoff stress
//!   P = ∂Ψ/∂F and the stiffness ∂P/∂F (a 9×9 matrix in the column-major `vec(F)` convention).
//! - [`tet`]: the linear tetrahedron, which maps the 12 nodal coordinates to F and the stress
//!   derivatives back to nodal forces and a 12×12 stiffness matrix.

pub mod material;
pub mod tet;

pub use material::{ElasticModel, Lame, Material, StressLinearization};
pub use tet::TetElement;
