//! Convex polyhedra given as closed triangle meshes, with the hull structure the contact code needs:
//! face planes (coplanar triangles merged into one convex polygon), and the feature edges.

use nalgebra::Vector3;
use thiserror::Error;

/// Why a triangle mesh is not a usable convex hull.
#[derive(Debug, Clone, PartialEq, Error)]
pub enum HullError {
    #[error("a convex mesh needs at least 4 vertices and 4 triangles, got {vertices} and {triangles}")]
    TooSmall { vertices: usize, triangles: usize },
    #[error("triangle {triangle} refers to vertex {index}, but there are only {count} vertices")]
    BadIndex { triangle: usize, index: usize, count: usize },
    #[error("triangle {triangle} is degenerate (zero area)")]
    Degenerate { triangle: usize },
    #[error("the mesh is not closed and consistently oriented: edge ({0}, {1}) is not shared by exactly two triangles")]
    NotClosed(usize, usize),
    #[error("the mesh is not convex: vertex {vertex} lies {distance:e} outside the plane of triangle {triangle}")]
    NotConvex { vertex: usize, triangle: usize, distance: f64 },
}

/// One face of the hull: a convex polygon in the plane `normal · x = offset`.
#[derive(Debug, Clone, PartialEq)]
pub struct HullFace {
    /// Outward unit normal.
    pub normal: Vector3<f64>,
    pub offset: f64,
    /// Vertex indices, counter-clockwise seen from outside (around `normal`), no collinear points.
    pub polygon: Vec<usize>,
}

/// A closed convex triangle mesh and its hull faces and feature edges (body frame).
#[derive(Debug, Clone, PartialEq)]
pub struct ConvexMesh {
    pub vertices: Vec<Vector3<f64>>,
    /// Outward-oriented (counter-clockwise seen from outside) triangles.
    pub triangles: Vec<[usize; 3]>,
    pub faces: Vec<HullFace>,
    /// Edges between two different hull faces (edges inside a merged face are not features).
    pub edges: Vec<[usize; 2]>,
    /// Unit directions of `edges`, parallel directions listed once (the SAT needs each once).
    pub edge_directions: Vec<Vector3<f64>>,
}

/// Relative tolerance (times the mesh size) for "on the plane": merging coplanar triangles and
/// the convexity check. 1e-9 is far above the rounding of coordinates of size 1 and far below
/// any geometric feature a scene would model.
const PLANE_TOL: f64 = 1e-9;

impl ConvexMesh {
    /// Builds the hull structure of a closed convex triangle mesh. An inward-oriented mesh (negative
    /// volume) is flipped rather than rejected, since both orientations occur in files.
    pub fn new(vertices: Vec<Vector3<f64>>, mut triangles: Vec<[usize; 3]>) -> Result<Self, HullError> {
        if vertices.len() < 4 || triangles.len() < 4 {
            return Err(HullError::TooSmall { vertices: vertices.len(), triangles: triangles.len() });
        }
        for (t, tri) in triangles.iter().enumerate() {
            if let Some(&index) = tri.iter().find(|&&i| i >= vertices.len()) {
                return Err(HullError::BadIndex { triangle: t, index, count: vertices.len() });
            }
        }
        let size = vertices.iter().map(|v| v.amax()).fold(0.0, f64::max).max(f64::MIN_POSITIVE);
        let tol = PLANE_TOL * size;
        let normal_of = |tri: &[usize; 3]| {
            let [a, b, c] = tri.map(|i| vertices[i]);
            (b - a).cross(&(c - a))
        };
        for (t, tri) in triangles.iter().enumerate() {
            // Relative to the triangle's own edges (the sine of its largest angle's supplement),
            // not to the mesh size: a long thin box's end faces are small but not degenerate.
            let [a, b, c] = tri.map(|i| vertices[i]);
            let mut edges = [(b - a).norm(), (c - b).norm(), (a - c).norm()];
            edges.sort_by(f64::total_cmp);
            if normal_of(tri).norm() <= PLANE_TOL * edges[1] * edges[2] {
                return Err(HullError::Degenerate { triangle: t });
            }
        }
        // Signed volume (divergence theorem) decides the orientation.
        let volume: f64 = triangles.iter().map(|t| vertices[t[0]].dot(&normal_of(t))).sum();
        if volume < 0.0 {
            for t in &mut triangles {
                t.swap(1, 2);
            }
        }
        check_closed(&triangles)?;
        // Convexity: every vertex on the inner side of every triangle's plane.
        let planes: Vec<(Vector3<f64>, f64)> = triangles
            .iter()
            .map(|t| {
                let n = normal_of(t).normalize();
                (n, n.dot(&vertices[t[0]]))
            })
            .collect();
        for (t, (n, d)) in planes.iter().enumerate() {
            for (v, x) in vertices.iter().enumerate() {
                let distance = n.dot(x) - d;
                if distance > tol * 10.0 {
                    return Err(HullError::NotConvex { vertex: v, triangle: t, distance });
                }
            }
        }
        // Merge coplanar triangles into faces.
        let mut face_of = vec![usize::MAX; triangles.len()];
        let mut faces: Vec<HullFace> = Vec::new();
        for (t, (n, d)) in planes.iter().enumerate() {
            let found = faces.iter().position(|f| f.normal.dot(n) > 1.0 - PLANE_TOL && (f.offset - d).abs() <= tol);
            let f = found.unwrap_or_else(|| {
                faces.push(HullFace { normal: *n, offset: *d, polygon: Vec::new() });
                faces.len() - 1
            });
            face_of[t] = f;
            faces[f].polygon.extend_from_slice(&triangles[t]);
        }
        for face in &mut faces {
            face.polygon = planar_hull(&vertices, &face.polygon, &face.normal);
        }
        let (edges, edge_directions) = feature_edges(&vertices, &triangles, &face_of);
        Ok(ConvexMesh { vertices, triangles, faces, edges, edge_directions })
    }

    /// The same mesh translated by `-center` (to put the center of mass at the origin, as the body
    /// frame requires).
    pub fn recentered(&self, center: &Vector3<f64>) -> ConvexMesh {
        let mut m = self.clone();
        for v in &mut m.vertices {
            *v -= center;
        }
        for f in &mut m.faces {
            f.offset -= f.normal.dot(center);
        }
        m
    }

    /// A box as a hull (8 vertices, 6 square faces, 12 edges in 3 directions).
    pub fn cuboid(half: &Vector3<f64>) -> ConvexMesh {
        let vertices: Vec<Vector3<f64>> = (0..8)
            .map(|i| {
                let s = |bit: usize| if i >> bit & 1 == 1 { 1.0 } else { -1.0 };
                Vector3::new(s(0) * half.x, s(1) * half.y, s(2) * half.z)
            })
            .collect();
        // Quads counter-clockwise from outside, split into two triangles each.
        let quads = [[0, 4, 6, 2], [1, 3, 7, 5], [0, 1, 5, 4], [2, 6, 7, 3], [0, 2, 3, 1], [4, 5, 7, 6]];
        let triangles = quads.iter().flat_map(|q| [[q[0], q[1], q[2]], [q[0], q[2], q[3]]]).collect();
        ConvexMesh::new(vertices, triangles).expect("a box with positive half extents is a convex hull")
    }

    /// A right prism: the convex polygon `profile` (xy plane, either orientation) extruded from
    /// `z = -half_length` to `z = +half_length`. Errors if the profile is not a convex polygon.
    pub fn prism(profile: &[[f64; 2]], half_length: f64) -> Result<ConvexMesh, HullError> {
        let n = profile.len();
        let vertices: Vec<Vector3<f64>> = [-half_length, half_length]
            .iter()
            .flat_map(|&z| profile.iter().map(move |p| Vector3::new(p[0], p[1], z)))
            .collect();
        // Caps as fans, sides as quads; `new` flips the whole mesh if the profile is clockwise,
        // and rejects non-convex or degenerate profiles.
        let mut triangles = Vec::with_capacity(4 * n);
        for k in 1..n.saturating_sub(1) {
            triangles.push([0, k + 1, k]);
            triangles.push([n, n + k, n + k + 1]);
        }
        for k in 0..n {
            let k1 = (k + 1) % n;
            triangles.push([k, k1, n + k1]);
            triangles.push([k, n + k1, n + k]);
        }
        ConvexMesh::new(vertices, triangles)
    }

    /// Largest distance of a vertex from the body origin.
    pub fn bounding_radius(&self) -> f64 {
        self.vertices.iter().map(|v| v.norm()).fold(0.0, f64::max)
    }
}

/// Every directed edge must appear once, and its reverse once: closed and consistently oriented.
fn check_closed(triangles: &[[usize; 3]]) -> Result<(), HullError> {
    let mut directed: Vec<(usize, usize)> =
        triangles.iter().flat_map(|t| [(t[0], t[1]), (t[1], t[2]), (t[2], t[0])]).collect();
    directed.sort_unstable();
    for w in directed.windows(2) {
        if w[0] == w[1] {
            return Err(HullError::NotClosed(w[0].0, w[0].1));
        }
    }
    for &(a, b) in &directed {
        if directed.binary_search(&(b, a)).is_err() {
            return Err(HullError::NotClosed(a, b));
        }
    }
    Ok(())
}

/// Convex hull (monotone chain) of the given vertices projected on the plane with normal `n`,
/// counter-clockwise around `n`; interior and collinear points are dropped.
fn planar_hull(vertices: &[Vector3<f64>], ids: &[usize], n: &Vector3<f64>) -> Vec<usize> {
    let (u, w) = super::shape::tangent_basis(n);
    let mut pts: Vec<(f64, f64, usize)> = ids.iter().map(|&i| (vertices[i].dot(&u), vertices[i].dot(&w), i)).collect();
    pts.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.total_cmp(&b.1)).then(a.2.cmp(&b.2)));
    pts.dedup_by_key(|p| p.2);
    let cross = |o: &(f64, f64, usize), a: &(f64, f64, usize), b: &(f64, f64, usize)| {
        (a.0 - o.0) * (b.1 - o.1) - (a.1 - o.1) * (b.0 - o.0)
    };
    let scale = pts.iter().map(|p| p.0.abs().max(p.1.abs())).fold(0.0, f64::max);
    let eps = PLANE_TOL * scale * scale;
    let mut hull: Vec<(f64, f64, usize)> = Vec::new();
    for pass in 0..2 {
        let start = hull.len();
        let iter: Box<dyn Iterator<Item = &(f64, f64, usize)>> =
            if pass == 0 { Box::new(pts.iter()) } else { Box::new(pts.iter().rev()) };
        for p in iter {
            while hull.len() >= start + 2 && cross(&hull[hull.len() - 2], &hull[hull.len() - 1], p) <= eps {
                hull.pop();
            }
            hull.push(*p);
        }
        hull.pop();
    }
    // (u, w, n) is right-handed, so counter-clockwise in (u, w) is counter-clockwise around n.
    hull.into_iter().map(|p| p.2).collect()
}

/// Edges whose two triangles belong to different faces, and their distinct directions.
fn feature_edges(
    vertices: &[Vector3<f64>],
    triangles: &[[usize; 3]],
    face_of: &[usize],
) -> (Vec<[usize; 2]>, Vec<Vector3<f64>>) {
    let mut half: Vec<((usize, usize), usize)> = Vec::new();
    for (t, tri) in triangles.iter().enumerate() {
        for k in 0..3 {
            let (a, b) = (tri[k], tri[(k + 1) % 3]);
            half.push(((a.min(b), a.max(b)), face_of[t]));
        }
    }
    half.sort_unstable();
    let mut edges = Vec::new();
    for w in half.chunks(2) {
        if w.len() == 2 && w[0].1 != w[1].1 {
            edges.push([w[0].0.0, w[0].0.1]);
        }
    }
    let mut dirs: Vec<Vector3<f64>> = Vec::new();
    for e in &edges {
        let d = (vertices[e[1]] - vertices[e[0]]).normalize();
        // Parallel within 1e-9 rad² counts as the same axis.
        if !dirs.iter().any(|x| x.cross(&d).norm_squared() < 1e-18) {
            dirs.push(d);
        }
    }
    (edges, dirs)
}
