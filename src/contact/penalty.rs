//! The cubic penalty of 001 eq. (2): `b(d; delta, kappa) = -kappa/delta (d - delta)^3` for
//! `d < delta`, zero above. It is C2 at `d = delta` and defined for negative gaps, so a step may
//! start interpenetrated.

use super::vec3::Scalar;

#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Penalty {
    /// Thickness tolerance (m).
    pub delta: f64,
    /// Stiffness (N/m).
    pub kappa: f64,
}

impl Penalty {
    /// Energy `b(d)`.
    pub fn energy(&self, d: f64) -> f64 {
        if d < self.delta { -self.kappa / self.delta * (d - self.delta).powi(3) } else { 0.0 }
    }

    /// Normal force magnitude `lambda = -b'(d) = 3 kappa/delta (delta - d)^2 >= 0`.
    pub fn force<T: Scalar>(&self, d: T) -> T {
        if d.re() < self.delta {
            let s = T::from(self.delta) - d;
            s * s * (3.0 * self.kappa / self.delta)
        } else {
            T::from(0.0)
        }
    }

    /// Adaptive stiffening of 001 §IV-D: the factor `b'(d)/b'(delta/2) = 4 (1 - d/delta)^2` that
    /// makes the force found at the deepest gap `d < 0` appear at `delta/2` outside the surface.
    pub fn stiffening_factor(&self, deepest_gap: f64) -> f64 {
        4.0 * (1.0 - deepest_gap / self.delta).powi(2)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use num_dual::{Dual64, second_derivative};

    #[test]
    fn force_is_minus_derivative_of_energy_and_c2_at_delta() {
        let p = Penalty { delta: 1e-3, kappa: 250.0 };
        for &d in &[-2e-3, -1e-4, 0.0, 3e-4, 9.99e-4, 1.2e-3] {
            // FD of the energy against the force: step 1e-9 on a cubic gives error O(h^2 kappa/delta)
            // ~ 2.5e-10 relative to forces of order kappa*delta = 0.25; tolerance 1e-8 absolute.
            let h = 1e-9;
            let fd = -(p.energy(d + h) - p.energy(d - h)) / (2.0 * h);
            assert!((fd - p.force(d)).abs() < 1e-8, "d={d}: {fd} vs {}", p.force(d));
            // b'' (the derivative of b' = -lambda) by AD vs the closed form 6 kappa/delta (delta - d).
            let (_, b2, _) = second_derivative(|x| -p.force(x), d);
            let exact = if d < p.delta { 6.0 * p.kappa / p.delta * (p.delta - d) } else { 0.0 };
            assert!((b2 - exact).abs() <= 1e-9 * exact.abs().max(1.0));
        }
        // C2 at delta: value, first and second derivatives all vanish from below.
        let f = p.force(Dual64::new(p.delta - 1e-12, 1.0));
        assert!(f.re.abs() < 1e-15 && f.eps.abs() < 1e-5);
    }

    #[test]
    fn stiffening_moves_the_force_to_half_delta() {
        let p = Penalty { delta: 1e-3, kappa: 10.0 };
        let d = -4e-4;
        let k2 = p.kappa * p.stiffening_factor(d);
        let p2 = Penalty { kappa: k2, ..p };
        // lambda_new(delta/2) == lambda_old(d): pure algebra, rounding only.
        assert!((p2.force(0.5e-3) - p.force(d)).abs() < 1e-12 * p.force(d));
        assert!(p.stiffening_factor(-1e-9) > 4.0);
    }
}
