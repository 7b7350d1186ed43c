//! Rigid bodies of a scene: shape, mass properties, pose and scripted motion.

use super::build::{motion, rotation_from_degrees};
use super::schema::{RigidShapeSpec, RigidSpec, StructureSpec};
use super::{LoadedScene, SceneError, error_at};
use crate::friction::texture::StructureTexture;
use crate::mesh::TriMesh;
use crate::model::{Rigid, Structure, TexturedSurface};
use crate::rigid::{ConvexMesh, MassProperties, RigidBody, RigidShape, SurfaceMesh};
use nalgebra::{Quaternion, Rotation3, UnitQuaternion, Vector3};
use std::collections::HashMap;
use std::sync::Arc;

/// Segments around a circle in the output surfaces of round shapes.
const OUTPUT_SEGMENTS: usize = 32;

/// The shape in its own frame, before recentering on the center of mass; for a `Mesh` shape
/// also the surface as read (kept for texture lookups, so the file is read once).
fn shape(
    loaded: &LoadedScene,
    field: &str,
    spec: &RigidShapeSpec,
) -> Result<(RigidShape, Option<TriMesh>), SceneError> {
    let file = &loaded.path;
    let shape = match spec {
        RigidShapeSpec::Box { size } => RigidShape::Box { half: Vector3::from(*size) * 0.5 },
        RigidShapeSpec::Sphere { radius } => RigidShape::Sphere { radius: *radius },
        RigidShapeSpec::Cylinder { radius, length } => {
            RigidShape::Cylinder { radius: *radius, half_length: 0.5 * length }
        }
        RigidShapeSpec::Capsule { radius, length } => {
            RigidShape::Capsule { radius: *radius, half_length: 0.5 * length }
        }
        RigidShapeSpec::Prism { profile, length } => match ConvexMesh::prism(profile, 0.5 * length) {
            Ok(hull) => RigidShape::ConvexMesh(hull),
            Err(_) => {
                let at = format!("{field}.shape.profile");
                let (v, t) = crate::mesh::polygon::extrude(profile, 0.5 * length)
                    .map_err(|e| error_at(file, &at, format!("not a simple polygon with an area: {e}")))?;
                let closed = SurfaceMesh::new(v, t)
                    .map_err(|e| error_at(file, &at, format!("not a simple polygon (its extrusion: {e})")))?;
                RigidShape::NonConvex(Arc::new(closed))
            }
        },
        RigidShapeSpec::Mesh { path, scale } => {
            let mesh = read_mesh(loaded, &format!("{field}.shape.path"), path, *scale)?;
            let full = super::resolve_path(&loaded.base_dir, path);
            let closed = SurfaceMesh::new(mesh.vertices.clone(), mesh.triangles.clone()).map_err(|e| {
                error_at(
                    file,
                    &format!("{field}.shape.path"),
                    format!(
                        "{}: cannot bound a rigid body: {e} (a rigid mesh must be closed, consistently oriented \
                         and not cross itself)",
                        full.display()
                    ),
                )
            })?;
            // A convex mesh keeps the separating-axis contacts (whole-face manifolds, the same
            // points every step); any other closed mesh is sampled against distances.
            let shape = match ConvexMesh::new(closed.vertices.clone(), closed.triangles.clone()) {
                Ok(hull) => RigidShape::ConvexMesh(hull),
                Err(_) => RigidShape::NonConvex(Arc::new(closed)),
            };
            return Ok((shape, Some(mesh)));
        }
    };
    Ok((shape, None))
}

/// A `.ply`/`.obj` surface mesh of the scene, scaled; a read error names field `at`.
pub(super) fn read_mesh(loaded: &LoadedScene, at: &str, path: &str, scale: f64) -> Result<TriMesh, SceneError> {
    let full = super::resolve_path(&loaded.base_dir, path);
    let mut mesh = crate::mesh::read_tri_mesh(&full).map_err(|e| error_at(&loaded.path, at, e.to_string()))?;
    mesh.vertices.iter_mut().for_each(|v| *v *= scale);
    Ok(mesh)
}

/// Shapes by their spec, centered on their center of mass: bodies that share a mesh file or a
/// profile share one shape (a non-convex mesh's distance tree is built once) and the file is
/// read once.
#[derive(Default)]
pub struct ShapeCache(HashMap<String, (RigidShape, Vector3<f64>, Option<TriMesh>)>);

impl ShapeCache {
    /// The recentered shape of `spec`, where its center of mass was in its own coordinates, and
    /// a `Mesh` shape's surface as read.
    fn get(
        &mut self,
        loaded: &LoadedScene,
        field: &str,
        spec: &RigidShapeSpec,
    ) -> Result<(RigidShape, Vector3<f64>, Option<TriMesh>), SceneError> {
        let key = format!("{spec:?}");
        if let Some(found) = self.0.get(&key) {
            return Ok(found.clone());
        }
        let (s, surface) = shape(loaded, field, spec)?;
        // The center of mass does not depend on the (uniform) density.
        let center = MassProperties::from_shape(&s, 1.0).center;
        let entry = (s.recentered(&center), center, surface);
        self.0.insert(key, entry.clone());
        Ok(entry)
    }
}

/// The model part and the initial state of one rigid body.
pub fn build(
    loaded: &LoadedScene,
    field: &str,
    spec: &RigidSpec,
    material: Option<usize>,
    cache: &mut ShapeCache,
) -> Result<(Rigid, RigidBody), SceneError> {
    let file = &loaded.path;
    let material = material.ok_or_else(|| error_at(file, &format!("{field}.material"), "unknown material"))?;
    let density = loaded.scene.materials.get(&spec.material).and_then(|m| m.density);
    // With only a mass given, any density gives the right inertia once scaled to that mass.
    let (density, mass) = match (spec.mass, density) {
        (Some(m), d) => (d.unwrap_or(1.0), Some(m)),
        (None, Some(d)) => (d, None),
        (None, None) => {
            return Err(error_at(
                file,
                &format!("{field}.mass"),
                format!("missing: give the body a `mass` (kg) or its material {:?} a `density`", spec.material),
            ));
        }
    };
    let orientation = match spec.orientation {
        Some([w, x, y, z]) => UnitQuaternion::from_quaternion(Quaternion::new(w, x, y, z)),
        None => UnitQuaternion::from_rotation_matrix(&Rotation3::from_matrix_unchecked(rotation_from_degrees(
            spec.rotation,
        ))),
    };
    let (shape, center, surface) = cache.get(loaded, field, &spec.shape)?;
    let position = Vector3::from(spec.position) + orientation * center;
    let (mut body, offset) = RigidBody::from_density(shape, density, position, orientation);
    let origin = offset - center;
    if let Some(m) = mass {
        body = body.with_mass(m);
    }
    let omega = Vector3::from(spec.angular_velocity.map(f64::to_radians));
    body.linear_velocity = Vector3::from(spec.velocity);
    body.angular_velocity = omega;
    let (verts, tris) = body.shape.tessellate(OUTPUT_SEGMENTS);
    let structure = match &spec.structure {
        None => None,
        Some(StructureSpec::Texture { path }) => {
            let (RigidShapeSpec::Mesh { path: mesh_path, .. }, Some(mut mesh)) = (&spec.shape, surface) else {
                return Err(error_at(
                    file,
                    &format!("{field}.structure"),
                    "a structure texture needs a `Mesh` shape whose file has texture coordinates (UVs)",
                ));
            };
            if mesh.uvs.is_none() {
                return Err(error_at(
                    file,
                    &format!("{field}.structure"),
                    format!("the mesh {mesh_path:?} has no texture coordinates (u, v) to look the texture up with"),
                ));
            }
            // Into the body frame, like the hull (centered on the center of mass).
            mesh.vertices.iter_mut().for_each(|v| *v += origin);
            let full = super::resolve_path(&loaded.base_dir, path);
            let texture = StructureTexture::load(&full)
                .map_err(|e| error_at(file, &format!("{field}.structure.path"), e.to_string()))?;
            Some(Structure::Texture(Arc::new(TexturedSurface { texture, mesh })))
        }
        // The body frame is centered on the center of mass but keeps the shape's axes: a field
        // given in the shape's frame is shifted by `origin`.
        Some(s) => structure(s, origin).map_err(|e| error_at(file, &format!("{field}.structure"), e))?,
    };
    let model = Rigid {
        name: spec.name.clone(),
        material,
        motion: spec.motion.as_ref().map(motion),
        rest_position: body.position,
        rest_orientation: body.orientation,
        spin: omega,
        structure,
        surface: (verts, tris),
    };
    Ok((model, body))
}

/// A surface's structure from its spec, in a frame whose origin sits at `offset` in the
/// surface's own: a unit `Direction` (`None` for a zero one, refused by validation) or a
/// procedural field; a message for a degenerate field or a texture (only rigid `Mesh` bodies
/// take those, built by their own path).
pub(crate) fn structure(spec: &StructureSpec, offset: Vector3<f64>) -> Result<Option<Structure>, String> {
    use crate::friction::structure_field::StructureField as F;
    let v = |a: &[f64; 3]| Vector3::from(*a);
    let field = match spec {
        StructureSpec::Direction(d) => return Ok(v(d).try_normalize(0.0).map(Structure::Direction)),
        StructureSpec::Radial { center } => F::radial(v(center)),
        StructureSpec::Concentric { center, axis } => {
            F::concentric(v(center), v(axis)).ok_or("a concentric field needs a non-zero `axis`")?
        }
        StructureSpec::Sweep { center, axis, reference } => {
            F::sweep(v(center), v(axis), v(reference)).ok_or("a sweep field needs a non-zero `axis` and `reference`")?
        }
        StructureSpec::Expression { x, y, z } => F::expression(x, y, z)?,
        StructureSpec::Texture { .. } => {
            return Err("this surface has no texture coordinates: use a direction or a procedural field".into());
        }
    };
    Ok(Some(Structure::Field { field: Arc::new(field), offset }))
}
