//! Warm starts across steps: a new contact takes the force of the previous step's contact of the
//! same pair at (nearly) the same place on body A, re-expressed in the new contact frame.

use super::detect::Contact;
use crate::contact::rigid::Participant;
use crate::rigid::RigidBody;
use nalgebra::Vector3;
use std::collections::HashMap;

/// A participant as (kind, index): bodies and colliders are numbered separately.
type Id = (u8, usize);
type PairKey = (Id, Id);
/// A contact point in A's body frame and its force (world).
type PointForce = (Vector3<f64>, Vector3<f64>);

fn key(c: &Contact) -> PairKey {
    let id = |p: Participant| match p {
        Participant::Body(i) => (0, i),
        Participant::Collider(k) => (1, k),
        Participant::Mesh(k) => (2, k),
    };
    (id(c.contact.a), id(c.contact.b))
}

/// Last step's contact forces (world vectors) by pair, at body-frame points of A.
#[derive(Default)]
pub struct WarmStart {
    previous: HashMap<PairKey, Vec<PointForce>>,
}

/// The stored forces by pair, sorted, with points and forces as arrays (for a checkpoint).
pub type Saved = Vec<(PairKey, Vec<([f64; 3], [f64; 3])>)>;

impl WarmStart {
    pub fn saved(&self) -> Saved {
        let arrays = |v: &Vec<PointForce>| v.iter().map(|(p, f)| ((*p).into(), (*f).into())).collect();
        crate::checkpoint::sorted(&self.previous).iter().map(|(k, v)| (*k, arrays(v))).collect()
    }

    pub fn restored(saved: Saved) -> WarmStart {
        let vectors = |v: Vec<([f64; 3], [f64; 3])>| v.into_iter().map(|(p, f)| (p.into(), f.into())).collect();
        WarmStart { previous: saved.into_iter().map(|(k, v)| (k, vectors(v))).collect() }
    }

    /// Remember the solved forces `r` (contact frames) of `contacts`.
    pub fn store(&mut self, contacts: &[Contact], r: &[f64], bodies: &[RigidBody]) {
        self.previous.clear();
        for (i, c) in contacts.iter().enumerate() {
            let Participant::Body(a) = c.contact.a else { continue };
            let local = bodies[a].orientation.inverse() * (c.contact.point - bodies[a].position);
            let world = c.contact.frame * Vector3::new(r[3 * i], r[3 * i + 1], r[3 * i + 2]);
            self.previous.entry(key(c)).or_default().push((local, world));
        }
    }

    /// Initial forces for `contacts`: the nearest previous contact of the same pair within
    /// `radius` of the same body point, projected on the new frame (zero if it would pull).
    /// Returns how many contacts were matched.
    pub fn fill(&self, contacts: &[Contact], bodies: &[RigidBody], radius: f64, r: &mut [f64]) -> usize {
        let mut matched = 0;
        for (i, c) in contacts.iter().enumerate() {
            r[3 * i..3 * i + 3].fill(0.0);
            let Participant::Body(a) = c.contact.a else { continue };
            let Some(list) = self.previous.get(&key(c)) else { continue };
            let local = bodies[a].orientation.inverse() * (c.contact.point - bodies[a].position);
            let best = list
                .iter()
                .map(|(p, f)| ((p - local).norm(), f))
                .filter(|(d, _)| *d <= radius)
                .min_by(|x, y| x.0.total_cmp(&y.0));
            if let Some((_, f)) = best {
                let rf = c.contact.frame.transpose() * f;
                if rf.x > 0.0 {
                    r[3 * i..3 * i + 3].copy_from_slice(rf.as_slice());
                    matched += 1;
                }
            }
        }
        matched
    }

    pub fn clear(&mut self) {
        self.previous.clear();
    }
}
