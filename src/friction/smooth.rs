//! Smoothed Coulomb / Stribeck / viscous friction of 001 (eqs. 13, 14).
//!
//! The friction force on a contact with tangential slip velocity `v_t` and normal force `lambda` is
//! `f = -c(|v_t|, lambda) v_t / |v_t|`. We evaluate it as `f = -phi(|v_t|, lambda) v_t` with
//! `phi = c / |v_t|`, which is finite at `v_t = 0` because `s(x)/x = 2/eps - x/eps^2` there: no 0/0
//! and no special case at rest.

use num_dual::DualNum;

/// A friction law resolved for one contact pair (coefficients already looked up).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SmoothFriction {
    /// Dynamic (Coulomb) coefficient.
    pub mu_d: f64,
    /// Static coefficient (equal to `mu_d` for plain Coulomb).
    pub mu_s: f64,
    /// Stribeck velocity (m/s); unused when `mu_s == mu_d`.
    pub v_s: f64,
    /// Viscous coefficient (N s/m).
    pub mu_v: f64,
    /// Sliding-velocity tolerance (m/s) of the C1 smoothing `s(v; eps)`.
    pub eps: f64,
}

impl SmoothFriction {
    pub fn coulomb(mu: f64, eps: f64) -> Self {
        SmoothFriction { mu_d: mu, mu_s: mu, v_s: 10.0 * eps, mu_v: 0.0, eps }
    }

    /// True when this law produces no tangential force at all.
    pub fn is_frictionless(&self) -> bool {
        self.mu_d == 0.0 && self.mu_s == 0.0 && self.mu_v == 0.0
    }

    /// `s(x)/x` of eq. (13): `2/eps - x/eps^2` below `eps`, `1/x` above.
    pub fn s_over_x<T: DualNum<Primitive = f64> + Copy>(&self, x: T) -> T {
        if x.re() < self.eps { T::from(2.0 / self.eps) - x * (1.0 / (self.eps * self.eps)) } else { x.recip() }
    }

    /// Effective coefficient `mu_d + (mu_s - mu_d) g(x / v_s)` of eq. (14), with the compact
    /// Gaussian approximation `g(y) = (2y + 1)(y - 1)^2` on `[0, 1)` and 0 beyond.
    pub fn mu_eff<T: DualNum<Primitive = f64> + Copy>(&self, x: T) -> T {
        let dmu = self.mu_s - self.mu_d;
        if dmu == 0.0 {
            return T::from(self.mu_d);
        }
        let y = x * (1.0 / self.v_s);
        if y.re() < 1.0 {
            let ym1 = y - 1.0;
            T::from(self.mu_d) + (y * 2.0 + 1.0) * ym1 * ym1 * dmu
        } else {
            T::from(self.mu_d)
        }
    }

    /// `phi(x, lambda) = c(x, lambda) / x`, the factor with `f = -phi v_t`.
    pub fn phi<T: DualNum<Primitive = f64> + Copy>(&self, x: T, lambda: T) -> T {
        self.mu_eff(x) * self.s_over_x(x) * lambda + self.mu_v
    }

    /// Force magnitude `c(x, lambda)` of eq. (14) (for reporting and tests).
    pub fn magnitude(&self, x: f64, lambda: f64) -> f64 {
        self.phi(x, lambda) * x
    }

    /// Steady creep speed of a block held by this (plain Coulomb) law on a slope of angle theta:
    /// the root of `mu s(v) = tan(theta)`, `v* = eps (1 - sqrt(1 - tan(theta)/mu))` (validation
    /// case 4). `None` when `tan(theta) > mu` (it slides).
    pub fn creep_speed(&self, tan_theta: f64) -> Option<f64> {
        let r = tan_theta / self.mu_d;
        (r <= 1.0).then(|| self.eps * (1.0 - (1.0 - r).sqrt()))
    }
}

/// Tangential friction force `-phi(|v_t|, lambda) v_t` for the tangential slip velocity `v_t`.
///
/// `|v_t|` is computed from its square and held constant (no derivative) when it is exactly zero:
/// the dropped term is `O(|v_t|)` and vanishes there, while `d sqrt(x)/dx` would be infinite.
pub fn friction_force<T: DualNum<Primitive = f64> + Copy>(law: &SmoothFriction, vt: [T; 3], lambda: T) -> [T; 3] {
    let x2 = vt[0] * vt[0] + vt[1] * vt[1] + vt[2] * vt[2];
    let x = if x2.re() > 0.0 { x2.sqrt() } else { T::from(0.0) };
    let phi = law.phi(x, lambda);
    [-(phi * vt[0]), -(phi * vt[1]), -(phi * vt[2])]
}

#[cfg(test)]
mod tests {
    use super::*;
    use num_dual::Dual64;

    fn law() -> SmoothFriction {
        SmoothFriction { mu_d: 0.4, mu_s: 0.9, v_s: 1e-3, mu_v: 0.05, eps: 1e-4 }
    }

    #[test]
    fn smoothing_is_c1_at_eps_and_exact_above() {
        let l = SmoothFriction::coulomb(0.5, 1e-3);
        // s(eps) = 1 from both sides and s'(eps) = 0: compare one-sided values 1e-9 apart.
        // Tolerance 1e-5 relative: the one-sided difference quotient error is O(h/eps) = 1e-6.
        let below = l.magnitude(1e-3 - 1e-9, 1.0);
        let above = l.magnitude(1e-3 + 1e-9, 1.0);
        assert!((below - 0.5).abs() < 1e-9 && (above - 0.5).abs() < 1e-12);
        assert_eq!(l.magnitude(0.37, 2.0), 1.0); // mu * lambda exactly once sliding
        assert_eq!(l.magnitude(0.0, 2.0), 0.0);
    }

    #[test]
    fn stribeck_endpoints_and_smoothness() {
        let l = law();
        // At x well below eps the coefficient is mu_s, beyond v_s it is mu_d.
        assert!((l.mu_eff(0.0f64) - 0.9).abs() < 1e-15);
        assert_eq!(l.mu_eff(2e-3f64), 0.4);
        // g'(0) = g'(1) = 0: derivative of mu_eff vanishes at both ends (exact AD).
        let d1 = l.mu_eff(Dual64::new(1e-3 - 1e-15, 1.0)).eps;
        assert!(d1.abs() < 1e-6, "{d1}");
        // Viscous part adds mu_v * x.
        assert!((l.magnitude(5e-3, 0.0) - 0.05 * 5e-3).abs() < 1e-18);
    }

    #[test]
    fn phi_derivative_matches_finite_differences() {
        let l = law();
        for &x in &[1e-5, 5e-5, 2e-4, 7e-4, 3e-3] {
            let ad = l.phi(Dual64::new(x, 1.0), Dual64::from(2.0)).eps;
            let h = x * 1e-6;
            let fd = (l.phi(x + h, 2.0) - l.phi(x - h, 2.0)) / (2.0 * h);
            // Central difference error O(h^2 phi''') ~ 1e-12 relative; 1e-6 leaves margin for
            // cancellation in phi ~ 1/x.
            assert!((ad - fd).abs() <= 1e-6 * fd.abs().max(1.0), "x={x}: {ad} vs {fd}");
        }
    }

    #[test]
    fn creep_speed_formula() {
        let l = SmoothFriction::coulomb(0.177, 1e-4);
        let v = l.creep_speed(10f64.to_radians().tan()).unwrap();
        // At v* the smoothed force balances the slope: mu s(v*) = tan(theta).
        let s = l.magnitude(v, 1.0) / 0.177;
        assert!((s - 10f64.to_radians().tan() / 0.177).abs() < 1e-12);
        assert!(l.creep_speed(0.18).is_none());
    }
}
