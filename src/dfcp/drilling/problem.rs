//! The drilling problem `u = W r + q` in 4x4 block rows.

use crate::friction::cone::Cone;
use nalgebra::Matrix4;
use std::collections::BTreeMap;

/// A row-major 4x4 block.
pub type Block = [f64; 16];

/// `u = W r + q` with four rows per contact (see [`super`]).
#[derive(Clone, Debug)]
pub struct DrillingProblem {
    /// `row_ptr[c]..row_ptr[c + 1]` indexes the off-diagonal blocks of block row `c`.
    row_ptr: Vec<usize>,
    col: Vec<usize>,
    val: Vec<Block>,
    /// Diagonal blocks (zero if absent).
    pub diag: Vec<Block>,
    pub q: Vec<f64>,
    pub cones: Vec<Cone>,
    /// Per contact, the drilling coefficient `μ_τ` (m; 0: no torque).
    pub mu_tau: Vec<f64>,
}

impl DrillingProblem {
    /// The problem from `W`'s nonzero blocks `(c, d)`, its `q` (`4 nc`) and the contacts' laws.
    pub fn new(
        blocks: &BTreeMap<(usize, usize), Matrix4<f64>>,
        q: Vec<f64>,
        cones: Vec<Cone>,
        mu_tau: Vec<f64>,
    ) -> Result<Self, String> {
        let nc = cones.len();
        if q.len() != 4 * nc || mu_tau.len() != nc {
            return Err(format!("{} velocities and {} coefficients for {nc} contacts", q.len(), mu_tau.len()));
        }
        if let Some(i) = q.iter().position(|v| !v.is_finite()) {
            return Err(format!("q[{i}] is not finite"));
        }
        if let Some(c) = mu_tau.iter().position(|m| !(m.is_finite() && *m >= 0.0)) {
            return Err(format!("contact {c}: mu_tau = {} (must be finite and >= 0)", mu_tau[c]));
        }
        let (mut row_ptr, mut col, mut val) = (vec![0usize; nc + 1], Vec::new(), Vec::new());
        let mut diag = vec![[0.0; 16]; nc];
        // The map is ordered by (c, d): the blocks come row by row.
        for (&(c, d), w) in blocks {
            if c >= nc || d >= nc {
                return Err(format!("block ({c}, {d}) outside {nc} contacts"));
            }
            if !w.iter().all(|v| v.is_finite()) {
                return Err(format!("block ({c}, {d}) is not finite"));
            }
            let b: Block = std::array::from_fn(|k| w[(k / 4, k % 4)]);
            if c == d {
                diag[c] = b;
            } else {
                col.push(d);
                val.push(b);
                row_ptr[c + 1] = col.len();
            }
        }
        for c in 0..nc {
            row_ptr[c + 1] = row_ptr[c + 1].max(row_ptr[c]);
        }
        Ok(DrillingProblem { row_ptr, col, val, diag, q, cones, mu_tau })
    }

    pub fn nc(&self) -> usize {
        self.cones.len()
    }

    /// `sum_{d != c} W_cd x_d`.
    #[inline]
    pub fn off_diag_row(&self, c: usize, x: &[f64]) -> [f64; 4] {
        let mut y = [0.0; 4];
        for k in self.row_ptr[c]..self.row_ptr[c + 1] {
            add_block_product(&self.val[k], &x[4 * self.col[k]..4 * self.col[k] + 4], &mut y);
        }
        y
    }

    /// `u_c = (W r + q)_c`.
    #[inline]
    pub fn contact_velocity(&self, c: usize, r: &[f64]) -> [f64; 4] {
        let mut u = self.off_diag_row(c, r);
        add_block_product(&self.diag[c], &r[4 * c..4 * c + 4], &mut u);
        std::array::from_fn(|i| u[i] + self.q[4 * c + i])
    }

    /// `u = W r + q`.
    pub fn velocity(&self, r: &[f64], u: &mut [f64]) {
        for c in 0..self.nc() {
            u[4 * c..4 * c + 4].copy_from_slice(&self.contact_velocity(c, r));
        }
    }

    /// The scale `S = diag(1, μ_t, μ_b, μ_τ) / μ` of contact `c` (see [`super`]); the last
    /// entry is 1 for a contact without torque, whose `r_τ` is held at zero instead.
    pub fn scale(&self, c: usize) -> [f64; 4] {
        let k = &self.cones[c];
        let [st, sb] = k.scale();
        let mu = k.mu_ref();
        let tau = if self.mu_tau[c] > 0.0 && mu > 0.0 { self.mu_tau[c] / mu } else { 1.0 };
        [1.0, st, sb, tau]
    }

    /// Whether contact `c` takes a torque.
    pub fn drills(&self, c: usize) -> bool {
        self.mu_tau[c] > 0.0 && self.cones[c].mu_ref() > 0.0
    }
}

#[inline]
fn add_block_product(b: &Block, x: &[f64], y: &mut [f64; 4]) {
    for i in 0..4 {
        y[i] += b[4 * i] * x[0] + b[4 * i + 1] * x[1] + b[4 * i + 2] * x[2] + b[4 * i + 3] * x[3];
    }
}
