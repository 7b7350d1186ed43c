//! The projection property of 004 Fig. 5: one node (mass m) with two frictionless contacts whose
//! normals are not orthogonal, moving into both. The exact solution is the orthogonal
//! projection (in the mass metric) of the free velocity onto the feasible wedge
//! {n1·v >= 0, n2·v >= 0}; it removes kinetic energy and never adds any. A solver that treats
//! the contacts one at a time without iterating can over-correct (the figure's energy gain).

use faer::sparse::Triplet;
use fricsim::dfcp::admm::{self, AdmmParams};
use fricsim::dfcp::dispatch::solve_global;
use fricsim::dfcp::problem::{Csc, GlobalProblem};
use fricsim::dfcp::solver::SolverOptions;
use fricsim::friction::cone::Cone;
use nalgebra::Vector3;

fn wedge(theta: f64, vfree: Vector3<f64>, m: f64) -> GlobalProblem {
    let n1 = Vector3::new(0.0, 0.0, 1.0);
    let n2 = Vector3::new(-theta.sin(), 0.0, theta.cos());
    let mt: Vec<_> = (0..3).map(|i| Triplet::new(i, i, m)).collect();
    let mut ht = Vec::new();
    for (c, n) in [n1, n2].iter().enumerate() {
        let (t1, t2) = fricsim::rigid::shape::tangent_basis(n);
        for (k, axis) in [*n, t1, t2].iter().enumerate() {
            for d in 0..3 {
                ht.push(Triplet::new(d, 3 * c + k, axis[d]));
            }
        }
    }
    let mm = Csc::try_new_from_triplets(3, 3, &mt).unwrap();
    let h = Csc::try_new_from_triplets(3, 6, &ht).unwrap();
    let f = (vfree * m).as_slice().to_vec();
    GlobalProblem::new(mm, h, f, vec![0.0; 6], vec![Cone::isotropic(0.0).unwrap(); 2]).unwrap()
}

/// Projection of `v` onto the wedge {n1·v >= 0, n2·v >= 0} (Euclidean = mass metric for m I):
/// either `v` itself, its projection on one plane (if feasible for the other), or the
/// projection onto the wedge's edge (the line n1 × n2).
fn project(v: Vector3<f64>, n1: Vector3<f64>, n2: Vector3<f64>) -> Vector3<f64> {
    if n1.dot(&v) >= 0.0 && n2.dot(&v) >= 0.0 {
        return v;
    }
    let mut best: Option<Vector3<f64>> = None;
    for n in [n1, n2] {
        let p = v - n * n.dot(&v).min(0.0);
        if n1.dot(&p) >= -1e-14 && n2.dot(&p) >= -1e-14 && best.is_none_or(|b| (p - v).norm() < (b - v).norm()) {
            best = Some(p);
        }
    }
    best.unwrap_or_else(|| {
        let e = n1.cross(&n2).normalize();
        e * e.dot(&v)
    })
}

#[test]
fn two_frictionless_contacts_give_the_orthogonal_projection_without_energy_gain() {
    let m = 2.0;
    for theta in [0.3f64, 0.8, 1.2] {
        let (n1, n2) = (Vector3::z(), Vector3::new(-theta.sin(), 0.0, theta.cos()));
        for vfree in [Vector3::new(1.0, 0.2, -1.0), Vector3::new(-0.5, 0.0, -2.0), Vector3::new(0.3, -0.1, -0.1)] {
            let g = wedge(theta, vfree, m);
            let expected = project(vfree, n1, n2);
            let opts = SolverOptions::new(1e-10, 100_000);
            let (mut r, mut v) = (vec![0.0; 6], vec![0.0; 3]);
            let rep = admm::solve(&g, &mut r, &mut v, &opts, &AdmmParams::default()).unwrap();
            assert!(rep.converged, "{rep}");
            let gs = solve_global(&g, "gs", &opts).unwrap();
            for (name, got) in
                [("admm", Vector3::from_column_slice(&v)), ("gs", Vector3::from_column_slice(gs.v.as_ref().unwrap()))]
            {
                // Tolerance: the solvers stop at a relative natural-map error of 1e-10.
                assert!((got - expected).norm() < 1e-8, "{name} theta {theta}: {got:?} vs the projection {expected:?}");
                assert!(got.norm_squared() <= vfree.norm_squared() + 1e-12, "{name}: kinetic energy increased");
            }
        }
    }
}
