//! `--set PATH=VALUE` overrides: nested fields, list elements, enum-transparent paths, options,
//! tuples, and clear errors for paths that do not exist and values of the wrong type.

use fricsim::energy::ElasticModel;
use fricsim::scene::schema::{BodySpec, MeshSpec, MotionSpec, PipelineSpec};
use fricsim::scene::{LoadedScene, parse_scene_str};
use std::path::Path;

const SCENE: &str = r#"Scene(
    name: "ramp",
    dt: 1e-3,
    duration: 1.0,
    frame_rate: 50.0,
    materials: {
        "rubber": (density: 1100.0, youngs_modulus: 6e5, poisson_ratio: 0.45),
        "wood": (),
    },
    friction: (pairs: [ (between: ("rubber", "wood"), mu: 0.2) ]),
    bodies: [
        Solid(name: "a", material: "rubber", mesh: Box(size: (0.1, 0.1, 0.1), cells: (2, 2, 2)),
              kinematic: [ (region: Box(min: (0.0, 0.0, 0.0), max: (1.0, 1.0, 1.0)), motion: Velocity(0.0, 0.0, 1.0)) ]),
        Solid(name: "b", material: "rubber", mesh: Ball(radius: 0.05, resolution: 4), position: (0.0, 0.0, 0.3)),
    ],
    colliders: [ Plane(name: "floor", material: "wood", rotation: (10.0, 0.0, 0.0)) ],
    pipeline: Penalty(),
)
"#;

fn load(sets: &[&str]) -> Result<LoadedScene, String> {
    let sets: Vec<String> = sets.iter().map(|s| s.to_string()).collect();
    parse_scene_str(SCENE, "ramp.ron", Path::new("."), &sets).map_err(|e| e.to_string())
}

fn ok(sets: &[&str]) -> LoadedScene {
    load(sets).unwrap_or_else(|e| panic!("{sets:?} failed:\n{e}"))
}

fn err(sets: &[&str]) -> String {
    match load(sets) {
        Ok(_) => panic!("{sets:?} should fail"),
        Err(e) => e,
    }
}

fn solid(l: &LoadedScene, i: usize) -> &fricsim::scene::schema::SolidSpec {
    let BodySpec::Solid(s) = &l.scene.bodies[i] else { panic!("a solid") };
    s
}

#[test]
fn nested_float_and_top_level_field() {
    let l = ok(&["friction.pairs[0].mu=0.176", "dt=0.0005", "friction.epsilon=1e-5"]);
    assert_eq!(l.scene.friction.pairs[0].mu, 0.176);
    assert_eq!(l.scene.dt, 0.0005);
    assert_eq!(l.scene.friction.epsilon, 1e-5);
    // The effective scene records the overrides and re-loads to the same scene.
    let again = parse_scene_str(&l.effective_ron, "e.ron", Path::new("."), &[]).unwrap();
    assert_eq!(again.scene, l.scene);
}

#[test]
fn list_element_and_tuple() {
    let l = ok(&["bodies[1].position=(0.0, 0.0, -1.62)", "gravity=(0.0, 0.0, -1.62)", "gravity[0]=0.5"]);
    assert_eq!(solid(&l, 1).position, [0.0, 0.0, -1.62]);
    assert_eq!(l.scene.gravity, [0.5, 0.0, -1.62]);
    // Vector components by name.
    let l = ok(&["gravity.z=-1.62", "bodies[1].velocity.x=2.0"]);
    assert_eq!(l.scene.gravity, [0.0, 0.0, -1.62]);
    assert_eq!(solid(&l, 1).velocity, [2.0, 0.0, 0.0]);
}

#[test]
fn map_entries_by_name() {
    let l = ok(&["materials.rubber.youngs_modulus=1e6", "materials.\"wood\".density=600"]);
    assert_eq!(l.scene.materials["rubber"].youngs_modulus, Some(1e6));
    assert_eq!(l.scene.materials["wood"].density, Some(600.0));
    let l = ok(&["materials.rubber.model=NeoHookean"]);
    assert_eq!(l.scene.materials["rubber"].model, ElasticModel::NeoHookean);
}

#[test]
fn enum_variants_are_transparent() {
    let l = ok(&[
        "bodies[0].mesh.size=(0.2, 0.2, 0.2)",
        "bodies[1].mesh.radius=0.1",
        "pipeline.newton.max_iterations=7",
        "pipeline.contact.delta=2e-3",
    ]);
    assert!(matches!(solid(&l, 0).mesh, MeshSpec::Box { size: [0.2, 0.2, 0.2], .. }));
    assert!(matches!(solid(&l, 1).mesh, MeshSpec::Ball { radius: 0.1, resolution: 4, .. }));
    let PipelineSpec::Penalty(p) = &l.scene.pipeline else { panic!("penalty") };
    assert_eq!(p.newton.max_iterations, 7);
    assert_eq!(p.contact.delta, 2e-3);
    let l = ok(&["bodies[0].kinematic[0].motion[2]=-0.5", "bodies[0].kinematic[0].region.max=(2.0, 2.0, 2.0)"]);
    assert_eq!(solid(&l, 0).kinematic[0].motion, MotionSpec::Velocity([0.0, 0.0, -0.5]));
    // A whole enum value, with its variant name.
    let l = ok(&[
        "bodies[0].mesh=Ball(radius: 0.2, resolution: 3)",
        "bodies[0].kinematic[0].motion=Keyframes([(0.0, (0.0, 0.0, 0.0)), (1.0, (0.0, 0.0, 0.1))])",
    ]);
    assert!(matches!(solid(&l, 0).mesh, MeshSpec::Ball { radius: 0.2, resolution: 3, .. }));
    assert!(matches!(&solid(&l, 0).kinematic[0].motion, MotionSpec::Keyframes(k) if k.len() == 2));
}

#[test]
fn option_fields_take_plain_or_some_values() {
    let l = ok(&["friction.pairs[0].mu_s=0.3", "pipeline.contact.kappa=Some(1e4)"]);
    assert_eq!(l.scene.friction.pairs[0].mu_s, Some(0.3));
    let PipelineSpec::Penalty(p) = &l.scene.pipeline else { panic!("penalty") };
    assert_eq!(p.contact.kappa, Some(1e4));
    let l = ok(&["duration=None", "frames=10"]);
    assert_eq!((l.scene.duration, l.scene.frames), (None, Some(10)));
}

#[test]
fn overrides_apply_in_order() {
    let l = ok(&["dt=0.002", "dt=0.0005"]);
    assert_eq!(l.scene.dt, 0.0005);
}

#[test]
fn missing_paths_name_the_missing_segment() {
    let m = err(&["friction.pairs[3].mu=0.2"]);
    assert_eq!(m, "--set friction.pairs[3].mu=0.2: `pairs` has 1 element (index 3 is out of range)");
    let m = err(&["friction.pairs[0].muu=0.2"]);
    assert_eq!(
        m,
        "--set friction.pairs[0].muu=0.2: no field `muu` in `friction.pairs[0]` (did you mean `mu`?); fields: between, cohesion, compliance, mu, mu_b, mu_s, mu_t, mu_tau, mu_v, v_s"
    );
    let m = err(&["bodies[1].mesh.size=(1.0, 1.0, 1.0)"]);
    assert!(
        m.contains("no field `size` in `bodies[1].mesh` (a `Ball`); fields: inner_radius, radius, resolution"),
        "{m}"
    );
    let m = err(&["materials.steel.density=7800"]);
    assert!(m.contains("no entry \"steel\" in `materials`; entries: \"rubber\", \"wood\""), "{m}");
    let m = err(&["dtt=0.1"]);
    assert!(m.contains("no field `dtt` in the scene (did you mean `dt`?)"), "{m}");
    let m = err(&["materials.rubber.damping.alpha=0.1"]);
    assert!(m.contains("`materials.\"rubber\".damping` is not set (None); set it as a whole"), "{m}");
    let m = err(&["bodies.name=\"x\""]);
    assert!(m.contains("`bodies` is a list"), "{m}");
    let m = err(&["dt"]);
    assert!(m.contains("--set dt: expected PATH=VALUE"), "{m}");
    let m = err(&["bodies[x].name=\"q\""]);
    assert!(m.contains("bad path"), "{m}");
}

#[test]
fn wrong_types_and_non_finite_values() {
    let m = err(&["friction.pairs[0].mu=abc"]);
    assert_eq!(m, "--set friction.pairs[0].mu=abc: expected a number, found string \"abc\"");
    let m = err(&["bodies[0].mesh.cells=(2.5, 2, 2)"]);
    assert!(m.starts_with("--set bodies[0].mesh.cells=(2.5, 2, 2): expected a whole number >= 0"), "{m}");
    let m = err(&["gravity=(0.0, 0.0)"]);
    assert!(m.contains("--set gravity=(0.0, 0.0): invalid length 2"), "{m}");
    for bad in ["dt=NaN", "dt=inf", "gravity=(0.0, 0.0, -inf)", "pipeline.contact.kappa=Some(1e999)"] {
        let m = err(&[bad]);
        assert!(m.contains(&format!("--set {bad}: values must be finite numbers")), "{m}");
    }
    let m = err(&["dt=(1.0"]);
    assert!(m.contains("--set dt=(1.0: `(1.0` is not a valid RON value"), "{m}");
    let m = err(&["materials.rubber.model=Hookean"]);
    assert!(
        m.contains("unknown variant `Hookean`, expected one of `NeoHookean`, `StableNeoHookean`, `FixedCorotated`"),
        "{m}"
    );
}

#[test]
fn validation_after_override_names_the_override() {
    let m = err(&["materials.rubber.poisson_ratio=0.5"]);
    assert_eq!(
        m,
        "ramp.ron (after --set materials.rubber.poisson_ratio=0.5): materials.\"rubber\".poisson_ratio = 0.5: must be in [0, 0.5) (0.5 is incompressible, not supported by tetrahedral FEM; negative ratios are not supported)"
    );
}

#[test]
fn nan_in_file_is_caught_before_overrides() {
    let text = SCENE.replace("mu: 0.2", "mu: 0.2, mu_s: NaN");
    let e = parse_scene_str(&text, "ramp.ron", Path::new("."), &["dt=0.002".to_string()]).unwrap_err().to_string();
    assert!(e.starts_with("ramp.ron:10:64: friction.pairs[0].mu_s = NaN: must be a finite number"), "{e}");
}
