use fricsim::simulation::Simulation;
use fricsim::model::node;
fn main() {
    let path = std::env::args().nth(1).unwrap();
    let mut sim = Simulation::from_file(std::path::Path::new(&path), &[]).unwrap();
    let th = 0.5f64.atan();
    let down = nalgebra::Vector3::new(-th.cos(), 0.0, -th.sin());
    for step in 0..6 {
        let st = sim.step().unwrap();
        let (_, v) = sim.state.centroid(&sim.model, &sim.model.solids[0]);
        let bottom: Vec<f64> = sim.model.solids[0].surface_nodes.iter().filter(|&&i| sim.pipeline.contact_forces(&sim.model, &sim.state).0[3*i..3*i+3].iter().any(|x| *x != 0.0)).map(|&i| node(&sim.state.v, i).dot(&down)).collect();
        let mn = bottom.iter().cloned().fold(f64::INFINITY, f64::min); let mx = bottom.iter().cloned().fold(0.0, f64::max);
        println!("step {step}: iters {} centroid v_down {:.6e}; bottom vertices v_down in [{mn:.6e}, {mx:.6e}] ({} contacts)", st.newton_iterations, v.dot(&down), bottom.len());
    }
}
