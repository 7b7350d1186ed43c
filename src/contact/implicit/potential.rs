//! 000's local MLS potential (§4.1): one sample per surface triangle (its centroid `s` and unit
//! normal `n`), the local planes `ψ_s(x) = n_s·(x − s)` blended by a partition of unity,
//!
//! `Ψ(x) = Σ_s w_s(x) ψ_s(x)`, `w_s = w̃_R(|x − s|) / Σ_t w̃_R(|x − t|)` over `|x − s| < R`.
//!
//! Ψ is negative inside. [`potential`] is generic over the AD scalar in both the query point and
//! the triangles' vertices; [`potential_derivatives`] adds its hand-derived first derivatives with
//! respect to the query point and every vertex (000 digest §2.2), also generic, so that AD of
//! them gives the contact Jacobians of the penalty pipeline.

use super::kernel::Kernel;
use crate::contact::vec3::{Scalar, V3, cross, dot, norm, scale, sub};

/// Centroid and unit outward normal of a triangle (counter-clockwise seen from outside).
pub fn sample<T: Scalar>(p: &[V3<T>; 3]) -> (V3<T>, V3<T>) {
    let third = 1.0 / 3.0;
    let s = std::array::from_fn(|k| (p[0][k] + p[1][k] + p[2][k]) * third);
    let c = cross(sub(p[1], p[0]), sub(p[2], p[0]));
    (s, scale(c, norm(c).recip()))
}

/// Ψ at `x` from the triangles `tris` (vertex positions) whose samples may lie within `radius`;
/// `None` for an empty neighbourhood (no sample within `radius`: 000 drops such points).
pub fn potential<T: Scalar>(x: V3<T>, tris: &[[V3<T>; 3]], kernel: Kernel, radius: f64) -> Option<T> {
    let (mut num, mut den) = (T::from(0.0), T::from(0.0));
    for p in tris {
        let (s, n) = sample(p);
        let d = sub(x, s);
        let w = kernel.weight(dot(d, d), radius);
        if w.re() > 0.0 {
            num += w * dot(n, d);
            den += w;
        }
    }
    (den.re() > 0.0).then(|| num / den)
}

/// Ψ with its derivatives with respect to the query point and to every vertex of `tris`, generic
/// over the AD scalar (so that AD of these gives the contact Jacobians): per sample `s` with
/// `d = x − s`, `k = w̃(|d|²)`, `k' = dw̃/d(r²)`, `ψ = n·d`, `K = Σ k`,
/// - `∇_x Ψ = Σ_s [k n + 2 k' (ψ − Ψ) d] / K`;
/// - `∂Ψ/∂s = −[k n + 2 k' (ψ − Ψ) d] / K`, `∂Ψ/∂n = k d / K`;
/// - with `c = (p1 − p0) × (p2 − p0)`, `n = c/|c|`: `u = (I − n nᵀ) ∂Ψ/∂n / |c|`, and
///   `∂Ψ/∂p1 = ∂Ψ/∂s / 3 + (p2 − p0) × u`, `∂Ψ/∂p2 = ∂Ψ/∂s / 3 + u × (p1 − p0)`,
///   `∂Ψ/∂p0 = ∂Ψ/∂s / 3 − (p2 − p0) × u − u × (p1 − p0)`.
///
/// Returns `(Ψ, ∇_x Ψ, ∂Ψ/∂p per triangle corner, the normalized weights k/K per triangle)`;
/// `None` for an empty neighbourhood.
#[allow(clippy::type_complexity)]
pub fn potential_derivatives<T: Scalar>(
    x: V3<T>,
    tris: &[[V3<T>; 3]],
    kernel: Kernel,
    radius: f64,
) -> Option<(T, V3<T>, Vec<[V3<T>; 3]>, Vec<T>)> {
    let zero = T::from(0.0);
    let mut per: Vec<(V3<T>, V3<T>, T, T, T, V3<T>, T)> = Vec::with_capacity(tris.len());
    let (mut num, mut den) = (zero, zero);
    for p in tris {
        let c = cross(sub(p[1], p[0]), sub(p[2], p[0]));
        let len = norm(c);
        let n = scale(c, len.recip());
        let s: V3<T> = std::array::from_fn(|k| (p[0][k] + p[1][k] + p[2][k]) * (1.0 / 3.0));
        let d = sub(x, s);
        let r2 = dot(d, d);
        let (k, ks) = (kernel.weight(r2, radius), kernel.weight_slope(r2, radius));
        let psi = dot(n, d);
        num += k * psi;
        den += k;
        per.push((d, n, k, ks, psi, c, len));
    }
    if den.re() <= 0.0 {
        return None;
    }
    let big_psi = num / den;
    let inv = den.recip();
    let mut gx = [zero; 3];
    let mut gp = Vec::with_capacity(tris.len());
    let mut weights = Vec::with_capacity(tris.len());
    for (p, &(d, n, k, ks, psi, _, len)) in tris.iter().zip(&per) {
        let coef = ks * (psi - big_psi) * 2.0;
        let gs: V3<T> = std::array::from_fn(|i| (k * n[i] + coef * d[i]) * inv);
        gx = std::array::from_fn(|i| gx[i] + gs[i]);
        let dn = scale(d, k * inv);
        let u = scale(sub(dn, scale(n, dot(n, dn))), len.recip());
        let (a, b) = (sub(p[1], p[0]), sub(p[2], p[0]));
        let third = scale(gs, T::from(-1.0 / 3.0));
        let g1 = std::array::from_fn(|i| third[i] + cross(b, u)[i]);
        let g2 = std::array::from_fn(|i| third[i] + cross(u, a)[i]);
        let g0 = std::array::from_fn(|i| third[i] - cross(b, u)[i] - cross(u, a)[i]);
        gp.push([g0, g1, g2]);
        weights.push(k * inv);
    }
    Some((big_psi, gx, gp, weights))
}

/// Ψ and `∇_x Ψ` (f64); `None` for an empty neighbourhood.
pub fn potential_gradient(x: V3<f64>, tris: &[[V3<f64>; 3]], kernel: Kernel, radius: f64) -> Option<(f64, V3<f64>)> {
    potential_derivatives(x, tris, kernel, radius).map(|(psi, g, _, _)| (psi, g))
}

/// 000 §4.1.3's minimal rotation `Q` taking the unit normal `n` to the unit vector `g` (the
/// normalized `∇Ψ`): `Q = I + [z]× + [z]×² / (1 + n·g)`, `z = n × g`. Tangents of the sample's
/// plane go to tangents of the level set. `None` when `n·g = −1` (opposite normals).
pub fn minimal_rotation(n: V3<f64>, g: V3<f64>) -> Option<nalgebra::Matrix3<f64>> {
    let c = dot(n, g);
    if c <= -1.0 + 1e-12 {
        return None;
    }
    let z = cross(n, g);
    let zx = nalgebra::Matrix3::new(0.0, -z[2], z[1], z[2], 0.0, -z[0], -z[1], z[0], 0.0);
    Some(nalgebra::Matrix3::identity() + zx + zx * zx / (1.0 + c))
}

#[cfg(test)]
mod tests {
    use super::*;
    use num_dual::Dual64;

    /// The surface of the unit cube [0, 1]³, 4 × 4 squares per face, each split in two (outward,
    /// from the tet box's boundary): sharp edges and corners, triangles 0.35 across.
    fn cube() -> Vec<[V3<f64>; 3]> {
        let m = crate::mesh::procedural::box_tets([1.0; 3], [4; 3]).unwrap();
        let at = |i: usize| [m.vertices[i].x + 0.5, m.vertices[i].y + 0.5, m.vertices[i].z + 0.5];
        m.surface_triangles().iter().map(|t| t.map(at)).collect()
    }

    /// Support radius: above half the largest triangle (0.18), below the cube's size.
    const R: f64 = 0.3;

    const KERNELS: [Kernel; 3] =
        [Kernel::Cubic, Kernel::Approximate { epsilon: 1e-3 }, Kernel::Approximate { epsilon: 0.1 }];

    #[test]
    fn negative_inside_positive_outside_near_the_faces() {
        for k in KERNELS {
            let inside = potential([0.5, 0.5, 0.9], &cube(), k, R).unwrap();
            let outside = potential([0.5, 0.5, 1.1], &cube(), k, R).unwrap();
            assert!(inside < 0.0 && outside > 0.0, "{k:?}: {inside} {outside}");
        }
        assert!(potential([5.0, 5.0, 5.0], &cube(), Kernel::Cubic, R).is_none(), "empty neighbourhood");
    }

    /// ∇_x Ψ against central differences and against AD, near the cube's edges and corners where
    /// the closest-feature distance has a kink. Step 1e-6 on O(1) coordinates: truncation ~1e-12
    /// times the third derivative (kernels' third derivatives ~1/(R³ ε³) grow for small ε, hence
    /// the tolerance relative to the gradient's size).
    #[test]
    fn gradient_matches_finite_differences_and_ad() {
        let points = [
            [1.05, 1.03, 0.5],
            [1.02, 1.04, 1.01],
            [0.98, 0.5, 1.02],
            [0.7, 0.95, 0.96],
            [0.4, 0.3, -0.05],
            [0.93, 0.91, 0.97],
        ];
        for k in KERNELS {
            for x in points {
                let (psi, g) = potential_gradient(x, &cube(), k, R).unwrap();
                assert!((psi - potential(x, &cube(), k, R).unwrap()).abs() < 1e-14);
                let h = 1e-6;
                for i in 0..3 {
                    let (mut xp, mut xm) = (x, x);
                    xp[i] += h;
                    xm[i] -= h;
                    let fd =
                        (potential(xp, &cube(), k, R).unwrap() - potential(xm, &cube(), k, R).unwrap()) / (2.0 * h);
                    assert!((fd - g[i]).abs() < 1e-6 * norm(g).max(1.0), "{k:?} {x:?} {i}: {fd} vs {}", g[i]);
                    let mut xd: V3<Dual64> = x.map(Dual64::from);
                    xd[i].eps = 1.0;
                    let ad =
                        potential(xd, &cube().iter().map(|t| t.map(|p| p.map(Dual64::from))).collect::<Vec<_>>(), k, R)
                            .unwrap()
                            .eps;
                    assert!((ad - g[i]).abs() < 1e-10 * norm(g).max(1.0), "{k:?} AD {ad} vs {}", g[i]);
                }
            }
        }
    }

    /// The weights are a partition of unity, and Ψ is translation invariant: moving the query
    /// point and every triangle together leaves it unchanged, so ∇_x Ψ + Σ_vertices ∂Ψ/∂p = 0
    /// (checked by AD over all 12 triangles' vertices).
    #[test]
    fn partition_of_unity_and_translation_invariance() {
        let x = [1.03, 0.6, 0.97];
        for k in KERNELS {
            // A constant field ψ = 1 (every plane replaced by a unit offset) is reproduced exactly.
            let tris = cube();
            let weights: Vec<f64> = tris
                .iter()
                .map(|p| {
                    let (s, _) = sample(p);
                    let d = sub(x, s);
                    k.weight(dot(d, d), R)
                })
                .collect();
            let total: f64 = weights.iter().sum();
            let w_sum: f64 = weights.iter().map(|w| w / total).sum();
            assert!((w_sum - 1.0).abs() < 1e-14);
            // Translation invariance over the triangles within reach of x (the others weigh 0):
            // the derivatives with respect to x and to every vertex sum to zero per component.
            let near: Vec<[V3<f64>; 3]> = tris
                .iter()
                .filter(|p| {
                    let d = sub(x, sample(p).0);
                    dot(d, d) < R * R
                })
                .copied()
                .collect();
            for c in 0..3 {
                // Seed a unit translation along c on x and on every vertex.
                let seeded = |v: V3<f64>| -> V3<Dual64> {
                    let mut d = v.map(Dual64::from);
                    d[c].eps = 1.0;
                    d
                };
                let (xd, td): (V3<Dual64>, Vec<[V3<Dual64>; 3]>) =
                    (seeded(x), near.iter().map(|p| p.map(seeded)).collect());
                let total = potential(xd, &td, k, R).unwrap().eps;
                assert!(total.abs() < 1e-12, "{k:?}: moving everything along {c} changes Psi at rate {total}");
            }
        }
    }

    /// The generic derivatives against AD of Ψ itself, for the query point and every vertex.
    #[test]
    #[allow(clippy::needless_range_loop)] // t, a, c seed one coordinate and index the result
    fn derivatives_with_respect_to_the_surface_match_ad() {
        let x = [0.93, 0.91, 0.97];
        for k in KERNELS {
            let tris: Vec<[V3<f64>; 3]> = cube()
                .into_iter()
                .filter(|p| {
                    let d = sub(x, sample(p).0);
                    dot(d, d) < R * R
                })
                .collect();
            let (psi, gx, gp, w) = potential_derivatives(x, &tris, k, R).unwrap();
            assert!((psi - potential(x, &tris, k, R).unwrap()).abs() < 1e-14);
            assert!((w.iter().sum::<f64>() - 1.0).abs() < 1e-14, "partition of unity");
            let (_, g) = potential_gradient(x, &tris, k, R).unwrap();
            assert!((0..3).all(|i| (g[i] - gx[i]).abs() < 1e-13));
            let scale_g = norm(gx);
            for t in 0..tris.len() {
                for a in 0..3 {
                    for c in 0..3 {
                        let td: Vec<[V3<Dual64>; 3]> = tris
                            .iter()
                            .enumerate()
                            .map(|(tt, p)| {
                                std::array::from_fn(|aa| {
                                    let mut v = p[aa].map(Dual64::from);
                                    if tt == t && aa == a {
                                        v[c].eps = 1.0;
                                    }
                                    v
                                })
                            })
                            .collect();
                        let ad = potential(x.map(Dual64::from), &td, k, R).unwrap().eps;
                        assert!(
                            (ad - gp[t][a][c]).abs() < 1e-10 * scale_g,
                            "{k:?} tri {t} corner {a} axis {c}: {ad} vs {}",
                            gp[t][a][c]
                        );
                    }
                }
            }
        }
    }

    #[test]
    fn minimal_rotation_maps_the_normal_and_is_a_rotation() {
        let n = [0.0, 0.0, 1.0];
        let g = {
            let v = [0.3, -0.2, 0.9];
            let l = norm(v);
            v.map(|c| c / l)
        };
        let q = minimal_rotation(n, g).unwrap();
        let qn = q * nalgebra::Vector3::from(n);
        assert!((qn - nalgebra::Vector3::from(g)).norm() < 1e-14);
        assert!((q.transpose() * q - nalgebra::Matrix3::identity()).norm() < 1e-14);
        assert!((q.determinant() - 1.0).abs() < 1e-14);
        assert!(minimal_rotation(n, [0.0, 0.0, -1.0]).is_none());
    }
}
