//! The predictor of 000 (eq. 23, Algorithm 1 lines 1–3): one implicit-Euler step of the
//! elasticity under the contacts' linearized non-penetration constraints, with the previous
//! step's friction impulse applied as a known impulse (friction forwarding).
//!
//! `min_v Φ(v) − vᵀ f_fwd` subject to `c(v) = A v + b ≥ 0`, where `∇Φ = M (v − v^t) − h f(q^t +
//! h v, v)` is the backward-Euler residual of the penalty pipeline's [`System`] (elasticity,
//! damping, gravity, volume zones) and row `i` of `A` is contact `i`'s normal row. 000 used
//! Ipopt; this is a primal-dual interior-point method with slacks `s` and multipliers `λ`
//! (the normal impulses, N·s): each iteration solves the condensed Newton system
//! `(∇²Φ + Aᵀ diag(λ/s) A) dv = −r_d − Aᵀ (diag(λ/s) r_p + r_c / s)` with the sparse solver of
//! the penalty pipeline (`AᵀDA` only adds blocks on the contact stencils), keeps `s, λ > 0` by
//! the fraction-to-boundary rule, and backtracks on the norm of the perturbed KKT residual
//! (for which the Newton direction is a descent direction). The barrier target falls by a
//! factor 10 per iteration once steps are long.

use super::contacts::SmoothContact;
use crate::model::Model;
use crate::pipeline::StepStats;
use crate::pipeline::penalty::system::{EvalError, StageSystem, System};
use crate::scene::schema::PredictorSpec;
use nalgebra::Vector3;
use std::time::Instant;

/// Inertia correction: a direction `dv` is accepted when `dvᵀ K dv > CURVATURE_MIN dvᵀ M dv`;
/// otherwise `K += δ M` with δ from `FIRST_SHIFT` growing tenfold up to `MAX_SHIFT` (where the
/// step is a scaled gradient step).
const CURVATURE_MIN: f64 = 1e-8;
const FIRST_SHIFT: f64 = 1e-2;
const MAX_SHIFT: f64 = 1e8;
/// Fraction-to-boundary parameter (Ipopt's τ_min).
const TAU: f64 = 0.995;
/// Armijo constant of the backtracking on the squared KKT residual.
const ARMIJO: f64 = 1e-4;
const MAX_BACKTRACKS: usize = 40;

/// One predictor problem.
pub struct Predictor<'a> {
    pub stage: StageSystem,
    pub q0: &'a [f64],
    pub v_hat: &'a [f64],
    pub contacts: &'a [SmoothContact],
    /// Known generalized impulse (forwarded friction), full length.
    pub forward: &'a [f64],
    /// Per contact, the last step's normal impulse (0 for a new contact): a resting contact's
    /// multiplier barely changes from step to step, and starting from it keeps the first Newton
    /// steps from pushing the vertex deep through the constraint.
    pub lambda0: &'a [f64],
}

/// Outcome of the predictor: `v` holds `q̇*`, `lambda` the normal impulses `r_N*`.
pub struct PredictorOutcome {
    pub iterations: usize,
    pub lambda: Vec<f64>,
    /// Largest of the three optimality measures (m/s) at the returned iterate.
    pub error: f64,
    pub failure: Option<String>,
}

/// Iterate of the interior-point method and its KKT residuals.
struct Iterate {
    v: Vec<f64>,
    s: Vec<f64>,
    lam: Vec<f64>,
}

struct Kkt {
    /// Dual residual on free dofs, primal `c − s`, complementarity `s λ − μ`.
    rd: Vec<f64>,
    rp: Vec<f64>,
    rc: Vec<f64>,
    /// Constraint values `c(v)`.
    c: Vec<f64>,
    merit: f64,
}

impl Predictor<'_> {
    fn positions(&self, v: &[f64]) -> Vec<f64> {
        self.q0.iter().zip(v).map(|(q, v)| q + self.stage.dq_dv * v).collect()
    }

    /// Evaluate the system at `v` (and its Jacobian with `jacobian`), then the KKT residuals for
    /// the barrier target `mu`.
    fn kkt(&self, sys: &mut System, model: &Model, it: &Iterate, mu: f64, jacobian: bool) -> Result<Kkt, EvalError> {
        let q = self.positions(&it.v);
        sys.evaluate(model, &self.stage, &q, &it.v, self.v_hat, jacobian, None)?;
        if jacobian && sys.grow_pattern_if_needed() {
            sys.evaluate(model, &self.stage, &q, &it.v, self.v_hat, jacobian, None)?;
        }
        let mut rd = sys.residual.clone();
        for (dof, &f) in sys.free.iter().enumerate() {
            if f != usize::MAX {
                rd[f] -= self.forward[dof];
            }
        }
        let c: Vec<f64> = self.contacts.iter().map(|k| k.velocity(&it.v).x).collect();
        for (k, &l) in self.contacts.iter().zip(&it.lam) {
            for (&i, b) in k.nodes.iter().zip(&k.blocks) {
                for d in 0..3 {
                    let f = sys.free[3 * i + d];
                    if f != usize::MAX {
                        rd[f] -= b[(0, d)] * l;
                    }
                }
            }
        }
        let rp: Vec<f64> = c.iter().zip(&it.s).map(|(c, s)| c - s).collect();
        let rc: Vec<f64> = it.s.iter().zip(&it.lam).map(|(s, l)| s * l - mu).collect();
        let merit = self.merit(model, sys, &rd, &rp, &rc);
        Ok(Kkt { rd, rp, rc, c, merit })
    }

    /// Squared KKT residual in velocity units: `r_d / m` per dof, `r_p`, and `r_c / (m v_ref)`.
    fn merit(&self, model: &Model, sys: &System, rd: &[f64], rp: &[f64], rc: &[f64]) -> f64 {
        let mut m = 0.0;
        for (dof, &f) in sys.free.iter().enumerate() {
            if f != usize::MAX {
                m += (rd[f] / model.node_mass[dof / 3]).powi(2);
            }
        }
        let vref = self.velocity_scale(model);
        for ((k, p), c) in self.contacts.iter().zip(rp).zip(rc) {
            m += p * p + (c / (model.node_mass[k.vertex] * vref)).powi(2);
        }
        if m.is_finite() { m } else { f64::INFINITY }
    }

    /// The velocity a contact gains in one step of gravity (or 1 mm/s without gravity): the
    /// scale of the initial slacks and multipliers.
    fn velocity_scale(&self, model: &Model) -> f64 {
        (self.stage.dq_dv * model.gravity.norm()).max(1e-3)
    }

    /// Optimality error (m/s) of an iterate: stationarity per dof, constraint violation, and
    /// complementarity `min(c, λ/m)` per contact.
    fn error(&self, model: &Model, sys: &System, it: &Iterate, kkt: &Kkt) -> f64 {
        let mut e = 0.0f64;
        for (dof, &f) in sys.free.iter().enumerate() {
            if f != usize::MAX {
                e = e.max((kkt.rd[f] / model.node_mass[dof / 3]).abs());
            }
        }
        for ((k, &c), &l) in self.contacts.iter().zip(&kkt.c).zip(&it.lam) {
            e = e.max((-c).max(0.0)).max(c.min(l / model.node_mass[k.vertex]).abs());
        }
        e
    }

    /// Add `Aᵀ diag(d) A` into the assembled Jacobian; false if its pattern lacked entries.
    fn add_constraint_curvature(&self, sys: &mut System, d: &[f64]) -> bool {
        for (k, &dk) in self.contacts.iter().zip(d) {
            for (&i, bi) in k.nodes.iter().zip(&k.blocks) {
                for (&j, bj) in k.nodes.iter().zip(&k.blocks) {
                    for a in 0..3 {
                        let r = sys.free[3 * i + a];
                        if r == usize::MAX {
                            continue;
                        }
                        for b in 0..3 {
                            let c = sys.free[3 * j + b];
                            if c != usize::MAX {
                                sys.jacobian.add(r, c, dk * bi[(0, a)] * bj[(0, b)]);
                            }
                        }
                    }
                }
            }
        }
        sys.jacobian.missing.is_empty()
    }

    /// `A dv` over free dofs (`dv` free-length).
    fn a_times(&self, sys: &System, dv: &[f64]) -> Vec<f64> {
        self.contacts
            .iter()
            .map(|k| {
                let mut s = 0.0;
                for (&i, b) in k.nodes.iter().zip(&k.blocks) {
                    for d in 0..3 {
                        let f = sys.free[3 * i + d];
                        if f != usize::MAX {
                            s += b[(0, d)] * dv[f];
                        }
                    }
                }
                s
            })
            .collect()
    }

    /// `rhs −= Aᵀ y` over free dofs.
    fn sub_a_transpose(&self, sys: &System, y: &[f64], rhs: &mut [f64]) {
        for (k, &yk) in self.contacts.iter().zip(y) {
            for (&i, b) in k.nodes.iter().zip(&k.blocks) {
                for d in 0..3 {
                    let f = sys.free[3 * i + d];
                    if f != usize::MAX {
                        rhs[f] -= b[(0, d)] * yk;
                    }
                }
            }
        }
    }

    /// Shift every free body (no kinematic node) with violated contacts as a whole, along the
    /// violation-weighted mean normal of those contacts, far enough to meet the ones that normal
    /// serves. A rigid shift stores no elastic energy, so a stiff body arriving at speed starts
    /// at rest against what it hits; moving its contact vertices alone jerked them millimetres
    /// out of its surface (measured: 0.86 J in a 66 g rubber ball arriving at 0.44 m/s, from
    /// which the method stalled at an error of 2e4 m/s).
    fn shift_free_bodies(&self, model: &Model, v: &mut [f64], margin: f64) {
        let bodies = model.solids.iter().map(|s| s.nodes.clone()).chain(model.cloths.iter().map(|c| c.nodes.clone()));
        for nodes in bodies.filter(|r| !r.clone().any(|i| model.node_is_kinematic[i])) {
            let violated: Vec<(Vector3<f64>, f64)> = self
                .contacts
                .iter()
                .filter(|k| nodes.contains(&k.vertex))
                .map(|k| (k.blocks[0].row(0).transpose(), margin - k.velocity(v).x))
                .filter(|(_, short)| *short > 0.0)
                .collect();
            let Some(u) = violated.iter().map(|(n, short)| n * *short).sum::<Vector3<f64>>().try_normalize(0.0) else {
                continue;
            };
            // Contacts whose normal is far from `u` are left to the per-vertex moves.
            let delta = violated
                .iter()
                .filter(|(n, _)| n.dot(&u) > 0.5 * n.norm())
                .map(|(n, short)| short / n.dot(&u))
                .fold(0.0, f64::max);
            for i in nodes {
                for d in 0..3 {
                    v[3 * i + d] += delta * u[d];
                }
            }
        }
    }

    /// Move the initial guess into the interior `c(v) ≥ margin` by changing each violating
    /// contact's own vertex along its normal (a vertex's block in its constraint row is the unit
    /// normal), a few passes for vertices under several constraints. An infeasible start leaves
    /// the slacks apart from `c(v)`, and the fraction-to-boundary rule can then pin the method to
    /// steps of ~0 (measured: a block whose bottom layer was jolted by the corrector stalled at
    /// a residual of 1e2 m/s); from an interior point `s = c(v)` holds exactly along every step.
    fn feasible_start(&self, model: &Model, v: &mut [f64], margin: f64) {
        for _ in 0..3 {
            for k in self.contacts.iter().filter(|k| !model.node_is_kinematic[k.vertex]) {
                let c = k.velocity(v).x;
                if c < margin {
                    let n = k.blocks[0].row(0).transpose();
                    let dv = n * ((margin - c) / n.norm_squared());
                    for d in 0..3 {
                        v[3 * k.vertex + d] += dv[d];
                    }
                }
            }
        }
    }

    /// Solve from the initial guess in `v` (kinematic dofs hold their prescribed velocity).
    pub fn solve(
        &self,
        sys: &mut System,
        model: &Model,
        v: &mut [f64],
        spec: &PredictorSpec,
        stats: &mut StepStats,
    ) -> PredictorOutcome {
        let vref = self.velocity_scale(model);
        self.shift_free_bodies(model, v, 0.1 * vref);
        self.feasible_start(model, v, 0.1 * vref);
        let c0: Vec<f64> = self.contacts.iter().map(|k| k.velocity(v).x).collect();
        let s: Vec<f64> = c0.iter().map(|c| c.max(0.1 * vref)).collect();
        let mean_mass =
            self.contacts.iter().map(|k| model.node_mass[k.vertex]).sum::<f64>() / self.contacts.len().max(1) as f64;
        let mu0 = 0.1 * mean_mass * vref * vref;
        let lam = s.iter().zip(self.lambda0).map(|(s, l0)| (mu0 / s).max(*l0)).collect();
        let mut it = Iterate { v: v.to_vec(), s, lam };
        let m = self.contacts.len().max(1) as f64;
        let mut out = PredictorOutcome { iterations: 0, lambda: Vec::new(), error: f64::INFINITY, failure: None };
        let mut sigma = 0.1;
        loop {
            let start = Instant::now();
            let mu = if self.contacts.is_empty() {
                0.0
            } else {
                sigma * it.s.iter().zip(&it.lam).map(|(s, l)| s * l).sum::<f64>() / m
            };
            let kkt = match self.kkt(sys, model, &it, mu, true) {
                Ok(k) => k,
                Err(e) => {
                    out.failure = Some(format!("elasticity undefined at the predictor's iterate: {e:?}"));
                    break;
                }
            };
            stats.assembly_s += start.elapsed().as_secs_f64();
            out.error = self.error(model, sys, &it, &kkt);
            if out.error <= spec.tolerance {
                break;
            }
            if out.iterations >= spec.max_iterations {
                out.failure = Some(format!(
                    "predictor: no convergence in {} interior-point iterations (error {:.3e} m/s, tolerance {:.1e})",
                    out.iterations, out.error, spec.tolerance
                ));
                break;
            }
            let d: Vec<f64> = it.lam.iter().zip(&it.s).map(|(l, s)| l / s).collect();
            if !self.add_constraint_curvature(sys, &d) {
                // The contacts couple nodes the pattern lacks: grow it and re-assemble.
                sys.grow_pattern_if_needed();
                continue;
            }
            out.iterations += 1;
            let Some((dv, ds, dl)) = self.direction(sys, model, &it, &kkt, &d, stats) else {
                out.failure = Some("predictor: the Newton system could not be solved".into());
                break;
            };
            let alpha = fraction_to_boundary(&it.s, &ds).min(fraction_to_boundary(&it.lam, &dl));
            let last_error = out.error;
            match self.line_search(sys, model, &it, (&dv, &ds, &dl), alpha, mu, (kkt.merit, out.error)) {
                Some((next, a)) => {
                    it = next;
                    sigma = if a > 0.5 { 0.1 } else { 0.5 };
                }
                None if !sys.linear.direct_lu => sys.linear.direct_lu = true,
                None => {
                    out.failure = Some(format!("predictor: line search failed (error {:.3e} m/s)", out.error));
                    break;
                }
            }
            // Near convergence the multipliers of active contacts make `λ/s` huge, and a direction
            // solved by GMRES to a relative tolerance leaves an error in `A dv` that `dλ = D(…)`
            // amplifies: the stationarity error then stalls (measured: 1.2e-8 m/s on the
            // trampoline). From then on, a direct factorization per iteration.
            if out.iterations > 1 && self.stalled(last_error, model, sys, &it) {
                sys.linear.direct_lu = true;
            }
        }
        sys.linear.direct_lu = false;
        v.copy_from_slice(&it.v);
        out.lambda = it.lam;
        out
    }

    /// Whether the last iteration failed to cut the optimality error by half.
    fn stalled(&self, last_error: f64, model: &Model, sys: &mut System, it: &Iterate) -> bool {
        match self.kkt(sys, model, it, 0.0, false) {
            Ok(k) => self.error(model, sys, it, &k) > 0.5 * last_error,
            Err(_) => false,
        }
    }

    /// The Newton direction `(dv, ds, dλ)` of the perturbed KKT system (`dv` full-length), the
    /// Jacobian holding `∇²Φ + Aᵀ diag(d) A`.
    fn direction(
        &self,
        sys: &mut System,
        model: &Model,
        it: &Iterate,
        kkt: &Kkt,
        d: &[f64],
        stats: &mut StepStats,
    ) -> Option<(Vec<f64>, Vec<f64>, Vec<f64>)> {
        let mut b: Vec<f64> = kkt.rd.iter().map(|r| -r).collect();
        let y: Vec<f64> = (0..d.len()).map(|k| d[k] * kkt.rp[k] + kkt.rc[k] / it.s[k]).collect();
        self.sub_a_transpose(sys, &y, &mut b);
        let mut mass = vec![0.0; sys.n_free];
        for (dof, &f) in sys.free.iter().enumerate().filter(|(_, f)| **f != usize::MAX) {
            mass[f] = model.node_mass[dof / 3];
        }
        let mut shift = 0.0;
        let rhs = loop {
            let mut x = b.clone();
            let start = Instant::now();
            let solved = sys.linear.solve(&sys.jacobian, &sys.low_rank, &mut x);
            stats.linear_solve_s += start.elapsed().as_secs_f64();
            let info = solved.ok()?;
            stats.linear_iterations += info.gmres_iterations;
            stats.factorizations += info.factorizations;
            // Inertia correction (as Ipopt's): the exact elastic Hessian is indefinite under large
            // compression, and a direction of negative curvature is no Newton step; shift the
            // matrix by a growing multiple of M until the direction has positive curvature.
            let curvature: f64 = x.iter().zip(&b).map(|(x, b)| x * b).sum();
            let inertia: f64 = x.iter().zip(&mass).map(|(x, m)| m * x * x).sum();
            if curvature > CURVATURE_MIN * inertia || shift >= MAX_SHIFT {
                break x;
            }
            let next = if shift == 0.0 { FIRST_SHIFT } else { 10.0 * shift };
            for (f, m) in mass.iter().enumerate() {
                sys.jacobian.add(f, f, (next - shift) * m);
            }
            shift = next;
        };
        let adv = self.a_times(sys, &rhs);
        let ds: Vec<f64> = adv.iter().zip(&kkt.rp).map(|(a, p)| a + p).collect();
        let dl: Vec<f64> = (0..d.len()).map(|k| d[k] * (-kkt.rp[k] - adv[k]) - kkt.rc[k] / it.s[k]).collect();
        let mut dv = vec![0.0; it.v.len()];
        for (dof, &f) in sys.free.iter().enumerate() {
            if f != usize::MAX {
                dv[dof] = rhs[f];
            }
        }
        Some((dv, ds, dl))
    }

    /// Backtracking from `alpha`, accepting a step that decreases the squared KKT residual for
    /// the fixed target `mu` (Armijo) or the optimality error by the same rule (a two-entry
    /// filter). The second test matters at the end: the merit is then dominated by the
    /// stationarity's round-off (measured: 1e-9 m/s per dof on a stiff rubber ball, E = 6 MPa),
    /// and a step that cuts the complementarity of a contact about to separate (its `λ/m` at
    /// 3e-7 m/s) changes the merit by less than that noise, so the merit alone rejected it forever.
    #[allow(clippy::too_many_arguments)]
    fn line_search(
        &self,
        sys: &mut System,
        model: &Model,
        it: &Iterate,
        (dv, ds, dl): (&[f64], &[f64], &[f64]),
        mut alpha: f64,
        mu: f64,
        (merit0, error0): (f64, f64),
    ) -> Option<(Iterate, f64)> {
        for _ in 0..MAX_BACKTRACKS {
            let step = |x: &[f64], d: &[f64]| x.iter().zip(d).map(|(x, d)| x + alpha * d).collect::<Vec<f64>>();
            let next = Iterate { v: step(&it.v, dv), s: step(&it.s, ds), lam: step(&it.lam, dl) };
            if let Ok(k) = self.kkt(sys, model, &next, mu, false)
                && (k.merit <= (1.0 - 2.0 * ARMIJO * alpha) * merit0
                    || self.error(model, sys, &next, &k) <= (1.0 - ARMIJO * alpha) * error0)
            {
                return Some((next, alpha));
            }
            alpha *= 0.5;
        }
        None
    }
}

/// Largest step in `(0, 1]` keeping `x + α dx ≥ (1 − τ) x` for positive `x`.
fn fraction_to_boundary(x: &[f64], dx: &[f64]) -> f64 {
    x.iter().zip(dx).filter(|(_, d)| **d < 0.0).map(|(x, d)| -TAU * x / d).fold(1.0, f64::min)
}

/// Generalized impulse `Σ_c B_cᵀ r_c` (full length) of contact-frame impulses `r` (3 per contact).
pub fn generalized_impulse(model: &Model, contacts: &[SmoothContact], r: &[f64]) -> Vec<f64> {
    let mut f = vec![0.0; model.dof_count()];
    for (c, k) in contacts.iter().enumerate() {
        let rc = nalgebra::Vector3::new(r[3 * c], r[3 * c + 1], r[3 * c + 2]);
        for (&i, b) in k.nodes.iter().zip(&k.blocks) {
            let g = b.transpose() * rc;
            for d in 0..3 {
                f[3 * i + d] += g[d];
            }
        }
    }
    f
}
