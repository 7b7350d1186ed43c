//! Global problems solved through their local (Delassus) form, like Siconos's `*_WR` solvers:
//! `W = H^T M^{-1} H`, `q = H^T M^{-1} f + w`, solve the local problem, then
//! `v = M^{-1} (H r + f)`.
//!
//! `M` is used exactly as stored, as FCLib, Siconos and `fclib_tools.py` do: sparse Cholesky
//! when it is symmetric, sparse LU otherwise. (The LMGC FEM file stores only the upper triangle
//! of its mass matrix; Siconos's reference solves with that triangle as given, and its `v`
//! satisfies `M_stored v = H r + f` to 1.5e-16. Symmetrising would solve a different problem.)
//! A symmetric `M` that splits into objects (blocks of connected components: the nodal
//! pipeline's strands and cloths) is factored and reduced per object, each object solving only
//! for the contact columns that touch it.

use super::problem::{Csc, GlobalProblem, LocalProblem, csc_mul_add};
use super::residual::global_error;
use super::solver::{SolveReport, SolverOptions};
use crate::linalg::object_cholesky::ObjectCholesky;
use anyhow::{Result, anyhow};
use faer::linalg::solvers::Solve;
use faer::sparse::Triplet;
use faer::sparse::linalg::solvers::{Llt, Lu};
use faer::{Mat, Side};
use rayon::prelude::*;

/// `(M + M^T)/2` as a CSC matrix.
pub fn symmetrized(m: &Csc) -> Result<Csc> {
    let a = m.as_ref();
    let mut t = Vec::with_capacity(2 * a.compute_nnz());
    for j in 0..a.ncols() {
        for (i, v) in a.row_idx_of_col_raw(j).iter().zip(a.val_of_col(j)) {
            let i = *i;
            t.push(Triplet::new(i, j, 0.5 * v));
            t.push(Triplet::new(j, i, 0.5 * v));
        }
    }
    Csc::try_new_from_triplets(a.nrows(), a.ncols(), &t).map_err(|e| anyhow!("symmetrising M: {e:?}"))
}

/// True if `max |A - A^T| <= 1e-13 max |A|` (round-off of an assembled symmetric matrix).
pub fn is_symmetric(a: &Csc) -> bool {
    is_symmetric_within(a, 1e-13)
}

/// Columns per parallel task of [`is_symmetric_within`]: small enough that a local problem of a
/// few thousand unknowns is split across threads (KaplasTower, 1710 columns: 1.0 -> 0.7 ms on
/// 2 threads against 4096 per task).
const MIN_COLUMNS_PER_TASK: usize = 128;

/// Whether every entry of `A − Aᵀ` is within `tol` times the largest entry of `A`, all
/// entries being finite (a NaN or infinity anywhere, the diagonal included, is not symmetric).
/// Each stored `a_ij` is compared with `a_ji`, found by binary search in column `i` (an entry
/// missing from the pattern is 0); no copy of `A` is made, so checking the global matrices of
/// large scenes (10M entries) costs a pass over them, not the gigabyte of a transpose.
pub fn is_symmetric_within(a: &Csc, tol: f64) -> bool {
    let ar = a.as_ref();
    if ar.nrows() != ar.ncols() {
        return false;
    }
    if !a.val().iter().all(|x| x.is_finite()) {
        return false;
    }
    let amax = a.val().iter().fold(0.0f64, |m, x| m.max(x.abs()));
    let bound = tol * amax;
    // The lookup needs strictly increasing rows in each column (faer's own constructors give
    // them; a matrix built from unchecked parts might not): otherwise sum a copy instead.
    let sorted = (0..ar.ncols()).all(|j| ar.row_idx_of_col_raw(j).windows(2).all(|w| w[0] < w[1]));
    if !sorted {
        let mut t = Vec::with_capacity(2 * ar.compute_nnz());
        for j in 0..ar.ncols() {
            for (i, v) in ar.row_idx_of_col_raw(j).iter().zip(ar.val_of_col(j)) {
                t.push(Triplet::new(*i, j, *v));
                t.push(Triplet::new(j, *i, -*v));
            }
        }
        return Csc::try_new_from_triplets(a.nrows(), a.ncols(), &t)
            .is_ok_and(|d| d.val().iter().all(|x| x.abs() <= bound));
    }
    let entry = |i: usize, j: usize| -> f64 {
        let rows = ar.row_idx_of_col_raw(j);
        rows.binary_search(&i).map_or(0.0, |k| ar.val_of_col(j)[k])
    };
    (0..ar.ncols()).into_par_iter().with_min_len(MIN_COLUMNS_PER_TASK).all(|j| {
        let rows = ar.row_idx_of_col_raw(j);
        rows.iter().zip(ar.val_of_col(j)).all(|(&i, &v)| i == j || (v - entry(j, i)).abs() <= bound)
    })
}

/// A factorised square matrix: Cholesky if symmetric, LU otherwise.
// Built once per problem: the size difference of the variants does not matter.
#[allow(clippy::large_enum_variant)]
pub enum Factor {
    Llt(Llt<usize, f64>),
    Lu(Lu<usize, f64>),
}

impl Factor {
    pub fn new(a: &Csc, what: &str) -> Result<Self> {
        match is_symmetric(a) {
            true => Self::cholesky(&symmetrized(a)?, what),
            false => Self::lu(a, what),
        }
    }

    fn lu(a: &Csc, what: &str) -> Result<Self> {
        Ok(Factor::Lu(a.sp_lu().map_err(|e| anyhow!("{what} is singular (LU: {e:?})"))?))
    }

    /// The Cholesky factor of `s`, symmetric with its whole pattern stored.
    fn cholesky(s: &Csc, what: &str) -> Result<Self> {
        let f = s.sp_cholesky(Side::Lower).map_err(|e| anyhow!("{what} is not positive definite (Cholesky: {e:?})"))?;
        Ok(Factor::Llt(f))
    }

    pub fn solve_in_place(&self, x: faer::MatMut<'_, f64>) {
        match self {
            Factor::Llt(f) => f.solve_in_place(x),
            Factor::Lu(f) => f.solve_in_place(x),
        }
    }

    pub fn kind(&self) -> &'static str {
        match self {
            Factor::Llt(_) => "Cholesky",
            Factor::Lu(_) => "LU",
        }
    }
}

/// How `M` is solved: one factor, or one per object (group of connected components) where `M`
/// is block diagonal, as the nodal pipeline's `A = M + h² K` of many strands and cloths is.
// Built once per problem: the size difference of the variants does not matter.
#[allow(clippy::large_enum_variant)]
enum MassSolve {
    Whole(Factor),
    /// Behind a lock because its solve uses per-block scratch space.
    Objects(std::sync::Mutex<ObjectCholesky>),
}

/// A global problem with its factorised mass matrix and the equivalent local problem.
pub struct Reduced {
    pub local: LocalProblem,
    mass: MassSolve,
}

impl Reduced {
    pub fn new(g: &GlobalProblem) -> Result<Self> {
        let whole = |f: Factor| -> Result<(Csc, MassSolve)> { Ok((delassus_whole(g, &f)?, MassSolve::Whole(f))) };
        let (w, mass) = match is_symmetric(&g.m) {
            true => {
                let s = symmetrized(&g.m)?;
                match objects(&s) {
                    Some(oc) => (delassus_by_objects(g, &oc)?, MassSolve::Objects(oc.into())),
                    None => whole(Factor::cholesky(&s, "M")?)?,
                }
            }
            false => whole(Factor::lu(&g.m, "M")?)?,
        };
        let mut v0 = g.f.clone();
        mass.solve(&mut v0);
        let mut q = g.w.clone();
        g.velocity(&v0, &mut q);
        let local = LocalProblem::new(w, q, g.cones.clone())?;
        Ok(Reduced { local, mass })
    }

    /// `v = M^{-1} (H r + f)`, with `H r` summed before `f` is added (the order changes the
    /// last bits, and a house of cards' step 3 at 1e-6 takes 146 iterations one way and misses
    /// the tolerance after 593 the other).
    pub fn velocity(&self, g: &GlobalProblem, r: &[f64], v: &mut [f64]) {
        v.fill(0.0);
        csc_mul_add(&g.h, r, v);
        for (x, f) in v.iter_mut().zip(&g.f) {
            *x += f;
        }
        self.mass.solve(v);
    }

    /// How `M` was factorised: "Cholesky", "LU", or "Cholesky per object".
    pub fn factor_kind(&self) -> &'static str {
        match &self.mass {
            MassSolve::Whole(f) => f.kind(),
            MassSolve::Objects(_) => "Cholesky per object",
        }
    }
}

impl MassSolve {
    /// `x ← M⁻¹ x`.
    fn solve(&self, x: &mut [f64]) {
        match self {
            MassSolve::Whole(f) => f.solve_in_place(faer::MatMut::from_column_major_slice_mut(x, x.len(), 1)),
            MassSolve::Objects(oc) => oc.lock().expect("no solve panicked").solve_in_place(x),
        }
    }
}

/// The objects of a symmetric `s` (whole pattern stored), factorised, when there are more than
/// one; `None` sends it to the one factor, which also reports a matrix that is not positive
/// definite. The split is known before any numeric factorisation, so a single object is
/// factored once.
fn objects(s: &Csc) -> Option<ObjectCholesky> {
    let mut oc = ObjectCholesky::default();
    if oc.analyse(s, None).is_err() || oc.components() < 2 {
        return None;
    }
    oc.factor(s, &vec![0.0; s.nrows()], None).ok()?;
    Some(oc)
}

/// `W = Hᵀ M⁻¹ H` with one factor: `M⁻¹ H` in one dense multi-RHS solve, then `W`'s entry
/// (a, b) = Σ_i H_ia X_ib, sparse in H.
fn delassus_whole(g: &GlobalProblem, f: &Factor) -> Result<Csc> {
    let (ndof, n) = (g.ndof(), 3 * g.nc());
    let h = g.h.as_ref();
    let mut x = Mat::<f64>::zeros(ndof, n);
    for j in 0..n {
        for (i, v) in h.row_idx_of_col_raw(j).iter().zip(h.val_of_col(j)) {
            x[(*i, j)] = *v;
        }
    }
    f.solve_in_place(x.as_mut());
    let all: Vec<usize> = (0..n).collect();
    let t = gram(h, &all, Some, None, &x);
    Csc::try_new_from_triplets(n, n, &t).map_err(|e| anyhow!("Delassus assembly: {e:?}"))
}

/// `W = Σ_objects H_oᵀ M_o⁻¹ H_o`: each object solves only for the columns of `H` that touch
/// it, and only pairs of those columns get entries from it. A strand's contacts see the strand
/// alone, not the whole scene's unknowns: the dense `M⁻¹ H` of the whole (dofs × columns,
/// 750 MB at the hair band's 3700 contacts) becomes one small block per object.
fn delassus_by_objects(g: &GlobalProblem, oc: &ObjectCholesky) -> Result<Csc> {
    let n = 3 * g.nc();
    let h = g.h.as_ref();
    let mut columns: Vec<Vec<usize>> = vec![Vec::new(); oc.blocks()];
    for j in 0..n {
        for &i in h.row_idx_of_col_raw(j) {
            let c = &mut columns[oc.place(i).0];
            if c.last() != Some(&j) {
                c.push(j);
            }
        }
    }
    let t: Vec<Triplet<usize, usize, f64>> = (0..oc.blocks())
        .into_par_iter()
        .flat_map_iter(|b| {
            let cols = &columns[b];
            let in_block = |i: usize| {
                let (block, k) = oc.place(i);
                (block == b).then_some(k)
            };
            let mut x = Mat::<f64>::zeros(oc.block_dofs(b).len(), cols.len());
            for (c, &j) in cols.iter().enumerate() {
                for (i, v) in h.row_idx_of_col_raw(j).iter().zip(h.val_of_col(j)) {
                    if let Some(k) = in_block(*i) {
                        x[(k, c)] = *v;
                    }
                }
            }
            oc.solve_block(b, x.as_mut());
            gram(h, cols, in_block, Some(&|i| oc.component(i)), &x)
        })
        .collect();
    // Entries of a pair of columns touching two objects are summed over both.
    Csc::try_new_from_triplets(n, n, &t).map_err(|e| anyhow!("Delassus assembly: {e:?}"))
}

/// The nonzero entries (a, b) = Σ_i H_ia X_ib of `Hᵀ X` over the columns `cols` of `H` (the
/// k-th column of `X` belongs to `cols[k]`), the sum over the rows `place` maps to rows of `X`.
/// With `component` (of a row), only pairs of columns that touch a common component are
/// summed: `X`'s column is exactly zero outside the components its own column touches (the
/// factor of a block-diagonal matrix has no fill between its blocks), so every other pair is an
/// exact zero, which the full loop would drop anyway. Ninety-eight stools packed into one block
/// make 29,400 columns: all pairs would be 8.6e8 sums.
fn gram(
    h: faer::sparse::SparseColMatRef<'_, usize, f64>,
    cols: &[usize],
    place: impl Fn(usize) -> Option<usize>,
    component: Option<&dyn Fn(usize) -> usize>,
    x: &Mat<f64>,
) -> Vec<Triplet<usize, usize, f64>> {
    let partners = component.map(|component| partners(h, cols, &place, component));
    let all: Vec<usize> = if partners.is_none() { (0..cols.len()).collect() } else { Vec::new() };
    let mut t = Vec::new();
    for (kb, &b) in cols.iter().enumerate() {
        for &ka in partners.as_ref().map_or(&all, |p| &p[kb]) {
            let a = cols[ka];
            let mut s = 0.0;
            for (i, v) in h.row_idx_of_col_raw(a).iter().zip(h.val_of_col(a)) {
                if let Some(k) = place(*i) {
                    s += v * x[(k, kb)];
                }
            }
            if s != 0.0 {
                t.push(Triplet::new(a, b, s));
            }
        }
    }
    t
}

/// For each of `cols`, the positions (ascending) of the columns that touch a component it
/// touches, itself included.
fn partners(
    h: faer::sparse::SparseColMatRef<'_, usize, f64>,
    cols: &[usize],
    place: &impl Fn(usize) -> Option<usize>,
    component: &dyn Fn(usize) -> usize,
) -> Vec<Vec<usize>> {
    let touched: Vec<Vec<usize>> = cols
        .iter()
        .map(|&j| {
            let mut c: Vec<usize> =
                h.row_idx_of_col_raw(j).iter().filter(|i| place(**i).is_some()).map(|&i| component(i)).collect();
            c.sort_unstable();
            c.dedup();
            c
        })
        .collect();
    let mut columns_of: std::collections::HashMap<usize, Vec<usize>> = std::collections::HashMap::new();
    for (k, comps) in touched.iter().enumerate() {
        for &c in comps {
            columns_of.entry(c).or_default().push(k);
        }
    }
    touched
        .iter()
        .map(|comps| {
            let mut ks: Vec<usize> = comps.iter().flat_map(|c| columns_of[c].iter().copied()).collect();
            if comps.len() > 1 {
                ks.sort_unstable();
                ks.dedup();
            }
            ks
        })
        .collect()
}

/// Solve a global problem with a local solver on its Delassus form. The stopping rule of the
/// local solver is applied to the local error; the report carries the *global* error (Siconos's
/// gfc3d measure), and `converged` is re-decided on it.
pub fn solve_reduced(
    g: &GlobalProblem,
    red: &Reduced,
    local_solver: impl Fn(&LocalProblem, &mut [f64], &mut [f64], &SolverOptions) -> SolveReport,
    r: &mut [f64],
    v: &mut [f64],
    opts: &SolverOptions,
) -> SolveReport {
    let mut u = vec![0.0; r.len()];
    let start = std::time::Instant::now();
    // The local error bounds the global natural-map part; the equation part is at round-off
    // after the back-substitution. Tighten by 10x so the global measure meets `tol`.
    let local_opts = SolverOptions { tol: opts.tol * 0.1, ..opts.clone() };
    let mut rep = local_solver(&red.local, r, &mut u, &local_opts);
    red.velocity(g, r, v);
    let e = global_error(g, r, v);
    rep.residual_abs = e.natmap_abs;
    rep.residual_rel = e.total;
    rep.converged = e.total <= opts.tol;
    rep.time = start.elapsed();
    rep.message = format!("{} (on the Delassus form; global eq_rel {:.1e})", rep.message, e.eq_rel);
    rep
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::friction::cone::Cone;

    /// Dense reference: max |a_ij - a_ji| against tol * max |a|.
    fn dense_symmetric(n: usize, t: &[Triplet<usize, usize, f64>], tol: f64) -> bool {
        let mut d = vec![0.0; n * n];
        for e in t {
            d[e.row * n + e.col] += e.val;
        }
        let amax = d.iter().fold(0.0f64, |m, x| m.max(x.abs()));
        (0..n).all(|i| (0..n).all(|j| (d[i * n + j] - d[j * n + i]).abs() <= tol * amax))
    }

    #[test]
    fn symmetry_test_agrees_with_a_dense_comparison() {
        let mut seed = 5u64;
        let mut rnd = || crate::test_rng::unit(&mut seed);
        for case in 0..300 {
            let n = 1 + (rnd() * 12.0) as usize;
            let mut t = Vec::new();
            for _ in 0..(rnd() * 3.0 * n as f64) as usize {
                let (i, j) = ((rnd() * n as f64) as usize, (rnd() * n as f64) as usize);
                let v = rnd() - 0.5;
                t.push(Triplet::new(i, j, v));
                // Mostly symmetric pairs; some entries only one side (pattern asymmetric), some
                // mirrored with a small or a large error, some mirrored as explicit zeros.
                match case % 5 {
                    0 | 1 => t.push(Triplet::new(j, i, v)),
                    2 => t.push(Triplet::new(j, i, v * (1.0 + 1e-15))),
                    3 => t.push(Triplet::new(j, i, v * (1.0 + 1e-6))),
                    _ => t.push(Triplet::new(j, i, 0.0)),
                }
            }
            let a = Csc::try_new_from_triplets(n, n, &t).unwrap();
            for tol in [1e-13, 1e-3] {
                assert_eq!(is_symmetric_within(&a, tol), dense_symmetric(n, &t, tol), "case {case}, tol {tol}");
            }
        }
    }

    /// A tridiagonal SPD mass matrix of components of `sizes` dofs, and one contact per entry of
    /// `rows` (its three columns on those dofs, random values).
    fn chains(sizes: &[usize], rows: &[&[usize]]) -> GlobalProblem {
        let ndof: usize = sizes.iter().sum();
        let mut t = Vec::new();
        let mut start = 0;
        for (o, &n) in sizes.iter().enumerate() {
            for k in 0..n {
                let i = start + k;
                t.push(Triplet::new(i, i, 4.0 + o as f64 + (k % 7) as f64 * 0.1));
                if k + 1 < n {
                    t.push(Triplet::new(i, i + 1, -1.0));
                    t.push(Triplet::new(i + 1, i, -1.0));
                }
            }
            start += n;
        }
        let m = Csc::try_new_from_triplets(ndof, ndof, &t).unwrap();
        let mut seed = 11u64;
        let mut rnd = || crate::test_rng::unit(&mut seed) - 0.5;
        let mut th = Vec::new();
        for (c, r) in rows.iter().enumerate() {
            for j in 3 * c..3 * c + 3 {
                for &i in r.iter() {
                    th.push(Triplet::new(i, j, rnd()));
                }
            }
        }
        let n = 3 * rows.len();
        let h = Csc::try_new_from_triplets(ndof, n, &th).unwrap();
        let f = (0..ndof).map(|_| rnd()).collect();
        let w = (0..n).map(|_| rnd()).collect();
        let cones = vec![Cone::isotropic(0.3).unwrap(); rows.len()];
        GlobalProblem::new(m, h, f, w, cones).unwrap()
    }

    /// `a` as a dense row-major matrix.
    fn dense(a: &Csc) -> Vec<f64> {
        let (n, ar) = (a.nrows(), a.as_ref());
        let mut d = vec![0.0; n * n];
        for j in 0..n {
            for (i, v) in ar.row_idx_of_col_raw(j).iter().zip(ar.val_of_col(j)) {
                d[n * i + j] += v;
            }
        }
        d
    }

    /// The largest entry difference of `a` and `b`, relative to the largest entry of `b`.
    fn relative_difference(a: &[f64], b: &[f64]) -> f64 {
        let scale = b.iter().fold(0.0f64, |m, x| m.max(x.abs()));
        a.iter().zip(b).fold(0.0f64, |m, (x, y)| m.max((x - y).abs())) / scale
    }

    /// `reduced`'s `W`, `q` and velocity map against those of one factor of the whole `M`.
    /// Bound 1e-12 relative: two factorisations of the same well-conditioned (diagonally
    /// dominant) matrices differ by round-off, some 1e-15.
    fn agrees_with_one_factor(g: &GlobalProblem, reduced: &Reduced) {
        let f = Factor::new(&g.m, "M").unwrap();
        let w = delassus_whole(g, &f).unwrap();
        let dw = relative_difference(&dense(&reduced.local.w), &dense(&w));
        assert!(dw <= 1e-12, "W differs by {dw:e}");
        let mut v0 = g.f.clone();
        f.solve_in_place(faer::MatMut::from_column_major_slice_mut(&mut v0, g.ndof(), 1));
        let mut q = g.w.clone();
        g.velocity(&v0, &mut q);
        let dq = relative_difference(&reduced.local.q, &q);
        assert!(dq <= 1e-12, "q differs by {dq:e}");
        let r: Vec<f64> = (0..3 * g.nc()).map(|k| 0.1 * k as f64 - 0.4).collect();
        let mut v = vec![0.0; g.ndof()];
        reduced.velocity(g, &r, &mut v);
        let mut rhs = g.f.clone();
        csc_mul_add(&g.h, &r, &mut rhs);
        f.solve_in_place(faer::MatMut::from_column_major_slice_mut(&mut rhs, g.ndof(), 1));
        let dv = relative_difference(&v, &rhs);
        assert!(dv <= 1e-12, "velocities differ by {dv:e}");
    }

    /// Two objects larger than a factorisation group (each its own block) and two small ones
    /// packed into a third block; contacts in one object, in another, across a large and a
    /// small object, and across the two small ones of the packed block.
    #[test]
    fn the_delassus_operator_by_objects_is_the_whole_ones() {
        let rows: [&[usize]; 5] =
            [&[5, 6, 7], &[2100 + 900, 2100 + 901], &[9, 4200 + 3], &[4200 + 10, 4200 + 29], &[4229, 4231]];
        let g = chains(&[2100, 2100, 30, 40], &rows);
        let red = Reduced::new(&g).unwrap();
        assert_eq!(red.factor_kind(), "Cholesky per object");
        agrees_with_one_factor(&g, &red);
        // Contacts 0 and 1 share no object: no entry. Contact 2 shares object 0 with contact 0
        // and object 2 with contact 3: entries with both.
        let w = dense(&red.local.w);
        assert_eq!(w[3], 0.0, "contacts 0 and 1 share no object");
        assert!(w[15 * 6] != 0.0 && w[15 * 6 + 9] != 0.0, "contact 2 touches objects 0 and 2");
    }

    /// Small components packed into one block are still objects (their contacts' pairs are
    /// summed only where they share one); a single component takes the one factor.
    #[test]
    fn packed_objects_are_objects_and_one_object_takes_the_one_factor() {
        let rows: [&[usize]; 3] = [&[3, 31], &[80, 119], &[5, 6]];
        let g = chains(&[30, 40, 50], &rows);
        let red = Reduced::new(&g).unwrap();
        assert_eq!(red.factor_kind(), "Cholesky per object");
        agrees_with_one_factor(&g, &red);
        // Contact 1 (object 2) shares no object with contact 2 (object 0): no entry.
        let w = dense(&red.local.w);
        assert_eq!(w[3 * 9 + 6], 0.0, "contacts 1 and 2 share no object");
        let g = chains(&[120], &rows);
        let red = Reduced::new(&g).unwrap();
        assert_eq!(red.factor_kind(), "Cholesky");
        agrees_with_one_factor(&g, &red);
    }

    #[test]
    fn a_non_finite_entry_is_never_symmetric() {
        for bad in [f64::NAN, f64::INFINITY] {
            // On the diagonal (which the mirror comparison skips) and mirrored off it.
            let diag = [Triplet::new(0, 0, bad), Triplet::new(1, 1, 1.0)];
            let off = [Triplet::new(0, 1, bad), Triplet::new(1, 0, bad), Triplet::new(1, 1, 1.0)];
            for t in [&diag[..], &off[..]] {
                let a = Csc::try_new_from_triplets(2, 2, t).unwrap();
                assert!(!is_symmetric_within(&a, 1e-3), "{bad} accepted in {t:?}");
            }
        }
    }
}
