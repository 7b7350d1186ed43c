//! The matchstick structure (003) of a deformable surface's triangles, cloth's or a tet solid's
//! boundary: each triangle keeps its rest structure as coefficients on its rest edges, so that
//! the same coefficients on the deformed edges carry it with the deformation.

use super::schema::{StructureSpec, Vec3};
use nalgebra::{Rotation3, Vector3};

/// Per triangle, the coefficients of the structure given by `direction` (a constant direction,
/// in the mesh's own frame before `rot`) or `field` (a procedural field in that frame, taken
/// at each triangle's rest centroid), for a mesh placed by `rot` then `shift`. Empty: none. A
/// message for a degenerate field (validation catches it first).
pub(crate) fn coefficients(
    direction: Option<&Vec3>,
    field: Option<&StructureSpec>,
    triangles: &[[usize; 3]],
    rest: &[Vector3<f64>],
    (rot, shift): (&Rotation3<f64>, &Vector3<f64>),
) -> Result<Vec<[f64; 2]>, String> {
    if let Some(s) = direction {
        let s = rot * Vector3::from(*s);
        return Ok(on_rest_edges(triangles, rest, |_| Some(s)));
    }
    let Some(f) = field else { return Ok(Vec::new()) };
    let Some(field) = super::rigid::structure(f, Vector3::zeros())? else { return Ok(Vec::new()) };
    // The field lives in the mesh's own frame: rest centroids back into it, directions out.
    let inv = rot.inverse();
    Ok(on_rest_edges(triangles, rest, |tri: &[usize; 3]| {
        let centroid = (rest[tri[0]] + rest[tri[1]] + rest[tri[2]]) / 3.0;
        field.direction_at(&(inv * (centroid - shift))).map(|d| rot * d)
    }))
}

/// Per triangle, the coefficients `(c1, c2)` of the in-plane part of its rest structure `s`
/// (world axes, from `direction`; `None`: none) on the rest edges `E1 = X1 − X0`,
/// `E2 = X2 − X0`: the least-squares solution of `[E1 E2] c = s`, i.e. `c = G⁻¹ (E1·s, E2·s)`
/// with the Gram matrix `G`, which is the orthogonal projection of `s` onto the triangle's plane.
/// A triangle whose plane is within [`MIN_TANGENTIAL_FRACTION`] of normal to `s` (or is
/// degenerate) gets `(0, 0)`: no structure.
///
/// [`MIN_TANGENTIAL_FRACTION`]: crate::friction::matchstick::MIN_TANGENTIAL_FRACTION
fn on_rest_edges(
    triangles: &[[usize; 3]],
    rest: &[Vector3<f64>],
    direction: impl Fn(&[usize; 3]) -> Option<Vector3<f64>>,
) -> Vec<[f64; 2]> {
    use crate::friction::matchstick::MIN_TANGENTIAL_FRACTION;
    triangles
        .iter()
        .map(|t| {
            let Some(s) = direction(t).and_then(|s| s.try_normalize(1e-300)) else { return [0.0, 0.0] };
            let (e1, e2) = (rest[t[1]] - rest[t[0]], rest[t[2]] - rest[t[0]]);
            let (g11, g12, g22) = (e1.dot(&e1), e1.dot(&e2), e2.dot(&e2));
            let det = g11 * g22 - g12 * g12;
            let (b1, b2) = (e1.dot(&s), e2.dot(&s));
            let c = [(g22 * b1 - g12 * b2) / det, (g11 * b2 - g12 * b1) / det];
            let inplane = e1 * c[0] + e2 * c[1];
            // |inplane| is the cosine of the angle between s and the plane (s is unit).
            if det > 0.0 && c.iter().all(|x| x.is_finite()) && inplane.norm() > MIN_TANGENTIAL_FRACTION {
                c
            } else {
                [0.0, 0.0]
            }
        })
        .collect()
}
