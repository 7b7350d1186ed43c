//! PLY surfaces (ASCII, binary little- and big-endian) through `ply-rs-bw`.
//!
//! Read: the `vertex` element's `x, y, z` and, when present, one UV pair (`u, v`, else `s, t`,
//! else `texture_u, texture_v`, each pair only if both of its properties are declared); the
//! `face` element's `vertex_indices` (or `vertex_index`) list. Other elements and properties
//! (normals, colours, edges, per-face `texcoord` lists) are skipped.

use std::fs::File;
use std::io::{BufRead, BufReader};
use std::path::Path;

use nalgebra::Vector3;
use ply_rs_bw::parser::{Parser, Reader};
use ply_rs_bw::ply::{ElementDef, Property, PropertyAccess, PropertyAccessResult, PropertyType, ScalarType};

use super::MeshError;
use super::trimesh::{RawTriMesh, fan};
use super::vtk_read::catch_unwind_quietly;

/// UV property pairs in order of preference.
const UV_NAMES: [[&str; 2]; 3] = [["u", "v"], ["s", "t"], ["texture_u", "texture_v"]];
/// Accepted names of the face index list.
const FACE_LISTS: [&str; 2] = ["vertex_indices", "vertex_index"];

/// One PLY element of either kind; only the fields of its kind are filled. A typed record
/// (rather than ply-rs's map-based `DefaultElement`) keeps reading fast on large meshes.
#[derive(Default)]
struct Record {
    xyz: [f64; 3],
    /// Values of the UV candidates, in the order of [`UV_NAMES`].
    uv: [[f64; 2]; 3],
    indices: Vec<i64>,
}

fn scalar(p: &Property) -> Option<f64> {
    Some(match *p {
        Property::Char(x) => x.into(),
        Property::UChar(x) => x.into(),
        Property::Short(x) => x.into(),
        Property::UShort(x) => x.into(),
        Property::Int(x) => x.into(),
        Property::UInt(x) => x.into(),
        Property::Float(x) => x.into(),
        Property::Double(x) => x,
        _ => return None,
    })
}

fn int_list(p: Property) -> Option<Vec<i64>> {
    Some(match p {
        Property::ListChar(v) => v.into_iter().map(i64::from).collect(),
        Property::ListUChar(v) => v.into_iter().map(i64::from).collect(),
        Property::ListShort(v) => v.into_iter().map(i64::from).collect(),
        Property::ListUShort(v) => v.into_iter().map(i64::from).collect(),
        Property::ListInt(v) => v.into_iter().map(i64::from).collect(),
        Property::ListUInt(v) => v.into_iter().map(i64::from).collect(),
        _ => return None,
    })
}

impl PropertyAccess for Record {
    fn new() -> Self {
        Record::default()
    }

    fn set_property(&mut self, name: &str, p: Property) -> PropertyAccessResult {
        let coordinate = match name {
            "x" => Some(&mut self.xyz[0]),
            "y" => Some(&mut self.xyz[1]),
            "z" => Some(&mut self.xyz[2]),
            _ => UV_NAMES
                .iter()
                .enumerate()
                .find_map(|(k, pair)| pair.iter().position(|&n| n == name).map(|j| (k, j)))
                .map(|(k, j)| &mut self.uv[k][j]),
        };
        if let Some(c) = coordinate {
            return match scalar(&p) {
                Some(x) => {
                    *c = x;
                    PropertyAccessResult::Set
                }
                None => PropertyAccessResult::UnsupportedType,
            };
        }
        if FACE_LISTS.contains(&name) {
            return match int_list(p) {
                Some(v) => {
                    self.indices = v;
                    PropertyAccessResult::Set
                }
                None => PropertyAccessResult::UnsupportedType,
            };
        }
        PropertyAccessResult::Ignored
    }
}

pub(super) fn read_ply(path: &Path) -> Result<RawTriMesh, MeshError> {
    let file = File::open(path).map_err(|source| MeshError::Io { path: path.to_path_buf(), source })?;
    let ply_err = |message: String| MeshError::Ply { path: path.to_path_buf(), message };
    let malformed = |message: String| MeshError::Malformed { path: path.to_path_buf(), message };
    // The parser is fuzzed upstream, but a panic on a malformed file must still become an error
    // naming the file rather than end the run.
    let parsed = catch_unwind_quietly(move || read_elements(BufReader::new(file)))
        .map_err(|_| ply_err("the reader failed on malformed content".into()))?;
    let (vertex_def, vertices, faces) = match parsed {
        Ok(x) => x,
        // The parser's messages span several tab-indented lines; one line reads better in a log.
        Err(ReadError::Parse(message)) => {
            return Err(ply_err(message.split_whitespace().collect::<Vec<_>>().join(" ")));
        }
        Err(ReadError::Content(message)) => return Err(malformed(message)),
    };
    let uv_pair = UV_NAMES.iter().position(|pair| pair.iter().all(|n| vertex_def.properties.contains_key(*n)));
    let positions: Vec<Vector3<f64>> = vertices.iter().map(|r| Vector3::from(r.xyz)).collect();
    let uvs = uv_pair.map(|k| vertices.iter().map(|r| r.uv[k]).collect());
    let mut triangles = Vec::with_capacity(faces.len());
    let mut corners = Vec::new();
    for (face, rec) in faces.iter().enumerate() {
        if rec.indices.len() < 3 {
            return Err(malformed(format!("face {face} has {} vertices; a face needs at least 3", rec.indices.len())));
        }
        corners.clear();
        for &i in &rec.indices {
            match usize::try_from(i).ok().filter(|&i| i < positions.len()) {
                Some(i) => corners.push(i),
                None => {
                    return Err(malformed(format!(
                        "face {face} refers to vertex {i}, but the file has {} vertices (valid indices are 0..={})",
                        positions.len(),
                        positions.len().saturating_sub(1)
                    )));
                }
            }
        }
        fan(&corners, &mut triangles);
    }
    Ok((positions, triangles, uvs))
}

enum ReadError {
    /// The PLY parser's own message (syntax, truncated payload, wrong property type).
    Parse(String),
    /// A well-formed PLY file without what a surface needs.
    Content(String),
}

/// Reads the header, checks that it describes a surface, and reads the payload up to the
/// `vertex` and `face` elements (elements before them are read and dropped, later ones skipped).
fn read_elements(mut source: BufReader<File>) -> Result<(ElementDef, Vec<Record>, Vec<Record>), ReadError> {
    // The parser's own message for a foreign file is a grammar dump; say it plainly instead.
    let start = source.fill_buf().map_err(|e| ReadError::Parse(e.to_string()))?;
    if !start.starts_with(b"ply") {
        return Err(ReadError::Content("the file does not start with 'ply', so it is not a PLY file".into()));
    }
    let parser = Parser::<Record>::new();
    let mut reader = Reader::new(source);
    let header = parser.read_header(&mut reader).map_err(|e| ReadError::Parse(e.to_string()))?;
    let vertex_def = header.elements.get("vertex").cloned().ok_or_else(|| {
        ReadError::Content("it has no 'vertex' element; a surface needs vertices with x, y, z".into())
    })?;
    if let Some(missing) = ["x", "y", "z"].iter().find(|n| !vertex_def.properties.contains_key(**n)) {
        return Err(ReadError::Content(format!(
            "the 'vertex' element has no property '{missing}'; x, y and z are required"
        )));
    }
    let face_def = header.elements.get("face").ok_or_else(|| {
        ReadError::Content(
            "it has no 'face' element; a surface needs faces (a point cloud cannot be used as a surface)".into(),
        )
    })?;
    let Some(list) = FACE_LISTS.iter().find_map(|n| face_def.properties.get(*n)) else {
        let found: Vec<&str> = face_def.properties.keys().map(String::as_str).collect();
        return Err(ReadError::Content(format!(
            "the 'face' element has no list property 'vertex_indices' or 'vertex_index' (found {found:?})"
        )));
    };
    match &list.data_type {
        PropertyType::List(_, ScalarType::Float | ScalarType::Double) | PropertyType::Scalar(_) => {
            return Err(ReadError::Content(format!(
                "the face property '{}' is {:?}; it must be a list of integers (e.g. 'property list uchar int {}')",
                list.name, list.data_type, list.name
            )));
        }
        PropertyType::List(..) => {}
    }
    let (mut vertices, mut faces) = (None, None);
    for (name, def) in &header.elements {
        let records =
            parser.read_payload_for_element(&mut reader, def, &header).map_err(|e| ReadError::Parse(e.to_string()))?;
        match name.as_str() {
            "vertex" => vertices = Some(records),
            "face" => faces = Some(records),
            _ => {}
        }
        if vertices.is_some() && faces.is_some() {
            break;
        }
    }
    // Both elements were found in the header, so both were read.
    Ok((vertex_def, vertices.unwrap_or_default(), faces.unwrap_or_default()))
}
