//! Contact between two deformable solids: a block dropped onto another block resting on the floor
//! must come to rest on top of it without interpenetration.

use fricsim::simulation::Simulation;
use std::path::Path;

#[test]
fn dropped_block_comes_to_rest_on_the_lower_block() {
    let scene = Path::new(env!("CARGO_MANIFEST_DIR")).join("scenes/stack.ron");
    let mut sim = Simulation::from_file(&scene, &["duration=0.6".into()]).expect("scene loads");
    let delta = 1e-3;
    let steps = (0.6 / sim.model.dt).round() as usize;
    let (upper, lower) = (1, 0);
    let mut last = None;
    for _ in 0..steps {
        let st = sim.step().expect("finite");
        assert!(st.converged, "step {} failed: {:?}", sim.state.step, st.failure);
        // Adaptive stiffening repeats any step that ends with a negative gap: no contact may end
        // a step interpenetrated.
        assert!(st.min_gap >= 0.0, "step {}: gap {}", sim.state.step, st.min_gap);
        last = Some(st);
    }
    let st = last.expect("steps ran");
    let (xu, vu) = sim.state.centroid(&sim.model, &sim.model.solids[upper]);
    let (xl, _) = sim.state.centroid(&sim.model, &sim.model.solids[lower]);
    // The upper cube (0.1 m) rests on the lower block (0.1 m high): centroid 0.1 m above the lower
    // block's centroid plus one gap (< delta) and the rubber's static compression under ~1 kg
    // (E = 5e5 Pa: strains ~1e-3, i.e. < 0.2 mm over both half-heights).
    let dz = xu.z - xl.z;
    assert!(dz > 0.1 - 2e-4 && dz < 0.1 + delta, "centroid separation {dz}");
    // At rest: velocities are transient residues of the impact, damped by backward Euler.
    assert!(vu.norm() < 1e-3, "upper block still moving at {}", vu.norm());
    // Contacts of the three kinds are active: floor-lower, upper-on-lower, lower-on-upper.
    assert!(st.active_contacts > 25, "{} contacts", st.active_contacts);
}
