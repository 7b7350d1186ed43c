//! A solid that starts displaced from its rest shape (`displacement:`): where its nodes start,
//! the strain energy it starts with, and what a reduced solid's frame and modes take of a field.

#[path = "support/scene_run.rs"]
mod scene_run;

use fricsim::simulation::Simulation;
use nalgebra::{Rotation3, UnitQuaternion, Vector3};
use scene_run::simulation;

const E: f64 = 1e6;
const NU: f64 = 0.3;

/// A 0.2 x 0.05 x 0.05 m bar turned 90 degrees about z and placed at (1, 2, 3), with the
/// displacement `field` (three formulas) and `extra` fields.
fn bar(field: Option<[&str; 3]>, extra: &str) -> Simulation {
    bar_settled(field, extra, 0.0)
}

/// The same bar relaxed for `settle` seconds before the run.
fn bar_settled(field: Option<[&str; 3]>, extra: &str, settle: f64) -> Simulation {
    bar_in(field, extra, settle, "Nonsmooth()")
}

/// The same bar under `pipeline`.
fn bar_in(field: Option<[&str; 3]>, extra: &str, settle: f64, pipeline: &str) -> Simulation {
    let displacement =
        field.map_or(String::new(), |[x, y, z]| format!("displacement: (x: \"{x}\", y: \"{y}\", z: \"{z}\"),"));
    simulation(&format!(
        r#"Scene(
    name: "bar", dt: 1e-3, frames: 1, frame_rate: 1000.0, gravity: (0.0, 0.0, 0.0), settle: {settle:?},
    materials: {{ "m": (density: 1000.0, youngs_modulus: {E}, poisson_ratio: {NU}, model: StableNeoHookean) }},
    bodies: [ Solid(name: "bar", material: "m", mesh: Box(size: (0.2, 0.05, 0.05), cells: (8, 2, 2)),
                    position: (1.0, 2.0, 3.0), rotation: (0.0, 0.0, 90.0), {displacement} {extra}) ],
    pipeline: {pipeline},
)"#
    ))
}

fn node(q: &[f64], i: usize) -> Vector3<f64> {
    Vector3::new(q[3 * i], q[3 * i + 1], q[3 * i + 2])
}

/// The strain energy of the solid's tets at the state's positions.
fn strain_energy(s: &Simulation) -> f64 {
    let solid = &s.model.solids[0];
    solid.elements.iter().map(|e| e.energy(&solid.elastic, &e.nodes.map(|i| node(&s.state.q, i)))).sum()
}

/// `u = (ε x, 0, 0)` in the bar's own axes is uniaxial strain: every node moves by `R u`, and the
/// bar starts with the energy `½ (λ + 2μ) ε² V` of linear elasticity (the neo-Hookean energy
/// differs at third order: a relative `O(ε)`, at most 1e-3 here; measured 3e-5).
#[test]
fn a_stretched_bar_starts_where_and_as_stressed_as_the_field_says() {
    let eps = 1e-3;
    let rest = bar(None, "");
    let stretched = bar(Some(["0.001 * x", "0", "0"]), "");
    let rot = Rotation3::from_axis_angle(&Vector3::z_axis(), 90f64.to_radians());
    let place = Vector3::new(1.0, 2.0, 3.0);
    let mut worst: f64 = 0.0;
    for i in 0..rest.model.node_count() {
        let (x0, x) = (node(&rest.state.q, i), node(&stretched.state.q, i));
        let own = rot.inverse() * (x0 - place);
        worst = worst.max((x - x0 - rot * Vector3::new(eps * own.x, 0.0, 0.0)).norm());
    }
    // Coordinates up to 3.6 m: a few ulps are 1e-15 m.
    assert!(worst < 1e-14, "nodes off the field by {worst:.2e} m");
    let none = strain_energy(&rest);
    let (lambda, mu) = (E * NU / ((1.0 + NU) * (1.0 - 2.0 * NU)), E / (2.0 * (1.0 + NU)));
    let want = 0.5 * (lambda + 2.0 * mu) * eps * eps * 0.2 * 0.05 * 0.05;
    let got = strain_energy(&stretched);
    // Round-off of energy terms of size μ V (3.8e5 Pa x 5e-4 m³ = 190 J): about 1e-14 J.
    assert!(none.abs() < 1e-12, "no displacement, energy {none:.2e} J");
    println!("strain energy {got:.6e} J, linear elasticity {want:.6e} J");
    assert!((got / want - 1.0).abs() < eps, "energy {got:.4e} against {want:.4e}");
    let d = stretched.model.solids[0].displaced.expect("recorded for check");
    assert!((d.largest - eps * 0.1).abs() < 1e-15, "{d:?}");
}

/// A reduced solid takes a rigid field in its frame, a translation and a turn of 0.01 rad about
/// the mesh's x axis (the rotation nearest the field is exact for a rigid one; the bar is placed
/// turned about z, so the turn must compose on the right), leaving its modes at rest: to
/// round-off of the bar's coordinates.
#[test]
fn a_reduced_bar_takes_a_rigid_field_in_its_frame() {
    let reduced = "reduced: Modal(modes: 6),";
    let moved = bar(Some(["0.001", "-0.002", "0.003"]), reduced);
    let turned = bar(Some(["0", "cos(0.01) * y - sin(0.01) * z - y", "sin(0.01) * y + cos(0.01) * z - z"]), reduced);
    let rest = bar(None, reduced);
    for (s, bound) in [(&moved, 1e-16), (&turned, 1e-16)] {
        let d = s.model.solids[0].displaced.expect("recorded");
        let q = &s.state.reduced[0].q;
        println!("largest {:.3e} m, taken to within {:.3e} m, |q| {:.2e}", d.largest, d.off, q.norm());
        assert!(d.off <= bound, "taken to within {:.3e} m", d.off);
        assert!(q.norm() < 1e-12 * d.largest, "modes moved: {q}");
        // The nodes are where the frame puts them.
        let body = &s.model.reduced[0];
        for (i, x) in body.positions(&s.state.reduced[0]).enumerate() {
            assert!((x - node(&s.state.q, body.nodes.start + i)).norm() < 1e-14);
        }
    }
    let shift = moved.state.reduced[0].position - rest.state.reduced[0].position;
    let rot = Rotation3::from_axis_angle(&Vector3::z_axis(), 90f64.to_radians());
    assert!((shift - rot * Vector3::new(0.001, -0.002, 0.003)).norm() < 1e-14, "frame moved by {shift}");
    let want = rest.state.reduced[0].orientation * UnitQuaternion::from_axis_angle(&Vector3::x_axis(), 0.01);
    let off = turned.state.reduced[0].orientation.angle_to(&want);
    assert!(off < 1e-14, "frame turned {off:.2e} rad off");
}

/// A bending field is taken by the modes up to what they miss: the bar bent in a parabola (its
/// cross-sections turning with it, a bending and not a shear; 0.83 mm at the ends relative to
/// the frame) is taken to within 0.10 mm by 12 modes and 0.05 mm by 48 (measured; the bounds
/// leave 50 % and 30 % of room). Linear tets two cells thick lock in bending, so part of a pure
/// bending field lies in the mesh's high modes, which more modes reach.
#[test]
fn a_reduced_bar_takes_a_bending_field_in_its_modes() {
    let field = ["-0.2 * z * x", "0", "0.1 * x * x"];
    let off = |modes: usize| {
        let s = bar(Some(field), &format!("reduced: Modal(modes: {modes}),"));
        let d = s.model.solids[0].displaced.expect("recorded");
        assert!(s.state.reduced[0].q.norm() > 0.0, "the modes took nothing");
        println!("{modes} modes: largest {:.3e} m, taken to within {:.3e} m", d.largest, d.off);
        d.off
    };
    let (few, many) = (off(12), off(48));
    assert!(few < 1.5e-4, "12 modes: {few:.3e} m");
    assert!(many < 0.7 * few, "48 modes: {many:.3e} m against {few:.3e} m");
}

/// `settle` relaxes a bent reduced bar: each relaxation step starts from rest (the frame's and
/// the modes' rates zeroed, as nodal velocities are), so the bend decays instead of ringing, and
/// the run starts at the scene's velocities (here at rest). Over 0.2 s of 1 ms steps the bend's
/// lowest modes (about 40-100 Hz, ωh ≈ 0.25-0.6) lose all but a few per cent.
#[test]
fn settle_relaxes_a_bent_reduced_bar() {
    let field = ["-0.2 * z * x", "0", "0.1 * x * x"];
    let reduced = "reduced: Modal(modes: 12),";
    let (bent, settled) = (bar(Some(field), reduced), bar_settled(Some(field), reduced, 0.2));
    let (before, after) = (&bent.state.reduced[0], &settled.state.reduced[0]);
    println!("|q| {:.3e} before settling, {:.3e} after", before.q.norm(), after.q.norm());
    assert!(after.q.norm() < 0.05 * before.q.norm(), "the bend did not relax: {}", after.q.norm());
    let rates = after.linear_velocity.norm() + after.angular_velocity.norm() + after.qdot.norm();
    assert_eq!(rates, 0.0, "the run starts at the scene's velocities");
}

/// `fricsim check` says how the displacement was taken: for a full solid its largest value, for
/// a reduced one also how far the modes left it.
#[test]
fn check_reports_the_displacement() {
    let dir = tempfile::tempdir().expect("temp dir");
    let scene = |extra: &str| {
        format!(
            r#"Scene(name: "bar", dt: 1e-3, frames: 1, frame_rate: 1000.0,
    materials: {{ "m": (density: 1000.0, youngs_modulus: {E}, poisson_ratio: {NU}) }},
    bodies: [ Solid(name: "bar", material: "m", mesh: Box(size: (0.2, 0.05, 0.05), cells: (8, 2, 2)),
                    displacement: (x: "0.001 * x", y: "0", z: "0"), {extra}) ],
    pipeline: Nonsmooth())"#
        )
    };
    for (extra, want) in [
        ("", "starts displaced from its rest shape by up to 1.000e-4 m\n"),
        (
            "reduced: Modal(modes: 12)",
            "starts displaced from its rest shape by up to 1.000e-4 m, taken by the modes to within",
        ),
    ] {
        let path = dir.path().join("bar.ron");
        std::fs::write(&path, scene(extra)).expect("write scene");
        let out =
            std::process::Command::new(env!("CARGO_BIN_EXE_fricsim")).arg("check").arg(&path).output().expect("run");
        let text = String::from_utf8_lossy(&out.stdout);
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        assert!(text.contains(want), "`{want}` not in:\n{text}");
    }
}

/// The build sets the nodes, so every pipeline starts from the same displaced ones, bit for bit.
#[test]
fn every_pipeline_starts_from_the_same_nodes() {
    let field = Some(["0.001 * x", "0.0005 * z", "0.1 * x * x"]);
    let nodes = |pipeline: &str| bar_in(field, "", 0.0, pipeline).state.q;
    let nonsmooth = nodes("Nonsmooth()");
    for pipeline in ["Penalty()", "Smooth(field: (kernel: Cubic, radius: 0.02))"] {
        assert_eq!(nodes(pipeline), nonsmooth, "{pipeline}");
    }
}
