//! Cloth and rods in the nonsmooth pipeline (projected Newton + nodal ADMM, 004).

use fricsim::model::node;
use fricsim::simulation::Simulation;
use nalgebra::Vector3;
use std::f64::consts::PI;

fn sim(text: &str) -> Simulation {
    let loaded =
        fricsim::scene::parse_scene_str(text, "test", std::path::Path::new("."), &[]).unwrap_or_else(|e| panic!("{e}"));
    let (model, state) = fricsim::scene::build::build(&loaded).unwrap_or_else(|e| panic!("{e}"));
    Simulation::new(model, state)
}

/// Capstan (validation case 8): a thin rope over a fixed cylinder (radius R, axis y), loaded
/// by a tip mass on one side and held by a kinematic anchor on the other that pays out slowly,
/// so the rope slides over the cylinder towards the load. Returns the measured
/// `T_load / T_hold` at the cylinder (tensions where the rope leaves it).
fn capstan(mu: f64, wrap: f64) -> f64 {
    capstan_with(mu, wrap, "solver: FischerBurmeister, tolerance: 1e-6, max_iterations: 2000")
}

/// [`capstan`] with the given `Nonsmooth(...)` solver fields.
fn capstan_with(mu: f64, wrap: f64, solver: &str) -> f64 {
    let (big_r, r): (f64, f64) = (0.05, 0.001);
    let rr = big_r + r;
    let (len_hold, len_load, seg): (f64, f64, f64) = (0.2, 0.2, 0.005);
    let mut pts: Vec<Vector3<f64>> = Vec::new();
    // Hold side: vertical from below for a half wrap, horizontal from the left for a quarter.
    let start_angle = wrap; // polar angle (from +x, in the xz plane) where the rope meets the cylinder
    let tangent_in = Vector3::new(start_angle.sin(), 0.0, -start_angle.cos()); // direction of travel at contact
    let p_in = Vector3::new(rr * start_angle.cos(), 0.0, rr * start_angle.sin());
    let n_hold = (len_hold / seg).round() as usize;
    for k in 0..n_hold {
        pts.push(p_in - tangent_in * (len_hold * (1.0 - k as f64 / n_hold as f64)));
    }
    let n_arc = ((rr * wrap) / seg).round() as usize;
    for k in 0..n_arc {
        let a = start_angle - wrap * k as f64 / n_arc as f64;
        pts.push(Vector3::new(rr * a.cos(), 0.0, rr * a.sin()));
    }
    let n_load = (len_load / seg).round() as usize;
    for k in 0..=n_load {
        pts.push(Vector3::new(rr, 0.0, -len_load * k as f64 / n_load as f64));
    }
    let poly: Vec<String> = pts.iter().map(|p| format!("({}, {}, {})", p.x, p.y, p.z)).collect();
    let pay_out = tangent_in * 0.01;
    let text = format!(
        r#"Scene(name: "capstan", dt: 5e-3, frames: 1, frame_rate: 1.0, gravity: (0.0, 0.0, -9.81),
        materials: {{ "rope": (density: 300.0, youngs_modulus: 1e7, poisson_ratio: 0.3, radius: {r}), "post": () }},
        friction: (default: (mu: {mu})),
        bodies: [ Rods(name: "rope", material: "rope", curves: Polylines([[{}]]), fixed_roots: true,
                       root_motion: Velocity({}, {}, {}), tip_mass: 0.1, self_contact: false) ],
        colliders: [ Cylinder(name: "post", material: "post", radius: {big_r}, length: 0.1, rotation: (90.0, 0.0, 0.0)) ],
        pipeline: Nonsmooth({solver}))"#,
        poly.join(", "),
        pay_out.x,
        pay_out.y,
        pay_out.z
    );
    let mut s = sim(&text);
    let rod = &s.model.rod_bundles[0].rods[0];
    let (ks, first) = (rod.rod.stiffness.stretch, rod.first);
    let rest0 = (pts[1] - pts[0]).norm();
    let lambda = 300.0 * PI * r * r;
    let (steps, window) = (400, 100);
    let mut t_anchor = 0.0;
    for k in 0..steps {
        let st = s.step().expect("finite");
        assert!(st.converged, "mu {mu} wrap {wrap}: step {k}: {:?}", st.failure);
        if k >= steps - window {
            let e = node(&s.state.q, first + 1) - node(&s.state.q, first);
            t_anchor += ks * (e.norm() / rest0 - 1.0) / window as f64;
        }
    }
    // The hold side's own weight adds to the anchor tension where it is vertical.
    let hold_weight = if wrap > 0.75 * PI { lambda * len_hold * 9.81 } else { 0.0 };
    let t_hold = t_anchor + hold_weight;
    let t_load = (0.1 + lambda * len_load) * 9.81;
    t_load / t_hold
}

/// Validation case 8 with the issue's 3 % gate, for two wrap angles and two mu, plus the
/// frictionless control (ratio 1). Measured: 1.010, and 1.89/1.87, 3.55/3.51, 1.377/1.369,
/// 1.886/1.875 (errors 0.6–1.2 %). What separates the measurement from exp(mu phi):
/// - the load's remaining bounce, averaged over the last 0.5 s;
/// - the rope's bending stiffness, EI / (T R²) ~ 0.3 %;
/// - its weight along the arc, neglected in exp(mu phi), ~0.2 %;
/// - node-only contacts on a 5 mm polygon around R = 5 cm.
#[test]
fn capstan_tension_ratio_is_exp_mu_phi() {
    for (mu, wrap) in [(0.0, PI), (0.2, PI), (0.4, PI), (0.2, PI / 2.0), (0.4, PI / 2.0)] {
        let ratio = capstan(mu, wrap);
        let expected = (mu * wrap).exp();
        println!("mu {mu} wrap {wrap:.3}: T_load/T_hold = {ratio:.4}, exp(mu phi) = {expected:.4}");
        assert!((ratio / expected - 1.0).abs() < 0.03, "mu {mu} wrap {wrap}: {ratio} vs {expected}");
    }
}

/// Validation case 8 with ADMM (accelerated, the default) ended by 004's δ∞ rule
/// (`delta_inf: Some(1e-5)`): δ∞ ends each solve after tens of iterations at a large relative
/// residual that sits in the rope's stiff stretching mode (a velocity error below δ∞/h there is
/// a stretch error below 10 µm per step; see `tests/ropes.rs`). The tension ratio, which the
/// friction law decides, must still meet the 3 % gate of the FischerBurmeister test. Measured:
/// 3.560 against 3.514 (1.3 %) at mu 0.4 over a half wrap (FischerBurmeister 3.555), 1.377
/// against 1.369 (0.6 %) at mu 0.2 over a quarter wrap (FischerBurmeister 1.377); ~4 s.
#[test]
fn capstan_tension_ratio_with_admm_delta_inf() {
    let cases = [(0.4, PI), (0.2, PI / 2.0)];
    for (mu, wrap) in cases {
        let t = std::time::Instant::now();
        let ratio = capstan_with(
            mu,
            wrap,
            "solver: Admm, admm: (delta_inf: Some(1e-5)), tolerance: 1e-6, max_iterations: 2000",
        );
        let expected = (mu * wrap).exp();
        println!(
            "admm δ∞ mu {mu} wrap {wrap:.3}: T_load/T_hold = {ratio:.4}, exp(mu phi) = {expected:.4}, error {:.2} %, {:.1} s",
            100.0 * (ratio / expected - 1.0),
            t.elapsed().as_secs_f64()
        );
        assert!((ratio / expected - 1.0).abs() < 0.03, "mu {mu} wrap {wrap}: {ratio} vs {expected}");
    }
}

/// A cloth dropped on a sphere drapes over it: no node ends inside the sphere's surface offset by
/// the cloth's half thickness (velocity-level contacts allow a gap error of the solver tolerance
/// times the step's travel, far below the 0.1 mm asserted), and it comes to rest.
#[test]
fn cloth_drapes_over_a_sphere_without_penetrating() {
    let text = r#"Scene(name: "drape", dt: 2e-3, frames: 1, frame_rate: 1.0,
        materials: { "cotton": (density: 300.0, youngs_modulus: 1e6, poisson_ratio: 0.3, thickness: 1e-3), "ball": () },
        friction: (default: (mu: 0.4)),
        bodies: [ Cloth(name: "sheet", material: "cotton", mesh: Grid(size: (0.6, 0.6), cells: (12, 12)), position: (0.0, 0.0, 0.27)) ],
        colliders: [ Sphere(name: "ball", material: "ball", radius: 0.25) ],
        pipeline: Nonsmooth(solver: GaussSeidel, tolerance: 1e-5, max_iterations: 5000))"#;
    let mut s = sim(text);
    let mut deepest = f64::INFINITY;
    for k in 0..300 {
        let st = s.step().expect("finite");
        assert!(st.converged, "step {k}: {:?}", st.failure);
        for i in 0..s.model.node_count() {
            deepest = deepest.min(node(&s.state.q, i).norm() - 0.25 - 0.0005);
        }
    }
    assert!(deepest > -1e-4, "a node went {deepest:e} m into the sphere");
    let top = node(&s.state.q, 6 * 13 + 6);
    assert!((top.z - 0.2505).abs() < 2e-3, "the cloth's centre rests on the top of the sphere: z = {}", top.z);
}

/// No tunnelling: a rod thrown at 20 m/s at a pinned cloth (40 mm per step, 40x the cloth's
/// thickness) stays on its side.
/// A wire dart at a cloth pinned at two edges, 15 steps: asserts that no rod node ever gets
/// below the sheet; returns the contacts CCD added and the after-solve re-solves it caused.
/// `fast`: thrown at 20 m/s (proximity with the travel margin sees the cloth coming);
/// otherwise dropped from rest 5 mm above a sheet held still under 10⁴ m/s² gravity: the dart
/// reaches 20 m/s within the first step (40 mm of travel), so only CCD can see the impact; a
/// second rod resting on a floor away from the sheet keeps a contact problem (and ADMM) in
/// every step.
fn dart(fast: bool, ccd_every: usize) -> (usize, usize) {
    let (g, z, vz, pin) = if fast { (0.0, 0.05, -20.0, 0.19) } else { (-1e4, 0.005, 0.0, 0.0) };
    let pebble = if fast {
        ""
    } else {
        r#"Rods(name: "pebble", material: "wire", curves: Straight(start: (0.5, 0.0, -0.099), end: (0.55, 0.0, -0.099), segments: 2)),"#
    };
    let floor = if fast { "" } else { r#"Plane(name: "floor", material: "wire", position: (0.0, 0.0, -0.1))"# };
    let text = format!(
        r#"Scene(name: "tunnel", dt: 2e-3, frames: 1, frame_rate: 1.0, gravity: (0.0, 0.0, {g}),
        materials: {{
            "cotton": (density: 300.0, youngs_modulus: 1e6, poisson_ratio: 0.3, thickness: 1e-3),
            "wire": (density: 7800.0, youngs_modulus: 1e9, poisson_ratio: 0.3, radius: 1e-3),
        }},
        friction: (default: (mu: 0.3)),
        bodies: [
            Cloth(name: "sheet", material: "cotton", mesh: Grid(size: (0.4, 0.4), cells: (16, 16)),
                  kinematic: [(region: Box(min: (-1.0, -1.0, -1.0), max: (-{pin}, 1.0, 1.0))), (region: Box(min: ({pin}, -1.0, -1.0), max: (1.0, 1.0, 1.0)))]),
            Rods(name: "dart", material: "wire", curves: Straight(start: (-0.05, 0.013, {z}), end: (0.05, -0.011, {z}), segments: 8), velocity: (0.0, 0.0, {vz})),
            {pebble}
        ],
        colliders: [{floor}],
        pipeline: Nonsmooth(solver: Admm, tolerance: 1e-4, max_iterations: 500, on_failure: Continue,
                            admm: (ccd_every: {ccd_every})))"#
    );
    let mut s = sim(&text);
    let rod = s.model.rod_bundles[0].nodes.clone();
    let (mut added, mut resolves) = (0, 0);
    for _ in 0..15 {
        let st = s.step().expect("finite");
        added += st.ccd_contacts;
        resolves += st.contact_iterations;
        for i in rod.clone() {
            let x = node(&s.state.q, i);
            // The cloth is pinned at x = +-0.2 and sags; the dart must stay above the sheet
            // at its own (x, y): above the lowest cloth node within 2 cells of it.
            let below = (0..s.model.cloths[0].nodes.len())
                .map(|k| node(&s.state.q, k))
                .filter(|c| (c.x - x.x).abs() < 0.05 && (c.y - x.y).abs() < 0.05)
                .map(|c| c.z)
                .fold(f64::INFINITY, f64::min);
            assert!(x.z > below, "rod node {i} at z = {} passed the cloth (lowest nearby cloth node z = {below})", x.z);
        }
    }
    (added, resolves)
}

#[test]
fn fast_rod_does_not_pass_through_cloth() {
    dart(true, 5);
}

#[test]
fn rod_accelerated_within_a_step_is_caught_by_ccd() {
    // CCD only after the solve: the impact is found there and the step re-solved.
    let (added_after, resolves_after) = dart(false, 0);
    // CCD inside the ADMM iterations (004 §5.2): the impact joins the running solve, which also
    // checks the iterate it returns, so the after-solve check finds nothing left to re-solve.
    let (added_inside, resolves_inside) = dart(false, 5);
    println!(
        "after-solve CCD: {added_after} contacts, {resolves_after} re-solves; in-ADMM CCD: {added_inside} contacts, {resolves_inside} re-solves"
    );
    assert!(added_after > 0 && resolves_after > 0, "the dart must need CCD at all");
    assert!(added_inside > 0 && resolves_inside == 0);
}

/// The nodal step gives bit-identical results with 1 and 2 threads: parallel kernels write
/// into per-stencil slots that are scattered in a fixed order, contact detection sorts its
/// output, and the ADMM sweep is coloured (contacts of one colour touch disjoint nodes).
#[test]
fn nodal_step_is_bit_identical_for_one_and_two_threads() {
    let text = r#"Scene(name: "det", dt: 2e-3, frames: 1, frame_rate: 1.0,
        materials: { "cotton": (density: 300.0, youngs_modulus: 1e6, poisson_ratio: 0.3, thickness: 1e-3),
                     "hair": (density: 1300.0, youngs_modulus: 4e9, poisson_ratio: 0.35, radius: 5e-4), "ball": () },
        friction: (default: (mu: 0.4)),
        bodies: [
            Cloth(name: "sheet", material: "cotton", mesh: Grid(size: (0.6, 0.6), cells: (12, 12)), position: (0.0, 0.0, 0.27)),
            Rods(name: "fur", material: "hair", curves: HairyBall(center: (0.0, 0.0, 0.4), radius: 0.03, count: 60, length: 0.04, segments: 8, curliness: 0.3)),
        ],
        colliders: [ Sphere(name: "ball", material: "ball", radius: 0.25) ],
        pipeline: Nonsmooth(solver: Admm, tolerance: 1e-4, max_iterations: 300, on_failure: Continue))"#;
    let run = |threads: usize| {
        let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build().expect("pool");
        pool.install(|| {
            let mut s = sim(text);
            for _ in 0..60 {
                s.step().expect("finite");
            }
            (s.state.q.clone(), s.state.v.clone())
        })
    };
    let (one, two) = (run(1), run(2));
    assert!(one.0.iter().zip(&two.0).all(|(a, b)| a.to_bits() == b.to_bits()), "positions differ");
    assert!(one.1.iter().zip(&two.1).all(|(a, b)| a.to_bits() == b.to_bits()), "velocities differ");
}

/// An elastic block (48 tets) on a plane tilted to tan(theta) = 0.5 with exact Coulomb friction
/// (nonsmooth pipeline, tets as projected-Newton stencils), starting from static equilibrium
/// (`settle`: placed unstressed, the landing's elastic waves would make a block this close to the
/// threshold slip). At mu = 0.501 it does not creep (the smoothed friction of the penalty
/// pipeline must, validation case 4): under 1e-5 m in 0.5 s. At mu = 0.499 it slides at
/// a = g (sin - mu cos) = 1e-3 g cos, ~1 mm in 0.5 s, within 2 % (time discretization and the
/// 1e-6 solver tolerance).
#[test]
fn elastic_block_on_incline_with_exact_coulomb() {
    let theta = 0.5f64.atan();
    for (mu, slides) in [(0.501, false), (0.499, true)] {
        let text = format!(
            r#"Scene(name: "block", dt: 1e-3, frames: 1, frame_rate: 1.0, settle: 0.1,
            materials: {{ "rubber": (density: 1000.0, youngs_modulus: 1e7, poisson_ratio: 0.3), "ramp": () }},
            friction: (default: (mu: {mu})),
            bodies: [ Solid(name: "b", material: "rubber", mesh: Box(size: (0.1, 0.1, 0.05), cells: (2, 2, 2)),
                            position: ({}, 0.0, {}), rotation: (0.0, {}, 0.0)) ],
            colliders: [ Plane(name: "ramp", material: "ramp", rotation: (0.0, {}, 0.0)) ],
            pipeline: Nonsmooth(solver: FischerBurmeister, tolerance: 1e-6, max_iterations: 2000))"#,
            0.025 * theta.sin(),
            0.025 * theta.cos(),
            theta.to_degrees(),
            theta.to_degrees()
        );
        let mut s = sim(&text);
        let n = s.model.node_count();
        let centroid = |s: &Simulation| (0..n).map(|i| node(&s.state.q, i)).sum::<Vector3<f64>>() / n as f64;
        let down = Vector3::new(theta.cos(), 0.0, -theta.sin());
        let x0 = centroid(&s);
        for k in 0..500 {
            let st = s.step().expect("finite");
            assert!(st.converged, "mu {mu} step {k}: {:?}", st.failure);
        }
        let d = (centroid(&s) - x0).dot(&down);
        let a = 9.81 * (theta.sin() - mu * theta.cos());
        if slides {
            let expected = 0.5 * a * 0.25;
            assert!((d - expected).abs() < 0.02 * expected, "mu {mu}: slid {d} m, expected {expected}");
        } else {
            assert!(d.abs() < 1e-5, "mu {mu}: the block must not creep, moved {d:e} m");
        }
    }
}

/// The shipped hairy ball at 2000 rods of 0.5 mm (one frame: over 10k contacts, so the contact
/// Jacobian has more than the 262k entries where the error's products and sums go parallel, and
/// the coloured sweep has many colours) writes the same bytes with 1 and 2 threads.
#[test]
fn shipped_hairy_ball_is_bit_identical_for_one_and_two_threads() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let base = tempfile::tempdir().expect("a temporary folder");
    let run = |threads: usize| {
        let out = base.path().join(format!("t{threads}"));
        let status = std::process::Command::new(env!("CARGO_BIN_EXE_fricsim"))
            .arg("run")
            .arg(root.join("scenes/hairy_ball.ron"))
            .args(["--set", "materials.\"hair\".radius=5e-4", "--set", "bodies[0].curves.count=2000"])
            .args(["--frames", "1", "--quiet", "--out"])
            .arg(&out)
            .env("RAYON_NUM_THREADS", threads.to_string())
            .status()
            .expect("fricsim runs");
        assert!(status.success());
        let stats = fricsim::output::csv_table::Table::read(&out.join("stats.csv")).expect("stats.csv");
        let k = stats.column("active_contacts").expect("a contacts column");
        let contacts = stats.numbers(k).into_iter().fold(0.0, f64::max) as usize;
        (std::fs::read(out.join("vtk/fur_00001.vtu")).expect("last frame"), contacts)
    };
    let (one, two) = (run(1), run(2));
    assert!(one.1 > 10_000, "the parallel kernels are exercised ({} contacts)", one.1);
    assert!(one.0 == two.0, "the last frame differs between 1 and 2 threads");
}
