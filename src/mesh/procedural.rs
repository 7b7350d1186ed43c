//! Procedural tetrahedral meshes: boxes and balls.
//!
//! # Cube decomposition: mirrored Kuhn (6 tets per cube)
//! Every grid cube is split into the 6 Kuhn (Freudenthal) tetrahedra around one of its main
//! diagonals, and the pattern is **mirrored** in alternate cells along each axis (cell (i, j, k)
//! is reflected in x if i is odd, in y if j is odd, in z if k is odd).
//! - Why 6 and not 5: the 5-tet split has one large central tet (volume 1/3 of the cube) and four
//!   corner tets (1/6 each), so stiffness and lumped mass vary inside each cube. The 6 Kuhn tets
//!   are congruent (dihedral angles 45°, 60°, 90°), equal in volume, so every interior vertex gets
//!   the same mass.
//! - Why mirrored: plain Kuhn cuts every cube along the same (1, 1, 1) diagonal, a preferred
//!   direction that shows up as anisotropic stiffness (a box sheared one way is stiffer than the
//!   other way). Mirroring makes the mesh symmetric under reflection about every grid plane, so
//!   there is no preferred diagonal; with an even number of cells per axis the whole box is
//!   symmetric about its mid-planes.
//! - Conformity: both faces of a Kuhn cube normal to an axis carry the same diagonal (in the
//!   other two coordinates), and neighbours across a face share their reflection state in the
//!   other two axes, so shared faces are split the same way from both sides.

use nalgebra::Vector3;

use super::{MeshError, TetMesh};

/// Upper bound on generated tets (~100 bytes of mesh plus solver data each): beyond this a typo
/// in `cells` is far more likely than intent, and the allocation would fail anyway.
const MAX_TETS: usize = 50_000_000;

/// The 6 permutations of the axes with their signs: Kuhn tet p visits (0,0,0), e_p0,
/// e_p0 + e_p1, (1,1,1).
const KUHN: [([usize; 3], f64); 6] = [
    ([0, 1, 2], 1.0),
    ([1, 2, 0], 1.0),
    ([2, 0, 1], 1.0),
    ([0, 2, 1], -1.0),
    ([2, 1, 0], -1.0),
    ([1, 0, 2], -1.0),
];

fn check_positive(name: &'static str, v: f64) -> Result<(), MeshError> {
    if v.is_finite() && v > 0.0 {
        Ok(())
    } else {
        Err(MeshError::InvalidParameter {
            name,
            value: v.to_string(),
            allowed: "a finite length > 0 (m)",
        })
    }
}

/// Vertices and tets of a structured grid of `cells` cubes over [lo, hi], before any mapping.
fn grid(
    lo: Vector3<f64>,
    hi: Vector3<f64>,
    cells: [usize; 3],
) -> (Vec<Vector3<f64>>, Vec<[usize; 4]>) {
    let [nx, ny, nz] = cells;
    let id = |i: usize, j: usize, k: usize| i + (nx + 1) * (j + (ny + 1) * k);
    let mut vertices = Vec::with_capacity((nx + 1) * (ny + 1) * (nz + 1));
    for k in 0..=nz {
        for j in 0..=ny {
            for i in 0..=nx {
                let s = Vector3::new(
                    i as f64 / nx as f64,
                    j as f64 / ny as f64,
                    k as f64 / nz as f64,
                );
                vertices.push(lo + (hi - lo).component_mul(&s));
            }
        }
    }
    let mut tets = Vec::with_capacity(6 * nx * ny * nz);
    for k in 0..nz {
        for j in 0..ny {
            for i in 0..nx {
                let mirror = [i % 2 == 1, j % 2 == 1, k % 2 == 1];
                // Reflections flip orientation: count them.
                let reflect_sign = if mirror.iter().filter(|&&m| m).count() % 2 == 0 {
                    1.0
                } else {
                    -1.0
                };
                // Grid vertex of the local cube corner c (0/1 per axis), after mirroring.
                let corner = |c: [usize; 3]| {
                    let c = [0, 1, 2].map(|a| if mirror[a] { 1 - c[a] } else { c[a] });
                    id(i + c[0], j + c[1], k + c[2])
                };
                for (p, sign) in KUHN {
                    let mut c1 = [0; 3];
                    c1[p[0]] = 1;
                    let mut c2 = c1;
                    c2[p[1]] = 1;
                    let mut t = [corner([0, 0, 0]), corner(c1), corner(c2), corner([1, 1, 1])];
                    if sign * reflect_sign < 0.0 {
                        t.swap(2, 3);
                    }
                    tets.push(t);
                }
            }
        }
    }
    (vertices, tets)
}

fn check_cells(cells: [usize; 3]) -> Result<(), MeshError> {
    let n = cells
        .iter()
        .try_fold(6usize, |acc, &c| acc.checked_mul(c))
        .unwrap_or(usize::MAX);
    if cells.contains(&0) || n > MAX_TETS {
        return Err(MeshError::InvalidParameter {
            name: "cells",
            value: format!("{cells:?}"),
            allowed: "at least 1 cell per axis, and at most 50 million tetrahedra (6 per cell) in total",
        });
    }
    Ok(())
}

/// A box of the given edge lengths (m), centered at the origin, with `cells` cubes (cuboids)
/// per axis, each split into 6 tets (mirrored Kuhn, see the module docs): 6 nx ny nz tets and
/// (nx+1)(ny+1)(nz+1) vertices. Vertex (i, j, k) has index i + (nx+1)(j + (ny+1) k).
pub fn box_tets(size: [f64; 3], cells: [usize; 3]) -> Result<TetMesh, MeshError> {
    for (name, s) in ["size.x", "size.y", "size.z"].into_iter().zip(size) {
        check_positive(name, s)?;
    }
    check_cells(cells)?;
    let half = Vector3::from(size) * 0.5;
    let (vertices, tets) = grid(-half, half, cells);
    TetMesh::new(vertices, tets)
}

/// A ball of the given radius (m) centered at the origin: the box mesh of [−1, 1]³ with
/// `resolution` cells per axis, mapped onto the ball.
///
/// The map sends the cube shell ‖p‖∞ = s to the sphere of radius s, blended with the identity
/// towards the center: x = p (1 − w + w s/‖p‖), w = s. The boundary (s = 1) lands exactly on the
/// sphere; the core stays nearly Cartesian, so it is not distorted like a purely radial map
/// (which squashes the cells along the cube's diagonals at every depth). The map is symmetric
/// under the cube's symmetries, and so is the mesh for even `resolution`.
///
/// Quality (min dihedral angle) and volume convergence (second order in 1/resolution: boundary
/// vertices lie on the sphere and the polyhedral error is O(h²)) are checked in
/// `tests/mesh_procedural.rs`. `resolution` ≥ 1; 2 or more recommended (1 gives 6 tets).
pub fn ball_tets(radius: f64, resolution: usize) -> Result<TetMesh, MeshError> {
    check_positive("radius", radius)?;
    let n = resolution;
    if n == 0 {
        return Err(MeshError::InvalidParameter {
            name: "resolution",
            value: "0".into(),
            allowed: "at least 1 cell across the diameter (at least 2 recommended)",
        });
    }
    check_cells([n, n, n])?;
    let (mut vertices, tets) = grid(Vector3::repeat(-1.0), Vector3::repeat(1.0), [n, n, n]);
    for p in &mut vertices {
        let s = p.amax();
        let r = p.norm();
        let factor = if r > 0.0 { 1.0 - s + s * s / r } else { 1.0 };
        *p *= factor * radius;
    }
    TetMesh::new(vertices, tets)
}
