//! 004 W7, the hair band: a stretched elastic band holds a groom on a running head by contact
//! and friction alone. First the band alone on a head, whose friction threshold is known in
//! closed form (`support/band.rs`). The band over the hair on a running head is the next step.

#[path = "support/band.rs"]
mod band;
#[path = "support/scene_run.rs"]
mod scene_run;

const HEAD_R: f64 = 0.09;
/// Where the band's nodes touch the head: its mid-surface, half its thickness off the scalp.
const RHO: f64 = HEAD_R + 0.5 * band::THICKNESS;
const G: f64 = 9.81;

/// The band's mean latitude (rad) over its nodes.
fn latitude(q: &[f64]) -> f64 {
    let lat = |p: &[f64]| p[2].atan2(p[0].hypot(p[1]));
    q.chunks(3).map(lat).sum::<f64>() / (q.len() / 3) as f64
}

/// The band put at latitude `phi` (rad) on a fixed head, friction `mu`: its latitude's change
/// (rad) after `seconds`, and the steps short of the tolerance. The band is meshed stretched
/// both ways and narrows to its equilibrium width by sliding its edges towards its middle; it
/// does that in the scene's `settle` (velocities zeroed every step) so that it starts at rest in
/// the state the closed form describes. (Released at once instead, the narrowing's opposite
/// slips cancel their friction while the tension pulls the band up: it gains a speed that
/// carries it to latitudes where tan φ > μ, and slid at 1.04 μ* as well.)
fn band_on_head(phi: f64, mu: f64, seconds: f64) -> (f64, usize) {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("band.obj"), band::frustum_obj(RHO, phi, 96, 3)).unwrap();
    let text = format!(
        r#"Scene(
    name: "band_on_head", dt: 1e-3, duration: {seconds}, frame_rate: 10.0, settle: 0.05,
    materials: {{
        "band": (density: {}, youngs_modulus: {}, poisson_ratio: {}, thickness: {}),
        "skin": (),
    }},
    friction: (default: (mu: {mu})),
    bodies: [ Cloth(name: "band", material: "band", mesh: File(path: "band.obj"), rest_scale: {},
                    self_contact: false) ],
    colliders: [ Sphere(name: "head", material: "skin", radius: {HEAD_R}) ],
    pipeline: Nonsmooth(solver: Auto, tolerance: 1e-6, max_iterations: 300, on_failure: Continue),
)"#,
        band::DENSITY,
        band::YOUNGS,
        band::POISSON,
        band::THICKNESS,
        band::REST_SCALE,
    );
    let mut s = scene_run::simulation_in(&text, dir.path());
    let start = latitude(&s.state.q);
    let mut missed = 0;
    for _ in 0..s.model.step_count() {
        missed += usize::from(!s.step().expect("finite state").converged);
    }
    (latitude(&s.state.q) - start, missed)
}

/// The band stays iff μ reaches the closed form's threshold (about tan φ, the weight lowering it
/// by 1.4 % at 10°): at 1.04 μ* the band keeps its latitude, at 0.96 μ* it slides up towards the
/// crown. Both sides, at 10° here (a minute a run) and at 20° in the ignored test below
/// (`cargo test --release --test hair_band -- --ignored`). Measured: held, it moves by less than 1e-8 rad in 0.1 s
/// (bound 1e-5 rad, 1 µm: the exact solver's creep at tolerance 1e-6 is far below); sliding, the
/// tension's excess 0.04 μ* T/ρ over the band's 16 g/m accelerates it at about 27 m/s², 1 rad in
/// 0.1 s (bound 0.05 rad, 4.6 mm).
#[test]
fn a_stretched_band_stays_on_a_head_iff_friction_reaches_tan_phi() {
    band_threshold_both_sides(10.0);
}

/// The same at 20° (μ* 0.361): measured 9e-9 rad held, 0.64 rad sliding.
#[test]
#[ignore = "2 minutes: cargo test --release --test hair_band -- --ignored"]
fn a_steeper_band_stays_iff_friction_reaches_tan_phi() {
    band_threshold_both_sides(20.0);
}

/// Both sides of the threshold at latitude `degrees`.
fn band_threshold_both_sides(degrees: f64) {
    let phi = degrees.to_radians();
    let mu = band::threshold(band::hoop_tension(), band::weight_per_metre(G), RHO, phi);
    for (factor, holds) in [(1.04, true), (0.96, false)] {
        let (moved, missed) = band_on_head(phi, factor * mu, 0.1);
        println!(
            "{degrees}°: mu* {mu:.4} (tan phi {:.4}); at {factor} mu* the band moved {moved:.2e} rad ({missed} steps short)",
            phi.tan(),
        );
        if holds {
            assert_eq!(missed, 0, "{degrees}°, {factor} mu*: steps short of the tolerance");
            assert!(moved.abs() < 1e-5, "{degrees}°: held at {factor} mu* yet moved {moved:e} rad");
        } else {
            assert!(moved > 0.05, "{degrees}°: at {factor} mu* the band moved only {moved:e} rad");
        }
    }
}
