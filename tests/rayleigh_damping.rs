//! Rayleigh damping `D = α M + β K` of nodal bodies in the Nonsmooth pipeline, under both nodal
//! integrators (Projected Newton and the ADMM integrator), against the damped oscillator's
//! closed form.
//!
//! The oscillator: a rod of one segment (a spring of stiffness k = E π r² / L, root held, tip
//! mass m = ρ π r² L / 2 + 0.1 kg) moving along its axis, where the stretch energy is exactly
//! quadratic. `m ü + (α m + β k) u̇ + k u = 0`: amplitudes fall by `exp(−ζ ω T_d)` per damped
//! period `T_d = 2π / (ω √(1 − ζ²))`, with `ω² = k / m` and `ζ ω = (α + β ω²) / 2` (004 gives
//! its damping ξ as a time constant in ms: that is β here).

use fricsim::simulation::Simulation;

const LENGTH: f64 = 0.3;
const RADIUS: f64 = 1e-3;
const DENSITY: f64 = 1000.0;
const TIP: f64 = 0.1;
const YOUNGS: f64 = 1e9;

fn area() -> f64 {
    std::f64::consts::PI * RADIUS * RADIUS
}

/// `(k, m)` of the oscillator.
fn spring() -> (f64, f64) {
    (YOUNGS * area() / LENGTH, DENSITY * area() * LENGTH / 2.0 + TIP)
}

fn oscillator(h: f64, steps: usize, v0: f64, (alpha, beta): (f64, f64), admm: bool, tol: f64) -> Simulation {
    let integrator = if admm { "nodal_integrator: Admm, " } else { "" };
    let text = format!(
        r#"Scene(name: "spring", dt: {h:e}, duration: {d:e}, frame_rate: {fr:e}, gravity: (0.0, 0.0, 0.0),
    materials: {{ "m": (density: {DENSITY}, youngs_modulus: {YOUNGS:e}, poisson_ratio: 0.3, radius: {RADIUS}, damping: (alpha: {alpha:e}, beta: {beta:e})) }},
    bodies: [ Rods(name: "r", material: "m", fixed_roots: true, tip_mass: {TIP}, velocity: ({v0}, 0.0, 0.0),
                   curves: Straight(start: (0.0, 0.0, 0.0), end: ({LENGTH}, 0.0, 0.0), segments: 1)) ],
    pipeline: Nonsmooth({integrator}solver: Admm, tolerance: {tol:e}, max_iterations: 5000))"#,
        d = h * steps as f64,
        fr = 1.0 / (h * steps as f64),
    );
    let loaded = fricsim::scene::parse_scene_str(&text, "spring", std::path::Path::new("."), &[])
        .unwrap_or_else(|e| panic!("{e}"));
    let (model, state) = fricsim::scene::build::build(&loaded).unwrap_or_else(|e| panic!("{e}"));
    Simulation::new(model, state)
}

/// One backward-Euler step from rest length at `v₀` gives exactly
/// `v₁ = m v₀ / (m (1 + h α) + (h β + h²) k)`. Projected Newton lands on it to round-off; the
/// ADMM integrator stops at its tolerance, 1e-8 relative on the exact equation (its element
/// proximal steps stop at a gradient of 1e-10 of `w |z|`, which leaves the exact equation at
/// about 1e-9 relative: measured 1.1e-9 here), so its velocity, the equation's solution with the
/// matrix `m (1 + h α) + (h β + h²) k` ≈ m, is asserted to 1e-7.
#[test]
fn one_damped_step_matches_the_closed_form_under_both_integrators() {
    let (h, v0) = (1e-3, 0.5);
    let (k, m) = spring();
    for admm in [false, true] {
        for (alpha, beta) in [(0.0, 0.0), (3.0, 0.0), (0.0, 2e-3), (3.0, 2e-3)] {
            let mut sim = oscillator(h, 1, v0, (alpha, beta), admm, if admm { 1e-8 } else { 1e-10 });
            let st = sim.step().expect("finite");
            assert!(st.converged, "{:?}", st.failure);
            let want = m * v0 / (m * (1.0 + h * alpha) + (h * beta + h * h) * k);
            let got = sim.state.v[3];
            println!("admm {admm}, alpha {alpha}, beta {beta}: v1 {got} (closed form {want})");
            let tol = if admm { 1e-7 } else { 1e-12 };
            assert!((got / want - 1.0).abs() < tol, "admm {admm}, alpha {alpha}, beta {beta}: {got} vs {want}");
        }
    }
}

/// Natural logarithms of the ratios of successive positive peaks of the tip's displacement over
/// `periods` periods.
fn log_decrements(admm: bool, damping: (f64, f64), periods: f64, h: f64) -> Vec<f64> {
    let (k, m) = spring();
    let omega = (k / m).sqrt();
    let steps = (periods * 2.0 * std::f64::consts::PI / omega / h).ceil() as usize;
    let mut sim = oscillator(h, steps, 0.1, damping, admm, 1e-8);
    let mut u = Vec::with_capacity(steps);
    for _ in 0..steps {
        let st = sim.step().expect("finite");
        assert!(st.converged, "{:?}", st.failure);
        u.push(sim.state.q[3] - LENGTH);
    }
    let peaks: Vec<f64> =
        (1..u.len() - 1).filter(|&i| u[i] > 0.0 && u[i] >= u[i - 1] && u[i] > u[i + 1]).map(|i| u[i]).collect();
    peaks.windows(2).map(|w| (w[0] / w[1]).ln()).collect()
}

/// The damped rod oscillator's log decrement per period against `ζ ω T_d`: stiffness damping
/// (004's ξ as β) at ζ = 0.08 and 0.2 and mass damping at ζ = 0.08, under both integrators.
///
/// Tolerance: backward Euler adds its own decrement `ω² h T_d / 2` per period (its amplification
/// `1/√(1 + ω² h²)` per step for small `ω h`): with ω = 323 rad/s and h = 1e-5 s, 0.0102 per
/// period, 2.0 % of ζ = 0.08's 0.504 and 0.8 % of ζ = 0.2's 1.28. Asserted within 5 % (the
/// gate), and the undamped oscillator's decrement below 5 % of the smaller damped one, so the
/// decay asserted is the damping's.
#[test]
fn damped_rod_oscillator_log_decrement_matches_the_closed_form() {
    let h = 1e-5;
    let (k, m) = spring();
    let omega = (k / m).sqrt();
    let closed_form = |zeta: f64| 2.0 * std::f64::consts::PI * zeta / (1.0 - zeta * zeta).sqrt();
    let cases = [(0.08, (0.0, 2.0 * 0.08 / omega)), (0.2, (0.0, 2.0 * 0.2 / omega)), (0.08, (2.0 * 0.08 * omega, 0.0))];
    for admm in [false, true] {
        for (zeta, damping) in cases {
            let want = closed_form(zeta);
            let d = log_decrements(admm, damping, 2.2, h);
            println!("zeta {zeta}, admm {admm}, (alpha, beta) {damping:?}: decrements {d:?}, closed form {want}");
            assert!(!d.is_empty(), "no two peaks");
            for x in &d {
                assert!((x / want - 1.0).abs() < 0.05, "zeta {zeta}, admm {admm}, {damping:?}: {x} vs {want}");
            }
        }
        let undamped = log_decrements(admm, (0.0, 0.0), 2.2, h);
        println!("admm {admm}, undamped: {undamped:?}");
        assert!(!undamped.is_empty() && undamped.iter().all(|x| x.abs() < 0.05 * closed_form(0.08)), "{undamped:?}");
    }
}
