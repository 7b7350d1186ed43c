//! Staggered Projections (002 §5.3–5.4, Algorithm 1; digest §D7) on the local form.
//!
//! Alternate two convex QPs until the fixed point:
//! * contact QP: `min_{α >= 0} 1/2 α^T W_NN α + (q_N + W_NT f)^T α` (gradient: `u_N`);
//! * friction QP at fixed `α`: either the polyhedral cone with `k` samples (default 8, 002's
//!   choice) `f_c = sum_k β_ck p_k`, `β_c >= 0`, `sum_k β_ck <= α_c`, `p_k` on the friction
//!   ellipse of unit normal force, or the exact disc/ellipse `f_c in E(α_c)` (gradient: `u_T`).
//!
//! Both QPs are solved by [`crate::linalg::qp`] (the contact QP by its dense active-set method up
//! to 150 contacts, otherwise, and the friction QP always, by accelerated projected gradient)
//! with a proximal term centred at the previous iterate (the friction QP is rank-deficient, 002 §6.5.2; at the SP fixed point the term is zero,
//! so the fixed point is unchanged). Warm starts from the previous iterate, best-iterate cache on
//! the natural-map error (002 §5.4.4: non-monotone), and a final contact projection (002 §5.4.2).
//! The polyhedral variant solves the faceted problem: its exact-cone error plateaus at the
//! faceting error, reported as a failure when `tol` is below it.
//!
//! The outer iteration is Anderson-accelerated ([`crate::linalg::anderson`]): one SP sweep is a
//! map `T` of `z = (α, friction variables)` (the proximal centres and the friction seen by the
//! contact QP), and the next `z` extrapolates the last few `(z, T(z))`. SP is a block
//! Gauss–Seidel between the normal and the tangential forces, slow when they are strongly
//! coupled in the `W` metric (leaning cards, stacked boxes); the error is only ever measured on
//! `T`'s outputs, which are feasible, and the best one is kept.
// Numeric kernels index several parallel arrays with one counter; iterator zips would hide that.
#![allow(clippy::needless_range_loop)]

use super::problem::LocalProblem;
use super::problem::{Csc, csc_from_triplets};
use super::residual::local_error;
use super::solver::{SolveReport, SolverOptions, check_buffers};
use crate::friction::cone::project_ellipse;
use crate::linalg::anderson::Anderson;
use crate::linalg::clarabel;
use crate::linalg::qp::{
    ApgOptions, ApgWork, QpOracle, power_lipschitz, project_capped_simplex, solve_apg, solve_lcp_active_set,
};
use ::clarabel::algebra::CscMatrix;
use ::clarabel::solver::{DefaultSolver, IPSolver, SolverStatus, SupportedConeT};
use faer::sparse::Triplet;
use std::time::Instant;

/// Anderson memory of the outer iteration. Measured with the exact cone at tol 1e-6 from a cold
/// start (without -> with): scenes/box_stack 263 -> 10 outer iterations, scenes/arch 119 -> 14;
/// card_house's first step converges in 27; FCLib at 1e-8: BoxesStack 1366 -> 49, Capsules
/// 1093 -> 73. Other memories were not tuned; 5 is a common default for small `m`.
pub const AA_MEMORY: usize = 5;
/// The Anderson history is dropped when the fixed-point residual `|T(z) - z|` more than doubles
/// from one iteration to the next: the extrapolation then no longer models `T` (an active-set
/// or stick/slip change), and continuing from it is the plain SP step.
const AA_RESTART_GROWTH: f64 = 2.0;

/// Default proximal weight of both QPs, relative to their Lipschitz constants: the friction QP
/// is rank-deficient (002 §6.5.2) and the term makes its minimiser unique; at the fixed point it
/// vanishes.
pub const PROXIMAL: f64 = 1e-3;

/// Friction cone used in the friction QP.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum SpCone {
    /// `k` samples on the friction ellipse (inscribed polygon).
    Polyhedral(usize),
    /// The exact disc/ellipse.
    Exact,
}

/// When the outer iteration stops. Whatever stops it, the report's `converged` is the natural
/// map's verdict against `SolverOptions::tol`, as for every solver.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum SpStop {
    /// The natural-map error reaches `tol`; the best iterate is the one of least error.
    NaturalMap,
    /// 002 eq. (5.21): the squared relative change of the friction impulse in the `W` metric,
    /// `|f_i − f_{i−1}|² / |f_{i−1}|²`, at most `eps`; best iterate by eq. (5.22).
    RelativeChange(f64),
    /// 002 eq. (5.22): the normal complementarity residual `Σ_c |α_c u_N,c|` at most `eps`
    /// (N s); best iterate by the same residual.
    Residual(f64),
}

/// Which form of the contact QP SP solves (002 §5.3.6).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum SpContactQp {
    /// In the normal impulses `α` (`W_NN`, the local form): always available.
    Dual,
    /// 002 eq. (5.11) in the generalized velocities: `min ½|z − z_T|²` over
    /// `G_N z + q_N >= 0` with `W = G Gᵀ` (the problem's factor), `α` its multipliers. Needs the
    /// factor and no proximal term; the dual is used otherwise, and the report says so.
    Primal,
    /// The primal when contacts outnumber the velocities it works in (and it is available),
    /// the dual otherwise: 002 §5.3.6's rule, each QP costing about the cube of its size.
    Auto,
}

#[derive(Clone, Debug)]
pub struct SpParams {
    pub cone: SpCone,
    /// Proximal weight relative to the QP's Lipschitz constant (0: the QPs as printed).
    pub rho_rel: f64,
    pub qp_max_iter: usize,
    /// Anderson memory of the outer iteration (0: plain SP, Algorithm 1).
    pub anderson: usize,
    pub stop: SpStop,
    /// Pose the friction QP on the contacts with `α > 0` only (002 Alg. 1 item 8); off: on every
    /// contact, the inactive ones capped at zero (the same QP, larger).
    pub restrict: bool,
    pub contact_qp: SpContactQp,
}

impl Default for SpParams {
    fn default() -> Self {
        SpParams {
            cone: SpCone::Polyhedral(8),
            rho_rel: PROXIMAL,
            qp_max_iter: 5000,
            anderson: AA_MEMORY,
            stop: SpStop::NaturalMap,
            restrict: true,
            contact_qp: SpContactQp::Auto,
        }
    }
}

/// 002 eq. (5.22) in local form: `Σ_c |α_c u_N,c|`.
fn normal_residual(r: &[f64], u: &[f64]) -> f64 {
    r.iter().step_by(3).zip(u.iter().step_by(3)).map(|(a, un)| (a * un).abs()).sum()
}

/// Default: polyhedral cone, 8 samples.
pub fn solve(p: &LocalProblem, r: &mut [f64], u: &mut [f64], opts: &SolverOptions) -> SolveReport {
    solve_with(p, r, u, opts, &SpParams::default())
}

/// Exact disc/ellipse variant.
pub fn solve_exact(p: &LocalProblem, r: &mut [f64], u: &mut [f64], opts: &SolverOptions) -> SolveReport {
    solve_with(p, r, u, opts, &SpParams { cone: SpCone::Exact, ..SpParams::default() })
}

/// Shared state: the full force vector `r` (normal and tangential parts kept in sync with the QP
/// variables) and `u = W r + q`.
struct Sp<'a> {
    p: &'a LocalProblem,
    r: Vec<f64>,
    u: Vec<f64>,
    /// Polyhedral directions per contact (`k` pairs each), empty for the exact cone.
    dirs: Vec<[f64; 2]>,
    k: usize,
    /// The contacts the friction QP is posed on: those with a positive normal impulse (002
    /// Alg. 1 item 8, §5.3.6); the others have a zero friction cap, hence zero friction, and
    /// their rows of `u` are not needed by the QP.
    active: Vec<usize>,
}

impl Sp<'_> {
    /// Friction variables per contact (`k`, or 2 for the exact cone).
    fn per_contact(&self) -> usize {
        if self.k == 0 { 2 } else { self.k }
    }

    /// Contact `c`'s tangential force from its friction variables `x`.
    fn friction_force(&self, c: usize, x: &[f64]) -> [f64; 2] {
        if self.k == 0 {
            return [x[0], x[1]];
        }
        let dirs = &self.dirs[self.k * c..self.k * (c + 1)];
        x.iter().zip(dirs).fold([0.0; 2], |f, (b, d)| [f[0] + b * d[0], f[1] + b * d[1]])
    }

    /// `r_T` of every contact from the friction variables `fx` of all contacts, and `u`.
    fn sync_friction(&mut self, fx: &[f64]) {
        let m = self.per_contact();
        for c in 0..self.p.nc() {
            let f = self.friction_force(c, &fx[m * c..m * (c + 1)]);
            self.r[3 * c + 1] = f[0];
            self.r[3 * c + 2] = f[1];
        }
        self.p.velocity(&self.r, &mut self.u);
    }

    /// The friction QP's contacts: `α_c > 0` (all of them with `restrict` off). The others'
    /// friction is zeroed: it enters the active contacts' velocities.
    fn set_active(&mut self, alpha: &[f64], restrict: bool) {
        self.active.clear();
        for (c, &a) in alpha.iter().enumerate() {
            if !restrict || a > 0.0 {
                self.active.push(c);
            } else {
                self.r[3 * c + 1] = 0.0;
                self.r[3 * c + 2] = 0.0;
            }
        }
    }
}

struct ContactQp<'s, 'a>(&'s mut Sp<'a>);
struct FrictionQp<'s, 'a>(&'s mut Sp<'a>);

impl QpOracle for ContactQp<'_, '_> {
    fn n(&self) -> usize {
        self.0.p.nc()
    }
    fn grad(&mut self, x: &[f64], out: &mut [f64]) {
        let s = &mut *self.0;
        for (c, a) in x.iter().enumerate() {
            s.r[3 * c] = *a;
        }
        s.p.velocity(&s.r, &mut s.u);
        for (c, o) in out.iter_mut().enumerate() {
            *o = s.u[3 * c];
        }
    }
    fn project(&self, x: &mut [f64]) {
        x.iter_mut().for_each(|v| *v = v.max(0.0));
    }
}

/// The friction QP on the active contacts: variables `m` per active contact, in the order of
/// `Sp::active`; the other contacts' friction is zero.
impl QpOracle for FrictionQp<'_, '_> {
    fn n(&self) -> usize {
        self.0.per_contact() * self.0.active.len()
    }
    fn grad(&mut self, x: &[f64], out: &mut [f64]) {
        let s = &mut *self.0;
        let m = s.per_contact();
        for (i, &c) in s.active.iter().enumerate() {
            let f = s.friction_force(c, &x[m * i..m * (i + 1)]);
            s.r[3 * c + 1] = f[0];
            s.r[3 * c + 2] = f[1];
        }
        s.p.velocity_rows(&s.active, &s.r, &mut s.u);
        for (i, &c) in s.active.iter().enumerate() {
            let ut = [s.u[3 * c + 1], s.u[3 * c + 2]];
            if s.k == 0 {
                out[2 * i..2 * i + 2].copy_from_slice(&ut);
            } else {
                for j in 0..m {
                    let d = s.dirs[m * c + j];
                    out[m * i + j] = d[0] * ut[0] + d[1] * ut[1];
                }
            }
        }
    }
    fn project(&self, x: &mut [f64]) {
        let s = &*self.0;
        let m = s.per_contact();
        for (i, &c) in s.active.iter().enumerate() {
            let a = s.r[3 * c];
            let xi = &mut x[m * i..m * (i + 1)];
            if s.k == 0 {
                let cone = &s.p.cones[c];
                let f = project_ellipse([xi[0], xi[1]], cone.mu_t * a, cone.mu_b * a);
                xi.copy_from_slice(&f);
            } else {
                project_capped_simplex(xi, a);
            }
        }
    }
}

/// The friction QP's variables and proximal centre on the active contacts, gathered from and
/// scattered back to the per-contact vectors (buffers kept across iterations).
#[derive(Default)]
struct ActiveFriction {
    x: Vec<f64>,
    centre: Vec<f64>,
}

impl ActiveFriction {
    fn gather(&mut self, active: &[usize], m: usize, fx: &[f64], centre: &[f64]) {
        self.x.clear();
        self.centre.clear();
        for &c in active {
            self.x.extend_from_slice(&fx[m * c..m * (c + 1)]);
            self.centre.extend_from_slice(&centre[m * c..m * (c + 1)]);
        }
    }

    /// The solved variables into `fx`, zero for the inactive contacts.
    fn scatter(&self, active: &[usize], m: usize, fx: &mut [f64]) {
        fx.iter_mut().for_each(|v| *v = 0.0);
        for (i, &c) in active.iter().enumerate() {
            fx[m * c..m * (c + 1)].copy_from_slice(&self.x[m * i..m * (i + 1)]);
        }
    }
}

/// 002's primal contact QP (5.11) in the `m` generalized velocities `z = Gᵀ r`, by Clarabel,
/// set up once per call (only the linear term changes with the friction force).
struct PrimalQp<'a> {
    solver: DefaultSolver<f64>,
    /// `G` of the problem, `3 nc x m`.
    g: &'a Csc,
    neg_zt: Vec<f64>,
}

/// Clarabel's tolerance for the primal contact QP: SP's inner QPs are solved to 1e-2 of the
/// outer tolerance, which the interior point cannot go below 1e-11 reliably (measured: 1e-14
/// ended in insufficient progress on a box's corner contacts).
const PRIMAL_TOL_MIN: f64 = 1e-11;

impl<'a> PrimalQp<'a> {
    fn new(p: &LocalProblem, g: &'a Csc, tol: f64) -> Result<PrimalQp<'a>, String> {
        let (nc, m) = (p.nc(), g.ncols());
        let gr = g.as_ref();
        let mut t = Vec::new();
        for j in 0..m {
            for (i, v) in gr.row_idx_of_col_raw(j).iter().zip(gr.val_of_col(j)) {
                if i % 3 == 0 {
                    t.push(Triplet::new(i / 3, j, -v));
                }
            }
        }
        let a = csc_from_triplets(nc, m, &t)?;
        let b: Vec<f64> = (0..nc).map(|c| p.q[3 * c]).collect();
        let settings = clarabel::settings(tol.max(PRIMAL_TOL_MIN), f64::INFINITY)?;
        let cones = [SupportedConeT::NonnegativeConeT(nc)];
        let solver =
            DefaultSolver::new(&CscMatrix::identity(m), &vec![0.0; m], &clarabel::matrix(&a), &b, &cones, settings)
                .map_err(|e| format!("primal contact QP: {e}"))?;
        Ok(PrimalQp { solver, g, neg_zt: vec![0.0; m] })
    }

    /// The contact projection at the friction in `r`: `α` the multipliers of `G_N z + q_N >= 0`
    /// at `z = z_T + G_Nᵀ α`, `z_T = G_Tᵀ r_T`. Clarabel's iterations and whether it solved.
    fn solve(&mut self, r: &[f64], alpha: &mut [f64]) -> (usize, bool) {
        let g = self.g.as_ref();
        for (j, z) in self.neg_zt.iter_mut().enumerate() {
            *z = -g
                .row_idx_of_col_raw(j)
                .iter()
                .zip(g.val_of_col(j))
                .filter(|(i, _)| *i % 3 != 0)
                .map(|(i, v)| v * r[*i])
                .sum::<f64>();
        }
        if self.solver.update_q(&self.neg_zt).is_err() {
            return (0, false);
        }
        self.solver.solve();
        let sol = &self.solver.solution;
        let ok = matches!(sol.status, SolverStatus::Solved | SolverStatus::AlmostSolved);
        if ok {
            alpha.iter_mut().zip(&sol.z).for_each(|(a, z)| *a = z.max(0.0));
        }
        (sol.iterations as usize, ok)
    }
}

/// The primal contact QP if `prm` asks for it (or `Auto` finds contacts outnumbering the
/// velocities) and it can be posed: the problem has a factor and the QPs no proximal term.
/// Otherwise `None` and why, for the report.
fn primal_qp<'a>(p: &'a LocalProblem, prm: &SpParams, tol: f64) -> (Option<PrimalQp<'a>>, &'static str) {
    let Some(g) = &p.factor else {
        return (
            None,
            if prm.contact_qp == SpContactQp::Primal { "dual (no factor W = G Gᵀ for the primal)" } else { "dual" },
        );
    };
    match prm.contact_qp {
        SpContactQp::Dual => (None, "dual"),
        SpContactQp::Auto if p.nc() <= g.ncols() => (None, "dual"),
        _ if prm.rho_rel != 0.0 => (None, "dual (the primal has no proximal term)"),
        _ => match PrimalQp::new(p, g, tol) {
            Ok(qp) => (Some(qp), "primal"),
            Err(_) => (None, "dual (the primal QP could not be set up)"),
        },
    }
}

/// Largest number of contacts for which the contact QP uses the dense active-set solver: one
/// free-block LU per active-set change; measured faster than APG at 48–82 contacts (BoxesStack
/// SP 4302 -> 1223 outer iterations), 4x slower at 286 (Capsules).
const DENSE_QP_MAX: usize = 150;

/// One contact projection (QP in α with the proximal term centred at `centre`); returns the
/// inner iterations and whether the QP solver converged. Leaves `sp.r` normal part = `alpha`.
#[allow(clippy::too_many_arguments)]
fn contact_step(
    sp: &mut Sp<'_>,
    primal: Option<&mut PrimalQp>,
    dense: Option<&faer::Mat<f64>>,
    alpha: &mut [f64],
    centre: &[f64],
    opt: &ApgOptions,
    work: &mut ApgWork,
    g: &mut [f64],
) -> (usize, bool) {
    let nc = sp.p.nc();
    if let Some(qp) = primal {
        let (iters, ok) = qp.solve(&sp.r, alpha);
        if ok {
            for c in 0..nc {
                sp.r[3 * c] = alpha[c];
            }
            sp.p.velocity(&sp.r, &mut sp.u);
            return (iters, true);
        }
        // Not solved: the dual from the same start.
    }
    if let Some(h) = dense {
        // g = u_N at alpha = 0 (q_N + W_NT f), minus the proximal pull rho * centre.
        for c in 0..nc {
            sp.r[3 * c] = 0.0;
        }
        sp.p.velocity(&sp.r, &mut sp.u);
        for c in 0..nc {
            g[c] = sp.u[3 * c] - opt.rho * centre[c];
        }
        // On failure alpha is still feasible and APG continues from it.
        let rep = solve_lcp_active_set(h, g, alpha, 10 * nc + 50);
        if rep.converged {
            for c in 0..nc {
                sp.r[3 * c] = alpha[c];
            }
            sp.p.velocity(&sp.r, &mut sp.u);
            return (rep.iterations, true);
        }
        // Not converged (cycling on a non-symmetric W_NN, or singular): fall back to APG.
    }
    let rep = solve_apg(&mut ContactQp(sp), alpha, centre, opt, work);
    for c in 0..nc {
        sp.r[3 * c] = alpha[c];
    }
    (rep.iterations, rep.converged)
}

fn lipschitz<O: QpOracle>(o: &mut O) -> f64 {
    let n = o.n();
    let zero = vec![0.0; n];
    let mut g0 = vec![0.0; n];
    o.grad(&zero, &mut g0);
    power_lipschitz(n, |x, y| {
        o.grad(x, y);
        for i in 0..n {
            y[i] -= g0[i];
        }
    })
}

pub fn solve_with(p: &LocalProblem, r: &mut [f64], u: &mut [f64], opts: &SolverOptions, prm: &SpParams) -> SolveReport {
    let name = match prm.cone {
        SpCone::Polyhedral(_) => "sp",
        SpCone::Exact => "sp-exact",
    };
    let (nc, n) = (p.nc(), 3 * p.nc());
    if let Some(rep) = check_buffers(name, n, r, u) {
        return rep;
    }
    let start = Instant::now();
    // A warm start that already meets the tolerance is returned as it is, before the Lipschitz
    // estimates (60 operator applications) and the dense factorisation data are built: in a
    // standing structure most steps end here.
    p.velocity(r, u);
    let err0 = local_error(p, r, u);
    if prm.stop == SpStop::NaturalMap && err0.rel <= opts.tol {
        return SolveReport::finish(name, &err0, opts, 0, start, "", format_args!("warm start within tolerance"));
    }
    let k = match prm.cone {
        SpCone::Polyhedral(k) => {
            k.clamp(*super::stewart_trinkle::SAMPLES.start(), *super::stewart_trinkle::SAMPLES.end())
        }
        SpCone::Exact => 0,
    };
    // Samples on the unit-normal-force ellipse, including the axes when k is a multiple of 4.
    let dirs = super::stewart_trinkle::cone_samples(&p.cones, k);
    let mut sp = Sp { p, r: r.to_vec(), u: vec![0.0; n], dirs, k, active: (0..nc).collect() };
    // QP variables, warm-started from r (polyhedral: spread the tangential force on the two
    // nearest samples is not needed; start from zero friction magnitudes, then the warm normal).
    let mut alpha: Vec<f64> = (0..nc).map(|c| r[3 * c].max(0.0)).collect();
    // Friction variables from the warm start (002 Alg. 1 line 2: f⁰ = f^t): the exact cone's
    // force as it is, the polygon's as its components on the two samples around it.
    let fx: Vec<f64> = if k == 0 {
        (0..nc).flat_map(|c| [r[3 * c + 1], r[3 * c + 2]]).collect()
    } else {
        (0..nc)
            .flat_map(|c| {
                super::stewart_trinkle::on_samples([r[3 * c + 1], r[3 * c + 2]], &sp.dirs[k * c..k * (c + 1)])
            })
            .collect()
    };
    let mut fx = fx;
    sp.sync_friction(&fx);
    // The power iterations evaluate the oracles at their probe vectors, which overwrites the
    // forces in `sp.r`: restore the warm start afterwards (without this the first contact QP saw
    // a unit-norm probe as its friction force and the warm start was lost).
    let warm = sp.r.clone();
    let l_n = lipschitz(&mut ContactQp(&mut sp));
    let l_t = lipschitz(&mut FrictionQp(&mut sp));
    sp.r.copy_from_slice(&warm);
    let qscale = p.q.iter().fold(0.0f64, |m, x| m.max(x.abs()));
    let inner_tol = (opts.tol * 1e-2).max(1e-13);
    let opt_n = ApgOptions {
        tol: inner_tol,
        max_iter: prm.qp_max_iter,
        lipschitz: l_n,
        rho: prm.rho_rel * l_n,
        scale: qscale / l_n,
    };
    let opt_t = ApgOptions {
        tol: inner_tol,
        max_iter: prm.qp_max_iter,
        lipschitz: l_t,
        rho: prm.rho_rel * l_t,
        scale: qscale / l_t,
    };
    let mut work = ApgWork::default();
    let mut fa = ActiveFriction::default();
    let (mut primal, contact_form) = primal_qp(p, prm, inner_tol);
    // Small problems: the contact QP by the dense active-set method on W_NN + rho I (exact,
    // finite), as 002 used a dense QP solver; large ones: the matrix-free APG.
    let dense_n = (nc <= DENSE_QP_MAX).then(|| {
        let b = &p.blocks;
        let mut h = faer::Mat::<f64>::zeros(nc, nc);
        for c in 0..nc {
            h[(c, c)] = b.diag[c][0] + opt_n.rho;
            for k in b.row_ptr[c]..b.row_ptr[c + 1] {
                h[(c, b.col[k])] = b.val[k][0];
            }
        }
        h
    });
    let mut gn = vec![0.0; nc];
    let mut centre_n = alpha.clone();
    let mut centre_t = fx.clone();
    // Per-iteration buffers, allocated once.
    let mut f_prev = vec![[0.0f64; 2]; nc];
    let nz = nc + fx.len();
    let (mut z, mut gz) = (vec![0.0; nz], vec![0.0; nz]);
    let mut aa = Anderson::new(prm.anderson);
    let (mut aa_restarts, mut gnorm_prev) = (0usize, f64::INFINITY);
    let (mut it, mut qp_iters, mut qp_fail) = (0usize, 0usize, 0usize);
    let mut rel_change = f64::NAN;
    let mut reason = "iteration limit";
    sp.p.velocity(&sp.r, &mut sp.u);
    let mut err = local_error(p, &sp.r, &sp.u);
    // The measure the best iterate is chosen by: the natural map, or 002's (5.22) with its rules.
    let quality = |r: &[f64], u: &[f64], e: f64| match prm.stop {
        SpStop::NaturalMap => e,
        SpStop::RelativeChange(_) | SpStop::Residual(_) => normal_residual(r, u),
    };
    // `q` is the iterate's `quality`: under `Residual` it is already its (5.22) residual.
    let stop_met = |e: f64, change: f64, q: f64| match prm.stop {
        SpStop::NaturalMap => e <= opts.tol,
        SpStop::RelativeChange(eps) => change <= eps,
        SpStop::Residual(eps) => q <= eps,
    };
    // The warm start is the first candidate: an iteration that only makes it worse returns it.
    // Not under 002's rules: its (5.22) residual is zero at a zero start (no normal impulse) and
    // would never be beaten; Alg. 1 caches among the iterates only (`min_res ← ∞`).
    let mut best_r = sp.r.clone();
    let mut best_err = if prm.stop == SpStop::NaturalMap { quality(&sp.r, &sp.u, err.rel) } else { f64::INFINITY };
    let mut met = false;
    while it < opts.max_iter && !met {
        if opts.out_of_time(start) {
            reason = "time limit";
            break;
        }
        it += 1;
        // One SP map T: (centre_n, centre_t) -> (alpha, fx), both QPs proximal about the input.
        let (iters, ok) =
            contact_step(&mut sp, primal.as_mut(), dense_n.as_ref(), &mut alpha, &centre_n, &opt_n, &mut work, &mut gn);
        qp_iters += iters;
        qp_fail += (!ok) as usize;
        for c in 0..nc {
            sp.r[3 * c] = alpha[c];
        }
        for c in 0..nc {
            f_prev[c] = [sp.r[3 * c + 1], sp.r[3 * c + 2]];
        }
        sp.set_active(&alpha, prm.restrict);
        let m = sp.per_contact();
        fa.gather(&sp.active, m, &fx, &centre_t);
        let rep = solve_apg(&mut FrictionQp(&mut sp), &mut fa.x, &fa.centre, &opt_t, &mut work);
        fa.scatter(&sp.active, m, &mut fx);
        qp_iters += rep.iterations;
        qp_fail += (!rep.converged) as usize;
        // Sync r_T with the final friction variables, then measure.
        sp.sync_friction(&fx);
        let (mut num, mut den) = (0.0, 0.0);
        for c in 0..nc {
            num += (sp.r[3 * c + 1] - f_prev[c][0]).powi(2) + (sp.r[3 * c + 2] - f_prev[c][1]).powi(2);
            den += f_prev[c][0].powi(2) + f_prev[c][1].powi(2);
        }
        // 002 eq. 5.21 divides by the last friction impulse: 0/0 (friction zero and unchanged, as
        // on a frictionless or separating step) is converged, x/0 is not (002 §5.4.3's guard).
        rel_change = if den > 0.0 {
            num / den
        } else if num == 0.0 {
            0.0
        } else {
            f64::INFINITY
        };
        err = local_error(p, &sp.r, &sp.u);
        let q = quality(&sp.r, &sp.u, err.rel);
        if q < best_err {
            best_err = q;
            best_r.copy_from_slice(&sp.r);
        }
        if !err.natmap_abs.is_finite() {
            reason = "diverged (non-finite iterate)";
            break;
        }
        met = stop_met(err.rel, rel_change, q);
        if met || it == opts.max_iter {
            break;
        }
        // Next input: Anderson extrapolation of T's fixed-point iteration on z = (alpha, fx).
        z[..nc].copy_from_slice(&centre_n);
        z[nc..].copy_from_slice(&centre_t);
        for i in 0..nc {
            gz[i] = alpha[i] - z[i];
        }
        for i in 0..fx.len() {
            gz[nc + i] = fx[i] - z[nc + i];
        }
        let gnorm = gz.iter().map(|v| v * v).sum::<f64>().sqrt();
        if gnorm > AA_RESTART_GROWTH * gnorm_prev {
            aa.reset();
            aa_restarts += 1;
        }
        gnorm_prev = gnorm;
        aa.step(&mut z, &gz);
        // The extrapolated point only enters the next T as the proximal centres, the QPs' warm
        // starts and the friction seen by the contact QP; T's outputs are feasible regardless.
        centre_n.copy_from_slice(&z[..nc]);
        centre_t.copy_from_slice(&z[nc..]);
        alpha.copy_from_slice(&centre_n);
        fx.copy_from_slice(&centre_t);
        sp.sync_friction(&fx);
    }
    let loop_reason = match prm.stop {
        SpStop::NaturalMap if met => "tolerance reached",
        SpStop::RelativeChange(_) if met => "stopped by 002 eq. 5.21",
        SpStop::Residual(_) if met => "stopped by 002 eq. 5.22",
        _ => reason,
    };
    // Not converged: best iterate, then the final contact projection (002 §5.4.2: graceful
    // degradation, Signorini holds even without convergence): the exact P_C, proximal steps
    // until the normal forces stop moving. Converged: Signorini already holds to `tol`, and the
    // projection is skipped, because with a singular W_NN it may move α along null(W_NN), which
    // keeps u_N but breaks the friction cap μα (measured on PerioBox: 1e-8 -> 4e-4).
    if loop_reason != "tolerance reached" {
        // sp.r may hold an extrapolated (unmeasured) point: restart from the best output.
        sp.r.copy_from_slice(&best_r);
        for c in 0..nc {
            alpha[c] = sp.r[3 * c];
        }
        for _ in 0..200 {
            centre_n.copy_from_slice(&alpha);
            let (iters, _) = contact_step(
                &mut sp,
                primal.as_mut(),
                dense_n.as_ref(),
                &mut alpha,
                &centre_n,
                &opt_n,
                &mut work,
                &mut gn,
            );
            qp_iters += iters;
            let amax = alpha.iter().fold(0.0f64, |m, x| m.max(x.abs()));
            let moved = alpha.iter().zip(&centre_n).fold(0.0f64, |m, (a, c)| m.max((a - c).abs()));
            if moved <= inner_tol * amax.max(opt_n.scale) {
                break;
            }
        }
        for c in 0..nc {
            sp.r[3 * c] = alpha[c];
        }
    }
    r.copy_from_slice(&sp.r);
    p.velocity(r, u);
    let err = local_error(p, r, u);
    let reason = if loop_reason != "tolerance reached" {
        loop_reason.to_string()
    } else {
        format!("SP iterate reached the tolerance but the final recomputation left {:.2e}", err.rel)
    };
    let res_522 = normal_residual(r, u);
    SolveReport::finish(
        name,
        &err,
        opts,
        it,
        start,
        &reason,
        format_args!(
            "contact QP {contact_form}, {qp_iters} QP iterations, {qp_fail} QPs at their iteration cap, {aa_restarts} Anderson restarts, last friction change (002 eq. 5.21) {rel_change:.1e}, normal residual (5.22) {res_522:.1e}"
        ),
    )
}
