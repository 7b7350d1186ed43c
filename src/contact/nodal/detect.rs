//! Detection over a whole [`ContactMesh`]: proximity contacts at given positions and CCD over a
//! step, with three BVHs (vertices, edges, triangles) kept across calls.
//!
//! Vertex–triangle candidates come from the vertex tree against the triangle tree, edge–edge
//! candidates from the edge tree against itself. The narrow phase runs inside the parallel
//! traversal (no candidate list is stored), and the results are sorted at the end, so the output
//! is the same for any number of threads.
//!
//! Contacts are generated and deduplicated as described in [`super::contacts`].

use super::aabb::Aabb;
use super::bvh::Bvh;
use super::ccd::{CcdOptions, edge_edge_toi, vertex_triangle_toi};
use super::contacts::{edge_edge_contact, pos, vertex_triangle_contact};
use super::mesh::{ContactMesh, NodalError};
use super::proximity::NodalContact;
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

fn check_margin(margin: f64) -> Result<(), NodalError> {
    if margin.is_finite() && margin >= 0.0 {
        Ok(())
    } else {
        Err(NodalError::BadParameter { what: "margin", value: margin, allowed: "finite and non-negative" })
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
    pub fn candidates(&self, mesh: &ContactMesh) -> Result<CandidatePairs, NodalError> {
        let counts = [mesh.vertex_count(), mesh.edge_count(), mesh.triangle_count()];
        if self.built_for != Some(counts) {
            return Err(NodalError::StaleTrees);
        }
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
        Ok(CandidatePairs { vertex_triangle, edge_edge })
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

    /// CCD over the straight motion `x0 → x1`: the global safe step fraction and the impacting
    /// pairs. The contact distance of a pair is the sum of the two primitives' radii.
    ///
    /// With a finite [`CcdOptions::max_separation`] the boxes are inflated by it, and the impacts
    /// are exactly those of a loop over all non-excluded primitive pairs. With an infinite one
    /// only pairs that can come within their contact distance are checked; the others cannot
    /// collide, so the step fraction is just as safe, but a pair that merely approaches within
    /// `s` of its initial gap is reported only if it is among them.
    pub fn ccd(
        &mut self,
        mesh: &ContactMesh,
        x0: &[f64],
        x1: &[f64],
        opts: &CcdOptions,
    ) -> Result<CcdReport, NodalError> {
        let inflation = match opts.max_separation {
            m if m.is_finite() && m > 0.0 => m,
            m if m == f64::INFINITY => 0.0,
            m => {
                return Err(NodalError::BadParameter {
                    what: "max_separation",
                    value: m,
                    allowed: "positive (or infinite)",
                });
            }
        };
        self.update(mesh, x0, x1, inflation)?;
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

/// Contacts of impacting pairs at positions `x` (for instance the start of the step), built as
/// [`Detector::proximity`] builds them (one per feature pair, dominance applied) but only for
/// these primitive pairs and with gaps below `margin` (which may be infinite): what a solver
/// appends to its contact set after a CCD pass. The impacts must come from this mesh (their
/// primitive indices are used as they are).
pub fn impact_contacts(
    mesh: &ContactMesh,
    x: &[f64],
    impacts: &[Impact],
    margin: f64,
) -> Result<Vec<NodalContact>, NodalError> {
    if margin.is_nan() || margin < 0.0 {
        return Err(NodalError::BadParameter { what: "margin", value: margin, allowed: "non-negative" });
    }
    mesh.check_positions(x)?;
    let mut out = Vec::with_capacity(impacts.len());
    for i in impacts {
        match i.kind {
            PairKind::VertexTriangle => vertex_triangle_contact(mesh, x, i.first, i.second, margin, &mut out),
            PairKind::EdgeEdge => edge_edge_contact(mesh, x, i.first, i.second, margin, &mut out),
        }
    }
    out.sort_unstable_by_key(NodalContact::key);
    out.dedup_by_key(|c| c.key());
    Ok(out)
}

/// Global time of impact and impacting pairs of the motion `x0 → x1` with a one-off detector.
pub fn global_toi(mesh: &ContactMesh, x0: &[f64], x1: &[f64], opts: &CcdOptions) -> Result<CcdReport, NodalError> {
    Detector::new().ccd(mesh, x0, x1, opts)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::contact::nodal::mesh::ContactMeshBuilder;
    use crate::contact::nodal::proximity::{
        ContactKind, TriangleFeature, closest_triangle_feature, point_triangle_distance2, segment_segment,
    };
    use crate::contact::vec3::{dot, scale, sub};

    use crate::test_rng::symmetric as uniform;

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
            // (Vertex-vertex contacts need two vertices that are each locally closest: rare.)
            for kind in [ContactKind::VertexFace, ContactKind::EdgeEdge, ContactKind::VertexEdge] {
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
            // Vertex-face contacts are never dominated: every vertex over the interior of a
            // triangle within the margin has one, with the point-triangle gap.
            for v in 0..mesh.vertex_count() as u32 {
                for t in 0..mesh.triangle_count() as u32 {
                    let tri = mesh.triangle(t);
                    let (xv, pt) = (pos(&x, mesh.vertex(v)), tri.map(|n| pos(&x, n)));
                    let gap =
                        point_triangle_distance2(xv, &pt).sqrt() - mesh.vertex_radius(v) - mesh.triangle_radius(t);
                    if !mesh.vertex_triangle_excluded(v, t)
                        && gap < margin
                        && matches!(closest_triangle_feature(xv, &pt), TriangleFeature::Face(_))
                    {
                        let c = contacts
                            .iter()
                            .find(|c| c.key() == (ContactKind::VertexFace, [mesh.vertex(v), t as usize]));
                        assert!(c.is_some_and(|c| (c.gap - gap).abs() < 1e-12), "vertex {v} / triangle {t}");
                    }
                }
            }
            // Completeness, independently of the narrow phase: for every pair of objects (and
            // every object with itself), the smallest gap over all non-excluded primitive pairs
            // is the smallest gap among the reported contacts (the closest pair is never
            // dominated). Radii are uniform per rod and per sheet, so feature and primitive
            // thicknesses agree.
            let object = |n: usize| {
                if n < 121 {
                    0
                } else if n < 242 {
                    1
                } else {
                    2
                }
            };
            let pair = |a: usize, b: usize| (object(a).min(object(b)), object(a).max(object(b)));
            let mut brute_min = std::collections::BTreeMap::new();
            let mut note = |key, gap: f64| {
                if gap < margin {
                    let m = brute_min.entry(key).or_insert(f64::INFINITY);
                    *m = f64::min(*m, gap);
                }
            };
            for v in 0..mesh.vertex_count() as u32 {
                for t in 0..mesh.triangle_count() as u32 {
                    let tri = mesh.triangle(t);
                    let d = point_triangle_distance2(pos(&x, mesh.vertex(v)), &tri.map(|n| pos(&x, n))).sqrt();
                    if !mesh.vertex_triangle_excluded(v, t) {
                        note(pair(mesh.vertex(v), tri[0]), d - mesh.vertex_radius(v) - mesh.triangle_radius(t));
                    }
                }
            }
            for a in 0..mesh.edge_count() as u32 {
                for b in a + 1..mesh.edge_count() as u32 {
                    let (ea, eb) = (mesh.edge(a), mesh.edge(b));
                    let d = segment_segment(pos(&x, ea[0]), pos(&x, ea[1]), pos(&x, eb[0]), pos(&x, eb[1])).2.sqrt();
                    if !mesh.edge_edge_excluded(a, b) {
                        note(pair(ea[0], eb[0]), d - mesh.edge_radius(a) - mesh.edge_radius(b));
                    }
                }
            }
            let mut reported_min = std::collections::BTreeMap::new();
            for c in &contacts {
                let other = if c.kind == ContactKind::EdgeEdge { c.nodes[2] } else { c.nodes[1] };
                let m = reported_min.entry(pair(c.nodes[0], other)).or_insert(f64::INFINITY);
                *m = f64::min(*m, c.gap);
            }
            assert_eq!(brute_min.len(), 5, "every object pair but the second sheet with itself is in contact");
            assert_eq!(brute_min.keys().collect::<Vec<_>>(), reported_min.keys().collect::<Vec<_>>());
            for (k, g) in &brute_min {
                assert!((reported_min[k] - g).abs() < 1e-12, "objects {k:?}: {} vs {g}", reported_min[k]);
            }
        }
    }

    #[test]
    fn refit_and_rebuild_policy_and_errors() {
        let mut seed = 9;
        let (mesh, x) = scene(&mut seed);
        let mut d = Detector::new();
        assert_eq!(d.candidates(&mesh), Err(NodalError::StaleTrees));
        let c0 = d.proximity(&mesh, &x, 0.01).unwrap();
        let cand = d.candidates(&mesh).unwrap();
        assert!(cand.vertex_triangle.len() > 100 && cand.edge_edge.len() > 100);
        assert!(cand.edge_edge.iter().all(|&(a, b)| a < b && !mesh.edge_edge_excluded(a, b)));
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
        // A sheet-sized step down for every rod node: impacts, and contacts for them at the start.
        let falling: Vec<f64> =
            x.iter().enumerate().map(|(i, v)| if i >= 3 * 242 && i % 3 == 2 { v - 0.2 } else { *v }).collect();
        let report = d.ccd(&mesh, &x, &falling, &CcdOptions::default()).unwrap();
        assert!(!report.impacts.is_empty() && report.toi < 1.0);
        let appended = impact_contacts(&mesh, &x, &report.impacts, f64::INFINITY).unwrap();
        assert!(appended.len() >= report.impacts.len() / 10 && appended.windows(2).all(|w| w[0].key() < w[1].key()));
        let within = impact_contacts(&mesh, &x, &report.impacts, 0.01).unwrap();
        assert!(within.iter().all(|c| c.gap < 0.01 && appended.contains(c)));
        assert!(impact_contacts(&mesh, &x, &report.impacts, -1.0).is_err());
        let capped = |m| CcdOptions { max_separation: m, ..CcdOptions::default() };
        assert!(matches!(d.ccd(&mesh, &x, &x, &capped(0.0)), Err(NodalError::BadParameter { .. })));
        assert!(d.ccd(&mesh, &x, &x, &capped(1e-3)).unwrap().impacts.is_empty(), "no motion, no impact");
        let mut bad = x.clone();
        bad[7] = f64::NAN;
        assert!(matches!(d.ccd(&mesh, &x, &bad, &CcdOptions::default()), Err(NodalError::NonFinitePosition { .. })));
    }
}
