//! The bridge to Clarabel (interior-point QP solver): its sparse matrix from ours, and the
//! settings fricsim's QPs use.

use crate::dfcp::problem::Csc;
use clarabel::algebra::CscMatrix;
use clarabel::solver::{DefaultSettings, DefaultSettingsBuilder};

/// Clarabel's CSC matrix with the entries of `m` (a copy: its own type).
pub fn matrix(m: &Csc) -> CscMatrix<f64> {
    let m = m.as_ref();
    let (mut colptr, mut rowval, mut nzval) = (vec![0usize], Vec::new(), Vec::new());
    for j in 0..m.ncols() {
        rowval.extend_from_slice(m.row_idx_of_col_raw(j));
        nzval.extend_from_slice(m.val_of_col(j));
        colptr.push(rowval.len());
    }
    CscMatrix::new(m.nrows(), m.ncols(), colptr, rowval, nzval)
}

/// Quiet, no presolve (its data may then be updated between solves), gap and feasibility
/// tolerances `tol`, at most `time_limit` seconds per solve.
pub fn settings(tol: f64, time_limit: f64) -> Result<DefaultSettings<f64>, String> {
    DefaultSettingsBuilder::default()
        .verbose(false)
        .presolve_enable(false)
        .tol_gap_abs(tol)
        .tol_gap_rel(tol)
        .tol_feas(tol)
        .time_limit(time_limit)
        .build()
        .map_err(|e| format!("QP settings: {e}"))
}
