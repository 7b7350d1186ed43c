//! Reduced St. Venant–Kirchhoff elasticity (Barbič & James 2005): the StVK energy of a tet mesh
//! whose displacement is `u = Φ q` is a quartic polynomial in the `r` reduced coordinates,
//!
//! `E(q) = ½ qᵀ K₁ q + Σ C_ijk q_i q_j q_k + Σ D_ijkl q_i q_j q_k q_l`,
//!
//! whose coefficients are computed once from the mesh; afterwards forces and stiffness cost
//! `O(r⁴)` whatever the mesh size. Per tet, with `G_i` the displacement gradient of mode `i`,
//! the Green strain is `E = Σ q_i L_i + Σ q_j q_k Q_jk` with `L_i = sym G_i` and
//! `Q_jk = ¼(G_jᵀ G_k + G_kᵀ G_j)`, and the density `μ E:E + λ/2 (tr E)²` expands to
//! `K₁ = 2V ⟨L, L⟩`, `C = 2V ⟨L, Q⟩`, `D = V ⟨Q, Q⟩` in the inner product
//! `⟨A, B⟩ = μ A:B + λ/2 tr A tr B`. Each tet's strains are written as 7 features (the six
//! independent components of a symmetric matrix, off-diagonals weighted by √2 so that `A:B` is
//! a dot product, and the trace), so the sums over all tets are three matrix products.
//! `C` and `D` are then symmetrized over all index orders, which gives
//! `∇E = K₁ q + 3 S q + 4 T q` and `∇²E = K₁ + 6 S + 12 T` with `S = C·q`, `T = D·q·q`.

use crate::energy::elastic::material::Lame;
use crate::energy::elastic::tet::TetElement;
use faer::Mat;
use nalgebra::{DMatrix, DVector, Matrix3};

/// The coefficients of the reduced StVK energy.
#[derive(Debug, Clone, PartialEq)]
pub struct StvkPolynomial {
    r: usize,
    k1: DMatrix<f64>,
    /// `C_ijk` at `(i r + j) r + k`, symmetric in every index order.
    c: Vec<f64>,
    /// `D_ijkl` at `((i r + j) r + k) r + l`, symmetric in every index order.
    d: Vec<f64>,
}

/// Tets per block of the feature matrices (bounds their memory to `r² × 7 × BLOCK` numbers).
const BLOCK: usize = 512;

impl StvkPolynomial {
    /// The polynomial of `elements` (node indices into `phi`'s rows, three per node) with Lamé
    /// parameters `lame`, for modes `phi` (`3N × r`, body frame).
    pub fn new(elements: &[TetElement], lame: Lame, phi: &DMatrix<f64>) -> StvkPolynomial {
        let r = phi.ncols();
        let weight = [lame.mu, lame.mu, lame.mu, lame.mu, lame.mu, lame.mu, 0.5 * lame.lambda];
        let (mut k1, mut c, mut d) =
            (Mat::<f64>::zeros(r, r), Mat::<f64>::zeros(r, r * r), Mat::<f64>::zeros(r * r, r * r));
        for block in elements.chunks(BLOCK) {
            let cols = 7 * block.len();
            // Features: L (r × cols), Q (r² × cols), and L and Q scaled by V w (the metric).
            let (mut l, mut q) = (Mat::<f64>::zeros(r, cols), Mat::<f64>::zeros(r * r, cols));
            let (mut lw, mut qw) = (Mat::<f64>::zeros(r, cols), Mat::<f64>::zeros(r * r, cols));
            let mut g = vec![Matrix3::zeros(); r];
            for (e, el) in block.iter().enumerate() {
                let grads = el.shape_gradients();
                for (i, gi) in g.iter_mut().enumerate() {
                    *gi = Matrix3::zeros();
                    for (a, ca) in grads.iter().enumerate() {
                        let n = el.nodes[a];
                        let ua = nalgebra::Vector3::new(phi[(3 * n, i)], phi[(3 * n + 1, i)], phi[(3 * n + 2, i)]);
                        *gi += ua * ca.transpose();
                    }
                }
                for i in 0..r {
                    let f = features(&((g[i] + g[i].transpose()) * 0.5));
                    for (k, &fk) in f.iter().enumerate() {
                        l[(i, 7 * e + k)] = fk;
                        lw[(i, 7 * e + k)] = fk * weight[k] * el.rest_volume;
                    }
                    for j in 0..r {
                        let a = g[i].transpose() * g[j];
                        let f = features(&((a + a.transpose()) * 0.25));
                        for (k, &fk) in f.iter().enumerate() {
                            q[(i * r + j, 7 * e + k)] = fk;
                            qw[(i * r + j, 7 * e + k)] = fk * weight[k] * el.rest_volume;
                        }
                    }
                }
            }
            let par = faer::get_global_parallelism();
            use faer::linalg::matmul::matmul;
            matmul(k1.as_mut(), faer::Accum::Add, lw.as_ref(), l.transpose(), 2.0, par);
            matmul(c.as_mut(), faer::Accum::Add, lw.as_ref(), q.transpose(), 2.0, par);
            matmul(d.as_mut(), faer::Accum::Add, qw.as_ref(), q.transpose(), 1.0, par);
        }
        let k1 = DMatrix::from_fn(r, r, |i, j| 0.5 * (k1[(i, j)] + k1[(j, i)]));
        let c_at = |i: usize, j: usize, k: usize| c[(i, j * r + k)];
        let mut cs = vec![0.0; r * r * r];
        for i in 0..r {
            for j in 0..r {
                for k in 0..r {
                    // C is symmetric in its last two indices by construction; the three
                    // placements of the first complete the six orders.
                    cs[(i * r + j) * r + k] = (c_at(i, j, k) + c_at(j, i, k) + c_at(k, j, i)) / 3.0;
                }
            }
        }
        let d_at = |i: usize, j: usize, k: usize, l: usize| d[(i * r + j, k * r + l)];
        let mut ds = vec![0.0; r * r * r * r];
        for i in 0..r {
            for j in 0..r {
                for k in 0..r {
                    for l in 0..r {
                        // Symmetric within each pair and between the pairs; the three pairings
                        // complete the 24 orders.
                        ds[((i * r + j) * r + k) * r + l] =
                            (d_at(i, j, k, l) + d_at(i, k, j, l) + d_at(i, l, j, k)) / 3.0;
                    }
                }
            }
        }
        StvkPolynomial { r, k1, c: cs, d: ds }
    }

    /// The linear stiffness `K₁ = ∇²E(0)` (equal to `Φᵀ K Φ`, the eigenvalues for modes).
    pub fn linear_stiffness(&self) -> &DMatrix<f64> {
        &self.k1
    }

    /// `S = C·q` and `T = D·q·q` (both `r × r`, symmetric).
    fn contractions(&self, q: &DVector<f64>) -> (DMatrix<f64>, DMatrix<f64>) {
        let r = self.r;
        let s = DMatrix::from_fn(r, r, |i, j| (0..r).map(|k| self.c[(i * r + j) * r + k] * q[k]).sum::<f64>());
        let t = DMatrix::from_fn(r, r, |i, j| {
            let base = (i * r + j) * r * r;
            let mut sum = 0.0;
            for k in 0..r {
                let row = &self.d[base + k * r..base + (k + 1) * r];
                sum += q[k] * row.iter().zip(q.iter()).map(|(a, b)| a * b).sum::<f64>();
            }
            sum
        });
        (s, t)
    }

    /// Energy, gradient and Hessian at `q`.
    pub fn evaluate(&self, q: &DVector<f64>) -> (f64, DVector<f64>, DMatrix<f64>) {
        let (s, t) = self.contractions(q);
        let (k1q, sq, tq) = (&self.k1 * q, &s * q, &t * q);
        let energy = 0.5 * q.dot(&k1q) + q.dot(&sq) + q.dot(&tq);
        (energy, k1q + sq * 3.0 + tq * 4.0, &self.k1 + s * 6.0 + t * 12.0)
    }

    /// Bytes held by the coefficients (reported by `fricsim check`).
    pub fn bytes(&self) -> usize {
        8 * (self.k1.len() + self.c.len() + self.d.len())
    }
}

/// The 7 features of a symmetric strain: diagonal, √2 × off-diagonal, trace.
fn features(a: &Matrix3<f64>) -> [f64; 7] {
    let s = std::f64::consts::SQRT_2;
    [a[(0, 0)], a[(1, 1)], a[(2, 2)], s * a[(0, 1)], s * a[(0, 2)], s * a[(1, 2)], a.trace()]
}
