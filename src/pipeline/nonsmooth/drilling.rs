//! Rigid contacts with drilling torque (003 §2.7): the step's contact problem gains a fourth row
//! per contact, the spin of A relative to B about the normal, whose impulse is a torque about
//! it; the problem ([`crate::dfcp::drilling`]) is solved by PROX and applied as forces and
//! torques. Used for a step when any of its contacts has `mu_tau > 0`. Jointed bodies enter as
//! in the three-row problem: their Delassus blocks through the joints' projection.

use super::assemble::{self, ContactJacobian, Sides, apply_generalized_impulses, participant_spin, rows_gram};
use super::detect::Contact;
use super::joints::JointSystem;
use crate::dfcp::drilling::{DrillingProblem, prox};
use crate::dfcp::solver::{SolveReport, SolverOptions};
use crate::model::Model;
use crate::rigid::RigidBody;
use crate::scene::schema::NonsmoothSpec;
use nalgebra::SMatrix;

/// A contact's 4 rows over one body's 6 velocity entries.
type Block4 = SMatrix<f64, 4, 6>;

/// Whether a step with these contacts needs the drilling problem.
pub fn any(contacts: &[Contact]) -> bool {
    contacts.iter().any(|c| c.mu_tau > 0.0)
}

/// Per contact, `(body, block)` of each dynamic participant: `jac`'s three rows and the spin
/// about the normal, `±nᵀ` on the angular entries (A's positive, as the relative velocity).
fn jacobian(jac: &ContactJacobian, contacts: &[Contact]) -> Vec<Sides<4>> {
    jac.rows
        .iter()
        .zip(contacts)
        .map(|(row, c)| {
            let n = c.contact.frame.column(0).transpose();
            std::array::from_fn(|k| {
                row[k].map(|(i, b3)| {
                    let mut b = Block4::zeros();
                    b.fixed_rows_mut::<3>(0).copy_from(&b3);
                    b.fixed_view_mut::<1, 3>(3, 3).copy_from(&(n * if k == 0 { 1.0 } else { -1.0 }));
                    (i, b)
                })
            })
        })
        .collect()
}

/// The step's problem at the (joint-projected) predicted velocities `bodies` hold (the terms
/// of [`assemble::local_problem`] and the relative spins). The Delassus blocks of bodies in a
/// jointed component are `J P Jᵀ` ([`JointSystem::add_delassus_rows`]), as in the three-row
/// problem; the joints' final projection then applies the rest of `P Jᵀ r`.
#[allow(clippy::too_many_arguments)]
fn problem(
    model: &Model,
    bodies: &[RigidBody],
    contacts: &[Contact],
    rows: &[Sides<4>],
    inverse_mass: &[assemble::Minv],
    joints: &JointSystem,
    (approach, step): (&[f64], (f64, f64)),
    spec: &NonsmoothSpec,
) -> Result<DrillingProblem, String> {
    let mut w = rows_gram(rows, bodies.len(), inverse_mass, |i| joints.joins(i));
    joints.add_delassus_rows(rows, bodies, &mut w);
    let q3 = assemble::free_velocity(model, bodies, contacts, approach, step, spec);
    let (t, h) = step;
    let q = contacts
        .iter()
        .enumerate()
        .flat_map(|(c, k)| {
            let n = k.contact.frame.column(0);
            let spin =
                participant_spin(model, bodies, k.contact.a, t, h) - participant_spin(model, bodies, k.contact.b, t, h);
            [q3[3 * c], q3[3 * c + 1], q3[3 * c + 2], spin.dot(&n)]
        })
        .collect();
    let cones = contacts.iter().map(|c| c.cone).collect();
    let mu_tau = contacts.iter().map(|c| c.mu_tau).collect();
    DrillingProblem::new(&w, q, cones, mu_tau).map_err(|e| format!("the contact problem is not finite: {e}"))
}

/// Solve the step's contacts with drilling torque and apply the impulses to `bodies`. `r` (three
/// per contact) holds the warm start of the forces on entry; on return `r` and `u` hold the
/// forces and velocities of the three force rows, the torques being applied only.
#[allow(clippy::too_many_arguments)]
pub fn solve(
    model: &Model,
    bodies: &mut [RigidBody],
    contacts: &[Contact],
    jac: &ContactJacobian,
    approach: &[f64],
    step: (f64, f64),
    spec: &NonsmoothSpec,
    joints: &JointSystem,
    (r, u): (&mut [f64], &mut [f64]),
    opts: &SolverOptions,
) -> Result<SolveReport, String> {
    let rows = jacobian(jac, contacts);
    let p = problem(model, bodies, contacts, &rows, &jac.inverse_mass, joints, (approach, step), spec)?;
    let nc = contacts.len();
    let mut r4: Vec<f64> = (0..4 * nc).map(|k| if k % 4 == 3 { 0.0 } else { r[3 * (k / 4) + k % 4] }).collect();
    let mut u4 = vec![0.0; 4 * nc];
    let report = prox::solve(&p, &mut r4, &mut u4, opts);
    for c in 0..nc {
        r[3 * c..3 * c + 3].copy_from_slice(&r4[4 * c..4 * c + 3]);
        u[3 * c..3 * c + 3].copy_from_slice(&u4[4 * c..4 * c + 3]);
    }
    let blocks = rows.iter().enumerate().flat_map(|(c, row)| row.iter().flatten().map(move |(i, b)| (c, *i, b)));
    apply_generalized_impulses(blocks, &r4, &jac.inverse_mass, bodies);
    Ok(report)
}
