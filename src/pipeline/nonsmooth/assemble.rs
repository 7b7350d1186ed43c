//! The contact problem of a rigid-body step in local (Delassus) form: `u = W r + q` with
//! `W = J M⁻¹ Jᵀ` and `q = J v_pred + k`, and the impulse update `v = v_pred + M⁻¹ Jᵀ r`.
//!
//! `J` maps the dynamic bodies' velocities to each contact's relative velocity of A with respect
//! to B in the contact frame (normal first). Kinematic bodies and colliders are not unknowns:
//! their velocity enters `q`. The bias `k` acts on the normal component only: a positive gap may
//! close within the step (`gap / h`, so contacts found within the margin cost nothing until they
//! close), an impact reached within the step separates at `e` times its approach speed (002's
//! optional restitution), and a velocity removes a fraction of any penetration deeper than the
//! allowed slop.

use super::detect::Contact;
use crate::contact::rigid::Participant;
use crate::dfcp::problem::{Csc, LocalProblem};
use crate::model::Model;
use crate::rigid::RigidBody;
use crate::scene::schema::{NonsmoothSpec, RigidIntegratorSpec};
use nalgebra::{Matrix3, SMatrix, SVector, Vector3};
use std::collections::BTreeMap;

/// A contact's 3 rows over one body's 6 velocity entries.
pub type Block = SMatrix<f64, 3, 6>;

/// A contact's `D` rows on each side: the body and its `D × 6` block (`None` for a collider).
pub type Sides<const D: usize> = [Option<(usize, SMatrix<f64, D, 6>)>; 2];
/// A body's inverse generalized mass `diag(1/m, (R I Rᵀ)⁻¹)` (zero for non-dynamic bodies).
pub type Minv = SMatrix<f64, 6, 6>;

/// The Jacobian rows of the step's contacts, grouped per dynamic body.
pub struct ContactJacobian {
    /// Per contact: `(body, block)` for each dynamic participant (at most two).
    pub rows: Vec<Sides<3>>,
    /// Per body: inverse generalized mass.
    pub inverse_mass: Vec<Minv>,
}

fn inverse_mass(b: &RigidBody) -> Minv {
    let mut m = Minv::zeros();
    m.fixed_view_mut::<3, 3>(0, 0).copy_from(&(Matrix3::identity() / b.mass));
    m.fixed_view_mut::<3, 3>(3, 3).copy_from(&b.world_inverse_inertia());
    m
}

/// Every body's inverse generalized mass at its current orientation (zero for scripted bodies:
/// impulses do not move them).
pub fn inverse_masses(model: &Model, bodies: &[RigidBody]) -> Vec<Minv> {
    bodies
        .iter()
        .zip(&model.rigids)
        .map(|(b, r)| if r.is_dynamic() { inverse_mass(b) } else { Minv::zeros() })
        .collect()
}

/// World velocity of participant `p` at world point `x` at time `t`. A scripted participant that
/// turns gives its point's mean velocity over the step `[t, t + h]` (which lands the point on
/// its path), the others their instantaneous point velocity.
pub(super) fn participant_velocity(
    model: &Model,
    bodies: &[RigidBody],
    p: Participant,
    x: &Vector3<f64>,
    t: f64,
    h: f64,
) -> Vector3<f64> {
    match p {
        Participant::Body(i) => match &model.rigids[i].motion {
            Some(m) if m.rotates() => m.step(t, h).field_at_start().at(x),
            _ => bodies[i].point_velocity(x),
        },
        Participant::Collider(k) => model.colliders[k].motion.step(t, h).field_at_start().at(x),
        Participant::Mesh(k) => model.mesh_colliders[k].motion.step(t, h).field_at_start().at(x),
    }
}

/// Angular velocity of participant `p` at time `t` (a turning scripted participant's mean
/// rotation rate over the step `[t, t + h]`, as [`participant_velocity`] takes its points').
pub(super) fn participant_spin(model: &Model, bodies: &[RigidBody], p: Participant, t: f64, h: f64) -> Vector3<f64> {
    match p {
        Participant::Body(i) => match &model.rigids[i].motion {
            Some(m) if m.rotates() => m.step(t, h).field_at_start().rotation_rate(),
            _ => bodies[i].angular_velocity,
        },
        Participant::Collider(k) => model.colliders[k].motion.step(t, h).field_at_start().rotation_rate(),
        Participant::Mesh(k) => model.mesh_colliders[k].motion.step(t, h).field_at_start().rotation_rate(),
    }
}

impl ContactJacobian {
    pub fn new(model: &Model, bodies: &[RigidBody], contacts: &[Contact], inverse_mass: Vec<Minv>) -> ContactJacobian {
        let rows = contacts
            .iter()
            .map(|c| {
                let ft = c.contact.frame.transpose();
                let block = |p: Participant, sign: f64| match p {
                    Participant::Body(i) if model.rigids[i].is_dynamic() => {
                        Some((i, ft * bodies[i].point_jacobian(&c.contact.point) * sign))
                    }
                    _ => None,
                };
                [block(c.contact.a, 1.0), block(c.contact.b, -1.0)]
            })
            .collect();
        ContactJacobian { rows, inverse_mass }
    }

    /// The nonzero 3x3 blocks `(c, d)` of `J M⁻¹ Jᵀ` over the bodies not `skip`ped (bodies
    /// linked by joints, whose part the joints give).
    pub fn delassus_blocks(
        &self,
        n_bodies: usize,
        skip: impl Fn(usize) -> bool,
    ) -> BTreeMap<(usize, usize), Matrix3<f64>> {
        rows_gram(&self.rows, n_bodies, &self.inverse_mass, skip)
    }

    /// Only the diagonal blocks `(c, c)` of `J M⁻¹ Jᵀ`: all that a solver working through the
    /// factor [`Self::factor`] reads of `W` (each contact's scale, and the islands' blocks).
    pub fn delassus_diagonal(&self) -> BTreeMap<(usize, usize), Matrix3<f64>> {
        let block = |(i, b): &(usize, Block)| b * self.inverse_mass[*i] * b.transpose();
        self.rows.iter().enumerate().map(|(c, row)| ((c, c), row.iter().flatten().map(block).sum())).collect()
    }

    /// `G = J L` with `L Lᵀ = M⁻¹` per body (Cholesky), so that `W = G Gᵀ`: 6 columns for each
    /// body that takes part in a contact, in body order. `None` if a body's inverse mass is not
    /// positive definite (it is for every dynamic rigid body).
    pub fn factor(&self, n_bodies: usize) -> Option<Csc> {
        let mut col = vec![usize::MAX; n_bodies];
        let mut chol: Vec<Option<Minv>> = vec![None; n_bodies];
        let mut m = 0;
        for (i, _) in self.rows.iter().flat_map(|r| r.iter().flatten()) {
            if col[*i] == usize::MAX {
                col[*i] = m;
                m += 6;
                chol[*i] = Some(self.inverse_mass[*i].cholesky()?.l());
            }
        }
        let mut t = Vec::with_capacity(36 * 2 * self.rows.len());
        for (c, row) in self.rows.iter().enumerate() {
            for (i, blk) in row.iter().flatten() {
                let g = blk * chol[*i].as_ref().expect("set above");
                for a in 0..3 {
                    for b in 0..6 {
                        t.push(faer::sparse::Triplet::new(3 * c + a, col[*i] + b, g[(a, b)]));
                    }
                }
            }
        }
        Some(Csc::try_new_from_triplets(3 * self.rows.len(), m, &t).expect("indices within the factor"))
    }

    /// `v += M⁻¹ Jᵀ r` for every dynamic body.
    pub fn apply_impulses(&self, r: &[f64], bodies: &mut [RigidBody]) {
        let rows = self.rows.iter().enumerate().flat_map(|(c, row)| row.iter().flatten().map(move |(i, b)| (c, *i, b)));
        apply_generalized_impulses(rows, r, &self.inverse_mass, bodies);
    }
}

/// The nonzero `D x D` blocks `(c, d)` of `J M⁻¹ Jᵀ` from each body's list of its contacts'
/// `D`-row Jacobian blocks.
pub fn gram_blocks<const D: usize>(
    per_body: &[Vec<(usize, SMatrix<f64, D, 6>)>],
    inverse_mass: &[Minv],
) -> BTreeMap<(usize, usize), SMatrix<f64, D, D>> {
    let mut blocks = BTreeMap::new();
    for (list, minv) in per_body.iter().zip(inverse_mass) {
        for (c, bc) in list {
            let bm = bc * minv;
            for (d, bd) in list {
                *blocks.entry((*c, *d)).or_insert_with(SMatrix::zeros) += bm * bd.transpose();
            }
        }
    }
    blocks
}

/// The blocks `J M⁻¹ Jᵀ` of contacts of `D` rows each over the bodies not `skip`ped (those of
/// a jointed component take theirs through the joints' projection instead).
pub fn rows_gram<const D: usize>(
    rows: &[Sides<D>],
    n_bodies: usize,
    inverse_mass: &[Minv],
    skip: impl Fn(usize) -> bool,
) -> BTreeMap<(usize, usize), SMatrix<f64, D, D>> {
    let mut per_body = vec![Vec::new(); n_bodies];
    for (c, row) in rows.iter().enumerate() {
        for (i, blk) in row.iter().flatten().filter(|(i, _)| !skip(*i)) {
            per_body[*i].push((c, *blk));
        }
    }
    gram_blocks(&per_body, inverse_mass)
}

/// `v += M⁻¹ Jᵀ r` over the dynamic bodies, from the `D`-row Jacobian blocks `(c, body, block)`
/// of contact `c` (`r` holds `D` entries per contact).
pub fn apply_generalized_impulses<'a, const D: usize>(
    rows: impl Iterator<Item = (usize, usize, &'a SMatrix<f64, D, 6>)>,
    r: &[f64],
    inverse_mass: &[Minv],
    bodies: &mut [RigidBody],
) {
    let mut generalized: Vec<SVector<f64, 6>> = vec![SVector::zeros(); bodies.len()];
    for (c, i, blk) in rows {
        generalized[i] += blk.transpose() * SVector::<f64, D>::from_column_slice(&r[D * c..D * c + D]);
    }
    for (i, b) in bodies.iter_mut().enumerate() {
        if generalized[i] != SVector::<f64, 6>::zeros() {
            let v = b.velocity() + inverse_mass[i] * generalized[i];
            b.set_velocity(&v);
        }
    }
}

/// A sparse symmetric matrix of `nc` x `nc` blocks from its nonzero blocks.
pub fn blocks_to_csc(nc: usize, blocks: &BTreeMap<(usize, usize), Matrix3<f64>>) -> Csc {
    let n = 3 * nc;
    let mut triplets = Vec::with_capacity(9 * blocks.len());
    for ((c, d), w) in blocks {
        for i in 0..3 {
            for j in 0..3 {
                triplets.push(faer::sparse::Triplet::new(3 * c + i, 3 * d + j, w[(i, j)]));
            }
        }
    }
    Csc::try_new_from_triplets(n, n, &triplets).expect("block indices are within the contact count")
}

/// Relative velocity of A with respect to B at a contact, in its frame (normal first).
pub fn relative_velocity(model: &Model, bodies: &[RigidBody], c: &Contact, t: f64, h: f64) -> Vector3<f64> {
    let x = &c.contact.point;
    let v = participant_velocity(model, bodies, c.contact.a, x, t, h)
        - participant_velocity(model, bodies, c.contact.b, x, t, h)
        - c.own_velocity;
    c.contact.frame.transpose() * v
}

/// The local problem `u = W r + q` of the step, with the Delassus operator `w` given.
/// `bodies` hold the predicted velocities;
/// `approach` is each contact's normal velocity at the start of the step (for restitution);
/// the step runs from `t` over `h`.
pub fn local_problem(
    model: &Model,
    bodies: &[RigidBody],
    contacts: &[Contact],
    w: Csc,
    approach: &[f64],
    step: (f64, f64),
    spec: &NonsmoothSpec,
) -> Result<LocalProblem, String> {
    let q = free_velocity(model, bodies, contacts, approach, step, spec);
    let cones = contacts.iter().map(|c| c.cone).collect();
    // Sizes come from the same contacts; what can fail is a non-finite value.
    LocalProblem::new(w, q, cones).map_err(|e| format!("the contact problem is not finite: {e}"))
}

/// The contacts' velocities `q = J v_pred + k` (three per contact) of [`local_problem`].
pub fn free_velocity(
    model: &Model,
    bodies: &[RigidBody],
    contacts: &[Contact],
    approach: &[f64],
    (t, h): (f64, f64),
    spec: &NonsmoothSpec,
) -> Vec<f64> {
    let mut q = Vec::with_capacity(3 * contacts.len());
    for (c, u0) in contacts.iter().zip(approach) {
        let u = relative_velocity(model, bodies, c, t, h);
        let gap = c.contact.gap;
        // An impact within this step (fast enough to bounce): the separation speed must reach
        // `e` times the approach speed. It is applied from the gap it is detected at (at most
        // one step's travel), so the bounce starts that far early rather than being lost.
        let bias = if c.compliance > 0.0 {
            // A compliant contact closes its whole gap, penetration included: with its slack
            // that is the spring `force = penetration / compliance` (`dfcp::compliance`).
            gap / h
        } else if spec.integrator == RigidIntegratorSpec::Variational {
            // 002 §4.5: the normal row is Nᵀ(v⁺ + v) >= 0 at every contact of the step start.
            *u0
        } else {
            let impact = *u0 < -spec.restitution_threshold && gap + h * u0 < 0.0;
            let bias = if impact { spec.restitution * u0 } else { gap.max(0.0) / h };
            bias - spec.penetration_correction * (-gap - spec.allowed_penetration).max(0.0) / h
        };
        q.extend([u.x + bias, u.y, u.z]);
    }
    q
}
