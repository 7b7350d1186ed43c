//! Projection of a small symmetric matrix onto the positive semi-definite cone.

use nalgebra::SMatrix;

/// Replaces the symmetric matrix `h` by its nearest (Frobenius) positive semi-definite matrix:
/// V max(Λ, 0) Vᵀ from the symmetric eigen-decomposition h = V Λ Vᵀ.
///
/// - Only the symmetric part of `h` is used (callers pass symmetric matrices).
/// - A matrix with a NaN or infinite entry is left unchanged.
/// - A positive definite `h` is detected by a Cholesky factorization (cheap) and left
///   bit-for-bit unchanged; so is any `h` whose computed eigenvalues are all ≥ 0. Otherwise the
///   result is PSD up to round-off (eigenvalues ≥ −N ε ‖h‖).
/// - The eigen-decomposition is cyclic Jacobi: generic in N without extra trait bounds, no heap
///   allocation, and accurate to round-off for the small N used here (9 for ∂P/∂F, 12 for tets).
pub fn project_psd<const N: usize>(h: &mut SMatrix<f64, N, N>) {
    // A non-finite matrix is already invalid (e.g. neo-Hookean at J ≤ 0); keep it visible
    // (and never hand NaN to an iterative eigen-solver).
    if !h.iter().all(|x| x.is_finite()) || is_positive_definite(h) {
        return;
    }
    let mut a = (*h + h.transpose()) * 0.5;
    let mut v = SMatrix::<f64, N, N>::identity();
    match N {
        // Concrete sizes go through nalgebra's Householder + implicit QR (several times faster
        // than Jacobi; it needs dimension trait bounds that a generic N cannot provide).
        9 => nalgebra_eigen_9(&mut a, &mut v),
        12 => nalgebra_eigen_12(&mut a, &mut v),
        _ => jacobi_eigen(&mut a, &mut v),
    }
    if (0..N).all(|i| a[(i, i)] >= 0.0) {
        return;
    }
    // h = Σ_i max(λ_i, 0) v_i v_iᵀ.
    let mut out = SMatrix::<f64, N, N>::zeros();
    for k in 0..N {
        let lam = a[(k, k)];
        if lam > 0.0 {
            let vk = v.column(k);
            for c in 0..N {
                let s = lam * vk[c];
                for r in 0..N {
                    out[(r, c)] += s * vk[r];
                }
            }
        }
    }
    *h = out;
}

/// Symmetric eigen-decomposition through nalgebra for a concrete size `$m` (`$m == N`, checked
/// by the caller): `a` becomes diagonal (eigenvalues) and `v` the eigenvectors, as with
/// [`jacobi_eigen`]. A macro because nalgebra's dimension bounds need a concrete size.
macro_rules! nalgebra_eigen {
    ($name:ident, $m:literal) => {
        fn $name<const N: usize>(a: &mut SMatrix<f64, N, N>, v: &mut SMatrix<f64, N, N>) {
            let m = SMatrix::<f64, $m, $m>::from_fn(|r, c| a[(r, c)]);
            // Bounded iterations (finite input converges in far fewer); Jacobi otherwise.
            let Some(eig) = nalgebra::SymmetricEigen::try_new(m, f64::EPSILON, 10_000) else {
                return jacobi_eigen(a, v);
            };
            *a = SMatrix::from_fn(|r, c| if r == c { eig.eigenvalues[r] } else { 0.0 });
            *v = SMatrix::from_fn(|r, c| eig.eigenvectors[(r, c)]);
        }
    };
}
nalgebra_eigen!(nalgebra_eigen_9, 9);
nalgebra_eigen!(nalgebra_eigen_12, 12);

/// Cholesky test for positive definiteness (reads the lower triangle).
pub(crate) fn is_positive_definite<const N: usize>(h: &SMatrix<f64, N, N>) -> bool {
    let mut l = SMatrix::<f64, N, N>::zeros();
    for j in 0..N {
        let mut d = h[(j, j)];
        for k in 0..j {
            d -= l[(j, k)] * l[(j, k)];
        }
        // `!(d > 0)` also rejects NaN.
        if d.is_nan() || d <= 0.0 {
            return false;
        }
        let d = d.sqrt();
        l[(j, j)] = d;
        for i in j + 1..N {
            let mut s = h[(i, j)];
            for k in 0..j {
                s -= l[(i, k)] * l[(j, k)];
            }
            l[(i, j)] = s / d;
        }
    }
    true
}

/// Cyclic Jacobi: on return `a` is diagonal (the eigenvalues) and `a_in = v a_out vᵀ`.
fn jacobi_eigen<const N: usize>(a: &mut SMatrix<f64, N, N>, v: &mut SMatrix<f64, N, N>) {
    let norm2 = a.norm_squared();
    if !norm2.is_finite() || norm2 == 0.0 {
        return;
    }
    // Quadratic convergence: ~6-10 sweeps for N ≤ 12; 50 is a safety bound, never a loop guard
    // that matters in practice.
    for _sweep in 0..50 {
        let mut off = 0.0;
        for p in 0..N {
            for q in p + 1..N {
                off += a[(p, q)] * a[(p, q)];
            }
        }
        // Off-diagonal mass below round-off of the whole matrix: the diagonal is converged.
        if off <= f64::EPSILON * f64::EPSILON * norm2 * 1e-2 {
            return;
        }
        for p in 0..N {
            for q in p + 1..N {
                let apq = a[(p, q)];
                if apq == 0.0 {
                    continue;
                }
                // Rotation zeroing a[p][q] (Golub & Van Loan §8.5; the smaller angle).
                let theta = (a[(q, q)] - a[(p, p)]) / (2.0 * apq);
                let t = theta.signum() / (theta.abs() + (theta * theta + 1.0).sqrt());
                let c = 1.0 / (t * t + 1.0).sqrt();
                let s = t * c;
                for k in 0..N {
                    let (akp, akq) = (a[(k, p)], a[(k, q)]);
                    a[(k, p)] = c * akp - s * akq;
                    a[(k, q)] = s * akp + c * akq;
                }
                for k in 0..N {
                    let (apk, aqk) = (a[(p, k)], a[(q, k)]);
                    a[(p, k)] = c * apk - s * aqk;
                    a[(q, k)] = s * apk + c * aqk;
                }
                for k in 0..N {
                    let (vkp, vkq) = (v[(k, p)], v[(k, q)]);
                    v[(k, p)] = c * vkp - s * vkq;
                    v[(k, q)] = s * vkp + c * vkq;
                }
            }
        }
    }
}
