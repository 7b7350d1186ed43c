//! The drilling problem's solver against the contact law it stands for, on random problems.

use super::residual::error;
use super::{DrillingProblem, prox};
use crate::dfcp::problem::{LocalProblem, csc_from_triplets};
use crate::dfcp::residual::local_error_of;
use crate::dfcp::solver::SolverOptions;
use crate::friction::cone::Cone;
use crate::test_rng::{symmetric, unit};
use nalgebra::{DMatrix, Matrix4};
use std::collections::BTreeMap;

/// `W = G Gᵀ + 1e-3 I` over `nc` contacts from a random `G` (`4 nc x m`, m = 6 per two contacts:
/// bodies shared by contacts, so contacts are coupled and W is rank-rich), with torque rows
/// scaled by `1/ℓ` as a body's angular entries are (ℓ = 0.1 m), and `q` with approaching normals.
fn random(nc: usize, seed: &mut u64, mu_tau: impl Fn(usize) -> f64) -> DrillingProblem {
    let m = 3 * nc + 3;
    let g = DMatrix::from_fn(4 * nc, m, |i, _| symmetric(seed) * if i % 4 == 3 { 10.0 } else { 1.0 });
    let w = &g * g.transpose() + DMatrix::identity(4 * nc, 4 * nc) * 1e-3;
    let mut blocks = BTreeMap::new();
    for c in 0..nc {
        for d in 0..nc {
            blocks.insert((c, d), Matrix4::from_fn(|i, j| w[(4 * c + i, 4 * d + j)]));
        }
    }
    let q = (0..4 * nc).map(|k| if k % 4 == 0 { -unit(seed) } else { symmetric(seed) }).collect();
    let cones = (0..nc).map(|_| Cone::isotropic(0.2 + 0.6 * unit(seed)).unwrap()).collect();
    DrillingProblem::new(&blocks, q, cones, (0..nc).map(mu_tau).collect()).unwrap()
}

fn solve(p: &DrillingProblem, tol: f64) -> (Vec<f64>, Vec<f64>) {
    let (mut r, mut u) = (vec![0.0; 4 * p.nc()], vec![0.0; 4 * p.nc()]);
    let report = prox::solve(p, &mut r, &mut u, &SolverOptions::new(tol, 200_000));
    assert!(report.converged, "{report}");
    let measured = error(p, &r, &u);
    assert_eq!(measured.rel, report.residual_rel, "the report gives the measured error");
    (r, u)
}

/// At a solution each contact obeys Signorini and maximal dissipation on the ellipsoid:
/// `r_F = −r_N D² u_F / |D u_F|` (D = diag(μ, μ, μ_τ)) when it slides and spins, `r` inside
/// the ellipsoid when it sticks. Checked directly, not through the natural map. Tolerances:
/// the solve's relative error is 1e-11 of a problem whose entries are O(1)–O(100), so the
/// law holds to 1e-7 absolute (the largest residual component seen is below 1e-9).
#[test]
fn solutions_obey_the_ellipsoidal_coulomb_law() {
    let mut seed = 7u64;
    let (mut sliding, mut sticking, mut separating) = (0, 0, 0);
    for trial in 0..20 {
        let p = random(6, &mut seed, |c| if c % 3 == 2 { 0.0 } else { 0.02 + 0.1 * (trial as f64 / 20.0) });
        let (r, u) = solve(&p, 1e-11);
        for c in 0..p.nc() {
            let (rc, uc) = (&r[4 * c..4 * c + 4], &u[4 * c..4 * c + 4]);
            let (mu, mt) = (p.cones[c].mu_ref(), p.mu_tau[c]);
            assert!(
                rc[0] >= -1e-12 && uc[0] >= -1e-7 && (rc[0] * uc[0]).abs() <= 1e-7,
                "Signorini at {c}: {rc:?} {uc:?}"
            );
            if mt == 0.0 {
                assert_eq!(rc[3], 0.0, "no torque without mu_tau");
            }
            let d = [mu, mu, mt];
            let inside = (rc[1] / mu).hypot(rc[2] / mu).hypot(if mt > 0.0 { rc[3] / mt } else { 0.0 });
            assert!(inside <= rc[0] * (1.0 + 1e-9) + 1e-12, "outside the ellipsoid at {c}");
            let speed = (0..3).map(|i| (d[i] * uc[i + 1]).powi(2)).sum::<f64>().sqrt();
            if rc[0] <= 1e-9 {
                separating += 1;
            } else if speed > 1e-6 {
                sliding += 1;
                for i in 0..3 {
                    let expected = -rc[0] * d[i] * d[i] * uc[i + 1] / speed;
                    assert!((rc[i + 1] - expected).abs() <= 1e-7, "contact {c}: r {rc:?}, u {uc:?}");
                }
            } else {
                sticking += 1;
            }
        }
    }
    println!("{sliding} sliding, {sticking} sticking, {separating} separating contacts");
    assert!(sliding > 10 && sticking > 3 && separating > 3, "every regime is exercised");
}

/// Without torque the problem is the three-row one: the force rows of the solution solve the
/// three-row problem with the same W and q (measured by its own natural map).
#[test]
fn without_mu_tau_the_force_rows_solve_the_three_row_problem() {
    let mut seed = 11u64;
    let p = random(8, &mut seed, |_| 0.0);
    let (r, _) = solve(&p, 1e-10);
    let nc = p.nc();
    let mut t = Vec::new();
    for c in 0..nc {
        for d in 0..nc {
            let block = if c == d { p.diag[c] } else { block_of(&p, c, d) };
            for i in 0..3 {
                for j in 0..3 {
                    t.push(faer::sparse::Triplet::new(3 * c + i, 3 * d + j, block[4 * i + j]));
                }
            }
        }
    }
    let w = csc_from_triplets(3 * nc, 3 * nc, &t).unwrap();
    let q3 = (0..4 * nc).filter(|k| k % 4 != 3).map(|k| p.q[k]).collect();
    let three = LocalProblem::new(w, q3, p.cones.clone()).unwrap();
    let r3: Vec<f64> = (0..4 * nc).filter(|k| k % 4 != 3).map(|k| r[k]).collect();
    let e = local_error_of(&three, &r3);
    assert!(e.rel <= 1e-9, "three-row error {e:?}");
}

/// Block `(c, d)` of `W` (off the diagonal), read back through `W e_d`.
fn block_of(p: &DrillingProblem, c: usize, d: usize) -> [f64; 16] {
    let mut b = [0.0; 16];
    for j in 0..4 {
        let mut x = vec![0.0; 4 * p.nc()];
        x[4 * d + j] = 1.0;
        let y = p.off_diag_row(c, &x);
        for i in 0..4 {
            b[4 * i + j] = y[i];
        }
    }
    b
}
