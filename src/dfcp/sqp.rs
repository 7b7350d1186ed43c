//! SQP on 002's nonconvex program (5.32): the third baseline the thesis compares Staggered
//! Projections against (it used NLQLP; digest §D10: "always reports success (a KKT point), yet
//! blows up", 123 s per call on the card house).
//!
//! Over the Stewart–Trinkle LCP `0 <= A y + b ⊥ y >= 0` ([`StewartTrinkle`]), (5.32) is
//!
//! ```text
//! min f(y) = yᵀ (A y + b)   subject to   y >= 0,  A y + b >= 0,
//! ```
//!
//! whose global minima with value 0 are the LCP's solutions. Its Hessian `H = A + Aᵀ` is the
//! Delassus part (positive semidefinite) plus, per contact, the bilinear Coulomb term
//! `μ λ_c α_c`, whose 2x2 block `[0 c; c 0]` is indefinite: that is the nonconvexity. Each SQP
//! iteration solves the convex QP
//!
//! ```text
//! min_d  ∇f(y)ᵀ d + ½ dᵀ B d   subject to   y + d >= 0,  A (y + d) + b >= 0
//! ```
//!
//! with `B` the Hessian `H` with `c` added to the diagonal at `α_c` and `λ_c` of every contact,
//! which turns each `[0 c; c 0]` into `c [1 1; 1 1] ⪰ 0`: `B` is positive semidefinite and
//! `B ⪰ H`. The QP's constraints are the program's own (they are
//! linear), so every step lands on a feasible point, and since `f` is quadratic and `B ⪰ H` the
//! model majorises `f`: each full step decreases `f`, and a step `t d` with the exact minimising
//! `t` along `d` (a scalar quadratic, within the feasible segment) decreases it more. The iterates
//! stop at a KKT point of (5.32), which need not be a solution: `A` is not row-sufficient (002
//! eqs. 5.34–5.36). NLQLP uses a BFGS Hessian instead of `B`; both are positive definite models
//! of the same program, and their KKT points are the same.
//!
//! The QPs are solved by Clarabel (interior point), set up once per call: `B` and the
//! constraint matrix do not change between iterations, only the linear term and the bounds.
//! An interior point ends off the complementarity boundary (a pair with `y_i = w_i = 0` at the
//! answer is met at about the square root of the duality gap), so each iterate is also tried
//! with a crossover: the complementary basis it suggests (`y_i > w_i`: `w_i = 0`, else
//! `y_i = 0`), solved exactly, is kept when it solves the LCP better. Like every solver, the
//! answer is judged by the exact cone's natural map; the polygon's LCP residual is reported
//! beside it.
// Numeric kernels index several parallel arrays with one counter; iterator zips would hide that.
#![allow(clippy::needless_range_loop)]

use super::problem::{Csc, LocalProblem, csc_from_triplets, csc_mul_add};
use super::residual::{LocalError, local_error};
use super::solver::{SolveReport, SolverOptions, check_buffers};
use super::stewart_trinkle::StewartTrinkle;
use crate::linalg::clarabel;
use ::clarabel::algebra::CscMatrix;
use ::clarabel::solver::{DefaultSolver, IPSolver, SolverStatus, SupportedConeT};
use faer::linalg::solvers::Solve;
use faer::sparse::Triplet;
use std::time::Instant;

/// The LCP counts as solved at this fraction of the tolerance, as for the regularised LCP
/// ([`super::regularised_lcp`]): the two residuals are scaled differently.
const LCP_MARGIN: f64 = 1e-2;
/// Clarabel's gap and feasibility tolerances (its default is 1e-8): the SQP answer can be no
/// more accurate than its last QP, and the LCP must be met to `LCP_MARGIN * tol`.
const QP_TOL: f64 = 1e-11;
/// A step `t |d|_∞` below this fraction of `max(1, |y|_∞)` (equilibrated units) no longer moves
/// the iterate beyond the QP's own accuracy: a KKT point of (5.32).
const STALL: f64 = 1e-9;
/// A crossover answer may be negative by rounding only (relative to the iterate's size): the
/// iterate is within the QP's tolerance of its bounds, and the refinement moves it by about that.
const CROSSOVER_SLACK: f64 = 1e-9;
/// Proximal weight of the crossover's refinement, on the equilibrated LCP (unit impulse
/// diagonals): small enough that a few refinements converge (rate about `δ / (δ + σ)` for the
/// smallest nonzero singular value `σ` of the basis), large enough to factor a singular basis.
const CROSSOVER_DELTA: f64 = 1e-8;
/// Floors of the crossover's basis guess, relative to the largest unknown.
const CROSSOVER_FLOORS: [f64; 3] = [0.0, 1e-6, 1e-4];
/// Refinements of the crossover (one LU, several solves).
const CROSSOVER_REFINE: usize = 5;

pub fn solve(p: &LocalProblem, r: &mut [f64], u: &mut [f64], opts: &SolverOptions) -> SolveReport {
    solve_with(p, r, u, opts, super::lemke_st::DEFAULT_SAMPLES)
}

/// `opts.max_iter` bounds the SQP iterations (one QP each). The warm start `r` is mapped to the
/// LCP ([`StewartTrinkle::lcp_vector`]); the first step makes it feasible if it is not.
pub fn solve_with(p: &LocalProblem, r: &mut [f64], u: &mut [f64], opts: &SolverOptions, k: usize) -> SolveReport {
    const NAME: &str = "sqp";
    if let Some(rep) = check_buffers(NAME, 3 * p.nc(), r, u) {
        return rep;
    }
    let start = Instant::now();
    let st = StewartTrinkle::new(p, k);
    let n = st.n();
    p.velocity(r, u);
    let mut y = st.lcp_vector(r, u);
    let mut qp = match Subproblem::new(&st, opts, start) {
        Ok(qp) => qp,
        Err(why) => {
            let err = local_error(p, r, u);
            return SolveReport::finish(
                NAME,
                &err,
                opts,
                0,
                start,
                &why,
                format_args!("{k} samples, {n} LCP unknowns"),
            );
        }
    };
    let (mut g, mut w, mut ad) = (vec![0.0; n], vec![0.0; n], vec![0.0; n]);
    st.slack(&y, &mut w);
    let mut err = local_error(p, r, u);
    let mut best = (r.to_vec(), err.rel);
    let (mut it, mut qp_iters, mut reason) = (0usize, 0u32, "iteration limit".to_string());
    let mut f = dot(&y, &w);
    while it < opts.max_iter {
        if let Some(why) = opts.stop_reason(err.rel, start) {
            reason = why.to_string();
            break;
        }
        it += 1;
        gradient(&st, &y, &w, &mut g);
        let d = match qp.step(&g, &y, &w) {
            Ok((d, iters)) => {
                qp_iters += iters;
                d
            }
            Err(why) => {
                reason = why;
                break;
            }
        };
        ad.iter_mut().for_each(|v| *v = 0.0);
        csc_mul_add(&st.a, &d, &mut ad);
        let feasible = y.iter().chain(&w).all(|&v| v >= -QP_TOL);
        let t = if feasible { line_search(&y, &w, &d, &ad, &g) } else { 1.0 };
        for i in 0..n {
            // The QP meets its bounds to its own tolerance: round the iterate onto them.
            y[i] = (y[i] + t * d[i]).max(0.0);
        }
        st.slack(&y, &mut w);
        let mut polished = false;
        if let Some(z) = crossover(&st, &y, &w) {
            y = z;
            st.slack(&y, &mut w);
            polished = true;
        }
        let f_new = dot(&y, &w);
        let stop;
        (err, stop) = measure(p, &st, &y, r, u, &mut best, opts.tol);
        if let Some(why) = stop {
            reason = why.into();
            break;
        }
        let ymax = y.iter().fold(1.0f64, |m, v| m.max(v.abs()));
        let small = t * d.iter().fold(0.0f64, |m, v| m.max(v.abs())) <= STALL * ymax;
        if !polished && (small || f_new >= f && feasible) {
            // Stalled: at a KKT point, or at the interior point's accuracy near a solution.
            match face_crossover(&st, &y, &w) {
                Some(z) => {
                    y = z;
                    st.slack(&y, &mut w);
                    let stop;
                    (err, stop) = measure(p, &st, &y, r, u, &mut best, opts.tol);
                    if let Some(why) = stop {
                        reason = why.into();
                        break;
                    }
                }
                None => {
                    reason = format!("stalled at a KKT point of (5.32) (objective {f_new:.3e})");
                    break;
                }
            }
        }
        f = dot(&y, &w);
    }
    // The iterate of least natural-map error, the warm start included.
    r.copy_from_slice(&best.0);
    p.velocity(r, u);
    let err = local_error(p, r, u);
    let y = st.lcp_vector(r, u);
    let lcp = st.residual(&y);
    SolveReport::finish(
        NAME,
        &err,
        opts,
        it,
        start,
        &reason,
        format_args!(
            "{k} samples, {n} LCP unknowns, {qp_iters} interior-point iterations, objective (5.32) {:.3e}, LCP residual {:.2e} (rel {:.2e})",
            st.objective(r, u, &y),
            lcp.abs,
            lcp.rel
        ),
    )
}

/// The LCP solved on the complementary basis `basic` (`w_i = 0` there), the rest at zero. The basic rows `A_BB z_B + b_B = 0` are met by proximal-point refinement from
/// the iterate itself, `(A_BB + δI) Δ = −(A_BB z_B + b_B)`: redundant contacts make `A_BB`
/// singular and the solution not unique, and this picks one near `y` (`A_BB` is monotone, a
/// principal block of an LCP matrix whose symmetric part is semidefinite, so the iteration
/// converges on a consistent system). A sliding speed `λ_c` of a contact none of whose friction
/// samples is basic appears in no basic row (with no friction any large enough `λ_c` is
/// complementary), so it is left out and set afterwards to the least value that makes the
/// contact's friction rows non-negative. `None` unless it is feasible (to rounding, clamped).
fn crossover_at(st: &StewartTrinkle, y: &[f64], mut basic: Vec<bool>) -> Option<Vec<f64>> {
    let n = st.n();
    let free: Vec<usize> = (0..st.nc).filter(|&c| !(0..st.k).any(|j| basic[st.beta(c, j)])).collect();
    free.iter().for_each(|&c| basic[st.lambda(c)] = false);
    let basis: Vec<usize> = (0..n).filter(|&i| basic[i]).collect();
    let mut pos = vec![usize::MAX; n];
    basis.iter().enumerate().for_each(|(k, &i)| pos[i] = k);
    let a = st.a.as_ref();
    let mut t: Vec<_> = (0..basis.len()).map(|k| Triplet::new(k, k, CROSSOVER_DELTA)).collect();
    for (kj, &j) in basis.iter().enumerate() {
        for (i, v) in a.row_idx_of_col_raw(j).iter().zip(a.val_of_col(j)) {
            if pos[*i] != usize::MAX {
                t.push(Triplet::new(pos[*i], kj, *v));
            }
        }
    }
    let mut z: Vec<f64> = (0..n).map(|i| if basic[i] { y[i] } else { 0.0 }).collect();
    let mut wz = vec![0.0; n];
    if !basis.is_empty() {
        let lu = csc_from_triplets(basis.len(), basis.len(), &t).ok()?.sp_lu().ok()?;
        let mut x = faer::Mat::<f64>::zeros(basis.len(), 1);
        for _ in 0..CROSSOVER_REFINE {
            st.slack(&z, &mut wz);
            basis.iter().enumerate().for_each(|(k, &i)| x[(k, 0)] = -wz[i]);
            lu.solve_in_place(x.as_mut());
            basis.iter().enumerate().for_each(|(k, &i)| z[i] += x[(k, 0)]);
        }
        let scale = y.iter().fold(1.0f64, |m, v| m.max(v.abs()));
        for &i in &basis {
            if !z[i].is_finite() || z[i] < -CROSSOVER_SLACK * scale {
                return None;
            }
            z[i] = z[i].max(0.0);
        }
    }
    st.slack(&z, &mut wz);
    for c in free {
        let l = st.lambda(c);
        // Row β_cj reads w + s_β s_λ λ' (the stored, equilibrated E).
        z[l] = (0..st.k).map(|j| -wz[st.beta(c, j)] / (st.scale[st.beta(c, j)] * st.scale[l])).fold(0.0, f64::max);
    }
    Some(z)
}

/// The best of `attempt` on the complementary bases `y` suggests (`y_i > max(w_i, floor)`
/// basic) over a few floors below which an unknown is taken as zero, if it solves the LCP better
/// than `y`. An interior point leaves the unknowns of a degenerate pair (both zero at the
/// answer) at about the square root of the duality gap, both small and in either order:
/// measured on a box's four corner contacts, friction magnitudes of 3e-7 beside slacks of 4e-8,
/// with the impulses at 4e-3; the floor at 1e-4 of the largest unknown takes them out of the
/// basis.
fn best_on_bases(
    st: &StewartTrinkle,
    y: &[f64],
    w: &[f64],
    attempt: impl Fn(Vec<bool>) -> Option<Vec<f64>>,
) -> Option<Vec<f64>> {
    let ymax = y.iter().fold(0.0f64, |m, v| m.max(*v));
    let mut best: Option<(f64, Vec<f64>)> = None;
    for floor in CROSSOVER_FLOORS {
        let basic = (0..st.n()).map(|i| y[i] > w[i].max(floor * ymax)).collect();
        if let Some(z) = attempt(basic) {
            let res = st.residual(&z).abs;
            if best.as_ref().is_none_or(|(b, _)| res < *b) {
                best = Some((res, z));
            }
        }
    }
    best.filter(|(res, _)| *res < st.residual(y).abs).map(|(_, z)| z)
}

/// The crossover of every iterate: linear solves on the suggested bases ([`crossover_at`]).
fn crossover(st: &StewartTrinkle, y: &[f64], w: &[f64]) -> Option<Vec<f64>> {
    best_on_bases(st, y, w, |basic| crossover_at(st, y, basic))
}

/// The crossover of a stalled iterate when [`crossover`]'s linear solves fail (an inconsistent
/// basis guess on redundant contacts): the point nearest `y` on each guessed face of the LCP
/// ([`nearest_on_face`]).
fn face_crossover(st: &StewartTrinkle, y: &[f64], w: &[f64]) -> Option<Vec<f64>> {
    best_on_bases(st, y, w, |basic| nearest_on_face(st, y, &basic))
}

/// `min ½|z_B − y_B|²` subject to `(A z + b)_B = 0`, `z_B >= 0`, `(A z + b)_N >= 0`, `z_N = 0`,
/// by Clarabel; an empty face is an infeasible QP and no answer.
fn nearest_on_face(st: &StewartTrinkle, y: &[f64], basic: &[bool]) -> Option<Vec<f64>> {
    let n = st.n();
    let basis: Vec<usize> = (0..n).filter(|&i| basic[i]).collect();
    let nb = basis.len();
    if nb == 0 {
        return None;
    }
    // Constraint rows: the basic rows (zero cone), z_B >= 0, then the nonbasic rows.
    let mut row = vec![0usize; n];
    let (mut eq, mut ineq) = (0, 2 * nb);
    for i in 0..n {
        if basic[i] {
            row[i] = eq;
            eq += 1;
        } else {
            row[i] = ineq;
            ineq += 1;
        }
    }
    let m = nb + n;
    let mut t: Vec<_> = (0..nb).map(|k| Triplet::new(nb + k, k, -1.0)).collect();
    let a = st.a.as_ref();
    for (k, &j) in basis.iter().enumerate() {
        for (i, v) in a.row_idx_of_col_raw(j).iter().zip(a.val_of_col(j)) {
            // Basic rows: A_BB z = −b_B; nonbasic rows: −A_NB z + s = b_N.
            t.push(Triplet::new(row[*i], k, if basic[*i] { *v } else { -v }));
        }
    }
    let mut rhs = vec![0.0; m];
    for i in 0..n {
        rhs[row[i]] = if basic[i] { -st.b[i] } else { st.b[i] };
    }
    let cons = clarabel::matrix(&csc_from_triplets(m, nb, &t).ok()?);
    let ident = CscMatrix::identity(nb);
    let q: Vec<f64> = basis.iter().map(|&i| -y[i]).collect();
    let cones = [SupportedConeT::ZeroConeT(nb), SupportedConeT::NonnegativeConeT(m - nb)];
    let mut solver =
        DefaultSolver::new(&ident, &q, &cons, &rhs, &cones, clarabel::settings(QP_TOL, f64::INFINITY).ok()?).ok()?;
    solver.solve();
    if !matches!(solver.solution.status, SolverStatus::Solved | SolverStatus::AlmostSolved) {
        return None;
    }
    let mut z = vec![0.0; n];
    basis.iter().zip(&solver.solution.x).for_each(|(&i, v)| z[i] = v.max(0.0));
    Some(z)
}

/// The forces and velocities of the LCP vector `y` into `r`, `u`, their error, kept in `best`
/// (forces, error) if it is the least so far, and why the iteration stops there, if it does.
fn measure(
    p: &LocalProblem,
    st: &StewartTrinkle,
    y: &[f64],
    r: &mut [f64],
    u: &mut [f64],
    best: &mut (Vec<f64>, f64),
    tol: f64,
) -> (LocalError, Option<&'static str>) {
    st.forces(y, r);
    p.velocity(r, u);
    let err = local_error(p, r, u);
    if err.rel < best.1 {
        best.0.copy_from_slice(r);
        best.1 = err.rel;
    }
    let stop = if !err.natmap_abs.is_finite() {
        Some("diverged (non-finite iterate)")
    } else if err.rel > tol && st.residual(y).rel <= LCP_MARGIN * tol {
        Some("LCP solved, exact-cone error above tolerance (faceting)")
    } else {
        None
    };
    (err, stop)
}

fn dot(a: &[f64], b: &[f64]) -> f64 {
    a.iter().zip(b).map(|(x, y)| x * y).sum()
}

/// `∇f = (A + Aᵀ) y + b = (A y + b) + Aᵀ y`.
fn gradient(st: &StewartTrinkle, y: &[f64], w: &[f64], g: &mut [f64]) {
    g.copy_from_slice(w);
    csc_mul_add(&st.rows, y, g);
}

/// The `t` in `[0, t_max]` minimising `f(y + t d) = f + t ∇fᵀd + t² dᵀA d`, with `t_max >= 1`
/// the largest step that keeps `y + t d >= 0` and `w + t A d >= 0` (both hold at `t = 1`, the
/// QP's constraints, and at 0).
fn line_search(y: &[f64], w: &[f64], d: &[f64], ad: &[f64], g: &[f64]) -> f64 {
    let mut t_max = f64::INFINITY;
    for (v, dv) in y.iter().zip(d).chain(w.iter().zip(ad)) {
        if *dv < 0.0 {
            t_max = t_max.min(v.max(0.0) / -dv);
        }
    }
    let t_max = t_max.max(1.0);
    let (slope, curv) = (dot(g, d), dot(d, ad));
    if curv > 0.0 {
        (-slope / (2.0 * curv)).clamp(0.0, t_max)
    } else if t_max.is_finite() {
        t_max
    } else {
        1.0
    }
}

/// Clarabel set up once with `B` and the constraints `[−I; −A] d + s = [y; A y + b]`, `s >= 0`.
struct Subproblem {
    solver: DefaultSolver<f64>,
    bounds: Vec<f64>,
}

impl Subproblem {
    fn new(st: &StewartTrinkle, opts: &SolverOptions, start: Instant) -> Result<Subproblem, String> {
        let n = st.n();
        let remaining = opts.max_time.map_or(f64::INFINITY, |t| t.saturating_sub(start.elapsed()).as_secs_f64());
        let settings = clarabel::settings(QP_TOL, remaining)?;
        let b = clarabel::matrix(&majorant(st));
        let mut t: Vec<_> = (0..n).map(|i| Triplet::new(i, i, -1.0)).collect();
        let a = st.a.as_ref();
        for j in 0..n {
            for (i, v) in a.row_idx_of_col_raw(j).iter().zip(a.val_of_col(j)) {
                t.push(Triplet::new(n + i, j, -v));
            }
        }
        let g = clarabel::matrix(&csc_from_triplets(2 * n, n, &t).map_err(|e| format!("QP constraints: {e}"))?);
        let bounds = vec![0.0; 2 * n];
        let cones = [SupportedConeT::NonnegativeConeT(2 * n)];
        let solver = DefaultSolver::new(&b, &vec![0.0; n], &g, &bounds, &cones, settings)
            .map_err(|e| format!("QP set-up failed: {e}"))?;
        Ok(Subproblem { solver, bounds })
    }

    /// The step `d` of the QP at `y` (slack `w`, gradient `g`) and Clarabel's iterations.
    fn step(&mut self, g: &[f64], y: &[f64], w: &[f64]) -> Result<(Vec<f64>, u32), String> {
        let n = y.len();
        self.bounds[..n].copy_from_slice(y);
        self.bounds[n..].copy_from_slice(w);
        self.solver.update_q(&g.to_vec()).map_err(|e| format!("QP update: {e}"))?;
        self.solver.update_b(&self.bounds).map_err(|e| format!("QP update: {e}"))?;
        self.solver.solve();
        let sol = &self.solver.solution;
        match sol.status {
            SolverStatus::Solved | SolverStatus::AlmostSolved => Ok((sol.x.clone(), sol.iterations)),
            s => Err(format!("QP subproblem not solved: Clarabel {s:?} after {} iterations", sol.iterations)),
        }
    }
}

/// `B = A + Aᵀ` with each contact's Coulomb coupling `c` (the `(λ_c, α_c)` entry) added to the
/// diagonal at `α_c` and `λ_c`: `B − H = Σ_c c (e_α e_αᵀ + e_λ e_λᵀ) ⪰ 0`, and `B` is positive
/// semidefinite. Upper triangle only, as Clarabel takes it.
fn majorant(st: &StewartTrinkle) -> Csc {
    let a = st.a.as_ref();
    let mut t = Vec::new();
    for j in 0..st.n() {
        for (i, v) in a.row_idx_of_col_raw(j).iter().zip(a.val_of_col(j)) {
            let (lo, hi) = if *i <= j { (*i, j) } else { (j, *i) };
            // A + Aᵀ: an off-diagonal entry appears once in each triangle; the diagonal twice.
            t.push(Triplet::new(lo, hi, if lo == hi { 2.0 * v } else { *v }));
        }
    }
    for c in 0..st.nc {
        let coupling = st.scale[st.lambda(c)] * st.scale[st.alpha(c)];
        t.push(Triplet::new(st.alpha(c), st.alpha(c), coupling));
        t.push(Triplet::new(st.lambda(c), st.lambda(c), coupling));
    }
    csc_from_triplets(st.n(), st.n(), &t).expect("indices within the LCP")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::friction::cone::Cone;

    fn box_on_floor(push: f64) -> LocalProblem {
        let w = csc_from_triplets(3, 3, &(0..3).map(|i| Triplet::new(i, i, 1.0)).collect::<Vec<_>>()).unwrap();
        LocalProblem::new(w, vec![-1.0, push, 0.0], vec![Cone::isotropic(0.5).unwrap()]).unwrap()
    }

    /// `B − H` is positive semidefinite (the model majorises `f`): `dᵀ(B − H)d >= 0` for random
    /// `d`, with `H = A + Aᵀ` applied directly, on the one-contact problem with 8 samples.
    #[test]
    fn the_model_majorises_the_program() {
        let st = StewartTrinkle::new(&box_on_floor(0.3), 8);
        let b = majorant(&st);
        let mut seed = 3u64;
        for _ in 0..50 {
            let d: Vec<f64> = (0..st.n()).map(|_| crate::test_rng::unit(&mut seed) - 0.5).collect();
            let (mut hd, mut bd) = (vec![0.0; st.n()], vec![0.0; st.n()]);
            csc_mul_add(&st.a, &d, &mut hd);
            csc_mul_add(&st.rows, &d, &mut hd);
            // b holds the upper triangle: B d = U d + Uᵀ d − diag(U) d.
            let bm = b.as_ref();
            for j in 0..st.n() {
                for (i, v) in bm.row_idx_of_col_raw(j).iter().zip(bm.val_of_col(j)) {
                    bd[*i] += v * d[j];
                    if *i != j {
                        bd[j] += v * d[*i];
                    }
                }
            }
            let gap: f64 = (0..st.n()).map(|i| d[i] * (bd[i] - hd[i])).sum();
            assert!(gap >= -1e-13, "dᵀ(B − H)d = {gap:e}");
        }
    }

    /// A box pushed below μ m g sticks and above it slides: SQP ends on the LCP's solution (the
    /// problem is a single contact, where every KKT point found from the warm start is one),
    /// with the push exactly cancelled (stick) or the friction on the polygon's sample opposite
    /// it (slide: 0.5 with 8 samples, which include the axes).
    #[test]
    fn a_pushed_box_sticks_below_and_slides_above_mu_m_g() {
        for (push, want_f, sliding) in [(0.3, -0.3, false), (0.8, -0.5, true)] {
            let p = box_on_floor(push);
            let (mut r, mut u) = (vec![0.0; 3], vec![0.0; 3]);
            let rep = solve(&p, &mut r, &mut u, &SolverOptions::new(1e-8, 100));
            assert!(rep.converged, "push {push}: {rep}");
            assert!((r[0] - 1.0).abs() < 1e-8 && (r[1] - want_f).abs() < 1e-8, "push {push}: r {r:?}");
            assert_eq!(u[1].abs() > 1e-6, sliding, "push {push}: u {u:?}");
        }
    }
}
