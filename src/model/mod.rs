//! `Model` (everything read from the scene, never changed by stepping) and `State` (what a step
//! changes), following the MuJoCo mjModel/mjData split.
//!
//! All dynamic degrees of freedom live in one generalized vector: nodal bodies own three entries
//! per node (`3 i .. 3 i + 3` for global node `i`). Kinematic nodes keep their entries but are not
//! unknowns: their velocity is prescribed each step.

pub mod animation;
pub mod motion;
pub mod skinning;

use crate::contact::collider::Collider;
use crate::energy::{Material, TetElement};
use crate::friction::smooth::SmoothFriction;
use crate::rigid::RigidBody;
use crate::scene::schema::{CohesionSpec, OutputSpec, PipelineSpec};
use motion::Motion;
use nalgebra::Vector3;
use std::ops::Range;

/// A tetrahedral FEM solid.
#[derive(Debug, Clone)]
pub struct Solid {
    pub name: String,
    /// Index into `Model::reduced` when the solid is reduced (its elements then give no forces:
    /// its nodes follow the reduced body's frame and modes).
    pub reduced: Option<usize>,
    pub material: usize,
    pub elastic: Material,
    /// Rayleigh coefficients `(alpha, beta)` of `D = alpha M + beta K`.
    pub rayleigh: (f64, f64),
    /// Global node indices of this body.
    pub nodes: Range<usize>,
    /// Elements with global node indices.
    pub elements: Vec<TetElement>,
    /// Boundary triangles (global node indices), outward.
    pub surface: Vec<[usize; 3]>,
    /// Boundary nodes (global indices, sorted).
    pub surface_nodes: Vec<usize>,
    pub mass: f64,
    /// Volume-change penalty zone (001 §2.4), if the scene asks for one.
    pub volume: Option<crate::energy::volume::VolumeZone>,
    /// Per boundary triangle, its matchstick structure as coefficients on its rest edges (see
    /// [`triangle_structure`]); empty: the solid has none.
    pub structure: Vec<[f64; 2]>,
    /// Per boundary triangle, its rest area (weighting its structure at its nodes); empty with
    /// `structure`.
    pub surface_rest_area: Vec<f64>,
    /// The surface embedded in the tets (an `Embedded` mesh): then `surface` and
    /// `surface_nodes` are the embedded surface's, and the tets are its cage.
    pub embedding: Option<Embedding>,
    /// The solid started displaced from its rest shape (a scene's `displacement`).
    pub displaced: Option<Displaced>,
}

/// How a solid's initial displacement was taken, for `fricsim check`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Displaced {
    /// The largest displacement asked for (m).
    pub largest: f64,
    /// The largest distance between the displacement asked for and the one taken (m): zero for a
    /// full solid, the modes' truncation for a reduced one.
    pub off: f64,
}

/// A surface embedded in its solid's cage (`crate::mesh::embedding`): surface node
/// `nodes.start + k` is at `Σ_j weights[k][j] x_{cage[k][j]}` (global cage nodes) at all times, so
/// it carries no mass and no unknown of its own; the nodal step eliminates it onto the cage.
#[derive(Debug, Clone)]
pub struct Embedding {
    pub nodes: Range<usize>,
    pub cage: Vec<[usize; 4]>,
    pub weights: Vec<[f64; 4]>,
    /// The volume the surface encloses and the cage's (m³), for the report.
    pub surface_volume: f64,
    pub cage_volume: f64,
}

impl Embedding {
    /// Where the cage at positions `x` puts surface node `nodes.start + k`: `Σ_j b_j x_j`.
    pub fn on_cage(&self, x: &[f64], k: usize) -> Vector3<f64> {
        (0..4).map(|j| node(x, self.cage[k][j]) * self.weights[k][j]).sum()
    }
}

impl Solid {
    /// The median surface node mass `m` (kg) and a node's elastic stiffness `k ≈ E c` (N/m), `c`
    /// the node spacing (the cube root of the volume per node): with `h² k / m` it says whether
    /// an implicit step of size `h` sees a surface node as a mass or as its elements. `None`
    /// without surface nodes.
    pub fn surface_node_stiffness(&self, node_mass: &[f64]) -> Option<(f64, f64)> {
        let mut m: Vec<f64> = self.surface_nodes.iter().map(|&i| node_mass[i]).collect();
        if m.is_empty() {
            return None;
        }
        m.sort_by(f64::total_cmp);
        let l = self.elastic.lame;
        let e = l.mu * (3.0 * l.lambda + 2.0 * l.mu) / (l.lambda + l.mu);
        let volume: f64 = self.elements.iter().map(|t| t.rest_volume).sum();
        Some((m[m.len() / 2], e * (volume / self.nodes.len() as f64).cbrt()))
    }

    pub fn node_count(&self) -> usize {
        self.nodes.len()
    }

    /// The structure direction `F s` of boundary triangle `k` at positions `x` (not normalized;
    /// zero when the solid or the triangle has none).
    pub fn triangle_structure(&self, k: usize, x: &[f64]) -> Vector3<f64> {
        self.structure.get(k).map_or_else(Vector3::zeros, |c| triangle_structure(&self.surface[k], c, x))
    }
}

/// The structure of triangle `tri` at positions `x` from its coefficients `(c1, c2)` on its rest
/// edges: the same combination of its current edges, `c1 (x1 − x0) + c2 (x2 − x0)`, which is the
/// rest structure mapped by the triangle's deformation gradient (zero for `(0, 0)`: none).
pub fn triangle_structure(tri: &[usize; 3], &[c1, c2]: &[f64; 2], x: &[f64]) -> Vector3<f64> {
    if c1 == 0.0 && c2 == 0.0 {
        return Vector3::zeros();
    }
    let x0 = node(x, tri[0]);
    (node(x, tri[1]) - x0) * c1 + (node(x, tri[2]) - x0) * c2
}

/// The scene data of a rigid body that stepping never changes. Its shape, mass and inertia live
/// in the [`RigidBody`] of the state (with its pose and velocity) because every contact query
/// needs them together; they are set at build time and never modified.
#[derive(Debug, Clone)]
pub struct Rigid {
    pub name: String,
    pub material: usize,
    /// Scripted motion of a kinematic body (`None`: dynamic). A kinematic body whose script
    /// only translates spins at its initial angular velocity.
    pub motion: Option<Motion>,
    /// Center of mass at t = 0 (the rest position the script moves).
    pub rest_position: Vector3<f64>,
    /// Orientation at t = 0 (a turning script rotates it).
    pub rest_orientation: nalgebra::UnitQuaternion<f64>,
    /// Angular velocity (rad/s, world) of a kinematic body.
    pub spin: Vector3<f64>,
    /// Matchstick structure of the surface, in the body frame.
    pub structure: Option<Structure>,
    /// Surface triangles in the body frame (for output).
    pub surface: (Vec<Vector3<f64>>, Vec<[usize; 3]>),
}

/// Where a rigid surface's structure direction comes from (body frame).
#[derive(Debug, Clone)]
pub enum Structure {
    /// One unit direction for the whole surface.
    Direction(Vector3<f64>),
    /// A structure texture on a UV-mapped surface mesh.
    Texture(std::sync::Arc<TexturedSurface>),
    /// A procedural field, given in a frame whose origin is at `offset` in this one.
    Field { field: std::sync::Arc<crate::friction::structure_field::StructureField>, offset: Vector3<f64> },
}

/// A texture and the surface it is mapped on (vertices in the body frame, with UVs).
#[derive(Debug)]
pub struct TexturedSurface {
    pub texture: crate::friction::texture::StructureTexture,
    pub mesh: crate::mesh::TriMesh,
}

impl Structure {
    /// The structure direction (body frame) at the surface point nearest to the body-frame point
    /// `x`; `None` where there is no structure.
    pub fn direction_at(&self, x: &Vector3<f64>) -> Option<Vector3<f64>> {
        use crate::contact::point_triangle::{closest_feature, evaluate};
        match self {
            Structure::Direction(d) => Some(*d),
            Structure::Texture(s) => {
                let m = &s.mesh;
                let xa: [f64; 3] = (*x).into();
                let corners = |t: usize| m.corners(t).map(|c| -> [f64; 3] { c.into() });
                let (t, feature) = (0..m.triangles.len())
                    .map(|t| (t, closest_feature(xa, &corners(t))))
                    .min_by(|a, b| a.1.1.total_cmp(&b.1.1))
                    .map(|(t, (f, _))| (t, f))?;
                let w = evaluate::<f64>(feature, 1.0, xa, &corners(t)).weights;
                s.texture.structure_at(&m.corners(t), &m.corner_uvs(t)?, w)
            }
            Structure::Field { field, offset } => field.direction_at(&(x - offset)),
        }
    }

    /// The world direction at world point `x` of this structure, given in the frame placed at
    /// `at` (a collider's).
    pub fn direction_in(&self, at: &crate::contact::collider::Placement, x: &Vector3<f64>) -> Option<Vector3<f64>> {
        self.direction_at(&(at.rotation.transpose() * (x - at.center))).map(|d| at.rotation * d)
    }

    /// A direction representative of the whole surface for output (`None` for textures, whose
    /// direction varies).
    pub fn uniform(&self) -> Option<Vector3<f64>> {
        match self {
            Structure::Direction(d) => Some(*d),
            Structure::Texture(_) | Structure::Field { .. } => None,
        }
    }
}

impl Rigid {
    pub fn is_dynamic(&self) -> bool {
        self.motion.is_none()
    }
}

/// A cloth: StVK/neo-Hookean membrane triangles and discrete-shell bending hinges.
#[derive(Debug, Clone)]
pub struct Cloth {
    pub name: String,
    pub material: usize,
    /// Global node indices of this body.
    pub nodes: Range<usize>,
    /// Triangles with global node indices.
    pub triangles: Vec<[usize; 3]>,
    pub membrane: Vec<crate::energy::membrane::MembraneElement>,
    pub membrane_material: crate::energy::membrane::MembraneMaterial,
    pub hinges: Vec<crate::energy::bending::HingeElement>,
    /// Hinge stiffness k (J).
    pub bending: f64,
    pub thickness: f64,
    pub self_contact: bool,
    /// Rayleigh coefficients `(alpha, beta)` of `D = alpha M + beta K` (penalty pipeline).
    pub rayleigh: (f64, f64),
    /// Volume-change penalty zone of a closed shell (penalty pipeline), if the scene asks for one.
    pub volume: Option<crate::energy::volume::VolumeZone>,
    /// Matchstick structure per triangle (empty: the cloth has none): coefficients `(c1, c2)`
    /// with the rest structure's in-plane part `s = c1 (X1 − X0) + c2 (X2 − X0)`, so that at
    /// positions `x` the triangle carries `F s = c1 (x1 − x0) + c2 (x2 − x0)` (`F` its
    /// deformation gradient). `(0, 0)` for a triangle the structure is normal to.
    pub structure: Vec<[f64; 2]>,
    /// Per node (from `nodes.start`): itself and the nodes it shares a triangle with, sorted;
    /// built on first use (`one_rings`).
    pub rings: std::sync::OnceLock<Vec<Vec<usize>>>,
}

impl Cloth {
    /// Per node (from `nodes.start`), itself and its neighbours in the triangles, sorted: what a
    /// vertex in contact with its own cloth may not touch. Built once per model.
    pub fn one_rings(&self) -> &[Vec<usize>] {
        self.rings.get_or_init(|| {
            let mut rings: Vec<Vec<usize>> = self.nodes.clone().map(|i| vec![i]).collect();
            for t in &self.triangles {
                for &a in t {
                    rings[a - self.nodes.start].extend(t.iter().filter(|&&b| b != a));
                }
            }
            for r in &mut rings {
                r.sort_unstable();
                r.dedup();
            }
            rings
        })
    }

    /// The structure direction `F s` of triangle `k` at positions `x` (not normalized; zero
    /// when the cloth or the triangle has none).
    pub fn triangle_structure(&self, k: usize, x: &[f64]) -> Vector3<f64> {
        self.structure.get(k).map_or_else(Vector3::zeros, |c| triangle_structure(&self.triangles[k], c, x))
    }
}

/// One rod of a [`RodBundle`]: its elements use local node indices `0..len`.
#[derive(Debug, Clone)]
pub struct RodPiece {
    pub rod: crate::energy::rod::Rod,
    /// Global index of the rod's first node; its nodes are consecutive.
    pub first: usize,
    pub len: usize,
}

/// A body made of discrete elastic rods.
#[derive(Debug, Clone)]
pub struct RodBundle {
    pub name: String,
    pub material: usize,
    pub nodes: Range<usize>,
    pub rods: Vec<RodPiece>,
    pub radius: f64,
    pub self_contact: bool,
    /// Roots rigidly attached to a dynamic rigid body (`attach_to` naming one), if any.
    pub attached: Option<Attachment>,
    /// Rayleigh damping (α in 1/s, β in s) of the material (`Nonsmooth` only).
    pub rayleigh: (f64, f64),
    pub twist: crate::scene::schema::TwistSpec,
    /// Rotational inertia of the section about the centerline per length, ρ π r⁴/2 (kg m).
    pub twist_inertia: f64,
}

/// The first node of every rod of a bundle rides on a dynamic rigid body: its velocity is the
/// body's at that point, `V + ω × R r_b`, so the roots are not unknowns of their own (the
/// nonsmooth nodal step eliminates them onto the body's 6 velocity entries).
#[derive(Debug, Clone)]
pub struct Attachment {
    /// Index of the body in `Model::rigids` (a dynamic one).
    pub body: usize,
    /// Per rod: its root's offset from the body's centre of mass, in the body frame, from the
    /// scene placement at t = 0.
    pub offsets: Vec<Vector3<f64>>,
}

/// Nodes of a `kinematic` region attached to a dynamic rigid body (`attach_to`): they ride on it,
/// their velocity the body's at their offsets (the nonsmooth nodal step eliminates them onto
/// the body's 6 velocity entries, as it does attached rod roots).
#[derive(Debug, Clone)]
pub struct AttachedRegion {
    /// Index of the body in `Model::rigids` (a dynamic one).
    pub body: usize,
    pub nodes: Vec<usize>,
    /// Per node: its offset from the body's centre of mass, in the body frame, from the scene
    /// placement at t = 0.
    pub offsets: Vec<Vector3<f64>>,
}

/// Nodes moved by a script instead of dynamics.
#[derive(Debug, Clone)]
pub struct KinematicSet {
    pub nodes: Vec<usize>,
    /// Positions at t = 0.
    pub rest: Vec<Vector3<f64>>,
    pub motion: Motion,
    /// The animated surface the nodes ride on instead of `motion` (which is then `Fixed`).
    pub follow: Option<std::sync::Arc<animation::Embedding>>,
}

/// Friction laws per material pair.
#[derive(Debug, Clone)]
pub struct FrictionTable {
    pub materials: Vec<String>,
    laws: Vec<SmoothFriction>,
    /// Matchstick `(mu_t, mu_b)` of the pair, where given.
    anisotropy: Vec<Option<[f64; 2]>>,
    /// The pair's cohesion, where given.
    cohesion: Vec<Option<CohesionSpec>>,
    /// The pair's contact compliance (m/N; 0: rigid).
    compliance: Vec<f64>,
    /// The pair's drilling-torque coefficient (m; 0: none).
    drilling: Vec<f64>,
}

/// What a material pair's contact law holds beyond its friction law.
#[derive(Debug, Clone, Copy, Default)]
pub struct PairExtras {
    pub anisotropy: Option<[f64; 2]>,
    pub cohesion: Option<CohesionSpec>,
    pub compliance: Option<f64>,
    pub drilling: Option<f64>,
}

impl FrictionTable {
    pub fn new(materials: Vec<String>, default: SmoothFriction, extras: PairExtras) -> Self {
        let n = materials.len();
        FrictionTable {
            materials,
            laws: vec![default; n * n],
            anisotropy: vec![extras.anisotropy; n * n],
            cohesion: vec![extras.cohesion; n * n],
            compliance: vec![extras.compliance.unwrap_or(0.0); n * n],
            drilling: vec![extras.drilling.unwrap_or(0.0); n * n],
        }
    }
    pub fn set(&mut self, a: usize, b: usize, law: SmoothFriction, extras: PairExtras) {
        let n = self.materials.len();
        for k in [a * n + b, b * n + a] {
            self.laws[k] = law;
            self.anisotropy[k] = extras.anisotropy;
            self.cohesion[k] = extras.cohesion;
            self.compliance[k] = extras.compliance.unwrap_or(0.0);
            self.drilling[k] = extras.drilling.unwrap_or(0.0);
        }
    }
    /// The pair's drilling-torque coefficient `mu_tau` (m; 0 without drilling torque).
    pub fn drilling(&self, a: usize, b: usize) -> f64 {
        self.drilling[a * self.materials.len() + b]
    }
    /// The cohesive force (N) on a contact point of the pair at gap `gap` (0 without cohesion).
    pub fn cohesion(&self, a: usize, b: usize, gap: f64) -> f64 {
        self.cohesion[a * self.materials.len() + b].map_or(0.0, |c| c.at(gap))
    }
    /// The pair's contact compliance (m/N; 0 for rigid contacts).
    pub fn compliance(&self, a: usize, b: usize) -> f64 {
        self.compliance[a * self.materials.len() + b]
    }
    pub fn get(&self, a: usize, b: usize) -> SmoothFriction {
        self.laws[a * self.materials.len() + b]
    }
    /// Whether any pair has matchstick coefficients.
    pub fn any_anisotropy(&self) -> bool {
        self.anisotropy.iter().any(Option::is_some)
    }
    /// The matchstick `(mu_t, mu_b)` of a pair, `None` for an isotropic pair.
    pub fn anisotropy(&self, a: usize, b: usize) -> Option<[f64; 2]> {
        self.anisotropy[a * self.materials.len() + b]
    }
}

/// Everything the scene defines; immutable while stepping.
#[derive(Debug, Clone)]
pub struct Model {
    pub name: String,
    pub dt: f64,
    pub frame_rate: f64,
    pub steps_per_frame: usize,
    pub frames: usize,
    /// Steps of dynamic relaxation before t = 0 (see `Scene::settle`).
    pub settle_steps: usize,
    /// Settle at the initial velocities (see `Scene::settle_in_motion`) rather than at rest.
    pub settle_in_motion: bool,
    pub gravity: Vector3<f64>,
    pub solids: Vec<Solid>,
    pub colliders: Vec<Collider>,
    /// Per collider: matchstick structure in the collider's own frame.
    pub collider_structure: Vec<Option<Structure>>,
    /// Triangle-mesh colliders, apart from the analytic ones (in the nodal pipelines their
    /// vertices are prescribed nodes, after every body's).
    pub mesh_colliders: Vec<crate::contact::collider::MeshCollider>,
    pub rigids: Vec<Rigid>,
    /// Reduced deformable bodies (each the reduction of one of `solids`).
    pub reduced: Vec<crate::reduced::ReducedBody>,
    /// Bilateral joints between rigid bodies (or a body and the world).
    pub joints: Vec<crate::rigid::joint::Joint>,
    pub cloths: Vec<Cloth>,
    pub rod_bundles: Vec<RodBundle>,
    pub friction: FrictionTable,
    /// Lumped mass per node.
    pub node_mass: Vec<f64>,
    pub kinematic: Vec<KinematicSet>,
    /// Regions riding on dynamic rigid bodies.
    pub attached_regions: Vec<AttachedRegion>,
    /// Per node: is its motion prescribed.
    pub node_is_kinematic: Vec<bool>,
    /// Per node: the scene body (`bodies[b]`) it belongs to; `usize::MAX` for a mesh collider's.
    pub node_body: Vec<usize>,
    pub pipeline: PipelineSpec,
    pub output: OutputSpec,
}

impl Model {
    /// Collider `k`'s structure direction (world axes, unnormalised) at world point `x` and time
    /// `t`: its field evaluated in the collider's frame, turned with it.
    pub fn collider_structure_at(&self, k: usize, x: &Vector3<f64>, t: f64) -> Option<Vector3<f64>> {
        self.collider_structure[k].as_ref()?.direction_in(&self.colliders[k].placement(t), x)
    }

    /// Set the velocities `v` of scripted nodes for the step `[t, t + h]` from positions `x`:
    /// the velocity that lands each on its path at the end of the step (both pipelines).
    pub fn set_kinematic_velocities(&self, x: &[f64], t: f64, h: f64, v: &mut [f64]) {
        self.set_stage_kinematic_velocities(x, x, t, h, h, v);
    }

    /// The same for an integrator stage that ends at `t + duration` with positions
    /// `q = q_hat + dq_dv v` (`crate::integrator`): the velocity that puts each scripted node on
    /// its path at the stage's end, from its position `x` at `t`. Backward Euler
    /// (`q_hat = x`, `dq_dv = duration`) gives the landing velocity exactly.
    pub fn set_stage_kinematic_velocities(
        &self,
        x: &[f64],
        q_hat: &[f64],
        t: f64,
        duration: f64,
        dq_dv: f64,
        v: &mut [f64],
    ) {
        let mut work = Vec::new();
        // The stage velocity that lands node `i` with the landing velocity `lv`.
        let mut set = |i: usize, lv: Vector3<f64>| {
            let vk = lv * (duration / dq_dv) + (node(x, i) - node(q_hat, i)) / dq_dv;
            v[3 * i..3 * i + 3].copy_from_slice(vk.as_slice());
        };
        for kin in &self.kinematic {
            let step = kin.motion.step(t, duration);
            // An animated surface's points where they land at the end of the stage.
            let landing = kin.follow.as_ref().map(|f| f.positions(t + duration, &mut work));
            for (k, (&i, rest)) in kin.nodes.iter().zip(&kin.rest).enumerate() {
                set(
                    i,
                    match &landing {
                        Some(target) => (target[k] - node(x, i)) / duration,
                        None => step.landing_velocity(rest, &node(x, i)),
                    },
                );
            }
        }
        // A mesh collider's vertices where its placement and animation put them at the end.
        for c in self.mesh_colliders.iter().filter(|c| !c.nodes.is_empty()) {
            let target = c.world_vertices(t + duration, &mut work);
            for (i, target) in c.nodes.clone().zip(target) {
                set(i, (target - node(x, i)) / duration);
            }
        }
    }

    /// The same model with every scripted motion (kinematic sets, colliders) frozen.
    pub fn frozen(&self) -> Model {
        let mut m = self.clone();
        m.kinematic.iter_mut().for_each(|k| {
            k.motion = motion::Motion::Fixed;
            k.follow = None;
        });
        m.colliders.iter_mut().for_each(|c| c.motion = motion::Motion::Fixed);
        m.mesh_colliders.iter_mut().for_each(|c| {
            c.motion = motion::Motion::Fixed;
            c.animation = None;
        });
        for r in m.rigids.iter_mut().filter(|r| r.motion.is_some()) {
            r.motion = Some(motion::Motion::Fixed);
            r.spin = Vector3::zeros();
        }
        m
    }

    pub fn node_count(&self) -> usize {
        self.node_mass.len()
    }
    pub fn dof_count(&self) -> usize {
        3 * self.node_count()
    }
    /// Every volume-change penalty zone with the name of its body (solids, then cloths).
    pub fn volume_zones(&self) -> impl Iterator<Item = (&str, &crate::energy::volume::VolumeZone)> {
        let solids = self.solids.iter().filter_map(|s| s.volume.as_ref().map(|z| (s.name.as_str(), z)));
        solids.chain(self.cloths.iter().filter_map(|c| c.volume.as_ref().map(|z| (c.name.as_str(), z))))
    }

    /// Per node: the mass-proportional Rayleigh coefficient α of its body (0 for bodies without
    /// damping).
    pub fn node_rayleigh_alpha(&self) -> Vec<f64> {
        let mut alpha = vec![0.0; self.node_count()];
        // A reduced solid damps its modes only (`reduced`), not its rigid motion.
        let ranges =
            self.solids.iter().map(|s| (s.nodes.clone(), if s.reduced.is_some() { 0.0 } else { s.rayleigh.0 }));
        let thin = self.cloths.iter().map(|c| (c.nodes.clone(), c.rayleigh.0));
        let rods = self.rod_bundles.iter().map(|b| (b.nodes.clone(), b.rayleigh.0));
        for (nodes, a) in ranges.chain(thin).chain(rods) {
            alpha[nodes].iter_mut().for_each(|x| *x = a);
        }
        alpha
    }

    pub fn element_count(&self) -> usize {
        self.solids.iter().map(|s| s.elements.len()).sum()
    }
    pub fn total_mass(&self) -> f64 {
        self.node_mass.iter().sum()
    }
    pub fn step_count(&self) -> usize {
        self.frames * self.steps_per_frame
    }
    /// Free (unknown) DOF numbering: `free_index[dof]` or `usize::MAX` for kinematic DOFs.
    pub fn free_dofs(&self) -> (Vec<usize>, usize) {
        let mut idx = vec![usize::MAX; self.dof_count()];
        let mut n = 0;
        for (i, &kin) in self.node_is_kinematic.iter().enumerate() {
            if !kin {
                for k in 0..3 {
                    idx[3 * i + k] = n;
                    n += 1;
                }
            }
        }
        (idx, n)
    }
}

/// What stepping changes.
#[derive(Debug, Clone, PartialEq)]
pub struct State {
    pub time: f64,
    pub step: u64,
    /// Generalized positions (3 per node).
    pub q: Vec<f64>,
    /// Generalized velocities.
    pub v: Vec<f64>,
    /// Current penalty stiffness (adapted, never lowered while contacts are active).
    pub kappa: f64,
    /// Rigid bodies (pose and velocity; shape and inertia fixed), one per `Model::rigids`.
    pub rigid: Vec<RigidBody>,
    /// Reduced bodies (frame, velocities, modal coordinates), one per `Model::reduced`.
    pub reduced: Vec<crate::reduced::ReducedState>,
    /// Reference frames of every rod (bundles in order, rods in order), time-parallel
    /// transported each step.
    pub rod_frames: Vec<crate::energy::rod::RodFrames>,
    /// Edge angles of every rod (same order), and their rates under dynamic twist (zero under
    /// quasistatic twist, whose angles are those its last step used).
    pub rod_twist: Vec<crate::energy::rod::TwistState>,
    /// The start of the previous step, for multistep integrators (BDF2); `None` at the start of
    /// a run and after a step of another size.
    pub history: Option<StepHistory>,
}

/// Positions and velocities at the start of the previous step, and that step's size.
#[derive(Debug, Clone, PartialEq)]
pub struct StepHistory {
    pub q: Vec<f64>,
    pub v: Vec<f64>,
    pub h: f64,
}

/// Node `i` of a generalized vector.
#[inline]
pub fn node(x: &[f64], i: usize) -> Vector3<f64> {
    Vector3::new(x[3 * i], x[3 * i + 1], x[3 * i + 2])
}
#[inline]
pub fn node_arr(x: &[f64], i: usize) -> [f64; 3] {
    [x[3 * i], x[3 * i + 1], x[3 * i + 2]]
}
#[inline]
pub fn set_node(x: &mut [f64], i: usize, v: &Vector3<f64>) {
    x[3 * i..3 * i + 3].copy_from_slice(v.as_slice());
}

impl State {
    pub fn kinetic_energy(&self, model: &Model) -> f64 {
        let nodal: f64 =
            (0..model.node_count()).map(|i| 0.5 * model.node_mass[i] * node(&self.v, i).norm_squared()).sum();
        nodal + self.rigid.iter().map(RigidBody::kinetic_energy).sum::<f64>()
    }

    /// Mass-weighted centroid position and velocity of a solid.
    pub fn centroid(&self, model: &Model, solid: &Solid) -> (Vector3<f64>, Vector3<f64>) {
        self.nodes_centroid(model, solid.nodes.clone())
    }

    /// Mass-weighted centroid position and velocity of a range of nodes (a nodal body).
    pub fn nodes_centroid(&self, model: &Model, nodes: Range<usize>) -> (Vector3<f64>, Vector3<f64>) {
        let (mut x, mut v, mut m) = (Vector3::zeros(), Vector3::zeros(), 0.0);
        for i in nodes {
            let mi = model.node_mass[i];
            x += node(&self.q, i) * mi;
            v += node(&self.v, i) * mi;
            m += mi;
        }
        (x / m, v / m)
    }
}
