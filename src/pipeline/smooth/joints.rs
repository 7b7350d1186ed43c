//! Joints in the Smooth step, as constraints of the predictor: the rigid bodies' velocities are
//! kept to those the joints allow, `w = Q z + c` (`rigid::joint_space`: per articulated
//! component an orthonormal basis `N` of the null space of its rows and the least-norm velocity
//! `c` meeting them; identity columns for a body no joint links, none for a scripted body).
//!
//! - The predictor starts from the projection `c + Q Qᵀ (w − c)` of its guess and takes its
//!   rigid Newton directions in `z`: the rigid block `S = M_r + A_rᵀ D A_r` becomes `Qᵀ S Q`, its
//!   coupling to the nodes `Qᵀ Bᵀ`, and the stationarity it measures on the rigid unknowns is
//!   `Q Qᵀ r_d` (the joints' impulses `Gᵀ λ` are the rest of `r_d`).
//! - The friction step and the corrector move the rigid bodies by `P f`, `P = Q (Qᵀ M_r Q)⁻¹ Qᵀ`
//!   (the joints' response: a push on one body of a component moves the others), for `M⁻¹`.
//!
//! Motors are not taken (their torque limit is an active set on impulses the predictor does not
//! expose; validation refuses them outside `Nonsmooth`). Position errors left by the step are
//! removed after it as in the other pipelines (`nonsmooth::joints::project_positions`).

use super::layout::Layout;
use crate::model::Model;
use crate::rigid::RigidBody;
use crate::rigid::joint_space;
use nalgebra::{DMatrix, DVector};

/// The rigid velocities the joints allow (module doc), over the layout's `6 nr` rigid entries.
pub struct RigidSpace {
    pub q: DMatrix<f64>,
    pub c: DVector<f64>,
    /// `P = Q (Qᵀ M_r Q)⁻¹ Qᵀ`.
    pub response: DMatrix<f64>,
}

impl RigidSpace {
    /// The space at the bodies' start-of-step poses (`bodies` holding the scripted ones'
    /// prescribed velocities); `None` without joints.
    pub fn new(model: &Model, layout: &Layout, bodies: &[RigidBody], h: f64) -> Option<RigidSpace> {
        if model.joints.is_empty() {
            return None;
        }
        let nr = layout.rigid.len();
        let dynamic: Vec<bool> = layout.rigid.iter().map(|r| !r.kinematic).collect();
        let comps = joint_space::components(&model.joints, &dynamic, bodies, false);
        let mut jointed = vec![false; nr];
        let mut columns: Vec<DVector<f64>> = Vec::new();
        let mut c = DVector::zeros(6 * nr);
        for (members, rows) in &comps {
            let known = |b: usize| Some(std::array::from_fn(|d| bodies[b].velocity()[d]));
            let (g, rhs) = joint_space::active_rows(rows, &vec![0.0; rows.len()], members, known, h);
            let (basis, particular) = joint_space::allowed(&g, &rhs);
            for (l, &b) in members.iter().enumerate() {
                jointed[b] = true;
                c.rows_mut(6 * b, 6).copy_from(&particular.rows(6 * l, 6));
            }
            for k in 0..basis.ncols() {
                let mut col = DVector::zeros(6 * nr);
                for (l, &b) in members.iter().enumerate() {
                    col.rows_mut(6 * b, 6).copy_from(&basis.view((6 * l, k), (6, 1)));
                }
                columns.push(col);
            }
        }
        for b in (0..nr).filter(|&b| dynamic[b] && !jointed[b]) {
            for d in 0..6 {
                columns.push(DVector::from_fn(6 * nr, |i, _| if i == 6 * b + d { 1.0 } else { 0.0 }));
            }
        }
        let q = DMatrix::from_columns(&columns);
        let mut m = DMatrix::zeros(6 * nr, 6 * nr);
        for b in (0..nr).filter(|&b| dynamic[b]) {
            let (l, a) = layout.pseudo_nodes(b);
            m.view_mut((6 * b, 6 * b), (3, 3)).copy_from(&layout.mass(model, l));
            m.view_mut((6 * b + 3, 6 * b + 3), (3, 3)).copy_from(&layout.mass(model, a));
        }
        let reduced = (q.transpose() * &m * &q).cholesky()?;
        let response = &q * reduced.solve(&q.transpose());
        Some(RigidSpace { q, c, response })
    }

    /// `w ← c + Q Qᵀ (w − c)` for the rigid entries `w` (6 per body).
    pub fn project(&self, w: &mut [f64]) {
        let d = DVector::from_column_slice(w) - &self.c;
        let p = &self.c + &self.q * (self.q.tr_mul(&d));
        w.copy_from_slice(p.as_slice());
    }

    /// `r ← Q Qᵀ r`: the part of a rigid residual the allowed velocities see.
    pub fn project_residual(&self, r: &mut [f64]) {
        let p = &self.q * self.q.tr_mul(&DVector::from_column_slice(r));
        r.copy_from_slice(p.as_slice());
    }
}
