//! The discrete frictional contact problem (DFCP) in local and global form.
//!
//! Local (FCLib `fclib_local`): `u = W r + q`, per contact `(u_c, r_c)` satisfies Signorini +
//! Coulomb on cone `K_c`; frames are (normal, tangent, binormal), so `r_c = (r_N, r_t, r_b)`.
//!
//! Global (FCLib `fclib_global`): `M v = H r + f`, `u = H^T v + w`, same contact law; `H` is
//! `ndof x 3nc`.
// Numeric kernels index several parallel arrays with one counter; iterator zips would hide that.
#![allow(clippy::needless_range_loop)]

use super::block_rows::BlockRows;
use crate::friction::cone::Cone;
use faer::sparse::SparseColMat;

/// Compressed sparse column matrix, the storage of all problem matrices.
pub type Csc = SparseColMat<usize, f64>;

/// A `Csc` from triplets, duplicates summed, like faer's `try_new_from_triplets` but by a
/// counting sort on the columns and a sort of each column's rows: the contact Jacobians have a
/// few entries per column and tens of millions in all (27M at 766k hair contacts), where a sort
/// of every triplet took a second per assembly. Fails on an index outside the shape.
pub fn csc_from_triplets(
    nrows: usize,
    ncols: usize,
    t: &[faer::sparse::Triplet<usize, usize, f64>],
) -> Result<Csc, String> {
    if let Some(e) = t.iter().find(|e| e.row >= nrows || e.col >= ncols) {
        return Err(format!("entry ({}, {}) outside a {nrows}x{ncols} matrix", e.row, e.col));
    }
    let mut start = vec![0usize; ncols + 1];
    for e in t {
        start[e.col + 1] += 1;
    }
    for j in 0..ncols {
        start[j + 1] += start[j];
    }
    let (mut rows, mut vals) = (vec![0usize; t.len()], vec![0.0; t.len()]);
    let mut next = start.clone();
    for e in t {
        let k = next[e.col];
        (rows[k], vals[k]) = (e.row, e.val);
        next[e.col] += 1;
    }
    let mut col_ptr = vec![0usize; ncols + 1];
    let mut pairs = Vec::new();
    let mut out = 0;
    for j in 0..ncols {
        pairs.clear();
        pairs.extend((start[j]..start[j + 1]).map(|k| (rows[k], vals[k])));
        // Stable: duplicates are summed in the order they were given.
        pairs.sort_by_key(|p| p.0);
        for &(r, v) in &pairs {
            if out > col_ptr[j] && rows[out - 1] == r {
                vals[out - 1] += v;
            } else {
                (rows[out], vals[out]) = (r, v);
                out += 1;
            }
        }
        col_ptr[j + 1] = out;
    }
    rows.truncate(out);
    vals.truncate(out);
    let sym = faer::sparse::SymbolicSparseColMat::new_checked(nrows, ncols, col_ptr, None, rows);
    Ok(Csc::new(sym, vals))
}

#[derive(Debug, thiserror::Error)]
pub enum ProblemError {
    #[error("matrix {name} is {rows}x{cols}, expected {erows}x{ecols}")]
    MatrixShape { name: &'static str, rows: usize, cols: usize, erows: usize, ecols: usize },
    #[error("vector {name} has length {len}, expected {expected}")]
    VectorLength { name: &'static str, len: usize, expected: usize },
    #[error("{name} contains a non-finite value at index {index}")]
    NonFinite { name: &'static str, index: usize },
    #[error("contact space dimension {0} is not a multiple of 3 (only spacedim 3 is supported)")]
    NotThreeD(usize),
    #[error("appended contacts: an entry lies outside the dofs or the new columns ({0})")]
    Assembly(String),
}

fn check_finite(name: &'static str, x: &[f64]) -> Result<(), ProblemError> {
    match x.iter().position(|v| !v.is_finite()) {
        Some(index) => Err(ProblemError::NonFinite { name, index }),
        None => Ok(()),
    }
}

fn check_shape(name: &'static str, a: &Csc, erows: usize, ecols: usize) -> Result<(), ProblemError> {
    if a.nrows() != erows || a.ncols() != ecols {
        return Err(ProblemError::MatrixShape { name, rows: a.nrows(), cols: a.ncols(), erows, ecols });
    }
    check_finite(name, a.val())
}

fn check_len(name: &'static str, x: &[f64], expected: usize) -> Result<(), ProblemError> {
    if x.len() != expected {
        return Err(ProblemError::VectorLength { name, len: x.len(), expected });
    }
    check_finite(name, x)
}

/// Local form `u = W r + q`.
#[derive(Clone, Debug)]
pub struct LocalProblem {
    pub w: Csc,
    pub q: Vec<f64>,
    pub cones: Vec<Cone>,
    /// Block-row view of `w` used by the sweeping solvers.
    pub blocks: BlockRows,
    /// A factor `G` with `W = G Gᵀ` (`3 nc x m`, `G = J L` for contact Jacobians `J` on `m`
    /// generalized velocities and `M⁻¹ = L Lᵀ`), when the problem comes from bodies whose
    /// velocities are known: it lets a solver work in the `m` velocities instead of the
    /// contacts (002 §5.3.6: the primal contact QP when contacts outnumber them).
    pub factor: Option<Csc>,
}

impl LocalProblem {
    pub fn new(w: Csc, q: Vec<f64>, cones: Vec<Cone>) -> Result<Self, ProblemError> {
        let n = 3 * cones.len();
        check_shape("W", &w, n, n)?;
        check_len("q", &q, n)?;
        let blocks = BlockRows::from_csc(w.as_ref());
        Ok(LocalProblem { w, q, cones, blocks, factor: None })
    }

    /// The problem with its factor `G` (`W = G Gᵀ`; the caller's assembly guarantees it, only
    /// the shape and values are checked here).
    pub fn with_factor(mut self, g: Csc) -> Result<Self, ProblemError> {
        check_shape("G", &g, 3 * self.nc(), g.ncols())?;
        self.factor = Some(g);
        Ok(self)
    }

    pub fn nc(&self) -> usize {
        self.cones.len()
    }

    /// `u = W r + q`.
    pub fn velocity(&self, r: &[f64], u: &mut [f64]) {
        self.blocks.mul_add(r, &self.q, u);
    }

    /// `u_c = (W r + q)_c` for the contacts `rows` only.
    pub fn velocity_rows(&self, rows: &[usize], r: &[f64], u: &mut [f64]) {
        self.blocks.mul_add_rows(rows, r, &self.q, u);
    }

    /// `W + αI` (the diagonal added to `W`'s pattern). When `W` stores every diagonal entry
    /// (every FCLib and pipeline problem: each contact's own block) this is a copy of `W` with
    /// α added in place, a tenth of the cost of reassembling from triplets (KaplasTower, 117k
    /// entries: 0.9 ms that way).
    pub fn w_plus_identity(&self, alpha: f64) -> Csc {
        if let Some(a) = self.with_diagonal_added(alpha) {
            return a;
        }
        let w = self.w.as_ref();
        let mut t = Vec::with_capacity(w.compute_nnz() + w.ncols());
        for j in 0..w.ncols() {
            for (i, v) in w.row_idx_of_col_raw(j).iter().zip(w.val_of_col(j)) {
                t.push(faer::sparse::Triplet::new(*i, j, *v));
            }
            t.push(faer::sparse::Triplet::new(j, j, alpha));
        }
        csc_from_triplets(w.nrows(), w.ncols(), &t).expect("the pattern of a valid matrix plus its diagonal")
    }

    /// `W` with α added to its stored diagonal, or `None` if a column does not store its
    /// diagonal entry (or its rows are not strictly increasing, as faer's constructors leave
    /// them, which the binary search needs).
    fn with_diagonal_added(&self, alpha: f64) -> Option<Csc> {
        let w = self.w.as_ref();
        let mut a = self.w.clone();
        let vals = a.val_mut();
        for j in 0..w.ncols() {
            let rows = w.row_idx_of_col_raw(j);
            if !rows.windows(2).all(|p| p[0] < p[1]) {
                return None;
            }
            vals[w.col_ptr()[j] + rows.binary_search(&j).ok()?] += alpha;
        }
        Some(a)
    }

    /// The mean of `W`'s diagonal over contacts with a positive one (1 if none): its scale.
    pub fn mean_diagonal(&self) -> f64 {
        let (s, k) = self.blocks.diag.iter().fold((0.0, 0usize), |(s, k), d| {
            let t = (d[0] + d[4] + d[8]) / 3.0;
            if t > 0.0 { (s + t, k + 1) } else { (s, k) }
        });
        if k > 0 { s / k as f64 } else { 1.0 }
    }
}

/// Global form `M v = H r + f`, `u = H^T v + w`.
#[derive(Clone, Debug)]
pub struct GlobalProblem {
    pub m: Csc,
    pub h: Csc,
    pub f: Vec<f64>,
    pub w: Vec<f64>,
    pub cones: Vec<Cone>,
}

impl GlobalProblem {
    pub fn new(m: Csc, h: Csc, f: Vec<f64>, w: Vec<f64>, cones: Vec<Cone>) -> Result<Self, ProblemError> {
        let ndof = m.nrows();
        let n = 3 * cones.len();
        check_shape("M", &m, ndof, ndof)?;
        check_shape("H", &h, ndof, n)?;
        check_len("f", &f, ndof)?;
        check_len("w", &w, n)?;
        Ok(GlobalProblem { m, h, f, w, cones })
    }

    pub fn nc(&self) -> usize {
        self.cones.len()
    }

    pub fn ndof(&self) -> usize {
        self.m.nrows()
    }

    /// The same problem with contacts appended: `h` holds their `H` entries as `(dof, column
    /// among the new contacts, value)`.
    pub fn with_contacts(&self, new: &crate::dfcp::admm::NewContacts) -> Result<Self, ProblemError> {
        let (nc, ndof) = (self.nc(), self.ndof());
        let hr = self.h.as_ref();
        let mut t = Vec::with_capacity(hr.compute_nnz() + new.h.len());
        for j in 0..hr.ncols() {
            for (i, x) in hr.row_idx_of_col_raw(j).iter().zip(hr.val_of_col(j)) {
                t.push(faer::sparse::Triplet::new(*i, j, *x));
            }
        }
        t.extend(new.h.iter().map(|e| faer::sparse::Triplet::new(e.row, 3 * nc + e.col, e.val)));
        let n = 3 * (nc + new.cones.len());
        let h = csc_from_triplets(ndof, n, &t).map_err(ProblemError::Assembly)?;
        let w = [self.w.as_slice(), new.w.as_slice()].concat();
        let cones = [self.cones.as_slice(), new.cones.as_slice()].concat();
        GlobalProblem::new(self.m.clone(), h, self.f.clone(), w, cones)
    }

    /// `u = H^T v + w` (in parallel for large problems, the same bits on any thread count).
    pub fn velocity(&self, v: &[f64], u: &mut [f64]) {
        super::par_kernels::transpose_mul_add_into(&self.h, v, &self.w, u);
    }
}

/// `y = A x` for a CSC matrix (`y` overwritten).
/// The diagonal of `a` (0 where the pattern has no diagonal entry).
pub fn diagonal(a: &Csc) -> Vec<f64> {
    let ar = a.as_ref();
    (0..a.ncols())
        .map(|j| {
            let rows = ar.row_idx_of_col_raw(j);
            rows.binary_search(&j).map_or(0.0, |k| ar.val_of_col(j)[k])
        })
        .collect()
}

pub fn csc_mul(a: &Csc, x: &[f64], y: &mut [f64]) {
    y.iter_mut().for_each(|v| *v = 0.0);
    csc_mul_add(a, x, y);
}

/// `y += A x` for a CSC matrix.
pub fn csc_mul_add(a: &Csc, x: &[f64], y: &mut [f64]) {
    let a = a.as_ref();
    for j in 0..a.ncols() {
        let xj = x[j];
        if xj == 0.0 {
            continue;
        }
        for (i, v) in a.row_idx_of_col_raw(j).iter().zip(a.val_of_col(j)) {
            y[*i] += v * xj;
        }
    }
}

/// Euclidean norm.
pub fn norm2(x: &[f64]) -> f64 {
    x.iter().map(|v| v * v).sum::<f64>().sqrt()
}

impl LocalProblem {
    /// The equivalent isotropic problem for elliptic cones: `W' = S W S`, `q' = S q`, cone
    /// `K_{sqrt(mu_t mu_b)}`, with `S = blockdiag(1, mu_t/mu, mu_b/mu)`; `r = S r'` and `u' = S u`.
    /// Returns `None` if every cone is already isotropic. Solvers that only handle isotropic cones
    /// use this (exact, not an approximation).
    pub fn scaled_isotropic(&self) -> Option<(LocalProblem, Vec<f64>)> {
        if self.cones.iter().all(|k| k.is_isotropic()) {
            return None;
        }
        let s: Vec<f64> = self
            .cones
            .iter()
            .flat_map(|k| {
                let [a, b] = k.scale();
                [1.0, a, b]
            })
            .collect();
        let w = self.w.as_ref();
        let mut t = Vec::with_capacity(w.compute_nnz());
        for j in 0..w.ncols() {
            for (i, v) in w.row_idx_of_col_raw(j).iter().zip(w.val_of_col(j)) {
                let i = *i;
                t.push(faer::sparse::Triplet::new(i, j, s[i] * v * s[j]));
            }
        }
        let w2 = Csc::try_new_from_triplets(w.nrows(), w.ncols(), &t).expect("same pattern as a valid matrix");
        let q2: Vec<f64> = self.q.iter().zip(&s).map(|(q, s)| q * s).collect();
        let cones = self.cones.iter().map(|k| Cone::isotropic(k.mu_ref()).expect("valid cone")).collect();
        Some((LocalProblem::new(w2, q2, cones).expect("same sizes as a valid problem"), s))
    }
}

#[cfg(test)]
mod assembly_tests {
    use super::*;
    use faer::sparse::Triplet;

    #[test]
    fn triplet_assembly_equals_faers() {
        let mut seed = 3u64;
        let mut rnd = || crate::test_rng::unit(&mut seed);
        for case in 0..200 {
            let (nr, nc) = (1 + (rnd() * 20.0) as usize, 1 + (rnd() * 20.0) as usize);
            // Random entries with duplicates (a few rows per column), some columns empty,
            // including one long column so the per-column sort sees more than a handful.
            let mut t: Vec<Triplet<usize, usize, f64>> = (0..(rnd() * 60.0) as usize)
                .map(|_| Triplet::new((rnd() * nr as f64) as usize, (rnd() * nc as f64) as usize, rnd() - 0.5))
                .collect();
            if case % 7 == 0 {
                t.extend((0..nr).rev().map(|i| Triplet::new(i, 0, i as f64)));
            }
            let ours = csc_from_triplets(nr, nc, &t).unwrap();
            let theirs = Csc::try_new_from_triplets(nr, nc, &t).unwrap();
            assert_eq!(ours.symbolic().col_ptr(), theirs.symbolic().col_ptr(), "case {case}");
            assert_eq!(ours.symbolic().row_idx(), theirs.symbolic().row_idx(), "case {case}");
            // Sums of the same duplicates, possibly in another order: equal to rounding.
            for (a, b) in ours.val().iter().zip(theirs.val()) {
                assert!((a - b).abs() <= 1e-15, "case {case}: {a} vs {b}");
            }
        }
        assert!(csc_from_triplets(2, 2, &[Triplet::new(2, 0, 1.0)]).is_err());
        assert!(csc_from_triplets(2, 2, &[Triplet::new(0, 2, 1.0)]).is_err());
    }

    /// `W + αI` by the in-place copy (full diagonal) and by reassembly (a diagonal entry
    /// missing) equals a dense `W + αI` entry for entry.
    #[test]
    fn w_plus_identity_with_and_without_a_stored_diagonal() {
        let cones = vec![crate::friction::cone::Cone::isotropic(0.5).unwrap(); 2];
        for missing in [None, Some(4)] {
            let mut t = Vec::new();
            for i in 0..6 {
                for j in 0..6 {
                    let stored = (i + 2 * j) % 3 != 0 || i == j;
                    if stored && !(i == j && Some(i) == missing) {
                        t.push(Triplet::new(i, j, (i * 6 + j) as f64 * 0.25 - 3.0));
                    }
                }
            }
            let p =
                LocalProblem::new(Csc::try_new_from_triplets(6, 6, &t).unwrap(), vec![0.0; 6], cones.clone()).unwrap();
            let a = p.w_plus_identity(1.5);
            let dense = |m: &Csc, i: usize, j: usize| {
                let r = m.as_ref();
                r.row_idx_of_col_raw(j).iter().position(|&k| k == i).map_or(0.0, |k| r.val_of_col(j)[k])
            };
            for i in 0..6 {
                for j in 0..6 {
                    let want = dense(&p.w, i, j) + if i == j { 1.5 } else { 0.0 };
                    // Exact: one addition of representable quarters.
                    assert_eq!(dense(&a, i, j), want, "missing {missing:?}, ({i}, {j})");
                }
            }
        }
    }
}
