//! Finite-difference checks of the penalty contact force and the implicit friction force,
//! including the Jacobian terms through the normal, the normal force and the barycentric weights
//! (001's sliding-basis derivatives), for every collider shape and every point–triangle feature.
//!
//! The Jacobians come from forward-mode AD; here they are compared with central differences of the
//! plain f64 force. Points are chosen away from the kernels' branch switches (|v_t| = eps, feature
//! region boundaries) where the force is only C1.

use fricsim::contact::collider::{Collider, Shape};
use fricsim::contact::kernel::{
    ContactParams, Lagged, collider_force, collider_linearized, triangle_force, triangle_linearized,
};
use fricsim::contact::penalty::Penalty;
use fricsim::contact::point_triangle::{Feature, closest_feature};
use fricsim::friction::smooth::SmoothFriction;
use fricsim::model::motion::{Motion, VelocityField};
use nalgebra::{Matrix3, Rotation3, Vector3};

fn params(law: SmoothFriction) -> ContactParams {
    ContactParams { penalty: Penalty { delta: 1e-2, kappa: 3e3 }, law, basis_derivatives: true }
}

fn laws() -> Vec<SmoothFriction> {
    vec![SmoothFriction::coulomb(0.4, 1e-2), SmoothFriction { mu_d: 0.3, mu_s: 0.7, v_s: 0.05, mu_v: 0.2, eps: 1e-2 }]
}

/// Max |AD - FD| relative to the largest Jacobian entry. Central differences with step h on a
/// force with third derivatives of order F/L^3 (L the smallest length: delta or eps ~ 1e-2) have
/// error ~ h^2 F / L^3, i.e. ~1e-8 relative for h = 1e-6; rounding adds eps_mach F / h ~ 1e-10.
/// The checks use 1e-6 relative.
fn check(name: &str, ad: &[f64], fd: &[f64]) {
    let scale = ad.iter().fold(0.0f64, |m, x| m.max(x.abs())).max(1e-12);
    let err = ad.iter().zip(fd).fold(0.0f64, |m, (a, f)| m.max((a - f).abs()));
    assert!(err <= 1e-6 * scale, "{name}: max |AD - FD| = {err:.3e} vs scale {scale:.3e}");
}

fn collider(shape: Shape) -> Collider {
    Collider {
        name: "c".into(),
        material: 0,
        shape,
        rotation: *Rotation3::from_euler_angles(0.2, -0.3, 0.5).matrix(),
        position: Vector3::new(0.0, 0.0, 0.0),
        motion: Motion::Fixed,
    }
}

#[test]
fn collider_contact_jacobians_match_finite_differences() {
    let h = 1e-6;
    let shapes = [
        (Shape::Plane, [0.01, -0.02, 0.004]),
        (Shape::Sphere { radius: 0.5 }, [0.1, 0.2, 0.46]),
        (Shape::Box { half: [0.3, 0.4, 0.5] }, [0.1, 0.05, 0.505]),
        (Shape::Box { half: [0.3, 0.4, 0.5] }, [0.304, 0.403, 0.2]), // near an edge, outside
        (Shape::Cylinder { radius: 0.4, half_length: 0.6 }, [0.3, 0.26, 0.1]),
    ];
    let rot: Matrix3<f64> = *Rotation3::from_euler_angles(0.2, -0.3, 0.5).matrix();
    for (shape, local) in shapes {
        let c = collider(shape.clone());
        let x0: [f64; 3] = (rot * Vector3::from(local)).into();
        let at = c.placement(0.0);
        // A translating collider (uniform surface velocity) and a turning one, whose surface
        // velocity depends on the contact position (its x-derivative enters dF/dq).
        let turning = Motion::Spin { pivot: Vector3::new(0.1, -0.2, 0.0), axis: Vector3::y_axis(), rate: 20.0 };
        let fields = [VelocityField::uniform(Vector3::new(0.01, 0.0, -0.02)), turning.step(0.0, 1e-2).field_at_end()];
        // Sliding (|v_t| >> eps), inside the smoothing zone, and at rest relative to the collider.
        let velocities = [[0.3, -0.2, 0.1], [0.004, 0.003, -0.002], [0.0, 0.0, 0.0]];
        for (vc, v0) in fields.iter().flat_map(|f| velocities.map(|v| (f, v))) {
            for law in laws() {
                for lagged in [None, Some(Lagged { lambda: 2.0, normal: [0.0, 0.6, 0.8], weights: [0.0; 3] })] {
                    let p = params(law);
                    let lin = collider_linearized(&c, &at, vc, x0, v0, &p, lagged.as_ref());
                    let force = |x: [f64; 3], v: [f64; 3]| {
                        let f = collider_force(&c, &at, vc, x, v, &p, lagged.as_ref());
                        [0, 1, 2].map(|k| f.normal[0][k] + f.friction[0][k])
                    };
                    let (mut ad_q, mut fd_q, mut ad_v, mut fd_v) = (vec![], vec![], vec![], vec![]);
                    for j in 0..3 {
                        let (mut xp, mut xm, mut vp, mut vm) = (x0, x0, v0, v0);
                        xp[j] += h;
                        xm[j] -= h;
                        vp[j] += h;
                        vm[j] -= h;
                        let (fq1, fq0) = (force(xp, v0), force(xm, v0));
                        let (fv1, fv0) = (force(x0, vp), force(x0, vm));
                        for i in 0..3 {
                            ad_q.push(lin.dq[(i, j)]);
                            fd_q.push((fq1[i] - fq0[i]) / (2.0 * h));
                            ad_v.push(lin.dv[(i, j)]);
                            fd_v.push((fv1[i] - fv0[i]) / (2.0 * h));
                        }
                    }
                    let tag = format!("{shape:?} v={v0:?} vc={vc:?} law={law:?} lagged={}", lagged.is_some());
                    check(&format!("dF/dq {tag}"), &ad_q, &fd_q);
                    check(&format!("dF/dv {tag}"), &ad_v, &fd_v);
                    // The force reported equals the f64 kernel.
                    let f = force(x0, v0);
                    for (fi, li) in f.iter().zip(lin.force.iter()) {
                        assert!((li - fi).abs() <= 1e-12 * fi.abs().max(1.0));
                    }
                }
            }
        }
    }
}

#[test]
fn triangle_contact_jacobians_match_finite_differences() {
    let h = 1e-6;
    let tri = [[0.0, 0.0, 0.0], [1.0, 0.1, 0.05], [0.2, 0.9, -0.05]];
    // Points whose closest feature is the face, an edge and a vertex, each within delta.
    let points = [
        ([0.3, 0.3, 0.006], Feature::Face),
        ([0.5, -0.004, 0.005], Feature::Edge(0)),
        ([-0.004, -0.004, 0.003], Feature::Vertex(0)),
    ];
    let vs0 = [[0.2, -0.1, 0.05], [0.01, 0.02, 0.0], [-0.03, 0.0, 0.01], [0.0, 0.04, -0.02]];
    for (x, feature) in points {
        assert_eq!(closest_feature(x, &tri).0, feature);
        let xs0 = [x, tri[0], tri[1], tri[2]];
        for law in laws() {
            let p = params(law);
            let lin = triangle_linearized(feature, 1.0, &xs0, &vs0, &p, None);
            let force = |xs: &[[f64; 3]; 4], vs: &[[f64; 3]; 4]| {
                let f = triangle_force(feature, 1.0, xs, vs, &p, None);
                let mut out = [0.0; 12];
                for k in 0..4 {
                    for i in 0..3 {
                        out[3 * k + i] = f.normal[k][i] + f.friction[k][i];
                    }
                }
                out
            };
            let (mut ad_q, mut fd_q, mut ad_v, mut fd_v) = (vec![], vec![], vec![], vec![]);
            for j in 0..12 {
                let (mut xp, mut xm, mut vp, mut vm) = (xs0, xs0, vs0, vs0);
                xp[j / 3][j % 3] += h;
                xm[j / 3][j % 3] -= h;
                vp[j / 3][j % 3] += h;
                vm[j / 3][j % 3] -= h;
                let (fq1, fq0, fv1, fv0) = (force(&xp, &vs0), force(&xm, &vs0), force(&xs0, &vp), force(&xs0, &vm));
                for i in 0..12 {
                    ad_q.push(lin.dq[(i, j)]);
                    fd_q.push((fq1[i] - fq0[i]) / (2.0 * h));
                    ad_v.push(lin.dv[(i, j)]);
                    fd_v.push((fv1[i] - fv0[i]) / (2.0 * h));
                }
            }
            check(&format!("dF/dq {feature:?} {law:?}"), &ad_q, &fd_q);
            check(&format!("dF/dv {feature:?} {law:?}"), &ad_v, &fd_v);
            // Momentum conservation: the stencil forces sum to zero (action = reaction).
            let f = force(&xs0, &vs0);
            for i in 0..3 {
                let s: f64 = (0..4).map(|k| f[3 * k + i]).sum();
                assert!(s.abs() < 1e-12 * f.iter().fold(1.0f64, |m, x| m.max(x.abs())), "sum {s}");
            }
        }
    }
}

/// The penalty normal force is conservative: its Jacobian with respect to positions is symmetric
/// (it is minus the Hessian of the penalty energy) for the triangle stencil.
#[test]
fn penalty_stiffness_is_symmetric() {
    let tri = [[0.0, 0.0, 0.0], [1.0, 0.1, 0.05], [0.2, 0.9, -0.05]];
    let xs = [[0.3, 0.3, 0.006], tri[0], tri[1], tri[2]];
    let p = params(SmoothFriction::coulomb(0.0, 1e-2));
    let lin = triangle_linearized(Feature::Face, 1.0, &xs, &[[0.0; 3]; 4], &p, None);
    let asym = (lin.dq - lin.dq.transpose()).abs().max();
    assert!(asym < 1e-9 * lin.dq.abs().max(), "asymmetry {asym}");
}
