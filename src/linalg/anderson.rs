//! Anderson acceleration (type II, Walker & Ni 2011, "Anderson acceleration for fixed-point
//! iterations", SIAM J. Numer. Anal. 49(4)) of a fixed-point iteration `x <- T(x)`.
//!
//! With residuals `g_k = T(x_k) - x_k` and the differences of the last `m` inputs and residuals
//! (`ΔX`, `ΔG`), the next input is `x_k + g_k - (ΔX + ΔG) γ` with
//! `γ = argmin |g_k - ΔG γ|_2`: the affine combination of the last `m + 1` images whose
//! linearised residual is smallest. For a linear contraction this is GMRES-like; for the
//! piecewise-smooth maps of contact solvers it is a heuristic, so the caller keeps a safeguard
//! (restart on growth, best-iterate cache) and measures the error of `T`'s outputs only.
//!
//! The least-squares problem is solved by modified Gram–Schmidt on the columns of `ΔG`, newest
//! first, dropping a column that is numerically dependent on the newer ones.
// Numeric kernels index several parallel arrays with one counter; iterator zips would hide that.
#![allow(clippy::needless_range_loop)]

use std::collections::VecDeque;

pub struct Anderson {
    m: usize,
    dx: VecDeque<Vec<f64>>,
    dg: VecDeque<Vec<f64>>,
    x_prev: Vec<f64>,
    g_prev: Vec<f64>,
    has_prev: bool,
}

/// A column of `ΔG` whose component orthogonal to the newer columns is below this fraction of
/// its norm is dropped: keeping it would give coefficients `γ` of order `1/DEPENDENT` that
/// amplify round-off and the nonsmooth part of `T` (1e-8 is about sqrt(machine epsilon)).
const DEPENDENT: f64 = 1e-8;

impl Anderson {
    /// Memory `m` (the number of stored differences); `m = 0` gives the plain iteration.
    pub fn new(m: usize) -> Self {
        Anderson {
            m,
            dx: VecDeque::with_capacity(m),
            dg: VecDeque::with_capacity(m),
            x_prev: Vec::new(),
            g_prev: Vec::new(),
            has_prev: false,
        }
    }

    /// Forget the history (after a step that made things worse, or an active-set change).
    pub fn reset(&mut self) {
        self.dx.clear();
        self.dg.clear();
        self.has_prev = false;
    }

    /// Number of stored differences.
    pub fn depth(&self) -> usize {
        self.dx.len()
    }

    /// Given the input `x` of the last application of `T` and its residual `g = T(x) - x`,
    /// overwrite `x` with the next input.
    pub fn step(&mut self, x: &mut [f64], g: &[f64]) {
        let n = x.len();
        if self.m > 0 && self.has_prev {
            // Recycle the oldest buffers once the memory is full.
            let (mut ddx, mut ddg) = if self.dx.len() == self.m {
                (self.dx.pop_back().unwrap_or_default(), self.dg.pop_back().unwrap_or_default())
            } else {
                (Vec::new(), Vec::new())
            };
            ddx.clear();
            ddg.clear();
            ddx.extend((0..n).map(|i| x[i] - self.x_prev[i]));
            ddg.extend((0..n).map(|i| g[i] - self.g_prev[i]));
            self.dx.push_front(ddx);
            self.dg.push_front(ddg);
        }
        self.x_prev.clear();
        self.x_prev.extend_from_slice(x);
        self.g_prev.clear();
        self.g_prev.extend_from_slice(g);
        self.has_prev = self.m > 0;
        let gamma = self.least_squares(g);
        for i in 0..n {
            x[i] += g[i];
        }
        for (j, &c) in gamma.iter().enumerate() {
            if c != 0.0 {
                let (dx, dg) = (&self.dx[j], &self.dg[j]);
                for i in 0..n {
                    x[i] -= c * (dx[i] + dg[i]);
                }
            }
        }
    }

    /// `argmin |g - ΔG γ|` (zero coefficients for dropped columns).
    fn least_squares(&self, g: &[f64]) -> Vec<f64> {
        let k = self.dg.len();
        let mut gamma = vec![0.0; k];
        if k == 0 {
            return gamma;
        }
        // Modified Gram–Schmidt: q_j orthonormal, r upper triangular over the kept columns.
        let mut q: Vec<Vec<f64>> = Vec::with_capacity(k);
        let mut kept: Vec<usize> = Vec::with_capacity(k);
        let mut r = vec![vec![0.0; k]; k];
        for j in 0..k {
            let mut v = self.dg[j].clone();
            let norm0 = dot(&v, &v).sqrt();
            if norm0 == 0.0 || !norm0.is_finite() {
                continue;
            }
            for (a, qa) in q.iter().enumerate() {
                let c = dot(qa, &v);
                r[a][kept.len()] = c;
                for i in 0..v.len() {
                    v[i] -= c * qa[i];
                }
            }
            let nv = dot(&v, &v).sqrt();
            if nv <= DEPENDENT * norm0 {
                continue;
            }
            r[q.len()][kept.len()] = nv;
            v.iter_mut().for_each(|x| *x /= nv);
            q.push(v);
            kept.push(j);
        }
        // Solve R γ_kept = Q^T g.
        let nk = kept.len();
        let mut b: Vec<f64> = q.iter().map(|qa| dot(qa, g)).collect();
        for a in (0..nk).rev() {
            for c in a + 1..nk {
                b[a] -= r[a][c] * b[c];
            }
            b[a] /= r[a][a];
        }
        for (a, &j) in kept.iter().enumerate() {
            gamma[j] = b[a];
        }
        gamma
    }
}

fn dot(a: &[f64], b: &[f64]) -> f64 {
    a.iter().zip(b).map(|(x, y)| x * y).sum()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn solves_a_slow_linear_contraction() {
        // T(x) = A x + b with a contraction factor 0.999 along one direction: the plain
        // iteration needs ~14000 steps for 1e-6, Anderson (m = 3) a handful (the map is affine
        // in 2-D, so two differences span it).
        let t = |x: &[f64]| [0.999 * x[0] + 0.001 * x[1] + 1.0, 0.5 * x[1] - 2.0];
        let fixed = {
            let y = -4.0;
            [(1.0 + 0.001 * y) / 0.001, y]
        };
        let mut aa = Anderson::new(3);
        let mut x = [0.0, 0.0];
        let mut steps = 0;
        for k in 0..50 {
            let tx = t(&x);
            let g = [tx[0] - x[0], tx[1] - x[1]];
            if g[0].abs().max(g[1].abs()) < 1e-9 {
                steps = k;
                break;
            }
            aa.step(&mut x, &g);
        }
        assert!(steps > 0 && steps < 10, "steps {steps}");
        // Residual 1e-9 through (I - A)^{-1} with |(I - A)^{-1}| ~ 1e3: error below 1e-5.
        assert!((x[0] - fixed[0]).abs() < 1e-5 && (x[1] - fixed[1]).abs() < 1e-8, "{x:?} vs {fixed:?}");
    }

    #[test]
    fn zero_memory_is_the_plain_iteration() {
        let mut aa = Anderson::new(0);
        let mut x = [1.0, 2.0];
        aa.step(&mut x, &[0.5, -1.0]);
        aa.step(&mut x, &[0.25, 0.5]);
        assert_eq!(x, [1.75, 1.5]);
        assert_eq!(aa.depth(), 0);
    }
}
