//! Contacts of the rigid bodies of a step: every body pair and every body–collider pair, with a
//! margin wide enough for what the pair can close within the step, and the friction law resolved
//! per contact (cone and frame).

use crate::contact::rigid::mesh_collider::{PosedMesh, collide_body_mesh};
use crate::contact::rigid::{Participant, RigidContact, collide_bodies, collide_body_collider};
use crate::friction::cone::Cone;
use crate::friction::matchstick::MatchstickPair;
use crate::model::Model;
use crate::rigid::RigidBody;
use nalgebra::Vector3;
use rayon::prelude::*;

/// A contact with its resolved friction law. `contact.frame` is the frame the cone is expressed
/// in: the geometric frame, or the matchstick frame for an anisotropic pair.
#[derive(Debug, Clone, Copy)]
pub struct Contact {
    pub contact: RigidContact,
    pub cone: Cone,
    /// The pair's cohesive force at this contact's gap (N; 0 for a non-cohesive pair).
    pub cohesion: f64,
    /// The pair's compliance (m/N; 0 for a rigid contact).
    pub compliance: f64,
    /// The pair's drilling-torque coefficient (m; 0 without drilling torque).
    pub mu_tau: f64,
    /// B's own velocity at the point beyond its participant's (world; an animated mesh
    /// collider's deformation, zero for every other B).
    pub own_velocity: Vector3<f64>,
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
        Participant::Mesh(k) => model.mesh_colliders[k].material,
    }
}

/// The world structure direction of a participant's surface at world point `x` at time `t`, if
/// it has one (a turning collider turns its structure with it).
pub fn structure(
    model: &Model,
    bodies: &[RigidBody],
    p: Participant,
    x: &Vector3<f64>,
    t: f64,
) -> Option<Vector3<f64>> {
    match p {
        Participant::Body(i) => {
            let b = &bodies[i];
            let local = b.orientation.inverse() * (x - b.position);
            model.rigids[i].structure.as_ref()?.direction_at(&local).map(|s| b.orientation * s)
        }
        Participant::Collider(k) => model.collider_structure_at(k, x, t),
        Participant::Mesh(k) => model.mesh_colliders[k].structure_at(x, t),
    }
}

/// All contacts at time `t` with gap below `margin` plus the distance the pair can close over a
/// step `h` at the bodies' current (predicted) velocities; `meshes` are the mesh colliders
/// posed for the step ([`posed_meshes`]). Pairs of two non-dynamic bodies are
/// skipped: nothing can be solved for them; so are pairs a joint links: the joint holds them, and
/// a contact where they meet at the joint would repeat its rows (a singular problem). Body pairs come from a sweep over bounding balls
/// (see [`ball_pairs`]); the pairs' narrow phases run in parallel when there are many, and the
/// contacts come out in the same order either way (body `i`'s pairs with `j > i`, then its
/// colliders, then its mesh colliders, for increasing `i`).
pub fn detect(
    model: &Model,
    bodies: &[RigidBody],
    meshes: &[Option<PosedMesh>],
    t: f64,
    h: f64,
    margin: f64,
) -> Vec<Contact> {
    let speed: Vec<f64> = bodies.iter().map(speed_bound).collect();
    let dynamic = |i: usize| model.rigids[i].is_dynamic();
    let reach: Vec<f64> =
        bodies.iter().zip(&speed).map(|(b, s)| b.shape.bounding_radius() + 0.5 * margin + h * s).collect();
    let linked = crate::rigid::joint::linked_pairs(&model.joints);
    let mut tasks: Vec<(usize, Participant)> = ball_pairs(bodies, &reach)
        .into_iter()
        .filter(|&(i, j)| (dynamic(i) || dynamic(j)) && !linked.contains(&(i, j)))
        .map(|(i, j)| (i, Participant::Body(j)))
        .collect();
    let touchable = || (0..meshes.len()).filter(|&k| meshes[k].is_some());
    for i in (0..bodies.len()).filter(|&i| dynamic(i)) {
        tasks.extend((0..model.colliders.len()).map(|k| (i, Participant::Collider(k))));
        tasks.extend(touchable().map(|k| (i, Participant::Mesh(k))));
    }
    // Body i's tasks in order: its pairs by j, then its colliders, then its meshes (stable sort).
    let rank = |p: Participant| match p {
        Participant::Body(_) => 0,
        Participant::Collider(_) => 1,
        Participant::Mesh(_) => 2,
    };
    tasks.sort_by_key(|&(i, p)| (i, rank(p)));
    let still = |c: RigidContact| (c, Vector3::zeros());
    let narrow = |&(i, p): &(usize, Participant)| match p {
        Participant::Body(j) => {
            collide_bodies(bodies, i, j, margin + h * (speed[i] + speed[j])).into_iter().map(still).collect()
        }
        Participant::Collider(k) => {
            let vc = model.colliders[k]
                .motion
                .step(t, h)
                .field_at_start()
                .speed_bound(&bodies[i].position, bodies[i].shape.bounding_radius());
            collide_body_collider(bodies, i, &model.colliders, k, t, margin + h * (speed[i] + vc))
                .into_iter()
                .map(still)
                .collect()
        }
        Participant::Mesh(k) => {
            let (c, mesh) = (&model.mesh_colliders[k], meshes[k].as_ref().expect("only posed meshes are tasks"));
            let vc = c
                .motion
                .step(t, h)
                .field_at_start()
                .speed_bound(&bodies[i].position, bodies[i].shape.bounding_radius())
                + mesh.own_speed_bound();
            collide_body_mesh(bodies, i, c, mesh, k, t, margin + h * (speed[i] + vc))
        }
    };
    let found: Vec<(RigidContact, Vector3<f64>)> = if tasks.len() >= PARALLEL_TASKS {
        tasks.par_iter().map(narrow).collect::<Vec<Vec<_>>>().into_iter().flatten().collect()
    } else {
        tasks.iter().flat_map(narrow).collect()
    };
    found.into_iter().map(|(c, own)| Contact { own_velocity: own, ..resolve(model, bodies, c, t) }).collect()
}

/// 003's fully implicit frame generator: the friction laws of `contacts` (found at the step's
/// start, `start`) generated again at the step's end configuration `end`, at time `t_end`. Each
/// contact's point is carried by A (the body whose feature touches, B's when A is not a body),
/// so a body's own structure keeps its material point and a surface's field is read where that
/// point has slid to; the normal stays the detected one. Only the frame and the cone change.
/// Returns the largest change of a contact's law: the angle (rad) its tangent frame turned, up
/// to the sign of its axes (the cone is symmetric), or the relative change of a coefficient,
/// whichever is larger (the bisector of two structures turning opposite ways stays put while
/// the cone changes).
pub fn regenerate(model: &Model, start: &[RigidBody], end: &[RigidBody], contacts: &mut [Contact], t_end: f64) -> f64 {
    let body = |p: Participant| match p {
        Participant::Body(i) => Some(i),
        _ => None,
    };
    let mut change: f64 = 0.0;
    for c in contacts.iter_mut() {
        let mut moved = c.contact;
        if let Some(i) = body(moved.a).or(body(moved.b)) {
            let local = start[i].orientation.inverse() * (moved.point - start[i].position);
            moved.point = end[i].position + end[i].orientation * local;
        }
        let law = resolve(model, end, moved, t_end);
        // atan2 rather than acos: the same frame's dot with itself rounds to 1 − 1 ulp, whose
        // acos is 1.5e-8 rad.
        let (new_t, old_t) = (law.contact.frame.column(1), c.contact.frame.column(1));
        let turned = new_t.cross(&old_t).norm().atan2(new_t.dot(&old_t).abs());
        let relative = |a: f64, b: f64| if a == b { 0.0 } else { (a - b).abs() / a.abs().max(b.abs()) };
        change = change.max(turned).max(relative(law.cone.mu_t, c.cone.mu_t)).max(relative(law.cone.mu_b, c.cone.mu_b));
        c.contact.frame = law.contact.frame;
        c.cone = law.cone;
    }
    change
}

/// The mesh colliders posed for the step `[t, t + h]` (`None` for those no rigid body meets).
pub fn posed_meshes(model: &Model, t: f64, h: f64) -> Vec<Option<PosedMesh>> {
    model.mesh_colliders.iter().map(|c| PosedMesh::at(c, t, h)).collect()
}

/// Below this many pair tests the narrow phase runs on one thread: a box stack's 15 pairs take
/// microseconds, less than handing them to the thread pool.
const PARALLEL_TASKS: usize = 64;

/// Pairs `(i, j)`, `i < j`, sorted, of bodies whose balls (center, `reach`) overlap: a sweep along
/// x over the balls' extents, then the ball test, O(n log n) plus the overlaps.
pub fn ball_pairs(bodies: &[RigidBody], reach: &[f64]) -> Vec<(usize, usize)> {
    let mut order: Vec<usize> = (0..bodies.len()).collect();
    let lo = |i: usize| bodies[i].position.x - reach[i];
    order.sort_by(|&a, &b| lo(a).total_cmp(&lo(b)).then(a.cmp(&b)));
    let mut pairs = Vec::new();
    for (k, &i) in order.iter().enumerate() {
        let hi = bodies[i].position.x + reach[i];
        for &j in order[k + 1..].iter().take_while(|&&j| lo(j) <= hi) {
            if (bodies[i].position - bodies[j].position).norm() <= reach[i] + reach[j] {
                pairs.push((i.min(j), i.max(j)));
            }
        }
    }
    pairs.sort_unstable();
    pairs
}

/// The friction law of one contact: the pair's isotropic `mu`, or the matchstick cone and frame
/// when the pair is anisotropic.
fn resolve(model: &Model, bodies: &[RigidBody], mut c: RigidContact, t: f64) -> Contact {
    let (ma, mb) = (material(model, c.a), material(model, c.b));
    let mu = model.friction.get(ma, mb).mu_d;
    let (cohesion, compliance) = (model.friction.cohesion(ma, mb, c.gap), model.friction.compliance(ma, mb));
    let mu_tau = model.friction.drilling(ma, mb);
    let own_velocity = Vector3::zeros();
    let isotropic =
        Contact { contact: c, cone: Cone { mu_t: mu, mu_b: mu }, cohesion, compliance, mu_tau, own_velocity };
    let Some([mu_t, mu_b]) = model.friction.anisotropy(ma, mb) else { return isotropic };
    // Validation guarantees valid coefficients; should it not, the isotropic law is the safe side.
    let Ok(pair) = MatchstickPair::new(mu, mu_t, mu_b) else { return isotropic };
    let point = c.point;
    let law = pair.resolve(
        &c.normal,
        structure(model, bodies, c.a, &point, t).as_ref(),
        structure(model, bodies, c.b, &point, t).as_ref(),
    );
    c.frame = law.frame;
    Contact { contact: c, cone: law.cone, cohesion, compliance, mu_tau, own_velocity }
}
