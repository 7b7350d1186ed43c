//! `fricsim check` through the real binary: the summary of a valid scene, exit codes, and that
//! checking writes nothing.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

const BIN: &str = env!("CARGO_BIN_EXE_fricsim");

fn repo(rel: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join(rel)
}

/// Runs `fricsim ARGS` in an empty temporary working directory, which must still be empty
/// afterwards (check must not create `output/` or anything else).
fn check(args: &[&str]) -> Output {
    let cwd = tempfile::tempdir().expect("temp dir");
    let out = Command::new(BIN).args(args).current_dir(cwd.path()).output().expect("run fricsim");
    let left: Vec<_> = std::fs::read_dir(cwd.path()).unwrap().map(|e| e.unwrap().file_name()).collect();
    assert!(left.is_empty(), "`fricsim {args:?}` wrote {left:?}");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!err.contains("panicked"), "panic:\n{err}");
    out
}

fn stdout(out: &Output) -> String {
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// The number right after `key` in `s` (e.g. `mass 1.000000 kg` -> 1.0).
fn number_after(s: &str, key: &str) -> f64 {
    let at = s.find(key).unwrap_or_else(|| panic!("no `{key}` in:\n{s}")) + key.len();
    let num: String = s[at..]
        .trim_start()
        .chars()
        .take_while(|c| c.is_ascii_digit() || matches!(c, '.' | 'e' | 'E' | '-' | '+'))
        .collect();
    num.parse().unwrap_or_else(|_| panic!("no number after `{key}` in:\n{s}"))
}

#[test]
fn check_ramp10_summarizes_the_scene() {
    let scene = repo("scenes/validation/ramp10.ron");
    let out = check(&["check", scene.to_str().unwrap()]);
    let s = stdout(&out);
    assert_eq!(out.status.code(), Some(0), "{s}\n{}", String::from_utf8_lossy(&out.stderr));
    // ramp10: one Box body of 4 x 4 x 2 cells: 5 * 5 * 3 = 75 nodes, 6 * 32 = 192 tets; a 0.1 m
    // cube of density 1000 weighs 1 kg; dt 0.01 s; the Penalty pipeline.
    assert!(s.contains("scene 'ramp10'"), "{s}");
    assert!(s.contains("solid 'block'"), "{s}");
    assert!(s.contains("75 nodes"), "{s}");
    assert!(s.contains("192 tets"), "{s}");
    // The mass is printed with 6 decimals: 5e-7 kg is the print rounding.
    let mass = number_after(&s, "mass");
    assert!((mass - 1.0).abs() <= 5e-7, "mass {mass}\n{s}");
    assert!(s.contains("dt 0.01 s"), "{s}");
    assert!(s.contains("pipeline: Penalty"), "{s}");
    assert!(s.contains("Implicit friction"), "{s}");
    let mb = number_after(&s, "estimated memory:");
    // 192 tets, 225 DOFs: a few hundred kB to a few MB; 0 or absurd sizes mean a broken estimate.
    assert!(mb > 0.01 && mb < 100.0, "estimated memory {mb} MB\n{s}");
    assert!(s.contains("MB"), "{s}");
    // 2 s at 10 frames/s and dt 0.01: 20 frames, 10 steps per frame.
    assert!(s.contains("20 frames"), "{s}");
    assert!(s.contains("10 steps/frame"), "{s}");
}

/// The matrix-free solver holds no Jacobian: its estimate must be below the assembled one's
/// (6000-tet ramp: 18 vs 100 MB estimated; measured peak RSS 15.7 vs 103.6 MB), and says which
/// preconditioner `Auto` takes.
#[test]
fn check_estimates_less_memory_for_the_matrix_free_solver() {
    let scene = repo("scenes/bench/ramp_6k.ron");
    let assembled = stdout(&check(&["check", scene.to_str().unwrap(), "--set", "pipeline.newton.linear_solver=Lu"]));
    let free = stdout(&check(&["check", scene.to_str().unwrap(), "--set", "pipeline.newton.linear_solver=Iterative"]));
    let (a, f) = (number_after(&assembled, "estimated memory:"), number_after(&free, "estimated memory:"));
    assert!(free.contains("matrix-free"), "{free}");
    assert!(f < 0.5 * a && f > 1.0, "matrix-free {f} MB vs assembled {a} MB");
    // Auto leaves the ramp's 1 m box (factor 12× its matrix) to block Jacobi; a forced Cholesky
    // is budgeted with its factor.
    assert!(free.contains("Iterative preconditioner: block Jacobi"), "{free}");
    let forced = stdout(&check(&[
        "check",
        scene.to_str().unwrap(),
        "--set",
        "pipeline.newton.linear_solver=Iterative",
        "--set",
        "pipeline.newton.preconditioner=Cholesky",
    ]));
    let c = number_after(&forced, "estimated memory:");
    assert!(
        forced.contains("Iterative preconditioner: Cholesky") && c > f + 5.0,
        "Cholesky {c} MB vs {f} MB\n{forced}"
    );
    // The tube bend's cloth and limb (factor 5× its matrix) get the Cholesky.
    let tube = stdout(&check(&[
        "check",
        repo("scenes/tube_bend.ron").to_str().unwrap(),
        "--set",
        "pipeline.newton.linear_solver=Iterative",
    ]));
    assert!(tube.contains("Iterative preconditioner: Cholesky"), "{tube}");
}

/// `linear_solver: Auto` runs matrix-free (as `Iterative`) on solids soft for their mass
/// (`h² k / m` ≤ 600) where block Jacobi is the preconditioner rule's choice, and `Gmres`
/// elsewhere: checked on both sides of the bound (the ramp block's ratio is 27.27 at E = 1 MPa and
/// grows with E: 597 at 21.9 MPa, 603 at 22.1), below 15 (the cantilever, 1.45), between 15 and 600
/// where the Cholesky would be chosen (`flat_stop`'s small block, 22.8, fill 1.9), with a volume
/// penalty (the hollow ball) and on the tube bend's cloth.
#[test]
fn check_says_what_auto_resolves_to() {
    const FREE: &str = "Auto (Iterative: matrix-free) linear solves";
    const ASSEMBLED: &str = "Auto (Gmres: assembled) linear solves";
    let check_of = |scene: &str, set: &[&str]| {
        let path = repo(scene);
        let mut args = vec!["check", path.to_str().unwrap()];
        args.extend(set.iter().flat_map(|s| ["--set", s]));
        stdout(&check(&args))
    };
    for (e, ratio, free) in [("1e6", 27.273, true), ("2.19e7", 597.273, true), ("2.21e7", 602.727, false)] {
        let s = check_of("scenes/bench/ramp_6k.ron", &[&format!("materials.block.youngs_modulus={e}")]);
        assert!((number_after(&s, "here largest h² k / m") - ratio).abs() < 1e-3, "E {e}\n{s}");
        assert!(s.contains(if free { FREE } else { ASSEMBLED }), "E {e}\n{s}");
        assert_eq!(s.contains("matrix-free Newton: no Jacobian"), free, "E {e}: memory estimate\n{s}");
    }
    let cantilever = check_of("scenes/validation/cantilever.ron", &[]);
    assert!(cantilever.contains(FREE), "{cantilever}");
    let flat_stop = check_of("scenes/validation/flat_stop.ron", &[]);
    assert!(flat_stop.contains(ASSEMBLED) && number_after(&flat_stop, "here largest h² k / m") < 600.0, "{flat_stop}");
    let ball = check_of(
        "scenes/ball_squish.ron",
        &["bodies[0].mesh=Ball(radius: 0.05, resolution: 8, inner_radius: 0.04)", "bodies[0].volume.region=Cavity"],
    );
    assert!(ball.contains(ASSEMBLED), "{ball}");
    let tube = check_of("scenes/tube_bend.ron", &[]);
    assert!(tube.contains(ASSEMBLED), "{tube}");
}

#[test]
fn check_honours_set_overrides() {
    let scene = repo("scenes/validation/ramp10.ron");
    let out =
        check(&["check", scene.to_str().unwrap(), "--set", "dt=0.005", "--set", "bodies[0].mesh.cells=(2, 2, 1)"]);
    let s = stdout(&out);
    assert_eq!(out.status.code(), Some(0), "{s}");
    assert!(s.contains("dt 0.005 s"), "{s}");
    // 2 x 2 x 1 cells: 18 nodes, 24 tets.
    assert!(s.contains("18 nodes") && s.contains("24 tets"), "{s}");
}

#[test]
fn check_file_mesh_scene() {
    // cube6.vtk: a 0.1 m cube of 8 vertices and 6 tets; density 1000 -> 1 kg.
    let out = check(&["check", repo("tests/fixtures/drop_file.ron").to_str().unwrap()]);
    let s = stdout(&out);
    assert_eq!(out.status.code(), Some(0), "{s}");
    assert!(s.contains("8 nodes") && s.contains("6 tets"), "{s}");
    assert!((number_after(&s, "mass") - 1.0).abs() <= 5e-7, "{s}");
}

#[test]
fn every_shipped_scene_checks_clean() {
    let mut scenes = Vec::new();
    let mut dirs = vec![repo("scenes")];
    while let Some(d) = dirs.pop() {
        for e in std::fs::read_dir(&d).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                dirs.push(p);
            } else if p.extension().is_some_and(|x| x == "ron") {
                scenes.push(p);
            }
        }
    }
    assert!(scenes.len() >= 4, "expected the validation scenes, found {scenes:?}");
    for p in scenes {
        let out = check(&["check", p.to_str().unwrap()]);
        assert_eq!(out.status.code(), Some(0), "{p:?}:\n{}", String::from_utf8_lossy(&out.stderr));
    }
}

#[test]
fn check_bad_scene_exits_2_with_the_message_on_stderr() {
    let dir = tempfile::tempdir().expect("temp dir");
    let bad = dir.path().join("bad.ron");
    let text = std::fs::read_to_string(repo("scenes/validation/ramp10.ron"))
        .unwrap()
        .replace("poisson_ratio: 0.3", "poisson_ratio: 0.7");
    std::fs::write(&bad, text).unwrap();
    let out = check(&["check", bad.to_str().unwrap()]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.contains(&bad.display().to_string()), "{err}");
    assert!(err.contains("poisson_ratio = 0.7") && err.contains("[0, 0.5)"), "{err}");
    assert_eq!(stdout(&out), "", "no summary for a bad scene");
    // A scene that does not exist at all.
    let out = check(&["check", dir.path().join("missing.ron").to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("missing.ron"));
}

#[test]
fn version_and_help_exit_0_and_a_missing_subcommand_exits_2() {
    let out = check(&["--version"]);
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(stdout(&out).trim(), format!("fricsim {}", env!("CARGO_PKG_VERSION")));
    let out = check(&["run", "--help"]);
    assert_eq!(out.status.code(), Some(0));
    for flag in ["--out", "--set", "--frames", "--quiet"] {
        assert!(stdout(&out).contains(flag), "run --help lacks {flag}");
    }
    let out = check(&[]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("Usage"));
}

#[test]
fn check_lists_cloth_and_rods_with_their_structure() {
    let scene = repo("scenes/anisotropic_hair.ron");
    let out = check(&["check", scene.to_str().unwrap()]);
    let s = stdout(&out);
    assert_eq!(out.status.code(), Some(0), "{s}\n{}", String::from_utf8_lossy(&out.stderr));
    // A 4 x 4 swatch: 25 nodes, 32 triangles, and its warp direction.
    assert!(s.contains("cloth 'swatch': 25 nodes, 32 triangles"), "{s}");
    assert!(s.contains("with structure (warp) direction"), "{s}");
    assert!(s.contains("rods 'hair_000': 1 rods, 11 nodes, radius 0.001 m, material 'hair', quasistatic twist"), "{s}");
    // The twisted rod: ρ π r⁴ / 2 = 1000 π 1e-12 / 2.
    let out = check(&["check", repo("scenes/twisted_rod.ron").to_str().unwrap()]);
    let s = stdout(&out);
    assert!(s.contains("dynamic twist (rotational inertia 1.571e-9 kg m²/m)"), "{s}");
}

/// With `contact.geometry: Implicit`, check reports each solid's field (000 §4.1): its largest
/// triangle, h_err, and a warning when the radius is not above half the largest triangle.
#[test]
fn implicit_surfaces_are_reported_with_the_radius_rule() {
    let scene = repo("scenes/validation/block_on_slab.ron");
    let fine = "bodies[1].mesh=Box(size: (0.6, 0.3, 0.05), cells: (12, 6, 1))";
    let args = |kernel: &str, r: &str| {
        let g = format!("pipeline.contact.geometry=Implicit(kernel: {kernel}, radius: {r})");
        let out = check(&["check", scene.to_str().unwrap(), "--set", fine, "--set", &g]);
        assert!(out.status.success());
        stdout(&out)
    };
    let cubic = args("Cubic", "0.05");
    assert!(cubic.contains("implicit surface of 'block'") && cubic.contains("implicit surface of 'slab'"), "{cubic}");
    assert!(!cubic.contains("warning"), "{cubic}");
    // The block's triangles are 5.6 cm across. The cubic kernel rounds its corners by about a
    // tenth of its size (measured 0.115); kernel (10) at ε = 1e-3 interpolates them 4x closer
    // (0.024) — 000 §4.1's trade-off.
    let interpolating = args("Approximate(epsilon: 1e-3)", "0.05");
    let (hc, ha) = (number_after(&cubic, "h_err"), number_after(&interpolating, "h_err"));
    assert!(number_after(&cubic, "largest triangle") > 0.05 && hc < 0.2 && ha < 0.5 * hc, "{hc} {ha}");
    let tight = args("Cubic", "0.02");
    assert!(
        tight.contains("warning: pipeline.contact.geometry.radius: 'block'") && tight.contains("has holes"),
        "{tight}"
    );
}

/// With 000's lumped-mass Delassus operator, `check` notes a solid whose surface vertices'
/// period √(m/k) is below the step (the thumb's gel: 0.22 ms against h = 0.01 s; README, "The
/// thumb"), and says nothing at h = 1e-4 or with the default operator. The period is an
/// order-of-magnitude estimate (k ≈ E × node spacing), so it is checked within 1e-4..5e-4 s.
#[test]
fn check_notes_a_lumped_mass_operator_above_the_surface_period() {
    let scene = repo("scenes/thumb_drag.ron");
    let run = |extra: &[&str]| {
        let mut args = vec!["check", scene.to_str().unwrap()];
        args.extend_from_slice(extra);
        let out = check(&args);
        assert_eq!(out.status.code(), Some(0), "{}", stdout(&out));
        stdout(&out)
    };
    let coarse = run(&["--set", "pipeline.delassus=Mass"]);
    assert!(coarse.contains("note: delassus Mass with h = 0.01 s above solid 'block'"), "{coarse}");
    let period = number_after(&coarse, "period √(m/k) = ");
    assert!((1e-4..5e-4).contains(&period), "period {period} s\n{coarse}");
    assert!(!run(&["--set", "pipeline.delassus=Mass", "--set", "dt=1e-4"]).contains("note: delassus"));
    assert!(!run(&[]).contains("note: delassus"));
}
