//! `fricsim run` end to end through the real binary: every output file of a small drop scene is
//! read back with readers that share no code with the writers (quick-xml for the `.pvd`, vtkio for
//! the `.vtu`, ply-rs 0.1.3 for the `.ply`, plain string splitting for `stats.csv`, serde_json for
//! `run.json`), plus the console output and the failure path.
//!
//! The fixture `tests/fixtures/drop.ron` is a 0.1 m cube of density 1000 (1 kg) meshed as
//! 2 x 2 x 1 structured cells (3 * 3 * 2 = 18 nodes, 6 * 4 = 24 tets, 4 * (4 + 2 + 2) = 32
//! surface triangles), released 2 mm above a ground plane with 0.1 m/s sideways, dt = 0.01 s,
//! 50 frames/s (2 steps per frame).

use std::collections::BTreeSet;
use std::fs::File;
use std::io::BufReader;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use ply_rs::parser::Parser;
use ply_rs::ply::{DefaultElement, Property};
#[path = "support/vtu.rs"]
mod vtu;
use vtkio::model::CellType;
use vtu::{array, read_vtu};

const BIN: &str = env!("CARGO_BIN_EXE_fricsim");

// Layout of drop.ron, computed from its parameters (not read from the program).
const DT: f64 = 0.01;
const STEPS_PER_FRAME: usize = 2;
const NODES: usize = 18;
const TETS: usize = 24;
const SURFACE_TRIS: usize = 32;
const DENSITY: f64 = 1000.0;
const DELTA: f64 = 1e-3;
/// Frames asked for on the command line (the scene itself says 10).
const FRAMES: usize = 6;
/// Friction coefficient set on the command line (the scene itself says 0.5).
const MU_SET: f64 = 0.25;

/// Accumulated rounding of `time += dt` over a few dozen steps is ~1e-17 s; 1e-12 s is far
/// above that and far below dt (an off-by-one step or frame is 1e-2 s).
const TIME_TOL: f64 = 1e-12;

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures").join(name)
}

fn fricsim(args: &[&str]) -> Output {
    Command::new(BIN).args(args).output().expect("run the fricsim binary")
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

fn assert_exit(out: &Output, code: i32) {
    assert_eq!(
        out.status.code(),
        Some(code),
        "exit status\nstdout:\n{}\nstderr:\n{}",
        text(&out.stdout),
        text(&out.stderr)
    );
    assert!(!text(&out.stderr).contains("panicked"), "panic:\n{}", text(&out.stderr));
}

/// Runs drop.ron with `--frames FRAMES --set mu` (plus `extra` arguments) into a fresh folder.
fn drop_run(extra: &[&str]) -> (tempfile::TempDir, PathBuf, Output) {
    let dir = tempfile::tempdir().expect("temp dir");
    let out_dir = dir.path().join("out");
    let scene = fixture("drop.ron");
    let frames = FRAMES.to_string();
    let set = format!("friction.pairs[0].mu={MU_SET}");
    let mut args =
        vec!["run", scene.to_str().unwrap(), "--out", out_dir.to_str().unwrap(), "--frames", &frames, "--set", &set];
    args.extend_from_slice(extra);
    let out = fricsim(&args);
    (dir, out_dir, out)
}

// ---------------------------------------------------------------- readers

/// `(timestep, file)` of every `DataSet` of a `.pvd`, in file order.
/// The bodies' entries of a `.pvd` (the colliders' series, `vtk/collider_*`, left out).
fn read_pvd(path: &Path) -> Vec<(f64, String)> {
    read_pvd_all(path).into_iter().filter(|(_, f)| !f.starts_with("vtk/collider_")).collect()
}

fn read_pvd_all(path: &Path) -> Vec<(f64, String)> {
    use quick_xml::events::Event;
    let xml = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("read {path:?}: {e}"));
    let mut reader = quick_xml::Reader::from_str(&xml);
    let mut sets = Vec::new();
    let mut saw_collection = false;
    loop {
        match reader.read_event().expect("well-formed XML") {
            Event::Start(e) | Event::Empty(e) => match e.name().as_ref() {
                b"Collection" => saw_collection = true,
                b"DataSet" => {
                    let attr = |key: &[u8]| {
                        e.try_get_attribute(key)
                            .expect("attribute")
                            .unwrap_or_else(|| panic!("DataSet without {}", text(key)))
                            .unescape_value()
                            .expect("attribute value")
                            .into_owned()
                    };
                    let t: f64 = attr(b"timestep").parse().expect("numeric timestep");
                    sets.push((t, attr(b"file")));
                }
                _ => {}
            },
            Event::Eof => break,
            _ => {}
        }
    }
    assert!(saw_collection, "{path:?} has no <Collection>");
    sets
}

/// A VTU read back: points, tets (checked to be VTK_TETRA) and the named arrays.
struct Frame {
    points: Vec<[f64; 3]>,
    tets: Vec<[usize; 4]>,
    velocity: Vec<[f64; 3]>,
    contact_force: Vec<[f64; 3]>,
    friction_force: Vec<[f64; 3]>,
    strain_energy_density: Vec<f64>,
}

fn triples(v: &[f64]) -> Vec<[f64; 3]> {
    v.chunks_exact(3).map(|c| [c[0], c[1], c[2]]).collect()
}

fn read_frame(path: &Path) -> Frame {
    let piece = read_vtu(path);
    let points: Vec<f64> = piece.points.cast_into().expect("f64 points");
    assert_eq!(points.len() % 3, 0);
    assert!(
        piece.cells.types.iter().all(|t| *t == CellType::Tetra),
        "{path:?}: every cell must be a tetrahedron, got {:?}",
        piece.cells.types
    );
    let (conn, offsets) = piece.cells.cell_verts.into_xml();
    assert_eq!(offsets.len(), piece.cells.types.len(), "{path:?}: offsets");
    let mut start = 0usize;
    let mut tets = Vec::new();
    for &end in &offsets {
        let c = &conn[start..end as usize];
        assert_eq!(c.len(), 4, "{path:?}: a tetrahedron has 4 vertices");
        tets.push([c[0], c[1], c[2], c[3]].map(|i| i as usize));
        start = end as usize;
    }
    let n = points.len() / 3;
    assert!(tets.iter().flatten().all(|&i| i < n), "{path:?}: connectivity beyond the points");
    let vec3 = |name: &str| {
        let (comps, v) = array(&piece.data.point, name);
        assert_eq!(comps, 3, "{path:?}: {name} components");
        assert_eq!(v.len(), 3 * n, "{path:?}: {name} length");
        assert!(v.iter().all(|x| x.is_finite()), "{path:?}: {name} finite");
        triples(&v)
    };
    let (comps, psi) = array(&piece.data.cell, "strain_energy_density");
    assert_eq!(comps, 1, "{path:?}: strain_energy_density components");
    assert_eq!(psi.len(), tets.len(), "{path:?}: strain_energy_density length");
    assert!(psi.iter().all(|x| x.is_finite()));
    Frame {
        velocity: vec3("velocity"),
        contact_force: vec3("contact_force"),
        friction_force: vec3("friction_force"),
        strain_energy_density: psi,
        points: triples(&points),
        tets,
    }
}

fn tet_volume(x: [[f64; 3]; 4]) -> f64 {
    let d = |a: usize| [0, 1, 2].map(|c| x[a][c] - x[0][c]);
    let (u, v, w) = (d(1), d(2), d(3));
    (u[0] * (v[1] * w[2] - v[2] * w[1]) - u[1] * (v[0] * w[2] - v[2] * w[0]) + u[2] * (v[0] * w[1] - v[1] * w[0])) / 6.0
}

/// Lumped masses (a quarter of each tet's mass to each of its vertices) of a rest configuration.
fn lumped_masses(rest: &Frame, density: f64) -> Vec<f64> {
    let mut m = vec![0.0; rest.points.len()];
    for t in &rest.tets {
        let vol = tet_volume(t.map(|i| rest.points[i]));
        assert!(vol > 0.0, "tet {t:?} is inverted or flat at rest");
        for &i in t {
            m[i] += density * vol / 4.0;
        }
    }
    m
}

fn weighted_mean(m: &[f64], x: &[[f64; 3]]) -> [f64; 3] {
    let total: f64 = m.iter().sum();
    [0, 1, 2].map(|c| m.iter().zip(x).map(|(m, x)| m * x[c]).sum::<f64>() / total)
}

/// Boundary faces of a tet mesh (faces used by exactly one tet) as sorted vertex triples.
fn boundary_faces(tets: &[[usize; 4]]) -> BTreeSet<[usize; 3]> {
    let mut count = std::collections::BTreeMap::new();
    for t in tets {
        for skip in 0..4 {
            let mut f: Vec<usize> = (0..4).filter(|&k| k != skip).map(|k| t[k]).collect();
            f.sort_unstable();
            *count.entry([f[0], f[1], f[2]]).or_insert(0) += 1;
        }
    }
    count.into_iter().filter(|&(_, n)| n == 1).map(|(f, _)| f).collect()
}

/// Vertices and faces of a PLY file read with ply-rs 0.1.3.
fn read_ply(path: &Path) -> (Vec<[f64; 3]>, Vec<[usize; 3]>) {
    let f = File::open(path).unwrap_or_else(|e| panic!("open {path:?}: {e}"));
    let ply = Parser::<DefaultElement>::new()
        .read_ply(&mut BufReader::new(f))
        .unwrap_or_else(|e| panic!("ply-rs cannot read {path:?}: {e}"));
    let coord = |e: &DefaultElement, k: &str| match e.get(k) {
        Some(Property::Float(x)) => f64::from(*x),
        Some(Property::Double(x)) => *x,
        other => panic!("{path:?}: vertex property {k}: {other:?}"),
    };
    let vertices = ply.payload["vertex"].iter().map(|e| [coord(e, "x"), coord(e, "y"), coord(e, "z")]).collect();
    let faces = ply.payload["face"]
        .iter()
        .map(|e| {
            let idx: Vec<usize> = match e.get("vertex_indices") {
                Some(Property::ListUInt(v)) => v.iter().map(|&i| i as usize).collect(),
                Some(Property::ListInt(v)) => v.iter().map(|&i| i as usize).collect(),
                other => panic!("{path:?}: vertex_indices: {other:?}"),
            };
            assert_eq!(idx.len(), 3, "{path:?}: faces must be triangles");
            [idx[0], idx[1], idx[2]]
        })
        .collect();
    (vertices, faces)
}

/// `stats.csv` as a header and rows of numbers (fricsim writes no text columns here).
fn read_stats(path: &Path) -> (Vec<String>, Vec<Vec<f64>>) {
    let csv = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("read {path:?}: {e}"));
    assert!(csv.ends_with('\n'), "the last row must be complete");
    let mut lines = csv.lines();
    let header: Vec<String> = lines.next().expect("header").split(',').map(String::from).collect();
    let rows: Vec<Vec<f64>> = lines
        .map(|l| {
            let r: Vec<f64> =
                l.split(',').map(|v| v.parse().unwrap_or_else(|_| panic!("not a number: {v:?}"))).collect();
            assert_eq!(r.len(), header.len(), "row width: {l}");
            r
        })
        .collect();
    (header, rows)
}

fn col(header: &[String], name: &str) -> usize {
    header.iter().position(|h| h == name).unwrap_or_else(|| panic!("stats.csv has no column `{name}`: {header:?}"))
}

fn run_json(out_dir: &Path) -> serde_json::Value {
    let s = std::fs::read_to_string(out_dir.join("run.json")).expect("run.json");
    serde_json::from_str(&s).expect("run.json is JSON")
}

// ---------------------------------------------------------------- tests

#[test]
fn pvd_lists_every_frame_with_its_time_in_order() {
    let (_d, out_dir, out) = drop_run(&["--quiet"]);
    assert_exit(&out, 0);
    let sets = read_pvd(&out_dir.join("drop.pvd"));
    // Frame 0 (the initial state) plus FRAMES frames.
    assert_eq!(sets.len(), FRAMES + 1, "{sets:?}");
    for (k, (t, file)) in sets.iter().enumerate() {
        let expect_t = (k * STEPS_PER_FRAME) as f64 * DT;
        assert!((t - expect_t).abs() < TIME_TOL, "frame {k}: time {t}, expected {expect_t}");
        assert_eq!(file, &format!("vtk/block_{k:05}.vtu"));
        assert!(out_dir.join(file).is_file(), "{file} is listed but missing");
    }
    // The ground (a plane that never moves) is listed at every frame, written once.
    let all = read_pvd_all(&out_dir.join("drop.pvd"));
    let ground: Vec<_> = all.iter().filter(|(_, f)| f.starts_with("vtk/collider_")).collect();
    assert_eq!(ground.len(), FRAMES + 1, "{all:?}");
    assert!(ground.iter().all(|(_, f)| f == "vtk/collider_ground_00000.vtu"), "{ground:?}");
    // No stray frames beyond the listed ones: the block's, the ground's one, and the two
    // series' collections (`block.pvd`, `collider_ground.pvd`).
    let on_disk = std::fs::read_dir(out_dir.join("vtk")).unwrap().count();
    assert_eq!(on_disk, FRAMES + 1 + 1 + 2, "vtk/ holds unlisted files");
    assert_eq!(read_pvd_all(&out_dir.join("vtk/block.pvd")).len(), FRAMES + 1);
}

#[test]
fn vtu_frames_read_back_with_vtkio() {
    let (_d, out_dir, out) = drop_run(&["--quiet"]);
    assert_exit(&out, 0);
    let frames: Vec<Frame> = (0..=FRAMES).map(|k| read_frame(&out_dir.join(format!("vtk/block_{k:05}.vtu")))).collect();
    for (k, f) in frames.iter().enumerate() {
        assert_eq!(f.points.len(), NODES, "frame {k}: points");
        assert_eq!(f.tets.len(), TETS, "frame {k}: cells");
        assert_eq!(f.strain_energy_density.len(), TETS);
        assert_eq!(f.velocity.len(), NODES);
        // Same connectivity in every frame.
        assert_eq!(f.tets, frames[0].tets, "frame {k}: connectivity changed");
    }
    let first = &frames[0];
    let last = &frames[FRAMES];
    // Frame 0: the bottom is 2 mm above the plane, beyond delta: no contact force at all.
    assert!(
        first.contact_force.iter().chain(&first.friction_force).flatten().all(|&f| f == 0.0),
        "frame 0 has contact or friction force without contact"
    );
    // Last frame: resting on the plane, so the plane pushes the block up.
    let fz: f64 = last.contact_force.iter().map(|f| f[2]).sum();
    assert!(fz > 0.0, "no upward contact force in the last frame: {fz}");
    // The box rotation is zero and nothing settles, so frame 0 is the rest configuration:
    // its tets must tile the 0.1 m cube, i.e. lumped masses add up to 1 kg (rounding ~1e-16).
    let m = lumped_masses(first, DENSITY);
    let total: f64 = m.iter().sum();
    assert!((total - 1.0).abs() < 1e-12, "mass {total}");
    // Elastic energy density is zero at rest (F = I up to rounding: |psi| ~ mu * 1e-16 ~ 1e-10
    // Pa with mu ~ 4e5 Pa; 1e-6 Pa leaves room and is far below the ~1 Pa of the loaded frames).
    assert!(
        first.strain_energy_density.iter().all(|p| p.abs() < 1e-6),
        "frame 0 strain energy: {:?}",
        first.strain_energy_density
    );
    assert!(
        last.strain_energy_density.iter().any(|p| p.abs() > 1e-6),
        "last frame carries no strain energy although the block rests under gravity"
    );
}

#[test]
fn last_vtu_matches_stats_centroid_columns() {
    let (_d, out_dir, out) = drop_run(&["--quiet"]);
    assert_exit(&out, 0);
    let rest = read_frame(&out_dir.join("vtk/block_00000.vtu"));
    let last = read_frame(&out_dir.join(format!("vtk/block_{FRAMES:05}.vtu")));
    // stats.csv's centroid is mass-weighted with lumped masses; recompute them independently.
    let m = lumped_masses(&rest, DENSITY);
    let x = weighted_mean(&m, &last.points);
    let v = weighted_mean(&m, &last.velocity);
    let (header, rows) = read_stats(&out_dir.join("stats.csv"));
    let row = rows.last().expect("rows");
    assert_eq!(row[col(&header, "step")] as usize, FRAMES * STEPS_PER_FRAME);
    // Both files hold the exact f64 values (VTU binary, CSV shortest round-trip digits); they
    // differ only by the summation order of 18 terms: ~1e-17 m. 1e-12 m (m/s) is far above
    // that and far below any real difference (one step moves the block by ~1e-4 m).
    for (c, name) in ["x", "y", "z"].iter().enumerate() {
        let s = row[col(&header, &format!("block.{name}"))];
        assert!((s - x[c]).abs() < 1e-12, "block.{name}: csv {s}, vtu {}", x[c]);
        let s = row[col(&header, &format!("block.v{name}"))];
        assert!((s - v[c]).abs() < 1e-12, "block.v{name}: csv {s}, vtu {}", v[c]);
    }
    // At rest both means are the box centre (lumped masses preserve the first moment), but the
    // block resting under gravity is compressed non-uniformly, which separates them (by ~5e-6 m
    // here): far more than the 1e-12 tolerance above, so the check tells the two apart.
    let plain = weighted_mean(&[1.0; NODES], &last.points);
    let apart = (0..3).map(|c| (plain[c] - x[c]).abs()).fold(0.0, f64::max);
    assert!(apart > 1e-10 && apart < 1e-3, "{apart}");
}

#[test]
fn ply_frames_read_back_with_ply_rs() {
    let (_d, out_dir, out) = drop_run(&["--quiet"]);
    assert_exit(&out, 0);
    for k in 0..=FRAMES {
        let vtu = read_frame(&out_dir.join(format!("vtk/block_{k:05}.vtu")));
        let path = out_dir.join(format!("ply/block_{k:05}.ply"));
        let (verts, faces) = read_ply(&path);
        assert_eq!(verts.len(), NODES, "frame {k}: vertices");
        assert_eq!(faces.len(), SURFACE_TRIS, "frame {k}: faces");
        // Same vertices as the VTU, to the PLY's f32 precision (relative 2^-24 ~ 6e-8; we allow
        // 1.2e-7 relative plus 1e-12 m absolute for coordinates that are rounding noise near 0).
        for (p, q) in verts.iter().zip(&vtu.points) {
            for c in 0..3 {
                assert!((p[c] - q[c]).abs() <= 1.2e-7 * q[c].abs() + 1e-12, "frame {k}: ply {p:?} vs vtu {q:?}");
            }
        }
        // The faces are exactly the boundary of the tet mesh...
        let sorted: BTreeSet<[usize; 3]> = faces
            .iter()
            .map(|f| {
                let mut s = *f;
                s.sort_unstable();
                s
            })
            .collect();
        assert_eq!(sorted.len(), faces.len(), "frame {k}: duplicate faces");
        assert_eq!(sorted, boundary_faces(&vtu.tets), "frame {k}: surface");
        // ...and wound outward (the block is convex: normals point away from its centre).
        let centre = weighted_mean(&[1.0; NODES], &verts);
        for f in &faces {
            let [a, b, c] = f.map(|i| verts[i]);
            let e1 = [0, 1, 2].map(|i| b[i] - a[i]);
            let e2 = [0, 1, 2].map(|i| c[i] - a[i]);
            let n = [e1[1] * e2[2] - e1[2] * e2[1], e1[2] * e2[0] - e1[0] * e2[2], e1[0] * e2[1] - e1[1] * e2[0]];
            let out: f64 = (0..3).map(|i| n[i] * (a[i] - centre[i])).sum();
            assert!(out > 0.0, "frame {k}: face {f:?} points inward");
        }
    }
}

#[test]
fn stats_csv_has_the_documented_columns_and_one_row_per_step() {
    let (_d, out_dir, out) = drop_run(&["--quiet"]);
    assert_exit(&out, 0);
    let (header, rows) = read_stats(&out_dir.join("stats.csv"));
    for c in [
        "step",
        "time",
        "wall_s",
        "newton_iters",
        "final_residual",
        "line_search_steps",
        "contact_iterations",
        "kappa",
        "active_contacts",
        "min_gap",
        "kinetic_energy",
        "elastic_energy",
        "converged",
        "block.x",
        "block.y",
        "block.z",
        "block.vx",
        "block.vy",
        "block.vz",
    ] {
        col(&header, c);
    }
    let uniq: BTreeSet<&String> = header.iter().collect();
    assert_eq!(uniq.len(), header.len(), "duplicate columns: {header:?}");
    assert_eq!(rows.len(), FRAMES * STEPS_PER_FRAME, "one row per step");
    let (step, time) = (col(&header, "step"), col(&header, "time"));
    for (i, r) in rows.iter().enumerate() {
        assert_eq!(r[step] as usize, i + 1, "step column");
        let prev = if i == 0 { 0.0 } else { rows[i - 1][time] };
        assert!((r[time] - prev - DT).abs() < TIME_TOL, "row {i}: time {} after {prev}", r[time]);
        assert_eq!(r[col(&header, "converged")], 1.0, "row {i} did not converge");
        assert!(r[col(&header, "newton_iters")] >= 1.0);
        assert!(r[col(&header, "wall_s")] >= 0.0);
        assert!(r[col(&header, "kinetic_energy")] >= 0.0);
        assert!(r[col(&header, "kappa")] >= 1e4, "kappa never drops below the scene's 1e4");
    }
    let last = rows.last().unwrap();
    // Dropped 2 mm: it lands in the second step and rests on the plane at the end.
    assert!(last[col(&header, "active_contacts")] > 0.0, "no contact at the end");
    let gap = last[col(&header, "min_gap")];
    assert!((-DELTA..DELTA).contains(&gap), "resting contact lies within the penalty layer: gap {gap}");
    // The centroid of the resting 0.1 m cube sits half its height above the plane, plus the
    // penalty gap (< delta) and minus the elastic compression (~5e-5 m).
    let z = last[col(&header, "block.z")];
    assert!((z - 0.05).abs() < DELTA, "resting centroid height {z}");
    // First row: one step of free fall from rest (no contact yet).
    assert_eq!(rows[0][col(&header, "active_contacts")], 0.0);
}

#[test]
fn effective_scene_reflects_set_and_frames_and_checks_clean() {
    let (_d, out_dir, out) = drop_run(&["--quiet"]);
    assert_exit(&out, 0);
    let original = fricsim::scene::load_scene(&fixture("drop.ron"), &[]).expect("fixture loads");
    assert_ne!(original.scene.friction.pairs[0].mu, MU_SET, "fixture must differ");
    assert_ne!(original.scene.frames, Some(FRAMES), "fixture must differ");
    let effective_path = out_dir.join("scene.effective.ron");
    let eff = fricsim::scene::load_scene(&effective_path, &[]).expect("effective scene loads");
    assert_eq!(eff.scene.friction.pairs[0].mu, MU_SET);
    assert_eq!(eff.scene.frames, Some(FRAMES));
    assert_eq!(eff.scene.duration, None);
    // Everything else as in the fixture.
    let mut expect = original.scene.clone();
    expect.friction.pairs[0].mu = MU_SET;
    expect.frames = Some(FRAMES);
    expect.duration = None;
    assert_eq!(eff.scene, expect);
    let check = fricsim(&["check", effective_path.to_str().unwrap()]);
    assert_exit(&check, 0);
}

#[test]
fn run_json_records_a_completed_run() {
    let (_d, out_dir, out) = drop_run(&["--quiet"]);
    assert_exit(&out, 0);
    let j = run_json(&out_dir);
    assert_eq!(j["exit_status"], "completed");
    assert_eq!(j["steps"], (FRAMES * STEPS_PER_FRAME) as u64);
    assert_eq!(j["frames_written"], (FRAMES + 1) as u64);
    assert_eq!(j["fricsim_version"], env!("CARGO_PKG_VERSION"));
    assert_eq!(j["scene_name"], "drop");
    let t = j["simulated_time"].as_f64().expect("simulated_time");
    assert!((t - (FRAMES * STEPS_PER_FRAME) as f64 * DT).abs() < TIME_TOL);
    assert_eq!(j["totals"]["failed_steps"], 0);
    assert!(j["wall_seconds"].as_f64().expect("wall_seconds") > 0.0);
}

#[test]
fn progress_is_plain_lines_naming_each_frame_when_not_a_terminal() {
    // Output::output() gives the child pipes, not terminals.
    let (_d, _out_dir, out) = drop_run(&[]);
    assert_exit(&out, 0);
    let all = format!("{}{}", text(&out.stdout), text(&out.stderr));
    assert!(!all.contains('\x1b') && !all.contains('\r'), "terminal control characters in piped output:\n{all:?}");
    let mut from = 0;
    for k in 1..=FRAMES {
        let needle = format!("frame {k}/{FRAMES}");
        let at = all[from..].find(&needle).unwrap_or_else(|| panic!("no `{needle}` (in order) in:\n{all}"));
        from += at + needle.len();
    }
    // The start-up summary names the scene.
    assert!(all.contains("drop"), "{all}");
}

#[test]
fn quiet_run_prints_nothing_and_still_writes_everything() {
    let (_d, out_dir, out) = drop_run(&["--quiet"]);
    assert_exit(&out, 0);
    assert_eq!(text(&out.stdout), "", "stdout of --quiet");
    assert_eq!(text(&out.stderr), "", "stderr of --quiet");
    for f in ["drop.pvd", "stats.csv", "run.json", "scene.effective.ron"] {
        assert!(out_dir.join(f).is_file(), "{f} missing");
    }
}

#[test]
fn file_mesh_scene_runs_and_its_effective_scene_rechecks_from_the_output_folder() {
    // drop_file.ron reads tests/fixtures/cube6.vtk by a path relative to the scene file.
    let dir = tempfile::tempdir().expect("temp dir");
    let out_dir = dir.path().join("out");
    let scene = fixture("drop_file.ron");
    let out = fricsim(&["run", scene.to_str().unwrap(), "--out", out_dir.to_str().unwrap(), "--quiet"]);
    assert_exit(&out, 0);
    let f = read_frame(&out_dir.join("vtk/block_00003.vtu"));
    assert_eq!((f.points.len(), f.tets.len()), (8, 6));
    let (v, faces) = read_ply(&out_dir.join("ply/block_00003.ply"));
    assert_eq!((v.len(), faces.len()), (8, 12));
    assert_eq!(read_pvd(&out_dir.join("drop_file.pvd")).len(), 4);
    // The effective scene lives elsewhere than the scene: its mesh path must still resolve.
    let check = fricsim(&["check", out_dir.join("scene.effective.ron").to_str().unwrap()]);
    assert_exit(&check, 0);
}

#[test]
fn rerun_into_the_same_folder_leaves_no_stale_frames() {
    let (_d, out_dir, out) = drop_run(&["--quiet"]);
    assert_exit(&out, 0);
    let notes = out_dir.join("vtk/notes.txt");
    std::fs::write(&notes, "mine").unwrap();
    // Same folder, fewer frames: frames 3..=6 of the first run must not survive next to the
    // new 0..=2 (ParaView would show them as part of the series).
    let scene = fixture("drop.ron");
    let out =
        fricsim(&["run", scene.to_str().unwrap(), "--out", out_dir.to_str().unwrap(), "--frames", "2", "--quiet"]);
    assert_exit(&out, 0);
    let names = |sub: &str| {
        let mut v: Vec<String> = std::fs::read_dir(out_dir.join(sub))
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        v.sort();
        v
    };
    assert_eq!(
        names("vtk"),
        [
            "block.pvd",
            "block_00000.vtu",
            "block_00001.vtu",
            "block_00002.vtu",
            "collider_ground.pvd",
            "collider_ground_00000.vtu",
            "notes.txt"
        ]
    );
    assert_eq!(names("ply"), ["block_00000.ply", "block_00001.ply", "block_00002.ply"]);
    assert_eq!(read_pvd(&out_dir.join("drop.pvd")).len(), 3);
    assert_eq!(std::fs::read_to_string(notes).unwrap(), "mine");
}

fn no_converge(extra: &[&str]) -> (tempfile::TempDir, PathBuf, Output) {
    let dir = tempfile::tempdir().expect("temp dir");
    let out_dir = dir.path().join("out");
    let scene = fixture("no_converge.ron");
    let mut args = vec!["run", scene.to_str().unwrap(), "--out", out_dir.to_str().unwrap()];
    args.extend_from_slice(extra);
    let out = fricsim(&args);
    (dir, out_dir, out)
}

#[test]
fn failed_step_stops_the_run_with_exit_1_and_keeps_earlier_frames() {
    let (_d, out_dir, out) = no_converge(&[]);
    assert_exit(&out, 1);
    let stderr = text(&out.stderr);
    assert!(stderr.contains("did not converge"), "{stderr}");
    let j = run_json(&out_dir);
    let status = j["exit_status"].as_str().expect("exit_status string");
    assert!(status.starts_with("failed: "), "{status}");
    // stats.csv has every step up to and including the failed one, which is the last.
    let (header, rows) = read_stats(&out_dir.join("stats.csv"));
    let conv: Vec<f64> = rows.iter().map(|r| r[col(&header, "converged")]).collect();
    let failed_step = rows.len();
    assert!(failed_step >= 1);
    assert_eq!(conv[failed_step - 1], 0.0, "the last row is the failed step");
    assert!(conv[..failed_step - 1].iter().all(|&c| c == 1.0), "{conv:?}");
    // With the fixture as designed, steps 1-5 (free fall) converge and step 6 (landing) fails.
    // The test needs at least one frame after frame 0 written before the failure.
    assert!(
        failed_step > STEPS_PER_FRAME,
        "no_converge.ron failed at step {failed_step}, before frame 1: adjust its drop height"
    );
    // The message names the failed step.
    assert!(status.contains(&format!("step {failed_step} ")), "{status}");
    assert_eq!(j["steps"], failed_step as u64);
    // Frame 0 plus every frame completed before the failed step (step 6: frames 1 and 2).
    let frames = 1 + (failed_step - 1) / STEPS_PER_FRAME;
    assert_eq!(j["frames_written"], frames as u64);
    let sets = read_pvd(&out_dir.join("no_converge.pvd"));
    assert_eq!(sets.len(), frames, "{sets:?}");
    for (_, file) in &sets {
        let f = read_frame(&out_dir.join(file));
        assert_eq!(f.points.len(), NODES);
    }
    // The block's frames, and beside them the ground's one file and the two series' collections.
    let vtk: Vec<String> = std::fs::read_dir(out_dir.join("vtk"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert_eq!(vtk.iter().filter(|n| n.starts_with("block_")).count(), frames, "{vtk:?}");
    assert_eq!(vtk.len(), frames + 3, "{vtk:?}");
    assert_eq!(std::fs::read_dir(out_dir.join("ply")).unwrap().count(), frames);
}

#[test]
fn failed_steps_with_on_failure_continue_are_recorded_and_the_run_completes() {
    // Without and with step halving: a step whose halves fail too must still cover all of dt.
    for halvings in ["pipeline.newton.max_step_halvings=0", "pipeline.newton.max_step_halvings=2"] {
        continue_run(halvings);
    }
}

fn continue_run(halvings: &str) {
    let (_d, out_dir, out) = no_converge(&["--quiet", "--set", "pipeline.on_failure=Continue", "--set", halvings]);
    assert_exit(&out, 0);
    let j = run_json(&out_dir);
    assert_eq!(j["exit_status"], "completed");
    assert_eq!(j["frames_written"], 7);
    let (header, rows) = read_stats(&out_dir.join("stats.csv"));
    assert_eq!(rows.len(), 6 * STEPS_PER_FRAME);
    let failed = rows.iter().filter(|r| r[col(&header, "converged")] == 0.0).count();
    assert!(failed > 0, "no step recorded as failed");
    assert_eq!(j["totals"]["failed_steps"], failed as u64);
    // Failed steps still advance the clock by dt: frames stay on the frame grid and the run
    // reaches its full duration.
    let sets = read_pvd(&out_dir.join("no_converge.pvd"));
    assert_eq!(sets.len(), 7);
    for (k, (t, _)) in sets.iter().enumerate() {
        let expect_t = (k * STEPS_PER_FRAME) as f64 * DT;
        assert!((t - expect_t).abs() < TIME_TOL, "frame {k} at t = {t}, expected {expect_t}");
    }
    let time = col(&header, "time");
    for (i, r) in rows.iter().enumerate() {
        assert_eq!(r[col(&header, "step")] as usize, i + 1);
        assert!((r[time] - (i + 1) as f64 * DT).abs() < TIME_TOL, "row {i}: t = {}", r[time]);
    }
    let t_end = j["simulated_time"].as_f64().unwrap();
    assert!((t_end - (6 * STEPS_PER_FRAME) as f64 * DT).abs() < TIME_TOL, "{t_end}");
}

/// Ctrl-C (SIGINT) ends the run after the current step: exit 130, run.json says "interrupted",
/// and every frame written so far is listed in the .pvd.
#[test]
fn sigint_finishes_the_step_and_records_interrupted() {
    let dir = tempfile::tempdir().expect("temp dir");
    let out_dir = dir.path().join("out");
    let scene = Path::new(env!("CARGO_MANIFEST_DIR")).join("scenes/validation/ramp10_stop.ron");
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_fricsim"))
        .args(["run", scene.to_str().unwrap(), "--quiet", "--out", out_dir.to_str().unwrap()])
        .spawn()
        .expect("spawn fricsim");
    // Wait until it is stepping (stats.csv has rows), then interrupt.
    let stats = out_dir.join("stats.csv");
    let start = std::time::Instant::now();
    while std::fs::read_to_string(&stats).map(|s| s.lines().count()).unwrap_or(0) < 20 {
        assert!(start.elapsed().as_secs() < 60, "the run never started stepping");
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    let kill = std::process::Command::new("kill").args(["-INT", &child.id().to_string()]).status().expect("kill");
    assert!(kill.success());
    let status = child.wait().expect("wait");
    if status.code() == Some(0) {
        // The run finished before the signal arrived (a very fast machine): nothing to check.
        return;
    }
    assert_eq!(status.code(), Some(130));
    let j = run_json(&out_dir);
    assert_eq!(j["exit_status"], "interrupted");
    let steps = j["steps"].as_u64().unwrap() as usize;
    let (_, rows) = read_stats(&stats);
    assert_eq!(rows.len(), steps, "one stats row per completed step");
    let sets = read_pvd(&out_dir.join("ramp10_stop.pvd"));
    assert_eq!(sets.len() as u64, j["frames_written"].as_u64().unwrap());
    for (_, file) in &sets {
        assert!(out_dir.join(file).exists());
    }
}
