//! VTK reading: round trips through files written by vtkio (legacy ASCII, legacy binary, XML,
//! compressed XML) and the error messages for bad files.

use std::path::{Path, PathBuf};

use fricsim::mesh::{MeshError, TetMesh, box_tets, read_tet_mesh};
use vtkio::model::{
    Attributes, ByteOrder, CellType, Cells, DataSet, UnstructuredGridPiece, Version, VertexNumbers, Vtk,
};

#[derive(Clone, Copy)]
enum Format {
    LegacyAscii,
    LegacyBinary,
    Xml,
    XmlZlib,
}

fn write(path: &Path, points: &[f64], cells: &[Vec<u64>], types: Vec<CellType>, format: Format) {
    let mut connectivity = Vec::new();
    let mut offsets = Vec::new();
    for c in cells {
        connectivity.extend_from_slice(c);
        offsets.push(connectivity.len() as u64);
    }
    let vtk = Vtk {
        version: Version::Auto,
        // Legacy binary must be big-endian (vtkio reads legacy as BE).
        byte_order: ByteOrder::BigEndian,
        title: "fricsim test".into(),
        file_path: None,
        data: DataSet::inline(UnstructuredGridPiece {
            points: points.to_vec().into(),
            cells: Cells { cell_verts: VertexNumbers::XML { connectivity, offsets }, types },
            data: Attributes::new(),
        }),
    };
    match format {
        Format::LegacyAscii => vtk.export_ascii(path).unwrap(),
        Format::LegacyBinary | Format::Xml => vtk.export(path).unwrap(),
        Format::XmlZlib => {
            let xml = vtk.try_into_xml_format(vtkio::xml::Compressor::ZLib, 1).unwrap();
            std::fs::write(path, xml.to_string()).unwrap();
        }
    }
}

fn write_mesh(path: &Path, m: &TetMesh, format: Format) {
    let points: Vec<f64> = m.vertices.iter().flat_map(|v| [v.x, v.y, v.z]).collect();
    let cells: Vec<Vec<u64>> = m.tets.iter().map(|t| t.iter().map(|&i| i as u64).collect()).collect();
    write(path, &points, &cells, vec![CellType::Tetra; m.tets.len()], format);
}

fn tmp(dir: &tempfile::TempDir, name: &str) -> PathBuf {
    dir.path().join(name)
}

#[test]
fn round_trips_all_formats() {
    let dir = tempfile::tempdir().unwrap();
    let m = box_tets([0.1, 0.2, 0.3], [2, 3, 2]).unwrap();
    for (name, format) in [
        ("ascii.vtk", Format::LegacyAscii),
        ("binary.vtk", Format::LegacyBinary),
        ("plain.vtu", Format::Xml),
        ("zlib.vtu", Format::XmlZlib),
    ] {
        let p = tmp(&dir, name);
        write_mesh(&p, &m, format);
        let back = read_tet_mesh(&p).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(back.tets, m.tets, "{name}");
        // Binary and XML store f64 exactly; ASCII prints shortest round-trip decimals.
        assert_eq!(back.vertices, m.vertices, "{name}");
    }
}

#[test]
fn negatively_oriented_tets_in_files_are_reoriented() {
    let dir = tempfile::tempdir().unwrap();
    let p = tmp(&dir, "neg.vtu");
    let pts = [0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0];
    write(&p, &pts, &[vec![0, 2, 1, 3]], vec![CellType::Tetra], Format::Xml);
    let m = read_tet_mesh(&p).unwrap();
    assert!((m.volume() - 1.0 / 6.0).abs() < 1e-15);
}

fn err(p: &Path) -> String {
    let e: MeshError = read_tet_mesh(p).unwrap_err();
    let s = e.to_string();
    assert!(s.contains(&p.display().to_string()), "message does not name the file: {s}");
    s
}

#[test]
fn missing_file_and_wrong_extension() {
    let dir = tempfile::tempdir().unwrap();
    let s = err(&tmp(&dir, "nope.vtu"));
    assert!(s.contains("cannot read"), "{s}");
    let p = tmp(&dir, "mesh.msh");
    std::fs::write(&p, "x").unwrap();
    let s = err(&p);
    assert!(s.contains(".vtk") && s.contains(".vtu"), "{s}");
}

#[test]
fn garbage_content_is_an_error_not_a_panic() {
    let dir = tempfile::tempdir().unwrap();
    for (name, content) in [
        ("bad.vtk", "# vtk DataFile Version 4.2\nhello\nASCII\nDATASET UNSTRUCTURED_GRID\nPOINTS 2 double\n1 2"),
        ("bad.vtu", "<VTKFile type=\"UnstructuredGrid\"><oops"),
    ] {
        let p = tmp(&dir, name);
        std::fs::write(&p, content).unwrap();
        let s = err(&p);
        assert!(s.contains("could not be parsed") || s.contains("malformed"), "{s}");
    }
}

#[test]
fn non_tet_cells_are_named() {
    let dir = tempfile::tempdir().unwrap();
    let pts = [0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0];
    for format in [Format::LegacyAscii, Format::Xml] {
        let p = tmp(&dir, if matches!(format, Format::Xml) { "tri.vtu" } else { "tri.vtk" });
        write(&p, &pts, &[vec![0, 1, 2, 3], vec![0, 1, 2]], vec![CellType::Tetra, CellType::Triangle], format);
        let s = err(&p);
        assert!(s.contains("cell 1") && s.contains("Triangle") && s.contains("only tetrahedra"), "{s}");
    }
}

#[test]
fn index_out_of_range_and_degenerate_tets_in_files() {
    let dir = tempfile::tempdir().unwrap();
    let pts = [0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0];
    let p = tmp(&dir, "range.vtu");
    write(&p, &pts, &[vec![0, 1, 2, 9]], vec![CellType::Tetra], Format::Xml);
    let s = err(&p);
    assert!(s.contains("vertex 9") && s.contains("only 4 vertices"), "{s}");

    let flat = [0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.5, 0.5, 0.0];
    let p = tmp(&dir, "flat.vtk");
    write(&p, &flat, &[vec![0, 1, 2, 3]], vec![CellType::Tetra], Format::LegacyBinary);
    let s = err(&p);
    assert!(s.contains("tetrahedron 0") && s.contains("degenerate"), "{s}");

    // A "tetra" with 3 vertices.
    let p = tmp(&dir, "short.vtu");
    write(&p, &pts, &[vec![0, 1, 2]], vec![CellType::Tetra], Format::Xml);
    let s = err(&p);
    assert!(s.contains("3 vertices instead of 4"), "{s}");
}

#[test]
fn surface_meshes_are_rejected() {
    let dir = tempfile::tempdir().unwrap();
    let p = tmp(&dir, "poly.vtk");
    let vtk = Vtk {
        version: Version::Auto,
        byte_order: ByteOrder::BigEndian,
        title: "poly".into(),
        file_path: None,
        data: DataSet::inline(vtkio::model::PolyDataPiece {
            points: vec![0.0f64, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0, 0.0].into(),
            polys: Some(VertexNumbers::Legacy { num_cells: 1, vertices: vec![3, 0, 1, 2] }),
            ..Default::default()
        }),
    };
    vtk.export_ascii(&p).unwrap();
    let s = err(&p);
    assert!(s.contains("poly data") && s.contains("unstructured grid of tetrahedra"), "{s}");
}
