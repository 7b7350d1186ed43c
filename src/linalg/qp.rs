//! A small, robust solver for convex QPs over products of simple sets:
//! `min 1/2 x^T H x + g^T x + rho/2 |x - c|^2` subject to `x in C_1 x ... x C_m`, where each block
//! set has an exact Euclidean projection (non-negative orthant, disc, ellipse, capped simplex).
//!
//! Method: accelerated projected gradient (FISTA) with gradient-based adaptive restart
//! (O'Donoghue & Candès 2015), step `1/L`. `H` is only applied (matrix-free: dense or sparse, the
//! caller's choice), so the same code serves small dense and large sparse problems. The proximal
//! term `rho/2 |x - c|^2` makes rank-deficient Hessians (the friction QP of 002, redundant contact
//! normals) strongly convex, which gives linear convergence; with the centre `c` at the previous
//! outer iterate it does not move the fixed point of an outer loop (staggered projections).
//! Stopping: the fixed-point residual `|x - P(x - grad/L)|_inf <= tol * max(|x|_inf, scale)`.
// Numeric kernels index several parallel arrays with one counter; iterator zips would hide that.
#![allow(clippy::needless_range_loop)]

/// The QP data: gradient of the smooth part and projection onto the constraint set.
pub trait QpOracle {
    fn n(&self) -> usize;
    /// `out = H x + g`.
    fn grad(&mut self, x: &[f64], out: &mut [f64]);
    /// Project `x` onto the constraint set, in place.
    fn project(&self, x: &mut [f64]);
}

#[derive(Clone, Debug)]
pub struct ApgOptions {
    pub tol: f64,
    pub max_iter: usize,
    /// Upper bound of the largest eigenvalue of `H` (see [`power_lipschitz`]).
    pub lipschitz: f64,
    /// Proximal weight and centre.
    pub rho: f64,
    /// Scale used in the stopping rule when `x` is near zero.
    pub scale: f64,
}

#[derive(Clone, Debug)]
pub struct ApgReport {
    pub converged: bool,
    pub iterations: usize,
    pub restarts: usize,
    pub residual: f64,
}

/// Work buffers (reused across calls to avoid allocation in the outer loop).
#[derive(Default)]
pub struct ApgWork {
    y: Vec<f64>,
    g: Vec<f64>,
    x_old: Vec<f64>,
}

/// Minimise from the warm start `x` (projected first). `centre` is the proximal centre (used if
/// `opts.rho > 0`).
pub fn solve_apg<O: QpOracle>(
    o: &mut O,
    x: &mut [f64],
    centre: &[f64],
    opts: &ApgOptions,
    w: &mut ApgWork,
) -> ApgReport {
    let n = o.n();
    w.y.resize(n, 0.0);
    w.g.resize(n, 0.0);
    w.x_old.resize(n, 0.0);
    o.project(x);
    w.y.copy_from_slice(x);
    let l = opts.lipschitz + opts.rho;
    let step = 1.0 / l;
    let mut t = 1.0f64;
    let mut restarts = 0;
    let mut residual = f64::INFINITY;
    for k in 1..=opts.max_iter {
        o.grad(&w.y, &mut w.g);
        if opts.rho > 0.0 {
            for i in 0..n {
                w.g[i] += opts.rho * (w.y[i] - centre[i]);
            }
        }
        w.x_old.copy_from_slice(x);
        for i in 0..n {
            x[i] = w.y[i] - step * w.g[i];
        }
        o.project(x);
        // Fixed-point residual at y (the gradient-mapping norm divided by L).
        let mut res = 0.0f64;
        let mut xn = 0.0f64;
        let mut restart_dot = 0.0;
        for i in 0..n {
            res = res.max((x[i] - w.y[i]).abs());
            xn = xn.max(x[i].abs());
            restart_dot += (w.y[i] - x[i]) * (x[i] - w.x_old[i]);
        }
        residual = res / xn.max(opts.scale).max(1e-300);
        if residual <= opts.tol {
            return ApgReport { converged: true, iterations: k, restarts, residual };
        }
        if !residual.is_finite() {
            break;
        }
        if restart_dot > 0.0 {
            // Momentum points uphill: restart from the current iterate.
            t = 1.0;
            restarts += 1;
            w.y.copy_from_slice(x);
            continue;
        }
        let t_new = 0.5 * (1.0 + (1.0 + 4.0 * t * t).sqrt());
        let beta = (t - 1.0) / t_new;
        for i in 0..n {
            w.y[i] = x[i] + beta * (x[i] - w.x_old[i]);
        }
        t = t_new;
    }
    ApgReport { converged: false, iterations: opts.max_iter, restarts, residual }
}

/// Estimate `lambda_max` of the symmetric part of the operator `apply` (power iteration from a
/// fixed start, 30 steps, inflated by 5%: the step `1/L` must not exceed `1/lambda_max`).
pub fn power_lipschitz(n: usize, mut apply: impl FnMut(&[f64], &mut [f64])) -> f64 {
    if n == 0 {
        return 1.0;
    }
    let mut x: Vec<f64> = (0..n).map(|i| 1.0 + ((i * 7919) % 13) as f64 * 0.1).collect();
    let mut y = vec![0.0; n];
    let mut lam = 0.0;
    for _ in 0..30 {
        let nx = x.iter().map(|v| v * v).sum::<f64>().sqrt();
        if nx == 0.0 {
            return 1.0;
        }
        x.iter_mut().for_each(|v| *v /= nx);
        apply(&x, &mut y);
        lam = x.iter().zip(&y).map(|(a, b)| a * b).sum::<f64>();
        std::mem::swap(&mut x, &mut y);
    }
    let nx = x.iter().map(|v| v * v).sum::<f64>().sqrt();
    1.05 * nx.max(lam).max(f64::MIN_POSITIVE)
}

/// Projection onto `{x >= 0, sum x <= cap}` (capped simplex), in place.
pub fn project_capped_simplex(x: &mut [f64], cap: f64) {
    let cap = cap.max(0.0);
    let s: f64 = x.iter().map(|v| v.max(0.0)).sum();
    if s <= cap {
        x.iter_mut().for_each(|v| *v = v.max(0.0));
        return;
    }
    // Project onto {x >= 0, sum x = cap}: find theta with sum max(x - theta, 0) = cap (sort-free
    // bisection on theta would be fine too; k is small, so sort a copy on the stack).
    let mut buf = [0.0f64; 64];
    let k = x.len().min(64);
    buf[..k].copy_from_slice(&x[..k]);
    buf[..k].sort_unstable_by(|a, b| b.total_cmp(a));
    let mut acc = 0.0;
    let mut theta = 0.0;
    for i in 0..k {
        acc += buf[i];
        let th = (acc - cap) / (i + 1) as f64;
        if i + 1 == k || buf[i + 1] <= th {
            theta = th;
            break;
        }
    }
    x.iter_mut().for_each(|v| *v = (*v - theta).max(0.0));
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Dense 2x2 QP with a known active constraint.
    struct Dense {
        h: [[f64; 2]; 2],
        g: [f64; 2],
    }
    impl QpOracle for Dense {
        fn n(&self) -> usize {
            2
        }
        fn grad(&mut self, x: &[f64], o: &mut [f64]) {
            for i in 0..2 {
                o[i] = self.h[i][0] * x[0] + self.h[i][1] * x[1] + self.g[i];
            }
        }
        fn project(&self, x: &mut [f64]) {
            x.iter_mut().for_each(|v| *v = v.max(0.0));
        }
    }

    #[test]
    fn bound_constrained_qp() {
        // min 1/2 x^T H x + g^T x, x >= 0 with H = [[2,1],[1,2]], g = (-2, 1): x = (1, 0).
        let mut o = Dense { h: [[2.0, 1.0], [1.0, 2.0]], g: [-2.0, 1.0] };
        let mut x = [5.0, 5.0];
        let opts = ApgOptions { tol: 1e-14, max_iter: 10_000, lipschitz: 3.0, rho: 0.0, scale: 1.0 };
        let rep = solve_apg(&mut o, &mut x, &[0.0; 2], &opts, &mut ApgWork::default());
        assert!(rep.converged);
        // Fixed-point residual 1e-14 with condition number 3: error of the same order.
        assert!((x[0] - 1.0).abs() < 1e-12 && x[1] == 0.0, "{x:?}");
    }

    #[test]
    fn singular_hessian_with_proximal_term_keeps_solution() {
        // H = [[1,1],[1,1]] (rank 1), g = (-1,-1): every x >= 0 with x0 + x1 = 1 is optimal. The
        // proximal iteration from c converges to the solution closest to c.
        let mut o = Dense { h: [[1.0, 1.0], [1.0, 1.0]], g: [-1.0, -1.0] };
        let mut x = [0.0, 0.0];
        let mut c = [0.9, 0.9];
        let opts = ApgOptions { tol: 1e-14, max_iter: 10_000, lipschitz: 2.0, rho: 0.1, scale: 1.0 };
        let mut w = ApgWork::default();
        for _ in 0..200 {
            solve_apg(&mut o, &mut x, &c, &opts, &mut w);
            c = x;
        }
        assert!((x[0] + x[1] - 1.0).abs() < 1e-10 && (x[0] - 0.5).abs() < 1e-10, "{x:?}");
    }

    #[test]
    fn capped_simplex_projection() {
        let mut x = [0.2, -1.0, 0.3];
        project_capped_simplex(&mut x, 1.0);
        assert_eq!(x, [0.2, 0.0, 0.3]);
        let mut x = [2.0, 1.0, -1.0];
        project_capped_simplex(&mut x, 1.0);
        // theta = 1: (1, 0, 0).
        assert!((x[0] - 1.0).abs() < 1e-15 && x[1] == 0.0 && x[2] == 0.0);
        let mut x = [1.0, 1.0, 1.0, 1.0];
        project_capped_simplex(&mut x, 2.0);
        assert!(x.iter().all(|v| (v - 0.5).abs() < 1e-15));
    }
}

/// Outcome of [`solve_lcp_active_set`].
#[derive(Clone, Debug)]
pub struct ActiveSetReport {
    pub converged: bool,
    pub iterations: usize,
}

/// Dense primal active-set method (Lawson–Hanson style) for `0 <= x ⊥ H x + g >= 0`, i.e. the
/// bound-constrained QP `min 1/2 x^T H x + g^T x, x >= 0` when `H` is symmetric positive definite
/// (the caller adds the proximal `rho I`; a slightly non-symmetric `H` with positive-definite
/// symmetric part, as Capsules' Delassus matrix, is handled by LU). Finite for SPD `H`; each
/// iteration factorises the free block. `x` is the warm start (its support is the first free
/// set) and the result. Work is O(k n_F^3) with `k` active-set changes: for small problems only.
pub fn solve_lcp_active_set(h: &faer::Mat<f64>, g: &[f64], x: &mut [f64], max_iter: usize) -> ActiveSetReport {
    let n = g.len();
    let scale = g.iter().fold(0.0f64, |m, v| m.max(v.abs())).max(f64::MIN_POSITIVE);
    let tol = 1e-13 * scale;
    let mut free: Vec<bool> = x.iter().map(|&v| v > 0.0).collect();
    x.iter_mut().for_each(|v| *v = v.max(0.0));
    let mut idx: Vec<usize> = Vec::with_capacity(n);
    let mut z = vec![0.0; n];
    // The free block and its solve reuse these buffers (no allocation per active-set change).
    let mut hf = faer::Mat::<f64>::zeros(n, n);
    let mut rhs = vec![0.0; n];
    let mut lu = crate::linalg::dense_lu::DenseLu::new(n);
    for it in 1..=max_iter {
        // Solve the free block with the bound variables at zero: H_FF z_F = -g_F.
        idx.clear();
        idx.extend((0..n).filter(|&i| free[i]));
        let k = idx.len();
        z.iter_mut().for_each(|v| *v = 0.0);
        if k > 0 {
            let mut block = hf.as_mut().submatrix_mut(0, 0, k, k);
            for (b, &j) in idx.iter().enumerate() {
                for (a, &i) in idx.iter().enumerate() {
                    block[(a, b)] = h[(i, j)];
                }
            }
            for (a, &i) in idx.iter().enumerate() {
                rhs[a] = -g[i];
            }
            lu.factor_and_solve(block, &mut rhs[..k]);
            for (a, &i) in idx.iter().enumerate() {
                z[i] = rhs[a];
            }
            if z.iter().any(|v| !v.is_finite()) {
                return ActiveSetReport { converged: false, iterations: it };
            }
        }
        // If some free variable went negative, step from x towards z until the first one hits 0
        // and bind it (keeps x feasible, the objective decreases for SPD H).
        let mut alpha = 1.0f64;
        for &i in &idx {
            if z[i] < 0.0 {
                let d = x[i] - z[i];
                if d > 0.0 {
                    alpha = alpha.min(x[i] / d);
                }
            }
        }
        for &i in &idx {
            x[i] += alpha * (z[i] - x[i]);
        }
        if alpha < 1.0 {
            for &i in &idx {
                if x[i] <= 0.0 || z[i] < 0.0 && x[i] <= 1e-15 * scale {
                    x[i] = 0.0;
                    free[i] = false;
                }
            }
            continue;
        }
        // z is feasible: check the multipliers of the bound variables, free the most negative.
        let mut worst = (0.0f64, usize::MAX);
        for i in (0..n).filter(|&i| !free[i]) {
            let mut w = g[i];
            for &j in &idx {
                w += h[(i, j)] * x[j];
            }
            if w < worst.0 - tol {
                worst = (w, i);
            }
        }
        if worst.1 == usize::MAX {
            return ActiveSetReport { converged: true, iterations: it };
        }
        free[worst.1] = true;
    }
    ActiveSetReport { converged: false, iterations: max_iter }
}

#[cfg(test)]
mod active_set_tests {
    use super::*;

    #[test]
    fn active_set_matches_apg_on_random_spd() {
        // Deterministic SPD H = A A^T + 0.1 I (n = 30), mixed-sign g: compare with APG to 1e-10.
        let n = 30;
        let mut seed = 7u64;
        let mut rnd = || {
            seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            ((seed >> 11) as f64 / (1u64 << 53) as f64) * 2.0 - 1.0
        };
        let a: Vec<f64> = (0..n * n).map(|_| rnd()).collect();
        let h = faer::Mat::<f64>::from_fn(n, n, |i, j| {
            (0..n).map(|k| a[i * n + k] * a[j * n + k]).sum::<f64>() + if i == j { 0.1 } else { 0.0 }
        });
        let g: Vec<f64> = (0..n).map(|_| 3.0 * rnd()).collect();
        let mut x = vec![0.0; n];
        let rep = solve_lcp_active_set(&h, &g, &mut x, 200);
        assert!(rep.converged);
        // Complementarity to round-off of the 30x30 solves.
        for i in 0..n {
            let w: f64 = g[i] + (0..n).map(|j| h[(i, j)] * x[j]).sum::<f64>();
            assert!(x[i] >= 0.0 && w >= -1e-10 && (x[i] * w).abs() <= 1e-10, "{i}: x {} w {w}", x[i]);
        }
        struct D<'a>(&'a faer::Mat<f64>, &'a [f64]);
        impl QpOracle for D<'_> {
            fn n(&self) -> usize {
                self.1.len()
            }
            fn grad(&mut self, x: &[f64], o: &mut [f64]) {
                for i in 0..x.len() {
                    o[i] = self.1[i] + (0..x.len()).map(|j| self.0[(i, j)] * x[j]).sum::<f64>();
                }
            }
            fn project(&self, x: &mut [f64]) {
                x.iter_mut().for_each(|v| *v = v.max(0.0));
            }
        }
        let mut y = vec![0.0; n];
        let l = power_lipschitz(n, |v, o| {
            for i in 0..n {
                o[i] = (0..n).map(|j| h[(i, j)] * v[j]).sum();
            }
        });
        let opts = ApgOptions { tol: 1e-14, max_iter: 200_000, lipschitz: l, rho: 0.0, scale: 1.0 };
        assert!(solve_apg(&mut D(&h, &g), &mut y, &[0.0; 30], &opts, &mut ApgWork::default()).converged);
        // APG's fixed-point residual 1e-14 times the condition number (~1e3) bounds its error.
        assert!(x.iter().zip(&y).all(|(a, b)| (a - b).abs() < 1e-9));
    }
}
