//! 002's variational integrator with friction (§4.5, eqs. 4.51–4.55, the symmetric half-step
//! form; digest §D5) for particle systems with a potential and half-space constraints, beside
//! the two schemes 002 compares it with: backward Euler and a Moreau-type step (explicit force,
//! implicit contact, the scheme of the `Nonsmooth` pipeline).
//!
//! The half-step scheme takes `δ = (q⁺ − q)/h`, the average of the step's start and end
//! velocities, and solves (4.51) `M(δ − v) + (h/2)∇V(q + (h/2)δ) = ½(c + f)` with `Nᵀδ ≥ 0` at
//! the contacts of `q` (those with `g(q) ≤ 0`, 002 §4.5.1), then `q⁺ = q + hδ`, `v⁺ = 2δ − v`
//! (4.54–4.55). In the end velocity this is
//!
//! ```text
//! M (v⁺ − v) = −h ∇V(q + (h/4)(v + v⁺)) + Nα + Dβ,   0 ≤ α ⊥ Nᵀ(v⁺ + v) ≥ 0,
//! β: maximal dissipation against v⁺ on the Coulomb set of α,
//! ```
//!
//! where α is the step's whole normal impulse: twice (4.51)'s multiplier, which is the scale
//! the Coulomb set must take (read literally, the multiplier would halve μ). The normal row
//! `Nᵀ(v⁺ + v) ≥ 0` is Newton's restitution with e = 1: in flight and in purely normal contact
//! the scheme is the implicit midpoint rule and keeps the energy; only sliding friction takes
//! energy out. Each Newton iteration linearises `∇V` at the current midpoint and solves the
//! contact problem of the linearised step exactly (the global DFCP `A v⁺ = b + Jᵀr`, `u = J v⁺ +
//! w`, on the exact cone; 002 uses the 8-sided polygon).
// Numeric kernels index several parallel arrays with one counter; iterator zips would hide that.
#![allow(clippy::needless_range_loop)]

use crate::dfcp::dispatch::solve_global;
use crate::dfcp::problem::{Csc, GlobalProblem, csc_from_triplets};
use crate::dfcp::solver::SolverOptions;
use crate::friction::cone::Cone;
use faer::sparse::Triplet;
use nalgebra::{DMatrix, Vector3};

/// A potential of the particles' coordinates (3 per particle).
pub trait Potential {
    fn energy(&self, q: &[f64]) -> f64;
    fn gradient(&self, q: &[f64], g: &mut [f64]);
    /// Dense Hessian (small systems).
    fn hessian(&self, q: &[f64]) -> DMatrix<f64>;
}

/// `g(q) = n · x_p − offset >= 0` for particle `p`, with friction `mu`.
#[derive(Clone, Copy, Debug)]
pub struct HalfSpace {
    pub particle: usize,
    pub normal: Vector3<f64>,
    pub offset: f64,
    pub mu: f64,
}

impl HalfSpace {
    fn gap(&self, q: &[f64]) -> f64 {
        let p = 3 * self.particle;
        self.normal.dot(&Vector3::new(q[p], q[p + 1], q[p + 2])) - self.offset
    }

    /// The contact frame rows (normal, tangent, binormal) in the particle's coordinates.
    fn frame(&self) -> [Vector3<f64>; 3] {
        let n = self.normal.normalize();
        let a = if n.x.abs() < 0.9 { Vector3::x() } else { Vector3::y() };
        let t = n.cross(&a).normalize();
        [n, t, n.cross(&t)]
    }
}

pub struct ParticleSystem<P: Potential> {
    /// Mass per coordinate (each particle's mass three times).
    pub mass: Vec<f64>,
    pub potential: P,
    pub constraints: Vec<HalfSpace>,
}

/// The schemes of 002's comparison (§4.8).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Scheme {
    /// 002's symmetric half-step variational integrator with friction.
    Variational,
    /// `M(v⁺ − v) = −h∇V(q + h v⁺) + Jᵀr`, `Nᵀv⁺ >= 0`, `q⁺ = q + h v⁺`.
    BackwardEuler,
    /// `M(v⁺ − v) = −h∇V(q) + Jᵀr`, `Nᵀv⁺ >= 0`, `q⁺ = q + h v⁺` (the `Nonsmooth` pipeline's step).
    Moreau,
}

/// Newton iterations allowed per step, and their stop: the end velocity moves by less than this
/// relative to the velocity scale (the contact solves are exact to 1e-12).
const NEWTON_MAX: usize = 50;
const NEWTON_TOL: f64 = 1e-12;

impl<P: Potential> ParticleSystem<P> {
    pub fn energy(&self, q: &[f64], v: &[f64]) -> f64 {
        0.5 * v.iter().zip(&self.mass).map(|(v, m)| m * v * v).sum::<f64>() + self.potential.energy(q)
    }

    /// One step of `scheme` from `(q, v)` over `h`, in place. Returns the Newton iterations, or
    /// why the step failed (a contact solve or Newton that did not converge).
    pub fn step(&self, scheme: Scheme, q: &mut [f64], v: &mut [f64], h: f64) -> Result<usize, String> {
        let n = q.len();
        // 002 §4.5.1: the contacts are the constraints violated or touching at the step start.
        let active: Vec<HalfSpace> = self.constraints.iter().copied().filter(|c| c.gap(q) <= 0.0).collect();
        let scale = v.iter().fold(1e-3f64, |m, x| m.max(x.abs()));
        let mut vn = v.to_vec();
        let mut g = vec![0.0; n];
        for it in 1..=NEWTON_MAX {
            // Where the force is evaluated, and how it moves with v⁺ there (dq/dv⁺).
            let (qf, dq): (Vec<f64>, f64) = match scheme {
                Scheme::Variational => ((0..n).map(|i| q[i] + 0.25 * h * (v[i] + vn[i])).collect(), 0.25 * h),
                Scheme::BackwardEuler => ((0..n).map(|i| q[i] + h * vn[i]).collect(), h),
                Scheme::Moreau => (q.to_vec(), 0.0),
            };
            self.potential.gradient(&qf, &mut g);
            // A v⁺ = M v − h ∇V(qf) + h dq H v⁺_k + Jᵀ r, A = M + h dq H.
            let hess = if dq > 0.0 { self.potential.hessian(&qf) } else { DMatrix::zeros(n, n) };
            let a = DMatrix::from_fn(n, n, |i, j| h * dq * hess[(i, j)] + if i == j { self.mass[i] } else { 0.0 });
            let hv = &hess * nalgebra::DVector::from_column_slice(&vn);
            let f: Vec<f64> = (0..n).map(|i| self.mass[i] * v[i] - h * g[i] + h * dq * hv[i]).collect();
            let next = self.solve_contacts(&a, f, &active, v, scheme)?;
            let moved = next.iter().zip(&vn).fold(0.0f64, |m, (a, b)| m.max((a - b).abs()));
            vn = next;
            if dq == 0.0 || moved <= NEWTON_TOL * scale {
                self.finish(scheme, q, v, &vn, h);
                return Ok(it);
            }
        }
        Err(format!("Newton did not converge in {NEWTON_MAX} iterations"))
    }

    fn finish(&self, scheme: Scheme, q: &mut [f64], v: &mut [f64], vn: &[f64], h: f64) {
        for i in 0..q.len() {
            q[i] += match scheme {
                Scheme::Variational => 0.5 * h * (v[i] + vn[i]),
                Scheme::BackwardEuler | Scheme::Moreau => h * vn[i],
            };
        }
        v.copy_from_slice(vn);
    }

    /// `A v⁺ = f + Jᵀ r` with the contacts' Signorini–Coulomb law on `u = J v⁺ + w`: `w_N = Nᵀv`
    /// for the variational scheme (e = 1), zero otherwise.
    fn solve_contacts(
        &self,
        a: &DMatrix<f64>,
        f: Vec<f64>,
        active: &[HalfSpace],
        v: &[f64],
        scheme: Scheme,
    ) -> Result<Vec<f64>, String> {
        let n = f.len();
        let mut mt = Vec::new();
        for i in 0..n {
            for j in 0..n {
                if a[(i, j)] != 0.0 {
                    mt.push(Triplet::new(i, j, a[(i, j)]));
                }
            }
        }
        let (mut ht, mut w, mut cones) = (Vec::new(), Vec::new(), Vec::new());
        for (k, c) in active.iter().enumerate() {
            let p = 3 * c.particle;
            for (row, d) in c.frame().iter().enumerate() {
                for a in 0..3 {
                    ht.push(Triplet::new(p + a, 3 * k + row, d[a]));
                }
                let wn = if row == 0 && scheme == Scheme::Variational {
                    d.dot(&Vector3::new(v[p], v[p + 1], v[p + 2]))
                } else {
                    0.0
                };
                w.push(wn);
            }
            cones.push(Cone::isotropic(c.mu).map_err(|e| e.to_string())?);
        }
        let m: Csc = csc_from_triplets(n, n, &mt)?;
        let hm: Csc = csc_from_triplets(n, 3 * active.len(), &ht)?;
        let gp = GlobalProblem::new(m, hm, f, w, cones).map_err(|e| e.to_string())?;
        let sol = solve_global(&gp, "auto", &SolverOptions::new(1e-12, 10_000)).map_err(|e| e.to_string())?;
        if !sol.report.converged {
            return Err(format!("contact solve: {}", sol.report));
        }
        Ok(sol.v.expect("a global solve returns v"))
    }
}

/// `V = Σ_p m_p g z_p`: uniform gravity along −z.
pub struct Gravity {
    pub mass: Vec<f64>,
    pub g: f64,
}

impl Potential for Gravity {
    fn energy(&self, q: &[f64]) -> f64 {
        self.mass.iter().enumerate().map(|(p, m)| m * self.g * q[3 * p + 2]).sum()
    }
    fn gradient(&self, _q: &[f64], g: &mut [f64]) {
        g.fill(0.0);
        for (p, m) in self.mass.iter().enumerate() {
            g[3 * p + 2] = m * self.g;
        }
    }
    fn hessian(&self, q: &[f64]) -> DMatrix<f64> {
        DMatrix::zeros(q.len(), q.len())
    }
}

/// 002's nonlinear oscillator (eq. 4.72) for one particle in the x–y plane:
/// `V = s (s − 1)²` with `s = x² + y²`.
pub struct Oscillator;

impl Potential for Oscillator {
    fn energy(&self, q: &[f64]) -> f64 {
        let s = q[0] * q[0] + q[1] * q[1];
        s * (s - 1.0).powi(2)
    }
    fn gradient(&self, q: &[f64], g: &mut [f64]) {
        // dV/ds = (s − 1)(3s − 1); ∂s/∂x = 2x.
        let s = q[0] * q[0] + q[1] * q[1];
        let d = (s - 1.0) * (3.0 * s - 1.0);
        g.fill(0.0);
        g[0] = 2.0 * q[0] * d;
        g[1] = 2.0 * q[1] * d;
    }
    fn hessian(&self, q: &[f64]) -> DMatrix<f64> {
        let s = q[0] * q[0] + q[1] * q[1];
        let (d, dd) = ((s - 1.0) * (3.0 * s - 1.0), 6.0 * s - 4.0);
        let mut h = DMatrix::zeros(q.len(), q.len());
        for i in 0..2 {
            for j in 0..2 {
                h[(i, j)] = 4.0 * q[i] * q[j] * dd + if i == j { 2.0 * d } else { 0.0 };
            }
        }
        h
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The oscillator's gradient and Hessian against central differences (step 1e-6: error
    /// ~1e-12 relative to values of order 1e2 at |q| ~ 2).
    #[test]
    fn oscillator_derivatives_match_finite_differences() {
        let o = Oscillator;
        for q in [[0.3, -0.2, 0.0], [1.2, 0.7, 0.0], [-2.0, 1.1, 0.0]] {
            let mut g = vec![0.0; 3];
            o.gradient(&q, &mut g);
            let hs = o.hessian(&q);
            for i in 0..2 {
                let e = 1e-6;
                let (mut a, mut b) = (q, q);
                a[i] += e;
                b[i] -= e;
                let fd = (o.energy(&a) - o.energy(&b)) / (2.0 * e);
                assert!((fd - g[i]).abs() < 1e-6 * (1.0 + g[i].abs()), "{q:?} {i}: {fd} vs {}", g[i]);
                let (mut ga, mut gb) = (vec![0.0; 3], vec![0.0; 3]);
                o.gradient(&a, &mut ga);
                o.gradient(&b, &mut gb);
                for j in 0..2 {
                    let fd = (ga[j] - gb[j]) / (2.0 * e);
                    assert!((fd - hs[(j, i)]).abs() < 1e-5 * (1.0 + fd.abs()), "{q:?} ({j}, {i})");
                }
            }
        }
    }
}
