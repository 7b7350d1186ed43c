//! A scene loaded into a model, its state and its pipeline: the programmatic way to step a scene
//! (used by the CLI, tests, benches and future batch studies).

use crate::model::{Model, State};
use crate::pipeline::{self, Pipeline, StepError, StepStats};
use crate::scene::{self, SceneError};
use std::path::Path;

pub struct Simulation {
    pub model: Model,
    pub state: State,
    pub pipeline: Box<dyn Pipeline>,
}

impl Simulation {
    /// Load, override, validate and build a scene file.
    pub fn from_file(path: &Path, overrides: &[String]) -> Result<Simulation, SceneError> {
        let loaded = scene::load_scene(path, overrides)?;
        let (model, state) = scene::build::build(&loaded)?;
        Ok(Simulation::new(model, state))
    }

    /// Build the pipeline and, if the scene asks for it, settle the bodies first.
    pub fn new(model: Model, mut state: State) -> Simulation {
        if model.settle_steps > 0 {
            settle(&model, &mut state);
        }
        let pipeline = pipeline::build(&model, &state);
        Simulation { model, state, pipeline }
    }

    pub fn step(&mut self) -> Result<StepStats, StepError> {
        self.pipeline.step(&self.model, &mut self.state)
    }
}

/// Dynamic relaxation: step with scripted motions frozen and velocities zeroed after each step,
/// then restore time, step counter and the initial velocities. Positions and the adapted penalty
/// stiffness are kept: the bodies start pre-stressed, at rest in their contact layer.
///
/// In motion (`settle_in_motion`), each step starts from the initial velocities instead, and
/// its displacement `h v₀` (a rigid body's translation and turn) is undone after it: what the
/// step leaves is the relaxation of the bodies' deformation under the forces of that motion.
/// The penalty pipeline then relaxes with backward Euler whatever the scene's integrator.
fn settle(model: &Model, state: &mut State) {
    let mut frozen = model.frozen();
    if let (true, crate::scene::schema::PipelineSpec::Penalty(p)) = (model.settle_in_motion, &mut frozen.pipeline) {
        // Relaxing at a velocity needs a scheme that damps what the step excites; the trapezoid
        // only carries it over to the next step.
        p.integrator = crate::scene::schema::IntegratorSpec::BackwardEuler;
    }
    let v0 = state.v.clone();
    let rigid_v0: Vec<_> = state.rigid.iter().map(|b| b.velocity()).collect();
    // A reduced body's velocities live in its state (frame and modal rates), not in `v`.
    let reduced_v0: Vec<_> =
        state.reduced.iter().map(|r| (r.linear_velocity, r.angular_velocity, r.qdot.clone())).collect();
    let moving = model.settle_in_motion;
    let restart = |state: &mut State| {
        if moving {
            state.v.copy_from_slice(&v0);
            state.rigid.iter_mut().zip(&rigid_v0).for_each(|(b, v)| b.set_velocity(v));
        } else {
            state.v.iter_mut().for_each(|v| *v = 0.0);
            state.rigid.iter_mut().for_each(|b| b.set_velocity(&nalgebra::SVector::zeros()));
            for r in state.reduced.iter_mut() {
                r.linear_velocity = nalgebra::Vector3::zeros();
                r.angular_velocity = nalgebra::Vector3::zeros();
                r.qdot.fill(0.0);
            }
        }
    };
    let mut relax = pipeline::build(&frozen, state);
    restart(state);
    for _ in 0..model.settle_steps {
        if relax.step(&frozen, state).is_err() {
            break;
        }
        if moving {
            let h = model.dt;
            for (i, _) in model.node_is_kinematic.iter().enumerate().filter(|(_, k)| !**k) {
                (0..3).for_each(|k| state.q[3 * i + k] -= h * v0[3 * i + k]);
            }
            for (b, v) in state.rigid.iter_mut().zip(&rigid_v0) {
                b.set_velocity(&-v);
                b.integrate_position(h);
            }
        }
        restart(state);
    }
    state.time = 0.0;
    state.step = 0;
    // The relaxation's velocities were zeroed after every step: no multistep history survives.
    state.history = None;
    state.v = v0;
    for (b, v) in state.rigid.iter_mut().zip(&rigid_v0) {
        b.set_velocity(v);
    }
    for (r, (linear, angular, qdot)) in state.reduced.iter_mut().zip(reduced_v0) {
        (r.linear_velocity, r.angular_velocity, r.qdot) = (linear, angular, qdot);
    }
}
