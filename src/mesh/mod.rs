//! Volumetric meshes: the tetrahedral mesh type, procedural primitives and file readers.

pub mod procedural;
pub mod tet;
pub mod vtk_read;

use std::path::PathBuf;

pub use procedural::{ball_tets, box_tets};
pub use tet::TetMesh;
pub use vtk_read::read_tet_mesh;

/// Why a mesh could not be built or read. Messages are written for the person who made the mesh
/// or the scene: what is wrong, where, and what is allowed.
#[derive(Debug, thiserror::Error)]
pub enum MeshError {
    #[error("the mesh has no tetrahedra; a solid needs at least one")]
    Empty,
    #[error(
        "tetrahedron {tet} refers to vertex {index}, but the mesh has only {vertex_count} \
         vertices (valid indices are 0..={max})",
        max = vertex_count.saturating_sub(1)
    )]
    IndexOutOfRange { tet: usize, index: usize, vertex_count: usize },
    #[error(
        "tetrahedron {tet} (vertices {nodes:?}) is degenerate: its volume {volume:.3e} is \
         negligible against its longest edge {edge:.3e} (|volume| must exceed {limit:.0e} × edge³); \
         flat or collapsed elements cannot be simulated"
    )]
    Degenerate { tet: usize, nodes: [usize; 4], volume: f64, edge: f64, limit: f64 },
    #[error("vertex {vertex} has a non-finite coordinate {coords:?}; coordinates must be finite numbers")]
    NonFiniteVertex { vertex: usize, coords: [f64; 3] },
    #[error(
        "vertex {vertex} is not used by any tetrahedron (it would have no mass); remove unused \
         points (e.g. ParaView's 'Clean' filter or meshio)"
    )]
    UnusedVertex { vertex: usize },
    #[error(
        "tetrahedra {first} and {second} overlap: they share the face {face:?} but are not on \
         opposite sides of it (or a third tet shares it); each face may bound at most two \
         tetrahedra, one on each side"
    )]
    OverlappingTets { first: usize, second: usize, face: [usize; 3] },
    #[error("invalid {name} = {value} for a procedural mesh: {allowed}")]
    InvalidParameter { name: &'static str, value: String, allowed: &'static str },
    #[error("cannot read mesh file '{}': {source}", path.display())]
    Io { path: PathBuf, source: std::io::Error },
    #[error(
        "mesh file '{}' has the extension {extension:?}; tetrahedral meshes are read from \
         '.vtk' (legacy, ASCII or binary) or '.vtu' (VTK XML unstructured grid)",
        path.display()
    )]
    UnsupportedExtension { path: PathBuf, extension: String },
    #[error(
        "mesh file '{}' could not be parsed as VTK ({message}); expected a legacy VTK file \
         (ASCII, or binary big-endian as VTK writes it) or a VTK XML unstructured grid",
        path.display()
    )]
    Vtk { path: PathBuf, message: String },
    #[error("mesh file '{}': {message}", path.display())]
    Malformed { path: PathBuf, message: String },
    #[error(
        "mesh file '{}': cell {index} is of type {cell_type}; only tetrahedra (VTK_TETRA, type \
         10) are supported (convert or remove other cells, e.g. boundary triangles, first)",
        path.display()
    )]
    NonTetCell { path: PathBuf, index: usize, cell_type: String },
    /// A mesh-validity error (see the other variants) found in the mesh read from a file.
    #[error("mesh file '{}': {source}", path.display())]
    InFile { path: PathBuf, source: Box<MeshError> },
}
