//! The Sherman–Morrison–Woodbury correction that turns a solve with `A` into one with
//! `A + U Wᵀ`: `(A + U Wᵀ)⁻¹ b = z − Y (I + Wᵀ Y)⁻¹ Wᵀ z` with `z = A⁻¹ b` and `Y = A⁻¹ U`,
//! prepared once per factor (one extra solve per term) and then applied at the cost of a few dot
//! products. The low-rank terms are a volume penalty's dense Jacobian, `u wᵀ` per zone.

pub struct Woodbury {
    y: Vec<Vec<f64>>,
    /// `(I + Wᵀ Y)⁻¹`, k×k.
    c_inv: nalgebra::DMatrix<f64>,
}

fn dot(a: &[f64], b: &[f64]) -> f64 {
    a.iter().zip(b).map(|(p, q)| p * q).sum()
}

impl Woodbury {
    /// Prepared with `solve(x)`, which overwrites `x` with `A⁻¹ x`; `None` if `I + Wᵀ Y` is
    /// singular.
    pub fn new(solve: impl Fn(&mut [f64]), low_rank: &[(Vec<f64>, Vec<f64>)]) -> Option<Woodbury> {
        let k = low_rank.len();
        let y: Vec<Vec<f64>> = low_rank
            .iter()
            .map(|(u, _)| {
                let mut yj = u.clone();
                solve(&mut yj);
                yj
            })
            .collect();
        let c = nalgebra::DMatrix::from_fn(k, k, |i, j| (i == j) as u8 as f64 + dot(&low_rank[i].1, &y[j]));
        Some(Woodbury { y, c_inv: c.try_inverse()? })
    }

    /// Given `z = A⁻¹ b` in `x`, overwrite it with `(A + U Wᵀ)⁻¹ b`.
    pub fn apply(&self, low_rank: &[(Vec<f64>, Vec<f64>)], x: &mut [f64]) {
        let wz = nalgebra::DVector::from_fn(low_rank.len(), |i, _| dot(&low_rank[i].1, x));
        let coef = &self.c_inv * wz;
        for (j, yj) in self.y.iter().enumerate() {
            x.iter_mut().zip(yj).for_each(|(xi, yi)| *xi -= coef[j] * yi);
        }
    }
}
