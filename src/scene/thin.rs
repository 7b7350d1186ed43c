//! Cloth and rod bodies of a scene: geometry, elements, lumped masses and initial frames.

use super::build::{motion, rotation_from_degrees};
use super::schema::{ClothMeshSpec, ClothSpec, CurvesSpec, KinematicSpec, RodsSpec, TwistSpec};
use super::{LoadedScene, SceneError, error_at};
use crate::energy::bending::{HingeElement, hinge_stiffness};
use crate::energy::membrane::{MembraneElement, MembraneMaterial};
use crate::energy::rod::{Rod, RodFrames, RodStiffness};
use crate::mesh::thin;
use crate::model::{Attachment, Cloth, KinematicSet, RodBundle, RodPiece};
use nalgebra::{Rotation3, Vector3};

/// The nodal arrays a body appends to.
pub struct NodalArrays<'a> {
    pub q: &'a mut Vec<f64>,
    pub v: &'a mut Vec<f64>,
    pub node_mass: &'a mut Vec<f64>,
    pub node_body: &'a mut Vec<usize>,
    pub kinematic: &'a mut Vec<KinematicSet>,
    pub attached: &'a mut Vec<crate::model::AttachedRegion>,
}

impl NodalArrays<'_> {
    fn push(&mut self, x: &Vector3<f64>, v: &Vector3<f64>, m: f64, body: usize) {
        self.q.extend_from_slice(x.as_slice());
        self.v.extend_from_slice(v.as_slice());
        self.node_mass.push(m);
        self.node_body.push(body);
    }
}

fn material_constants(
    loaded: &LoadedScene,
    field: &str,
    name: &str,
    extra: &str,
) -> Result<(f64, f64, f64), SceneError> {
    let m = &loaded.scene.materials[name];
    match (m.density, m.youngs_modulus, m.poisson_ratio) {
        (Some(d), Some(e), Some(nu)) => Ok((d, e, nu)),
        _ => Err(error_at(
            &loaded.path,
            &format!("{field}.material"),
            format!("material {name:?} needs density, youngs_modulus, poisson_ratio and {extra}"),
        )),
    }
}

/// The body's `kinematic` regions over its nodes `offset..offset + x.len()`.
fn kinematic_sets(
    loaded: &LoadedScene,
    field: &str,
    specs: &[KinematicSpec],
    x: &[Vector3<f64>],
    offset: usize,
    arrays: &mut NodalArrays,
) -> Result<(), SceneError> {
    let mut regions = super::regions::Regions { kinematic: arrays.kinematic, attached: arrays.attached };
    regions.add(loaded, field, specs, x, offset, &|| "selects no node of the body".into())
}

pub fn cloth(
    loaded: &LoadedScene,
    field: &str,
    body: usize,
    spec: &ClothSpec,
    material: usize,
    arrays: &mut NodalArrays<'_>,
) -> Result<Cloth, SceneError> {
    let (density, e, nu) = material_constants(loaded, field, &spec.material, "thickness")?;
    let thickness = loaded.scene.materials[&spec.material].thickness.ok_or_else(|| {
        error_at(&loaded.path, &format!("{field}.material"), "a cloth material needs `thickness` (m)")
    })?;
    let (mut x, local_tris) = match &spec.mesh {
        ClothMeshSpec::Grid { size, cells } => thin::grid(*size, *cells),
        ClothMeshSpec::Tube { radius, length, cells } => thin::tube(*radius, *length, *cells),
        ClothMeshSpec::Sphere { radius, resolution } => thin::sphere(*radius, *resolution),
        ClothMeshSpec::File { path, scale } => {
            let full = super::resolve_path(&loaded.base_dir, path);
            let m = crate::mesh::read_tri_mesh(&full)
                .map_err(|err| error_at(&loaded.path, &format!("{field}.mesh.path"), err.to_string()))?;
            cloth_mesh_is_whole(&m, &full).map_err(|why| error_at(&loaded.path, &format!("{field}.mesh.path"), why))?;
            (m.vertices.iter().map(|v| v * *scale).collect(), m.triangles)
        }
    };
    let rot = Rotation3::from_matrix_unchecked(rotation_from_degrees(spec.rotation));
    let t = Vector3::from(spec.position);
    x.iter_mut().for_each(|p| *p = rot * *p + t);
    let offset = arrays.node_mass.len();
    let triangles: Vec<[usize; 3]> = local_tris.iter().map(|tri| tri.map(|i| i + offset)).collect();
    let mat = &loaded.scene.materials[&spec.material];
    let mm = MembraneMaterial::from_young_poisson(mat.membrane_model, e, nu, thickness, density);
    // Elements are built with global indices over a global-sized rest array. A rest scale
    // shrinks or grows the rest shape (a uniform scale keeps every dihedral angle).
    let mut rest = vec![Vector3::zeros(); offset];
    rest.extend(x.iter().map(|p| p * spec.rest_scale));
    let membrane = MembraneElement::from_triangles(&triangles, &rest);
    let structure = super::surface_structure::coefficients(
        spec.structure.as_ref(),
        spec.structure_field.as_ref(),
        &triangles,
        &rest,
        (&rot, &t),
    )
    .map_err(|e| error_at(&loaded.path, &format!("{field}.structure_field"), e))?;
    let hinges = HingeElement::from_triangles(&triangles, &rest);
    let mut mass = vec![0.0; x.len()];
    for el in &membrane {
        let m = el.lumped_mass(&mm);
        for &i in &el.nodes {
            mass[i - offset] += m;
        }
    }
    let vel = Vector3::from(spec.velocity);
    for (p, m) in x.iter().zip(&mass) {
        arrays.push(p, &vel, *m, body);
    }
    kinematic_sets(loaded, field, &spec.kinematic, &x, offset, arrays)?;
    let volume = match &spec.volume {
        Some(vs) => Some(super::build::volume_zone(loaded, field, vs, triangles.clone(), arrays.q)?),
        None => None,
    };
    Ok(Cloth {
        name: spec.name.clone(),
        material,
        nodes: offset..offset + x.len(),
        triangles,
        membrane,
        membrane_material: mm,
        hinges,
        bending: mat.bending.unwrap_or_else(|| hinge_stiffness(e, nu, thickness)),
        thickness,
        self_contact: spec.self_contact,
        rayleigh: mat.damping.map(|d| (d.alpha, d.beta)).unwrap_or((0.0, 0.0)),
        volume,
        structure,
        rings: std::sync::OnceLock::new(),
    })
}

pub fn rods(
    loaded: &LoadedScene,
    field: &str,
    body: usize,
    spec: &RodsSpec,
    material: usize,
    arrays: &mut NodalArrays<'_>,
    frames: &mut Vec<RodFrames>,
) -> Result<RodBundle, SceneError> {
    let (density, e, nu) = material_constants(loaded, field, &spec.material, "radius")?;
    let radius = loaded.scene.materials[&spec.material]
        .radius
        .ok_or_else(|| error_at(&loaded.path, &format!("{field}.material"), "a rod material needs `radius` (m)"))?;
    let curves: Vec<Vec<Vector3<f64>>> = match &spec.curves {
        CurvesSpec::Straight { start, end, segments } => {
            vec![thin::straight(Vector3::from(*start), Vector3::from(*end), *segments)]
        }
        CurvesSpec::Helix { center, radius, pitch, turns, segments } => {
            vec![thin::helix(Vector3::from(*center), *radius, *pitch, *turns, *segments)]
        }
        CurvesSpec::HairyBall { center, radius, count, length, segments, curliness } => {
            thin::hairy_ball(Vector3::from(*center), *radius, *count, *length, *segments, *curliness)
        }
        CurvesSpec::Polylines(p) => p.iter().map(|c| c.iter().map(|x| Vector3::from(*x)).collect()).collect(),
        CurvesSpec::File { path, scale } => {
            let full = super::resolve_path(&loaded.base_dir, path);
            let mut lines = crate::mesh::polyline_read::read_polylines(&full)
                .map_err(|err| error_at(&loaded.path, &format!("{field}.curves.path"), err.to_string()))?;
            lines.iter_mut().flatten().for_each(|x| *x *= *scale);
            lines
        }
    };
    let shear = e / (2.0 * (1.0 + nu));
    let stiffness = match loaded.scene.materials[&spec.material].bending_modulus {
        Some(eb) => RodStiffness::circular_with_bending(e, eb, shear, radius),
        None => RodStiffness::circular(e, shear, radius),
    };
    let line_density = density * std::f64::consts::PI * radius * radius;
    let offset = arrays.node_mass.len();
    let vel = Vector3::from(spec.velocity);
    let mut pieces = Vec::with_capacity(curves.len());
    let mut all = Vec::new();
    for (k, c) in curves.iter().enumerate() {
        if c.len() < 2 || c.windows(2).any(|w| (w[1] - w[0]).norm() <= 0.0) {
            return Err(error_at(
                &loaded.path,
                &format!("{field}.curves"),
                format!("rod {k} needs at least 2 distinct consecutive nodes (it has {})", c.len()),
            ));
        }
        let first = arrays.node_mass.len();
        let mut mass = vec![0.0; c.len()];
        mass[0] += spec.root_mass;
        mass[c.len() - 1] += spec.tip_mass;
        for (j, w) in c.windows(2).enumerate() {
            let m = 0.5 * line_density * (w[1] - w[0]).norm();
            mass[j] += m;
            mass[j + 1] += m;
        }
        for (p, m) in c.iter().zip(&mass) {
            arrays.push(p, &vel, *m, body);
        }
        let (rod, f) = Rod::from_rest_polyline(c, stiffness);
        frames.push(f);
        pieces.push(RodPiece { rod, first, len: c.len() });
        all.extend(c.iter().copied());
    }
    kinematic_sets(loaded, field, &spec.kinematic, &all, offset, arrays)?;
    // Roots follow `root_motion`, or the scripted motion of the body they are attached to (the
    // same rigid map of the scene placement, so they stay where they sit on that body). Roots on
    // a dynamic body ride on it: its index here, their body-frame offsets once every body is
    // built (`regions::Riders::roots`).
    let (root_motion, attached) = match &spec.attach_to {
        None => (spec.fixed_roots.then(|| motion(&spec.root_motion)), None),
        Some(name) => match super::regions::attachment(loaded, &format!("{field}.attach_to"), name)? {
            super::regions::Attach::Scripted(m) => (Some(m), None),
            super::regions::Attach::Rides(_) if spec.twist == TwistSpec::Dynamic => {
                return Err(error_at(
                    &loaded.path,
                    &format!("{field}.twist"),
                    format!(
                        "`Dynamic` twist is not available for roots riding on the dynamic body `{name}`: the twist \
                         torque at the roots would not act on the body; use `Quasistatic` (whose roots carry no \
                         twist torque), or a scripted body"
                    ),
                ));
            }
            super::regions::Attach::Rides(body) => (None, Some(Attachment { body, offsets: Vec::new() })),
        },
    };
    if let Some(m) = root_motion {
        let nodes: Vec<usize> = pieces.iter().map(|p| p.first).collect();
        let rest = nodes.iter().map(|&i| all[i - offset]).collect();
        arrays.kinematic.push(KinematicSet { nodes, rest, motion: m, follow: None });
    }
    Ok(RodBundle {
        name: spec.name.clone(),
        material,
        nodes: offset..arrays.node_mass.len(),
        rods: pieces,
        radius,
        self_contact: spec.self_contact,
        attached,
        rayleigh: loaded.scene.materials[&spec.material].damping.map(|d| (d.alpha, d.beta)).unwrap_or((0.0, 0.0)),
        twist: spec.twist,
        twist_inertia: density * std::f64::consts::PI * radius.powi(4) / 2.0,
    })
}

/// A cloth's mass and membrane come from its triangles' areas: every triangle must have one (a
/// duplicated or collapsed vertex in the file gives a zero-area triangle, whose membrane is
/// undefined) and every vertex must be in a triangle (or it has no mass).
fn cloth_mesh_is_whole(m: &crate::mesh::TriMesh, file: &std::path::Path) -> Result<(), String> {
    if let Some((t, tri)) =
        m.triangles.iter().enumerate().find(|(_, t)| crate::mesh::trimesh::is_zero_area(t.map(|i| &m.vertices[i])))
    {
        return Err(format!(
            "{}: triangle {t} (vertices {}, {}, {}, counted from 0) has zero area: a cloth needs every triangle to \
             have one (a duplicated or collapsed vertex?)",
            file.display(),
            tri[0],
            tri[1],
            tri[2]
        ));
    }
    let mut used = vec![false; m.vertices.len()];
    m.triangles.iter().flatten().for_each(|&i| used[i] = true);
    if let Some(v) = used.iter().position(|u| !u) {
        return Err(format!(
            "{}: vertex {v} (counted from 0) is in no triangle: a cloth vertex without a triangle has no mass",
            file.display()
        ));
    }
    Ok(())
}
