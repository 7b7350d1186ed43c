//! Dynamic twist (004 #2, beside [`super::quasistatic`]): the edge angles θ_j are unknowns with
//! their own rotational inertia, advanced by backward Euler once the positions of the step are
//! known. That is the staggering 004 uses for DER's twist DOF (§8.2, "the staggered DER twist
//! DoF"): the positional step sees the angles of the step's start, this step sees the new
//! positions. The angles never move a colliding point (004's Assumption 1), so the contact
//! solve is untouched.
//!
//! An edge of rest length |ē_j| turning about its tangent has the inertia I_j = ρ J |ē_j|, with J
//! the polar second moment of the section (π r⁴/2 for a round one). With w the angular velocities
//! at the step's end and θ = θ_n + h w, backward Euler with Rayleigh damping `α I + β K` is the
//! stationary point of the potential
//!
//! Φ(w) = ½ (w − w_n)ᵀ I (w − w_n) + ½ h wᵀ (α I + β K₀) w + E(x_{n+1}, θ_n + h w),
//!
//! K₀ the angles' Hessian at the first iterate (fixed, so the damping is a quadratic form and Φ
//! is a potential). Its gradient is the residual `R(w) = I (w − w_n) + h (α I + β K₀) w + h ∇_θ E`.
//! Newton with the exact angle Hessian ([`BendTwistElement::angle_derivatives`], each stencil's
//! 2×2 block projected to PSD) and a line search. A bend–twist stencil couples only θ_{i−1} and
//! θ_i, so the system is tridiagonal: O(n) per iteration. For a round section E is quadratic in θ
//! (the twist strain is linear in θ, the isotropic bending energy does not depend on it) and one
//! Newton step is exact. (The Gauss–Newton block the positional step uses is not good enough
//! here: it also counts the turning of the curvature vector, B |ω|²/ℓ per node, which on a bent
//! rod exceeds the twist stiffness of the rod's smoothest twist mode, β π²/(ℓ N²); Newton then
//! converged at 0.83 per iteration in `scenes/twisted_rod.ron`.)
//!
//! Held edges (a clamped root, an edge between two scripted nodes) are not unknowns: their rate is
//! prescribed, the rotation rate of what holds them about their tangent.

#[cfg(doc)]
use super::BendTwistElement;
use super::{Rod, RodFrames};
use nalgebra::Vector3;

/// The angles of one rod's edges and their rates (rad, rad/s), one per edge.
#[derive(Clone, Debug, PartialEq, Default)]
pub struct TwistState {
    pub angle: Vec<f64>,
    pub rate: Vec<f64>,
}

impl TwistState {
    /// A rod with `edges` edges at rest in its reference frames.
    pub fn at_rest(edges: usize) -> TwistState {
        TwistState { angle: vec![0.0; edges], rate: vec![0.0; edges] }
    }
}

/// The fixed data of one dynamic twist step of a rod.
pub struct TwistStep<'a> {
    pub rod: &'a Rod,
    /// The frames stored at the step's start (the kernels transport them to `x`).
    pub frames: &'a RodFrames,
    /// The rod's node positions at the step's end.
    pub x: &'a [Vector3<f64>],
    /// I_j per edge (kg m²).
    pub inertia: &'a [f64],
    /// Held edges and their prescribed rates (rad/s).
    pub held: &'a [(usize, f64)],
    pub h: f64,
    /// Rayleigh (α in 1/s, β in s).
    pub rayleigh: (f64, f64),
}

/// How a twist step ended.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct TwistReport {
    pub iterations: usize,
    /// |R|∞ over its scale (the largest momentum or impulse term of the step).
    pub residual_rel: f64,
    pub converged: bool,
}

/// Newton stops at |R|∞ ≤ TOL · scale, the scale the step's largest momentum or impulse term:
/// far below anything the positions see, and above the round-off of the twist strains, which are
/// differences of angles that grow to tens of radians in a twisted rod (|θ| ε / strain ~ 1e-12).
const TOL: f64 = 1e-9;
const MAX_NEWTON: usize = 50;
const MAX_HALVINGS: usize = 40;

/// The damping's fixed tridiagonal K₀ (diagonal, off-diagonal).
type Damping = (Vec<f64>, Vec<f64>);

/// The angles' gradient and tridiagonal (projected) Hessian of a rod's bend–twist energy.
struct Derivatives {
    energy: f64,
    grad: Vec<f64>,
    diag: Vec<f64>,
    /// `off[j]` couples edges j and j + 1.
    off: Vec<f64>,
}

impl Derivatives {
    fn zeros(n: usize) -> Derivatives {
        Derivatives { energy: 0.0, grad: vec![0.0; n], diag: vec![0.0; n], off: vec![0.0; n.max(1) - 1] }
    }
}

impl TwistStep<'_> {
    fn stencil(&self, el: &super::BendTwistElement, k: usize) -> ([Vector3<f64>; 3], [super::EdgeFrame; 2], f64) {
        let i = el.node;
        (
            [self.x[i - 1], self.x[i], self.x[i + 1]],
            [self.frames.edges[i - 1], self.frames.edges[i]],
            self.frames.reference_twist[k],
        )
    }

    #[cfg(test)]
    fn energy(&self, theta: &[f64]) -> f64 {
        let s = &self.rod.stiffness;
        let mut e = 0.0;
        for (k, el) in self.rod.bend_twist.iter().enumerate() {
            let (x, f, m) = self.stencil(el, k);
            e += el.energy(s, &x, &[theta[el.node - 1], theta[el.node]], &f, m);
        }
        e
    }

    fn derivatives(&self, theta: &[f64], d: &mut Derivatives) {
        let s = &self.rod.stiffness;
        d.energy = 0.0;
        d.grad.iter_mut().chain(&mut d.diag).chain(&mut d.off).for_each(|v| *v = 0.0);
        for (k, el) in self.rod.bend_twist.iter().enumerate() {
            let (x, f, m) = self.stencil(el, k);
            let i = el.node;
            let (e, g, mut hm) = el.angle_derivatives(s, &x, &[theta[i - 1], theta[i]], &f, m);
            // Exact for a round section (the twist alone depends on the angles there, and
            // linearly); a bent elliptic or naturally curved rod can make it indefinite.
            crate::energy::project_psd(&mut hm);
            d.energy += e;
            d.grad[i - 1] += g[0];
            d.grad[i] += g[1];
            d.diag[i - 1] += hm[(0, 0)];
            d.diag[i] += hm[(1, 1)];
            d.off[i - 1] += hm[(0, 1)];
        }
    }

    /// Φ(w) given θ = θ_n + h w's energy `e`.
    fn potential(&self, w: &[f64], w0: &[f64], k0: &Damping, e: f64) -> f64 {
        let (alpha, beta) = self.rayleigh;
        let mut phi = e;
        for j in 0..w.len() {
            let i = self.inertia[j];
            phi += 0.5 * i * (w[j] - w0[j]).powi(2) + 0.5 * self.h * (alpha * i + beta * k0.0[j]) * w[j] * w[j];
            if j + 1 < w.len() {
                phi += self.h * beta * k0.1[j] * w[j] * w[j + 1];
            }
        }
        phi
    }

    /// R(w) on the free edges (zero on held ones) into `out`; returns |R|∞.
    fn residual(&self, w: &[f64], w0: &[f64], k0: &Damping, d: &Derivatives, free: &[bool], out: &mut [f64]) -> f64 {
        let (h, (alpha, beta)) = (self.h, self.rayleigh);
        let n = w.len();
        let mut norm = 0.0f64;
        for j in 0..n {
            let i = self.inertia[j];
            let mut r = i * (w[j] - w0[j]) + h * (alpha * i + beta * k0.0[j]) * w[j] + h * d.grad[j];
            if j > 0 {
                r += h * beta * k0.1[j - 1] * w[j - 1];
            }
            if j + 1 < n {
                r += h * beta * k0.1[j] * w[j + 1];
            }
            out[j] = if free[j] { r } else { 0.0 };
            norm = norm.max(out[j].abs());
        }
        norm
    }

    /// The Newton step: solves J δ = −R with J = (1 + hα) I + h β K₀ + h² K, held rows the
    /// identity (their step is zero).
    fn newton_direction(&self, k0: &Damping, d: &Derivatives, free: &[bool], residual: &[f64], delta: &mut [f64]) {
        let (h, (alpha, beta)) = (self.h, self.rayleigh);
        let n = residual.len();
        let diag: Vec<f64> = (0..n)
            .map(|j| {
                if free[j] { (1.0 + h * alpha) * self.inertia[j] + h * beta * k0.0[j] + h * h * d.diag[j] } else { 1.0 }
            })
            .collect();
        let off: Vec<f64> = (0..n.saturating_sub(1))
            .map(|j| if free[j] && free[j + 1] { h * beta * k0.1[j] + h * h * d.off[j] } else { 0.0 })
            .collect();
        let rhs: Vec<f64> = residual.iter().map(|r| -r).collect();
        solve_tridiagonal(&diag, &off, &rhs, delta);
    }

    /// Advance `state` by one step. The angles are left at the last iterate in any case; the
    /// report says whether it met the tolerance.
    ///
    /// A trial step is accepted when it lowers Φ or |R|∞. Why both: near the solution Φ's
    /// decrease (|R|²/J) falls below Φ's own round-off (it is dominated by the inertia terms), so
    /// Φ alone would stall the last Newton steps, while far from it |R| alone could cycle.
    pub fn advance(&self, state: &mut TwistState) -> TwistReport {
        let n = state.angle.len();
        let h = self.h;
        let theta0 = state.angle.clone();
        let w0 = state.rate.clone();
        let mut w = w0.clone();
        let mut free = vec![true; n];
        for &(j, rate) in self.held {
            w[j] = rate;
            free[j] = false;
        }
        let at = |w: &[f64]| -> Vec<f64> { theta0.iter().zip(w).map(|(t, w)| t + h * w).collect() };
        let mut d = Derivatives::zeros(n);
        self.derivatives(&at(&w), &mut d);
        let k0: Damping = (d.diag.clone(), d.off.clone());
        let scale =
            (0..n).map(|j| self.inertia[j] * w0[j].abs().max(w[j].abs()) + h * d.grad[j].abs()).fold(0.0, f64::max);
        let (mut residual, mut delta, mut trial) = (vec![0.0; n], vec![0.0; n], vec![0.0; n]);
        let mut trial_residual = vec![0.0; n];
        let mut trial_d = Derivatives::zeros(n);
        let mut report = TwistReport { iterations: 0, residual_rel: 0.0, converged: false };
        let mut norm = self.residual(&w, &w0, &k0, &d, &free, &mut residual);
        loop {
            report.residual_rel = if scale > 0.0 { norm / scale } else { 0.0 };
            if norm <= TOL * scale || norm == 0.0 {
                report.converged = true;
                break;
            }
            if report.iterations == MAX_NEWTON {
                break;
            }
            report.iterations += 1;
            self.newton_direction(&k0, &d, &free, &residual, &mut delta);
            let phi = self.potential(&w, &w0, &k0, d.energy);
            let mut step = 1.0;
            let accepted = loop {
                for j in 0..n {
                    trial[j] = w[j] + step * delta[j];
                }
                self.derivatives(&at(&trial), &mut trial_d);
                let trial_norm = self.residual(&trial, &w0, &k0, &trial_d, &free, &mut trial_residual);
                if self.potential(&trial, &w0, &k0, trial_d.energy) < phi || trial_norm < norm {
                    norm = trial_norm;
                    break true;
                }
                step *= 0.5;
                if step < 0.5f64.powi(MAX_HALVINGS as i32) {
                    break false;
                }
            };
            if !accepted {
                break;
            }
            std::mem::swap(&mut w, &mut trial);
            std::mem::swap(&mut d, &mut trial_d);
            std::mem::swap(&mut residual, &mut trial_residual);
        }
        state.angle = at(&w);
        state.rate = w;
        report
    }
}

/// Solve the symmetric tridiagonal system (diagonal `diag`, off-diagonal `off`) for `rhs` into
/// `out`: the Thomas algorithm, stable without pivoting for the SPD matrices built here.
fn solve_tridiagonal(diag: &[f64], off: &[f64], rhs: &[f64], out: &mut [f64]) {
    let n = diag.len();
    if n == 0 {
        return;
    }
    let mut c = vec![0.0; n];
    let mut d = diag[0];
    out[0] = rhs[0] / d;
    for j in 1..n {
        c[j - 1] = off[j - 1] / d;
        d = diag[j] - off[j - 1] * c[j - 1];
        out[j] = (rhs[j] - off[j - 1] * out[j - 1]) / d;
    }
    for j in (0..n - 1).rev() {
        out[j] -= c[j] * out[j + 1];
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::energy::rod::RodStiffness;

    /// An undamped step of a rod without held edges, inertia 1e-9 per edge, h = 1 ms.
    fn free_step<'a>(rod: &'a Rod, frames: &'a RodFrames, x: &'a [Vector3<f64>]) -> TwistStep<'a> {
        const INERTIA: [f64; 5] = [1e-9; 5];
        TwistStep { rod, frames, x, inertia: &INERTIA, held: &[], h: 1e-3, rayleigh: (0.0, 0.0) }
    }

    #[test]
    fn tridiagonal_solve_matches_the_dense_product() {
        let diag = [4.0, 5.0, 3.0, 6.0];
        let off = [1.0, -2.0, 0.5];
        let x = [1.0, -2.0, 0.25, 3.0];
        let rhs: Vec<f64> = (0..4)
            .map(|j| {
                let mut r = diag[j] * x[j];
                if j > 0 {
                    r += off[j - 1] * x[j - 1];
                }
                if j < 3 {
                    r += off[j] * x[j + 1];
                }
                r
            })
            .collect();
        let mut out = [0.0; 4];
        solve_tridiagonal(&diag, &off, &rhs, &mut out);
        for j in 0..4 {
            assert!((out[j] - x[j]).abs() < 1e-14, "{out:?}");
        }
    }

    /// The angles' gradient the step assembles, against central differences of the rod's
    /// energy, on a bent rod with an elliptic section (where the bending energy depends on θ).
    #[test]
    fn angle_gradient_matches_finite_differences() {
        let rest: Vec<Vector3<f64>> =
            (0..6).map(|k| Vector3::new(0.1 * k as f64, 0.02 * (k as f64).powi(2), 0.01 * k as f64)).collect();
        let stiff = RodStiffness::elliptic(1e6, 4e5, 0.002, 0.001);
        let (rod, frames) = Rod::from_rest_polyline(&rest, stiff);
        let x: Vec<Vector3<f64>> = rest.iter().map(|p| p + Vector3::new(0.0, 0.01 * p.x * p.x, -0.02 * p.x)).collect();
        let step = free_step(&rod, &frames, &x);
        let theta = [0.1, -0.2, 0.3, 0.05, -0.1];
        let mut d = Derivatives { energy: 0.0, grad: vec![0.0; 5], diag: vec![0.0; 5], off: vec![0.0; 4] };
        step.derivatives(&theta, &mut d);
        assert!((d.energy - step.energy(&theta)).abs() <= 1e-14 * d.energy.abs().max(1e-30));
        // Central differences at ε = 1e-6 rad: truncation O(ε² E‴) ~ 1e-12 and round-off
        // ~1e-16 E/ε ~ 1e-10 of the gradient's scale; 1e-6 leaves room for both.
        let eps = 1e-6;
        let gmax = d.grad.iter().fold(0.0, |m: f64, g| m.max(g.abs()));
        for j in 0..5 {
            let (mut p, mut m) = (theta, theta);
            p[j] += eps;
            m[j] -= eps;
            let fd = (step.energy(&p) - step.energy(&m)) / (2.0 * eps);
            assert!((fd - d.grad[j]).abs() <= 1e-6 * gmax, "edge {j}: fd {fd}, analytic {}", d.grad[j]);
        }
    }

    /// For a round section the energy is quadratic in θ (bent or not), so the assembled Hessian
    /// is exact and PSD: checked against central differences of the assembled gradient (linear
    /// in θ, so the differences are exact up to round-off).
    #[test]
    fn round_rod_angle_hessian_is_exact() {
        let rest: Vec<Vector3<f64>> = (0..6).map(|k| Vector3::new(0.1 * k as f64, 0.0, 0.0)).collect();
        let (rod, frames) = Rod::from_rest_polyline(&rest, RodStiffness::circular(1e6, 4e5, 0.002));
        let x: Vec<Vector3<f64>> = rest.iter().map(|p| p + Vector3::new(0.0, 0.05 * p.x * p.x, -0.02 * p.x)).collect();
        let step = free_step(&rod, &frames, &x);
        let theta = [0.1, -0.2, 0.3, 0.05, -0.1];
        let new = || Derivatives { energy: 0.0, grad: vec![0.0; 5], diag: vec![0.0; 5], off: vec![0.0; 4] };
        let mut d = new();
        step.derivatives(&theta, &mut d);
        let hmax = d.diag.iter().fold(0.0, |m: f64, g| m.max(g.abs()));
        let eps = 1e-3;
        for j in 0..5 {
            let (mut p, mut m) = (theta, theta);
            p[j] += eps;
            m[j] -= eps;
            let (mut dp, mut dm) = (new(), new());
            step.derivatives(&p, &mut dp);
            step.derivatives(&m, &mut dm);
            for i in 0..5 {
                let fd = (dp.grad[i] - dm.grad[i]) / (2.0 * eps);
                let exact = match i as i64 - j as i64 {
                    0 => d.diag[j],
                    1 => d.off[j],
                    -1 => d.off[i],
                    _ => 0.0,
                };
                // Round-off of a gradient difference over 2ε: ~1e-16 |g|/ε, far below 1e-9 H.
                assert!((fd - exact).abs() <= 1e-9 * hmax, "({i}, {j}): fd {fd}, assembled {exact}");
            }
        }
    }

    /// The element's exact angle derivatives against central differences of its energy, on a bent
    /// rod with an elliptic, naturally curved section (where bending depends on the angles).
    #[test]
    fn element_angle_hessian_matches_finite_differences() {
        let rest = [Vector3::new(0.0, 0.0, 0.0), Vector3::new(0.1, 0.01, 0.0), Vector3::new(0.2, 0.04, 0.01)];
        let stiff = RodStiffness::elliptic(1e6, 4e5, 0.002, 0.001);
        let (rod, frames) = Rod::from_rest_polyline(&rest, stiff);
        let el = rod.bend_twist[0];
        let x = [rest[0], rest[1] + Vector3::new(0.0, 0.01, 0.02), rest[2] + Vector3::new(0.01, -0.02, 0.03)];
        let f = [frames.edges[0], frames.edges[1]];
        let th = [0.3, -0.4];
        let (e, g, hm) = el.angle_derivatives(&stiff, &x, &th, &f, 0.0);
        let energy = |t: [f64; 2]| el.energy(&stiff, &x, &t, &f, 0.0);
        assert!((e - energy(th)).abs() <= 1e-14 * e.abs());
        // ε = 1e-4 rad: truncation ε² E‴/6 ~ 1e-9 of the scale, round-off 1e-16 E/ε² ~ 1e-8.
        let eps = 1e-4;
        let hmax = hm.iter().fold(0.0, |m: f64, v| m.max(v.abs()));
        for a in 0..2 {
            let (mut p, mut m) = (th, th);
            p[a] += eps;
            m[a] -= eps;
            let fd_g = (energy(p) - energy(m)) / (2.0 * eps);
            assert!((fd_g - g[a]).abs() <= 1e-7 * g.amax().max(1e-30), "gradient {a}: {fd_g} vs {}", g[a]);
            for b in 0..2 {
                let (mut pp, mut pm, mut mp, mut mm) = (th, th, th, th);
                pp[a] += eps;
                pp[b] += eps;
                pm[a] += eps;
                pm[b] -= eps;
                mp[a] -= eps;
                mp[b] += eps;
                mm[a] -= eps;
                mm[b] -= eps;
                let fd = (energy(pp) - energy(pm) - energy(mp) + energy(mm)) / (4.0 * eps * eps);
                assert!((fd - hm[(a, b)]).abs() <= 1e-6 * hmax, "({a}, {b}): {fd} vs {}", hm[(a, b)]);
            }
        }
    }
}
