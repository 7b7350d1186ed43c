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
//!
//! Rigid bodies add their 6 velocities (after the free nodal dofs in the iterate's index space)
//! with the objective `½ (w − ŵ)ᵀ M_r (w − ŵ)`. They couple to the nodes only through the
//! contacts' `Aᵀ D A`, so the Newton system is reduced to the nodes by the Schur complement of
//! the rigid block `S = M_r + A_rᵀ D A_r` (dense, 6 per body): `−B S⁻¹ Bᵀ = −C Cᵀ` with
//! `B = A_nᵀ D A_r` enters the sparse solver as rank-one terms (in GMRES's products, or by
//! Sherman–Morrison–Woodbury around the direct factor), and the rigid directions follow from `S`.

use super::contacts::SmoothContact;
use super::joints::RigidSpace;
use super::layout::{Layout, Slot};
use crate::linalg::newton_solver::Direct;
use crate::linalg::row_terms::RowTerms;
use crate::model::Model;
use crate::pipeline::StepStats;
use crate::pipeline::penalty::system::{EvalError, StageSystem, System};
use crate::scene::schema::PredictorSpec;
use nalgebra::{DMatrix, DVector, Matrix3, Vector3};
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
    pub layout: &'a Layout,
    pub stage: StageSystem,
    pub q0: &'a [f64],
    pub v_hat: &'a [f64],
    pub contacts: &'a [SmoothContact],
    /// Known generalized impulse (forwarded friction), in the layout.
    pub forward: &'a [f64],
    /// Per contact, the last step's normal impulse (0 for a new contact): a resting contact's
    /// multiplier barely changes from step to step, and starting from it keeps the first Newton
    /// steps from pushing the vertex deep through the constraint.
    pub lambda0: &'a [f64],
    /// Per unknown, the scalar mass that turns its residual into a speed (built at the first
    /// evaluation: every merit and error evaluation needs it, and it never changes in a solve).
    pub speed_mass: std::cell::OnceCell<Vec<f64>>,
    /// The rigid velocities the joints allow (`joints`), if any joint.
    pub joints: Option<&'a RigidSpace>,
    /// The contacts' part of `Aᵀ D A`, for the pattern generation it was found in (the rows
    /// are fixed within a solve).
    pub curvature_slots: std::cell::RefCell<Option<(u64, Curvature)>>,
}

/// A contact row with more free entries than this stays out of the assembled Jacobian: its
/// `Aᵀ D A` block would add the square of its width (a contact on a collider or a rigid body
/// has 3; on a deformable body's implicit surface, 3 per vertex of the samples within reach,
/// 180 on average on 000's trampoline). Not a row with a rigid body's entries: their part goes
/// through the rigid bodies' Schur complement (`RigidBlock`), whose low-rank terms leave the
/// exact solve without the multipliers that keep `dλ` accurate (`take_wide_multipliers`);
/// measured, rigid bodies dropped on an elastic block then stalled at 2.8e-7 m/s.
const WIDE_ROW: usize = 12;

/// How `Aᵀ D A` enters the Newton system ([`Predictor::curvature_slots`]): a narrow row as
/// its products' Jacobian slots (finding each by search at every iteration was most of the
/// predictor's own time), a wide one as a rank-one term ([`RowTerms`]) of the linear solve.
#[derive(Default)]
pub struct Curvature {
    /// Per contact: its narrow row's block (empty for a wide row).
    blocks: Vec<CurvatureBlock>,
    /// The wide rows' contacts and their rows on the free dofs.
    wide: Vec<usize>,
    wide_rows: Vec<Vec<(usize, f64)>>,
}

/// One narrow contact's part of `Aᵀ D A`.
pub struct CurvatureBlock {
    coefficients: Vec<f64>,
    /// Row-major over pairs of `coefficients`.
    slots: Vec<usize>,
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
    /// Dual residual on the free dofs (nodal, then rigid), primal `c − s`, complementarity
    /// `s λ − μ`.
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

    /// Index of entry `d` of (pseudo-)node `i` among the unknowns: the system's free nodal dofs,
    /// then 6 per dynamic rigid body; `usize::MAX` where the velocity is prescribed.
    fn index(&self, sys: &System, i: usize, d: usize) -> usize {
        match self.layout.slot(i) {
            Slot::Node(n) => sys.free[3 * n + d],
            Slot::Linear(r) | Slot::Angular(r) if self.layout.rigid[r].kinematic => usize::MAX,
            Slot::Linear(r) => sys.n_free + 6 * r + d,
            Slot::Angular(r) => sys.n_free + 6 * r + 3 + d,
        }
    }

    /// Number of unknowns.
    fn unknowns(&self, sys: &System) -> usize {
        sys.n_free + 6 * self.layout.rigid.len()
    }

    /// Every (pseudo-)node entry with its unknown's index: `(entry of v, index)`.
    fn entries<'s>(&'s self, sys: &'s System) -> impl Iterator<Item = (usize, usize)> + 's {
        let nodes = sys.free.iter().enumerate().map(|(dof, &f)| (dof, f));
        let rigid = (0..6 * self.layout.rigid.len()).map(move |j| {
            let dof = 3 * self.layout.nodes + j;
            (dof, self.index(sys, dof / 3, dof % 3))
        });
        nodes.chain(rigid).filter(|(_, f)| *f != usize::MAX)
    }

    /// Per unknown, the scalar mass that turns its residual into a speed.
    fn speed_masses(&self, model: &Model, sys: &System) -> &[f64] {
        self.speed_mass.get_or_init(|| {
            let mut m = vec![1.0; self.unknowns(sys)];
            for (dof, f) in self.entries(sys) {
                m[f] = self.layout.speed_mass(model, dof / 3);
            }
            m
        })
    }

    /// Evaluate the system at `v` (and its Jacobian with `jacobian`), then the KKT residuals for
    /// the barrier target `mu`.
    fn kkt(&self, sys: &mut System, model: &Model, it: &Iterate, mu: f64, jacobian: bool) -> Result<Kkt, EvalError> {
        let q = self.positions(&it.v);
        let (v, v_hat) = (&it.v[..q.len()], &self.v_hat[..q.len()]);
        sys.evaluate(model, &self.stage, &q, v, v_hat, jacobian, None)?;
        if jacobian && sys.grow_pattern_if_needed() {
            sys.evaluate(model, &self.stage, &q, v, v_hat, jacobian, None)?;
        }
        let mut rd = sys.residual.clone();
        rd.extend(self.rigid_residual(model, sys, &it.v));
        for (dof, f) in self.entries(sys) {
            rd[f] -= self.forward[dof];
        }
        let c: Vec<f64> = self.contacts.iter().map(|k| k.velocity(&it.v).x).collect();
        for (k, &l) in self.contacts.iter().zip(&it.lam) {
            for (&i, b) in k.nodes.iter().zip(&k.blocks) {
                for d in 0..3 {
                    let f = self.index(sys, i, d);
                    if f != usize::MAX {
                        rd[f] -= b[(0, d)] * l;
                    }
                }
            }
        }
        if let Some(js) = self.joints {
            // The joints' impulses take the rest (module doc of `joints`).
            js.project_residual(&mut rd[sys.n_free..]);
        }
        let rp: Vec<f64> = c.iter().zip(&it.s).map(|(c, s)| c - s).collect();
        let rc: Vec<f64> = it.s.iter().zip(&it.lam).map(|(s, l)| s * l - mu).collect();
        let merit = self.merit(model, sys, &rd, &rp, &rc);
        Ok(Kkt { rd, rp, rc, c, merit })
    }

    /// The rigid bodies' residuals `M_r (w − ŵ)` (6 per body; zero for scripted ones).
    fn rigid_residual(&self, model: &Model, sys: &System, v: &[f64]) -> Vec<f64> {
        let mut rd = vec![0.0; 6 * self.layout.rigid.len()];
        for r in 0..self.layout.rigid.len() {
            let (l, a) = self.layout.pseudo_nodes(r);
            for (slot, node) in [(0, l), (3, a)] {
                let dv = crate::model::node(v, node) - crate::model::node(self.v_hat, node);
                let p = self.layout.mass(model, node) * dv;
                if self.index(sys, node, 0) != usize::MAX {
                    rd[6 * r + slot..6 * r + slot + 3].copy_from_slice(p.as_slice());
                }
            }
        }
        rd
    }

    /// Squared KKT residual in velocity units: `r_d / m` per dof, `r_p`, and `r_c / (m v_ref)`.
    fn merit(&self, model: &Model, sys: &System, rd: &[f64], rp: &[f64], rc: &[f64]) -> f64 {
        let mass = self.speed_masses(model, sys);
        let mut m: f64 = rd.iter().zip(mass).map(|(r, m)| (r / m).powi(2)).sum();
        let vref = self.velocity_scale(model);
        for ((k, p), c) in self.contacts.iter().zip(rp).zip(rc) {
            m += p * p + (c / (k.mass * vref)).powi(2);
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
        let mass = self.speed_masses(model, sys);
        let mut e = kkt.rd.iter().zip(mass).map(|(r, m)| (r / m).abs()).fold(0.0f64, f64::max);
        for ((k, &c), &l) in self.contacts.iter().zip(&kkt.c).zip(&it.lam) {
            e = e.max((-c).max(0.0)).max(c.min(l / k.mass).abs());
        }
        e
    }

    /// Add `Aᵀ diag(d) A` into the assembled Jacobian; false if its pattern lacked entries
    /// (recorded as missing).
    fn add_constraint_curvature(&self, sys: &mut System, d: &[f64]) -> bool {
        let generation = sys.jacobian.generation();
        let mut cache = self.curvature_slots.borrow_mut();
        if cache.as_ref().map(|c| c.0) != Some(generation) {
            let Some(curvature) = self.curvature(sys) else { return false };
            *cache = Some((generation, curvature));
        }
        let blocks = &cache.as_ref().expect("filled above").1.blocks;
        let values = &mut sys.jacobian.values;
        for (b, &dk) in blocks.iter().zip(d) {
            let m = b.coefficients.len();
            for (i, ai) in b.coefficients.iter().enumerate() {
                for (slot, aj) in b.slots[i * m..(i + 1) * m].iter().zip(&b.coefficients) {
                    values[*slot] += dk * ai * aj;
                }
            }
        }
        true
    }

    /// The contacts' [`Curvature`], or `None` with the missing entries recorded.
    fn curvature(&self, sys: &mut System) -> Option<Curvature> {
        let n = sys.n_free;
        let mut c = Curvature { blocks: Vec::with_capacity(self.contacts.len()), ..Default::default() };
        for (i, k) in self.contacts.iter().enumerate() {
            let mut row: Vec<(usize, f64)> = self.row(sys, k).collect();
            let rigid = row.iter().any(|(f, _)| *f >= n);
            row.retain(|(f, _)| *f < n);
            if row.len() > WIDE_ROW && !rigid {
                c.wide.push(i);
                c.wide_rows.push(row);
                c.blocks.push(CurvatureBlock { coefficients: Vec::new(), slots: Vec::new() });
                continue;
            }
            let mut slots = Vec::with_capacity(row.len() * row.len());
            for &(r, _) in &row {
                for &(c, _) in &row {
                    match sys.jacobian.pattern.slot(r, c) {
                        Some(s) => slots.push(s),
                        None => sys.jacobian.missing.push((r, c)),
                    }
                }
            }
            c.blocks.push(CurvatureBlock { coefficients: row.into_iter().map(|(_, a)| a).collect(), slots });
        }
        sys.jacobian.missing.is_empty().then_some(c)
    }

    /// Row 0 of contact `k` over the unknowns: `(index, coefficient)`.
    fn row<'s>(&'s self, sys: &'s System, k: &'s SmoothContact) -> impl Iterator<Item = (usize, f64)> + 's {
        k.nodes.iter().zip(&k.blocks).flat_map(move |(&i, b)| {
            (0..3).map(move |d| (self.index(sys, i, d), b[(0, d)])).filter(|(f, _)| *f != usize::MAX)
        })
    }

    /// `A dv` over the unknowns.
    fn a_times(&self, sys: &System, dv: &[f64]) -> Vec<f64> {
        self.contacts.iter().map(|k| self.row(sys, k).map(|(f, a)| a * dv[f]).sum()).collect()
    }

    /// `rhs −= Aᵀ y` over the unknowns.
    fn sub_a_transpose(&self, sys: &System, y: &[f64], rhs: &mut [f64]) {
        for (k, &yk) in self.contacts.iter().zip(y) {
            for (f, a) in self.row(sys, k) {
                rhs[f] -= a * yk;
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
        // Per body: the ids of its contact vertices and the (pseudo-)nodes that move with it.
        let deformable =
            model.solids.iter().map(|s| s.nodes.clone()).chain(model.cloths.iter().map(|c| c.nodes.clone()));
        let deformable =
            deformable.filter(|r| !r.clone().any(|i| model.node_is_kinematic[i])).map(|r| (r.clone(), r.collect()));
        let first_point = self.layout.nodes + 2 * self.layout.rigid.len();
        let rigid = (0..self.layout.rigid.len())
            .filter(|&r| !self.layout.rigid[r].kinematic)
            .map(|r| (first_point + (r << 32)..first_point + ((r + 1) << 32), vec![self.layout.pseudo_nodes(r).0]));
        let bodies: Vec<(std::ops::Range<usize>, Vec<usize>)> = deformable.chain(rigid).collect();
        for (vertices, moved) in bodies {
            let violated: Vec<(Vector3<f64>, f64)> = self
                .contacts
                .iter()
                .filter(|k| vertices.contains(&k.vertex))
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
            for i in moved {
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
            let nodal = |k: &&SmoothContact| k.vertex < self.layout.nodes && !model.node_is_kinematic[k.vertex];
            for k in self.contacts.iter().filter(nodal) {
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

    /// Raise the starting multiplier of each contact whose vertex
    /// [`feasible_start`](Self::feasible_start) lifted by more than `vref` (an impact: more speed
    /// than a step of gravity gives) to the impulse that holds it there: the vertex's residual
    /// along the contact normal, shared among the contacts of that vertex. Lifting a vertex alone
    /// stretches its neighbours (a pinned sheet under a falling ball cannot move as a whole), and
    /// with multipliers near zero nothing balanced that residual: the method started at 4e2 m/s
    /// and the fraction-to-boundary rule held it to steps of about 1e-3 for 100 iterations
    /// (measured on a 40 × 40 trampoline sheet at its first contacts). A resting contact keeps
    /// its last impulse, the closer start (the held impulse of a stiff block's slightly lifted
    /// vertex overstates it more than tenfold, measured, and cost an iteration per step).
    fn dual_start(&self, sys: &mut System, model: &Model, it: &mut Iterate, unlifted: &[f64], vref: f64) {
        let lifted = |i: usize| (crate::model::node(&it.v, i) - crate::model::node(unlifted, i)).norm() > vref;
        let impacts: Vec<usize> = (0..self.contacts.len())
            .filter(|&c| {
                let i = self.contacts[c].vertex;
                i < self.layout.nodes && !model.node_is_kinematic[i] && lifted(i)
            })
            .collect();
        if impacts.is_empty() {
            return;
        }
        let free = Iterate { v: it.v.clone(), s: it.s.clone(), lam: vec![0.0; it.lam.len()] };
        let Ok(kkt) = self.kkt(sys, model, &free, 0.0, false) else { return };
        let mut sharing = std::collections::HashMap::<usize, f64>::new();
        for k in self.contacts {
            *sharing.entry(k.vertex).or_default() += 1.0;
        }
        for c in impacts {
            let k = &self.contacts[c];
            let n = k.blocks[0].row(0);
            let along: f64 = (0..3).map(|d| kkt.rd[self.index(sys, k.vertex, d)] * n[d]).sum();
            it.lam[c] = it.lam[c].max(along / (n.norm_squared() * sharing[&k.vertex]));
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
        sys.linear.clear_rows();
        self.shift_free_bodies(model, v, 0.1 * vref);
        let unlifted = v.to_vec();
        self.feasible_start(model, v, 0.1 * vref);
        if let Some(js) = self.joints {
            let first = 3 * self.layout.nodes;
            js.project(&mut v[first..first + 6 * self.layout.rigid.len()]);
        }
        let c0: Vec<f64> = self.contacts.iter().map(|k| k.velocity(v).x).collect();
        let s: Vec<f64> = c0.iter().map(|c| c.max(0.1 * vref)).collect();
        let mean_mass = self.contacts.iter().map(|k| k.mass).sum::<f64>() / self.contacts.len().max(1) as f64;
        let mu0 = 0.1 * mean_mass * vref * vref;
        let lam = s.iter().zip(self.lambda0).map(|(s, l0)| (mu0 / s).max(*l0)).collect();
        let mut it = Iterate { v: v.to_vec(), s, lam };
        self.dual_start(sys, model, &mut it, &unlifted, vref);
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
                None if sys.linear.direct == Direct::Off => sys.linear.direct = Direct::Exact,
                None => {
                    out.failure = Some(format!("predictor: line search failed (error {:.3e} m/s)", out.error));
                    break;
                }
            }
            // Near convergence the multipliers of active contacts make `λ/s` huge, and a direction
            // solved by GMRES to a relative tolerance leaves an error in `A dv` that `dλ = D(…)`
            // amplifies: the stationarity error then stalls (measured: 1.2e-8 m/s on the
            // trampoline). From then on, exact solves: a direct factorization per iteration, or,
            // where the contacts are all wide rows (`row_system`), one fresh factor around which
            // the rows' multipliers come exact.
            if out.iterations > 1 && self.stalled(last_error, model, sys, &it) {
                sys.linear.direct = Direct::Exact;
            }
        }
        sys.linear.direct = Direct::Off;
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
        let nf = sys.n_free;
        let mut b: Vec<f64> = kkt.rd.iter().map(|r| -r).collect();
        let y: Vec<f64> = (0..d.len()).map(|k| d[k] * kkt.rp[k] + kkt.rc[k] / it.s[k]).collect();
        self.sub_a_transpose(sys, &y, &mut b);
        let rigid = RigidBlock::new(self, model, sys, d)?;
        let bn = rigid.reduced_rhs(&b[..nf], &b[nf..]);
        let mut mass = vec![0.0; nf];
        for (dof, &f) in sys.free.iter().enumerate().filter(|(_, f)| **f != usize::MAX) {
            mass[f] = model.node_mass[dof / 3];
        }
        let base_terms = sys.low_rank.len();
        sys.low_rank.extend(rigid.schur_terms());
        let mut shift = 0.0;
        let cache = self.curvature_slots.borrow();
        let wide = &cache.as_ref().expect("filled by add_constraint_curvature").1;
        let wide_d: Vec<f64> = wide.wide.iter().map(|&k| d[k]).collect();
        let rows = RowTerms { rows: &wide.wide_rows, d: &wide_d };
        let solved = loop {
            let mut x = bn.clone();
            let start = Instant::now();
            let solved = sys.linear.solve_with_rows(&sys.jacobian, &sys.low_rank, rows, &mut x);
            stats.linear_solve_s += start.elapsed().as_secs_f64();
            let info = match solved {
                Ok(info) => info,
                // With low-rank terms beside the wide rows (rigid bodies), GMRES measures the
                // true residual, which rounds to `d (a·x)` once the active contacts' weights are
                // ~1e12 times the diagonal (measured on the trampoline: the inverse alone then
                // left a 5e-2 relative residual); the exact path answers those systems.
                Err(_) if sys.linear.direct == Direct::Off && !rows.is_empty() && !sys.low_rank.is_empty() => {
                    sys.linear.direct = Direct::Exact;
                    continue;
                }
                Err(_) => break None,
            };
            stats.linear_iterations += info.gmres_iterations;
            stats.factorizations += info.factorizations;
            // Inertia correction (as Ipopt's): the exact elastic Hessian is indefinite under large
            // compression, and a direction of negative curvature is no Newton step; shift the
            // matrix by a growing multiple of M until the direction has positive curvature.
            let curvature: f64 = x.iter().zip(&bn).map(|(x, b)| x * b).sum();
            let inertia: f64 = x.iter().zip(&mass).map(|(x, m)| m * x * x).sum();
            if curvature > CURVATURE_MIN * inertia || shift >= MAX_SHIFT {
                break Some(x);
            }
            let next = if shift == 0.0 { FIRST_SHIFT } else { 10.0 * shift };
            for (f, m) in mass.iter().enumerate() {
                sys.jacobian.add(f, f, (next - shift) * m);
            }
            shift = next;
        };
        drop(cache);
        sys.low_rank.truncate(base_terms);
        let mut dx = solved?;
        dx.extend(rigid.rigid_direction(&b[nf..], &dx));
        let mut adv = self.a_times(sys, &dx);
        self.take_wide_multipliers(sys, d, &mut adv);
        let ds: Vec<f64> = adv.iter().zip(&kkt.rp).map(|(a, p)| a + p).collect();
        let dl: Vec<f64> = (0..d.len()).map(|k| d[k] * (-kkt.rp[k] - adv[k]) - kkt.rc[k] / it.s[k]).collect();
        let mut dv = vec![0.0; it.v.len()];
        for (dof, f) in self.entries(sys) {
            dv[dof] = dx[f];
        }
        Some((dv, ds, dl))
    }

    /// `A dv` of the wide rows the linear solver's small system answered for, as `y / d`
    /// (`NewtonSolver::row_multipliers`): from `dv` it would be a difference of large numbers
    /// that `dλ = D(…)` then amplifies (measured on the trampoline: the interior-point method
    /// stalled at 2e-8 m/s against its 1e-8 tolerance). Wide rows have no rigid entries
    /// ([`WIDE_ROW`]), so the nodal system's multipliers are the whole row's.
    fn take_wide_multipliers(&self, sys: &mut System, d: &[f64], adv: &mut [f64]) {
        let Some(ys) = sys.linear.row_multipliers.take() else { return };
        let cache = self.curvature_slots.borrow();
        let Some((_, c)) = cache.as_ref() else { return };
        for (pos, y) in ys {
            let k = c.wide[pos];
            if d[k] > 0.0 {
                adv[k] = y / d[k];
            }
        }
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

/// The rigid bodies' part of a Newton system: `S = M_r + A_rᵀ D A_r` (6 per body, identity on
/// scripted ones), its Cholesky factor, and the coupling `Bᵀ = A_rᵀ D A_n` to the free nodal dofs.
///
/// With joints the block is taken in the allowed velocities `z` (`w = Q z`): `Qᵀ S Q` and
/// `Qᵀ Bᵀ`, the direction mapped back by `Q`.
struct RigidBlock<'a> {
    chol: Option<nalgebra::Cholesky<f64, nalgebra::Dyn>>,
    bt: DMatrix<f64>,
    q: Option<&'a DMatrix<f64>>,
}

impl<'a> RigidBlock<'a> {
    fn new(p: &Predictor<'a>, model: &Model, sys: &System, d: &[f64]) -> Option<RigidBlock<'a>> {
        let (nf, nr) = (sys.n_free, 6 * p.layout.rigid.len());
        if nr == 0 {
            return Some(RigidBlock { chol: None, bt: DMatrix::zeros(0, nf), q: None });
        }
        let mut s = DMatrix::<f64>::zeros(nr, nr);
        for (at, m) in RigidBlock::masses(p, model) {
            s.view_mut((at, at), (3, 3)).copy_from(&m);
        }
        let mut bt = DMatrix::<f64>::zeros(nr, nf);
        for (k, &dk) in p.contacts.iter().zip(d) {
            let row: Vec<(usize, f64)> = p.row(sys, k).collect();
            for &(i, ai) in row.iter().filter(|(i, _)| *i >= nf) {
                for &(j, aj) in &row {
                    if j >= nf {
                        s[(i - nf, j - nf)] += dk * ai * aj;
                    } else {
                        bt[(i - nf, j)] += dk * ai * aj;
                    }
                }
            }
        }
        let q = p.joints.map(|js| &js.q);
        let reduced = match q {
            Some(q) => q.transpose() * &s * q,
            None => s,
        };
        let chol = match reduced.cholesky() {
            Some(c) => c,
            None => RigidBlock::factor_by_qr(p, model, sys, d, q)?,
        };
        let bt = match q {
            Some(q) => q.tr_mul(&bt),
            None => bt,
        };
        Some(RigidBlock { chol: Some(chol), bt, q })
    }

    /// The 3×3 diagonal blocks of `M_r`, each with the index of its first row: a body's mass
    /// and world inertia, the identity for a scripted body (its velocity is prescribed).
    fn masses<'m>(p: &'m Predictor, model: &'m Model) -> impl Iterator<Item = (usize, Matrix3<f64>)> + 'm {
        (0..p.layout.rigid.len()).flat_map(move |r| {
            let (l, a) = p.layout.pseudo_nodes(r);
            [(0, l), (3, a)].map(|(o, node)| {
                let m = if p.layout.rigid[r].kinematic { Matrix3::identity() } else { p.layout.mass(model, node) };
                (6 * r + o, m)
            })
        })
    }

    /// The factor of `S = Kᵀ K`, `K = [M_r^½; D^½ A_r]` (times `Q` with joints), from the QR
    /// factorization of `K` instead of the Cholesky factorization of `S`: at rest on redundant
    /// contacts (a box's face on another's) the interior point's `D = Λ S⁻¹` reaches 1e16, and
    /// forming `S` rounds its smallest eigenvalues (a ball's inertia, 3e-4 kg m²) to negative
    /// ones (measured −1.3e-4 in a stack of three boxes); `K`'s QR keeps them, since its error
    /// grows as the square root of `S`'s condition number.
    fn factor_by_qr(
        p: &Predictor,
        model: &Model,
        sys: &System,
        d: &[f64],
        q: Option<&DMatrix<f64>>,
    ) -> Option<nalgebra::Cholesky<f64, nalgebra::Dyn>> {
        let (nf, nr) = (sys.n_free, 6 * p.layout.rigid.len());
        let rows: Vec<(f64, Vec<(usize, f64)>)> = p
            .contacts
            .iter()
            .zip(d)
            .map(|(k, &dk)| (dk.sqrt(), p.row(sys, k).filter(|(i, _)| *i >= nf).collect::<Vec<_>>()))
            .filter(|(_, row)| !row.is_empty())
            .collect();
        let mut k = DMatrix::<f64>::zeros(nr + rows.len(), nr);
        for (at, m) in RigidBlock::masses(p, model) {
            // M^½ as the transpose of M's Cholesky factor: (Lᵀ)ᵀ Lᵀ = M.
            let root = m.cholesky()?.l().transpose();
            k.view_mut((at, at), (3, 3)).copy_from(&root);
        }
        for (c, (sd, row)) in rows.iter().enumerate() {
            for &(i, ai) in row {
                k[(nr + c, i - nf)] += sd * ai;
            }
        }
        let k = match q {
            Some(q) => k * q,
            None => k,
        };
        let r = k.qr().r();
        // Rᵀ R = Kᵀ K; rows of R turned to a positive diagonal give the lower factor L = Rᵀ.
        let mut l = r.transpose();
        for j in 0..l.ncols() {
            if l[(j, j)] < 0.0 {
                l.column_mut(j).neg_mut();
            }
            if l[(j, j)] == 0.0 || !l[(j, j)].is_finite() {
                return None;
            }
        }
        Some(nalgebra::Cholesky::pack_dirty(l))
    }

    /// `Qᵀ b_r` (the identity without joints).
    fn reduce(&self, br: &[f64]) -> DVector<f64> {
        let b = DVector::from_column_slice(br);
        match self.q {
            Some(q) => q.tr_mul(&b),
            None => b,
        }
    }

    /// `b_n − B S⁻¹ b_r`.
    fn reduced_rhs(&self, bn: &[f64], br: &[f64]) -> Vec<f64> {
        let Some(chol) = &self.chol else { return bn.to_vec() };
        let y = chol.solve(&self.reduce(br));
        let by = self.bt.tr_mul(&y);
        bn.iter().zip(by.iter()).map(|(b, c)| b - c).collect()
    }

    /// `−B S⁻¹ Bᵀ = −C Cᵀ` with `Cᵀ = L⁻¹ Bᵀ`, as rank-one terms `(−c, c)`.
    fn schur_terms(&self) -> Vec<(Vec<f64>, Vec<f64>)> {
        let Some(chol) = &self.chol else { return Vec::new() };
        let ct = chol.l().solve_lower_triangular(&self.bt).expect("a Cholesky factor has a non-zero diagonal");
        ct.row_iter()
            .filter(|c| c.iter().any(|x| *x != 0.0))
            .map(|c| {
                let c: Vec<f64> = c.iter().copied().collect();
                (c.iter().map(|x| -x).collect(), c)
            })
            .collect()
    }

    /// `dw = S⁻¹ (b_r − Bᵀ dv)`.
    fn rigid_direction(&self, br: &[f64], dv: &[f64]) -> Vec<f64> {
        let Some(chol) = &self.chol else { return Vec::new() };
        let rhs = self.reduce(br) - &self.bt * DVector::from_column_slice(dv);
        let dz = chol.solve(&rhs);
        match self.q {
            Some(q) => (q * dz).iter().copied().collect(),
            None => dz.iter().copied().collect(),
        }
    }
}

/// Largest step in `(0, 1]` keeping `x + α dx ≥ (1 − τ) x` for positive `x`.
fn fraction_to_boundary(x: &[f64], dx: &[f64]) -> f64 {
    x.iter().zip(dx).filter(|(_, d)| **d < 0.0).map(|(x, d)| -TAU * x / d).fold(1.0, f64::min)
}

/// Generalized impulse `Σ_c B_cᵀ r_c` (in the layout) of contact-frame impulses `r` (3 per
/// contact).
pub fn generalized_impulse(layout: &Layout, contacts: &[SmoothContact], r: &[f64]) -> Vec<f64> {
    let mut f = vec![0.0; layout.len()];
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
