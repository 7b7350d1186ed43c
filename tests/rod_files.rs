//! Rod polylines read from files (`CurvesSpec::File`): legacy VTK and XML `.vtp` poly data with
//! lines, PLY vertices with chained edges; malformed files fail with a message naming the file
//! and what is wrong; in a scene, the file's path is checked and its errors name the field.

use fricsim::mesh::polyline_read::read_polylines;
use fricsim::scene::parse_scene_str;
use nalgebra::Vector3;
use std::path::{Path, PathBuf};

fn data(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("scenes/data").join(name)
}

/// The example strands: 3 rods of 11 points, roots (z = 0.3) first, tips 0.1 m lower.
fn check_strands(lines: &[Vec<Vector3<f64>>]) {
    assert_eq!(lines.len(), 3);
    for (k, l) in lines.iter().enumerate() {
        assert_eq!(l.len(), 11, "rod {k}");
        // Coordinates are stored with 9 significant digits (1e-10 m at 0.3 m).
        assert_eq!(l[0].z, 0.3);
        assert!((l[10].z - 0.2).abs() < 1e-9);
        let root_x = -0.02 + 0.02 * k as f64 + 0.004 * (k as f64).sin();
        assert!((l[0].x - root_x).abs() < 1e-9, "rod {k} root at {}", l[0]);
    }
}

#[test]
fn example_strands_read_the_same_from_vtk_and_ply() {
    let vtk = read_polylines(&data("strands.vtk")).expect("vtk");
    let ply = read_polylines(&data("strands.ply")).expect("ply");
    check_strands(&vtk);
    // The PLY lists its edges out of order; chaining along vertex1 -> vertex2 restores the rods.
    assert_eq!(vtk, ply);
}

#[test]
fn vtp_poly_data_round_trips() {
    use vtkio::model::*;
    let strands = read_polylines(&data("strands.vtk")).expect("vtk");
    let points: Vec<f64> = strands.iter().flatten().flat_map(|p| [p.x, p.y, p.z]).collect();
    let mut offsets = Vec::new();
    let mut end = 0u64;
    for l in &strands {
        end += l.len() as u64;
        offsets.push(end);
    }
    let vtk = Vtk {
        version: Version::Auto,
        byte_order: ByteOrder::LittleEndian,
        title: "strands".into(),
        file_path: None,
        data: DataSet::inline(PolyDataPiece {
            points: points.into(),
            lines: Some(VertexNumbers::XML { connectivity: (0..end).collect(), offsets }),
            ..Default::default()
        }),
    };
    let dir = tempfile::tempdir().expect("temp dir");
    let path = dir.path().join("strands.vtp");
    vtk.export(&path).expect("write vtp");
    assert_eq!(read_polylines(&path).expect("vtp"), strands);
}

/// Writes `text` to a file `name` in a fresh temporary directory and reads it.
fn read_text(name: &str, text: &str) -> String {
    let dir = tempfile::tempdir().expect("temp dir");
    let path = dir.path().join(name);
    std::fs::write(&path, text).expect("write");
    match read_polylines(&path) {
        Ok(l) => panic!("expected an error for {name}, read {l:?}"),
        Err(e) => {
            let msg = e.to_string();
            assert!(msg.contains(name), "the message names the file: {msg}");
            msg
        }
    }
}

fn ply(edges: &str, count: usize) -> String {
    format!(
        "ply\nformat ascii 1.0\nelement vertex 4\nproperty float x\nproperty float y\nproperty float z\n\
         element edge {count}\nproperty int vertex1\nproperty int vertex2\nend_header\n\
         0 0 0\n1 0 0\n2 0 0\n3 0 0\n{edges}"
    )
}

fn assert_has(msg: &str, part: &str) {
    assert!(msg.contains(part), "message lacks {part:?}:\n{msg}");
}

#[test]
fn malformed_polyline_files_are_reported() {
    assert_has(&read_text("branch.ply", &ply("0 1\n1 2\n1 3\n", 3)), "vertex 1 begins two edges");
    assert_has(&read_text("merge.ply", &ply("0 1\n2 1\n", 2)), "vertex 1 ends two edges");
    assert_has(&read_text("loop.ply", &ply("0 1\n1 2\n2 0\n", 3)), "closed loop");
    assert_has(&read_text("range.ply", &ply("0 1\n1 7\n", 2)), "valid indices are 0..=3");
    assert_has(&read_text("self.ply", &ply("0 1\n2 2\n", 2)), "joins vertex 2 to itself");
    let surface = "ply\nformat ascii 1.0\nelement vertex 3\nproperty float x\nproperty float y\nproperty float z\n\
                   element face 1\nproperty list uchar int vertex_indices\nend_header\n0 0 0\n1 0 0\n0 1 0\n3 0 1 2\n";
    assert_has(&read_text("surface.ply", surface), "no 'edge' element");
    assert_has(&read_text("garbage.ply", "not a ply file\n"), "does not start with 'ply'");
    assert_has(&read_text("truncated.ply", &ply("0 1\n", 3)), "could not be parsed");
    let polys = "# vtk DataFile Version 3.0\nt\nASCII\nDATASET POLYDATA\nPOINTS 3 float\n0 0 0 1 0 0 0 1 0\n\
                 POLYGONS 1 4\n3 0 1 2\n";
    assert_has(&read_text("polys.vtk", polys), "only LINES");
    let short = "# vtk DataFile Version 3.0\nt\nASCII\nDATASET POLYDATA\nPOINTS 3 float\n0 0 0 1 0 0 0 1 0\n\
                 LINES 2 5\n2 0 1\n1 2\n";
    assert_has(&read_text("short.vtk", short), "line 1 has 1 point(s)");
    let range = "# vtk DataFile Version 3.0\nt\nASCII\nDATASET POLYDATA\nPOINTS 3 float\n0 0 0 1 0 0 0 1 0\n\
                 LINES 1 3\n2 0 5\n";
    assert_has(&read_text("range.vtk", range), "refers to point 5");
    let grid = "# vtk DataFile Version 3.0\nt\nASCII\nDATASET UNSTRUCTURED_GRID\nPOINTS 2 float\n0 0 0 1 0 0\n\
                CELLS 1 3\n2 0 1\nCELL_TYPES 1\n3\n";
    assert_has(&read_text("grid.vtk", grid), "not poly data");
    assert_has(&read_text("rods.obj", "v 0 0 0\n"), "rod polylines are read from");
}

fn rods_scene(curves: &str) -> String {
    format!(
        r#"Scene(name: "strands", dt: 1e-3, frames: 1, frame_rate: 50.0,
        materials: {{ "hair": (density: 1300.0, youngs_modulus: 4e9, poisson_ratio: 0.35, radius: 1e-4) }},
        bodies: [ Rods(name: "strands", material: "hair", curves: {curves}, fixed_roots: true) ],
        pipeline: Nonsmooth())"#
    )
}

#[test]
fn scene_reads_rods_from_a_file() {
    let base = Path::new(env!("CARGO_MANIFEST_DIR")).join("scenes");
    let loaded = parse_scene_str(&rods_scene(r#"File(path: "data/strands.ply", scale: 2.0)"#), "s.ron", &base, &[])
        .expect("valid");
    let (model, state) = fricsim::scene::build::build(&loaded).expect("builds");
    let bundle = &model.rod_bundles[0];
    assert_eq!(bundle.rods.len(), 3);
    assert_eq!(model.node_count(), 33);
    // Scaled by 2; the roots are the kinematic first nodes.
    assert_eq!(fricsim::model::node(&state.q, 0).z, 0.6);
    assert_eq!(model.kinematic[0].nodes, vec![0, 11, 22]);

    // A missing file is a validation error naming the field and the resolved path.
    let Err(e) = parse_scene_str(&rods_scene(r#"File(path: "data/nope.vtk")"#), "s.ron", &base, &[]) else {
        panic!("a missing file must be an error")
    };
    let e = e.to_string();
    assert_has(&e, "bodies[0].curves.path");
    assert_has(&e, "file not found");
    assert_has(&e, "nope.vtk");
    let Err(e) = parse_scene_str(&rods_scene(r#"File(path: "data/strands.obj", scale: 0.0)"#), "s.ron", &base, &[])
    else {
        panic!("a bad extension and scale must be errors")
    };
    let e = e.to_string();
    assert_has(&e, "bodies[0].curves.path");
    assert_has(&e, "bodies[0].curves.scale");

    // A malformed file is reported at build time with the field and the file.
    let dir = tempfile::tempdir().expect("temp dir");
    std::fs::write(dir.path().join("loop.ply"), ply("0 1\n1 2\n2 0\n", 3)).expect("write");
    let loaded = parse_scene_str(&rods_scene(r#"File(path: "loop.ply")"#), "s.ron", dir.path(), &[]).expect("valid");
    let Err(e) = fricsim::scene::build::build(&loaded) else { panic!("a malformed file must be an error") };
    let e = e.to_string();
    assert_has(&e, "bodies[0].curves.path");
    assert_has(&e, "loop.ply");
    assert_has(&e, "closed loop");
}
