//! Triangle meshes of any shape (not necessarily convex) as rigid shapes: the checks that make a
//! mesh a solid's boundary, the angle-weighted pseudo-normals that sign distances to it
//! (Bærentzen and Aanæs 2005), and its feature edges, the creases that contact sampling walks.
//!
//! A body's mesh is accepted when every triangle has an area, every edge is shared by exactly two
//! triangles that run along it in opposite directions (closed, manifold at edges, consistently
//! oriented), no vertex is unused, and no two triangles cross ([`super::self_intersection`]). An
//! inward-oriented mesh (negative volume) is flipped, since both orientations occur in files.
//!
//! A mesh collider (which has no mass) may also be open, a terrain or a bowl's wall: then it is
//! one-sided. Its front is the side its triangles turn counter-clockwise to, as written in the
//! file; behind its faces it is solid for as deep as a contact can reach in one step (see
//! [`SurfaceMesh::closest`]), beside its open boundary it is free space (below a hopper's outlet
//! rim, say). Its boundary edges are creases: a body sliding off the edge of a terrain touches
//! it along them.

use super::mesh_distance::TriangleTree;
use nalgebra::Vector3;
use std::collections::HashMap;
use thiserror::Error;

/// Why a triangle mesh cannot bound a solid. Elements are counted from 0.
#[derive(Debug, Clone, PartialEq, Error)]
pub enum MeshDefect {
    #[error("a closed mesh needs at least 4 vertices and 4 triangles, got {vertices} and {triangles}")]
    TooSmall { vertices: usize, triangles: usize },
    #[error("triangle {triangle} refers to vertex {index}, but there are only {count} vertices")]
    BadIndex { triangle: usize, index: usize, count: usize },
    #[error("triangle {triangle} (vertices {a}, {b}, {c}) has no area")]
    Degenerate { triangle: usize, a: usize, b: usize, c: usize },
    #[error("the mesh is open: edge ({a}, {b}) of triangle {triangle} has no triangle on its other side")]
    Open { a: usize, b: usize, triangle: usize },
    #[error("the mesh is not manifold: edge ({a}, {b}) is shared by {count} triangles (first: {triangle})")]
    NonManifold { a: usize, b: usize, count: usize, triangle: usize },
    #[error(
        "the mesh is not consistently oriented: triangles {first} and {second} both run from vertex {a} to \
         {b} along their shared edge"
    )]
    Inconsistent { a: usize, b: usize, first: usize, second: usize },
    #[error("vertex {vertex} is used by no triangle")]
    UnusedVertex { vertex: usize },
    #[error("the mesh encloses no volume")]
    NoVolume,
    #[error("the mesh intersects itself: triangles {first} and {second} cross")]
    SelfIntersecting { first: usize, second: usize },
}

/// A consistently oriented triangle mesh in a body (or collider) frame, closed and outward, or
/// open with a front, with what distance queries and contact sampling need.
#[derive(Debug, Clone)]
pub struct SurfaceMesh {
    pub vertices: Vec<Vector3<f64>>,
    /// Counter-clockwise seen from outside.
    pub triangles: Vec<[usize; 3]>,
    /// Outward unit normal of each triangle.
    pub face_normals: Vec<Vector3<f64>>,
    /// Pseudo-normal of edge `k` (from corner `k` to corner `k + 1`) of each triangle: the unit sum
    /// of the normals of the two triangles that share it (the face normal on an open boundary).
    pub edge_normals: Vec<[Vector3<f64>; 3]>,
    /// Angle-weighted pseudo-normal of each vertex.
    pub vertex_normals: Vec<Vector3<f64>>,
    /// Whether edge `k` (corner `k` to `k + 1`) of each triangle is a crease: an edge where the
    /// surface bends by more than [`CREASE_ANGLE`], a place besides vertices where this body can
    /// touch a flat face of another.
    pub is_crease: Vec<[bool; 3]>,
    /// Whether each vertex is a corner: a point where the surface bends (or an open boundary),
    /// not one inside a flat patch, where any touch is also the patch's (and a sample there
    /// would see the other body's nearby edge as a wall across the patch).
    pub is_corner: Vec<bool>,
    /// Axis-aligned bounds in the body frame (min, max).
    pub bounds: (Vector3<f64>, Vector3<f64>),
    /// Largest distance of a vertex from the body origin.
    pub radius: f64,
    /// Wall time of the checks and the distance tree's construction (s).
    pub build_seconds: f64,
    /// Whether every edge has a triangle on both sides (a solid); else the mesh is one-sided.
    pub closed: bool,
    /// The triangle across edge `k` of each triangle ([`OPEN`] on an open boundary).
    pub(super) neighbours: Vec<[usize; 3]>,
    /// Whether each vertex lies on an open boundary.
    pub(super) on_boundary: Vec<bool>,
    pub(super) tree: TriangleTree,
}

/// No triangle across this edge: an open mesh's boundary.
pub(super) const OPEN: usize = usize::MAX;

impl PartialEq for SurfaceMesh {
    /// Two meshes are equal when their geometry is: everything else is derived from it.
    fn eq(&self, other: &SurfaceMesh) -> bool {
        self.vertices == other.vertices && self.triangles == other.triangles
    }
}

/// Dihedral angles below this (radians, 25°) leave an edge smooth: a triangulated flat face's
/// diagonals (0°), and the edges of a tessellated curved surface (a sphere or a cylinder of 16 or
/// more segments bends by 22.5° or less per edge), which its vertices sample to within the
/// tessellation's own error. Sharp features (a box's 90°, a notch, a prism of up to 14 sides)
/// are creases and get sampled along their length.
pub const CREASE_ANGLE: f64 = 25.0 * std::f64::consts::PI / 180.0;

/// Faces around a vertex parallel within this angle (radians) make it flat: exactly flat up to
/// rounding, since a convex vertex that bends by more is where a flat face of another body
/// touches first (missing one that bends by less lets a body sink by this angle times the
/// distance to its own corners, 1e-7 m at 0.1 m).
const FLAT_ANGLE: f64 = 1e-6;

/// Relative size (times the longest edge of the triangle) below which a cross product counts as
/// zero: far above rounding for coordinates of any size, far below a modelled sliver.
const AREA_TOL: f64 = 1e-12;

impl SurfaceMesh {
    /// Checks `triangles` over `vertices` as the boundary of a solid and builds the query structures.
    pub fn new(vertices: Vec<Vector3<f64>>, triangles: Vec<[usize; 3]>) -> Result<SurfaceMesh, MeshDefect> {
        if vertices.len() < 4 || triangles.len() < 4 {
            return Err(MeshDefect::TooSmall { vertices: vertices.len(), triangles: triangles.len() });
        }
        SurfaceMesh::checked(vertices, triangles, false)
    }

    /// A mesh collider's surface: closed (then as [`SurfaceMesh::new`]), or open and one-sided,
    /// with the same checks but for the boundary edges and the volume.
    pub fn collider(vertices: Vec<Vector3<f64>>, triangles: Vec<[usize; 3]>) -> Result<SurfaceMesh, MeshDefect> {
        if triangles.is_empty() {
            return Err(MeshDefect::TooSmall { vertices: vertices.len(), triangles: 0 });
        }
        SurfaceMesh::checked(vertices, triangles, true)
    }

    fn checked(
        vertices: Vec<Vector3<f64>>,
        mut triangles: Vec<[usize; 3]>,
        open_allowed: bool,
    ) -> Result<SurfaceMesh, MeshDefect> {
        let start = std::time::Instant::now();
        check_elements(&vertices, &triangles)?;
        let mut neighbours = check_edges(&triangles, open_allowed)?;
        let closed = neighbours.iter().flatten().all(|&n| n != OPEN);
        if closed {
            // Six times the signed volume (divergence theorem); its sign decides the orientation.
            let volume: f64 = triangles
                .iter()
                .map(|t| {
                    let [a, b, c] = t.map(|i| vertices[i]);
                    a.dot(&(b - a).cross(&(c - a)))
                })
                .sum();
            let scale = vertices.iter().map(|v| v.amax()).fold(0.0, f64::max);
            if volume.is_nan() || volume.abs() <= AREA_TOL * scale.powi(3) {
                return Err(MeshDefect::NoVolume);
            }
            if volume < 0.0 {
                // (a, b, c) -> (a, c, b): edge slots 0 and 2 trade places, slot 1 reverses in place.
                triangles.iter_mut().for_each(|t| t.swap(1, 2));
                neighbours.iter_mut().for_each(|n| n.swap(0, 2));
            }
        }
        let tree = TriangleTree::new(&vertices, &triangles);
        if let Some((first, second)) = super::self_intersection::first_crossing(&vertices, &triangles, &tree) {
            return Err(MeshDefect::SelfIntersecting { first, second });
        }
        let mut mesh = SurfaceMesh::assemble(vertices, triangles, neighbours, tree);
        mesh.build_seconds = start.elapsed().as_secs_f64();
        Ok(mesh)
    }

    /// The same mesh with its vertices moved to `vertices` (an animated collider's frame): the
    /// normals, creases and tree follow; the checks are not repeated.
    pub fn reposed(&self, vertices: Vec<Vector3<f64>>) -> SurfaceMesh {
        let tree = TriangleTree::new(&vertices, &self.triangles);
        SurfaceMesh::assemble(vertices, self.triangles.clone(), self.neighbours.clone(), tree)
    }

    /// The derived data of a checked, outward-oriented mesh.
    fn assemble(
        vertices: Vec<Vector3<f64>>,
        triangles: Vec<[usize; 3]>,
        neighbours: Vec<[usize; 3]>,
        tree: TriangleTree,
    ) -> SurfaceMesh {
        let face_normals: Vec<Vector3<f64>> = triangles
            .iter()
            .map(|t| (vertices[t[1]] - vertices[t[0]]).cross(&(vertices[t[2]] - vertices[t[0]])).normalize())
            .collect();
        let mut edge_normals = vec![[Vector3::zeros(); 3]; triangles.len()];
        let mut is_crease = vec![[false; 3]; triangles.len()];
        for t in 0..triangles.len() {
            for k in 0..3 {
                let other = neighbours[t][k];
                if other == OPEN {
                    (edge_normals[t][k], is_crease[t][k]) = (face_normals[t], true);
                    continue;
                }
                edge_normals[t][k] = (face_normals[t] + face_normals[other]).normalize();
                let bend = face_normals[t].dot(&face_normals[other]).clamp(-1.0, 1.0).acos();
                is_crease[t][k] = bend > CREASE_ANGLE;
            }
        }
        let vertex_normals = angle_weighted_normals(&vertices, &triangles, &face_normals);
        let (mut is_corner, mut on_boundary) = (vec![false; vertices.len()], vec![false; vertices.len()]);
        let flat = FLAT_ANGLE.cos();
        for (t, tri) in triangles.iter().enumerate() {
            for (k, &v) in tri.iter().enumerate() {
                on_boundary[v] |= neighbours[t][k] == OPEN || neighbours[t][(k + 2) % 3] == OPEN;
                is_corner[v] |= on_boundary[v] || face_normals[t].dot(&vertex_normals[v]) < flat;
            }
        }
        let lo = vertices.iter().fold(Vector3::repeat(f64::INFINITY), |m, v| m.inf(v));
        let hi = vertices.iter().fold(Vector3::repeat(f64::NEG_INFINITY), |m, v| m.sup(v));
        let radius = vertices.iter().map(|v| v.norm()).fold(0.0, f64::max);
        SurfaceMesh {
            vertices,
            triangles,
            face_normals,
            edge_normals,
            vertex_normals,
            is_crease,
            is_corner,
            bounds: (lo, hi),
            radius,
            build_seconds: 0.0,
            closed: neighbours.iter().flatten().all(|&n| n != OPEN),
            neighbours,
            on_boundary,
            tree,
        }
    }

    /// The same mesh translated by `-center` (the body frame is centered on the center of mass).
    pub fn recentered(&self, center: &Vector3<f64>) -> SurfaceMesh {
        let vertices: Vec<Vector3<f64>> = self.vertices.iter().map(|v| v - center).collect();
        let tree = TriangleTree::new(&vertices, &self.triangles);
        let radius = vertices.iter().map(|v| v.norm()).fold(0.0, f64::max);
        SurfaceMesh { vertices, bounds: (self.bounds.0 - center, self.bounds.1 - center), radius, tree, ..self.clone() }
    }

    /// The corners and creases of the triangles whose bounding boxes meet the box `(lo, hi)`
    /// (body frame), each once, in increasing order: what can touch a body inside that box.
    pub fn skeleton_in(&self, lo: Vector3<f64>, hi: Vector3<f64>) -> (Vec<usize>, Vec<[usize; 2]>) {
        let (mut verts, mut edges) = (Vec::new(), Vec::new());
        for t in self.tree.overlapping(lo.into(), hi.into()) {
            let tri = self.triangles[t];
            verts.extend(tri.iter().filter(|&&v| self.is_corner[v]));
            for k in 0..3 {
                let (a, b) = (tri[k], tri[(k + 1) % 3]);
                if self.is_crease[t][k] {
                    edges.push([a.min(b), a.max(b)]);
                }
            }
        }
        verts.sort_unstable();
        verts.dedup();
        edges.sort_unstable();
        edges.dedup();
        (verts, edges)
    }

    /// How many edges are creases (an inner one is flagged on both of its triangles).
    pub fn crease_count(&self) -> usize {
        let flags = self.is_crease.iter().flatten().zip(self.neighbours.iter().flatten());
        let (inner, boundary) = flags.filter(|(c, _)| **c).fold((0, 0), |(i, b), (_, &n)| match n {
            OPEN => (i, b + 1),
            _ => (i + 1, b),
        });
        inner / 2 + boundary
    }

    /// Bytes held by the mesh and its distance tree (what `fricsim check` reports).
    pub fn memory_bytes(&self) -> usize {
        let v3 = std::mem::size_of::<Vector3<f64>>();
        self.vertices.len() * 2 * v3
            + self.triangles.len() * (2 * std::mem::size_of::<[usize; 3]>() + 4 * v3)
            + self.is_crease.len() * 3
            + 2 * self.is_corner.len()
            + self.tree.memory_bytes()
    }
}

/// Indices in range, every triangle with an area, every vertex used.
fn check_elements(vertices: &[Vector3<f64>], triangles: &[[usize; 3]]) -> Result<(), MeshDefect> {
    let mut used = vec![false; vertices.len()];
    for (t, tri) in triangles.iter().enumerate() {
        if let Some(&index) = tri.iter().find(|&&i| i >= vertices.len()) {
            return Err(MeshDefect::BadIndex { triangle: t, index, count: vertices.len() });
        }
        let [a, b, c] = tri.map(|i| vertices[i]);
        let longest = (b - a).norm().max((c - b).norm()).max((a - c).norm());
        let doubled_area = (b - a).cross(&(c - a)).norm();
        if doubled_area.is_nan() || doubled_area <= AREA_TOL * longest * longest {
            return Err(MeshDefect::Degenerate { triangle: t, a: tri[0], b: tri[1], c: tri[2] });
        }
        tri.iter().for_each(|&i| used[i] = true);
    }
    match used.iter().position(|u| !u) {
        Some(vertex) => Err(MeshDefect::UnusedVertex { vertex }),
        None => Ok(()),
    }
}

/// Undirected edge -> the (triangle, edge slot, runs from the lower to the higher index?) uses.
type EdgeUses = HashMap<(usize, usize), Vec<(usize, usize, bool)>>;

/// Every edge shared by exactly two triangles running along it in opposite directions, or with
/// `open_allowed` by one. Returns, for each triangle and each of its edges `k` (corner `k` to
/// `k + 1`), the triangle across it ([`OPEN`] for none).
fn check_edges(triangles: &[[usize; 3]], open_allowed: bool) -> Result<Vec<[usize; 3]>, MeshDefect> {
    let mut uses: EdgeUses = HashMap::with_capacity(3 * triangles.len() / 2);
    for (t, tri) in triangles.iter().enumerate() {
        for k in 0..3 {
            let (a, b) = (tri[k], tri[(k + 1) % 3]);
            uses.entry((a.min(b), a.max(b))).or_default().push((t, k, a < b));
        }
    }
    let mut neighbours = vec![[OPEN; 3]; triangles.len()];
    // Report the defect of the lowest-numbered triangle, whatever the hash order.
    let mut worst: Option<(usize, MeshDefect)> = None;
    let mut note = |t: usize, d: MeshDefect| {
        if worst.as_ref().is_none_or(|(w, _)| t < *w) {
            worst = Some((t, d));
        }
    };
    for (&(a, b), list) in &uses {
        match list.as_slice() {
            [(t, k, fa), (u, l, fb)] if fa != fb => {
                neighbours[*t][*k] = *u;
                neighbours[*u][*l] = *t;
            }
            [(t, _, f), (u, _, _)] => {
                let (x, y) = if *f { (a, b) } else { (b, a) };
                note(*t.min(u), MeshDefect::Inconsistent { a: x, b: y, first: *t.min(u), second: *t.max(u) })
            }
            [_] if open_allowed => {}
            [(t, k, _)] => {
                let tri = triangles[*t];
                note(*t, MeshDefect::Open { a: tri[*k], b: tri[(k + 1) % 3], triangle: *t })
            }
            many => {
                let first = many.iter().map(|u| u.0).min().unwrap_or(0);
                note(first, MeshDefect::NonManifold { a, b, count: many.len(), triangle: first })
            }
        }
    }
    match worst {
        Some((_, d)) => Err(d),
        None => Ok(neighbours),
    }
}

/// Angle-weighted unit normals of a triangle mesh's vertices (Bærentzen and Aanæs): each
/// triangle's unit normal weighted by its angle at the vertex. A triangle whose normal is not
/// finite (degenerate) adds nothing; a vertex of no other triangle gets zero.
pub fn angle_weighted_normals(
    vertices: &[Vector3<f64>],
    triangles: &[[usize; 3]],
    face_normals: &[Vector3<f64>],
) -> Vec<Vector3<f64>> {
    let mut normals = vec![Vector3::zeros(); vertices.len()];
    for (tri, face) in triangles.iter().zip(face_normals).filter(|(_, f)| f.iter().all(|x| x.is_finite())) {
        for k in 0..3 {
            let p = vertices[tri[k]];
            let (u, w) = ((vertices[tri[(k + 1) % 3]] - p).normalize(), (vertices[tri[(k + 2) % 3]] - p).normalize());
            normals[tri[k]] += u.dot(&w).clamp(-1.0, 1.0).acos() * face;
        }
    }
    normals.into_iter().map(|n| n.try_normalize(0.0).unwrap_or_else(Vector3::zeros)).collect()
}
