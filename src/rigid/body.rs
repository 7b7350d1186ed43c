//! Rigid body state: pose (center of mass, unit quaternion) and world-frame velocities, the
//! velocity-level position update, world inertia, and the Jacobian of a body point's velocity.

use super::mass::MassProperties;
use super::shape::RigidShape;
use nalgebra::{Isometry3, Matrix3, SMatrix, SVector, Translation3, UnitQuaternion, Vector3};
use std::ops::Range;

/// Velocity entries a rigid body owns in the generalized vector.
pub const DOFS: usize = 6;
/// Offsets of the linear velocity (of the center of mass) inside a body's 6 entries.
pub const LINEAR: Range<usize> = 0..3;
/// Offsets of the angular velocity (world frame) inside a body's 6 entries.
pub const ANGULAR: Range<usize> = 3..6;

/// A rigid body: shape and mass properties about the center of mass (the body-frame origin), pose,
/// and world-frame velocities.
#[derive(Debug, Clone, PartialEq)]
pub struct RigidBody {
    /// Shape in the body frame, whose origin is the center of mass.
    pub shape: RigidShape,
    pub mass: f64,
    /// Inertia tensor about the center of mass, body axes.
    pub inertia_body: Matrix3<f64>,
    /// World position of the center of mass.
    pub position: Vector3<f64>,
    /// Body-to-world rotation.
    pub orientation: UnitQuaternion<f64>,
    /// World velocity of the center of mass.
    pub linear_velocity: Vector3<f64>,
    /// World angular velocity.
    pub angular_velocity: Vector3<f64>,
}

impl RigidBody {
    /// A body at rest with mass properties from `density`. A mesh whose center of mass is
    /// not at its origin is recentered, so the body frame stays centered at the center of mass;
    /// the returned offset is where the mesh origin sits in the new body frame (minus the center).
    pub fn from_density(
        shape: RigidShape,
        density: f64,
        position: Vector3<f64>,
        orientation: UnitQuaternion<f64>,
    ) -> (RigidBody, Vector3<f64>) {
        let mp = MassProperties::from_shape(&shape, density);
        let shape = shape.recentered(&mp.center);
        let body = RigidBody {
            shape,
            mass: mp.mass,
            inertia_body: mp.inertia,
            position: position + orientation * mp.center,
            orientation,
            linear_velocity: Vector3::zeros(),
            angular_velocity: Vector3::zeros(),
        };
        (body, -mp.center)
    }

    /// The same body with the mass scaled to `mass` (inertia scales with it; the density is then
    /// `mass / volume`).
    pub fn with_mass(mut self, mass: f64) -> RigidBody {
        let s = mass / self.mass;
        self.mass = mass;
        self.inertia_body *= s;
        self
    }

    /// Body-to-world rotation matrix R.
    pub fn rotation(&self) -> Matrix3<f64> {
        self.orientation.to_rotation_matrix().into_inner()
    }

    /// The pose as an isometry (body frame to world).
    pub fn pose(&self) -> Isometry3<f64> {
        Isometry3::from_parts(Translation3::from(self.position), self.orientation)
    }

    /// World inertia about the center of mass, `R I Rᵀ`.
    pub fn world_inertia(&self) -> Matrix3<f64> {
        let r = self.rotation();
        r * self.inertia_body * r.transpose()
    }

    /// Inverse world inertia `R I⁻¹ Rᵀ` (the body-frame inverse is exact for a diagonal tensor and
    /// well conditioned for any physical one).
    pub fn world_inverse_inertia(&self) -> Matrix3<f64> {
        let r = self.rotation();
        let inv = self.inertia_body.try_inverse().unwrap_or_else(Matrix3::zeros);
        r * inv * r.transpose()
    }

    /// The 6x6 generalized mass matrix `diag(m 1, R I Rᵀ)` in the (linear, angular) layout.
    pub fn mass_matrix(&self) -> SMatrix<f64, 6, 6> {
        let mut m = SMatrix::<f64, 6, 6>::zeros();
        m.fixed_view_mut::<3, 3>(0, 0).copy_from(&(Matrix3::identity() * self.mass));
        m.fixed_view_mut::<3, 3>(3, 3).copy_from(&self.world_inertia());
        m
    }

    /// Position, orientation quaternion (w, i, j, k), velocity and angular velocity: the
    /// columns of `stats.csv` and what a checkpoint keeps of the body.
    pub fn pose_and_velocity(&self) -> [f64; 13] {
        let (x, q, v, w) = (self.position, self.orientation.quaternion(), self.linear_velocity, self.angular_velocity);
        [x.x, x.y, x.z, q.w, q.i, q.j, q.k, v.x, v.y, v.z, w.x, w.y, w.z]
    }

    /// Set what [`pose_and_velocity`](Self::pose_and_velocity) returns (the quaternion as given).
    pub fn set_pose_and_velocity(&mut self, a: &[f64; 13]) {
        let v3 = |k: usize| Vector3::new(a[k], a[k + 1], a[k + 2]);
        self.position = v3(0);
        self.orientation = UnitQuaternion::new_unchecked(nalgebra::Quaternion::new(a[3], a[4], a[5], a[6]));
        self.linear_velocity = v3(7);
        self.angular_velocity = v3(10);
    }

    /// The body's 6 velocity entries (linear, angular).
    pub fn velocity(&self) -> SVector<f64, 6> {
        let mut v = SVector::<f64, 6>::zeros();
        v.fixed_rows_mut::<3>(0).copy_from(&self.linear_velocity);
        v.fixed_rows_mut::<3>(3).copy_from(&self.angular_velocity);
        v
    }

    /// Sets the body's velocity from its 6 entries (linear, angular).
    pub fn set_velocity(&mut self, v: &SVector<f64, 6>) {
        self.linear_velocity = v.fixed_rows::<3>(0).into_owned();
        self.angular_velocity = v.fixed_rows::<3>(3).into_owned();
    }

    /// Velocity-level position update over a step `h` with the current (end-of-step) velocity:
    /// `x += h v`, `q = exp(h ω / 2) q` (rotation by the angle `h |ω|` about `ω`, applied on the
    /// left since ω is a world vector), renormalized so rounding never lets `|q|` drift.
    pub fn integrate_position(&mut self, h: f64) {
        self.position += h * self.linear_velocity;
        let dq = UnitQuaternion::from_scaled_axis(h * self.angular_velocity);
        self.orientation = UnitQuaternion::new_normalize((dq * self.orientation).into_inner());
    }

    /// World position of a body-frame point.
    pub fn world_point(&self, local: &Vector3<f64>) -> Vector3<f64> {
        self.position + self.orientation * local
    }

    /// World velocity of the body point currently at world position `p`: `v + ω × (p - x)`.
    pub fn point_velocity(&self, p: &Vector3<f64>) -> Vector3<f64> {
        self.linear_velocity + self.angular_velocity.cross(&(p - self.position))
    }

    /// The 3x6 Jacobian `[1, -[r]×]` of the velocity of the body point at world position `p`
    /// (`r = p - x`) with respect to the body's (linear, angular) velocity entries; its transpose
    /// maps a force at `p` to the generalized force (force, torque `r × f`).
    pub fn point_jacobian(&self, p: &Vector3<f64>) -> SMatrix<f64, 3, 6> {
        let r = p - self.position;
        let mut j = SMatrix::<f64, 3, 6>::zeros();
        j.fixed_view_mut::<3, 3>(0, 0).copy_from(&Matrix3::identity());
        j.fixed_view_mut::<3, 3>(0, 3).copy_from(&(-r.cross_matrix()));
        j
    }

    /// Kinetic energy `½ m |v|² + ½ ωᵀ (R I Rᵀ) ω`.
    pub fn kinetic_energy(&self) -> f64 {
        let w = self.angular_velocity;
        0.5 * self.mass * self.linear_velocity.norm_squared() + 0.5 * w.dot(&(self.world_inertia() * w))
    }
}
