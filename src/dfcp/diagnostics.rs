//! 002's diagnostics of a contact step (issue: `diagnostics: true`), for any solver's answer:
//! - the min-map residual of the Stewart–Trinkle LCP (5.27) at the answer, relative, on the
//!   equilibrated LCP of [`StewartTrinkle`];
//! - the objective (5.32), zero exactly at the polygon's Coulomb solutions;
//! - the multi-contact Painlevé angle θ_{N,D} (6.42): the smallest principal angle, in the
//!   kinetic metric `M⁻¹`, between the span of the contact normals and that of the friction
//!   directions, over the contacts that push (`r_N > 0`: 002 §6.6, only the active directions
//!   matter). Where the active contacts outnumber the bodies' degrees of freedom the two spans
//!   must meet and θ is 0 (the 4-level card house: about 200 active contacts on 156 dofs).
//!
//! The angle from the Delassus blocks alone: with `W_NN = U_N Λ_N U_Nᵀ` and `W_TT = U_T Λ_T U_Tᵀ`
//! (the Gram matrices of `N` and `T` in `M⁻¹`), `Q_N = M^{-1/2} N U_N Λ_N^{-1/2}` and likewise
//! `Q_T` are orthonormal bases of the two spans (eigenvalues below 1e-12 of the largest are the
//! null space of redundant contacts and dropped), so the cosines of the principal angles are the
//! singular values of `Q_Nᵀ Q_T = Λ_N^{-1/2} U_Nᵀ W_NT U_T Λ_T^{-1/2}`; the largest gives θ. The
//! tangent pair spans the same space as any polygon's samples (k >= 3).

use super::problem::LocalProblem;
use super::stewart_trinkle::StewartTrinkle;
use nalgebra::{DMatrix, SymmetricEigen};

#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Diagnostics {
    pub lcp_residual: f64,
    pub objective: f64,
    /// θ_{N,D} in degrees (90: decoupled; 0: a normal direction lies in the friction span).
    pub painleve_deg: f64,
}

/// The diagnostics of the answer `(r, u)` of `p`, on the polygon of `k` samples.
pub fn diagnose(p: &LocalProblem, r: &[f64], u: &[f64], k: usize) -> Diagnostics {
    let st = StewartTrinkle::new(p, k);
    let y = st.lcp_vector(r, u);
    Diagnostics {
        lcp_residual: st.residual(&y).rel,
        objective: st.objective(r, u, &y),
        painleve_deg: painleve_angle(p, &(0..p.nc()).map(|c| r[3 * c] > 0.0).collect::<Vec<_>>()).to_degrees(),
    }
}

/// θ_{N,D} in radians over the contacts marked `active` (π/2 without any).
pub fn painleve_angle(p: &LocalProblem, active: &[bool]) -> f64 {
    // Dense index of each active contact.
    let mut index = vec![usize::MAX; p.nc()];
    let mut nc = 0;
    for (c, _) in active.iter().enumerate().filter(|(_, a)| **a) {
        index[c] = nc;
        nc += 1;
    }
    if nc == 0 {
        // nalgebra's eigen-decomposition panics on an empty matrix.
        return std::f64::consts::FRAC_PI_2;
    }
    let b = &p.blocks;
    let (mut wnn, mut wtt, mut wnt) =
        (DMatrix::zeros(nc, nc), DMatrix::zeros(2 * nc, 2 * nc), DMatrix::zeros(nc, 2 * nc));
    let mut put = |c: usize, d: usize, w: &[f64; 9]| {
        let (c, d) = (index[c], index[d]);
        if c == usize::MAX || d == usize::MAX {
            return;
        }
        wnn[(c, d)] += w[0];
        for j in 0..2 {
            wnt[(c, 2 * d + j)] += w[1 + j];
            for i in 0..2 {
                wtt[(2 * c + i, 2 * d + j)] += w[3 * (1 + i) + 1 + j];
            }
        }
    };
    for c in 0..p.nc() {
        put(c, c, &b.diag[c]);
        for e in b.row_ptr[c]..b.row_ptr[c + 1] {
            put(c, b.col[e], &b.val[e]);
        }
    }
    let (qn, qt) = (whitening(wnn), whitening(wtt));
    if qn.ncols() == 0 || qt.ncols() == 0 {
        return std::f64::consts::FRAC_PI_2;
    }
    let k = qn.transpose() * wnt * qt;
    let cos = k.singular_values().iter().fold(0.0f64, |m, s| m.max(*s));
    cos.min(1.0).acos()
}

/// `U Λ^{-1/2}` over the eigenpairs of the symmetric part of `g` above 1e-12 of the largest
/// eigenvalue: whitens the span `g` is the Gram matrix of.
fn whitening(g: DMatrix<f64>) -> DMatrix<f64> {
    let sym = (&g + g.transpose()) * 0.5;
    let e = SymmetricEigen::new(sym);
    let top = e.eigenvalues.iter().fold(0.0f64, |m, l| m.max(*l));
    let keep: Vec<usize> = (0..e.eigenvalues.len()).filter(|&i| e.eigenvalues[i] > 1e-12 * top).collect();
    DMatrix::from_fn(g.nrows(), keep.len(), |i, j| e.eigenvectors[(i, keep[j])] / e.eigenvalues[keep[j]].sqrt())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dfcp::problem::csc_from_triplets;
    use crate::friction::cone::Cone;
    use faer::sparse::Triplet;

    fn problem(w: [[f64; 3]; 3], q: [f64; 3]) -> LocalProblem {
        let t: Vec<_> =
            (0..3).flat_map(|i| (0..3).map(move |j| (i, j))).map(|(i, j)| Triplet::new(i, j, w[i][j])).collect();
        LocalProblem::new(csc_from_triplets(3, 3, &t).unwrap(), q.to_vec(), vec![Cone::isotropic(0.5).unwrap()])
            .unwrap()
    }

    /// One contact whose normal and tangent are coupled with correlation ρ in the kinetic
    /// metric (`W = [[1, ρ, 0], [ρ, 1, 0], [0, 0, 1]]`): θ = acos ρ exactly; ρ = 0 is the
    /// orthogonal case (90°).
    #[test]
    fn single_contact_angle_is_the_metric_angle() {
        for rho in [0.0, 0.3, 0.9] {
            let p = problem([[1.0, rho, 0.0], [rho, 1.0, 0.0], [0.0, 0.0, 1.0]], [-1.0, 0.0, 0.0]);
            let th = painleve_angle(&p, &[true]);
            assert!((th - f64::acos(rho)).abs() < 1e-12, "rho {rho}: {th}");
        }
    }

    /// A particle sliding on the floor (`W = I`, pushed along t at 2 m/s, μ 0.5): the exact
    /// answer `r = (1, −0.5, 0)`, `u = (0, 1.5, 0)` has zero LCP residual and zero objective
    /// (`rᵀu = −0.75`, Coulomb term `λ' α = 0.5 · 1.5 · 1`); a wrong answer (no friction) does not.
    #[test]
    fn residual_and_objective_vanish_at_the_solution_only() {
        let p = problem([[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]], [-1.0, 2.0, 0.0]);
        let d = diagnose(&p, &[1.0, -0.5, 0.0], &[0.0, 1.5, 0.0], 8);
        assert!(d.lcp_residual < 1e-15 && d.objective.abs() < 1e-15, "{d:?}");
        assert!((d.painleve_deg - 90.0).abs() < 1e-12);
        assert_eq!(painleve_angle(&p, &[false]), std::f64::consts::FRAC_PI_2);
        let wrong = diagnose(&p, &[1.0, 0.0, 0.0], &[0.0, 2.0, 0.0], 8);
        // No friction: the Coulomb row's slack (α − Σβ = 1) beside λ' = 1 is a min-map entry of
        // order one on a vector of norm ~10 (0.072 relative); the objective is λ' α = 1.
        assert!(wrong.lcp_residual > 1e-2 && (wrong.objective - 1.0).abs() < 1e-15, "{wrong:?}");
    }
}
