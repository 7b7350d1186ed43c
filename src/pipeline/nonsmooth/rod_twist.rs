//! The rods' edge angles in the nodal step. Before the positional step: the reference frames are
//! transported to the start positions, and the angles the step's bend–twist stencils see are
//! chosen — under `Quasistatic` twist the twist energy's minimizer for those frames (root held at
//! 0), under `Dynamic` twist the state's angles. After it: each dynamic rod's angles take their
//! own backward-Euler step at the new positions (`energy::rod::dynamic`), its held edges turning
//! with what holds them.

use super::super::StepStats;
use crate::energy::rod::{TwistBoundary, TwistStep, quasistatic_twist};
use crate::model::{Model, State, node};
use crate::scene::schema::TwistSpec;
use nalgebra::Vector3;
use rayon::prelude::*;

/// What holds an edge's angle.
#[derive(Clone, Copy, Debug)]
enum Holder {
    /// A kinematic node set (index in `Model::kinematic`).
    Script(usize),
    /// A dynamic rigid body the rod's root rides on (index in `Model::rigids`).
    Body(usize),
}

/// Per rod (bundles in order, rods in order): its bundle and rod index, its edges' inertia and
/// its held edges.
struct DynamicRod {
    bundle: usize,
    piece: usize,
    /// Index among all rods (of `State::rod_frames`, `State::rod_twist`).
    rod: usize,
    inertia: Vec<f64>,
    held: Vec<(usize, Holder)>,
}

#[derive(Default)]
pub(super) struct RodTwist {
    dynamic: Vec<DynamicRod>,
    /// Per rod: whether its twist is dynamic.
    is_dynamic: Vec<bool>,
}

impl RodTwist {
    /// An edge is held when its root node (edge 0) or both its nodes are held: scripted, or a
    /// root riding on a dynamic body.
    pub fn new(model: &Model) -> RodTwist {
        let mut holder: Vec<Option<Holder>> = vec![None; model.node_count()];
        for (k, kin) in model.kinematic.iter().enumerate() {
            kin.nodes.iter().for_each(|&i| holder[i] = Some(Holder::Script(k)));
        }
        for b in &model.rod_bundles {
            if let Some(att) = &b.attached {
                for p in &b.rods {
                    holder[p.first].get_or_insert(Holder::Body(att.body));
                }
            }
        }
        let (mut dynamic, mut is_dynamic) = (Vec::new(), Vec::new());
        let mut rod = 0;
        for (bundle, b) in model.rod_bundles.iter().enumerate() {
            for (piece, p) in b.rods.iter().enumerate() {
                if b.twist == TwistSpec::Dynamic {
                    let edges = p.len - 1;
                    let held = (0..edges)
                        .filter_map(|j| {
                            let (a, c) = (holder[p.first + j], holder[p.first + j + 1]);
                            if j == 0 { a } else { a.and(c) }.map(|h| (j, h))
                        })
                        .collect();
                    let inertia = p.rod.stretch.iter().map(|s| b.twist_inertia * s.rest_length).collect();
                    dynamic.push(DynamicRod { bundle, piece, rod, inertia, held });
                }
                is_dynamic.push(b.twist == TwistSpec::Dynamic);
                rod += 1;
            }
        }
        RodTwist { dynamic, is_dynamic }
    }

    /// Transport every rod's frames to the start positions `x0` and return the edge angles the
    /// positional step uses, per rod.
    pub fn begin_step(&self, model: &Model, state: &mut State, x0: &[f64]) -> Vec<Vec<f64>> {
        let mut theta = Vec::with_capacity(state.rod_frames.len());
        let mut k = 0;
        for b in &model.rod_bundles {
            for piece in &b.rods {
                let xs: Vec<Vector3<f64>> = (piece.first..piece.first + piece.len).map(|i| node(x0, i)).collect();
                state.rod_frames[k].update(&xs);
                theta.push(match b.twist {
                    TwistSpec::Quasistatic => {
                        quasistatic_twist(&piece.rod, &state.rod_frames[k], TwistBoundary::FreeTip { root_angle: 0.0 })
                            .0
                    }
                    TwistSpec::Dynamic => state.rod_twist[k].angle.clone(),
                });
                k += 1;
            }
        }
        theta
    }

    /// After the positional step (`state.q` at the step's end, the rigid bodies at their new
    /// velocities): quasistatic rods keep the angles the step used; dynamic rods advance theirs.
    pub fn finish_step(
        &self,
        model: &Model,
        state: &mut State,
        theta: Vec<Vec<f64>>,
        t: f64,
        h: f64,
        stats: &mut StepStats,
    ) {
        for ((k, th), &dynamic) in theta.into_iter().enumerate().zip(&self.is_dynamic) {
            if !dynamic {
                state.rod_twist[k].angle = th;
            }
        }
        let rates = self.held_rates(model, state, t, h);
        let (q, frames) = (&state.q, &state.rod_frames);
        let mut twists: Vec<_> = self.dynamic.iter().map(|d| std::mem::take(&mut state.rod_twist[d.rod])).collect();
        let reports: Vec<_> = self
            .dynamic
            .par_iter()
            .zip(&rates)
            .zip(twists.par_iter_mut())
            .map(|((d, held), twist)| {
                let b = &model.rod_bundles[d.bundle];
                let piece = &b.rods[d.piece];
                let x: Vec<Vector3<f64>> = (piece.first..piece.first + piece.len).map(|i| node(q, i)).collect();
                TwistStep {
                    rod: &piece.rod,
                    frames: &frames[d.rod],
                    x: &x,
                    inertia: &d.inertia,
                    held,
                    h,
                    rayleigh: b.rayleigh,
                }
                .advance(twist)
            })
            .collect();
        for ((d, twist), rep) in self.dynamic.iter().zip(twists).zip(reports) {
            state.rod_twist[d.rod] = twist;
            if !rep.converged {
                stats.converged = false;
                stats.failure.get_or_insert_with(|| {
                    format!(
                        "the dynamic twist of rod {} did not converge ({} Newton iterations, residual {:.2e} of its scale)",
                        d.rod, rep.iterations, rep.residual_rel
                    )
                });
            }
        }
    }

    /// Per dynamic rod: its held edges' rates over the step, the rotation rate of what holds
    /// them about the edge's tangent at the step's end.
    fn held_rates(&self, model: &Model, state: &State, t: f64, h: f64) -> Vec<Vec<(usize, f64)>> {
        self.dynamic
            .iter()
            .map(|d| {
                let piece = &model.rod_bundles[d.bundle].rods[d.piece];
                d.held
                    .iter()
                    .map(|&(j, holder)| {
                        let (a, b) = (node(&state.q, piece.first + j), node(&state.q, piece.first + j + 1));
                        let tangent = (b - a).normalize();
                        let omega = match holder {
                            Holder::Script(k) => model.kinematic[k].motion.step(t, h).angular_velocity(),
                            Holder::Body(body) => state.rigid[body].angular_velocity,
                        };
                        (j, omega.dot(&tangent))
                    })
                    .collect()
            })
            .collect()
    }
}
