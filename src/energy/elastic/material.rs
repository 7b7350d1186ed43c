//! Isotropic hyperelastic strain-energy densities Ψ(F) (energy per unit rest volume), their first
//! Piola–Kirchhoff stress P = ∂Ψ/∂F and the stiffness ∂P/∂F.
//!
//! # Conventions
//! - F is the 3×3 deformation gradient, J = det F, I_C = tr(FᵀF) = ‖F‖²_F.
//! - `vec(F)` is **column-major**: entry F\[(i, j)\] (row i, column j) is `vec(F)[3 j + i]`, which is
//!   nalgebra's storage order (`f.as_slice()`). [`Material::dpdf`] returns the 9×9 matrix
//!   `A[(3j+i, 3l+k)] = ∂P_ij / ∂F_kl`.
//! - Both models are shifted by a constant so that Ψ(I) = 0, and P(I) = 0 (stress-free rest state).
//! - Both models are parameterized by the user's Lamé parameters (from E, ν) **of the linearized
//!   material**: the small-strain response is Hooke's law σ = 2 μ ε + λ tr(ε) I for both. Any
//!   model-specific remapping is done here, not by the caller.

use nalgebra::{Matrix3, SMatrix, Vector3};
use num_dual::DualNum;

/// 9×9 matrix in the `vec(F)` (column-major) convention.
pub type Matrix9 = SMatrix<f64, 9, 9>;

/// The hyperelastic energy density of a solid.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Deserialize, serde::Serialize)]
pub enum ElasticModel {
    /// Ψ = μ/2 (I_C − 3) − μ ln J + λ/2 (ln J)². Classic compressible neo-Hookean (also the
    /// model of the authors of seed 001). Not defined for J ≤ 0: inverted or flat elements have
    /// Ψ = +∞ and NaN stress; a line search must keep J > 0.
    NeoHookean,
    /// Smith, de Goes, Kim 2018, "Stable Neo-Hookean Flesh Simulation", with the
    /// −μ/2 ln(I_C + 1) term: Ψ = μ'/2 (I_C − 3) + λ'/2 (J − α)² − μ'/2 ln(I_C + 1) − Ψ₀,
    /// α = 1 + 3μ'/(4λ'), where (μ', λ') = (4/3 μ, λ + 5/6 μ) are remapped from the user's Lamé
    /// parameters so that the small-strain response is Hooke's law with the user's E and ν.
    /// Finite and smooth for every F, including inverted elements (J ≤ 0).
    StableNeoHookean,
}

/// Lamé parameters (Pa) of the linearized material.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Lame {
    /// Shear modulus μ.
    pub mu: f64,
    /// First Lamé parameter λ.
    pub lambda: f64,
}

impl Lame {
    /// μ = E / (2(1 + ν)), λ = E ν / ((1 + ν)(1 − 2ν)).
    ///
    /// Meaningful for E > 0 and −1 < ν < 1/2 (ν → 1/2 makes λ → ∞); this is not checked here, the
    /// scene validation reports out-of-range values to the user.
    pub fn from_young_poisson(e: f64, nu: f64) -> Lame {
        Lame { mu: e / (2.0 * (1.0 + nu)), lambda: e * nu / ((1.0 + nu) * (1.0 - 2.0 * nu)) }
    }
}

/// An elastic model with its (linearized) Lamé parameters.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Material {
    pub model: ElasticModel,
    /// The user's Lamé parameters (of the linearized material; see [`ElasticModel`]).
    pub lame: Lame,
}

/// Parameters of the stable neo-Hookean energy in the paper's own notation.
#[derive(Clone, Copy, Debug)]
struct SnhParams {
    mu: f64,
    lambda: f64,
    alpha: f64,
    /// Ψ at F = I before the shift, subtracted so that the rest energy is 0.
    psi0: f64,
}

impl SnhParams {
    /// P = μ'(1 − 1/(I_C+1)) F + λ'(J − α) cof F, so P(I) = (3μ'/4 − λ'(α − 1)) I = 0 needs
    /// α = 1 + 3μ'/(4λ'). Linearizing at F = I + H (dI_C = 2 tr H, dJ = tr H,
    /// d cof F = tr(H) I − Hᵀ) gives
    /// dP = 3μ'/4 H + λ' tr(H) I + λ'(1 − α)(tr(H) I − Hᵀ) + μ'/8 tr(H) I
    ///    = 3μ'/4 (H + Hᵀ) + (λ' − 5μ'/8) tr(H) I,
    /// so Hooke's law with (μ, λ) needs μ' = 4/3 μ and λ' = λ + 5/6 μ (Smith et al. 2018, §3.4;
    /// checked by `tests/energy_fd.rs`). λ' > 0 for every ν > −1, so α is finite.
    fn new(l: &Lame) -> SnhParams {
        let mu = 4.0 / 3.0 * l.mu;
        let lambda = l.lambda + 5.0 / 6.0 * l.mu;
        let alpha = 1.0 + 0.75 * mu / lambda;
        let psi0 = 0.5 * lambda * (1.0 - alpha).powi(2) - 0.5 * mu * 4.0f64.ln();
        SnhParams { mu, lambda, alpha, psi0 }
    }
}

/// ∂J/∂F = cof(F), whose columns are f1×f2, f2×f0, f0×f1 for the columns f_j of F.
#[inline]
fn cofactor(f: &Matrix3<f64>) -> Matrix3<f64> {
    let (f0, f1, f2) = (f.column(0), f.column(1), f.column(2));
    Matrix3::from_columns(&[f1.cross(&f2), f2.cross(&f0), f0.cross(&f1)])
}

/// Adds `s ∂²J/∂F²` to `a`. In block form (3×3 blocks indexed by the columns of F), block (a, b)
/// is −ε_abc [f_c]× with [v]× the cross-product matrix: J is trilinear in the columns.
#[inline]
fn add_scaled_hessian_of_det(a: &mut Matrix9, f: &Matrix3<f64>, s: f64) {
    for (p, q, c, sign) in
        [(0, 1, 2, -1.0), (0, 2, 1, 1.0), (1, 2, 0, -1.0), (1, 0, 2, 1.0), (2, 0, 1, -1.0), (2, 1, 0, 1.0)]
    {
        let v: Vector3<f64> = f.column(c) * (sign * s);
        let (r, k) = (3 * p, 3 * q);
        a[(r, k + 1)] -= v.z;
        a[(r, k + 2)] += v.y;
        a[(r + 1, k)] += v.z;
        a[(r + 1, k + 2)] -= v.x;
        a[(r + 2, k)] -= v.y;
        a[(r + 2, k + 1)] += v.x;
    }
}

/// Adds `s g gᵀ` (g = vec of a 3×3 matrix) to `a`.
#[inline]
fn add_scaled_outer(a: &mut Matrix9, g: &Matrix3<f64>, s: f64) {
    let g = g.as_slice();
    for c in 0..9 {
        let gc = s * g[c];
        for r in 0..9 {
            a[(r, c)] += gc * g[r];
        }
    }
}

impl Material {
    pub fn new(model: ElasticModel, lame: Lame) -> Material {
        Material { model, lame }
    }

    /// Ψ(F), energy per unit rest volume (J/m³). Ψ(I) = 0.
    ///
    /// Neo-Hookean: +∞ for J ≤ 0 (the energy is not defined there; +∞ makes a line search reject
    /// the step). Stable neo-Hookean: finite for every finite F.
    pub fn energy_density(&self, f: &Matrix3<f64>) -> f64 {
        let j = f.determinant();
        let ic = f.norm_squared();
        match self.model {
            ElasticModel::NeoHookean => {
                if j <= 0.0 {
                    return f64::INFINITY;
                }
                let (mu, lambda) = (self.lame.mu, self.lame.lambda);
                let lj = j.ln();
                0.5 * mu * (ic - 3.0) - mu * lj + 0.5 * lambda * lj * lj
            }
            ElasticModel::StableNeoHookean => {
                let p = SnhParams::new(&self.lame);
                0.5 * p.mu * (ic - 3.0) + 0.5 * p.lambda * (j - p.alpha).powi(2) - 0.5 * p.mu * (ic + 1.0).ln() - p.psi0
            }
        }
    }

    /// The same Ψ(F), generic over the scalar type (num-dual numbers) so that forward-mode AD
    /// gives exact derivatives (Jacobian-vector products, and the cross-check of the hand-coded
    /// derivatives in the tests). `f[i][j]` is row i, column j. Slow: use [`Self::energy_density`]
    /// for f64.
    pub fn energy_density_generic<D: DualNum<Primitive = f64>>(&self, f: &[[D; 3]; 3]) -> D {
        let det = f[0][0].clone() * (f[1][1].clone() * f[2][2].clone() - f[1][2].clone() * f[2][1].clone())
            - f[0][1].clone() * (f[1][0].clone() * f[2][2].clone() - f[1][2].clone() * f[2][0].clone())
            + f[0][2].clone() * (f[1][0].clone() * f[2][1].clone() - f[1][1].clone() * f[2][0].clone());
        let ic: D = f.iter().flatten().map(|x| x.clone() * x.clone()).sum();
        match self.model {
            ElasticModel::NeoHookean => {
                if det.re() <= 0.0 {
                    return D::from(f64::INFINITY);
                }
                let (mu, lambda) = (self.lame.mu, self.lame.lambda);
                let lj = det.ln();
                (ic - 3.0) * (0.5 * mu) - lj.clone() * mu + lj.clone() * lj * (0.5 * lambda)
            }
            ElasticModel::StableNeoHookean => {
                let p = SnhParams::new(&self.lame);
                let dj = det - p.alpha;
                (ic.clone() - 3.0) * (0.5 * p.mu) + dj.clone() * dj * (0.5 * p.lambda)
                    - (ic + 1.0).ln() * (0.5 * p.mu)
                    - p.psi0
            }
        }
    }

    /// First Piola–Kirchhoff stress P = ∂Ψ/∂F (Pa). P(I) = 0. The f64 face of
    /// [`Self::pk1_generic`], so that the residual and its forward-mode AD derivatives are one code.
    pub fn pk1(&self, f: &Matrix3<f64>) -> Matrix3<f64> {
        let fa: [[f64; 3]; 3] = std::array::from_fn(|i| std::array::from_fn(|j| f[(i, j)]));
        let p = self.pk1_generic(&fa);
        Matrix3::from_fn(|i, j| p[i][j])
    }

    /// P(F) generic over the scalar (`f[i][j]` row i, column j): f64 for forces, a dual number
    /// for exact Jacobian-vector products (001 Algorithm 2).
    ///
    /// Neo-Hookean: P = μ F + (λ ln J − μ) cof(F) / J; all entries NaN for J ≤ 0 (undefined).
    /// Stable neo-Hookean: P = μ'(1 − 1/(I_C + 1)) F + λ'(J − α) cof(F).
    pub fn pk1_generic<T: DualNum<Primitive = f64> + Copy>(&self, f: &[[T; 3]; 3]) -> [[T; 3]; 3] {
        let col = |j: usize| [f[0][j], f[1][j], f[2][j]];
        let cross =
            |a: [T; 3], b: [T; 3]| [a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]];
        let (f0, f1, f2) = (col(0), col(1), col(2));
        // cof(F) = ∂J/∂F has the columns f1×f2, f2×f0, f0×f1; J = f0 · (f1×f2).
        let g = [cross(f1, f2), cross(f2, f0), cross(f0, f1)];
        let j = f0[0] * g[0][0] + f0[1] * g[0][1] + f0[2] * g[0][2];
        let (cf, cg) = match self.model {
            ElasticModel::NeoHookean => {
                if j.re() <= 0.0 {
                    return [[T::from(f64::NAN); 3]; 3];
                }
                let (mu, lambda) = (self.lame.mu, self.lame.lambda);
                (T::from(mu), (j.ln() * lambda - mu) / j)
            }
            ElasticModel::StableNeoHookean => {
                let p = SnhParams::new(&self.lame);
                let ic = f.iter().flatten().fold(T::from(0.0), |s, &x| s + x * x);
                ((T::from(1.0) - (ic + 1.0).recip()) * p.mu, (j - p.alpha) * p.lambda)
            }
        };
        std::array::from_fn(|r| std::array::from_fn(|c| f[r][c] * cf + g[c][r] * cg))
    }

    /// The coefficients of ∂P/∂F = a I + b f fᵀ + c g gᵀ + d ∂²J/∂F² (f = vec F,
    /// g = vec cof F): both models depend on F only through I_C and J, without a mixed term.
    /// `None` where the model is undefined (neo-Hookean with J ≤ 0).
    fn stiffness_terms(&self, f: &Matrix3<f64>) -> Option<StiffnessTerms> {
        let g = cofactor(f);
        let j = f.column(0).dot(&g.column(0));
        let (a, b, c, d) = match self.model {
            ElasticModel::NeoHookean => {
                if j.is_nan() || j <= 0.0 {
                    return None;
                }
                let (mu, lambda) = (self.lame.mu, self.lame.lambda);
                let lj = j.ln();
                (mu, 0.0, (lambda * (1.0 - lj) + mu) / (j * j), (lambda * lj - mu) / j)
            }
            ElasticModel::StableNeoHookean => {
                let p = SnhParams::new(&self.lame);
                let ic1 = f.norm_squared() + 1.0;
                (p.mu * (1.0 - 1.0 / ic1), 2.0 * p.mu / (ic1 * ic1), p.lambda, p.lambda * (j - p.alpha))
            }
        };
        Some(StiffnessTerms { a, b, c, d, g })
    }

    /// ∂P/∂F as a 9×9 matrix in the column-major `vec(F)` convention (see the module docs):
    /// `A[(3j+i, 3l+k)] = ∂P_ij/∂F_kl = ∂²Ψ/∂F_ij ∂F_kl`. Symmetric. Not projected: it is
    /// indefinite for large deformations (see [`Self::dpdf_projected`]).
    ///
    /// Neo-Hookean: μ I + (λ(1 − ln J) + μ)/J² g gᵀ + (λ ln J − μ)/J ∂²J/∂F², g = vec(cof F);
    /// all NaN for J ≤ 0.
    /// Stable neo-Hookean: μ'(1 − 1/(I_C+1)) I + 2μ'/(I_C+1)² f fᵀ + λ' g gᵀ + λ'(J − α) ∂²J/∂F².
    pub fn dpdf(&self, f: &Matrix3<f64>) -> Matrix9 {
        let Some(t) = self.stiffness_terms(f) else {
            return Matrix9::from_element(f64::NAN);
        };
        let mut a = Matrix9::zeros();
        a.fill_diagonal(t.a);
        if t.b != 0.0 {
            add_scaled_outer(&mut a, f, t.b);
        }
        add_scaled_outer(&mut a, &t.g, t.c);
        add_scaled_hessian_of_det(&mut a, f, t.d);
        a
    }

    /// ∂P/∂F projected onto the positive semi-definite cone (negative eigenvalues set to 0),
    /// from its analytic eigen-decomposition (Smith, de Goes, Kim 2019, "Analytic Eigensystems
    /// for Isotropic Distortion Energies"; Kim & Eberle, "Dynamic Deformables", ch. 7):
    /// with the rotation-variant SVD F = U diag(s) Vᵀ (U, V rotations, s₂ may be negative),
    /// - twist (u_i v_jᵀ − u_j v_iᵀ)/√2 has eigenvalue a + d s_k and flip
    ///   (u_i v_jᵀ + u_j v_iᵀ)/√2 has a − d s_k ({i, j, k} = {0, 1, 2}): f and g have no
    ///   component there, and ∂²J/∂F² acts as [[0, −s_k], [−s_k, 0]] on the (i, j), (j, i)
    ///   entries in the SVD frame;
    /// - the scaling modes Σ_n w_n u_n v_nᵀ come from the 3×3 matrix
    ///   a I + b s sᵀ + c γ γᵀ + d K, γ = (s₁s₂, s₀s₂, s₀s₁), K_nm = s_(third index) off the diagonal.
    ///
    /// Equal to [`crate::energy::project_psd`] applied to [`Self::dpdf`] (to round-off; tested)
    /// but several times faster. When no eigenvalue is negative, the result is exactly
    /// [`Self::dpdf`]. NaN for a neo-Hookean F with J ≤ 0.
    pub fn dpdf_projected(&self, f: &Matrix3<f64>) -> Matrix9 {
        // Iterative eigen-solvers never converge on NaN: answer NaN for non-finite input at once.
        if !f.iter().all(|x| x.is_finite()) {
            return Matrix9::from_element(f64::NAN);
        }
        let Some(t) = self.stiffness_terms(f) else {
            return Matrix9::from_element(f64::NAN);
        };
        // Fast path for the common mildly deformed element: a 9×9 Cholesky costs less than the
        // SVD below, and a positive definite matrix needs no projection.
        let unprojected = self.dpdf(f);
        if crate::energy::psd::is_positive_definite(&unprojected) {
            return unprojected;
        }
        // 3×3 SVD; NaN/inf entries (or no convergence) fall back to the numerical projection,
        // which leaves non-finite matrices unchanged.
        let svd = nalgebra::SVD::try_new(*f, true, true, f64::EPSILON, 200);
        let Some((mut u, mut s, mut vt)) = svd.and_then(|d| Some((d.u?, d.singular_values, d.v_t?))) else {
            let mut a = unprojected;
            crate::energy::project_psd(&mut a);
            return a;
        };
        // Rotation-variant SVD: move reflections into the sign of s₂.
        if u.determinant() < 0.0 {
            u.column_mut(2).neg_mut();
            s[2] = -s[2];
        }
        if vt.determinant() < 0.0 {
            vt.row_mut(2).neg_mut();
            s[2] = -s[2];
        }
        let pairs = [(1, 2, 0), (0, 2, 1), (0, 1, 2)];
        let twist = pairs.map(|(_, _, k)| t.a + t.d * s[k]);
        let flip = pairs.map(|(_, _, k)| t.a - t.d * s[k]);
        let gamma = Vector3::new(s[1] * s[2], s[0] * s[2], s[0] * s[1]);
        let kmat = Matrix3::new(0.0, s[2], s[1], s[2], 0.0, s[0], s[1], s[0], 0.0);
        let scale = Matrix3::identity() * t.a + s * s.transpose() * t.b + gamma * gamma.transpose() * t.c + kmat * t.d;
        // Finite input converges in a few iterations; the bound only guards against overflow
        // to infinity in extreme F (then the numerical projection decides).
        let Some(eig) = nalgebra::SymmetricEigen::try_new(scale, f64::EPSILON, 1000) else {
            let mut a = unprojected;
            crate::energy::project_psd(&mut a);
            return a;
        };
        if twist.iter().chain(&flip).chain(eig.eigenvalues.iter()).all(|&l| l >= 0.0) {
            return unprojected;
        }
        let mut out = Matrix9::zeros();
        let mut add_mode = |lambda: f64, q: Matrix3<f64>| {
            if lambda > 0.0 {
                let q = q.as_slice();
                for c in 0..9 {
                    let lc = lambda * q[c];
                    for r in 0..9 {
                        out[(r, c)] += lc * q[r];
                    }
                }
            }
        };
        let uv = |i: usize, j: usize| u.column(i) * vt.row(j);
        let r2 = std::f64::consts::FRAC_1_SQRT_2;
        for (m, &(i, j, _)) in pairs.iter().enumerate() {
            add_mode(twist[m], (uv(i, j) - uv(j, i)) * r2);
            add_mode(flip[m], (uv(i, j) + uv(j, i)) * r2);
        }
        for m in 0..3 {
            let w = eig.eigenvectors.column(m);
            add_mode(eig.eigenvalues[m], uv(0, 0) * w[0] + uv(1, 1) * w[1] + uv(2, 2) * w[2]);
        }
        out
    }
}

/// ∂P/∂F = a I + b f fᵀ + c g gᵀ + d ∂²J/∂F², see [`Material::dpdf`].
struct StiffnessTerms {
    a: f64,
    b: f64,
    c: f64,
    d: f64,
    /// cof F = ∂J/∂F.
    g: Matrix3<f64>,
}
