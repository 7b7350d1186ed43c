//! 001's penalty contact on 000's smooth implicit surfaces (`contact.geometry: Implicit`): the
//! gap of a vertex is Ψ of the other solid's MLS field.
//!
//! Tolerances: on a flat slab every sample near the block lies in one plane, so Ψ is exactly the
//! plane distance and the block's numbers are those of the closest-feature geometry (README,
//! validation): sliding acceleration to 1e-6 relative (Newton tolerance 1e-7 m/s² against a
//! 3e-3 m/s² acceleration), creep at v* to 0.1 %.

use fricsim::simulation::Simulation;
use nalgebra::Vector3;
use std::path::Path;

const G: f64 = 9.81;
const EPS: f64 = 1e-4;
/// The slab refined to 5 cm cells (triangles 7 cm across), so that a 5 cm support radius exceeds
/// half of them and stays clear of the slab's sides.
const FINE_SLAB: &str = "bodies[1].mesh=Box(size: (0.6, 0.3, 0.05), cells: (12, 6, 1))";

fn sim(path: &str, overrides: &[String]) -> Simulation {
    let p = Path::new(env!("CARGO_MANIFEST_DIR")).join(path);
    Simulation::from_file(&p, overrides).unwrap_or_else(|e| panic!("{path}: {e}"))
}

/// Validation case 1 with the implicit surface of a tilted tet slab, both kernels: sticks at
/// μ = 0.177 (creeping at v*), slides at 0.176 with a = g (sin θ − μ cos θ).
#[test]
fn block_on_an_implicit_slab_sticks_and_slides_at_the_threshold() {
    let theta = 10f64.to_radians();
    let down = Vector3::new(-theta.cos(), 0.0, -theta.sin());
    for kernel in ["Cubic", "Approximate(epsilon: 1e-3)"] {
        for mu in [0.177, 0.176] {
            let ov = vec![
                format!("friction.pairs[0].mu={mu}"),
                FINE_SLAB.to_string(),
                format!("pipeline.contact.geometry=Implicit(kernel: {kernel}, radius: 0.05)"),
            ];
            let mut s = sim("scenes/validation/block_on_slab.ron", &ov);
            let block = s.model.solids[0].nodes.clone();
            let mut trace = Vec::new();
            for _ in 0..100 {
                let st = s.step().expect("finite state");
                assert!(st.converged, "{kernel} mu {mu}: {:?}", st.failure);
                trace.push((s.state.time, s.state.nodes_centroid(&s.model, block.clone()).1.dot(&down)));
            }
            let (t0, v0) = trace[49];
            let (t1, v1) = trace[99];
            if mu > theta.tan() {
                let creep = EPS * (1.0 - (1.0 - theta.tan() / mu).sqrt());
                println!("{kernel}, mu {mu}: creeps at {v1:.6e} m/s (v* {creep:.6e})");
                assert!(v1 > 0.0 && v1 <= 1.001 * creep);
            } else {
                let (a, exact) = ((v1 - v0) / (t1 - t0), G * (theta.sin() - mu * theta.cos()));
                println!("{kernel}, mu {mu}: a = {a:.9e} vs {exact:.9e}");
                assert!((a / exact - 1.0).abs() < 1e-6, "{kernel}: a {a} vs {exact}");
            }
        }
    }
}

/// The C0 failure of closest-feature contact (README): a cloth dropped on a block whose grid its
/// own lines up with stalls Newton with friction; on the block's implicit surface every step
/// converges and nothing passes through.
#[test]
fn aligned_drape_converges_on_the_implicit_surface() {
    let ov = vec![
        "bodies[1].position=(0.0, 0.0, 0.105)".to_string(),
        "pipeline.contact.geometry=Implicit(kernel: Cubic, radius: 0.06)".to_string(),
    ];
    let mut s = sim("scenes/validation/cloth_drape.ron", &ov);
    let mut min_gap = f64::INFINITY;
    let mut newton = 0;
    for _ in 0..100 {
        let st = s.step().expect("finite state");
        assert!(st.converged, "step {}: {:?}", s.state.step, st.failure);
        assert_eq!(st.substeps, 1, "step {} was halved", s.state.step);
        min_gap = min_gap.min(st.min_gap);
        newton += st.newton_iterations;
    }
    println!(
        "aligned drape on the implicit surface: smallest gap {min_gap:.3e} m, {:.2} Newton iterations per step",
        newton as f64 / 100.0
    );
    assert!(min_gap > 0.0);
}
