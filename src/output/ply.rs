//! Binary little-endian PLY surfaces (triangles), through ply-rs-bw's typed element writer.
//!
//! Layout of a file:
//! ```text
//! element vertex N
//! property float x / y / z
//! property float <name>_x / <name>_y / <name>_z    (one triple per vertex vector, in order)
//! element face M
//! property list uchar uint vertex_indices
//! ```
//!
//! Coordinates are `float` (f32) by default: PLY is the rendering and interchange copy of a
//! surface (Blender, MeshLab, Houdini, three.js, ParaView all read `float`; `double` support is
//! patchier), and f32 keeps ~7 significant digits, i.e. 0.1 µm on a 1 m scene, at half the
//! size. The exact f64 record of a run is the `.vtu` file. [`PlyPrecision::Double`] is there for
//! users who want exact surfaces.
//!
//! Elements are streamed one at a time from the caller's slices (no per-element map, no copy of
//! the mesh): crates.md measured the `DefaultElement` path 30x slower.

use std::io::Write;
use std::path::Path;

use ply_rs_bw::ply::{Addable, ElementDef, Encoding, Header, PropertyAccess, PropertyDef, PropertyType, ScalarType};
use ply_rs_bw::writer::Writer;

use super::OutputError;
use super::atomic::write_atomically;

/// Scalar type of vertex coordinates and vertex vectors in the file.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum PlyPrecision {
    /// `float` (f32): compact, universally readable. The default.
    #[default]
    Float,
    /// `double` (f64): exact.
    Double,
}

/// Writes a triangle surface as binary little-endian PLY with `float` coordinates, atomically.
///
/// Each `(name, values)` in `vertex_vectors` becomes three vertex properties `name_x`,
/// `name_y`, `name_z` (e.g. `velocity_x`); `values` must have one entry per point.
pub fn write_ply(
    path: &Path,
    points: &[[f64; 3]],
    triangles: &[[usize; 3]],
    vertex_vectors: &[(&str, &[[f64; 3]])],
) -> Result<(), OutputError> {
    write_ply_with(path, points, triangles, vertex_vectors, PlyPrecision::Float)
}

/// As [`write_ply`], with a choice of coordinate precision.
pub fn write_ply_with(
    path: &Path,
    points: &[[f64; 3]],
    triangles: &[[usize; 3]],
    vertex_vectors: &[(&str, &[[f64; 3]])],
    precision: PlyPrecision,
) -> Result<(), OutputError> {
    let columns = validate(path, points, triangles, vertex_vectors)?;
    let header = header(points.len(), triangles.len(), &columns, precision);
    let source = Source { points, vectors: vertex_vectors, columns: &columns };
    let writer = Writer::<Item>::new();
    let vertex_def = &header.elements["vertex"];
    let face_def = &header.elements["face"];
    write_atomically(path, |out| {
        let io = |e| OutputError::io(path, "writing", e);
        writer.write_header(out, &header).map_err(io)?;
        for index in 0..points.len() {
            let v = Item::Vertex { index, src: &source };
            writer.write_little_endian_element(out, &v, vertex_def).map_err(io)?;
        }
        for t in triangles {
            // `validate` checked every index < points.len() <= u32::MAX, so the cast is exact.
            let f = Item::Face([t[0] as u32, t[1] as u32, t[2] as u32]);
            writer.write_little_endian_element(out, &f, face_def).map_err(io)?;
        }
        out.flush().map_err(io)
    })
}

/// Where a vertex property's value comes from.
#[derive(Clone, Copy, Debug)]
enum Column {
    /// Component of the position.
    Position(usize),
    /// Component `.1` of vertex vector number `.0`.
    Vector(usize, usize),
}

fn validate(
    path: &Path,
    points: &[[f64; 3]],
    triangles: &[[usize; 3]],
    vectors: &[(&str, &[[f64; 3]])],
) -> Result<Vec<(String, Column)>, OutputError> {
    if points.len() > u32::MAX as usize {
        return Err(OutputError::invalid(
            path,
            format!("{} points do not fit PLY's uint vertex indices", points.len()),
        ));
    }
    if let Some((t, tri)) = triangles.iter().enumerate().find(|(_, t)| t.iter().any(|&i| i >= points.len())) {
        return Err(OutputError::invalid(
            path,
            format!("triangle {t} {tri:?} refers to a point beyond the {} points", points.len()),
        ));
    }
    let mut columns: Vec<(String, Column)> =
        ["x", "y", "z"].iter().enumerate().map(|(k, n)| (n.to_string(), Column::Position(k))).collect();
    for (v, (name, values)) in vectors.iter().enumerate() {
        if name.is_empty() || !name.chars().all(|c| c.is_ascii_graphic()) {
            return Err(OutputError::invalid(
                path,
                format!("vertex vector name {name:?} is not a PLY property name (printable ASCII, no spaces)"),
            ));
        }
        if values.len() != points.len() {
            return Err(OutputError::invalid(
                path,
                format!(
                    "vertex vector '{name}' has {} entries but the surface has {} points",
                    values.len(),
                    points.len()
                ),
            ));
        }
        for (k, axis) in ["x", "y", "z"].iter().enumerate() {
            let column = format!("{name}_{axis}");
            if columns.iter().any(|(c, _)| *c == column) {
                return Err(OutputError::invalid(path, format!("vertex property '{column}' would appear twice")));
            }
            columns.push((column, Column::Vector(v, k)));
        }
    }
    Ok(columns)
}

fn header(n_points: usize, n_triangles: usize, columns: &[(String, Column)], precision: PlyPrecision) -> Header {
    let scalar = match precision {
        PlyPrecision::Float => ScalarType::Float,
        PlyPrecision::Double => ScalarType::Double,
    };
    let mut header = Header::new();
    header.encoding = Encoding::BinaryLittleEndian;
    header.comments.push(format!("written by fricsim {}", env!("CARGO_PKG_VERSION")));
    let mut vertex = ElementDef::new("vertex".to_string());
    vertex.count = n_points;
    for (name, _) in columns {
        vertex.properties.add(PropertyDef::new(name.clone(), PropertyType::Scalar(scalar.clone())));
    }
    let mut face = ElementDef::new("face".to_string());
    face.count = n_triangles;
    face.properties
        .add(PropertyDef::new("vertex_indices".to_string(), PropertyType::List(ScalarType::UChar, ScalarType::UInt)));
    header.elements.add(vertex);
    header.elements.add(face);
    header
}

/// The caller's arrays, shared by all vertex items.
struct Source<'a> {
    points: &'a [[f64; 3]],
    vectors: &'a [(&'a str, &'a [[f64; 3]])],
    columns: &'a [(String, Column)],
}

impl Source<'_> {
    fn value(&self, index: usize, property: &str) -> Option<f64> {
        let (_, column) = self.columns.iter().find(|(n, _)| n == property)?;
        Some(match *column {
            Column::Position(k) => self.points[index][k],
            Column::Vector(v, k) => self.vectors[v].1[index][k],
        })
    }
}

/// A typed PLY element that borrows its values instead of owning a property map.
enum Item<'a> {
    Vertex { index: usize, src: &'a Source<'a> },
    Face([u32; 3]),
}

impl PropertyAccess for Item<'_> {
    fn new() -> Self {
        // Only the reader calls `new`; we never read with this type.
        Item::Face([0; 3])
    }

    fn get_float(&self, property_name: &str) -> Option<f32> {
        self.get_double(property_name).map(|x| x as f32)
    }

    fn get_double(&self, property_name: &str) -> Option<f64> {
        match self {
            Item::Vertex { index, src } => src.value(*index, property_name),
            Item::Face(_) => None,
        }
    }

    fn get_list_uint(&self, property_name: &str) -> Option<&[u32]> {
        match self {
            Item::Face(f) if property_name == "vertex_indices" => Some(f),
            _ => None,
        }
    }
}
