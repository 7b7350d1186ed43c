//! A solid that starts displaced from its rest shape (`displacement:`): where its nodes start,
//! the strain energy it starts with, and what a reduced solid's frame and modes take of a field.

#[path = "support/scene_run.rs"]
mod scene_run;

use fricsim::simulation::Simulation;
use nalgebra::{Rotation3, Vector3};
use scene_run::simulation;

const E: f64 = 1e6;
const NU: f64 = 0.3;

/// A 0.2 x 0.05 x 0.05 m bar turned 90 degrees about z and placed at (1, 2, 3), with the
/// displacement `field` (three formulas) and `extra` fields.
fn bar(field: Option<[&str; 3]>, extra: &str) -> Simulation {
    let displacement =
        field.map_or(String::new(), |[x, y, z]| format!("displacement: (x: \"{x}\", y: \"{y}\", z: \"{z}\"),"));
    simulation(&format!(
        r#"Scene(
    name: "bar", dt: 1e-3, frames: 1, frame_rate: 1000.0, gravity: (0.0, 0.0, 0.0),
    materials: {{ "m": (density: 1000.0, youngs_modulus: {E}, poisson_ratio: {NU}, model: StableNeoHookean) }},
    bodies: [ Solid(name: "bar", material: "m", mesh: Box(size: (0.2, 0.05, 0.05), cells: (8, 2, 2)),
                    position: (1.0, 2.0, 3.0), rotation: (0.0, 0.0, 90.0), {displacement} {extra}) ],
    pipeline: Nonsmooth(),
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
/// differs at third order: a relative `O(ε)`, 1e-3 here, so 1 % bounds it with room).
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
    assert!(worst < 1e-15, "nodes off the field by {worst:.2e} m");
    let none = strain_energy(&rest);
    let (lambda, mu) = (E * NU / ((1.0 + NU) * (1.0 - 2.0 * NU)), E / (2.0 * (1.0 + NU)));
    let want = 0.5 * (lambda + 2.0 * mu) * eps * eps * 0.2 * 0.05 * 0.05;
    let got = strain_energy(&stretched);
    // Round-off of energy terms of size μ V (4e5 Pa x 1.25e-4 m³ over 192 tets): about 1e-14 J.
    assert!(none.abs() < 1e-12, "no displacement, energy {none:.2e} J");
    println!("strain energy {got:.6e} J, linear elasticity {want:.6e} J");
    assert!((got / want - 1.0).abs() < 1e-2, "energy {got:.4e} against {want:.4e}");
    let d = stretched.model.solids[0].displaced.expect("recorded for check");
    assert!((d.largest - eps * 0.1).abs() < 1e-15 && d.off == 0.0, "{d:?}");
}

/// A reduced solid takes a rigid field in its frame, a translation and a turn of 0.01 rad about z
/// (the rotation nearest the field is exact for a rigid one), leaving its modes at rest: to
/// round-off of the bar's coordinates.
#[test]
fn a_reduced_bar_takes_a_rigid_field_in_its_frame() {
    let reduced = "reduced: Modal(modes: 6),";
    let moved = bar(Some(["0.001", "-0.002", "0.003"]), reduced);
    let turned = bar(Some(["cos(0.01) * x - sin(0.01) * y - x", "sin(0.01) * x + cos(0.01) * y - y", "0"]), reduced);
    let rest = bar(None, reduced);
    for (s, bound) in [(&moved, 1e-15), (&turned, 1e-15)] {
        let d = s.model.solids[0].displaced.expect("recorded");
        let q = &s.state.reduced[0].q;
        println!("largest {:.3e} m, taken to within {:.3e} m, |q| {:.2e}", d.largest, d.off, q.norm());
        assert!(d.off <= bound, "taken to within {:.3e} m", d.off);
        assert!(q.norm() < 1e-12 * d.largest, "modes moved: {q}");
        // The nodes are where the frame puts them.
        let body = &s.model.reduced[0];
        for (i, x) in body.positions(&s.state.reduced[0]).enumerate() {
            assert!((x - node(&s.state.q, body.nodes.start + i)).norm() < 1e-15);
        }
    }
    let shift = moved.state.reduced[0].position - rest.state.reduced[0].position;
    let rot = Rotation3::from_axis_angle(&Vector3::z_axis(), 90f64.to_radians());
    assert!((shift - rot * Vector3::new(0.001, -0.002, 0.003)).norm() < 1e-15, "frame moved by {shift}");
    let turn = turned.state.reduced[0].orientation.angle_to(&rest.state.reduced[0].orientation);
    assert!((turn - 0.01).abs() < 1e-14, "frame turned by {turn}");
}

/// A bending field is taken by the modes up to what they miss: the bar bent in a parabola (its
/// cross-sections turning with it, a bending and not a shear; 0.83 mm at the ends relative to
/// the frame) is taken to within 0.10 mm by 12 modes and 0.05 mm by 48 (measured). Linear tets
/// two cells thick lock in bending, so part of a pure bending field lies in the mesh's high
/// modes; more modes take it closer (in the mass norm they cannot do worse).
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
