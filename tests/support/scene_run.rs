//! Scenes given as text, built and stepped: shared by the rigid-body tests.
#![allow(dead_code)]

use fricsim::simulation::Simulation;

/// A simulation of the scene `text` (paths relative to the current folder); panics with the
/// scene error, which is a bug in the test.
pub fn simulation(text: &str) -> Simulation {
    simulation_in(text, std::path::Path::new("."))
}

/// The same with the scene's paths relative to `dir`.
pub fn simulation_in(text: &str, dir: &std::path::Path) -> Simulation {
    simulation_with(text, dir, &[])
}

/// The same with `--set` overrides.
pub fn simulation_with(text: &str, dir: &std::path::Path, overrides: &[String]) -> Simulation {
    let loaded = fricsim::scene::parse_scene_str(text, "test", dir, overrides).unwrap_or_else(|e| panic!("{e}"));
    let (model, state) = fricsim::scene::build::build(&loaded).unwrap_or_else(|e| panic!("{e}"));
    Simulation::new(model, state)
}

/// The repository's scene `scenes/<name>` with `--set` overrides; panics with the scene error.
pub fn scene_file(name: &str, overrides: &[String]) -> Simulation {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("scenes").join(name);
    let loaded = fricsim::scene::load_scene(&path, overrides).unwrap_or_else(|e| panic!("{e}"));
    let (model, state) = fricsim::scene::build::build(&loaded).unwrap_or_else(|e| panic!("{e}"));
    Simulation::new(model, state)
}

/// Steps the simulations together `steps` times, every step required to converge; returns the
/// largest difference between the first two's nodal positions over the run.
pub fn largest_difference(sims: &mut [Simulation], steps: usize) -> f64 {
    let mut worst: f64 = 0.0;
    for _ in 0..steps {
        for s in sims.iter_mut() {
            let st = s.step().expect("finite state");
            assert!(st.converged, "step {} failed: {:?}", s.state.step, st.failure);
        }
        worst = sims[0].state.q.iter().zip(&sims[1].state.q).map(|(a, b)| (a - b).abs()).fold(worst, f64::max);
    }
    worst
}

/// Steps `s` for `seconds` at its time step `h`, every step required to converge.
pub fn run_for(s: &mut Simulation, seconds: f64, h: f64) {
    for _ in 0..(seconds / h).round() as usize {
        let st = s.step().expect("finite state");
        assert!(st.converged, "step {} failed: {:?}", s.state.step, st.failure);
    }
}

/// The mean height (z) of the nodal positions `q` (3 entries per node).
pub fn mean_height(q: &[f64]) -> f64 {
    q.chunks(3).map(|c| c[2]).sum::<f64>() / (q.len() / 3) as f64
}
