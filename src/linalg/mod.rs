//! Linear algebra shared by the pipelines.
pub mod gmres;
pub mod newton_solver;
pub mod sparse;
