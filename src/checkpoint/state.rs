//! The [`State`] in a checkpoint: every field a step reads. A rigid body keeps its pose and
//! velocities (shape and mass come back with the model); a rod keeps its reference frames and
//! twists, which are transported from step to step and so depend on the whole history, and its
//! edge angles and their rates.

use crate::energy::rod::{EdgeFrame, RodFrames, TwistState};
use crate::model::{State, StepHistory};
use nalgebra::Vector3;
use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SavedState {
    pub time: f64,
    pub step: u64,
    pub q: Vec<f64>,
    pub v: Vec<f64>,
    pub kappa: f64,
    /// Per rigid body: position, orientation (w, i, j, k), velocity, angular velocity.
    pub rigid: Vec<[f64; 13]>,
    /// Per reduced body: position, orientation (w, i, j, k), velocity, angular velocity, q, q̇.
    pub reduced: Vec<Vec<f64>>,
    /// Per rod: per edge (tangent, director), and the reference twists.
    pub rod_frames: Vec<(Vec<[f64; 6]>, Vec<f64>)>,
    /// Per rod: edge angles and their rates.
    pub rod_twist: Vec<(Vec<f64>, Vec<f64>)>,
    /// BDF2's previous step start: q, v, h.
    pub history: Option<(Vec<f64>, Vec<f64>, f64)>,
}

impl SavedState {
    pub fn of(s: &State) -> SavedState {
        let rigid = s.rigid.iter().map(|b| b.pose_and_velocity()).collect();
        let rod_frames = s
            .rod_frames
            .iter()
            .map(|r| {
                let edges = r
                    .edges
                    .iter()
                    .map(|e| {
                        let (t, d) = (e.tangent, e.director);
                        [t.x, t.y, t.z, d.x, d.y, d.z]
                    })
                    .collect();
                (edges, r.reference_twist.clone())
            })
            .collect();
        SavedState {
            time: s.time,
            step: s.step,
            q: s.q.clone(),
            v: s.v.clone(),
            kappa: s.kappa,
            rigid,
            reduced: s.reduced.iter().map(|r| r.to_flat()).collect(),
            rod_frames,
            rod_twist: s.rod_twist.iter().map(|t| (t.angle.clone(), t.rate.clone())).collect(),
            history: s.history.as_ref().map(|h| (h.q.clone(), h.v.clone(), h.h)),
        }
    }

    /// Lay the saved state over `s`, the scene's initial state (which fixes every size): a
    /// checkpoint of another scene is refused by its sizes.
    pub fn apply(self, s: &mut State) -> Result<(), String> {
        let mismatch = |what: &str, saved: usize, scene: usize| {
            format!("the checkpoint holds {saved} {what} but the scene has {scene}: it is not this scene's checkpoint")
        };
        let sizes = [
            ("position entries", self.q.len(), s.q.len()),
            ("velocity entries", self.v.len(), s.v.len()),
            ("rigid bodies", self.rigid.len(), s.rigid.len()),
            ("reduced bodies", self.reduced.len(), s.reduced.len()),
            ("rods", self.rod_frames.len(), s.rod_frames.len()),
        ];
        if let Some((what, a, b)) = sizes.into_iter().find(|(_, a, b)| a != b) {
            return Err(mismatch(what, a, b));
        }
        for (saved, scene) in self.rod_frames.iter().zip(&s.rod_frames) {
            if saved.0.len() != scene.edges.len() || saved.1.len() != scene.reference_twist.len() {
                return Err(mismatch("rod edges", saved.0.len(), scene.edges.len()));
            }
        }
        if self.rod_twist.len() != s.rod_twist.len() {
            return Err(mismatch("rod twists", self.rod_twist.len(), s.rod_twist.len()));
        }
        for (saved, scene) in self.rod_twist.iter().zip(&s.rod_twist) {
            if saved.0.len() != scene.angle.len() || saved.1.len() != scene.rate.len() {
                return Err(mismatch("rod edge angles", saved.0.len(), scene.angle.len()));
            }
        }
        if let Some((q, v, _)) = &self.history
            && (q.len() != s.q.len() || v.len() != s.v.len())
        {
            return Err(mismatch("history entries", q.len(), s.q.len()));
        }
        let v3 = |a: &[f64]| Vector3::new(a[0], a[1], a[2]);
        for (b, r) in s.rigid.iter_mut().zip(&self.rigid) {
            b.set_pose_and_velocity(r);
        }
        for (b, (saved, scene)) in self.reduced.iter().zip(&mut s.reduced).enumerate() {
            let modes = scene.q.len();
            scene.set_flat(saved).ok_or_else(|| {
                format!(
                    "the checkpoint's reduced body {b} does not have {modes} modes: it is not this scene's checkpoint"
                )
            })?;
        }
        for (f, (edges, twist)) in s.rod_frames.iter_mut().zip(self.rod_frames) {
            *f = RodFrames {
                edges: edges.iter().map(|e| EdgeFrame { tangent: v3(&e[0..3]), director: v3(&e[3..6]) }).collect(),
                reference_twist: twist,
            };
        }
        for (t, (angle, rate)) in s.rod_twist.iter_mut().zip(self.rod_twist) {
            *t = TwistState { angle, rate };
        }
        s.time = self.time;
        s.step = self.step;
        s.q = self.q;
        s.v = self.v;
        s.kappa = self.kappa;
        s.history = self.history.map(|(q, v, h)| StepHistory { q, v, h });
        Ok(())
    }
}
