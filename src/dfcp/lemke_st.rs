//! The Stewart–Trinkle LCP solved by Lemke's complementary pivoting: the direct baseline 002
//! compares Staggered Projections against (it used PATH; digest §D10: "wrong slipping" and
//! stationary points that blow up on the μ = 0.8 card house).
//!
//! The answer is mapped back to contact impulses and judged, like every solver's, by the exact
//! cone's natural map: sliding off the polygon's samples is a faceting error the report shows.
//! A secondary ray, the pivot or time limit, or a problem beyond the dense limit is reported as
//! a failure with the last basic solution, never as a solution.

use super::problem::LocalProblem;
use super::residual::local_error;
use super::solver::{SolveReport, SolverOptions, check_buffers};
use super::stewart_trinkle::StewartTrinkle;
use crate::linalg::lemke::{self, LemkeOutcome};
use std::time::Instant;

/// 002's tangent samples (digest §D7).
pub const DEFAULT_SAMPLES: usize = 8;

pub fn solve(p: &LocalProblem, r: &mut [f64], u: &mut [f64], opts: &SolverOptions) -> SolveReport {
    solve_with(p, r, u, opts, DEFAULT_SAMPLES)
}

/// Lemke on the LCP with `k` samples per contact. `opts.max_iter` bounds the pivots; the warm
/// start in `r` is not used (pivoting starts from the LCP's own first basis).
pub fn solve_with(p: &LocalProblem, r: &mut [f64], u: &mut [f64], opts: &SolverOptions, k: usize) -> SolveReport {
    const NAME: &str = "lemke";
    if let Some(rep) = check_buffers(NAME, 3 * p.nc(), r, u) {
        return rep;
    }
    let start = Instant::now();
    let st = StewartTrinkle::new(p, k);
    let sol = lemke::solve(st.a.as_ref(), &st.b, opts.max_iter, || opts.out_of_time(start));
    st.forces(&sol.z, r);
    p.velocity(r, u);
    let err = local_error(p, r, u);
    let lcp = st.residual(&sol.z);
    let reason = match sol.outcome {
        LemkeOutcome::Solved => "LCP solved, exact-cone error above tolerance (faceting)".to_string(),
        LemkeOutcome::Ray => "secondary ray: Lemke found no solution".to_string(),
        LemkeOutcome::Limit => "pivot or time limit".to_string(),
        LemkeOutcome::Singular => "singular final basis".to_string(),
        LemkeOutcome::TooLarge => format!("{} LCP unknowns exceed the dense limit {}", st.n(), lemke::DENSE_MAX),
    };
    SolveReport::finish(
        NAME,
        &err,
        opts,
        sol.pivots,
        start,
        &reason,
        format_args!("{k} samples, {} LCP unknowns, LCP residual {:.2e} (rel {:.2e})", st.n(), lcp.abs, lcp.rel),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dfcp::problem::{Csc, csc_from_triplets};
    use crate::friction::cone::Cone;
    use faer::sparse::Triplet;

    /// A random rigid-body-like problem: `W = J Jᵀ` with `J` of `nc` contacts on `6 nb` dofs
    /// (positive semidefinite, singular when contacts outnumber dofs), `q = J v` for a random body
    /// velocity `v`, μ in [0.1, 1.1).
    fn random_problem(seed: &mut u64, nc: usize, nb: usize) -> LocalProblem {
        let mut rnd = || crate::test_rng::unit(seed) - 0.5;
        let (n, m) = (3 * nc, 6 * nb);
        let j: Vec<f64> = (0..n * m).map(|_| rnd()).collect();
        let mut t = Vec::new();
        for a in 0..n {
            for b in 0..n {
                let v: f64 = (0..m).map(|k| j[a * m + k] * j[b * m + k]).sum();
                t.push(Triplet::new(a, b, v));
            }
        }
        let w: Csc = csc_from_triplets(n, n, &t).unwrap();
        // q = J v: a free velocity of the bodies seen at the contacts, as every pipeline builds
        // it. (A random q outside J's range can make the LCP infeasible; Lemke then ends on a
        // ray, correctly: seen with 8 contacts on one body.)
        let v: Vec<f64> = (0..m).map(|_| 2.0 * rnd()).collect();
        let q: Vec<f64> = (0..n).map(|a| (0..m).map(|k| j[a * m + k] * v[k]).sum()).collect();
        let cones = (0..nc).map(|_| Cone::isotropic(0.6 + rnd()).unwrap()).collect();
        LocalProblem::new(w, q, cones).unwrap()
    }

    /// The gate of small LCPs: on random problems of 1–8 contacts on 1–3 bodies (k = 4, 8, 16),
    /// Lemke ends with a solution of the LCP to rounding: min-map residual <= 1e-12 relative to
    /// the problem's size (O(1) data, a few hundred operations each).
    #[test]
    fn small_stewart_trinkle_lcps_are_solved_exactly() {
        let mut seed = 5u64;
        let mut worst = 0.0f64;
        for case in 0..90 {
            let (nc, nb, k) = (1 + case % 8, 1 + case % 3, [4, 8, 16][case % 3]);
            let p = random_problem(&mut seed, nc, nb);
            let st = StewartTrinkle::new(&p, k);
            let sol = lemke::solve(st.a.as_ref(), &st.b, 100 * st.n(), || false);
            assert_eq!(sol.outcome, LemkeOutcome::Solved, "case {case}: nc {nc}, nb {nb}, k {k}");
            let res = st.residual(&sol.z);
            worst = worst.max(res.rel);
            assert!(res.rel <= 1e-12, "case {case}: LCP residual {:e}", res.rel);
        }
        println!("worst relative LCP residual {worst:e}");
    }
}
