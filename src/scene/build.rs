//! Build the `Model` and initial `State` from a loaded, validated scene.

use super::schema::{
    BodySpec, ColliderSpec, FrictionLawSpec, MeshSpec, MotionSpec, PipelineSpec, Scene, StructureSpec, Vec3,
    VolumeJacobian, VolumeRegion, VolumeSpec,
};
use super::{LoadedScene, SceneError, error_at, resolve_path, rigid, thin};
use crate::contact::collider::{Collider, Shape};
use crate::energy::volume::{VolumeZone, cavity_triangles};
use crate::energy::{Lame, Material, TetElement};
use crate::friction::smooth::SmoothFriction;
use crate::mesh::{TetMesh, procedural, vtk_read};
use crate::model::motion::{Motion, RigidKey};
use crate::model::{FrictionTable, Model, PairExtras, Solid, State};
use crate::reduced::{ReducedBody, ReducedModel};
use nalgebra::{Matrix3, Rotation3, Unit, UnitQuaternion, Vector3};

/// Rotation from degrees about world x, then y, then z.
pub fn rotation_from_degrees(r: Vec3) -> Matrix3<f64> {
    let [x, y, z] = r.map(f64::to_radians);
    (Rotation3::from_axis_angle(&Vector3::z_axis(), z)
        * Rotation3::from_axis_angle(&Vector3::y_axis(), y)
        * Rotation3::from_axis_angle(&Vector3::x_axis(), x))
    .into_inner()
}

/// The model motion of a validated motion spec (degrees become radians; a zero axis, rejected by
/// validation, would become +z rather than NaN).
pub fn motion(m: &MotionSpec) -> Motion {
    let axis = |a: &Vec3| Unit::try_new(Vector3::from(*a), 0.0).unwrap_or(Vector3::z_axis());
    match m {
        MotionSpec::Fixed => Motion::Fixed,
        MotionSpec::Velocity(v) => Motion::Velocity(Vector3::from(*v)),
        MotionSpec::Keyframes(k) => Motion::Keyframes(k.iter().map(|(t, x)| (*t, Vector3::from(*x))).collect()),
        MotionSpec::Rigid { pivot, keys } => Motion::Rigid {
            pivot: Vector3::from(*pivot),
            keys: keys
                .iter()
                .map(|(t, c, r)| RigidKey {
                    time: *t,
                    translation: Vector3::from(*c),
                    rotation: UnitQuaternion::from_rotation_matrix(&Rotation3::from_matrix_unchecked(
                        rotation_from_degrees(*r),
                    )),
                })
                .collect(),
        },
        MotionSpec::Oscillate { pivot, axis: a, amplitude, period } => Motion::Oscillate {
            pivot: Vector3::from(*pivot),
            axis: axis(a),
            amplitude: amplitude.to_radians(),
            period: *period,
        },
        MotionSpec::Spin { pivot, axis: a, rate } => {
            Motion::Spin { pivot: Vector3::from(*pivot), axis: axis(a), rate: rate.to_radians() }
        }
    }
}

fn law(l: &FrictionLawSpec, eps: f64) -> SmoothFriction {
    SmoothFriction { mu_d: l.mu, mu_s: l.mu_s.unwrap_or(l.mu), v_s: l.v_s.unwrap_or(10.0 * eps), mu_v: l.mu_v, eps }
}

/// Steps per frame and frame count.
pub fn frame_layout(scene: &Scene) -> (usize, usize) {
    let steps_per_frame = (1.0 / (scene.frame_rate * scene.dt)).round().max(1.0) as usize;
    let frames = match (scene.frames, scene.duration) {
        (Some(f), _) => f,
        (None, Some(d)) => ((d * scene.frame_rate) - 1e-9).ceil().max(1.0) as usize,
        (None, None) => 1,
    };
    (steps_per_frame, frames)
}

/// Build the model and its initial state.
pub fn build(loaded: &LoadedScene) -> Result<(Model, State), SceneError> {
    let scene = &loaded.scene;
    let file = loaded.path.clone();
    let mat_names: Vec<String> = scene.materials.keys().cloned().collect();
    let mat_index = |name: &str| mat_names.iter().position(|m| m == name);
    let eps = scene.friction.epsilon;
    let extras = |l: &FrictionLawSpec| PairExtras {
        anisotropy: l.mu_t.zip(l.mu_b).map(|(t, b)| [t, b]),
        cohesion: l.cohesion,
        compliance: l.compliance,
        drilling: l.mu_tau,
    };
    let default = &scene.friction.default;
    let mut friction = FrictionTable::new(mat_names.clone(), law(default, eps), extras(default));
    for p in &scene.friction.pairs {
        if let (Some(a), Some(b)) = (mat_index(&p.between.0), mat_index(&p.between.1)) {
            friction.set(a, b, law(&p.law(), eps), extras(&p.law()));
        }
    }

    let (mut q, mut v, mut node_mass, mut node_body) = (Vec::new(), Vec::new(), Vec::new(), Vec::new());
    let mut solids = Vec::new();
    let (mut reduced, mut reduced_state) = (Vec::new(), Vec::new());
    let mut reduced_models = std::collections::HashMap::new();
    let mut embedded_meshes = std::collections::HashMap::new();
    let (mut kinematic, mut attached) = (Vec::new(), Vec::new());
    let mut rigids = Vec::new();
    let mut rigid_state = Vec::new();
    let mut shapes = rigid::ShapeCache::default();
    let (mut cloths, mut rod_bundles, mut rod_frames) = (Vec::new(), Vec::new(), Vec::new());
    for (b, body) in scene.bodies.iter().enumerate() {
        let field = format!("bodies[{b}]");
        let spec = match body {
            BodySpec::Solid(spec) => spec,
            BodySpec::Rigid(spec) => {
                let (model, state) = rigid::build(loaded, &field, spec, mat_index(&spec.material), &mut shapes)?;
                rigids.push(model);
                rigid_state.push(state);
                continue;
            }
            BodySpec::Cloth(_) | BodySpec::Rods(_) => {
                let mat = mat_index(body.material())
                    .ok_or_else(|| error_at(&file, &format!("{field}.material"), "unknown material"))?;
                let mut arrays = thin::NodalArrays {
                    q: &mut q,
                    v: &mut v,
                    node_mass: &mut node_mass,
                    node_body: &mut node_body,
                    kinematic: &mut kinematic,
                    attached: &mut attached,
                };
                match body {
                    BodySpec::Cloth(spec) => cloths.push(thin::cloth(loaded, &field, b, spec, mat, &mut arrays)?),
                    BodySpec::Rods(spec) => {
                        rod_bundles.push(thin::rods(loaded, &field, b, spec, mat, &mut arrays, &mut rod_frames)?)
                    }
                    BodySpec::Solid(_) | BodySpec::Rigid(_) => unreachable!("matched above"),
                }
                continue;
            }
        };
        let mat_id = mat_index(&spec.material)
            .ok_or_else(|| error_at(&file, &format!("{field}.material"), "unknown material"))?;
        let m = &scene.materials[&spec.material];
        let (Some(density), Some(e), Some(nu)) = (m.density, m.youngs_modulus, m.poisson_ratio) else {
            return Err(error_at(
                &file,
                &format!("{field}.material"),
                "a solid's material needs density, youngs_modulus and poisson_ratio",
            ));
        };
        let mesh_err = |e: crate::mesh::MeshError| error_at(&file, &format!("{field}.mesh"), e.to_string());
        let mut embedded_mesh = None;
        let mut mesh: TetMesh = match &spec.mesh {
            MeshSpec::Box { size, cells, wall } if *wall > 0.0 => {
                procedural::hollow_box_tets(*size, *cells, *wall).map_err(mesh_err)?
            }
            MeshSpec::Box { size, cells, .. } => procedural::box_tets(*size, *cells).map_err(mesh_err)?,
            MeshSpec::Ball { radius, resolution, inner_radius } if *inner_radius > 0.0 => {
                procedural::hollow_ball_tets(*radius, *inner_radius, *resolution).map_err(mesh_err)?
            }
            MeshSpec::Ball { radius, resolution, .. } => {
                procedural::ball_tets(*radius, *resolution).map_err(mesh_err)?
            }
            MeshSpec::Bowl { radius, inner_radius, resolution } => {
                procedural::bowl_tets(*radius, *inner_radius, *resolution).map_err(mesh_err)?
            }
            MeshSpec::File { path, scale } => {
                let mut mesh = vtk_read::read_tet_mesh(&resolve_path(&loaded.base_dir, path)).map_err(mesh_err)?;
                mesh.vertices.iter_mut().for_each(|x| *x *= *scale);
                mesh
            }
            MeshSpec::Embedded { surface, scale, cage } => {
                // Built once per surface, cage and density: bodies of one mesh share it.
                let key = format!("{surface:?} {scale} {cage:?} {density} {:?}", loaded.base_dir);
                let e = match embedded_meshes.get(&key) {
                    Some(e) => std::sync::Arc::clone(e),
                    None => {
                        let e = super::embedded::read(loaded, &field, (surface, *scale), cage, density)?;
                        let e = std::sync::Arc::new(e);
                        embedded_meshes.insert(key, std::sync::Arc::clone(&e));
                        e
                    }
                };
                let cage = e.cage.clone();
                embedded_mesh = Some(e);
                cage
            }
        };
        let rot = Rotation3::from_matrix_unchecked(rotation_from_degrees(spec.rotation));
        let elastic = Material::new(m.model, Lame::from_young_poisson(e, nu));
        let rayleigh = m.damping.map(|d| (d.alpha, d.beta)).unwrap_or((0.0, 0.0));
        // A reduced model is built in the mesh's own frame, once per mesh, material and modes.
        let reduced_model = match &spec.reduced {
            None => None,
            Some(red) => {
                let key = format!(
                    "{:?} {:?} {density} {e} {nu} {:?} {red:?} {rayleigh:?}",
                    spec.mesh, loaded.base_dir, m.model
                );
                let model = match reduced_models.get(&key) {
                    Some(model) => std::sync::Arc::clone(model),
                    None => {
                        let model = ReducedModel::new(
                            &TetElement::from_mesh(&mesh),
                            &mesh.vertices,
                            &mesh.lumped_masses(density),
                            &elastic,
                            red.modes(),
                            rayleigh,
                        )
                        .map_err(|e| error_at(&file, &format!("{field}.reduced"), e))?;
                        let model = std::sync::Arc::new(model);
                        reduced_models.insert(key, std::sync::Arc::clone(&model));
                        model
                    }
                };
                Some(model)
            }
        };
        let initial = match &spec.displacement {
            None => None,
            Some(d) => Some(
                super::displacement::initial(d, &mesh, reduced_model.as_deref())
                    .map_err(|e| error_at(&file, &format!("{field}.displacement"), e))?,
            ),
        };
        mesh.transform(&rot, &Vector3::from(spec.position));
        let offset = node_mass.len();
        let masses = match &embedded_mesh {
            Some(e) => e.masses.clone(),
            None => mesh.lumped_masses(density),
        };
        let total: f64 = masses.iter().sum();
        let centroid = mesh.vertices.iter().zip(&masses).map(|(x, m)| x * *m).sum::<Vector3<f64>>() / total;
        let omega = Vector3::from(spec.angular_velocity.map(f64::to_radians));
        for (i, (x, m)) in mesh.vertices.iter().zip(&masses).enumerate() {
            let x = x + initial.as_ref().map_or(Vector3::zeros(), |d| rot * d.u[i]);
            let vel = Vector3::from(spec.velocity) + omega.cross(&(x - centroid));
            q.extend_from_slice(x.as_slice());
            v.extend_from_slice(vel.as_slice());
            node_mass.push(*m);
            node_body.push(b);
        }
        let global = |i: usize| i + offset;
        // An embedded surface's nodes follow the cage's, massless (`model::Embedding`).
        let embedding = embedded_mesh.as_ref().map(|e| {
            let start = node_mass.len();
            let embedding = crate::model::Embedding {
                nodes: start..start + e.places.len(),
                cage: e.places.iter().map(|(t, _)| mesh.tets[*t].map(global)).collect(),
                weights: e.places.iter().map(|(_, w)| *w).collect(),
                surface_volume: e.surface_volume,
                cage_volume: mesh.volume(),
            };
            // Placed by the cage just pushed, exactly as the nodal step keeps them.
            let surface: Vec<Vector3<f64>> = (0..e.places.len()).map(|k| embedding.on_cage(&q, k)).collect();
            for x in &surface {
                let vel = Vector3::from(spec.velocity) + omega.cross(&(x - centroid));
                q.extend_from_slice(x.as_slice());
                v.extend_from_slice(vel.as_slice());
                node_mass.push(0.0);
                node_body.push(b);
            }
            (embedding, surface)
        });
        let elements: Vec<TetElement> = mesh
            .tets
            .iter()
            .map(|t| {
                let rest = t.map(|i| mesh.vertices[i]);
                TetElement::new(t.map(global), &rest)
            })
            .collect();
        let empty = || {
            format!("selects no vertex of body '{}' (its bounding box after placement is {:?})", spec.name, bbox(&mesh))
        };
        super::regions::Regions { kinematic: &mut kinematic, attached: &mut attached }.add(
            loaded,
            &field,
            &spec.kinematic,
            &mesh.vertices,
            offset,
            &empty,
        )?;
        let (surface, surface_nodes): (Vec<[usize; 3]>, Vec<usize>) = match (&embedding, &embedded_mesh) {
            (Some((emb, _)), Some(e)) => {
                let first = emb.nodes.start;
                (e.surface.triangles.iter().map(|t| t.map(|i| i + first)).collect(), emb.nodes.clone().collect())
            }
            _ => (
                mesh.surface_triangles().into_iter().map(|t| t.map(global)).collect(),
                mesh.surface_vertices().into_iter().map(global).collect(),
            ),
        };
        let volume = match &spec.volume {
            None => None,
            Some(vs) => {
                // The zone's rest volume is the undisplaced shape's.
                let mut q = std::borrow::Cow::Borrowed(&q[..]);
                if initial.is_some() {
                    let rest = q.to_mut();
                    for (i, x) in mesh.vertices.iter().enumerate() {
                        rest[3 * global(i)..3 * global(i) + 3].copy_from_slice(x.as_slice());
                    }
                }
                let triangles = match vs.region {
                    VolumeRegion::Boundary => surface.clone(),
                    VolumeRegion::Cavity => cavity_triangles(&surface, &q).ok_or_else(|| {
                        error_at(
                            &file,
                            &format!("{field}.volume.region"),
                            "`Cavity` needs a hollow mesh (an inner boundary); this mesh has one closed surface",
                        )
                    })?,
                };
                Some(volume_zone(loaded, &field, vs, triangles, &q)?)
            }
        };
        let mut rest = vec![Vector3::zeros(); offset];
        rest.extend(mesh.vertices.iter().copied());
        rest.extend(embedding.iter().flat_map(|(_, surface)| surface.iter().copied()));
        let structure = super::surface_structure::coefficients(
            spec.structure.as_ref(),
            spec.structure_field.as_ref(),
            &surface,
            &rest,
            (&rot, &Vector3::from(spec.position)),
        )
        .map_err(|e| error_at(&file, &format!("{field}.structure_field"), e))?;
        let area = |t: &[usize; 3]| 0.5 * (rest[t[1]] - rest[t[0]]).cross(&(rest[t[2]] - rest[t[0]])).norm();
        let surface_rest_area = if structure.is_empty() { Vec::new() } else { surface.iter().map(area).collect() };
        let reduced_index = match reduced_model {
            None => None,
            Some(model) => {
                let body = ReducedBody { nodes: offset..node_mass.len(), model };
                let pose = (centroid, UnitQuaternion::from_rotation_matrix(&rot));
                let mut state = body.state_at(pose, Vector3::from(spec.velocity), omega);
                if let Some((q, rigid)) = initial.as_ref().and_then(|d| d.modal.as_ref()) {
                    state.q = q.clone();
                    state.position += rot * rigid.translation;
                    state.orientation *= rigid.turn;
                }
                reduced_state.push(state);
                reduced.push(body);
                Some(reduced.len() - 1)
            }
        };
        solids.push(Solid {
            reduced: reduced_index,
            name: spec.name.clone(),
            material: mat_id,
            elastic,
            rayleigh,
            nodes: offset..node_mass.len(),
            elements,
            surface,
            surface_nodes,
            mass: total,
            volume,
            structure,
            surface_rest_area,
            embedding: embedding.map(|(e, _)| e),
            displaced: initial.map(|d| d.summary),
        });
    }
    let mut node_is_kinematic = vec![false; node_mass.len()];
    for set in &kinematic {
        for &i in &set.nodes {
            node_is_kinematic[i] = true;
        }
    }
    let riders = super::regions::Riders {
        loaded,
        bodies: &rigid_state,
        node_is_kinematic: &node_is_kinematic,
        node_body: &node_body,
        q: &q,
    };
    riders.roots(&mut rod_bundles, &mut v)?;
    riders.regions(&mut attached, &mut v)?;

    // Rigid bodies meet mesh colliders through their checked surfaces in `Nonsmooth` (in
    // `Smooth`, through the MLS field of the mesh).
    let rigid_meet_meshes = matches!(scene.pipeline, PipelineSpec::Nonsmooth(_))
        && scene.bodies.iter().any(|b| matches!(b, BodySpec::Rigid(_)));
    let mut mesh_colliders = scene
        .colliders
        .iter()
        .enumerate()
        .filter_map(|(k, c)| match c {
            ColliderSpec::Mesh {
                name,
                material,
                path,
                scale,
                position,
                rotation,
                motion: mo,
                animation,
                structure,
            } => Some((k, name, material, path, scale, position, rotation, mo, animation, structure)),
            _ => None,
        })
        .map(|(k, name, material, path, scale, position, rotation, mo, animation, structure)| {
            let at = format!("colliders[{k}].path");
            let (vertices, triangles, animation) = mesh_surface(loaded, &at, path, *scale, animation.as_ref())?;
            let surface = rigid_meet_meshes
                .then(|| crate::rigid::SurfaceMesh::collider(vertices.clone(), triangles.clone()))
                .transpose()
                .map_err(|e| {
                    let full = resolve_path(&loaded.base_dir, path);
                    let why = "a mesh collider that rigid bodies touch must be manifold at its edges, consistently \
                               oriented and not cross itself; it may be open, and is then one-sided";
                    error_at(&file, &at, format!("{}: {e} ({why})", full.display()))
                })?
                .map(std::sync::Arc::new);
            let structure = structure
                .as_ref()
                .map(|s| rigid::structure(s, Vector3::zeros()))
                .transpose()
                .map_err(|e| error_at(&file, &format!("colliders[{k}].structure"), e))?
                .flatten();
            Ok(crate::contact::collider::MeshCollider {
                name: name.clone(),
                material: mat_index(material).unwrap_or(0),
                vertices,
                triangles,
                rotation: rotation_from_degrees(*rotation),
                position: Vector3::from(*position),
                motion: motion(mo),
                animation,
                nodes: 0..0,
                node_triangles: Vec::new(),
                structure,
                surface,
            })
        })
        .collect::<Result<Vec<_>, SceneError>>()?;
    // The nodal pipelines carry a mesh collider's vertices as nodes where nodal bodies can touch
    // them; rigid bodies alone meet its surface (and a scene of them keeps the rigid step).
    let nodal_bodies = scene.bodies.iter().any(|b| !matches!(b, BodySpec::Rigid(_)));
    if !matches!(scene.pipeline, PipelineSpec::Smooth(_)) && nodal_bodies {
        for m in &mut mesh_colliders {
            mesh_collider_nodes(m, &mut q, &mut v, &mut node_mass, &mut node_body, &mut node_is_kinematic);
        }
    }
    let analytic = || scene.colliders.iter().filter(|c| !matches!(c, ColliderSpec::Mesh { .. }));
    // In each collider's own frame (`Model::collider_structure_at` places it).
    let collider_structure = scene
        .colliders
        .iter()
        .enumerate()
        .filter(|(_, c)| !matches!(c, ColliderSpec::Mesh { .. }))
        .map(|(k, c)| match c {
            ColliderSpec::Plane { structure: Some(s), .. } | ColliderSpec::Box { structure: Some(s), .. } => {
                Ok(rigid::structure(&StructureSpec::Direction(*s), Vector3::zeros()).ok().flatten())
            }
            ColliderSpec::Plane { structure_field: Some(f), .. }
            | ColliderSpec::Box { structure_field: Some(f), .. } => rigid::structure(f, Vector3::zeros())
                .map_err(|e| error_at(&file, &format!("colliders[{k}].structure_field"), e)),
            _ => Ok(None),
        })
        .collect::<Result<Vec<_>, SceneError>>()?;
    let colliders = analytic()
        .filter_map(|c| {
            let (name, material, shape, position, rotation, mo) = match c {
                ColliderSpec::Mesh { .. } => return None,
                ColliderSpec::Plane { name, material, position, rotation, motion, .. } => {
                    (name, material, Shape::Plane, position, *rotation, motion)
                }
                ColliderSpec::Box { name, material, size, position, rotation, motion, .. } => {
                    (name, material, Shape::Box { half: size.map(|s| 0.5 * s) }, position, *rotation, motion)
                }
                ColliderSpec::Sphere { name, material, radius, position, motion } => {
                    (name, material, Shape::Sphere { radius: *radius }, position, [0.0; 3], motion)
                }
                ColliderSpec::Cylinder { name, material, radius, length, position, rotation, motion } => (
                    name,
                    material,
                    Shape::Cylinder { radius: *radius, half_length: 0.5 * length },
                    position,
                    *rotation,
                    motion,
                ),
            };
            Some(Collider {
                name: name.clone(),
                material: mat_index(material).unwrap_or(0),
                shape,
                rotation: rotation_from_degrees(rotation),
                position: Vector3::from(*position),
                motion: motion(mo),
            })
        })
        .collect();

    let (steps_per_frame, frames) = frame_layout(scene);
    let gravity = Vector3::from(scene.gravity);
    let kappa = match &scene.pipeline {
        PipelineSpec::Penalty(pen) => {
            let cloth_mass =
                cloths.iter().map(|c: &crate::model::Cloth| node_mass[c.nodes.clone()].iter().sum::<f64>());
            let heaviest = solids.iter().map(|s| s.mass).chain(cloth_mass).fold(0.0, f64::max);
            // Default stiffness: one contact point at zero gap (force 3 kappa delta) carries the
            // weight of the heaviest body; adaptive stiffening raises it where that is not enough.
            pen.contact.kappa.unwrap_or(heaviest * gravity.norm().max(1.0) / (3.0 * pen.contact.delta))
        }
        PipelineSpec::Nonsmooth(_) | PipelineSpec::Smooth(_) => 0.0,
    };
    let joints = super::joints::build(&file, scene, &rigids, &rigid_state)?;
    let model = Model {
        name: scene.name.clone(),
        dt: scene.dt,
        frame_rate: scene.frame_rate,
        steps_per_frame,
        frames,
        settle_steps: (scene.settle / scene.dt).round() as usize,
        settle_in_motion: scene.settle_in_motion,
        gravity,
        solids,
        colliders,
        collider_structure,
        mesh_colliders,
        rigids,
        reduced,
        joints,
        cloths,
        rod_bundles,
        friction,
        node_mass,
        kinematic,
        attached_regions: attached,
        node_is_kinematic,
        node_body,
        pipeline: scene.pipeline.clone(),
        output: scene.output,
    };
    let state = State {
        time: 0.0,
        step: 0,
        q,
        v,
        kappa,
        rigid: rigid_state,
        reduced: reduced_state,
        rod_twist: rod_frames.iter().map(|f| crate::energy::rod::TwistState::at_rest(f.edges.len())).collect(),
        rod_frames,
        history: None,
    };
    step_resolves_gravity(loaded, &model, &state)?;
    Ok((model, state))
}

/// A gravity that moves a free body |g| dt² per step, more than ten times the extent of all the
/// scene's bodies, leaves nothing a contact could resolve: every body crosses the scene within a
/// step (2.1e9 m/s² at dt = 1 ms moves 2 km per step). Refused as the typo it is, before the
/// solvers spend minutes on it. Ten: a decade above crossing the whole scene in one step.
fn step_resolves_gravity(loaded: &LoadedScene, model: &Model, state: &State) -> Result<(), SceneError> {
    let mut lo = Vector3::repeat(f64::INFINITY);
    let mut hi = Vector3::repeat(f64::NEG_INFINITY);
    let mut add = |p: Vector3<f64>| {
        lo = lo.inf(&p);
        hi = hi.sup(&p);
    };
    (0..model.node_count()).for_each(|i| add(crate::model::node(&state.q, i)));
    for (r, body) in model.rigids.iter().zip(&state.rigid) {
        r.surface.0.iter().for_each(|p| add(body.world_point(p)));
    }
    if lo.x > hi.x {
        return Ok(());
    }
    let extent = (hi - lo).norm();
    let fall = model.gravity.norm() * model.dt * model.dt;
    if fall > 10.0 * extent {
        let g = model.gravity;
        return Err(error_at(
            &loaded.path,
            "gravity",
            format!(
                "gravity ({}, {}, {}) m/s² moves a free body |g| dt² = {fall:.3e} m in one step of {} s, more than ten \
                 times the extent of the scene's bodies ({extent:.3e} m): no contact could be resolved (SI units: \
                 m/s²; Earth's is 9.81)",
                g.x, g.y, g.z, model.dt
            ),
        ));
    }
    Ok(())
}

fn bbox(mesh: &TetMesh) -> ([f64; 3], [f64; 3]) {
    let mut lo = [f64::INFINITY; 3];
    let mut hi = [f64::NEG_INFINITY; 3];
    for x in &mesh.vertices {
        for c in 0..3 {
            lo[c] = lo[c].min(x[c]);
            hi[c] = hi[c].max(x[c]);
        }
    }
    (lo, hi)
}

/// The volume zone of body `field` over its outward `triangles` at the rest positions `q`; an
/// error unless they enclose a positive volume (an open or inside-out surface does not).
pub fn volume_zone(
    loaded: &LoadedScene,
    field: &str,
    vs: &VolumeSpec,
    triangles: Vec<[usize; 3]>,
    q: &[f64],
) -> Result<VolumeZone, SceneError> {
    if !crate::energy::volume::is_closed(&triangles) {
        return Err(error_at(
            &loaded.path,
            &format!("{field}.volume"),
            "the body's surface is not closed (an open edge or a flipped triangle): a volume zone needs a closed surface with outward normals (for a cloth, a closed mesh such as `Sphere`)",
        ));
    }
    let exact = vs.jacobian == VolumeJacobian::Exact;
    let zone = VolumeZone::new(triangles, q, vs.form, vs.compressibility_per_atm, vs.gauge_pressure_atm, exact);
    if zone.rest_volume.is_nan() || zone.rest_volume <= 0.0 {
        return Err(error_at(
            &loaded.path,
            &format!("{field}.volume"),
            format!(
                "the enclosed rest volume is {:e} m^3; it must be positive (a closed surface with outward normals)",
                zone.rest_volume
            ),
        ));
    }
    Ok(zone)
}

/// A mesh collider's vertices appended as prescribed nodes (where it is at t = 0, massless, at
/// rest: their velocities are set each step), and its triangles over them.
fn mesh_collider_nodes(
    m: &mut crate::contact::collider::MeshCollider,
    q: &mut Vec<f64>,
    v: &mut Vec<f64>,
    node_mass: &mut Vec<f64>,
    node_body: &mut Vec<usize>,
    node_is_kinematic: &mut Vec<bool>,
) {
    let first = node_mass.len();
    for x in m.world_vertices(0.0, &mut Vec::new()) {
        q.extend_from_slice(x.as_slice());
        v.extend_from_slice(&[0.0; 3]);
        node_mass.push(0.0);
        node_body.push(usize::MAX);
        node_is_kinematic.push(true);
    }
    m.nodes = first..node_mass.len();
    m.node_triangles = m.triangles.iter().map(|t| t.map(|i| first + i)).collect();
}

/// A mesh's surface from its file, or from its numbered sequence or glTF skinned animation with
/// the animation they make (every frame scaled by `scale`): a mesh collider's, or a kinematic region's `follow`.
#[allow(clippy::type_complexity)]
pub(super) fn mesh_surface(
    loaded: &LoadedScene,
    at: &str,
    path: &str,
    scale: f64,
    animation: Option<&super::schema::AnimationSpec>,
) -> Result<
    (Vec<Vector3<f64>>, Vec<[usize; 3]>, Option<std::sync::Arc<crate::model::animation::VertexAnimation>>),
    SceneError,
> {
    let fail = |e: String| error_at(&loaded.path, at, e);
    let Some(spec) = animation else {
        let m = crate::mesh::read_tri_mesh(&super::resolve_path(&loaded.base_dir, path))
            .map_err(|e| fail(e.to_string()))?;
        return Ok((m.vertices.iter().map(|v| v * scale).collect(), m.triangles, None));
    };
    if crate::mesh::is_gltf(path) {
        let (skinned, triangles) = crate::mesh::gltf_read::read_skinned(
            &super::resolve_path(&loaded.base_dir, path),
            spec.clip.as_deref(),
            spec.looped,
            scale,
        )
        .map_err(fail)?;
        let anim = crate::model::animation::VertexAnimation::skinned(skinned);
        return Ok((anim.first().to_vec(), triangles, Some(std::sync::Arc::new(anim))));
    }
    let pattern = crate::mesh::sequence::FramePattern::parse(path)
        .map_err(fail)?
        .ok_or_else(|| fail("an animated mesh needs a numbered pattern such as \"hand_{:04}.obj\"".into()))?;
    let (mut frames, triangles) =
        crate::mesh::sequence::read_sequence(&pattern, |name| super::resolve_path(&loaded.base_dir, name))
            .map_err(fail)?;
    for f in &mut frames {
        for v in f.iter_mut() {
            *v *= scale;
        }
    }
    let first = frames[0].clone();
    let fps = spec.fps.expect("validated: a sequence has its fps");
    let anim =
        crate::model::animation::VertexAnimation::new(frames, fps, spec.looped, spec.interpolation.unwrap_or_default());
    Ok((first, triangles, Some(std::sync::Arc::new(anim))))
}

/// The animated surface a kinematic region follows, bound to the region's rest positions.
pub(super) fn follow(
    loaded: &LoadedScene,
    at: &str,
    spec: Option<&super::schema::FollowSpec>,
    rest: &[Vector3<f64>],
) -> Result<Option<std::sync::Arc<crate::model::animation::Embedding>>, SceneError> {
    let Some(f) = spec else { return Ok(None) };
    let (_, triangles, animation) =
        mesh_surface(loaded, &format!("{at}.follow.path"), &f.path, f.scale, Some(&f.animation))?;
    let animation = animation.expect("an animation spec gives an animation");
    Ok(Some(std::sync::Arc::new(crate::model::animation::Embedding::new(animation, triangles, rest))))
}
