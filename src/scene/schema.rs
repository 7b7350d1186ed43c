//! The RON scene format: serde types, defaults and documentation of every field.
//!
//! This file is the single place where the scene format and its defaults are defined; the README's
//! scene reference mirrors it. Every struct denies unknown fields so that a typo is an error with a
//! line and column, never a silently ignored value. Units are SI; angles are degrees.

use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// A 3-vector written as a RON tuple `(x, y, z)`.
pub type Vec3 = [f64; 3];

/// The top-level scene.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Scene {
    /// Name of the run; the default output folder is `output/<name>/`.
    pub name: String,
    /// Time step in seconds.
    pub dt: f64,
    /// Simulated duration in seconds (give `duration` or `frames`, not both).
    #[serde(default)]
    pub duration: Option<f64>,
    /// Number of output frames after the initial one (give `duration` or `frames`, not both).
    #[serde(default)]
    pub frames: Option<usize>,
    /// Output frames per simulated second; `1 / (frame_rate * dt)` must be a whole number of steps.
    pub frame_rate: f64,
    /// Seconds of dynamic relaxation before t = 0 (default 0: none). Bodies are stepped with
    /// scripted motions frozen and all velocities zeroed after every step, so that they start
    /// from static equilibrium under gravity and contact (pre-stressed, resting in the penalty
    /// layer) instead of rocking into it; the scene's initial velocities are applied afterwards.
    #[serde(default)]
    pub settle: f64,
    /// Settle in motion: relax with the bodies moving at their initial velocities instead of at
    /// rest. Each relaxation step starts from the initial velocities and its displacement `h v₀`
    /// is undone, so a body launched along a surface starts in the steady state of that motion
    /// (the friction's shear and tipping moment included) rather than rocking into it. With an
    /// integrator that does not damp (the trapezoid) the difference lasts: 001's block slide.
    #[serde(default)]
    pub settle_in_motion: bool,
    /// Gravity acceleration in m/s^2.
    #[serde(default = "default_gravity")]
    pub gravity: Vec3,
    /// Materials by name; bodies and colliders refer to them.
    pub materials: BTreeMap<String, MaterialSpec>,
    /// Friction laws per material pair, with a default.
    #[serde(default)]
    pub friction: FrictionSpec,
    /// Simulated bodies.
    pub bodies: Vec<BodySpec>,
    /// Analytic obstacles with prescribed motion.
    #[serde(default)]
    pub colliders: Vec<ColliderSpec>,
    /// Bilateral joints between rigid bodies, or a rigid body and the world (`Nonsmooth`).
    #[serde(default)]
    pub joints: Vec<JointSpec>,
    /// The contact pipeline and its solver settings.
    pub pipeline: PipelineSpec,
    /// Which files to write.
    #[serde(default)]
    pub output: OutputSpec,
}

pub fn default_gravity() -> Vec3 {
    [0.0, 0.0, -9.81]
}

/// A material. Elastic constants are required only where a deformable body uses the material;
/// a collider's material only names it for the friction table.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MaterialSpec {
    /// Mass density in kg/m^3 (> 0).
    #[serde(default)]
    pub density: Option<f64>,
    /// Young's modulus in Pa (> 0).
    #[serde(default)]
    pub youngs_modulus: Option<f64>,
    /// Poisson ratio, in [0, 0.5).
    #[serde(default)]
    pub poisson_ratio: Option<f64>,
    /// Hyperelastic model of tetrahedral solids.
    #[serde(default = "default_elastic_model")]
    pub model: crate::energy::ElasticModel,
    /// Rayleigh damping `D = alpha M + beta K` (alpha in 1/s, beta in s).
    #[serde(default)]
    pub damping: Option<RayleighSpec>,
    /// Cloth thickness in m (cloth materials): membrane and bending stiffness, mass per area,
    /// and the contact thickness.
    #[serde(default)]
    pub thickness: Option<f64>,
    /// Cloth membrane model: `StVK` or `NeoHookean` (plane stress with the material's E and ν).
    #[serde(default = "default_membrane_model")]
    pub membrane_model: crate::energy::membrane::MembraneModel,
    /// Cloth hinge bending stiffness k in J (>= 0), in place of the plate value
    /// E h³/(72 (1 − ν²)) from the material's E, ν and thickness: a shell whose bending is not
    /// that of a homogeneous plate (a tire, knitted fabric).
    #[serde(default)]
    pub bending: Option<f64>,
    /// Rod radius in m (rod materials): stretch, bending and twist stiffness, mass per length,
    /// and the contact radius.
    #[serde(default)]
    pub radius: Option<f64>,
    /// Rod bending modulus E_b in Pa (> 0), in place of `youngs_modulus` for the bending
    /// stiffness E_b π r⁴/4 only: 004 gives rods separate bending and stretching moduli (a
    /// strand nearly inextensible yet soft in bending). Stretching (E_s π r²) and twisting
    /// (G = E_s / (2 (1 + ν))) keep `youngs_modulus`.
    #[serde(default)]
    pub bending_modulus: Option<f64>,
}

pub fn default_membrane_model() -> crate::energy::membrane::MembraneModel {
    crate::energy::membrane::MembraneModel::StVK
}

pub fn default_elastic_model() -> crate::energy::ElasticModel {
    crate::energy::ElasticModel::StableNeoHookean
}

#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RayleighSpec {
    #[serde(default)]
    pub alpha: f64,
    #[serde(default)]
    pub beta: f64,
}

/// Friction laws: `default` applies to every material pair not listed in `pairs`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FrictionSpec {
    #[serde(default)]
    pub default: FrictionLawSpec,
    #[serde(default)]
    pub pairs: Vec<FrictionPairSpec>,
    /// Sliding-velocity tolerance of smoothed friction (m/s): below it the friction force ramps
    /// up with the C1 function s(v; epsilon) of 001 eq. (13). A "stuck" contact creeps at most at
    /// this speed.
    #[serde(default = "default_epsilon")]
    pub epsilon: f64,
}

impl Default for FrictionSpec {
    fn default() -> Self {
        FrictionSpec { default: FrictionLawSpec::default(), pairs: Vec::new(), epsilon: default_epsilon() }
    }
}

pub fn default_epsilon() -> f64 {
    1e-4
}

/// A friction law. Plain Coulomb: `(mu: 0.5)`. Stribeck: give `mu_s` (static) and optionally
/// `v_s` (Stribeck velocity, default 10 epsilon); `mu` is then the dynamic coefficient.
/// `mu_v` adds viscous friction (N per m/s per N of normal force... see README).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FrictionLawSpec {
    /// Coulomb (dynamic) coefficient, >= 0. Zero means frictionless.
    #[serde(default)]
    pub mu: f64,
    /// Static coefficient of the Stribeck law (>= mu); absent means plain Coulomb.
    #[serde(default)]
    pub mu_s: Option<f64>,
    /// Stribeck velocity in m/s (> epsilon); default 10 epsilon.
    #[serde(default)]
    pub v_s: Option<f64>,
    /// Viscous coefficient in N s/m per contact point, >= 0.
    #[serde(default)]
    pub mu_v: f64,
    /// Matchstick anisotropy (003): friction along (`mu_t`) and across (`mu_b`) the structure
    /// when the two surfaces' structure directions are parallel, `mu_t <= mu_b`; `mu` is then the
    /// isotropic end reached when they are orthogonal. Give both or neither. Used by the
    /// `Nonsmooth` pipeline.
    #[serde(default)]
    pub mu_t: Option<f64>,
    #[serde(default)]
    pub mu_b: Option<f64>,
    /// Cohesion (004 §6.3): an attractive force per contact point, `Nonsmooth` only.
    #[serde(default)]
    pub cohesion: Option<CohesionSpec>,
    /// Compliance (004 §6.3) in m/N per contact point: each contact of the pair gives way like a
    /// spring of stiffness 1/compliance in series with it, `Nonsmooth` only.
    #[serde(default)]
    pub compliance: Option<f64>,
    /// Drilling torque (003 §2.7) in m: the friction torque about the contact normal, with the
    /// tangential force, is bounded by the ellipsoid `(f_t/mu_t)² + (f_b/mu_b)² + (τ/mu_tau)² ≤
    /// f_N²` (`mu_t = mu_b = mu` when isotropic). A flat contact patch of radius `a` under uniform
    /// pressure resists spin with `2 a mu / 3`. Rigid bodies under `Nonsmooth` only.
    #[serde(default)]
    pub mu_tau: Option<f64>,
}

/// A constant attraction `force` (N) on every contact point of the pair at or below zero gap,
/// falling linearly to zero at gap `range` (m), as 004's Fig. 6 demo has it. The contact law
/// becomes the shifted Signorini condition `r_N ≥ −ξ` with friction bounded by `μ (r_N + ξ)`:
/// a body stays stuck while the pull on it is below the pair's total cohesion.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CohesionSpec {
    pub force: f64,
    pub range: f64,
}

impl CohesionSpec {
    /// The attraction at gap `gap`.
    pub fn at(&self, gap: f64) -> f64 {
        self.force * (1.0 - gap.max(0.0) / self.range).max(0.0)
    }
}

impl Default for FrictionLawSpec {
    fn default() -> Self {
        FrictionLawSpec {
            mu: 0.0,
            mu_s: None,
            v_s: None,
            mu_v: 0.0,
            mu_t: None,
            mu_b: None,
            cohesion: None,
            compliance: None,
            mu_tau: None,
        }
    }
}

/// One material pair's friction: `(between: ("rubber", "wood"), mu: 0.8)`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FrictionPairSpec {
    pub between: (String, String),
    #[serde(default)]
    pub mu: f64,
    #[serde(default)]
    pub mu_s: Option<f64>,
    #[serde(default)]
    pub v_s: Option<f64>,
    #[serde(default)]
    pub mu_v: f64,
    #[serde(default)]
    pub mu_t: Option<f64>,
    #[serde(default)]
    pub mu_b: Option<f64>,
    #[serde(default)]
    pub cohesion: Option<CohesionSpec>,
    #[serde(default)]
    pub compliance: Option<f64>,
    #[serde(default)]
    pub mu_tau: Option<f64>,
}

impl FrictionPairSpec {
    pub fn law(&self) -> FrictionLawSpec {
        FrictionLawSpec {
            mu: self.mu,
            mu_s: self.mu_s,
            v_s: self.v_s,
            mu_v: self.mu_v,
            mu_t: self.mu_t,
            mu_b: self.mu_b,
            cohesion: self.cohesion,
            compliance: self.compliance,
            mu_tau: self.mu_tau,
        }
    }
}

/// A simulated body.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub enum BodySpec {
    /// A tetrahedral FEM solid.
    Solid(SolidSpec),
    /// A rigid body (pipeline `Nonsmooth`).
    Rigid(RigidSpec),
    /// A cloth or shell (triangle membrane with bending; both pipelines).
    Cloth(ClothSpec),
    /// One or more discrete elastic rods (pipeline `Nonsmooth`).
    Rods(RodsSpec),
}

/// A cloth: a triangle mesh with a membrane (StVK) and discrete-shell bending.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ClothSpec {
    pub name: String,
    pub material: String,
    pub mesh: ClothMeshSpec,
    /// Translation applied after rotation (m).
    #[serde(default)]
    pub position: Vec3,
    /// Rotation in degrees about world x, then y, then z.
    #[serde(default)]
    pub rotation: Vec3,
    #[serde(default)]
    pub velocity: Vec3,
    /// Vertex sets with prescribed motion (world coordinates after placement).
    #[serde(default)]
    pub kinematic: Vec<KinematicSpec>,
    /// Contacts of the cloth with itself.
    #[serde(default = "yes")]
    pub self_contact: bool,
    /// A volume-change penalty on the volume a closed cloth encloses (001 §2.4; `Penalty`
    /// pipeline; `region: Boundary` only): an inflated ball or tire.
    #[serde(default)]
    pub volume: Option<VolumeSpec>,
    /// Matchstick structure (warp) direction in the mesh's own coordinates, before `rotation`:
    /// the low-friction axis of an anisotropic material pair (`mu_t`, `mu_b`). It is carried
    /// by the deformation (each triangle maps its rest direction with its deformation gradient).
    #[serde(default)]
    pub structure: Option<Vec3>,
    /// A procedural structure field in the mesh's own coordinates instead (each triangle takes
    /// it at its rest centroid, then carries it like `structure`).
    #[serde(default)]
    pub structure_field: Option<StructureSpec>,
    /// The rest shape as the mesh scaled by this factor (its dihedral angles unchanged): below
    /// 1 the sheet starts stretched (a tensioned belt, a trampoline), above 1 compressed. The
    /// mass is the rest sheet's.
    #[serde(default = "one")]
    pub rest_scale: f64,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub enum ClothMeshSpec {
    /// A rectangle of `size` in the local xy plane, centered, `cells` squares each split in two.
    Grid { size: [f64; 2], cells: [usize; 2] },
    /// An open tube about the local z axis, centered: `cells` = (around, along), around >= 3.
    Tube { radius: f64, length: f64, cells: [usize; 2] },
    /// A closed sphere (a shell) centered at the origin: a cube of `resolution` squares per edge
    /// projected onto the sphere.
    Sphere { radius: f64, resolution: usize },
    /// A `.ply`/`.obj` triangle mesh, relative to the scene file.
    File {
        path: String,
        #[serde(default = "one")]
        scale: f64,
    },
}

/// Rods: polylines with the Discrete Elastic Rods model (stretch, bending, twist).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RodsSpec {
    pub name: String,
    pub material: String,
    pub curves: CurvesSpec,
    #[serde(default)]
    pub velocity: Vec3,
    /// Node sets with prescribed motion (world coordinates).
    #[serde(default)]
    pub kinematic: Vec<KinematicSpec>,
    /// `true`: the first node of every rod is kinematic, moving with `root_motion`.
    #[serde(default)]
    pub fixed_roots: bool,
    #[serde(default)]
    pub root_motion: MotionSpec,
    /// The name of a rigid body the first node of every rod is attached to (instead of
    /// `root_motion`): on a kinematic body (one with a `motion`) the roots are kinematic and move
    /// with its script; on a dynamic body they ride on it (their velocity is the body's at that
    /// point, their masses join it, the rods' forces act on it).
    #[serde(default)]
    pub attach_to: Option<String>,
    /// A point mass (kg) added at the last node of every rod: a load at the tip.
    #[serde(default)]
    pub tip_mass: f64,
    /// A point mass (kg) added at the first node of every rod: a load at the root, so that a
    /// rope can carry a load at each end. Not allowed with `fixed_roots` or `attach_to` (a
    /// kinematic node ignores its mass; a root on a dynamic body: give the body the mass).
    #[serde(default)]
    pub root_mass: f64,
    /// Contacts between the rods of this body (and of a rod with itself).
    #[serde(default = "yes")]
    pub self_contact: bool,
    /// How the material frames turn about the centerline: `Quasistatic` (the edge angles
    /// minimize the twist energy at every step) or `Dynamic` (they are unknowns with the
    /// section's rotational inertia ρ J per length, J = π r⁴/2).
    #[serde(default)]
    pub twist: TwistSpec,
}

/// The twist model of a rod body.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub enum TwistSpec {
    /// The edge angles are set to the twist energy's minimizer each step (004's hair; no
    /// inertia), the root's angle held.
    #[default]
    Quasistatic,
    /// The edge angles are unknowns with inertia, damped by the material's Rayleigh damping,
    /// advanced after the positions of each step. A root that is scripted or attached holds its
    /// edge's angle and turns it with the rotation of what holds it.
    Dynamic,
}

/// Where rod polylines come from (world coordinates).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub enum CurvesSpec {
    /// A straight rod from `start` to `end` with `segments` edges.
    Straight { start: Vec3, end: Vec3, segments: usize },
    /// A helix around the z axis through `center`: `radius`, `pitch` (rise per turn), `turns`.
    Helix { center: Vec3, radius: f64, pitch: f64, turns: f64, segments: usize },
    /// `count` rods rooted on a sphere (Fibonacci lattice), growing along the normal over
    /// `length` with `segments` edges; `curliness` in [0, 1) bends them into helices.
    HairyBall {
        center: Vec3,
        radius: f64,
        count: usize,
        length: f64,
        segments: usize,
        #[serde(default)]
        curliness: f64,
    },
    /// Polylines given inline.
    Polylines(Vec<Vec<Vec3>>),
    /// Polylines from a file, relative to the scene file, coordinates multiplied by `scale`:
    /// `.vtk`/`.vtp` poly data (one rod per line cell) or `.ply` (a `vertex` element and an
    /// `edge` element with `vertex1, vertex2`, chained along the edge direction).
    File {
        path: String,
        #[serde(default = "one")]
        scale: f64,
    },
}

impl BodySpec {
    pub fn name(&self) -> &str {
        match self {
            BodySpec::Solid(b) => &b.name,
            BodySpec::Rigid(b) => &b.name,
            BodySpec::Cloth(b) => &b.name,
            BodySpec::Rods(b) => &b.name,
        }
    }
    pub fn material(&self) -> &str {
        match self {
            BodySpec::Solid(b) => &b.material,
            BodySpec::Rigid(b) => &b.material,
            BodySpec::Cloth(b) => &b.material,
            BodySpec::Rods(b) => &b.material,
        }
    }
}

/// A rigid body. Its mass comes from `mass`, or else from the material's density and the
/// shape's volume; the inertia always from the shape (uniform density).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RigidSpec {
    pub name: String,
    pub material: String,
    pub shape: RigidShapeSpec,
    /// Total mass in kg (> 0); absent: density of the material times the shape's volume.
    #[serde(default)]
    pub mass: Option<f64>,
    /// World position of the shape's origin (its center for the primitives) in m.
    #[serde(default)]
    pub position: Vec3,
    /// Rotation in degrees about the world x, then y, then z axis.
    #[serde(default)]
    pub rotation: Vec3,
    /// Orientation as a unit quaternion `(w, x, y, z)`; replaces `rotation` (give one of them).
    #[serde(default)]
    pub orientation: Option<[f64; 4]>,
    /// Initial velocity of the center of mass (m/s).
    #[serde(default)]
    pub velocity: Vec3,
    /// Initial angular velocity in degrees per second (world axes).
    #[serde(default)]
    pub angular_velocity: Vec3,
    /// Scripted motion: absent for a dynamic body; `Fixed`, `Velocity` or `Keyframes` make the
    /// body kinematic (it pushes others and is not pushed; it spins at `angular_velocity`).
    #[serde(default)]
    pub motion: Option<MotionSpec>,
    /// Structure direction of the surface for matchstick friction.
    #[serde(default)]
    pub structure: Option<StructureSpec>,
}

/// A rigid shape in the body's own frame. Cylinder and capsule axes are the local z axis.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
// Struct variants need this too: without it a typo inside `Box(..)` would be silently ignored.
#[serde(deny_unknown_fields)]
pub enum RigidShapeSpec {
    /// Box of full extents `size`.
    Box { size: Vec3 },
    #[serde(alias = "Ball")]
    Sphere { radius: f64 },
    /// Solid cylinder of full `length` along z.
    Cylinder { radius: f64, length: f64 },
    /// Segment of `length` along z swept by a ball of `radius` (total length `length + 2 radius`).
    Capsule { radius: f64, length: f64 },
    /// A simple polygon `profile` in the local xy plane (either orientation, m) extruded over
    /// `length` along z, centered on z = 0: wedges, voussoirs, prisms; a non-convex profile (an
    /// L-bracket, a notched log) makes a non-convex body.
    Prism { profile: Vec<[f64; 2]>, length: f64 },
    /// A closed, consistently oriented triangle mesh from a `.ply` or `.obj` file, relative to the
    /// scene file; convex or not.
    Mesh {
        path: String,
        #[serde(default = "one")]
        scale: f64,
    },
}

/// Where a surface's structure direction (matchstick friction) comes from.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub enum StructureSpec {
    /// A constant direction in the body frame (projected onto the tangent plane at each contact).
    Direction(Vec3),
    /// A PNG whose red/green channels encode the direction in the mesh's UV space (0.5 = zero),
    /// looked up at the contact point through the mesh's texture coordinates (`Mesh` shapes
    /// with UVs only).
    Texture { path: String },
    /// Procedural (003 §2.9), in the shape's own frame (m): away from `center`.
    Radial {
        #[serde(default)]
        center: Vec3,
    },
    /// Circles about `axis` through `center`.
    Concentric {
        #[serde(default)]
        center: Vec3,
        axis: Vec3,
    },
    /// 003's rotational sweep: `reference` turned about `axis` (through `center`) by the point's
    /// polar angle about the axis; a reference normal to the axis gives radial or concentric
    /// patterns, one along it the axial field.
    Sweep {
        #[serde(default)]
        center: Vec3,
        axis: Vec3,
        reference: Vec3,
    },
    /// Three formulas of the point's coordinates `x`, `y`, `z` (m), e.g. `(x: "-y", y: "x", z: "0")`.
    Expression { x: String, y: String, z: String },
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SolidSpec {
    pub name: String,
    pub material: String,
    pub mesh: MeshSpec,
    /// Translation applied after rotation (m).
    #[serde(default)]
    pub position: Vec3,
    /// Rotation in degrees about the world x, then y, then z axis (applied in that order).
    #[serde(default)]
    pub rotation: Vec3,
    /// Initial linear velocity (m/s).
    #[serde(default)]
    pub velocity: Vec3,
    /// Initial angular velocity about the body's centroid, in degrees per second.
    #[serde(default)]
    pub angular_velocity: Vec3,
    /// Vertex sets with prescribed motion (selected after placement, in world coordinates).
    #[serde(default)]
    pub kinematic: Vec<KinematicSpec>,
    /// A volume-change penalty on this solid (001 §2.4; `Penalty` pipeline).
    #[serde(default)]
    pub volume: Option<VolumeSpec>,
    /// Matchstick structure direction of the boundary in the mesh's own coordinates, before
    /// `rotation` (003; `Nonsmooth`): each boundary triangle takes its in-plane part and
    /// carries it with its deformation.
    #[serde(default)]
    pub structure: Option<Vec3>,
    /// A procedural structure field in the mesh's own coordinates instead (each boundary
    /// triangle takes it at its rest centroid, then carries it like `structure`).
    #[serde(default)]
    pub structure_field: Option<StructureSpec>,
    /// Reduce the solid to a floating frame and its lowest vibration modes (002 §7.2;
    /// `Nonsmooth`): `Modal(modes: r)` (linear) or `StVK(modes: r)` (reduced St. Venant–Kirchhoff).
    #[serde(default)]
    pub reduced: Option<ReducedSpec>,
    /// Start deformed: the nodes displaced from the mesh's rest shape by three formulas of the
    /// rest position, both in the mesh's own coordinates (m) before `rotation` and `position`
    /// (a woven strip starts bent over and under its neighbours and presses on them). A reduced
    /// solid keeps the part its modes carry.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub displacement: Option<DisplacementSpec>,
}

/// A displacement field: three formulas of the rest position's `x`, `y`, `z` (m).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DisplacementSpec {
    pub x: String,
    pub y: String,
    pub z: String,
}

/// A solid's reduced model: `6 + modes` unknowns instead of 3 per node.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub enum ReducedSpec {
    /// Linear modal elasticity on the `modes` lowest vibration modes of the free body.
    Modal { modes: usize },
    /// Reduced St. Venant–Kirchhoff elasticity (Barbič & James 2005) on the same modes.
    StVK { modes: usize },
}

impl ReducedSpec {
    /// Number of modes, and whether the elasticity is StVK.
    pub fn modes(&self) -> (usize, bool) {
        match *self {
            ReducedSpec::Modal { modes } => (modes, false),
            ReducedSpec::StVK { modes } => (modes, true),
        }
    }
}

/// The volume-change penalty of 001 §2.4 on a solid's enclosed volume.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct VolumeSpec {
    /// Which volume: `Boundary`, the solid's own (enclosed by its outer surface), or `Cavity`, the
    /// hollow inside a mesh with inner boundaries (a tennis ball's air).
    #[serde(default)]
    pub region: VolumeRegion,
    /// Isothermal compressibility κv of the medium in 1/atm (> 0): a gas at 1 atm is 1, water
    /// 4.6e-5.
    pub compressibility_per_atm: f64,
    /// `Quadratic` (001 eq. 19), `IdealGas` (eq. 17, P0 = 1/κv) or `NearlyIncompressible` (eq. 18).
    #[serde(default)]
    pub form: crate::energy::volume::VolumeForm,
    /// Gauge pressure of the medium in the rest shape (atm): a tennis ball is about 1.
    #[serde(default)]
    pub gauge_pressure_atm: f64,
    /// Assembled Newton Jacobians: `Exact` keeps the dense rank-one term `π' ∇V ∇Vᵀ` (applied as
    /// a low-rank update, never stored), `Sparse` drops it (001 Table II(c)). The matrix-free
    /// solver always uses the exact Jacobian.
    #[serde(default)]
    pub jacobian: VolumeJacobian,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
pub enum VolumeRegion {
    #[default]
    Boundary,
    Cavity,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
pub enum VolumeJacobian {
    #[default]
    Exact,
    Sparse,
}

/// Where a solid's tetrahedra come from.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
// Struct variants need this too: without it a typo inside `Box(..)` would be silently ignored.
#[serde(deny_unknown_fields)]
pub enum MeshSpec {
    /// Axis-aligned box centered at the origin, `cells` structured cubes each split into 6 tets.
    /// With `wall > 0`, a hollow box (a closed container) whose walls are the outer cells within
    /// `wall` of its faces.
    Box {
        size: Vec3,
        cells: [usize; 3],
        #[serde(default)]
        wall: f64,
    },
    /// Ball centered at the origin; `resolution` cells across the diameter. With
    /// `inner_radius > 0`, a hollow ball (a shell around a cavity; `resolution` even, >= 4).
    #[serde(alias = "Sphere")]
    Ball {
        radius: f64,
        resolution: usize,
        #[serde(default)]
        inner_radius: f64,
    },
    /// An upside-down bowl: the upper half of the hollow ball `Ball(radius, resolution,
    /// inner_radius)`, its rim in the local plane z = 0 and its opening facing -z.
    Bowl { radius: f64, inner_radius: f64, resolution: usize },
    /// A `.vtk` (legacy) or `.vtu` file of tetrahedra, relative to the scene file.
    File {
        path: String,
        #[serde(default = "one")]
        scale: f64,
    },
    /// A closed `.obj`/`.ply` surface (times `scale`) embedded in a cage of tetrahedra (004's
    /// non-conforming solids, `Nonsmooth`): the cage carries elasticity and mass, the surface
    /// rides in it at fixed barycentric weights and makes the contacts.
    Embedded {
        surface: String,
        #[serde(default = "one")]
        scale: f64,
        cage: CageSpec,
    },
}

/// The cage of an `Embedded` solid mesh.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub enum CageSpec {
    /// The cubes of side `cell` (m) of a regular grid that the surface touches or encloses.
    Grid { cell: f64 },
    /// A `.vtk`/`.vtu` tet mesh (times `scale`, relative to the scene file) that contains every
    /// surface vertex.
    File {
        path: String,
        #[serde(default = "one")]
        scale: f64,
    },
}

pub fn one() -> f64 {
    1.0
}

/// A set of vertices with prescribed motion.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct KinematicSpec {
    pub region: RegionSpec,
    #[serde(default)]
    pub motion: MotionSpec,
    /// Ride on an animated surface instead of a `motion`: each selected vertex follows its
    /// nearest point of the sequence's first frame (keeping its offset from it).
    #[serde(default)]
    pub follow: Option<FollowSpec>,
    /// Attach the selected vertices to a rigid body instead of a `motion`: a scripted body's
    /// script moves them; on a dynamic body they ride as part of it (`Nonsmooth` only).
    #[serde(default)]
    pub attach_to: Option<String>,
}

/// An animated surface a kinematic region rides on: a numbered sequence of mesh files in world
/// coordinates (times `scale`), played as a mesh collider's `animation`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FollowSpec {
    pub path: String,
    #[serde(default = "one")]
    pub scale: f64,
    pub animation: AnimationSpec,
}

/// A region of space selecting vertices (world coordinates at t = 0; bounds inclusive).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
// Struct variants need this too: without it a typo inside `Box(..)` would be silently ignored.
#[serde(deny_unknown_fields)]
pub enum RegionSpec {
    Box {
        min: Vec3,
        max: Vec3,
    },
    /// The points within `radius` of the line through `center` along `axis` and within
    /// `length / 2` of `center` along it: an axle's bore, a rim.
    Cylinder {
        center: Vec3,
        axis: Vec3,
        radius: f64,
        length: f64,
    },
}

impl RegionSpec {
    /// Whether the region holds point `p` (bounds inclusive).
    pub fn contains(&self, p: &[f64; 3]) -> bool {
        match self {
            RegionSpec::Box { min, max } => (0..3).all(|c| p[c] >= min[c] && p[c] <= max[c]),
            RegionSpec::Cylinder { center, axis, radius, length } => {
                let n = axis.iter().map(|a| a * a).sum::<f64>().sqrt();
                let d: Vec<f64> = (0..3).map(|c| p[c] - center[c]).collect();
                let along = (0..3).map(|c| d[c] * axis[c] / n).sum::<f64>();
                let across = (d.iter().map(|x| x * x).sum::<f64>() - along * along).max(0.0).sqrt();
                across <= *radius && along.abs() <= 0.5 * length
            }
        }
    }
}

/// Prescribed motion of kinematic vertices, rod roots, colliders and kinematic rigid bodies: a
/// rigid map of the scene placement, `x(t) = pivot + c(t) + R(t) (x_rest - pivot)`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default)]
// Struct variants need this too: without it a typo inside `Rigid(..)` would be silently ignored.
#[serde(deny_unknown_fields)]
pub enum MotionSpec {
    /// Does not move.
    #[default]
    Fixed,
    /// Constant velocity in m/s.
    Velocity(Vec3),
    /// Piecewise-linear translation offsets `(time, (dx, dy, dz))` with increasing times; held
    /// before the first and after the last key.
    Keyframes(Vec<(f64, Vec3)>),
    /// Keyed rigid motion `(time, (dx, dy, dz), (rx, ry, rz))`: translation (m) and rotation
    /// about `pivot` (degrees about world x, then y, then z, as in `rotation` fields). Between
    /// keys the translation is linear and the orientation turns along the shortest rotation
    /// (slerp) at a constant rate; held before the first and after the last key. The pose at
    /// t = 0 must be the scene placement (zero translation and rotation).
    Rigid {
        #[serde(default)]
        pivot: Vec3,
        keys: Vec<(f64, Vec3, Vec3)>,
    },
    /// Rotation about `axis` through `pivot` by `amplitude * sin(2 pi t / period)` degrees.
    Oscillate {
        #[serde(default)]
        pivot: Vec3,
        axis: Vec3,
        amplitude: f64,
        period: f64,
    },
    /// Rotation about `axis` through `pivot` at `rate` degrees per second.
    Spin {
        #[serde(default)]
        pivot: Vec3,
        axis: Vec3,
        rate: f64,
    },
}

/// An analytic obstacle. Each carries a material name for the friction table.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
// Struct variants need this too: without it a typo inside `Box(..)` would be silently ignored.
#[serde(deny_unknown_fields)]
pub enum ColliderSpec {
    /// Half-space below the plane through `position` with normal `rotation * (0, 0, 1)`.
    /// `structure`: matchstick structure direction in the plane's frame (before `rotation`);
    /// `structure_field`: a procedural field in that frame instead.
    Plane {
        name: String,
        material: String,
        #[serde(default)]
        position: Vec3,
        #[serde(default)]
        rotation: Vec3,
        #[serde(default)]
        motion: MotionSpec,
        #[serde(default)]
        structure: Option<Vec3>,
        #[serde(default)]
        structure_field: Option<StructureSpec>,
    },
    /// Solid box of full extents `size` centered at `position`.
    Box {
        name: String,
        material: String,
        size: Vec3,
        #[serde(default)]
        position: Vec3,
        #[serde(default)]
        rotation: Vec3,
        #[serde(default)]
        motion: MotionSpec,
        #[serde(default)]
        structure: Option<Vec3>,
        #[serde(default)]
        structure_field: Option<StructureSpec>,
    },
    /// Solid sphere.
    Sphere {
        name: String,
        material: String,
        radius: f64,
        #[serde(default)]
        position: Vec3,
        #[serde(default)]
        motion: MotionSpec,
    },
    /// Solid capped cylinder with its axis along the local z axis.
    Cylinder {
        name: String,
        material: String,
        radius: f64,
        length: f64,
        #[serde(default)]
        position: Vec3,
        #[serde(default)]
        rotation: Vec3,
        #[serde(default)]
        motion: MotionSpec,
    },
    /// A triangle mesh (`.obj` or `.ply`, relative to the scene file, times `scale`) whose
    /// triangles face outward: any shape, convex or not, open (a terrain: the side its normals
    /// face is outside) or closed. `Smooth` makes an MLS field of it; `Penalty` and `Nonsmooth`
    /// carry its vertices as prescribed nodes whose triangles others touch.
    Mesh {
        name: String,
        material: String,
        path: String,
        #[serde(default = "one")]
        scale: f64,
        #[serde(default)]
        position: Vec3,
        #[serde(default)]
        rotation: Vec3,
        #[serde(default)]
        motion: MotionSpec,
        /// Per-vertex animation: `path` is then a numbered pattern (`"hand_{:04}.obj"`), one
        /// file per frame, all with the first frame's vertices and triangles, or a glTF 2.0
        /// skinned animation (`"hand.glb"`, `"hand.gltf"`).
        #[serde(default)]
        animation: Option<AnimationSpec>,
        /// Matchstick structure in the mesh's own frame: a `Direction` or a procedural field
        /// (`Nonsmooth` and `Smooth`).
        #[serde(default)]
        structure: Option<StructureSpec>,
    },
}

/// How an animated mesh plays. A numbered sequence of mesh files shows frame `k` at
/// `t = k / fps`; a glTF file (`.gltf`/`.glb`) plays its skinned mesh by one of its clips, from
/// the clip's first key at t = 0, with the clip's own key times and interpolation. After the end
/// the last pose holds, or with `loop: true` the animation starts over.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AnimationSpec {
    /// Frames per second (> 0) of a numbered sequence; not given for glTF.
    #[serde(default)]
    pub fps: Option<f64>,
    #[serde(default, rename = "loop")]
    pub looped: bool,
    /// A sequence's `Linear` interpolation between frames, or `Smooth` (Catmull–Rom: velocities
    /// continuous); not given for glTF, whose clip says.
    #[serde(default)]
    pub interpolation: Option<crate::model::animation::Interpolation>,
    /// The glTF clip to play, by name (default: the file's first clip); not given for sequences.
    #[serde(default)]
    pub clip: Option<String>,
}

/// The contact pipeline.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub enum PipelineSpec {
    /// Cubic penalty contact with smoothed friction, solved implicitly by damped Newton (001).
    Penalty(PenaltySpec),
    /// Exact Coulomb contact: a velocity-level step whose contact forces solve a discrete
    /// frictional contact problem (002, 003).
    Nonsmooth(NonsmoothSpec),
    /// 000's smooth implicit contact surfaces: an implicit-Euler predictor under linearized
    /// non-penetration constraints on the MLS potential, a friction solve on the Delassus
    /// operator (polar Staggered Projections by default), and a corrector.
    Smooth(SmoothSpec),
}

impl PipelineSpec {
    pub fn on_failure(&self) -> OnFailure {
        match self {
            PipelineSpec::Penalty(p) => p.on_failure,
            PipelineSpec::Nonsmooth(p) => p.on_failure,
            PipelineSpec::Smooth(p) => p.on_failure,
        }
    }
}

/// The smooth-surface pipeline of 000 (Algorithm 1).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SmoothSpec {
    /// The MLS field every solid's boundary generates (000 §4.1): `kernel` `Cubic` or
    /// `Approximate(epsilon: ε)`, `radius` the support R in m (more than half the largest boundary
    /// triangle). Colliders are their own exact signed distance.
    pub field: SmoothFieldSpec,
    /// Carry the previous step's friction impulse into the predictor (000 §5.4); `false` is the
    /// paper's ablation.
    #[serde(default = "yes")]
    pub forwarding: bool,
    #[serde(default)]
    pub predictor: PredictorSpec,
    #[serde(default)]
    pub friction: SmoothFrictionSpec,
    /// The response the friction step sees: `Stiffness` (default), the predictor's implicit-Euler
    /// matrix `M + h² K`, so that `W = G (M + h² K)⁻¹ Gᵀ` and the corrector moves the whole body
    /// consistently with its elasticity; or `Mass`, 000's `W = G M⁻¹ Gᵀ`, where friction reaches
    /// the body beyond the contact vertices only through forwarding in later steps.
    #[serde(default)]
    pub delassus: DelassusSpec,
    /// Contacts farther than this fraction of the largest body extent at the step start, and with
    /// no predictor impulse, are left out of the friction solve (000 §6: 1e-4).
    #[serde(default = "default_prune")]
    pub prune: f64,
    /// What a step whose predictor or friction solve fails its tolerance does to the run.
    #[serde(default)]
    pub on_failure: OnFailure,
}

/// The operator of the Smooth pipeline's friction step (see `SmoothSpec::delassus`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
pub enum DelassusSpec {
    #[default]
    Stiffness,
    Mass,
}

/// Kernel and support radius of the MLS fields.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SmoothFieldSpec {
    #[serde(default)]
    pub kernel: crate::contact::implicit::Kernel,
    pub radius: f64,
}

/// The predictor's interior-point solve.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PredictorSpec {
    /// Tolerance in m/s on the stationarity residual per node (`|r_i| / m_i`), the constraint
    /// violation, and the complementarity `min(gap rate, impulse / vertex mass)`.
    #[serde(default = "default_predictor_tolerance")]
    pub tolerance: f64,
    #[serde(default = "default_predictor_iterations")]
    pub max_iterations: usize,
}

impl Default for PredictorSpec {
    fn default() -> Self {
        PredictorSpec { tolerance: default_predictor_tolerance(), max_iterations: default_predictor_iterations() }
    }
}

/// The friction solve on the Delassus operator.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SmoothFrictionSpec {
    #[serde(default)]
    pub solver: SmoothFrictionSolver,
    /// Relative natural-map error at which the friction problem counts as solved.
    #[serde(default = "default_dfcp_tolerance")]
    pub tolerance: f64,
    /// Outer iterations of the solver (Staggered Projections: `k_max`).
    #[serde(default = "default_dfcp_iterations")]
    pub max_iterations: usize,
    /// When polar Staggered Projections stops: `NaturalMap` (at `tolerance`), or 000's
    /// `RelativeChange(1e-4)`, the friction impulse's relative change per outer iteration.
    #[serde(default)]
    pub stop: crate::dfcp::polar_sp::PolarStop,
}

impl Default for SmoothFrictionSpec {
    fn default() -> Self {
        SmoothFrictionSpec {
            solver: SmoothFrictionSolver::default(),
            tolerance: default_dfcp_tolerance(),
            max_iterations: default_dfcp_iterations(),
            stop: crate::dfcp::polar_sp::PolarStop::default(),
        }
    }
}

/// Solver of the friction step.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
pub enum SmoothFrictionSolver {
    /// Staggered Projections in 000's polar form.
    #[default]
    PolarStaggeredProjections,
    GaussSeidel,
    FischerBurmeister,
    /// Gauss–Seidel while it makes progress, then Fischer–Burmeister.
    Auto,
}

impl SmoothFrictionSolver {
    /// The name of [`crate::dfcp::dispatch`].
    pub fn dispatch_name(self) -> &'static str {
        match self {
            SmoothFrictionSolver::PolarStaggeredProjections => "sp-polar",
            SmoothFrictionSolver::GaussSeidel => "gs",
            SmoothFrictionSolver::FischerBurmeister => "fb",
            SmoothFrictionSolver::Auto => "auto",
        }
    }
}

pub fn default_prune() -> f64 {
    1e-4
}
pub fn default_predictor_tolerance() -> f64 {
    1e-8
}
pub fn default_predictor_iterations() -> usize {
    100
}

/// The nonsmooth (exact Coulomb) pipeline.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NonsmoothSpec {
    #[serde(default)]
    pub solver: DfcpSolverSpec,
    /// Relative natural-map error at which the contact problem counts as solved.
    #[serde(default = "default_dfcp_tolerance")]
    pub tolerance: f64,
    /// Iteration cap of the contact solver (its own iterations: sweeps, SP pairs, Newton steps).
    #[serde(default = "default_dfcp_iterations")]
    pub max_iterations: usize,
    /// Start each solve from the previous step's forces of the same contacts.
    #[serde(default = "yes")]
    pub warm_start: bool,
    /// Newton restitution coefficient in [0, 1] for impacts faster than `restitution_threshold`.
    #[serde(default)]
    pub restitution: f64,
    /// Approach speed (m/s) below which impacts are inelastic (resting contacts must not bounce).
    #[serde(default = "default_restitution_threshold")]
    pub restitution_threshold: f64,
    /// Penetration recovery: this fraction of a penetration deeper than `allowed_penetration` is
    /// removed per step (a velocity bias). 0 disables it (002 uses none).
    #[serde(default = "default_erp")]
    pub penetration_correction: f64,
    /// Penetration (m) tolerated without correction, so resting contacts do not jitter.
    #[serde(default = "default_slop")]
    pub allowed_penetration: f64,
    /// Contacts are generated for gaps below this distance (m) plus the distance the pair can
    /// close within the step.
    #[serde(default = "default_contact_margin")]
    pub contact_margin: f64,
    /// What a step whose contact problem fails its tolerance does to the run.
    #[serde(default)]
    pub on_failure: OnFailure,
    /// Projected Newton iterations per step for cloth and rods (004's N_PN), each one a
    /// linearized contact problem solved by nodal ADMM.
    #[serde(default = "default_newton_iterations")]
    pub newton_iterations: usize,
    /// Settings of the nodal ADMM solver (`solver: Admm`).
    #[serde(default)]
    pub admm: AdmmSpec,
    /// How cloth, rods and solids take a step: `ProjectedNewton` (004's Algorithm 2 inside
    /// `newton_iterations` linearizations) or `Admm` (004 §6.1's ADMM integrator: one ADMM loop
    /// splitting the elastic energy per element, with a global matrix factorised once per run;
    /// needs `solver: Admm`).
    #[serde(default)]
    pub nodal_integrator: NodalIntegratorSpec,
    /// Solve each island (contacts sharing no dynamic body) as its own problem, in parallel;
    /// `false` solves one problem for all contacts. Rigid steps, and nodal steps (solids,
    /// reduced bodies, cloth, rods) under a solver of the Delassus form (not `Admm`, `NlIca`).
    #[serde(default = "yes")]
    pub islands: bool,
    /// Rigid-body contact steps: write 002's diagnostics to stats.csv (`lcp_residual`,
    /// `st_objective`, `painleve_deg`; `dfcp::diagnostics`), measured on the polygon of the
    /// solver's `samples` (8 for the exact-cone solvers). Costs dense eigen-decompositions of
    /// the contact blocks each step.
    #[serde(default)]
    pub diagnostics: bool,
    /// Rigid bodies: `Moreau` (default: the predictor–corrector above, positions from the end
    /// velocity) or `Variational`, 002's symmetric half-step integrator with friction (§4.5):
    /// contacts only where bodies touch or overlap at the step start, every one of them elastic
    /// (`Nᵀ(v⁺ + v) >= 0`, restitution 1, no penetration correction), positions from the mean of
    /// the start and end velocities. It keeps the energy in flight and in normal impacts; only
    /// friction takes it out.
    #[serde(default)]
    pub integrator: RigidIntegratorSpec,
    /// Rigid bodies under anisotropic (matchstick) friction: at most this many times per step,
    /// generate the contacts' friction frames and cones again at the step's end configuration
    /// and solve again, until no frame turns by more than `tolerance` radians (003's fully
    /// implicit frame generator, which Flex uses; a step whose frames still turn after the last
    /// pass fails). `0` keeps them at the step's start (semi-implicit, as PROX and Vortex).
    #[serde(default)]
    pub implicit_frames: usize,
}
/// The most regenerations `implicit_frames` may ask for: a fixed point that has not settled in
/// this many passes will not (each pass is a full contact solve).
pub const MAX_IMPLICIT_FRAMES: usize = 50;

/// The time integrator of rigid bodies in the nonsmooth pipeline.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
pub enum RigidIntegratorSpec {
    #[default]
    Moreau,
    Variational,
}

/// The time integrator of nodal bodies in the nonsmooth pipeline.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
pub enum NodalIntegratorSpec {
    #[default]
    ProjectedNewton,
    Admm,
}

/// Nodal ADMM settings (004 Algorithms 2–3, Table 5).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AdmmSpec {
    /// Gauss–Seidel sweeps of the contact projection per ADMM iteration (N_GS).
    #[serde(default = "default_gs_sweeps")]
    pub gs_sweeps: usize,
    /// 004's δ∞ stopping rule: a solve also ends when `h (|v - v_prev|∞ + |v - p|∞)` (m) is below
    /// this length (004 uses 1e-5 m); the natural-map error is still measured and reported.
    #[serde(default)]
    pub delta_inf: Option<f64>,
    /// Continuous collision detection every this many ADMM iterations (and on the iterate about
    /// to be returned), new contacts appended to the running solve; 0 turns it off (the
    /// after-solve check still runs).
    #[serde(default = "default_ccd_every")]
    pub ccd_every: usize,
    /// Contacts whose update is below 0.01 δ∞ skip a few sweeps (004 §6.3).
    #[serde(default = "yes")]
    pub sleeping: bool,
    /// Accelerated ADMM with restarts (004 Algorithm 4). On by default: it solves loaded stiff
    /// ropes that plain ADMM leaves at the iteration limit (`tests/ropes.rs`) and takes fewer
    /// iterations on the shipped cloth and hair scenes (measured 1.1–2.7x fewer).
    #[serde(default = "yes")]
    pub accelerated: bool,
    /// `nodal_integrator: Admm` only: each element's consensus weight is this factor times its
    /// stiffness (the mean positive eigenvalue of its Hessian at the start). Smaller converges
    /// faster until the local problems of compressed cloth turn non-convex (see the README).
    #[serde(default = "default_element_weight")]
    pub element_weight: f64,
    /// A factor on 004's contact weights `W` (`w_j = max(σ η_j, min(β m_j, η_j))`, σ = 0.001,
    /// β = 25). The fixed point does not depend on it; the iterations do (see the README).
    #[serde(default = "default_contact_weight")]
    pub contact_weight: f64,
    /// What `m_j` is in that heuristic (see [`AdmmWeightsSpec`]).
    #[serde(default)]
    pub weights: AdmmWeightsSpec,
    /// How ADMM's global step `(A + W) v = b` is solved (see [`AdmmLinearSpec`]).
    #[serde(default)]
    pub linear_solver: AdmmLinearSpec,
    /// CG's tolerance as a fraction of δ∞ (004's τ_LS) when the global step is iterative.
    #[serde(default = "default_tau_ls")]
    pub tau_ls: f64,
}

/// How ADMM's global step is solved (004 §5.3).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub enum AdmmLinearSpec {
    /// Chosen by the scene's bodies (see the README).
    #[default]
    Auto,
    /// One sparse Cholesky of the whole matrix.
    Cholesky,
    /// One Cholesky per body, in parallel; CG preconditioned by them where bodies are coupled
    /// (rods rooted on a dynamic body).
    Objects,
    /// CG preconditioned by the diagonal (004's reproduction inside Argus).
    Jacobi,
}

pub fn default_tau_ls() -> f64 {
    1e-4
}

/// The `m_j` of 004's ADMM weight heuristic `w_j = max(σ η_j, min(β m_j, η_j))`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub enum AdmmWeightsSpec {
    /// The node's mass, as 004 §5.4 prints it: the weight of a node whose stiffness exceeds
    /// β times its mass is capped at β m_j. Fewer iterations on the hairy ball, many more on
    /// stiff solids and under the ADMM integrator (README).
    Mass,
    /// The mean diagonal of the node's 3x3 block of `M + h² K`; as that is at least `η_j`, the
    /// weight is always `η_j` (the stiffest bound, no mass guard).
    #[default]
    Stiffness,
    /// Not the heuristic: the node's full 3x3 block of `M + h² K` as its weight (004 Table 3's
    /// "anisotropic" ablation), so contact Delassus blocks are not isotropic and every contact
    /// takes the full-block local solver.
    Blocks,
}

pub fn default_contact_weight() -> f64 {
    1.0
}

pub fn default_element_weight() -> f64 {
    0.3
}

pub fn default_gs_sweeps() -> usize {
    10
}
pub fn default_ccd_every() -> usize {
    5
}

impl Default for AdmmSpec {
    fn default() -> Self {
        AdmmSpec {
            gs_sweeps: default_gs_sweeps(),
            delta_inf: None,
            ccd_every: default_ccd_every(),
            sleeping: true,
            accelerated: true,
            element_weight: default_element_weight(),
            contact_weight: default_contact_weight(),
            weights: AdmmWeightsSpec::default(),
            linear_solver: AdmmLinearSpec::default(),
            tau_ls: default_tau_ls(),
        }
    }
}

pub fn default_newton_iterations() -> usize {
    2
}

impl Default for NonsmoothSpec {
    fn default() -> Self {
        NonsmoothSpec {
            solver: DfcpSolverSpec::default(),
            tolerance: default_dfcp_tolerance(),
            max_iterations: default_dfcp_iterations(),
            warm_start: true,
            restitution: 0.0,
            restitution_threshold: default_restitution_threshold(),
            penetration_correction: default_erp(),
            allowed_penetration: default_slop(),
            contact_margin: default_contact_margin(),
            on_failure: OnFailure::default(),
            newton_iterations: default_newton_iterations(),
            admm: AdmmSpec::default(),
            nodal_integrator: NodalIntegratorSpec::default(),
            islands: true,
            diagnostics: false,
            integrator: RigidIntegratorSpec::Moreau,
            implicit_frames: 0,
        }
    }
}

pub fn default_dfcp_tolerance() -> f64 {
    1e-6
}
pub fn default_dfcp_iterations() -> usize {
    1000
}
pub fn default_restitution_threshold() -> f64 {
    0.1
}
/// Outer acceleration of Staggered Projections.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub enum SpAcceleration {
    /// Algorithm 1 as printed. (Not `None`: on the command line `--set` reads `None` as an
    /// absent option.)
    Off,
    /// Anderson extrapolation with this memory.
    Anderson(usize),
}

impl Default for SpAcceleration {
    fn default() -> Self {
        SpAcceleration::Anderson(crate::dfcp::staggered_projections::AA_MEMORY)
    }
}

/// Stopping rule of Staggered Projections (`dfcp::staggered_projections::SpStop`).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize, Default)]
#[serde(deny_unknown_fields)]
pub enum SpStopSpec {
    #[default]
    NaturalMap,
    RelativeChange(f64),
    Residual(f64),
}

/// Form of Staggered Projections' contact QP (`dfcp::staggered_projections::SpContactQp`).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize, Default)]
#[serde(deny_unknown_fields)]
pub enum SpContactQpSpec {
    Dual,
    Primal,
    #[default]
    Auto,
}

pub fn default_sp_proximal() -> f64 {
    crate::dfcp::staggered_projections::PROXIMAL
}

/// 002's tangent samples.
pub fn default_lcp_samples() -> usize {
    crate::dfcp::lemke_st::DEFAULT_SAMPLES
}
pub fn default_erp() -> f64 {
    0.2
}
pub fn default_slop() -> f64 {
    1e-4
}
pub fn default_contact_margin() -> f64 {
    2e-3
}

/// The exact solver of each step's contact problem.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize, Default)]
#[serde(deny_unknown_fields)]
pub enum DfcpSolverSpec {
    /// Staggered Projections (002): alternating contact and friction QPs. `samples`: friction
    /// polygon with that many sides (002 uses 8; its error against the true cone then plateaus
    /// near the faceting error, ~8 % of the friction force), absent: the exact cone.
    ///
    /// `acceleration: Anderson(5)` (default) extrapolates the outer iteration, `Off` runs
    /// 002's Algorithm 1 as printed; `proximal` (default 1e-3) weighs a proximal term of both
    /// QPs relative to their Lipschitz constants, 0 gives the QPs as printed; `stop` is
    /// `NaturalMap` (default: the pipeline's `tolerance`), `RelativeChange(eps)` (002 eq. 5.21)
    /// or `Residual(eps)` (002 eq. 5.22). With either thesis rule the step's `converged` is still
    /// the natural map against `tolerance`. `contact_qp` is the contact QP's form (002
    /// §5.3.6): `Dual` in the normal impulses, `Primal` in the bodies' velocities (002 eq.
    /// 5.11; needs `proximal: 0.0`; rigid bodies without joints), `Auto` (default) the primal
    /// where contacts outnumber the velocities.
    StaggeredProjections {
        #[serde(default)]
        samples: Option<usize>,
        #[serde(default)]
        acceleration: SpAcceleration,
        #[serde(default = "default_sp_proximal")]
        proximal: f64,
        #[serde(default)]
        stop: SpStopSpec,
        #[serde(default)]
        contact_qp: SpContactQpSpec,
    },
    /// PROX Gauss–Seidel with elliptic cones (003).
    Prox,
    /// Fischer–Burmeister nonsmooth Newton.
    FischerBurmeister,
    /// Proximal point around Fischer–Burmeister Newton (regularised by `W + αI`, α following
    /// the error): for singular or redundant `W`.
    ProximalPoint,
    /// Block Gauss–Seidel with the exact local solver.
    GaussSeidel,
    /// Projected Gauss–Seidel on the LCP with a box friction cone (the classic baseline).
    PgsLcp,
    /// Projected Gauss–Seidel on the LCP of a `samples`-gon inscribed in each contact's
    /// friction ellipse (003's polyhedral-cone baseline; `PgsLcp` is the circumscribed box).
    PgsPolygon {
        #[serde(default = "default_lcp_samples")]
        samples: usize,
    },
    /// Lemke's complementary pivoting on the Stewart–Trinkle LCP with `samples` tangent samples
    /// per contact (002's direct baseline). Dense: at most 3000 LCP unknowns, `nc (samples + 2)`.
    Lemke {
        #[serde(default = "default_lcp_samples")]
        samples: usize,
    },
    /// Projected Gauss–Seidel on the Stewart–Trinkle LCP with a Tikhonov term that shrinks as it
    /// converges (002's regularised iterative LCP baseline).
    RegularisedLcp {
        #[serde(default = "default_lcp_samples")]
        samples: usize,
    },
    /// SQP on 002's nonconvex program (5.32) over the Stewart–Trinkle LCP with `samples` tangent
    /// samples, its convex QP subproblems solved by Clarabel (002's SQP baseline). It stops at a
    /// KKT point, which need not be a solution.
    Sqp {
        #[serde(default = "default_lcp_samples")]
        samples: usize,
    },
    /// The default (`dfcp::dispatch::auto`): Gauss–Seidel while its rate predicts it finishes
    /// within 50 sweeps, then Fischer–Burmeister Newton on problems of at most 600 unknowns,
    /// then local ADMM, then Fischer–Burmeister from the ADMM's best iterate.
    #[default]
    Auto,
    /// Nodal ADMM with matrix-free Gauss–Seidel projections on the global problem (004; cloth
    /// and rods only).
    Admm,
    /// ADMM in the bodies' velocities with the contact velocities split off (Siconos's global
    /// ADMM, `dfcp::velocity_admm`): one solve with `A + ρ H P Hᵀ` and one projection per contact
    /// an iteration, for piles of rigid bodies (without joints) whose contacts outnumber the
    /// bodies' unknowns. An island of at most 200 contacts goes to `Auto` on `W` formed from the
    /// factor (`dfcp::dispatch::factored`).
    VelocityAdmm,
    /// NL-ICA, 004's baseline: Otaduy 2009's nested relaxation of the global problem with an
    /// exact one-contact solver (`dfcp::nl_ica`; solids, cloth and rods only).
    NlIca,
}

impl DfcpSolverSpec {
    /// The sides of the friction polygon the solver works on, if it works on one.
    pub fn samples(&self) -> Option<usize> {
        match *self {
            DfcpSolverSpec::StaggeredProjections { samples, .. } => samples,
            DfcpSolverSpec::Lemke { samples }
            | DfcpSolverSpec::RegularisedLcp { samples }
            | DfcpSolverSpec::Sqp { samples }
            | DfcpSolverSpec::PgsPolygon { samples } => Some(samples),
            _ => None,
        }
    }

    /// Whether the solver can use the factor `W = G Gᵀ` of a rigid contact problem: Staggered
    /// Projections when its contact QP may be the primal (no proximal term, not `Dual`), and
    /// the velocity ADMM, which needs it.
    pub fn uses_factor(&self) -> bool {
        matches!(*self, DfcpSolverSpec::StaggeredProjections { proximal, contact_qp, .. }
            if proximal == 0.0 && contact_qp != SpContactQpSpec::Dual)
            || *self == DfcpSolverSpec::VelocityAdmm
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default)]
#[serde(deny_unknown_fields)]
pub struct PenaltySpec {
    #[serde(default)]
    pub integrator: IntegratorSpec,
    /// `Implicit`: friction's normal force and sliding basis at the end of the step (001);
    /// `Lagged`: taken from the start of the step (IPC).
    #[serde(default)]
    pub friction: FrictionEvaluation,
    /// `friction: Lagged` only: fixed-point iterations that re-solve each stage with the normal
    /// forces and sliding basis taken from the previous solve's end positions (001 Fig. 4); 0
    /// keeps them from the start of the step.
    #[serde(default)]
    pub lagged_iterations: usize,
    #[serde(default)]
    pub contact: PenaltyContactSpec,
    #[serde(default)]
    pub newton: NewtonSpec,
    /// What a step that fails to converge does to the run.
    #[serde(default)]
    pub on_failure: OnFailure,
}

/// The time integrator of the penalty pipeline (`crate::integrator`): every stage carries the
/// whole force, contact and friction included (001).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize, Default)]
#[serde(from = "IntegratorRepr")]
pub enum IntegratorSpec {
    /// First order, L-stable (001 eq. 22).
    #[default]
    BackwardEuler,
    /// Trapezoidal rule (001 eq. 23): second order, energy-conserving on linear problems, not
    /// L-stable.
    Trapezoid,
    /// Second-order backward differentiation, started by one backward-Euler step.
    Bdf2,
    /// Trapezoid over `gamma h`, then BDF2 (second order, L-stable). `TrBdf2` alone takes the
    /// classic `gamma = 2 - sqrt(2)`; `TrBdf2(gamma: 0.5)` another one in (0, 1).
    TrBdf2 { gamma: f64 },
    /// Two-stage singly diagonally implicit Runge–Kutta, gamma = 1 - sqrt(2)/2 (second order,
    /// L-stable).
    Sdirk2,
    /// IPC's trapezoid for comparisons only: contact and friction backward Euler, the other forces
    /// trapezoidal (001 shows it blowing up on the ball in a box).
    TrapezoidDecoupled,
}

/// How an integrator may be written: a bare name (`TrBdf2`, `TrBdf2()`) or `TrBdf2(gamma: G)`.
#[derive(Deserialize)]
#[serde(
    untagged,
    expecting = "an integrator: BackwardEuler, Trapezoid, Bdf2, TrBdf2, TrBdf2(gamma: G), Sdirk2 or TrapezoidDecoupled"
)]
enum IntegratorRepr {
    Name(IntegratorName),
    Full(IntegratorWithParameters),
}

#[derive(Deserialize)]
enum IntegratorName {
    BackwardEuler,
    Trapezoid,
    Bdf2,
    TrBdf2,
    Sdirk2,
    TrapezoidDecoupled,
}

#[derive(Deserialize)]
enum IntegratorWithParameters {
    TrBdf2(TrBdf2Parameters),
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct TrBdf2Parameters {
    #[serde(default = "crate::integrator::tr_bdf2_default_gamma")]
    gamma: f64,
}

impl From<IntegratorRepr> for IntegratorSpec {
    fn from(r: IntegratorRepr) -> Self {
        match r {
            IntegratorRepr::Name(n) => match n {
                IntegratorName::BackwardEuler => IntegratorSpec::BackwardEuler,
                IntegratorName::Trapezoid => IntegratorSpec::Trapezoid,
                IntegratorName::Bdf2 => IntegratorSpec::Bdf2,
                IntegratorName::TrBdf2 => IntegratorSpec::TrBdf2 { gamma: crate::integrator::tr_bdf2_default_gamma() },
                IntegratorName::Sdirk2 => IntegratorSpec::Sdirk2,
                IntegratorName::TrapezoidDecoupled => IntegratorSpec::TrapezoidDecoupled,
            },
            IntegratorRepr::Full(IntegratorWithParameters::TrBdf2(p)) => IntegratorSpec::TrBdf2 { gamma: p.gamma },
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
pub enum FrictionEvaluation {
    #[default]
    Implicit,
    Lagged,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
pub enum OnFailure {
    /// Stop the run with a non-zero exit, keeping every frame written so far.
    #[default]
    Stop,
    /// Record the failure in stats.csv and run.json and go on.
    Continue,
}

/// The cubic penalty `b(d) = -kappa/delta (d - delta)^3` for gaps `d < delta`.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PenaltyContactSpec {
    /// Thickness tolerance delta in m (> 0): contact forces act for gaps below it.
    #[serde(default = "default_delta")]
    pub delta: f64,
    /// Initial stiffness kappa in N/m; absent: chosen so that one contact point at zero gap
    /// carries the weight of the heaviest body.
    #[serde(default)]
    pub kappa: Option<f64>,
    /// How many times a step may be repeated with a stiffer penalty when a gap ends negative.
    #[serde(default = "default_contact_iterations")]
    pub max_contact_iterations: usize,
    /// The gap function between bodies: the closest triangle feature (`Closest`), or 000's smooth
    /// implicit MLS surface of each solid's boundary (`Implicit(kernel, radius)`).
    #[serde(default)]
    pub geometry: ContactGeometry,
}

impl Default for PenaltyContactSpec {
    fn default() -> Self {
        PenaltyContactSpec {
            delta: default_delta(),
            kappa: None,
            max_contact_iterations: default_contact_iterations(),
            geometry: ContactGeometry::default(),
        }
    }
}

/// How a vertex measures its gap to another body's surface.
#[derive(Debug, Clone, Copy, PartialEq, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub enum ContactGeometry {
    /// The distance to the closest triangle feature (face, edge or vertex): C0 normals at edges.
    #[default]
    Closest,
    /// Ψ of 000's MLS surface over each solid's boundary (C1 with the cubic kernel): `kernel`
    /// `Cubic` or `Approximate(epsilon: ε)` (eq. 10), `radius` the support R in m, which must exceed
    /// half the largest boundary triangle. Cloths keep `Closest`.
    Implicit {
        #[serde(default)]
        kernel: crate::contact::implicit::Kernel,
        radius: f64,
    },
}

pub fn default_delta() -> f64 {
    1e-3
}
pub fn default_contact_iterations() -> usize {
    5
}

/// Damped Newton stopping rule and line search.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NewtonSpec {
    /// Converged when the residual, as an acceleration `|M^-1 r / h|_inf`, is below this (m/s^2)...
    #[serde(default = "default_residual_tolerance")]
    pub residual_tolerance: f64,
    /// ...or when the Newton step `|dv|_inf` is below this (m/s) and the residual has stopped
    /// decreasing.
    #[serde(default = "default_step_tolerance")]
    pub step_tolerance: f64,
    #[serde(default = "default_max_iterations")]
    pub max_iterations: usize,
    /// Armijo constant of the backtracking line search on |r|.
    #[serde(default = "default_c1")]
    pub armijo: f64,
    /// Backtracking factor.
    #[serde(default = "default_rho")]
    pub backtrack: f64,
    #[serde(default = "default_max_line_search")]
    pub max_line_search_steps: usize,
    /// When Newton fails, retry the step as two half steps, at most this many times recursively
    /// (0 disables; 4 allows down to dt/16).
    #[serde(default = "default_step_halvings")]
    pub max_step_halvings: usize,
    /// How Newton's linear systems are solved.
    #[serde(default)]
    pub linear_solver: LinearSolverSpec,
    /// BiCGSTAB iterations per Newton step at most (when Newton runs matrix-free).
    #[serde(default = "default_max_linear_iterations")]
    pub max_linear_iterations: usize,
    /// BiCGSTAB's preconditioner (when Newton runs matrix-free).
    #[serde(default)]
    pub preconditioner: IterativePreconditioner,
    /// Include the derivatives of the sliding basis and normal force in the Jacobian (001).
    #[serde(default = "yes")]
    pub sliding_basis_derivatives: bool,
}

impl Default for NewtonSpec {
    fn default() -> Self {
        NewtonSpec {
            residual_tolerance: default_residual_tolerance(),
            step_tolerance: default_step_tolerance(),
            max_iterations: default_max_iterations(),
            armijo: default_c1(),
            backtrack: default_rho(),
            max_line_search_steps: default_max_line_search(),
            max_step_halvings: default_step_halvings(),
            linear_solver: LinearSolverSpec::default(),
            max_linear_iterations: default_max_linear_iterations(),
            preconditioner: IterativePreconditioner::default(),
            sliding_basis_derivatives: true,
        }
    }
}

pub fn default_residual_tolerance() -> f64 {
    1e-5
}
pub fn default_step_tolerance() -> f64 {
    1e-12
}
pub fn default_max_iterations() -> usize {
    50
}
pub fn default_max_linear_iterations() -> usize {
    1000
}
pub fn default_c1() -> f64 {
    1e-4
}
pub fn default_rho() -> f64 {
    0.5
}
pub fn default_max_line_search() -> usize {
    30
}
pub fn default_step_halvings() -> usize {
    4
}
pub fn yes() -> bool {
    true
}

/// Linear solver of the Newton steps.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
pub enum LinearSolverSpec {
    /// `Iterative` on solids soft for their mass over a step (`h² k / m` at most 600, no cloth,
    /// no volume penalty) where `preconditioner` gives block Jacobi; `Gmres` elsewhere.
    /// `fricsim check` says which (`pipeline::penalty::linear_choice`).
    #[default]
    Auto,
    /// GMRES preconditioned by a sparse Cholesky of the Jacobian's symmetric part, kept across
    /// iterations and steps while it works, with sparse LU as fallback.
    Gmres,
    /// A fresh sparse LU of the full (non-symmetric) Jacobian at every Newton iteration and a
    /// direct solve (001's "Direct"; slower, no iterative tolerance involved).
    Lu,
    /// 001's "Iterative" (Algorithm 2): inexact Newton with BiCGSTAB, Eisenstat–Walker forcing
    /// and Jacobian-vector products by forward-mode AD of the residual; no Jacobian is assembled
    /// (`preconditioner` chooses what BiCGSTAB is preconditioned with).
    Iterative,
}

/// The preconditioner of the matrix-free Newton's BiCGSTAB (`linear_solver: Iterative`, or
/// `Auto` where it runs matrix-free).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
pub enum IterativePreconditioner {
    /// `Cholesky` where some body's stiffness dominates its nodes' masses over a step (`h² k / m`
    /// above 15, as for a cloth or a small stiff block) and its factor would hold at most 8
    /// entries per matrix entry (not a large 3D solid), else `BlockJacobi`.
    #[default]
    Auto,
    /// A sparse Cholesky of the Jacobian's positive definite part (mass, PSD-projected element
    /// stiffness, contact node blocks), per body, kept while BiCGSTAB converges fast; stores
    /// that matrix and its factor, never the Jacobian.
    Cholesky,
    /// The inverse of each node's 3×3 diagonal block of the Jacobian (O(nodes) memory).
    BlockJacobi,
}

/// Which files a run writes.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct OutputSpec {
    #[serde(default = "yes")]
    pub vtk: bool,
    #[serde(default = "yes")]
    pub ply: bool,
    #[serde(default = "yes")]
    pub stats: bool,
}

impl Default for OutputSpec {
    fn default() -> Self {
        OutputSpec { vtk: true, ply: true, stats: true }
    }
}

/// A bilateral joint between the rigid bodies named `a` and `b`; without `b` (or `b: None`) the
/// joint holds `a` to the world. Points and axes are world coordinates at t = 0 (each body keeps
/// them in its own frame from then on).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub enum JointSpec {
    /// The bodies share the point `point` (m) and turn freely about it.
    Ball {
        a: String,
        #[serde(default)]
        b: Option<String>,
        point: Vec3,
    },
    /// The bodies share the line through `point` along `axis` and turn about it only.
    Hinge {
        a: String,
        #[serde(default)]
        b: Option<String>,
        point: Vec3,
        axis: Vec3,
        /// A velocity motor turning `a` relative to `b` about `axis`.
        #[serde(default)]
        motor: Option<MotorSpec>,
    },
    /// The bodies keep their relative pose of t = 0.
    Fixed {
        a: String,
        #[serde(default)]
        b: Option<String>,
    },
}

/// A hinge motor: drives the spin of `a` relative to `b` about the axis (right hand) to `speed`
/// with a torque of at most `max_torque`.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MotorSpec {
    /// Target speed in degrees per second.
    pub speed: f64,
    /// Largest torque in N m (> 0).
    pub max_torque: f64,
}
