//! Meshes: the tetrahedral mesh of a solid, the triangle surface mesh, procedural primitives and
//! file readers (VTK for tets; PLY and OBJ for surfaces).

pub mod embedding;
pub mod gltf_read;
mod obj_read;
mod ply_read;
pub mod polygon;
pub mod polyline_read;
pub mod procedural;
pub mod sequence;
pub mod tet;
pub mod thin;
pub mod trimesh;
pub mod vtk_read;

use std::path::PathBuf;

pub use procedural::{ball_tets, box_tets};
pub use tet::TetMesh;
pub use trimesh::{TriMesh, read_tri_mesh};
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
    #[error("the surface mesh has no triangles; a surface needs at least one face with 3 or more vertices")]
    NoTriangles,
    #[error(
        "triangle {triangle} refers to vertex {index}, but the mesh has only {vertex_count} \
         vertices (valid indices are 0..={max})",
        max = vertex_count.saturating_sub(1)
    )]
    TriangleIndexOutOfRange { triangle: usize, index: usize, vertex_count: usize },
    #[error(
        "all {triangles} triangles have zero area (every face is a point or a line segment, to \
         round-off); a surface needs at least one triangle with a non-zero area"
    )]
    DegenerateSurface { triangles: usize },
    #[error("vertex {vertex} has a non-finite texture coordinate {uv:?}; UVs must be finite numbers")]
    NonFiniteUv { vertex: usize, uv: [f64; 2] },
    #[error("the mesh has {uvs} texture coordinates for {vertices} vertices; give exactly one UV per vertex")]
    UvCountMismatch { uvs: usize, vertices: usize },
    #[error(
        "surface mesh file '{}' has the extension {extension:?}; triangle surfaces are read from \
         '.ply' (ASCII or binary) or '.obj' (Wavefront)",
        path.display()
    )]
    UnsupportedSurfaceExtension { path: PathBuf, extension: String },
    /// A syntax or content error at a known line of a text mesh file (OBJ).
    #[error("mesh file '{}', line {line}: {message}", path.display())]
    AtLine { path: PathBuf, line: usize, message: String },
    #[error(
        "mesh file '{}' could not be parsed as PLY ({message}); expected a PLY file (ASCII or \
         binary) with a 'vertex' element (properties x, y, z) and a 'face' element (a list \
         property vertex_indices or vertex_index)",
        path.display()
    )]
    Ply { path: PathBuf, message: String },
    #[error(
        "polyline file '{}' has the extension {extension:?}; rod polylines are read from '.vtk' \
         (legacy POLYDATA with LINES), '.vtp' (VTK XML poly data with Lines) or '.ply' (a vertex \
         element and an edge element with vertex1, vertex2)",
        path.display()
    )]
    UnsupportedPolylineExtension { path: PathBuf, extension: String },
}

/// Whether `path` names a glTF 2.0 file (`.gltf` or `.glb`, any case).
pub fn is_gltf(path: &str) -> bool {
    let ext = std::path::Path::new(path).extension().and_then(|e| e.to_str()).map(str::to_ascii_lowercase);
    matches!(ext.as_deref(), Some("gltf" | "glb"))
}
