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
    /// Scratch of the least-squares solve, kept so that a step allocates nothing once warm:
    /// the orthonormal columns, `R` (row-major, `m × m`), the kept column indices, `γ`.
    q: Vec<Vec<f64>>,
    r: Vec<f64>,
    kept: Vec<usize>,
    gamma: Vec<f64>,
}

/// A column of `ΔG` whose component orthogonal to the newer columns is below this fraction of
/// its norm is dropped: keeping it would give coefficients `γ` of order `1/DEPENDENT` that
/// amplify round-off and the nonsmooth part of `T` (1e-8 is about sqrt(machine epsilon)).
const DEPENDENT: f64 = 1e-8;

/// The largest memory: beyond a few tens of differences the least-squares problem is
/// ill-conditioned and every solver here uses 5–10.
pub const MAX_MEMORY: usize = 32;

impl Anderson {
    /// Memory `m` (the number of stored differences, at most [`MAX_MEMORY`]); `m = 0` gives
    /// the plain iteration.
    pub fn new(m: usize) -> Self {
        let m = m.min(MAX_MEMORY);
        Anderson {
            m,
            dx: VecDeque::with_capacity(m),
            dg: VecDeque::with_capacity(m),
            x_prev: Vec::new(),
            g_prev: Vec::new(),
            has_prev: false,
            q: Vec::new(),
            r: vec![0.0; m * m],
            kept: Vec::with_capacity(m),
            gamma: Vec::with_capacity(m),
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
        self.least_squares(g);
        for i in 0..n {
            x[i] += g[i];
        }
        for (j, &c) in self.gamma.iter().enumerate() {
            if c != 0.0 {
                let (dx, dg) = (&self.dx[j], &self.dg[j]);
                for i in 0..n {
                    x[i] -= c * (dx[i] + dg[i]);
                }
            }
        }
    }

    /// `γ = argmin |g - ΔG γ|` (zero coefficients for dropped columns).
    fn least_squares(&mut self, g: &[f64]) {
        let k = self.dg.len();
        self.gamma.clear();
        self.gamma.resize(k, 0.0);
        self.kept.clear();
        // Modified Gram–Schmidt: q_j orthonormal, r upper triangular over the kept columns.
        let m = self.m;
        for j in 0..k {
            let slot = self.kept.len();
            if self.q.len() <= slot {
                self.q.push(Vec::new());
            }
            let (done, rest) = self.q.split_at_mut(slot);
            let v = &mut rest[0];
            v.clear();
            v.extend_from_slice(&self.dg[j]);
            let norm0 = dot(v, v).sqrt();
            if norm0 == 0.0 || !norm0.is_finite() {
                continue;
            }
            for (a, qa) in done.iter().enumerate() {
                let c = dot(qa, v);
                self.r[a * m + slot] = c;
                for i in 0..v.len() {
                    v[i] -= c * qa[i];
                }
            }
            let nv = dot(v, v).sqrt();
            if nv <= DEPENDENT * norm0 {
                continue;
            }
            self.r[slot * m + slot] = nv;
            v.iter_mut().for_each(|x| *x /= nv);
            self.kept.push(j);
        }
        // Solve R γ_kept = Q^T g, in place in γ's first entries, then scatter.
        let nk = self.kept.len();
        let mut b = [0.0; MAX_MEMORY];
        for a in 0..nk {
            b[a] = dot(&self.q[a], g);
        }
        for a in (0..nk).rev() {
            for c in a + 1..nk {
                b[a] -= self.r[a * m + c] * b[c];
            }
            b[a] /= self.r[a * m + a];
        }
        for (a, &j) in self.kept.iter().enumerate() {
            self.gamma[j] = b[a];
        }
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
