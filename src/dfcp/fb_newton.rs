//! Fischer–Burmeister second-order-cone nonsmooth Newton method on the local form.
//!
//! Per contact with `mu > 0`, `x = (mu r_N, r_T)` and `y = (û_N/mu, û_T)` with the De Saxcé
//! velocity `û = u + (mu|u_T|, 0, 0)`: `x, y` lie in the self-dual unit cone and `x . y = r . û`,
//! so the Coulomb law is `phi(x, y) = x + y - sqrt(x∘x + y∘y) = 0` (Jordan algebra of the
//! Lorentz cone). Frictionless contacts use the scalar FB function on `(r_N, u_N)` and `r_T = 0`.
//! The generalized Jacobian is assembled per block, the Newton system is solved by dense LU (or
//! sparse LU for large problems), and a non-monotone Armijo line search on `|Phi|^2/2` globalises
//! it (gradient step when the Newton direction fails). Elliptic cones are handled by the exact
//! scaling to an isotropic problem. The stopping rule is the natural-map error, not `|Phi|`.
// Numeric kernels index several parallel arrays with one counter; iterator zips would hide that.
#![allow(clippy::needless_range_loop)]

use super::problem::LocalProblem;
use super::residual::local_error;
use super::solver::{SolveReport, SolverOptions, check_buffers};
use crate::friction::cone::hyp;
use crate::linalg::dense_lu::DenseLu;
use faer::Mat;
use faer::linalg::solvers::Solve;
use faer::sparse::linalg::solvers::{Lu, SymbolicLu};
use faer::sparse::{Pair, SymbolicSparseColMat};
use std::time::Instant;

type M3 = [[f64; 3]; 3];

/// `sqrt(z)` in the Jordan algebra of the Lorentz cone (`z` in the cone).
fn soc_sqrt(z: [f64; 3]) -> [f64; 3] {
    let nb = hyp(z[1], z[2]);
    let l1 = (z[0] - nb).max(0.0).sqrt();
    let l2 = (z[0] + nb).max(0.0).sqrt();
    let (e1, e2) = if nb > 0.0 { (z[1] / nb, z[2] / nb) } else { (1.0, 0.0) };
    let h = 0.5 * (l2 - l1);
    [0.5 * (l1 + l2), h * e1, h * e2]
}

fn arrow(x: &[f64; 3]) -> M3 {
    [[x[0], x[1], x[2]], [x[1], x[0], 0.0], [x[2], 0.0, x[0]]]
}

fn mul3(a: &M3, b: &M3) -> M3 {
    let mut c = [[0.0; 3]; 3];
    for i in 0..3 {
        for j in 0..3 {
            c[i][j] = a[i][0] * b[0][j] + a[i][1] * b[1][j] + a[i][2] * b[2][j];
        }
    }
    c
}

/// Inverse of the arrow matrix `L_w` (requires `w0 > |w̄|`).
fn arrow_inv(w: &[f64; 3]) -> Option<M3> {
    let (w0, a, b) = (w[0], w[1], w[2]);
    let d = w0 * w0 - a * a - b * b;
    if !(w0 > 0.0 && d > 1e-300 && d > 1e-28 * w0 * w0) {
        return None;
    }
    // L^{-1} = 1/(w0 d) [[w0^2, -w0 w̄ᵀ], [-w0 w̄, d I + w̄ w̄ᵀ]]
    let k = 1.0 / (w0 * d);
    Some([
        [k * w0 * w0, -k * w0 * a, -k * w0 * b],
        [-k * w0 * a, k * (d + a * a), k * a * b],
        [-k * w0 * b, k * a * b, k * (d + b * b)],
    ])
}

/// FB value and the Jacobians `(A_x, A_y)` at `(x, y)`.
fn fb(x: &[f64; 3], y: &[f64; 3]) -> ([f64; 3], M3, M3) {
    let z = [
        x[0] * x[0] + x[1] * x[1] + x[2] * x[2] + y[0] * y[0] + y[1] * y[1] + y[2] * y[2],
        2.0 * (x[0] * x[1] + y[0] * y[1]),
        2.0 * (x[0] * x[2] + y[0] * y[2]),
    ];
    let w = soc_sqrt(z);
    let phi = [x[0] + y[0] - w[0], x[1] + y[1] - w[1], x[2] + y[2] - w[2]];
    // Jacobian: I - L_w^{-1} L_x (and y). At the non-differentiable points (w on the cone
    // boundary) use the Jacobian at the point regularised by an O(eps) shift of z along e, a
    // limit of Jacobians of nearby differentiable points.
    let linv = arrow_inv(&w).or_else(|| {
        let eps = 1e-10 * z[0].max(1e-300);
        arrow_inv(&soc_sqrt([z[0] + eps, z[1], z[2]]))
    });
    let (ax, ay) = match linv {
        Some(li) => {
            let mut ax = mul3(&li, &arrow(x));
            let mut ay = mul3(&li, &arrow(y));
            for i in 0..3 {
                for j in 0..3 {
                    let id = if i == j { 1.0 } else { 0.0 };
                    ax[i][j] = id - ax[i][j];
                    ay[i][j] = id - ay[i][j];
                }
            }
            (ax, ay)
        }
        None => {
            // x = y = 0: the scalar FB B-subdifferential element along the diagonal direction.
            let c = 1.0 - std::f64::consts::FRAC_1_SQRT_2;
            let d = [[c, 0.0, 0.0], [0.0, c, 0.0], [0.0, 0.0, c]];
            (d, d)
        }
    };
    (phi, ax, ay)
}

/// Scalar FB `a + b - sqrt(a^2 + b^2)` and its partials.
fn fb_scalar(a: f64, b: f64) -> (f64, f64, f64) {
    let n = hyp(a, b);
    if n == 0.0 {
        let c = 1.0 - std::f64::consts::FRAC_1_SQRT_2;
        return (0.0, c, c);
    }
    (a + b - n, 1.0 - a / n, 1.0 - b / n)
}

/// Per contact: `Phi_c`, and the blocks `J_cc^own` (multiplying `dr_c`) and `A_c` (multiplying
/// `du_c`).
///
/// `rho > 0` scales the force to velocity units (`x = rho (mu r_N, r_T)`): the cone conditions
/// are invariant under it, so the zeros of `Phi` are unchanged, but mixing forces of 5e5 with
/// velocities of 1 (PerioBox) otherwise makes the FB function badly scaled.
fn contact_fb(r: &[f64], u: &[f64], mu: f64, rho: f64) -> ([f64; 3], M3, M3) {
    if mu == 0.0 {
        let (p, da, db) = fb_scalar(rho * r[0], u[0]);
        let own = [[rho * da, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]];
        let a = [[db, 0.0, 0.0], [0.0; 3], [0.0; 3]];
        return ([p, r[1], r[2]], own, a);
    }
    let ut = hyp(u[1], u[2]);
    let x = [rho * mu * r[0], rho * r[1], rho * r[2]];
    let y = [(u[0] + mu * ut) / mu, u[1], u[2]];
    let (phi, ax, ay) = fb(&x, &y);
    let (t1, t2) = if ut > 0.0 { (u[1] / ut, u[2] / ut) } else { (0.0, 0.0) };
    let g = [[1.0 / mu, t1, t2], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]];
    let mut own = ax;
    for row in own.iter_mut() {
        row[0] *= rho * mu;
        row[1] *= rho;
        row[2] *= rho;
    }
    (phi, own, mul3(&ay, &g))
}

struct Fb<'a> {
    p: &'a LocalProblem,
    /// Force-to-velocity scale per contact. One value for all contacts, the mean diagonal of W
    /// (measured: PerioBox 2619 -> 25 iterations, BoxesStack 646 -> 48; Capsules, whose path is
    /// erratic under any scaling, 30 -> 776; a per-contact scale gave 52 / 50 / 432).
    rho: Vec<f64>,
    u: Vec<f64>,
    phi: Vec<f64>,
}

impl Fb<'_> {
    /// Evaluate `Phi(r)` (and `u`); returns `|Phi|^2 / 2`.
    fn merit(&mut self, r: &[f64]) -> f64 {
        self.p.velocity(r, &mut self.u);
        let mut s = 0.0;
        for (c, k) in self.p.cones.iter().enumerate() {
            let (phi, _, _) = contact_fb(&r[3 * c..3 * c + 3], &self.u[3 * c..3 * c + 3], k.mu_t, self.rho[c]);
            self.phi[3 * c..3 * c + 3].copy_from_slice(&phi);
            s += phi.iter().map(|v| v * v).sum::<f64>();
        }
        0.5 * s
    }

    /// Visit the Jacobian entries at `r` (requires `merit(r)` evaluated first).
    /// `shift` is added to the diagonal.
    fn jacobian(&self, r: &[f64], shift: f64, mut emit: impl FnMut(usize, usize, f64)) {
        let b = &self.p.blocks;
        for (c, k) in self.p.cones.iter().enumerate() {
            let (_, own, a) = contact_fb(&r[3 * c..3 * c + 3], &self.u[3 * c..3 * c + 3], k.mu_t, self.rho[c]);
            let mut diag = own;
            let wcc = &b.diag[c];
            for i in 0..3 {
                for j in 0..3 {
                    diag[i][j] += a[i][0] * wcc[j] + a[i][1] * wcc[3 + j] + a[i][2] * wcc[6 + j];
                }
                diag[i][i] += shift;
            }
            for (i, row) in diag.iter().enumerate() {
                for (j, v) in row.iter().enumerate() {
                    emit(3 * c + i, 3 * c + j, *v);
                }
            }
            for kk in b.row_ptr[c]..b.row_ptr[c + 1] {
                let d = b.col[kk];
                let w = &b.val[kk];
                for i in 0..3 {
                    for j in 0..3 {
                        let v = a[i][0] * w[j] + a[i][1] * w[3 + j] + a[i][2] * w[6 + j];
                        emit(3 * c + i, 3 * d + j, v);
                    }
                }
            }
        }
    }
}

/// Dense LU is used up to this many unknowns; sparse LU above (measured: at 144 unknowns dense
/// is 2x faster, at 858 sparse is 60x faster).
pub(crate) const DENSE_MAX: usize = 600;

/// Solve the local problem. `r` is the warm start and the result; `u` receives `W r + q`.
pub fn solve(p: &LocalProblem, r: &mut [f64], u: &mut [f64], opts: &SolverOptions) -> SolveReport {
    const NAME: &str = "fb";
    let n = 3 * p.nc();
    if let Some(rep) = check_buffers(NAME, n, r, u) {
        return rep;
    }
    if let Some((ps, s)) = p.scaled_isotropic() {
        return super::isotropic::solve_scaled(p, &ps, &s, r, u, opts, NAME, solve);
    }
    let start = Instant::now();
    let rho_all = p.mean_diagonal();
    let rho = vec![rho_all; p.nc()];
    let mut st = Fb { p, rho, u: vec![0.0; n], phi: vec![0.0; n] };
    let mut trial = vec![0.0; n];
    let mut dir = vec![0.0; n];
    let mut psi = st.merit(r);
    let mut history = [psi; 10]; // non-monotone reference (Grippo–Lampariello–Lucidi, memory 10)
    let mut dense = (n <= DENSE_MAX).then(|| (Mat::<f64>::zeros(n, n), DenseLu::new(n)));
    // Sparse path: the Jacobian's pattern (blocks of W plus the diagonal) and entry order are
    // the same at every iteration, so the pattern, its argsort and the symbolic LU are built once.
    let mut sparse: Option<SparseJac> = None;
    let mut vals: Vec<f64> = Vec::new();
    let (mut it, mut gradient_steps, mut failed_ls, mut shifted) = (0usize, 0usize, 0usize, 0usize);
    let mut jd = vec![0.0; n];
    let mut err = local_error(p, r, &st.u);
    let mut best = (r.to_vec(), err.rel);
    let mut reason = "iteration limit";
    while it < opts.max_iter {
        if let Some(why) = opts.stop_reason(err.rel, start) {
            reason = why;
            break;
        }
        it += 1;
        // Newton direction (J + shift I) d = -Phi: exact Newton first; if the matrix is singular
        // (degenerate FB points near the solution) retry with a small diagonal shift, a
        // Levenberg–Marquardt-like regularisation.
        let jmax = {
            let mut m = 0.0f64;
            st.jacobian(r, 0.0, |_, _, v| m = m.max(v.abs()));
            m.max(f64::MIN_POSITIVE)
        };
        let mut ok = false;
        for shift in [0.0, 1e-10 * jmax, 1e-6 * jmax] {
            match dense.as_mut() {
                Some((j, lu)) => {
                    j.fill(0.0);
                    st.jacobian(r, shift, |a, b, v| j[(a, b)] += v);
                    for (d, p) in dir.iter_mut().zip(&st.phi) {
                        *d = -p;
                    }
                    lu.factor_and_solve(j.as_mut(), &mut dir);
                    ok = dir.iter().all(|v| v.is_finite());
                }
                None => {
                    if sparse.is_none() {
                        sparse = SparseJac::new(&st, r, n);
                    }
                    if let Some(sj) = sparse.as_ref() {
                        vals.clear();
                        st.jacobian(r, shift, |_, _, v| vals.push(v));
                        if let Ok(jm) =
                            faer::sparse::SparseColMat::new_from_argsort(sj.pattern.clone(), &sj.argsort, &vals)
                            && let Ok(lu) = Lu::try_new_with_symbolic(sj.symbolic.clone(), jm.as_ref())
                        {
                            let mut rhs = Mat::<f64>::from_fn(n, 1, |i, _| -st.phi[i]);
                            lu.solve_in_place(rhs.as_mut());
                            for (i, d) in dir.iter_mut().enumerate() {
                                *d = rhs[(i, 0)];
                            }
                            ok = dir.iter().all(|v| v.is_finite());
                        }
                    }
                }
            }
            if ok {
                break;
            }
            shifted += 1;
        }
        // Slope of psi = |Phi|^2/2 along dir: Phi . (J dir). Steepest descent -J^T Phi if the
        // direction is unusable or not a descent direction.
        let mut slope = f64::NAN;
        if ok {
            jd.iter_mut().for_each(|v| *v = 0.0);
            st.jacobian(r, 0.0, |a, b, v| jd[a] += v * dir[b]);
            slope = jd.iter().zip(&st.phi).map(|(a, b)| a * b).sum::<f64>();
        }
        if !(ok && slope < 0.0) {
            gradient_steps += 1;
            jt_phi(&st, r, &mut dir);
            let g2: f64 = dir.iter().map(|v| v * v).sum();
            dir.iter_mut().for_each(|v| *v = -*v);
            slope = -g2;
        }
        let reference = history.iter().copied().fold(f64::MIN, f64::max);
        let mut t = 1.0;
        let mut accepted = false;
        for _ in 0..40 {
            for i in 0..n {
                trial[i] = r[i] + t * dir[i];
            }
            let pt = st.merit(&trial);
            if pt.is_finite() && pt <= reference + 1e-4 * t * slope {
                psi = pt;
                accepted = true;
                break;
            }
            t *= 0.5;
        }
        if !accepted {
            // Take the smallest step anyway to escape; recorded in the report.
            failed_ls += 1;
            psi = st.merit(&trial);
        }
        r.copy_from_slice(&trial);
        history.rotate_right(1);
        history[0] = psi;
        err = local_error(p, r, &st.u);
        if !err.natmap_abs.is_finite() {
            reason = "diverged (non-finite iterate)";
            break;
        }
        if err.rel < best.1 {
            best.0.copy_from_slice(r);
            best.1 = err.rel;
        }
    }
    // The FB merit and the natural map disagree far from a solution: a failed solve returns the
    // iterate with the smallest natural-map error it met, never one worse than its warm start.
    if err.rel.is_nan() || err.rel > best.1 {
        r.copy_from_slice(&best.0);
        p.velocity(r, &mut st.u);
        err = local_error(p, r, &st.u);
    }
    u.copy_from_slice(&st.u);
    SolveReport::finish(
        NAME,
        &err,
        opts,
        it,
        start,
        reason,
        format_args!(
            "{gradient_steps} gradient steps, {shifted} shifted Newton systems, {failed_ls} failed line searches"
        ),
    )
}

/// Fixed sparsity pattern of the Newton matrix with its symbolic LU.
struct SparseJac {
    pattern: SymbolicSparseColMat<usize>,
    argsort: faer::sparse::Argsort<usize>,
    symbolic: SymbolicLu<usize>,
}

impl SparseJac {
    fn new(st: &Fb<'_>, r: &[f64], n: usize) -> Option<Self> {
        let mut pairs = Vec::new();
        st.jacobian(r, 0.0, |a, b, _| pairs.push(Pair::new(a, b)));
        let (pattern, argsort) = SymbolicSparseColMat::try_new_from_indices(n, n, &pairs).ok()?;
        let symbolic = SymbolicLu::try_new(pattern.as_ref()).ok()?;
        Some(SparseJac { pattern, argsort, symbolic })
    }
}

/// `out = J^T Phi` at `r`.
fn jt_phi(st: &Fb<'_>, r: &[f64], out: &mut [f64]) {
    out.iter_mut().for_each(|v| *v = 0.0);
    st.jacobian(r, 0.0, |a, b, v| out[b] += v * st.phi[a]);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dfcp::problem::Csc;
    use crate::friction::cone::Cone;
    use faer::sparse::Triplet;

    /// The assembled generalized Jacobian equals central finite differences of Phi at a point
    /// where Phi is differentiable (all contacts strictly sliding/separating, u_T != 0).
    #[test]
    fn jacobian_matches_finite_differences() {
        let nc = 3;
        let n = 3 * nc;
        // A non-symmetric, diagonally dominant W with coupling between contacts.
        let mut t = Vec::new();
        for i in 0..n {
            for j in 0..n {
                let v = if i == j { 2.0 + 0.3 * i as f64 } else { 0.1 * ((i * 7 + j * 3) % 5) as f64 - 0.2 };
                t.push(Triplet::new(i, j, v));
            }
        }
        let w = Csc::try_new_from_triplets(n, n, &t).unwrap();
        let q: Vec<f64> = (0..n).map(|i| ((i * 37 % 11) as f64 - 5.0) * 0.3).collect();
        let cones = vec![Cone::isotropic(0.3).unwrap(), Cone::isotropic(0.7).unwrap(), Cone::isotropic(0.0).unwrap()];
        let p = LocalProblem::new(w, q, cones).unwrap();
        let r: Vec<f64> = vec![0.4, 0.05, -0.1, 0.3, -0.2, 0.1, 0.2, 0.0, 0.0];
        let mut st = Fb { p: &p, rho: vec![1.7; nc], u: vec![0.0; n], phi: vec![0.0; n] };
        st.merit(&r);
        let mut jac = vec![0.0; n * n];
        st.jacobian(&r, 0.0, |a, b, v| jac[a * n + b] += v);
        let h = 1e-6;
        for b in 0..n {
            let mut rp = r.clone();
            rp[b] += h;
            st.merit(&rp);
            let php = st.phi.clone();
            rp[b] -= 2.0 * h;
            st.merit(&rp);
            for a in 0..n {
                let fd = (php[a] - st.phi[a]) / (2.0 * h);
                // Central differences: O(h^2) truncation ~1e-12 times curvature, plus round-off
                // eps/h ~ 1e-10; 1e-7 leaves margin and still catches any wrong term (O(0.1)).
                assert!((fd - jac[a * n + b]).abs() < 1e-7, "J[{a}][{b}] = {} vs fd {fd}", jac[a * n + b]);
            }
        }
    }
}
