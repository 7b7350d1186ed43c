//! The matrix-free contact projection: the coloured block Gauss–Seidel sweep over either layout,
//! stored in sweep order.

use super::*;

/// An entry of a buffer that the contacts of one colour update in parallel, each contact only
/// the entries of its own dofs (or its own slot). Reads and writes go through the cell, so no
/// thread holds a reference that another thread's writes would invalidate.
#[repr(transparent)]
pub(super) struct Shared<T>(std::cell::UnsafeCell<T>);

// SAFETY: a `Shared` slice is only built by `shared` from a `&mut` borrow, and the sweep lets
// two threads touch the same entry only if the colouring put two contacts sharing a dof in one
// colour, which `greedy_blocks` never does (and the tails run on one thread).
unsafe impl<T: Send> Sync for Shared<T> {}

impl<T: Copy> Shared<T> {
    #[inline(always)]
    pub(super) fn get(&self) -> T {
        // SAFETY: no other thread writes this entry during the colour (see the `Sync` impl).
        unsafe { *self.0.get() }
    }

    #[inline(always)]
    pub(super) fn set(&self, x: T) {
        // SAFETY: as for `get`; this thread is the entry's only user during the colour.
        unsafe { *self.0.get() = x }
    }
}

impl Shared<f64> {
    #[inline(always)]
    pub(super) fn add(&self, x: f64) {
        self.set(self.get() + x);
    }
}

/// View a mutable buffer as cells the colour's threads share (entry-disjointly).
pub(super) fn shared<T>(s: &mut [T]) -> &[Shared<T>] {
    // SAFETY: `Shared<T>` is `repr(transparent)` over `UnsafeCell<T>`, itself with `T`'s layout;
    // the `&mut` borrow is held for the view's lifetime, so nothing else reads or writes `s`.
    unsafe { &*(s as *mut [T] as *const [Shared<T>]) }
}

/// One contact update of a layout, addressed by its position in sweep order (its slot).
/// Forces are held scaled by `force_scale` during a projection (`r̄ = scale · r`).
pub(super) trait Contacts: Sync {
    /// The factor between the layout's force variable and `r`.
    fn force_scale(&self, slot: usize) -> f64;
    /// New (scaled) force of the contact at `slot` given the current `p` and its (scaled) force
    /// `rc` (reads only the contact's own dofs).
    fn local(&self, slot: usize, p: &[Shared<f64>], rc: [f64; 3]) -> [f64; 3];
    /// `p += W^{-1} H_c x` for the (scaled) force `x` (writes only the contact's own dofs).
    fn spread(&self, slot: usize, x: [f64; 3], p: &[Shared<f64>]);
    /// `|S_cc d|_inf`, the velocity change of a (scaled) force change `d`.
    fn velocity_change(&self, slot: usize, d: [f64; 3]) -> f64;
}

/// The two layouts of the projection data.
pub(super) enum Layout {
    /// 004's compact nodal records (every contact qualified).
    Nodal(Vec<NodalContact>),
    /// Per-dof rows, any `H`.
    Generic(GenericContacts),
}

/// A part of the coloured sweep: slot ranges of colour classes (within one, contacts touch
/// disjoint dofs and are solved in parallel), then slots swept sequentially.
pub(super) struct Stage {
    pub(super) colors: Vec<std::ops::Range<usize>>,
    pub(super) tail: std::ops::Range<usize>,
}

/// Contacts per independently coloured block of the sweep (see `coloring::greedy_blocks`): 16k
/// contacts touch a few hundred kB of velocities, which stay in L2 while the block's colours
/// pass over them, and their colour classes (thousands of contacts) are long enough to share
/// between threads.
pub(super) const SWEEP_BLOCK: usize = 16_384;

/// The matrix-free projection data, stored in sweep order: block by block, the contacts of
/// colour 0, colour 1, ..., then the block's sequential tail (or all contacts in their own order
/// for the plain sequential sweep), so that every pass streams its data contiguously instead of
/// gathering it.
pub(super) struct Projection {
    /// `order[slot]` is the contact at sweep position `slot`.
    pub(super) order: Vec<usize>,
    pub(super) stages: Vec<Stage>,
    pub(super) layout: Layout,
    /// Nodal layout only: contacts without free dofs, `(contact, w_c, cone)`; their force solves
    /// the local problem with a zero Delassus block, as in the generic layout.
    pub(super) inert: Vec<(usize, [f64; 3], Cone)>,
}

impl Projection {
    /// `colored`: the coloured parallel sweep (blocks of ≤ `max_colors` colours + tail), else the
    /// plain sequential one. `compact`: use the nodal records when every contact qualifies.
    pub(super) fn new(g: &GlobalProblem, w: &[f64], colored: bool, max_colors: usize, compact: bool) -> Self {
        let nc = g.nc();
        let mut nodal = Vec::new();
        // Contacts between kinematic nodes only (a fixed hair root on the core) have empty `H`
        // columns: they move no velocity, so the nodal layout solves them apart (`inert`).
        let mut inert = Vec::new();
        let mut is_nodal = compact && nc > 0;
        if is_nodal {
            let hr = g.h.as_ref();
            let mut blocks = Vec::with_capacity(NODES + 1);
            nodal.reserve(nc);
            for c in 0..nc {
                if (0..3).all(|k| hr.row_idx_of_col_raw(3 * c + k).is_empty()) {
                    inert.push(c);
                    continue;
                }
                match nodal_contact(g, w, c, &mut blocks) {
                    Some(rec) => nodal.push((c, rec)),
                    None => {
                        is_nodal = false;
                        break;
                    }
                }
            }
        }
        if !is_nodal {
            nodal = Vec::new();
            inert = Vec::new();
        }
        // The contacts the sweep visits, in contact order (all of them in the generic layout).
        let swept: Vec<usize> = if is_nodal { nodal.iter().map(|x| x.0).collect() } else { (0..nc).collect() };
        let ns = swept.len();
        // Colourings number the swept contacts 0..ns (`swept[i]` is the contact).
        let colorings = if !colored {
            vec![Coloring { colors: Vec::new(), tail: (0..ns).collect() }]
        } else if is_nodal {
            // Contacts conflict exactly when they share a node (all 3 dofs of a node go together).
            let nodes: Vec<[usize; NODES]> = nodal.iter().map(|k| k.1.node.map(|n| n as usize)).collect();
            greedy_blocks(ns, g.ndof().div_ceil(3), max_colors, SWEEP_BLOCK, |c| &nodes[c][..])
        } else {
            let gc = GenericContacts::new(g, w, &(0..nc).collect::<Vec<_>>());
            greedy_blocks(nc, g.ndof(), max_colors, SWEEP_BLOCK, |c| &gc.dof[gc.ptr[c]..gc.ptr[c + 1]])
        };
        let mut order = Vec::with_capacity(ns);
        let mut stages = Vec::with_capacity(colorings.len());
        for coloring in &colorings {
            let mut colors = Vec::with_capacity(coloring.colors.len());
            for class in &coloring.colors {
                let start = order.len();
                order.extend_from_slice(class);
                colors.push(start..order.len());
            }
            let start = order.len();
            order.extend_from_slice(&coloring.tail);
            stages.push(Stage { colors, tail: start..order.len() });
        }
        let layout = if is_nodal {
            Layout::Nodal(order.iter().map(|&i| nodal[i].1).collect())
        } else {
            Layout::Generic(GenericContacts::new(g, w, &order))
        };
        let order = order.iter().map(|&i| swept[i]).collect();
        let inert = inert.iter().map(|&c| (c, [g.w[3 * c], g.w[3 * c + 1], g.w[3 * c + 2]], g.cones[c])).collect();
        Projection { order, stages, layout, inert }
    }

    /// Number of contacts swept in parallel (in colours) and sequentially (in tails).
    pub(super) fn colored_and_tail(&self) -> (usize, usize) {
        let colored = self.stages.iter().flat_map(|s| &s.colors).map(|r| r.len()).sum();
        (colored, self.order.len() - colored)
    }

    /// Contacts solved by the isotropic closed form (all of them in the nodal layout).
    pub(super) fn closed_form_count(&self) -> usize {
        match &self.layout {
            Layout::Nodal(v) => v.len(),
            Layout::Generic(gc) => gc.iso.iter().filter(|x| x.is_some()).count(),
        }
    }

    /// Bytes of per-contact data one sweep reads or writes per contact update, counted from the
    /// layout. The velocities `p` a contact touches are not counted (shared between contacts and
    /// mostly cached), nor the gather/scatter of `r` and `order` once per projection.
    /// - Nodal: the 192-byte record, the force (3 f64) and the sleep counter (usize).
    /// - Generic: per dof entry its index (usize), `H` row and `W^{-1} H` row (3 f64 each); per
    ///   contact `ptr` (usize), `S_cc` (9 f64), the closed-form scalar (`Option<f64>`, 16 bytes),
    ///   `w_c` (3 f64), the cone (2 f64), the force and the sleep counter.
    pub(super) fn bytes_per_contact(&self) -> f64 {
        use std::mem::size_of;
        let nc = self.order.len().max(1) as f64;
        let state = size_of::<[f64; 3]>() + size_of::<usize>();
        let data = match &self.layout {
            Layout::Nodal(_) => size_of::<NodalContact>() as f64,
            Layout::Generic(gc) => {
                let entries = gc.dof.len() * (size_of::<usize>() + 2 * size_of::<[f64; 3]>());
                let per_contact = size_of::<usize>()
                    + size_of::<[f64; 9]>()
                    + size_of::<Option<f64>>()
                    + size_of::<[f64; 3]>()
                    + size_of::<Cone>();
                entries as f64 / nc + per_contact as f64
            }
        };
        data + state as f64
    }
}

/// Contacts of one colour a rayon task takes at least: long enough (tens of µs) to amortise the
/// fork-join, short enough to balance a colour of a few thousand contacts over the threads.
pub(super) const COLOR_CHUNK: usize = 512;

/// Work buffers of the sweep (allocated once per solve), indexed by slot.
pub(super) struct SweepState {
    /// Forces in sweep order (gathered from `r` at the start of a projection, scattered back).
    pub(super) r: Vec<[f64; 3]>,
    pub(super) sleep_until: Vec<usize>,
}

impl SweepState {
    pub(super) fn new(nc: usize) -> Self {
        SweepState { r: vec![[0.0; 3]; nc], sleep_until: vec![0; nc] }
    }
}

pub(super) fn project(
    pr: &Projection,
    prm: &AdmmParams,
    p: &mut [f64],
    r: &mut [f64],
    delta_inf: f64,
    st: &mut SweepState,
) -> usize {
    // Contacts without free dofs touch no velocity: each sweep's update of one is the local
    // solve with `S = 0` and `u* = w_c`, independent of all others.
    for &(c, wc, ref cone) in &pr.inert {
        for _ in 0..prm.gs_sweeps {
            let rc = [r[3 * c], r[3 * c + 1], r[3 * c + 2]];
            r[3 * c..3 * c + 3].copy_from_slice(&solve_contact(&[0.0; 9], wc, cone, rc).0);
        }
    }
    prm.gs_sweeps * pr.inert.len()
        + match &pr.layout {
            Layout::Nodal(k) => project_with(pr, k, prm, p, r, delta_inf, st),
            Layout::Generic(k) => project_with(pr, k, prm, p, r, delta_inf, st),
        }
}

/// Algorithm 3 over the contacts `k` (one monomorphised loop per layout).
pub(super) fn project_with<K: Contacts>(
    pr: &Projection,
    k: &K,
    prm: &AdmmParams,
    p: &mut [f64],
    r: &mut [f64],
    delta_inf: f64,
    st: &mut SweepState,
) -> usize {
    for (slot, &c) in pr.order.iter().enumerate() {
        let sc = k.force_scale(slot);
        st.r[slot] = [sc * r[3 * c], sc * r[3 * c + 1], sc * r[3 * c + 2]];
    }
    // Line (1) of Algorithm 3: re-apply the warm-start forces to the target velocity.
    let ps = shared(p);
    for slot in 0..pr.order.len() {
        k.spread(slot, st.r[slot], ps);
    }
    st.sleep_until.fill(0);
    // No δ∞ yet (first ADMM iteration): nothing sleeps, every contact is swept.
    let thresh = if prm.sleeping && delta_inf.is_finite() { 0.01 * delta_inf } else { -1.0 };
    let (rs, sl) = (shared(&mut st.r), shared(&mut st.sleep_until));
    // One contact's update (Algorithm 3's loop body): its local solve, `p += W^{-1} H_c d`,
    // `r_c += d`, and a sleep when the velocity barely moved. Returns whether it was swept.
    let visit = |slot: usize, sweep: usize| -> usize {
        if sl[slot].get() > sweep {
            return 0;
        }
        let rc = rs[slot].get();
        let rn = k.local(slot, ps, rc);
        let d = [rn[0] - rc[0], rn[1] - rc[1], rn[2] - rc[2]];
        k.spread(slot, d, ps);
        rs[slot].set([rc[0] + d[0], rc[1] + d[1], rc[2] + d[2]]);
        if k.velocity_change(slot, d) < thresh {
            sl[slot].set(sweep + 1 + prm.sleep_sweeps);
        }
        1
    };
    let mut updates = 0;
    for sweep in 0..prm.gs_sweeps {
        for stage in &pr.stages {
            // Contacts of a colour share no dof: each reads and writes only entries no other
            // contact of the colour touches, so they run in parallel, in any order, with the
            // result of the sequential sweep bit for bit.
            for class in &stage.colors {
                updates +=
                    class.clone().into_par_iter().with_min_len(COLOR_CHUNK).map(|s| visit(s, sweep)).sum::<usize>();
            }
            updates += stage.tail.clone().map(|s| visit(s, sweep)).sum::<usize>();
        }
    }
    for (slot, &c) in pr.order.iter().enumerate() {
        let (sc, rs) = (k.force_scale(slot), st.r[slot]);
        r[3 * c..3 * c + 3].copy_from_slice(&[rs[0] / sc, rs[1] / sc, rs[2] / sc]);
    }
    updates
}

/// The contact projection of one ADMM solve (004 Algorithm 3) on its own: [`solve`] builds the
/// same data once per call. Exposed so that the sweep's throughput can be benchmarked alone and
/// the two data layouts compared.
pub struct ContactProjection {
    pr: Projection,
    st: SweepState,
    prm: AdmmParams,
}

impl ContactProjection {
    /// The projection data of `g` with the weights `W` that [`solve`] uses.
    pub fn new(g: &GlobalProblem, prm: &AdmmParams) -> Result<Self> {
        let w = checked_weights(&g.m, prm)?;
        let pr = Projection::new(g, &w, prm.parallel, prm.max_colors, prm.compact);
        Ok(ContactProjection { pr, st: SweepState::new(g.nc()), prm: prm.clone() })
    }

    /// Project `p` (Algorithm 3 with `prm.gs_sweeps` sweeps, warm-started from `r`); `delta_inf`
    /// is the last ADMM δ∞ that sets the sleeping threshold (infinite: nothing sleeps). Returns
    /// the number of contact updates.
    pub fn project(&mut self, p: &mut [f64], r: &mut [f64], delta_inf: f64) -> usize {
        project(&self.pr, &self.prm, p, r, delta_inf, &mut self.st)
    }

    /// Whether the compact nodal layout is in use (else the generic per-dof one).
    pub fn is_compact(&self) -> bool {
        matches!(self.pr.layout, Layout::Nodal(_))
    }

    /// Bytes of per-contact data one sweep streams per contact update, counted from the layout
    /// (see `Projection::bytes_per_contact`).
    pub fn bytes_per_contact(&self) -> f64 {
        self.pr.bytes_per_contact()
    }
}
