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
    /// Stomakhin et al. 2012's fixed co-rotated model (004's solids): Ψ = μ ‖F − R‖²_F +
    /// λ/2 (J − 1)², R the rotation of the rotation-variant polar decomposition (F = U Σ Vᵀ with
    /// U, V rotations, R = U Vᵀ, the smallest singular value negative when J < 0). Small strain:
    /// F − R → sym H, so Hooke's law with the user's (μ, λ) and no remap. Finite and continuous
    /// for every F, including inverted elements; its stiffness is unbounded where two singular
    /// values sum to zero (the projection clamps that mode to 0).
    FixedCorotated,
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

/// The derivative of cof F along `df`, `∂²J/∂F² : df`: J is trilinear in F's columns, so each
/// cofactor column's derivative is its cross product with one factor differentiated.
#[inline]
fn cofactor_derivative(f: &Matrix3<f64>, df: &Matrix3<f64>) -> Matrix3<f64> {
    let cross = |a: &Matrix3<f64>, i: usize, b: &Matrix3<f64>, j: usize| a.column(i).cross(&b.column(j));
    Matrix3::from_columns(&[
        cross(df, 1, f, 2) + cross(f, 1, df, 2),
        cross(df, 2, f, 0) + cross(f, 2, df, 0),
        cross(df, 0, f, 1) + cross(f, 0, df, 1),
    ])
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

/// ∂P/∂F at one F, kept to be applied to many directions (matrix-free Newton's Hessian
/// products): `dP = a dF + b F (F : dF) + c G (G : dF) + d ∂cof(F)[dF]`, G = cof F, the product
/// form of [`Material::dpdf`] for the models written in I_C and J.
#[derive(Clone, Copy, Debug)]
pub struct StressLinearization {
    terms: StiffnessTerms,
    f: Matrix3<f64>,
}

impl StressLinearization {
    /// `∂P/∂F : df`.
    #[inline]
    pub fn apply(&self, df: &Matrix3<f64>) -> Matrix3<f64> {
        let StiffnessTerms { a, b, c, d, g } = self.terms;
        let mut dp = df * a + g * (c * g.dot(df)) + cofactor_derivative(&self.f, df) * d;
        if b != 0.0 {
            dp += self.f * (b * self.f.dot(df));
        }
        dp
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
            ElasticModel::FixedCorotated => {
                let Some((_, s, _)) = rotation_variant_svd(f) else { return f64::NAN };
                self.lame.mu * (s - Vector3::repeat(1.0)).norm_squared() + 0.5 * self.lame.lambda * (j - 1.0).powi(2)
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
            ElasticModel::FixedCorotated => {
                let Some(r) = polar_rotation(f) else { return D::from(f64::NAN) };
                let d: D =
                    (0..9).map(|k| f[k / 3][k % 3].clone() - r[k / 3][k % 3].clone()).map(|x| x.clone() * x).sum();
                let dj = det - 1.0;
                d * self.lame.mu + dj.clone() * dj * (0.5 * self.lame.lambda)
            }
        }
    }

    /// First Piola–Kirchhoff stress P = ∂Ψ/∂F (Pa). P(I) = 0. The f64 face of
    /// [`Self::pk1_generic`], so that the residual and its forward-mode AD derivatives are one code.
    pub fn pk1(&self, f: &Matrix3<f64>) -> Matrix3<f64> {
        if self.model == ElasticModel::FixedCorotated {
            // The generic path's polar iteration is undefined for J ≤ 0; the SVD is not.
            let Some((u, _, vt)) = rotation_variant_svd(f) else { return Matrix3::from_element(f64::NAN) };
            let j = f.determinant();
            return (f - u * vt) * (2.0 * self.lame.mu) + cofactor(f) * (self.lame.lambda * (j - 1.0));
        }
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
            ElasticModel::FixedCorotated => {
                // P = 2μ (F − R) + λ (J − 1) cof F, R by the polar iteration (J > 0 only).
                let Some(rot) = polar_rotation(f) else { return [[T::from(f64::NAN); 3]; 3] };
                let (mu2, cg) = (2.0 * self.lame.mu, (j - 1.0) * self.lame.lambda);
                return std::array::from_fn(|r| std::array::from_fn(|c| (f[r][c] - rot[r][c]) * mu2 + g[c][r] * cg));
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
            // Not of this form (its ARAP part depends on F through R): `corotated_dpdf`.
            ElasticModel::FixedCorotated => return None,
        };
        Some(StiffnessTerms { a, b, c, d, g })
    }

    /// ∂P/∂F at `f` in product form, for directions to come; `None` for fixed co-rotated
    /// elasticity (its ARAP part goes through the polar rotation) and where the model is
    /// undefined (neo-Hookean with J ≤ 0).
    pub fn stress_linearization(&self, f: &Matrix3<f64>) -> Option<StressLinearization> {
        self.stiffness_terms(f).map(|terms| StressLinearization { terms, f: *f })
    }

    /// ∂P/∂F as a 9×9 matrix in the column-major `vec(F)` convention (see the module docs):
    /// `A[(3j+i, 3l+k)] = ∂P_ij/∂F_kl = ∂²Ψ/∂F_ij ∂F_kl`. Symmetric. Not projected: it is
    /// indefinite for large deformations (see [`Self::dpdf_projected`]).
    ///
    /// Neo-Hookean: μ I + (λ(1 − ln J) + μ)/J² g gᵀ + (λ ln J − μ)/J ∂²J/∂F², g = vec(cof F);
    /// all NaN for J ≤ 0.
    /// Stable neo-Hookean: μ'(1 − 1/(I_C+1)) I + 2μ'/(I_C+1)² f fᵀ + λ' g gᵀ + λ'(J − α) ∂²J/∂F².
    pub fn dpdf(&self, f: &Matrix3<f64>) -> Matrix9 {
        if self.model == ElasticModel::FixedCorotated {
            return self.corotated_dpdf(f, false);
        }
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
        if self.model == ElasticModel::FixedCorotated {
            return self.corotated_dpdf(f, true);
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
        let Some((u, s, vt)) = rotation_variant_svd(f) else {
            let mut a = unprojected;
            crate::energy::project_psd(&mut a);
            return a;
        };
        let twist = PAIRS.map(|(_, _, k)| t.a + t.d * s[k]);
        let flip = PAIRS.map(|(_, _, k)| t.a - t.d * s[k]);
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
        modes_sum(&u, &vt, (twist, flip), &eig, true)
    }

    /// The fixed co-rotated model's ∂P/∂F from its eigen-system (Smith et al. 2019: the ARAP
    /// part's twists have 2μ(1 − 2/(s_i + s_j)), everything else 2μ; λ g gᵀ and λ (J − 1) ∂²J/∂F²
    /// act as for the other models), projected onto the PSD cone when `project`.
    fn corotated_dpdf(&self, f: &Matrix3<f64>, project: bool) -> Matrix9 {
        let Some((u, s, vt)) = rotation_variant_svd(f) else { return Matrix9::from_element(f64::NAN) };
        let (mu2, lambda) = (2.0 * self.lame.mu, self.lame.lambda);
        let d = lambda * (s[0] * s[1] * s[2] - 1.0);
        // s_i + s_j → 0 (an inverted element's pair) makes the twist unbounded: keep the
        // denominator's magnitude at least 1e-12 (the mode is then ~1e12 μ of either sign).
        let den = |a: f64| if a.abs() < 1e-12 { 1e-12 } else { a };
        let twist = PAIRS.map(|(i, j, k)| mu2 * (1.0 - 2.0 / den(s[i] + s[j])) + d * s[k]);
        let flip = PAIRS.map(|(_, _, k)| mu2 - d * s[k]);
        let gamma = Vector3::new(s[1] * s[2], s[0] * s[2], s[0] * s[1]);
        let kmat = Matrix3::new(0.0, s[2], s[1], s[2], 0.0, s[0], s[1], s[0], 0.0);
        let scale = Matrix3::identity() * mu2 + gamma * gamma.transpose() * lambda + kmat * d;
        modes_sum(&u, &vt, (twist, flip), &nalgebra::SymmetricEigen::new(scale), project)
    }
}

/// The index pairs (i, j) of the twist and flip modes, with the third index k.
const PAIRS: [(usize, usize, usize); 3] = [(1, 2, 0), (0, 2, 1), (0, 1, 2)];

/// `Σ λ_m vec(Q_m) vec(Q_m)ᵀ` over the nine modes in the SVD frame (`u`, `vt`): twists
/// (u_i v_jᵀ − u_j v_iᵀ)/√2 and flips (u_i v_jᵀ + u_j v_iᵀ)/√2 of [`PAIRS`], and the scalings
/// Σ_n w_n u_n v_nᵀ of `scale`'s eigenvectors; with `project`, negative λ_m left out.
fn modes_sum(
    u: &Matrix3<f64>,
    vt: &Matrix3<f64>,
    (twist, flip): ([f64; 3], [f64; 3]),
    scale: &nalgebra::SymmetricEigen<f64, nalgebra::U3>,
    project: bool,
) -> Matrix9 {
    let mut out = Matrix9::zeros();
    let mut add_mode = |lambda: f64, q: Matrix3<f64>| {
        if lambda > 0.0 || (!project && lambda != 0.0) {
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
    for (m, &(i, j, _)) in PAIRS.iter().enumerate() {
        add_mode(twist[m], (uv(i, j) - uv(j, i)) * r2);
        add_mode(flip[m], (uv(i, j) + uv(j, i)) * r2);
    }
    for m in 0..3 {
        let w = scale.eigenvectors.column(m);
        add_mode(scale.eigenvalues[m], uv(0, 0) * w[0] + uv(1, 1) * w[1] + uv(2, 2) * w[2]);
    }
    out
}

/// The rotation-variant SVD F = U diag(s) Vᵀ: U and V rotations, reflections moved into the
/// sign of s₂ (the smallest). `None` for non-finite F or no convergence.
fn rotation_variant_svd(f: &Matrix3<f64>) -> Option<(Matrix3<f64>, Vector3<f64>, Matrix3<f64>)> {
    if !f.iter().all(|x| x.is_finite()) {
        return None;
    }
    let svd = nalgebra::SVD::try_new(*f, true, true, f64::EPSILON, 200)?;
    let (mut u, mut s, mut vt) = (svd.u?, svd.singular_values, svd.v_t?);
    if u.determinant() < 0.0 {
        u.column_mut(2).neg_mut();
        s[2] = -s[2];
    }
    if vt.determinant() < 0.0 {
        vt.row_mut(2).neg_mut();
        s[2] = -s[2];
    }
    Some((u, s, vt))
}

/// The rotation of F's polar decomposition by Newton's iteration R ← (R + R⁻ᵀ)/2 from R = F,
/// generic over the scalar so that dual numbers carry its derivative (the iteration's fixed
/// point is differentiable and the derivative parts converge with it). `f[i][j]` row i,
/// column j. `None` for J ≤ 0 (the iteration would converge to a reflection) or no convergence.
fn polar_rotation<D: DualNum<Primitive = f64>>(f: &[[D; 3]; 3]) -> Option<[[D; 3]; 3]> {
    let mut r = f.clone();
    let det = |r: &[[D; 3]; 3]| -> D {
        r[0][0].clone() * (r[1][1].clone() * r[2][2].clone() - r[1][2].clone() * r[2][1].clone())
            - r[0][1].clone() * (r[1][0].clone() * r[2][2].clone() - r[1][2].clone() * r[2][0].clone())
            + r[0][2].clone() * (r[1][0].clone() * r[2][1].clone() - r[1][1].clone() * r[2][0].clone())
    };
    // NaN counts as not positive.
    if det(&r).re().partial_cmp(&0.0) != Some(std::cmp::Ordering::Greater) {
        return None;
    }
    // Quadratic convergence: a few iterations past round-off, two more for the derivative parts.
    let mut settled = 0;
    for _ in 0..60 {
        let j = det(&r);
        // R⁻ᵀ = cof(R) / det R, cof(R)_{ab} = the (a, b) cofactor.
        let cof = |a: usize, b: usize| {
            let (a1, a2, b1, b2) = ((a + 1) % 3, (a + 2) % 3, (b + 1) % 3, (b + 2) % 3);
            r[a1][b1].clone() * r[a2][b2].clone() - r[a1][b2].clone() * r[a2][b1].clone()
        };
        let next: [[D; 3]; 3] =
            std::array::from_fn(|a| std::array::from_fn(|b| (r[a][b].clone() + cof(a, b) / j.clone()) * 0.5));
        let change: f64 = (0..9).map(|k| (next[k / 3][k % 3].re() - r[k / 3][k % 3].re()).abs()).sum();
        r = next;
        if change <= 1e-15 {
            settled += 1;
            if settled == 3 {
                return Some(r);
            }
        }
    }
    None
}

/// ∂P/∂F = a I + b f fᵀ + c g gᵀ + d ∂²J/∂F², see [`Material::dpdf`].
#[derive(Clone, Copy, Debug)]
struct StiffnessTerms {
    a: f64,
    b: f64,
    c: f64,
    d: f64,
    /// cof F = ∂J/∂F.
    g: Matrix3<f64>,
}
