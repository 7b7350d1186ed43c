//! Synthetic nodal DFCPs for tests and benchmarks (no FCLib file needed): particles resting on
//! the ground and touching their neighbours, 004's setting (every contact Jacobian block is a
//! frame rotation times ±1, so with per-node weights every Delassus block is isotropic).

use super::problem::{Csc, GlobalProblem};
use crate::friction::cone::Cone;
use faer::sparse::Triplet;

fn normalize(a: [f64; 3]) -> [f64; 3] {
    let n = (a[0] * a[0] + a[1] * a[1] + a[2] * a[2]).sqrt();
    [a[0] / n, a[1] / n, a[2] / n]
}

fn cross(a: [f64; 3], b: [f64; 3]) -> [f64; 3] {
    [a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]]
}

/// `n >= 1` particles (masses `1 + 0.1 i`) thrown sideways and down onto the ground (one contact
/// each, normal +z), each touching the next one (a contact per pair with a tilted normal and a
/// small approach velocity). `2n - 1` contacts, friction `mu`.
pub fn particles(n: usize, mu: f64) -> GlobalProblem {
    let ndof = 3 * n;
    let mut mt = Vec::with_capacity(ndof);
    let mut f = vec![0.0; ndof];
    for i in 0..n {
        let m = 1.0 + 0.1 * i as f64;
        let vfree = [0.5 * (i as f64).sin(), 0.3 * (i as f64).cos(), -1.0 - 0.1 * i as f64];
        for k in 0..3 {
            mt.push(Triplet::new(3 * i + k, 3 * i + k, m));
            f[3 * i + k] = m * vfree[k];
        }
    }
    let mut ht = Vec::new();
    let mut w = Vec::new();
    let mut add = |bodies: &[(usize, f64)], nrm: [f64; 3], w0: f64| {
        let c = w.len() / 3;
        let t1 = normalize(cross(nrm, if nrm[0].abs() < 0.9 { [1.0, 0.0, 0.0] } else { [0.0, 1.0, 0.0] }));
        let t2 = cross(nrm, t1);
        for &(i, s) in bodies {
            for (k, axis) in [nrm, t1, t2].iter().enumerate() {
                for (d, a) in axis.iter().enumerate() {
                    ht.push(Triplet::new(3 * i + d, 3 * c + k, s * a));
                }
            }
        }
        w.extend([w0, 0.0, 0.0]);
    };
    for i in 0..n {
        add(&[(i, 1.0)], [0.0, 0.0, 1.0], 0.0);
    }
    for i in 0..n.saturating_sub(1) {
        add(&[(i, 1.0), (i + 1, -1.0)], normalize([-1.0, 0.1, 0.3]), -0.05);
    }
    let nc = w.len() / 3;
    let m = Csc::try_new_from_triplets(ndof, ndof, &mt).expect("valid diagonal");
    let h = Csc::try_new_from_triplets(ndof, 3 * nc, &ht).expect("indices in range");
    let cone = Cone::isotropic(mu).expect("caller passes mu >= 0");
    GlobalProblem::new(m, h, f, w, vec![cone; nc]).expect("consistent sizes")
}
