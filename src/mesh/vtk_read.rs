//! Reading tetrahedral meshes from VTK files (via vtkio): legacy `.vtk` (ASCII or binary) and
//! XML `.vtu` (raw, base64 or compressed) unstructured grids.

use std::path::Path;

use nalgebra::Vector3;
use vtkio::model::{CellType, DataSet, UnstructuredGridPiece, VertexNumbers};

use super::{MeshError, TetMesh};

/// Reads an unstructured grid made only of tetrahedra (VTK_TETRA) and validates it with
/// [`TetMesh::new`] (negatively oriented tets are reoriented). Several pieces are concatenated.
///
/// Every error names the file; a non-tet cell is reported with its index and type.
pub fn read_tet_mesh(path: &Path) -> Result<TetMesh, MeshError> {
    let extension = path.extension().and_then(|e| e.to_str()).unwrap_or("").to_ascii_lowercase();
    if extension != "vtk" && extension != "vtu" {
        return Err(MeshError::UnsupportedExtension { path: path.to_path_buf(), extension });
    }
    // Check existence ourselves: vtkio's I/O errors do not name the file.
    if let Err(source) = std::fs::metadata(path) {
        return Err(MeshError::Io { path: path.to_path_buf(), source });
    }
    let vtk_err = |message: String| MeshError::Vtk { path: path.to_path_buf(), message };
    // vtkio converts some malformed inputs with `unwrap`; a panic there must not take the whole
    // run down, and becomes an error naming the file.
    let vtk = catch_unwind_quietly(|| vtkio::Vtk::import(path))
        .map_err(|_| vtk_err("the reader failed on malformed content".into()))?
        .map_err(|e| vtk_err(e.to_string()))?;
    let pieces = match vtk.data {
        DataSet::UnstructuredGrid { pieces, .. } => pieces,
        other => {
            let kind = match other {
                DataSet::ImageData { .. } => "image data (structured points)",
                DataSet::StructuredGrid { .. } => "a structured grid",
                DataSet::RectilinearGrid { .. } => "a rectilinear grid",
                DataSet::PolyData { .. } => "poly data (a surface, not a volume mesh)",
                _ => "a field",
            };
            return Err(malformed(path, format!("it contains {kind}; an unstructured grid of tetrahedra is required")));
        }
    };
    let mut vertices = Vec::new();
    let mut tets = Vec::new();
    let mut cell_base = 0;
    for piece in pieces {
        let piece = piece.into_loaded_piece_data(path.parent()).map_err(|e| vtk_err(e.to_string()))?;
        cell_base += append_piece(path, piece, cell_base, &mut vertices, &mut tets)?;
    }
    TetMesh::new(vertices, tets).map_err(|e| MeshError::InFile { path: path.to_path_buf(), source: Box::new(e) })
}

/// `catch_unwind` without the default hook's "thread panicked at ..." message and backtrace on
/// stderr: the caught panic becomes an ordinary error message. The hook is process-wide, so the
/// swap is serialized; other threads' panics in that short window also go unprinted.
pub(super) fn catch_unwind_quietly<T>(f: impl FnOnce() -> T + std::panic::UnwindSafe) -> std::thread::Result<T> {
    static HOOK: std::sync::Mutex<()> = std::sync::Mutex::new(());
    let _guard = HOOK.lock().unwrap_or_else(|e| e.into_inner());
    let hook = std::panic::take_hook();
    std::panic::set_hook(Box::new(|_| {}));
    let result = std::panic::catch_unwind(f);
    std::panic::set_hook(hook);
    result
}

fn malformed(path: &Path, message: String) -> MeshError {
    MeshError::Malformed { path: path.to_path_buf(), message }
}

/// Appends one piece's points and tets; returns its number of cells. `cell_base` is the global
/// index of its first cell (for messages).
fn append_piece(
    path: &Path,
    piece: UnstructuredGridPiece,
    cell_base: usize,
    vertices: &mut Vec<Vector3<f64>>,
    tets: &mut Vec<[usize; 4]>,
) -> Result<usize, MeshError> {
    let coords: Vec<f64> =
        piece.points.cast_into().ok_or_else(|| malformed(path, "point coordinates are not numbers".into()))?;
    if !coords.len().is_multiple_of(3) {
        return Err(malformed(path, format!("{} point coordinates is not a multiple of 3", coords.len())));
    }
    let vertex_base = vertices.len();
    vertices.extend(coords.chunks_exact(3).map(|c| Vector3::new(c[0], c[1], c[2])));

    let types = &piece.cells.types;
    let cells = cell_lists(path, piece.cells.cell_verts)?;
    if cells.len() != types.len() {
        return Err(malformed(path, format!("{} cells but {} cell types", cells.len(), types.len())));
    }
    for (i, (verts, ty)) in cells.iter().zip(types).enumerate() {
        let index = cell_base + i;
        if *ty != CellType::Tetra {
            return Err(MeshError::NonTetCell {
                path: path.to_path_buf(),
                index,
                cell_type: format!("{ty:?} (VTK type {})", *ty as u8),
            });
        }
        let t: [usize; 4] = verts
            .as_slice()
            .try_into()
            .map_err(|_| malformed(path, format!("tetrahedron {index} has {} vertices instead of 4", verts.len())))?;
        // Out-of-range indices are reported by TetMesh::new (with the index and the count).
        tets.push(t.map(|v| v.saturating_add(vertex_base)));
    }
    Ok(types.len())
}

/// Splits vtkio's cell connectivity (legacy counts or XML offsets) into per-cell vertex lists,
/// checking every length (vtkio's own conversions panic on inconsistent data).
pub(super) fn cell_lists(path: &Path, cv: VertexNumbers) -> Result<Vec<Vec<usize>>, MeshError> {
    let to_usize = |v: u64| usize::try_from(v).unwrap_or(usize::MAX);
    let truncated = || malformed(path, "the cell connectivity is truncated or inconsistent".into());
    let mut out = Vec::new();
    match cv {
        VertexNumbers::Legacy { num_cells, vertices } => {
            let mut it = vertices.into_iter();
            for _ in 0..num_cells {
                let n = it.next().ok_or_else(truncated)? as usize;
                let cell: Vec<usize> = it.by_ref().take(n).map(|v| v as usize).collect();
                if cell.len() != n {
                    return Err(truncated());
                }
                out.push(cell);
            }
        }
        VertexNumbers::XML { connectivity, offsets } => {
            // Offsets are cell ends; some writers add a leading 0.
            let mut start = 0usize;
            let skip = usize::from(offsets.first() == Some(&0) && !connectivity.is_empty());
            for &end in &offsets[skip..] {
                let end = to_usize(end);
                if end < start || end > connectivity.len() {
                    return Err(truncated());
                }
                out.push(connectivity[start..end].iter().map(|&v| to_usize(v)).collect());
                start = end;
            }
        }
    }
    Ok(out)
}
