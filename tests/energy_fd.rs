//! Checks of the hyperelastic tet kernels: derivatives against finite differences and against
//! forward-mode AD, rest state, invariances, the small-strain limit (Hooke's law) and the PSD
//! projection.

use fricsim::energy::{ElasticModel, Lame, Material, TetElement, project_psd};
use nalgebra::{Matrix3, SMatrix, SVector, Vector3};
use num_dual::{Dual2SVec64, hessian};

#[path = "support/rng.rs"]
mod rng;
use rng::Rng;

const SEEDS: [u64; 4] = [1, 42, 2024, 0xDEAD_BEEF];
const MODELS: [ElasticModel; 3] =
    [ElasticModel::NeoHookean, ElasticModel::StableNeoHookean, ElasticModel::FixedCorotated];

fn rubber(model: ElasticModel) -> Material {
    // Soft, fairly incompressible rubber: λ/μ ≈ 9 exercises the volumetric terms.
    Material::new(model, Lame::from_young_poisson(1e6, 0.45))
}

/// Deformation gradients of the named regimes, with random rotations on both sides (so every
/// entry of F and of ∂P/∂F is exercised).
fn deformations(rng: &mut Rng, model: ElasticModel) -> Vec<(&'static str, Matrix3<f64>)> {
    let mut out = Vec::new();
    let mut push = |name, diag: Vector3<f64>, rng: &mut Rng| {
        let f = rng.rotation().matrix() * Matrix3::from_diagonal(&diag) * rng.rotation().matrix();
        out.push((name, f));
    };
    push("mild", Vector3::new(1.05, 0.97, 1.02), rng);
    push("large stretch", Vector3::new(2.0, 0.8, 1.4), rng);
    push("compression J≈0.3", Vector3::new(0.6, 0.7, 0.72), rng);
    if model != ElasticModel::NeoHookean {
        push("inverted J<0", Vector3::new(-0.5, 0.8, 1.1), rng);
        push("nearly flat", Vector3::new(0.02, 1.0, 1.0), rng);
    }
    // A general (non-symmetric) mild F.
    let f = Matrix3::identity() + Matrix3::from_fn(|_, _| 0.15 * rng.sym());
    out.push(("general", f));
    out
}

/// A random, well-shaped rest tet of size ~0.1 m (edges 0.05-0.15 m).
fn rest_tet(rng: &mut Rng) -> [Vector3<f64>; 4] {
    let base = [
        Vector3::new(0.0, 0.0, 0.0),
        Vector3::new(1.0, 0.0, 0.0),
        Vector3::new(0.5, 0.87, 0.0),
        Vector3::new(0.5, 0.29, 0.82),
    ];
    base.map(|p| (p + rng.vec3() * 0.15) * 0.1)
}

/// A rest tet and deformed positions x = F X + t with the given F.
fn deformed(rng: &mut Rng, f: &Matrix3<f64>) -> (TetElement, [Vector3<f64>; 4]) {
    let rest = rest_tet(rng);
    let t = rng.vec3();
    (TetElement::new([0, 1, 2, 3], &rest), rest.map(|p| f * p + t))
}

/// One checked case: a material, a deformation gradient of a named regime and a rest tet deformed
/// by it, for every model, seed and regime (the same sequence for every test).
struct Case {
    model: ElasticModel,
    m: Material,
    f: Matrix3<f64>,
    el: TetElement,
    x: [Vector3<f64>; 4],
    tag: String,
    seed: u64,
}

fn cases() -> Vec<Case> {
    let mut out = Vec::new();
    for model in MODELS {
        for seed in SEEDS {
            let mut rng = Rng(seed);
            for (name, f) in deformations(&mut rng, model) {
                let (el, x) = deformed(&mut rng, &f);
                let tag = format!("{model:?} {name} seed {seed}");
                out.push(Case { model, m: rubber(model), f, el, x, tag, seed });
            }
        }
    }
    out
}

fn flat(x: &[Vector3<f64>; 4]) -> SVector<f64, 12> {
    SVector::from_fn(|i, _| x[i / 3][i % 3])
}
fn unflat(v: &SVector<f64, 12>) -> [Vector3<f64>; 4] {
    std::array::from_fn(|a| Vector3::new(v[3 * a], v[3 * a + 1], v[3 * a + 2]))
}

/// Central-difference step for positions of size L = 0.1 m. The truncation error is
/// O(h² f'''/f') and the round-off error O(ε f / h); their balance is at h ≈ ε^(1/3) L ≈ 6e-7 m.
/// Derivatives then carry relative errors ~1e-10 for smooth f; the tolerances below (1e-6)
/// leave 4 orders of margin for the stiff compressed/stretched cases while still catching any
/// wrong term (those give O(1) relative errors).
const H_POS: f64 = 1e-6;
const FD_RTOL: f64 = 1e-6;

fn assert_close_rel(what: &str, got: &[f64], want: &[f64], rtol: f64) {
    let scale = want.iter().map(|x| x * x).sum::<f64>().sqrt().max(1e-300);
    let err = got.iter().zip(want).map(|(a, b)| (a - b).powi(2)).sum::<f64>().sqrt();
    assert!(err <= rtol * scale, "{what}: relative error {:.3e} > {rtol:.1e} (|ref| = {scale:.3e})", err / scale);
}

#[test]
fn gradient_matches_finite_differences_of_energy() {
    for Case { m, el, x, tag, .. } in cases() {
        let (e, g) = el.energy_gradient(&m, &x);
        assert!(e.is_finite(), "{tag}: energy {e}");
        assert_eq!(e, el.energy(&m, &x), "energy() and energy_gradient() disagree");
        let q = flat(&x);
        let fd = SVector::<f64, 12>::from_fn(|i, _| {
            let (mut qp, mut qm) = (q, q);
            qp[i] += H_POS;
            qm[i] -= H_POS;
            (el.energy(&m, &unflat(&qp)) - el.energy(&m, &unflat(&qm))) / (2.0 * H_POS)
        });
        assert_close_rel(&format!("{tag} gradient"), g.as_slice(), fd.as_slice(), FD_RTOL);
    }
}

#[test]
fn hessian_matches_finite_differences_of_gradient() {
    for Case { m, el, x, tag, .. } in cases() {
        let (_, g, h) = el.energy_gradient_hessian(&m, &x, false);
        assert_eq!(g, el.energy_gradient(&m, &x).1);
        let q = flat(&x);
        let mut fd = SMatrix::<f64, 12, 12>::zeros();
        for i in 0..12 {
            let (mut qp, mut qm) = (q, q);
            qp[i] += H_POS;
            qm[i] -= H_POS;
            let col = (el.energy_gradient(&m, &unflat(&qp)).1 - el.energy_gradient(&m, &unflat(&qm)).1) / (2.0 * H_POS);
            fd.set_column(i, &col);
        }
        assert_close_rel(&format!("{tag} Hessian"), h.as_slice(), fd.as_slice(), FD_RTOL);
    }
}

/// Stress and its derivative at the material level, with steps in F (entries O(1)):
/// h = 1e-6 by the same ε^(1/3) argument.
#[test]
fn pk1_and_dpdf_match_finite_differences() {
    let h = 1e-6;
    for Case { m, f, tag, .. } in cases() {
        let p = m.pk1(&f);
        let a = m.dpdf(&f);
        let mut fd_p = Matrix3::zeros();
        let mut fd_a = SMatrix::<f64, 9, 9>::zeros();
        for k in 0..9 {
            let (mut fp, mut fm) = (f, f);
            fp[k] += h; // linear index = column-major vec(F) index
            fm[k] -= h;
            fd_p[k] = (m.energy_density(&fp) - m.energy_density(&fm)) / (2.0 * h);
            let col = (m.pk1(&fp) - m.pk1(&fm)) / (2.0 * h);
            fd_a.set_column(k, &SVector::<f64, 9>::from_column_slice(col.as_slice()));
        }
        assert_close_rel(&format!("{tag} P"), p.as_slice(), fd_p.as_slice(), FD_RTOL);
        assert_close_rel(&format!("{tag} dP/dF"), a.as_slice(), fd_a.as_slice(), FD_RTOL);
        // ∂P/∂F is a second derivative: symmetric up to round-off (not symmetrized in
        // the code, so this can fail if a block is transposed).
        let asym = (a - a.transpose()).norm() / a.norm();
        assert!(asym < 1e-14, "{tag}: dP/dF asymmetry {asym:e}");
    }
}

/// The hand-coded Hessian equals forward-mode AD (num-dual) of the generic energy to round-off:
/// no truncation error here, so the tolerance is 1e-10 (cancellation in the stiff cases).
#[test]
fn hessian_matches_forward_mode_ad() {
    for Case { model, m, f, el, x, tag, .. } in cases() {
        // The generic fixed co-rotated energy finds R by the polar iteration, which is defined
        // for J > 0 only (it would converge to a reflection); the f64 code's SVD covers inverted
        // elements, checked against finite differences above.
        if model == ElasticModel::FixedCorotated && f.determinant() <= 0.0 {
            continue;
        }
        let (e, g, h) = el.energy_gradient_hessian(&m, &x, false);
        let (e_ad, g_ad, h_ad) = hessian(
            |q: SVector<Dual2SVec64<12>, 12>| {
                let xs: [[Dual2SVec64<12>; 3]; 4] = std::array::from_fn(|a| std::array::from_fn(|i| q[3 * a + i]));
                el.energy_generic(&m, &xs)
            },
            &flat(&x),
        );
        let tag = format!("{tag} vs AD");
        assert!((e - e_ad).abs() <= 1e-10 * e.abs().max(1e-12), "{tag}: energy {e} vs {e_ad}");
        assert_close_rel(&format!("{tag} gradient"), g.as_slice(), g_ad.as_slice(), 1e-10);
        assert_close_rel(&format!("{tag} Hessian"), h.as_slice(), h_ad.as_slice(), 1e-10);
    }
}

/// The product form of the Hessian (matrix-free Newton's, `StressLinearization`) is the assembled
/// Hessian (checked against FD and AD above) applied to a direction: to 1e-12 relative. Both sum
/// a few dozen products of the result's size with ~1e-16 relative round-off each; 1e-12 leaves
/// three decades for cancellation in H·dx, where a wrong term is off by O(1). It exists for the models written in I_C and J, and where
/// they are defined; fixed co-rotated and an inverted neo-Hookean element have none (their callers
/// fall back to AD).
#[test]
fn hessian_product_form_matches_the_assembled_hessian() {
    for Case { model, m, el, x, tag, seed, .. } in cases() {
        let lin = m.stress_linearization(&el.deformation_gradient(&x));
        assert_eq!(lin.is_some(), model != ElasticModel::FixedCorotated, "{tag}: a product form exactly where defined");
        let Some(lin) = lin else { continue };
        let (_, _, h) = el.energy_gradient_hessian(&m, &x, false);
        let mut rng = Rng(seed ^ 0x5EED);
        for _ in 0..3 {
            let dx: [[f64; 3]; 4] = std::array::from_fn(|_| rng.vec3().into());
            let got: Vec<f64> = el.hessian_product(&lin, &dx).iter().flatten().copied().collect();
            let want = h * flat(&dx.map(Vector3::from));
            assert_close_rel(&tag, &got, want.as_slice(), 1e-12);
        }
    }
    let inverted = Matrix3::from_diagonal(&Vector3::new(-0.5, 0.8, 1.1));
    assert!(rubber(ElasticModel::NeoHookean).stress_linearization(&inverted).is_none());
}

#[test]
fn rest_state_is_stress_free_with_zero_energy() {
    let i = Matrix3::identity();
    for model in MODELS {
        let m = rubber(model);
        // Energies are sums of O(μ) terms: exact zero up to a few ulps of μ.
        assert!(m.energy_density(&i).abs() < 1e-9 * m.lame.mu, "{model:?}: Ψ(I) = {}", m.energy_density(&i));
        assert!(m.pk1(&i).norm() < 1e-9 * m.lame.mu, "{model:?}: P(I) = {}", m.pk1(&i));
        // A rigidly moved element has zero energy and zero forces too.
        let mut rng = Rng(7);
        let r = rng.rotation();
        let (el, x) = deformed(&mut rng, r.matrix());
        let (e, g) = el.energy_gradient(&m, &x);
        assert!(e.abs() < 1e-9 * m.lame.mu * el.rest_volume, "{model:?}: rigid energy {e}");
        assert!(g.norm() < 1e-9 * m.lame.mu * el.rest_volume.cbrt().powi(2), "{model:?}: rigid force {g}");
    }
}

#[test]
fn energy_is_rotation_invariant_and_forces_balance() {
    for model in MODELS {
        let m = rubber(model);
        for seed in SEEDS {
            let mut rng = Rng(seed);
            for (name, f) in deformations(&mut rng, model) {
                let psi = m.energy_density(&f);
                let r = *rng.rotation().matrix();
                let rf = r * f;
                // Ψ ~ μ·O(1); rotation changes F by round-off only.
                let d = (m.energy_density(&rf) - psi).abs();
                assert!(d <= 1e-10 * psi.abs().max(m.lame.mu), "{model:?} {name}: Ψ(RF) − Ψ(F) = {d:e}");
                // P(RF) = R P(F) (frame indifference of the stress).
                let dp = (m.pk1(&rf) - r * m.pk1(&f)).norm();
                assert!(dp <= 1e-10 * m.pk1(&f).norm().max(m.lame.mu), "{model:?} {name}: |P(RF) − R P(F)| = {dp:e}");
                let (el, x) = deformed(&mut rng, &f);
                let (_, g) = el.energy_gradient(&m, &x);
                // Translation invariance ⇒ the 4 nodal forces sum to zero.
                let sum: Vector3<f64> = (0..4).map(|a| g.fixed_rows::<3>(3 * a).into_owned()).sum();
                assert!(sum.norm() <= 1e-12 * g.norm(), "{model:?} {name}: force sum {sum}");
            }
        }
    }
}

/// Solves P_yy = P_zz = 0 for the lateral stretch under uniaxial stretch 1 + eps along x
/// (bisection on the monotone P_yy), returning (P_xx, lateral strain).
fn uniaxial_stress(m: &Material, eps: f64) -> (f64, f64) {
    let f = |t: f64| Matrix3::from_diagonal(&Vector3::new(1.0 + eps, 1.0 + t, 1.0 + t));
    let (mut lo, mut hi) = (-0.5 * eps.abs() - 1e-3, 0.5 * eps.abs() + 1e-3);
    for _ in 0..200 {
        let mid = 0.5 * (lo + hi);
        if m.pk1(&f(mid))[(1, 1)] > 0.0 {
            hi = mid;
        } else {
            lo = mid;
        }
    }
    let t = 0.5 * (lo + hi);
    (m.pk1(&f(t))[(0, 0)], t)
}

/// Small-strain limit: both models reproduce Hooke's law with the user's E, ν. The deviation is
/// the material nonlinearity, O(strain) relative; with strain 1e-4 we allow 1e-3 relative
/// (a factor 10 of margin on the O(1) constants, while a wrong remap such as using (μ, λ)
/// unmapped in SNH gives errors of 20-30 %). The error must also shrink ~10× per 10× strain.
#[test]
fn small_strain_matches_hookes_law() {
    let (e_young, nu) = (1e6, 0.45);
    for model in MODELS {
        let m = Material::new(model, Lame::from_young_poisson(e_young, nu));
        let mut errors = Vec::new();
        for eps in [1e-3, 1e-4] {
            let (sxx, lateral) = uniaxial_stress(&m, eps);
            let e_err = (sxx / eps - e_young).abs() / e_young;
            let nu_err = (-lateral / eps - nu).abs() / nu;
            // Simple shear: P_xy = μ γ (relative error O(γ²) by symmetry; still O(γ) allowed).
            let gamma = eps;
            let mut fs = Matrix3::identity();
            fs[(0, 1)] = gamma;
            let mu_err = (m.pk1(&fs)[(0, 1)] / gamma - m.lame.mu).abs() / m.lame.mu;
            // Hydrostatic: P = 3K ε I with K = λ + 2μ/3.
            let k = m.lame.lambda + 2.0 / 3.0 * m.lame.mu;
            let ph = m.pk1(&(Matrix3::identity() * (1.0 + eps)));
            let k_err = (ph[(0, 0)] / (3.0 * eps) - k).abs() / k;
            let worst = e_err.max(nu_err).max(mu_err).max(k_err);
            assert!(
                worst < 10.0 * eps,
                "{model:?} strain {eps:e}: relative errors E {e_err:.2e}, ν {nu_err:.2e}, μ {mu_err:.2e}, K {k_err:.2e}"
            );
            errors.push(e_err.max(nu_err).max(k_err));
        }
        // First-order convergence of the uniaxial/hydrostatic response (ratio ≈ 10).
        assert!(errors[1] < 0.2 * errors[0], "{model:?}: errors {errors:?} do not shrink with strain");
    }
}

#[test]
fn neo_hookean_rejects_inversion_stable_neo_hookean_does_not() {
    let f = Matrix3::from_diagonal(&Vector3::new(-0.5, 1.0, 1.0));
    let nh = rubber(ElasticModel::NeoHookean);
    assert_eq!(nh.energy_density(&f), f64::INFINITY);
    assert!(nh.pk1(&f)[(0, 0)].is_nan());
    let snh = rubber(ElasticModel::StableNeoHookean);
    assert!(snh.energy_density(&f).is_finite() && snh.energy_density(&f) > 0.0);
    assert!(snh.pk1(&f).iter().all(|x| x.is_finite()));
    // J = 0 exactly (a flat element) is finite too.
    let flat = Matrix3::from_diagonal(&Vector3::new(0.0, 1.0, 1.0));
    assert!(snh.dpdf(&flat).iter().all(|x| x.is_finite()));
}

fn min_eigenvalue<const N: usize>(a: &SMatrix<f64, N, N>) -> f64 {
    nalgebra::DMatrix::from_column_slice(N, N, a.as_slice()).symmetric_eigenvalues().min()
}

#[test]
fn project_psd_clamps_negative_eigenvalues_and_keeps_psd_matrices() {
    let mut rng = Rng(99);
    for _ in 0..20 {
        let b = SMatrix::<f64, 12, 12>::from_fn(|_, _| rng.sym());
        let a = (b + b.transpose()) * 0.5;
        assert!(min_eigenvalue(&a) < 0.0, "test matrix should be indefinite");
        let mut p = a;
        project_psd(&mut p);
        // Round-off of a 12×12 eigen-decomposition: ~N ε ‖A‖.
        let tol = 1e-13 * a.norm();
        assert!(min_eigenvalue(&p) > -tol, "projected min eigenvalue {}", min_eigenvalue(&p));
        // Nearest PSD matrix: the positive eigenvalues are kept, so the eigenvalues of p are
        // exactly max(λ(a), 0) and trace(p) = Σ max(λ, 0).
        let lam = nalgebra::DMatrix::from_column_slice(12, 12, a.as_slice()).symmetric_eigenvalues();
        let want: f64 = lam.iter().map(|l| l.max(0.0)).sum();
        assert!((p.trace() - want).abs() < tol, "trace {} vs {want}", p.trace());
        // p − a is negative semi-definite (only negative parts were removed).
        assert!(min_eigenvalue(&(p - a)) > -tol, "p − a must be PSD");
    }
    // Positive definite: left bit-for-bit unchanged.
    let b = SMatrix::<f64, 9, 9>::from_fn(|_, _| rng.sym());
    let pd = b * b.transpose() + SMatrix::<f64, 9, 9>::identity() * 0.1;
    let mut p = pd;
    project_psd(&mut p);
    assert_eq!(p, pd);
    // Singular PSD (rank 4): unchanged up to round-off.
    let c = SMatrix::<f64, 9, 4>::from_fn(|_, _| rng.sym());
    let psd = c * c.transpose();
    let mut p = psd;
    project_psd(&mut p);
    assert!((p - psd).norm() < 1e-13 * psd.norm(), "PSD changed by {:e}", (p - psd).norm());
}

#[test]
fn projected_element_hessian_is_psd_and_unchanged_when_already_convex() {
    for model in MODELS {
        let m = rubber(model);
        let mut rng = Rng(5);
        for (name, f) in deformations(&mut rng, model) {
            let (el, x) = deformed(&mut rng, &f);
            let (_, _, h) = el.energy_gradient_hessian(&m, &x, false);
            let (_, _, hp) = el.energy_gradient_hessian(&m, &x, true);
            let tol = 1e-12 * h.norm();
            assert!(
                min_eigenvalue(&hp) > -tol,
                "{model:?} {name}: projected Hessian min eigenvalue {}",
                min_eigenvalue(&hp)
            );
            if min_eigenvalue(&m.dpdf(&f)) > 0.0 {
                assert_eq!(h, hp, "{model:?} {name}: convex case must be unchanged");
            }
        }
    }
    // Strong compression makes neo-Hookean's ∂P/∂F indefinite: the projection must act.
    let m = rubber(ElasticModel::NeoHookean);
    let f = Matrix3::from_diagonal(&Vector3::new(0.3, 1.0, 1.0));
    assert!(min_eigenvalue(&m.dpdf(&f)) < 0.0, "expected an indefinite case");
    let mut rng = Rng(6);
    let (el, x) = deformed(&mut rng, &f);
    let (_, _, h) = el.energy_gradient_hessian(&m, &x, false);
    let (_, _, hp) = el.energy_gradient_hessian(&m, &x, true);
    assert!(min_eigenvalue(&h) < 0.0);
    assert!(min_eigenvalue(&hp) > -1e-12 * h.norm());
}

/// The analytic projection (SVD eigensystem) equals the numerical one (eigen-decomposition of
/// the assembled 9×9), including repeated singular values (where the SVD basis is not unique)
/// and inverted elements. Both are exact up to round-off of ~9 ε ‖A‖ per eigen-solver, so
/// 1e-10 relative leaves a wide margin while a wrong mode (sign of a twist/flip eigenvalue, a
/// missing term in the scaling block) gives O(1) errors.
#[test]
fn analytic_psd_projection_matches_numerical_projection() {
    let mut cases = 0;
    for model in MODELS {
        let m = rubber(model);
        for seed in SEEDS {
            let mut rng = Rng(seed);
            let mut fs = deformations(&mut rng, model);
            let r = *rng.rotation().matrix();
            fs.push(("repeated s, compressed", r * 0.5));
            fs.push(("repeated pair", r * Matrix3::from_diagonal(&Vector3::new(1.2, 1.2, 0.3))));
            fs.push(("identity", Matrix3::identity()));
            if model == ElasticModel::StableNeoHookean {
                fs.push(("inverted repeated", r * Matrix3::from_diagonal(&Vector3::new(0.7, 0.7, -0.7))));
                fs.push(("two negative", r * Matrix3::from_diagonal(&Vector3::new(-0.8, -0.6, 1.1))));
            }
            for (name, f) in fs {
                let a = m.dpdf(&f);
                let mut numeric = a;
                project_psd(&mut numeric);
                let analytic = m.dpdf_projected(&f);
                let tag = format!("{model:?} {name} seed {seed}");
                assert_close_rel(&format!("{tag} projected dP/dF"), analytic.as_slice(), numeric.as_slice(), 1e-10);
                if min_eigenvalue(&a) > 1e-9 * a.norm() {
                    assert_eq!(analytic, a, "{tag}: PD matrix must be returned unchanged");
                } else {
                    cases += 1;
                }
            }
        }
    }
    // Make sure the comparison exercised actual projections, not only the fast path.
    assert!(cases >= 8, "only {cases} indefinite cases");
}

/// Invalid input must give NaN (visible to the solver's checks), never hang or panic.
#[test]
fn non_finite_and_undefined_inputs_give_nan_quickly() {
    let nh = rubber(ElasticModel::NeoHookean);
    let snh = rubber(ElasticModel::StableNeoHookean);
    let mut bad = Matrix3::identity();
    bad[(1, 2)] = f64::NAN;
    for m in [nh, snh] {
        assert!(m.dpdf_projected(&bad).iter().all(|x| x.is_nan()));
        let mut inf = Matrix3::identity();
        inf[(0, 0)] = f64::INFINITY;
        assert!(m.dpdf_projected(&inf).iter().all(|x| x.is_nan()));
    }
    let inverted = Matrix3::from_diagonal(&Vector3::new(-0.5, 1.0, 1.0));
    assert!(nh.dpdf_projected(&inverted).iter().all(|x| x.is_nan()));
    let mut rng = Rng(3);
    let (el, x) = deformed(&mut rng, &inverted);
    let (e, _, h) = el.energy_gradient_hessian(&nh, &x, true);
    assert_eq!(e, f64::INFINITY);
    assert!(h[(0, 0)].is_nan());
    let mut nan9 = SMatrix::<f64, 9, 9>::identity();
    nan9[(3, 4)] = f64::NAN;
    let copy = nan9;
    project_psd(&mut nan9);
    assert!(nan9[(3, 4)].is_nan() && nan9[(0, 0)] == copy[(0, 0)]);
}
