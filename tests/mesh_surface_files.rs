//! Triangle surfaces from PLY (ASCII, binary LE/BE) and OBJ files: geometry, fan triangulation,
//! UVs (including vertex splitting for per-corner OBJ UVs) and the messages for bad files.

use std::path::{Path, PathBuf};

use fricsim::mesh::{MeshError, TriMesh, read_tri_mesh};
use nalgebra::Vector3;

fn write(dir: &Path, name: &str, bytes: &[u8]) -> PathBuf {
    let p = dir.join(name);
    std::fs::write(&p, bytes).unwrap();
    p
}

fn read_str(name: &str, text: &str) -> Result<TriMesh, MeshError> {
    read_bytes(name, text.as_bytes())
}

/// Reads `bytes` as file `name` in a fresh temporary directory; errors come back with that
/// directory removed from their message (see [`message`]).
fn read_bytes(name: &str, bytes: &[u8]) -> Result<TriMesh, MeshError> {
    let dir = tempfile::tempdir().unwrap();
    read_tri_mesh(&write(dir.path(), name, bytes))
}

/// The message without the temporary directory, which differs per run.
fn message(e: &MeshError) -> String {
    let tmp = std::env::temp_dir();
    let s = e.to_string();
    // tempdir names are `<temp_dir>/.tmpXXXXXX/`.
    match s.find(&format!("{}/.tmp", tmp.display())) {
        Some(a) => {
            let rest = &s[a..];
            let cut = rest.find(".tmp").map(|k| k + rest[k..].find('/').unwrap_or(0) + 1).unwrap_or(0);
            format!("{}{}", &s[..a], &rest[cut..])
        }
        None => s,
    }
}

fn unit_square() -> Vec<Vector3<f64>> {
    vec![
        Vector3::new(0.0, 0.0, 0.0),
        Vector3::new(1.0, 0.0, 0.0),
        Vector3::new(1.0, 1.0, 0.0),
        Vector3::new(0.0, 1.0, 0.0),
    ]
}

// ---------------------------------------------------------------- PLY

const PLY_QUAD_UV: &str = "ply
format ascii 1.0
comment a unit square as one quad
element vertex 4
property float x
property float y
property float z
property float nx
property float ny
property float nz
property float u
property float v
element face 1
property list uchar int vertex_indices
end_header
0 0 0 0 0 1 0 0
1 0 0 0 0 1 1 0
1 1 0 0 0 1 1 1
0 1 0 0 0 1 0 1
4 0 1 2 3
";

#[test]
fn ply_ascii_quad_with_uv_is_fan_triangulated() {
    let m = read_str("quad.ply", PLY_QUAD_UV).unwrap();
    assert_eq!(m.vertices, unit_square());
    assert_eq!(m.triangles, vec![[0, 1, 2], [0, 2, 3]]);
    assert_eq!(m.uvs, Some(vec![[0.0, 0.0], [1.0, 0.0], [1.0, 1.0], [0.0, 1.0]]));
    // Exact: the area is a sum of two exactly representable halves.
    assert_eq!(m.area(), 1.0);
}

#[test]
fn ply_uv_property_names_and_face_list_names() {
    for (u, v, list) in [("s", "t", "vertex_index"), ("texture_u", "texture_v", "vertex_indices")] {
        let text = PLY_QUAD_UV
            .replace("property float u\nproperty float v", &format!("property double {u}\nproperty double {v}"))
            .replace("vertex_indices", list);
        let m = read_str("names.ply", &text).unwrap();
        assert_eq!(m.uvs.as_ref().map(|x| x[2]), Some([1.0, 1.0]), "{u} {v} {list}");
        assert_eq!(m.triangles.len(), 2);
    }
    // Without UV properties there are no UVs; a lone 'u' is not a pair.
    let text = PLY_QUAD_UV.replace("property float v\n", "property float w\n");
    assert_eq!(read_str("no_uv.ply", &text).unwrap().uvs, None);
}

/// A binary PLY with a leading extra element (read and dropped), normals (skipped), double
/// positions, uchar/uint face lists, a triangle and a quad.
fn binary_ply(big_endian: bool) -> Vec<u8> {
    let format = if big_endian { "binary_big_endian" } else { "binary_little_endian" };
    let mut out = format!(
        "ply\nformat {format} 1.0\nelement material 1\nproperty uchar id\nelement vertex 5\n\
         property double x\nproperty double y\nproperty double z\nproperty float s\nproperty float t\n\
         element face 2\nproperty list uchar uint vertex_indices\nelement edge 1\nproperty int a\nend_header\n"
    )
    .into_bytes();
    let f64b = |x: f64| if big_endian { x.to_be_bytes() } else { x.to_le_bytes() };
    let f32b = |x: f32| if big_endian { x.to_be_bytes() } else { x.to_le_bytes() };
    let u32b = |x: u32| if big_endian { x.to_be_bytes() } else { x.to_le_bytes() };
    out.push(7);
    let pts = [[0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [1.0, 1.0, 0.0], [0.0, 1.0, 0.0], [0.5, 0.5, 1.0]];
    for (k, p) in pts.iter().enumerate() {
        for c in p {
            out.extend(f64b(*c));
        }
        out.extend(f32b(k as f32 * 0.25));
        out.extend(f32b(1.0 - k as f32 * 0.25));
    }
    out.push(3);
    for i in [0u32, 1, 4] {
        out.extend(u32b(i));
    }
    out.push(4);
    for i in [0u32, 1, 2, 3] {
        out.extend(u32b(i));
    }
    out.extend(if big_endian { 9i32.to_be_bytes() } else { 9i32.to_le_bytes() });
    out
}

#[test]
fn ply_binary_both_endiannesses() {
    for be in [false, true] {
        let dir = tempfile::tempdir().unwrap();
        let m = read_tri_mesh(&write(dir.path(), "b.PLY", &binary_ply(be))).unwrap();
        assert_eq!(m.vertices.len(), 5);
        assert_eq!(m.vertices[4], Vector3::new(0.5, 0.5, 1.0));
        assert_eq!(m.triangles, vec![[0, 1, 4], [0, 1, 2], [0, 2, 3]]);
        // Quarters are exact in f32 and f64.
        assert_eq!(m.uvs.as_ref().unwrap()[3], [0.75, 0.25]);
    }
}

#[test]
fn ply_errors_name_the_file_and_the_problem() {
    let bad_index = PLY_QUAD_UV.replace("4 0 1 2 3", "4 0 1 2 7");
    assert_eq!(
        message(&read_str("idx.ply", &bad_index).unwrap_err()),
        "mesh file 'idx.ply': face 0 refers to vertex 7, but the file has 4 vertices (valid indices are 0..=3)"
    );
    // ASCII PLY has no syntax for NaN (the parser rejects 'nan'); binary files can hold one.
    let mut nan = binary_ply(false);
    let at = nan.len() - (1 + 3 * 4) - (1 + 4 * 4) - 4 - 3 * (3 * 8 + 2 * 4) + 8;
    nan[at..at + 8].copy_from_slice(&f64::NAN.to_le_bytes());
    assert_eq!(
        message(&read_bytes("nan.ply", &nan).unwrap_err()),
        "mesh file 'nan.ply': vertex 2 has a non-finite coordinate [1.0, NaN, 0.0]; coordinates must be finite numbers"
    );
    let e = message(&read_str("nan.ply", &PLY_QUAD_UV.replace("1 1 0 0 0 1 1 1", "1 nan 0 0 0 1 1 1")).unwrap_err());
    assert!(e.starts_with("mesh file 'nan.ply' could not be parsed as PLY (Line 18: "), "{e}");
    let empty = PLY_QUAD_UV.replace("element face 1", "element face 0").replace("4 0 1 2 3\n", "");
    assert_eq!(
        message(&read_str("empty.ply", &empty).unwrap_err()),
        "mesh file 'empty.ply': the surface mesh has no triangles; a surface needs at least one face with 3 or more vertices"
    );
    let flat = PLY_QUAD_UV.replace("1 1 0 0 0 1 1 1", "2 0 0 0 0 1 1 1").replace("0 1 0 0 0 1 0 1", "3 0 0 0 0 1 0 1");
    assert_eq!(
        message(&read_str("flat.ply", &flat).unwrap_err()),
        "mesh file 'flat.ply': all 2 triangles have zero area (every face is a point or a line segment, to \
         round-off); a surface needs at least one triangle with a non-zero area"
    );
    let short_face = PLY_QUAD_UV.replace("4 0 1 2 3", "2 0 1");
    assert_eq!(
        message(&read_str("short.ply", &short_face).unwrap_err()),
        "mesh file 'short.ply': face 0 has 2 vertices; a face needs at least 3"
    );
    let points = "ply\nformat ascii 1.0\nelement vertex 1\nproperty float x\nproperty float y\nproperty float z\nend_header\n0 0 0\n";
    let e = message(&read_str("cloud.ply", points).unwrap_err());
    assert!(e.contains("'cloud.ply'") && e.contains("no 'face' element"), "{e}");
    assert_eq!(
        message(&read_str("junk.ply", "solid cube\nfacet normal 0 0 1\n").unwrap_err()),
        "mesh file 'junk.ply': the file does not start with 'ply', so it is not a PLY file"
    );
    assert_eq!(
        message(&read_str("float.ply", &PLY_QUAD_UV.replace("list uchar int", "list uchar float")).unwrap_err()),
        "mesh file 'float.ply': the face property 'vertex_indices' is List(UChar, Float); it must be a list of \
         integers (e.g. 'property list uchar int vertex_indices')"
    );
    let truncated = PLY_QUAD_UV.replace("4 0 1 2 3\n", "");
    let e = message(&read_str("trunc.ply", &truncated).unwrap_err());
    assert!(e.starts_with("mesh file 'trunc.ply' could not be parsed as PLY ("), "{e}");
}

#[test]
fn missing_file_and_unknown_extension() {
    let dir = tempfile::tempdir().unwrap();
    let e = read_tri_mesh(&dir.path().join("nowhere.obj")).unwrap_err();
    assert!(matches!(e, MeshError::Io { .. }));
    let s = message(&e);
    assert!(s.starts_with("cannot read mesh file 'nowhere.obj': "), "{s}");
    let e = read_tri_mesh(&write(dir.path(), "part.stl", b"solid x\n")).unwrap_err();
    assert_eq!(
        message(&e),
        "surface mesh file 'part.stl' has the extension \"stl\"; triangle surfaces are read from '.ply' \
         (ASCII or binary) or '.obj' (Wavefront)"
    );
}

// ---------------------------------------------------------------- OBJ

#[test]
fn obj_corner_forms_negative_indices_polygons_and_comments() {
    let text = "# unit square and a triangle above it
o thing
v 0 0 0
v 1 0 0
v 1 1 0 1.0
v 0 1 0 0.5 0.5 0.5   # with a colour
vn 0 0 1
s off
f 1//1 2//1 3//1 \\
  4//1
v 0.5 0.5 1
f -5 -4 -1
usemtl wood
";
    let m = read_str("mixed.obj", text).unwrap();
    assert_eq!(m.vertices.len(), 5);
    assert_eq!(m.triangles, vec![[0, 1, 2], [0, 2, 3], [0, 1, 4]]);
    assert_eq!(m.uvs, None);
}

#[test]
fn obj_uvs_split_vertices_where_corners_disagree() {
    // Two quads sharing the edge (2, 3) in position, but the second quad's UVs are a separate
    // island: vertices 2 and 3 must be split, the shared corner UVs of vertex 1/4 must not.
    let text = "v 0 0 0
v 1 0 0
v 1 1 0
v 0 1 0
v 2 0 0
v 2 1 0
vt 0 0
vt 1 0
vt 1 1
vt 0 1
vt 0.5 0.5
vt 0.25 0.75
vt 1 0
f 1/1 2/2 3/3 4/4
f 2/7 5/5 6/4 3/6
";
    let m = read_str("split.obj", text).unwrap();
    let uvs = m.uvs.as_ref().unwrap();
    // Vertex 2 (index 1) is used with vt 2 and vt 7, which are equal: not split. Vertex 3
    // (index 2) is used with (1,1) and (0.25,0.75): split into a new vertex 6.
    assert_eq!(m.vertices.len(), 7);
    assert_eq!(m.vertices[6], m.vertices[2]);
    assert_eq!(uvs[2], [1.0, 1.0]);
    assert_eq!(uvs[6], [0.25, 0.75]);
    assert_eq!(m.triangles, vec![[0, 1, 2], [0, 2, 3], [1, 4, 5], [1, 5, 6]]);
    // Every triangle's corner UVs are the ones the file gave.
    assert_eq!(m.corner_uvs(3), Some([[1.0, 0.0], [0.0, 1.0], [0.25, 0.75]]));
    // vt with only u: v defaults to 0. Relative vt indices.
    let m = read_str("u_only.obj", "v 0 0 0\nv 1 0 0\nv 0 1 0\nvt 0.5\nvt 1 1\nvt 0 1 0\nf 1/-3 2/-2 3/-1\n").unwrap();
    assert_eq!(m.uvs, Some(vec![[0.5, 0.0], [1.0, 1.0], [0.0, 1.0]]));
}

#[test]
fn obj_errors_give_the_line_and_what_is_allowed() {
    let tri = "v 0 0 0\nv 1 0 0\nv 0 1 0\n";
    let cases: &[(&str, String)] = &[
        ("range", format!("{tri}f 1 2 4\n")),
        ("zero", format!("{tri}f 0 1 2\n")),
        ("rel", format!("{tri}f -4 1 2\n")),
        ("nan", "v 0 0 0\nv 1 NaN 0\nv 0 1 0\nf 1 2 3\n".into()),
        ("word", "v 0 0 zero\n".into()),
        ("short", "v 0 0\n".into()),
        ("corner", format!("{tri}f 1/1/1/1 2 3\n")),
        ("noint", format!("{tri}f 1 2 x\n")),
        ("two", format!("{tri}f 1 2\n")),
        ("mixuv", format!("{tri}vt 0 0\nf 1/1 2/1 3/1\nf 1 2 3\n")),
        ("vtrange", format!("{tri}vt 0 0\nf 1/1 2/2 3/1\n")),
        ("inf", "v 0 0 0\nvt inf 0\n".into()),
    ];
    let expected = [
        "mesh file 'range.obj', line 4: vertex index 4 is out of range; the file defines 3 vertices (v lines)",
        "mesh file 'zero.obj', line 4: face corner '0': vertex index 0 is not valid; OBJ indices start at 1 \
         (negative indices count back from the last vertex)",
        "mesh file 'rel.obj', line 4: face corner '-4': relative vertex index -4 reaches before the first vertex \
         (only 3 defined so far; -1 is the last one)",
        "mesh file 'nan.obj', line 2: vertex coordinate 2 is 'NaN'; coordinates must be finite numbers (no NaN or infinity)",
        "mesh file 'word.obj', line 1: vertex coordinate 3 is 'zero', which is not a number",
        "mesh file 'short.obj', line 1: a vertex needs 3 coordinates ('v x y z'), found 2",
        "mesh file 'corner.obj', line 4: face corner '1/1/1/1' has more than 3 '/'-separated parts; allowed are \
         v, v/vt, v/vt/vn, v//vn",
        "mesh file 'noint.obj', line 4: face corner 'x': vertex index 'x' is not an integer (allowed forms: v, \
         v/vt, v/vt/vn, v//vn)",
        "mesh file 'two.obj', line 4: a face needs at least 3 corners, found 2",
        "mesh file 'mixuv.obj', line 6: this face corner has no texture coordinate but the face on line 5 has; \
         give vt indices on every face corner or on none",
        "mesh file 'vtrange.obj', line 5: texture coordinate index 2 is out of range; the file defines 1 texture \
         coordinates (vt lines)",
        "mesh file 'inf.obj', line 2: texture coordinate u is 'inf'; coordinates must be finite numbers (no NaN or infinity)",
    ];
    for ((name, text), want) in cases.iter().zip(expected) {
        let e = read_str(&format!("{name}.obj"), text).unwrap_err();
        assert_eq!(message(&e), want);
    }
    // Whole-mesh checks name the file.
    assert_eq!(
        message(&read_str("nofaces.obj", tri).unwrap_err()),
        "mesh file 'nofaces.obj': the surface mesh has no triangles; a surface needs at least one face with 3 or more vertices"
    );
    let e = read_str("flat.obj", "v 0 0 0\nv 1 1 1\nv 2 2 2\nf 1 2 3\nf 3 2 1\n").unwrap_err();
    assert!(
        matches!(&e, MeshError::InFile { source, .. } if matches!(**source, MeshError::DegenerateSurface { triangles: 2 }))
    );
}
