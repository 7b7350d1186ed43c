//! Mesh–mesh contact detection for thin nodal objects (rods, cloth) and solid surfaces: every
//! contact point is a weighted combination of nodes (the "nodal" assumption of seed 004), so the
//! output is a flat list of [`NodalContact`]s any pipeline can consume (DESIGN.md principle 4).
//!
//! - [`mesh`]: [`ContactMesh`], built from global node indices (node `i` at `x[3 i..3 i + 3]`):
//!   triangles, edges (rod segments and triangle sides) and vertices, with radii, objects and the
//!   exclusion rules.
//! - [`aabb`], [`bvh`]: a flat, refittable BVH over swept boxes with parallel self and
//!   tree-vs-tree overlap queries.
//! - [`proximity`]: point–triangle and segment–segment distances, closest features and the
//!   contact record.
//! - [`contacts`]: from a primitive pair to at most one canonical contact, and the rules that
//!   keep one physical contact from being reported twice.
//! - [`ccd`]: additive CCD of vertex–triangle and edge–edge pairs.
//! - [`detect`]: [`Detector`], which ties them together: proximity contacts at given positions
//!   (one per feature pair), and the global time of impact of a step with its impacting pairs.
//!
//! Typical use in a step: `detector.proximity(&mesh, &q0, margin)` for the contacts at the start
//! of the step, then `detector.ccd(&mesh, &q0, &q1, &opts)` whenever a candidate end state `q1`
//! needs checking (refits the same trees; cheap to repeat inside a solver loop), and
//! [`impact_contacts`] to turn its impacts into contacts to append.

pub mod aabb;
pub mod bvh;
pub mod ccd;
pub mod contacts;
pub mod detect;
pub mod mesh;
pub mod proximity;

pub use aabb::Aabb;
pub use bvh::Bvh;
pub use ccd::{CcdOptions, edge_edge_toi, vertex_triangle_toi};
pub use detect::{
    CandidatePairs, CcdReport, Detector, Impact, PairKind, PrimitiveKind, global_toi, impact_contacts, primitive_boxes,
};
pub use mesh::{ContactMesh, ContactMeshBuilder, NodalError, ObjectId};
pub use proximity::{ContactKind, NodalContact};
