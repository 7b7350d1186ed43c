//! Cloth membrane: in-plane (2D) hyperelasticity on linear triangles in 3D.
//!
//! The rest triangle (X0, X1, X2) is expressed in an orthonormal basis (b1, b2) of its own plane,
//! giving the 2×2 rest edge matrix Dm = [X1 − X0, X2 − X0] (2D) and its inverse. The deformation
//! gradient is the 3×2 matrix F = Ds Dm⁻¹, Ds = [x1 − x0, x2 − x0] (3D), and C = FᵀF (2×2) is the
//! in-plane right Cauchy–Green tensor. The element energy is E = h A Ψ(C) (h thickness, A rest
//! area), with
//! - StVK: Ψ = μ tr(G²) + λ/2 tr(G)², G = (C − I)/2 (Green strain);
//! - neo-Hookean: Ψ = μ/2 (tr C − 2) − μ ln J + λ/2 (ln J)², J = √det C (area ratio).
//!
//! (μ, λ) are the **plane-stress** Lamé parameters (see [`MembraneMaterial::from_young_poisson`]):
//! a thin sheet is free to thin out of plane, so the 2D model must reproduce the plane-stress
//! small-strain law σ = E/(1 − ν²) [(1 − ν) ε + ν tr(ε) I].
//!
//! Both models depend on F only through C, so they are invariant under rigid motions and do not
//! see the orientation of the triangle (a membrane flipped through itself is not "inverted";
//! bending, [`super::bending`], sees that). Gradients and Hessians are hand-derived: with
//! F = Σ_a x_a c_aᵀ (c_1, c_2 the rows of Dm⁻¹, c_0 = −c_1 − c_2), S = 2 ∂Ψ/∂C and P = F S,
//! ∂E/∂x_a = h A P c_a, and the Hessian is the material stiffness ∂²Ψ/∂F² mapped to the nodes
//! (see `MembraneElement::material_stiffness`).

use nalgebra::{Matrix2, Matrix3x2, SMatrix, SVector, Vector2, Vector3};
use num_dual::DualNum;

/// The membrane's strain-energy density.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Deserialize, serde::Serialize)]
pub enum MembraneModel {
    /// Saint Venant–Kirchhoff: quadratic in the Green strain; soft in compression (its energy has
    /// a maximum at zero area), which is harmless for cloth that buckles out of plane instead.
    StVK,
    /// Compressible neo-Hookean in 2D; +∞ at J = 0 (a triangle collapsed to a segment).
    NeoHookean,
}

/// Membrane material of a sheet.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct MembraneMaterial {
    pub model: MembraneModel,
    /// Plane-stress shear modulus μ = E/(2(1 + ν)) (Pa).
    pub mu: f64,
    /// Plane-stress first Lamé parameter λ = E ν/(1 − ν²) (Pa).
    pub lambda: f64,
    /// Sheet thickness h (m).
    pub thickness: f64,
    /// Mass per unit rest area ρ h (kg/m²).
    pub area_density: f64,
}

impl MembraneMaterial {
    /// From Young's modulus E (Pa), Poisson's ratio ν, thickness h (m) and volume density ρ
    /// (kg/m³). Plane stress: eliminating σ_zz = 0 from 3D Hooke's law leaves the 2D law with
    /// μ = E/(2(1 + ν)) and λ* = 2 λ μ/(λ + 2 μ) = E ν/(1 − ν²).
    pub fn from_young_poisson(model: MembraneModel, e: f64, nu: f64, thickness: f64, density: f64) -> Self {
        MembraneMaterial {
            model,
            mu: e / (2.0 * (1.0 + nu)),
            lambda: e * nu / (1.0 - nu * nu),
            thickness,
            area_density: density * thickness,
        }
    }
}

/// A membrane triangle with its rest-shape data.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct MembraneElement {
    pub nodes: [usize; 3],
    /// Dm⁻¹ (2×2), the inverse rest edge matrix in the triangle's own 2D basis.
    pub dm_inv: Matrix2<f64>,
    /// Rest area A > 0 (m²).
    pub rest_area: f64,
}

impl MembraneElement {
    /// Rest data from the 3D rest triangle. The 2D basis is b1 = (X1 − X0)/|X1 − X0|,
    /// b2 = n × b1, so Dm = [[|X1 − X0|, (X2 − X0)·b1], [0, (X2 − X0)·b2]] is upper triangular with
    /// positive diagonal (the orientation of the triangle does not matter). A degenerate rest
    /// triangle gives NaN data (as for tets), never silently wrong numbers.
    pub fn new(nodes: [usize; 3], rest: &[Vector3<f64>; 3]) -> MembraneElement {
        let (d1, d2) = (rest[1] - rest[0], rest[2] - rest[0]);
        let l1 = d1.norm();
        let b1 = d1 / l1;
        let n = d1.cross(&d2);
        let b2 = n.normalize().cross(&b1);
        let dm = Matrix2::new(l1, d2.dot(&b1), 0.0, d2.dot(&b2));
        let dm_inv = dm.try_inverse().unwrap_or_else(|| Matrix2::from_element(f64::NAN));
        MembraneElement { nodes, dm_inv, rest_area: 0.5 * n.norm() }
    }

    /// One element per triangle, with rest data from `rest`.
    pub fn from_triangles(triangles: &[[usize; 3]], rest: &[Vector3<f64>]) -> Vec<MembraneElement> {
        triangles.iter().map(|t| MembraneElement::new(*t, &t.map(|i| rest[i]))).collect()
    }

    /// The 3 node positions from a body's vertex array.
    #[inline]
    pub fn gather(&self, x: &[Vector3<f64>]) -> [Vector3<f64>; 3] {
        self.nodes.map(|i| x[i])
    }

    /// Lumped mass per node ρ h A / 3 (kg).
    pub fn lumped_mass(&self, m: &MembraneMaterial) -> f64 {
        m.area_density * self.rest_area / 3.0
    }

    /// F = Ds Dm⁻¹ (3×2).
    #[inline]
    pub fn deformation_gradient(&self, x: &[Vector3<f64>; 3]) -> Matrix3x2<f64> {
        Matrix3x2::from_columns(&[x[1] - x[0], x[2] - x[0]]) * self.dm_inv
    }

    /// c_a: F = Σ_a x_a c_aᵀ.
    #[inline]
    fn shape_gradients(&self) -> [Vector2<f64>; 3] {
        let c1: Vector2<f64> = self.dm_inv.row(0).transpose();
        let c2: Vector2<f64> = self.dm_inv.row(1).transpose();
        [-(c1 + c2), c1, c2]
    }

    /// Ψ(C) per unit rest volume.
    fn density(m: &MembraneMaterial, c: &Matrix2<f64>) -> f64 {
        match m.model {
            MembraneModel::StVK => {
                let g = (c - Matrix2::identity()) * 0.5;
                let tr = g.trace();
                m.mu * g.norm_squared() + 0.5 * m.lambda * tr * tr
            }
            MembraneModel::NeoHookean => {
                let det = c.determinant();
                if det.is_nan() || det <= 0.0 {
                    return f64::INFINITY;
                }
                let lj = 0.5 * det.ln();
                0.5 * m.mu * (c.trace() - 2.0) - m.mu * lj + 0.5 * m.lambda * lj * lj
            }
        }
    }

    /// Element energy h A Ψ (J).
    pub fn energy(&self, m: &MembraneMaterial, x: &[Vector3<f64>; 3]) -> f64 {
        let f = self.deformation_gradient(x);
        m.thickness * self.rest_area * Self::density(m, &(f.transpose() * f))
    }

    /// `F` (3×2, `F[i][k] = Σ_j Ds[i][j] Dm⁻¹[j][k]`) and `C = Fᵀ F` as `(c00, c01, c11)`, generic
    /// over the AD scalar; `q` = [x0, y0, z0, x1, …, z2].
    #[allow(clippy::type_complexity)]
    fn strain_generic<D: DualNum<Primitive = f64> + Copy>(&self, q: &[D; 9]) -> ([[D; 2]; 3], (D, D, D)) {
        let ds = |i: usize, j: usize| q[3 * (j + 1) + i] - q[i];
        let f: [[D; 2]; 3] = std::array::from_fn(|i| {
            std::array::from_fn(|k| ds(i, 0) * self.dm_inv[(0, k)] + ds(i, 1) * self.dm_inv[(1, k)])
        });
        let c = |k: usize, l: usize| f[0][k] * f[0][l] + f[1][k] * f[1][l] + f[2][k] * f[2][l];
        (f, (c(0, 0), c(0, 1), c(1, 1)))
    }

    /// The same energy generic over the AD scalar (tests, Jacobian-vector products);
    /// `q` = [x0, y0, z0, x1, …, z2].
    pub fn energy_generic<D: DualNum<Primitive = f64> + Copy>(&self, m: &MembraneMaterial, q: &[D; 9]) -> D {
        let (_, (c00, c01, c11)) = self.strain_generic(q);
        let psi = match m.model {
            MembraneModel::StVK => {
                let (g00, g01, g11) = ((c00 - 1.0) * 0.5, c01 * 0.5, (c11 - 1.0) * 0.5);
                let tr = g00 + g11;
                (g00 * g00 + g01 * g01 * 2.0 + g11 * g11) * m.mu + tr * tr * (0.5 * m.lambda)
            }
            MembraneModel::NeoHookean => {
                let det = c00 * c11 - c01 * c01;
                if det.re() <= 0.0 {
                    return D::from(f64::INFINITY);
                }
                let lj = det.ln() * 0.5;
                (c00 + c11 - 2.0) * (0.5 * m.mu) - lj * m.mu + lj * lj * (0.5 * m.lambda)
            }
        };
        psi * (m.thickness * self.rest_area)
    }

    /// The gradient of [`energy_generic`](Self::energy_generic), hand-derived (`g_a = h A F S c_a`,
    /// as [`energy_gradient`](Self::energy_gradient)) and generic over the AD scalar: seeded with a
    /// direction, one dual pass gives the Hessian-vector product that nested AD of the energy
    /// gives at ten times the cost. NaN where neo-Hookean is undefined.
    pub fn gradient_generic<D: DualNum<Primitive = f64> + Copy>(&self, m: &MembraneMaterial, q: &[D; 9]) -> [D; 9] {
        let (f, (c00, c01, c11)) = self.strain_generic(q);
        // S (symmetric 2×2) as (s00, s01, s11).
        let s = match m.model {
            MembraneModel::StVK => {
                let (g00, g01, g11) = ((c00 - 1.0) * 0.5, c01 * 0.5, (c11 - 1.0) * 0.5);
                let ltr = (g00 + g11) * m.lambda;
                (g00 * (2.0 * m.mu) + ltr, g01 * (2.0 * m.mu), g11 * (2.0 * m.mu) + ltr)
            }
            MembraneModel::NeoHookean => {
                let det = c00 * c11 - c01 * c01;
                if det.re() <= 0.0 {
                    return [D::from(f64::NAN); 9];
                }
                let (i00, i01, i11) = (c11 / det, -c01 / det, c00 / det);
                let lj = det.ln() * (0.5 * m.lambda);
                // S = μ (I − C⁻¹) + λ ln J C⁻¹.
                ((-i00 + 1.0) * m.mu + i00 * lj, -i01 * m.mu + i01 * lj, (-i11 + 1.0) * m.mu + i11 * lj)
            }
        };
        let scale = m.thickness * self.rest_area;
        let p: [[D; 2]; 3] =
            std::array::from_fn(|i| [(f[i][0] * s.0 + f[i][1] * s.1) * scale, (f[i][0] * s.1 + f[i][1] * s.2) * scale]);
        let cs = self.shape_gradients();
        std::array::from_fn(|r| {
            let (a, i) = (r / 3, r % 3);
            p[i][0] * cs[a][0] + p[i][1] * cs[a][1]
        })
    }

    /// S = 2 ∂Ψ/∂C and, for neo-Hookean, C⁻¹ and ln J. `None` where neo-Hookean is undefined.
    fn second_pk(m: &MembraneMaterial, c: &Matrix2<f64>) -> Option<(Matrix2<f64>, Matrix2<f64>, f64)> {
        match m.model {
            MembraneModel::StVK => {
                let g = (c - Matrix2::identity()) * 0.5;
                Some((g * (2.0 * m.mu) + Matrix2::identity() * (m.lambda * g.trace()), Matrix2::zeros(), 0.0))
            }
            MembraneModel::NeoHookean => {
                let det = c.determinant();
                if det.is_nan() || det <= 0.0 {
                    return None;
                }
                let c_inv = c.try_inverse()?;
                let lj = 0.5 * det.ln();
                // S = μ (I − C⁻¹) + λ ln J C⁻¹.
                Some(((Matrix2::identity() - c_inv) * m.mu + c_inv * (m.lambda * lj), c_inv, lj))
            }
        }
    }

    /// Energy and gradient (order x0, x1, x2). NaN gradient where neo-Hookean is undefined.
    pub fn energy_gradient(&self, m: &MembraneMaterial, x: &[Vector3<f64>; 3]) -> (f64, SVector<f64, 9>) {
        let f = self.deformation_gradient(x);
        let c = f.transpose() * f;
        let e = m.thickness * self.rest_area * Self::density(m, &c);
        let Some((s, _, _)) = Self::second_pk(m, &c) else {
            return (e, SVector::from_element(f64::NAN));
        };
        let p = f * s * (m.thickness * self.rest_area);
        let mut g = SVector::<f64, 9>::zeros();
        for (a, ca) in self.shape_gradients().iter().enumerate() {
            g.fixed_rows_mut::<3>(3 * a).copy_from(&(p * ca));
        }
        (e, g)
    }

    /// The material stiffness A = ∂²Ψ/∂F² (6×6) in the column-major vec(F) convention,
    /// `A[(3k+i, 3l+j)] = ∂P_ik/∂F_jl`, from dP = dF S + F dS:
    /// - StVK (dS = 2 μ dG + λ tr(dG) I, dG = sym(Fᵀ dF)):
    ///   A = δ_ij S_lk + μ δ_kl (F Fᵀ)_ij + μ F_il F_jk + λ F_ik F_jl;
    /// - neo-Hookean (dS = (μ − λ ln J) C⁻¹ dC C⁻¹ + λ/2 tr(C⁻¹ dC) C⁻¹, G = F C⁻¹):
    ///   A = δ_ij S_lk + (μ − λ ln J) [(F Gᵀ)_ij C⁻¹_lk + G_il G_jk] + λ G_ik G_jl.
    ///
    /// The nodal Hessian is then ∂²E/∂x_ai ∂x_bj = h A_rest Σ_kl A[(3k+i, 3l+j)] c_a[k] c_b[l].
    fn material_stiffness(
        m: &MembraneMaterial,
        f: &Matrix3x2<f64>,
        s: &Matrix2<f64>,
        c_inv: &Matrix2<f64>,
        lj: f64,
    ) -> SMatrix<f64, 6, 6> {
        let mut a = SMatrix::<f64, 6, 6>::zeros();
        match m.model {
            MembraneModel::StVK => {
                let ff = f * f.transpose();
                for k in 0..2 {
                    for l in 0..2 {
                        for i in 0..3 {
                            for j in 0..3 {
                                let mut v = m.mu * f[(i, l)] * f[(j, k)] + m.lambda * f[(i, k)] * f[(j, l)];
                                if i == j {
                                    v += s[(l, k)];
                                }
                                if k == l {
                                    v += m.mu * ff[(i, j)];
                                }
                                a[(3 * k + i, 3 * l + j)] = v;
                            }
                        }
                    }
                }
            }
            MembraneModel::NeoHookean => {
                let g = f * c_inv;
                let fg = f * g.transpose();
                let coef = m.mu - m.lambda * lj;
                for k in 0..2 {
                    for l in 0..2 {
                        for i in 0..3 {
                            for j in 0..3 {
                                let mut v = coef * (fg[(i, j)] * c_inv[(l, k)] + g[(i, l)] * g[(j, k)])
                                    + m.lambda * g[(i, k)] * g[(j, l)];
                                if i == j {
                                    v += s[(l, k)];
                                }
                                a[(3 * k + i, 3 * l + j)] = v;
                            }
                        }
                    }
                }
            }
        }
        a
    }

    /// Energy, gradient and the 9×9 Hessian (symmetric). StVK in compression and both models
    /// under large shear are indefinite. With `project_psd`, the 6×6 material stiffness
    /// ∂²Ψ/∂F² is projected to its PSD part ([`crate::energy::project_psd`]) before the map to
    /// nodal coordinates, so H = h A Bᵀ A⁺ B is PSD by congruence: as for tets, cheaper than
    /// projecting the 9×9 H (a 6×6 instead of a 9×9 eigen-decomposition) but not the nearest PSD
    /// matrix to H. All NaN where neo-Hookean is undefined.
    pub fn energy_gradient_hessian(
        &self,
        m: &MembraneMaterial,
        x: &[Vector3<f64>; 3],
        project_psd: bool,
    ) -> (f64, SVector<f64, 9>, SMatrix<f64, 9, 9>) {
        let f = self.deformation_gradient(x);
        let c = f.transpose() * f;
        let (e, g) = self.energy_gradient(m, x);
        let Some((s, c_inv, lj)) = Self::second_pk(m, &c) else {
            return (e, g, SMatrix::from_element(f64::NAN));
        };
        let mut a = Self::material_stiffness(m, &f, &s, &c_inv, lj);
        if project_psd {
            crate::energy::project_psd(&mut a);
        }
        let cs = self.shape_gradients();
        let scale = m.thickness * self.rest_area;
        let mut h = SMatrix::<f64, 9, 9>::zeros();
        for (pa, ca) in cs.iter().enumerate() {
            for (pb, cb) in cs.iter().enumerate().skip(pa) {
                let w = [ca[0] * cb[0], ca[0] * cb[1], ca[1] * cb[0], ca[1] * cb[1]];
                for i in 0..3 {
                    for j in 0..3 {
                        let v =
                            (a[(i, j)] * w[0] + a[(i, 3 + j)] * w[1] + a[(3 + i, j)] * w[2] + a[(3 + i, 3 + j)] * w[3])
                                * scale;
                        h[(3 * pa + i, 3 * pb + j)] = v;
                        h[(3 * pb + j, 3 * pa + i)] = v;
                    }
                }
            }
        }
        (e, g, h)
    }
}
