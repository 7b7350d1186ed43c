//! Contacts of the rigid bodies of a step: every body pair and every body–collider pair, with a
//! margin wide enough for what the pair can close within the step, and the friction law resolved
//! per contact (cone and frame).

use crate::contact::rigid::{Participant, RigidContact, collide_bodies, collide_body_collider};
use crate::friction::cone::Cone;
use crate::model::Model;
use crate::rigid::RigidBody;
use nalgebra::{Matrix3, Vector3};

/// A contact with its resolved friction law. `contact.frame` is the frame the cone is expressed
/// in: the geometric frame, or the matchstick frame for an anisotropic pair.
#[derive(Debug, Clone, Copy)]
pub struct Contact {
    pub contact: RigidContact,
    pub cone: Cone,
}

/// A bound on the speed of any point of body `b` (m/s).
fn speed_bound(b: &RigidBody) -> f64 {
    b.linear_velocity.norm() + b.angular_velocity.norm() * b.shape.bounding_radius()
}

/// The material of a participant.
pub fn material(model: &Model, p: Participant) -> usize {
    match p {
        Participant::Body(i) => model.rigids[i].material,
        Participant::Collider(k) => model.colliders[k].material,
    }
}

/// The world structure direction of a participant's surface, if it has one.
pub fn structure(model: &Model, bodies: &[RigidBody], p: Participant) -> Option<Vector3<f64>> {
    match p {
        Participant::Body(i) => model.rigids[i].structure.map(|s| bodies[i].orientation * s),
        Participant::Collider(k) => model.collider_structure[k],
    }
}

/// All contacts at time `t` with gap below `margin` plus the distance the pair can close over a
/// step `h` at the bodies' current (predicted) velocities. Pairs of two non-dynamic bodies are
/// skipped: nothing can be solved for them.
pub fn detect(model: &Model, bodies: &[RigidBody], t: f64, h: f64, margin: f64) -> Vec<Contact> {
    let speed: Vec<f64> = bodies.iter().map(speed_bound).collect();
    let dynamic = |i: usize| model.rigids[i].is_dynamic();
    let mut found = Vec::new();
    for i in 0..bodies.len() {
        for j in i + 1..bodies.len() {
            if dynamic(i) || dynamic(j) {
                found.extend(collide_bodies(bodies, i, j, margin + h * (speed[i] + speed[j])));
            }
        }
        if !dynamic(i) {
            continue;
        }
        for (k, col) in model.colliders.iter().enumerate() {
            let vc = col.motion.step_velocity(t, h).norm();
            found.extend(collide_body_collider(bodies, i, &model.colliders, k, t, margin + h * (speed[i] + vc)));
        }
    }
    found.into_iter().map(|c| resolve(model, bodies, c)).collect()
}

/// The friction law of one contact: the pair's isotropic `mu`, or the matchstick cone and frame
/// when the pair is anisotropic.
fn resolve(model: &Model, bodies: &[RigidBody], mut c: RigidContact) -> Contact {
    let (ma, mb) = (material(model, c.a), material(model, c.b));
    let mu = model.friction.get(ma, mb).mu_d;
    let Some([mu_t, mu_b]) = model.friction.anisotropy(ma, mb) else {
        return Contact { contact: c, cone: Cone { mu_t: mu, mu_b: mu } };
    };
    let law = matchstick_pending(
        &c.normal,
        structure(model, bodies, c.a).as_ref(),
        structure(model, bodies, c.b).as_ref(),
        mu,
        mu_t,
        mu_b,
    );
    c.frame = law.frame;
    Contact { contact: c, cone: law.cone }
}

/// Contact frame columns `(n, t, b)` expressed as a matrix, for output.
pub fn tangent(frame: &Matrix3<f64>) -> Vector3<f64> {
    frame.column(1).into_owned()
}

struct Law {
    frame: Matrix3<f64>,
    cone: Cone,
}

// Interim: 003 Algorithm 1 until the friction module's generator is wired in.
fn matchstick_pending(
    n: &Vector3<f64>,
    sa: Option<&Vector3<f64>>,
    sb: Option<&Vector3<f64>>,
    mu: f64,
    mu_t: f64,
    mu_b: f64,
) -> Law {
    let proj = |s: &Vector3<f64>| {
        let p = s - n * n.dot(s);
        (p.norm() > 1e-12).then(|| p.normalize())
    };
    let (a, b) = (sa.and_then(proj), sb.and_then(proj));
    let (t, d) = match (a, b) {
        (Some(a), Some(mut b)) => {
            if a.dot(&b) < 0.0 {
                b = -b;
            }
            let theta = a.dot(&b).clamp(-1.0, 1.0).acos();
            let s = a + b;
            (s.normalize(), 1.0 - 2.0 * theta / std::f64::consts::PI)
        }
        (Some(a), None) | (None, Some(a)) => (a, 1.0),
        (None, None) => {
            return Law { frame: crate::contact::rigid::frame(n), cone: Cone { mu_t: mu, mu_b: mu } };
        }
    };
    let frame = Matrix3::from_columns(&[*n, t, n.cross(&t)]);
    Law { frame, cone: Cone { mu_t: d * mu_t + (1.0 - d) * mu, mu_b: d * mu_b + (1.0 - d) * mu } }
}
