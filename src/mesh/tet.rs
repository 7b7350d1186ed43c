//! The tetrahedral mesh of a solid: vertices (rest positions) and positively oriented tets.

use std::collections::HashMap;

use nalgebra::{Rotation3, Vector3};

use super::MeshError;

/// A tet is degenerate when |volume| ≤ this × (longest edge)³. A regular tet has 0.118; round-off
/// in the coordinates produces relative volumes of ~1e-16. 1e-10 rejects only flat or collapsed
/// elements, whose Dm⁻¹ (and so the stiffness) would be ill-conditioned beyond ~1e10.
pub const DEGENERATE_RELATIVE_VOLUME: f64 = 1e-10;

/// A tetrahedral mesh. Invariants (established by [`TetMesh::new`]): every index is in range,
/// every vertex is finite and used, every tet has positive volume (the determinant of
/// [x1 − x0, x2 − x0, x3 − x0] is > 0) and is not degenerate.
///
/// The fields are public for reading; code that changes them must keep the invariants.
#[derive(Clone, Debug, PartialEq)]
pub struct TetMesh {
    pub vertices: Vec<Vector3<f64>>,
    pub tets: Vec<[usize; 4]>,
}

/// Signed volume of the tet (x0, x1, x2, x3): det[x1 − x0, x2 − x0, x3 − x0] / 6.
#[inline]
pub fn signed_volume(x: [&Vector3<f64>; 4]) -> f64 {
    (x[1] - x[0]).dot(&(x[2] - x[0]).cross(&(x[3] - x[0]))) / 6.0
}

/// The four faces of a positively oriented tet, each counter-clockwise seen from outside
/// (outward normal by the right-hand rule); face k is opposite local vertex k.
pub const TET_FACES: [[usize; 3]; 4] = [[1, 2, 3], [0, 3, 2], [0, 1, 3], [0, 2, 1]];

/// The six edges of a tet as local vertex pairs.
const TET_EDGES: [[usize; 2]; 6] = [[0, 1], [0, 2], [0, 3], [1, 2], [1, 3], [2, 3]];

/// A face key independent of vertex order, and whether `f` is an even permutation of it.
#[inline]
fn face_key(f: [usize; 3]) -> ([usize; 3], bool) {
    let mut k = f;
    k.sort_unstable();
    // Cyclic rotations of the sorted triple are the even permutations.
    let even = f == k || f == [k[1], k[2], k[0]] || f == [k[2], k[0], k[1]];
    (k, even)
}

/// Every face must bound at most two tets, and two tets sharing a face must lie on opposite
/// sides of it (the face appears with opposite orientations). Otherwise tets overlap or the
/// mesh is not a manifold, and neither the surface nor the contact geometry would make sense.
fn check_face_sharing(tets: &[[usize; 4]]) -> Result<(), MeshError> {
    // Face → (first tet, orientation in it, number of tets).
    let mut seen: HashMap<[usize; 3], (usize, bool, u32)> = HashMap::with_capacity(2 * tets.len());
    for (t, nodes) in tets.iter().enumerate() {
        for f in TET_FACES {
            let (key, even) = face_key(f.map(|i| nodes[i]));
            let entry = seen.entry(key).or_insert((t, even, 0));
            entry.2 += 1;
            if entry.2 > 1 && (entry.2 > 2 || entry.1 == even) {
                return Err(MeshError::OverlappingTets { first: entry.0, second: t, face: key });
            }
        }
    }
    Ok(())
}

impl TetMesh {
    /// Validates and builds a mesh. Negatively oriented tets are reoriented (two nodes swapped),
    /// so files from tools with either convention work.
    ///
    /// Errors: no tets, an index out of range, a non-finite coordinate, a vertex used by no tet
    /// (it would have zero mass), a degenerate tet (see [`DEGENERATE_RELATIVE_VOLUME`]), a face
    /// shared by more than two tets or by two tets on the same side of it (overlap, duplicate).
    pub fn new(vertices: Vec<Vector3<f64>>, mut tets: Vec<[usize; 4]>) -> Result<TetMesh, MeshError> {
        if tets.is_empty() {
            return Err(MeshError::Empty);
        }
        if let Some((vertex, v)) = vertices.iter().enumerate().find(|(_, v)| !v.iter().all(|c| c.is_finite())) {
            return Err(MeshError::NonFiniteVertex { vertex, coords: [v.x, v.y, v.z] });
        }
        let mut used = vec![false; vertices.len()];
        for (t, nodes) in tets.iter_mut().enumerate() {
            for &index in nodes.iter() {
                if index >= vertices.len() {
                    return Err(MeshError::IndexOutOfRange { tet: t, index, vertex_count: vertices.len() });
                }
                used[index] = true;
            }
            let x = nodes.map(|i| &vertices[i]);
            let volume = signed_volume(x);
            let edge = TET_EDGES.iter().map(|&[a, b]| (x[a] - x[b]).norm()).fold(0.0, f64::max);
            // Also catches repeated nodes (volume exactly 0) and edge = 0.
            if volume.abs() <= DEGENERATE_RELATIVE_VOLUME * edge.powi(3) {
                return Err(MeshError::Degenerate {
                    tet: t,
                    nodes: *nodes,
                    volume,
                    edge,
                    limit: DEGENERATE_RELATIVE_VOLUME,
                });
            }
            if volume < 0.0 {
                nodes.swap(2, 3);
            }
        }
        if let Some(vertex) = used.iter().position(|u| !u) {
            return Err(MeshError::UnusedVertex { vertex });
        }
        check_face_sharing(&tets)?;
        Ok(TetMesh { vertices, tets })
    }

    /// Boundary faces (faces of exactly one tet), counter-clockwise seen from outside, so that
    /// (b − a) × (c − a) is an outward normal. Ordered by tet, then local face: deterministic.
    pub fn surface_triangles(&self) -> Vec<[usize; 3]> {
        let key = |f: [usize; 3]| face_key(f).0;
        let mut count: HashMap<[usize; 3], u32> = HashMap::with_capacity(2 * self.tets.len());
        let faces = || self.tets.iter().flat_map(|t| TET_FACES.iter().map(move |f| f.map(|i| t[i])));
        for f in faces() {
            *count.entry(key(f)).or_insert(0) += 1;
        }
        faces().filter(|&f| count[&key(f)] == 1).collect()
    }

    /// Vertices on the boundary, sorted, without repetition.
    pub fn surface_vertices(&self) -> Vec<usize> {
        let mut v: Vec<usize> = self.surface_triangles().into_iter().flatten().collect();
        v.sort_unstable();
        v.dedup();
        v
    }

    /// Total volume (sum of tet volumes; all positive).
    pub fn volume(&self) -> f64 {
        self.tets.iter().map(|t| signed_volume(t.map(|i| &self.vertices[i]))).sum()
    }

    /// Axis-aligned bounding box (min corner, max corner).
    pub fn bounding_box(&self) -> (Vector3<f64>, Vector3<f64>) {
        let inf = Vector3::repeat(f64::INFINITY);
        self.vertices.iter().fold((inf, -inf), |(lo, hi), v| (lo.inf(v), hi.sup(v)))
    }

    /// Applies x ← R x + t to every vertex (a rigid motion keeps every invariant).
    pub fn transform(&mut self, rotation: &Rotation3<f64>, translation: &Vector3<f64>) {
        for v in &mut self.vertices {
            *v = rotation * *v + translation;
        }
    }

    /// Lumped (diagonal) mass per vertex (kg): each tet gives volume × density / 4 to each of
    /// its nodes (row-sum lumping of the linear-tet consistent mass matrix).
    pub fn lumped_masses(&self, density: f64) -> Vec<f64> {
        let mut m = vec![0.0; self.vertices.len()];
        for t in &self.tets {
            let share = signed_volume(t.map(|i| &self.vertices[i])) * density / 4.0;
            for &i in t {
                m[i] += share;
            }
        }
        m
    }

    /// Smallest and largest dihedral angle (radians) over all tets: a standard quality measure
    /// (a regular tet has 70.5° everywhere; slivers have angles near 0° and 180°).
    pub fn dihedral_angle_range(&self) -> (f64, f64) {
        let mut range = (f64::INFINITY, f64::NEG_INFINITY);
        for t in &self.tets {
            let x = t.map(|i| self.vertices[i]);
            // Outward normal of the face opposite vertex k.
            let n = TET_FACES.map(|[a, b, c]| (x[b] - x[a]).cross(&(x[c] - x[a])).normalize());
            // The edge (a, b) is shared by the faces opposite the two other vertices; the
            // dihedral angle is π minus the angle between their outward normals.
            for &[a, b] in &TET_EDGES {
                let [k, l]: [usize; 2] = {
                    let mut it = (0..4).filter(|&v| v != a && v != b);
                    [it.next().unwrap_or(0), it.next().unwrap_or(0)]
                };
                let angle = std::f64::consts::PI - n[k].dot(&n[l]).clamp(-1.0, 1.0).acos();
                range = (range.0.min(angle), range.1.max(angle));
            }
        }
        range
    }
}
