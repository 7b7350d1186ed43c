//! Prescribed (scripted) motions of kinematic vertex sets, colliders and kinematic rigid bodies.
//!
//! Every motion is a rigid map of the scene placement (the rest position, at t = 0) to the
//! placement at time `t`:
//!
//! ```text
//! x(t) = pivot + c(t) + R(t) (x_rest - pivot)
//! ```
//!
//! with a translation `c(t)` and a rotation `R(t)` about a fixed `pivot`. The translation-only
//! forms (`Fixed`, `Velocity`, `Keyframes`) have `R = I`. A step of backward Euler moves every
//! scripted point with its mean velocity over the step, `(x(t + h) - x(t)) / h`, so it lands on
//! its path at the end of the step: [`Motion::step`] gives that velocity for a material point
//! (from its rest position) and, as an affine field of the world position, for whatever surface
//! point a contact touches.

use nalgebra::{Matrix3, Unit, UnitQuaternion, Vector3};

/// One key of a [`Motion::Rigid`]: translation and orientation at `time`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RigidKey {
    pub time: f64,
    pub translation: Vector3<f64>,
    pub rotation: UnitQuaternion<f64>,
}

#[derive(Debug, Clone, PartialEq)]
pub enum Motion {
    Fixed,
    /// Constant velocity (m/s).
    Velocity(Vector3<f64>),
    /// Piecewise-linear translation offsets at strictly increasing times; held outside the range.
    Keyframes(Vec<(f64, Vector3<f64>)>),
    /// Keyed rigid motion about `pivot`: translation piecewise linear, orientation interpolated
    /// along the shortest rotation between consecutive keys (slerp, constant angular velocity
    /// within an interval); held before the first and after the last key.
    Rigid {
        pivot: Vector3<f64>,
        keys: Vec<RigidKey>,
    },
    /// Rotation about `axis` through `pivot` by the angle `amplitude sin(2 pi t / period)` (rad).
    Oscillate {
        pivot: Vector3<f64>,
        axis: Unit<Vector3<f64>>,
        amplitude: f64,
        period: f64,
    },
    /// Rotation about `axis` through `pivot` at a constant `rate` (rad/s).
    Spin {
        pivot: Vector3<f64>,
        axis: Unit<Vector3<f64>>,
        rate: f64,
    },
}

/// Angle (rad) and unit axis of the rotation from `a` to `b` (`b = d a`), the shortest one.
fn relative(a: &UnitQuaternion<f64>, b: &UnitQuaternion<f64>) -> Vector3<f64> {
    (b * a.inverse()).scaled_axis()
}

impl Motion {
    /// Does the motion rotate (as opposed to translating only)?
    pub fn rotates(&self) -> bool {
        matches!(self, Motion::Rigid { .. } | Motion::Oscillate { .. } | Motion::Spin { .. })
    }

    pub fn is_fixed(&self) -> bool {
        matches!(self, Motion::Fixed)
    }

    fn pivot(&self) -> Vector3<f64> {
        match self {
            Motion::Rigid { pivot, .. } | Motion::Oscillate { pivot, .. } | Motion::Spin { pivot, .. } => *pivot,
            _ => Vector3::zeros(),
        }
    }

    /// The translation `c(t)` (for the translation-only forms: the offset from the rest
    /// placement).
    pub fn offset(&self, t: f64) -> Vector3<f64> {
        match self {
            Motion::Fixed | Motion::Oscillate { .. } | Motion::Spin { .. } => Vector3::zeros(),
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
            Motion::Rigid { keys, .. } => match Self::interval(keys, t) {
                Some((k, s)) => keys[k].translation + (keys[k + 1].translation - keys[k].translation) * s,
                None => Self::held(keys, t).map_or_else(Vector3::zeros, |k| k.translation),
            },
        }
    }

    /// The rotation `R(t)` about the pivot.
    pub fn rotation(&self, t: f64) -> UnitQuaternion<f64> {
        match self {
            Motion::Fixed | Motion::Velocity(_) | Motion::Keyframes(_) => UnitQuaternion::identity(),
            Motion::Rigid { keys, .. } => match Self::interval(keys, t) {
                Some((k, s)) => {
                    let (a, b) = (&keys[k].rotation, &keys[k + 1].rotation);
                    UnitQuaternion::from_scaled_axis(relative(a, b) * s) * a
                }
                None => Self::held(keys, t).map_or_else(UnitQuaternion::identity, |k| k.rotation),
            },
            Motion::Oscillate { axis, amplitude, period, .. } => {
                UnitQuaternion::from_axis_angle(axis, amplitude * (std::f64::consts::TAU * t / period).sin())
            }
            Motion::Spin { axis, rate, .. } => UnitQuaternion::from_axis_angle(axis, rate * t),
        }
    }

    /// The key interval `[k, k + 1]` holding `t` strictly after its first key and the fraction
    /// `s` in `(0, 1]` of the way through it; `None` outside the keyed range.
    fn interval(keys: &[RigidKey], t: f64) -> Option<(usize, f64)> {
        let k = keys.windows(2).position(|w| t > w[0].time && t <= w[1].time)?;
        Some((k, (t - keys[k].time) / (keys[k + 1].time - keys[k].time)))
    }

    /// The key held at `t` outside the keyed range (the first before it, the last after it).
    fn held(keys: &[RigidKey], t: f64) -> Option<&RigidKey> {
        match keys.first() {
            Some(first) if t <= first.time => Some(first),
            _ => keys.last(),
        }
    }

    /// World position at time `t` of the material point whose rest position is `rest`.
    pub fn point(&self, rest: &Vector3<f64>, t: f64) -> Vector3<f64> {
        if self.rotates() {
            let p = self.pivot();
            p + self.offset(t) + self.rotation(t) * (rest - p)
        } else {
            rest + self.offset(t)
        }
    }

    /// The motion over the step `[t, t + h]`, evaluated once for all the points that follow it.
    pub fn step(&self, t: f64, h: f64) -> Step {
        match self {
            Motion::Fixed => Step::Translate(Vector3::zeros()),
            Motion::Velocity(v) => Step::Translate(*v),
            Motion::Keyframes(_) => Step::Translate((self.offset(t + h) - self.offset(t)) / h),
            _ => {
                let (q0, q1) = (self.rotation(t), self.rotation(t + h));
                Step::Rigid(RigidStep {
                    pivot: self.pivot(),
                    c0: self.offset(t),
                    c1: self.offset(t + h),
                    r0: q0.to_rotation_matrix().into_inner(),
                    r1: q1.to_rotation_matrix().into_inner(),
                    omega: relative(&q0, &q1) / h,
                    h,
                })
            }
        }
    }
}

/// A rotating motion over one step: the placements at both ends.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RigidStep {
    pivot: Vector3<f64>,
    c0: Vector3<f64>,
    c1: Vector3<f64>,
    r0: Matrix3<f64>,
    r1: Matrix3<f64>,
    /// Constant angular velocity taking `r0` to `r1` over the step (rad/s, world).
    omega: Vector3<f64>,
    h: f64,
}

/// A prescribed motion over one step `[t, t + h]`.
// Built on the stack once per step (or per contact) and dropped: boxing the large variant would
// allocate in the contact loops instead.
#[allow(clippy::large_enum_variant)]
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Step {
    /// Every point moves with this velocity.
    Translate(Vector3<f64>),
    Rigid(RigidStep),
}

/// An affine velocity field `v(x) = gradient x + constant` (m/s) over world positions: the
/// mean step velocity of the scripted surface point found at `x` at one end of the step.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct VelocityField {
    pub gradient: Matrix3<f64>,
    pub constant: Vector3<f64>,
}

impl VelocityField {
    /// A uniform field.
    pub fn uniform(v: Vector3<f64>) -> Self {
        VelocityField { gradient: Matrix3::zeros(), constant: v }
    }

    pub fn at(&self, x: &Vector3<f64>) -> Vector3<f64> {
        self.gradient * x + self.constant
    }

    /// The field's rate of rotation: the axial vector of the gradient's skew part (the angular
    /// velocity of a rigid motion).
    pub fn rotation_rate(&self) -> Vector3<f64> {
        let g = &self.gradient;
        0.5 * Vector3::new(g[(2, 1)] - g[(1, 2)], g[(0, 2)] - g[(2, 0)], g[(1, 0)] - g[(0, 1)])
    }

    /// A bound on `|v|` over the ball of `radius` around `center`.
    pub fn speed_bound(&self, center: &Vector3<f64>, radius: f64) -> f64 {
        self.at(center).norm() + self.gradient.norm() * radius
    }
}

impl Step {
    /// Mean velocity over the step of the material point whose rest position is `rest`: the
    /// velocity that backward Euler needs so that the point lands exactly on its path.
    pub fn material_velocity(&self, rest: &Vector3<f64>) -> Vector3<f64> {
        match self {
            Step::Translate(v) => *v,
            Step::Rigid(s) => {
                let d = rest - s.pivot;
                ((s.c1 + s.r1 * d) - (s.c0 + s.r0 * d)) / s.h
            }
        }
    }

    /// The velocity that takes a scripted point now at `x` (meant to be on its path) to its
    /// place at the end of the step: `(x(t + h) - x) / h`. On the path this is the mean step
    /// velocity; off it (after a step cut short by collision detection) it returns the point
    /// to its path instead of carrying the lag on. A translation keeps its exact velocity.
    pub fn landing_velocity(&self, rest: &Vector3<f64>, x: &Vector3<f64>) -> Vector3<f64> {
        match self {
            Step::Translate(v) => *v,
            Step::Rigid(s) => (s.pivot + s.c1 + s.r1 * (rest - s.pivot) - x) / s.h,
        }
    }

    /// Mean step velocity of the scripted point that is at world `x` at the start of the step.
    pub fn field_at_start(&self) -> VelocityField {
        match self {
            Step::Translate(v) => VelocityField::uniform(*v),
            Step::Rigid(s) => {
                // x1 = p + c1 + A (x - p - c0) with A = R1 R0^T, so v = ((A - I) x + b) / h.
                let a = s.r1 * s.r0.transpose();
                let b = s.pivot + s.c1 - a * (s.pivot + s.c0);
                VelocityField { gradient: (a - Matrix3::identity()) / s.h, constant: b / s.h }
            }
        }
    }

    /// Mean step velocity of the scripted point that is at world `x` at the end of the step.
    pub fn field_at_end(&self) -> VelocityField {
        match self {
            Step::Translate(v) => VelocityField::uniform(*v),
            Step::Rigid(s) => {
                // x0 = p + c0 + A^T (x - p - c1), so v = (x - x0) / h.
                let at = s.r0 * s.r1.transpose();
                let b = s.pivot + s.c0 - at * (s.pivot + s.c1);
                VelocityField { gradient: (Matrix3::identity() - at) / s.h, constant: -b / s.h }
            }
        }
    }

    /// Angular velocity (rad/s, world) that turns the start orientation into the end one.
    pub fn angular_velocity(&self) -> Vector3<f64> {
        match self {
            Step::Translate(_) => Vector3::zeros(),
            Step::Rigid(s) => s.omega,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use nalgebra::Rotation3;

    #[test]
    fn keyframes_interpolate_and_hold() {
        let m = Motion::Keyframes(vec![(1.0, Vector3::zeros()), (3.0, Vector3::new(0.0, 0.0, 2.0))]);
        assert_eq!(m.offset(0.0), Vector3::zeros());
        assert_eq!(m.offset(2.0), Vector3::new(0.0, 0.0, 1.0));
        assert_eq!(m.offset(5.0), Vector3::new(0.0, 0.0, 2.0));
        assert_eq!(m.step(2.0, 0.5).material_velocity(&Vector3::zeros()), Vector3::new(0.0, 0.0, 1.0));
        assert_eq!(m.step(3.0, 0.5).material_velocity(&Vector3::x()), Vector3::zeros());
    }

    fn rigid_example() -> Motion {
        let deg =
            |x: f64, y: f64, z: f64| UnitQuaternion::from_euler_angles(x.to_radians(), y.to_radians(), z.to_radians());
        Motion::Rigid {
            pivot: Vector3::new(0.5, -0.25, 1.0),
            keys: vec![
                RigidKey { time: 0.0, translation: Vector3::zeros(), rotation: UnitQuaternion::identity() },
                RigidKey { time: 0.5, translation: Vector3::new(0.2, 0.0, -0.1), rotation: deg(0.0, 60.0, 0.0) },
                RigidKey { time: 1.5, translation: Vector3::new(0.0, 0.4, 0.0), rotation: deg(30.0, -60.0, 45.0) },
            ],
        }
    }

    /// Interpolation: keys are hit exactly, the midpoint of an interval lies half-way in angle
    /// about the interval's fixed axis, and the pivot does not move under a pure rotation.
    #[test]
    fn rigid_keys_interpolate_by_slerp_and_hold() {
        let m = rigid_example();
        let Motion::Rigid { pivot, keys } = &m else { unreachable!() };
        for k in keys {
            // A key is reached at its own time: the only error is quaternion round-off (1e-15).
            assert!(m.rotation(k.time).angle_to(&k.rotation) < 1e-14);
            assert!((m.offset(k.time) - k.translation).norm() < 1e-15);
        }
        // Held outside the keyed range.
        assert_eq!(m.rotation(-1.0), keys[0].rotation);
        assert_eq!(m.rotation(9.0), keys[2].rotation);
        assert_eq!(m.offset(9.0), keys[2].translation);
        // Half-way through [0.5, 1.5]: the rotation from key 1 is half the rotation to key 2,
        // about the same axis (slerp has a constant axis and angular speed).
        let (a, b) = (keys[1].rotation, keys[2].rotation);
        let full = (b * a.inverse()).scaled_axis();
        let half = (m.rotation(1.0) * a.inverse()).scaled_axis();
        assert!((half - 0.5 * full).norm() < 1e-14, "half {half} vs full/2 {}", 0.5 * full);
        // Translation is linear.
        assert!((m.offset(1.0) - Vector3::new(0.1, 0.2, -0.05)).norm() < 1e-15);
        // The pivot only translates.
        assert!((m.point(pivot, 1.0) - (pivot + m.offset(1.0))).norm() < 1e-15);
        // Distances between material points are preserved (rigid).
        let (p, q) = (Vector3::new(1.0, 2.0, 3.0), Vector3::new(-0.3, 0.1, 0.7));
        for t in [0.2, 0.7, 1.2] {
            assert!(((m.point(&p, t) - m.point(&q, t)).norm() - (p - q).norm()).abs() < 1e-14);
        }
    }

    /// The step velocity lands every point exactly on its path (to round-off), and the affine
    /// fields give the same velocity for the point found at either end of the step.
    #[test]
    fn step_velocity_lands_on_the_path() {
        let axis = Vector3::y_axis();
        let motions = [
            rigid_example(),
            Motion::Oscillate { pivot: Vector3::new(0.0, 0.0, 0.3), axis, amplitude: 1.0, period: 0.5 },
            Motion::Spin { pivot: Vector3::zeros(), axis: Vector3::z_axis(), rate: 3.0 },
            Motion::Keyframes(vec![(0.0, Vector3::zeros()), (1.0, Vector3::new(1.0, -2.0, 0.5))]),
            Motion::Velocity(Vector3::new(0.1, 0.2, 0.3)),
        ];
        let rest = Vector3::new(0.3, -0.7, 1.1);
        let h = 1e-3;
        for m in &motions {
            for t in [0.0, 0.2345, 0.5, 0.9999, 2.0] {
                let step = m.step(t, h);
                let (x0, x1) = (m.point(&rest, t), m.point(&rest, t + h));
                let v = step.material_velocity(&rest);
                // x0 + h v = x1 up to a few ulps of |x| ~ 1 (1e-14 absolute).
                assert!((x0 + h * v - x1).norm() < 1e-14, "{m:?} at t = {t}: misses by {:e}", (x0 + h * v - x1).norm());
                // The affine fields reproduce it from either end; the gradient (A - I)/h carries
                // the cancellation error of A - I (1e-16) divided by h: 1e-12 relative to |v|.
                let tol = 1e-12 * (1.0 + v.norm());
                assert!((step.field_at_start().at(&x0) - v).norm() < tol, "{m:?} at {t}: start field");
                assert!((step.field_at_end().at(&x1) - v).norm() < tol, "{m:?} at {t}: end field");
                // Landing from the path (or from off it) reaches the end point to round-off.
                assert!((x0 + h * step.landing_velocity(&rest, &x0) - x1).norm() < 1e-15 || !m.rotates());
                let off = x0 + Vector3::new(1e-4, -2e-4, 0.0);
                if m.rotates() {
                    assert!((off + h * step.landing_velocity(&rest, &off) - x1).norm() < 1e-15);
                }
                // The angular velocity turns R(t) into R(t + h).
                let turn = UnitQuaternion::from_scaled_axis(h * step.angular_velocity()) * m.rotation(t);
                assert!(turn.angle_to(&m.rotation(t + h)) < 1e-14);
            }
        }
    }

    #[test]
    fn oscillation_and_spin_angles() {
        let axis = Vector3::x_axis();
        let m = Motion::Oscillate { pivot: Vector3::zeros(), axis, amplitude: 1.0, period: 2.0 };
        // A quarter period reaches the amplitude about the axis; a half period returns.
        let r = Rotation3::from(m.rotation(0.5));
        assert!((r.angle() - 1.0).abs() < 1e-15 && (r.axis().unwrap().into_inner() - axis.into_inner()).norm() < 1e-15);
        assert!(m.rotation(1.0).angle() < 1e-15);
        let s = Motion::Spin { pivot: Vector3::new(1.0, 0.0, 0.0), axis: Vector3::z_axis(), rate: 0.5 };
        // Half a turn about z through (1, 0, 0) takes the origin to (2, 0, 0).
        let x = s.point(&Vector3::zeros(), std::f64::consts::TAU);
        assert!((x - Vector3::new(2.0, 0.0, 0.0)).norm() < 1e-15, "{x}");
    }
}
