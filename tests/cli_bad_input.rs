//! Bad input through the real binary: every class of mistake exits with code 2, says on stderr
//! which file (and line:column where the parser knows it), which field and what is allowed, writes
//! nothing into the output folder, and never panics.
//!
//! Each bad scene is the valid fixture `tests/fixtures/drop.ron` with one edit, written to a
//! temporary folder; the expected line:column is computed from where the edit lands in that text.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

const BIN: &str = env!("CARGO_BIN_EXE_fricsim");

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures").join(name)
}

fn base_scene() -> String {
    std::fs::read_to_string(fixture("drop.ron")).expect("fixture")
}

/// The fixture with `from` replaced (exactly once) by `to`.
fn edited(from: &str, to: &str) -> String {
    let s = base_scene();
    assert_eq!(s.matches(from).count(), 1, "edit anchor `{from}` must be unique");
    s.replacen(from, to, 1)
}

/// 1-based line and column (in characters) of the first `anchor` in `text`.
fn line_col_of(text: &str, anchor: &str) -> (usize, usize) {
    let at = text.find(anchor).unwrap_or_else(|| panic!("`{anchor}` not in the scene"));
    let before = &text[..at];
    let line = before.matches('\n').count() + 1;
    let col = before[before.rfind('\n').map_or(0, |i| i + 1)..].chars().count() + 1;
    (line, col)
}

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// Nothing was written: the output folder does not exist or is empty.
fn assert_no_output(out_dir: &Path) {
    if out_dir.exists() {
        let entries: Vec<_> =
            std::fs::read_dir(out_dir).expect("read out dir").map(|e| e.unwrap().file_name()).collect();
        assert!(entries.is_empty(), "bad input wrote {entries:?}");
    }
}

fn assert_bad_input(out: &Output) {
    let err = stderr(out);
    assert_eq!(out.status.code(), Some(2), "exit code for bad input\nstderr:\n{err}");
    assert!(!err.contains("panicked"), "panic on bad input:\n{err}");
    assert!(!err.trim().is_empty(), "no message for bad input");
}

/// Writes `scene` to `<tmp>/bad.ron`, runs `fricsim run bad.ron --out <tmp>/out ARGS`, checks
/// exit code 2, no output, no panic, that stderr names the file (with `line:col` of `anchor`
/// when given) and contains every string of `expect`. Returns stderr.
fn expect_bad(scene: &str, args: &[&str], anchor: Option<&str>, expect: &[&str]) -> String {
    expect_bad_from(scene, args, true, anchor, expect)
}

/// Errors in a `--set` argument name that argument (`--set PATH=VALUE: ...`) as their origin,
/// not the scene file: the mistake is on the command line.
fn expect_bad_set(args: &[&str], expect: &[&str]) -> String {
    expect_bad_from(&base_scene(), args, false, None, expect)
}

fn expect_bad_from(scene: &str, args: &[&str], names_file: bool, anchor: Option<&str>, expect: &[&str]) -> String {
    let dir = tempfile::tempdir().expect("temp dir");
    let path = dir.path().join("bad.ron");
    std::fs::write(&path, scene).expect("write scene");
    let out_dir = dir.path().join("out");
    let mut all = vec!["run", path.to_str().unwrap(), "--out", out_dir.to_str().unwrap()];
    all.extend_from_slice(args);
    let out = Command::new(BIN).args(&all).output().expect("run fricsim");
    assert_bad_input(&out);
    let err = stderr(&out);
    let file = path.display().to_string();
    if names_file {
        assert!(err.contains(&file), "stderr does not name {file}:\n{err}");
    }
    if let Some(a) = anchor {
        let (l, c) = line_col_of(scene, a);
        let at = format!("{file}:{l}:{c}:");
        assert!(err.contains(&at), "stderr lacks `{at}` (at `{a}`):\n{err}");
    }
    for e in expect {
        assert!(err.contains(e), "stderr lacks `{e}`:\n{err}");
    }
    assert_no_output(&out_dir);
    err
}

#[test]
fn syntax_error_missing_comma() {
    let s = edited("dt: 0.01,", "dt: 0.01");
    // ron notices the missing comma at the next field.
    expect_bad(&s, &[], Some("frames: 10"), &["syntax error", "comma"]);
}

#[test]
fn unknown_field_typo_lists_the_allowed_fields() {
    let s = edited("poisson_ratio: 0.3", "poison_ratio: 0.3");
    expect_bad(
        &s,
        &[],
        Some("poison_ratio"),
        &[
            "materials.\"block\".poison_ratio",
            "unknown field `poison_ratio`",
            "did you mean `poisson_ratio`",
            "`density`, `youngs_modulus`, `poisson_ratio`, `model`, `damping`",
        ],
    );
}

#[test]
fn unknown_enum_variant_lists_the_allowed_variants() {
    let s = edited("Plane(name", "Plain(name");
    expect_bad(
        &s,
        &[],
        Some("Plain"),
        &["colliders[0]", "unknown variant `Plain`", "`Plane`, `Box`, `Sphere`, `Cylinder`"],
    );
}

#[test]
fn unknown_elastic_model() {
    let s = edited("poisson_ratio: 0.3)", "poisson_ratio: 0.3, model: Hookean)");
    expect_bad(&s, &[], Some("Hookean"), &["unknown variant `Hookean`", "NeoHookean", "StableNeoHookean"]);
}

#[test]
fn wrong_type_string_for_a_number() {
    let s = edited("dt: 0.01", "dt: \"fast\"");
    expect_bad(&s, &[], Some("\"fast\""), &["dt = \"fast\"", "expected a number"]);
}

#[test]
fn wrong_type_float_for_a_whole_number() {
    let s = edited("cells: (2, 2, 1)", "cells: (2.5, 2, 1)");
    expect_bad(&s, &[], Some("2.5"), &["bodies[0].mesh.cells", "2.5", "whole number"]);
}

#[test]
fn missing_required_field() {
    let s = edited("    dt: 0.01,\n", "");
    // No position to point at for something absent: file and field only.
    expect_bad(&s, &[], None, &["dt", "missing required field"]);
}

#[test]
fn poisson_ratio_one_half_is_out_of_range() {
    let s = edited("poisson_ratio: 0.3", "poisson_ratio: 0.5");
    expect_bad(&s, &[], Some("poisson_ratio"), &["materials.\"block\".poisson_ratio = 0.5", "[0, 0.5)"]);
}

#[test]
fn negative_density() {
    let s = edited("density: 1000.0", "density: -1000.0");
    expect_bad(
        &s,
        &[],
        Some("density"),
        &["materials.\"block\".density = -1000.0", "must be from 1e-6 to 1e6 (kg/m^3)"],
    );
}

#[test]
fn nan_value() {
    let s = edited("youngs_modulus: 1e6", "youngs_modulus: NaN");
    expect_bad(&s, &[], Some("youngs_modulus"), &["youngs_modulus = NaN", "finite"]);
}

#[test]
fn unknown_material_name() {
    let s = edited("material: \"block\"", "material: \"blok\"");
    expect_bad(&s, &[], Some("material: \"blok\""), &["bodies[0].material", "blok", "block"]);
}

#[test]
fn missing_mesh_file() {
    let s = edited("Box(size: (0.1, 0.1, 0.1), cells: (2, 2, 1))", "File(path: \"nope.vtu\")");
    expect_bad(
        &s,
        &[],
        Some("path"),
        &["bodies[0].mesh.path = \"nope.vtu\"", "file not found", "relative to the scene file"],
    );
}

#[test]
fn garbage_mesh_file() {
    // The file exists but is not VTK. The mesh reader, not the scene parser, finds this, so the
    // message names the scene, the field and the mesh file but no line.
    let garbage = fixture("garbage.vtu");
    let s = edited(
        "Box(size: (0.1, 0.1, 0.1), cells: (2, 2, 1))",
        &format!("File(path: {:?})", garbage.display().to_string()),
    );
    expect_bad(
        &s,
        &[],
        None,
        &[
            "bodies[0].mesh",
            &garbage.display().to_string(),
            "could not be parsed as VTK",
            "legacy VTK file",
            "VTK XML unstructured grid",
        ],
    );
}

#[test]
fn kinematic_region_selecting_no_vertex() {
    let s = edited(
        "velocity: (0.1, 0.0, 0.0),",
        "velocity: (0.1, 0.0, 0.0),\n            kinematic: [(region: Box(min: (5.0, 5.0, 5.0), max: (6.0, 6.0, 6.0)))],",
    );
    expect_bad(&s, &[], None, &["bodies[0].kinematic[0].region", "selects no vertex", "bounding box"]);
}

#[test]
fn run_length_beyond_any_counter_is_rejected() {
    // 1 / (frame_rate * dt) = 1e302 steps per frame: the step count would not fit 64 bits.
    let s = edited("frame_rate: 50.0", "frame_rate: 1e-300");
    expect_bad(&s, &[], Some("frame_rate"), &["frame_rate = 1e-300", "at most 1e12 steps"]);
    let s = edited("frames: 10", "duration: 1e300");
    expect_bad(&s, &[], Some("duration"), &["duration = 1e300", "at most 1e12 steps"]);
    // --frames is an override: the message names it.
    expect_bad_set(&["--frames", "18446744073709551615"], &["frames = 18446744073709551615", "at most 1e12 steps"]);
}

#[test]
fn set_path_that_does_not_exist() {
    let err = expect_bad_set(
        &["--set", "friction.pairs[0].muu=0.3"],
        &[
            "--set friction.pairs[0].muu=0.3",
            "no field `muu`",
            "did you mean `mu`",
            "between, cohesion, compliance, mu, mu_b, mu_s, mu_t, mu_tau, mu_v, v_s",
        ],
    );
    assert!(!err.contains("panicked"));
    expect_bad_set(
        &["--set", "friction.pairs[3].mu=0.3"],
        &["--set friction.pairs[3].mu=0.3", "1 element", "out of range"],
    );
}

#[test]
fn set_value_of_the_wrong_type() {
    expect_bad_set(&["--set", "friction.pairs[0].mu=abc"], &["--set friction.pairs[0].mu=abc", "expected a number"]);
}

#[test]
fn set_value_out_of_range_names_the_override() {
    // A value that is valid RON but out of range is found by validation: the message names the
    // scene file and the override that set the value.
    expect_bad(
        &base_scene(),
        &["--set", "materials.block.poisson_ratio=0.5"],
        None,
        &["(after --set materials.block.poisson_ratio=0.5)", "poisson_ratio = 0.5", "[0, 0.5)"],
    );
}

#[test]
fn unknown_command_line_flag() {
    let dir = tempfile::tempdir().expect("temp dir");
    let out_dir = dir.path().join("out");
    let scene = fixture("drop.ron");
    let out = Command::new(BIN)
        .args(["run", scene.to_str().unwrap(), "--out", out_dir.to_str().unwrap(), "--bogus"])
        .output()
        .expect("run fricsim");
    assert_bad_input(&out);
    let err = stderr(&out);
    assert!(err.contains("--bogus") && err.contains("unexpected argument"), "{err}");
    assert!(err.contains("Usage"), "{err}");
    assert_no_output(&out_dir);
}

/// Odd inputs of every kind: each is rejected with exit 2, a message, no output, no panic.
#[test]
fn no_input_panics() {
    let dir = tempfile::tempdir().expect("temp dir");
    let d = dir.path();
    let write = |name: &str, bytes: &[u8]| {
        let p = d.join(name);
        std::fs::write(&p, bytes).unwrap();
        p.display().to_string()
    };
    let mesh = |name: &str, bytes: &[u8]| {
        let p = write(name, bytes);
        write(
            &format!("{name}.ron"),
            edited("Box(size: (0.1, 0.1, 0.1), cells: (2, 2, 1))", &format!("File(path: {p:?})")).as_bytes(),
        )
    };
    let scene = |name: &str, from: &str, to: &str| write(name, edited(from, to).as_bytes());
    let junk: Vec<u8> = (0..3000u32).map(|i| (i.wrapping_mul(2_654_435_761) >> 13) as u8).collect();
    let good = fixture("drop.ron").display().to_string();
    let cases: Vec<Vec<String>> = vec![
        vec![write("empty.ron", b"")],
        vec![write("junk.ron", &junk)],
        vec![write("latin1.ron", b"Scene(name: \"\xff\xfe\")")],
        vec![d.display().to_string()],
        vec![d.join("does_not_exist.ron").display().to_string()],
        vec![write("deep.ron", format!("Scene(name: {}", "(".repeat(100_000)).as_bytes())],
        vec![write("deep_list.ron", "[".repeat(100_000).as_bytes())],
        vec![scene("huge.ron", "cells: (2, 2, 1)", "cells: (100000, 100000, 100000)")],
        vec![scene("zero.ron", "cells: (2, 2, 1)", "cells: (0, 0, 0)")],
        vec![scene("overflow.ron", "cells: (2, 2, 1)", "cells: (99999999999999999999, 1, 1)")],
        vec![scene("negative.ron", "cells: (2, 2, 1)", "cells: (-2, 2, 1)")],
        vec![scene("dt0.ron", "dt: 0.01", "dt: 0.0")],
        vec![scene("dt_big.ron", "dt: 0.01", "dt: 1e308")],
        vec![scene("inf.ron", "dt: 0.01", "dt: inf")],
        vec![scene("frames0.ron", "frames: 10", "frames: 0")],
        vec![scene("both.ron", "frames: 10", "frames: 10, duration: 1.0")],
        vec![scene("nodt.ron", "frame_rate: 50.0", "frame_rate: 30.0")],
        vec![scene("nobodies.ron", "bodies: [", "bodies: [], unused: [")],
        vec![mesh("text.vtu", b"this is not a VTK file")],
        vec![mesh("empty.vtk", b"")],
        vec![mesh("random.vtu", &junk)],
        vec![mesh(
            "truncated.vtk",
            b"# vtk DataFile Version 2.0\nt\nASCII\nDATASET UNSTRUCTURED_GRID\nPOINTS 4 double\n0 0 0 1 0 0\n",
        )],
        vec![mesh(
            "bad_index.vtk",
            b"# vtk DataFile Version 2.0\nt\nASCII\nDATASET UNSTRUCTURED_GRID\nPOINTS 4 double\n0 0 0 1 0 0 0 1 0 0 0 1\nCELLS 1 5\n4 0 1 2 9\nCELL_TYPES 1\n10\n",
        )],
        vec![mesh(
            "flat.vtk",
            b"# vtk DataFile Version 2.0\nt\nASCII\nDATASET UNSTRUCTURED_GRID\nPOINTS 4 double\n0 0 0 1 0 0 0 1 0 2 0 0\nCELLS 1 5\n4 0 1 2 3\nCELL_TYPES 1\n10\n",
        )],
        vec![mesh(
            "xml.vtu",
            b"<?xml version=\"1.0\"?><VTKFile type=\"UnstructuredGrid\" version=\"1.0\"><UnstructuredGrid><Piece NumberOfPoints=\"4\" NumberOfCells=\"1\"></Piece></UnstructuredGrid></VTKFile>",
        )],
        // vtkio 0.7.0-rc2 panics on this (a slice out of range while decoding base64).
        vec![mesh(
            "bad_base64.vtu",
            br#"<?xml version="1.0"?><VTKFile type="UnstructuredGrid" version="1.0" byte_order="LittleEndian" header_type="UInt64" compressor="vtkZLibDataCompressor"><UnstructuredGrid><Piece NumberOfPoints="4" NumberOfCells="1"><Points><DataArray type="Float64" NumberOfComponents="3" format="binary">AAAAAAAA</DataArray></Points><Cells><DataArray type="Int64" Name="connectivity" format="binary">!!!</DataArray><DataArray type="Int64" Name="offsets" format="binary">AA==</DataArray><DataArray type="UInt8" Name="types" format="binary">AA==</DataArray></Cells></Piece></UnstructuredGrid></VTKFile>"#,
        )],
        vec![good.clone(), "--set".into(), "foo".into()],
        vec![good.clone(), "--set".into(), "=3".into()],
        vec![good.clone(), "--set".into(), "bodies[99999999999999999999].name=\"x\"".into()],
        vec![good.clone(), "--set".into(), "dt=NaN".into()],
        vec![good.clone(), "--set".into(), "bodies[0]=3".into()],
        vec![good.clone(), "--frames".into(), "-1".into()],
        vec![good.clone(), "--frames".into(), "many".into()],
    ];
    for (i, case) in cases.iter().enumerate() {
        for cmd in ["check", "run"] {
            let out_dir = d.join(format!("out{i}"));
            let mut command = Command::new(BIN);
            command.arg(cmd).args(case);
            if cmd == "run" {
                command.arg("--out").arg(&out_dir);
            }
            let out = command.output().expect("run fricsim");
            let err = stderr(&out);
            assert_eq!(out.status.code(), Some(2), "case {i} `{cmd} {case:?}`: exit code\nstderr:\n{err}");
            assert!(!err.contains("panicked"), "case {i} `{cmd} {case:?}` panicked:\n{err}");
            assert!(!err.trim().is_empty(), "case {i} `{cmd} {case:?}`: no message");
            assert_no_output(&out_dir);
        }
    }
}

/// Crashers found by mutating shipped inputs, now refused by `check` and `run` with a message
/// (exit 2, no panic): a rigid box with a subnormal side (it panicked building its hull), and a
/// cloth OBJ whose corrupted vertex line collapses a triangle (it panicked on a singular mass).
#[test]
fn mutated_inputs_that_crashed_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let ramp = std::fs::read_to_string(root.join("scenes/validation/smooth_rigid_ramp10.ron")).unwrap();
    let flat = dir.path().join("flat.ron");
    std::fs::write(&flat, ramp.replace("Box(size: (0.1, 0.1, 0.1))", "Box(size: (0.1, 1e-320, 0.1))")).unwrap();
    let ball = dir.path().join("ball.ron");
    std::fs::write(&ball, ramp.replace("Box(size: (0.1, 0.1, 0.1))", "Sphere(radius: 5e-324)")).unwrap();
    let strip = std::fs::read_to_string(root.join("scenes/data/cloth_cylinder_strip.obj")).unwrap();
    let mut lines: Vec<&str> = strip.lines().collect();
    lines[5] = lines[4]; // vertex 4 := vertex 3
    std::fs::create_dir(dir.path().join("data")).unwrap();
    std::fs::write(dir.path().join("data/strip.obj"), lines.join("\n")).unwrap();
    let cyl = std::fs::read_to_string(root.join("scenes/validation/smooth_cloth_cylinder.ron")).unwrap();
    let cloth = dir.path().join("cloth.ron");
    std::fs::write(&cloth, cyl.replace("../data/cloth_cylinder_strip.obj", "data/strip.obj")).unwrap();
    // Found by tests/fuzz_inputs.rs: a subnormal cloth size (non-finite masses panicked the
    // nodal contact problem) and an astronomic capsule (an infinite Delassus operator).
    let sphere = std::fs::read_to_string(root.join("scenes/cloth_on_sphere.ron")).unwrap();
    let sheet = dir.path().join("sheet.ron");
    std::fs::write(&sheet, sphere.replace("Grid(size: (1.0, 1.0)", "Grid(size: (1e-320, 1.0)")).unwrap();
    let hopper = std::fs::read_to_string(root.join("scenes/capsule_hopper.ron")).unwrap();
    let huge = dir.path().join("huge.ron");
    std::fs::write(&huge, hopper.replacen("Capsule(radius: 0.01,", "Capsule(radius: 1e308,", 1)).unwrap();
    let cases = [
        (&sheet, "bodies[0].mesh.size = [1e-320, 1.0]: every component must be a length from 1e-9 to 1e6 (m)"),
        (&huge, "shape.radius = 1e308: must be a length from 1e-9 to 1e6 (m)"),
        (&flat, "bodies[0].shape.size = (0.1, 1e-320, 0.1): must be at least 1e-9 m"),
        (&ball, "bodies[0].shape.radius = 5e-324: must be at least 1e-9 m"),
        (&cloth, "triangle 1 (vertices 1, 3, 4, counted from 0) has zero area"),
    ];
    for (scene, expect) in cases {
        let o = dir.path().join("o");
        for args in
            [vec!["check", scene.to_str().unwrap()], vec!["run", scene.to_str().unwrap(), "--out", o.to_str().unwrap()]]
        {
            let cmd = args[0];
            let out = Command::new(BIN).args(&args).output().unwrap();
            let err = String::from_utf8_lossy(&out.stderr);
            assert_eq!(out.status.code(), Some(2), "{cmd} {scene:?}: {err}");
            assert!(err.contains(expect) && !err.contains("panicked"), "{cmd} {scene:?}: {err}");
        }
    }
    // An FCLib text file whose counts ask for 34 GB before any entry is read.
    let text = dir.path().join("big.txt");
    std::fs::write(&text, "kind local\nnc 1\nmatrix W 3 3 1000000000000\n0 0 1\n").unwrap();
    let out = Command::new(BIN).args(["fclib", "solve", text.to_str().unwrap()]).output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("file ends before its 1000000000000 entries") && !err.contains("panicked"), "{err}");
    assert_ne!(out.status.code(), Some(0), "{err}");
}

/// Found by fuzzing: a box at exactly the 1e-6 aspect limit passed validation and panicked while
/// its hull was built (its small end faces were taken for degenerate triangles, measured against
/// the long side). It is a valid body: `check` and a one-frame `run` succeed.
#[test]
fn a_box_at_the_aspect_limit_runs() {
    let dir = tempfile::tempdir().unwrap();
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let stack = std::fs::read_to_string(root.join("scenes/box_stack.ron")).unwrap();
    let anchor = "Box(size: (0.1, 0.1, 0.1)), position: (0.0, 0.0, 0.05)";
    assert_eq!(stack.matches(anchor).count(), 1);
    let scene = dir.path().join("long.ron");
    std::fs::write(&scene, stack.replace(anchor, "Box(size: (100000.0, 0.1, 0.1)), position: (0.0, 0.0, 0.05)"))
        .unwrap();
    let o = dir.path().join("o");
    for args in [
        vec!["check", scene.to_str().unwrap()],
        vec!["run", scene.to_str().unwrap(), "--quiet", "--frames", "1", "--out", o.to_str().unwrap()],
    ] {
        let out = Command::new(BIN).args(&args).output().unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(0), "{}: {err}", args[0]);
    }
}

/// Found by fuzzing: a solid of 21.6 M tetrahedra (about 40 GB by the per-tetrahedron estimate)
/// was accepted on a 24 GB machine. `check` and `run` refuse it naming both numbers and the way
/// out (`--allow-large`); on a machine with more memory than the estimate there is nothing to test.
#[test]
fn a_model_larger_than_the_machine_is_refused() {
    let estimate = 6.0 * 100000.0 * 6.0 * 6.0 * 1832.0;
    match fricsim::scene::validate::machine_memory() {
        Some(m) if (m as f64) < estimate => {}
        other => {
            println!("machine memory {other:?} bytes: the 40 GB model fits, nothing to refuse");
            return;
        }
    }
    let scene = edited("cells: (2, 2, 1)", "cells: (100000, 6, 6)");
    let err = expect_bad(
        &scene,
        &[],
        Some("cells: (100000, 6, 6)"),
        &["bodies[0].mesh.cells", "too large for this machine", "2.160e7 tetrahedra", "39.6 GB", "--allow-large"],
    );
    assert!(err.contains("GB of memory"), "{err}");
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("big.ron");
    std::fs::write(&path, &scene).unwrap();
    let out = Command::new(BIN).args(["check", path.to_str().unwrap()]).output().unwrap();
    assert_bad_input(&out);
    assert!(stderr(&out).contains("too large for this machine"), "{}", stderr(&out));
}

/// A displacement field: a formula that does not parse or names an unknown variable is refused
/// at its line with the field; one that is not finite at a vertex, or turns a tet inside out,
/// names the vertex or the tet; scripted regions on a displaced solid are refused.
#[test]
fn bad_displacement_fields_are_refused() {
    let with = |z: &str| {
        edited(
            "velocity: (0.1, 0.0, 0.0),",
            &format!("velocity: (0.1, 0.0, 0.0),\n            displacement: (x: \"0\", y: \"0\", z: \"{z}\"),"),
        )
    };
    let s = with("0.001 * x +");
    expect_bad(&s, &[], Some("z: \"0.001 * x +\""), &["bodies[0].displacement.z", "does not parse"]);
    let s = with("0.001 * t");
    expect_bad(&s, &[], None, &["bodies[0].displacement.z", "uses `t`", "x, y and z"]);
    let s = with("sqrt(x - 1)");
    expect_bad(&s, &[], None, &["bodies[0].displacement", "`z` is NaN at vertex"]);
    // z' = z - 2 z = -z mirrors the block: every tet turns inside out.
    let s = with("-2 * z");
    expect_bad(&s, &[], None, &["bodies[0].displacement", "turns tet 0", "inside out"]);
    // Scripted regions would start from the undisplaced shape: refused, not half honoured.
    let s = with("0.001 * x").replacen(
        "displacement:",
        "kinematic: [(region: Box(min: (-1.0, -1.0, -1.0), max: (1.0, 1.0, 0.06)))],\n            displacement:",
        1,
    );
    expect_bad(&s, &[], None, &["bodies[0]", "takes no `kinematic` regions"]);
}
