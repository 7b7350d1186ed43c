//! The linear (4-node) tetrahedron: constant deformation gradient F = Ds Dm⁻¹, with
//! Ds = [x1 − x0, x2 − x0, x3 − x0] (deformed) and Dm the same for the rest positions.
//!
//! Element energy E = V Ψ(F) with V the rest volume. Degrees of freedom are ordered
//! node0 (x, y, z), node1 (x, y, z), node2, node3 (12 entries).
//!
//! F is linear in x: F = Σ_a x_a c_aᵀ, with c_a the gradients of the barycentric shape functions
//! in rest space (c_1..c_3 = rows of Dm⁻¹, c_0 = −(c_1 + c_2 + c_3)). Hence
//! ∂E/∂x_a = V P c_a and ∂²E/∂x_ai ∂x_bk = V Σ_jl A(3j+i, 3l+k) c_aj c_bl with A = ∂P/∂F.
//! The map is applied with explicit loops over the sparse 9×12 structure of ∂vec(F)/∂x
//! (about 750 multiply-adds, no heap allocation).

use nalgebra::{Matrix3, SMatrix, SVector, Vector3};
use num_dual::DualNum;

use super::material::{Material, Matrix9, StressLinearization};
use crate::mesh::TetMesh;

/// A linear tetrahedral element with its precomputed rest-shape data.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct TetElement {
    /// Indices of the 4 nodes in the body's vertex array.
    pub nodes: [usize; 4],
    /// Dm⁻¹, the inverse of the rest edge matrix.
    pub dm_inv: Matrix3<f64>,
    /// Rest volume V > 0 (m³).
    pub rest_volume: f64,
}

impl TetElement {
    /// Precomputes Dm⁻¹ and V from the rest positions of the 4 nodes (in `nodes` order).
    ///
    /// Either orientation is accepted (V = |det Dm|/6; F is the same). The rest tet must not be
    /// degenerate ([`TetMesh::new`] guarantees it): a degenerate one gets a NaN Dm⁻¹, so every
    /// quantity computed from it is NaN rather than silently wrong.
    pub fn new(nodes: [usize; 4], rest: &[Vector3<f64>; 4]) -> TetElement {
        let dm = Matrix3::from_columns(&[rest[1] - rest[0], rest[2] - rest[0], rest[3] - rest[0]]);
        let dm_inv = dm.try_inverse().unwrap_or_else(|| Matrix3::from_element(f64::NAN));
        TetElement { nodes, dm_inv, rest_volume: dm.determinant().abs() / 6.0 }
    }

    /// One element per tetrahedron of `mesh`, with the mesh's vertices as rest positions.
    pub fn from_mesh(mesh: &TetMesh) -> Vec<TetElement> {
        mesh.tets.iter().map(|t| TetElement::new(*t, &t.map(|i| mesh.vertices[i]))).collect()
    }

    /// The positions of this element's nodes taken from a body's vertex array.
    #[inline]
    pub fn gather(&self, positions: &[Vector3<f64>]) -> [Vector3<f64>; 4] {
        self.nodes.map(|i| positions[i])
    }

    /// F = Ds Dm⁻¹ for deformed node positions `x` (in `nodes` order).
    #[inline]
    pub fn deformation_gradient(&self, x: &[Vector3<f64>; 4]) -> Matrix3<f64> {
        Matrix3::from_columns(&[x[1] - x[0], x[2] - x[0], x[3] - x[0]]) * self.dm_inv
    }

    /// Shape-function gradients c_a (see the module docs).
    #[inline]
    pub fn shape_gradients(&self) -> [Vector3<f64>; 4] {
        let c1: Vector3<f64> = self.dm_inv.row(0).transpose();
        let c2: Vector3<f64> = self.dm_inv.row(1).transpose();
        let c3: Vector3<f64> = self.dm_inv.row(2).transpose();
        [-(c1 + c2 + c3), c1, c2, c3]
    }

    /// Element energy V Ψ(F) (J). +∞ for an inverted neo-Hookean element.
    #[inline]
    pub fn energy(&self, m: &Material, x: &[Vector3<f64>; 4]) -> f64 {
        self.rest_volume * m.energy_density(&self.deformation_gradient(x))
    }

    /// Energy and its gradient with respect to the 12 nodal coordinates (the negated elastic
    /// forces).
    pub fn energy_gradient(&self, m: &Material, x: &[Vector3<f64>; 4]) -> (f64, SVector<f64, 12>) {
        self.energy_gradient_at(m, &self.deformation_gradient(x))
    }

    /// Energy and gradient for a known F.
    #[inline]
    fn energy_gradient_at(&self, m: &Material, f: &Matrix3<f64>) -> (f64, SVector<f64, 12>) {
        let e = self.rest_volume * m.energy_density(f);
        let vp = m.pk1(f) * self.rest_volume;
        let mut g = SVector::<f64, 12>::zeros();
        for (a, ca) in self.shape_gradients().iter().enumerate() {
            g.fixed_rows_mut::<3>(3 * a).copy_from(&(vp * ca));
        }
        (e, g)
    }

    /// Energy, gradient and the 12×12 Hessian (symmetric).
    ///
    /// With `project_psd`, ∂P/∂F is projected to its positive semi-definite part
    /// ([`Material::dpdf_projected`], analytic eigen-decomposition) before the map to nodal
    /// coordinates: H = V Bᵀ A⁺ B is then PSD by congruence. This is cheaper than projecting the
    /// 12×12 matrix, and is the usual choice (Teran et al. 2005; Smith et al. 2019); it is not the
    /// nearest PSD matrix to H itself.
    pub fn energy_gradient_hessian(
        &self,
        m: &Material,
        x: &[Vector3<f64>; 4],
        project_psd: bool,
    ) -> (f64, SVector<f64, 12>, SMatrix<f64, 12, 12>) {
        let f = self.deformation_gradient(x);
        let (e, g) = self.energy_gradient_at(m, &f);
        let a = if project_psd { m.dpdf_projected(&f) } else { m.dpdf(&f) };
        (e, g, self.map_stiffness(&a))
    }

    /// H = V Bᵀ A B with B = ∂vec(F)/∂x, B[(3j+i, 3a+i)] = c_a[j].
    #[inline]
    fn map_stiffness(&self, a: &Matrix9) -> SMatrix<f64, 12, 12> {
        let c = self.shape_gradients();
        // t = A B (9×12): column (3b+k) = Σ_l A[:, 3l+k] c_b[l].
        let mut t = SMatrix::<f64, 9, 12>::zeros();
        for (b, cb) in c.iter().enumerate() {
            for k in 0..3 {
                let col = a.column(k) * cb[0] + a.column(3 + k) * cb[1] + a.column(6 + k) * cb[2];
                t.set_column(3 * b + k, &col);
            }
        }
        // H = V Bᵀ t: row (3a+i) = V Σ_j t[3j+i, :] c_a[j]. Only the upper triangle is computed,
        // then mirrored (A symmetric ⇒ H symmetric, and mirroring makes it exactly so).
        let mut h = SMatrix::<f64, 12, 12>::zeros();
        let v = self.rest_volume;
        for (a_node, ca) in c.iter().enumerate() {
            let ca = ca * v;
            for i in 0..3 {
                let r = 3 * a_node + i;
                for col in r..12 {
                    h[(r, col)] = t[(i, col)] * ca[0] + t[(3 + i, col)] * ca[1] + t[(6 + i, col)] * ca[2];
                }
            }
        }
        for r in 0..12 {
            for col in 0..r {
                h[(r, col)] = h[(col, r)];
            }
        }
        h
    }

    /// The energy gradient (negated elastic forces) generic over the scalar: `∂E/∂x_a = V P c_a`
    /// with P from [`Material::pk1_generic`], the code [`Self::energy_gradient`] runs at f64.
    /// With dual numbers seeded by a direction it gives the Hessian-vector product exactly.
    pub fn gradient_generic<T: DualNum<Primitive = f64> + Copy>(&self, m: &Material, x: &[[T; 3]; 4]) -> [[T; 3]; 4] {
        let mut f = [[T::from(0.0); 3]; 3];
        for (i, row) in f.iter_mut().enumerate() {
            for (j, fij) in row.iter_mut().enumerate() {
                for k in 0..3 {
                    *fij += (x[k + 1][i] - x[0][i]) * self.dm_inv[(k, j)];
                }
            }
        }
        let p = m.pk1_generic(&f);
        self.shape_gradients()
            .map(|c| std::array::from_fn(|i| (p[i][0] * c[0] + p[i][1] * c[1] + p[i][2] * c[2]) * self.rest_volume))
    }

    /// The Hessian times the nodal direction `dx`, given ∂P/∂F at the element's current F
    /// ([`Material::stress_linearization`]): `V (∂P/∂F : dF) c_a` per node, dF from `dx` as F
    /// from x. The same product as [`Self::gradient_generic`] on dual numbers, at a fraction of
    /// the cost when many directions meet one F.
    #[inline]
    pub fn hessian_product(&self, lin: &StressLinearization, dx: &[[f64; 3]; 4]) -> [[f64; 3]; 4] {
        let df = self.deformation_gradient(&dx.map(Vector3::from)); // F is linear in x
        let vdp = lin.apply(&df) * self.rest_volume;
        self.shape_gradients().map(|c| (vdp * c).into())
    }

    /// Element energy generic over the scalar type (num-dual numbers): forward-mode AD of this
    /// gives exact gradients, Hessians and Jacobian-vector products. Slow; for tests and
    /// matrix-free products, not for assembly.
    pub fn energy_generic<D: DualNum<Primitive = f64>>(&self, m: &Material, x: &[[D; 3]; 4]) -> D {
        let mut f: [[D; 3]; 3] = std::array::from_fn(|_| std::array::from_fn(|_| D::from(0.0)));
        for (i, row) in f.iter_mut().enumerate() {
            for (j, fij) in row.iter_mut().enumerate() {
                for k in 0..3 {
                    *fij += (x[k + 1][i].clone() - x[0][i].clone()) * self.dm_inv[(k, j)];
                }
            }
        }
        m.energy_density_generic(&f) * self.rest_volume
    }
}
