//! Contact compliance (004 §6.3, extension 2): each compliant contact gets a virtual 3D slack
//! velocity `s_c` with inertia `m_c`, `u_c = H_cᵀ v + s_c + w_c`, `m_c s_c = r_c`, so the contact
//! gives way by `s_c = r_c / m_c` where it pushes. With `m_c = h² k_c` (`k_c = 1 / compliance`)
//! that is a spring of stiffness `k_c` in series with the contact: it settles at a penetration
//! (and an elastic tangential stick) of force / k_c. Finite compliance on every contact also
//! makes the problem solvable where rigid contacts over-constrain it (Acary 2011).
//!
//! - local form: `W ← W + diag(1/m_c)` on each compliant contact's block;
//! - global form: the slack dofs appended to `v` with mass `m_c` and identity rows in `H`
//!   (004's construction), so every global solver serves unchanged.

use super::problem::{Csc, GlobalProblem, LocalProblem, ProblemError, csc_from_triplets};
use faer::sparse::Triplet;

/// The compliant contacts of a step: per contact, `1/m_c = compliance / h²` (0: rigid).
pub struct Compliance {
    give: Vec<f64>,
}

impl Compliance {
    /// From each contact's compliance (m/N) over a step `h`; `None` when no contact is compliant.
    pub fn new(compliance: impl ExactSizeIterator<Item = f64>, h: f64) -> Option<Self> {
        let give: Vec<f64> = compliance.map(|c| c / (h * h)).collect();
        give.iter().any(|&g| g > 0.0).then_some(Compliance { give })
    }

    /// `W + diag(1/m_c)` (a factor `G` of `W` no longer factors it, so the result has none).
    pub fn regularise_local(&self, p: LocalProblem) -> Result<LocalProblem, ProblemError> {
        let w = p.w.as_ref();
        let mut t = Vec::with_capacity(w.compute_nnz() + 3 * self.give.len());
        for j in 0..w.ncols() {
            for (&i, &v) in w.row_idx_of_col_raw(j).iter().zip(w.val_of_col(j)) {
                t.push(Triplet::new(i, j, v));
            }
        }
        for (c, &g) in self.give.iter().enumerate() {
            for k in 0..3 {
                t.push(Triplet::new(3 * c + k, 3 * c + k, g));
            }
        }
        let n = w.nrows();
        let w = csc_from_triplets(n, n, &t).map_err(ProblemError::Assembly)?;
        LocalProblem::new(w, p.q, p.cones)
    }

    /// The problem with a slack dof triple per compliant contact appended after `g`'s dofs.
    pub fn augment_global(&self, g: &GlobalProblem) -> Result<GlobalProblem, ProblemError> {
        let (n, nc) = (g.ndof(), g.nc());
        let slack: Vec<usize> = (0..nc).filter(|&c| self.give[c] > 0.0).collect();
        let m_new = n + 3 * slack.len();
        let (mr, hr) = (g.m.as_ref(), g.h.as_ref());
        let mut tm = Vec::with_capacity(mr.compute_nnz() + 3 * slack.len());
        for j in 0..n {
            for (&i, &v) in mr.row_idx_of_col_raw(j).iter().zip(mr.val_of_col(j)) {
                tm.push(Triplet::new(i, j, v));
            }
        }
        let mut th = Vec::with_capacity(hr.compute_nnz() + 3 * slack.len());
        for j in 0..3 * nc {
            for (&i, &v) in hr.row_idx_of_col_raw(j).iter().zip(hr.val_of_col(j)) {
                th.push(Triplet::new(i, j, v));
            }
        }
        for (k, &c) in slack.iter().enumerate() {
            for d in 0..3 {
                let dof = n + 3 * k + d;
                tm.push(Triplet::new(dof, dof, 1.0 / self.give[c]));
                th.push(Triplet::new(dof, 3 * c + d, 1.0));
            }
        }
        let m: Csc = csc_from_triplets(m_new, m_new, &tm).map_err(ProblemError::Assembly)?;
        let h: Csc = csc_from_triplets(m_new, 3 * nc, &th).map_err(ProblemError::Assembly)?;
        let mut f = g.f.clone();
        f.resize(m_new, 0.0);
        GlobalProblem::new(m, h, f, g.w.clone(), g.cones.clone())
    }

    /// The contacts' own velocities from the solver's `u` (which includes the slack): `u − r/m_c`.
    pub fn contact_velocity(&self, r: &[f64], u: &mut [f64]) {
        for (c, &g) in self.give.iter().enumerate() {
            for k in 0..3 {
                if let (Some(x), Some(rv)) = (u.get_mut(3 * c + k), r.get(3 * c + k)) {
                    *x -= g * rv;
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dfcp::solver::SolverOptions;
    use crate::friction::cone::Cone;

    /// One contact under a resting mass pressed with impulse `m g h` per step: rigid, it pushes
    /// `r_N = m g h` at `u_N = 0`; compliant, the same force with the contact giving way at
    /// `u_N = −r_N / m_c` (the spring's compression rate). Local and global forms agree.
    #[test]
    fn a_compliant_contact_gives_way_by_force_over_its_slack_inertia() {
        let (m, g, h, compliance) = (2.0, 9.81, 1e-2, 1e-4);
        let t: Vec<_> = (0..3).map(|i| Triplet::new(i, i, 1.0 / m)).collect();
        let w = faer::sparse::SparseColMat::try_new_from_triplets(3, 3, &t).unwrap();
        let cones = vec![Cone::isotropic(0.5).unwrap()];
        let c = Compliance::new([compliance].into_iter(), h).unwrap();
        let p = c.regularise_local(LocalProblem::new(w, vec![-g * h, 0.0, 0.0], cones.clone()).unwrap()).unwrap();
        let (mut r, mut u) = (vec![0.0; 3], vec![0.0; 3]);
        let rep = crate::dfcp::gauss_seidel::solve(&p, &mut r, &mut u, &SolverOptions::new(1e-14, 100));
        assert!(rep.converged, "{rep}");
        // u = (1/m + give) r − g h = 0 at the solution: r = g h / (1/m + give).
        let give = compliance / (h * h);
        let want = g * h / (1.0 / m + give);
        assert!((r[0] - want).abs() < 1e-14 * want.max(1.0), "{} vs {want}", r[0]);
        c.contact_velocity(&r, &mut u);
        assert!((u[0] + give * r[0]).abs() < 1e-12, "contact velocity {}", u[0]);
        // Global form: M = m I on 3 dofs, H = I, f = m v_free with the contact frame = world.
        let mt: Vec<_> = (0..3).map(|i| Triplet::new(i, i, m)).collect();
        let ht: Vec<_> = (0..3).map(|i| Triplet::new(i, i, 1.0)).collect();
        let gp = GlobalProblem::new(
            faer::sparse::SparseColMat::try_new_from_triplets(3, 3, &mt).unwrap(),
            faer::sparse::SparseColMat::try_new_from_triplets(3, 3, &ht).unwrap(),
            vec![-m * g * h, 0.0, 0.0],
            vec![0.0; 3],
            cones,
        )
        .unwrap();
        let ga = c.augment_global(&gp).unwrap();
        assert_eq!(ga.ndof(), 6);
        let (mut rg, mut v) = (vec![0.0; 3], vec![0.0; 6]);
        let opts = SolverOptions::new(1e-12, 1000);
        let rep = crate::dfcp::admm::solve(&ga, &mut rg, &mut v, &opts, &Default::default()).unwrap();
        assert!(rep.converged, "{rep}");
        assert!((rg[0] - want).abs() < 1e-9 * want, "global {} vs {want}", rg[0]);
    }
}
