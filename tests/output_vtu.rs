//! `.vtu` round trips through vtkio's reader: every value (bit-exact f64), cell types and
//! connectivity; and the length checks.

use fricsim::output::OutputError;
use fricsim::output::vtu::{Cells, UnstructuredSnapshot, VtuCompression, write_vtu, write_vtu_with};
#[path = "support/vtu.rs"]
mod vtu;
use vtkio::model::CellType;
use vtu::{array, read_vtu};

/// Values that a lossy (f32 or short decimal) path would change.
fn awkward(i: usize) -> f64 {
    (i as f64 + 0.1) / 3.0 * [1.0, -1e-12, 7e15, std::f64::consts::PI][i % 4]
}

fn points(n: usize) -> Vec<[f64; 3]> {
    (0..n).map(|i| [awkward(3 * i), awkward(3 * i + 1), awkward(3 * i + 2)]).collect()
}

fn bits(v: &[f64]) -> Vec<u64> {
    v.iter().map(|x| x.to_bits()).collect()
}

fn check_round_trip(s: &UnstructuredSnapshot, compression: VtuCompression, ty: CellType) {
    let dir = tempfile::tempdir().expect("temp dir");
    let path = dir.path().join("body_0000.vtu");
    write_vtu_with(&path, s, compression).expect("write vtu");
    let piece = read_vtu(&path);

    let pts: Vec<f64> = piece.points.cast_into().expect("f64 points");
    assert_eq!(bits(&pts), bits(s.points.as_flattened()), "points");

    let (conn, offsets) = piece.cells.cell_verts.into_xml();
    let (flat, per): (Vec<usize>, u64) = match s.cells {
        Cells::Tetra(c) => (c.as_flattened().to_vec(), 4),
        Cells::Triangle(c) => (c.as_flattened().to_vec(), 3),
        Cells::Vertex(c) => (c.as_flattened().to_vec(), 1),
        Cells::Line(c) => (c.as_flattened().to_vec(), 2),
    };
    assert_eq!(conn, flat.iter().map(|&i| i as u64).collect::<Vec<_>>(), "connectivity");
    let expect_offsets: Vec<u64> = (1..=s.cells.len() as u64).map(|c| c * per).collect();
    assert_eq!(offsets, expect_offsets, "offsets");
    assert_eq!(piece.cells.types, vec![ty; s.cells.len()], "cell types");

    for (name, v) in &s.point_vectors {
        let (c, got) = array(&piece.data.point, name);
        assert_eq!((c, bits(&got)), (3, bits(v.as_flattened())), "point vector {name}");
    }
    for (name, v) in &s.point_scalars {
        let (c, got) = array(&piece.data.point, name);
        assert_eq!((c, bits(&got)), (1, bits(v)), "point scalar {name}");
    }
    for (name, v) in &s.cell_scalars {
        let (c, got) = array(&piece.data.cell, name);
        assert_eq!((c, bits(&got)), (1, bits(v)), "cell scalar {name}");
    }
    for (name, v) in &s.cell_vectors {
        let (c, got) = array(&piece.data.cell, name);
        assert_eq!((c, bits(&got)), (3, bits(v.as_flattened())), "cell vector {name}");
    }
    let expected_point_arrays = s.point_vectors.len() + s.point_scalars.len();
    let expected_cell_arrays = s.cell_vectors.len() + s.cell_scalars.len();
    assert_eq!(piece.data.point.len(), expected_point_arrays, "no extra point arrays");
    assert_eq!(piece.data.cell.len(), expected_cell_arrays, "no extra cell arrays");
}

#[test]
fn tet_mesh_round_trips_exactly_with_every_compression() {
    // Two tets sharing a face, plus an unused point (allowed).
    let pts = points(6);
    let tets = [[0, 1, 2, 3], [1, 2, 3, 4]];
    let vel = points(6).iter().map(|p| [p[2], -p[0], p[1] * 1e-300]).collect::<Vec<_>>();
    let pressure: Vec<f64> = (0..6).map(|i| awkward(i + 40)).collect();
    let energy = [f64::MIN_POSITIVE, -0.0];
    let stress_dir = [[1.0, 0.0, 0.0], [0.1, 0.2, 0.3]];
    let mut s = UnstructuredSnapshot::new(&pts, Cells::Tetra(&tets));
    s.point_vectors.push(("velocity", &vel));
    s.point_vectors.push(("contact_force", &pts));
    s.point_scalars.push(("pressure", &pressure));
    s.cell_scalars.push(("strain_energy", &energy));
    s.cell_vectors.push(("principal_stress", &stress_dir));
    for c in [VtuCompression::None, VtuCompression::Lz4, VtuCompression::Zlib { level: 6 }] {
        check_round_trip(&s, c, CellType::Tetra);
    }
}

#[test]
fn triangle_mesh_round_trips_exactly() {
    let pts = points(5);
    let tris = [[0, 1, 2], [0, 2, 3], [0, 3, 4]];
    let vel = points(5);
    let area = [0.5, 0.25, 1.0 / 3.0];
    let mut s = UnstructuredSnapshot::new(&pts, Cells::Triangle(&tris));
    s.point_vectors.push(("velocity", &vel));
    s.cell_scalars.push(("area", &area));
    check_round_trip(&s, VtuCompression::None, CellType::Triangle);
}

#[test]
fn line_set_round_trips_exactly() {
    let pts = points(4);
    let segs = [[0, 1], [1, 2], [2, 3]];
    let twist = [0.1, 0.2, 0.3, 0.4];
    let mut s = UnstructuredSnapshot::new(&pts, Cells::Line(&segs));
    s.point_scalars.push(("twist", &twist));
    check_round_trip(&s, VtuCompression::None, CellType::Line);
}

#[test]
fn default_writer_is_lz4_and_readable() {
    let dir = tempfile::tempdir().expect("temp dir");
    let path = dir.path().join("a.vtu");
    let pts = points(3);
    let tris = [[0, 1, 2]];
    write_vtu(&path, &UnstructuredSnapshot::new(&pts, Cells::Triangle(&tris))).expect("write");
    let text = std::fs::read_to_string(&path).expect("read");
    assert!(text.contains("UnstructuredGrid"), "{text}");
    assert!(text.contains("compressor=\"vtkLZ4DataCompressor\""), "default is LZ4: {text}");
    assert_eq!(read_vtu(&path).cells.types, vec![CellType::Triangle]);
}

fn expect_invalid(s: &UnstructuredSnapshot, needle: &str) {
    let dir = tempfile::tempdir().expect("temp dir");
    let path = dir.path().join("bad.vtu");
    match write_vtu(&path, s) {
        Err(e @ OutputError::InvalidData { .. }) => {
            let msg = e.to_string();
            assert!(msg.contains(needle), "message {msg:?} lacks {needle:?}");
            assert!(msg.contains("bad.vtu"), "message {msg:?} must name the file");
        }
        other => panic!("expected InvalidData, got {other:?}"),
    }
    assert!(!path.exists(), "nothing must be written on invalid data");
    assert_eq!(std::fs::read_dir(dir.path()).expect("list").count(), 0, "no temp files");
}

#[test]
fn mismatched_lengths_and_bad_indices_are_clear_errors() {
    let pts = points(4);
    let tets = [[0, 1, 2, 3]];
    let short = [[0.0; 3]; 3];
    let two = [1.0, 2.0];

    let mut s = UnstructuredSnapshot::new(&pts, Cells::Tetra(&tets));
    s.point_vectors.push(("velocity", &short));
    expect_invalid(&s, "point array 'velocity' has 3 entries but the mesh has 4 points");

    let mut s = UnstructuredSnapshot::new(&pts, Cells::Tetra(&tets));
    s.point_scalars.push(("p", &two));
    expect_invalid(&s, "'p' has 2 entries");

    let mut s = UnstructuredSnapshot::new(&pts, Cells::Tetra(&tets));
    s.cell_scalars.push(("energy", &two));
    expect_invalid(&s, "cell array 'energy' has 2 entries but the mesh has 1 cells");

    let mut s = UnstructuredSnapshot::new(&pts, Cells::Tetra(&tets));
    s.cell_vectors.push(("dir", &short));
    expect_invalid(&s, "cell array 'dir' has 3 entries");

    let bad = [[0, 1, 2, 4]];
    expect_invalid(
        &UnstructuredSnapshot::new(&pts, Cells::Tetra(&bad)),
        "cell 0 refers to point 4 but the mesh has 4 points",
    );
}

#[test]
fn empty_body_round_trips() {
    // A body can be empty (e.g. a rod set whose curves were all filtered out).
    let pts: [[f64; 3]; 0] = [];
    let segs: [[usize; 2]; 0] = [];
    let vel: [[f64; 3]; 0] = [];
    let mut s = UnstructuredSnapshot::new(&pts, Cells::Line(&segs));
    s.point_vectors.push(("velocity", &vel));
    for c in [VtuCompression::None, VtuCompression::Lz4] {
        check_round_trip(&s, c, CellType::Line);
    }
}
