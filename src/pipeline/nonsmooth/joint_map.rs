//! The joints of the nodal step (scenes mixing rigid bodies with solids, cloth or rods), as an
//! affine map onto the velocities the joints allow.
//!
//! There the rigid bodies share one global problem with the nodes, `A v = f + H r`, and `A`
//! couples a body to the nodes riding on it (`attached`). The rigid step eliminates its joints
//! with `M⁻¹`, body by body (`joints`); `A⁻¹` is not block-diagonal, so here the rows are
//! eliminated on the velocity side instead. The velocities of each articulated component `B`
//! (dynamic bodies linked by joints) are restricted to `v_B = N z + c`:
//! - `N` an orthonormal basis of the null space of the active rows `G` (the eigenvectors of
//!   `Gᵀ G` below 1e-10 of its largest eigenvalue, as `joints::allowed_velocities`, so redundant
//!   rows of a closed loop cost nothing);
//! - `c` the least-norm velocity meeting the rows' right-hand sides: `−C/h` for an equality row
//!   (the position error closes within the step), a free motor's speed, less what a scripted
//!   side's prescribed velocity already gives.
//!
//! The step's unknowns become `y`: every unknown outside the components unchanged and in order
//! (the nodal ones first, so per-dof data such as ADMM's masses still line up), then `z` per
//! component. With `Q` that map, the problem is `Qᵀ A Q y = Qᵀ (f − A c)`, `H_y = Qᵀ H`,
//! `w_y = w + Hᵀ c`: an ordinary global problem, so every solver (the Delassus-form ones and
//! ADMM) takes jointed bodies unchanged, and the rows hold exactly (to round-off of `N`), not to
//! a solver tolerance. `Qᵀ` removes exactly the directions `Gᵀ λ` the joint impulses act in.
//!
//! A motor row is an equality row while its impulse stays within `h max_torque`. The impulses
//! are read back after the solve from the momentum balance on the component,
//! `Gᵀ λ = A v − f − H r` (least squares over the active rows). A motor past its bound
//! saturates: it leaves `G` and its bound enters `f` as a known impulse; a saturated motor whose
//! spin has passed its target is freed. The nodal step repeats its solve until the set settles,
//! and the set carries over to the next step.

use crate::dfcp::problem::Csc;
use crate::model::Model;
use crate::rigid::RigidBody;
use crate::rigid::joint::{Row, RowKind};
use crate::rigid::joint_space;
use faer::sparse::Triplet;
use nalgebra::{DMatrix, DVector};

/// Where an unknown of the step goes in `y`.
#[derive(Clone, Copy, Debug)]
enum Slot {
    /// Kept, at this index of `y`.
    Keep(usize),
    /// Entry `local` (6 per member body) of component `comp`'s velocities.
    Joint { comp: usize, local: usize },
}

/// One articulated structure of the step.
struct Component {
    /// Its dynamic bodies (indices in `Model::rigids`), ascending.
    bodies: Vec<usize>,
    rows: Vec<Row>,
    /// Per row: `0` for a row in `G`, `±1` for a motor saturated at `±h max_torque`.
    saturated: Vec<f64>,
    /// `N` (6 per member body × the allowed directions) and `c`.
    basis: DMatrix<f64>,
    particular: DVector<f64>,
    /// First index of its `z` in `y`.
    y0: usize,
}

/// The map of one step (module doc). Empty without joints.
#[derive(Default)]
pub(super) struct JointMap {
    slot: Vec<Slot>,
    comps: Vec<Component>,
    n_y: usize,
    h: f64,
    /// `c` spread over the step's unknowns (zero outside the components).
    particular: Vec<f64>,
}

impl Component {
    /// The active rows over the members' velocities and their right-hand sides, a scripted
    /// side's prescribed velocity taken as known.
    fn active(&self, bodies: &[RigidBody], rigid_off: &[usize], h: f64) -> (DMatrix<f64>, DVector<f64>) {
        let known = |b: usize| (rigid_off[b] == usize::MAX).then(|| std::array::from_fn(|d| bodies[b].velocity()[d]));
        joint_space::active_rows(&self.rows, &self.saturated, &self.bodies, known, h)
    }

    /// `N` and `c` for the current active set.
    fn refresh(&mut self, bodies: &[RigidBody], rigid_off: &[usize], h: f64) {
        let (g, rhs) = self.active(bodies, rigid_off, h);
        (self.basis, self.particular) = joint_space::allowed(&g, &rhs);
    }
}

impl JointMap {
    pub fn is_empty(&self) -> bool {
        self.comps.is_empty()
    }

    /// Unknowns of the reduced problem.
    pub fn len(&self) -> usize {
        self.n_y
    }

    /// The map at the bodies' start-of-step poses for a step with `n_total` unknowns, the
    /// dynamic bodies' 6 at `rigid_off` (`usize::MAX`: scripted). `bodies` hold the step's
    /// predicted (scripted: prescribed) velocities.
    pub fn begin_step(&mut self, model: &Model, bodies: &[RigidBody], rigid_off: &[usize], n_total: usize, h: f64) {
        // The motors' set of the last step (joint rows in model order), kept when the rows are
        // the same ones.
        let carried: Vec<f64> = self.comps.iter().flat_map(|c| c.saturated.iter().copied()).collect();
        self.comps.clear();
        self.h = h;
        if model.joints.is_empty() {
            return;
        }
        let dynamic: Vec<bool> = rigid_off.iter().map(|&o| o != usize::MAX).collect();
        for (members, rows) in joint_space::components(&model.joints, &dynamic, bodies, true) {
            self.comps.push(Component {
                bodies: members,
                rows,
                saturated: Vec::new(),
                basis: DMatrix::zeros(0, 0),
                particular: DVector::zeros(0),
                y0: 0,
            });
        }
        let total_rows: usize = self.comps.iter().map(|c| c.rows.len()).sum();
        let carried = if carried.len() == total_rows { carried } else { vec![0.0; total_rows] };
        let mut at = 0;
        for c in &mut self.comps {
            c.saturated = carried[at..at + c.rows.len()].to_vec();
            at += c.rows.len();
            c.refresh(bodies, rigid_off, h);
        }
        self.number(rigid_off, n_total);
    }

    /// The slots of the step's unknowns, the components' offsets in `y` and `c` spread over the
    /// unknowns.
    fn number(&mut self, rigid_off: &[usize], n_total: usize) {
        self.slot = vec![Slot::Keep(usize::MAX); n_total];
        for (k, c) in self.comps.iter().enumerate() {
            for (l, &b) in c.bodies.iter().enumerate() {
                for d in 0..6 {
                    self.slot[rigid_off[b] + d] = Slot::Joint { comp: k, local: 6 * l + d };
                }
            }
        }
        let mut n = 0;
        for s in &mut self.slot {
            if let Slot::Keep(k) = s {
                *k = n;
                n += 1;
            }
        }
        for c in &mut self.comps {
            c.y0 = n;
            n += c.basis.ncols();
        }
        self.n_y = n;
        self.particular = vec![0.0; n_total];
        for (i, s) in self.slot.iter().enumerate() {
            if let Slot::Joint { comp, local } = *s {
                self.particular[i] = self.comps[comp].particular[local];
            }
        }
    }

    /// Calls `term(y index, coefficient)` for each entry of row `i` of `Q`.
    #[inline]
    fn terms(&self, i: usize, mut term: impl FnMut(usize, f64)) {
        match self.slot[i] {
            Slot::Keep(k) => term(k, 1.0),
            Slot::Joint { comp, local } => {
                let c = &self.comps[comp];
                for z in 0..c.basis.ncols() {
                    term(c.y0 + z, c.basis[(local, z)]);
                }
            }
        }
    }

    /// The saturated motors' impulses `± h max_torque` on their dynamic sides, added to `f`.
    pub fn add_known_impulses(&self, rigid_off: &[usize], f: &mut [f64]) {
        for c in &self.comps {
            for (row, &s) in c.rows.iter().zip(&c.saturated) {
                let RowKind::Motor(m) = row.kind else { continue };
                if s == 0.0 {
                    continue;
                }
                for side in 0..2 {
                    if let Some(b) = row.body[side].filter(|&b| rigid_off[b] != usize::MAX) {
                        for d in 0..6 {
                            f[rigid_off[b] + d] += row.jac[side][d] * s * self.h * m.max_torque;
                        }
                    }
                }
            }
        }
    }

    /// `Qᵀ A Q`, `Qᵀ (f − A c)` and `Qᵀ (v − c)` (the starting guess; `Qᵀ Q = 1`).
    pub fn reduce(&self, a: &Csc, f: &[f64], v: &[f64]) -> (Csc, Vec<f64>, Vec<f64>) {
        let c = &self.particular;
        let ar = a.as_ref();
        let mut t = Vec::with_capacity(ar.compute_nnz());
        let mut rest = f.to_vec();
        for (j, &cj) in c.iter().enumerate() {
            for (&i, &x) in ar.row_idx_of_col_raw(j).iter().zip(ar.val_of_col(j)) {
                rest[i] -= x * cj;
                // Every product is pushed, zero or not: the pattern depends on the active set
                // only, not on the pose.
                self.terms(i, |ri, qi| self.terms(j, |rj, qj| t.push(Triplet::new(ri, rj, qi * x * qj))));
            }
        }
        let a_y = crate::dfcp::problem::csc_from_triplets(self.n_y, self.n_y, &t).expect("indices within y");
        (
            a_y,
            self.transpose_times(&rest),
            self.transpose_times(&v.iter().zip(c).map(|(v, c)| v - c).collect::<Vec<_>>()),
        )
    }

    /// `Qᵀ x`.
    fn transpose_times(&self, x: &[f64]) -> Vec<f64> {
        let mut out = vec![0.0; self.n_y];
        for (i, &xi) in x.iter().enumerate() {
            self.terms(i, |k, q| out[k] += q * xi);
        }
        out
    }

    /// Contact columns given in the step's unknowns (`t`, column `j` the `j`-th entry of `w`)
    /// mapped onto `y`: `Qᵀ H`, and `w += Hᵀ c`.
    pub fn reduce_columns(&self, t: &[Triplet<usize, usize, f64>], w: &mut [f64]) -> Vec<Triplet<usize, usize, f64>> {
        let c = &self.particular;
        let mut out = Vec::with_capacity(t.len());
        for e in t {
            w[e.col] += e.val * c[e.row];
            self.terms(e.row, |k, q| out.push(Triplet::new(k, e.col, q * e.val)));
        }
        out
    }

    /// `Q y + c`: the step's unknowns from `y`.
    pub fn expand(&self, y: &[f64]) -> Vec<f64> {
        let mut v = self.particular.clone();
        for (i, vi) in v.iter_mut().enumerate() {
            self.terms(i, |k, q| *vi += q * y[k]);
        }
        v
    }

    /// Whether any component has a motor (whose active set the solve must settle).
    pub fn has_motors(&self) -> bool {
        self.comps.iter().flat_map(|c| &c.rows).any(|r| matches!(r.kind, RowKind::Motor(_)))
    }

    /// Updates the motors' active set from a solve's velocities `v` (the step's unknowns) and
    /// the joints' part of its momentum balance `res = A v − f − H r`; returns whether it
    /// changed, the map then rebuilt for the new set (module doc).
    pub fn update_motors(&mut self, bodies: &[RigidBody], rigid_off: &[usize], v: &[f64], res: &[f64]) -> bool {
        let h = self.h;
        let mut changed = false;
        for c in &mut self.comps {
            let active: Vec<usize> = (0..c.rows.len()).filter(|&i| c.saturated[i] == 0.0).collect();
            let (g, _) = c.active(bodies, rigid_off, h);
            let res_b = DVector::from_fn(6 * c.bodies.len(), |i, _| res[rigid_off[c.bodies[i / 6]] + i % 6]);
            let lambda = joint_space::least_squares_impulses(&g, &res_b);
            let mut next = c.saturated.clone();
            for (i, row) in c.rows.iter().enumerate() {
                let RowKind::Motor(m) = row.kind else { continue };
                let bound = h * m.max_torque;
                if c.saturated[i] == 0.0 {
                    let a = active.iter().position(|&k| k == i).expect("a free motor is active");
                    // Round-off of a motor exactly at its bound must not flip it.
                    if lambda[a].abs() > bound * (1.0 + 1e-12) {
                        next[i] = lambda[a].signum();
                    }
                } else {
                    // A scripted side's prescribed velocity, a dynamic side's from the solve.
                    let side = |b: usize, d: usize| match rigid_off[b] {
                        usize::MAX => bodies[b].velocity()[d],
                        off => v[off + d],
                    };
                    let mut speed = -m.speed;
                    for s in 0..2 {
                        if let Some(b) = row.body[s] {
                            speed += (0..6).map(|d| row.jac[s][d] * side(b, d)).sum::<f64>();
                        }
                    }
                    // Its bound now pushes the spin past the target: free it.
                    if c.saturated[i] * speed > 0.0 {
                        next[i] = 0.0;
                    }
                }
            }
            if next != c.saturated {
                c.saturated = next;
                c.refresh(bodies, rigid_off, h);
                changed = true;
            }
        }
        if changed {
            self.number(rigid_off, self.slot.len());
        }
        changed
    }
}
