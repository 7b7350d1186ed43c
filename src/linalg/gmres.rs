//! Restarted GMRES(m) with right preconditioning, workspace allocated once.
//!
//! Used on the non-symmetric Newton Jacobian of implicit friction, preconditioned by a (possibly
//! stale) sparse factorization: with a good preconditioner it converges in a few iterations, each
//! costing one sparse mat-vec and one pair of triangular solves.

/// Outcome of a GMRES solve.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct GmresInfo {
    pub iterations: usize,
    /// Final `|b - A x| / |b|` (estimated by the Arnoldi recurrence, checked at restarts).
    pub relative_residual: f64,
    pub converged: bool,
}

pub struct Gmres {
    restart: usize,
    v: Vec<Vec<f64>>,
    h: Vec<Vec<f64>>,
    cs: Vec<f64>,
    sn: Vec<f64>,
    g: Vec<f64>,
    y: Vec<f64>,
    w: Vec<f64>,
    z: Vec<f64>,
    r: Vec<f64>,
}

impl Gmres {
    pub fn new(n: usize, restart: usize) -> Gmres {
        Gmres {
            restart,
            v: vec![vec![0.0; n]; restart + 1],
            h: vec![vec![0.0; restart]; restart + 1],
            cs: vec![0.0; restart],
            sn: vec![0.0; restart],
            g: vec![0.0; restart + 1],
            y: vec![0.0; restart],
            w: vec![0.0; n],
            z: vec![0.0; n],
            r: vec![0.0; n],
        }
    }

    pub fn len(&self) -> usize {
        self.w.len()
    }

    pub fn is_empty(&self) -> bool {
        self.w.is_empty()
    }

    /// Solve `A x = b` starting from `x` (in/out). `matvec(x, y)` sets `y = A x`; `precond(v)`
    /// applies `M^-1` in place.
    pub fn solve(
        &mut self,
        mut matvec: impl FnMut(&[f64], &mut [f64]),
        mut precond: impl FnMut(&mut [f64]),
        b: &[f64],
        x: &mut [f64],
        rel_tol: f64,
        max_iter: usize,
    ) -> GmresInfo {
        let n = b.len();
        let bnorm = norm(b);
        if bnorm == 0.0 {
            x.iter_mut().for_each(|v| *v = 0.0);
            return GmresInfo { iterations: 0, relative_residual: 0.0, converged: true };
        }
        let mut total = 0;
        loop {
            // r = b - A x
            matvec(x, &mut self.r);
            for (ri, bi) in self.r.iter_mut().zip(b) {
                *ri = bi - *ri;
            }
            let beta = norm(&self.r);
            let rel = beta / bnorm;
            if rel <= rel_tol || !rel.is_finite() || total >= max_iter {
                return GmresInfo { iterations: total, relative_residual: rel, converged: rel <= rel_tol };
            }
            for i in 0..n {
                self.v[0][i] = self.r[i] / beta;
            }
            self.g.iter_mut().for_each(|v| *v = 0.0);
            self.g[0] = beta;
            let mut k_done = 0;
            for k in 0..self.restart {
                // w = A M^-1 v_k (right preconditioning keeps the true residual norm).
                self.z.copy_from_slice(&self.v[k]);
                precond(&mut self.z);
                matvec(&self.z, &mut self.w);
                for j in 0..=k {
                    let hjk = dot(&self.w, &self.v[j]);
                    self.h[j][k] = hjk;
                    for i in 0..n {
                        self.w[i] -= hjk * self.v[j][i];
                    }
                }
                let hk1 = norm(&self.w);
                self.h[k + 1][k] = hk1;
                if hk1 > 0.0 {
                    for i in 0..n {
                        self.v[k + 1][i] = self.w[i] / hk1;
                    }
                }
                for j in 0..k {
                    let t = self.cs[j] * self.h[j][k] + self.sn[j] * self.h[j + 1][k];
                    self.h[j + 1][k] = -self.sn[j] * self.h[j][k] + self.cs[j] * self.h[j + 1][k];
                    self.h[j][k] = t;
                }
                let d = self.h[k][k].hypot(self.h[k + 1][k]);
                let (c, s) = if d == 0.0 { (1.0, 0.0) } else { (self.h[k][k] / d, self.h[k + 1][k] / d) };
                self.cs[k] = c;
                self.sn[k] = s;
                self.h[k][k] = d;
                self.h[k + 1][k] = 0.0;
                self.g[k + 1] = -s * self.g[k];
                self.g[k] *= c;
                total += 1;
                k_done = k + 1;
                if self.g[k + 1].abs() / bnorm <= rel_tol || hk1 == 0.0 || total >= max_iter {
                    break;
                }
            }
            // Solve the triangular system and update x += M^-1 V y.
            for i in (0..k_done).rev() {
                let mut s = self.g[i];
                for j in i + 1..k_done {
                    s -= self.h[i][j] * self.y[j];
                }
                self.y[i] = s / self.h[i][i];
            }
            self.z.iter_mut().for_each(|v| *v = 0.0);
            for j in 0..k_done {
                for i in 0..n {
                    self.z[i] += self.y[j] * self.v[j][i];
                }
            }
            precond(&mut self.z);
            for (xi, zi) in x.iter_mut().zip(&self.z) {
                *xi += zi;
            }
        }
    }
}

fn dot(a: &[f64], b: &[f64]) -> f64 {
    a.iter().zip(b).map(|(x, y)| x * y).sum()
}

fn norm(a: &[f64]) -> f64 {
    dot(a, a).sqrt()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn convection_diffusion(n: usize) -> impl Fn(&[f64], &mut [f64]) {
        move |x: &[f64], y: &mut [f64]| {
            for i in 0..n {
                let l = if i > 0 { x[i - 1] } else { 0.0 };
                let r = if i + 1 < n { x[i + 1] } else { 0.0 };
                y[i] = 2.2 * x[i] - 1.5 * l - 0.5 * r;
            }
        }
    }

    #[test]
    fn solves_a_nonsymmetric_system_with_restarts() {
        let n = 200;
        let a = convection_diffusion(n);
        let x_true: Vec<f64> = (0..n).map(|i| (0.1 * i as f64).cos()).collect();
        let mut b = vec![0.0; n];
        a(&x_true, &mut b);
        let mut x = vec![0.0; n];
        let mut g = Gmres::new(n, 20);
        let info = g.solve(&a, |_| {}, &b, &mut x, 1e-12, 2000);
        assert!(info.converged, "{info:?}");
        // Relative residual 1e-12 with condition number ~ 1e2 bounds the error near 1e-10.
        let err = x.iter().zip(&x_true).fold(0.0f64, |m, (a, b)| m.max((a - b).abs()));
        assert!(err < 1e-8, "error {err}");
    }

    #[test]
    fn exact_preconditioner_converges_in_one_iteration_and_failure_is_reported() {
        let n = 50;
        // Diagonal matrix: the exact inverse as preconditioner gives convergence in one step.
        let d: Vec<f64> = (0..n).map(|i| 1.0 + i as f64).collect();
        let b: Vec<f64> = (0..n).map(|i| (i as f64).sin()).collect();
        let mut x = vec![0.0; n];
        let mut g = Gmres::new(n, 10);
        let info = g.solve(
            |x, y| y.iter_mut().zip(x).zip(&d).for_each(|((y, x), d)| *y = d * x),
            |v| v.iter_mut().zip(&d).for_each(|(v, d)| *v /= d),
            &b,
            &mut x,
            1e-12,
            100,
        );
        assert_eq!(info.iterations, 1);
        assert!(info.converged);
        // An iteration cap that is too small must be reported as not converged.
        let mut x = vec![0.0; 200];
        let info = Gmres::new(200, 5).solve(convection_diffusion(200), |_| {}, &vec![1.0; 200], &mut x, 1e-14, 3);
        assert!(!info.converged && info.iterations == 3);
    }
}
