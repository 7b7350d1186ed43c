//! The contact description of nodal bodies: vertices, edges and triangles over global node
//! indices (node `i` at `x[3 i..3 i + 3]` of the generalized position vector), each with a radius
//! and an object, and the rules that exclude pairs from contact.
//!
//! # Radii
//! Every primitive carries the radius of the material around its mid-surface or centerline: a
//! rod's cross-section radius, half a cloth's thickness, zero (or a small skin) for a solid's
//! surface. Two features are in contact when their distance is below the sum of their radii.
//! Edges and vertices shared by several primitives take the largest radius among them (a rod
//! glued to a cloth edge keeps the rod's radius there).
//!
//! # Exclusions
//! A pair of primitives (or of the features a contact is reported between) is excluded when
//! 1. they share a node (a vertex and a triangle holding it, two edges with a common end, ...);
//! 2. they belong to the same object and that object has self-contact off;
//! 3. they lie on the same rod within [`ContactMeshBuilder::rod_exclusion_span`] edges of each
//!    other, a vertex counting as its incident edges. The default span 1 excludes consecutive
//!    edges (already rule 1) and a node against the edges next to its own; span 2 also excludes
//!    edges two apart, which thick rods with short segments need because such edges are closer
//!    than two radii at rest.
//!
//! Cloth has no neighbourhood rule beyond shared nodes: its thickness must stay below the height
//! of its triangles, or a vertex touches the opposite edge of its own triangle at rest.

/// Index of an object (a body, or any group of primitives sharing the self-contact setting).
pub type ObjectId = u32;

/// Marker for "not on a rod" and "node not in the mesh".
const NONE: u32 = u32::MAX;

#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum NodalError {
    #[error("object {object} does not exist (objects are created with add_object)")]
    UnknownObject { object: ObjectId },
    #[error("radius {value} of object {object} must be finite and non-negative")]
    BadRadius { object: ObjectId, value: f64 },
    #[error("triangle {index} of object {object} repeats a node: {nodes:?}")]
    DegenerateTriangle { object: ObjectId, index: usize, nodes: [usize; 3] },
    #[error("a rod of object {object} has {count} distinct nodes; a rod needs at least 2 (3 if closed)")]
    ShortRod { object: ObjectId, count: usize },
    #[error("a rod of object {object} repeats node {node}; only a closed loop may end on its first node")]
    RepeatedRodNode { object: ObjectId, node: usize },
    #[error("node {node} belongs to objects {first} and {second}; a node belongs to one object")]
    NodeInTwoObjects { node: usize, first: ObjectId, second: ObjectId },
    #[error("node {node} belongs to two rods; rods may not share nodes")]
    NodeInTwoRods { node: usize },
    #[error("{count} {what} do not fit the 32-bit primitive indices")]
    TooMany { what: &'static str, count: usize },
    #[error("positions hold {len} values, fewer than the {need} (3 per node) the contact mesh needs")]
    PositionsTooShort { len: usize, need: usize },
    #[error("start and end positions differ in length ({start} vs {end})")]
    LengthMismatch { start: usize, end: usize },
    #[error("position of node {node} is not finite: {value:?}")]
    NonFinitePosition { node: usize, value: [f64; 3] },
    #[error("the detector's trees were not built for this mesh; call Detector::update first")]
    StaleTrees,
    #[error("{what} is {value}; it must be {allowed}")]
    BadParameter { what: &'static str, value: f64, allowed: &'static str },
}

/// Where a primitive sits on a rod: the rod index and the range `[lo, hi]` of edge positions it
/// covers (an edge covers its own position; a node covers its incident edges).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct ChainSpan {
    pub chain: u32,
    pub lo: u32,
    pub hi: u32,
}

impl ChainSpan {
    const NONE: ChainSpan = ChainSpan { chain: NONE, lo: 0, hi: 0 };
}

#[derive(Debug, Clone, Copy)]
struct Chain {
    edges: u32,
    closed: bool,
}

#[derive(Debug, Clone, Copy)]
struct ObjectOptions {
    self_contact: bool,
    /// Its triangles have an outside (where their normals face): a vertex over a face is at
    /// the signed distance, so one that ends a step a hair behind it is pushed back out, not
    /// further in (a mesh collider's surface).
    one_sided: bool,
}

/// Immutable contact topology. Build with [`ContactMeshBuilder`].
#[derive(Debug, Clone)]
pub struct ContactMesh {
    objects: Vec<ObjectOptions>,
    chains: Vec<Chain>,
    rod_span: u32,
    node_vertex: Vec<u32>,
    pub(crate) vertex_node: Vec<usize>,
    pub(crate) vertex_radius: Vec<f64>,
    vertex_object: Vec<ObjectId>,
    vertex_chain: Vec<ChainSpan>,
    pub(crate) edges: Vec<[usize; 2]>,
    pub(crate) edge_radius: Vec<f64>,
    pub(crate) edge_bound: Vec<f64>,
    edge_object: Vec<ObjectId>,
    edge_chain: Vec<ChainSpan>,
    pub(crate) triangles: Vec<[usize; 3]>,
    pub(crate) triangle_radius: Vec<f64>,
    pub(crate) triangle_bound: Vec<f64>,
    pub(crate) triangle_edges: Vec<[u32; 3]>,
    triangle_object: Vec<ObjectId>,
    /// Edges around each vertex.
    vertex_edges: Adjacency,
    /// Triangles around each vertex.
    vertex_triangles: Adjacency,
    /// Triangles on each edge.
    edge_triangles: Adjacency,
}

/// Compressed lists: the items of entry `i` are `items[offsets[i]..offsets[i + 1]]`.
#[derive(Debug, Clone, Default)]
struct Adjacency {
    offsets: Vec<u32>,
    items: Vec<u32>,
}

impl Adjacency {
    /// From `(entry, item)` pairs; items keep their order of appearance within an entry.
    fn new(entries: usize, pairs: impl Iterator<Item = (u32, u32)> + Clone) -> Adjacency {
        let mut offsets = vec![0u32; entries + 1];
        for (e, _) in pairs.clone() {
            offsets[e as usize + 1] += 1;
        }
        for i in 0..entries {
            offsets[i + 1] += offsets[i];
        }
        let mut fill = offsets.clone();
        let mut items = vec![0u32; offsets[entries] as usize];
        for (e, item) in pairs {
            items[fill[e as usize] as usize] = item;
            fill[e as usize] += 1;
        }
        Adjacency { offsets, items }
    }

    fn get(&self, i: u32) -> &[u32] {
        &self.items[self.offsets[i as usize] as usize..self.offsets[i as usize + 1] as usize]
    }
}

/// Collects objects, surfaces and rods, then checks and indexes them in [`Self::build`].
#[derive(Debug, Clone, Default)]
pub struct ContactMeshBuilder {
    objects: Vec<ObjectOptions>,
    rod_span: u32,
    triangles: Vec<([usize; 3], f64, ObjectId)>,
    /// (nodes, radius, object, closed)
    rods: Vec<(Vec<usize>, f64, ObjectId, bool)>,
}

impl ContactMeshBuilder {
    pub fn new() -> Self {
        ContactMeshBuilder { rod_span: 1, ..Default::default() }
    }

    /// Rod features within `span` edges of each other on the same rod are not in contact (see the
    /// module docs). Values below 1 are raised to 1.
    pub fn rod_exclusion_span(mut self, span: u32) -> Self {
        self.rod_span = span.max(1);
        self
    }

    /// A new object; `self_contact` says whether its primitives collide with each other.
    pub fn add_object(&mut self, self_contact: bool) -> ObjectId {
        self.objects.push(ObjectOptions { self_contact, one_sided: false });
        (self.objects.len() - 1) as ObjectId
    }

    /// A new object without self-contact whose surface is one-sided (a mesh collider's).
    pub fn add_one_sided_object(&mut self) -> ObjectId {
        self.objects.push(ObjectOptions { self_contact: false, one_sided: true });
        (self.objects.len() - 1) as ObjectId
    }

    fn check(&self, object: ObjectId, radius: f64) -> Result<(), NodalError> {
        if object as usize >= self.objects.len() {
            return Err(NodalError::UnknownObject { object });
        }
        if !(radius.is_finite() && radius >= 0.0) {
            return Err(NodalError::BadRadius { object, value: radius });
        }
        Ok(())
    }

    /// Triangles of a cloth or of a solid's boundary, with `radius` half the sheet thickness (or
    /// the skin of a solid). Their edges and vertices are added too.
    pub fn add_surface(&mut self, object: ObjectId, triangles: &[[usize; 3]], radius: f64) -> Result<(), NodalError> {
        self.check(object, radius)?;
        for (index, t) in triangles.iter().enumerate() {
            if t[0] == t[1] || t[1] == t[2] || t[2] == t[0] {
                return Err(NodalError::DegenerateTriangle { object, index, nodes: *t });
            }
        }
        self.triangles.extend(triangles.iter().map(|t| (*t, radius, object)));
        Ok(())
    }

    /// A rod (polyline) through `nodes`; a loop repeats its first node at the end.
    pub fn add_rod(&mut self, object: ObjectId, nodes: &[usize], radius: f64) -> Result<(), NodalError> {
        self.check(object, radius)?;
        let closed = nodes.len() >= 2 && nodes.first() == nodes.last();
        let distinct = if closed { &nodes[..nodes.len() - 1] } else { nodes };
        if distinct.len() < 2 + closed as usize {
            return Err(NodalError::ShortRod { object, count: distinct.len() });
        }
        let mut sorted = distinct.to_vec();
        sorted.sort_unstable();
        if let Some(w) = sorted.windows(2).find(|w| w[0] == w[1]) {
            return Err(NodalError::RepeatedRodNode { object, node: w[0] });
        }
        self.rods.push((nodes.to_vec(), radius, object, closed));
        Ok(())
    }

    pub fn build(self) -> Result<ContactMesh, NodalError> {
        let fits = |what, count: usize| {
            if count >= NONE as usize { Err(NodalError::TooMany { what, count }) } else { Ok(()) }
        };
        fits("triangles", self.triangles.len())?;
        fits("rods", self.rods.len())?;
        let node_count = self
            .triangles
            .iter()
            .flat_map(|t| t.0)
            .chain(self.rods.iter().flat_map(|r| r.0.iter().copied()))
            .max()
            .map_or(0, |m| m + 1);

        // Owner object of every node.
        let mut node_object = vec![NONE; node_count];
        let mut claim = |node: usize, object: ObjectId| match node_object[node] {
            NONE => {
                node_object[node] = object;
                Ok(())
            }
            o if o == object => Ok(()),
            first => Err(NodalError::NodeInTwoObjects { node, first, second: object }),
        };
        for (t, _, o) in &self.triangles {
            t.iter().try_for_each(|&n| claim(n, *o))?;
        }
        for (nodes, _, o, _) in &self.rods {
            nodes.iter().try_for_each(|&n| claim(n, *o))?;
        }

        // Edges: rod segments and triangle sides, merged by node pair. Sorting by the pair makes
        // the edge numbering independent of insertion order within equal pairs.
        enum Source {
            Rod { chain: u32, pos: u32 },
            Side { tri: u32, k: u8 },
        }
        let mut raw: Vec<([usize; 2], f64, ObjectId, Source)> = Vec::new();
        let mut chains = Vec::with_capacity(self.rods.len());
        let mut node_chain = vec![ChainSpan::NONE; node_count];
        for (r, (nodes, radius, object, closed)) in self.rods.iter().enumerate() {
            let edges = nodes.len() - 1;
            fits("rod edges", edges)?;
            chains.push(Chain { edges: edges as u32, closed: *closed });
            for (j, w) in nodes.windows(2).enumerate() {
                raw.push(([w[0], w[1]], *radius, *object, Source::Rod { chain: r as u32, pos: j as u32 }));
            }
            let last = edges as u32 - 1;
            for (i, &n) in nodes.iter().enumerate().take(if *closed { edges } else { nodes.len() }) {
                let i = i as u32;
                let span = match (closed, i) {
                    (true, 0) => ChainSpan { chain: r as u32, lo: last, hi: 0 },
                    _ => ChainSpan { chain: r as u32, lo: i.saturating_sub(1), hi: i.min(last) },
                };
                if node_chain[n] != ChainSpan::NONE {
                    return Err(NodalError::NodeInTwoRods { node: n });
                }
                node_chain[n] = span;
            }
        }
        for (t, (nodes, radius, object)) in self.triangles.iter().enumerate() {
            for k in 0..3 {
                raw.push((
                    [nodes[k], nodes[(k + 1) % 3]],
                    *radius,
                    *object,
                    Source::Side { tri: t as u32, k: k as u8 },
                ));
            }
        }
        let key = |e: [usize; 2]| (e[0].min(e[1]), e[0].max(e[1]));
        // Stable sort: among equal pairs the first inserted (rods before surfaces) sets the
        // orientation.
        raw.sort_by_key(|r| key(r.0));
        let mut edges: Vec<[usize; 2]> = Vec::new();
        let mut edge_radius = Vec::new();
        let mut edge_object = Vec::new();
        let mut edge_chain = Vec::new();
        let mut triangle_edges = vec![[0u32; 3]; self.triangles.len()];
        for (nodes, radius, object, source) in raw {
            if edges.last().is_none_or(|&e| key(e) != key(nodes)) {
                edges.push(nodes);
                edge_radius.push(radius);
                edge_object.push(object);
                edge_chain.push(ChainSpan::NONE);
            }
            let id = edges.len() - 1;
            edge_radius[id] = f64::max(edge_radius[id], radius);
            match source {
                Source::Rod { chain, pos } => edge_chain[id] = ChainSpan { chain, lo: pos, hi: pos },
                Source::Side { tri, k } => triangle_edges[tri as usize][k as usize] = id as u32,
            }
        }
        fits("edges", edges.len())?;

        // Vertices: every node used, in node order; radius = largest over incident edges.
        let mut node_vertex = vec![NONE; node_count];
        let mut vertex_node = Vec::new();
        for (n, &o) in node_object.iter().enumerate() {
            if o != NONE {
                node_vertex[n] = vertex_node.len() as u32;
                vertex_node.push(n);
            }
        }
        fits("vertices", vertex_node.len())?;
        let mut vertex_radius = vec![0.0f64; vertex_node.len()];
        for (e, r) in edges.iter().zip(&edge_radius) {
            for &n in e {
                let v = node_vertex[n] as usize;
                vertex_radius[v] = vertex_radius[v].max(*r);
            }
        }
        let vertex_object = vertex_node.iter().map(|&n| node_object[n]).collect();
        let vertex_chain = vertex_node.iter().map(|&n| node_chain[n]).collect();
        // Bounding radii: the largest radius of any feature of the primitive, so that a box
        // inflated by it covers every contact reported from its features.
        let vr = |n: usize| vertex_radius[node_vertex[n] as usize];
        let edge_bound = edges.iter().map(|e| vr(e[0]).max(vr(e[1]))).collect();
        let triangle_bound = self.triangles.iter().map(|(t, _, _)| vr(t[0]).max(vr(t[1])).max(vr(t[2]))).collect();

        let nv = vertex_node.len();
        let vertex_edges =
            Adjacency::new(nv, edges.iter().enumerate().flat_map(|(e, n)| n.map(|n| (node_vertex[n], e as u32))));
        let vertex_triangles = Adjacency::new(
            nv,
            self.triangles.iter().enumerate().flat_map(|(t, (n, _, _))| n.map(|n| (node_vertex[n], t as u32))),
        );
        let edge_triangles = Adjacency::new(
            edges.len(),
            triangle_edges.iter().enumerate().flat_map(|(t, es)| es.map(|e| (e, t as u32))),
        );

        Ok(ContactMesh {
            vertex_edges,
            vertex_triangles,
            edge_triangles,
            objects: self.objects,
            chains,
            rod_span: self.rod_span,
            node_vertex,
            vertex_node,
            vertex_radius,
            vertex_object,
            vertex_chain,
            edges,
            edge_radius,
            edge_bound,
            edge_object,
            edge_chain,
            triangle_radius: self.triangles.iter().map(|t| t.1).collect(),
            triangle_object: self.triangles.iter().map(|t| t.2).collect(),
            triangles: self.triangles.into_iter().map(|t| t.0).collect(),
            triangle_bound,
            triangle_edges,
        })
    }
}

/// Accessors take primitive indices below the matching count and panic otherwise, like slice
/// indexing.
impl ContactMesh {
    /// One past the highest node index used: positions need at least `3 * node_count()` values.
    pub fn node_count(&self) -> usize {
        self.node_vertex.len()
    }
    pub fn vertex_count(&self) -> usize {
        self.vertex_node.len()
    }
    pub fn edge_count(&self) -> usize {
        self.edges.len()
    }
    pub fn triangle_count(&self) -> usize {
        self.triangles.len()
    }
    /// Node of vertex primitive `v`.
    pub fn vertex(&self, v: u32) -> usize {
        self.vertex_node[v as usize]
    }
    /// Nodes of edge `e` (rod order for rod segments).
    pub fn edge(&self, e: u32) -> [usize; 2] {
        self.edges[e as usize]
    }
    pub fn triangle(&self, t: u32) -> [usize; 3] {
        self.triangles[t as usize]
    }
    pub fn vertex_radius(&self, v: u32) -> f64 {
        self.vertex_radius[v as usize]
    }
    pub fn edge_radius(&self, e: u32) -> f64 {
        self.edge_radius[e as usize]
    }
    pub fn triangle_radius(&self, t: u32) -> f64 {
        self.triangle_radius[t as usize]
    }
    /// Vertex primitive of `node`, if the node is in the mesh.
    pub fn node_vertex(&self, node: usize) -> Option<u32> {
        self.node_vertex.get(node).copied().filter(|&v| v != NONE)
    }

    /// Whether triangle `t` has an outside (its object is one-sided).
    pub fn triangle_one_sided(&self, t: u32) -> bool {
        self.objects[self.triangle_object[t as usize] as usize].one_sided
    }

    fn objects_excluded(&self, a: ObjectId, b: ObjectId) -> bool {
        a == b && !self.objects[a as usize].self_contact
    }

    /// Rule 3: both on the same rod and within the exclusion span.
    fn chain_excluded(&self, a: ChainSpan, b: ChainSpan) -> bool {
        if a.chain == NONE || a.chain != b.chain {
            return false;
        }
        let chain = self.chains[a.chain as usize];
        let dist = |x: u32, y: u32| {
            let d = x.abs_diff(y);
            if chain.closed { d.min(chain.edges - d) } else { d }
        };
        let d = dist(a.lo, b.lo).min(dist(a.lo, b.hi)).min(dist(a.hi, b.lo)).min(dist(a.hi, b.hi));
        d <= self.rod_span
    }

    /// Is vertex `v` against triangle `t` excluded?
    pub fn vertex_triangle_excluded(&self, v: u32, t: u32) -> bool {
        let (v, t) = (v as usize, t as usize);
        self.objects_excluded(self.vertex_object[v], self.triangle_object[t])
            || self.triangles[t].contains(&self.vertex_node[v])
    }

    /// Is edge `a` against edge `b` excluded?
    pub fn edge_edge_excluded(&self, a: u32, b: u32) -> bool {
        let (a, b) = (a as usize, b as usize);
        let (ea, eb) = (self.edges[a], self.edges[b]);
        self.objects_excluded(self.edge_object[a], self.edge_object[b])
            || ea[0] == eb[0]
            || ea[0] == eb[1]
            || ea[1] == eb[0]
            || ea[1] == eb[1]
            || self.chain_excluded(self.edge_chain[a], self.edge_chain[b])
    }

    /// Edges having vertex `v` as an end.
    pub fn vertex_edges(&self, v: u32) -> &[u32] {
        self.vertex_edges.get(v)
    }
    /// Triangles having vertex `v` as a corner.
    pub fn vertex_triangles(&self, v: u32) -> &[u32] {
        self.vertex_triangles.get(v)
    }
    /// Triangles having edge `e` as a side.
    pub fn edge_triangles(&self, e: u32) -> &[u32] {
        self.edge_triangles.get(e)
    }

    /// Is vertex `v` against edge `e` excluded (contacts reported between those features)?
    pub fn vertex_edge_excluded(&self, v: u32, e: u32) -> bool {
        let (v, e) = (v as usize, e as usize);
        self.objects_excluded(self.vertex_object[v], self.edge_object[e])
            || self.edges[e].contains(&self.vertex_node[v])
            || self.chain_excluded(self.vertex_chain[v], self.edge_chain[e])
    }

    /// Is vertex `v` against vertex `w` excluded?
    pub fn vertex_vertex_excluded(&self, v: u32, w: u32) -> bool {
        let (v, w) = (v as usize, w as usize);
        v == w
            || self.objects_excluded(self.vertex_object[v], self.vertex_object[w])
            || self.chain_excluded(self.vertex_chain[v], self.vertex_chain[w])
    }

    /// Check that `x` holds finite positions for every node of the mesh.
    pub fn check_positions(&self, x: &[f64]) -> Result<(), NodalError> {
        let need = 3 * self.node_count();
        if x.len() < need {
            return Err(NodalError::PositionsTooShort { len: x.len(), need });
        }
        for &n in &self.vertex_node {
            let p = [x[3 * n], x[3 * n + 1], x[3 * n + 2]];
            if !p.iter().all(|c| c.is_finite()) {
                return Err(NodalError::NonFinitePosition { node: n, value: p });
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Two triangles sharing edge (1, 2), a 6-node rod and a second, separate rod.
    fn sample(span: u32, cloth_self: bool) -> ContactMesh {
        let mut b = ContactMeshBuilder::new().rod_exclusion_span(span);
        let cloth = b.add_object(cloth_self);
        let hair = b.add_object(true);
        b.add_surface(cloth, &[[0, 1, 2], [2, 1, 3]], 1e-3).unwrap();
        b.add_rod(hair, &[10, 11, 12, 13, 14, 15], 5e-5).unwrap();
        b.add_rod(hair, &[20, 21], 5e-5).unwrap();
        b.build().unwrap()
    }

    fn edge_id(m: &ContactMesh, a: usize, b: usize) -> u32 {
        (0..m.edge_count() as u32).find(|&e| m.edge(e) == [a, b] || m.edge(e) == [b, a]).unwrap()
    }

    #[test]
    fn topology_counts_and_radii() {
        let m = sample(1, true);
        assert_eq!((m.vertex_count(), m.edge_count(), m.triangle_count()), (4 + 6 + 2, 5 + 5 + 1, 2));
        assert_eq!(m.node_count(), 22);
        assert_eq!(m.node_vertex(5), None);
        let v = m.node_vertex(12).unwrap();
        assert_eq!(m.vertex_radius(v), 5e-5);
        assert_eq!(m.triangle_edges[1], [edge_id(&m, 2, 1), edge_id(&m, 1, 3), edge_id(&m, 3, 2)]);
        // The shared side is one edge, on both triangles.
        assert_eq!(m.triangle_edges[0][1], m.triangle_edges[1][0]);
        assert_eq!(m.edge_triangles(edge_id(&m, 1, 2)), &[0, 1]);
        assert_eq!(m.edge_triangles(edge_id(&m, 0, 1)), &[0]);
        assert!(m.edge_triangles(edge_id(&m, 11, 12)).is_empty());
        let v1 = m.node_vertex(1).unwrap();
        assert_eq!(m.vertex_triangles(v1), &[0, 1]);
        let mut around: Vec<[usize; 2]> = m.vertex_edges(v1).iter().map(|&e| m.edge(e)).collect();
        around.sort();
        assert_eq!(around, [[0, 1], [1, 2], [1, 3]].map(|e| m.edge(edge_id(&m, e[0], e[1]))));
        assert_eq!(m.vertex_edges(m.node_vertex(12).unwrap()).len(), 2);
    }

    #[test]
    fn exclusion_rules() {
        let m = sample(1, true);
        let v = |n| m.node_vertex(n).unwrap();
        // Shared node: vertex of the triangle, edges with a common end.
        assert!(m.vertex_triangle_excluded(v(0), 0));
        assert!(!m.vertex_triangle_excluded(v(3), 0));
        assert!(m.edge_edge_excluded(edge_id(&m, 0, 1), edge_id(&m, 1, 3)));
        assert!(!m.edge_edge_excluded(edge_id(&m, 0, 1), edge_id(&m, 2, 3)));
        // Rod span 1: edges two apart collide; a node against the edge after its own does not.
        assert!(!m.edge_edge_excluded(edge_id(&m, 10, 11), edge_id(&m, 12, 13)));
        assert!(m.vertex_edge_excluded(v(10), edge_id(&m, 11, 12)));
        assert!(!m.vertex_edge_excluded(v(10), edge_id(&m, 12, 13)));
        assert!(m.vertex_vertex_excluded(v(10), v(12)));
        assert!(!m.vertex_vertex_excluded(v(10), v(13)));
        // Different rods of one object collide.
        assert!(!m.edge_edge_excluded(edge_id(&m, 10, 11), edge_id(&m, 20, 21)));
        // Span 2.
        let m2 = sample(2, true);
        assert!(m2.edge_edge_excluded(edge_id(&m2, 10, 11), edge_id(&m2, 12, 13)));
        assert!(!m2.edge_edge_excluded(edge_id(&m2, 10, 11), edge_id(&m2, 13, 14)));
        // Self-contact off: no pair inside the cloth, but the cloth still meets the rods.
        let m3 = sample(1, false);
        let v3 = |n| m3.node_vertex(n).unwrap();
        assert!(m3.vertex_triangle_excluded(v3(3), 0));
        assert!(m3.edge_edge_excluded(edge_id(&m3, 0, 1), edge_id(&m3, 2, 3)));
        assert!(!m3.vertex_triangle_excluded(v3(12), 0));
    }

    #[test]
    fn closed_rod_wraps_around() {
        let mut b = ContactMeshBuilder::new().rod_exclusion_span(2);
        let o = b.add_object(true);
        b.add_rod(o, &[0, 1, 2, 3, 4, 5, 6, 7, 0], 1e-3).unwrap();
        let m = b.build().unwrap();
        assert_eq!(m.edge_count(), 8);
        let e = |a: usize, c: usize| edge_id(&m, a, c);
        // Edge 7-0 and edge 1-2 are two apart across the closure.
        assert!(m.edge_edge_excluded(e(7, 0), e(1, 2)));
        assert!(!m.edge_edge_excluded(e(7, 0), e(3, 4)));
        let v0 = m.node_vertex(0).unwrap();
        assert!(m.vertex_edge_excluded(v0, e(5, 6)));
        assert!(!m.vertex_edge_excluded(v0, e(4, 5)));
    }

    #[test]
    fn bad_input_is_reported() {
        let mut b = ContactMeshBuilder::new();
        let o = b.add_object(true);
        assert_eq!(b.add_surface(7, &[[0, 1, 2]], 0.0), Err(NodalError::UnknownObject { object: 7 }));
        assert!(matches!(b.add_surface(o, &[[0, 1, 2]], f64::NAN), Err(NodalError::BadRadius { .. })));
        assert!(matches!(b.add_surface(o, &[[0, 1, 1]], 0.0), Err(NodalError::DegenerateTriangle { index: 0, .. })));
        assert!(matches!(b.add_rod(o, &[4], 0.0), Err(NodalError::ShortRod { .. })));
        assert!(matches!(b.add_rod(o, &[4, 5, 4], 0.0), Err(NodalError::ShortRod { .. })));
        assert!(matches!(b.add_rod(o, &[4, 5, 6, 5], 0.0), Err(NodalError::RepeatedRodNode { node: 5, .. })));
        let p = b.add_object(true);
        b.add_surface(o, &[[0, 1, 2]], 0.0).unwrap();
        b.add_rod(p, &[2, 3], 0.0).unwrap();
        assert!(matches!(b.clone().build(), Err(NodalError::NodeInTwoObjects { node: 2, .. })));
        let mut b = ContactMeshBuilder::new();
        let o = b.add_object(true);
        b.add_rod(o, &[0, 1], 0.0).unwrap();
        b.add_rod(o, &[1, 2], 0.0).unwrap();
        assert!(matches!(b.build(), Err(NodalError::NodeInTwoRods { node: 1 })));
        let m = sample(1, true);
        let mut x = vec![0.0; 3 * 22];
        assert!(m.check_positions(&x[..10]).is_err());
        x[3 * 13 + 1] = f64::INFINITY;
        assert!(matches!(m.check_positions(&x), Err(NodalError::NonFinitePosition { node: 13, .. })));
        x[3 * 13 + 1] = 0.0;
        x[3 * 5] = f64::NAN; // node 5 is not in the mesh
        assert!(m.check_positions(&x).is_ok());
    }
}
