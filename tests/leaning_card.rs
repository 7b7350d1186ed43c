//! The building block of 004 Table 1's houses of cards: a stiff cloth card (6.4 × 8.9 cm,
//! 0.3 mm card stock) leaning at θ from vertical against a frictionless wall. As a rigid
//! ladder it stands iff the floor's friction is at least `μ* = tan θ / 2` (moments about the
//! foot: the wall's push `W tan θ / 2` must be held by the floor's friction, at most `μ W`).
//! Then two such cards leaning on each other, the house's A-frame, with the two thresholds of
//! its statics: the floor's friction and the friction where one card's top rests on the other.

#[path = "support/cards.rs"]
mod cards;
#[path = "support/scene_run.rs"]
mod scene_run;

use cards::{CARD, a_frame, a_frame_thresholds};

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
    let steps = s.model.step_count();
    step_noting_misses(&mut s, steps, &mut missed);
    (scene_run::mean_height(&s.state.q), missed)
}

/// Steps `s` `steps` times, noting each step short of its tolerance as (step, contacts, error).
fn step_noting_misses(s: &mut fricsim::simulation::Simulation, steps: usize, missed: &mut Vec<(u64, usize, f64)>) {
    for _ in 0..steps {
        let st = s.step().expect("finite");
        if !st.converged {
            missed.push((s.state.step, st.active_contacts, st.final_residual));
        }
    }
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

/// The A-frame after `seconds` under floor friction `mu_floor` and card-on-card friction
/// `mu_apex`: the drop of the two cards' mean centre height (m) over the run and over its second
/// half, and the steps short of 1e-6.
fn stand_a_frame(theta_deg: f64, mu_floor: f64, mu_apex: f64, seconds: f64) -> (f64, f64, Vec<(u64, usize, f64)>) {
    let f = a_frame(theta_deg);
    let (w, len, _) = CARD;
    let card = |name: &str, centre: (f64, f64), rx: f64| {
        format!(
            r#"Cloth(name: "{name}", material: "card_{name}", mesh: Grid(size: ({w}, {len}), cells: (4, 6)),
                    position: (0.0, {}, {}), rotation: ({rx}, 0.0, 0.0), self_contact: false)"#,
            centre.0, centre.1
        )
    };
    let stock = "(density: 800.0, youngs_modulus: 4e9, poisson_ratio: 0.3, thickness: 3e-4)";
    let text = format!(
        r#"Scene(
    name: "a_frame", dt: 1e-3, duration: {seconds}, frame_rate: 50.0,
    materials: {{ "card_a": {stock}, "card_b": {stock}, "floor": () }},
    friction: (default: (mu: {mu_floor}), pairs: [ (between: ("card_a", "card_b"), mu: {mu_apex}) ]),
    bodies: [ {}, {} ],
    colliders: [ Plane(name: "floor", material: "floor") ],
    pipeline: Nonsmooth(solver: FischerBurmeister, tolerance: 1e-6, max_iterations: 500, on_failure: Continue),
)"#,
        card("a", f.centre_a, 90.0 - f.theta_a.to_degrees()),
        card("b", f.centre_b, -(90.0 - theta_deg)),
    );
    let mut s = scene_run::simulation(&text);
    let mean_z = scene_run::mean_height;
    let (start, steps, mut missed) = (mean_z(&s.state.q), s.model.step_count(), Vec::new());
    step_noting_misses(&mut s, steps / 2, &mut missed);
    let halfway = mean_z(&s.state.q);
    step_noting_misses(&mut s, steps - steps / 2, &mut missed);
    let end = mean_z(&s.state.q);
    (start - end, halfway - end, missed)
}

#[test]
fn an_a_frame_stands_iff_the_floor_and_the_apex_hold_it() {
    for theta in [20.0f64, 30.0] {
        let (apex, floor) = a_frame_thresholds(&a_frame(theta));
        // Each threshold is probed 4 % either side with the other coefficient well above its
        // own (1.5 times), as for the single card: elastic shells with point feet, not rods.
        // Computed at 20°: apex 0.443, floor 0.190; at 30°: 0.606, 0.296 (a symmetric frame's
        // tan θ and tan θ / 2: 0.364, 0.182 and 0.577, 0.289; the offset apex raises both).
        let cases = [
            ("apex", 1.5 * floor, 1.04 * apex, true),
            ("apex", 1.5 * floor, 0.96 * apex, false),
            ("floor", 1.04 * floor, 1.5 * apex, true),
            ("floor", 0.96 * floor, 1.5 * apex, false),
        ];
        for (which, mu_floor, mu_apex, stands) in cases {
            let (drop, late_drop, missed) = stand_a_frame(theta, mu_floor, mu_apex, 0.6);
            println!(
                "theta {theta}: apex mu* {apex:.4}, floor mu* {floor:.4}; {which} at {mu_floor:.4}/{mu_apex:.4}: drop {drop:.2e} m ({late_drop:.1e} in the last 0.3 s), steps short of 1e-6 {missed:?}"
            );
            // As for the single card, a failed solve would end far above 1e-3.
            for (step, _, err) in &missed {
                assert!(*err <= 1e-3, "theta {theta}, {which}: step {step} ended at {err:e}");
            }
            if stands {
                // Settled in the first steps (measured: 0.02–0.17 mm, the feet seating while
                // the contact forces build, the cards bending) and still afterwards: the last
                // 0.3 s move the centres by less than 1 µm, against millimetres when slipping.
                assert!(drop.abs() < 5e-4, "theta {theta}, {which} held: the cards dropped {drop} m");
                assert!(late_drop.abs() < 1e-6, "theta {theta}, {which} held: still dropping, {late_drop} m in 0.3 s");
            } else {
                // A slipping apex lets the frame fold slowly (measured: 2 cm in 0.6 s just
                // under the threshold at 20°); a slipping foot lays it flat.
                assert!(drop > 3e-3, "theta {theta}, {which} slipping: the cards dropped only {drop} m");
            }
        }
    }
}
