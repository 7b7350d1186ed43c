//! The Stewart–Trinkle LCP of a local problem (002 eqs. 5.27–5.30, digest §D6): the Coulomb cone
//! replaced by a polygon of `k` samples, and the contact law by the complementarity
//! `0 <= A y + b ⊥ y >= 0` over `y = (α, β, λ)`:
//!
//! ```text
//! A = [ W_NN     W_N D    0 ]      b = [ q_N     ]
//!     [ Dᵀ W_TN  Dᵀ W_TT D  E ]          [ Dᵀ q_T  ]
//!     [ I        −Eᵀ      0 ]          [ 0       ]
//! ```
//!
//! `α` are the normal impulses, `β_c` the `k` friction magnitudes of contact `c` along its
//! samples `d_cj`, and `λ_c` its sliding speed. The samples lie on the friction ellipse of unit
//! normal impulse, `d_cj = (μ_t cos θ_j, μ_b sin θ_j)`, so μ is folded into `D` and the Coulomb
//! row reads `α_c − Σ_j β_cj >= 0` where the thesis writes `μ_c α_c − Σ_j β_cj` with unit
//! samples (the same LCP with `β` scaled by μ). With `k` a multiple of 4 the samples include the
//! tangent axes.
//!
//! The LCP is the baselines' problem (Lemke, regularised PGS) and a diagnostic of any solver's
//! answer; the answer is always judged as well by the natural map of the exact cone.

use super::problem::{Csc, LocalProblem, csc_from_triplets};
use crate::friction::cone::Cone;
use faer::sparse::Triplet;

/// Samples of a friction polygon accepted from scenes and the command line: a triangle at
/// least, and no finer than 64 sides (the faceting error is then 0.1 %; finer only grows the LCP).
pub const SAMPLES: std::ops::RangeInclusive<usize> = 3..=64;

/// `k` samples per contact on the friction ellipse of unit normal impulse, `θ_j = 2π j / k`.
pub fn cone_samples(cones: &[Cone], k: usize) -> Vec<[f64; 2]> {
    let mut dirs = Vec::with_capacity(k * cones.len());
    for cone in cones {
        for j in 0..k {
            let th = j as f64 * std::f64::consts::TAU / k as f64;
            dirs.push([cone.mu_t * th.cos(), cone.mu_b * th.sin()]);
        }
    }
    dirs
}

/// Magnitudes on a contact's samples (a convex polygon's vertices, in angular order) whose sum
/// is the force `f`: `f` lies in the cone of two consecutive samples, and its components on
/// them are the unique non-negative pair. Zero for a zero force.
pub fn on_samples(f: [f64; 2], dirs: &[[f64; 2]]) -> Vec<f64> {
    let k = dirs.len();
    let mut beta = vec![0.0; k];
    if f == [0.0, 0.0] {
        return beta;
    }
    let cross = |a: [f64; 2], b: [f64; 2]| a[0] * b[1] - a[1] * b[0];
    for j in 0..k {
        let (a, b) = (dirs[j], dirs[(j + 1) % k]);
        let det = cross(a, b);
        // f = x a + y b with x, y >= 0 (Cramer's rule).
        let (x, y) = (cross(f, b) / det, cross(a, f) / det);
        if det > 0.0 && x >= 0.0 && y >= 0.0 {
            beta[j] = x;
            beta[(j + 1) % k] += y;
            break;
        }
    }
    beta
}

pub struct StewartTrinkle {
    pub nc: usize,
    pub k: usize,
    pub dirs: Vec<[f64; 2]>,
    /// The symmetric diagonal scaling `S` of the stored LCP: `A`, `b` below are `S A S`, `S b`
    /// and their unknowns `y' = S⁻¹ y` (see [`StewartTrinkle::equilibration`]).
    pub scale: Vec<f64>,
    /// `A`, by columns (Lemke) ...
    pub a: Csc,
    /// ... and by rows (`Aᵀ` by columns; Gauss–Seidel).
    pub rows: Csc,
    pub b: Vec<f64>,
}

/// LCP min-map residual `|min(y, A y + b)|`, absolute and relative to `max(|b|, |y|, |A y + b|)`.
#[derive(Clone, Copy, Debug)]
pub struct LcpResidual {
    pub abs: f64,
    pub rel: f64,
}

impl StewartTrinkle {
    pub fn new(p: &LocalProblem, k: usize) -> StewartTrinkle {
        let nc = p.nc();
        let dirs = cone_samples(&p.cones, k);
        let mut st = StewartTrinkle { nc, k, dirs, scale: Vec::new(), a: empty(), rows: empty(), b: Vec::new() };
        let n = st.n();
        let mut t = Vec::new();
        let bl = &p.blocks;
        for c in 0..nc {
            st.block(c, c, &bl.diag[c], &mut t);
            for e in bl.row_ptr[c]..bl.row_ptr[c + 1] {
                st.block(c, bl.col[e], &bl.val[e], &mut t);
            }
            for j in 0..k {
                t.push(Triplet::new(st.beta(c, j), st.lambda(c), 1.0));
                t.push(Triplet::new(st.lambda(c), st.beta(c, j), -1.0));
            }
            t.push(Triplet::new(st.lambda(c), st.alpha(c), 1.0));
        }
        st.scale = st.equilibration(&t);
        for e in &mut t {
            e.val *= st.scale[e.row] * st.scale[e.col];
        }
        st.a = csc_from_triplets(n, n, &t).expect("indices within the LCP");
        let tt: Vec<_> = t.iter().map(|e| Triplet::new(e.col, e.row, e.val)).collect();
        st.rows = csc_from_triplets(n, n, &tt).expect("indices within the LCP");
        let mut b = vec![0.0; n];
        for c in 0..nc {
            b[st.alpha(c)] = p.q[3 * c];
            for j in 0..k {
                let d = st.dirs[c * k + j];
                b[st.beta(c, j)] = d[0] * p.q[3 * c + 1] + d[1] * p.q[3 * c + 2];
            }
        }
        b.iter_mut().zip(&st.scale).for_each(|(b, s)| *b *= s);
        st.b = b;
        st
    }

    /// The entries of `A` from the block `W_cd` (row-major 3x3).
    fn block(&self, c: usize, d: usize, w: &[f64; 9], t: &mut Vec<Triplet<usize, usize, f64>>) {
        let k = self.k;
        let (dc, dd) = (&self.dirs[c * k..(c + 1) * k], &self.dirs[d * k..(d + 1) * k]);
        t.push(Triplet::new(self.alpha(c), self.alpha(d), w[0]));
        for (j, e) in dd.iter().enumerate() {
            t.push(Triplet::new(self.alpha(c), self.beta(d, j), w[1] * e[0] + w[2] * e[1]));
        }
        for (i, e) in dc.iter().enumerate() {
            t.push(Triplet::new(self.beta(c, i), self.alpha(d), e[0] * w[3] + e[1] * w[6]));
            for (j, f) in dd.iter().enumerate() {
                let wf = [w[4] * f[0] + w[5] * f[1], w[7] * f[0] + w[8] * f[1]];
                t.push(Triplet::new(self.beta(c, i), self.beta(d, j), e[0] * wf[0] + e[1] * wf[1]));
            }
        }
    }

    /// `S` that gives the impulse rows a unit diagonal, `s_i = 1/sqrt(A_ii)`, and each Coulomb
    /// row `s_λ = 1 / mean_j s_β` so that its coupling `E` to the friction rows is of order one.
    /// A symmetric diagonal scaling keeps the LCP (`y >= 0`, `A y + b >= 0` and their product
    /// are unchanged up to positive factors) and puts velocity rows and force rows on one scale:
    /// unscaled, a stack of 10 g boxes (Box_Stacks) has diagonals of 1e2 beside unit `E`
    /// entries, and the ratio tests of pivoting and the pivots of Gauss–Seidel suffer.
    fn equilibration(&self, t: &[Triplet<usize, usize, f64>]) -> Vec<f64> {
        let mut d = vec![0.0; self.n()];
        for e in t.iter().filter(|e| e.row == e.col) {
            d[e.row] += e.val;
        }
        let mut s: Vec<f64> = d.iter().map(|&x| if x > 0.0 { 1.0 / x.sqrt() } else { 1.0 }).collect();
        for c in 0..self.nc {
            let mean = (0..self.k).map(|j| s[self.beta(c, j)]).sum::<f64>() / self.k as f64;
            s[self.lambda(c)] = 1.0 / mean;
        }
        s
    }

    /// Number of LCP unknowns, `nc (k + 2)`.
    pub fn n(&self) -> usize {
        self.nc * (self.k + 2)
    }

    pub fn alpha(&self, c: usize) -> usize {
        c
    }

    pub fn beta(&self, c: usize, j: usize) -> usize {
        self.nc + c * self.k + j
    }

    pub fn lambda(&self, c: usize) -> usize {
        self.nc * (self.k + 1) + c
    }

    /// Contact impulses `r_c = (α_c, Σ_j β_cj d_cj)` of a (scaled) LCP vector.
    pub fn forces(&self, y: &[f64], r: &mut [f64]) {
        for c in 0..self.nc {
            let mut f = [0.0; 2];
            for j in 0..self.k {
                let i = self.beta(c, j);
                let (bj, d) = (y[i] * self.scale[i], self.dirs[c * self.k + j]);
                f = [f[0] + bj * d[0], f[1] + bj * d[1]];
            }
            r[3 * c..3 * c + 3].copy_from_slice(&[y[c] * self.scale[c], f[0], f[1]]);
        }
    }

    /// The LCP vector (scaled, as stored) of a contact answer `(r, u)`: `α = r_N`, `β` the
    /// components of `r_T` on the two samples around it, and `λ_c` the least slack that makes
    /// every friction row non-negative, `max(0, max_j −d_cj · u_T)`: 002's slip speed times μ.
    pub fn lcp_vector(&self, r: &[f64], u: &[f64]) -> Vec<f64> {
        let k = self.k;
        let mut y = vec![0.0; self.n()];
        for c in 0..self.nc {
            let dirs = &self.dirs[c * k..(c + 1) * k];
            y[self.alpha(c)] = r[3 * c];
            for (j, b) in on_samples([r[3 * c + 1], r[3 * c + 2]], dirs).into_iter().enumerate() {
                y[self.beta(c, j)] = b;
            }
            let ut = [u[3 * c + 1], u[3 * c + 2]];
            y[self.lambda(c)] = dirs.iter().map(|d| -(d[0] * ut[0] + d[1] * ut[1])).fold(0.0, f64::max);
        }
        y.iter_mut().zip(&self.scale).for_each(|(y, s)| *y /= s);
        y
    }

    /// 002's objective (5.32) at `(r, u)` with the LCP vector `y` of [`Self::lcp_vector`]:
    /// `rᵀ W r + rᵀ q + Σ_c μ_c λ_c α_c = rᵀ u + Σ_c λ'_c α_c` (μ folded into `λ'`). Zero at
    /// every solution of the polygon's Coulomb problem; its global minimum.
    pub fn objective(&self, r: &[f64], u: &[f64], y: &[f64]) -> f64 {
        let ru: f64 = r.iter().zip(u).map(|(a, b)| a * b).sum();
        let coulomb: f64 = (0..self.nc)
            .map(|c| y[self.lambda(c)] * self.scale[self.lambda(c)] * y[self.alpha(c)] * self.scale[self.alpha(c)])
            .sum();
        ru + coulomb
    }

    /// `A y + b` into `w`.
    pub fn slack(&self, y: &[f64], w: &mut [f64]) {
        w.copy_from_slice(&self.b);
        super::problem::csc_mul_add(&self.a, y, w);
    }

    pub fn residual(&self, y: &[f64]) -> LcpResidual {
        let mut w = vec![0.0; self.n()];
        self.slack(y, &mut w);
        let abs = w.iter().zip(y).map(|(w, y)| w.min(*y).powi(2)).sum::<f64>().sqrt();
        let norm = super::problem::norm2;
        let scale = norm(&self.b).max(norm(y)).max(norm(&w)).max(1e-300);
        LcpResidual { abs, rel: abs / scale }
    }
}

fn empty() -> Csc {
    csc_from_triplets(0, 0, &[]).expect("an empty matrix")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dfcp::residual::local_error_of;

    /// A 1 kg box on the floor (`W = I`), falling at 1 m/s and pushed along t at 0.3 m/s with
    /// μ = 0.5: every entry of the LCP follows from the definition, and the sticking answer
    /// (`r = (1, -0.3, 0)`: β = 0.6 on the sample opposite the push) solves it exactly.
    #[test]
    fn one_contact_layout_entries_and_a_solution() {
        let w = csc_from_triplets(3, 3, &(0..3).map(|i| Triplet::new(i, i, 1.0)).collect::<Vec<_>>()).unwrap();
        let p = LocalProblem::new(w, vec![-1.0, 0.3, 0.0], vec![Cone::isotropic(0.5).unwrap()]).unwrap();
        let st = StewartTrinkle::new(&p, 4);
        assert_eq!(st.n(), 6);
        // Equilibration: unit diagonals (W_NN = 1, sample rows 0.25), Coulomb row 1 / mean s_β.
        let s = [1.0, 2.0, 2.0, 2.0, 2.0, 0.5];
        assert_eq!(st.scale, s);
        let a = |i: usize, j: usize| {
            let a = st.a.as_ref();
            let stored = a.row_idx_of_col_raw(j).iter().position(|&r| r == i).map_or(0.0, |e| a.val_of_col(j)[e]);
            stored / (s[i] * s[j])
        };
        // Samples 0.5 (cos, sin) of 0, 90, 180, 270 degrees (exact to 1e-16).
        assert_eq!(a(0, 0), 1.0);
        assert_eq!(a(5, 0), 1.0);
        for j in 0..4 {
            assert_eq!(a(0, 1 + j), 0.0);
            assert_eq!(a(1 + j, 5), 1.0);
            assert_eq!(a(5, 1 + j), -1.0);
            for i in 0..4 {
                let want = 0.25 * ((i as f64 - j as f64) * std::f64::consts::FRAC_PI_2).cos();
                assert!((a(1 + i, 1 + j) - want).abs() < 1e-16, "({i}, {j})");
            }
        }
        let want_b = [-1.0, 0.15, 0.0, -0.15, 0.0, 0.0];
        assert!(st.b.iter().zip(want_b).zip(s).all(|((b, w), s)| (b / s - w).abs() < 1e-16), "{:?}", st.b);
        let y = [1.0, 0.0, 0.0, 0.6, 0.0, 0.0];
        let y: Vec<f64> = y.iter().zip(s).map(|(y, s)| y / s).collect();
        assert!(st.residual(&y).abs < 1e-15);
        let mut r = [0.0; 3];
        st.forces(&y, &mut r);
        assert!((r[0] - 1.0).abs() < 1e-16 && (r[1] + 0.3).abs() < 1e-16 && r[2].abs() < 1e-16, "{r:?}");
        assert!(local_error_of(&p, &r).rel < 1e-15);
    }

    /// A force inside, on and outside the octagon (and on a sample) is rebuilt from its two
    /// non-negative components to rounding; a zero force has none.
    #[test]
    fn forces_decompose_on_the_two_samples_around_them() {
        let cone = crate::friction::cone::Cone::elliptic(0.5, 0.3).unwrap();
        let dirs = cone_samples(&[cone], 8);
        for f in [[0.1, 0.02], [-0.3, 0.25], [0.0, -0.3], [0.5, 0.0], [-2.0, -1.0]] {
            let b = on_samples(f, &dirs);
            assert!(b.iter().all(|&x| x >= 0.0) && b.iter().filter(|&&x| x > 0.0).count() <= 2, "{b:?}");
            let g = b.iter().zip(&dirs).fold([0.0; 2], |g, (x, d)| [g[0] + x * d[0], g[1] + x * d[1]]);
            assert!((g[0] - f[0]).abs() < 1e-15 && (g[1] - f[1]).abs() < 1e-15, "{f:?} -> {g:?}");
        }
        assert!(on_samples([0.0, 0.0], &dirs).iter().all(|&x| x == 0.0));
    }
}
