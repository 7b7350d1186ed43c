//! Rod roots and attached regions riding on dynamic rigid bodies (`attach_to` naming a dynamic
//! body) in the nodal step; "roots" below are both. The nodes of reduced bodies are eliminated
//! by the same map onto their bodies' `6 + r` unknowns (`reduced_nodes`), and the nodes of an
//! embedded surface onto their cage tet's four corners (`model::Embedding`: the row of `P` is
//! the barycentric weights; such a node has no mass and no element, so its own rows of `A` are
//! zero and only its contacts reach the cage).
//!
//! A root is rigidly attached to its body at the body-frame offset `r_b` (from the scene
//! placement), so its velocity is not an unknown: `v_root = V + ω × r` with `r = R r_b`, `R` the
//! body's orientation at the step's start (the linearization point, as for rigid contacts). The
//! nodal assembly keeps the roots as ordinary free dofs; this map `P` (reduced unknowns → nodal
//! free unknowns and rigid unknowns) eliminates them when the total system is built:
//! `Pᵀ A P v = Pᵀ f`, contact columns `Pᵀ H`. A root's row block of `P` is `[1, −[r]×]` on its
//! body's 6 columns (the same point Jacobian as a rigid contact's), every other row is one
//! identity entry. So the roots' masses join the body's mass and inertia (parallel-axis terms
//! included) through `Pᵀ M P`, the rods' elastic forces at the roots act on the body as a force
//! and a torque `r × F`, and a contact touching a root pushes on the body.
//!
//! Without attached roots the map is the identity and every product below reproduces the plain
//! assembly entry for entry (same triplets in the same order).
//!
//! After the step the roots are put back on the body's new pose, `x = c + R r_b` (the straight
//! step `x0 + h v_root` would leave the turning body by `O(h² |ω|² |r|)` per step and drift). Their
//! velocity stays the step's `V + ω × r`, with `r` at the step's start: that is the velocity the
//! solve used for their momentum, so the next step starts from exactly the momentum this one
//! ended with (the rigid velocity at the new offset would add `m h ω × (ω × r)` per step).

use super::reduced_nodes::ReducedNodes;
use crate::dfcp::problem::Csc;
use crate::model::{Model, set_node};
use crate::reduced::ReducedState;
use crate::rigid::RigidBody;
use faer::sparse::Triplet;
use nalgebra::{Matrix3, SMatrix, Vector3};

/// Where a nodal free unknown goes in the reduced unknowns.
#[derive(Clone, Copy, Debug)]
enum Map {
    /// An unknown of its own, at this reduced index.
    Free(usize),
    /// Component `axis` of root `root`'s velocity: its body's `V + ω × r`.
    Root { root: u32, axis: u8 },
    /// Component `axis` of local node `node` of reduced body `body`: `(P_i u)_axis`.
    Reduced { body: u32, node: u32, axis: u8 },
    /// Component `axis` of embedded surface node `node` (index into `Roots::embedded`): the
    /// barycentric combination of its cage tet's corners.
    Embedded { node: u32, axis: u8 },
}

/// One attached root.
#[derive(Clone, Copy, Debug)]
struct Root {
    node: usize,
    /// Index of the body in `Model::rigids`.
    body: usize,
    /// Reduced offset of the body's 6 velocity unknowns.
    off: usize,
    /// Offset from the centre of mass, body frame.
    local: Vector3<f64>,
}

/// The elimination map of attached roots (module doc).
pub(super) struct Roots {
    map: Vec<Map>,
    roots: Vec<Root>,
    /// Per node: the root it is (`u32::MAX`: not an attached root).
    root_of: Vec<u32>,
    /// Per root: its world offset `R r_b` at the step's start.
    r: Vec<Vector3<f64>>,
    /// The reduced bodies' part of the map.
    pub reduced: ReducedNodes,
    /// Per embedded surface node, per axis: its four `(reduced index, weight)` cage terms.
    embedded: Vec<[[(usize, f64); 4]; 3]>,
}

/// Up to four `(reduced index, coefficient)` terms of one nodal unknown; `.1` of them are used.
type Terms = ([(usize, f64); 4], usize);

impl Roots {
    /// The map for `model` with nodal free numbering `free` (`n_free` unknowns). Returns it, the
    /// reduced offset of each rigid body's 6 unknowns (`usize::MAX` for a scripted body) and the
    /// number of reduced unknowns.
    pub fn new(model: &Model, free: &[usize], n_free: usize) -> (Roots, Vec<usize>, usize) {
        let mut root_of = vec![u32::MAX; model.node_count()];
        let mut roots = Vec::new();
        for b in &model.rod_bundles {
            let Some(att) = &b.attached else { continue };
            for (piece, local) in b.rods.iter().zip(&att.offsets) {
                // Build rejects a root that is also scripted; should one be, it stays scripted.
                if free[3 * piece.first] == usize::MAX {
                    continue;
                }
                root_of[piece.first] = roots.len() as u32;
                roots.push(Root { node: piece.first, body: att.body, off: usize::MAX, local: *local });
            }
        }
        for region in &model.attached_regions {
            for (&node, local) in region.nodes.iter().zip(&region.offsets) {
                root_of[node] = roots.len() as u32;
                roots.push(Root { node, body: region.body, off: usize::MAX, local: *local });
            }
        }
        let on_reduced = super::reduced_nodes::node_bodies(model);
        let mut on_embedded = vec![u32::MAX; model.node_count()];
        let places: Vec<([usize; 4], [f64; 4])> = model
            .solids
            .iter()
            .filter_map(|s| s.embedding.as_ref())
            .flat_map(|e| e.nodes.clone().zip(e.cage.iter().zip(&e.weights)))
            .enumerate()
            .map(|(k, (node, (cage, w)))| {
                on_embedded[node] = k as u32;
                (*cage, *w)
            })
            .collect();
        let mut map = vec![Map::Free(0); n_free];
        let mut n = 0;
        for (d, &fi) in free.iter().enumerate() {
            if fi == usize::MAX {
                continue;
            }
            let axis = (d % 3) as u8;
            if on_embedded[d / 3] != u32::MAX {
                map[fi] = Map::Embedded { node: on_embedded[d / 3], axis };
                continue;
            }
            map[fi] = match (root_of[d / 3], on_reduced[d / 3]) {
                (_, Some((body, node))) => Map::Reduced { body, node, axis },
                (u32::MAX, None) => {
                    n += 1;
                    Map::Free(n - 1)
                }
                (k, None) => Map::Root { root: k, axis },
            };
        }
        let mut n_total = n;
        let rigid_off: Vec<usize> = model
            .rigids
            .iter()
            .map(|r| {
                if r.is_dynamic() {
                    n_total += 6;
                    n_total - 6
                } else {
                    usize::MAX
                }
            })
            .collect();
        for root in &mut roots {
            root.off = rigid_off[root.body];
        }
        let r = vec![Vector3::zeros(); roots.len()];
        let (reduced, n_total) = ReducedNodes::new(model, n_total);
        // Validation keeps scripted and attached vertex sets off embedded solids, so every cage
        // node is an unknown of its own.
        let own = |fi: usize| match map[fi] {
            Map::Free(k) => k,
            _ => unreachable!("an embedded surface's cage node is scripted or eliminated"),
        };
        let embedded = places
            .iter()
            .map(|(cage, w)| std::array::from_fn(|a| std::array::from_fn(|j| (own(free[3 * cage[j] + a]), w[j]))))
            .collect();
        (Roots { map, roots, root_of, r, reduced, embedded }, rigid_off, n_total)
    }

    /// Whether some node rides on a rigid body (rod roots, attached regions): the only way the
    /// unknowns of two bodies share a matrix entry.
    pub fn has_roots(&self) -> bool {
        !self.roots.is_empty()
    }

    /// Whether no node rides on a body or a cage (no root, no reduced body, no embedded surface).
    pub fn is_empty(&self) -> bool {
        self.roots.is_empty() && self.reduced.is_empty() && self.embedded.is_empty()
    }

    /// The body node `i` is a root of, if it is one.
    pub fn body_of(&self, i: usize) -> Option<usize> {
        self.roots.get(self.root_of[i] as usize).map(|r| r.body)
    }

    /// Linearize at the bodies' start-of-step poses: `r = R r_b` for every root, `P_i` for every
    /// reduced node.
    pub fn begin_step(&mut self, model: &Model, bodies: &[RigidBody], reduced: &[ReducedState]) {
        for (r, root) in self.r.iter_mut().zip(&self.roots) {
            *r = bodies[root.body].orientation * root.local;
        }
        self.reduced.begin_step(model, reduced);
    }

    /// Visits the terms of nodal free unknown `fi` in the reduced unknowns (row `fi` of `P`).
    #[inline]
    pub fn for_terms(&self, fi: usize, mut f: impl FnMut(usize, f64)) {
        if let Map::Reduced { body, node, axis } = self.map[fi] {
            self.reduced.for_terms(body as usize, node as usize, axis as usize, f);
        } else {
            let (t, n) = self.terms(fi);
            t[..n].iter().for_each(|&(k, c)| f(k, c));
        }
    }

    /// The terms of a free or root unknown `fi` (row `fi` of `P`; none for a reduced node's).
    #[inline]
    fn terms(&self, fi: usize) -> Terms {
        match self.map[fi] {
            Map::Reduced { .. } => ([(0, 0.0); 4], 0),
            Map::Free(k) => ([(k, 1.0), (0, 0.0), (0, 0.0), (0, 0.0)], 1),
            Map::Embedded { node, axis } => (self.embedded[node as usize][axis as usize], 4),
            Map::Root { root, axis } => {
                let (a, off, r) = (axis as usize, self.roots[root as usize].off, self.r[root as usize]);
                // Row `a` of `[1, −[r]×]`: (ω × r)_a = Σ_j (−[r]×)_{a j} ω_j, two non-zeros.
                let (b, c) = ((a + 1) % 3, (a + 2) % 3);
                // (ω × r)_a = ω_b r_c − ω_c r_b for the cyclic (a, b, c).
                ([(off + a, 1.0), (off + 3 + b, r[c]), (off + 3 + c, -r[b]), (0, 0.0)], 3)
            }
        }
    }

    /// Pushes the triplets of `Pᵀ A P` restricted to the nodal block `a` (`n_free` square). A
    /// reduced node's only entry, its mass, is left to its body's dense block
    /// (`ReducedNodes::add_blocks`).
    pub fn reduce_matrix(&self, a: &Csc, t: &mut Vec<Triplet<usize, usize, f64>>) {
        let ar = a.as_ref();
        for j in 0..ar.ncols() {
            if matches!(self.map[j], Map::Reduced { .. }) {
                continue;
            }
            let (tj, nj) = self.terms(j);
            for (&i, &x) in ar.row_idx_of_col_raw(j).iter().zip(ar.val_of_col(j)) {
                let (ti, ni) = self.terms(i);
                // Every term is pushed, zero or not: the pattern must not depend on the pose
                // (the contact-free solve reuses one symbolic Cholesky).
                for &(ri, ci) in &ti[..ni] {
                    for &(rj, cj) in &tj[..nj] {
                        t.push(Triplet::new(ri, rj, ci * x * cj));
                    }
                }
            }
        }
    }

    /// Adds `Pᵀ f` of the nodal part `f` (nodal free numbering) to `out` (reduced numbering).
    pub fn reduce_vector(&self, f: &[f64], out: &mut [f64]) {
        for (fi, &x) in f.iter().enumerate() {
            self.for_terms(fi, |k, c| out[k] += c * x);
        }
    }

    /// The reduced nodal entries of `vf` (nodal free numbering): the roots' dropped, the rest in order.
    pub fn restrict<T: Copy>(&self, vf: &[T], out: &mut Vec<T>) {
        out.extend(vf.iter().zip(&self.map).filter_map(|(&x, m)| matches!(m, Map::Free(_)).then_some(x)));
    }

    /// Nodal free unknown `fi` from reduced unknowns `p` (`(P p)_fi`).
    #[inline]
    pub fn value(&self, p: &[f64], fi: usize) -> f64 {
        if let Map::Reduced { body, node, axis } = self.map[fi] {
            return self.reduced.value(body as usize, node as usize, axis as usize, p);
        }
        let (t, n) = self.terms(fi);
        t[..n].iter().map(|&(k, c)| c * p[k]).sum()
    }

    /// Pushes node `i`'s contact column entries (weight `wt`, frame `frame`, column block `col`)
    /// when it is a reduced body's node; `false` for other nodes.
    pub fn push_reduced_column(
        &self,
        free: &[usize],
        i: usize,
        (wt, frame): (f64, &Matrix3<f64>),
        col: usize,
        trip: &mut Vec<Triplet<usize, usize, f64>>,
    ) -> bool {
        let Map::Reduced { body, node, .. } = self.map[free[3 * i]] else { return false };
        self.reduced.push_column((body as usize, node as usize), wt, frame, col, trip);
        true
    }

    /// Contact column entries of node `i` (weight `wt`, contact frame `frame`) when it is a root:
    /// the 3×6 block `wt Fᵀ [1, −[r]×]` and the body's reduced offset. `None` for other nodes.
    pub fn contact_block(&self, i: usize, wt: f64, frame: &Matrix3<f64>) -> Option<(usize, SMatrix<f64, 3, 6>)> {
        let k = *self.root_of.get(i)? as usize;
        let root = self.roots.get(k)?;
        let mut j = SMatrix::<f64, 3, 6>::zeros();
        j.fixed_view_mut::<3, 3>(0, 0).copy_from(&Matrix3::identity());
        j.fixed_view_mut::<3, 3>(0, 3).copy_from(&(-self.r[k].cross_matrix()));
        Some((root.off, frame.transpose() * j * wt))
    }

    /// Whether a contact over `nodes` with `weights` can be changed by the solve: it has a free
    /// node that is no root, or roots on two different bodies, or a root and a scripted node.
    /// (A contact among the roots of one body only has an identically zero relative velocity.)
    pub fn moves(&self, free: &[usize], nodes: &[usize], weights: &[f64]) -> bool {
        let (mut body, mut scripted) = (None, false);
        for (&i, &w) in nodes.iter().zip(weights) {
            if w == 0.0 {
                continue;
            }
            if free[3 * i] == usize::MAX {
                scripted = true;
                continue;
            }
            if matches!(self.map[free[3 * i]], Map::Reduced { .. } | Map::Embedded { .. }) {
                // A reduced body or a cage deforms: its nodes' relative velocities are not fixed.
                return true;
            }
            match self.body_of(i) {
                None => return true,
                Some(b) if body.is_some_and(|o| o != b) => return true,
                Some(b) => body = Some(b),
            }
        }
        body.is_some() && scripted
    }

    /// Where the body's turn puts the roots, in the Newton iterate's positions `x = x0 + h v`:
    /// the straight update misses `R(h ω) r − r − h ω × r` (second order in `h ω`, `ω` the
    /// body's current iterate), which strained elements whose nodes all ride on one body and
    /// gave their elastic forces a net torque (a stiff pad on a motorised wheel: twice the
    /// transport loss). Added here, such elements move rigidly.
    pub fn turn_with_bodies(&self, bodies: &[RigidBody], h: f64, x: &mut [f64]) {
        for (root, r) in self.roots.iter().zip(&self.r) {
            let w = bodies[root.body].angular_velocity * h;
            let d = nalgebra::UnitQuaternion::from_scaled_axis(w) * r - r - w.cross(r);
            for k in 0..3 {
                x[3 * root.node + k] += d[k];
            }
        }
    }

    /// After the step: every root on its body's new pose, `x = c + R r_b`, moving at the step's
    /// `V + ω × r` (module doc), `r` at the step's start.
    pub fn finish_step(&self, bodies: &[RigidBody], q: &mut [f64], v: &mut [f64]) {
        for (root, r) in self.roots.iter().zip(&self.r) {
            let b = &bodies[root.body];
            set_node(q, root.node, &b.world_point(&root.local));
            set_node(v, root.node, &(b.linear_velocity + b.angular_velocity.cross(r)));
        }
    }
}
