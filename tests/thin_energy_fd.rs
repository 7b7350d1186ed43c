//! Checks of the thin-object kernels (issue 5 gate "finite-difference checks of every new
//! energy"): Discrete Elastic Rods (stretch, bend–twist, quasistatic twist), cloth membrane
//! (StVK, neo-Hookean) and discrete-shell hinge bending. For every kernel: gradient against
//! central differences of the energy, Hessian against central differences of the gradient (at
//! random and at degenerate-ish configurations), rest state, rigid-motion invariance, and a
//! closed form.

use std::f64::consts::PI;

use fricsim::energy::bending::{HingeElement, dihedral_angle, hinge_stiffness};
use fricsim::energy::membrane::{MembraneElement, MembraneMaterial, MembraneModel};
use fricsim::energy::rod::{
    BendTwistElement, EdgeFrame, Rod, RodDofs, RodFrames, RodStiffness, StretchElement, TwistBoundary,
    quasistatic_twist,
};
use nalgebra::{Rotation3, SMatrix, SVector, Vector3};
use num_dual::{Dual2SVec64, Dual64, hessian};

#[path = "support/rng.rs"]
mod rng;
use rng::Rng;

const SEEDS: [u64; 4] = [1, 42, 2024, 0xDEAD_BEEF];

/// Central-difference step. Stencils here have size L ≈ 0.05–0.1 m and angles O(1) rad; the
/// truncation error O(h²) and the round-off error O(ε/h) balance near h ≈ ε^(1/3) L ≈ 1e-6, where
/// derivatives carry relative errors ~1e-9. The tolerance 1e-6 leaves 3 orders of margin for
/// stiff or nearly degenerate cases while any wrong term gives an O(1) relative error.
const H: f64 = 1e-6;
const FD_RTOL: f64 = 1e-6;
/// Step for configurations within δ ~ 1e-5 of a state where the energy's gradient vanishes
/// (a spring stretched by 1e-5, a hinge folded by 1e-5 rad): the gradient is then ∝ δ while the
/// truncation error is not, relative error ≈ h² (curvature of the strain measure, ~1/L²)/(2δ)
/// ≈ 3e-5 at h = 1e-6. At h = 1e-8 it is ≈ 3e-9, and round-off (ε E/h) stays far below the
/// tolerance because E ∝ δ² is tiny.
const H_NEAR_REST: f64 = 1e-8;

fn assert_close_rel(what: &str, got: &[f64], want: &[f64], rtol: f64) {
    let scale = want.iter().map(|x| x * x).sum::<f64>().sqrt().max(1e-300);
    let err = got.iter().zip(want).map(|(a, b)| (a - b).powi(2)).sum::<f64>().sqrt();
    assert!(err <= rtol * scale, "{what}: relative error {:.3e} > {rtol:.1e} (|ref| = {scale:.3e})", err / scale);
}

/// Central differences of `e` (gradient) and of `g` (Hessian, by columns) at `q`, compared with
/// the kernel's own `g(q)` and `h`.
fn check_fd<const N: usize>(
    tag: &str,
    step: f64,
    q: &SVector<f64, N>,
    e: impl Fn(&SVector<f64, N>) -> f64,
    g: impl Fn(&SVector<f64, N>) -> SVector<f64, N>,
    h: &SMatrix<f64, N, N>,
) {
    let g0 = g(q);
    let mut fd_g = SVector::<f64, N>::zeros();
    let mut fd_h = SMatrix::<f64, N, N>::zeros();
    for i in 0..N {
        let (mut qp, mut qm) = (*q, *q);
        qp[i] += step;
        qm[i] -= step;
        fd_g[i] = (e(&qp) - e(&qm)) / (2.0 * step);
        fd_h.set_column(i, &((g(&qp) - g(&qm)) / (2.0 * step)));
    }
    assert_close_rel(&format!("{tag}: gradient vs FD"), g0.as_slice(), fd_g.as_slice(), FD_RTOL);
    assert_close_rel(&format!("{tag}: Hessian vs FD"), h.as_slice(), fd_h.as_slice(), FD_RTOL);
    // A second derivative: symmetric to round-off (AD and the hand-written blocks are not
    // symmetrized, so a transposed block would show here).
    let asym = (h - h.transpose()).norm() / h.norm().max(1e-300);
    assert!(asym < 1e-12, "{tag}: Hessian asymmetry {asym:e}");
}

fn v3s<const M: usize, const N: usize>(q: &SVector<f64, N>) -> [Vector3<f64>; M] {
    std::array::from_fn(|a| Vector3::new(q[3 * a], q[3 * a + 1], q[3 * a + 2]))
}
fn flat<const M: usize, const N: usize>(x: &[Vector3<f64>; M]) -> SVector<f64, N> {
    SVector::from_fn(|i, _| x[i / 3][i % 3])
}

// ------------------------------------------------------------------------------------------------
// Rods
// ------------------------------------------------------------------------------------------------

/// Human-hair-like rod (004 Table 4: E = 4 GPa, ν = 0.48) but thicker (r = 1 mm) so that the
/// energies are O(1e-3) J and not near underflow; the checks are relative anyway.
fn hair() -> RodStiffness {
    let e = 4e9;
    RodStiffness::circular(e, e / (2.0 * 1.48), 1e-3)
}

#[test]
fn rod_stretch_matches_finite_differences() {
    let ks = hair().stretch;
    for seed in SEEDS {
        let mut rng = Rng(seed);
        let rest = [rng.vec3() * 0.05, rng.vec3() * 0.05 + Vector3::new(0.08, 0.0, 0.0)];
        let el = StretchElement::new([0, 1], (rest[1] - rest[0]).norm());
        // Stretched, compressed (s < 0: indefinite transverse term) and nearly unstretched.
        for (name, scale) in [("stretched", 1.3), ("compressed", 0.6), ("near rest", 1.0 + 1e-5)] {
            let r = rng.rotation();
            let x = [rest[0], rest[0] + r * (rest[1] - rest[0]) * scale];
            let q: SVector<f64, 6> = flat(&x);
            let (e, g, h) = el.energy_gradient_hessian(ks, &x, false);
            assert_eq!(e, el.energy(ks, &x));
            assert_eq!(g, el.energy_gradient(ks, &x).1);
            let step = if name == "near rest" { H_NEAR_REST } else { H };
            check_fd(
                &format!("stretch {name} seed {seed}"),
                step,
                &q,
                |q| el.energy(ks, &v3s(q)),
                |q| el.energy_gradient(ks, &v3s(q)).1,
                &h,
            );
            // The generic (AD) energy agrees: no truncation, so 1e-12 (round-off of ~20 ops).
            let (e_ad, g_ad, h_ad) =
                hessian(|v: SVector<Dual2SVec64<6>, 6>| el.energy_generic(ks, &std::array::from_fn(|i| v[i])), &q);
            assert!((e - e_ad).abs() <= 1e-12 * e.abs().max(1e-300));
            assert_close_rel("stretch AD gradient", g.as_slice(), g_ad.as_slice(), 1e-12);
            assert_close_rel("stretch AD Hessian", h.as_slice(), h_ad.as_slice(), 1e-10);
            // Projection: PSD and unchanged when the spring is stretched.
            let (_, _, hp) = el.energy_gradient_hessian(ks, &x, true);
            let min_eig = hp.symmetric_eigenvalues().min();
            assert!(min_eig >= -1e-9 * hp.norm(), "stretch {name}: projected min eigenvalue {min_eig}");
            if scale > 1.0 {
                assert_eq!(hp, h);
            }
        }
    }
}

/// A random bend–twist stencil: random curved rest shape with random rest angles, stored frames
/// from an intermediate ("previous step") configuration so that the time-parallel transport inside
/// the kernel is a real rotation, and the current configuration with random angles.
struct RodCase {
    el: BendTwistElement,
    frames: [EdgeFrame; 2],
    m_ref_prev: f64,
    q: SVector<f64, 11>,
}

fn rod_case(rng: &mut Rng, bend: f64, perturb: f64, dtheta: [f64; 2]) -> RodCase {
    let l = 0.05;
    let rest = [Vector3::new(-l, 0.0, 0.0), Vector3::zeros(), Vector3::new(l, 0.0, 0.0)].map(|p| p + rng.vec3() * bend);
    let mut frames = RodFrames::space_parallel(&rest);
    let rest_theta = [rng.sym(), rng.sym()];
    let el = BendTwistElement::new(1, &rest, &[frames.edges[0], frames.edges[1]], rest_theta);
    let prev = rest.map(|p| p + rng.vec3() * perturb);
    frames.update(&prev);
    let cur = prev.map(|p| p + rng.vec3() * perturb);
    let theta = [rest_theta[0] + dtheta[0], rest_theta[1] + dtheta[1]];
    let q = SVector::from_fn(|i, _| if i < 9 { cur[i / 3][i % 3] } else { theta[i - 9] });
    RodCase { el, frames: [frames.edges[0], frames.edges[1]], m_ref_prev: frames.reference_twist[0], q }
}

fn split(q: &SVector<f64, 11>) -> ([Vector3<f64>; 3], [f64; 2]) {
    (std::array::from_fn(|a| Vector3::new(q[3 * a], q[3 * a + 1], q[3 * a + 2])), [q[9], q[10]])
}

#[test]
fn rod_bend_twist_matches_finite_differences() {
    let s = hair();
    // An elliptic section too: B anisotropic, so the bending energy depends on the edge angles.
    let s_ell = RodStiffness::elliptic(4e9, 1.35e9, 1.5e-3, 0.7e-3);
    for seed in SEEDS {
        let mut rng = Rng(seed);
        let dt = [rng.sym(), rng.sym()];
        let cases = [
            ("random", rod_case(&mut rng, 0.015, 0.01, dt)),
            // Nearly straight at rest and now (κb ~ 1e-6): the curvature-binormal derivatives
            // must stay finite and consistent where the bending energy nearly vanishes.
            ("nearly straight", rod_case(&mut rng, 1e-7, 1e-7, [0.3, -0.2])),
            // Strongly bent now (turning angle ~ 1 rad) and twisted by ~3 rad.
            ("strongly bent", rod_case(&mut rng, 0.015, 0.03, [-1.5, 1.5])),
        ];
        for (name, c) in cases {
            for (sname, st) in [("round", &s), ("elliptic", &s_ell)] {
                let tag = format!("bend-twist {name} {sname} seed {seed}");
                let (x, th) = split(&c.q);
                let (e, g, h) = c.el.energy_gradient_hessian(st, &x, &th, &c.frames, c.m_ref_prev, false);
                assert!(e.is_finite() && e > 0.0, "{tag}: energy {e}");
                // AD's real part goes through num-dual's own sin_cos/atan2/recip: equal up to
                // a few ulps, not bit for bit.
                let e_plain = c.el.energy(st, &x, &th, &c.frames, c.m_ref_prev);
                assert!((e - e_plain).abs() <= 1e-14 * e, "{tag}: energy {e} vs {e_plain}");
                assert_close_rel(
                    &format!("{tag}: gradient() vs hessian()"),
                    c.el.energy_gradient(st, &x, &th, &c.frames, c.m_ref_prev).1.as_slice(),
                    g.as_slice(),
                    1e-14,
                );
                let energy = |q: &SVector<f64, 11>| {
                    let (x, th) = split(q);
                    c.el.energy(st, &x, &th, &c.frames, c.m_ref_prev)
                };
                let grad = |q: &SVector<f64, 11>| {
                    let (x, th) = split(q);
                    c.el.energy_gradient(st, &x, &th, &c.frames, c.m_ref_prev).1
                };
                check_fd(&tag, H, &c.q, energy, grad, &h);
                // The kernel differentiates in the 8 reduced variables and maps back; AD in all
                // 11 stencil DOFs must agree to round-off (1e-10: cancellation in Tᵀ H_z T).
                let (_, g11, h11) = hessian(
                    |v: SVector<Dual2SVec64<11>, 11>| {
                        c.el.energy_generic(st, &std::array::from_fn(|k| v[k]), (&c.frames, c.m_ref_prev))
                    },
                    &c.q,
                );
                assert_close_rel(&format!("{tag}: gradient vs 11-DOF AD"), g.as_slice(), g11.as_slice(), 1e-10);
                assert_close_rel(&format!("{tag}: Hessian vs 11-DOF AD"), h.as_slice(), h11.as_slice(), 1e-10);
                let (_, _, hp) = c.el.energy_gradient_hessian(st, &x, &th, &c.frames, c.m_ref_prev, true);
                let min_eig = hp.symmetric_eigenvalues().min();
                assert!(min_eig >= -1e-9 * hp.norm(), "{tag}: projected min eigenvalue {min_eig}");
            }
        }
    }
}

/// A curved, twisted rest rod of `n` nodes (a piece of helix).
fn helix(n: usize, radius: f64, pitch: f64, dphi: f64) -> Vec<Vector3<f64>> {
    (0..n)
        .map(|i| {
            let p = i as f64 * dphi;
            Vector3::new(radius * p.cos(), radius * p.sin(), pitch * p)
        })
        .collect()
}

#[test]
fn rod_rest_state_has_zero_energy_and_force() {
    let s = RodStiffness::elliptic(4e9, 1.35e9, 1.5e-3, 0.7e-3);
    let rest = helix(12, 0.03, 0.01, 0.4);
    let (rod, frames) = Rod::from_rest_polyline(&rest, s);
    let theta = vec![0.0; rest.len() - 1];
    let (es, eb, et) = rod.energy_parts(&frames, &rest, &theta);
    // Exact zeros up to round-off of O(1)-sized terms times the stiffness.
    assert!(es.abs() < 1e-20 && eb.abs() < 1e-20 && et.abs() < 1e-20, "rest energies {es} {eb} {et}");
    // Forces: each term is a stiffness times a residual that is exactly 0 at rest (round-off
    // ~1e-16 of curvatures ~30 m⁻¹); compare with the force scale B/L² ≈ 1e-3·… below.
    let force_scale = s.bend.norm() / 0.01f64.powi(2);
    for el in &rod.bend_twist {
        let i = el.node;
        let (_, g) = el.energy_gradient(
            &s,
            &[rest[i - 1], rest[i], rest[i + 1]],
            &[0.0, 0.0],
            &[frames.edges[i - 1], frames.edges[i]],
            frames.reference_twist[i - 1],
        );
        assert!(g.norm() < 1e-10 * force_scale, "bend-twist force at rest {}", g.norm());
    }
    for el in &rod.stretch {
        let (_, g) = el.energy_gradient(s.stretch, &el.gather(&rest));
        assert!(g.norm() < 1e-12 * s.stretch, "stretch force at rest {}", g.norm());
    }
}

#[test]
fn rod_energy_is_invariant_under_rigid_motion_with_transported_frames() {
    let s = RodStiffness::elliptic(4e9, 1.35e9, 1.5e-3, 0.7e-3);
    let mut rng = Rng(3);
    let rest = helix(10, 0.03, 0.01, 0.5);
    let (rod, mut frames) = Rod::from_rest_polyline(&rest, s);
    // A deformed, twisted state.
    let x: Vec<Vector3<f64>> = rest.iter().map(|p| p + rng.vec3() * 0.004).collect();
    frames.update(&x);
    let theta: Vec<f64> = (0..x.len() - 1).map(|j| 0.3 * j as f64 + 0.2 * rng.sym()).collect();
    let (es, eb, et) = rod.energy_parts(&frames, &x, &theta);
    assert!(eb > 0.0 && et > 0.0);
    // The material frames before the motion.
    let m1: Vec<Vector3<f64>> = frames.edges.iter().zip(&theta).map(|(f, t)| f.material(*t).0).collect();

    // Translation: frames unchanged (same tangents), energies equal to round-off.
    let tr = Vector3::new(0.3, -0.1, 2.0);
    let xt: Vec<Vector3<f64>> = x.iter().map(|p| p + tr).collect();
    let (es2, eb2, et2) = rod.energy_parts(&frames, &xt, &theta);
    // Positions ~2 m shifted: edge vectors lose ~ε·2 m/0.015 m relative accuracy ~1e-13.
    for (a, b, what) in [(es, es2, "stretch"), (eb, eb2, "bend"), (et, et2, "twist")] {
        assert!((a - b).abs() <= 1e-9 * a, "translation changed {what}: {a} -> {b}");
    }

    // Rotation by ~1 rad in 10 steps: the reference frames are time-parallel transported (they
    // do not spin about the tangents), the reference twists follow, and the material frames are
    // carried rigidly (θ_j re-measured from the new reference director).
    let r = Rotation3::new(Vector3::new(0.4, -0.7, 0.5));
    let (axis, angle) = r.axis_angle().unwrap();
    let mut fr = frames.clone();
    let mut xr = x.clone();
    for k in 1..=10 {
        let rk = Rotation3::from_axis_angle(&axis, angle * k as f64 / 10.0);
        xr = x.iter().map(|p| rk * p).collect();
        fr.update(&xr);
    }
    // θ is continuous (the twist would jump by 2π otherwise): take angle_of's value on the branch
    // nearest the old angle (each edge turns by less than π about its tangent here).
    let theta_r: Vec<f64> = fr
        .edges
        .iter()
        .zip(&m1)
        .zip(&theta)
        .map(|((f, m), t0)| {
            let a = f.angle_of(&(r * m));
            a + ((t0 - a) / (2.0 * PI)).round() * 2.0 * PI
        })
        .collect();
    let (es3, eb3, et3) = rod.energy_parts(&fr, &xr, &theta_r);
    // Everything is recomputed from rotated data: relative round-off ~1e-14 per operation chain.
    for (a, b, what) in [(es, es3, "stretch"), (eb, eb3, "bend"), (et, et3, "twist")] {
        assert!((a - b).abs() <= 1e-9 * a, "rotation changed {what}: {a} -> {b}");
    }
    // The reference twist did change (holonomy of time-parallel transport): the edge angles, not
    // the frames, carry the rotation about the tangents. Check that it is not trivially the same.
    let dm: f64 = fr.reference_twist.iter().zip(&frames.reference_twist).map(|(a, b)| (a - b).abs()).sum();
    assert!(dm > 1e-3, "reference twists unchanged ({dm}): the test would not exercise the transport");
}

/// First-order version of the above, per stencil: the gradient is orthogonal to every
/// infinitesimal rigid rotation δx = ω × x, δθ_j = ω·t_j (the material frame turns with the body
/// while the reference frame only follows the tangent), and to translations.
#[test]
fn rod_bend_twist_gradient_is_orthogonal_to_rigid_motions() {
    let s = RodStiffness::elliptic(4e9, 1.35e9, 1.5e-3, 0.7e-3);
    for seed in SEEDS {
        let mut rng = Rng(seed);
        let c = rod_case(&mut rng, 0.015, 0.01, [0.4, -0.3]);
        let (x, th) = split(&c.q);
        // The derivative identity δθ_j = ω·t_j holds at the stored frame's configuration (where
        // the time-parallel transport starts), so evaluate with frames updated to x.
        let mut frames = RodFrames { edges: c.frames.to_vec(), reference_twist: vec![c.m_ref_prev] };
        frames.update(&x);
        let f2 = [frames.edges[0], frames.edges[1]];
        let (_, g) = c.el.energy_gradient(&s, &x, &th, &f2, frames.reference_twist[0]);
        let scale = g.norm() * 0.05; // |g| times the stencil size: the size of g·δq for |ω| = 1
        for w in [Vector3::x(), Vector3::y(), Vector3::z(), rng.vec3()] {
            let mut dq = SVector::<f64, 11>::zeros();
            for (a, xa) in x.iter().enumerate() {
                dq.fixed_rows_mut::<3>(3 * a).copy_from(&w.cross(xa));
            }
            dq[9] = w.dot(&f2[0].tangent);
            dq[10] = w.dot(&f2[1].tangent);
            // Analytic identity, violated only by round-off (~1e-16 relative) or a wrong term.
            assert!(g.dot(&dq).abs() < 1e-10 * scale * w.norm(), "seed {seed}: g·δq_rot = {}", g.dot(&dq));
            let mut dt = SVector::<f64, 11>::zeros();
            for a in 0..3 {
                dt.fixed_rows_mut::<3>(3 * a).copy_from(&w);
            }
            assert!(g.dot(&dt).abs() < 1e-10 * scale / 0.05 * w.norm(), "seed {seed}: g·δq_trans = {}", g.dot(&dt));
        }
    }
}

/// A straight rod bent into an arc of a circle of radius R (edge chords equal to the rest
/// lengths, so no stretch; no twist): the DER bending energy converges to the elastica energy
/// B L/(2R²) at second order. Per interior node the discrete energy is 2B tan²(φ/2)/ℓ with turning
/// angle φ and chord ℓ = 2R sin(φ/2), i.e. B ℓ/(2R²) × 1/cos²(φ/2) = B ℓ/(2R²) (1 + φ²/4 + …);
/// L here is the length carried by the interior nodes, Σ ℓ_i (the end half-edges carry no
/// curvature in DER).
#[test]
fn rod_circle_bending_energy_converges_at_second_order() {
    let s = hair();
    let b = s.bend[(0, 0)];
    let radius = 0.05;
    let arc = PI; // half a circle
    let mut errors = Vec::new();
    for n_edges in [8usize, 16, 32, 64] {
        let phi = arc / n_edges as f64;
        let x: Vec<Vector3<f64>> = (0..=n_edges)
            .map(|i| {
                let a = i as f64 * phi;
                Vector3::new(radius * a.cos(), radius * a.sin(), 0.0)
            })
            .collect();
        let chord = 2.0 * radius * (phi / 2.0).sin();
        let rest: Vec<Vector3<f64>> = (0..=n_edges).map(|i| Vector3::new(i as f64 * chord, 0.0, 0.0)).collect();
        let (rod, _) = Rod::from_rest_polyline(&rest, s);
        let frames = RodFrames::space_parallel(&x);
        let (es, eb, et) = rod.energy_parts(&frames, &x, &vec![0.0; n_edges]);
        let length: f64 = rod.bend_twist.iter().map(|e| e.voronoi_length()).sum();
        let exact = b * length / (2.0 * radius * radius);
        let rel = eb / exact - 1.0;
        eprintln!("circle: {n_edges:3} edges, h/R = {:.4}, E_bend/(B L/2R²) - 1 = {rel:.3e}", chord / radius);
        // No stretch (chords = rest lengths) and no twist, up to round-off.
        assert!(es < 1e-12 * eb && et < 1e-12 * eb, "stretch {es}, twist {et}");
        // The closed form of the discrete energy (derived above), to round-off.
        let predicted = 1.0 / (phi / 2.0).cos().powi(2) - 1.0;
        assert!((rel - predicted).abs() < 1e-10, "{n_edges}: error {rel} vs predicted {predicted}");
        errors.push(rel);
    }
    for w in errors.windows(2) {
        let order = (w[0] / w[1]).log2();
        // Halving h divides the error by 4 (order 2); 1.95..2.05 allows the O(h⁴) term at n = 8.
        assert!((1.95..2.05).contains(&order), "observed order {order}");
    }
}

#[test]
fn quasistatic_twist_minimizes_twist_energy() {
    let s = hair();
    let rest = helix(15, 0.02, 0.01, 0.35);
    let (rod, mut frames) = Rod::from_rest_polyline(&rest, s);
    let mut rng = Rng(11);
    let x: Vec<Vector3<f64>> = rest.iter().map(|p| p + rng.vec3() * 0.003).collect();
    frames.update(&x);
    let n_e = x.len() - 1;

    // Free tip: twist energy 0 whatever the root angle.
    let (theta, e) = quasistatic_twist(&rod, &frames, TwistBoundary::FreeTip { root_angle: 0.7 });
    assert_eq!(e, 0.0);
    assert_eq!(theta[0], 0.7);
    let (_, _, et) = rod.energy_parts(&frames, &x, &theta);
    // Twists cancel to round-off of angles ~1 (1e-15); energy ~ β·1e-30/ℓ.
    assert!(et < 1e-20, "free-tip twist energy {et}");

    // Clamped: the reported minimum is the rod's twist energy at those angles, and it is
    // stationary with respect to every interior edge angle.
    let bc = TwistBoundary::Clamped { root_angle: 0.2, tip_angle: 4.0 };
    let (theta, e) = quasistatic_twist(&rod, &frames, bc);
    assert_eq!((theta[0], theta[n_e - 1]), (0.2, 4.0));
    let (_, _, et) = rod.energy_parts(&frames, &x, &theta);
    // Same sum computed two ways: round-off only.
    assert!((et - e).abs() < 1e-12 * e, "minimum {e} vs rod twist energy {et}");
    let dofs = RodDofs { start: 0, nodes: x.len(), with_angles: true };
    let mut g_theta = vec![0.0; n_e];
    for el in &rod.bend_twist {
        let i = el.node;
        let (_, g) = el.energy_gradient(
            &s,
            &[x[i - 1], x[i], x[i + 1]],
            &[theta[i - 1], theta[i]],
            &[frames.edges[i - 1], frames.edges[i]],
            frames.reference_twist[i - 1],
        );
        // Scatter through the DOF map (angles come after the 3n positions).
        let idx = dofs.bend_twist_dofs(i);
        g_theta[idx[9] - 3 * x.len()] += g[9];
        g_theta[idx[10] - 3 * x.len()] += g[10];
    }
    // Only the twist part is minimized; with a round section and a naturally curved rest shape
    // the bending energy depends on θ too (ω̄ ≠ 0), so compare the twist part only: recompute
    // with a bending-free copy of the stiffness.
    let s_twist = RodStiffness { bend: nalgebra::Matrix2::zeros(), ..s };
    let mut g_twist = vec![0.0; n_e];
    for el in &rod.bend_twist {
        let i = el.node;
        let (_, g) = el.energy_gradient(
            &s_twist,
            &[x[i - 1], x[i], x[i + 1]],
            &[theta[i - 1], theta[i]],
            &[frames.edges[i - 1], frames.edges[i]],
            frames.reference_twist[i - 1],
        );
        g_twist[i - 1] += g[9];
        g_twist[i] += g[10];
    }
    // Force scale: β T/L (torque of the uniform twist), T ≈ 4 rad.
    let torque = s.twist * 4.0 / rod.bend_twist.iter().map(|e| e.voronoi_length()).sum::<f64>();
    for (j, gj) in g_twist.iter().enumerate().take(n_e - 1).skip(1) {
        assert!(gj.abs() < 1e-9 * torque, "interior edge {j}: ∂E_t/∂θ = {gj} (torque scale {torque})");
    }
    // The end torques balance (no external torque except at the clamps) and equal ±β T/L.
    assert!((g_twist[0] + g_twist[n_e - 1]).abs() < 1e-9 * torque);
    assert!(g_theta.iter().all(|v| v.is_finite()));

    // Closed form on a straight rod twisted by Φ: E = β Φ²/(2 L), L = Σ ℓ_i.
    let straight: Vec<Vector3<f64>> = (0..11).map(|i| Vector3::new(0.01 * i as f64, 0.0, 0.0)).collect();
    let (rod, frames) = Rod::from_rest_polyline(&straight, s);
    let phi = 2.5;
    let (theta, e) = quasistatic_twist(&rod, &frames, TwistBoundary::Clamped { root_angle: 0.0, tip_angle: phi });
    let length = 0.09; // 9 interior nodes × ℓ = 0.01
    let exact = s.twist * phi * phi / (2.0 * length);
    assert!((e - exact).abs() < 1e-12 * exact, "torsion energy {e} vs {exact}");
    // Uniform twist: equal angle increments Φ/9 over the 9 interior nodes (round-off of a
    // running sum of ~10 terms of size ~2.5).
    for w in theta.windows(2) {
        assert!((w[1] - w[0] - phi / 9.0).abs() < 1e-12, "increment {}", w[1] - w[0]);
    }
}

// ------------------------------------------------------------------------------------------------
// Membrane
// ------------------------------------------------------------------------------------------------

fn cloth(model: MembraneModel) -> MembraneMaterial {
    // 004 Table 4 shirt: E_s = 1 MPa, ν = 0.4, 2 mm thick, 1 g/cm³.
    MembraneMaterial::from_young_poisson(model, 1e6, 0.4, 2e-3, 1000.0)
}

const MEMBRANES: [MembraneModel; 2] = [MembraneModel::StVK, MembraneModel::NeoHookean];

/// A random rest triangle of size ~0.05 m in a random plane.
fn rest_triangle(rng: &mut Rng) -> [Vector3<f64>; 3] {
    let r = rng.rotation();
    [Vector3::zeros(), Vector3::new(1.0, 0.0, 0.0), Vector3::new(0.4, 0.9, 0.0)]
        .map(|p| r * (p + rng.vec3() * 0.15) * 0.05 + rng.vec3() * 0.1)
}

/// Current positions x = R F X + t for an in-plane 2D deformation `f2` (in the rest triangle's
/// basis from X0) plus an optional out-of-plane perturbation.
fn deform_triangle(
    rng: &mut Rng,
    rest: &[Vector3<f64>; 3],
    f2: nalgebra::Matrix2<f64>,
    noise: f64,
) -> [Vector3<f64>; 3] {
    let b1 = (rest[1] - rest[0]).normalize();
    let n = (rest[1] - rest[0]).cross(&(rest[2] - rest[0])).normalize();
    let b2 = n.cross(&b1);
    let r = rng.rotation();
    let t = rng.vec3();
    rest.map(|p| {
        let d = p - rest[0];
        let xy = f2 * nalgebra::Vector2::new(d.dot(&b1), d.dot(&b2));
        r * (b1 * xy[0] + b2 * xy[1] + n * (d.dot(&n))) + t + rng.vec3() * noise
    })
}

#[test]
fn membrane_matches_finite_differences_and_ad() {
    for model in MEMBRANES {
        let m = cloth(model);
        for seed in SEEDS {
            let mut rng = Rng(seed);
            let rest = rest_triangle(&mut rng);
            let el = MembraneElement::new([0, 1, 2], &rest);
            let mut cases = vec![
                ("random", deform_triangle(&mut rng, &rest, nalgebra::Matrix2::new(1.1, 0.2, -0.1, 0.9), 0.004)),
                ("large stretch", deform_triangle(&mut rng, &rest, nalgebra::Matrix2::new(1.8, 0.3, 0.0, 1.4), 0.0)),
                ("compressed", deform_triangle(&mut rng, &rest, nalgebra::Matrix2::new(0.6, 0.0, 0.1, 0.7), 0.0)),
                // Nearly collapsed to a segment (area ratio 0.02): NH's ln J is steep here.
                (
                    "nearly degenerate",
                    deform_triangle(&mut rng, &rest, nalgebra::Matrix2::new(1.0, 0.0, 0.0, 0.02), 0.0),
                ),
            ];
            if model == MembraneModel::StVK {
                // Flipped through itself (det F < 0 in the plane): StVK is defined there.
                cases.push((
                    "flipped",
                    deform_triangle(&mut rng, &rest, nalgebra::Matrix2::new(1.0, 0.0, 0.0, -0.8), 0.0),
                ));
            }
            for (name, x) in cases {
                let tag = format!("membrane {model:?} {name} seed {seed}");
                let q: SVector<f64, 9> = flat(&x);
                let (e, g, h) = el.energy_gradient_hessian(&m, &x, false);
                assert!(e.is_finite(), "{tag}: energy {e}");
                assert_eq!(e, el.energy(&m, &x));
                check_fd(&tag, H, &q, |q| el.energy(&m, &v3s(q)), |q| el.energy_gradient(&m, &v3s(q)).1, &h);
                // Hand-derived vs forward-mode AD: no truncation error, so 1e-10 (cancellation
                // in the stiff nearly-degenerate NH case).
                let (e_ad, g_ad, h_ad) =
                    hessian(|v: SVector<Dual2SVec64<9>, 9>| el.energy_generic(&m, &std::array::from_fn(|i| v[i])), &q);
                assert!((e - e_ad).abs() <= 1e-12 * e.abs(), "{tag}: energy vs AD");
                assert_close_rel(&format!("{tag}: gradient vs AD"), g.as_slice(), g_ad.as_slice(), 1e-10);
                assert_close_rel(&format!("{tag}: Hessian vs AD"), h.as_slice(), h_ad.as_slice(), 1e-10);
                // The generic gradient (matrix-free products): in f64 the hand-derived gradient,
                // seeded with a direction the Hessian times it (same round-off bound as above).
                let gg = el.gradient_generic(&m, &std::array::from_fn(|i| q[i]));
                assert_close_rel(&format!("{tag}: generic gradient"), &gg, g.as_slice(), 1e-10);
                let dir = SVector::<f64, 9>::from_fn(|i, _| rng.sym() + 0.1 * i as f64);
                let seeded: [Dual64; 9] = std::array::from_fn(|i| Dual64::new(q[i], dir[i]));
                let hd = el.gradient_generic(&m, &seeded).map(|d| d.eps);
                assert_close_rel(&format!("{tag}: Hessian product"), &hd, (h * dir).as_slice(), 1e-10);
                let (_, _, hp) = el.energy_gradient_hessian(&m, &x, true);
                let min_eig = hp.symmetric_eigenvalues().min();
                assert!(min_eig >= -1e-9 * hp.norm(), "{tag}: projected min eigenvalue {min_eig}");
                // Uniform stretch keeps ∂²Ψ/∂F² positive definite: the projection must then be
                // the identity (bit for bit, the Cholesky fast path).
                if name == "large stretch" {
                    assert_eq!(hp, h, "{tag}: projection changed a definite Hessian");
                }
                // Compression makes StVK indefinite: the projection must have acted.
                if name == "compressed" && model == MembraneModel::StVK {
                    assert!(h.symmetric_eigenvalues().min() < -1e-6 * h.norm(), "{tag}: expected indefinite");
                    assert_ne!(hp, h);
                }
            }
        }
    }
}

#[test]
fn membrane_rest_state_and_rigid_motion() {
    for model in MEMBRANES {
        let m = cloth(model);
        let mut rng = Rng(5);
        let rest = rest_triangle(&mut rng);
        let el = MembraneElement::new([0, 1, 2], &rest);
        let (e, g) = el.energy_gradient(&m, &rest);
        let force_scale = m.mu * m.thickness * el.rest_area.sqrt();
        // Ψ(I) = 0 and S(I) = 0 exactly up to round-off of F ≈ I (1e-16).
        assert!(e.abs() < 1e-12 * m.mu * m.thickness * el.rest_area, "{model:?}: rest energy {e}");
        assert!(g.norm() < 1e-10 * force_scale, "{model:?}: rest force {}", g.norm());
        // Rigidly moved rest triangle: still zero.
        let xr = deform_triangle(&mut rng, &rest, nalgebra::Matrix2::identity(), 0.0);
        let (e, g) = el.energy_gradient(&m, &xr);
        assert!(e.abs() < 1e-12 * m.mu * m.thickness * el.rest_area, "{model:?}: rigid energy {e}");
        assert!(g.norm() < 1e-10 * force_scale, "{model:?}: rigid force {}", g.norm());
        // A deformed state: energy unchanged by rotation + translation.
        let x = deform_triangle(&mut rng, &rest, nalgebra::Matrix2::new(1.3, 0.2, 0.1, 0.8), 0.003);
        let e0 = el.energy(&m, &x);
        let (r, t) = (rng.rotation(), rng.vec3());
        let e1 = el.energy(&m, &x.map(|p| r * p + t));
        // Recomputed from rotated coordinates: ~1e-14 relative.
        assert!((e1 - e0).abs() < 1e-11 * e0, "{model:?}: rigid motion changed the energy {e0} -> {e1}");
    }
}

/// Uniaxial stretch s along an arbitrary in-plane direction d with no lateral contraction:
/// F = I + (s − 1) d dᵀ, Green strain G = (s² − 1)/2 d dᵀ, so
/// StVK: Ψ = (μ + λ/2) ((s² − 1)/2)²; neo-Hookean: Ψ = μ/2 (s² − 1) − μ ln s + λ/2 (ln s)².
/// Also the small-strain limit with free lateral contraction (uniaxial *stress*): minimizing over
/// the lateral stretch gives Ψ ≈ E ε²/2, which checks the plane-stress constants.
#[test]
fn membrane_uniaxial_stretch_matches_analytic_energy() {
    let (young, nu) = (1e6, 0.4);
    for model in MEMBRANES {
        let m = MembraneMaterial::from_young_poisson(model, young, nu, 2e-3, 1000.0);
        let mut rng = Rng(9);
        let rest = rest_triangle(&mut rng);
        let el = MembraneElement::new([0, 1, 2], &rest);
        let vol = m.thickness * el.rest_area;
        for s in [0.7, 0.95, 1.05, 1.5, 2.0] {
            let a = rng.sym() * PI;
            let d = nalgebra::Vector2::new(a.cos(), a.sin());
            let f2 = nalgebra::Matrix2::identity() + d * d.transpose() * (s - 1.0);
            let x = deform_triangle(&mut rng, &rest, f2, 0.0);
            let psi = match model {
                MembraneModel::StVK => (m.mu + 0.5 * m.lambda) * ((s * s - 1.0) / 2.0).powi(2),
                MembraneModel::NeoHookean => {
                    0.5 * m.mu * (s * s - 1.0) - m.mu * s.ln() + 0.5 * m.lambda * s.ln().powi(2)
                }
            };
            let e = el.energy(&m, &x);
            // Same formula through different arithmetic: round-off ~1e-14 relative.
            assert!((e - vol * psi).abs() < 1e-10 * vol * psi, "{model:?} s = {s}: {e} vs {}", vol * psi);
        }
        // Uniaxial stress at ε = 1e-4: minimize over the lateral stretch (golden section).
        let eps = 1e-4;
        let energy_at = |lat: f64| {
            let f2 = nalgebra::Matrix2::new(1.0 + eps, 0.0, 0.0, lat);
            el.energy(&m, &deform_triangle(&mut Rng(1), &rest, f2, 0.0))
        };
        let (mut lo, mut hi) = (1.0 - 2.0 * eps, 1.0);
        let gr = 0.5 * (5f64.sqrt() - 1.0);
        for _ in 0..80 {
            let (c, d) = (hi - gr * (hi - lo), lo + gr * (hi - lo));
            if energy_at(c) < energy_at(d) {
                hi = d;
            } else {
                lo = c;
            }
        }
        let lat = 0.5 * (lo + hi);
        let e_min = energy_at(lat);
        let exact = vol * young * eps * eps / 2.0;
        // Nonlinear corrections are O(ε) = 1e-4 relative; 1e-3 bounds them.
        assert!((e_min / exact - 1.0).abs() < 1e-3, "{model:?}: uniaxial stress energy {e_min} vs E ε²/2 {exact}");
        // Lateral contraction −ν ε (plane stress), to O(ε²) and golden-section accuracy.
        assert!(((1.0 - lat) / eps - nu).abs() < 1e-3, "{model:?}: Poisson contraction {}", (1.0 - lat) / eps);
    }
}

// ------------------------------------------------------------------------------------------------
// Hinge bending
// ------------------------------------------------------------------------------------------------

/// A hinge with edge x0–x1 along a random direction, wings of random shape, x2 folded to angle
/// `theta` relative to the plane of (x0, x1, x3): the dihedral angle is then `theta`.
fn hinge(rng: &mut Rng, theta: f64) -> [Vector3<f64>; 4] {
    let r = rng.rotation();
    let t = rng.vec3();
    let l = 0.05;
    let (a2, h2) = (l * (0.5 + 0.3 * rng.sym()), l * (0.8 + 0.3 * rng.sym()));
    let (a3, h3) = (l * (0.5 + 0.3 * rng.sym()), l * (0.8 + 0.3 * rng.sym()));
    // Edge along x; x3 in the xy-plane at −y; x2 at +y rotated about x by θ (sign chosen so that
    // the computed angle is +θ, see below).
    let x = [
        Vector3::new(0.0, 0.0, 0.0),
        Vector3::new(l, 0.0, 0.0),
        Vector3::new(a2, h2 * theta.cos(), -h2 * theta.sin()),
        Vector3::new(a3, -h3, 0.0),
    ];
    x.map(|p| r * p + t)
}

#[test]
fn hinge_angle_is_the_fold_angle() {
    let mut rng = Rng(17);
    for theta in [-3.0, -1.0, -1e-6, 0.0, 1e-6, 0.5, 2.0, 3.1] {
        let x = hinge(&mut rng, theta);
        let got = dihedral_angle(&x);
        // atan2 of exact-to-round-off pairs: ~1e-15 absolute.
        assert!((got - theta).abs() < 1e-12, "fold {theta}: dihedral {got}");
    }
}

#[test]
fn hinge_matches_finite_differences() {
    let k = hinge_stiffness(1e6, 0.4, 2e-3);
    for seed in SEEDS {
        let mut rng = Rng(seed);
        let cases = [
            ("random", 0.3 * rng.sym(), 0.8 * rng.sym()),
            // Rest flat, current nearly flat (θ = 1e-5): ∇θ is finite and the Hessian is
            // dominated by ∇θ ∇θᵀ.
            ("nearly flat", 0.0, 1e-5),
            // Flipped: folded almost onto itself (θ = ±(π − 0.05)).
            ("flipped +", 0.0, PI - 0.05),
            ("flipped -", 0.2, -(PI - 0.05)),
            // Raw θ crosses atan2's branch cut relative to θ̄ = 2.8: θ = −2.9 is 0.58 rad away
            // from θ̄ going through ±π; the wrapped difference is smooth there.
            ("across ±π", 2.8, -2.9),
        ];
        for (name, rest_angle, angle) in cases {
            let tag = format!("hinge {name} seed {seed}");
            let rest = hinge(&mut rng, rest_angle);
            let el = HingeElement::new([0, 1, 2, 3], &rest);
            assert!((el.rest_angle - rest_angle).abs() < 1e-12);
            let x = hinge(&mut rng, angle);
            // Perturb the wings so the stencil is not symmetric (all entries exercised), except
            // in the nearly-flat case where noise would dominate the 1e-5 fold.
            let noise = if name == "nearly flat" { 0.0 } else { 0.003 };
            let x = x.map(|p| p + rng.vec3() * noise);
            let q: SVector<f64, 12> = flat(&x);
            let (e, g, h) = el.energy_gradient_hessian(k, &x, false);
            assert!(e.is_finite() && e > 0.0, "{tag}: energy {e}");
            let e_plain = el.energy(k, &x);
            assert!((e - e_plain).abs() <= 1e-14 * e, "{tag}: energy {e} vs {e_plain}");
            assert_close_rel(
                &format!("{tag}: gradient() vs hessian()"),
                el.energy_gradient(k, &x).1.as_slice(),
                g.as_slice(),
                1e-14,
            );
            let step = if name == "nearly flat" { H_NEAR_REST } else { H };
            check_fd(&tag, step, &q, |q| el.energy(k, &v3s(q)), |q| el.energy_gradient(k, &v3s(q)).1, &h);
            // The kernel's Hessian is forward-mode AD of the hand gradient in 9 reduced variables,
            // mapped back; second-order AD of the energy in all 12 DOFs
            // must agree to round-off.
            let (_, _, h12) =
                hessian(|v: SVector<Dual2SVec64<12>, 12>| el.energy_generic(k, &std::array::from_fn(|i| v[i])), &q);
            assert_close_rel(&format!("{tag}: Hessian vs 12-DOF AD"), h.as_slice(), h12.as_slice(), 1e-10);
            // The generic gradient (`energy_gradient`'s, checked above) seeded with a direction:
            // the matrix-free products' Hessian times it.
            let dir = SVector::<f64, 12>::from_fn(|i, _| rng.sym() + 0.1 * i as f64);
            let seeded: [Dual64; 12] = std::array::from_fn(|i| Dual64::new(q[i], dir[i]));
            let hd = el.gradient_generic(k, &seeded).map(|d| d.eps);
            assert_close_rel(&format!("{tag}: Hessian product"), &hd, (h * dir).as_slice(), 1e-10);
            let (_, _, hp) = el.energy_gradient_hessian(k, &x, true);
            let min_eig = hp.symmetric_eigenvalues().min();
            assert!(min_eig >= -1e-9 * hp.norm(), "{tag}: projected min eigenvalue {min_eig}");
        }
    }
}

#[test]
fn hinge_rest_state_rigid_motion_and_fold_closed_form() {
    let k = hinge_stiffness(1e6, 0.4, 2e-3);
    let mut rng = Rng(23);
    for rest_angle in [0.0, 0.7, -2.0] {
        let rest = hinge(&mut rng, rest_angle);
        let el = HingeElement::new([0, 1, 2, 3], &rest);
        // Rest (and any rigid motion of it): zero energy and force.
        let (r, t) = (rng.rotation(), rng.vec3());
        for x in [rest, rest.map(|p| r * p + t)] {
            let (e, g) = el.energy_gradient(k, &x);
            // θ − θ̄ is round-off (~1e-15 rad): E ~ k w 1e-30, |g| ~ k w 1e-15 / 0.05 m.
            assert!(e < 1e-24 * k * el.weight, "rest energy {e}");
            assert!(g.norm() < 1e-12 * k * el.weight / 0.05, "rest force {}", g.norm());
        }
        // Folded to θ: E = k (θ − θ̄)² 3|ē|²/(Ā1 + Ā2) exactly, whatever rigid motion follows.
        for theta in [rest_angle + 0.3, rest_angle - 1.0, 0.0] {
            // The rest hinge with wing x2 folded by θ − θ̄ about the edge, then moved rigidly.
            let x = fold_like(&rest, theta - rest_angle);
            let (rr, tt) = (rng.rotation(), rng.vec3());
            let x = x.map(|p| rr * p + tt);
            let e = el.energy(k, &x);
            let e0 = (rest[1] - rest[0]).norm_squared();
            let a1 = 0.5 * (rest[1] - rest[0]).cross(&(rest[2] - rest[0])).norm();
            let a2 = 0.5 * (rest[1] - rest[0]).cross(&(rest[3] - rest[0])).norm();
            let d = theta - rest_angle;
            let exact = k * d * d * 3.0 * e0 / (a1 + a2);
            // Round-off: θ carries ~1e-15 rad, so E has an absolute floor ~k w 1e-30.
            assert!(
                (e - exact).abs() < 1e-10 * exact + 1e-24 * k * el.weight,
                "fold {rest_angle} -> {theta}: {e} vs {exact}"
            );
        }
    }
}

/// Rotates wing x2 of `x` about the hinge edge by `d`, which changes the dihedral angle by d.
fn fold_like(x: &[Vector3<f64>; 4], d: f64) -> [Vector3<f64>; 4] {
    let axis = nalgebra::Unit::new_normalize(x[1] - x[0]);
    // Positive rotation of x2 about ê by −d increases θ by d with this module's sign convention
    // (checked against `dihedral_angle` below).
    let r = Rotation3::from_axis_angle(&axis, -d);
    let out = [x[0], x[1], x[0] + r * (x[2] - x[0]), x[3]];
    let want = dihedral_angle(x) + d;
    let got = dihedral_angle(&out);
    let diff = (got - want + PI).rem_euclid(2.0 * PI) - PI;
    assert!(diff.abs() < 1e-12, "fold_like: dihedral {got}, wanted {want}");
    out
}

/// A flat regular right-triangle grid bent into a cylinder of radius R with the rulings along
/// grid lines: the total hinge energy equals the plate energy D/2 κ² A (A = the area spanned by
/// the interior ruling edges): the calibration k = D/6 of `hinge_stiffness`. Bending across the diagonal direction gives another
/// constant (printed, not asserted: a known mesh dependence of discrete shells).
#[test]
fn hinge_cylinder_calibration_on_grid() {
    let (young, nu, h) = (1e6, 0.4, 2e-3);
    let k = hinge_stiffness(young, nu, h);
    let d_plate = young * h.powi(3) / (12.0 * (1.0 - nu * nu));
    let (n, a, radius) = (20usize, 0.01, 0.2);
    let idx = |i: usize, j: usize| j * (n + 1) + i;
    let rest: Vec<Vector3<f64>> =
        (0..=n).flat_map(|j| (0..=n).map(move |i| Vector3::new(i as f64 * a, j as f64 * a, 0.0))).collect();
    let mut tris = Vec::new();
    for j in 0..n {
        for i in 0..n {
            tris.push([idx(i, j), idx(i + 1, j), idx(i + 1, j + 1)]);
            tris.push([idx(i, j), idx(i + 1, j + 1), idx(i, j + 1)]);
        }
    }
    let hinges = HingeElement::from_triangles(&tris, &rest);
    // Interior edges of an n×n grid: 3n² − 2n (total 3n² + 2n minus 4n boundary).
    assert_eq!(hinges.len(), 3 * n * n - 2 * n);
    // Rulings along x (bend in y) and along the diagonal direction.
    for (name, dir) in [
        ("along grid lines", 0.0),
        ("along the split diagonals", PI / 4.0),
        ("across the split diagonals", -PI / 4.0),
        ("at 30°", PI / 6.0),
    ] {
        let (c, s) = (f64::cos(dir), f64::sin(dir));
        let x: Vec<Vector3<f64>> = rest
            .iter()
            .map(|p| {
                // Coordinate across the rulings.
                let across = -s * p.x + c * p.y;
                let along = c * p.x + s * p.y;
                let phi = across / radius;
                let (u, w) = (radius * phi.sin(), radius * (1.0 - phi.cos()));
                Vector3::new(c * along - s * u, s * along + c * u, w)
            })
            .collect();
        let e: f64 = hinges.iter().map(|el| el.energy(k, &el.gather(&x))).sum();
        if dir == 0.0 {
            // n − 1 interior ruling lines of n edges; the vertices sit at arc length j a, so
            // each ruling edge turns by exactly θ = a/R (and the ruling edges keep their length).
            let theta = a / radius;
            let discrete = (n - 1) as f64 * n as f64 * k * 3.0 * theta * theta;
            assert!((e - discrete).abs() < 1e-9 * e, "grid cylinder: {e} vs {discrete}");
            let plate = 0.5 * d_plate / (radius * radius) * ((n - 1) as f64 * a) * (n as f64 * a);
            let ratio = e / plate;
            eprintln!("hinge cylinder {name}: E / (D/2 κ² A) = {ratio:.6}");
            // With θ = a/R exactly the discrete energy is 3 k θ² per edge = D/2 κ² a², so the
            // ratio is 1 up to round-off.
            assert!((ratio - 1.0).abs() < 1e-9, "calibration ratio {ratio}");
        } else {
            let plate = 0.5 * d_plate / (radius * radius) * (n as f64 * a).powi(2);
            // A_grid counts the whole sheet (boundary strips included), so ≈ 1 − O(1/n) is "right".
            eprintln!("hinge cylinder {name}: E / (D/2 κ² A_grid) = {:.4}", e / plate);
        }
    }
}

// ------------------------------------------------------------------------------------------------
// Gauss–Newton Hessians (the cheap PSD option for projected Newton)
// ------------------------------------------------------------------------------------------------

/// Gauss–Newton variants: the gradient is the exact one, the matrix is PSD, and it equals the
/// exact Hessian at the rest state (where the dropped strain-curvature term vanishes).
#[test]
fn gauss_newton_hessians_are_psd_exact_gradients_and_exact_at_rest() {
    let s = RodStiffness::elliptic(4e9, 1.35e9, 1.5e-3, 0.7e-3);
    let k = hinge_stiffness(1e6, 0.4, 2e-3);
    for seed in SEEDS {
        let mut rng = Rng(seed);
        // Rod, deformed: same energy and gradient as the exact kernel (both AD of the same
        // function: round-off only, 1e-12), PSD matrix.
        let c = rod_case(&mut rng, 0.015, 0.01, [0.4, -0.3]);
        let (x, th) = split(&c.q);
        let (e, g, _) = c.el.energy_gradient_hessian(&s, &x, &th, &c.frames, c.m_ref_prev, false);
        let (e_gn, g_gn, h_gn) = c.el.energy_gradient_gauss_newton(&s, &x, &th, &c.frames, c.m_ref_prev);
        assert!((e - e_gn).abs() < 1e-12 * e, "seed {seed}: rod GN energy {e_gn} vs {e}");
        assert_close_rel(&format!("rod GN gradient seed {seed}"), g_gn.as_slice(), g.as_slice(), 1e-12);
        let min_eig = h_gn.symmetric_eigenvalues().min();
        assert!(min_eig >= -1e-12 * h_gn.norm(), "rod GN min eigenvalue {min_eig}");
        // Rod at rest: GN = exact Hessian (r = 0), to round-off.
        let rest = [Vector3::new(-0.05, 0.0, 0.0), Vector3::zeros(), Vector3::new(0.05, 0.0, 0.0)]
            .map(|p| p + rng.vec3() * 0.015);
        let frames = RodFrames::space_parallel(&rest);
        let fr = [frames.edges[0], frames.edges[1]];
        let th0 = [rng.sym(), rng.sym()];
        let el = BendTwistElement::new(1, &rest, &fr, th0);
        let (_, _, h) = el.energy_gradient_hessian(&s, &rest, &th0, &fr, 0.0, false);
        let (_, _, h_gn) = el.energy_gradient_gauss_newton(&s, &rest, &th0, &fr, 0.0);
        assert_close_rel(&format!("rod GN at rest seed {seed}"), h_gn.as_slice(), h.as_slice(), 1e-10);

        // Hinge, folded: same checks.
        let el = HingeElement::new([0, 1, 2, 3], &hinge(&mut rng, 0.4));
        let x = hinge(&mut rng, -0.8).map(|p| p + rng.vec3() * 0.003);
        let (e, g, _) = el.energy_gradient_hessian(k, &x, false);
        let (e_gn, g_gn, h_gn) = el.energy_gradient_gauss_newton(k, &x);
        assert!((e - e_gn).abs() < 1e-12 * e, "hinge GN energy");
        assert_close_rel(&format!("hinge GN gradient seed {seed}"), g_gn.as_slice(), g.as_slice(), 1e-11);
        let min_eig = h_gn.symmetric_eigenvalues().min();
        assert!(min_eig >= -1e-12 * h_gn.norm(), "hinge GN min eigenvalue {min_eig}");
        // Hinge at rest: the exact Hessian is 2 k w ∇θ ∇θᵀ there too.
        let rest = hinge(&mut rng, 0.9);
        let el = HingeElement::new([0, 1, 2, 3], &rest);
        let (_, _, h) = el.energy_gradient_hessian(k, &rest, false);
        let (_, _, h_gn) = el.energy_gradient_gauss_newton(k, &rest);
        assert_close_rel(&format!("hinge GN at rest seed {seed}"), h_gn.as_slice(), h.as_slice(), 1e-10);
    }
}

/// The DOF layout end to end: a whole rod's gradient and Hessian assembled from the stencils
/// through [`RodDofs`] (positions first, then edge angles) against central differences of the
/// rod's total energy over its range of the generalized vector.
#[test]
fn rod_assembled_through_dof_map_matches_finite_differences() {
    const NODES: usize = 6;
    const N: usize = 3 * NODES + NODES - 1;
    let s = RodStiffness::elliptic(4e9, 1.35e9, 1.5e-3, 0.7e-3);
    let rest = helix(NODES, 0.03, 0.01, 0.5);
    let (rod, mut frames) = Rod::from_rest_polyline(&rest, s);
    let mut rng = Rng(77);
    let x0: Vec<Vector3<f64>> = rest.iter().map(|p| p + rng.vec3() * 0.004).collect();
    frames.update(&x0);
    // The range starts at 7 inside a larger generalized vector (other bodies before it).
    let dofs = RodDofs { start: 7, nodes: NODES, with_angles: true };
    assert_eq!(dofs.len(), N);
    let mut q = SVector::<f64, N>::zeros();
    for (i, p) in x0.iter().enumerate() {
        for c in 0..3 {
            q[dofs.node(i) - 7 + c] = p[c];
        }
    }
    for j in 0..NODES - 1 {
        q[dofs.angle(j) - 7] = 0.3 * rng.sym();
    }
    let unpack = |q: &SVector<f64, N>| -> (Vec<Vector3<f64>>, Vec<f64>) {
        let x = (0..NODES).map(|i| Vector3::new(q[3 * i], q[3 * i + 1], q[3 * i + 2])).collect();
        let th = (0..NODES - 1).map(|j| q[3 * NODES + j]).collect();
        (x, th)
    };
    let assemble = |q: &SVector<f64, N>| -> (SVector<f64, N>, SMatrix<f64, N, N>) {
        let (x, th) = unpack(q);
        let mut g = SVector::<f64, N>::zeros();
        let mut h = SMatrix::<f64, N, N>::zeros();
        for (j, el) in rod.stretch.iter().enumerate() {
            let (_, ge, he) = el.energy_gradient_hessian(s.stretch, &el.gather(&x), false);
            let idx = dofs.stretch_dofs(j).map(|d| d - 7);
            for (a, &ia) in idx.iter().enumerate() {
                g[ia] += ge[a];
                for (b, &ib) in idx.iter().enumerate() {
                    h[(ia, ib)] += he[(a, b)];
                }
            }
        }
        for (k, el) in rod.bend_twist.iter().enumerate() {
            let i = el.node;
            let (_, ge, he) = el.energy_gradient_hessian(
                &s,
                &[x[i - 1], x[i], x[i + 1]],
                &[th[i - 1], th[i]],
                &[frames.edges[i - 1], frames.edges[i]],
                frames.reference_twist[k],
                false,
            );
            let idx = dofs.bend_twist_dofs(i).map(|d| d - 7);
            for (a, &ia) in idx.iter().enumerate() {
                g[ia] += ge[a];
                for (b, &ib) in idx.iter().enumerate() {
                    h[(ia, ib)] += he[(a, b)];
                }
            }
        }
        (g, h)
    };
    let energy = |q: &SVector<f64, N>| {
        let (x, th) = unpack(q);
        rod.energy(&frames, &x, &th)
    };
    let (_, h) = assemble(&q);
    check_fd("assembled rod", H, &q, energy, |q| assemble(q).0, &h);
}
