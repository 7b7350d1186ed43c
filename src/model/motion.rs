//! Prescribed (scripted) translations of kinematic vertex sets and colliders.

use nalgebra::Vector3;

#[derive(Debug, Clone, PartialEq)]
pub enum Motion {
    Fixed,
    /// Constant velocity (m/s).
    Velocity(Vector3<f64>),
    /// Piecewise-linear translation offsets at strictly increasing times; held outside the range.
    Keyframes(Vec<(f64, Vector3<f64>)>),
}

impl Motion {
    /// Translation offset from the initial placement at time `t`.
    pub fn offset(&self, t: f64) -> Vector3<f64> {
        match self {
            Motion::Fixed => Vector3::zeros(),
            Motion::Velocity(v) => v * t,
            Motion::Keyframes(keys) => {
                let Some(first) = keys.first() else { return Vector3::zeros() };
                if t <= first.0 {
                    return first.1;
                }
                for w in keys.windows(2) {
                    let ((t0, a), (t1, b)) = (w[0], w[1]);
                    if t <= t1 {
                        return a + (b - a) * ((t - t0) / (t1 - t0));
                    }
                }
                keys[keys.len() - 1].1
            }
        }
    }

    /// Mean velocity over `[t, t + h]`: the velocity that backward Euler needs so that the
    /// positions land exactly on the prescribed path at the end of the step.
    pub fn step_velocity(&self, t: f64, h: f64) -> Vector3<f64> {
        match self {
            Motion::Fixed => Vector3::zeros(),
            Motion::Velocity(v) => *v,
            Motion::Keyframes(_) => (self.offset(t + h) - self.offset(t)) / h,
        }
    }

    pub fn is_fixed(&self) -> bool {
        matches!(self, Motion::Fixed)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keyframes_interpolate_and_hold() {
        let m = Motion::Keyframes(vec![(1.0, Vector3::zeros()), (3.0, Vector3::new(0.0, 0.0, 2.0))]);
        assert_eq!(m.offset(0.0), Vector3::zeros());
        assert_eq!(m.offset(2.0), Vector3::new(0.0, 0.0, 1.0));
        assert_eq!(m.offset(5.0), Vector3::new(0.0, 0.0, 2.0));
        assert_eq!(m.step_velocity(2.0, 0.5), Vector3::new(0.0, 0.0, 1.0));
        assert_eq!(m.step_velocity(3.0, 0.5), Vector3::zeros());
    }
}
