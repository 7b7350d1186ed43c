//! Linear algebra shared by the pipelines and solvers.
pub mod anderson;
pub mod bicgstab;
pub mod gmres;
pub mod newton_solver;
pub mod qp;
pub mod sparse;
