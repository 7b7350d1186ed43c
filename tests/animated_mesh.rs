//! Per-vertex animated mesh colliders (numbered OBJ sequences): a turntable given as an animated
//! sequence against the same turntable given as a rigid `Spin`, the stick/slip threshold of a
//! box riding on it, the refusals of sequences that are not one animation, and the output.

#[path = "support/scene_run.rs"]
mod scene_run;
#[path = "support/turntable.rs"]
mod table;

use table::{DT, OMEGA, R, plate_obj};

use std::path::Path;

/// The plate turning at OMEGA, written as one frame per step (fps = 1 / DT, so the frames fall
/// on the step times and the interpolation adds nothing between them).
fn write_sequence(dir: &Path, seconds: f64) {
    write_frames(dir, seconds, 1.0 / DT);
}

/// The plate as the sequence `plate_{:04}.obj` of one frame per step.
fn sequence_plate() -> String {
    format!(r#"Mesh(name: "plate", material: "m", path: "plate_{{:04}}.obj", animation: (fps: {}))"#, 1.0 / DT)
}

/// The plate turning at OMEGA, `fps` frames per second.
fn write_frames(dir: &Path, seconds: f64, fps: f64) {
    for k in 0..=(seconds * fps).round() as usize {
        std::fs::write(dir.join(format!("plate_{k:04}.obj")), plate_obj(OMEGA * k as f64 / fps)).unwrap();
    }
}

/// The box co-rotating with the table: the animated sequence moves it as the rigid `Spin` does
/// to 1e-6 m over 100 steps (both fields are the same triangles, one turned by the placement, one
/// rebuilt at the turned vertices; both collider velocities are the step's mean velocity of
/// the touched surface point; what differs is round-off in the field and the solve).
#[test]
fn an_animated_turntable_moves_a_box_as_the_rigid_spin_does() {
    let dir = tempfile::tempdir().unwrap();
    write_sequence(dir.path(), 0.1);
    let (worst, p) = table::distance_from_spin(dir.path(), &sequence_plate());
    assert!(worst < 1e-6, "the animated turntable moved the box {worst:e} m away from the spun one");
    // Where the table has carried it: turned by ω t about the axis.
    let a = OMEGA * 100.0 * DT;
    assert!(
        (p.xy() - nalgebra::Vector2::new(R * a.cos(), R * a.sin())).norm() < 1e-4,
        "the box did not ride along: {p}"
    );
}

/// Stick iff μ g ≥ ω² r: at μ = 1.02 μ* the box keeps its radius, at 0.98 μ* it slides outwards
/// (the net outward acceleration 0.02 ω² r = 0.054 m/s² gives centimetres in a second: 5.0 cm
/// measured). A stuck box still creeps outwards at O(h): the step moves it by its velocity
/// linearized in its rotation, `h (v + ω × ρ)`, while the table's points move along chords, so no
/// rigid velocity sticks at every contact point at once and the points share a slip of
/// O(h² ω² ρ). Measured at 1.02 μ*, the same for the table given as a rigid `Spin`: 4.6 mm in
/// 1 s at h = 1e-2, 0.42 mm at h = 1e-3 (and 0.8 mm at 1.5 μ* with h = 1e-2). At h = 1e-3 the
/// bounds, 1 mm stuck and 1 cm sliding, are each a factor of two or more from what the two
/// sides do.
#[test]
fn a_box_on_the_animated_turntable_sticks_iff_mu_g_reaches_omega_squared_r() {
    let dir = tempfile::tempdir().unwrap();
    write_sequence(dir.path(), 1.0);
    let plate =
        format!(r#"Mesh(name: "plate", material: "m", path: "plate_{{:04}}.obj", animation: (fps: {}))"#, 1.0 / DT);
    table::sticks_iff_mu_g_reaches_omega_squared_r(dir.path(), &plate);
}

fn refusal(dir: &Path, collider: &str) -> String {
    let text = format!(
        r#"Scene(name: "a", dt: 1e-2, frames: 1, frame_rate: 1.0,
    materials: {{ "m": (density: 500.0) }},
    bodies: [ Rigid(name: "box", material: "m", shape: Box(size: (0.05, 0.05, 0.05)), position: (0.0, 0.0, 0.1)) ],
    colliders: [ {collider} ],
    pipeline: Smooth(field: (radius: 0.02)),
)"#
    );
    let built =
        fricsim::scene::parse_scene_str(&text, "a.ron", dir, &[]).and_then(|l| fricsim::scene::build::build(&l));
    match built {
        Ok(_) => panic!("accepted: {collider}"),
        Err(e) => e.to_string(),
    }
}

#[test]
fn sequences_that_are_not_one_animation_are_refused_with_the_file() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    write_sequence(d, 0.03);
    // Frame 2 of "bad" has a vertex more; frame 1 of "swap" orders a triangle differently.
    for k in 0..3 {
        let mut text = plate_obj(0.1 * k as f64);
        std::fs::write(
            d.join(format!("swap_{k}.obj")),
            text.replace("f 1 3 4", if k == 1 { "f 1 4 3" } else { "f 1 3 4" }),
        )
        .unwrap();
        if k == 2 {
            text = text.replace("f 1 2 3", "v 0 0 1\nf 1 2 3");
        }
        std::fs::write(d.join(format!("bad_{k}.obj")), text).unwrap();
    }
    let cases = [
        (
            r#"Mesh(name: "p", material: "m", path: "bad_{}.obj", animation: (fps: 30.0))"#,
            "bad_2.obj: 5 vertices, where the first frame",
        ),
        (r#"Mesh(name: "p", material: "m", path: "swap_{}.obj", animation: (fps: 30.0))"#, "swap_1.obj: triangle 1 is"),
        (r#"Mesh(name: "p", material: "m", path: "none_{:04}.obj", animation: (fps: 30.0))"#, "file not found"),
        (r#"Mesh(name: "p", material: "m", path: "plate_{:04}.obj")"#, "give its `animation: (fps: ..)`"),
        (r#"Mesh(name: "p", material: "m", path: "plate_0000.obj", animation: (fps: 30.0))"#, "write the frame number"),
        (r#"Mesh(name: "p", material: "m", path: "plate_{:4}.obj", animation: (fps: 30.0))"#, "is not a frame number"),
        (r#"Mesh(name: "p", material: "m", path: "plate_{:04}.obj", animation: (fps: -1.0))"#, "animation.fps"),
    ];
    for (collider, message) in cases {
        let err = refusal(d, collider);
        assert!(err.contains("colliders[0]") && err.contains(message), "{collider}: {err}");
    }
}

/// The collider's series follows the animation: a plate corner at frame 25 (t = 0.25 s) of a run
/// written by the CLI is where the sequence's frame puts it.
#[test]
fn the_animated_collider_is_written_at_each_frame() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    write_frames(d, 0.3, 100.0);
    let scene = String::from(
        r#"Scene(name: "a", dt: 1e-2, duration: 0.3, frame_rate: 100.0,
    materials: { "m": (density: 500.0) },
    bodies: [ Rigid(name: "box", material: "m", shape: Box(size: (0.05, 0.05, 0.05)), position: (0.2, 0.0, 0.0251)) ],
    colliders: [ Mesh(name: "plate", material: "m", path: "plate_{:04}.obj", animation: (fps: 100.0, interpolation: Smooth)) ],
    pipeline: Smooth(field: (radius: 0.02)),
)"#,
    );
    std::fs::write(d.join("a.ron"), scene).unwrap();
    let out = d.join("out");
    let o = std::process::Command::new(env!("CARGO_BIN_EXE_fricsim"))
        .args(["run", d.join("a.ron").to_str().unwrap(), "--quiet", "--out", out.to_str().unwrap()])
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let read = |k: usize| std::fs::read(out.join(format!("vtk/collider_plate_{k:05}.vtu"))).unwrap();
    assert_ne!(read(0), read(25), "the collider's file did not change with the animation");
    // What the writer poses: the plate's first corner where frame 25 has it.
    let loaded = fricsim::scene::load_scene(&d.join("a.ron"), &[]).unwrap();
    let (model, state) = fricsim::scene::build::build(&loaded).unwrap();
    let geometry = fricsim::output::colliders::collider_geometry(&model, &state);
    let at = fricsim::output::colliders::placement(&model, 0, 0.25);
    let corner = geometry[0].posed(&at, 0.25)[0];
    let angle = OMEGA * 0.25;
    let expected = [-0.4 * angle.cos() + 0.4 * angle.sin(), -0.4 * angle.sin() - 0.4 * angle.cos(), 0.0];
    for d in 0..3 {
        assert!((corner[d] - expected[d]).abs() < 1e-12, "{corner:?} against {expected:?}");
    }
}

/// The keyframed press-and-drag of `scenes/dragged_block.ron` (2 mm down in 0.2 s, then 3 cm
/// along x over 0.8 s) at time `t`.
fn press_and_drag(t: f64) -> [f64; 3] {
    if t <= 0.2 { [0.0, 0.0, -0.002 * t / 0.2] } else { [0.03 * (t - 0.2) / 0.8, 0.0, -0.002] }
}

/// A 6 cm plate over the block's top face (z = 0.04), moved by `press_and_drag`, one frame per
/// step of 5 ms.
fn write_pressing_plate(dir: &Path, seconds: f64) {
    for k in 0..=(seconds / 0.005).round() as usize {
        let [dx, dy, dz] = press_and_drag(k as f64 * 0.005);
        let mut text = String::new();
        for (x, y) in [(-0.03, -0.03), (0.03, -0.03), (0.03, 0.03), (-0.03, 0.03)] {
            text += &format!("v {} {} {}\n", x + dx, y + dy, 0.04 + dz);
        }
        std::fs::write(dir.join(format!("top_{k:04}.obj")), text + "f 1 2 3\nf 1 3 4\n").unwrap();
    }
}

/// The dragged block's top vertices driven by an animated plate they `follow` move the block as
/// the same keyframes given as their `motion` do, to 1e-9 m over 0.3 s (pressing and the start
/// of the drag), in the Smooth and in the Penalty pipeline: the frames fall on the steps, so
/// each step's landing positions are the keyframes' up to round-off.
#[test]
fn a_region_following_an_animated_surface_moves_as_its_keyframes() {
    let dir = tempfile::tempdir().unwrap();
    write_pressing_plate(dir.path(), 0.3);
    let scene = std::fs::read_to_string("scenes/dragged_block.ron").unwrap();
    let follow = r#"follow: (path: "top_{:04}.obj", animation: (fps: 200.0)),"#;
    let keyframes =
        "motion: Keyframes([(0.0, (0.0, 0.0, 0.0)), (0.2, (0.0, 0.0, -0.002)), (1.0, (0.03, 0.0, -0.002))]),";
    assert!(scene.contains(keyframes));
    for pipeline in ["Smooth(field: (kernel: Cubic, radius: 0.01))", "Penalty()"] {
        let mut sims = Vec::new();
        for text in [scene.clone(), scene.replace(keyframes, follow)] {
            let text = text.replace("duration: 1.0", "duration: 0.3");
            let start = text.find("pipeline: Smooth(").unwrap();
            let end = start + text[start..].find("\n    ),").unwrap() + "\n    ),".len();
            let text = format!("{}pipeline: {pipeline},{}", &text[..start], &text[end..]);
            sims.push(scene_run::simulation_in(&text, dir.path()));
        }
        let start = sims[1].state.q.clone();
        let worst = scene_run::largest_difference(&mut sims, 60);
        println!("{pipeline}: largest difference {worst:e} m");
        assert!(worst < 1e-9, "{pipeline}: {worst:e} m");
        let pressed = start.iter().zip(&sims[1].state.q).map(|(a, b)| (a - b).abs()).fold(0.0, f64::max);
        assert!(pressed > 1.9e-3, "{pipeline}: the region moved only {pressed} m");
    }
}

#[test]
fn a_region_is_refused_a_motion_and_a_follow_together() {
    let dir = tempfile::tempdir().unwrap();
    write_pressing_plate(dir.path(), 0.01);
    let scene = std::fs::read_to_string("scenes/dragged_block.ron").unwrap();
    let text = scene.replace(
        "motion: Keyframes(",
        r#"follow: (path: "top_{:04}.obj", animation: (fps: 200.0)), motion: Keyframes("#,
    );
    let err = match fricsim::scene::parse_scene_str(&text, "dragged.ron", dir.path(), &[]) {
        Ok(_) => panic!("accepted a region with both"),
        Err(e) => e.to_string(),
    };
    assert!(err.contains("bodies[0].kinematic[0].follow") && err.contains("not both"), "{err}");
}

/// A strip 0.2 m long along y at x = -0.1, z = 0.3, lifted at 0.5 m/s: one frame per 5 ms.
fn write_lifting_strip(dir: &Path, seconds: f64) {
    for k in 0..=(seconds / 0.005).round() as usize {
        let z = 0.3 + 0.5 * k as f64 * 0.005;
        let mut text = String::new();
        for (x, y) in [(-0.11, -0.15), (-0.09, -0.15), (-0.09, 0.15), (-0.11, 0.15)] {
            text += &format!("v {x} {y} {z}\n");
        }
        std::fs::write(dir.join(format!("strip_{k:04}.obj")), text + "f 1 2 3\nf 1 3 4\n").unwrap();
    }
}

/// The same in the Nonsmooth pipeline's nodal step: a cloth held by one edge that an animated
/// strip lifts moves as with the edge given `Velocity(0, 0, 0.5)`, to 1e-9 m over 40 steps.
#[test]
fn a_cloth_edge_following_an_animated_strip_moves_as_its_velocity_script() {
    let dir = tempfile::tempdir().unwrap();
    write_lifting_strip(dir.path(), 0.2);
    let scene = |kinematic: &str| {
        format!(
            r#"Scene(name: "lift", dt: 0.005, duration: 0.2, frame_rate: 200.0,
    materials: {{ "cotton": (density: 300.0, youngs_modulus: 1e6, poisson_ratio: 0.3, thickness: 1e-3) }},
    bodies: [ Cloth(name: "sheet", material: "cotton", mesh: Grid(size: (0.2, 0.2), cells: (8, 8)), position: (0.0, 0.0, 0.3),
                    kinematic: [ (region: Box(min: (-0.101, -1.0, -1.0), max: (-0.099, 1.0, 1.0)), {kinematic}) ]) ],
    pipeline: Nonsmooth(),
)"#
        )
    };
    let mut sims: Vec<_> = [
        "motion: Velocity(0.0, 0.0, 0.5)".to_string(),
        r#"follow: (path: "strip_{:04}.obj", animation: (fps: 200.0))"#.to_string(),
    ]
    .iter()
    .map(|k| scene_run::simulation_in(&scene(k), dir.path()))
    .collect();
    let worst = scene_run::largest_difference(&mut sims, 40);
    println!("Nonsmooth cloth: largest difference {worst:e} m");
    assert!(worst < 1e-9, "{worst:e} m");
    let top = sims[1].state.q.chunks(3).map(|p| p[2]).fold(f64::MIN, f64::max);
    assert!((top - 0.4).abs() < 1e-9, "the held edge is at z = {top}");
}
