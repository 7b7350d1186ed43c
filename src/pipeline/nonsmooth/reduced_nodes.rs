//! The nodes of reduced bodies (`crate::reduced`) in the nodal step, eliminated onto their body's
//! `6 + r` unknowns like the roots of `attached`: node `i` moves at `P_i u`, so the nodal system
//! becomes `Pᵀ A P`, `Pᵀ f`, contact columns `Pᵀ H`.
//!
//! A reduced node belongs to no element of the nodal assembly (the body's elasticity is in its
//! modal coordinates), so its only entry in `A` is its lumped mass on the diagonal; the body's
//! block of `Pᵀ A P` is then the dense `Σ m_i P_iᵀ P_i` (`ReducedModel::mass_matrix`, built once per step), built here
//! instead of term by term. The elastic terms of backward Euler are added on the modal rows:
//! `(h² + h β) ∇²E + h α` to the matrix, `−h ∇E + h² ∇²E q̇_k` to the right-hand side, at
//! `q_k = q₀ + h q̇_k` (Newton's linearization at the iterate, as for every nodal body).
//!
//! The map is linearized at the step's start (`P` from the start pose, as rigid contacts and
//! roots are). The body carries its momentum in its own unknowns: its nodes' velocities are
//! `P u` at the pose of the step's start, so `Pᵀ M v₀ = M u₀`, and the quadratic velocity forces
//! (`ReducedModel::quadratic_velocity`: gyroscopic, centrifugal, Coriolis) are added explicitly
//! at `u₀`, as 002's IMEX integrator treats them. (Carrying the momentum in node velocities from
//! the previous pose instead, as attached roots do, loses `(ω h)²/2` of a spinning body's angular
//! momentum per step: 8 % in 0.4 s at 20 rad/s and h = 1e-3.) After the step the frame and modes
//! advance (`ReducedModel::advance`), the nodes are put on the new pose exactly and move at `P u`
//! there.

use crate::model::{Model, set_node};
use crate::reduced::{Frame, ReducedState};
use faer::sparse::Triplet;
use nalgebra::Matrix3;

/// Per reduced body: its offset among the unknowns and its linearization.
pub(super) struct ReducedNodes {
    off: Vec<usize>,
    /// Per body: its number of modes.
    modes: Vec<usize>,
    frames: Vec<Frame>,
    /// Per body: its quadratic velocity forces at the step's start.
    quadratic: Vec<nalgebra::DVector<f64>>,
    /// Per body: its generalized mass at the step's start pose (fixed over the Newton iterations).
    mass: Vec<nalgebra::DMatrix<f64>>,
}

impl ReducedNodes {
    /// Offsets from `first` on, in body order; returns the map and the unknowns after them.
    pub fn new(model: &Model, first: usize) -> (ReducedNodes, usize) {
        let mut n = first;
        let off = model
            .reduced
            .iter()
            .map(|b| {
                n += b.dofs();
                n - b.dofs()
            })
            .collect();
        let modes = model.reduced.iter().map(|b| b.modes()).collect();
        (ReducedNodes { off, modes, frames: Vec::new(), quadratic: Vec::new(), mass: Vec::new() }, n)
    }

    pub fn is_empty(&self) -> bool {
        self.off.is_empty()
    }

    /// Offset of body `b`'s unknowns.
    pub fn offset(&self, b: usize) -> usize {
        self.off[b]
    }

    /// Linearize every body at its start-of-step state.
    pub fn begin_step(&mut self, model: &Model, states: &[ReducedState]) {
        self.frames = model.reduced.iter().zip(states).map(|(b, s)| b.frame(s)).collect();
        self.quadratic = model
            .reduced
            .iter()
            .zip(states)
            .zip(&self.frames)
            .map(|((b, s), f)| b.quadratic_velocity(f, &s.velocity()))
            .collect();
        self.mass = model.reduced.iter().zip(&self.frames).map(|(b, f)| b.mass_matrix(f)).collect();
    }

    /// `(P_i)_{axis, k}` for every `k`, visited with the unknown's index.
    #[inline]
    pub fn for_terms(&self, body: usize, node: usize, axis: usize, mut f: impl FnMut(usize, f64)) {
        let (fr, off, r) = (&self.frames[body], self.off[body], self.modes[body]);
        let y = fr.y[node];
        f(off + axis, 1.0);
        // (ω × y)_a = ω_b y_c − ω_c y_b for the cyclic (a, b, c).
        let (b, c) = ((axis + 1) % 3, (axis + 2) % 3);
        f(off + 3 + b, y[c]);
        f(off + 3 + c, -y[b]);
        for j in 0..r {
            f(off + 6 + j, fr.modes[(3 * node + axis, j)]);
        }
    }

    /// Node `node` of body `body`: the velocity component `axis` from unknowns `p`.
    #[inline]
    pub fn value(&self, body: usize, node: usize, axis: usize, p: &[f64]) -> f64 {
        let mut x = 0.0;
        self.for_terms(body, node, axis, |k, c| x += c * p[k]);
        x
    }

    /// Pushes every body's dense block: `Σ m_i P_iᵀ P_i` plus the elastic terms (module doc) at
    /// the iterate, and adds those terms' right-hand side to `f`. `states` hold the step's start
    /// `q₀` and the iterate's `q̇_k`. Returns the bodies' elastic energy at the iterate.
    pub fn add_blocks(
        &self,
        model: &Model,
        states: &[ReducedState],
        h: f64,
        t: &mut Vec<Triplet<usize, usize, f64>>,
        f: &mut [f64],
    ) -> f64 {
        let mut energy = 0.0;
        for (b, ((body, s), &off)) in model.reduced.iter().zip(states).zip(&self.off).enumerate() {
            let mut a = self.mass[b].clone();
            let qk = &s.q + &s.qdot * h;
            let (e, g, k) = body.elastic(&qk);
            energy += e;
            let (alpha, beta) = body.damping;
            let r = body.modes();
            let kq = &k * &s.qdot;
            for (i, gi) in self.quadratic[b].iter().enumerate() {
                f[off + i] += h * gi;
            }
            for i in 0..r {
                f[off + 6 + i] += -h * g[i] + h * h * kq[i];
                for j in 0..r {
                    a[(6 + i, 6 + j)] += (h * h + h * beta) * k[(i, j)];
                }
                a[(6 + i, 6 + i)] += h * alpha;
            }
            for j in 0..a.ncols() {
                for i in 0..a.nrows() {
                    t.push(Triplet::new(off + i, off + j, a[(i, j)]));
                }
            }
        }
        energy
    }

    /// Contact columns of node `node` of body `body` with weight `wt` in frame `frame`, as
    /// column block `col` of `H`: `wt Fᵀ P_i`.
    pub fn push_column(
        &self,
        (body, node): (usize, usize),
        wt: f64,
        frame: &Matrix3<f64>,
        col: usize,
        trip: &mut Vec<Triplet<usize, usize, f64>>,
    ) {
        for a in 0..3 {
            // Row a of Fᵀ P_i is Σ_d n_d (P_i)_d; repeated unknowns are summed by the assembly.
            let n = frame.column(a);
            for d in 0..3 {
                self.for_terms(body, node, d, |k, c| {
                    let val = wt * n[d] * c;
                    if val != 0.0 {
                        trip.push(Triplet::new(k, 3 * col + a, val));
                    }
                });
            }
        }
    }

    /// Each body's velocities from the unknowns `p` (the Newton iterate).
    pub fn set_velocities(&self, model: &Model, states: &mut [ReducedState], p: &[f64]) {
        for ((body, s), &off) in model.reduced.iter().zip(states).zip(&self.off) {
            body.set_velocity(s, &p[off..off + body.dofs()]);
        }
    }

    /// After the step: frames and modes advanced by `h` at their velocities, nodes put on the new
    /// pose moving at `P u` there (module doc).
    pub fn finish_step(&self, model: &Model, states: &mut [ReducedState], h: f64, (q, v): (&mut [f64], &mut [f64])) {
        for (body, s) in model.reduced.iter().zip(states) {
            let u = s.velocity();
            body.advance(s, &u, h);
            let frame = body.frame(s);
            for (k, (i, x)) in body.nodes.clone().zip(body.positions(s)).enumerate() {
                set_node(q, i, &x);
                set_node(v, i, &body.node_velocity(&frame, k, &u));
            }
        }
    }
}

/// The body and local node of every model node on a reduced body (`None` elsewhere).
pub(super) fn node_bodies(model: &Model) -> Vec<Option<(u32, u32)>> {
    let mut of = vec![None; model.node_count()];
    for (b, body) in model.reduced.iter().enumerate() {
        for (k, i) in body.nodes.clone().enumerate() {
            of[i] = Some((b as u32, k as u32));
        }
    }
    of
}
