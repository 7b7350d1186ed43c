//! Modes against a dense eigensolver, the StVK polynomial against the full mesh's StVK energy,
//! and its gradient and Hessian against finite differences.

use super::*;
use crate::energy::elastic::material::{ElasticModel, Lame};
use crate::mesh::procedural::box_tets;

struct Bar {
    elements: Vec<TetElement>,
    rest: Vec<Vector3<f64>>,
    mass: Vec<f64>,
    material: Material,
}

/// A 0.4 × 0.1 × 0.1 m bar (rubber-like: E 1e6 Pa, ν 0.3, 1000 kg/m³).
fn bar(cells: [usize; 3]) -> Bar {
    let mesh = box_tets([0.4, 0.1, 0.1], cells).unwrap();
    let elements = TetElement::from_mesh(&mesh);
    let mass = mesh.lumped_masses(1000.0);
    let material = Material::new(ElasticModel::NeoHookean, Lame::from_young_poisson(1e6, 0.3));
    Bar { elements, rest: mesh.vertices.clone(), mass, material }
}

fn body(b: &Bar, r: usize, stvk: bool) -> ReducedModel {
    ReducedModel::new(&b.elements, &b.rest, &b.mass, &b.material, (r, stvk), (0.0, 0.0)).unwrap()
}

#[test]
fn modes_match_a_dense_generalized_eigensolver() {
    let b = bar([4, 1, 1]);
    let k = rest_stiffness(&b.elements, &b.rest, &b.material).unwrap();
    let n = 3 * b.rest.len();
    let kd = k.to_dense();
    // M^-1/2 K M^-1/2 is symmetric with the same eigenvalues.
    let s: Vec<f64> = (0..n).map(|d| 1.0 / b.mass[d / 3].sqrt()).collect();
    let a = DMatrix::from_fn(n, n, |i, j| s[i] * kd[(i, j)] * s[j]);
    let mut dense: Vec<f64> = nalgebra::SymmetricEigen::new(a).eigenvalues.iter().copied().collect();
    dense.sort_by(f64::total_cmp);
    // The 6 rigid modes are zeros up to round-off of the largest eigenvalue.
    let top = dense[n - 1];
    assert!(dense[..6].iter().all(|l| l.abs() < 1e-10 * top), "{:?}", &dense[..7]);
    let body = body(&b, 8, false);
    for (j, l) in body.lambda.iter().enumerate() {
        // Accepted at a 1e-9 eigen-residual, so the eigenvalue is good to ~1e-12 relative.
        assert!((l - dense[6 + j]).abs() < 1e-9 * dense[6 + j], "mode {j}: {l} vs {}", dense[6 + j]);
    }
    // M-orthonormal, and M-orthogonal to translations and rotations about the centre of mass.
    let m: Vec<f64> = (0..n).map(|d| b.mass[d / 3]).collect();
    for i in 0..8 {
        for j in 0..8 {
            let dot: f64 = (0..n).map(|d| body.phi[(d, i)] * m[d] * body.phi[(d, j)]).sum();
            assert!((dot - f64::from(i == j)).abs() < 1e-10, "({i},{j}): {dot}");
        }
        let (mut lin, mut ang) = (Vector3::zeros(), Vector3::zeros());
        for (n, x) in body.rest.iter().enumerate() {
            let u = Vector3::new(body.phi[(3 * n, i)], body.phi[(3 * n + 1, i)], body.phi[(3 * n + 2, i)]);
            lin += u * b.mass[n];
            ang += x.cross(&u) * b.mass[n];
        }
        // Modes are normalized to unit modal mass (about 1/sqrt(4 kg) per node): 1e-12 is round-off.
        assert!(lin.norm() < 1e-12 && ang.norm() < 1e-12, "mode {i}: {lin:?} {ang:?}");
    }
}

/// The full mesh's StVK energy at displacement `u` (3N), computed directly.
fn full_stvk(b: &Bar, u: &[f64]) -> f64 {
    let lame = b.material.lame;
    b.elements
        .iter()
        .map(|el| {
            let x: [Vector3<f64>; 4] = std::array::from_fn(|a| {
                let n = el.nodes[a];
                b.rest[n] + Vector3::new(u[3 * n], u[3 * n + 1], u[3 * n + 2])
            });
            let f = el.deformation_gradient(&x);
            let e = (f.transpose() * f - Matrix3::identity()) * 0.5;
            el.rest_volume * (lame.mu * e.norm_squared() + 0.5 * lame.lambda * e.trace().powi(2))
        })
        .sum()
}

#[test]
fn stvk_polynomial_is_the_full_meshs_stvk_energy() {
    let b = bar([6, 2, 2]);
    let body = body(&b, 6, true);
    let Elasticity::Stvk(poly) = &body.elasticity else { panic!() };
    // K1 = Φᵀ K Φ = Λ for exact modes.
    let k1 = poly.linear_stiffness();
    for i in 0..6 {
        for j in 0..6 {
            let want = if i == j { body.lambda[i] } else { 0.0 };
            assert!((k1[(i, j)] - want).abs() < 1e-8 * body.lambda[5], "K1[{i},{j}] = {} vs {want}", k1[(i, j)]);
        }
    }
    let mut seed = 7;
    for amplitude in [0.01, 0.1, 0.5] {
        // Modal coordinates of unit modal mass: 0.5 means node displacements of a few cm on a 0.4 m
        // bar, well into the nonlinear range.
        let q = DVector::from_fn(6, |_, _| amplitude * crate::test_rng::symmetric(&mut seed));
        let u: Vec<f64> = (&body.phi * &q).iter().copied().collect();
        let full = full_stvk(&b, &u);
        let (e, _, _) = body.elastic(&q);
        // Same polynomial summed in another order: round-off of the terms' size.
        assert!((e - full).abs() < 1e-10 * full.abs().max(1e-12), "q {amplitude}: {e} vs {full}");
    }
}

#[test]
fn stvk_gradient_and_hessian_match_finite_differences() {
    let b = bar([6, 2, 2]);
    let body = body(&b, 5, true);
    let mut seed = 3;
    let q = DVector::from_fn(5, |_, _| 0.3 * crate::test_rng::symmetric(&mut seed));
    let (_, g, h) = body.elastic(&q);
    let eps = 1e-6;
    for j in 0..5 {
        let mut qp = q.clone();
        qp[j] += eps;
        let mut qm = q.clone();
        qm[j] -= eps;
        let (ep, gp, _) = body.elastic(&qp);
        let (em, gm, _) = body.elastic(&qm);
        // Central differences of a polynomial: error O(eps²) times its third derivative.
        let fd = (ep - em) / (2.0 * eps);
        assert!((fd - g[j]).abs() < 1e-7 * g.norm(), "dE/dq{j}: {fd} vs {}", g[j]);
        let col = (gp - gm) / (2.0 * eps);
        assert!((col - h.column(j)).norm() < 1e-7 * h.norm(), "column {j}");
    }
    assert!((&h - h.transpose()).norm() < 1e-12 * h.norm());
}

#[test]
fn too_many_modes_are_refused() {
    let b = bar([1, 1, 1]);
    let n = 3 * b.rest.len();
    let err = ReducedModel::new(&b.elements, &b.rest, &b.mass, &b.material, (n - 5, false), (0.0, 0.0)).unwrap_err();
    assert!(err.contains("at most"), "{err}");
}

/// `project` recovers the modal coordinates of `Φ q + t + θ × X` exactly: the modes are
/// M-orthonormal and M-orthogonal to the rigid motions, so translation and linearised turn drop
/// out (to round-off of the 0.2 m bar's coordinates).
#[test]
fn projection_recovers_the_modal_part_of_a_displacement() {
    let b = bar([4, 1, 1]);
    let model = body(&b, 8, false);
    let want = DVector::from_fn(8, |j, _| 1e-3 * (j as f64 - 3.5));
    let (t, theta) = (Vector3::new(0.01, -0.02, 0.03), Vector3::new(0.1, 0.2, -0.3));
    let u: Vec<Vector3<f64>> = (0..model.rest.len())
        .map(|i| model.local_offset(i, &want) - model.rest[i] + t + theta.cross(&model.rest[i]))
        .collect();
    let got = model.project(&u);
    assert!((&got - &want).amax() < 1e-14, "{got} against {want}");
}
