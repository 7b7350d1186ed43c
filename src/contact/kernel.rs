//! Contact force kernels of the penalty pipeline: penalty normal force (001 eq. 2) plus smoothed
//! friction (eqs. 13–15) on one contact stencil, written once generically over the scalar and
//! differentiated exactly by forward-mode AD (num-dual) for the Newton Jacobian.
//!
//! A stencil is the vertex alone (against an analytic collider, 3 DOFs) or the vertex and the three
//! nodes of a triangle of another body (12 DOFs). The contact point's relative velocity is
//! `v_rel = v_x - sum_k w_k v_k` (or `v_x - v_collider`); forces act with weights `(1, -w_k)`.

use super::collider::{Collider, Placement};
use super::penalty::Penalty;
use super::point_triangle::{Feature, evaluate};
use super::vec3::{Scalar, V3, dot, konst, mat_mul, re, scale, sub};
use crate::friction::smooth::{SmoothFriction, friction_force};
use crate::model::motion::VelocityField;
use nalgebra::{SMatrix, SVector};
use num_dual::{DualSVec64, jacobian};

/// Per-contact parameters.
#[derive(Debug, Clone, Copy)]
pub struct ContactParams {
    pub penalty: Penalty,
    pub law: SmoothFriction,
    /// Keep the derivatives of the normal, weights and normal force in the friction Jacobian
    /// (001's "sliding basis derivatives"); when false they are treated as constants.
    pub basis_derivatives: bool,
}

/// Friction quantities frozen at the start of the step (IPC-style lagged friction).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Lagged {
    pub lambda: f64,
    pub normal: [f64; 3],
    /// Barycentric weights of the triangle point (unused for colliders).
    pub weights: [f64; 3],
}

/// Normal and friction force on a stencil node list.
#[derive(Debug, Clone, Copy)]
pub struct StencilForce<T, const N: usize> {
    pub normal: [V3<T>; N],
    pub friction: [V3<T>; N],
}

fn freeze<T: Scalar>(v: V3<T>, on: bool) -> V3<T> {
    if on { v } else { konst(re(v)) }
}

/// Tangential part of `v` with respect to the unit normal `n`.
fn tangential<T: Scalar>(v: V3<T>, n: V3<T>) -> V3<T> {
    sub(v, scale(n, dot(n, v)))
}

/// Force on a vertex at `x` moving at `v` against a collider at placement `at` whose surface
/// point at `x` moves at `vc(x)` (an affine field, so a turning collider's surface velocity is
/// differentiated with the position). With `lagged`, friction uses the frozen normal force and
/// normal; otherwise the current ones.
pub fn collider_force<T: Scalar>(
    c: &Collider,
    at: &Placement,
    vc: &VelocityField,
    x: V3<T>,
    v: V3<T>,
    p: &ContactParams,
    lagged: Option<&Lagged>,
) -> StencilForce<T, 1> {
    let (gap, n) = c.signed_distance(at, x);
    let lambda = p.penalty.force(gap);
    let normal = scale(n, lambda);
    let zero = [T::from(0.0); 3];
    if p.law.is_frictionless() {
        return StencilForce { normal: [normal], friction: [zero] };
    }
    let (lf, nf) = match lagged {
        Some(l) => (T::from(l.lambda), konst(l.normal)),
        None if p.basis_derivatives => (lambda, n),
        None => (lambda, konst(re(n))),
    };
    let vrel = sub(sub(v, mat_mul(&vc.gradient, x)), konst(vc.constant.into()));
    let f = friction_force(&p.law, tangential(vrel, nf), lf);
    StencilForce { normal: [normal], friction: [f] }
}

/// Force on the stencil `(x, p0, p1, p2)` of a vertex against a triangle of another body, for a
/// fixed closest `feature` with edge/vertex `sign`.
pub fn triangle_force<T: Scalar>(
    feature: Feature,
    sign: f64,
    xs: &[V3<T>; 4],
    vs: &[V3<T>; 4],
    p: &ContactParams,
    lagged: Option<&Lagged>,
) -> StencilForce<T, 4> {
    let prox = evaluate(feature, sign, xs[0], &[xs[1], xs[2], xs[3]]);
    let lambda = p.penalty.force(prox.gap);
    let w = prox.weights;
    let fn_x = scale(prox.normal, lambda);
    let spread = |f: V3<T>, w: [T; 3]| [f, scale(f, -w[0]), scale(f, -w[1]), scale(f, -w[2])];
    let normal = spread(fn_x, w);
    let zero = [T::from(0.0); 3];
    if p.law.is_frictionless() {
        return StencilForce { normal, friction: [zero; 4] };
    }
    let (lf, nf, wf) = match lagged {
        Some(l) => (T::from(l.lambda), konst(l.normal), l.weights.map(T::from)),
        None => {
            let on = p.basis_derivatives;
            let lf = if on { lambda } else { T::from(lambda.re()) };
            (lf, freeze(prox.normal, on), if on { w } else { w.map(|t| T::from(t.re())) })
        }
    };
    let mut vrel = vs[0];
    for k in 0..3 {
        vrel = sub(vrel, scale(vs[k + 1], wf[k]));
    }
    let f = friction_force(&p.law, tangential(vrel, nf), lf);
    StencilForce { normal, friction: spread(f, wf) }
}

/// Value and Jacobian of a stencil force with `D = 3N` DOFs: the force (normal + friction), and
/// `d force / d x`, `d force / d v`, each `D x D`.
pub struct Linearized<const D: usize> {
    pub force: SVector<f64, D>,
    pub normal: SVector<f64, D>,
    pub dq: SMatrix<f64, D, D>,
    pub dv: SMatrix<f64, D, D>,
}

/// Linearize the collider kernel at `(x, v)` by forward-mode AD.
pub fn collider_linearized(
    c: &Collider,
    at: &Placement,
    vc: &VelocityField,
    x: [f64; 3],
    v: [f64; 3],
    p: &ContactParams,
    lagged: Option<&Lagged>,
) -> Linearized<3> {
    let z = SVector::<f64, 6>::from([x[0], x[1], x[2], v[0], v[1], v[2]]);
    let (val, jac) = jacobian(
        |z: SVector<DualSVec64<6>, 6>| {
            let f = collider_force(c, at, vc, [z[0], z[1], z[2]], [z[3], z[4], z[5]], p, lagged);
            let (a, b) = (f.normal[0], f.friction[0]);
            SVector::from([a[0], a[1], a[2], b[0], b[1], b[2]])
        },
        &z,
    );
    split::<3, 6>(&val, &jac)
}

/// Linearize the triangle kernel at the stencil positions `xs` and velocities `vs`.
pub fn triangle_linearized(
    feature: Feature,
    sign: f64,
    xs: &[[f64; 3]; 4],
    vs: &[[f64; 3]; 4],
    p: &ContactParams,
    lagged: Option<&Lagged>,
) -> Linearized<12> {
    let mut z = SVector::<f64, 24>::zeros();
    for k in 0..4 {
        for i in 0..3 {
            z[3 * k + i] = xs[k][i];
            z[12 + 3 * k + i] = vs[k][i];
        }
    }
    let (val, jac) = jacobian(
        |z: SVector<DualSVec64<24>, 24>| {
            let node = |o: usize| [z[o], z[o + 1], z[o + 2]];
            let x = [node(0), node(3), node(6), node(9)];
            let v = [node(12), node(15), node(18), node(21)];
            let f = triangle_force(feature, sign, &x, &v, p, lagged);
            let mut out = SVector::<DualSVec64<24>, 24>::from_element(DualSVec64::from(0.0));
            for k in 0..4 {
                for i in 0..3 {
                    out[3 * k + i] = f.normal[k][i];
                    out[12 + 3 * k + i] = f.friction[k][i];
                }
            }
            out
        },
        &z,
    );
    split::<12, 24>(&val, &jac)
}

/// Split the AD result of `[normal; friction]` over `[x; v]` into the force and its two blocks.
fn split<const D: usize, const E: usize>(val: &SVector<f64, E>, jac: &SMatrix<f64, E, E>) -> Linearized<D> {
    let normal = SVector::<f64, D>::from_fn(|i, _| val[i]);
    let force = SVector::<f64, D>::from_fn(|i, _| val[i] + val[D + i]);
    let dq = SMatrix::<f64, D, D>::from_fn(|i, j| jac[(i, j)] + jac[(D + i, j)]);
    let dv = SMatrix::<f64, D, D>::from_fn(|i, j| jac[(i, D + j)] + jac[(D + i, D + j)]);
    Linearized { force, normal, dq, dv }
}
