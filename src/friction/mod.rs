//! Friction laws: smoothed Coulomb/Stribeck (penalty pipeline), Coulomb cones and their exact
//! projections, and one-contact exact solvers (DFCP layer).
pub mod cone;
pub mod local_solver;
pub mod matchstick;
pub mod smooth;
pub mod structure_field;
pub mod texture;
