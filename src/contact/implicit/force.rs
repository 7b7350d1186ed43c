//! 001's penalty contact and smoothed friction on 000's smooth implicit surface: the gap of a
//! vertex is Ψ at the vertex (001's gap function), the normal force `λ(Ψ) ∇Ψ` pushes the vertex
//! and, through `∂Ψ/∂p`, every vertex of the neighbouring triangles (momentum is conserved: Ψ is
//! translation invariant), and friction acts in the tangent plane of the level set against the
//! velocity relative to the weight-blended velocity of the neighbouring samples (000 §4.1.3's
//! contact Jacobian, without the rotation, which only turns the tangent plane it projects to).
//!
//! One generic kernel over a stencil of any size, differentiated by forward-mode AD for the
//! Newton Jacobian and for matrix-free products.

use super::kernel::Kernel;
use super::potential::potential_derivatives;
use crate::contact::kernel::{ContactParams, Lagged};
use crate::contact::vec3::{Scalar, V3, dot, konst, norm, re, scale, sub};
use crate::friction::smooth::friction_force;
use nalgebra::{DMatrix, DVector};
use num_dual::Dual64;

/// A vertex and the triangles of another body whose samples were near it at the step start.
#[derive(Debug, Clone, PartialEq)]
pub struct ImplicitStencil {
    /// Global nodes: the vertex first, then every node of the triangles once.
    pub nodes: Vec<usize>,
    /// Triangles as indices into `nodes` (outward winding of their surface).
    pub triangles: Vec<[usize; 3]>,
}

/// The field's kernel and support radius.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Field {
    pub kernel: Kernel,
    pub radius: f64,
}

/// `(force, normal part, d force/d x, d force/d v)` of a stencil (`3m`, `3m × 3m`).
pub type Linearized = (DVector<f64>, DVector<f64>, DMatrix<f64>, DMatrix<f64>);

/// Normal and friction forces per stencil node.
pub struct ImplicitForce<T> {
    pub normal: Vec<V3<T>>,
    pub friction: Vec<V3<T>>,
}

impl ImplicitStencil {
    /// The gap Ψ at the vertex (f64); `None` where no sample is within the radius.
    pub fn gap(&self, xs: &[V3<f64>], field: Field) -> Option<f64> {
        let tris: Vec<[V3<f64>; 3]> = self.triangles.iter().map(|t| t.map(|i| xs[i])).collect();
        super::potential::potential(xs[0], &tris, field.kernel, field.radius)
    }

    /// Forces on the stencil at positions `xs` and velocities `vs` (one per node); `None` where
    /// the neighbourhood is empty. With `lagged`, friction uses the frozen normal force and normal.
    pub fn force<T: Scalar>(
        &self,
        xs: &[V3<T>],
        vs: &[V3<T>],
        field: Field,
        p: &ContactParams,
        lagged: Option<&Lagged>,
    ) -> Option<ImplicitForce<T>> {
        let tris: Vec<[V3<T>; 3]> = self.triangles.iter().map(|t| t.map(|i| xs[i])).collect();
        let (psi, gx, gp, w) = potential_derivatives(xs[0], &tris, field.kernel, field.radius)?;
        let zero = [T::from(0.0); 3];
        let m = self.nodes.len();
        let lambda = p.penalty.force(psi);
        let mut normal = vec![zero; m];
        normal[0] = scale(gx, lambda);
        for (t, g) in self.triangles.iter().zip(&gp) {
            for a in 0..3 {
                normal[t[a]] = std::array::from_fn(|k| normal[t[a]][k] + g[a][k] * lambda);
            }
        }
        let mut friction = vec![zero; m];
        if p.law.is_frictionless() {
            return Some(ImplicitForce { normal, friction });
        }
        let gn = norm(gx);
        let (lf, nf, wf) = match lagged {
            Some(l) => (T::from(l.lambda), konst(l.normal), w),
            None if p.basis_derivatives => (lambda * gn, scale(gx, gn.recip()), w),
            None => (
                T::from((lambda * gn).re()),
                konst(re(scale(gx, gn.recip()))),
                w.iter().map(|x| T::from(x.re())).collect(),
            ),
        };
        let mut vrel = vs[0];
        for (t, &wt) in self.triangles.iter().zip(&wf) {
            for a in 0..3 {
                vrel = sub(vrel, scale(vs[t[a]], wt * (1.0 / 3.0)));
            }
        }
        let vt = sub(vrel, scale(nf, dot(nf, vrel)));
        let f = friction_force(&p.law, vt, lf);
        friction[0] = f;
        for (t, &wt) in self.triangles.iter().zip(&wf) {
            for a in 0..3 {
                friction[t[a]] = sub(friction[t[a]], scale(f, wt * (1.0 / 3.0)));
            }
        }
        Some(ImplicitForce { normal, friction })
    }

    /// The force (normal + friction, `3m`), its normal part, and `d force/d x`, `d force/d v`
    /// (`3m × 3m`) at `xs`, `vs`: forward-mode AD of [`Self::force`], one seeded direction per
    /// column (the stencil's size varies, so no fixed-width dual vector fits).
    pub fn linearized(
        &self,
        xs: &[V3<f64>],
        vs: &[V3<f64>],
        field: Field,
        p: &ContactParams,
        lagged: Option<&Lagged>,
    ) -> Option<Linearized> {
        let m = self.nodes.len();
        let d = 3 * m;
        let (mut force, mut normal) = (DVector::zeros(d), DVector::zeros(d));
        let (mut dq, mut dv) = (DMatrix::zeros(d, d), DMatrix::zeros(d, d));
        let seeded = |pts: &[V3<f64>], dir: Option<usize>| -> Vec<V3<Dual64>> {
            (0..m)
                .map(|k| {
                    std::array::from_fn(|i| Dual64::new(pts[k][i], if dir == Some(3 * k + i) { 1.0 } else { 0.0 }))
                })
                .collect()
        };
        for col in 0..2 * d {
            let (in_x, in_v) = if col < d { (Some(col), None) } else { (None, Some(col - d)) };
            let f = self.force(&seeded(xs, in_x), &seeded(vs, in_v), field, p, lagged)?;
            let target = if col < d { &mut dq } else { &mut dv };
            for k in 0..m {
                for i in 0..3 {
                    target[(3 * k + i, col % d)] = f.normal[k][i].eps + f.friction[k][i].eps;
                    if col == 0 {
                        normal[3 * k + i] = f.normal[k][i].re;
                        force[3 * k + i] = f.normal[k][i].re + f.friction[k][i].re;
                    }
                }
            }
        }
        Some((force, normal, dq, dv))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::contact::penalty::Penalty;
    use crate::friction::smooth::SmoothFriction;

    /// A vertex over a 3 × 3 patch of a gently curved surface (18 triangles), sliding and
    /// pressing into the layer.
    fn stencil() -> (ImplicitStencil, Vec<V3<f64>>, Vec<V3<f64>>) {
        let mut xs = vec![[0.13, 0.17, -0.004]];
        for j in 0..4 {
            for i in 0..4 {
                let (x, y) = (0.1 * i as f64 - 0.05, 0.1 * j as f64 - 0.05);
                xs.push([x, y, -0.2 * (x * x + y * y) + 0.01 * x * y]);
            }
        }
        let id = |i: usize, j: usize| 1 + 4 * j + i;
        let mut triangles = Vec::new();
        for j in 0..3 {
            for i in 0..3 {
                triangles.push([id(i, j), id(i + 1, j), id(i + 1, j + 1)]);
                triangles.push([id(i, j), id(i + 1, j + 1), id(i, j + 1)]);
            }
        }
        let nodes = (0..xs.len()).collect();
        let vs = (0..xs.len()).map(|k| [0.3 - 0.01 * k as f64, 0.05 * (k as f64).sin(), -0.02]).collect();
        (ImplicitStencil { nodes, triangles }, xs, vs)
    }

    fn params(mu: f64, basis: bool) -> ContactParams {
        ContactParams {
            penalty: Penalty { delta: 0.01, kappa: 1e3 },
            law: SmoothFriction { mu_d: mu, mu_s: mu, v_s: 1e-2, mu_v: 0.0, eps: 1e-3 },
            basis_derivatives: basis,
        }
    }

    /// The AD Jacobians against central differences of the force, both kernels, with and
    /// without friction; and the forces sum to zero (Ψ is translation invariant and friction
    /// acts and reacts with weights summing to one). Without basis derivatives the force is the
    /// same and only its Jacobian drops terms (so it is not compared with differences).
    #[test]
    fn linearization_matches_finite_differences_and_momentum_is_conserved() {
        let (st, xs, vs) = stencil();
        for kernel in [Kernel::Cubic, Kernel::Approximate { epsilon: 1e-2 }] {
            let field = Field { kernel, radius: 0.25 };
            let frozen = st.linearized(&xs, &vs, field, &params(0.5, false), None).unwrap().0;
            assert!((&frozen - st.linearized(&xs, &vs, field, &params(0.5, true), None).unwrap().0).amax() < 1e-14);
            for p in [params(0.0, true), params(0.5, true)] {
                let (force, _, dq, dv) = st.linearized(&xs, &vs, field, &p, None).unwrap();
                assert!(force.norm() > 0.0);
                for c in 0..3 {
                    let total: f64 = (0..st.nodes.len()).map(|k| force[3 * k + c]).sum();
                    assert!(total.abs() < 1e-12 * force.norm(), "{kernel:?}: net force {total}");
                }
                let h = 1e-7;
                let eval = |xs: &[V3<f64>], vs: &[V3<f64>]| {
                    let f = st.force(xs, vs, field, &p, None).unwrap();
                    DVector::from_iterator(
                        3 * xs.len(),
                        (0..xs.len())
                            .flat_map(|k| (0..3).map(move |i| (k, i)))
                            .map(|(k, i)| f.normal[k][i] + f.friction[k][i]),
                    )
                };
                for col in [0, 1, 2, 7, 20, 40] {
                    for (which, jac) in [(0, &dq), (1, &dv)] {
                        let shift = |sgn: f64| {
                            let (mut x2, mut v2) = (xs.clone(), vs.clone());
                            let target = if which == 0 { &mut x2 } else { &mut v2 };
                            target[col / 3][col % 3] += sgn * h;
                            eval(&x2, &v2)
                        };
                        let fd = (shift(1.0) - shift(-1.0)) / (2.0 * h);
                        let err = (&fd - jac.column(col)).amax();
                        // Step 1e-7 on centimetre coordinates: round-off ~1e-16 |f| / 1e-7.
                        assert!(
                            err < 1e-5 * jac.amax().max(1.0),
                            "{kernel:?} mu {} col {col} ({which}): {err}",
                            p.law.mu_d
                        );
                    }
                }
            }
        }
    }
}
