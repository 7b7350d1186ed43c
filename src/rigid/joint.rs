//! Bilateral joints between two rigid bodies, or a body and the world, as scalar constraint rows
//! on the bodies' velocities.
//!
//! A joint holds its anchor in each side's frame (body frame about the center of mass, or world
//! for the world side) and, for a hinge, its axis in each side's frame. At the current poses it
//! gives rows `ja · v_a + jb · v_b` (the 6 velocity entries of each side, linear then angular),
//! each with the position error `C` whose time derivative it is:
//! * `Ball`: the two anchors coincide, 3 rows (world axes), `C = p_a - p_b`;
//! * `Hinge`: a ball plus the two axes parallel, 2 rows along `t1, t2 ⊥ a_a` with
//!   `C_i = t_i · (a_b × a_a)`, whose derivative at alignment is `t_i · (ω_a - ω_b)`;
//!   an optional motor adds the row `a_a · (ω_a - ω_b) = speed` with `|impulse| <= h max_torque`;
//! * `Fixed`: a ball plus the relative orientation kept, 3 rows with `C` the rotation vector of
//!   `q_a (q_b q_rel)⁻¹`, whose derivative near identity is `ω_a - ω_b`.
//!
//! The rows are the Jacobian of `C` for a pose change `x += δx`, `q = exp(δθ) q` (the step's
//! own position update), checked against finite differences below.

use super::RigidBody;
use nalgebra::{SVector, UnitQuaternion, Vector3};

/// The 6 velocity entries of one body, linear then angular (world frame).
pub type Row6 = SVector<f64, 6>;

/// A velocity motor on a hinge: the relative angular speed of `a` about the axis (rad/s, right
/// hand about the axis as seen from `b`) is driven to `speed` by a torque of at most `max_torque`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Motor {
    pub speed: f64,
    pub max_torque: f64,
}

#[derive(Debug, Clone, PartialEq)]
pub enum JointKind {
    Ball,
    /// Unit axis in each side's frame.
    Hinge {
        axis_a: Vector3<f64>,
        axis_b: Vector3<f64>,
        motor: Option<Motor>,
    },
    /// `q_a = q_b relative` at rest (`q_b` the identity for the world).
    Fixed {
        relative: UnitQuaternion<f64>,
    },
}

/// A joint between body `a` and body `b` (`None`: the world).
#[derive(Debug, Clone, PartialEq)]
pub struct Joint {
    pub kind: JointKind,
    pub a: usize,
    pub b: Option<usize>,
    /// The joint point in a's body frame (from its center of mass).
    pub anchor_a: Vector3<f64>,
    /// The joint point in b's body frame, or in the world.
    pub anchor_b: Vector3<f64>,
}

/// The body pairs `(min, max)` that joints link: they do not collide (the joint holds them where
/// they meet, and a contact there would repeat its rows).
pub fn linked_pairs(joints: &[Joint]) -> std::collections::HashSet<(usize, usize)> {
    joints.iter().filter_map(|j| j.b.map(|b| (j.a.min(b), j.a.max(b)))).collect()
}

/// What a row asks of the velocities.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum RowKind {
    /// `J v = -C / h`: the position error closes within the step.
    Equality,
    /// `J v = speed`, impulse bounded by `h max_torque` in magnitude.
    Motor(Motor),
}

/// One scalar row of a joint at the current poses.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Row {
    /// Body of each side (`None`: the world).
    pub body: [Option<usize>; 2],
    pub jac: [Row6; 2],
    /// Position error (m or rad), zero for a motor row.
    pub error: f64,
    pub kind: RowKind,
}

/// A side's pose: body pose, or the world's identity.
fn pose(bodies: &[RigidBody], side: Option<usize>) -> (Vector3<f64>, UnitQuaternion<f64>) {
    side.map_or((Vector3::zeros(), UnitQuaternion::identity()), |i| (bodies[i].position, bodies[i].orientation))
}

fn linear(dir: Vector3<f64>, arm: Vector3<f64>) -> Row6 {
    let mut j = Row6::zeros();
    j.fixed_rows_mut::<3>(0).copy_from(&dir);
    // dir · (ω × arm) = ω · (arm × dir).
    j.fixed_rows_mut::<3>(3).copy_from(&arm.cross(&dir));
    j
}

fn angular(dir: Vector3<f64>) -> Row6 {
    let mut j = Row6::zeros();
    j.fixed_rows_mut::<3>(3).copy_from(&dir);
    j
}

/// Two unit vectors completing `a` (unit) to an orthonormal basis.
fn perpendiculars(a: &Vector3<f64>) -> [Vector3<f64>; 2] {
    let seed = if a.x.abs() < 0.6 { Vector3::x() } else { Vector3::y() };
    let t1 = a.cross(&seed).normalize();
    [t1, a.cross(&t1)]
}

impl Joint {
    /// Appends the joint's rows at the bodies' current poses; `motors` adds the motor row.
    pub fn rows(&self, bodies: &[RigidBody], motors: bool, out: &mut Vec<Row>) {
        let body = [Some(self.a), self.b];
        let (xa, qa) = pose(bodies, Some(self.a));
        let (xb, qb) = pose(bodies, self.b);
        let (arm_a, arm_b) = (qa * self.anchor_a, qb * self.anchor_b);
        let gap = (xa + arm_a) - (xb + arm_b);
        let mut push = |ja: Row6, jb: Row6, error: f64, kind| out.push(Row { body, jac: [ja, jb], error, kind });
        for k in 0..3 {
            let e = Vector3::ith(k, 1.0);
            push(linear(e, arm_a), -linear(e, arm_b), gap[k], RowKind::Equality);
        }
        match &self.kind {
            JointKind::Ball => {}
            JointKind::Hinge { axis_a, axis_b, motor } => {
                let (aa, ab) = (qa * axis_a, qb * axis_b);
                let misalign = ab.cross(&aa);
                for t in perpendiculars(&aa) {
                    push(angular(t), -angular(t), t.dot(&misalign), RowKind::Equality);
                }
                if let (Some(m), true) = (motor, motors) {
                    push(angular(aa), -angular(aa), 0.0, RowKind::Motor(*m));
                }
            }
            JointKind::Fixed { relative } => {
                let theta = (qa * (qb * relative).inverse()).scaled_axis();
                for k in 0..3 {
                    let e = Vector3::ith(k, 1.0);
                    push(angular(e), -angular(e), theta[k], RowKind::Equality);
                }
            }
        }
    }

    /// Rows a joint of this kind has without its motor.
    pub fn equality_rows(&self) -> usize {
        match self.kind {
            JointKind::Ball => 3,
            JointKind::Hinge { .. } => 5,
            JointKind::Fixed { .. } => 6,
        }
    }

    /// World positions of the two anchors and the world axis of each side (a hinge's; `None`
    /// otherwise), for output and tests.
    pub fn world_frame(&self, bodies: &[RigidBody]) -> ([Vector3<f64>; 2], Option<[Vector3<f64>; 2]>) {
        let (xa, qa) = pose(bodies, Some(self.a));
        let (xb, qb) = pose(bodies, self.b);
        let points = [xa + qa * self.anchor_a, xb + qb * self.anchor_b];
        let axes = match &self.kind {
            JointKind::Hinge { axis_a, axis_b, .. } => Some([qa * axis_a, qb * axis_b]),
            _ => None,
        };
        (points, axes)
    }
}

/// Moves a body by the generalized displacement `d` (linear, angular): `x += d_x`,
/// `q = exp(d_θ) q`, the variation the rows are the Jacobian of.
pub fn displace(b: &mut RigidBody, d: &Row6) {
    b.position += d.fixed_rows::<3>(0);
    let dq = UnitQuaternion::from_scaled_axis(d.fixed_rows::<3>(3).into_owned());
    b.orientation = UnitQuaternion::new_normalize((dq * b.orientation).into_inner());
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rigid::RigidShape;
    use crate::test_rng::symmetric;

    type Rng = u64;

    fn range(rng: &mut Rng, scale: f64) -> f64 {
        scale * symmetric(rng)
    }

    fn body(rng: &mut Rng) -> RigidBody {
        let shape = RigidShape::Box { half: Vector3::new(0.2, 0.1, 0.3) };
        let q = UnitQuaternion::from_scaled_axis(Vector3::new(range(rng, 1.0), range(rng, 1.0), 0.4));
        RigidBody::from_density(shape, 100.0, Vector3::new(range(rng, 1.0), 0.3, 0.5), q).0
    }

    /// Joints of every kind between the two bodies and between body 0 and the world, satisfied
    /// at the bodies' poses (`satisfied`) or with random anchors and axes.
    fn joints(rng: &mut Rng, bodies: &[RigidBody], satisfied: bool) -> Vec<Joint> {
        let v = |rng: &mut Rng| Vector3::new(range(rng, 0.3), range(rng, 0.3), range(rng, 0.3));
        let axis = |rng: &mut Rng| Vector3::new(range(rng, 1.0), range(rng, 1.0), 1.0).normalize();
        let motor = Some(Motor { speed: 1.0, max_torque: 1.0 });
        let mut out = Vec::new();
        for b in [Some(1), None] {
            let (xa, qa) = pose(bodies, Some(0));
            let (xb, qb) = pose(bodies, b);
            let (p, a) = (v(rng), axis(rng));
            let (anchor_a, anchor_b) =
                if satisfied { (qa.inverse() * (p - xa), qb.inverse() * (p - xb)) } else { (v(rng), v(rng)) };
            let (axis_a, axis_b) =
                if satisfied { (qa.inverse() * a, qb.inverse() * a) } else { (axis(rng), axis(rng)) };
            let relative =
                if satisfied { qb.inverse() * qa } else { UnitQuaternion::from_scaled_axis(axis(rng) * 0.7) };
            for kind in [JointKind::Ball, JointKind::Hinge { axis_a, axis_b, motor }, JointKind::Fixed { relative }] {
                out.push(Joint { kind, a: 0, b, anchor_a, anchor_b });
            }
        }
        out
    }

    /// Each equality row is the derivative of its error along any pose variation of either body:
    /// the anchor rows everywhere, the angular rows at a satisfied joint (where the hinge's
    /// perpendiculars and the rotation vector's differential no longer matter). Central
    /// differences of step 1e-6 have truncation error ~1e-12 and rounding ~1e-10 relative to
    /// the O(1) rows, so 1e-7 is a hundred times above what a correct row can show.
    #[test]
    fn rows_are_the_derivative_of_the_errors() {
        let mut rng: Rng = 7;
        let bodies = [body(&mut rng), body(&mut rng)];
        for satisfied in [true, false] {
            for joint in joints(&mut rng, &bodies, satisfied) {
                let mut rows = Vec::new();
                joint.rows(&bodies, false, &mut rows);
                assert_eq!(rows.len(), joint.equality_rows());
                if satisfied {
                    assert!(rows.iter().all(|r| r.error.abs() < 1e-14), "{joint:?}");
                }
                let checked = if satisfied { rows.len() } else { 3 };
                for side in 0..2 {
                    let Some(i) = rows[0].body[side] else { continue };
                    for k in 0..6 {
                        let eps = 1e-6;
                        let errors = |s: f64| {
                            let mut moved = bodies.clone();
                            displace(&mut moved[i], &(Row6::ith(k, s)));
                            let mut r = Vec::new();
                            joint.rows(&moved, false, &mut r);
                            r.iter().map(|r| r.error).collect::<Vec<_>>()
                        };
                        let (plus, minus) = (errors(eps), errors(-eps));
                        for (n, row) in rows.iter().enumerate().take(checked) {
                            let fd = (plus[n] - minus[n]) / (2.0 * eps);
                            let j = row.jac[side][k];
                            assert!((fd - j).abs() < 1e-7, "{joint:?} row {n} side {side} dof {k}: {fd} vs {j}");
                        }
                    }
                }
            }
        }
    }

    /// The motor row measures the relative spin about the axis, and the anchor rows the anchors'
    /// relative velocity: checked on a velocity field against the bodies' point velocities.
    #[test]
    fn motor_and_anchor_rows_measure_relative_velocities() {
        let mut rng: Rng = 3;
        let mut bodies = [body(&mut rng), body(&mut rng)];
        for b in &mut bodies {
            b.linear_velocity = Vector3::new(range(&mut rng, 1.0), range(&mut rng, 1.0), range(&mut rng, 1.0));
            b.angular_velocity = Vector3::new(range(&mut rng, 1.0), range(&mut rng, 1.0), range(&mut rng, 1.0));
        }
        let joint = joints(&mut rng, &bodies, true).swap_remove(1);
        let mut rows = Vec::new();
        joint.rows(&bodies, true, &mut rows);
        let value = |r: &Row| r.jac[0].dot(&bodies[0].velocity()) + r.jac[1].dot(&bodies[1].velocity());
        let ([pa, _], Some([aa, _])) = joint.world_frame(&bodies) else { panic!("a hinge has axes") };
        let rel = bodies[0].point_velocity(&pa) - bodies[1].point_velocity(&pa);
        for k in 0..3 {
            assert!((value(&rows[k]) - rel[k]).abs() < 1e-14);
        }
        let spin = aa.dot(&(bodies[0].angular_velocity - bodies[1].angular_velocity));
        assert!(matches!(rows[5].kind, RowKind::Motor(_)));
        assert!((value(&rows[5]) - spin).abs() < 1e-14);
    }
}
