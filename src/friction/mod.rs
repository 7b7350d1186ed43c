pub mod cone;
pub mod local_solver;
