//! What `newton.linear_solver: Auto` resolves to: `Gmres` (the assembled Jacobian, preconditioned
//! by a sparse Cholesky of its symmetric part) or `Iterative` (001's matrix-free Newton, BiCGSTAB
//! on Jacobian-vector products).
//!
//! Block Jacobi is nearly exact where mass dominates stiffness over a step (`h² k / m` small) and
//! needs no factor, so there the matrix-free solver wins on time and memory; as the bodies stiffen
//! its iterations grow and the assembled Cholesky takes over.

use super::stiffness_cholesky::{StiffnessCholesky, choice, stiffness_ratio};
use super::system::System;
use crate::model::Model;
use crate::scene::schema::{LinearSolverSpec, NewtonSpec};

/// `Auto` goes matrix-free for solids (no cloth, no volume penalty) with `h² k / m` at most this,
/// where `newton.preconditioner` gives them block Jacobi. Measured on 2 cores at 252a965 (block
/// Jacobi's products by node blocks), s/step `Gmres` against `Iterative` over 20 steps of the
/// 1 m ramp block at 6000 tets: E × 5.5 (ratio 150) 0.070 against 0.033; E × 11 (300) 0.060
/// against 0.039; E × 22 (600) 0.054 against 0.048; E × 44 (1200) 0.048 against 0.053; E × 88
/// (2400) 0.045 against 0.055. Larger blocks favour matrix-free more, their factors filling in:
/// 48000 tets at ratio 114, 3.54 against 0.66 s/step (`scripts/perf_penalty_solvers.sh`, before
/// the node blocks). The bound sits at the last ratio measured below the 6000-tet block's
/// break-even.
pub const MATRIX_FREE_RATIO: f64 = 600.0;

/// Whether `newton` runs matrix-free on `model` (`Iterative` always, `Gmres` and `Lu` never,
/// `Auto` by the rule above). The volume penalty stays assembled under `Auto`: its
/// `volume.jacobian` choice belongs to the assembled Jacobian, and the ratio does not see it.
pub fn is_matrix_free(model: &Model, newton: &NewtonSpec) -> bool {
    match newton.linear_solver {
        LinearSolverSpec::Iterative => true,
        LinearSolverSpec::Gmres | LinearSolverSpec::Lu => false,
        LinearSolverSpec::Auto => {
            model.cloths.is_empty()
                && !model.solids.is_empty()
                && model.volume_zones().next().is_none()
                && stiffness_ratio(model) <= MATRIX_FREE_RATIO
                && !choice(model, newton.preconditioner, || StiffnessCholesky::sizes(&System::new(model, false)))
        }
    }
}

/// `solver` as the run summaries name it, with what `Auto` resolved to.
pub fn name(solver: LinearSolverSpec, matrix_free: bool) -> String {
    match (solver, matrix_free) {
        (LinearSolverSpec::Auto, true) => "Auto (Iterative: matrix-free)".into(),
        (LinearSolverSpec::Auto, false) => "Auto (Gmres: assembled)".into(),
        (s, _) => format!("{s:?}"),
    }
}
