//! Contact detection for the penalty pipeline.
//!
//! Vertex–collider pairs are checked exhaustively (surface nodes × colliders, cheap). Vertex–
//! triangle pairs between bodies (solids and cloths, both ways, and against mesh colliders,
//! whose vertices are prescribed nodes), and within a cloth with `self_contact` (a vertex and
//! the triangles it shares no node with), use per-step candidate lists from
//! an R*-tree of triangle boxes inflated by a motion margin; each evaluation picks the closest
//! candidate triangle per vertex. The end-of-step check re-runs the broad phase at the new
//! positions, so a vertex that moved beyond its margin is caught (and the step repeated), never
//! silently missed.
//!
//! A solid's boundary is one-sided: its outward winding says where outside is. A cloth has two
//! sides, and the side a vertex is on is the one it was on at the start of the step: each
//! candidate cloth triangle is stored wound towards its vertex (its normal pointing at the
//! vertex at the step start), so that the one-sided kernels apply unchanged and a vertex that
//! passes through the cloth within the step sees a negative gap.

use crate::contact::implicit::ImplicitSurface;
use crate::contact::implicit::force::{Field, ImplicitStencil};
use crate::contact::kernel::{ContactParams, Lagged};
use crate::contact::penalty::Penalty;
use crate::contact::point_triangle::{Feature, closest_feature, evaluate};
use crate::contact::vec3::{cross, dot, sub};
use crate::friction::smooth::SmoothFriction;
use crate::model::{Model, node_arr};
use crate::scene::schema::{ContactGeometry, PipelineSpec};
use rstar::{AABB, RTree, primitives::GeomWithData, primitives::Rectangle};
use std::sync::Arc;

/// What a contact couples.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Stencil {
    /// Node against collider.
    Collider { node: usize, collider: usize },
    /// Node against a triangle of another solid: `nodes = [vertex, t0, t1, t2]`.
    Triangle { nodes: [usize; 4], feature: Feature, sign: f64 },
    /// Node against the implicit surface of another solid: candidate `index` of the step's
    /// [`ImplicitCandidates`] (the vertex and the triangles near it at the step start).
    Implicit { index: u32 },
}

/// The vertex–implicit-surface stencils of one step (`contact.geometry: Implicit`), shared by the
/// detector and the system that evaluates them.
#[derive(Debug, Clone, Default)]
pub struct ImplicitCandidates {
    pub field: Option<Field>,
    pub stencils: Vec<ImplicitStencil>,
    /// Per stencil: the vertex's and the surface's materials, and the surface's triangle ids.
    pub materials: Vec<(usize, usize)>,
    pub triangle_ids: Vec<Vec<usize>>,
}

impl ImplicitCandidates {
    /// The field of an implicit stencil (they only exist with an implicit geometry).
    pub fn field(&self) -> Field {
        self.field.expect("implicit stencils come with their field")
    }

    /// Positions (or velocities) of stencil `k`'s nodes in the generalized vector `x`.
    pub fn gather(&self, k: usize, x: &[f64]) -> Vec<[f64; 3]> {
        self.stencils[k].nodes.iter().map(|&i| node_arr(x, i)).collect()
    }
}

/// One force term of the residual.
#[derive(Debug, Clone, Copy)]
pub struct ContactEntry {
    pub stencil: Stencil,
    pub params: ContactParams,
    pub lagged: Option<Lagged>,
    pub gap: f64,
}

/// A triangle of another body near a vertex.
#[derive(Debug, Clone, Copy)]
pub struct Candidate {
    /// Triangle nodes; a cloth's wound towards the vertex's side.
    pub triangle: [usize; 3],
    /// Material of the triangle's body.
    pub material: usize,
    /// A cloth triangle (two-sided; outside is the vertex's side at the step start).
    pub two_sided: bool,
}

/// Candidate triangles of other bodies near one contact vertex.
#[derive(Debug, Clone)]
pub struct VertexCandidates {
    pub node: usize,
    pub material: usize,
    pub triangles: Vec<Candidate>,
}

/// A body's contact surface: its triangles and the vertices that can touch other bodies.
struct Surface<'m> {
    triangles: &'m [[usize; 3]],
    vertices: Vec<usize>,
    material: usize,
    two_sided: bool,
    /// A cloth in contact with itself: what each of its vertices may not touch.
    own: Option<Neighbourhoods<'m>>,
}

/// Per vertex of a cloth (global nodes from `first`), the nodes it shares a triangle with,
/// itself included: a triangle with any of them is too near in the mesh to be a contact. At
/// rest the triangles it may touch are then at least an edge away, so a penalty layer thinner
/// than the edges touches nothing at rest, and a fold is resisted by its bending alone.
struct Neighbourhoods<'m> {
    first: usize,
    rings: &'m [Vec<usize>],
}

impl<'m> Neighbourhoods<'m> {
    fn of(cloth: &'m crate::model::Cloth) -> Neighbourhoods<'m> {
        Neighbourhoods { first: cloth.nodes.start, rings: cloth.one_rings() }
    }

    /// Whether vertex `i` may touch triangle `t` of the same cloth.
    fn apart(&self, i: usize, t: &[usize; 3]) -> bool {
        let ring = &self.rings[i - self.first];
        !t.iter().any(|n| ring.binary_search(n).is_ok())
    }
}

/// The contact surfaces of every solid (boundary), cloth (all of it) and mesh collider. With an
/// implicit geometry
/// the solids' boundaries contribute their vertices but their triangles are fields of their own
/// ([`implicit_candidates`]).
fn surfaces(model: &Model) -> Vec<Surface<'_>> {
    let solids = model.solids.iter().map(|s| Surface {
        triangles: &s.surface,
        vertices: s.surface_nodes.clone(),
        material: s.material,
        two_sided: false,
        own: None,
    });
    let cloths = model.cloths.iter().map(|c| Surface {
        triangles: &c.triangles,
        vertices: c.nodes.clone().collect(),
        material: c.material,
        two_sided: true,
        own: c.self_contact.then(|| Neighbourhoods::of(c)),
    });
    // A mesh collider is one-sided (outside is where its normals face); its prescribed vertices
    // touch nothing themselves.
    let meshes = model.mesh_colliders.iter().map(|m| Surface {
        triangles: &m.node_triangles,
        vertices: Vec::new(),
        material: m.material,
        two_sided: false,
        own: None,
    });
    solids.chain(cloths).chain(meshes).collect()
}

/// Per-step contact context.
pub struct Detector {
    pub candidates: Vec<VertexCandidates>,
    pub margin: f64,
    /// Per surface (solids, cloths, mesh colliders): its material and the vertices that touch
    /// colliders.
    vertices: Vec<(usize, Vec<usize>)>,
    /// Vertices near the implicit surfaces of solids (`contact.geometry: Implicit`).
    pub implicit: Arc<ImplicitCandidates>,
}

/// The implicit field of the scene's penalty contact geometry, if it asks for one.
fn implicit_field(model: &Model) -> Option<Field> {
    match &model.pipeline {
        PipelineSpec::Penalty(p) => match p.contact.geometry {
            ContactGeometry::Implicit { kernel, radius } => Some(Field { kernel, radius }),
            ContactGeometry::Closest => None,
        },
        PipelineSpec::Nonsmooth(_) | PipelineSpec::Smooth(_) => None,
    }
}

impl Detector {
    /// Build triangle candidates at positions `q` with search radius `margin`.
    pub fn new(model: &Model, q: &[f64], margin: f64) -> Detector {
        let mut candidates = Vec::new();
        let surfaces = surfaces(model);
        let vertices = surfaces.iter().map(|s| (s.material, s.vertices.clone())).collect();
        let field = implicit_field(model);
        let implicit = Arc::new(field.map(|f| implicit_candidates(model, &surfaces, q, margin, f)).unwrap_or_default());
        if surfaces.len() < 2 && surfaces.iter().all(|s| s.own.is_none()) {
            return Detector { candidates, margin, vertices, implicit };
        }
        let mut boxes = Vec::new();
        for (b, s) in surfaces.iter().enumerate() {
            // Solids' boundaries are fields of their own with an implicit geometry; cloths and
            // mesh colliders keep their triangles.
            if field.is_some() && b < model.solids.len() {
                continue;
            }
            for t in s.triangles {
                let p = t.map(|i| node_arr(q, i));
                let lo = [0, 1, 2].map(|k| p.iter().map(|x| x[k]).fold(f64::INFINITY, f64::min) - margin);
                let hi = [0, 1, 2].map(|k| p.iter().map(|x| x[k]).fold(f64::NEG_INFINITY, f64::max) + margin);
                boxes.push(GeomWithData::new(Rectangle::from_corners(lo, hi), (*t, b)));
            }
        }
        let tree = RTree::bulk_load(boxes);
        for (b, s) in surfaces.iter().enumerate() {
            for &i in &s.vertices {
                if model.node_is_kinematic[i] {
                    continue;
                }
                let x = node_arr(q, i);
                let tris: Vec<_> = tree
                    .locate_in_envelope_intersecting(AABB::from_point(x))
                    .filter(|g| g.data.1 != b || s.own.as_ref().is_some_and(|o| o.apart(i, &g.data.0)))
                    .map(|g| {
                        let other = &surfaces[g.data.1];
                        let triangle = if other.two_sided { facing(q, x, g.data.0) } else { g.data.0 };
                        Candidate { triangle, material: other.material, two_sided: other.two_sided }
                    })
                    .collect();
                if !tris.is_empty() {
                    candidates.push(VertexCandidates { node: i, material: s.material, triangles: tris });
                }
            }
        }
        Detector { candidates, margin, vertices, implicit }
    }

    /// Active contacts at positions `q` (colliders placed for time `t1`): every pair with gap
    /// below `delta`, each with the resolved friction law.
    pub fn detect(
        &self,
        model: &Model,
        q: &[f64],
        t1: f64,
        penalty: Penalty,
        eps_basis: bool,
        out: &mut Vec<ContactEntry>,
    ) {
        out.clear();
        for (ci, c) in model.colliders.iter().enumerate() {
            let at = c.placement(t1);
            for (material, vertices) in &self.vertices {
                let material = *material;
                let law = model.friction.get(material, c.material);
                let params = ContactParams { penalty, law, basis_derivatives: eps_basis };
                for &i in vertices {
                    if model.node_is_kinematic[i] {
                        continue;
                    }
                    let (gap, _) = c.signed_distance(&at, node_arr(q, i));
                    if gap < penalty.delta {
                        out.push(ContactEntry {
                            stencil: Stencil::Collider { node: i, collider: ci },
                            params,
                            lagged: None,
                            gap,
                        });
                    }
                }
            }
        }
        for vc in &self.candidates {
            vertex_pairs(q, vc, penalty.delta, |stencil, gap, mat| {
                let law = model.friction.get(vc.material, mat);
                let params = ContactParams { penalty, law, basis_derivatives: eps_basis };
                out.push(ContactEntry { stencil, params, lagged: None, gap });
            });
        }
        let imp = &self.implicit;
        for (k, st) in imp.stencils.iter().enumerate() {
            if let Some(gap) = st.gap(&imp.gather(k, q), imp.field())
                && gap < penalty.delta
            {
                let (a, b) = imp.materials[k];
                let params = ContactParams { penalty, law: model.friction.get(a, b), basis_derivatives: eps_basis };
                out.push(ContactEntry { stencil: Stencil::Implicit { index: k as u32 }, params, lagged: None, gap });
            }
        }
    }

    /// Smallest gap over all vertex–triangle pairs at `q` found by a fresh broad phase, and whether
    /// any pair within `delta` was not among this step's candidates.
    pub fn missed_contacts(&self, model: &Model, q: &[f64], delta: f64) -> bool {
        let fresh = Detector::new(model, q, delta);
        let sorted = |t: &[usize]| {
            let mut s = [t[0], t[1], t[2]];
            s.sort_unstable();
            s
        };
        fresh.candidates.iter().any(|vc| {
            let mut missed = false;
            vertex_pairs(q, vc, delta, |stencil, _, _| {
                let Stencil::Triangle { nodes, .. } = stencil else { return };
                let found = sorted(&nodes[1..]);
                missed |= !self
                    .candidates
                    .iter()
                    .any(|old| old.node == vc.node && old.triangles.iter().any(|c| sorted(&c.triangle) == found));
            });
            missed
        }) || self.missed_implicit(&fresh, q, delta)
    }

    /// Whether a vertex within `delta` of an implicit surface at `q` has a sample near it that its
    /// stencil of this step lacks (the neighbourhood is fixed for the step).
    fn missed_implicit(&self, fresh: &Detector, q: &[f64], delta: f64) -> bool {
        let (old, new) = (&self.implicit, &fresh.implicit);
        (0..new.stencils.len()).any(|k| {
            let near = new.stencils[k].gap(&new.gather(k, q), new.field()).is_some_and(|g| g < delta);
            near && !(0..old.stencils.len()).any(|j| {
                old.stencils[j].nodes[0] == new.stencils[k].nodes[0]
                    && old.materials[j] == new.materials[k]
                    && new.triangle_ids[k].iter().all(|t| old.triangle_ids[j].contains(t))
            })
        })
    }
}

/// Stencils of every contact vertex (of every body) near each solid's implicit surface at `q`:
/// the triangles whose samples lie within the support radius plus the step's motion margin.
fn implicit_candidates(
    model: &Model,
    surfaces: &[Surface],
    q: &[f64],
    margin: f64,
    field: Field,
) -> ImplicitCandidates {
    let mut out = ImplicitCandidates { field: Some(field), ..Default::default() };
    for (b, solid) in model.solids.iter().enumerate() {
        let surface = ImplicitSurface::of_solid_boundary(&solid.surface, field.kernel, field.radius, q);
        for other in surfaces.iter().enumerate().filter(|(o, _)| *o != b).map(|(_, s)| s) {
            for &v in other.vertices.iter().filter(|&&v| !model.node_is_kinematic[v]) {
                let ids: Vec<usize> = surface.neighbours_within(node_arr(q, v), field.radius + margin).collect();
                if ids.is_empty() {
                    continue;
                }
                let mut nodes = vec![v];
                let triangles = ids
                    .iter()
                    .map(|&t| {
                        surface.triangles[t].map(|n| match nodes.iter().position(|&m| m == n) {
                            Some(local) => local,
                            None => {
                                nodes.push(n);
                                nodes.len() - 1
                            }
                        })
                    })
                    .collect();
                out.stencils.push(ImplicitStencil { nodes, triangles });
                out.materials.push((other.material, solid.material));
                out.triangle_ids.push(ids);
            }
        }
    }
    out
}

/// The contact pairs of a vertex with gap below `delta`: `found(stencil, gap, material)`.
///
/// Against solids (one-sided) the closest candidate triangle, whose feature and pseudo-normal
/// define a signed distance to the boundary. Against cloths (two-sided) every candidate triangle
/// within `delta`, each with its own closest feature: the distance to a folded cloth from its
/// concave side is the minimum of two plane distances, whose normal jumps at the fold (a vertex
/// of a solid pressed into a draped cloth sits exactly there), while a sum over triangles of
/// penalties on each one's distance is smooth everywhere off the cloth. It pushes harder over
/// edges and vertices than over faces, but friction stays μ times each pair's normal force.
pub fn vertex_pairs(q: &[f64], vc: &VertexCandidates, delta: f64, mut found: impl FnMut(Stencil, f64, usize)) {
    if let Some((stencil, gap, mat)) = closest_triangle(q, vc)
        && gap < delta
    {
        found(stencil, gap, mat);
    }
    let x = node_arr(q, vc.node);
    for c in vc.triangles.iter().filter(|c| c.two_sided) {
        let tri = c.triangle;
        let p = tri.map(|i| node_arr(q, i));
        let (feature, d2) = closest_feature(x, &p);
        if d2 < delta * delta {
            let gap = evaluate(feature, 1.0, x, &p).gap;
            if gap < delta {
                found(
                    Stencil::Triangle { nodes: [vc.node, tri[0], tri[1], tri[2]], feature, sign: 1.0 },
                    gap,
                    c.material,
                );
            }
        }
    }
}

/// The closest one-sided (solid) candidate triangle of a vertex: stencil, signed gap and the
/// triangle's material.
fn closest_triangle(q: &[f64], vc: &VertexCandidates) -> Option<(Stencil, f64, usize)> {
    let x = node_arr(q, vc.node);
    let mut best: Option<(usize, Feature, f64)> = None;
    for (k, c) in vc.triangles.iter().enumerate().filter(|(_, c)| !c.two_sided) {
        let p = c.triangle.map(|i| node_arr(q, i));
        let (f, d2) = closest_feature(x, &p);
        if best.is_none_or(|b| d2 < b.2) {
            best = Some((k, f, d2));
        }
    }
    let (k, feature, _) = best?;
    let Candidate { triangle: tri, material: mat, .. } = vc.triangles[k];
    let p = tri.map(|i| node_arr(q, i));
    let sign = match feature {
        Feature::Face => 1.0,
        // Outside iff the point is on the positive side of the summed normals of the candidate
        // faces touching the feature (an unweighted pseudo-normal).
        Feature::Edge(e) => feature_sign(q, x, vc, &[tri[e as usize], tri[(e as usize + 1) % 3]]),
        Feature::Vertex(v) => feature_sign(q, x, vc, &[tri[v as usize]]),
    };
    let gap = evaluate(feature, sign, x, &p).gap;
    Some((Stencil::Triangle { nodes: [vc.node, tri[0], tri[1], tri[2]], feature, sign }, gap, mat))
}

fn feature_sign(q: &[f64], x: [f64; 3], vc: &VertexCandidates, feature_nodes: &[usize]) -> f64 {
    let mut n = [0.0; 3];
    for t in vc.triangles.iter().map(|c| &c.triangle) {
        if feature_nodes.iter().all(|f| t.contains(f)) {
            let p = t.map(|i| node_arr(q, i));
            let fn_ = cross(sub(p[1], p[0]), sub(p[2], p[0]));
            let len = dot(fn_, fn_).sqrt();
            for k in 0..3 {
                n[k] += fn_[k] / len;
            }
        }
    }
    let anchor = node_arr(q, feature_nodes[0]);
    if dot(sub(x, anchor), n) < 0.0 { -1.0 } else { 1.0 }
}

/// Triangle `t` wound so that its normal points towards `x` (a two-sided cloth triangle seen
/// from the vertex at `x`).
fn facing(q: &[f64], x: [f64; 3], t: [usize; 3]) -> [usize; 3] {
    let p = t.map(|i| node_arr(q, i));
    let n = cross(sub(p[1], p[0]), sub(p[2], p[0]));
    if dot(sub(x, p[0]), n) < 0.0 { [t[0], t[2], t[1]] } else { t }
}

/// Lagged-friction entries frozen at the start of the step: normal force, normal and weights of
/// every contact active at `q0`. Their penalty part is switched off (it is evaluated at the end of
/// the step by the ordinary entries, which in turn carry no friction).
pub fn lagged_entries(
    active_at_q0: &[ContactEntry],
    model: &Model,
    implicit: &ImplicitCandidates,
    q0: &[f64],
    t0: f64,
) -> Vec<ContactEntry> {
    active_at_q0
        .iter()
        .filter(|e| !e.params.law.is_frictionless())
        .map(|e| {
            let lambda = e.params.penalty.force(e.gap);
            let (normal, weights) = match e.stencil {
                Stencil::Collider { node, collider } => {
                    let c = &model.colliders[collider];
                    let (_, n) = c.signed_distance(&c.placement(t0), node_arr(q0, node));
                    (n, [0.0; 3])
                }
                Stencil::Triangle { nodes, feature, sign } => {
                    let p = [nodes[1], nodes[2], nodes[3]].map(|i| node_arr(q0, i));
                    let prox = evaluate(feature, sign, node_arr(q0, nodes[0]), &p);
                    (prox.normal, prox.weights)
                }
                Stencil::Implicit { index } => {
                    // Normal force |∇Ψ| λ and the level set's unit normal at q0.
                    let k = index as usize;
                    let xs = implicit.gather(k, q0);
                    let tris: Vec<_> = implicit.stencils[k].triangles.iter().map(|t| t.map(|i| xs[i])).collect();
                    let f = implicit.field();
                    let g = crate::contact::implicit::potential::potential_gradient(xs[0], &tris, f.kernel, f.radius)
                        .map_or([0.0; 3], |(_, g)| g);
                    let len = crate::contact::vec3::norm(g);
                    let mut params = e.params;
                    params.penalty.kappa = 0.0;
                    let lagged = Lagged { lambda: lambda * len, normal: g.map(|c| c / len), weights: [0.0; 3] };
                    return ContactEntry { lagged: Some(lagged), params, ..*e };
                }
            };
            let mut params = e.params;
            params.penalty.kappa = 0.0;
            ContactEntry { lagged: Some(Lagged { lambda, normal, weights }), params, ..*e }
        })
        .collect()
}

/// Make the ordinary entries frictionless (lagged mode: friction comes from the lagged entries).
pub fn strip_friction(entries: &mut [ContactEntry]) {
    for e in entries {
        e.params.law = SmoothFriction { mu_d: 0.0, mu_s: 0.0, mu_v: 0.0, ..e.params.law };
    }
}
