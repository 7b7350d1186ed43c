//! Joints of a scene: names resolved to rigid bodies, and the world point and axis of t = 0
//! expressed in each side's frame.

use super::schema::{JointSpec, Scene};
use super::{SceneError, error_at};
use crate::model::Rigid;
use crate::rigid::RigidBody;
use crate::rigid::joint::{Joint, JointKind, Motor};
use nalgebra::{UnitQuaternion, Vector3};
use std::path::Path;

/// The scene's joints over the built rigid bodies (at their t = 0 poses).
pub fn build(file: &Path, scene: &Scene, rigids: &[Rigid], bodies: &[RigidBody]) -> Result<Vec<Joint>, SceneError> {
    let index = |k: usize, field: &str, name: &str| {
        rigids
            .iter()
            .position(|r| r.name == name)
            .ok_or_else(|| error_at(file, &format!("joints[{k}].{field}"), format!("names no rigid body ({name:?})")))
    };
    let frame = |side: Option<usize>| {
        side.map_or((Vector3::zeros(), UnitQuaternion::identity()), |i| (bodies[i].position, bodies[i].orientation))
    };
    let mut out = Vec::with_capacity(scene.joints.len());
    for (k, spec) in scene.joints.iter().enumerate() {
        let (a, b) = match spec {
            JointSpec::Ball { a, b, .. } | JointSpec::Hinge { a, b, .. } | JointSpec::Fixed { a, b } => (a, b),
        };
        let a = index(k, "a", a)?;
        let b = b.as_ref().map(|b| index(k, "b", b)).transpose()?;
        let ((xa, qa), (xb, qb)) = (frame(Some(a)), frame(b));
        // A fixed joint holds a's center of mass; the others their given point.
        let point = match spec {
            JointSpec::Ball { point, .. } | JointSpec::Hinge { point, .. } => Vector3::from(*point),
            JointSpec::Fixed { .. } => xa,
        };
        let kind = match spec {
            JointSpec::Ball { .. } => JointKind::Ball,
            JointSpec::Hinge { axis, motor, .. } => {
                let axis = Vector3::from(*axis).normalize();
                JointKind::Hinge {
                    axis_a: qa.inverse() * axis,
                    axis_b: qb.inverse() * axis,
                    motor: motor.map(|m| Motor { speed: m.speed.to_radians(), max_torque: m.max_torque }),
                }
            }
            JointSpec::Fixed { .. } => JointKind::Fixed { relative: qb.inverse() * qa },
        };
        out.push(Joint { kind, a, b, anchor_a: qa.inverse() * (point - xa), anchor_b: qb.inverse() * (point - xb) });
    }
    Ok(out)
}
