//! An `Embedded` solid mesh (004's non-conforming solids): the closed surface read and checked,
//! its cage (a voxel grid's or a file's tets), each surface vertex's place in the cage, and the
//! cage's lumped masses.

use super::schema::CageSpec;
use super::{LoadedScene, SceneError, error_at, resolve_path};
use crate::mesh::embedding::{embed, occupancy, voxel_cage};
use crate::mesh::{TetMesh, tet::signed_volume, vtk_read};
use crate::rigid::SurfaceMesh;

/// A cage tet's mass counts at least this fraction of a full tet's: a tet the surface barely
/// enters would otherwise give its corner nodes almost no mass against the whole tet's
/// stiffness (the stiff, light nodes a Newton step and the contact solver resolve worst).
const MIN_OCCUPANCY: f64 = 0.1;

/// The parts of an embedded solid, in the mesh's own frame.
pub struct EmbeddedMesh {
    pub cage: TetMesh,
    /// The surface's vertices and outward triangles.
    pub surface: SurfaceMesh,
    /// Per surface vertex: its cage tet and barycentric weights.
    pub places: Vec<(usize, [f64; 4])>,
    /// Per cage vertex: its lumped mass (kg), summing to density × the enclosed volume.
    pub masses: Vec<f64>,
    pub surface_volume: f64,
}

/// Reads `surface` (times `scale`) and builds its cage; errors name `field` and the files.
pub fn read(
    loaded: &LoadedScene,
    field: &str,
    (surface, scale): (&str, f64),
    cage: &CageSpec,
    density: f64,
) -> Result<EmbeddedMesh, SceneError> {
    let file = &loaded.path;
    let full = resolve_path(&loaded.base_dir, surface);
    let mesh = super::rigid::read_mesh(loaded, &format!("{field}.mesh.surface"), surface, scale)?;
    let surface = SurfaceMesh::new(mesh.vertices, mesh.triangles).map_err(|e| {
        error_at(
            file,
            &format!("{field}.mesh.surface"),
            format!(
                "{}: cannot be embedded: {e} (the surface must be closed, consistently oriented and not cross \
                 itself)",
                full.display()
            ),
        )
    })?;
    let cage_mesh = match cage {
        CageSpec::Grid { cell } => voxel_cage(&surface, *cell)
            .map_err(|e| error_at(file, &format!("{field}.mesh.cage.cell"), e.to_string()))?,
        CageSpec::File { path, scale } => {
            let mut m = vtk_read::read_tet_mesh(&resolve_path(&loaded.base_dir, path))
                .map_err(|e| error_at(file, &format!("{field}.mesh.cage.path"), e.to_string()))?;
            m.vertices.iter_mut().for_each(|x| *x *= *scale);
            m
        }
    };
    let places = embed(&cage_mesh, &surface.vertices).map_err(|e| {
        error_at(file, &format!("{field}.mesh.cage"), format!("{e}: the cage must contain the whole surface"))
    })?;
    // The exact polyhedral integrals at unit density: the mass is the volume.
    let surface_volume = crate::rigid::mass::polyhedron(&surface.vertices, &surface.triangles, 1.0).mass;
    let masses = lumped_masses(&cage_mesh, &occupancy(&cage_mesh, &surface), density * surface_volume);
    Ok(EmbeddedMesh { cage: cage_mesh, surface, places, masses, surface_volume })
}

/// Each cage tet's mass in proportion to its volume inside the surface (at least
/// [`MIN_OCCUPANCY`] of it), a quarter to each corner, all scaled to `total`.
fn lumped_masses(cage: &TetMesh, occupancy: &[f64], total: f64) -> Vec<f64> {
    let mut m = vec![0.0; cage.vertices.len()];
    for (t, occ) in cage.tets.iter().zip(occupancy) {
        let share = signed_volume(t.map(|i| &cage.vertices[i])).abs() * occ.max(MIN_OCCUPANCY) / 4.0;
        t.iter().for_each(|&i| m[i] += share);
    }
    let scale = total / m.iter().sum::<f64>();
    m.iter_mut().for_each(|x| *x *= scale);
    m
}
