//! XML unstructured-grid files (`.vtu`) for ParaView, through vtkio 0.7.
//!
//! Data arrays are written inline in VTK's "binary" format (base64 of little-endian bytes, with
//! UInt64 headers), LZ4-compressed by default, which both ParaView and vtkio read. Values keep full `f64` precision: the
//! `.vtu` files are the exact record of a run (PLY surfaces are the compact rendering copy).
//! vtkio cannot write appended raw data, so base64 (4/3 of the raw size) is the most compact
//! uncompressed choice it offers.

use std::path::Path;

use vtkio::model::{
    Attribute, Attributes, ByteOrder, CellType, DataArray, DataSet, UnstructuredGridPiece, Version, VertexNumbers, Vtk,
};
use vtkio::xml::Compressor;

use super::OutputError;
use super::atomic::write_atomically;

/// Cell connectivity of one body, as indices into [`UnstructuredSnapshot::points`].
#[derive(Clone, Copy, Debug)]
pub enum Cells<'a> {
    /// Linear tetrahedra (elastic solids).
    Tetra(&'a [[usize; 4]]),
    /// Triangles (cloth, rigid-body surfaces).
    Triangle(&'a [[usize; 3]]),
    /// Two-node segments (rods).
    Line(&'a [[usize; 2]]),
    /// Single points (contact points).
    Vertex(&'a [[usize; 1]]),
}

impl Cells<'_> {
    /// Number of cells.
    pub fn len(&self) -> usize {
        match self {
            Cells::Tetra(c) => c.len(),
            Cells::Triangle(c) => c.len(),
            Cells::Line(c) => c.len(),
            Cells::Vertex(c) => c.len(),
        }
    }

    /// True if there are no cells.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    fn vtk_type(&self) -> CellType {
        match self {
            Cells::Tetra(_) => CellType::Tetra,
            Cells::Triangle(_) => CellType::Triangle,
            Cells::Line(_) => CellType::Line,
            Cells::Vertex(_) => CellType::Vertex,
        }
    }

    /// All vertex indices, cell after cell.
    fn flat(&self) -> &[usize] {
        match self {
            Cells::Tetra(c) => c.as_flattened(),
            Cells::Triangle(c) => c.as_flattened(),
            Cells::Line(c) => c.as_flattened(),
            Cells::Vertex(c) => c.as_flattened(),
        }
    }

    fn nodes_per_cell(&self) -> usize {
        match self {
            Cells::Tetra(_) => 4,
            Cells::Triangle(_) => 3,
            Cells::Line(_) => 2,
            Cells::Vertex(_) => 1,
        }
    }
}

/// One body at one instant: geometry plus named per-point and per-cell data.
///
/// Every point array must have one entry per point and every cell array one entry per cell;
/// [`write_vtu`] checks this and reports the offending array by name.
#[derive(Clone, Debug)]
pub struct UnstructuredSnapshot<'a> {
    /// Node positions.
    pub points: &'a [[f64; 3]],
    /// Connectivity.
    pub cells: Cells<'a>,
    /// Per-point 3-vectors, e.g. `("velocity", &v)`.
    pub point_vectors: Vec<(&'a str, &'a [[f64; 3]])>,
    /// Per-point scalars.
    pub point_scalars: Vec<(&'a str, &'a [f64])>,
    /// Per-cell scalars, e.g. strain energy density.
    pub cell_scalars: Vec<(&'a str, &'a [f64])>,
    /// Per-cell 3-vectors.
    pub cell_vectors: Vec<(&'a str, &'a [[f64; 3]])>,
}

impl<'a> UnstructuredSnapshot<'a> {
    /// A snapshot with geometry only; push data arrays onto the public fields.
    pub fn new(points: &'a [[f64; 3]], cells: Cells<'a>) -> Self {
        UnstructuredSnapshot {
            points,
            cells,
            point_vectors: Vec::new(),
            point_scalars: Vec::new(),
            cell_scalars: Vec::new(),
            cell_vectors: Vec::new(),
        }
    }
}

/// Compression of the inline binary arrays.
///
/// Measured with `benches/output.rs` (29,791 points, 135,000 tets, a point velocity and a cell
/// scalar; file data synced to disk; 2-core VM):
///
/// | compression | file size | write time |
/// |---|---|---|
/// | `None` | 10.7 MB | ~100-130 ms |
/// | `Lz4` (default) | 4.7 MB | ~50-70 ms |
/// | `Zlib { level: 1 }` | 2.8 MB | ~1000 ms |
///
/// LZ4 is both the fastest and less than half the size: base64-encoding and writing the
/// uncompressed bytes costs more than compressing them first. All three are read by ParaView
/// 5.11 (checked by `tests/output_paraview.rs`), VTK's Python module and vtkio; meshio needs the
/// Python `lz4` package for LZ4 files, so choose `None` or `Zlib` for meshio users without it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum VtuCompression {
    /// Plain base64.
    None,
    /// LZ4 (`vtkLZ4DataCompressor`): the fastest to write and half the size. The default.
    #[default]
    Lz4,
    /// zlib (`vtkZLibDataCompressor`) at `level` 1 (fastest) to 9 (smallest).
    Zlib {
        /// 1..=9.
        level: u32,
    },
}

/// Writes `s` to `path` (extension `.vtu`) atomically, with the default compression (LZ4, see
/// [`VtuCompression`]).
pub fn write_vtu(path: &Path, s: &UnstructuredSnapshot) -> Result<(), OutputError> {
    write_vtu_with(path, s, VtuCompression::default())
}

/// Writes `s` to `path` (extension `.vtu`) atomically with the given compression.
pub fn write_vtu_with(path: &Path, s: &UnstructuredSnapshot, compression: VtuCompression) -> Result<(), OutputError> {
    validate(path, s)?;
    let (compressor, level) = match compression {
        VtuCompression::None => (Compressor::None, 0),
        VtuCompression::Lz4 => (Compressor::LZ4, 1),
        VtuCompression::Zlib { level } => {
            if !(1..=9).contains(&level) {
                return Err(OutputError::invalid(path, format!("zlib compression level must be 1..=9, got {level}")));
            }
            (Compressor::ZLib, level)
        }
    };
    let xml = to_vtk(s).try_into_xml_format(compressor, level).map_err(|e| OutputError::encode(path, e))?;
    write_atomically(path, |out| xml.write(out).map_err(|e| OutputError::encode(path, e)))
}

fn validate(path: &Path, s: &UnstructuredSnapshot) -> Result<(), OutputError> {
    let n_points = s.points.len();
    let n_cells = s.cells.len();
    let check = |kind: &str, name: &str, len: usize, expected: usize, what: &str| {
        if len == expected {
            Ok(())
        } else {
            Err(OutputError::invalid(
                path,
                format!("{kind} array '{name}' has {len} entries but the mesh has {expected} {what}"),
            ))
        }
    };
    for (name, v) in &s.point_vectors {
        check("point", name, v.len(), n_points, "points")?;
    }
    for (name, v) in &s.point_scalars {
        check("point", name, v.len(), n_points, "points")?;
    }
    for (name, v) in &s.cell_vectors {
        check("cell", name, v.len(), n_cells, "cells")?;
    }
    for (name, v) in &s.cell_scalars {
        check("cell", name, v.len(), n_cells, "cells")?;
    }
    // An out-of-range index makes ParaView read garbage or crash, so refuse it here.
    if let Some(pos) = s.cells.flat().iter().position(|&i| i >= n_points) {
        let per = s.cells.nodes_per_cell();
        return Err(OutputError::invalid(
            path,
            format!("cell {} refers to point {} but the mesh has {n_points} points", pos / per, s.cells.flat()[pos]),
        ));
    }
    Ok(())
}

fn to_vtk(s: &UnstructuredSnapshot) -> Vtk {
    let per = s.cells.nodes_per_cell() as u64;
    let connectivity: Vec<u64> = s.cells.flat().iter().map(|&i| i as u64).collect();
    let offsets: Vec<u64> = (1..=s.cells.len() as u64).map(|c| c * per).collect();

    let mut point = Vec::with_capacity(s.point_vectors.len() + s.point_scalars.len());
    for (name, v) in &s.point_vectors {
        point.push(vector_attribute(name, v));
    }
    for (name, v) in &s.point_scalars {
        point.push(scalar_attribute(name, v));
    }
    let mut cell = Vec::with_capacity(s.cell_vectors.len() + s.cell_scalars.len());
    for (name, v) in &s.cell_vectors {
        cell.push(vector_attribute(name, v));
    }
    for (name, v) in &s.cell_scalars {
        cell.push(scalar_attribute(name, v));
    }

    Vtk {
        version: Version::Auto,
        byte_order: ByteOrder::LittleEndian,
        title: String::new(),
        file_path: None,
        data: DataSet::inline(UnstructuredGridPiece {
            points: s.points.as_flattened().to_vec().into(),
            cells: vtkio::model::Cells {
                cell_verts: VertexNumbers::XML { connectivity, offsets },
                types: vec![s.cells.vtk_type(); s.cells.len()],
            },
            data: Attributes { point, cell },
        }),
    }
}

fn vector_attribute(name: &str, v: &[[f64; 3]]) -> Attribute {
    Attribute::DataArray(DataArray::vectors(name).with_data(v.as_flattened().to_vec()))
}

fn scalar_attribute(name: &str, v: &[f64]) -> Attribute {
    Attribute::DataArray(DataArray::scalars(name, 1).with_data(v.to_vec()))
}
