//! From primitive pairs to contacts: the narrow phase of [`super::detect`], which turns a
//! vertex–triangle or edge–edge pair into at most one canonical [`NodalContact`].
//!
//! # One contact per physical contact
//! 1. **Feature pairs.** A contact is identified by the pair of closest features, vertex–face,
//!    edge–edge (both interiors), vertex–edge or vertex–vertex, and computed from that pair
//!    alone, with the rules of [`super::proximity`] for what counts as interior. A vertex just
//!    above a cloth edge is seen by both triangles of the edge and by every edge around the
//!    vertex; all of them name the same vertex–edge pair, produce bit-identical records, and one
//!    is kept.
//! 2. **Dominance.** A vertex–edge or vertex–vertex contact is dropped when a primitive next to
//!    one of its features has a point strictly closer to the other feature's closest point (its
//!    own closest point, classified as in the narrow phase, is not that vertex or edge), and that
//!    closer pair is itself one the detection reports: a face on the edge, or around the vertex
//!    when the other feature is a vertex (vertex–triangle), or an edge around the vertex
//!    (segment–segment). So a vertex inside triangle T2 near its edge e shared with T1 gives one
//!    vertex–face contact with T2, not also a vertex–edge contact with e (the closest point of
//!    T1), and the edges around a vertex above a face add nothing at the vertex. Each dropped
//!    contact has a strictly closer reported one, so chains end, and the closest (non-excluded)
//!    vertex–triangle or edge–edge pair of any two objects is always reported. A face does not dominate when the other feature is an edge:
//!    the closer pair would be edge–face, which no contact kind represents (an edge piercing the
//!    face has its only zero-distance point there). Vertex–face and edge–edge contacts are not
//!    filtered: vertex–face contacts are the nodal constraints, kept also on a sloping sheet
//!    whose vertex is not the locally closest point, and edge–edge contacts sit where edges
//!    cross, not where a vertex contact is.
//!
//! Neighbours excluded from contact with the other feature do not dominate (a rod node next to
//! the fold of a hairpin keeps its contact). Exclusions are applied to the primitive pair and
//! again to the feature pair (a rod node counts as its incident edges).

use super::mesh::ContactMesh;
use super::proximity::{
    NodalContact, SNAP, TriangleFeature, closest_triangle_feature, point_segment, point_triangle_distance2,
    segment_segment, segment_segment_contact_params,
};

#[inline]
pub(super) fn pos(x: &[f64], n: usize) -> [f64; 3] {
    [x[3 * n], x[3 * n + 1], x[3 * n + 2]]
}

#[inline]
fn lerp(a: [f64; 3], b: [f64; 3], t: f64) -> [f64; 3] {
    [0, 1, 2].map(|k| a[k] + t * (b[k] - a[k]))
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
    if c.gap < margin
        && !edge_dominated(mesh, x, e, xv, v)
        && !vertex_dominated(mesh, x, v, lerp(pe[0], pe[1], t), Feature::Edge(e))
    {
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
    let (xa, xb) = (pos(x, a), pos(x, b));
    let c = NodalContact::vertex_vertex(a, b, xa, xb, thickness);
    if c.gap < margin
        && !vertex_dominated(mesh, x, v, pos(x, mesh.vertex_node[w as usize]), Feature::Vertex(w))
        && !vertex_dominated(mesh, x, w, pos(x, mesh.vertex_node[v as usize]), Feature::Vertex(v))
    {
        out.push(c);
    }
}

/// A feature on the other side of a contact, for excluding neighbours in the dominance tests.
#[derive(Clone, Copy)]
enum Feature {
    Vertex(u32),
    Edge(u32),
}

fn edge_excluded_with(mesh: &ContactMesh, e: u32, other: Feature) -> bool {
    match other {
        Feature::Vertex(w) => mesh.vertex_edge_excluded(w, e),
        Feature::Edge(b) => mesh.edge_edge_excluded(e, b),
    }
}

/// Does an edge (or, when `other` is a vertex, a triangle) around vertex `v` have a point
/// strictly closer to `c` (the closest point of the feature `other`) than `v` itself? See the
/// module docs.
fn vertex_dominated(mesh: &ContactMesh, x: &[f64], v: u32, c: [f64; 3], other: Feature) -> bool {
    let node = mesh.vertex_node[v as usize];
    let xv = pos(x, node);
    for &e in mesh.vertex_edges(v) {
        let en = mesh.edges[e as usize];
        let far = if en[0] == node { en[1] } else { en[0] };
        if point_segment(c, xv, pos(x, far)).0 > SNAP && !edge_excluded_with(mesh, e, other) {
            return true;
        }
    }
    let Feature::Vertex(w) = other else {
        // An edge closer to a face around `v` than to `v` is an edge-face pair: not representable
        // (see the module docs), so the contact at `v` stays.
        return false;
    };
    for &t in mesh.vertex_triangles(v) {
        let tri = mesh.triangles[t as usize];
        let closest = closest_triangle_feature(c, &tri.map(|n| pos(x, n)));
        if !matches!(closest, TriangleFeature::Vertex(k) if tri[k] == node) && !mesh.vertex_triangle_excluded(w, t) {
            return true;
        }
    }
    false
}

/// Does a triangle on edge `e` have a point strictly closer to the vertex `other` at `c` than
/// the edge? See the module docs.
fn edge_dominated(mesh: &ContactMesh, x: &[f64], e: u32, c: [f64; 3], other: u32) -> bool {
    let en = mesh.edges[e as usize];
    for &t in mesh.edge_triangles(e) {
        let tri = mesh.triangles[t as usize];
        let on_edge = match closest_triangle_feature(c, &tri.map(|n| pos(x, n))) {
            TriangleFeature::Face(_) => false,
            TriangleFeature::Edge(k, _) => mesh.triangle_edges[t as usize][k] == e,
            TriangleFeature::Vertex(k) => en.contains(&tri[k]),
        };
        if !on_edge && !mesh.vertex_triangle_excluded(other, t) {
            return true;
        }
    }
    false
}

pub(super) fn vertex_triangle_contact(
    mesh: &ContactMesh,
    x: &[f64],
    v: u32,
    t: u32,
    margin: f64,
    out: &mut Vec<NodalContact>,
) {
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
            let one_sided = mesh.triangle_one_sided(t);
            let c = NodalContact::vertex_face(node, (t as usize, tri), xv, &pt, w, thickness, one_sided);
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
pub(super) fn edge_edge_contact(
    mesh: &ContactMesh,
    x: &[f64],
    a: u32,
    b: u32,
    margin: f64,
    out: &mut Vec<NodalContact>,
) {
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
    use crate::contact::nodal::detect::Detector;
    use crate::contact::nodal::mesh::ContactMeshBuilder;
    use crate::contact::nodal::proximity::ContactKind;

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
        // Inside a face, close to the diagonal: the other triangle's closest point is on the
        // diagonal, and the rod's edge meets the diagonal at the rod's end, but the face is
        // closer: one vertex-face contact.
        let (mut b, mut x) = square_cloth();
        let rod = b.add_object(true);
        b.add_rod(rod, &[4, 5], 0.01).unwrap();
        x.extend([0.51, 0.49, 0.012, 0.3, 0.6, 1.0]);
        let c = single(b, &x);
        assert_eq!((c.kind, c.nodes), (ContactKind::VertexFace, [4, 0, 1, 2]));
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
}
