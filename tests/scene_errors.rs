//! Bad scene files: each class of mistake gives a message naming the file, line:col (where the
//! parser knows it), the field, the value and what is allowed.

use fricsim::scene::schema::Scene;
use fricsim::scene::{error_at, load_scene, parse_scene_str};
use std::path::Path;

/// A small valid scene; line numbers below refer to it (line 1 is `Scene(`).
const VALID: &str = r#"Scene(
    name: "drop",
    dt: 1e-3,
    duration: 2.0,
    frame_rate: 50.0,
    gravity: (0.0, 0.0, -9.81),
    materials: {
        "rubber": (density: 1100.0, youngs_modulus: 6e5, poisson_ratio: 0.45, model: StableNeoHookean),
        "wood": (),
    },
    friction: (
        default: (mu: 0.5),
        pairs: [ (between: ("rubber", "wood"), mu: 0.6, mu_s: 0.8) ],
    ),
    bodies: [
        Solid(name: "cube", material: "rubber", mesh: Box(size: (0.1, 0.1, 0.1), cells: (2, 2, 2)),
              position: (0.0, 0.0, 0.06),
              kinematic: [ (region: Box(min: (-1.0, -1.0, 0.1), max: (1.0, 1.0, 1.0)), motion: Velocity(0.0, 0.0, 0.1)) ]),
    ],
    colliders: [ Plane(name: "floor", material: "wood") ],
    pipeline: Penalty(newton: (max_iterations: 20)),
)
"#;

fn parse(text: &str) -> Result<Scene, String> {
    parse_scene_str(text, "scene.ron", Path::new("."), &[]).map(|l| l.scene).map_err(|e| e.to_string())
}

fn err(text: &str) -> String {
    match parse(text) {
        Ok(_) => panic!("expected an error for:\n{text}"),
        Err(e) => e,
    }
}

fn edit(from: &str, to: &str) -> String {
    assert!(VALID.contains(from), "test bug: {from:?} not in VALID");
    VALID.replacen(from, to, 1)
}

fn assert_has(msg: &str, parts: &[&str]) {
    for p in parts {
        assert!(msg.contains(p), "message lacks {p:?}:\n{msg}");
    }
}

#[test]
fn valid_scene_loads_and_effective_ron_round_trips() {
    let loaded = parse_scene_str(VALID, "scene.ron", Path::new("."), &[]).expect("valid scene");
    assert_eq!(loaded.scene.bodies.len(), 1);
    assert_eq!(loaded.scene.duration, Some(2.0));
    let again = parse_scene_str(&loaded.effective_ron, "scene.effective.ron", Path::new("."), &[])
        .expect("effective RON re-loads");
    assert_eq!(again.scene, loaded.scene);
    assert_eq!(again.effective_ron, loaded.effective_ron);
}

#[test]
fn syntax_error_missing_comma() {
    let m = err(&edit("dt: 1e-3,\n", "dt: 1e-3\n"));
    assert_has(&m, &["scene.ron:4:5:", "syntax error", "comma"]);
}

#[test]
fn syntax_error_missing_paren() {
    let m = err(VALID.trim_end().trim_end_matches(')'));
    assert_has(&m, &["scene.ron:", "end of file"]);
}

#[test]
fn unknown_field_lists_allowed_fields() {
    let m = err(&edit("youngs_modulus: 6e5", "youngs_modulu: 6e5"));
    assert_has(
        &m,
        &[
            "scene.ron:8:37:",
            "materials.\"rubber\"",
            "unknown field `youngs_modulu`",
            "did you mean `youngs_modulus`",
            "`density`",
            "`poisson_ratio`",
        ],
    );
}

#[test]
fn unknown_field_inside_enum_variant() {
    let m = err(&edit("cells: (2, 2, 2)", "cels: (2, 2, 2)"));
    assert_has(&m, &["scene.ron:16:", "bodies[0].mesh", "unknown field `cels`", "`cells`"]);
}

#[test]
fn unknown_variant_lists_allowed_variants() {
    let m = err(&edit("Solid(", "Soild("));
    assert_has(
        &m,
        &[
            "scene.ron:16:9:",
            "bodies[0]",
            "unknown variant `Soild`",
            "did you mean `Solid`",
            "allowed variants: `Solid`",
        ],
    );
    let m = err(&edit("StableNeoHookean", "Hookean"));
    assert_has(&m, &["scene.ron:8:", "materials.\"rubber\".model", "`NeoHookean`, `StableNeoHookean`"]);
}

#[test]
fn wrong_type_string_for_number() {
    let m = err(&edit("dt: 1e-3", "dt: \"fast\""));
    assert_has(&m, &["scene.ron:3:9:", "dt = \"fast\"", "expected a number", "found a string"]);
    let m = err(&edit("cells: (2, 2, 2)", "cells: (2.5, 2, 2)"));
    assert_has(&m, &["scene.ron:16:", "bodies[0].mesh.cells[0] = 2.5", "whole number"]);
}

#[test]
fn missing_required_field() {
    let m = err(&edit("    frame_rate: 50.0,\n", ""));
    assert_has(&m, &["scene.ron:21:1: frame_rate: missing required field (in `Scene`)"]);
    let m = err(&edit("material: \"rubber\", ", ""));
    assert_has(&m, &["scene.ron:18:", "bodies[0].material: missing required field (in `Solid`)"]);
}

#[test]
fn poisson_ratio_half_and_above() {
    for nu in ["0.5", "0.7"] {
        let m = err(&edit("poisson_ratio: 0.45", &format!("poisson_ratio: {nu}")));
        assert_has(
            &m,
            &[
                "scene.ron:8:58:",
                &format!("materials.\"rubber\".poisson_ratio = {nu}:"),
                "must be in [0, 0.5)",
                "incompressible",
            ],
        );
    }
}

#[test]
fn negative_density() {
    let m = err(&edit("density: 1100.0", "density: -1100.0"));
    assert_has(&m, &["scene.ron:8:20: materials.\"rubber\".density = -1100.0: must be from 1e-6 to 1e6 (kg/m^3)"]);
}

/// A subnormal density is positive, but a body of it has no mass to speak of (its inverse
/// overflows): refused by the range, naming the value.
#[test]
fn subnormal_density() {
    let m = err(&edit("density: 1100.0", "density: 1e-320"));
    assert_has(&m, &["scene.ron:8:20: materials.\"rubber\".density = ", "must be from 1e-6 to 1e6 (kg/m^3)"]);
}

#[test]
fn zero_dt() {
    let m = err(&edit("dt: 1e-3", "dt: 0.0"));
    assert_has(&m, &["scene.ron:3:5: dt = 0.0: must be > 0"]);
}

#[test]
fn frames_and_duration_both_or_neither() {
    let m = err(&edit("duration: 2.0,", "duration: 2.0, frames: 10,"));
    assert_has(&m, &["scene.ron:4:20: frames = 10: give either `duration` or `frames`, not both"]);
    let m = err(&edit("    duration: 2.0,\n", ""));
    assert_has(&m, &["scene.ron:1:1: duration: missing: give either `duration`", "or `frames`"]);
    let with_frames = edit("duration: 2.0", "frames: 100");
    assert!(parse(&with_frames).is_ok());
}

#[test]
fn non_integer_steps_per_frame() {
    let m = err(&edit("frame_rate: 50.0", "frame_rate: 60.0"));
    assert_has(
        &m,
        &[
            "scene.ron:3:5: dt = 0.001: 1 / (frame_rate * dt) = 16.666667 steps per frame",
            "must be a whole number",
            "dt = 0.000980392156862745 (17 steps per frame) would fit",
        ],
    );
}

#[test]
fn nan_and_infinity_are_rejected() {
    let m = err(&edit("density: 1100.0", "density: NaN"));
    assert_has(&m, &["scene.ron:8:20: materials.\"rubber\".density = NaN: must be a finite number"]);
    let m = err(&edit("(0.0, 0.0, -9.81)", "(0.0, 0.0, -inf)"));
    assert_has(&m, &["scene.ron:6:25: gravity[2] = -inf: must be a finite number"]);
    // An optional field: NaN must not silently become `None` anywhere on the way.
    let m = err(&edit("newton: (max_iterations: 20)", "contact: (kappa: NaN)"));
    assert_has(&m, &["scene.ron:21:", "pipeline.contact.kappa = NaN: must be a finite number"]);
    let m = err(&edit("mu: 0.5", "mu: 1e999"));
    assert_has(&m, &["scene.ron:12:", "friction.default.mu = inf: must be a finite number"]);
}

#[test]
fn missing_mesh_file_shows_resolved_path() {
    let dir = tempfile::tempdir().unwrap();
    let text = edit("Box(size: (0.1, 0.1, 0.1), cells: (2, 2, 2))", "File(path: \"meshes/x.vtu\")");
    std::fs::write(dir.path().join("scene.ron"), &text).unwrap();
    let e = load_scene(&dir.path().join("scene.ron"), &[]).unwrap_err().to_string();
    let looked = std::path::absolute(dir.path().join("meshes/x.vtu")).unwrap();
    assert_has(
        &e,
        &[
            "scene.ron:16:",
            "bodies[0].mesh.path = \"meshes/x.vtu\": file not found",
            &format!("looked for {}", looked.display()),
        ],
    );
    // Present file: loads, and base_dir is the scene's directory.
    std::fs::create_dir(dir.path().join("meshes")).unwrap();
    std::fs::write(dir.path().join("meshes/x.vtu"), "").unwrap();
    let loaded = load_scene(&dir.path().join("scene.ron"), &[]).unwrap();
    assert_eq!(loaded.base_dir, dir.path());
    let m = err(&edit("Box(size: (0.1, 0.1, 0.1), cells: (2, 2, 2))", "File(path: \"x.stl\")"));
    assert_has(&m, &["bodies[0].mesh.path = \"x.stl\": must be a `.vtk` (legacy) or `.vtu` file"]);
}

#[test]
fn unknown_material_lists_known_names() {
    let m = err(&edit("material: \"rubber\"", "material: \"ruber\""));
    assert_has(
        &m,
        &[
            "scene.ron:16:29: bodies[0].material = \"ruber\": no such material (did you mean \"rubber\"?); materials: \"rubber\", \"wood\"",
        ],
    );
}

#[test]
fn duplicate_body_name() {
    let m = err(&edit("Plane(name: \"floor\"", "Plane(name: \"cube\""));
    assert_has(&m, &["scene.ron:20:24: colliders[0].name = \"cube\": duplicate name, already used by bodies[0]"]);
    let m = err(&edit("name: \"cube\"", "name: \"a/b\""));
    assert_has(&m, &["bodies[0].name = \"a/b\": a body name must not contain `/`"]);
}

#[test]
fn bad_friction() {
    let m = err(&edit("mu_s: 0.8", "mu_s: 0.4"));
    assert_has(&m, &["scene.ron:13:57: friction.pairs[0].mu_s = 0.4: the static coefficient must be >= mu (0.6)"]);
    let m = err(&edit(
        "pairs: [ (between: (\"rubber\", \"wood\"), mu: 0.6, mu_s: 0.8) ]",
        "pairs: [ (between: (\"rubber\", \"wood\")), (between: (\"wood\", \"rubber\")), (between: (\"wood\", \"steel\")) ]",
    ));
    assert_has(
        &m,
        &[
            "friction.pairs[1].between = (\"wood\", \"rubber\"): duplicates friction.pairs[0]",
            "friction.pairs[2].between[1] = \"steel\": no such material",
        ],
    );
}

#[test]
fn many_problems_reported_together() {
    let text = edit("dt: 1e-3", "dt: -1.0")
        .replace("poisson_ratio: 0.45", "poisson_ratio: 0.5")
        .replace("max_iterations: 20", "max_iterations: 0, armijo: 1.5");
    let m = err(&text);
    assert_eq!(m.lines().count(), 4, "{m}");
    assert_has(
        &m,
        &[
            "dt = -1.0: must be > 0",
            "poisson_ratio = 0.5",
            "pipeline.newton.max_iterations = 0: must be >= 1",
            "pipeline.newton.armijo = 1.5: must be in (0, 1)",
        ],
    );
}

#[test]
fn other_range_checks() {
    let cases = [
        ("cells: (2, 2, 2)", "cells: (2, 0, 2)", "bodies[0].mesh.cells = (2, 0, 2): every component must be >= 1"),
        (
            "cells: (2, 2, 2)",
            "cells: (100000, 100000, 100000)",
            "bodies[0].mesh.cells = (100000, 100000, 100000): too fine",
        ),
        (
            "size: (0.1, 0.1, 0.1)",
            "size: (0.1, -0.1, 0.1)",
            "bodies[0].mesh.size = (0.1, -0.1, 0.1): every component must be a length from 1e-9 to 1e6 (m)",
        ),
        (
            "min: (-1.0, -1.0, 0.1)",
            "min: (-1.0, -1.0, 2.0)",
            "bodies[0].kinematic[0].region.min = (-1.0, -1.0, 2.0): must be <= max",
        ),
        ("Velocity(0.0, 0.0, 0.1)", "Keyframes([])", "bodies[0].kinematic[0].motion: `Keyframes` needs at least one"),
        (
            "Velocity(0.0, 0.0, 0.1)",
            "Keyframes([(0.0, (0.0, 0.0, 0.0)), (0.0, (0.0, 0.0, 1.0))])",
            "bodies[0].kinematic[0].motion[1][0] = 0.0: keyframe times must be strictly increasing",
        ),
        (
            "Penalty(newton: (max_iterations: 20))",
            "Penalty(contact: (delta: 0.0, kappa: -1.0))",
            "pipeline.contact.delta = 0.0: must be a length from 1e-9 to 1e6 (m)",
        ),
        ("mu: 0.5", "mu: -0.5", "friction.default.mu = -0.5: must be >= 0"),
        (
            "Penalty(newton: (max_iterations: 20))",
            "Smooth(field: (radius: -0.01))",
            "pipeline.field.radius = -0.01: must be a length from 1e-9 to 1e6 (m)",
        ),
        (
            "Penalty(newton: (max_iterations: 20))",
            "Smooth(field: (kernel: Approximate(epsilon: 2.0), radius: 0.01))",
            "pipeline.field.kernel.epsilon = 2.0: must be in (0, 1]",
        ),
        (
            "Penalty(newton: (max_iterations: 20))",
            "Smooth(field: (radius: 0.01), predictor: (tolerance: 0.0))",
            "pipeline.predictor.tolerance = 0.0: must be > 0 (m/s)",
        ),
        (
            "Penalty(newton: (max_iterations: 20))",
            "Smooth(field: (radius: 0.01), friction: (max_iterations: 0))",
            "pipeline.friction.max_iterations = 0: must be >= 1",
        ),
        (
            "Penalty(newton: (max_iterations: 20))",
            "Smooth(field: (radius: 0.01), frcition: (max_iterations: 3))",
            "frcition",
        ),
        (
            "Penalty(newton: (max_iterations: 20))",
            "Nonsmooth(solver: Admm, admm: (gs_sweeps: 0))",
            "pipeline.admm.gs_sweeps = 0: must be >= 1",
        ),
        (
            "Penalty(newton: (max_iterations: 20))",
            "Nonsmooth(solver: Admm, admm: (delta_inf: Some(-1e-5)))",
            "scene.ron:21:46: pipeline.admm.delta_inf = -1e-5: must be a length from 1e-9 to 1e6 (m)",
        ),
        (
            "Penalty(newton: (max_iterations: 20))",
            "Nonsmooth(solver: Lemke(samples: 2))",
            "pipeline.solver.samples = 2: a friction polygon has 3 to 64 samples (002 uses 8)",
        ),
        (
            "Penalty(newton: (max_iterations: 20))",
            "Nonsmooth(solver: RegularisedLcp(samples: 65))",
            "pipeline.solver.samples = 65: a friction polygon has 3 to 64 samples",
        ),
        (
            "Penalty(newton: (max_iterations: 20))",
            "Nonsmooth(solver: StaggeredProjections(contact_qp: Primal))",
            "pipeline.solver.contact_qp = Primal: the primal contact QP (002 eq. 5.11) has no proximal term",
        ),
        (
            "Penalty(newton: (max_iterations: 20))",
            "Nonsmooth(solver: PgsPolygon(samples: 80))",
            "pipeline.solver.samples = 80: a friction polygon has 3 to 64 samples",
        ),
        (
            "Penalty(newton: (max_iterations: 20))",
            "Nonsmooth(solver: Sqp(samples: 1))",
            "pipeline.solver.samples = 1: a friction polygon has 3 to 64 samples",
        ),
        (
            "Penalty(newton: (max_iterations: 20))",
            "Nonsmooth(solver: StaggeredProjections(samples: Some(100)))",
            "pipeline.solver.samples = 100: a friction polygon has 3 to 64 samples",
        ),
        (
            "Penalty(newton: (max_iterations: 20))",
            "Nonsmooth(integrator: Variational)",
            "pipeline.integrator = Variational: 002's variational integrator takes rigid bodies only",
        ),
        (
            "Penalty(newton: (max_iterations: 20))",
            "Nonsmooth(solver: StaggeredProjections(acceleration: Anderson(0)))",
            "pipeline.solver.acceleration = Anderson(0): an Anderson memory from 1 to 50 (or `Off`)",
        ),
        (
            "Penalty(newton: (max_iterations: 20))",
            "Nonsmooth(solver: StaggeredProjections(proximal: -0.1))",
            "pipeline.solver.proximal = -0.1: must be in [0, 1]",
        ),
        (
            "Penalty(newton: (max_iterations: 20))",
            "Nonsmooth(solver: StaggeredProjections(stop: RelativeChange(0.0)))",
            "pipeline.solver.stop = 0.0: must be > 0",
        ),
        ("\"wood\": ()", "\"wood\": (damping: (alpha: -1.0))", "materials.\"wood\".damping.alpha = -1.0: must be >= 0"),
        (
            "Plane(name: \"floor\", material: \"wood\")",
            "Sphere(name: \"ball\", material: \"wood\", radius: 0.0)",
            "colliders[0].radius = 0.0: must be a length from 1e-9 to 1e6 (m)",
        ),
        (
            "mesh: Box(size: (0.1, 0.1, 0.1), cells: (2, 2, 2))",
            "mesh: Ball(radius: 0.1, resolution: 1)",
            "bodies[0].mesh.resolution = 1: must be >= 2",
        ),
        ("name: \"drop\"", "name: \"  \"", "name = \"  \": the scene name must not be empty or blank"),
    ];
    for (from, to, want) in cases {
        assert_has(&err(&edit(from, to)), &[want]);
    }
    let m = err(&edit("\"rubber\": (density: 1100.0, youngs_modulus: 6e5, ", "\"rubber\": ("));
    assert_has(
        &m,
        &[
            "scene.ron:8:9: materials.\"rubber\": missing density, youngs_modulus: required because bodies[0] (\"cube\") is an elastic solid",
        ],
    );
}

#[test]
fn vector_in_variant_with_extra_parentheses_gets_a_hint() {
    let m = err(&edit("Velocity(0.0, 0.0, 0.1)", "Velocity((0.0, 0.0, 0.1))"));
    assert_has(&m, &["scene.ron:18:", "without extra parentheses"]);
}

#[test]
fn unreadable_scene_file() {
    let e = load_scene(Path::new("/nonexistent/dir/scene.ron"), &[]).unwrap_err().to_string();
    assert_has(&e, &["/nonexistent/dir/scene.ron: cannot read the scene file"]);
}

#[test]
fn error_at_has_the_same_shape() {
    let e = error_at(Path::new("scenes/a.ron"), "bodies[1].mesh.path", "not a tetrahedral mesh (found 0 tetrahedra)");
    assert_eq!(e.to_string(), "scenes/a.ron: bodies[1].mesh.path: not a tetrahedral mesh (found 0 tetrahedra)");
}

/// Truncated and garbled variants of a valid scene must give errors, never panics.
#[test]
fn garbled_input_never_panics() {
    let chars: Vec<char> = VALID.chars().collect();
    for cut in (0..chars.len()).step_by(3) {
        let text: String = chars[..cut].iter().collect();
        assert!(parse(&text).is_err(), "truncated at {cut} parsed");
    }
    let junk = ['(', ')', '[', ']', '{', '}', ',', ':', '"', '\'', '/', '*', '#', 'é', '0', '-', 'r'];
    let mut state: u64 = 0x9e3779b97f4a7c15;
    for _ in 0..1500 {
        // xorshift: deterministic pseudo-random positions and characters.
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        let mut text = chars.clone();
        let at = (state % text.len() as u64) as usize;
        let c = junk[((state >> 32) % junk.len() as u64) as usize];
        match (state >> 40) % 3 {
            0 => text[at] = c,
            1 => text.insert(at, c),
            _ => {
                text.remove(at);
            }
        }
        let text: String = text.into_iter().collect();
        let _ = parse(&text);
        let _ = parse_scene_str(
            &text,
            "g.ron",
            Path::new("."),
            &["dt=0.002".into(), "bodies[0].mesh.size=(1.0, 1.0, 1.0)".into()],
        );
    }
}

/// Volume penalties and integrators: out-of-range values are named with their field.
#[test]
fn volume_penalty_and_integrator_mistakes_are_named() {
    let solid = r#"position: (0.0, 0.0, 0.06),"#;
    let e = err(&edit(solid, r#"position: (0.0, 0.0, 0.06), volume: (compressibility_per_atm: 0.0),"#));
    assert_has(&e, &["bodies[0].volume.compressibility_per_atm", "[1e-12, 1e3]"]);
    let e = err(&edit(
        solid,
        r#"position: (0.0, 0.0, 0.06), volume: (compressibility_per_atm: 1.0, gauge_pressure_atm: 2.0),"#,
    ));
    assert_has(&e, &["bodies[0].volume.gauge_pressure_atm", "< 1"]);
    let e = err(&edit(solid, r#"position: (0.0, 0.0, 0.06), volume: (compresibility_per_atm: 1.0),"#));
    assert_has(&e, &["compresibility_per_atm"]);
    let e = err(&edit("Penalty(newton: (max_iterations: 20))", "Penalty(integrator: TrBdf2(gamma: 1.5))"));
    assert_has(&e, &["pipeline.integrator.gamma", "(0, 1)"]);
    let e = err(&edit("Penalty(newton: (max_iterations: 20))", "Penalty(integrator: Sdirk3)"));
    assert_has(&e, &["an integrator: BackwardEuler"]);
    let e = err(&edit("Penalty(newton: (max_iterations: 20))", "Penalty(lagged_iterations: 3)"));
    assert_has(&e, &["pipeline.lagged_iterations", "Lagged"]);
    // Accepted spellings of TR-BDF2.
    for ok in ["TrBdf2", "TrBdf2()", "TrBdf2(gamma: 0.5)"] {
        parse(&edit("Penalty(newton: (max_iterations: 20))", &format!("Penalty(integrator: {ok})")))
            .unwrap_or_else(|e| panic!("{ok}: {e}"));
    }
    // A cavity needs a hollow mesh: reported when the scene is built.
    let text = edit(solid, r#"position: (0.0, 0.0, 0.06), volume: (compressibility_per_atm: 1.0, region: Cavity),"#);
    let loaded = parse_scene_str(&text, "scene.ron", Path::new("."), &[]).expect("parses");
    let e = fricsim::scene::build::build(&loaded).expect_err("no cavity").to_string();
    assert_has(&e, &["bodies[0].volume.region", "hollow"]);
}

/// Cloths and shells under the Penalty pipeline: the mistakes a penalty cloth scene can make are
/// named with their field (self-contact it does not model, an open surface asked to hold a
/// volume, a cavity on a cloth, a zero-cell tube or sphere, a hollow box with too thick a wall).
#[test]
fn penalty_cloth_and_shell_mistakes_are_named() {
    let materials = r#""wood": (),"#;
    let with_cloth = |cloth: &str| {
        let text = edit(
            materials,
            r#""wood": (), "felt": (density: 200.0, youngs_modulus: 1e5, poisson_ratio: 0.3, thickness: 1e-3),"#,
        );
        text.replace("    ],\n    colliders", &format!("        {cloth},\n    ],\n    colliders"))
    };
    let grid = r#"Cloth(name: "sheet", material: "felt", mesh: Grid(size: (0.2, 0.2), cells: (4, 4)), position: (0.0, 0.0, 0.2)"#;
    parse(&with_cloth(&format!("{grid})"))).expect("a penalty cloth with self-contact (the default)");
    let smooth = with_cloth(&format!("{grid})"))
        .replace("pipeline: Penalty(newton: (max_iterations: 20))", "pipeline: Smooth(field: (radius: 0.02))");
    assert_has(&err(&smooth), &["bodies[1].self_contact", "no cloth self-contact", "self_contact: false"]);
    parse(&with_cloth(&format!("{grid}, self_contact: false)"))).expect("a penalty cloth without self-contact");
    let e = err(&with_cloth(&format!(
        "{grid}, self_contact: false, volume: (compressibility_per_atm: 1.0, region: Cavity))"
    )));
    assert_has(&e, &["bodies[1].volume.region", "Boundary"]);
    let open = with_cloth(&format!("{grid}, self_contact: false, volume: (compressibility_per_atm: 1.0))"));
    let loaded = parse_scene_str(&open, "scene.ron", Path::new("."), &[]).expect("parses");
    let e = fricsim::scene::build::build(&loaded).expect_err("an open sheet encloses nothing").to_string();
    assert_has(&e, &["bodies[1].volume", "closed surface"]);
    let tube = r#"Cloth(name: "t", material: "felt", mesh: Tube(radius: 0.1, length: 0.3, cells: (2, 0)), self_contact: false)"#;
    assert_has(&err(&with_cloth(tube)), &["bodies[1].mesh.cells", ">= 3"]);
    let sphere =
        r#"Cloth(name: "s", material: "felt", mesh: Sphere(radius: -0.1, resolution: 0), self_contact: false)"#;
    assert_has(&err(&with_cloth(sphere)), &["bodies[1].mesh.radius", "bodies[1].mesh.resolution"]);
    let hollow = edit("cells: (2, 2, 2))", "cells: (2, 2, 2), wall: 0.05)");
    assert_has(&err(&hollow), &["bodies[0].mesh.wall", "half the smallest size"]);
    let bowl =
        edit("Box(size: (0.1, 0.1, 0.1), cells: (2, 2, 2))", "Bowl(radius: 0.1, inner_radius: 0.0, resolution: 5)");
    assert_has(&err(&bowl), &["bodies[0].mesh.inner_radius", "bodies[0].mesh.resolution", "even"]);
}

/// A mesh collider needs a `.ply`/`.obj` file that exists and a positive scale, in every
/// pipeline; rigid bodies meet one (here a single open triangle) in `Nonsmooth` as in `Smooth`.
#[test]
fn mesh_collider_needs_an_existing_file_and_a_positive_scale() {
    let dir = tempfile::tempdir().unwrap();
    let mesh = r#"Mesh(name: "ground", material: "wood", path: "ground.obj", scale: -1.0)"#;
    let text = edit(r#"Plane(name: "floor", material: "wood")"#, mesh);
    for pipeline in ["Penalty(newton: (max_iterations: 20))", "Smooth(field: (radius: 0.05))", "Nonsmooth()"] {
        let text = text.replace("Penalty(newton: (max_iterations: 20))", pipeline);
        std::fs::write(dir.path().join("scene.ron"), &text).unwrap();
        let e = load_scene(&dir.path().join("scene.ron"), &[]).unwrap_err().to_string();
        assert_has(&e, &["colliders[0].path = \"ground.obj\": file not found", "colliders[0].scale = -1"]);
    }
    std::fs::write(dir.path().join("ground.obj"), "v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\n").unwrap();
    let rigid = r#"Scene(name: "r", dt: 0.01, duration: 0.1, frame_rate: 10.0,
    materials: { "wood": (density: 500.0) },
    bodies: [ Rigid(name: "b", material: "wood", shape: Sphere(radius: 0.1)) ],
    colliders: [ Mesh(name: "ground", material: "wood", path: "ground.obj") ],
    pipeline: Nonsmooth(),
)"#;
    for pipeline in ["Nonsmooth()", "Smooth(field: (radius: 0.05))"] {
        std::fs::write(dir.path().join("scene.ron"), rigid.replace("Nonsmooth()", pipeline)).unwrap();
        let loaded = load_scene(&dir.path().join("scene.ron"), &[]).unwrap_or_else(|e| panic!("{e}"));
        fricsim::scene::build::build(&loaded).unwrap_or_else(|e| panic!("{pipeline}: {e}"));
    }
}

/// A gravity that moves a free body more than ten times the scene's extent in one step is the
/// typo it looks like (2.1e9 m/s², or mm/s² entered as m/s²): refused at build time, naming the
/// field, before any solver runs. At ten times the extent less 1 % it is accepted.
#[test]
fn a_gravity_crossing_the_scene_in_one_step_is_refused() {
    // The cube spans 0.06 ± 0.05 m: extent √3 · 0.1 = 0.173 m; dt 1e-3 s.
    let extent = 3f64.sqrt() * 0.1;
    let refused = 10.0 * extent / 1e-6 * 1.01;
    let text = edit("gravity: (0.0, 0.0, -9.81),", &format!("gravity: (0.0, 0.0, -{refused:e}),"));
    let loaded = parse_scene_str(&text, "scene.ron", Path::new("."), &[]).unwrap_or_else(|e| panic!("{e}"));
    let e = fricsim::scene::build::build(&loaded).expect_err("2 km per step accepted").to_string();
    assert_has(&e, &["scene.ron: gravity:", "in one step", "m/s²"]);
    let accepted = 10.0 * extent / 1e-6 * 0.99;
    let text = edit("gravity: (0.0, 0.0, -9.81),", &format!("gravity: (0.0, 0.0, -{accepted:e}),"));
    let loaded = parse_scene_str(&text, "scene.ron", Path::new("."), &[]).unwrap_or_else(|e| panic!("{e}"));
    fricsim::scene::build::build(&loaded).unwrap_or_else(|e| panic!("{e}"));
}
