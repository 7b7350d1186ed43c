//! Mesh colliders in the nodal pipelines (`Penalty`, `Nonsmooth`): a soft block riding on a
//! turntable given as a triangle mesh that is spun (`Spin`), animated (an OBJ sequence) or
//! skinned (a glTF clip), against the analytic reference, a `Plane` collider with the same
//! `Spin`, whose turning surface drags what touches it; and the stick/slip threshold μ g = ω² r.

#[path = "support/scene_run.rs"]
mod scene_run;
#[path = "support/turntable.rs"]
mod table;

use std::path::Path;
use table::{DT, G, OMEGA, R, plate_obj, spun_plate};

const PENALTY: &str = "Penalty(contact: (delta: 1e-4))";
const NONSMOOTH: &str = "Nonsmooth()";

/// A 5 cm soft block (one hexahedral cell of tets) at radius R co-rotating with the table at
/// t = 0, on `plate`, in `pipeline`.
fn block(dir: &Path, pipeline: &str, plate: &str, mu: f64) -> fricsim::simulation::Simulation {
    // Penalty contact rests a little inside its layer; the block starts touching.
    let z = if pipeline == PENALTY { 0.025 + 5e-5 } else { 0.025 };
    let text = format!(
        r#"Scene(
    name: "turntable", dt: {DT}, frames: 1, frame_rate: 1.0,
    materials: {{ "m": (density: 500.0, youngs_modulus: 1e6, poisson_ratio: 0.3) }},
    friction: (default: (mu: {mu}), epsilon: 1e-5),
    bodies: [ Solid(name: "box", material: "m", mesh: Box(size: (0.05, 0.05, 0.05), cells: (1, 1, 1)),
                    position: ({R}, 0.0, {z}), velocity: (0.0, {vy}, 0.0), angular_velocity: (0.0, 0.0, {w})) ],
    colliders: [ {plate} ],
    pipeline: {pipeline},
)"#,
        vy = OMEGA * R,
        w = OMEGA.to_degrees()
    );
    scene_run::simulation_in(&text, dir)
}

fn centroid(s: &fricsim::simulation::Simulation) -> nalgebra::Vector3<f64> {
    s.state.centroid(&s.model, &s.model.solids[0]).0
}

/// The plate as an analytic plane spun about z.
fn plane() -> String {
    format!(
        r#"Plane(name: "plate", material: "m", motion: Spin(pivot: (0.0, 0.0, 0.0), axis: (0.0, 0.0, 1.0), rate: {}))"#,
        OMEGA.to_degrees()
    )
}

/// The plate as an OBJ sequence, one frame per step.
fn sequence(dir: &Path, seconds: f64) -> String {
    for k in 0..=(seconds / DT).round() as usize {
        std::fs::write(dir.join(format!("plate_{k:04}.obj")), plate_obj(OMEGA * k as f64 * DT)).unwrap();
    }
    format!(r#"Mesh(name: "plate", material: "m", path: "plate_{{:04}}.obj", animation: (fps: {}))"#, 1.0 / DT)
}

/// The plate as the glTF clip of tests/data/gltf/turntable.glb.
fn gltf(dir: &Path) -> String {
    let data = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/gltf/turntable.glb");
    std::fs::copy(data, dir.join("turntable.glb")).unwrap();
    r#"Mesh(name: "plate", material: "m", path: "turntable.glb", animation: (loop: true))"#.into()
}

/// The gate, in both nodal pipelines: over 100 steps the block on the spun, the animated and
/// the skinned mesh turntable moves as on the analytic spun plane. The mesh plate's vertices land
/// on their paths each step and its triangles' velocities at the touching points are the chord
/// velocities the spun plane gives them, so what differs is round-off, the glTF's f32 key times
/// (~1e-8 rad) and the kernels (vertex–triangle against vertex–plane, the same distances here).
#[test]
fn a_block_on_a_mesh_turntable_moves_as_on_the_spun_plane() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let plates = [("Spin", spun_plate(d)), ("sequence", sequence(d, 0.1)), ("glTF", gltf(d))];
    for pipeline in [PENALTY, NONSMOOTH] {
        let mut reference = block(d, pipeline, &plane(), 0.4);
        let mut sims: Vec<_> = plates.iter().map(|(_, p)| block(d, pipeline, p, 0.4)).collect();
        let mut worst = [0.0f64; 3];
        for _ in 0..100 {
            scene_run::run_for(&mut reference, DT, DT);
            for (w, s) in worst.iter_mut().zip(&mut sims) {
                scene_run::run_for(s, DT, DT);
                *w = w.max((centroid(s) - centroid(&reference)).norm());
            }
        }
        for ((name, _), w) in plates.iter().zip(worst) {
            println!("{pipeline}: {name} plate, largest difference from the spun plane {w:e} m");
            assert!(w < 1e-6, "{pipeline}: the {name} turntable moved the block {w:e} m from the spun plane");
        }
        let p = centroid(&reference);
        let a = OMEGA * 100.0 * DT;
        assert!((p.xy() - nalgebra::Vector2::new(R * a.cos(), R * a.sin())).norm() < 1e-3, "{pipeline}: {p}");
    }
}

/// Stick iff μ g ≥ ω² r, in both nodal pipelines, on the animated sequence: at 1.02 μ* the
/// block keeps its radius over 1 s, at 0.98 μ* it slides outwards (the net outward acceleration
/// 0.02 ω² r = 0.054 m/s² gives centimetres in a second).
#[test]
fn a_block_on_an_animated_mesh_turntable_sticks_iff_mu_g_reaches_omega_squared_r() {
    let dir = tempfile::tempdir().unwrap();
    let plate = sequence(dir.path(), 1.0);
    let critical = OMEGA * OMEGA * R / G;
    for pipeline in [PENALTY, NONSMOOTH] {
        for (factor, sticks) in [(1.02, true), (0.98, false)] {
            let mut s = block(dir.path(), pipeline, &plate, factor * critical);
            scene_run::run_for(&mut s, 1.0, DT);
            let drift = centroid(&s).xy().norm() - R;
            println!("{pipeline}: mu = {factor} mu*: radial drift {drift:e} m");
            if sticks {
                assert!(drift.abs() < 1e-3, "{pipeline}: mu {factor} mu*: drifted {drift} m");
            } else {
                assert!(drift > 1e-2, "{pipeline}: mu {factor} mu*: drifted only {drift} m");
            }
        }
    }
}

/// An axis-aligned box `[-a, a]² × [0, 2 b]` as an OBJ with outward triangles.
fn box_obj(a: f64, b: f64) -> String {
    let mut text = String::new();
    for k in 0..8 {
        let s = |bit: usize| if k >> bit & 1 == 1 { 1.0 } else { -1.0 };
        text += &format!("v {} {} {}\n", a * s(0), a * s(1), b + b * s(2));
    }
    // Faces as corner-index quads (1-based), counter-clockwise seen from outside.
    for [p, q, r, t] in [[1, 3, 4, 2], [5, 6, 8, 7], [1, 2, 6, 5], [3, 7, 8, 4], [1, 5, 7, 3], [2, 4, 8, 6]] {
        text += &format!("f {p} {q} {r}\nf {p} {r} {t}\n");
    }
    text
}

/// A cloth dropped onto a table given as a static mesh box (Nonsmooth, 004's setting), against
/// the same table as an analytic `Box` and as a solid held fixed (a kinematic region over all
/// of it).
/// - Landed on the top (0.1 s) its centre rests at the analytic box's height, 0.3005 m (half the
///   thickness above the top), to 1e-9 m.
/// - Over 0.3 s it moves as over the fixed solid, node for node, to 1e-9 m: the same triangles
///   in the same nodal contact model, reached through the collider's prescribed nodes instead
///   of a solid's. (Not as over the analytic box: there only the cloth's vertices touch the
///   box, here its edges catch on the box's edges too, and the hanging parts stop on the
///   bottom edge 1.5 cm above the floor, where over the analytic box they reach it.)
/// - No node is inside the mesh table by more than 1e-5 m.
#[test]
fn a_cloth_on_a_mesh_table_rests_as_on_the_box_and_moves_as_on_a_fixed_solid() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("table.obj"), box_obj(0.2, 0.15)).unwrap();
    let scene = std::fs::read_to_string("scenes/cloth_on_box.ron")
        .unwrap()
        .replace("cells: (32, 32)", "cells: (16, 16)")
        .replace("\"wood\": (),", "\"wood\": (density: 500.0, youngs_modulus: 1e9, poisson_ratio: 0.3),");
    let analytic = r#"Box(name: "table", material: "wood", size: (0.4, 0.4, 0.3), position: (0.0, 0.0, 0.15)),"#;
    assert!(scene.contains(analytic));
    let mesh = scene.replace(analytic, r#"Mesh(name: "table", material: "wood", path: "table.obj"),"#);
    let fixed = scene.replace(analytic, "").replace(
        "    ],\n    colliders:",
        "        Solid(name: \"table\", material: \"wood\", mesh: Box(size: (0.4, 0.4, 0.3), cells: (1, 1, 1)),\n              \
         position: (0.0, 0.0, 0.15), kinematic: [(region: Box(min: (-1.0, -1.0, -1.0), max: (1.0, 1.0, 1.0)))]),\n    ],\n    colliders:",
    );
    let mut sims: Vec<_> =
        [&scene, &mesh, &fixed].iter().map(|text| scene_run::simulation_in(text, dir.path())).collect();
    assert_eq!(sims[2].model.solids.len(), 1, "the fixed table is a solid");
    let cloth = |s: &fricsim::simulation::Simulation| s.model.cloths[0].nodes.clone();
    let centre = |s: &fricsim::simulation::Simulation| s.state.q[3 * (cloth(s).start + 8 * 17 + 8) + 2];
    for s in &mut sims {
        scene_run::run_for(s, 0.1, 2e-3);
    }
    println!("centre at 0.1 s: analytic {}, mesh {}", centre(&sims[0]), centre(&sims[1]));
    assert!((centre(&sims[0]) - 0.3005).abs() < 1e-9 && (centre(&sims[1]) - 0.3005).abs() < 1e-9);
    for s in &mut sims[1..] {
        scene_run::run_for(s, 0.2, 2e-3);
    }
    let (m, f) = (&sims[1], &sims[2]);
    let apart = cloth(m)
        .zip(cloth(f))
        .map(|(i, j)| (0..3).map(|k| (m.state.q[3 * i + k] - f.state.q[3 * j + k]).abs()).fold(0.0, f64::max))
        .fold(0.0, f64::max);
    println!("mesh table against fixed solid table at 0.3 s: {apart:e} m");
    assert!(apart < 1e-9, "the cloth on the mesh table is {apart} m from its path on the fixed solid");
    let inside = cloth(m)
        .map(|i| {
            let x = &m.state.q[3 * i..3 * i + 3];
            // Depth inside the box (positive inside).
            (0.2 - x[0].abs()).min(0.2 - x[1].abs()).min(x[2]).min(0.3 - x[2])
        })
        .fold(f64::NEG_INFINITY, f64::max);
    println!("deepest cloth node inside the mesh table: {inside:e} m");
    assert!(inside < 1e-5, "a cloth node is {inside} m inside the table");
}
