//! 002's single-contact Painlevé maps (§6.7.1, experiment 3) and the orthogonal case (§5.5.2,
//! experiment 4), on Staggered Projections as the thesis prints it (no acceleration, no
//! proximal term, stop on eq. 5.21).
//!
//! The single contact is 002's abstract two-dimensional model: unit mass, a normal `n` and a
//! friction direction `s` at the angle θ to it in the kinetic metric (`W = [[1, cos θ], [cos θ,
//! 1]]` on (n, s), the binormal decoupled and at rest), the friction "segment" being the polygon
//! samples ±s (k = 4: ±s, ±b). The thesis's counts: every predictor converges in one iteration
//! at θ = 0 and in two at θ = π/2 (with 5.21's 0/0 read as converged, x/0 as not).

use faer::sparse::Triplet;
use fricsim::dfcp::diagnostics::diagnose;
use fricsim::dfcp::problem::{Csc, LocalProblem};
use fricsim::dfcp::solver::{SolveReport, SolverOptions};
use fricsim::dfcp::staggered_projections::{SpCone, SpParams, SpStop, solve_with};
use fricsim::friction::cone::Cone;

fn printed(eps: f64, k: usize) -> SpParams {
    SpParams {
        cone: SpCone::Polyhedral(k),
        anderson: 0,
        rho_rel: 0.0,
        stop: SpStop::RelativeChange(eps),
        ..SpParams::default()
    }
}

fn single_contact(theta: f64, mu: f64, x: [f64; 2]) -> LocalProblem {
    let c = theta.cos();
    let w = [[1.0, c, 0.0], [c, 1.0, 0.0], [0.0, 0.0, 1.0]];
    let t: Vec<_> =
        (0..3).flat_map(|i| (0..3).map(move |j| (i, j))).map(|(i, j)| Triplet::new(i, j, w[i][j])).collect();
    // The predictor velocity is −x (002 plots the negative predicted velocity), seen along n
    // and s.
    let q = vec![-x[1], -(x[0] * theta.sin() + x[1] * c), 0.0];
    LocalProblem::new(Csc::try_new_from_triplets(3, 3, &t).unwrap(), q, vec![Cone::isotropic(mu).unwrap()]).unwrap()
}

fn solve(p: &LocalProblem, prm: &SpParams, max_iter: usize) -> (Vec<f64>, Vec<f64>, SolveReport) {
    let n = 3 * p.nc();
    let (mut r, mut u) = (vec![0.0; n], vec![0.0; n]);
    let rep = solve_with(p, &mut r, &mut u, &SolverOptions::new(1e-10, max_iter), prm);
    (r, u, rep)
}

/// A grid of predictors `x` in [−1, 1]² (the thesis plots one quadrant and states symmetry) at
/// μ = 0.4, 0.8 and 1 (Fig. 6.2's values): θ = π/2 takes exactly two iterations wherever the
/// predictor pushes into the contact and has a friction component, one elsewhere; θ = 0 takes
/// one everywhere (its friction direction lies along the normal, so the friction projection
/// after the contact one is zero). Every answer is exact: on θ = π/2 the slip is along a sample.
#[test]
fn iteration_counts_at_theta_zero_and_a_right_angle() {
    let grid: Vec<f64> = (0..9).map(|i| -1.0 + 0.25 * i as f64).collect();
    for mu in [0.4, 0.8, 1.0] {
        for &x0 in &grid {
            for &x1 in &grid {
                let x = [x0, x1];
                // θ = π/2: cos is 6e-17, the orthogonal case to rounding.
                let (_, _, rep) = solve(&single_contact(std::f64::consts::FRAC_PI_2, mu, x), &printed(1e-7, 4), 100);
                let pushes = x1 > 0.0;
                let want = if pushes && x0 != 0.0 { 2 } else { 1 };
                assert_eq!(rep.iterations, want, "θ = π/2, μ {mu}, x {x:?}: {rep}");
                assert!(rep.converged, "θ = π/2, μ {mu}, x {x:?}: {rep}");
                let (_, _, rep) = solve(&single_contact(0.0, mu, x), &printed(1e-7, 4), 100);
                assert_eq!(rep.iterations, 1, "θ = 0, μ {mu}, x {x:?}: {rep}");
            }
        }
    }
}

/// Between the two, iterations rise as θ falls (002 §6.6): the mean over the grid at μ = 0.8
/// for θ = π/2, π/3, π/5, π/9 is non-decreasing.
#[test]
fn iterations_rise_as_the_painleve_angle_falls() {
    let grid: Vec<f64> = (0..9).map(|i| -1.0 + 0.25 * i as f64).collect();
    let mut last = 0.0;
    for theta in [
        std::f64::consts::FRAC_PI_2,
        std::f64::consts::FRAC_PI_3,
        std::f64::consts::PI / 5.0,
        std::f64::consts::PI / 9.0,
    ] {
        let mut total = 0;
        for &x0 in &grid {
            for &x1 in &grid {
                let (_, _, rep) = solve(&single_contact(theta, 0.8, [x0, x1]), &printed(1e-7, 4), 10_000);
                total += rep.iterations;
            }
        }
        let mean = total as f64 / (grid.len() * grid.len()) as f64;
        println!("θ = {:.1} deg: {mean:.2} iterations on average", theta.to_degrees());
        assert!(mean >= last, "θ {theta}: {mean} < {last}");
        last = mean;
    }
}

/// The orthogonal case with many coupled contacts: a vertical stack of five particles on the
/// floor (contact k between particles k − 1 and k), each falling and sliding sideways at its own
/// velocity. Every normal is vertical and every friction direction horizontal, so `NᵀM⁻¹D = 0`
/// while the normals couple along the stack, and so do the tangents. One SP sweep (contact, then
/// friction, then the closing contact projection) solves the polygon's LCP: its residual and
/// the objective (5.32) are at the QPs' accuracy after that single sweep.
#[test]
fn orthogonal_case_one_sweep_is_exact() {
    let n = 5;
    let mass = |i: usize| 1.0 + 0.3 * i as f64;
    // Contact k acts on particle k (+) and k − 1 (−); W_kl = Σ_i J_ki J_li / m_i per component.
    let mut t = Vec::new();
    for k in 0..n {
        for l in 0..n {
            let mut w = 0.0;
            for i in 0..n {
                let jk = if i == k {
                    1.0
                } else if k > 0 && i == k - 1 {
                    -1.0
                } else {
                    0.0
                };
                let jl = if i == l {
                    1.0
                } else if l > 0 && i == l - 1 {
                    -1.0
                } else {
                    0.0
                };
                w += jk * jl / mass(i);
            }
            if w != 0.0 {
                for a in 0..3 {
                    t.push(Triplet::new(3 * k + a, 3 * l + a, w));
                }
            }
        }
    }
    let v: Vec<[f64; 3]> =
        (0..n).map(|i| [0.3 * (i as f64).sin(), 0.2 * (i as f64).cos() - 0.1, -0.5 - 0.2 * i as f64]).collect();
    let rel = |k: usize, a: usize| v[k][a] - if k > 0 { v[k - 1][a] } else { 0.0 };
    let q: Vec<f64> = (0..n).flat_map(|k| [rel(k, 2), rel(k, 0), rel(k, 1)]).collect();
    let cones = (0..n).map(|_| Cone::isotropic(0.3).unwrap()).collect();
    let p = LocalProblem::new(Csc::try_new_from_triplets(3 * n, 3 * n, &t).unwrap(), q, cones).unwrap();
    for k in [4, 8] {
        let (r, u, rep) = solve(&p, &printed(1e-7, k), 1);
        assert_eq!(rep.iterations, 1);
        let d = diagnose(&p, &r, &u, k);
        println!("k {k}: {rep}\n  {d:?}");
        // The QPs stop at 1e-2 of the tolerance (1e-10) on their own scale: 1e-9 leaves room.
        assert!(d.lcp_residual < 1e-9 && d.objective.abs() < 1e-9, "k {k}: {d:?}");
        assert!((d.painleve_deg - 90.0).abs() < 1e-9, "{d:?}");
    }
}
