//! A closed surface embedded in a cage of tetrahedra (004's non-conforming solids, after
//! Verschoor & Jalba's 120 bunnies): the cage carries the elasticity and the mass, and each
//! surface vertex rides in one cage tet at fixed barycentric weights, `x = Σ b_k x_k`, so the
//! surface's contacts act on the cage's nodes through those weights (004's Assumption 1:
//! collidable points are linear combinations of nodal dofs).
//!
//! - [`voxel_cage`]: the cubes of a regular grid that hold a sample of the surface (its
//!   vertices, edge midpoints and face centroids) or whose centre lies inside it, split into
//!   tets as `Box` solids are.
//! - [`embed`]: each surface vertex's cage tet and weights; a vertex outside every tet is refused.
//! - [`occupancy`]: the fraction of each cage tet inside the surface, from sample points.

use super::procedural::voxel_tets;
use super::{MeshError, TetMesh};
use crate::rigid::SurfaceMesh;
use nalgebra::{Matrix3, Vector3};
use rstar::{AABB, RTree, primitives::GeomWithData, primitives::Rectangle};

/// At most this many grid cubes over a surface's bounding box: 6 tets each, and beyond it a
/// cage cell far below the surface's size is more likely a typo than intent.
pub const MAX_CUBES: usize = 1_000_000;

/// A point's smallest barycentric weight may be this far below 0 (relative) and still count as
/// inside its tet: rounding of a point on a shared face or edge, nothing more.
const INSIDE_TOL: f64 = 1e-9;

/// Why a surface cannot be embedded.
#[derive(Debug, thiserror::Error)]
pub enum EmbedError {
    #[error(
        "cage cell {cell} m over the surface's bounding box {extent:?} m makes {cubes} cubes; at most {max} \
         (a cell of a few percent of the body's size is typical)"
    )]
    TooFine { cell: f64, extent: [f64; 3], cubes: f64, max: usize },
    #[error("surface vertex {vertex} at {point:?} lies outside the cage (in no tetrahedron)")]
    Outside { vertex: usize, point: [f64; 3] },
    #[error("{0}")]
    Mesh(#[from] MeshError),
}

/// The cage of `surface` with cubes of side `cell`, the grid centred on the surface's bounding box.
pub fn voxel_cage(surface: &SurfaceMesh, cell: f64) -> Result<TetMesh, EmbedError> {
    let (lo, hi) = surface.bounds;
    let extent = hi - lo;
    let counts = extent.map(|e| (e / cell).floor() + 1.0);
    let cubes = counts.product();
    let sane = cell.is_finite() && cell > 0.0 && cubes.is_finite();
    if !sane || cubes > MAX_CUBES as f64 {
        return Err(EmbedError::TooFine { cell, extent: extent.into(), cubes, max: MAX_CUBES });
    }
    let cells = [0, 1, 2].map(|a| counts[a] as usize);
    // Centred, so the surface is at least half the slack from the grid's sides on every axis.
    let origin = (lo + hi) * 0.5 - counts * (0.5 * cell);
    let index = |p: &Vector3<f64>| -> usize {
        let c = [0, 1, 2].map(|a| (((p[a] - origin[a]) / cell).floor().max(0.0) as usize).min(cells[a] - 1));
        c[0] + cells[0] * (c[1] + cells[1] * c[2])
    };
    let mut kept = vec![false; cells.iter().product()];
    for t in &surface.triangles {
        let [a, b, c] = t.map(|i| surface.vertices[i]);
        for p in [a, b, c, (a + b) * 0.5, (b + c) * 0.5, (c + a) * 0.5, (a + b + c) / 3.0] {
            kept[index(&p)] = true;
        }
    }
    for (k, keep) in kept.iter_mut().enumerate() {
        let ijk = [k % cells[0], (k / cells[0]) % cells[1], k / (cells[0] * cells[1])];
        let centre = origin + Vector3::from(ijk.map(|i| i as f64 + 0.5)) * cell;
        *keep = *keep || surface.closest(&centre, f64::INFINITY).is_some_and(|c| c.distance < 0.0);
    }
    Ok(voxel_tets(origin, cell, cells, |[i, j, k]| kept[i + cells[0] * (j + cells[1] * k)])?)
}

/// Barycentric weights of `p` in the tet with corners `x`: `(1 − Σλ, λ)` with
/// `[x1 − x0, x2 − x0, x3 − x0] λ = p − x0`.
fn barycentric(x: [Vector3<f64>; 4], p: &Vector3<f64>) -> Option<[f64; 4]> {
    let m = Matrix3::from_columns(&[x[1] - x[0], x[2] - x[0], x[3] - x[0]]);
    let l = m.try_inverse()? * (p - x[0]);
    Some([1.0 - l.sum(), l.x, l.y, l.z])
}

/// Each point's cage tet and barycentric weights (the tet where its smallest weight is largest,
/// so a point on a shared face takes either side consistently).
pub fn embed(cage: &TetMesh, points: &[Vector3<f64>]) -> Result<Vec<(usize, [f64; 4])>, EmbedError> {
    let boxes: Vec<GeomWithData<Rectangle<[f64; 3]>, usize>> = cage
        .tets
        .iter()
        .enumerate()
        .map(|(k, t)| {
            let c = t.map(|i| cage.vertices[i]);
            let lo = c.iter().fold(c[0], |a, b| a.inf(b));
            let hi = c.iter().fold(c[0], |a, b| a.sup(b));
            GeomWithData::new(Rectangle::from_corners(lo.into(), hi.into()), k)
        })
        .collect();
    let tree = RTree::bulk_load(boxes);
    points
        .iter()
        .enumerate()
        .map(|(v, p)| {
            let near = AABB::from_corners((p.add_scalar(-INSIDE_TOL)).into(), (p.add_scalar(INSIDE_TOL)).into());
            tree.locate_in_envelope_intersecting(near)
                .filter_map(|g| Some((g.data, barycentric(cage.tets[g.data].map(|i| cage.vertices[i]), p)?)))
                .max_by(|a, b| min4(&a.1).total_cmp(&min4(&b.1)))
                .filter(|(_, w)| min4(w) >= -INSIDE_TOL)
                .ok_or(EmbedError::Outside { vertex: v, point: (*p).into() })
        })
        .collect()
}

fn min4(w: &[f64; 4]) -> f64 {
    w.iter().copied().fold(f64::INFINITY, f64::min)
}

/// The fraction of each cage tet inside `surface`: of 20 points spread through it (the
/// barycentric lattice of step 1/3, pulled towards the centroid so none is on a face).
pub fn occupancy(cage: &TetMesh, surface: &SurfaceMesh) -> Vec<f64> {
    let mut lattice = Vec::with_capacity(20);
    for i in 0..4usize {
        for j in 0..4 - i {
            for k in 0..4 - i - j {
                let l = 3 - i - j - k;
                lattice.push([i, j, k, l].map(|c| (c as f64 + 0.5) / 5.0));
            }
        }
    }
    cage.tets
        .iter()
        .map(|t| {
            let x = t.map(|i| cage.vertices[i]);
            let inside = lattice
                .iter()
                .filter(|w| {
                    let p = x[0] * w[0] + x[1] * w[1] + x[2] * w[2] + x[3] * w[3];
                    surface.closest(&p, f64::INFINITY).is_some_and(|c| c.distance < 0.0)
                })
                .count();
            inside as f64 / lattice.len() as f64
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A cube of side `s` centred at `c`, as 12 outward triangles.
    fn cube(s: f64, c: Vector3<f64>) -> SurfaceMesh {
        let v: Vec<Vector3<f64>> = (0..8)
            .map(|k| {
                c + Vector3::new((k & 1) as f64 - 0.5, ((k >> 1) & 1) as f64 - 0.5, ((k >> 2) & 1) as f64 - 0.5) * s
            })
            .collect();
        let t = vec![
            [0, 2, 1],
            [1, 2, 3],
            [4, 5, 6],
            [5, 7, 6],
            [0, 1, 4],
            [1, 5, 4],
            [2, 6, 3],
            [3, 6, 7],
            [0, 4, 2],
            [2, 4, 6],
            [1, 3, 5],
            [3, 7, 5],
        ];
        SurfaceMesh::new(v, t).expect("a closed cube")
    }

    #[test]
    fn a_cube_in_its_cage_reproduces_its_vertices_and_volume() {
        let s = cube(0.1, Vector3::new(0.3, -0.2, 0.05));
        assert!((crate::rigid::mass::polyhedron(&s.vertices, &s.triangles, 1.0).mass - 1e-3).abs() < 1e-15);
        let cage = voxel_cage(&s, 0.03).unwrap();
        let emb = embed(&cage, &s.vertices).unwrap();
        for (p, (t, w)) in s.vertices.iter().zip(&emb) {
            let x = cage.tets[*t].map(|i| cage.vertices[i]);
            let back = x[0] * w[0] + x[1] * w[1] + x[2] * w[2] + x[3] * w[3];
            // Interpolation of exact weights: round-off of coordinates ~0.3 m.
            assert!((back - p).norm() < 1e-15, "{back} vs {p}");
            assert!(w.iter().all(|&x| x >= -INSIDE_TOL) && (w.iter().sum::<f64>() - 1.0).abs() < 1e-14);
        }
        // 0.1 m at 0.03 m cells: 4 cubes per axis, every one holding surface samples or inside.
        assert_eq!(cage.tets.len(), 6 * 64);
        let occ = occupancy(&cage, &s);
        let inside: f64 = cage
            .tets
            .iter()
            .zip(&occ)
            .map(|(t, o)| o * crate::mesh::tet::signed_volume(t.map(|i| &cage.vertices[i])).abs())
            .sum();
        // Each boundary tet's fraction is a 20-point estimate (steps of 1/20), and the surface
        // cuts the 56 outer cubes of 64: 0.940e-3 m³ measured, so 10 % is the bound (the
        // build rescales the mass to the exact volume; this only distributes it).
        assert!((inside - 1e-3).abs() < 0.1e-3, "{inside}");
    }

    #[test]
    fn points_outside_the_cage_and_absurd_cells_are_refused() {
        let s = cube(0.1, Vector3::zeros());
        let cage = voxel_cage(&s, 0.05).unwrap();
        let far = [Vector3::new(0.0, 0.0, 0.0), Vector3::new(1.0, 0.0, 0.0)];
        let e = embed(&cage, &far).unwrap_err().to_string();
        assert!(e.contains("surface vertex 1") && e.contains("outside the cage"), "{e}");
        for cell in [1e-5, 0.0, -1.0, f64::NAN, f64::MIN_POSITIVE] {
            let e = voxel_cage(&s, cell).unwrap_err().to_string();
            assert!(e.contains("at most 1000000"), "{cell}: {e}");
        }
    }
}
