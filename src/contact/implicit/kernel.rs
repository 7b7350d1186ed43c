//! The compactly supported kernels of 000's MLS potential (§4.1): weights `w̃_R(r)` of a sample at
//! distance `r < R` from the query point, normalized to a partition of unity by the caller.

use crate::contact::vec3::Scalar;
use serde::{Deserialize, Serialize};

/// A kernel of support radius `R` (given separately).
#[derive(Debug, Clone, Copy, PartialEq, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub enum Kernel {
    /// 000 eq. (10) after Most & Bucher 2005: `((r/R)² + ε)⁻² − (1 + ε)⁻²`, up to a constant
    /// factor that the normalization cancels. A small ε interpolates the samples' planes more
    /// closely; it reaches 0 at `r = R` with a non-zero slope (C0 there).
    Approximate { epsilon: f64 },
    /// `1 − 3 (r/R)² + 2 (r/R)³`: C1 at `r = R`, smoother and cheaper, but it does not interpolate
    /// (convex corners stick out, concave ones sink in).
    #[default]
    Cubic,
}

impl Kernel {
    /// The unnormalized weight at squared distance `r2 = |x − s|²` (generic over the AD scalar),
    /// for `r2 < radius²`; 0 outside.
    pub fn weight<T: Scalar>(&self, r2: T, radius: f64) -> T {
        let t2 = r2 * (1.0 / (radius * radius));
        if t2.re() >= 1.0 {
            return T::from(0.0);
        }
        match *self {
            Kernel::Approximate { epsilon } => {
                let a = t2 + epsilon;
                (a * a).recip() - 1.0 / ((1.0 + epsilon) * (1.0 + epsilon))
            }
            Kernel::Cubic => {
                let t = t2.sqrt();
                T::from(1.0) - t2 * 3.0 + t2 * t * 2.0
            }
        }
    }

    /// `dw̃/d(r²)` at `r2` (generic), for the analytic gradient `∇_x w̃ = 2 (x − s) dw̃/d(r²)`.
    pub fn weight_slope<T: Scalar>(&self, r2: T, radius: f64) -> T {
        let inv = 1.0 / (radius * radius);
        let t2 = r2 * inv;
        if t2.re() >= 1.0 {
            return T::from(0.0);
        }
        match *self {
            Kernel::Approximate { epsilon } => {
                let a = t2 + epsilon;
                (a * a * a).recip() * (-2.0 * inv)
            }
            // d/d(t²) (1 − 3t² + 2t³) = −3 + 3t.
            Kernel::Cubic => (t2.sqrt() * 3.0 - 3.0) * inv,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn weights_vanish_at_the_radius_and_slopes_match_differences() {
        for k in [Kernel::Cubic, Kernel::Approximate { epsilon: 1e-3 }, Kernel::Approximate { epsilon: 0.1 }] {
            assert!(k.weight(0.999999f64, 1.0) < 1e-4 * k.weight(0.0f64, 1.0) + 1e-5);
            assert_eq!(k.weight(1.0f64, 1.0), 0.0);
            for r2 in [0.01, 0.2, 0.5, 0.9] {
                let h = 1e-7;
                let fd = (k.weight(r2 + h, 0.7) - k.weight(r2 - h, 0.7)) / (2.0 * h);
                let an: f64 = k.weight_slope(r2, 0.7);
                assert!((fd - an).abs() <= 1e-6 * an.abs().max(1.0), "{k:?} r2 {r2}: {fd} vs {an}");
            }
        }
    }
}
