//! The ADMM time integrator for nodal bodies (004 §6.1, "use with an ADMM implicit time
//! integrator", after Narain et al. 2016, "ADMM ⊇ Projective Dynamics"): backward Euler's step
//! problem
//!
//! `min_v ½ |v − v̄|²_M + Σ_e E_e(x(v))`, `x(v) = x_t + h v`, `v̄ = v_t + h g`, with the contacts,
//!
//! is split per element like the contacts are split per dof. Each element `e` (rod edge, rod
//! bend–twist node, membrane triangle, hinge, tetrahedron) sees its nodes through
//! `D_e x = (x_1 − x_0, …, x_{n−1} − x_0)` (its energy is translation invariant, so
//! `E_e(x) = Ê_e(D_e x)` exactly), gets a copy `z_e` of those edge vectors, a scaled dual `u_e` and
//! a constant weight `w_e`, and one ADMM iteration is:
//! 1. global: `(M + h² Σ w_e D_eᵀD_e + W) v = M v̄ + h Σ w_e D_eᵀ(z_e − u_e − c_e) + W (p + λ)`, with
//!    `c_e` the kinematic nodes' and start positions' part of `D_e x(v)`; the matrix never
//!    changes, so it is factorised once for the whole run (the integrator's point: no Hessian
//!    assembly, no refactorisation);
//! 2. local, elements: `z_e = argmin Ê_e(z) + w_e/2 |z − (D_e x(v) + u_e)|²` (a few damped Newton
//!    steps on ≤ 9 unknowns with the element's PSD Hessian, warm-started from the last `z_e`),
//!    then `u_e += D_e x(v) − z_e`;
//! 3. local, contacts: the Gauss–Seidel projection of `dfcp::admm` (004 Algorithm 3) and `λ`.
//!
//! At a fixed point `z_e = D_e x` and `h Σ D_eᵀ ∇Ê_e = h ∇E`, so the solution is backward Euler's
//! exactly; the error reported (and tested against `tolerance`) is that of the exact equation
//! `M (v − v̄) + h ∇E(x(v)) = H r` with the natural map of the contacts, so a solve stopped early
//! is never reported as converged (004's δ∞ rule can accept it, as for the PN solver).
//!
//! Weights: `w_e` is the scene's `admm.element_weight` times the mean of the positive eigenvalues
//! of the element's Hessian (in the edge-vector coordinates) at the first step's configuration,
//! i.e. its stiffness, as Projective Dynamics uses the constraint stiffness. The factor matters
//! (as Narain et al. and 004 §8 say of ADMM weights). On the cloth-and-rod contact step of
//! `tests/admm_integrator.rs`, iterations to an error of 1e-4 / 1e-5 / 1e-6: factor 1: 1358 /
//! 2691 / 4100; 0.3: 409 / 811 / 1235; 0.1: 169 to 1e-4, then it stalls (no 1e-5 in 20000);
//! 0.03 stalls before 1e-4: below the compressed cloth's negative curvature the proximal
//! problems turn non-convex. Hence the default 0.3, the fastest setting that converged.
//! Elements with no stiffness are dropped (their energy is then identically zero, e.g. zero bending stiffness).
//!
//! Rayleigh damping `D = α M + β K`: `α` scales the mass of the global matrix (constant, as the
//! factorisation wants); `β` is Rayleigh's dissipation function per element,
//! `h β ½ vᵀ K_e v = β/(2h) |z − y_e⁰|²_{K̂_e}` with `y_e⁰` the edge vectors at the step's start and
//! `K̂_e` the element's PSD Hessian there, added to the element's local problem (and to the exact
//! equation). The Newton integrator damps with `K` at the iterate instead; both are first-order
//! consistent and agree exactly where `K` is constant (a spring along its axis).

use super::nodal_elastic::{Stencil, evaluate_at, rayleigh_beta};
use crate::dfcp::admm::Splitting;
use crate::dfcp::problem::Csc;
use crate::model::{Model, State, node};
use faer::sparse::Triplet;
use nalgebra::{SMatrix, SVector, Vector3};
use rayon::prelude::*;

/// Edge-vector coordinates per element (up to 3 edges of a 4-node stencil).
const K: usize = 9;

/// One split element.
#[derive(Clone, Copy, Debug)]
struct Element {
    /// Index into the elastic assembly's stencils.
    stencil: usize,
    weight: f64,
}

/// An element's Rayleigh dissipation over one step: `½ (z − y0)ᵀ k (z − y0)`, `k = β/h K̂(y0)`.
#[derive(Clone, Copy, Debug)]
struct Dissipation {
    y0: [f64; K],
    k: SMatrix<f64, K, K>,
}

impl Dissipation {
    /// `k (z − y0)`.
    fn gradient(&self, z: &[f64; K]) -> SVector<f64, K> {
        self.k * SVector::<f64, K>::from_fn(|a, _| z[a] - self.y0[a])
    }
}

/// The elements' ADMM state across steps (z and u are carried over as warm starts).
pub(super) struct ElasticSplit {
    elements: Vec<Element>,
    /// Per element, `K` entries each: the consensus copy, the scaled dual, the known part.
    z: Vec<f64>,
    u: Vec<f64>,
    c: Vec<f64>,
    /// `M + h² Σ w_e D_eᵀ D_e` over free dofs, and the step it was built for.
    matrix: Option<(Csc, f64)>,
    /// The diagonal mass matrix over free dofs (the exact equation's matrix).
    pub(super) mass: Option<Csc>,
    /// Per free dof: `M v̄` (the base right-hand side).
    pub(super) f_base: Vec<f64>,
    /// Per element: energy and edge-vector gradient (buffer of the exact residual).
    gradients: Vec<(f64, [f64; K])>,
    /// Per element: its Rayleigh β (s), and this step's dissipation if β > 0.
    beta: Vec<f64>,
    dissipation: Vec<Option<Dissipation>>,
}

/// What one step's split needs from the model and state (borrowed for the solve).
pub(super) struct StepSplit<'a> {
    pub split: &'a mut ElasticSplit,
    pub model: &'a Model,
    pub state: &'a State,
    pub theta: &'a [Vec<f64>],
    pub stencils: &'a [Stencil],
    pub free: &'a [usize],
    pub h: f64,
    /// Sum of the elements' energies at the last exact-residual evaluation (J).
    pub energy: f64,
}

/// The split's elements `(stencil, weight)` and their consensus copies and scaled duals (for a
/// checkpoint); the rest is rebuilt by the next step's `prepare`.
pub(super) type SplitSaved = (Vec<(usize, f64)>, Vec<f64>, Vec<f64>);

impl ElasticSplit {
    pub(super) fn saved(&self) -> SplitSaved {
        (self.elements.iter().map(|e| (e.stencil, e.weight)).collect(), self.z.clone(), self.u.clone())
    }

    /// A split from [`saved`](Self::saved) over `stencils` stencils.
    pub(super) fn restored((elements, z, u): SplitSaved, stencils: usize) -> Result<ElasticSplit, String> {
        let n = K * elements.len();
        if z.len() != n || u.len() != n || elements.iter().any(|e| e.0 >= stencils) {
            return Err("the checkpoint's ADMM elements are not this scene's".into());
        }
        let elements = elements.into_iter().map(|(stencil, weight)| Element { stencil, weight }).collect();
        Ok(ElasticSplit {
            elements,
            z,
            u,
            c: vec![0.0; n],
            matrix: None,
            mass: None,
            f_base: Vec::new(),
            gradients: Vec::new(),
            beta: Vec::new(),
            dissipation: Vec::new(),
        })
    }

    /// Elements of `stencils` with a free node and non-zero stiffness at positions `x`; weights
    /// are their stiffness times `weight_scale`.
    pub(super) fn new(
        model: &Model,
        state: &State,
        theta: &[Vec<f64>],
        stencils: &[Stencil],
        free: &[usize],
        x: &[f64],
        weight_scale: f64,
    ) -> ElasticSplit {
        let weights: Vec<Option<f64>> = stencils
            .par_iter()
            .map(|s| {
                let n = s.nn as usize;
                if !s.nodes[..n].iter().any(|&i| free[3 * i] != usize::MAX) {
                    return None;
                }
                let at: [Vector3<f64>; 4] = std::array::from_fn(|k| node(x, s.nodes[k]));
                let l = evaluate_at(model, state, theta, s, &at, true);
                let m = 3 * (n - 1);
                let hm = SMatrix::<f64, K, K>::from_fn(|a, b| if a < m && b < m { l.hess[3 + a][3 + b] } else { 0.0 });
                let eig = hm.symmetric_eigenvalues();
                let top = eig.iter().fold(0.0f64, |t, &e| t.max(e));
                // Eigenvalues below 1e-8 of the largest are the element's rigid modes.
                let positive: Vec<f64> = eig.iter().copied().filter(|&e| e > 1e-8 * top).collect();
                (top > 0.0).then(|| weight_scale * positive.iter().sum::<f64>() / positive.len() as f64)
            })
            .collect();
        let elements: Vec<Element> =
            weights.iter().enumerate().filter_map(|(k, w)| w.map(|weight| Element { stencil: k, weight })).collect();
        let mut z = vec![0.0; K * elements.len()];
        for (e, el) in elements.iter().enumerate() {
            let s = &stencils[el.stencil];
            let x0 = node(x, s.nodes[0]);
            for k in 1..s.nn as usize {
                let d = node(x, s.nodes[k]) - x0;
                z[K * e + 3 * (k - 1)..K * e + 3 * k].copy_from_slice(d.as_slice());
            }
        }
        let n = K * elements.len();
        ElasticSplit {
            elements,
            z,
            u: vec![0.0; n],
            c: vec![0.0; n],
            matrix: None,
            mass: None,
            f_base: Vec::new(),
            gradients: Vec::new(),
            beta: Vec::new(),
            dissipation: Vec::new(),
        }
    }

    /// Prepare a step of length `h` from `x0` with the velocities `v` (its kinematic entries
    /// are the prescribed ones): the known parts `c_e`, `M v̄`, the damped elements'
    /// dissipation, and the global matrix (built once per step length).
    #[allow(clippy::too_many_arguments)]
    pub(super) fn prepare(
        &mut self,
        model: &Model,
        state: &State,
        theta: &[Vec<f64>],
        stencils: &[Stencil],
        free: &[usize],
        x0: &[f64],
        v: &[f64],
        h: f64,
    ) {
        self.prepare_dissipation(model, state, theta, stencils, x0, h);
        let pos = |i: usize, d: usize| {
            let g = 3 * i + d;
            if free[g] == usize::MAX { x0[g] + h * v[g] } else { x0[g] }
        };
        for (e, el) in self.elements.iter().enumerate() {
            let s = &stencils[el.stencil];
            for k in 1..s.nn as usize {
                for d in 0..3 {
                    self.c[K * e + 3 * (k - 1) + d] = pos(s.nodes[k], d) - pos(s.nodes[0], d);
                }
            }
        }
        let n_free = free.iter().filter(|&&f| f != usize::MAX).count();
        self.f_base.resize(n_free, 0.0);
        for (g, &fd) in free.iter().enumerate() {
            if fd != usize::MAX {
                let m = model.node_mass[g / 3];
                self.f_base[fd] = m * (v[g] + h * model.gravity[g % 3]);
            }
        }
        if self.matrix.as_ref().is_none_or(|(_, hm)| *hm != h) {
            // `M (1 + h α)`: the exact equation's matrix, and the global matrix's first part.
            let alpha = model.node_rayleigh_alpha();
            let mass: Vec<_> = free
                .iter()
                .enumerate()
                .filter(|(_, fd)| **fd != usize::MAX)
                .map(|(g, &fd)| Triplet::new(fd, fd, model.node_mass[g / 3] * (1.0 + h * alpha[g / 3])))
                .collect();
            self.matrix = Some((self.build_matrix(stencils, free, n_free, h, mass.clone()), h));
            self.mass = Some(Csc::try_new_from_triplets(n_free, n_free, &mass).expect("indices within the free dofs"));
        }
    }

    /// Element `e`'s consensus weight for steps of length `h`: its stiffness-based weight times
    /// `1 + β/h`, as the dissipation adds `β/h` times the stiffness to the element's local
    /// problem (with the undamped weight, ADMM crawled: 75 s instead of 2 s for a damped
    /// oscillator run of `tests/rayleigh_damping.rs` at β/h = 50).
    fn weight(&self, e: usize, h: f64) -> f64 {
        self.elements[e].weight * (1.0 + self.beta.get(e).map_or(0.0, |b| b / h))
    }

    /// Each damped element's dissipation for a step of length `h` from `x0` (none when no
    /// element is damped).
    fn prepare_dissipation(
        &mut self,
        model: &Model,
        state: &State,
        theta: &[Vec<f64>],
        stencils: &[Stencil],
        x0: &[f64],
        h: f64,
    ) {
        if self.beta.len() != self.elements.len() {
            self.beta = self.elements.iter().map(|el| rayleigh_beta(model, &stencils[el.stencil])).collect();
        }
        if self.beta.iter().all(|&b| b == 0.0) {
            return;
        }
        let (elements, beta) = (&self.elements, &self.beta);
        self.dissipation =
            (0..elements.len())
                .into_par_iter()
                .map(|e| {
                    let b = beta[e];
                    (b > 0.0).then(|| {
                        let s = &stencils[elements[e].stencil];
                        let at: [Vector3<f64>; 4] = std::array::from_fn(|k| node(x0, s.nodes[k]));
                        let l = evaluate_at(model, state, theta, s, &at, true);
                        let m = 3 * (s.nn as usize - 1);
                        let k = SMatrix::<f64, K, K>::from_fn(|a, c| {
                            if a < m && c < m { b / h * l.hess[3 + a][3 + c] } else { 0.0 }
                        });
                        let y0 = std::array::from_fn(|a| if a < m { (at[a / 3 + 1] - at[0])[a % 3] } else { 0.0 });
                        Dissipation { y0, k }
                    })
                })
                .collect();
    }

    /// `mass` (the triplets of `M (1 + h α)`) plus `h² Σ w_e D_eᵀ D_e` over free dofs: `D_eᵀ D_e`
    /// has `n − 1` on node 0's diagonal, 1 on the others', −1 between node 0 and each other node
    /// (times the 3×3 identity).
    fn build_matrix(
        &self,
        stencils: &[Stencil],
        free: &[usize],
        n_free: usize,
        h: f64,
        mass: Vec<Triplet<usize, usize, f64>>,
    ) -> Csc {
        let mut t = mass;
        t.reserve(21 * self.elements.len());
        for (e, el) in self.elements.iter().enumerate() {
            let s = &stencils[el.stencil];
            let n = s.nn as usize;
            let hw = h * h * self.weight(e, h);
            for a in 0..n {
                for b in 0..n {
                    let dtd = match (a, b) {
                        (0, 0) => (n - 1) as f64,
                        (0, _) | (_, 0) => -1.0,
                        _ if a == b => 1.0,
                        _ => continue,
                    };
                    for d in 0..3 {
                        let (r, c) = (free[3 * s.nodes[a] + d], free[3 * s.nodes[b] + d]);
                        if r != usize::MAX && c != usize::MAX {
                            t.push(Triplet::new(r, c, hw * dtd));
                        }
                    }
                }
            }
        }
        Csc::try_new_from_triplets(n_free, n_free, &t).expect("indices within the free dofs")
    }
}

impl StepSplit<'_> {
    /// `D_e x(v)` of element `e` (free velocities `v`).
    fn edges(&self, e: usize, v: &[f64]) -> [f64; K] {
        let el = self.split.elements[e];
        let s = &self.stencils[el.stencil];
        let mut y = [0.0; K];
        y.copy_from_slice(&self.split.c[K * e..K * e + K]);
        let vel = |i: usize, d: usize| {
            let f = self.free[3 * i + d];
            if f == usize::MAX { 0.0 } else { v[f] }
        };
        for k in 1..s.nn as usize {
            for d in 0..3 {
                y[3 * (k - 1) + d] += self.h * (vel(s.nodes[k], d) - vel(s.nodes[0], d));
            }
        }
        y
    }

    /// `f += D_eᵀ y` over the free dofs (node k gets `y_k`, node 0 gets `−Σ_k y_k`).
    fn add_dt(&self, s: &Stencil, y: &[f64; K], f: &mut [f64]) {
        for k in 1..s.nn as usize {
            for d in 0..3 {
                let yk = y[3 * (k - 1) + d];
                let (a, b) = (self.free[3 * s.nodes[k] + d], self.free[3 * s.nodes[0] + d]);
                if a != usize::MAX {
                    f[a] += yk;
                }
                if b != usize::MAX {
                    f[b] -= yk;
                }
            }
        }
    }

    /// Positions of the stencil's nodes for edge vectors `z` (node 0 at the origin).
    fn positions(s: &Stencil, z: &[f64; K]) -> [Vector3<f64>; 4] {
        std::array::from_fn(|k| {
            if k == 0 || k >= s.nn as usize {
                Vector3::zeros()
            } else {
                Vector3::new(z[3 * (k - 1)], z[3 * (k - 1) + 1], z[3 * (k - 1) + 2])
            }
        })
    }

    /// `argmin_z Ê(z) + w/2 |z − y|²`, from `z` (updated in place): damped Newton with the
    /// element's Hessian plus `w I` (made positive definite), Armijo backtracking on the proximal
    /// objective, until the gradient is below 1e-10 of `w0 |y|∞` (round-off level for the
    /// edge-vector magnitudes) or 3 steps: an inexact local step is enough inside ADMM, the
    /// next iteration continues from it, and the error reported is measured on the exact
    /// equation, not on the local steps.
    /// With Rayleigh damping `d`, `Ê(z)` also holds the element's dissipation, and the gradient
    /// is measured against the undamped weight `w0` (the dissipation's stiffness `β/h K̂`, large
    /// at small steps, is not the scale of the exact equation's elastic forces).
    fn prox(&self, s: &Stencil, (w, w0): (f64, f64), d: Option<&Dissipation>, y: &[f64; K], z: &mut [f64; K]) {
        let m = 3 * (s.nn as usize - 1);
        let scale = y.iter().fold(0.0f64, |a, b| a.max(b.abs()));
        let objective = |z: &[f64; K]| {
            let l = evaluate_at(self.model, self.state, self.theta, s, &Self::positions(s, z), false);
            let d2: f64 = (0..m).map(|a| (z[a] - y[a]).powi(2)).sum();
            let dissipated = d.map_or(0.0, |d| {
                let dz = SVector::<f64, K>::from_fn(|a, _| z[a] - d.y0[a]);
                0.5 * dz.dot(&(d.k * dz))
            });
            (l.energy + dissipated + 0.5 * w * d2, l)
        };
        let (mut phi, mut l) = objective(z);
        for _ in 0..3 {
            let gd = d.map_or(SVector::zeros(), |d| d.gradient(z));
            let g =
                SVector::<f64, K>::from_fn(|a, _| if a < m { l.grad[3 + a] + gd[a] + w * (z[a] - y[a]) } else { 0.0 });
            if g.amax() <= 1e-10 * w0 * scale {
                return;
            }
            let shifted = |hess: &[[f64; 12]; 12]| {
                SMatrix::<f64, K, K>::from_fn(|a, b| {
                    if a < m && b < m {
                        hess[3 + a][3 + b] + d.map_or(0.0, |d| d.k[(a, b)]) + if a == b { w } else { 0.0 }
                    } else if a == b {
                        1.0
                    } else {
                        0.0
                    }
                })
            };
            // The element's own Hessian plus `w I` is usually positive definite already (`w` is
            // a fraction of the stiffness); the PSD-projected one (an eigendecomposition, most
            // of the cost) only when it is not.
            let chol = shifted(&l.hess).cholesky().or_else(|| {
                let lp = evaluate_at(self.model, self.state, self.theta, s, &Self::positions(s, z), true);
                shifted(&lp.hess).cholesky()
            });
            let Some(chol) = chol else { return };
            let step = -chol.solve(&g);
            let slope = g.dot(&step);
            let mut t = 1.0;
            loop {
                let trial: [f64; K] = std::array::from_fn(|a| z[a] + t * step[a]);
                let (pt, lt) = objective(&trial);
                if pt <= phi + 1e-4 * t * slope {
                    *z = trial;
                    (phi, l) = (pt, lt);
                    break;
                }
                t *= 0.5;
                if t < 1e-6 {
                    // No decrease along a descent direction: round-off level, keep z.
                    return;
                }
            }
        }
    }
}

impl Splitting for StepSplit<'_> {
    fn matrix(&self) -> &Csc {
        &self.split.matrix.as_ref().expect("prepared before the solve").0
    }

    fn add_rhs(&self, f: &mut [f64]) {
        let sp = &*self.split;
        for (e, el) in sp.elements.iter().enumerate() {
            let hw = self.h * sp.weight(e, self.h);
            let y: [f64; K] = std::array::from_fn(|j| hw * (sp.z[K * e + j] - sp.u[K * e + j] - sp.c[K * e + j]));
            self.add_dt(&self.stencils[el.stencil], &y, f);
        }
    }

    fn update(&mut self, v: &[f64]) -> f64 {
        let n = self.split.elements.len();
        let mut z = std::mem::take(&mut self.split.z);
        let mut u = std::mem::take(&mut self.split.u);
        let this = &*self;
        let residual = z
            .par_chunks_mut(K)
            .zip(u.par_chunks_mut(K))
            .enumerate()
            .map(|(e, (ze, ue))| {
                let el = this.split.elements[e];
                let s = &this.stencils[el.stencil];
                let dx = this.edges(e, v);
                let y: [f64; K] = std::array::from_fn(|a| dx[a] + ue[a]);
                let mut zz: [f64; K] = ze.try_into().expect("K entries");
                let d = this.split.dissipation.get(e).and_then(Option::as_ref);
                this.prox(s, (this.split.weight(e, this.h), el.weight), d, &y, &mut zz);
                let mut r = 0.0f64;
                for a in 0..K {
                    ue[a] += dx[a] - zz[a];
                    r = r.max((dx[a] - zz[a]).abs());
                }
                ze.copy_from_slice(&zz);
                r
            })
            .reduce(|| 0.0, f64::max);
        debug_assert_eq!(z.len(), K * n);
        self.split.z = z;
        self.split.u = u;
        residual / self.h
    }

    fn exact_rhs(&mut self, v: &[f64], f: &mut [f64]) {
        f.copy_from_slice(&self.split.f_base);
        let mut locals = std::mem::take(&mut self.split.gradients);
        locals.resize(self.split.elements.len(), (0.0, [0.0; K]));
        let this = &*self;
        locals.par_iter_mut().enumerate().for_each(|(e, out)| {
            let s = &this.stencils[this.split.elements[e].stencil];
            let y = this.edges(e, v);
            let l = evaluate_at(this.model, this.state, this.theta, s, &Self::positions(s, &y), false);
            let gd =
                this.split.dissipation.get(e).and_then(Option::as_ref).map_or(SVector::zeros(), |d| d.gradient(&y));
            let m = 3 * (s.nn as usize - 1);
            *out = (l.energy, std::array::from_fn(|a| if a < m { l.grad[3 + a] + gd[a] } else { 0.0 }));
        });
        let mut energy = 0.0;
        for (e, (en, g)) in locals.iter().enumerate() {
            energy += en;
            // ∇E = D_eᵀ ∇Ê (∂E/∂x_k = ∂Ê/∂y_k, ∂E/∂x_0 = −Σ_k ∂Ê/∂y_k).
            let y: [f64; K] = std::array::from_fn(|j| -self.h * g[j]);
            self.add_dt(&self.stencils[self.split.elements[e].stencil], &y, f);
        }
        self.energy = energy;
        self.split.gradients = locals;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The dissipation's gradient against central differences of its value
    /// `½ (z − y0)ᵀ k (z − y0)`, and its Hessian (k) against differences of the gradient, at a
    /// random symmetric PSD `k` of a 3-node element's scale. Quadratic, so central differences
    /// are exact up to round-off: asserted to 1e-7 relative (δ = 1e-6 on entries of order 1).
    #[test]
    fn dissipation_gradient_and_hessian_match_finite_differences() {
        let mut seed = 3u64;
        let mut rnd = || crate::test_rng::symmetric(&mut seed);
        let b = SMatrix::<f64, K, K>::from_fn(|_, _| rnd());
        let d = Dissipation { y0: std::array::from_fn(|_| rnd()), k: 50.0 * b * b.transpose() };
        let value = |z: &[f64; K]| {
            let dz = SVector::<f64, K>::from_fn(|a, _| z[a] - d.y0[a]);
            0.5 * dz.dot(&(d.k * dz))
        };
        let z: [f64; K] = std::array::from_fn(|_| rnd());
        let g = d.gradient(&z);
        let delta = 1e-6;
        for a in 0..K {
            let (mut zp, mut zm) = (z, z);
            zp[a] += delta;
            zm[a] -= delta;
            let fd = (value(&zp) - value(&zm)) / (2.0 * delta);
            assert!((fd - g[a]).abs() <= 1e-7 * g.amax(), "gradient {a}: {fd} vs {}", g[a]);
            let hd = (d.gradient(&zp) - d.gradient(&zm)) / (2.0 * delta);
            for c in 0..K {
                assert!((hd[c] - d.k[(c, a)]).abs() <= 1e-7 * d.k.amax(), "Hessian ({c}, {a})");
            }
        }
    }
}
