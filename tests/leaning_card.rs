//! The building block of 004 Table 1's houses of cards: a stiff cloth card (6.4 × 8.9 cm,
//! 0.3 mm card stock) leaning at θ from vertical against a frictionless wall. As a rigid
//! ladder it stands iff the floor's friction is at least `μ* = tan θ / 2` (moments about the
//! foot: the wall's push `W tan θ / 2` must be held by the floor's friction, at most `μ W`).

#[path = "support/scene_run.rs"]
mod scene_run;

/// The card's centre height after 0.5 s (m), and the steps that missed the tolerance.
fn lean(theta_deg: f64, mu: f64) -> (f64, Vec<(u64, usize, f64)>) {
    let (len, r) = (0.089, 1.5e-4);
    let t = theta_deg.to_radians();
    let (z, y_top) = (0.5 * len * t.cos() + r, 0.5 * len * t.sin());
    let text = format!(
        r#"Scene(
    name: "card", dt: 1e-3, duration: 0.5, frame_rate: 50.0,
    materials: {{ "card": (density: 800.0, youngs_modulus: 4e9, poisson_ratio: 0.3, thickness: 3e-4), "floor": (), "wall": () }},
    friction: (default: (mu: {mu}), pairs: [ (between: ("card", "wall"), mu: 0.0) ]),
    bodies: [ Cloth(name: "card", material: "card", mesh: Grid(size: (0.064, {len}), cells: (4, 6)),
                    position: (0.0, 0.0, {z}), rotation: ({rx}, 0.0, 0.0), self_contact: false) ],
    colliders: [ Plane(name: "floor", material: "floor"),
                 Box(name: "wall", material: "wall", size: (0.2, 0.02, 0.2), position: (0.0, {wall}, 0.1)) ],
    pipeline: Nonsmooth(solver: FischerBurmeister, tolerance: 1e-6, max_iterations: 500, on_failure: Continue),
)"#,
        rx = 90.0 - theta_deg,
        wall = y_top + r + 0.01,
    );
    let mut s = scene_run::simulation(&text);
    let mut missed = Vec::new();
    for _ in 0..s.model.step_count() {
        let st = s.step().expect("finite");
        if !st.converged {
            missed.push((s.state.step, st.active_contacts, st.final_residual));
        }
    }
    let n = s.model.node_count() as f64;
    (s.state.q.chunks(3).map(|c| c[2]).sum::<f64>() / n, missed)
}

#[test]
fn a_leaning_card_stands_iff_mu_is_at_least_half_tan_theta() {
    for theta in [30.0f64, 20.0] {
        let star = theta.to_radians().tan() / 2.0;
        let standing = 0.5 * 0.089 * theta.to_radians().cos();
        // 4 % either side of the threshold: the card is an elastic shell of 7 x 5 nodes, not
        // a rigid ladder, and its feet are a row of point contacts (measured at 30°: falls at
        // 0.97 μ*, stands at 1.04 μ*).
        let (low, ok_low) = lean(theta, 0.96 * star);
        let (high, ok_high) = lean(theta, 1.04 * star);
        println!(
            "theta {theta}: mu* {star:.4}; centre at {low:.5} m (0.96 mu*), {high:.5} m (1.04 mu*), standing {standing:.5}"
        );
        println!("steps short of 1e-6 (step, contacts, error): {ok_low:?} / {ok_high:?}");
        // Near the threshold the feet's contacts sit on their cones' edges, a nearly degenerate
        // problem: FB leaves 3 of 500 steps at 30° between 8e-6 and 3.1e-4 (measured). A solve
        // that failed outright would end far above 1e-3.
        for (step, _, err) in ok_low.iter().chain(&ok_high) {
            assert!(*err <= 1e-3, "theta {theta}: step {step} ended at {err:e}");
        }
        // Fallen: lying on the floor (within 1 mm of its half-thickness).
        assert!(low < 1e-3, "theta {theta}: at 0.96 mu* the centre is still at {low} m");
        // Standing: the centre within 1 mm of where it was put (elastic settling only).
        assert!((high - standing).abs() < 1e-3, "theta {theta}: at 1.04 mu* the centre is at {high} m");
    }
}
