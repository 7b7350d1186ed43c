//! The lowest vibration modes of a free-floating tet mesh: the `r` smallest nonzero solutions of
//! the generalized symmetric eigenproblem `K φ = λ M φ` (K the stiffness at rest, M the lumped
//! masses), with the 6 rigid modes removed.
//!
//! Subspace iteration with shift-invert (Bathe's method): a block `X` of `p > r` vectors,
//! M-orthogonal to the rigid modes, is repeatedly mapped by `(K + σM)⁻¹ M` (one sparse Cholesky,
//! `p` solves per pass), M-orthonormalized, and rotated onto its Ritz vectors (the eigenvectors of
//! `Xᵀ K X`). Mode `i` converges like `((λ_i + σ)/(λ_{p+1} + σ))^k`, so the block is about twice
//! `r`. The rigid modes are removed exactly in every pass (they are known in closed form), which
//! keeps the iteration off the null space of `K` and makes every mode satisfy the linearized
//! floating-frame conditions `Σ m φ = 0`, `Σ m X × φ = 0`.
//!
//! A mode is accepted when its residual `|K φ − λ M φ| / (λ |M φ|)` is below `TOL`; a block that
//! does not get there in `MAX_PASSES` passes is reported, not returned.

use crate::dfcp::problem::Csc;
use faer::Mat;
use faer::sparse::linalg::solvers::{Llt, SymbolicLlt};
use nalgebra::{DMatrix, Vector3};

/// Relative eigen-residual at which a mode is accepted (its eigenvalue is then exact to about
/// the square of this, far below any use of it).
const TOL: f64 = 1e-9;
/// Passes before giving up (measured: 20–60 on bars and blocks of 4 to 20 modes).
const MAX_PASSES: usize = 400;

/// `r` modes, M-orthonormal (`Φᵀ M Φ = 1`), with their eigenvalues (ω², 1/s²) ascending.
#[derive(Debug, Clone)]
pub struct Modes {
    /// `3N × r`, column `j` is mode `j`.
    pub phi: DMatrix<f64>,
    pub lambda: Vec<f64>,
    /// Subspace-iteration passes taken.
    pub passes: usize,
}

/// The `r` lowest elastic modes of stiffness `k` (`3N` square, full symmetric pattern) and lumped
/// nodal masses `mass` (N, positive) about rest positions `rest` (N).
pub fn lowest_modes(k: &Csc, mass: &[f64], rest: &[Vector3<f64>], r: usize) -> Result<Modes, String> {
    let n = 3 * mass.len();
    if r == 0 || r + 6 > n {
        return Err(format!(
            "{r} modes asked of a mesh with {n} degrees of freedom (at most {} besides the 6 rigid ones)",
            n.saturating_sub(6)
        ));
    }
    let m: Vec<f64> = (0..n).map(|d| mass[d / 3]).collect();
    let rigid = rigid_modes(&m, rest);
    let p = (2 * r).max(r + 8).min(n - 6);
    let sigma = shift(k, &m);
    let llt = factor_shifted(k, &m, sigma)?;
    let mut x = start_block(n, p);
    deflate(&mut x, &rigid, &m);
    m_orthonormalize(&mut x, &m)?;
    for pass in 1..=MAX_PASSES {
        // X ← (K + σM)⁻¹ M X, back onto the elastic subspace.
        for c in 0..p {
            for d in 0..n {
                x[(d, c)] *= m[d];
            }
        }
        faer::linalg::solvers::SolveCore::solve_in_place_with_conj(&llt, faer::Conj::No, x.as_mut());
        deflate(&mut x, &rigid, &m);
        m_orthonormalize(&mut x, &m)?;
        let (theta, kx) = rayleigh_ritz(k, &mut x);
        let worst = (0..r).map(|j| residual(&x, &kx, &m, j, theta[j])).fold(0.0, f64::max);
        if worst < TOL {
            let phi = DMatrix::from_fn(n, r, |i, j| x[(i, j)]);
            return Ok(Modes { phi, lambda: theta[..r].to_vec(), passes: pass });
        }
    }
    Err(format!(
        "the mode computation did not converge in {MAX_PASSES} passes (fewer modes, or a better-shaped mesh, may help)"
    ))
}

/// A shift that makes `K + σM` positive definite without drowning the low modes: a small
/// fraction of the mean `K_dd / M_dd` (the square of the mesh's highest frequencies).
fn shift(k: &Csc, m: &[f64]) -> f64 {
    let kr = k.as_ref();
    let mut sum = 0.0;
    for (j, mj) in m.iter().enumerate() {
        for (&i, &v) in kr.row_idx_of_col_raw(j).iter().zip(kr.val_of_col(j)) {
            if i == j {
                sum += v / mj;
            }
        }
    }
    1e-6 * sum / m.len() as f64
}

fn factor_shifted(k: &Csc, m: &[f64], sigma: f64) -> Result<Llt<usize, f64>, String> {
    let kr = k.as_ref();
    let mut t = Vec::with_capacity(kr.compute_nnz() + m.len());
    for j in 0..kr.ncols() {
        for (&i, &v) in kr.row_idx_of_col_raw(j).iter().zip(kr.val_of_col(j)) {
            t.push(faer::sparse::Triplet::new(i, j, v));
        }
    }
    t.extend(m.iter().enumerate().map(|(d, &md)| faer::sparse::Triplet::new(d, d, sigma * md)));
    let a = Csc::try_new_from_triplets(m.len(), m.len(), &t).map_err(|e| format!("{e:?}"))?;
    let sym = SymbolicLlt::try_new(a.symbolic(), faer::Side::Lower).map_err(|e| format!("{e:?}"))?;
    Llt::try_new_with_symbolic(sym, a.as_ref(), faer::Side::Lower).map_err(|_| {
        "the stiffness matrix is not positive semi-definite (a degenerate or inverted element?)".to_string()
    })
}

/// The 6 rigid modes (translations, rotations about the centre of mass), M-orthonormal.
fn rigid_modes(m: &[f64], rest: &[Vector3<f64>]) -> Mat<f64> {
    let total: f64 = m.iter().step_by(3).sum();
    let c = rest.iter().enumerate().map(|(i, x)| x * m[3 * i]).sum::<Vector3<f64>>() / total;
    let mut b = Mat::<f64>::zeros(m.len(), 6);
    for (i, x) in rest.iter().enumerate() {
        let y = x - c;
        for a in 0..3 {
            b[(3 * i + a, a)] = 1.0;
            let e = Vector3::ith(a, 1.0).cross(&y);
            for d in 0..3 {
                b[(3 * i + d, 3 + a)] = e[d];
            }
        }
    }
    m_orthonormalize(&mut b, m).expect("the rigid modes of a mesh with volume are independent");
    b
}

/// Reproducible start vectors (pseudo-random: no mode is missed by a symmetric start).
fn start_block(n: usize, p: usize) -> Mat<f64> {
    let mut seed = 0x5EED_u64;
    Mat::from_fn(n, p, |_, _| crate::test_rng::symmetric(&mut seed))
}

/// `X ← X − B Bᵀ M X`: the M-orthogonal projection off the (M-orthonormal) rigid modes `B`.
fn deflate(x: &mut Mat<f64>, b: &Mat<f64>, m: &[f64]) {
    for c in 0..x.ncols() {
        for j in 0..b.ncols() {
            let dot: f64 = (0..m.len()).map(|d| b[(d, j)] * m[d] * x[(d, c)]).sum();
            for d in 0..m.len() {
                x[(d, c)] -= dot * b[(d, j)];
            }
        }
    }
}

/// Modified Gram–Schmidt in the M inner product, twice (one pass loses orthogonality when the
/// columns are nearly parallel, as the iteration makes them).
fn m_orthonormalize(x: &mut Mat<f64>, m: &[f64]) -> Result<(), String> {
    let n = m.len();
    for _ in 0..2 {
        for c in 0..x.ncols() {
            for j in 0..c {
                let dot: f64 = (0..n).map(|d| x[(d, j)] * m[d] * x[(d, c)]).sum();
                for d in 0..n {
                    x[(d, c)] -= dot * x[(d, j)];
                }
            }
            let norm = (0..n).map(|d| m[d] * x[(d, c)] * x[(d, c)]).sum::<f64>().sqrt();
            if !(norm > 0.0 && norm.is_finite()) {
                return Err("the mode computation lost a vector (dependent or non-finite)".into());
            }
            for d in 0..n {
                x[(d, c)] /= norm;
            }
        }
    }
    Ok(())
}

/// `K X`, column by column.
fn k_times(k: &Csc, x: &Mat<f64>) -> Mat<f64> {
    let kr = k.as_ref();
    let mut y = Mat::<f64>::zeros(x.nrows(), x.ncols());
    for c in 0..x.ncols() {
        for j in 0..kr.ncols() {
            let xj = x[(j, c)];
            for (&i, &v) in kr.row_idx_of_col_raw(j).iter().zip(kr.val_of_col(j)) {
                y[(i, c)] += v * xj;
            }
        }
    }
    y
}

/// Rotates the M-orthonormal block onto its Ritz vectors (ascending Ritz values); returns the
/// values and `K X` of the rotated block.
fn rayleigh_ritz(k: &Csc, x: &mut Mat<f64>) -> (Vec<f64>, Mat<f64>) {
    let (n, p) = (x.nrows(), x.ncols());
    let kx = k_times(k, x);
    let small = DMatrix::from_fn(p, p, |i, j| (0..n).map(|d| x[(d, i)] * kx[(d, j)]).sum::<f64>());
    let eig = nalgebra::SymmetricEigen::new((&small + small.transpose()) * 0.5);
    let mut order: Vec<usize> = (0..p).collect();
    order.sort_by(|&a, &b| eig.eigenvalues[a].total_cmp(&eig.eigenvalues[b]));
    let rotate = |y: &Mat<f64>| {
        Mat::from_fn(n, p, |d, c| (0..p).map(|l| y[(d, l)] * eig.eigenvectors[(l, order[c])]).sum::<f64>())
    };
    let (xr, kxr) = (rotate(x), rotate(&kx));
    *x = xr;
    (order.iter().map(|&c| eig.eigenvalues[c]).collect(), kxr)
}

fn residual(x: &Mat<f64>, kx: &Mat<f64>, m: &[f64], j: usize, lambda: f64) -> f64 {
    let (mut res, mut scale) = (0.0, 0.0);
    for d in 0..m.len() {
        let mx = m[d] * x[(d, j)];
        res += (kx[(d, j)] - lambda * mx).powi(2);
        scale += mx * mx;
    }
    res.sqrt() / (lambda.abs() * scale.sqrt()).max(f64::MIN_POSITIVE)
}
