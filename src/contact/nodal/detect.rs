//! Detection over a whole [`ContactMesh`]: proximity contacts at given positions and CCD over a
//! step, with three BVHs (vertices, edges, triangles) kept across calls.
//!
//! Vertex–triangle candidates come from the vertex tree against the triangle tree, edge–edge
//! candidates from the edge tree against itself. The narrow phase runs inside the parallel
//! traversal (no candidate list is stored), and the results are sorted at the end, so the output
//! is the same for any number of threads.
//!
//! # One contact per feature pair
//! A contact is identified by the pair of closest features, vertex–face, edge–edge (both
//! interiors), vertex–edge or vertex–vertex, and computed from that pair alone, with the rules
//! of [`super::proximity`] for what counts as interior. A vertex near a cloth edge is seen by
//! both triangles of the edge and by every edge around the vertex; all of them name the same
//! vertex–edge pair, produce bit-identical records, and one is kept. Exclusions are applied to
//! the primitive pair and again to the feature pair (a rod node counts as its incident edges).

use super::aabb::Aabb;
use super::bvh::Bvh;
use super::ccd::{CcdOptions, edge_edge_toi, vertex_triangle_toi};
use super::mesh::{ContactMesh, NodalError};
use super::proximity::{
    NodalContact, SNAP, TriangleFeature, closest_triangle_feature, point_segment, point_triangle_distance2,
    segment_segment, segment_segment_contact_params,
};
use rayon::prelude::*;

/// The three primitive sets of a [`ContactMesh`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum PrimitiveKind {
    Vertex,
    Edge,
    Triangle,
}

/// Broad-phase candidates (exclusions applied), sorted.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct CandidatePairs {
    /// (vertex, triangle)
    pub vertex_triangle: Vec<(u32, u32)>,
    /// (edge, edge), first < second
    pub edge_edge: Vec<(u32, u32)>,
}

/// Which primitive pair an impact is between.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum PairKind {
    /// `first` a vertex, `second` a triangle; nodes `[v, t0, t1, t2]`.
    VertexTriangle,
    /// Two edges, `first < second`; nodes `[a0, a1, b0, b1]`.
    EdgeEdge,
}

/// A primitive pair that comes into contact during the step.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Impact {
    pub kind: PairKind,
    pub first: u32,
    pub second: u32,
    pub nodes: [usize; 4],
    /// Time of impact as a fraction of the step (see [`super::ccd`] for its margin).
    pub toi: f64,
}

/// Result of a CCD pass.
#[derive(Debug, Clone, PartialEq)]
pub struct CcdReport {
    /// Largest safe fraction of the step: the smallest time of impact, 1 without impacts.
    pub toi: f64,
    /// Every impacting pair, sorted by (kind, first, second).
    pub impacts: Vec<Impact>,
}

/// Builds and maintains the BVHs; see the module docs.
#[derive(Debug, Clone)]
pub struct Detector {
    trees: [Bvh; 3],
    /// Primitive counts the trees were built for.
    built_for: Option<[usize; 3]>,
    scratch: Vec<Aabb>,
    rebuild_threshold: f64,
    builds: u64,
    refits: u64,
}

impl Default for Detector {
    fn default() -> Self {
        Self::new()
    }
}

#[inline]
fn pos(x: &[f64], n: usize) -> [f64; 3] {
    [x[3 * n], x[3 * n + 1], x[3 * n + 2]]
}

fn check_margin(margin: f64) -> Result<(), NodalError> {
    if margin.is_finite() && margin >= 0.0 {
        Ok(())
    } else {
        Err(NodalError::BadParameter { what: "margin", value: margin })
    }
}

/// Boxes of all primitives of `kind` over the straight motion `x0 → x1`, inflated by each
/// primitive's largest feature radius plus `margin / 2`: two primitives whose features come
/// within their contact distance plus `margin` at any point of the motion have overlapping boxes.
pub fn primitive_boxes(
    mesh: &ContactMesh,
    kind: PrimitiveKind,
    x0: &[f64],
    x1: &[f64],
    margin: f64,
    out: &mut Vec<Aabb>,
) -> Result<(), NodalError> {
    check_margin(margin)?;
    mesh.check_positions(x0)?;
    mesh.check_positions(x1)?;
    fill_boxes(mesh, kind, x0, x1, margin, out);
    Ok(())
}

/// [`primitive_boxes`] without the checks.
fn fill_boxes(mesh: &ContactMesh, kind: PrimitiveKind, x0: &[f64], x1: &[f64], margin: f64, out: &mut Vec<Aabb>) {
    let h = 0.5 * margin;
    let swept = |nodes: &[usize], r: f64| {
        let mut b = Aabb::EMPTY;
        for &n in nodes {
            b.grow(pos(x0, n));
            b.grow(pos(x1, n));
        }
        b.inflated(r + h)
    };
    out.clear();
    match kind {
        PrimitiveKind::Vertex => out.par_extend(
            mesh.vertex_node.par_iter().zip(&mesh.vertex_radius).map(|(n, &r)| swept(std::slice::from_ref(n), r)),
        ),
        PrimitiveKind::Edge => out.par_extend(mesh.edges.par_iter().zip(&mesh.edge_bound).map(|(e, &r)| swept(e, r))),
        PrimitiveKind::Triangle => {
            out.par_extend(mesh.triangles.par_iter().zip(&mesh.triangle_bound).map(|(t, &r)| swept(t, r)))
        }
    }
}

impl Detector {
    pub fn new() -> Self {
        Detector {
            trees: Default::default(),
            built_for: None,
            scratch: Vec::new(),
            rebuild_threshold: 2.0,
            builds: 0,
            refits: 0,
        }
    }

    /// Rebuild a tree instead of refitting it once its [`Bvh::degradation`] exceeds `threshold`
    /// (default 2: a query then costs about twice that of a fresh tree, more than the rebuild).
    pub fn with_rebuild_threshold(mut self, threshold: f64) -> Self {
        self.rebuild_threshold = threshold;
        self
    }

    /// (tree builds, tree refits) so far.
    pub fn counters(&self) -> (u64, u64) {
        (self.builds, self.refits)
    }

    /// The tree of one primitive kind.
    pub fn tree(&self, kind: PrimitiveKind) -> &Bvh {
        &self.trees[kind as usize]
    }

    /// Drop the trees: the next update builds them from scratch.
    pub fn reset(&mut self) {
        self.built_for = None;
    }

    /// Bound every primitive over `x0 → x1` (see [`primitive_boxes`]) and refit the trees, or
    /// build them when the mesh's primitive counts changed or a tree degraded. Queries are exact
    /// whichever happens; only their speed depends on it.
    pub fn update(&mut self, mesh: &ContactMesh, x0: &[f64], x1: &[f64], margin: f64) -> Result<(), NodalError> {
        check_margin(margin)?;
        mesh.check_positions(x0)?;
        mesh.check_positions(x1)?;
        let counts = [mesh.vertex_count(), mesh.edge_count(), mesh.triangle_count()];
        let fresh = self.built_for != Some(counts);
        for kind in [PrimitiveKind::Vertex, PrimitiveKind::Edge, PrimitiveKind::Triangle] {
            fill_boxes(mesh, kind, x0, x1, margin, &mut self.scratch);
            let tree = &mut self.trees[kind as usize];
            if !fresh {
                tree.refit(&self.scratch)?;
                self.refits += 1;
            }
            if fresh || tree.degradation() > self.rebuild_threshold {
                *tree = Bvh::build(&self.scratch)?;
                self.builds += 1;
            }
        }
        self.built_for = Some(counts);
        Ok(())
    }

    /// Candidate pairs of the last [`Self::update`], exclusions applied.
    pub fn candidates(&self, mesh: &ContactMesh) -> CandidatePairs {
        let [tv, te, tt] = &self.trees;
        let mut vertex_triangle = tv.overlaps_with(tt, |v, t, out| {
            if !mesh.vertex_triangle_excluded(v, t) {
                out.push((v, t));
            }
        });
        let mut edge_edge = te.self_overlaps(|a, b, out| {
            if !mesh.edge_edge_excluded(a, b) {
                out.push((a.min(b), a.max(b)));
            }
        });
        vertex_triangle.par_sort_unstable();
        edge_edge.par_sort_unstable();
        CandidatePairs { vertex_triangle, edge_edge }
    }

    /// Every contact with `gap < margin` at positions `x`, one per feature pair, sorted by
    /// [`NodalContact::key`].
    pub fn proximity(&mut self, mesh: &ContactMesh, x: &[f64], margin: f64) -> Result<Vec<NodalContact>, NodalError> {
        self.update(mesh, x, x, margin)?;
        let [tv, te, tt] = &self.trees;
        let mut contacts = tv.overlaps_with(tt, |v, t, out| vertex_triangle_contact(mesh, x, v, t, margin, out));
        contacts.append(&mut te.self_overlaps(|a, b, out| edge_edge_contact(mesh, x, a.min(b), a.max(b), margin, out)));
        contacts.par_sort_unstable_by_key(NodalContact::key);
        contacts.dedup_by_key(|c| c.key());
        Ok(contacts)
    }

    /// CCD of every candidate pair over the straight motion `x0 → x1`: the global safe step
    /// fraction and the impacting pairs. The contact distance of a pair is the sum of the two
    /// primitives' radii.
    pub fn ccd(
        &mut self,
        mesh: &ContactMesh,
        x0: &[f64],
        x1: &[f64],
        opts: &CcdOptions,
    ) -> Result<CcdReport, NodalError> {
        self.update(mesh, x0, x1, 0.0)?;
        let [tv, te, tt] = &self.trees;
        let mut impacts = tv.overlaps_with(tt, |v, t, out| {
            if mesh.vertex_triangle_excluded(v, t) {
                return;
            }
            let tri = mesh.triangles[t as usize];
            let nodes = [mesh.vertex_node[v as usize], tri[0], tri[1], tri[2]];
            let thickness = mesh.vertex_radius[v as usize] + mesh.triangle_radius[t as usize];
            let (a, b) = (nodes.map(|n| pos(x0, n)), nodes.map(|n| pos(x1, n)));
            if let Some(toi) = vertex_triangle_toi(&a, &b, thickness, opts) {
                out.push(Impact { kind: PairKind::VertexTriangle, first: v, second: t, nodes, toi });
            }
        });
        impacts.append(&mut te.self_overlaps(|a, b, out| {
            let (a, b) = (a.min(b), a.max(b));
            if mesh.edge_edge_excluded(a, b) {
                return;
            }
            let (ea, eb) = (mesh.edges[a as usize], mesh.edges[b as usize]);
            let nodes = [ea[0], ea[1], eb[0], eb[1]];
            let thickness = mesh.edge_radius[a as usize] + mesh.edge_radius[b as usize];
            let (p, q) = (nodes.map(|n| pos(x0, n)), nodes.map(|n| pos(x1, n)));
            if let Some(toi) = edge_edge_toi(&p, &q, thickness, opts) {
                out.push(Impact { kind: PairKind::EdgeEdge, first: a, second: b, nodes, toi });
            }
        }));
        impacts.par_sort_unstable_by_key(|i| (i.kind, i.first, i.second));
        let toi = impacts.iter().map(|i| i.toi).fold(1.0, f64::min);
        Ok(CcdReport { toi, impacts })
    }
}

/// Global time of impact and impacting pairs of the motion `x0 → x1` with a one-off detector.
pub fn global_toi(mesh: &ContactMesh, x0: &[f64], x1: &[f64], opts: &CcdOptions) -> Result<CcdReport, NodalError> {
    Detector::new().ccd(mesh, x0, x1, opts)
}

/// Contact of vertex `v` and edge `e` at positions `x`, placed canonically on the edge (its
/// vertex–vertex form when the closest point is an end), if not excluded and within `margin`.
fn vertex_edge_contact(mesh: &ContactMesh, x: &[f64], v: u32, e: u32, margin: f64, out: &mut Vec<NodalContact>) {
    let node = mesh.vertex_node[v as usize];
    let en = mesh.edges[e as usize];
    let (xv, pe) = (pos(x, node), en.map(|n| pos(x, n)));
    let (t, _) = point_segment(xv, pe[0], pe[1]);
    if t <= SNAP || t >= 1.0 - SNAP {
        let w = en[(t >= 1.0 - SNAP) as usize];
        if let Some(w) = mesh.node_vertex(w) {
            vertex_vertex_contact(mesh, x, v, w, margin, out);
        }
        return;
    }
    if mesh.vertex_edge_excluded(v, e) {
        return;
    }
    let thickness = mesh.vertex_radius[v as usize] + mesh.edge_radius[e as usize];
    let c = NodalContact::vertex_edge(node, (e as usize, en), xv, pe, t, thickness);
    if c.gap < margin {
        out.push(c);
    }
}

/// Contact of vertices `v` and `w` (either order) if not excluded and within `margin`.
fn vertex_vertex_contact(mesh: &ContactMesh, x: &[f64], v: u32, w: u32, margin: f64, out: &mut Vec<NodalContact>) {
    if mesh.vertex_vertex_excluded(v, w) {
        return;
    }
    let (a, b) = (mesh.vertex_node[v as usize], mesh.vertex_node[w as usize]);
    let (a, b) = (a.min(b), a.max(b));
    let thickness = mesh.vertex_radius[v as usize] + mesh.vertex_radius[w as usize];
    let c = NodalContact::vertex_vertex(a, b, pos(x, a), pos(x, b), thickness);
    if c.gap < margin {
        out.push(c);
    }
}

fn vertex_triangle_contact(mesh: &ContactMesh, x: &[f64], v: u32, t: u32, margin: f64, out: &mut Vec<NodalContact>) {
    if mesh.vertex_triangle_excluded(v, t) {
        return;
    }
    let node = mesh.vertex_node[v as usize];
    let tri = mesh.triangles[t as usize];
    let (xv, pt) = (pos(x, node), tri.map(|n| pos(x, n)));
    // Nothing reported from this pair can be closer than the point–triangle distance, and no
    // feature radius exceeds the bound.
    let reach = mesh.vertex_radius[v as usize] + mesh.triangle_bound[t as usize] + margin;
    if point_triangle_distance2(xv, &pt) >= reach * reach {
        return;
    }
    match closest_triangle_feature(xv, &pt) {
        TriangleFeature::Face(w) => {
            let thickness = mesh.vertex_radius[v as usize] + mesh.triangle_radius[t as usize];
            let c = NodalContact::vertex_face(node, (t as usize, tri), xv, &pt, w, thickness);
            if c.gap < margin {
                out.push(c);
            }
        }
        TriangleFeature::Edge(k, _) => {
            vertex_edge_contact(mesh, x, v, mesh.triangle_edges[t as usize][k], margin, out);
        }
        TriangleFeature::Vertex(k) => {
            if let Some(w) = mesh.node_vertex(tri[k]) {
                vertex_vertex_contact(mesh, x, v, w, margin, out);
            }
        }
    }
}

/// Contact of edges `a < b`, or of the vertex–edge / vertex–vertex pair their closest points
/// reduce to.
fn edge_edge_contact(mesh: &ContactMesh, x: &[f64], a: u32, b: u32, margin: f64, out: &mut Vec<NodalContact>) {
    if mesh.edge_edge_excluded(a, b) {
        return;
    }
    let (ea, eb) = (mesh.edges[a as usize], mesh.edges[b as usize]);
    let (pa, pb) = (ea.map(|n| pos(x, n)), eb.map(|n| pos(x, n)));
    let reach = mesh.edge_bound[a as usize] + mesh.edge_bound[b as usize] + margin;
    let (s, t, d2) = segment_segment(pa[0], pa[1], pb[0], pb[1]);
    if d2 >= reach * reach {
        return;
    }
    let (s, t) = segment_segment_contact_params(pa[0], pa[1], pb[0], pb[1], (s, t));
    // Which end, if any, each parameter sits at.
    let end = |u: f64| {
        if u <= SNAP {
            Some(0)
        } else if u >= 1.0 - SNAP {
            Some(1)
        } else {
            None
        }
    };
    let vertex = |n: usize| mesh.node_vertex(n);
    match (end(s), end(t)) {
        (None, None) => {
            let thickness = mesh.edge_radius[a as usize] + mesh.edge_radius[b as usize];
            let c = NodalContact::edge_edge((a as usize, ea), (b as usize, eb), pa, pb, (s, t), thickness);
            if c.gap < margin {
                out.push(c);
            }
        }
        (Some(i), None) => {
            if let Some(v) = vertex(ea[i]) {
                vertex_edge_contact(mesh, x, v, b, margin, out);
            }
        }
        (None, Some(j)) => {
            if let Some(v) = vertex(eb[j]) {
                vertex_edge_contact(mesh, x, v, a, margin, out);
            }
        }
        (Some(i), Some(j)) => {
            if let (Some(v), Some(w)) = (vertex(ea[i]), vertex(eb[j])) {
                vertex_vertex_contact(mesh, x, v, w, margin, out);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::contact::nodal::mesh::ContactMeshBuilder;
    use crate::contact::nodal::proximity::ContactKind;
    use crate::contact::vec3::{dot, scale, sub};

    fn uniform(seed: &mut u64) -> f64 {
        *seed = seed.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = *seed;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        ((z ^ (z >> 31)) >> 11) as f64 / (1u64 << 53) as f64 * 2.0 - 1.0
    }

    /// Triangles of an `n x n`-quad grid starting at node `base`.
    fn grid(n: usize, base: usize) -> Vec<[usize; 3]> {
        let id = |i: usize, j: usize| base + i * (n + 1) + j;
        let mut t = Vec::new();
        for i in 0..n {
            for j in 0..n {
                t.push([id(i, j), id(i + 1, j), id(i + 1, j + 1)]);
                t.push([id(i, j), id(i + 1, j + 1), id(i, j + 1)]);
            }
        }
        t
    }

    /// A crumpled cloth with self-contact, a second cloth without, and wavy rods through both,
    /// all within a small box so that many features are close.
    fn scene(seed: &mut u64) -> (ContactMesh, Vec<f64>) {
        let mut b = ContactMeshBuilder::new();
        let (a, c, r) = (b.add_object(true), b.add_object(false), b.add_object(true));
        let n = 10;
        let per = (n + 1) * (n + 1);
        let mut x = Vec::new();
        for layer in 0..2 {
            for i in 0..=n {
                for j in 0..=n {
                    let (u, v) = (i as f64 / n as f64, j as f64 / n as f64);
                    // Folded sheets: z oscillates so parts of each sheet approach each other.
                    let z = 0.05 * (6.0 * u).sin() + 0.03 * layer as f64 + 0.01 * uniform(seed);
                    x.extend([u + 0.01 * uniform(seed), 0.3 * v + 0.5 * z, z]);
                }
            }
        }
        b.add_surface(a, &grid(n, 0), 0.01).unwrap();
        b.add_surface(c, &grid(n, per), 0.005).unwrap();
        for k in 0..6 {
            let first = x.len() / 3;
            let mut p = [uniform(seed) * 0.5 + 0.5, uniform(seed) * 0.15 + 0.15, uniform(seed) * 0.05];
            for _ in 0..=15 {
                x.extend(p);
                p = [p[0] + 0.05 * uniform(seed), p[1] + 0.05 * uniform(seed), p[2] + 0.05 * uniform(seed)];
            }
            let nodes: Vec<usize> = (first..first + 16).collect();
            b.add_rod(r, &nodes, 0.004 + 0.001 * k as f64).unwrap();
        }
        (b.build().unwrap(), x)
    }

    fn brute_force(mesh: &ContactMesh, x: &[f64], margin: f64) -> Vec<NodalContact> {
        let mut out = Vec::new();
        for v in 0..mesh.vertex_count() as u32 {
            for t in 0..mesh.triangle_count() as u32 {
                vertex_triangle_contact(mesh, x, v, t, margin, &mut out);
            }
        }
        for a in 0..mesh.edge_count() as u32 {
            for b in a + 1..mesh.edge_count() as u32 {
                edge_edge_contact(mesh, x, a, b, margin, &mut out);
            }
        }
        out.sort_by_key(NodalContact::key);
        out.dedup_by_key(|c| c.key());
        out
    }

    #[test]
    fn proximity_matches_brute_force_and_is_complete() {
        let mut seed = 5;
        let margin = 0.01;
        for _ in 0..3 {
            let (mesh, x) = scene(&mut seed);
            let contacts = Detector::new().proximity(&mesh, &x, margin).unwrap();
            assert_eq!(contacts, brute_force(&mesh, &x, margin));
            assert!(contacts.len() > 100, "{} contacts", contacts.len());
            for kind in
                [ContactKind::VertexFace, ContactKind::EdgeEdge, ContactKind::VertexEdge, ContactKind::VertexVertex]
            {
                assert!(contacts.iter().any(|c| c.kind == kind), "no {kind:?} contact in the scene");
            }
            // Geometry: unit normal along the relative position, weights summing to zero.
            for c in &contacts {
                let p = c.relative_position(&x);
                let along = dot(c.normal, p);
                assert!((dot(c.normal, c.normal) - 1.0).abs() < 1e-14);
                assert!(dot(sub(p, scale(c.normal, along)), sub(p, scale(c.normal, along))) < 1e-24, "{c:?}");
                assert!(c.weights.iter().sum::<f64>().abs() < 1e-15);
                assert!(c.gap < margin && along >= 0.0);
            }
            // Completeness, independently of the narrow phase's classification: every close
            // primitive pair not on one rod has a contact between its nodes at most as far.
            let near = |nodes_a: &[usize], nodes_b: &[usize], bound: f64| {
                contacts.iter().any(|c| {
                    let n = &c.nodes[..c.kind.node_count()];
                    n.iter().any(|k| nodes_a.contains(k))
                        && n.iter().any(|k| nodes_b.contains(k))
                        && c.gap <= bound + 1e-12
                })
            };
            for v in 0..mesh.vertex_count() as u32 {
                for t in 0..mesh.triangle_count() as u32 {
                    let tri = mesh.triangle(t);
                    let d = point_triangle_distance2(pos(&x, mesh.vertex(v)), &tri.map(|n| pos(&x, n))).sqrt();
                    let gap = d - mesh.vertex_radius(v) - mesh.triangle_radius(t);
                    if !mesh.vertex_triangle_excluded(v, t) && gap < margin {
                        assert!(near(&[mesh.vertex(v)], &tri, gap), "vertex {v} / triangle {t}: gap {gap}");
                    }
                }
            }
            for a in 0..mesh.edge_count() as u32 {
                for b in a + 1..mesh.edge_count() as u32 {
                    let (ea, eb) = (mesh.edge(a), mesh.edge(b));
                    let on_rod = |e: [usize; 2]| e[0] >= 2 * 121;
                    let d = segment_segment(pos(&x, ea[0]), pos(&x, ea[1]), pos(&x, eb[0]), pos(&x, eb[1])).2.sqrt();
                    let gap = d - mesh.edge_radius(a) - mesh.edge_radius(b);
                    if !mesh.edge_edge_excluded(a, b) && gap < margin && !(on_rod(ea) && on_rod(eb)) {
                        assert!(near(&ea, &eb, gap), "edges {a} / {b}: gap {gap}");
                    }
                }
            }
        }
    }

    fn square_cloth() -> (ContactMeshBuilder, Vec<f64>) {
        let mut b = ContactMeshBuilder::new();
        let o = b.add_object(true);
        // Two triangles sharing the diagonal 0-2.
        b.add_surface(o, &[[0, 1, 2], [0, 2, 3]], 0.01).unwrap();
        (b, vec![0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 1.0, 1.0, 0.0, 0.0, 1.0, 0.0])
    }

    #[test]
    fn one_contact_per_feature_pair() {
        let margin = 0.01;
        let single = |b: ContactMeshBuilder, x: &[f64]| {
            let mesh = b.build().unwrap();
            let c = Detector::new().proximity(&mesh, x, margin).unwrap();
            assert_eq!(c.len(), 1, "{c:#?}");
            c[0]
        };
        // A rod ending just above the middle of the shared diagonal: seen by both triangles and
        // by the rod's edge against the diagonal, reported once as vertex-edge.
        let (mut b, mut x) = square_cloth();
        let rod = b.add_object(true);
        b.add_rod(rod, &[4, 5], 0.01).unwrap();
        x.extend([0.5, 0.5, 0.015, 0.5, 0.5, 1.0]);
        let c = single(b, &x);
        assert_eq!((c.kind, c.nodes, c.weights), (ContactKind::VertexEdge, [4, 2, 0, 4], [1.0, -0.5, -0.5, 0.0]));
        assert!((c.gap + 0.005).abs() < 1e-15 && c.normal == [0.0, 0.0, 1.0]);
        // Just above a corner shared by both triangles: vertex-vertex, normal from the higher
        // node (the rod's) to the lower.
        let (mut b, mut x) = square_cloth();
        let rod = b.add_object(true);
        b.add_rod(rod, &[4, 5], 0.01).unwrap();
        x.extend([0.0, 0.0, 0.015, -0.2, -0.3, 1.0]);
        let c = single(b, &x);
        assert_eq!(
            (c.kind, c.nodes[..2].to_vec(), c.normal),
            (ContactKind::VertexVertex, vec![0, 4], [0.0, 0.0, -1.0])
        );
        // Inside a face: vertex-face with the barycentric weights.
        let (mut b, mut x) = square_cloth();
        let rod = b.add_object(true);
        b.add_rod(rod, &[4, 5], 0.01).unwrap();
        x.extend([0.75, 0.25, 0.012, 0.75, 0.25, 1.0]);
        let c = single(b, &x);
        assert_eq!((c.kind, c.nodes), (ContactKind::VertexFace, [4, 0, 1, 2]));
        assert!((c.weights[1] + 0.25).abs() < 1e-15 && (c.weights[2] + 0.5).abs() < 1e-15);
        // Two rods crossing between nodes: one edge-edge contact; across a node of one rod: one
        // vertex-edge contact (seen from both segments around the node).
        let crossing = |y_node: f64| {
            let mut b = ContactMeshBuilder::new();
            let o = b.add_object(true);
            b.add_rod(o, &[0, 1, 2], 0.01).unwrap();
            b.add_rod(o, &[3, 4, 5], 0.01).unwrap();
            let x = vec![
                -1.0, 0.0, 0.0, 0.0, y_node, 0.0, 1.0, 0.0, 0.0, 0.3, -1.0, 0.015, 0.3, 0.4, 0.015, 0.3, 1.0, 0.015,
            ];
            single(b, &x)
        };
        let c = crossing(0.0);
        assert!(c.kind == ContactKind::EdgeEdge && c.nodes == [1, 2, 3, 4] && c.normal == [0.0, 0.0, -1.0], "{c:?}");
        let mut b = ContactMeshBuilder::new();
        let o = b.add_object(true);
        b.add_rod(o, &[0, 1, 2], 0.01).unwrap();
        b.add_rod(o, &[3, 4, 5], 0.01).unwrap();
        let x = vec![-1.0, 0.0, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, -1.0, 0.015, 0.0, 0.5, 0.015, 0.0, 1.0, 0.015];
        let c = single(b, &x);
        assert_eq!((c.kind, c.nodes), (ContactKind::VertexEdge, [1, 3, 4, 1]));
    }

    #[test]
    fn exclusions_remove_adjacent_contacts() {
        // A rod folded into a hairpin: with span 1 the two arms (three edges apart) touch; the
        // edges around the fold do not, although their ends are closer than the radius.
        let mut b = ContactMeshBuilder::new();
        let o = b.add_object(true);
        b.add_rod(o, &[0, 1, 2, 3, 4, 5], 0.02).unwrap();
        let x = vec![0.0, 0.0, 0.0, 0.1, 0.0, 0.0, 0.2, 0.0, 0.0, 0.2, 0.03, 0.0, 0.1, 0.03, 0.0, 0.0, 0.03, 0.0];
        let mesh = b.build().unwrap();
        let c = Detector::new().proximity(&mesh, &x, 0.0).unwrap();
        let found: Vec<(ContactKind, Vec<usize>)> =
            c.iter().map(|c| (c.kind, c.nodes[..c.kind.node_count()].to_vec())).collect();
        // The arms along their length (edges 0/4 and 1/3, and nodes 1/4 where they meet end to
        // end); nothing between the fold edge 2-3 and its neighbours, although node 2 is 0.03
        // from edge 3-4 and node 3 is 0.03 from edge 1-2.
        let expected = [
            (ContactKind::EdgeEdge, vec![0, 1, 4, 5]),
            (ContactKind::EdgeEdge, vec![1, 2, 3, 4]),
            (ContactKind::VertexVertex, vec![1, 4]),
        ];
        assert_eq!(found, expected);
        // Span 2 also drops the pairs two edges apart (edges 1/3 and nodes 1/4).
        let mut b = ContactMeshBuilder::new().rod_exclusion_span(2);
        let o = b.add_object(true);
        b.add_rod(o, &[0, 1, 2, 3, 4, 5], 0.02).unwrap();
        let c = Detector::new().proximity(&b.build().unwrap(), &x, 0.0).unwrap();
        assert_eq!((c.len(), c[0].kind, c[0].nodes), (1, ContactKind::EdgeEdge, [0, 1, 4, 5]));
        // With self-contact off there is nothing.
        let mut b = ContactMeshBuilder::new();
        let o = b.add_object(false);
        b.add_rod(o, &[0, 1, 2, 3, 4, 5], 0.02).unwrap();
        assert!(Detector::new().proximity(&b.build().unwrap(), &x, 0.0).unwrap().is_empty());
    }

    #[test]
    fn refit_and_rebuild_policy_and_errors() {
        let mut seed = 9;
        let (mesh, x) = scene(&mut seed);
        let mut d = Detector::new();
        let c0 = d.proximity(&mesh, &x, 0.01).unwrap();
        assert_eq!(d.counters(), (3, 0));
        let shifted: Vec<f64> = x.iter().map(|v| v + 1e-4).collect();
        let c1 = d.proximity(&mesh, &shifted, 0.01).unwrap();
        assert_eq!(d.counters(), (3, 3), "a small motion refits");
        assert_eq!(c0.len(), c1.len());
        // Scrambled positions: the refit degrades and the trees are rebuilt; results still exact.
        let scrambled: Vec<f64> = x.iter().map(|v| v + 0.5 * uniform(&mut seed)).collect();
        let c2 = d.proximity(&mesh, &scrambled, 0.01).unwrap();
        assert!(d.counters().0 > 3);
        assert_eq!(c2, brute_force(&mesh, &scrambled, 0.01));
        assert!(matches!(d.proximity(&mesh, &x[..30], 0.01), Err(NodalError::PositionsTooShort { .. })));
        assert!(matches!(d.proximity(&mesh, &x, -1.0), Err(NodalError::BadParameter { .. })));
        let mut bad = x.clone();
        bad[7] = f64::NAN;
        assert!(matches!(d.ccd(&mesh, &x, &bad, &CcdOptions::default()), Err(NodalError::NonFinitePosition { .. })));
    }
}
