//! A cloth's `rest_scale`: the rest shape is the mesh scaled, so the sheet starts stretched (or
//! compressed) and relaxes to the scaled size; out-of-range values are refused with the field.

#[path = "support/scene_run.rs"]
mod scene_run;

fn strip(rest_scale: &str) -> String {
    format!(
        r#"Scene(
    name: "strip", dt: 0.005, duration: 1.0, frame_rate: 10.0, gravity: (0.0, 0.0, 0.0),
    materials: {{ "rubber": (density: 1100.0, youngs_modulus: 1e6, poisson_ratio: 0.3, thickness: 2e-3,
                            damping: (alpha: 20.0, beta: 0.0)) }},
    bodies: [ Cloth(name: "strip", material: "rubber", mesh: Grid(size: (0.2, 0.04), cells: (10, 2)),
                    position: (0.0, 0.0, 0.5), self_contact: false, rest_scale: {rest_scale}) ],
    pipeline: Nonsmooth(),
)"#
    )
}

/// A free strip (20 × 4 cm) made with `rest_scale: 0.9` in zero gravity contracts to its rest
/// size and stays flat: each edge relaxes to 0.9 of the mesh's (gate 1e-6 after 1 s with mass
/// damping 20/s; measured 1e-15), its centre stays put (no external force: 1e-12 m; measured
/// 1.5e-16 m).
#[test]
fn a_stretched_strip_relaxes_to_its_scaled_rest_shape() {
    let mut s = scene_run::simulation(&strip("0.9"));
    let q0 = s.state.q.clone();
    let n = s.model.node_count();
    let centre = |q: &[f64]| (0..n).fold(nalgebra::Vector3::zeros(), |c, i| c + node(q, i)) / n as f64;
    let c0 = centre(&q0);
    for _ in 0..200 {
        let st = s.step().expect("finite");
        assert!(st.converged, "{:?}", st.failure);
    }
    let edges = &s.model.cloths[0].triangles;
    let mut worst: f64 = 0.0;
    for t in edges {
        for k in 0..3 {
            let (a, b) = (t[k], t[(k + 1) % 3]);
            let now = (node(&s.state.q, a) - node(&s.state.q, b)).norm();
            let mesh = (node(&q0, a) - node(&q0, b)).norm();
            worst = worst.max((now / mesh - 0.9).abs());
        }
    }
    let moved = (centre(&s.state.q) - c0).norm();
    let flat = (0..n).map(|i| (s.state.q[3 * i + 2] - 0.5).abs()).fold(0.0, f64::max);
    println!("edges within {worst:.1e} of 0.9 of the mesh, centre moved {moved:.1e} m, out of plane {flat:.1e} m");
    assert!(worst < 1e-6, "an edge is {worst:e} off its rest length");
    assert!(moved < 1e-12, "the centre moved {moved:e} m");
    assert!(flat < 1e-12, "the strip left its plane by {flat:e} m");
}

fn node(q: &[f64], i: usize) -> nalgebra::Vector3<f64> {
    nalgebra::Vector3::new(q[3 * i], q[3 * i + 1], q[3 * i + 2])
}

#[test]
fn an_absurd_rest_scale_is_refused_with_its_field() {
    let dir = std::env::temp_dir().join(format!("fricsim_rest_scale_{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("strip.ron");
    std::fs::write(&path, strip("0.1")).unwrap();
    let Err(e) = fricsim::scene::load_scene(&path, &[]) else { panic!("a rest scale of 0.1 must be refused") };
    let e = e.to_string();
    assert!(e.contains("bodies[0].rest_scale = 0.1: must be from 0.5 to 2"), "{e}");
}
