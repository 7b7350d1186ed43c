//! The discrete frictional contact problem (DFCP): problem types, residual, FCLib I/O, solvers.
//!
//! Local form `u = W r + q`, global form `M v = H r + f`, `u = H^T v + w`; per contact
//! `(u_c, r_c)` satisfies Signorini + Coulomb on an isotropic or elliptic cone. Every solver takes
//! a warm start, honours `SolverOptions {tol, max_iter, max_time}`, stops on Siconos's relative
//! natural-map error and reports `converged` only when the final measured error is `<= tol`.
//!
//! | solver | form | module |
//! |---|---|---|
//! | block Gauss–Seidel, exact local solver | local | [`gauss_seidel`] |
//! | Fischer–Burmeister SOC Newton | local | [`fb_newton`] |
//! | PROX GS with r-factors (003 Alg. 2) | local | [`prox`] |
//! | PROX GS with drilling torque (003 §2.7), four rows per contact | local | [`drilling`] |
//! | proximal point around FB Newton (Siconos's PROX) | local | [`prox_point`] |
//! | ADMM with an adaptive penalty | local | [`local_admm`] |
//! | PGS on the box LCP (002 baseline) | local | [`pgs_lcp`] |
//! | PGS on the LCP of a polygon inscribed in the ellipse (003 baseline) | local | [`pgs_polygon`] |
//! | Lemke on the Stewart–Trinkle LCP (002 baseline) | local | [`lemke_st`] |
//! | regularised PGS on the Stewart–Trinkle LCP (002 baseline) | local | [`regularised_lcp`] |
//! | SQP on 002's program (5.32), QPs by Clarabel (002 baseline) | local | [`sqp`] |
//! | Staggered Projections (002 Alg. 1) | local | [`staggered_projections`] |
//! | Staggered Projections in polar form (000 §5.5.2) | local | [`polar_sp`] |
//! | nodal ADMM + matrix-free coloured GS (004 Alg. 2–3) | global | [`admm`] |
//! | ADMM in the bodies' velocities, contact velocities split off (Siconos's global ADMM) | global, or local with `W = G Gᵀ` | [`velocity_admm`] |
//! | any local solver on the Delassus form | global | [`global_reduction`] |
//!
//! [`dispatch`] selects a solver by name for either form (`auto` is the robust default).
pub mod admm;
pub mod block_rows;
pub mod cohesion;
pub mod coloring;
pub mod compliance;
pub mod contact_scaling;
pub mod diagnostics;
pub mod dispatch;
pub mod drilling;
pub mod fb_newton;
pub mod fclib;
pub mod gauss_seidel;
pub mod global_reduction;
pub mod isotropic;
pub mod lemke_st;
pub mod local_admm;
pub mod nl_ica;
pub mod par_kernels;
pub mod pgs_lcp;
pub mod pgs_polygon;
pub mod polar_newton;
pub mod polar_sp;
pub mod problem;
pub mod prox;
pub mod prox_point;
pub mod regularised_lcp;
pub mod residual;
pub mod solver;
pub mod sqp;
pub mod staggered_projections;
pub mod stewart_trinkle;
pub mod synthetic;
pub mod velocity_admm;
