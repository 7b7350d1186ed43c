//! Scenes given as text, built and stepped: shared by the rigid-body tests.
#![allow(dead_code)]

use fricsim::simulation::Simulation;

/// A simulation of the scene `text` (paths relative to the current folder); panics with the
/// scene error, which is a bug in the test.
pub fn simulation(text: &str) -> Simulation {
    let loaded =
        fricsim::scene::parse_scene_str(text, "test", std::path::Path::new("."), &[]).unwrap_or_else(|e| panic!("{e}"));
    let (model, state) = fricsim::scene::build::build(&loaded).unwrap_or_else(|e| panic!("{e}"));
    Simulation::new(model, state)
}

/// Steps `s` for `seconds` at its time step `h`, every step required to converge.
pub fn run_for(s: &mut Simulation, seconds: f64, h: f64) {
    for _ in 0..(seconds / h).round() as usize {
        let st = s.step().expect("finite state");
        assert!(st.converged, "step {} failed: {:?}", s.state.step, st.failure);
    }
}
