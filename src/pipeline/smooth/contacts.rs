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
//! velocity there. Solids generate MLS fields over their boundary triangles.

use crate::contact::collider::Placement;
use crate::contact::implicit::potential::{minimal_rotation, potential_derivatives};
use crate::contact::implicit::{ImplicitSurface, Kernel};
use crate::friction::cone::Cone;
use crate::friction::matchstick::MatchstickPair;
use crate::model::{Model, node, node_arr};
use nalgebra::{Matrix3, Vector3};

/// What generates the field a contact is against.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum FieldId {
    Collider(usize),
    Solid(usize),
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
}

impl SmoothContact {
    /// Contact-frame velocity `Σ B_k v_k + bias` at generalized velocities `v`.
    pub fn velocity(&self, v: &[f64]) -> Vector3<f64> {
        self.nodes.iter().zip(&self.blocks).fold(self.bias, |u, (&i, b)| u + b * node(v, i))
    }
}

/// The MLS fields of the solids' boundaries, rebuilt at the start of every step.
pub struct Fields {
    pub surfaces: Vec<ImplicitSurface>,
}

impl Fields {
    pub fn new(model: &Model, kernel: Kernel, radius: f64, q: &[f64]) -> Fields {
        let surfaces =
            model.solids.iter().map(|s| ImplicitSurface::of_solid_boundary(&s.surface, kernel, radius, q)).collect();
        Fields { surfaces }
    }

    pub fn update(&mut self, q: &[f64]) {
        for s in &mut self.surfaces {
            s.update(q);
        }
    }
}

/// Every contact of the step starting at `(q, v)` at time `t` with step `h`: vertices within
/// `reach` of a collider, and vertices with a non-empty neighbourhood in another solid's field.
pub fn detect(model: &Model, fields: &Fields, q: &[f64], v: &[f64], t: f64, h: f64) -> Vec<SmoothContact> {
    let mut out = Vec::new();
    let radius = fields.surfaces.first().map_or(0.0, |s| s.radius);
    let vmax = (0..model.node_count()).map(|i| node(v, i).norm()).fold(0.0, f64::max);
    let reach = radius.max(2.0 * h * (vmax + h * model.gravity.norm()));
    for (body, (material, vertices)) in contact_vertices(model).into_iter().enumerate() {
        for &i in vertices.iter().filter(|&&i| !model.node_is_kinematic[i]) {
            for k in 0..model.colliders.len() {
                out.extend(against_collider(model, q, t, h, reach, i, material, k));
            }
            for (s, surface) in fields.surfaces.iter().enumerate().filter(|(s, _)| *s != body) {
                out.extend(against_solid(model, surface, q, h, i, material, s));
            }
        }
    }
    out
}

/// Per deformable body (solids first, in model order, then cloths): its material and the
/// vertices that can touch a field.
fn contact_vertices(model: &Model) -> Vec<(usize, Vec<usize>)> {
    let solids = model.solids.iter().map(|s| (s.material, s.surface_nodes.clone()));
    solids.chain(model.cloths.iter().map(|c| (c.material, c.nodes.clone().collect()))).collect()
}

#[allow(clippy::too_many_arguments)]
fn against_collider(
    model: &Model,
    q: &[f64],
    t: f64,
    h: f64,
    reach: f64,
    i: usize,
    material: usize,
    k: usize,
) -> Option<SmoothContact> {
    let c = &model.colliders[k];
    let at: Placement = c.placement(t);
    let (d, n) = c.signed_distance(&at, node_arr(q, i));
    if d > reach {
        return None;
    }
    let (n, x) = (Vector3::from(n), node(q, i));
    let structure = model.collider_structure[k].map(|s| if c.motion.rotates() { c.motion.rotation(t) * s } else { s });
    let (frame, cone) = friction_law(model, (material, c.material), &n, structure);
    let v_col = c.motion.step(t, h).field_at_start().at(&x);
    Some(SmoothContact {
        vertex: i,
        field: FieldId::Collider(k),
        nodes: vec![i],
        blocks: vec![frame.transpose()],
        bias: Vector3::new(d / h, 0.0, 0.0) - frame.transpose() * v_col,
        frame,
        cone,
        gap: d,
        point: x,
    })
}

fn against_solid(
    model: &Model,
    surface: &ImplicitSurface,
    q: &[f64],
    h: f64,
    i: usize,
    material: usize,
    s: usize,
) -> Option<SmoothContact> {
    let x = node_arr(q, i);
    let ids: Vec<usize> = surface.neighbours(x).collect();
    if ids.is_empty() {
        return None;
    }
    let tris: Vec<[[f64; 3]; 3]> = ids.iter().map(|&t| surface.triangles[t].map(|j| node_arr(q, j))).collect();
    let (psi, gx, gp, w) = potential_derivatives(x, &tris, surface.kernel, surface.radius)?;
    let gn = Vector3::from(gx).norm();
    if !(gn > 0.0 && gn.is_finite()) {
        return None;
    }
    let n = Vector3::from(gx) / gn;
    let (frame, cone) = friction_law(model, (material, model.solids[s].material), &n, None);
    let (t, b) = (frame.column(1).into_owned(), frame.column(2).into_owned());
    let mut nodes = vec![i];
    let mut blocks = vec![frame.transpose()];
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
    Some(SmoothContact {
        vertex: i,
        field: FieldId::Solid(s),
        nodes,
        blocks,
        bias: Vector3::new(gap / h, 0.0, 0.0),
        frame,
        cone,
        gap,
        point: Vector3::from(x),
    })
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
