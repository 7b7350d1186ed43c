//! The rods' edge angles in the nodal step. Before the positional step: the reference frames are
//! transported to the start positions, and the angles the step's bend–twist stencils see are
//! chosen — under `Quasistatic` twist the twist energy's minimizer for those frames (root held at
//! 0), under `Dynamic` twist the state's angles. After it: each dynamic rod's angles take their
//! own backward-Euler step at the new positions (`energy::rod::dynamic`), its held edges turning
//! with the script that holds them. (Dynamic twist on roots riding a dynamic body is refused when
//! the scene is built, so a script is the only holder.)

use super::super::StepStats;
use crate::energy::rod::{RodFrames, TwistBoundary, TwistReport, TwistState, TwistStep, quasistatic_twist};
use crate::model::{Model, State, node};
use crate::scene::schema::TwistSpec;
use nalgebra::Vector3;
use rayon::prelude::*;

/// A rod under dynamic twist: where it is in the model, its edges' inertia and its held edges
/// with the kinematic set (index in `Model::kinematic`) holding each.
struct DynamicRod {
    bundle: usize,
    piece: usize,
    inertia: Vec<f64>,
    held: Vec<(usize, usize)>,
}

#[derive(Default)]
pub(super) struct RodTwist {
    /// Per rod (bundles in order, rods in order, as `State::rod_twist`): `None` under
    /// quasistatic twist.
    rods: Vec<Option<DynamicRod>>,
}

impl RodTwist {
    /// An edge is held when its root node (edge 0) or both its nodes are scripted.
    pub fn new(model: &Model) -> RodTwist {
        let mut holder: Vec<Option<usize>> = vec![None; model.node_count()];
        for (k, kin) in model.kinematic.iter().enumerate() {
            kin.nodes.iter().for_each(|&i| holder[i] = Some(k));
        }
        let mut rods = Vec::new();
        for (bundle, b) in model.rod_bundles.iter().enumerate() {
            for (piece, p) in b.rods.iter().enumerate() {
                rods.push((b.twist == TwistSpec::Dynamic).then(|| {
                    let held = (0..p.len - 1)
                        .filter_map(|j| {
                            let (a, c) = (holder[p.first + j], holder[p.first + j + 1]);
                            if j == 0 { a } else { a.and(c) }.map(|k| (j, k))
                        })
                        .collect();
                    let inertia = p.rod.stretch.iter().map(|s| b.twist_inertia * s.rest_length).collect();
                    DynamicRod { bundle, piece, inertia, held }
                }));
            }
        }
        RodTwist { rods }
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

    /// After the positional step (`state.q` at the step's end): quasistatic rods keep the angles
    /// the step used; dynamic rods advance theirs.
    pub fn finish_step(
        &self,
        model: &Model,
        state: &mut State,
        theta: Vec<Vec<f64>>,
        t: f64,
        h: f64,
        stats: &mut StepStats,
    ) {
        let State { q, rod_frames, rod_twist, .. } = state;
        let (q, rod_frames) = (&*q, &*rod_frames);
        let failures: Vec<(usize, TwistReport)> = rod_twist
            .par_iter_mut()
            .zip(theta)
            .zip(&self.rods)
            .enumerate()
            .filter_map(|(k, ((twist, th), rod))| match rod {
                None => {
                    twist.angle = th;
                    None
                }
                Some(d) => {
                    let rep = advance(model, d, q, &rod_frames[k], (t, h), twist);
                    (!rep.converged).then_some((k, rep))
                }
            })
            .collect();
        if let Some((k, rep)) = failures.first() {
            stats.converged = false;
            stats.failure.get_or_insert_with(|| {
                format!(
                    "the dynamic twist of rod {k} did not converge ({} Newton iterations, residual {:.2e} of its scale)",
                    rep.iterations, rep.residual_rel
                )
            });
        }
    }
}

/// One dynamic rod's twist step at the positions `q`; a held edge turns at its script's rotation
/// rate about the edge's tangent at the step's end.
fn advance(
    model: &Model,
    d: &DynamicRod,
    q: &[f64],
    frames: &RodFrames,
    (t, h): (f64, f64),
    twist: &mut TwistState,
) -> TwistReport {
    let b = &model.rod_bundles[d.bundle];
    let piece = &b.rods[d.piece];
    let x: Vec<Vector3<f64>> = (piece.first..piece.first + piece.len).map(|i| node(q, i)).collect();
    let held: Vec<(usize, f64)> = d
        .held
        .iter()
        .map(|&(j, k)| (j, model.kinematic[k].motion.step(t, h).angular_velocity().dot(&(x[j + 1] - x[j]).normalize())))
        .collect();
    TwistStep { rod: &piece.rod, frames, x: &x, inertia: &d.inertia, held: &held, h, rayleigh: b.rayleigh }
        .advance(twist)
}
