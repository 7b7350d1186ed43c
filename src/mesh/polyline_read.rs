//! Reading rod polylines from files.
//!
//! Accepted layouts:
//! - VTK poly data, legacy `.vtk` (ASCII or binary) or XML `.vtp`: `POINTS` and `LINES`; every
//!   line cell (a VTK poly-line) is one rod, from its first point to its last. Files with
//!   vertices, polygons or triangle strips are rejected (they are not rods), as are other
//!   dataset kinds.
//! - PLY (ASCII or binary): a `vertex` element with `x, y, z` and an `edge` element with
//!   integer `vertex1, vertex2`. Edges are chained into polylines along their direction
//!   (`vertex1 -> vertex2`): each rod starts at a vertex that begins an edge and ends none, so
//!   every vertex may begin at most one edge and end at most one, and closed loops are refused.
//!   Rods are listed in the order of their first vertex. Other elements and properties are
//!   skipped; vertices used by no edge are ignored.
//!
//! Every error names the file and what is wrong with it.

use std::fs::File;
use std::io::{BufRead, BufReader};
use std::path::Path;

use nalgebra::Vector3;
use ply_rs_bw::parser::{Parser, Reader};
use ply_rs_bw::ply::{Property, PropertyAccess, PropertyAccessResult, PropertyType};
use vtkio::model::DataSet;

use super::MeshError;
use super::vtk_read::{catch_unwind_quietly, cell_lists};

/// Polylines (one per rod) in file coordinates.
pub type Polylines = Vec<Vec<Vector3<f64>>>;

/// Reads the polylines of a `.vtk`, `.vtp` or `.ply` file (see the module documentation).
pub fn read_polylines(path: &Path) -> Result<Polylines, MeshError> {
    let extension = path.extension().and_then(|e| e.to_str()).unwrap_or("").to_ascii_lowercase();
    let lines = match extension.as_str() {
        "vtk" | "vtp" => read_vtk(path)?,
        "ply" => read_ply(path)?,
        _ => return Err(MeshError::UnsupportedPolylineExtension { path: path.to_path_buf(), extension }),
    };
    if lines.is_empty() {
        return Err(malformed(path, "it contains no polyline".into()));
    }
    if let Some((k, i)) = lines
        .iter()
        .enumerate()
        .find_map(|(k, l)| l.iter().position(|x| !x.iter().all(|c| c.is_finite())).map(|i| (k, i)))
    {
        return Err(malformed(path, format!("point {i} of polyline {k} has a non-finite coordinate")));
    }
    Ok(lines)
}

fn malformed(path: &Path, message: String) -> MeshError {
    MeshError::Malformed { path: path.to_path_buf(), message }
}

fn read_vtk(path: &Path) -> Result<Polylines, MeshError> {
    // Check existence ourselves: vtkio's I/O errors do not name the file.
    if let Err(source) = std::fs::metadata(path) {
        return Err(MeshError::Io { path: path.to_path_buf(), source });
    }
    let vtk_err = |message: String| {
        malformed(path, format!("could not be parsed as VTK poly data ({message}); expected POINTS and LINES"))
    };
    // vtkio converts some malformed inputs with `unwrap`; a panic there becomes an error.
    let vtk = catch_unwind_quietly(|| vtkio::Vtk::import(path))
        .map_err(|_| vtk_err("the reader failed on malformed content".into()))?
        .map_err(|e| vtk_err(e.to_string()))?;
    let DataSet::PolyData { pieces, .. } = vtk.data else {
        return Err(malformed(path, "it is not poly data; rods are read from POLYDATA with LINES".into()));
    };
    let mut out = Vec::new();
    for piece in pieces {
        let piece = piece.into_loaded_piece_data(path.parent()).map_err(|e| vtk_err(e.to_string()))?;
        for (what, present) in [
            ("vertices", piece.verts.is_some()),
            ("polygons", piece.polys.is_some()),
            ("triangle strips", piece.strips.is_some()),
        ] {
            if present {
                return Err(malformed(path, format!("it has {what}; only LINES (one poly-line per rod) are accepted")));
            }
        }
        let coords: Vec<f64> =
            piece.points.cast_into().ok_or_else(|| malformed(path, "point coordinates are not numbers".into()))?;
        if !coords.len().is_multiple_of(3) {
            return Err(malformed(path, format!("{} point coordinates is not a multiple of 3", coords.len())));
        }
        let points: Vec<Vector3<f64>> = coords.chunks_exact(3).map(|c| Vector3::new(c[0], c[1], c[2])).collect();
        let Some(lines) = piece.lines else { continue };
        for cell in cell_lists(path, lines)? {
            let k = out.len();
            if cell.len() < 2 {
                return Err(malformed(path, format!("line {k} has {} point(s); a rod needs at least 2", cell.len())));
            }
            let line = cell
                .iter()
                .map(|&i| {
                    points.get(i).copied().ok_or_else(|| {
                        malformed(
                            path,
                            format!("line {k} refers to point {i}, but the piece has {} points", points.len()),
                        )
                    })
                })
                .collect::<Result<Vec<_>, _>>()?;
            out.push(line);
        }
    }
    if out.is_empty() {
        return Err(malformed(path, "it has no LINES; rods are read from POLYDATA line cells".into()));
    }
    Ok(out)
}

/// A `vertex` or `edge` record; only the fields of its kind are filled.
#[derive(Default)]
struct Record {
    xyz: [f64; 3],
    ends: [Option<i64>; 2],
}

impl PropertyAccess for Record {
    fn new() -> Self {
        Record::default()
    }

    fn set_property(&mut self, name: &str, p: Property) -> PropertyAccessResult {
        let slot = match name {
            "x" => 0,
            "y" => 1,
            "z" => 2,
            "vertex1" => 3,
            "vertex2" => 4,
            _ => return PropertyAccessResult::Ignored,
        };
        let value = match p {
            Property::Char(x) => f64::from(x),
            Property::UChar(x) => f64::from(x),
            Property::Short(x) => f64::from(x),
            Property::UShort(x) => f64::from(x),
            Property::Int(x) => f64::from(x),
            Property::UInt(x) => f64::from(x),
            Property::Float(x) if slot < 3 => f64::from(x),
            Property::Double(x) if slot < 3 => x,
            _ => return PropertyAccessResult::UnsupportedType,
        };
        if slot < 3 {
            self.xyz[slot] = value;
        } else {
            // An integer property, so the value is exact.
            self.ends[slot - 3] = Some(value as i64);
        }
        PropertyAccessResult::Set
    }
}

fn read_ply(path: &Path) -> Result<Polylines, MeshError> {
    let file = File::open(path).map_err(|source| MeshError::Io { path: path.to_path_buf(), source })?;
    // The parser is fuzzed upstream, but a panic on a malformed file must still become an error.
    let parsed = catch_unwind_quietly(move || ply_elements(BufReader::new(file)))
        .map_err(|_| malformed(path, "the PLY reader failed on malformed content".into()))?;
    let (vertices, edges) = parsed.map_err(|m| malformed(path, m))?;
    let n = vertices.len();
    // next[i] / prev[i]: the edge leaving / entering vertex i.
    let (mut next, mut prev) = (vec![usize::MAX; n], vec![usize::MAX; n]);
    for (e, rec) in edges.iter().enumerate() {
        let [a, b] = rec.ends.map(|v| v.and_then(|v| usize::try_from(v).ok()).filter(|&v| v < n));
        let (Some(a), Some(b)) = (a, b) else {
            return Err(malformed(
                path,
                format!(
                    "edge {e} refers to vertex {:?} -> {:?}, but the file has {n} vertices (valid indices are 0..={})",
                    rec.ends[0],
                    rec.ends[1],
                    n.saturating_sub(1)
                ),
            ));
        };
        if a == b {
            return Err(malformed(path, format!("edge {e} joins vertex {a} to itself")));
        }
        if next[a] != usize::MAX {
            return Err(malformed(
                path,
                format!("vertex {a} begins two edges ({} and {e}); rods cannot branch", next[a]),
            ));
        }
        if prev[b] != usize::MAX {
            return Err(malformed(
                path,
                format!(
                    "vertex {b} ends two edges ({} and {e}); rods cannot merge (edges must run vertex1 -> vertex2 \
                     along each rod)",
                    prev[b]
                ),
            ));
        }
        next[a] = e;
        prev[b] = e;
    }
    let to = |e: usize| edges[e].ends[1].map_or(usize::MAX, |v| v as usize);
    let mut out = Vec::new();
    let mut walked = vec![false; n];
    for start in (0..n).filter(|&i| next[i] != usize::MAX && prev[i] == usize::MAX) {
        // No vertex has two incoming edges and the start has none, so the walk cannot cycle.
        let mut line = vec![Vector3::from(vertices[start].xyz)];
        let mut i = start;
        walked[i] = true;
        while next[i] != usize::MAX {
            i = to(next[i]);
            walked[i] = true;
            line.push(Vector3::from(vertices[i].xyz));
        }
        out.push(line);
    }
    // Edges not reached from any start lie on closed loops.
    if let Some(v) = (0..n).find(|&i| next[i] != usize::MAX && !walked[i]) {
        return Err(malformed(
            path,
            format!("the edges through vertex {v} form a closed loop; rods must be open polylines"),
        ));
    }
    Ok(out)
}

/// The `vertex` and `edge` records of a PLY file (an error message otherwise).
fn ply_elements(mut source: BufReader<File>) -> Result<(Vec<Record>, Vec<Record>), String> {
    let start = source.fill_buf().map_err(|e| e.to_string())?;
    if !start.starts_with(b"ply") {
        return Err("the file does not start with 'ply', so it is not a PLY file".into());
    }
    let parser = Parser::<Record>::new();
    let mut reader = Reader::new(source);
    let header = parser.read_header(&mut reader).map_err(|e| one_line(&e))?;
    let vertex = header.elements.get("vertex").ok_or("it has no 'vertex' element (with x, y, z)")?;
    if let Some(missing) = ["x", "y", "z"].iter().find(|n| !vertex.properties.contains_key(**n)) {
        return Err(format!("the 'vertex' element has no property '{missing}'; x, y and z are required"));
    }
    let edge = header.elements.get("edge").ok_or(
        "it has no 'edge' element; rods are read from an 'edge' element with vertex1 and vertex2 (a PLY \
         surface with faces is not a set of rods)",
    )?;
    for name in ["vertex1", "vertex2"] {
        match edge.properties.get(name).map(|p| &p.data_type) {
            None => return Err(format!("the 'edge' element has no property '{name}'")),
            Some(PropertyType::Scalar(t))
                if !matches!(t, ply_rs_bw::ply::ScalarType::Float | ply_rs_bw::ply::ScalarType::Double) => {}
            Some(t) => return Err(format!("the edge property '{name}' is {t:?}; it must be an integer scalar")),
        }
    }
    let (mut vertices, mut edges) = (None, None);
    for (name, def) in &header.elements {
        let records =
            parser.read_payload_for_element(&mut reader, def, &header).map_err(|e| one_line(&e.to_string()))?;
        match name.as_str() {
            "vertex" => vertices = Some(records),
            "edge" => edges = Some(records),
            _ => {}
        }
        if vertices.is_some() && edges.is_some() {
            break;
        }
    }
    Ok((vertices.unwrap_or_default(), edges.unwrap_or_default()))
}

/// The parser's messages span several tab-indented lines; one line reads better in a log.
fn one_line(e: &impl std::fmt::Display) -> String {
    format!("could not be parsed as PLY: {}", e.to_string().split_whitespace().collect::<Vec<_>>().join(" "))
}
