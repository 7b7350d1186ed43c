//! 004 W7, the hair band: a stretched elastic band holds a groom on a running head by contact
//! and friction alone. First the band alone on a head, whose friction threshold is known in
//! closed form (`support/band.rs`); then the band over the hair on a running head
//! (`scenes/hair_band.ron`), with and without the band.

#[path = "support/band.rs"]
mod band;
#[path = "support/scene_run.rs"]
mod scene_run;

const HEAD_R: f64 = 0.09;
/// Where the band's nodes touch the head: its mid-surface, half its thickness off the scalp.
const RHO: f64 = HEAD_R + 0.5 * band::THICKNESS;
const G: f64 = 9.81;

/// The latitude (rad) of the point `p` (3 coordinates) on a sphere centred at the origin.
fn latitude_of(p: &[f64]) -> f64 {
    p[2].atan2(p[0].hypot(p[1]))
}

/// The band's mean latitude (rad) over its nodes.
fn latitude(q: &[f64]) -> f64 {
    q.chunks(3).map(latitude_of).sum::<f64>() / (q.len() / 3) as f64
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
    name: "band_on_head", dt: 1e-3, duration: {seconds}, frame_rate: {}, settle: 0.05,
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
        // One frame: the run is whole frames long.
        1.0 / seconds,
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
/// crown. Both sides, at 10° here (half a minute a run) and at 20° in the ignored test below
/// (`cargo test --release --test hair_band -- --ignored`). Measured over 0.05 s (over 0.1 s at
/// d16a100: 4.4e-9 and 1.02 rad): held, it moves 3.2e-9 rad (bound 1e-5 rad, 1 µm: the exact
/// solver's creep at tolerance 1e-6 is far below); sliding, the tension's excess 0.04 μ* T/ρ
/// over the band's 16 g/m drives it 0.81 rad up (bound 0.05 rad, 4.6 mm).
#[test]
fn a_stretched_band_stays_on_a_head_iff_friction_reaches_tan_phi() {
    band_threshold_both_sides(10.0, 0.05);
}

/// The same at 20° (μ* 0.361) over 0.1 s: measured 9e-9 rad held, 0.64 rad sliding.
#[test]
#[ignore = "2 minutes: cargo test --release --test hair_band -- --ignored"]
fn a_steeper_band_stays_iff_friction_reaches_tan_phi() {
    band_threshold_both_sides(20.0, 0.1);
}

/// Both sides of the threshold at latitude `degrees`, each run for `seconds`.
fn band_threshold_both_sides(degrees: f64, seconds: f64) {
    let phi = degrees.to_radians();
    let mu = band::threshold(band::hoop_tension(), band::weight_per_metre(G), RHO, phi);
    for (factor, holds) in [(1.04, true), (0.96, false)] {
        let (moved, missed) = band_on_head(phi, factor * mu, seconds);
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

/// The running head's scene, `scenes/hair_band.ron`, with its band or without it (the band's one
/// line taken out of the scene's text), and `--set` overrides.
fn running_head(with_band: bool, overrides: &[String]) -> fricsim::simulation::Simulation {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("scenes");
    let text = std::fs::read_to_string(dir.join("hair_band.ron")).unwrap();
    let is_band = |l: &&str| l.trim_start().starts_with(r#"Cloth(name: "band""#);
    assert_eq!(text.lines().filter(is_band).count(), 1, "the scene's band is one line");
    let text = match with_band {
        true => text,
        false => text.lines().filter(|l| !is_band(l)).collect::<Vec<_>>().join("\n"),
    };
    scene_run::simulation_with(&text, &dir, overrides)
}

/// Where the running head's scene has its head's centre (its motion's pivot).
const HEAD_CENTER: [f64; 3] = [0.0, 0.0, 0.2];

/// The nodes `nodes` of `q` in the head's frame at time `t` (relative to its centre).
fn in_head_frame(s: &fricsim::simulation::Simulation, nodes: std::ops::Range<usize>, t: f64) -> Vec<[f64; 3]> {
    let motion = &s.model.colliders[0].motion;
    let (c, r) = (motion.offset(t), motion.rotation(t).inverse());
    let center = nalgebra::Vector3::from(HEAD_CENTER) + c;
    nodes
        .map(|i| {
            let x = nalgebra::Vector3::new(s.state.q[3 * i], s.state.q[3 * i + 1], s.state.q[3 * i + 2]);
            (r * (x - center)).into()
        })
        .collect()
}

/// What the head's run did to the hair under the band's latitude (the strands' nodes within the
/// band's half width of it at the start) and to the band: the largest distance any of those nodes
/// moved in the head's frame, the largest change of the band's mean latitude (rad, 0 without a
/// band), the largest natural-map error of a step and the steps that stopped short of both the
/// tolerance and the δ∞ rule.
struct Run {
    hair_slip: f64,
    band_drift: f64,
    worst_error: f64,
    missed: usize,
}

fn run_head(with_band: bool, overrides: &[String]) -> Run {
    let mut s = running_head(with_band, overrides);
    let hair = s.model.rod_bundles[0].nodes.clone();
    let band = s.model.cloths.first().map(|c| c.nodes.clone()).unwrap_or(0..0);
    let half_width = band::WIDTH * 0.5 / RHO; // rad of latitude
    let lat0 = 10f64.to_radians();
    let start = in_head_frame(&s, hair.clone(), s.state.time);
    let under: Vec<usize> = (0..start.len()).filter(|&k| (latitude_of(&start[k]) - lat0).abs() <= half_width).collect();
    assert!(under.len() >= 96, "fewer nodes under the band than strands: {}", under.len());
    let mean_lat = |p: &[[f64; 3]]| latitude(p.as_flattened());
    let band0 = mean_lat(&in_head_frame(&s, band.clone(), s.state.time));
    let mut run = Run { hair_slip: 0.0, band_drift: 0.0, worst_error: 0.0, missed: 0 };
    for _ in 0..s.model.step_count() {
        let st = s.step().expect("finite state");
        run.worst_error = run.worst_error.max(st.final_residual);
        run.missed += usize::from(!st.converged);
        let now = in_head_frame(&s, hair.clone(), s.state.time);
        let dist = |k: &usize| (0..3).map(|d| (now[*k][d] - start[*k][d]).powi(2)).sum::<f64>().sqrt();
        run.hair_slip = under.iter().map(dist).fold(run.hair_slip, f64::max);
        if !band.is_empty() {
            let drift = mean_lat(&in_head_frame(&s, band.clone(), s.state.time)) - band0;
            run.band_drift = run.band_drift.max(drift.abs());
        }
    }
    run
}

/// 004 W7: the band holds the groom on the running head. The head turns ±30° at 2.5 Hz: its
/// scalp's tangential acceleration peaks at about 11 m/s², beyond what the hair's friction on the
/// skin under its weight (μ g = 2 m/s²) can give, so without the band the strands slide across
/// the scalp where the band would be; with the band (hoop tension 5.9 N: 63 N/m pressing them,
/// μ 0.2 on both sides) they follow the head. Measured (0.8 s, two strides): with the band the
/// hair under it moves 0.17 mm at most and the band 1.2e-4 rad (11 µm); without it the hair
/// there moves 117 mm. Bounds: held, 1 mm (a sixth of the strands' 5.8 mm spacing under the
/// band, six times the measure) and 1e-3 rad (0.09 mm, eight times); loose, 10 mm (a twelfth). Every step meets 004's δ∞ stop (0.01 mm); the
/// largest natural-map error of a step, 0.075 (004's rule stops there), is printed.
#[test]
fn a_band_holds_the_hair_on_a_running_head() {
    band_holds_the_hair(&[], 0);
}

/// The same with ADMM stopped at a ten times smaller δ∞ (0.001 mm): the
/// measure does not hang on 004's stopping rule. Measured: held 0.14 mm and 2.6e-4 rad, loose
/// 91 mm; worst natural-map error 5e-3; 2 of the 400 steps stop at the iteration limit short of
/// δ∞ (allowed: 1 %, each reported).
#[test]
#[ignore = "3 minutes: cargo test --release --test hair_band -- --ignored"]
fn a_band_holds_the_hair_with_a_tighter_stop() {
    band_holds_the_hair(&["pipeline.admm.delta_inf=1e-6".into()], 4);
}

/// Runs the scene with and without its band (`overrides` on both) and checks both.
fn band_holds_the_hair(overrides: &[String], allowed_missed: usize) {
    let held = run_head(true, overrides);
    let loose = run_head(false, overrides);
    println!(
        "with the band: hair under it moved {:.3e} m, band drift {:.3e} rad, worst error {:.2e}, {} steps short; \
         without: {:.3e} m, worst error {:.2e}, {} steps short",
        held.hair_slip,
        held.band_drift,
        held.worst_error,
        held.missed,
        loose.hair_slip,
        loose.worst_error,
        loose.missed
    );
    assert!(held.missed <= allowed_missed, "{} steps short of the stop", held.missed);
    assert!(held.hair_slip < 1e-3, "the band let the hair under it move {:e} m", held.hair_slip);
    assert!(held.band_drift < 1e-3, "the band's latitude drifted {:e} rad", held.band_drift);
    assert!(loose.hair_slip > 1e-2, "without the band the hair moved only {:e} m", loose.hair_slip);
}
