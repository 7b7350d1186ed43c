//! Rod stretching: E_s = k_s/2 (|e|/|ē| − 1)² |ē| per edge (hand-derived derivatives).

use nalgebra::{Matrix3, SMatrix, SVector, Vector3};
use num_dual::DualNum;

/// One edge's stretching spring.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct StretchElement {
    /// The edge's two nodes (in the rod's node array).
    pub nodes: [usize; 2],
    /// Rest length |ē| > 0 (m).
    pub rest_length: f64,
}

impl StretchElement {
    pub fn new(nodes: [usize; 2], rest_length: f64) -> StretchElement {
        StretchElement { nodes, rest_length }
    }

    /// The two node positions from a rod's positions.
    #[inline]
    pub fn gather(&self, x: &[Vector3<f64>]) -> [Vector3<f64>; 2] {
        self.nodes.map(|i| x[i])
    }

    /// E_s (J) for stiffness k_s = E A (N).
    #[inline]
    pub fn energy(&self, ks: f64, x: &[Vector3<f64>; 2]) -> f64 {
        let s = (x[1] - x[0]).norm() / self.rest_length - 1.0;
        0.5 * ks * s * s * self.rest_length
    }

    /// E_s generic over the AD scalar; `x` = [x0, y0, z0, x1, y1, z1].
    pub fn energy_generic<D: DualNum<Primitive = f64> + Copy>(&self, ks: f64, x: &[D; 6]) -> D {
        let e = [x[3] - x[0], x[4] - x[1], x[5] - x[2]];
        let s = (e[0] * e[0] + e[1] * e[1] + e[2] * e[2]).sqrt() / self.rest_length - 1.0;
        s * s * (0.5 * ks * self.rest_length)
    }

    /// Energy and gradient (order [x0, x1]). With s = |e|/|ē| − 1 and t = e/|e|:
    /// ∂E/∂x1 = k_s s t = −∂E/∂x0.
    pub fn energy_gradient(&self, ks: f64, x: &[Vector3<f64>; 2]) -> (f64, SVector<f64, 6>) {
        let e = x[1] - x[0];
        let l = e.norm();
        let s = l / self.rest_length - 1.0;
        let f = e * (ks * s / l);
        let mut g = SVector::<f64, 6>::zeros();
        g.fixed_rows_mut::<3>(0).copy_from(&-f);
        g.fixed_rows_mut::<3>(3).copy_from(&f);
        (0.5 * ks * s * s * self.rest_length, g)
    }

    /// Energy, gradient and 6×6 Hessian H = [[K, −K], [−K, K]] with
    /// K = k_s/|ē| t tᵀ + k_s s/|e| (I − t tᵀ).
    ///
    /// The transverse term is negative in compression (s < 0): a compressed spring buckles
    /// sideways. `project_psd` clamps it to 0, which is the exact PSD projection: the eigenvalues
    /// of H are 2 × those of K (and three zeros), and K's are k_s/|ē| (along t) and k_s s/|e|
    /// (twice, across).
    pub fn energy_gradient_hessian(
        &self,
        ks: f64,
        x: &[Vector3<f64>; 2],
        project_psd: bool,
    ) -> (f64, SVector<f64, 6>, SMatrix<f64, 6, 6>) {
        let (e, g) = self.energy_gradient(ks, x);
        let d = x[1] - x[0];
        let l = d.norm();
        let t = d / l;
        let s = l / self.rest_length - 1.0;
        let across = if project_psd { (ks * s / l).max(0.0) } else { ks * s / l };
        let tt = t * t.transpose();
        let k: Matrix3<f64> = tt * (ks / self.rest_length) + (Matrix3::identity() - tt) * across;
        let mut h = SMatrix::<f64, 6, 6>::zeros();
        h.fixed_view_mut::<3, 3>(0, 0).copy_from(&k);
        h.fixed_view_mut::<3, 3>(3, 3).copy_from(&k);
        h.fixed_view_mut::<3, 3>(0, 3).copy_from(&-k);
        h.fixed_view_mut::<3, 3>(3, 0).copy_from(&-k);
        (e, g, h)
    }
}
