//! glTF 2.0 skinned animations (files made by `scripts/make_gltf.py`): a two-bone arm skinned
//! to its analytic pose, in each of glTF's three storage forms; clip choice and looping; the
//! refusals; a turntable given as a glTF clip against the same turntable as a rigid `Spin`.

#[path = "support/turntable.rs"]
mod table;

use fricsim::mesh::gltf_read::read_skinned;
use fricsim::model::animation::VertexAnimation;
use nalgebra::Vector3;
use std::path::{Path, PathBuf};

fn data(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/gltf").join(name)
}

fn arm(file: &str, clip: &str, looped: bool) -> (VertexAnimation, Vec<[usize; 3]>) {
    let (skinned, triangles) = read_skinned(&data(file), Some(clip), looped, 1.0).unwrap_or_else(|e| panic!("{e}"));
    (VertexAnimation::skinned(skinned), triangles)
}

/// Where the arm's vertex with rest position `p` is at `t` of "Bend": the elbow (x = 1, y = 0.5)
/// turns by 90° t (clamped to 1 s) about +z; the forearm (x > 1) turns with it, the upper arm
/// (x < 1) stays, the ring at the elbow (half each) is the mean of the two.
fn bent(p: Vector3<f64>, t: f64) -> Vector3<f64> {
    let a = std::f64::consts::FRAC_PI_2 * t.clamp(0.0, 1.0);
    let elbow = Vector3::new(1.0, 0.5, 0.0);
    let turned = nalgebra::Rotation3::from_axis_angle(&Vector3::z_axis(), a) * (p - elbow) + elbow;
    if p.x < 1.0 {
        p
    } else if p.x > 1.0 {
        turned
    } else {
        0.5 * (p + turned)
    }
}

/// The gate: the arm bent by "Bend" is where the analytic rotation puts it, to 1e-9 m, at five
/// times from the rest pose to past the clip's end, read from the embedded, the binary and the
/// external-buffer form. The file's numbers are f32 but chosen exact in binary (positions at
/// multiples of 1/8, the 90° quaternion (0, 0, s, s) which normalises to exactly √½), so what
/// is left is f64 round-off (measured: below 1e-15).
#[test]
fn a_two_bone_arm_bent_by_its_clip_skins_to_the_analytic_pose() {
    for file in ["arm.gltf", "arm.glb", "arm_external.gltf"] {
        let (anim, triangles) = arm(file, "Bend", false);
        // 5 rings of 4 vertices (the seam ring at the elbow, in both primitives, welded into
        // one) and 16 side quads plus 2 caps: a closed surface, every edge in two triangles.
        assert_eq!((anim.vertex_count(), triangles.len()), (20, 36), "{file}");
        let mut edges = std::collections::HashMap::new();
        for t in &triangles {
            for k in 0..3 {
                let (a, b) = (t[k].min(t[(k + 1) % 3]), t[k].max(t[(k + 1) % 3]));
                *edges.entry((a, b)).or_insert(0) += 1;
            }
        }
        assert!(edges.values().all(|&n| n == 2), "{file}: the welded tube is not closed");
        let rest = anim.first().to_vec();
        for p in &rest {
            let on_grid = (p.x * 2.0).fract() == 0.0 && (p.y - 0.5).abs() == 0.125 && p.z.abs() == 0.125;
            assert!(on_grid, "{file}: rest vertex {p} is not on the arm's tube");
        }
        let mut worst: f64 = 0.0;
        let mut x = Vec::new();
        for t in [0.0, 0.25, 0.5, 1.0, 3.0] {
            anim.positions(t, &mut x);
            for (p, q) in rest.iter().zip(&x) {
                worst = worst.max((q - bent(*p, t)).norm());
            }
        }
        println!("{file}: largest error {worst:e} m");
        assert!(worst < 1e-9, "{file}: skinned {worst:e} m from the analytic pose");
    }
}

/// Another clip by name ("Lift": the root rises 1 m over 2 s, so every vertex by t / 2 m), and
/// looping (t = 1.25 of a looped "Bend" is t = 0.25; unlooped it holds the last pose).
#[test]
fn clips_are_chosen_by_name_and_loop_over_their_span() {
    let (lift, _) = arm("arm.glb", "Lift", false);
    let rest = lift.first().to_vec();
    let mut x = Vec::new();
    lift.positions(1.0, &mut x);
    assert!(rest.iter().zip(&x).all(|(p, q)| (q - p - Vector3::new(0.0, 0.5, 0.0)).norm() < 1e-12));
    let (looped, _) = arm("arm.glb", "Bend", true);
    let (mut a, mut b) = (Vec::new(), Vec::new());
    looped.positions(1.25, &mut a);
    looped.positions(0.25, &mut b);
    assert!(a.iter().zip(&b).all(|(p, q)| (p - q).norm() < 1e-12));
    let (held, _) = arm("arm.glb", "Bend", false);
    held.positions(1.25, &mut a);
    assert!(rest.iter().zip(&a).all(|(p, q)| (q - bent(*p, 1.0)).norm() < 1e-12));
}

/// A scene with `Mesh(path: ..)` naming `file` in `dir` (a Smooth box over it), built.
fn build(dir: &Path, collider: &str) -> Result<(), String> {
    let text = format!(
        r#"Scene(name: "a", dt: 1e-2, frames: 1, frame_rate: 1.0,
    materials: {{ "m": (density: 500.0) }},
    bodies: [ Rigid(name: "box", material: "m", shape: Box(size: (0.05, 0.05, 0.05)), position: (0.0, 3.0, 0.0)) ],
    colliders: [ {collider} ],
    pipeline: Smooth(field: (radius: 0.02)),
)"#
    );
    fricsim::scene::parse_scene_str(&text, "a.ron", dir, &[])
        .and_then(|l| fricsim::scene::build::build(&l))
        .map(|_| ())
        .map_err(|e| e.to_string())
}

/// `arm.gltf` edited by `edit` and written as `name` into `dir`.
fn edited(dir: &Path, name: &str, edit: impl Fn(&mut serde_json::Value)) {
    let mut json: serde_json::Value = serde_json::from_slice(&std::fs::read(data("arm.gltf")).unwrap()).unwrap();
    edit(&mut json);
    std::fs::write(dir.join(name), serde_json::to_vec(&json).unwrap()).unwrap();
}

/// What cannot be played is refused with the scene field, the file and what is wrong: no skin,
/// a clip with no channels, a clip name the file lacks (its clips listed), no clip at all, a
/// joint index past the skin, a truncated buffer, not glTF at all; and a sequence's settings on
/// a glTF (`fps`, `interpolation`) or a clip on a sequence.
#[test]
fn gltf_files_that_cannot_be_played_are_refused_with_the_file_and_the_reason() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    edited(d, "noskin.gltf", |j| {
        j.as_object_mut().unwrap().remove("skins");
        j["nodes"][3].as_object_mut().unwrap().remove("skin");
    });
    edited(d, "nochannels.gltf", |j| {
        j["animations"][0]["channels"] = serde_json::json!([]);
    });
    edited(d, "noclips.gltf", |j| {
        j.as_object_mut().unwrap().remove("animations");
    });
    edited(d, "badjoint.gltf", |j| {
        j["skins"][0]["joints"] = serde_json::json!([1]);
        j["skins"][0].as_object_mut().unwrap().remove("inverseBindMatrices");
    });
    edited(d, "arm.gltf", |_| {});
    std::fs::copy(data("arm_external.gltf"), d.join("short.gltf")).unwrap();
    std::fs::write(d.join("arm.bin"), &std::fs::read(data("arm.bin")).unwrap()[..100]).unwrap();
    std::fs::write(d.join("garbage.glb"), b"glTF this is not").unwrap();
    std::fs::write(d.join("plate_0.obj"), table::plate_obj(0.0)).unwrap();
    let mesh = |path: &str, animation: &str| {
        format!(r#"Mesh(name: "p", material: "m", path: "{path}", animation: {animation})"#)
    };
    let cases = [
        (mesh("noskin.gltf", "()"), "noskin.gltf has no skinned mesh"),
        (mesh("nochannels.gltf", "(clip: \"Bend\")"), "clip 'Bend' has no channels"),
        (mesh("arm.gltf", "(clip: \"Wave\")"), "no animation clip named 'Wave'; its clips: 'Bend', 'Lift'"),
        (mesh("noclips.gltf", "()"), "noclips.gltf: has no animation clip"),
        (mesh("badjoint.gltf", "()"), "has joint 1 (of 1)"),
        (mesh("short.gltf", "()"), "holds 100 bytes but declares 1184"),
        (mesh("garbage.glb", "()"), "garbage.glb is not a valid glTF 2.0 file"),
        (mesh("noskin.gltf", "(fps: 30.0)"), "a glTF clip has its own key times"),
        (mesh("noskin.gltf", "(interpolation: Smooth)"), "its own interpolation"),
        (r#"Mesh(name: "p", material: "m", path: "noskin.gltf")"#.to_string(), "give `animation: (clip"),
        (mesh("plate_{}.obj", "(fps: 30.0, clip: \"Bend\")"), "clips are for glTF files"),
        (mesh("plate_{}.obj", "()"), "needs its frames per second"),
    ];
    for (collider, message) in cases {
        let err = build(d, &collider).expect_err(&collider);
        assert!(err.contains("colliders[0]") && err.contains(message), "{collider}:\n{err}");
    }
}

/// The gate for glTF: the turntable as a glTF clip (one joint turning at 3 rad/s, keys every
/// quarter turn, looped) moves the box as the rigid `Spin` does, to 1e-6 m over 100 steps (the
/// key times and the slerp are f32-exact only to ~1e-8 rad; the fields are the same triangles);
/// and the box sticks at 1.02 μ* and slides at 0.98 μ* (bounds as tests/animated_mesh.rs).
#[test]
fn a_turntable_given_as_a_gltf_clip_moves_a_box_as_the_rigid_spin_does() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::copy(data("turntable.glb"), dir.path().join("turntable.glb")).unwrap();
    let gltf = r#"Mesh(name: "plate", material: "m", path: "turntable.glb", animation: (loop: true))"#;
    let (worst, _) = table::distance_from_spin(dir.path(), gltf);
    assert!(worst < 1e-6, "the glTF turntable moved the box {worst:e} m away from the spun one");
    table::sticks_iff_mu_g_reaches_omega_squared_r(dir.path(), gltf);
}
