//! The discrete frictional contact problem (DFCP): problem types, residual, FCLib I/O, solvers.
pub mod admm;
pub mod block_rows;
pub mod coloring;
pub mod dispatch;
pub mod fb_newton;
pub mod fclib;
pub mod gauss_seidel;
pub mod global_reduction;
pub mod pgs_lcp;
pub mod problem;
pub mod prox;
pub mod residual;
pub mod solver;
pub mod staggered_projections;
