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
}

impl Default for FrictionLawSpec {
    fn default() -> Self {
        FrictionLawSpec { mu: 0.0, mu_s: None, v_s: None, mu_v: 0.0 }
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
}

impl FrictionPairSpec {
    pub fn law(&self) -> FrictionLawSpec {
        FrictionLawSpec { mu: self.mu, mu_s: self.mu_s, v_s: self.v_s, mu_v: self.mu_v }
    }
}

/// A simulated body.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub enum BodySpec {
    /// A tetrahedral FEM solid.
    Solid(SolidSpec),
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
}

/// Where a solid's tetrahedra come from.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
// Struct variants need this too: without it a typo inside `Box(..)` would be silently ignored.
#[serde(deny_unknown_fields)]
pub enum MeshSpec {
    /// Axis-aligned box centered at the origin, `cells` structured cubes each split into 6 tets.
    Box { size: Vec3, cells: [usize; 3] },
    /// Ball centered at the origin; `resolution` cells across the diameter.
    #[serde(alias = "Sphere")]
    Ball { radius: f64, resolution: usize },
    /// A `.vtk` (legacy) or `.vtu` file of tetrahedra, relative to the scene file.
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
}

/// A region of space selecting vertices (world coordinates at t = 0; bounds inclusive).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
// Struct variants need this too: without it a typo inside `Box(..)` would be silently ignored.
#[serde(deny_unknown_fields)]
pub enum RegionSpec {
    Box { min: Vec3, max: Vec3 },
}

/// Prescribed motion of kinematic vertices and colliders (translation only).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default)]
pub enum MotionSpec {
    /// Does not move.
    #[default]
    Fixed,
    /// Constant velocity in m/s.
    Velocity(Vec3),
    /// Piecewise-linear translation offsets `(time, (dx, dy, dz))` with increasing times; held
    /// before the first and after the last key.
    Keyframes(Vec<(f64, Vec3)>),
}

/// An analytic obstacle. Each carries a material name for the friction table.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
// Struct variants need this too: without it a typo inside `Box(..)` would be silently ignored.
#[serde(deny_unknown_fields)]
pub enum ColliderSpec {
    /// Half-space below the plane through `position` with normal `rotation * (0, 0, 1)`.
    Plane {
        name: String,
        material: String,
        #[serde(default)]
        position: Vec3,
        #[serde(default)]
        rotation: Vec3,
        #[serde(default)]
        motion: MotionSpec,
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
}

/// The contact pipeline.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub enum PipelineSpec {
    /// Cubic penalty contact with smoothed friction, solved implicitly by damped Newton (001).
    Penalty(PenaltySpec),
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
    #[serde(default)]
    pub contact: PenaltyContactSpec,
    #[serde(default)]
    pub newton: NewtonSpec,
    /// What a step that fails to converge does to the run.
    #[serde(default)]
    pub on_failure: OnFailure,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
pub enum IntegratorSpec {
    #[default]
    BackwardEuler,
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
}

impl Default for PenaltyContactSpec {
    fn default() -> Self {
        PenaltyContactSpec { delta: default_delta(), kappa: None, max_contact_iterations: default_contact_iterations() }
    }
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
    /// GMRES preconditioned by a sparse Cholesky of the Jacobian's symmetric part, kept across
    /// iterations and steps while it works, with sparse LU as fallback (fast).
    #[default]
    Auto,
    /// A fresh sparse LU of the full (non-symmetric) Jacobian at every Newton iteration and a
    /// direct solve (001's "Direct"; slower, no iterative tolerance involved).
    Lu,
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
