//! The Iterative solver's strong preconditioner: a sparse Cholesky of the positive definite part
//! of the stage Jacobian,
//!
//! `P = M (1 + b h α) + b h (a h + β) K⁺ + Σ_contacts sym⁺(J's node-diagonal contact blocks)`,
//!
//! with `K⁺` the elements' Hessians made positive semi-definite
//! ([`psd_hessian`](super::elements::Element::psd_hessian)) and the stiffness-proportional damping
//! `β K₀` approximated by `β K⁺`. Contacts enter by their
//! node-diagonal blocks only, so `P`'s pattern is the elements' and never changes: one symbolic
//! analysis per run, and the bodies stay uncoupled (a block-diagonal `P` per body whatever
//! touches). The volume penalty's dense rank-one term is applied exactly around the factor by
//! Sherman–Morrison ([`Woodbury`]), so a nearly incompressible limb costs BiCGSTAB almost no extra
//! iterations (tube bend at μ 0.2: 68 per step with and without a water-like volume penalty).
//!
//! Block Jacobi (`BlockJacobi`) sees a cloth node alone, but a cloth is light and stiff in plane:
//! its Jacobian is `h² K` with a mass term hundreds of times smaller, and BiCGSTAB spends hundreds
//! of iterations carrying a correction across the sheet. `P` carries it in one solve. The factor
//! is made at the start of each Newton solve and again after a BiCGSTAB solve that needed more
//! than [`REFRESH_AFTER`] iterations; between those, consecutive Jacobians differ little. Only
//! `P` is stored (its lower triangle) with its factor, never `J`.

use super::elements::for_each_hessian;
use super::matrix_free::contact_blocks;
use super::system::{StageSystem, System};
use crate::energy::project_psd;
use crate::linalg::sparse::Pattern;
use crate::linalg::woodbury::Woodbury;
use crate::model::Model;
use crate::scene::schema::IterativePreconditioner;
use faer::linalg::solvers::SolveCore;
use faer::sparse::linalg::solvers::{Llt, SymbolicLlt};
use faer::sparse::{SparseColMatRef, SymbolicSparseColMatRef};
use faer::{Conj, MatMut, Side};
use nalgebra::{Matrix3, SMatrix};

/// A BiCGSTAB solve longer than this marks the factor stale (refactored at the next Newton
/// iteration). Measured on the tube bend (`scripts/perf_tube_bend.sh`, 2 frames), best of 5, 10,
/// 20 and 40 at both μ: 1.81, 1.55, 2.00 and 2.24 s at μ 0.2; 2.95, 2.60, 2.90 and 3.34 s at 0.8.
pub const REFRESH_AFTER: usize = 10;

/// `preconditioner: Auto` takes the Cholesky only where some body's nodes are held more by their
/// elements than by their mass over one step, `h² k / m` ([`stiffness_ratio`]) above this: where
/// mass dominates, block Jacobi is nearly exact and the Cholesky only adds its cost. Measured on 2
/// cores (ratio; s/step Cholesky against block Jacobi): the tube bend 944 (0.088 against 0.31),
/// `flat_stop`'s 0.1 m block 23 (0.0017 against 0.0060), the 1 m ramp block at 1296 tets 9.3
/// (0.0186 against 0.0094). Since block Jacobi's products go by node blocks (252a965), the
/// same (s/frame or s/step): the tube bend even (1.01 and 1.42 against 1.13 and 1.26 at μ 0.2
/// and 0.8), `cloth_drape` 220 0.023 against 0.031, `block_on_cloth` 0.0115 against 0.0183, and
/// `flat_stop` 0.0018 against 0.0014, now block Jacobi's. The bound stays: under `Auto` the
/// linear solver follows it, and the assembled `Gmres` beats both on such small blocks
/// (`flat_stop` 0.0010).
pub const STIFF_RATIO: f64 = 15.0;

/// ... and only while its factor holds at most this many entries per entry of `P`: a large 3D
/// solid's factor fills in, and then each application and refresh costs more than block Jacobi's
/// extra iterations. `ramp_6k` (ratio 27, fill 12): 0.17 s/step against 0.039; its 121 sliding
/// contact nodes' non-symmetric friction blocks, which block Jacobi keeps whole and `P` only
/// symmetrised, leave the Cholesky no fewer iterations there. The tube bend's fill is 5.1.
pub const FILL_LIMIT: usize = 8;

/// The largest `h² k / m` over the model's solids and cloths: `k ≈ E c` for a solid's surface
/// node (spacing `c`, [`Solid::surface_node_stiffness`](crate::model::Solid::surface_node_stiffness)),
/// `k ≈ (2μ + λ) t` for a cloth's (plane-stress moduli, thickness `t`), `m` the median node mass.
pub fn stiffness_ratio(model: &Model) -> f64 {
    let h2 = model.dt * model.dt;
    // A body whose nodes are all scripted has no unknowns to precondition.
    let free = |nodes: std::ops::Range<usize>| nodes.into_iter().any(|i| !model.node_is_kinematic[i]);
    let solids = model
        .solids
        .iter()
        .filter(|s| free(s.nodes.clone()))
        .filter_map(|s| s.surface_node_stiffness(&model.node_mass));
    let cloths = model.cloths.iter().filter(|c| free(c.nodes.clone())).map(|c| {
        let mut m: Vec<f64> = c.nodes.clone().map(|i| model.node_mass[i]).collect();
        m.sort_by(f64::total_cmp);
        let mat = &c.membrane_material;
        (m[m.len() / 2], (2.0 * mat.mu + mat.lambda) * mat.thickness)
    });
    solids.chain(cloths).map(|(m, k)| h2 * k / m).fold(0.0, f64::max)
}

/// Whether `preconditioner: kind` is the Cholesky for `system`'s `model`.
pub fn chooses_cholesky(model: &Model, system: &System, kind: IterativePreconditioner) -> bool {
    choice(model, kind, || StiffnessCholesky::sizes(system))
}

/// [`chooses_cholesky`] with `P`'s and its factor's entries given by `sizes`, asked only when
/// the stiffness ratio calls for the Cholesky (their symbolic analysis is the costly part).
pub fn choice(model: &Model, kind: IterativePreconditioner, sizes: impl FnOnce() -> (usize, usize)) -> bool {
    match kind {
        IterativePreconditioner::Auto => {
            stiffness_ratio(model) > STIFF_RATIO && {
                let (nnz, fill) = sizes();
                fill <= FILL_LIMIT * nnz
            }
        }
        IterativePreconditioner::Cholesky => true,
        IterativePreconditioner::BlockJacobi => false,
    }
}

/// Elements whose Hessians are computed in parallel at a time before they are added to `P`
/// ([`for_each_hessian`]).
const CHUNK: usize = 64;

pub struct StiffnessCholesky {
    /// Lower triangle of `P` on free DOFs.
    pattern: Pattern,
    values: Vec<f64>,
    symbolic: SymbolicLlt<usize>,
    factor: Option<Llt<usize, f64>>,
    /// `P`'s diagonal inverse: the fallback where the factorisation fails.
    diagonal_inverse: Vec<f64>,
    woodbury: Option<Woodbury>,
    low_rank: Vec<(Vec<f64>, Vec<f64>)>,
    hessians: Vec<SMatrix<f64, 12, 12>>,
    stale: bool,
    /// Factorisations made (reported in the step statistics).
    pub factorizations: usize,
}

impl StiffnessCholesky {
    pub fn new(system: &System) -> Result<StiffnessCholesky, String> {
        let pattern = lower_node_block_pattern(system);
        let symbolic = SymbolicLlt::try_new(Self::symbolic_of(&pattern), Side::Lower)
            .map_err(|e| format!("symbolic Cholesky of the preconditioner: {e:?}"))?;
        Ok(StiffnessCholesky {
            values: vec![0.0; pattern.nnz()],
            pattern,
            symbolic,
            factor: None,
            diagonal_inverse: vec![0.0; system.n_free],
            woodbury: None,
            low_rank: Vec::new(),
            hessians: vec![SMatrix::zeros(); CHUNK],
            stale: true,
            factorizations: 0,
        })
    }

    /// Entries of `P`'s lower triangle and of its Cholesky factor for `system` (memory estimates).
    pub fn sizes(system: &System) -> (usize, usize) {
        let pattern = lower_node_block_pattern(system);
        let fill = faer::sparse::linalg::cholesky::factorize_symbolic_cholesky(
            Self::symbolic_of(&pattern),
            Side::Lower,
            Default::default(),
            Default::default(),
        )
        .map_or(10 * pattern.nnz(), |f| f.len_val());
        (pattern.nnz(), fill)
    }

    fn symbolic_of(p: &Pattern) -> SymbolicSparseColMatRef<'_, usize> {
        SymbolicSparseColMatRef::new_checked(p.n, p.n, &p.col_ptr, None, &p.row_idx)
    }

    /// Ready `P⁻¹` for a Newton iterate at `q`, `v`: refactor when `fresh` (a new solve) or the
    /// last BiCGSTAB solve was slow, and prepare the volume zones' rank-one correction.
    #[allow(clippy::too_many_arguments)]
    pub fn prepare(&mut self, sys: &System, model: &Model, stage: &StageSystem, q: &[f64], v: &[f64], fresh: bool) {
        if fresh || self.stale {
            self.assemble(sys, model, stage, q, v);
            let p = SparseColMatRef::new(Self::symbolic_of(&self.pattern), &self.values);
            // Freed first: two factors at once would be the run's peak memory.
            self.factor = None;
            self.factor = Llt::try_new_with_symbolic(self.symbolic.clone(), p, Side::Lower).ok();
            self.factorizations += 1;
            self.stale = false;
        }
        self.low_rank = (0..model.volume_zones().count()).map(|k| sys.volume_low_rank(model, stage, q, k)).collect();
        self.woodbury = if self.low_rank.is_empty() {
            None
        } else {
            let (factor, diag) = (&self.factor, &self.diagonal_inverse);
            Woodbury::new(|x| solve(factor, diag, x), &self.low_rank)
        };
    }

    /// Record how many iterations the last BiCGSTAB solve took.
    pub fn observe(&mut self, iterations: usize) {
        self.stale |= iterations > REFRESH_AFTER;
    }

    /// `out = P⁻¹ y` (free DOFs).
    pub fn apply(&self, y: &[f64], out: &mut [f64]) {
        out.copy_from_slice(y);
        solve(&self.factor, &self.diagonal_inverse, out);
        if let Some(wb) = &self.woodbury {
            wb.apply(&self.low_rank, out);
        }
    }

    /// `P`'s values at `q`, `v`.
    fn assemble(&mut self, sys: &System, model: &Model, stage: &StageSystem, q: &[f64], v: &[f64]) {
        let (bh, dq_dv) = (stage.bh.body, stage.dq_dv);
        let (free, pattern) = (&sys.free, &self.pattern);
        let values = &mut self.values;
        values.iter_mut().for_each(|x| *x = 0.0);
        // Adds entry (r, c) of a symmetric matrix given whole: only its lower-triangle half is
        // kept (so a stencil whose two local nodes are one DOF, as a membrane's repeated node,
        // still adds both of its entries).
        let mut add = |r: usize, c: usize, x: f64| {
            let (r, c) = (free[r], free[c]);
            if r != usize::MAX && c != usize::MAX && r >= c {
                values[pattern.slot(r, c).expect("in the pattern")] += x;
            }
        };
        for i in 0..model.node_count() {
            let m = model.node_mass[i] * (1.0 + bh * sys.node_alpha[i]);
            (0..3).for_each(|k| add(3 * i + k, 3 * i + k, m));
        }
        for_each_hessian(
            &sys.elems,
            &mut self.hessians,
            |el| el.psd_hessian(model, q),
            |k, el, h| {
                let (nodes, coef) = (sys.elem_nodes[k], bh * (dq_dv + el.beta(model)));
                for a in 0..12 {
                    for b in 0..12 {
                        if h[(a, b)] != 0.0 {
                            add(3 * nodes[a / 3] + a % 3, 3 * nodes[b / 3] + b % 3, coef * h[(a, b)]);
                        }
                    }
                }
            },
        );
        contact_blocks(sys, model, stage, q, v, |nodes, d| {
            for (n, &i) in nodes.iter().enumerate() {
                let b = d.fixed_view::<3, 3>(3 * n, 3 * n);
                let mut s = (b + b.transpose()) * 0.5;
                project_psd::<3>(&mut s);
                add_block(&mut add, i, &s);
            }
        });
        self.diagonal_inverse.iter_mut().for_each(|d| *d = 0.0);
        for c in 0..self.pattern.n {
            // Each column's first stored row is its diagonal (lower triangle, rows sorted).
            let k = self.pattern.col_ptr[c];
            // P ≥ M > 0; a massless free node would leave a zero, which the fallback skips.
            let d = self.values[k];
            self.diagonal_inverse[c] = if d > 0.0 { 1.0 / d } else { 0.0 };
        }
    }
}

/// The lower triangle of `P` on free DOFs: whole 3×3 blocks between the free nodes of each
/// element (every free node with its own block), built node by node so that no list of scalar
/// entries (16 B each, 200 k on the tube bend) is ever held. Free DOFs come in consecutive
/// triples per node ([`Model::free_dofs`]).
fn lower_node_block_pattern(system: &System) -> Pattern {
    let free_node = |i: usize| (system.free[3 * i] != usize::MAX).then(|| system.free[3 * i] / 3);
    let n_nodes = system.n_free / 3;
    let mut below: Vec<Vec<u32>> = (0..n_nodes).map(|c| vec![c as u32]).collect();
    for nodes in &system.elem_nodes {
        for (a, b) in nodes.iter().flat_map(|&a| nodes.iter().map(move |&b| (a, b))) {
            if let (Some(r), Some(c)) = (free_node(a), free_node(b))
                && r > c
            {
                below[c].push(r as u32);
            }
        }
    }
    let mut col_ptr = Vec::with_capacity(system.n_free + 1);
    let mut row_idx = Vec::new();
    col_ptr.push(0);
    for (c, rows) in below.iter_mut().enumerate() {
        rows.sort_unstable();
        rows.dedup();
        for j in 0..3 {
            for &r in rows.iter() {
                let first = if r as usize == c { j } else { 0 };
                row_idx.extend((first..3).map(|i| 3 * r as usize + i));
            }
            col_ptr.push(row_idx.len());
        }
    }
    Pattern { n: system.n_free, col_ptr, row_idx }
}

fn add_block(add: &mut impl FnMut(usize, usize, f64), node: usize, s: &Matrix3<f64>) {
    for r in 0..3 {
        for c in 0..3 {
            add(3 * node + r, 3 * node + c, s[(r, c)]);
        }
    }
}

/// `x ← P⁻¹ x` by the factor, or by `P`'s diagonal where it could not be factored.
fn solve(factor: &Option<Llt<usize, f64>>, diagonal_inverse: &[f64], x: &mut [f64]) {
    match factor {
        Some(f) => {
            let n = x.len();
            f.solve_in_place_with_conj(Conj::No, MatMut::from_column_major_slice_mut(x, n, 1));
        }
        None => x.iter_mut().zip(diagonal_inverse).for_each(|(xi, d)| *xi *= d),
    }
}
