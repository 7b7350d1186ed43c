//! A block-diagonal Cholesky of a symmetric sparse matrix, one block per *object*: the
//! preconditioner of 004 §5.3 ("factorizing each dynamic object's block independently", after
//! Fei et al. 2017), and an exact parallel solver where the objects do not touch.
//!
//! Objects are the connected components of the matrix's graph, with the edges between dofs of
//! different labels cut when labels are given (a rod and the rigid body it is rooted on are
//! then two objects, their coupling left to the Krylov solver). Small components are packed
//! into groups of at least [`GROUP_DOFS`] dofs (a group keeps every entry between its dofs), so
//! that a ball of 4000 hairs is a few dozen factorisations, not 4000. Grouping depends only on
//! the matrix and the labels, never on the thread count: each group's factorisation and solve
//! run on one thread, so results are the same bits on any number of threads.

use faer::sparse::linalg::solvers::{Llt, SymbolicLlt};
use faer::sparse::{SparseColMatRef, SymbolicSparseColMat};
use faer::{Mat, Side};
use rayon::prelude::*;

type Csc = faer::sparse::SparseColMat<usize, f64>;

/// A group is closed once it holds this many dofs: large enough that a factorisation costs more
/// than a task hand-off (a 16-node rod is 48 dofs), small enough to give two cores several tasks
/// on the scenes with many objects.
pub const GROUP_DOFS: usize = 2048;

/// One group of whole components: its dofs (ascending), its block's pattern in local indices,
/// where each local entry comes from in the global matrix, and its factor.
struct Block {
    dofs: Vec<usize>,
    pattern: SymbolicSparseColMat<usize>,
    /// Global entry index of each local entry.
    src: Vec<usize>,
    /// Local entry index of each local diagonal.
    diag: Vec<usize>,
    symbolic: SymbolicLlt<usize>,
    /// The values factored, and the next ones (compared so an unchanged block keeps its factor).
    values: Vec<f64>,
    next: Vec<f64>,
    factor: Option<Llt<usize, f64>>,
    rhs: Mat<f64>,
}

/// The block-diagonal factorisation, rebuilt when the pattern or the labels change.
#[derive(Default)]
pub struct ObjectCholesky {
    key: Option<(Vec<usize>, Vec<usize>, Vec<u32>)>,
    blocks: Vec<Block>,
    /// Entries of the matrix between two blocks: the blocks are then a preconditioner, not the
    /// matrix.
    coupled: bool,
    /// Per dof: its block and its index in that block's local order.
    block_of: Vec<usize>,
    local: Vec<usize>,
    /// Per dof: its component (object), numbered in the order of their smallest dofs.
    component: Vec<usize>,
    components: usize,
}

impl ObjectCholesky {
    /// Number of blocks (groups of objects).
    pub fn blocks(&self) -> usize {
        self.blocks.len()
    }

    /// Number of components (objects): a block may hold several.
    pub fn components(&self) -> usize {
        self.components
    }

    /// The component of a dof.
    pub fn component(&self, dof: usize) -> usize {
        self.component[dof]
    }

    /// Whether the blocks leave out entries of the matrix (then a solve with them is not exact).
    pub fn coupled(&self) -> bool {
        self.coupled
    }

    /// Factor the diagonal blocks of `a + diag(w)` (`a` symmetric with its whole pattern stored
    /// and every diagonal entry present). `labels`, one per dof, cut the edges between dofs of
    /// different labels. Blocks whose values did not change keep their factor.
    pub fn factor(&mut self, a: &Csc, w: &[f64], labels: Option<&[u32]>) -> Result<(), String> {
        self.analyse(a, labels)?;
        let val = a.as_ref().val();
        self.blocks.par_iter_mut().try_for_each(|b| b.refactor(val, w))
    }

    /// Split `a`'s pattern into blocks and analyse each (the symbolic part of [`Self::factor`],
    /// kept while the pattern and labels stay): [`Self::blocks`] is then known before any
    /// numeric factorisation.
    pub fn analyse(&mut self, a: &Csc, labels: Option<&[u32]>) -> Result<(), String> {
        let ar = a.as_ref();
        let key_labels = labels.unwrap_or_default();
        let same = self
            .key
            .as_ref()
            .is_some_and(|(cp, ri, l)| cp[..] == *ar.col_ptr() && ri[..] == *ar.row_idx() && l[..] == *key_labels);
        if !same {
            self.build(a, labels)?;
            self.key = Some((ar.col_ptr().to_vec(), ar.row_idx().to_vec(), key_labels.to_vec()));
        }
        Ok(())
    }

    /// `x ← P⁻¹ x`, `P` the factored blocks.
    pub fn solve_in_place(&mut self, x: &mut [f64]) {
        let xr: &[f64] = x;
        self.blocks.par_iter_mut().for_each(|b| b.solve(xr));
        for b in &self.blocks {
            for (k, &d) in b.dofs.iter().enumerate() {
                x[d] = b.rhs[(k, 0)];
            }
        }
    }

    /// Per dof: its block, and its index in that block's local order.
    pub fn place(&self, dof: usize) -> (usize, usize) {
        (self.block_of[dof], self.local[dof])
    }

    /// The dofs of block `b`, ascending: the order of its local indices.
    pub fn block_dofs(&self, b: usize) -> &[usize] {
        &self.blocks[b].dofs
    }

    /// `x ← B⁻¹ x` for block `b` alone, `x` in its local order, any number of columns.
    pub fn solve_block(&self, b: usize, x: faer::MatMut<'_, f64>) {
        let f = self.blocks[b].factor.as_ref().expect("factored before a solve");
        faer::linalg::solvers::SolveCore::solve_in_place_with_conj(f, faer::Conj::No, x);
    }

    fn build(&mut self, a: &Csc, labels: Option<&[u32]>) -> Result<(), String> {
        let ar = a.as_ref();
        let n = ar.ncols();
        if labels.is_some_and(|l| l.len() != n) {
            return Err(format!("{} labels for {n} dofs", labels.map_or(0, <[u32]>::len)));
        }
        let joined = |i: usize, j: usize| labels.is_none_or(|l| l[i] == l[j]);
        let mut sets = DisjointSets::new(n);
        for j in 0..n {
            for &i in ar.row_idx_of_col_raw(j) {
                if joined(i, j) {
                    sets.union(i, j);
                }
            }
        }
        let mut number = vec![usize::MAX; n];
        self.components = 0;
        self.component = (0..n)
            .map(|d| {
                let root = sets.find(d);
                if number[root] == usize::MAX {
                    number[root] = self.components;
                    self.components += 1;
                }
                number[root]
            })
            .collect();
        let groups = group_components(&mut sets, n);
        let mut group_of = vec![0usize; n];
        let mut local = vec![0usize; n];
        for (g, dofs) in groups.iter().enumerate() {
            for (k, &d) in dofs.iter().enumerate() {
                group_of[d] = g;
                local[d] = k;
            }
        }
        self.coupled = (0..n).any(|j| ar.row_idx_of_col_raw(j).iter().any(|&i| group_of[i] != group_of[j]));
        self.blocks =
            groups.into_par_iter().map(|dofs| Block::new(a, dofs, &group_of, &local)).collect::<Result<_, _>>()?;
        (self.block_of, self.local) = (group_of, local);
        Ok(())
    }
}

impl Block {
    fn new(a: &Csc, dofs: Vec<usize>, group_of: &[usize], local: &[usize]) -> Result<Block, String> {
        let ar = a.as_ref();
        let g = group_of[dofs[0]];
        let (mut col_ptr, mut row_idx, mut src, mut diag) = (vec![0], Vec::new(), Vec::new(), Vec::new());
        for (k, &j) in dofs.iter().enumerate() {
            let start = ar.col_range(j).start;
            for (e, &i) in ar.row_idx_of_col_raw(j).iter().enumerate() {
                if group_of[i] == g {
                    if i == j {
                        diag.push(row_idx.len());
                    }
                    row_idx.push(local[i]);
                    src.push(start + e);
                }
            }
            if diag.len() != k + 1 {
                return Err(format!("dof {j} has no diagonal entry"));
            }
            col_ptr.push(row_idx.len());
        }
        let m = dofs.len();
        let pattern = SymbolicSparseColMat::new_checked(m, m, col_ptr, None, row_idx);
        let symbolic = SymbolicLlt::try_new(pattern.as_ref(), Side::Lower).map_err(|e| format!("{e:?}"))?;
        let values = vec![f64::NAN; src.len()];
        let next = values.clone();
        Ok(Block { dofs, pattern, src, diag, symbolic, values, next, factor: None, rhs: Mat::zeros(m, 1) })
    }

    fn refactor(&mut self, val: &[f64], w: &[f64]) -> Result<(), String> {
        for (v, &s) in self.next.iter_mut().zip(&self.src) {
            *v = val[s];
        }
        for (&k, &d) in self.diag.iter().zip(&self.dofs) {
            self.next[k] += w[d];
        }
        if self.factor.is_some() && self.next == self.values {
            return Ok(());
        }
        std::mem::swap(&mut self.values, &mut self.next);
        let mat = SparseColMatRef::new(self.pattern.as_ref(), &self.values);
        let llt = Llt::try_new_with_symbolic(self.symbolic.clone(), mat, Side::Lower)
            .map_err(|e| format!("a block of {} dofs is not positive definite ({e:?})", self.dofs.len()))?;
        self.factor = Some(llt);
        Ok(())
    }

    fn solve(&mut self, x: &[f64]) {
        for (k, &d) in self.dofs.iter().enumerate() {
            self.rhs[(k, 0)] = x[d];
        }
        let f = self.factor.as_ref().expect("factored before a solve");
        faer::linalg::solvers::SolveCore::solve_in_place_with_conj(f, faer::Conj::No, self.rhs.as_mut());
    }
}

/// The components in order of their smallest dof, packed into groups of at least
/// [`GROUP_DOFS`] dofs (the last may be smaller); each group's dofs ascending.
fn group_components(sets: &mut DisjointSets, n: usize) -> Vec<Vec<usize>> {
    let mut size = vec![0usize; n];
    for d in 0..n {
        size[sets.find(d)] += 1;
    }
    // A component joins the group open when its first dof is met.
    let mut group_of_root = vec![usize::MAX; n];
    let mut groups: Vec<Vec<usize>> = Vec::new();
    let mut open_size = GROUP_DOFS;
    for d in 0..n {
        let root = sets.find(d);
        if group_of_root[root] == usize::MAX {
            if open_size >= GROUP_DOFS {
                groups.push(Vec::new());
                open_size = 0;
            }
            group_of_root[root] = groups.len() - 1;
            open_size += size[root];
        }
        groups[group_of_root[root]].push(d);
    }
    groups
}

/// Union–find with path halving and union by size.
struct DisjointSets {
    parent: Vec<usize>,
    size: Vec<usize>,
}

impl DisjointSets {
    fn new(n: usize) -> Self {
        DisjointSets { parent: (0..n).collect(), size: vec![1; n] }
    }

    fn find(&mut self, mut i: usize) -> usize {
        while self.parent[i] != i {
            self.parent[i] = self.parent[self.parent[i]];
            i = self.parent[i];
        }
        i
    }

    fn union(&mut self, a: usize, b: usize) {
        let (mut a, mut b) = (self.find(a), self.find(b));
        if a == b {
            return;
        }
        if self.size[a] < self.size[b] {
            std::mem::swap(&mut a, &mut b);
        }
        self.parent[b] = a;
        self.size[a] += self.size[b];
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use faer::sparse::Triplet;

    /// Three chains (springs in series, SPD tridiagonal blocks) of `len` dofs, the middle one
    /// tied to the first by `tie` between their first dofs.
    fn chains(len: usize, tie: f64) -> Csc {
        let mut t = Vec::new();
        for c in 0..3 {
            for k in 0..len {
                let i = c * len + k;
                t.push(Triplet::new(i, i, 4.0 + k as f64 * 0.01));
                if k + 1 < len {
                    t.push(Triplet::new(i, i + 1, -1.0));
                    t.push(Triplet::new(i + 1, i, -1.0));
                }
            }
        }
        t.push(Triplet::new(0, len, tie));
        t.push(Triplet::new(len, 0, tie));
        Csc::try_new_from_triplets(3 * len, 3 * len, &t).unwrap()
    }

    /// `|(a + diag(w)) x − b|∞`.
    fn residual(a: &Csc, w: &[f64], x: &[f64], b: &[f64]) -> f64 {
        let ar = a.as_ref();
        let mut y: Vec<f64> = x.iter().zip(w).zip(b).map(|((x, w), b)| w * x - b).collect();
        for (j, xj) in x.iter().enumerate() {
            for (i, v) in ar.row_idx_of_col_raw(j).iter().zip(ar.val_of_col(j)) {
                y[*i] += v * xj;
            }
        }
        y.iter().fold(0.0f64, |m, v| m.max(v.abs()))
    }

    #[test]
    fn uncut_components_solve_exactly_and_cut_ones_leave_the_tie_out() {
        // Chains longer than a group: the tied pair is one block, the third another; cut, each
        // chain is its own block.
        let len = GROUP_DOFS + 50;
        let a = chains(len, -0.5);
        let w: Vec<f64> = (0..3 * len).map(|i| 0.1 * (i % 3) as f64).collect();
        let b: Vec<f64> = (0..3 * len).map(|i| ((i * 7) % 11) as f64 - 5.0).collect();
        let mut oc = ObjectCholesky::default();
        oc.factor(&a, &w, None).unwrap();
        assert_eq!(oc.blocks(), 2, "chains 0 and 1 are one component, 2 its own group");
        assert!(!oc.coupled());
        let mut x = b.clone();
        oc.solve_in_place(&mut x);
        let res = residual(&a, &w, &x, &b);
        // A backward-stable solve: entries of A below 5, of b below 6, condition below 10.
        assert!(res < 1e-12, "block solve leaves {res:e}");
        // Labels per chain cut the tie: the blocks are now a preconditioner.
        let labels: Vec<u32> = (0..3 * len).map(|i| (i / len) as u32).collect();
        oc.factor(&a, &w, Some(&labels)).unwrap();
        assert!(oc.coupled());
        assert_eq!(oc.blocks(), 3);
        let mut y = b.clone();
        oc.solve_in_place(&mut y);
        let off = residual(&a, &w, &y, &b);
        assert!(off > 1e-3, "the tie of 0.5 must matter, leaves {off:e}");
    }

    #[test]
    fn a_changed_weight_is_factored_again() {
        let len = 3000;
        let a = chains(len, 0.0);
        let mut w = vec![0.0; 3 * len];
        let mut oc = ObjectCholesky::default();
        oc.factor(&a, &w, None).unwrap();
        w[2 * len + 5] = 2.0;
        oc.factor(&a, &w, None).unwrap();
        let b: Vec<f64> = (0..3 * len).map(|i| (i % 5) as f64).collect();
        let mut x = b.clone();
        oc.solve_in_place(&mut x);
        let res = residual(&a, &w, &x, &b);
        assert!(res < 1e-12, "stale factor: leaves {res:e}");
    }

    #[test]
    fn a_block_that_is_not_positive_definite_is_named() {
        let a = chains(10, 0.0);
        let w = vec![-10.0; 30];
        let e = ObjectCholesky::default().factor(&a, &w, None).unwrap_err();
        assert!(e.contains("not positive definite"), "{e}");
    }
}
