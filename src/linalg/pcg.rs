//! Preconditioned conjugate gradients (Hestenes–Stiefel) for symmetric positive definite
//! systems, on operators given as closures: the iterative global step of 004's ADMM (§5.3, CG
//! preconditioned by each object's Cholesky factor, after Fei et al. 2017).
//!
//! It stops on the size of the preconditioned residual `z = P⁻¹ (b − A x)` in the max norm:
//! with a good preconditioner `z` is the error left in `x`, in `x`'s own unit, so a caller can
//! ask for an error below a fraction of the step its outer iteration is taking (004's
//! `τ_LS δ∞`). It always takes one step from the warm start, so an infinite tolerance (the first
//! ADMM iteration, before any δ∞) still makes a preconditioned correction.

/// How a solve ended.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PcgInfo {
    pub iterations: usize,
    /// `|P⁻¹ (b − A x)|∞` at the returned `x`.
    pub correction: f64,
    pub converged: bool,
}

/// Work vectors, kept across solves of one size.
#[derive(Default)]
pub struct Pcg {
    r: Vec<f64>,
    z: Vec<f64>,
    p: Vec<f64>,
    q: Vec<f64>,
}

fn dot(a: &[f64], b: &[f64]) -> f64 {
    a.iter().zip(b).map(|(x, y)| x * y).sum()
}

fn max_abs(a: &[f64]) -> f64 {
    a.iter().fold(0.0f64, |m, x| m.max(x.abs()))
}

impl Pcg {
    /// Solve `A x = b` from the warm start in `x` until `|P⁻¹ (b − A x)|∞ <= tol` or
    /// `max_iterations`; `apply(y, out)` sets `out = A y`, `precondition(y)` replaces `y` by
    /// `P⁻¹ y`. A breakdown (`pᵀ A p <= 0`: `A` not positive definite) ends the solve, not
    /// converged.
    pub fn solve(
        &mut self,
        mut apply: impl FnMut(&[f64], &mut [f64]),
        mut precondition: impl FnMut(&mut [f64]),
        b: &[f64],
        x: &mut [f64],
        tol: f64,
        max_iterations: usize,
    ) -> PcgInfo {
        let n = b.len();
        for v in [&mut self.r, &mut self.z, &mut self.p, &mut self.q] {
            v.resize(n, 0.0);
        }
        apply(x, &mut self.q);
        for ((r, b), q) in self.r.iter_mut().zip(b).zip(&self.q) {
            *r = b - q;
        }
        self.z.copy_from_slice(&self.r);
        precondition(&mut self.z);
        let mut info = PcgInfo { iterations: 0, correction: max_abs(&self.z), converged: false };
        if info.correction == 0.0 {
            info.converged = true;
            return info;
        }
        self.p.copy_from_slice(&self.z);
        let mut rz = dot(&self.r, &self.z);
        while info.iterations < max_iterations {
            info.iterations += 1;
            apply(&self.p, &mut self.q);
            let pq = dot(&self.p, &self.q);
            if pq.is_nan() || pq <= 0.0 {
                return info;
            }
            let alpha = rz / pq;
            x.iter_mut().zip(&self.p).for_each(|(x, p)| *x += alpha * p);
            self.r.iter_mut().zip(&self.q).for_each(|(r, q)| *r -= alpha * q);
            self.z.copy_from_slice(&self.r);
            precondition(&mut self.z);
            info.correction = max_abs(&self.z);
            if info.correction <= tol {
                info.converged = true;
                return info;
            }
            let rz_new = dot(&self.r, &self.z);
            let beta = rz_new / rz;
            rz = rz_new;
            self.p.iter_mut().zip(&self.z).for_each(|(p, z)| *p = z + beta * *p);
        }
        info
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The 1D Laplacian plus `shift` on the diagonal, as an operator.
    fn laplacian(shift: f64) -> impl Fn(&[f64], &mut [f64]) {
        move |y: &[f64], out: &mut [f64]| {
            let n = y.len();
            for i in 0..n {
                let l = if i > 0 { y[i - 1] } else { 0.0 };
                let r = if i + 1 < n { y[i + 1] } else { 0.0 };
                out[i] = (2.0 + shift) * y[i] - l - r;
            }
        }
    }

    #[test]
    fn jacobi_pcg_meets_its_tolerance_and_an_exact_preconditioner_takes_one_step() {
        let n = 200;
        let a = laplacian(0.01);
        let b: Vec<f64> = (0..n).map(|i| (i as f64 * 0.1).sin()).collect();
        let mut x = vec![0.0; n];
        let jacobi = |y: &mut [f64]| y.iter_mut().for_each(|v| *v /= 2.01);
        let info = Pcg::default().solve(&a, jacobi, &b, &mut x, 1e-10, 1000);
        assert!(info.converged && info.iterations > 10, "{info:?}");
        let mut ax = vec![0.0; n];
        a(&x, &mut ax);
        let res = ax.iter().zip(&b).fold(0.0f64, |m, (p, q)| m.max((p - q).abs()));
        // |b − A x| <= |A| |P⁻¹ r| ≈ 4.01 × 2.01 × 1e-10.
        assert!(res < 1e-9, "residual {res:e}");
        // The exact inverse as a preconditioner (a tridiagonal solve): one step from zero.
        let exact = |y: &mut [f64]| thomas(y, 2.01);
        let mut x1 = vec![0.0; n];
        let info = Pcg::default().solve(&a, exact, &b, &mut x1, 1e-12, 10);
        assert_eq!(info.iterations, 1, "{info:?}");
        assert!(info.converged);
    }

    #[test]
    fn an_infinite_tolerance_still_takes_one_correction() {
        let n = 50;
        let b = vec![1.0; n];
        let mut x = vec![0.0; n];
        let jacobi = |y: &mut [f64]| y.iter_mut().for_each(|v| *v /= 3.0);
        let info = Pcg::default().solve(laplacian(1.0), jacobi, &b, &mut x, f64::INFINITY, 100);
        assert_eq!(info.iterations, 1);
        assert!(x.iter().all(|v| *v > 0.0), "one step along P⁻¹ b");
    }

    #[test]
    fn an_indefinite_operator_is_a_breakdown_not_convergence() {
        let n = 20;
        let b = vec![1.0; n];
        let mut x = vec![0.0; n];
        let info = Pcg::default().solve(laplacian(-3.0), |_: &mut [f64]| {}, &b, &mut x, 1e-12, 100);
        assert!(!info.converged, "{info:?}");
    }

    /// Solve the tridiagonal (d, −1, −1) system in place (Thomas algorithm).
    fn thomas(y: &mut [f64], d: f64) {
        let n = y.len();
        let mut c = vec![0.0; n];
        let mut m = d;
        y[0] /= m;
        for i in 1..n {
            c[i - 1] = -1.0 / m;
            m = d + c[i - 1];
            y[i] = (y[i] + y[i - 1]) / m;
        }
        for i in (0..n - 1).rev() {
            y[i] -= c[i] * y[i + 1];
        }
    }
}
