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
fn settle(model: &Model, state: &mut State) {
    let frozen = model.frozen();
    let v0 = state.v.clone();
    let rigid_v0: Vec<_> = state.rigid.iter().map(|b| b.velocity()).collect();
    let zero = |state: &mut State| {
        state.v.iter_mut().for_each(|v| *v = 0.0);
        state.rigid.iter_mut().for_each(|b| b.set_velocity(&nalgebra::SVector::zeros()));
    };
    let mut relax = pipeline::build(&frozen, state);
    zero(state);
    for _ in 0..model.settle_steps {
        if relax.step(&frozen, state).is_err() {
            break;
        }
        zero(state);
    }
    state.time = 0.0;
    state.step = 0;
    // The relaxation's velocities were zeroed after every step: no multistep history survives.
    state.history = None;
    state.v = v0;
    for (b, v) in state.rigid.iter_mut().zip(&rigid_v0) {
        b.set_velocity(v);
    }
}
