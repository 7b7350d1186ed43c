//! Rods with separate bending and stretching moduli (004): a horizontal cantilever sags under
//! its weight by the Euler–Bernoulli deflection w L⁴ / (8 E_b I), which depends on the bending
//! modulus alone.
//!
//! Set-up and tolerances: a 0.3 m rod of radius 1 mm (I = π r⁴/4), 1000 kg/m³, 20 segments,
//! clamped by holding its first two nodes (the clamp acts half a segment in: free length
//! L = 0.3 − 0.0075 m), released straight and settled by the Nonsmooth pipeline's backward Euler
//! at h = 5 ms over 2 s: its numerical damping ratio ω h / 2 (0.15 for the first mode at
//! E_b = 1e10 Pa, 0.075 at E_b / 4) leaves it at rest. Sag/L is 1–5 %, where the linear theory
//! holds to about (sag/L)²; measured against the closed form: −0.14 % and −0.28 %, asserted to
//! 1 %. The stretching modulus times 100 changes the sag by 4e-9 relative (measured), asserted
//! to 1e-6; E_b / 4 multiplies it by 3.994 (measured), asserted 4 to 1 %.

use fricsim::simulation::Simulation;

const LENGTH: f64 = 0.3;
const SEGMENTS: usize = 20;
const RADIUS: f64 = 1e-3;
const DENSITY: f64 = 1000.0;

fn tip_sag(youngs: f64, bending: Option<f64>) -> f64 {
    let bend = bending.map_or(String::new(), |e| format!(", bending_modulus: {e:e}"));
    let clamp = 1.5 * LENGTH / SEGMENTS as f64;
    let text = format!(
        r#"Scene(
    name: "cantilever", dt: 5e-3, duration: 2.0, frame_rate: 10.0,
    materials: {{ "steelish": (density: {DENSITY}, youngs_modulus: {youngs:e}, poisson_ratio: 0.3, radius: {RADIUS}{bend}) }},
    bodies: [ Rods(name: "beam", material: "steelish",
                   curves: Straight(start: (0.0, 0.0, 0.0), end: ({LENGTH}, 0.0, 0.0), segments: {SEGMENTS}),
                   kinematic: [ (region: Box(min: (-0.01, -0.01, -0.01), max: ({clamp}, 0.01, 0.01))) ]) ],
    pipeline: Nonsmooth(),
)"#
    );
    let loaded = fricsim::scene::parse_scene_str(&text, "cantilever", std::path::Path::new("."), &[])
        .unwrap_or_else(|e| panic!("{e}"));
    let (model, state) = fricsim::scene::build::build(&loaded).unwrap_or_else(|e| panic!("{e}"));
    let mut sim = Simulation::new(model, state);
    for _ in 0..400 {
        let st = sim.step().expect("finite");
        assert!(st.converged, "{:?}", st.failure);
    }
    let tip = 3 * SEGMENTS;
    -sim.state.q[tip + 2]
}

#[test]
fn cantilever_sag_follows_the_bending_modulus_alone() {
    let pi = std::f64::consts::PI;
    let (w, i) = (DENSITY * pi * RADIUS * RADIUS * 9.81, pi * RADIUS.powi(4) / 4.0);
    let free = LENGTH - 0.5 * LENGTH / SEGMENTS as f64;
    let theory = |eb: f64| w * free.powi(4) / (8.0 * eb * i);
    let base = tip_sag(1e10, None);
    let stiff_stretch = tip_sag(1e12, Some(1e10));
    let soft_bend = tip_sag(1e10, Some(2.5e9));
    println!(
        "sag {base:e} m (theory {:e}), E_s x100: {stiff_stretch:e}, E_b / 4: {soft_bend:e} (theory {:e})",
        theory(1e10),
        theory(2.5e9)
    );
    assert!((base / theory(1e10) - 1.0).abs() < 0.01, "sag {base} vs {}", theory(1e10));
    assert!((soft_bend / theory(2.5e9) - 1.0).abs() < 0.01, "sag {soft_bend} vs {}", theory(2.5e9));
    assert!((stiff_stretch / base - 1.0).abs() < 1e-6, "E_s changed the sag: {stiff_stretch} vs {base}");
    assert!((soft_bend / base / 4.0 - 1.0).abs() < 0.01, "E_b / 4 gave {} times the sag", soft_bend / base);
}

/// A bending modulus that is not a positive number is refused, naming the field (its place in
/// the file, and the unit or why a NaN is not a number).
#[test]
fn a_non_positive_bending_modulus_is_refused() {
    for bad in ["0.0", "-1e9", "NaN"] {
        let text = format!(
            r#"Scene(name: "bad", dt: 1e-3, duration: 0.1, frame_rate: 10.0,
    materials: {{ "m": (density: 1000.0, youngs_modulus: 1e9, poisson_ratio: 0.3, radius: 1e-3, bending_modulus: {bad}) }},
    bodies: [ Rods(name: "r", material: "m", curves: Straight(start: (0.0, 0.0, 0.0), end: (0.1, 0.0, 0.0), segments: 4)) ],
    pipeline: Nonsmooth())"#
        );
        let err = fricsim::scene::parse_scene_str(&text, "bad.ron", std::path::Path::new("."), &[])
            .err()
            .unwrap_or_else(|| panic!("{bad} accepted"))
            .to_string();
        let why = if bad == "NaN" { "must be a finite number" } else { "(Pa)" };
        assert!(
            err.contains("bad.ron:2:") && err.contains("materials.\"m\".bending_modulus") && err.contains(why),
            "{bad}: {err}"
        );
    }
}

/// One step of a rod of one segment (a spring of stiffness k = E π r² / L, root held, the tip's
/// mass m = ρ π r² L / 2 + 0.1 kg) moving axially from rest length at v₀, with Rayleigh damping
/// `(α, β)`: backward Euler gives exactly `v₁ = m v₀ / (m (1 + h α) + (h β + h²) k)` (the energy
/// is quadratic along the axis). Checked to 1e-12 relative for no damping, α alone and β alone,
/// in the Nonsmooth pipeline without contacts.
#[test]
fn rayleigh_damping_of_a_rod_step_is_exact() {
    let (e, h, v0, tip) = (1e9, 1e-3, 0.5, 0.1);
    for (alpha, beta) in [(0.0, 0.0), (3.0, 0.0), (0.0, 2e-3)] {
        let text = format!(
            r#"Scene(name: "spring", dt: {h}, duration: {h}, frame_rate: 1000.0, gravity: (0.0, 0.0, 0.0),
    materials: {{ "m": (density: {DENSITY}, youngs_modulus: {e:e}, poisson_ratio: 0.3, radius: {RADIUS}, damping: (alpha: {alpha}, beta: {beta})) }},
    bodies: [ Rods(name: "r", material: "m", fixed_roots: true, tip_mass: {tip}, velocity: ({v0}, 0.0, 0.0),
                   curves: Straight(start: (0.0, 0.0, 0.0), end: ({LENGTH}, 0.0, 0.0), segments: 1)) ],
    pipeline: Nonsmooth())"#
        );
        let loaded = fricsim::scene::parse_scene_str(&text, "spring", std::path::Path::new("."), &[])
            .unwrap_or_else(|e| panic!("{e}"));
        let (model, state) = fricsim::scene::build::build(&loaded).unwrap_or_else(|e| panic!("{e}"));
        let mut sim = Simulation::new(model, state);
        let st = sim.step().expect("finite");
        assert!(st.converged, "{:?}", st.failure);
        let area = std::f64::consts::PI * RADIUS * RADIUS;
        let (k, m) = (e * area / LENGTH, DENSITY * area * LENGTH / 2.0 + tip);
        let want = m * v0 / (m * (1.0 + h * alpha) + (h * beta + h * h) * k);
        let got = sim.state.v[3];
        println!("alpha {alpha}, beta {beta}: v1 {got} (closed form {want})");
        assert!((got / want - 1.0).abs() < 1e-12, "alpha {alpha}, beta {beta}: {got} vs {want}");
    }
}
