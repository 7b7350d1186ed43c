//! Ropes over cylinders (issue 5, deliverable 5; 004 Fig. 2): the shipped scenes
//! `scenes/rope_over_cylinder.ron` (one cylinder, a load at each end) and
//! `scenes/rope_cylinders.ron` (three cylinders, total wrap 3 pi, heavy body 25x the light one),
//! run at friction coefficients on both sides of their Euler–Eytelwein thresholds, and the
//! `root_mass` field they use.
//!
//! Thresholds (`python3 scripts/ropes.py` prints them): static iff m_heavy / m_light <=
//! exp(mu theta), corrected for the rope's own weight along the path: mu* = 0.34926 (one
//! cylinder, ratio 3, theta = pi) and 0.34113 (three cylinders, ratio 25, theta = 3 pi).
//!
//! Why +-15 % around mu*: measured with the `explore` study below, the one-cylinder rope slides
//! and accelerates at 0.340, stops after 4.5 cm of slip at 0.345 and after 7 mm at 0.350
//! (threshold 1.2–2.7 % below mu*); the three-cylinder one slides and accelerates at 0.330 and
//! stops after 2 cm at 0.337 (1.2–3.3 % below mu*). Bending stiffness (EI / (T rho²) up to 8 %
//! at the light end) adds holding force where the rope meets and leaves a cylinder, and
//! node-only contacts on a 1 cm polygon add ~0.5 %; the capstan gate (validation case 8)
//! measures the ideal ratio within 1.2 %. 15 % is about five times the largest of these, so
//! neither they nor the release transient (the rope is unstretched at t = 0, so the load
//! overshoots its static stretch) decide the outcome on either side.

use fricsim::model::node;
use fricsim::simulation::Simulation;

const MU_ONE: f64 = 0.34926;
const MU_THREE: f64 = 0.34113;

/// The scene at `scenes/NAME.ron` with `friction.default.mu` set to `mu` plus `extra` overrides.
fn sim(name: &str, mu: f64, extra: &[&str]) -> Simulation {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("scenes").join(format!("{name}.ron"));
    let mut sets = vec![format!("friction.default.mu={mu}")];
    sets.extend(extra.iter().map(|s| s.to_string()));
    let loaded = fricsim::scene::load_scene(&path, &sets).unwrap_or_else(|e| panic!("{e}"));
    let (model, state) = fricsim::scene::build::build(&loaded).unwrap_or_else(|e| panic!("{e}"));
    Simulation::new(model, state)
}

/// Runs `steps` steps from release and returns the heavy end's (the last node's, where
/// `tip_mass` sits) downward displacement and downward velocity after every step.
fn drop_history(s: &mut Simulation, steps: usize) -> Vec<(f64, f64)> {
    drop_history_stats(s, steps).0
}

/// [`drop_history`] with the largest final residual of any step and the total contact-solver
/// iterations.
fn drop_history_stats(s: &mut Simulation, steps: usize) -> (Vec<(f64, f64)>, f64, usize) {
    let rod = &s.model.rod_bundles[0].rods[0];
    let tip = rod.first + rod.len - 1;
    let z0 = node(&s.state.q, tip).z;
    let mut out = Vec::with_capacity(steps);
    let (mut worst, mut iters) = (0.0f64, 0usize);
    for k in 0..steps {
        let st = s.step().expect("finite");
        assert!(st.converged, "step {k}: {:?}", st.failure);
        worst = worst.max(st.final_residual);
        iters += st.solver_iterations;
        out.push((z0 - node(&s.state.q, tip).z, -node(&s.state.v, tip).z));
    }
    (out, worst, iters)
}

/// What a run did: final drop, drop over the second and the last quarter, and the peak speed
/// in the first and the last quarter.
struct Outcome {
    drop: f64,
    second_quarter: f64,
    last_quarter: f64,
    early_speed: f64,
    late_speed: f64,
}

fn outcome(h: &[(f64, f64)]) -> Outcome {
    let n = h.len();
    let at = |k: usize| h[k - 1].0;
    let peak = |r: std::ops::Range<usize>| h[r].iter().map(|p| p.1.abs()).fold(0.0, f64::max);
    Outcome {
        drop: at(n),
        second_quarter: at(n / 2) - at(n / 4),
        last_quarter: at(n) - at(3 * n / 4),
        early_speed: peak(0..n / 4),
        late_speed: peak(3 * n / 4..n),
    }
}

/// Runs the scene at each mu for `steps` steps and checks the binary outcome.
/// Locked: the drop stays below `hold_bound` (the rope's elastic stretch after the release
/// overshoot, sized per scene by the caller), it changes by less than `creep` over the last
/// quarter, and the load's oscillation decays (backward Euler damps it) to under half its
/// first-quarter peak speed. Sliding: the drop exceeds `slide_bound` and the load accelerates
/// (it moves further in the last quarter than in the second).
fn check(name: &str, cases: &[(f64, bool)], steps: usize, hold_bound: f64, creep: f64, slide_bound: f64) {
    check_with(name, &[], cases, steps, hold_bound, creep, slide_bound);
}

/// [`check`] with `--set` overrides (the solver).
fn check_with(
    name: &str,
    extra: &[&str],
    cases: &[(f64, bool)],
    steps: usize,
    hold_bound: f64,
    creep: f64,
    slide_bound: f64,
) {
    for &(mu, holds) in cases {
        let t = std::time::Instant::now();
        let mut s = sim(name, mu, extra);
        let (h, worst, iters) = drop_history_stats(&mut s, steps);
        let o = outcome(&h);
        println!(
            "{name} {extra:?} mu {mu:.4}: drop {:.5} m (quarters 2/4: {:.5}, {:.5} m), peak speed {:.4} -> {:.4} m/s; \
             worst step residual {worst:.1e}, {iters} solver iterations, {:.1} s",
            o.drop,
            o.second_quarter,
            o.last_quarter,
            o.early_speed,
            o.late_speed,
            t.elapsed().as_secs_f64()
        );
        if holds {
            assert!(o.drop.abs() < hold_bound, "{name} mu {mu}: must lock, dropped {} m", o.drop);
            assert!(o.last_quarter.abs() < creep, "{name} mu {mu}: creeps {} m in the last quarter", o.last_quarter);
            assert!(
                o.late_speed < 0.5 * o.early_speed,
                "{name} mu {mu}: speed must decay, {} -> {} m/s",
                o.early_speed,
                o.late_speed
            );
        } else {
            assert!(o.drop > slide_bound, "{name} mu {mu}: must slide, dropped only {} m", o.drop);
            assert!(
                o.last_quarter > o.second_quarter,
                "{name} mu {mu}: must accelerate, {} then {} m per quarter",
                o.second_quarter,
                o.last_quarter
            );
        }
    }
}

/// A load at each end (0.1 and 0.3 kg) over one cylinder, 0.3 s (150 steps of 2 ms).
/// Locked, the 0.3 kg load's drop is the rope's stretch: T L / EA = 2.9 N x 0.2 m / 785 N =
/// 0.75 mm on its span plus ~0.3 mm along the wrap, about doubled by the release overshoot
/// (measured 1.3 mm at mu = 0.5, 2.1 mm at 1.15 mu*): bound 5 mm, creep under 0.5 mm in the
/// last 75 ms. Sliding, it falls at a = g (3 - e^{mu pi}) / (3 + e^{mu pi}) (0.8–2.3 m/s²,
/// measured 0.76–2.1), 4–10 cm in 0.3 s: bound 2 cm.
#[test]
fn rope_over_one_cylinder_holds_above_and_slides_below_ln3_over_pi() {
    let cases = [(0.5, true), (1.15 * MU_ONE, true), (0.85 * MU_ONE, false), (0.2, false)];
    check("rope_over_cylinder", &cases, 150, 5e-3, 5e-4, 0.02);
}

/// 004 Fig. 2 at the paper's two coefficients: a 2 kg body on a rope over, under and over
/// three cylinders, a 0.08 kg one at the other end, 0.3 s (150 steps). mu = 0.5 locks
/// (e^{1.5 pi} = 111 > 25): the drop is the rope's stretch, T L / EA = 19.6 N x 0.15 m /
/// 1571 N = 1.9 mm on the heavy span plus ~1 mm along the wraps, at most doubled by the
/// release overshoot (measured 4.2 mm): bound 1 cm, creep under 1 mm in the last 75 ms.
/// mu = 0.2 unravels (e^{0.6 pi} = 6.6 < 25): measured 21 cm in 0.3 s; bound 5 cm.
#[test]
fn rope_over_three_cylinders_locks_at_mu_0_5_and_unravels_at_0_2() {
    check("rope_cylinders", &[(0.5, true), (0.2, false)], 150, 0.01, 1e-3, 0.05);
}

/// The same scene at 1.15 mu* (locks, measured drop 5 mm) and 0.85 mu* (slides at ~1.4 m/s²,
/// measured 9 cm in 0.3 s); bounds as above.
#[test]
fn rope_over_three_cylinders_threshold_both_sides() {
    check("rope_cylinders", &[(1.15 * MU_THREE, true), (0.85 * MU_THREE, false)], 150, 0.01, 1e-3, 0.05);
}

/// ADMM (accelerated, the default) ended by 004's δ∞ rule (`admm: (delta_inf: Some(1e-5))`: a
/// solve ends once `h (|v - v_prev|_inf + |v - p|_inf) <= 10 µm`). The error of plain ADMM
/// (`accelerated: false`) on these ropes falls linearly and slowly (one linearization of
/// `rope_cylinders`: 1e-3 after 37 iterations, 1e-4 after 455, 1e-5 after 1356; the contact
/// part is exact, what lags is the consensus `v = p` in the rope's stiff stretching mode), so
/// at 1e-6 it stops at the 2000-iteration limit on the 9th–10th step; accelerated ADMM meets
/// 1e-6 on every step but needs 136–1195 iterations per linearization on average (see
/// `admm_accelerated_solves_ropes_to_tolerance`). With δ∞ each solve ends after tens of
/// iterations at a large relative residual (0.04–0.75 at the worst step of a run), which sits
/// in that stiff mode: a velocity error below δ∞/h = 5 mm/s there is a stretch error below
/// 10 µm per step, far below the 1–4 mm stretch and the centimetres of slip that decide the
/// outcome. So the outcome must still be the right one, with the same bounds as the
/// FischerBurmeister tests. Measured: mu 0.5 drop 3.91 mm (FischerBurmeister 4.2 mm, ADMM
/// solved to 1e-6 3.91 mm), mu 0.2 21.9 cm (21 cm, 21.8 cm); ~3.5 s.
const ADMM_DELTA_INF: [&str; 2] = ["pipeline.solver=Admm", "pipeline.admm.delta_inf=Some(1e-5)"];

#[test]
fn admm_delta_inf_rope_over_three_cylinders_locks_at_mu_0_5_and_unravels_at_0_2() {
    check_with("rope_cylinders", &ADMM_DELTA_INF, &[(0.5, true), (0.2, false)], 150, 0.01, 1e-3, 0.05);
}

/// The ADMM time integrator (`nodal_integrator: Admm`) on the three-cylinder rope, solved to
/// 1e-4 (the δ∞ rule does not serve it: its iterates move little per iteration long before they
/// converge, and at δ∞ = 0.01 mm it stopped with errors up to 0.13 and the mu = 0.2 rope
/// dropped only 4.0 cm instead of unravelling). Bounds as in the tests above. Measured: mu 0.5
/// locks, drop 3.91 mm (FischerBurmeister 4.2 mm, ADMM + PN 3.91 mm), 55 iterations per step,
/// ~12 s.
const ADMM_INTEGRATOR: [&str; 4] = [
    "pipeline.solver=Admm",
    "pipeline.nodal_integrator=Admm",
    "pipeline.tolerance=1e-4",
    "pipeline.max_iterations=20000",
];

#[test]
fn admm_integrator_rope_over_three_cylinders_locks_at_mu_0_5() {
    check_with("rope_cylinders", &ADMM_INTEGRATOR, &[(0.5, true)], 150, 0.01, 1e-3, 0.05);
}

/// The unravelling case of the above, a study (~75 s): `cargo test --release --test ropes
/// admm_integrator_rope_over_three_cylinders_unravels -- --ignored --nocapture`. Measured: drop
/// 20.3 cm (FischerBurmeister 21 cm), 344 iterations per step.
#[test]
#[ignore]
fn admm_integrator_rope_over_three_cylinders_unravels_at_mu_0_2() {
    check_with("rope_cylinders", &ADMM_INTEGRATOR, &[(0.2, false)], 150, 0.01, 1e-3, 0.05);
}

/// The other rope cases with ADMM + δ∞, bounds as in the FischerBurmeister tests (a study, ~9 s):
/// `cargo test --release --test ropes admm_delta_inf_other_cases -- --ignored --nocapture`.
/// Measured: one cylinder, drop 1.3 mm at mu 0.5 and 2.1 mm at 1.15 mu* (held), 9.8 cm at 0.2
/// and 4.0 cm at 0.85 mu* (sliding); three cylinders, 4.9 mm at 1.15 mu* (held), 9.0 cm at
/// 0.85 mu* (sliding): every outcome right.
#[test]
#[ignore]
fn admm_delta_inf_other_cases() {
    let one = [(0.5, true), (1.15 * MU_ONE, true), (0.85 * MU_ONE, false), (0.2, false)];
    check_with("rope_over_cylinder", &ADMM_DELTA_INF, &one, 150, 5e-3, 5e-4, 0.02);
    let three = [(1.15 * MU_THREE, true), (0.85 * MU_THREE, false)];
    check_with("rope_cylinders", &ADMM_DELTA_INF, &three, 150, 0.01, 1e-3, 0.05);
}

/// Accelerated ADMM (004 Algorithm 4, `admm: (accelerated: true)`) solves every linearization
/// of these ropes to the 1e-6 tolerance within 2000 iterations (`drop_history` asserts each
/// step converged), where plain ADMM stops at the limit on the 9th–10th step. A study (~4 min):
/// `cargo test --release --test ropes admm_accelerated -- --ignored --nocapture`.
/// Measured (150 steps, 2 linearizations each): one cylinder, 74 495 iterations (25 s) at
/// mu 0.5 and 40 789 (11 s) at 0.2; three cylinders, 358 626 (101 s) at 0.5 and 51 487 (13 s)
/// at 0.2. The drops (1.30 mm, 9.86 cm, 3.91 mm, 21.8 cm) are within 1 % of those of the δ∞
/// runs above (1.29 mm, 9.79 cm, 3.91 mm, 21.9 cm), which is the evidence that δ∞'s early stops
/// do not change the motion.
#[test]
#[ignore]
fn admm_accelerated_solves_ropes_to_tolerance() {
    let acc = ["pipeline.solver=Admm", "pipeline.admm.accelerated=true"];
    check_with("rope_over_cylinder", &acc, &[(0.5, true), (0.2, false)], 150, 5e-3, 5e-4, 0.02);
    check_with("rope_cylinders", &acc, &[(0.5, true), (0.2, false)], 150, 0.01, 1e-3, 0.05);
}

/// `root_mass` puts a point mass on the first node of every rod (and `tip_mass` on the last);
/// with `fixed_roots` it is rejected with the field path, and a negative one is rejected.
#[test]
fn root_mass_loads_the_first_node_and_is_validated() {
    let scene = |extra: &str| {
        format!(
            r#"Scene(name: "r", dt: 1e-3, frames: 1, frame_rate: 1.0,
            materials: {{ "rope": (density: 1000.0, youngs_modulus: 1e9, poisson_ratio: 0.3, radius: 5e-4) }},
            bodies: [ Rods(name: "rope", material: "rope",
                           curves: Straight(start: (0.0, 0.0, 0.0), end: (0.1, 0.0, 0.0), segments: 4){extra}) ],
            pipeline: Nonsmooth())"#
        )
    };
    let parse = |text: &str| fricsim::scene::parse_scene_str(text, "r.ron", std::path::Path::new("."), &[]);
    let loaded = parse(&scene(", root_mass: 0.25, tip_mass: 0.5")).unwrap_or_else(|e| panic!("{e}"));
    let (model, _) = fricsim::scene::build::build(&loaded).unwrap_or_else(|e| panic!("{e}"));
    let half_segment = 0.5 * 1000.0 * std::f64::consts::PI * 25e-8 * 0.025;
    let m = &model.node_mass;
    // The same sums as the builder in another rounding order: a few ulps of 0.5 (1e-16) apart.
    assert!((m[0] - (0.25 + half_segment)).abs() < 1e-15, "root node mass {}", m[0]);
    assert!((m[4] - (0.5 + half_segment)).abs() < 1e-15, "tip node mass {}", m[4]);
    assert!((m[2] - 2.0 * half_segment).abs() < 1e-15, "inner node mass {}", m[2]);

    let e = parse(&scene(", root_mass: -0.1")).map(|_| ()).unwrap_err().to_string();
    assert!(e.contains("bodies[0].root_mass = -0.1: must be >= 0"), "{e}");
    let e = parse(&scene(", fixed_roots: true, root_mass: 0.1")).map(|_| ()).unwrap_err().to_string();
    assert!(e.contains("bodies[0].root_mass = 0.1: must be 0 (or absent) with `fixed_roots: true`"), "{e}");
    assert!(parse(&scene(", fixed_roots: true, root_mass: 0.0")).is_ok(), "root_mass 0 with fixed roots is allowed");
}

/// The threshold study behind the 15 % margins (not a gate):
/// `ROPE=rope_cylinders MUS=0.33,0.337 STEPS=600 cargo test --release --test ropes explore -- --ignored --nocapture`
/// prints the heavy end's drop and speed ten times per run; `EXTRA="dt=1e-3;pipeline.solver=Admm"`
/// adds `--set` overrides.
///
/// Also measured with it: sliding loads accelerate less than the massless-rope dynamic capstan
/// a = g (m_h - E m_l) / (m_h + E m_l), E = e^{mu theta}, by an amount that shrinks with dt
/// (one cylinder, v at 0.3 s: mu = 0 1.356 / 1.401 / 1.424 m/s at dt = 2e-3 / 1e-3 / 5e-4,
/// ideal ~1.47; mu = 0.2 0.617 / 0.646 / 0.656; three cylinders at mu = 0.2, 4.0 m/s² at dt
/// 2e-3 and 4.8 at 1e-3 against 5.7): a first-order time-discretisation drag on rope sliding
/// around curved contacts, which does not affect the static thresholds tested here. GaussSeidel
/// and plain Admm do not reach 1e-6 on these ropes within 2000 iterations (stiff rope, 2 kg on
/// 8 mg nodes); FischerBurmeister solves every step, and so does accelerated Admm (see
/// `admm_accelerated_solves_ropes_to_tolerance`).
#[test]
#[ignore]
fn explore() {
    let name = std::env::var("ROPE").unwrap_or("rope_cylinders".into());
    let mus: Vec<f64> = std::env::var("MUS")
        .unwrap_or("0.5,0.2".into())
        .split(',')
        .map(|x| x.parse().expect("MUS: comma-separated numbers"))
        .collect();
    let steps: usize = std::env::var("STEPS").unwrap_or("200".into()).parse().expect("STEPS: a count");
    let extra: Vec<String> =
        std::env::var("EXTRA").map(|e| e.split(';').map(String::from).collect()).unwrap_or_default();
    let extra: Vec<&str> = extra.iter().filter(|s| !s.is_empty()).map(|s| s.as_str()).collect();
    for mu in mus {
        let t = std::time::Instant::now();
        let mut s = sim(&name, mu, &extra);
        let h = drop_history(&mut s, steps);
        let dt = s.model.dt;
        for (k, (d, v)) in h.iter().enumerate() {
            if (k + 1) % (steps / 10).max(1) == 0 {
                println!("mu {mu} t {:.3}: drop {d:.6} m, v {v:.5} m/s", (k + 1) as f64 * dt);
            }
        }
        println!("mu {mu}: {:.2} s wall", t.elapsed().as_secs_f64());
    }
}
