//! PLY files read back with the independent ply-rs 0.1.3 reader (not the ply-rs-bw code that
//! wrote them): header layout, vertices (to f32 or f64 precision), vector properties, faces.

use std::fs::File;
use std::io::BufReader;
use std::path::Path;

use fricsim::output::OutputError;
use fricsim::output::ply::{PlyPrecision, write_ply, write_ply_with};
use ply_rs::parser::Parser;
use ply_rs::ply::{DefaultElement, Encoding, Ply, Property};

fn read(path: &Path) -> Ply<DefaultElement> {
    let f = File::open(path).expect("open ply");
    Parser::<DefaultElement>::new()
        .read_ply(&mut BufReader::new(f))
        .unwrap_or_else(|e| panic!("ply-rs cannot read {path:?}: {e}"))
}

fn scalar(e: &DefaultElement, k: &str) -> f64 {
    match e.get(k) {
        Some(Property::Float(x)) => f64::from(*x),
        Some(Property::Double(x)) => *x,
        other => panic!("property {k}: {other:?}"),
    }
}

type Mesh = (Vec<[f64; 3]>, Vec<[usize; 3]>, Vec<[f64; 3]>);

fn mesh() -> Mesh {
    let pts: Vec<[f64; 3]> = (0..7)
        .map(|i| {
            let t = i as f64 * 0.9;
            [t.cos() / 3.0, t.sin() * 1e-4, 1234.5678 + t]
        })
        .collect();
    let tris = (1..6).map(|i| [0, i, i + 1]).collect();
    let vel = pts.iter().map(|p| [p[1], -p[0], 0.1]).collect();
    (pts, tris, vel)
}

fn check(precision: PlyPrecision) {
    let (pts, tris, vel) = mesh();
    let force: Vec<[f64; 3]> = vel.iter().map(|v| [v[2], v[1], v[0] * 2.0]).collect();
    let dir = tempfile::tempdir().expect("temp dir");
    let path = dir.path().join("s.ply");
    write_ply_with(&path, &pts, &tris, &[("velocity", &vel), ("force", &force)], precision).expect("write ply");

    let ply = read(&path);
    assert_eq!(ply.header.encoding, Encoding::BinaryLittleEndian);
    let names: Vec<&String> = ply.header.elements["vertex"].properties.keys().collect();
    assert_eq!(names, ["x", "y", "z", "velocity_x", "velocity_y", "velocity_z", "force_x", "force_y", "force_z"]);
    let verts = &ply.payload["vertex"];
    assert_eq!(verts.len(), pts.len());
    // What the file is supposed to hold: f32-rounded values, or the exact f64.
    let stored = |x: f64| match precision {
        PlyPrecision::Float => f64::from(x as f32),
        PlyPrecision::Double => x,
    };
    for (i, v) in verts.iter().enumerate() {
        for (k, axis) in ["x", "y", "z"].iter().enumerate() {
            assert_eq!(scalar(v, axis).to_bits(), stored(pts[i][k]).to_bits(), "v{i}.{axis}");
            let name = format!("velocity_{axis}");
            assert_eq!(scalar(v, &name).to_bits(), stored(vel[i][k]).to_bits(), "{name}");
            let name = format!("force_{axis}");
            assert_eq!(scalar(v, &name).to_bits(), stored(force[i][k]).to_bits(), "{name}");
        }
        if precision == PlyPrecision::Double {
            assert!(matches!(v.get("x"), Some(Property::Double(_))));
        } else {
            assert!(matches!(v.get("x"), Some(Property::Float(_))));
        }
    }
    let faces = &ply.payload["face"];
    assert_eq!(faces.len(), tris.len());
    for (f, t) in faces.iter().zip(&tris) {
        match f.get("vertex_indices") {
            Some(Property::ListUInt(ix)) => {
                assert_eq!(ix.iter().map(|&i| i as usize).collect::<Vec<_>>(), t.to_vec())
            }
            other => panic!("vertex_indices: {other:?}"),
        }
    }
}

#[test]
fn float_ply_reads_back_with_ply_rs() {
    check(PlyPrecision::Float);
}

#[test]
fn double_ply_reads_back_exactly_with_ply_rs() {
    check(PlyPrecision::Double);
}

#[test]
fn header_is_what_viewers_expect() {
    let (pts, tris, _) = mesh();
    let dir = tempfile::tempdir().expect("temp dir");
    let path = dir.path().join("plain.ply");
    write_ply(&path, &pts, &tris, &[]).expect("write");
    let bytes = std::fs::read(&path).expect("read");
    let end = b"end_header\n";
    let at = bytes.windows(end.len()).position(|w| w == end).expect("end_header") + end.len();
    let header = String::from_utf8_lossy(&bytes[..at]);
    for line in [
        "ply\nformat binary_little_endian 1.0\n",
        "element vertex 7\nproperty float x\nproperty float y\nproperty float z\n",
        "element face 5\nproperty list uchar uint vertex_indices\nend_header\n",
    ] {
        assert!(header.contains(line), "{header:?} lacks {line:?}");
    }
    // 7 vertices * 3 floats + 5 faces * (1 + 3*4) bytes.
    assert_eq!(bytes.len() - at, 7 * 12 + 5 * 13);
}

#[test]
fn bad_input_is_refused_without_writing() {
    let (pts, tris, vel) = mesh();
    let dir = tempfile::tempdir().expect("temp dir");
    let path = dir.path().join("bad.ply");
    type Case<'a> = (Vec<[usize; 3]>, Vec<(&'a str, &'a [[f64; 3]])>, &'a str);
    let cases: Vec<Case> = vec![
        (vec![[0, 1, 7]], vec![], "triangle 0 [0, 1, 7] refers to a point beyond the 7 points"),
        (tris.clone(), vec![("velocity", &vel[..3])], "'velocity' has 3 entries but the surface has 7"),
        (tris.clone(), vec![("my velocity", &vel[..])], "not a PLY property name"),
        (tris.clone(), vec![("v", &vel[..]), ("v", &vel[..])], "'v_x' would appear twice"),
    ];
    for (t, vv, needle) in cases {
        match write_ply(&path, &pts, &t, &vv) {
            Err(e @ OutputError::InvalidData { .. }) => {
                assert!(e.to_string().contains(needle), "{e} lacks {needle}")
            }
            other => panic!("expected InvalidData for {needle}, got {other:?}"),
        }
        assert!(!path.exists());
    }
    assert_eq!(std::fs::read_dir(dir.path()).expect("list").count(), 0, "no temp files");
}
