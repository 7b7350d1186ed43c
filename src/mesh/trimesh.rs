//! The triangle surface mesh (colliders, cloth, textured surfaces) and its file reader entry
//! point. PLY is read by the private `ply_read` module, OBJ by `obj_read`.

use std::path::Path;

use nalgebra::Vector3;

use super::MeshError;

/// A triangle counts as having zero area when `|e1 × e2| <= this × (longest edge)²`, i.e. when
/// the sine of its largest angle is below ~1e-12. Round-off in the edge vectors gives relative
/// areas of ~1e-16; 1e-12 catches flat and collapsed triangles, not thin but real ones.
pub const ZERO_AREA_RELATIVE: f64 = 1e-12;

/// A triangle surface mesh. Invariants (established by [`TriMesh::new`]): at least one triangle,
/// every index in range, every coordinate and UV finite, `uvs` (when present) has one entry per
/// vertex, and at least one triangle has a non-zero area.
///
/// Single zero-area triangles are allowed (exporters produce them and they carry no contact);
/// vertices used by no triangle are allowed (a surface has no per-vertex mass to lose).
/// Triangle orientation is kept as given: (b − a) × (c − a) is the face normal by the
/// right-hand rule.
#[derive(Clone, Debug, PartialEq)]
pub struct TriMesh {
    pub vertices: Vec<Vector3<f64>>,
    pub triangles: Vec<[usize; 3]>,
    /// Per-vertex texture coordinates `(u, v)`, `v = 0` at the bottom of the image (OBJ/PLY
    /// convention). Files whose UVs differ per corner at a shared position have that vertex
    /// split, so that the UV is a function of the vertex.
    pub uvs: Option<Vec<[f64; 2]>>,
}

impl TriMesh {
    /// Validates and builds a surface mesh (see the type's invariants).
    pub fn new(
        vertices: Vec<Vector3<f64>>,
        triangles: Vec<[usize; 3]>,
        uvs: Option<Vec<[f64; 2]>>,
    ) -> Result<TriMesh, MeshError> {
        if triangles.is_empty() {
            return Err(MeshError::NoTriangles);
        }
        if let Some((vertex, v)) = vertices.iter().enumerate().find(|(_, v)| !v.iter().all(|c| c.is_finite())) {
            return Err(MeshError::NonFiniteVertex { vertex, coords: [v.x, v.y, v.z] });
        }
        if let Some(uvs) = &uvs {
            if uvs.len() != vertices.len() {
                return Err(MeshError::UvCountMismatch { uvs: uvs.len(), vertices: vertices.len() });
            }
            if let Some((vertex, uv)) = uvs.iter().enumerate().find(|(_, uv)| !uv.iter().all(|c| c.is_finite())) {
                return Err(MeshError::NonFiniteUv { vertex, uv: *uv });
            }
        }
        let mut any_area = false;
        for (triangle, tri) in triangles.iter().enumerate() {
            if let Some(&index) = tri.iter().find(|&&i| i >= vertices.len()) {
                return Err(MeshError::TriangleIndexOutOfRange { triangle, index, vertex_count: vertices.len() });
            }
            any_area |= !is_zero_area(tri.map(|i| &vertices[i]));
        }
        if !any_area {
            return Err(MeshError::DegenerateSurface { triangles: triangles.len() });
        }
        Ok(TriMesh { vertices, triangles, uvs })
    }

    /// The triangle's corner positions.
    pub fn corners(&self, triangle: usize) -> [Vector3<f64>; 3] {
        self.triangles[triangle].map(|i| self.vertices[i])
    }

    /// The triangle's corner UVs, when the mesh has UVs.
    pub fn corner_uvs(&self, triangle: usize) -> Option<[[f64; 2]; 3]> {
        let uvs = self.uvs.as_ref()?;
        Some(self.triangles[triangle].map(|i| uvs[i]))
    }

    /// Total surface area (m²).
    pub fn area(&self) -> f64 {
        self.triangles.iter().map(|t| triangle_area(t.map(|i| &self.vertices[i]))).sum()
    }
}

/// Area of the triangle (a, b, c).
pub fn triangle_area(x: [&Vector3<f64>; 3]) -> f64 {
    0.5 * (x[1] - x[0]).cross(&(x[2] - x[0])).norm()
}

/// True when the triangle has zero area to round-off (see [`ZERO_AREA_RELATIVE`]); also true for
/// repeated corners and a collapsed triangle (longest edge 0).
pub fn is_zero_area(x: [&Vector3<f64>; 3]) -> bool {
    let e = [x[1] - x[0], x[2] - x[0], x[2] - x[1]];
    let longest_sq = e.iter().map(|v| v.norm_squared()).fold(0.0, f64::max);
    e[0].cross(&e[1]).norm() <= ZERO_AREA_RELATIVE * longest_sq
}

/// Reads a triangle surface from a `.ply` (ASCII, binary little- or big-endian) or `.obj` file,
/// chosen by the extension (case-insensitive). Polygons are fan-triangulated from their first
/// corner; UVs are read when the file has them. Every error names the file (and, for OBJ, the
/// line).
pub fn read_tri_mesh(path: &Path) -> Result<TriMesh, MeshError> {
    let extension = path.extension().and_then(|e| e.to_str()).unwrap_or("").to_ascii_lowercase();
    let read = match extension.as_str() {
        "ply" => super::ply_read::read_ply,
        "obj" => super::obj_read::read_obj,
        _ => return Err(MeshError::UnsupportedSurfaceExtension { path: path.to_path_buf(), extension }),
    };
    let (vertices, triangles, uvs) = read(path)?;
    TriMesh::new(vertices, triangles, uvs)
        .map_err(|e| MeshError::InFile { path: path.to_path_buf(), source: Box::new(e) })
}

/// What a file reader hands to [`TriMesh::new`].
pub(super) type RawTriMesh = (Vec<Vector3<f64>>, Vec<[usize; 3]>, Option<Vec<[f64; 2]>>);

/// Fan triangulation of a polygon given by its corner indices: (0, i, i+1). Convex polygons
/// (what exporters write) are triangulated exactly; concave ones keep their outline but may get
/// overlapping triangles, as in every fan-triangulating reader.
pub(super) fn fan(corners: &[usize], out: &mut Vec<[usize; 3]>) {
    for i in 1..corners.len().saturating_sub(1) {
        out.push([corners[0], corners[i], corners[i + 1]]);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn v(x: f64, y: f64, z: f64) -> Vector3<f64> {
        Vector3::new(x, y, z)
    }

    #[test]
    fn validation_errors() {
        let tri = vec![[0, 1, 2]];
        let pts = vec![v(0.0, 0.0, 0.0), v(1.0, 0.0, 0.0), v(0.0, 1.0, 0.0)];
        assert!(TriMesh::new(pts.clone(), tri.clone(), None).is_ok());
        assert!(matches!(TriMesh::new(pts.clone(), vec![], None), Err(MeshError::NoTriangles)));
        let e = TriMesh::new(pts.clone(), vec![[0, 1, 3]], None).unwrap_err();
        assert_eq!(
            e.to_string(),
            "triangle 0 refers to vertex 3, but the mesh has only 3 vertices (valid indices are 0..=2)"
        );
        let mut bad = pts.clone();
        bad[1].y = f64::NAN;
        assert!(matches!(TriMesh::new(bad, tri.clone(), None), Err(MeshError::NonFiniteVertex { vertex: 1, .. })));
        let e = TriMesh::new(pts.clone(), tri.clone(), Some(vec![[0.0; 2]; 2])).unwrap_err();
        assert!(matches!(e, MeshError::UvCountMismatch { uvs: 2, vertices: 3 }));
        let e = TriMesh::new(pts.clone(), tri.clone(), Some(vec![[0.0, 0.0], [f64::INFINITY, 0.0], [0.0, 0.0]]));
        assert!(matches!(e, Err(MeshError::NonFiniteUv { vertex: 1, .. })));
        // Collinear points: all zero area.
        let line = vec![v(0.0, 0.0, 0.0), v(1.0, 1.0, 1.0), v(2.0, 2.0, 2.0)];
        assert!(matches!(TriMesh::new(line, tri, None), Err(MeshError::DegenerateSurface { triangles: 1 })));
        // One degenerate triangle among good ones is kept.
        assert!(TriMesh::new(pts, vec![[0, 1, 2], [0, 0, 1]], None).is_ok());
    }

    #[test]
    fn fan_triangulation() {
        let mut out = Vec::new();
        fan(&[4, 5, 6, 7, 8], &mut out);
        assert_eq!(out, vec![[4, 5, 6], [4, 6, 7], [4, 7, 8]]);
        out.clear();
        fan(&[1, 2], &mut out);
        assert!(out.is_empty());
    }
}
