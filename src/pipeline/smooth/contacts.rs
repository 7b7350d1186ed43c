//! The contacts of one Smooth step (000 §5.3, Algorithm 1 step 2): every vertex of a solid's
//! boundary or a cloth within reach of a field of another body, with the linearization of its
//! non-penetration constraint and its contact Jacobian, all taken at the start of the step.
//!
//! A contact is a stencil of nodes (the vertex first) with one 3×3 block per node mapping the
//! node's velocity to the contact-frame velocity `u = Σ B_k v_k + bias`:
//! * row 0 is the constraint linearized at `q^t` and divided by `|∇Ψ|`, so that `u_N ≥ 0` is
//!   `Ψ(q^t)/|∇Ψ| + h u_N ≥ 0` and the multiplier is the normal impulse in N·s;
//! * rows 1, 2 are the tangents of the frame applied to 000's contact Jacobian (§4.1.3): the
//!   vertex's velocity minus the weight-blended velocity of the neighbouring samples, each rotated
//!   by the minimal rotation of its normal onto `∇Ψ̂` (parallel transport).
//!
//! Colliders are fields of their own exact signed distance (a plane, a box, a sphere, a
//! cylinder): row 0 is the outward normal at the vertex, and `bias` holds the collider's own
//! velocity there. Solids generate MLS fields over their boundary triangles; rigid bodies are
//! their exact signed distance (analytic shapes, non-convex meshes) or an MLS field over their
//! refined tessellation (convex hulls), moving with the body ([`super::rigid_field`]).
//!
//! A contact's vertex is a node (of a solid's boundary or a cloth) or a point of a rigid body's
//! surface, whose velocity `v + ω × ρ` takes two blocks on the body's pseudo-nodes
//! ([`super::layout`]). Rigid bodies touch colliders, solids, cloths and each other: a dynamic
//! body's points against another body's field, as a deformable vertex is (both sides of a pair
//! of dynamic bodies, as between two solids), except where a joint links the two.

use super::layout::Layout;
use super::rigid_field::RigidSurface;
use crate::contact::collider::Placement;
use crate::contact::implicit::potential::{minimal_rotation, potential_derivatives};
use crate::contact::implicit::{ImplicitSurface, Kernel};
use crate::friction::cone::Cone;
use crate::friction::matchstick::MatchstickPair;
use crate::model::{Model, node, node_arr};
use crate::rigid::body::RigidBody;
use nalgebra::{Matrix3, Vector3};
use std::collections::HashMap;

/// What generates the field a contact is against.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize, serde::Deserialize)]
pub enum FieldId {
    Collider(usize),
    Solid(usize),
    Rigid(usize),
    Mesh(usize),
    Cloth(usize),
}

/// One vertex against one field.
#[derive(Debug, Clone)]
pub struct SmoothContact {
    pub vertex: usize,
    pub field: FieldId,
    /// The stencil's nodes (the vertex first) and their blocks (rows: normal, t, b).
    pub nodes: Vec<usize>,
    pub blocks: Vec<Matrix3<f64>>,
    /// Contact-frame velocity when every node is at rest (m/s).
    pub bias: Vector3<f64>,
    /// Columns: the normal `∇Ψ̂` and the tangents `t`, `b` (the cone's axes).
    pub frame: Matrix3<f64>,
    pub cone: Cone,
    /// `Ψ/|∇Ψ|` at the step start (m): the distance to the zero set to first order.
    pub gap: f64,
    pub point: Vector3<f64>,
    /// Mass of the vertex (a node's, or a rigid body's): turns the impulse into a speed.
    pub mass: f64,
}

impl SmoothContact {
    /// Contact-frame velocity `Σ B_k v_k + bias` at generalized velocities `v`.
    pub fn velocity(&self, v: &[f64]) -> Vector3<f64> {
        self.nodes.iter().zip(&self.blocks).fold(self.bias, |u, (&i, b)| u + b * node(v, i))
    }

    /// The generalized impulse (length `len`) of a unit impulse on row `row` (normal, t, b).
    pub fn row_impulse(&self, row: usize, len: usize) -> Vec<f64> {
        let mut f = vec![0.0; len];
        for (&i, b) in self.nodes.iter().zip(&self.blocks) {
            for d in 0..3 {
                f[3 * i + d] += b[(row, d)];
            }
        }
        f
    }
}

/// The MLS fields of the solids' boundaries, rebuilt at the start of every step, and of the
/// rigid bodies' surfaces, built once in their body frames.
pub struct Fields {
    pub surfaces: Vec<ImplicitSurface>,
    /// The side (+1 or −1 along the sheet's normal) of every vertex near a cloth's sheet at the
    /// last detection: a vertex in contact sits at Ψ = 0 up to round-off, where the sign of Ψ
    /// says nothing, and it can never cross the sheet.
    pub sides: HashMap<(usize, usize), f64>,
    /// The cloths' sheets (two-sided), touched by the vertices of other cloths.
    pub cloths: Vec<ImplicitSurface>,
    pub rigid: Vec<RigidSurface>,
    /// The mesh colliders' fields, in their own frames.
    pub meshes: Vec<RigidSurface>,
}

impl Fields {
    pub fn new(model: &Model, bodies: &[RigidBody], kernel: Kernel, radius: f64, q: &[f64]) -> Fields {
        let surfaces =
            model.solids.iter().map(|s| ImplicitSurface::of_solid_boundary(&s.surface, kernel, radius, q)).collect();
        let rigid = bodies.iter().map(|b| RigidSurface::new(&b.shape, kernel, radius)).collect();
        let meshes = model
            .mesh_colliders
            .iter()
            .map(|m| RigidSurface::from_mesh(m.vertices.clone(), m.triangles.clone(), kernel, radius))
            .collect();
        let cloths =
            model.cloths.iter().map(|c| ImplicitSurface::new(c.triangles.clone(), kernel, radius, q)).collect();
        Fields { surfaces, sides: HashMap::new(), cloths, rigid, meshes }
    }

    /// The fields at the start of the step `[t, t + h]`: the deformable surfaces at `q`, the
    /// animated mesh colliders at their frame of time `t` with their velocities over the step.
    pub fn update(&mut self, model: &Model, q: &[f64], t: f64, h: f64) {
        for s in self.surfaces.iter_mut().chain(&mut self.cloths) {
            s.update(q);
        }
        for (mesh, c) in self.meshes.iter_mut().zip(&model.mesh_colliders) {
            if let Some(a) = &c.animation {
                let (x, v) = a.step(t, h);
                mesh.repose(&x, &v);
            }
        }
    }
}

/// The vertex of a contact: a node, or a point of a rigid body (its index in the body's
/// surface and its offset from the centre of mass).
#[derive(Clone, Copy)]
enum Vertex {
    Node(usize),
    Rigid { body: usize, point: usize, rho: Vector3<f64> },
}

/// The stencil entries of a vertex's velocity seen through `rows` (3×3, applied to the
/// velocity), with `sign` +1 for the vertex side and −1 for the field side.
fn vertex_blocks(layout: &Layout, vertex: Vertex, rows: &Matrix3<f64>, sign: f64) -> Vec<(usize, Matrix3<f64>)> {
    match vertex {
        Vertex::Node(i) => vec![(i, rows * sign)],
        Vertex::Rigid { body, rho, .. } => {
            let (l, a) = layout.pseudo_nodes(body);
            // v + ω × ρ = v − [ρ]× ω.
            vec![(l, rows * sign), (a, -rows * rho.cross_matrix() * sign)]
        }
    }
}

/// Every contact of the step starting at `(q, v)` (nodal) and `bodies` at time `t` with step
/// `h`: deformable vertices within `reach` of a collider, in the field of another solid or of a
/// rigid body; points of dynamic rigid bodies within reach of a collider, a solid's field or
/// another rigid body's field (not one a joint links it to).
pub fn detect(
    model: &Model,
    fields: &mut Fields,
    layout: &Layout,
    (q, v, bodies): (&[f64], &[f64], &[RigidBody]),
    t: f64,
    h: f64,
) -> Vec<SmoothContact> {
    let mut out = Vec::new();
    let radius =
        fields.surfaces.iter().map(|s| s.radius).chain(fields.rigid.iter().map(|r| r.field.radius)).fold(0.0, f64::max);
    let vmax = (0..model.node_count())
        .map(|i| node(v, i).norm())
        .chain(bodies.iter().map(|b| b.linear_velocity.norm() + b.angular_velocity.norm() * b.shape.bounding_radius()))
        .fold(0.0, f64::max);
    let reach = radius.max(2.0 * h * (vmax + h * model.gravity.norm()));
    let previous = std::mem::take(&mut fields.sides);
    let mut sides = HashMap::new();
    let mut ctx =
        Context { model, layout, q, bodies, t, h, reach, out: &mut out, previous: &previous, sides: &mut sides };
    for (body, (material, vertices)) in contact_vertices(model).into_iter().enumerate() {
        for &i in vertices.iter().filter(|&&i| !model.node_is_kinematic[i]) {
            let vertex = Vertex::Node(i);
            let (x, mass) = (node(q, i), model.node_mass[i]);
            for k in 0..model.colliders.len() {
                ctx.against_collider(vertex, x, (material, mass), k);
            }
            for (k, mesh) in fields.meshes.iter().enumerate() {
                ctx.against_mesh(vertex, x, (material, mass), mesh, k);
            }
            for (s, surface) in fields.surfaces.iter().enumerate().filter(|(s, _)| *s != body) {
                ctx.against_deformable(
                    vertex,
                    x,
                    (material, mass),
                    (surface, FieldId::Solid(s), model.solids[s].material),
                );
            }
            if let Some(own) = body.checked_sub(model.solids.len()) {
                for (c, sheet) in fields.cloths.iter().enumerate().filter(|(c, _)| *c != own) {
                    ctx.against_deformable(
                        vertex,
                        x,
                        (material, mass),
                        (sheet, FieldId::Cloth(c), model.cloths[c].material),
                    );
                }
            }
            for (r, surface) in fields.rigid.iter().enumerate() {
                ctx.against_rigid(vertex, x, (material, mass), surface, r, None);
            }
        }
    }
    let near = rigid_neighbours(model, bodies, &fields.rigid, reach);
    for (r, (b, rigid)) in bodies.iter().zip(&model.rigids).enumerate().filter(|(_, (_, m))| m.motion.is_none()) {
        for (point, local) in fields.rigid[r].points().enumerate() {
            let x = b.world_point(&local);
            let vertex = Vertex::Rigid { body: r, point, rho: x - b.position };
            for k in 0..model.colliders.len() {
                ctx.against_collider(vertex, x, (rigid.material, b.mass), k);
            }
            for (k, mesh) in fields.meshes.iter().enumerate() {
                ctx.against_mesh(vertex, x, (rigid.material, b.mass), mesh, k);
            }
            for (s, surface) in fields.surfaces.iter().enumerate() {
                ctx.against_deformable(
                    vertex,
                    x,
                    (rigid.material, b.mass),
                    (surface, FieldId::Solid(s), model.solids[s].material),
                );
            }
            let facing = b.orientation * fields.rigid[r].normal(point);
            for &o in &near[r] {
                ctx.against_rigid(vertex, x, (rigid.material, b.mass), &fields.rigid[o], o, Some(facing));
            }
        }
    }
    fields.sides = sides;
    out
}

/// How squarely a rigid point's own normal must face another rigid body's field normal
/// (`−n_point · n_field ≥ FACING`) to touch it. Two rigid faces lying flat on each other put one
/// body's points in the plane of the other's face, where just past its edge the field's normal
/// is horizontal: as the body slides, those points would stop its edge as a step would
/// (`n_point · n_field = 0`). A box's corner on a face faces it at 1/√3, an edge at 1/√2.
const FACING: f64 = 0.25;

/// Per rigid body, the other bodies whose fields its points may reach this step: bounding balls
/// within `reach` plus the fields' radii of each other (`nonsmooth::detect::ball_pairs`), not
/// linked by a joint.
fn rigid_neighbours(model: &Model, bodies: &[RigidBody], surfaces: &[RigidSurface], reach: f64) -> Vec<Vec<usize>> {
    let linked = crate::rigid::joint::linked_pairs(&model.joints);
    let balls: Vec<f64> =
        bodies.iter().zip(surfaces).map(|(b, s)| b.shape.bounding_radius() + s.field.radius + reach).collect();
    let mut near = vec![Vec::new(); bodies.len()];
    for (a, b) in crate::pipeline::nonsmooth::detect::ball_pairs(bodies, &balls) {
        if !linked.contains(&(a, b)) {
            near[a].push(b);
            near[b].push(a);
        }
    }
    near
}

/// Per deformable body (solids first, in model order, then cloths): its material and the
/// vertices that can touch a field.
fn contact_vertices(model: &Model) -> Vec<(usize, Vec<usize>)> {
    let solids = model.solids.iter().map(|s| (s.material, s.surface_nodes.clone()));
    solids.chain(model.cloths.iter().map(|c| (c.material, c.nodes.clone().collect()))).collect()
}

/// What every contact of a step is detected against.
struct Context<'a> {
    model: &'a Model,
    layout: &'a Layout,
    q: &'a [f64],
    bodies: &'a [RigidBody],
    t: f64,
    h: f64,
    reach: f64,
    out: &'a mut Vec<SmoothContact>,
    /// Sides of the vertices near cloth sheets at the last detection, and at this one.
    previous: &'a HashMap<(usize, usize), f64>,
    sides: &'a mut HashMap<(usize, usize), f64>,
}

impl Context<'_> {
    /// A unique, step-independent id of a vertex (nodes, then every rigid body's points).
    fn vertex_id(&self, vertex: Vertex) -> usize {
        match vertex {
            Vertex::Node(i) => i,
            Vertex::Rigid { body, point, .. } => self.layout.nodes + 2 * self.layout.rigid.len() + (body << 32) + point,
        }
    }

    fn against_collider(&mut self, vertex: Vertex, x: Vector3<f64>, (material, mass): (usize, f64), k: usize) {
        let (model, h) = (self.model, self.h);
        let c = &model.colliders[k];
        let at: Placement = c.placement(self.t);
        let (d, n) = c.signed_distance(&at, [x.x, x.y, x.z]);
        if d > self.reach {
            return;
        }
        let n = Vector3::from(n);
        let structure = model.collider_structure_at(k, &x, self.t);
        let (frame, cone) = friction_law(model, (material, c.material), &n, structure);
        let v_col = c.motion.step(self.t, h).field_at_start().at(&x);
        self.push_scripted(vertex, (x, mass), FieldId::Collider(k), (d, frame, cone), v_col);
    }

    /// Record a contact: its vertex's id, the field, the stencil, the frame, cone and gap, and the
    /// velocity of the field's own surface where the vertex is when the field moves by a script
    /// (zero where the field's motion is in the stencil).
    #[allow(clippy::too_many_arguments)]
    fn push(
        &mut self,
        vertex: usize,
        field: FieldId,
        (nodes, blocks): (Vec<usize>, Vec<Matrix3<f64>>),
        (gap, frame, cone): (f64, Matrix3<f64>, Cone),
        scripted_velocity: Vector3<f64>,
        (x, mass): (Vector3<f64>, f64),
    ) {
        let bias = Vector3::new(gap / self.h, 0.0, 0.0) - frame.transpose() * scripted_velocity;
        self.out.push(SmoothContact { vertex, field, nodes, blocks, bias, frame, cone, gap, point: x, mass });
    }

    /// A contact of `vertex` against a scripted field (a collider) moving at `v_col` there.
    fn push_scripted(
        &mut self,
        vertex: Vertex,
        (x, mass): (Vector3<f64>, f64),
        field: FieldId,
        (gap, frame, cone): (f64, Matrix3<f64>, Cone),
        v_col: Vector3<f64>,
    ) {
        let stencil = vertex_blocks(self.layout, vertex, &frame.transpose(), 1.0).into_iter().unzip();
        self.push(self.vertex_id(vertex), field, stencil, (gap, frame, cone), v_col, (x, mass));
    }

    /// A vertex against mesh collider `k`'s field, which moves by its script: `bias` holds the
    /// collider's own velocity there, as for the analytic colliders.
    fn against_mesh(
        &mut self,
        vertex: Vertex,
        x: Vector3<f64>,
        (material, mass): (usize, f64),
        mesh: &RigidSurface,
        k: usize,
    ) {
        let (model, h) = (self.model, self.h);
        let c = &model.mesh_colliders[k];
        let at = c.placement(self.t);
        let Some((gap, n)) = mesh.distance_at(&at.center, &at.rotation, &x) else { return };
        let (frame, cone) = friction_law(model, (material, c.material), &n, c.structure_at(&x, self.t));
        // The placement's motion, plus an animated mesh's own motion at the nearest surface point.
        let own = at.rotation * mesh.velocity_at(&(at.rotation.transpose() * (x - at.center)));
        let v_col = c.motion.step(self.t, h).field_at_start().at(&x) + own;
        self.push_scripted(vertex, (x, mass), FieldId::Mesh(k), (gap, frame, cone), v_col);
    }

    /// A vertex (a node, or another rigid body's point) against rigid body `r`'s field: the gap
    /// rate is the normal part of the vertex's velocity relative to the body's surface there,
    /// `v_i − (v + ω × ρ)`. A rigid point brings its own surface normal `facing`: it touches
    /// only a field whose normal it faces ([`FACING`]).
    fn against_rigid(
        &mut self,
        vertex: Vertex,
        x: Vector3<f64>,
        (material, mass): (usize, f64),
        surface: &RigidSurface,
        r: usize,
        facing: Option<Vector3<f64>>,
    ) {
        let b = &self.bodies[r];
        if (x - b.position).norm() > b.shape.bounding_radius() + surface.field.radius + self.reach {
            return;
        }
        let Some((gap, n)) = surface.distance(b, &x).filter(|(gap, _)| *gap <= self.reach) else { return };
        if facing.is_some_and(|f| f.dot(&n) > -FACING) {
            return;
        }
        let rigid = &self.model.rigids[r];
        let local = b.orientation.inverse() * (x - b.position);
        let structure = rigid.structure.as_ref().and_then(|s| s.direction_at(&local)).map(|d| b.orientation * d);
        let (frame, cone) = friction_law(self.model, (material, rigid.material), &n, structure);
        let ft = frame.transpose();
        let mut entries = vertex_blocks(self.layout, vertex, &ft, 1.0);
        entries.extend(vertex_blocks(self.layout, Vertex::Rigid { body: r, point: 0, rho: x - b.position }, &ft, -1.0));
        let stencil = entries.into_iter().unzip();
        let id = self.vertex_id(vertex);
        self.push(id, FieldId::Rigid(r), stencil, (gap, frame, cone), Vector3::zeros(), (x, mass));
    }

    /// A vertex against the field of a deformable body's surface (a solid's boundary, or a
    /// cloth's sheet), whose nodes are unknowns: the stencil holds the vertex and every node of
    /// the neighbouring triangles. A sheet has two sides: the vertex keeps the side it starts the
    /// step on (Ψ and its derivatives change sign with it).
    fn against_deformable(
        &mut self,
        vertex: Vertex,
        x: Vector3<f64>,
        (material, mass): (usize, f64),
        (surface, field, field_material): (&ImplicitSurface, FieldId, usize),
    ) {
        let (model, q) = (self.model, self.q);
        let xa = [x.x, x.y, x.z];
        let ids: Vec<usize> = surface.neighbours(xa).collect();
        if ids.is_empty() {
            return;
        }
        let tris: Vec<[[f64; 3]; 3]> = ids.iter().map(|&t| surface.triangles[t].map(|j| node_arr(q, j))).collect();
        let Some((mut psi, mut gx, mut gp, w)) = potential_derivatives(xa, &tris, surface.kernel, surface.radius)
        else {
            return;
        };
        if let FieldId::Cloth(c) = field {
            let key = (self.vertex_id(vertex), c);
            let side = self.previous.get(&key).copied().unwrap_or(if psi < 0.0 { -1.0 } else { 1.0 });
            self.sides.insert(key, side);
            if side < 0.0 {
                psi = -psi;
                gx = gx.map(|g| -g);
                gp.iter_mut().flatten().flatten().for_each(|g| *g = -*g);
            }
        }
        let gn = Vector3::from(gx).norm();
        if !(gn > 0.0 && gn.is_finite()) {
            return;
        }
        let n = Vector3::from(gx) / gn;
        let (frame, cone) = friction_law(model, (material, field_material), &n, None);
        let (t, b) = (frame.column(1).into_owned(), frame.column(2).into_owned());
        let (mut nodes, mut blocks): (Vec<usize>, Vec<Matrix3<f64>>) =
            vertex_blocks(self.layout, vertex, &frame.transpose(), 1.0).into_iter().unzip();
        for ((&tri_id, g), (&wt, p)) in ids.iter().zip(&gp).zip(w.iter().zip(&tris)) {
            let (_, ns) = crate::contact::implicit::potential::sample(p);
            // Parallel transport of the sample's normal onto ∇Ψ̂; a sample facing exactly away has
            // no minimal rotation and transfers its velocity unrotated.
            let rot = minimal_rotation(ns, n.into()).unwrap_or_else(Matrix3::identity);
            let (rt, rb) = (rot.transpose() * t, rot.transpose() * b);
            for (a, &j) in surface.triangles[tri_id].iter().enumerate() {
                let k = match nodes.iter().position(|&m| m == j) {
                    Some(k) => k,
                    None => {
                        nodes.push(j);
                        blocks.push(Matrix3::zeros());
                        nodes.len() - 1
                    }
                };
                let rows = Matrix3::from_rows(&[
                    (Vector3::from(g[a]) / gn).transpose(),
                    -(rt * (wt / 3.0)).transpose(),
                    -(rb * (wt / 3.0)).transpose(),
                ]);
                blocks[k] += rows;
            }
        }
        let gap = psi / gn;
        let id = self.vertex_id(vertex);
        self.push(id, field, (nodes, blocks), (gap, frame, cone), Vector3::zeros(), (x, mass));
    }
}

/// The frame (first column `n`) and cone of a contact between materials `(ma, mb)`: the pair's
/// isotropic `mu` in a deterministic frame, or the matchstick cone when the pair is anisotropic
/// and the field's side has a structure direction.
fn friction_law(
    model: &Model,
    (ma, mb): (usize, usize),
    n: &Vector3<f64>,
    structure: Option<Vector3<f64>>,
) -> (Matrix3<f64>, Cone) {
    let (t, b) = crate::rigid::shape::tangent_basis(n);
    let frame = Matrix3::from_columns(&[*n, t, b]);
    let mu = model.friction.get(ma, mb).mu_d;
    let iso = Cone { mu_t: mu, mu_b: mu };
    let Some([mu_t, mu_b]) = model.friction.anisotropy(ma, mb) else { return (frame, iso) };
    let Ok(pair) = MatchstickPair::new(mu, mu_t, mu_b) else { return (frame, iso) };
    let law = pair.resolve(n, None, structure.as_ref());
    if law.cone.is_isotropic() { (frame, law.cone) } else { (law.frame, law.cone) }
}
