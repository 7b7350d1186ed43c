//! Per-contact scaling of a contact problem to consistent units, for the pipelines' stopping
//! test.
//!
//! The natural-map measure of FCLib and Siconos, `|F(r, u)| / max(|q|, |r|, |u|)`, adds
//! impulses (N s) to velocities (m/s). On a contact whose Delassus block is far from 1 (a hair
//! node of 0.4 mg has `W_cc ≈ 3e6 1/kg`) it accepts what is not a solution: an impulse of 1e-9
//! N s on a separating hair contact is an error of 1e-9 against velocities of 1e-2 m/s, within
//! any tolerance, yet it throws the node off at 3 mm/s a step, and a warm start that keeps
//! it passes the test again each step. Scaling contact c by `d_c = 1/√w_c` (`w_c` the mean of
//! its Delassus diagonal), `r = D r'`, `u' = D u`, `W' = D W D`, `q' = D q`, puts impulses and
//! velocities in the same unit (√kg m/s): the same measure on `(r', u')` is then a measure of
//! the physics. A scalar per contact maps every cone (circular or elliptic) and its dual onto
//! themselves, so `(r', u')` solves the scaled problem exactly when `(r, u)` solves the
//! original, and every solver serves unchanged.
//!
//! FCLib problems and the solver comparisons keep Siconos's measure on the unscaled problem.

use super::problem::{Csc, GlobalProblem, LocalProblem, ProblemError};

/// Per contact, its scale `d_c`.
pub struct ContactScaling {
    d: Vec<f64>,
}

impl ContactScaling {
    /// `d_c = 1/√w_c` from the mean of each contact's Delassus diagonal (1 where that is not
    /// positive and finite: a contact no body can move keeps its units).
    pub fn of(p: &LocalProblem) -> ContactScaling {
        let d = p
            .blocks
            .diag
            .iter()
            .map(|b| {
                let w = (b[0] + b[4] + b[8]) / 3.0;
                if w > 0.0 && w.is_finite() { 1.0 / w.sqrt() } else { 1.0 }
            })
            .collect();
        ContactScaling { d }
    }

    /// `W' = D W D`, `q' = D q` (and the factor `G' = D G`).
    pub fn local(&self, p: &LocalProblem) -> Result<LocalProblem, ProblemError> {
        let q = p.q.iter().enumerate().map(|(i, q)| q * self.d[i / 3]).collect();
        let scaled = LocalProblem::new(self.scaled(&p.w, true, true), q, p.cones.clone())?;
        match &p.factor {
            Some(g) => scaled.with_factor(self.scaled(g, true, false)),
            None => Ok(scaled),
        }
    }

    /// The global problem with `H' = H D`, `w' = D w`: its impulses are `r' = D⁻¹ r` and its
    /// contact velocities `u' = D u`; `v` is unchanged.
    pub fn global(&self, g: &GlobalProblem) -> Result<GlobalProblem, ProblemError> {
        let w = g.w.iter().enumerate().map(|(i, w)| w * self.d[i / 3]).collect();
        GlobalProblem::new(g.m.clone(), self.scaled(&g.h, false, true), g.f.clone(), w, g.cones.clone())
    }

    /// `r' = D⁻¹ r` in place.
    pub fn to_scaled_impulse(&self, r: &mut [f64]) {
        r.iter_mut().enumerate().for_each(|(i, r)| *r /= self.d[i / 3]);
    }

    /// `r = D r'` and `u = D⁻¹ u'` in place.
    pub fn to_original(&self, r: &mut [f64], u: &mut [f64]) {
        r.iter_mut().enumerate().for_each(|(i, r)| *r *= self.d[i / 3]);
        u.iter_mut().enumerate().for_each(|(i, u)| *u /= self.d[i / 3]);
    }

    /// A copy of `m` with its contact rows and/or columns scaled (same pattern, values scaled
    /// in place).
    fn scaled(&self, m: &Csc, rows: bool, cols: bool) -> Csc {
        let mut out = m.clone();
        let (col_ptr, row_idx) = (m.symbolic().col_ptr(), m.symbolic().row_idx());
        let vals = out.val_mut();
        for j in 0..m.ncols() {
            let cj = if cols { self.d[j / 3] } else { 1.0 };
            for e in col_ptr[j]..col_ptr[j + 1] {
                let ri = if rows { self.d[row_idx[e] / 3] } else { 1.0 };
                // In the order `v ri cj` of the matrix it replaces (bit for bit).
                vals[e] = vals[e] * ri * cj;
            }
        }
        out
    }
}
