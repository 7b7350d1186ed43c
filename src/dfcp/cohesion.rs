//! Cohesion (004 §6.3, extension 1): a constant attraction `ξ_c` on contact `c` turns Signorini's
//! condition into `−ξ_c h ≤ r_N ⊥ u_N ≥ 0` (impulses over a step `h`), with friction bounded by
//! `μ (r_N + ξ_c h)`. That is the plain DFCP in the shifted impulse `r' = r + e`,
//! `e_c = (ξ_c h, 0, 0)`:
//! - local form `u = W r + q = W r' + (q − W e)`;
//! - global form `M v = f + H r = (f − H e) + H r'`;
//!
//! so every solver serves unchanged: the problem is shifted before the solve (and warm starts
//! into `r'`), the impulses shifted back after it. 004 applies the same shift inside its
//! projection (`p_j += γ (r̄_c − s_c ξ_c n_c)`).

use super::problem::{Csc, GlobalProblem, LocalProblem};

/// The shift `e` of a step's contacts (3 entries per contact, the normal one `ξ_c h`).
pub struct Cohesion {
    e: Vec<f64>,
}

impl Cohesion {
    /// The shift of contacts with cohesive impulses `impulses` (`ξ_c h`, N s); `None` when all
    /// are zero (nothing to shift).
    pub fn new(impulses: impl ExactSizeIterator<Item = f64>) -> Option<Self> {
        let mut e = vec![0.0; 3 * impulses.len()];
        let mut any = false;
        for (c, x) in impulses.enumerate() {
            e[3 * c] = x;
            any |= x != 0.0;
        }
        any.then_some(Cohesion { e })
    }

    /// `q ← q − W e`.
    pub fn shift_local(&self, p: &mut LocalProblem) {
        self.subtract_times(&p.w, &mut p.q);
    }

    /// `f ← f − H e`.
    pub fn shift_global(&self, g: &mut GlobalProblem) {
        self.subtract_times(&g.h, &mut g.f);
    }

    /// `out ← out − A e` (A with a column per entry of `e`).
    fn subtract_times(&self, a: &Csc, out: &mut [f64]) {
        let a = a.as_ref();
        for (j, &ej) in self.e.iter().enumerate().filter(|x| *x.1 != 0.0) {
            for (&i, &v) in a.row_idx_of_col_raw(j).iter().zip(a.val_of_col(j)) {
                out[i] -= v * ej;
            }
        }
    }

    /// Impulses to shifted ones, `r' = r + e` (warm starts), over the contacts `e` covers.
    pub fn shift_impulses(&self, r: &mut [f64]) {
        r.iter_mut().zip(&self.e).for_each(|(x, e)| *x += e);
    }

    /// Shifted impulses back, `r = r' − e`.
    pub fn unshift_impulses(&self, r: &mut [f64]) {
        r.iter_mut().zip(&self.e).for_each(|(x, e)| *x -= e);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dfcp::solver::SolverOptions;
    use crate::friction::cone::Cone;
    use faer::sparse::Triplet;

    /// One contact, `W = w I`, free velocity `q = (−g h, 0, 0)` pulling it open with impulse
    /// `m g h` (w = 1/m): stuck iff `ξ ≥ m g`. The shifted problem, solved by a GS solver, gives
    /// `r_N = −m g h` (holding) for `ξ h` above it and `−ξ h` (pulled off, `u_N > 0`) below.
    #[test]
    fn a_contact_holds_iff_the_pull_is_below_the_cohesion() {
        let (m, g, h) = (2.0, 9.81, 1e-2);
        let t: Vec<_> = (0..3).map(|i| Triplet::new(i, i, 1.0 / m)).collect();
        let w = faer::sparse::SparseColMat::try_new_from_triplets(3, 3, &t).unwrap();
        for xi in [0.95 * m * g, 1.05 * m * g] {
            let mut p =
                LocalProblem::new(w.clone(), vec![g * h, 0.0, 0.0], vec![Cone::isotropic(0.5).unwrap()]).unwrap();
            // The pull: a velocity away from the contact is `+` in `u_N`, so the open velocity
            // g h is the body falling away from a ceiling.
            let c = Cohesion::new([xi * h].into_iter()).unwrap();
            c.shift_local(&mut p);
            let (mut r, mut u) = (vec![0.0; 3], vec![0.0; 3]);
            let rep = crate::dfcp::gauss_seidel::solve(&p, &mut r, &mut u, &SolverOptions::new(1e-12, 100));
            assert!(rep.converged, "{rep}");
            c.unshift_impulses(&mut r);
            let holds = xi >= m * g;
            let want = if holds { -m * g * h } else { -xi * h };
            assert!((r[0] - want).abs() < 1e-12, "xi {xi}: r_N {} vs {want}", r[0]);
            assert_eq!(u[0] > 1e-12, !holds, "xi {xi}: u_N {}", u[0]);
        }
    }
}
