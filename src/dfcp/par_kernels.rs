//! Sparse products and sums over millions of entries split into tasks of a fixed size, so that
//! their partial results, and the order they are combined in, do not depend on the number of
//! threads: the same bits on 1 or 16 threads. Below `PAR_MIN` entries they run sequentially
//! (also independent of the thread count).

use super::problem::Csc;
use rayon::prelude::*;

/// Entries (or contacts) per task.
const CHUNK: usize = 1 << 14;
/// Work below which a kernel stays on the calling thread: tasks would cost more than they save.
const PAR_MIN: usize = 1 << 18;
/// Column ranges a scatter product is split into (each into its own buffer).
const PARTS: usize = 4;

/// `y[j] = w[j] + Σ_i A_ij x_i` (`y = Aᵀ x + w`): each entry is one column's gather, computed by
/// one task in the sequential order, so the result is that of the sequential loop.
pub fn transpose_mul_add_into(a: &Csc, x: &[f64], w: &[f64], y: &mut [f64]) {
    let a = a.as_ref();
    assert!(y.len() == a.ncols() && w.len() == a.ncols(), "y and w need one entry per column");
    let col = |j: usize| -> f64 {
        let mut s = 0.0;
        for (i, v) in a.row_idx_of_col_raw(j).iter().zip(a.val_of_col(j)) {
            s += v * x[*i];
        }
        w[j] + s
    };
    if a.compute_nnz() < PAR_MIN {
        y.iter_mut().enumerate().for_each(|(j, yj)| *yj = col(j));
    } else {
        y.par_chunks_mut(CHUNK).enumerate().for_each(|(k, yk)| {
            yk.iter_mut().enumerate().for_each(|(o, yj)| *yj = col(k * CHUNK + o));
        });
    }
}

/// Buffers of [`mul_into`] (kept across calls so iterative solvers do not allocate).
#[derive(Default)]
pub struct MulWork {
    parts: Vec<Vec<f64>>,
}

/// `y = A x`. Large products split the columns into `PARTS` ranges of about equal entries, each
/// scattered into its own buffer, then summed in range order per entry.
pub fn mul_into(a: &Csc, x: &[f64], y: &mut [f64], work: &mut MulWork) {
    let ar = a.as_ref();
    let scatter = |cols: std::ops::Range<usize>, y: &mut [f64]| {
        for j in cols {
            let xj = x[j];
            if xj == 0.0 {
                continue;
            }
            for (i, v) in ar.row_idx_of_col_raw(j).iter().zip(ar.val_of_col(j)) {
                y[*i] += v * xj;
            }
        }
    };
    y.fill(0.0);
    let nnz = ar.compute_nnz();
    if nnz < PAR_MIN {
        scatter(0..ar.ncols(), y);
        return;
    }
    // Column boundaries at multiples of nnz / PARTS entries.
    let col_ptr = ar.col_ptr();
    let bounds: [usize; PARTS + 1] = std::array::from_fn(|k| {
        if k == PARTS { ar.ncols() } else { col_ptr.partition_point(|&p| p < k * nnz / PARTS).min(ar.ncols()) }
    });
    work.parts.resize_with(PARTS, Vec::new);
    work.parts.par_iter_mut().enumerate().for_each(|(k, buf)| {
        buf.clear();
        buf.resize(y.len(), 0.0);
        scatter(bounds[k]..bounds[k + 1], buf);
    });
    let parts = &work.parts;
    y.par_chunks_mut(CHUNK).enumerate().for_each(|(c, yc)| {
        for (o, yi) in yc.iter_mut().enumerate() {
            let i = c * CHUNK + o;
            *yi = parts.iter().fold(0.0, |s, b| s + b[i]);
        }
    });
}

/// `Σ_k f(k)` over `0..n`, summed in fixed chunks of `CHUNK` and then in chunk order.
pub fn sum(n: usize, f: impl Fn(usize) -> f64 + Sync) -> f64 {
    if n < PAR_MIN {
        return (0..n).map(f).sum();
    }
    let partial: Vec<f64> =
        (0..n.div_ceil(CHUNK)).into_par_iter().map(|c| (c * CHUNK..n.min((c + 1) * CHUNK)).map(&f).sum()).collect();
    partial.iter().sum()
}

/// Euclidean norm, summed as [`sum`].
pub fn norm2(x: &[f64]) -> f64 {
    sum(x.len(), |i| x[i] * x[i]).sqrt()
}

#[cfg(test)]
mod tests {
    use super::*;
    use faer::sparse::Triplet;

    /// A random sparse matrix with `nnz` entries over `n x m`.
    fn random(n: usize, m: usize, nnz: usize, seed: &mut u64) -> Csc {
        let t: Vec<_> = (0..nnz)
            .map(|_| {
                let (i, j) = (
                    (crate::test_rng::unit(seed) * n as f64) as usize,
                    (crate::test_rng::unit(seed) * m as f64) as usize,
                );
                Triplet::new(i, j, crate::test_rng::symmetric(seed))
            })
            .collect();
        crate::dfcp::problem::csc_from_triplets(n, m, &t).unwrap()
    }

    #[test]
    fn kernels_match_the_sequential_loops_and_are_bit_identical_across_threads() {
        let mut seed = 9u64;
        // Above the parallel threshold (about 600k entries) and below it.
        for (n, m, nnz) in [(40_000, 90_000, 600_000), (300, 500, 2_000)] {
            let a = random(n, m, nnz, &mut seed);
            let x: Vec<f64> = (0..m).map(|_| crate::test_rng::symmetric(&mut seed)).collect();
            let z: Vec<f64> = (0..n).map(|_| crate::test_rng::symmetric(&mut seed)).collect();
            let w: Vec<f64> = (0..m).map(|_| crate::test_rng::symmetric(&mut seed)).collect();
            let run = |threads: usize| {
                let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build().unwrap();
                pool.install(|| {
                    let (mut y, mut u) = (vec![0.0; n], vec![0.0; m]);
                    mul_into(&a, &x, &mut y, &mut MulWork::default());
                    transpose_mul_add_into(&a, &z, &w, &mut u);
                    (y, u, norm2(&x))
                })
            };
            let (one, two, three) = (run(1), run(2), run(3));
            let bits = |v: &[f64]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
            assert_eq!(bits(&one.0), bits(&two.0));
            assert_eq!(bits(&one.0), bits(&three.0));
            assert_eq!(bits(&one.1), bits(&two.1));
            assert_eq!(one.2.to_bits(), three.2.to_bits());
            // Against the plain sequential loops: `Aᵀ z + w` exactly (same order per entry);
            // `A x` and the norm to rounding (other summation order): 1e-12 relative to the
            // largest entry, for sums of at most a few dozen O(1) terms.
            let mut y_ref = vec![0.0; n];
            crate::dfcp::problem::csc_mul(&a, &x, &mut y_ref);
            let scale = y_ref.iter().fold(0.0f64, |s, v| s.max(v.abs()));
            assert!(one.0.iter().zip(&y_ref).all(|(p, q)| (p - q).abs() <= 1e-12 * scale));
            let ar = a.as_ref();
            for j in (0..m).step_by(97) {
                let s: f64 = ar.row_idx_of_col_raw(j).iter().zip(ar.val_of_col(j)).map(|(i, v)| v * z[*i]).sum();
                assert_eq!(one.1[j].to_bits(), (w[j] + s).to_bits(), "column {j}");
            }
            let nref = x.iter().map(|v| v * v).sum::<f64>().sqrt();
            assert!((one.2 - nref).abs() <= 1e-12 * nref);
        }
        // A sum long enough to be split into tasks.
        let big: Vec<f64> = (0..600_000).map(|_| crate::test_rng::symmetric(&mut seed)).collect();
        let norms: Vec<u64> = [1, 2, 3]
            .map(|t| rayon::ThreadPoolBuilder::new().num_threads(t).build().unwrap().install(|| norm2(&big).to_bits()))
            .to_vec();
        assert!(norms.iter().all(|b| *b == norms[0]));
        let nref = big.iter().map(|v| v * v).sum::<f64>().sqrt();
        assert!((f64::from_bits(norms[0]) - nref).abs() <= 1e-12 * nref);
    }
}
