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

/// SplitMix64 step, uniform in [0, 1): reproducible inputs without a dependency.
fn unit(seed: &mut u64) -> f64 {
    *seed = seed.wrapping_add(0x9E37_79B9_7F4A_7C15);
    let mut z = *seed;
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    ((z ^ (z >> 31)) >> 11) as f64 / (1u64 << 53) as f64
}

/// One contact of [`hair`] before sorting.
struct HairContact {
    /// (first rod, its segment): the order a spatial detector would roughly emit.
    key: (usize, usize),
    /// The first `n` entries are (node, weight).
    nodes: [(usize, f64); 4],
    n: usize,
    nrm: [f64; 3],
}

/// A hair-like nodal DFCP at scale, shaped like one linearization of the hairy ball (004 §6):
/// `rods` chains of `nodes_per_rod` free nodes (the kinematic roots are already eliminated) with
/// hair masses (a 0.1 mm radius, 3.3 mm segment of density 1300: about 1.4e-7 kg, ±20 %), a
/// common swing velocity plus noise, and `contacts` contacts in the order a spatial detector
/// emits them (by rod, then segment):
/// - 20 % one node against a collider (node on the core or floor);
/// - 10 % a vertex against a segment of a nearby rod (3 nodes, weights `1, -(1-β), -β`);
/// - 70 % edge–edge between nearby rods (4 nodes, weights `1-α, α, -(1-β), -β`).
///
/// "Nearby" is another rod whose index is within 64 and a segment within 2, so the touched velocities are as
/// scattered in memory as in a real ball. Every contact frame is a random orthonormal frame, so
/// `H_c` consists of node blocks `b_cj R_c^T` (004's nodal assumption) and `A = M` is diagonal.
/// Approach velocities and gaps are drawn so that contacts stick, slide and separate.
pub fn hair(rods: usize, nodes_per_rod: usize, contacts: usize, mu: f64, seed: u64) -> GlobalProblem {
    assert!(rods >= 2 && nodes_per_rod >= 2, "hair needs two rods of two nodes");
    let mut seed = seed;
    let nn = rods * nodes_per_rod;
    let ndof = 3 * nn;
    let mut mt = Vec::with_capacity(ndof);
    let mut f = vec![0.0; ndof];
    let swing = [0.3, 0.05, -0.2];
    for i in 0..nn {
        let m = 1.4e-7 * (0.8 + 0.4 * unit(&mut seed));
        for k in 0..3 {
            mt.push(Triplet::new(3 * i + k, 3 * i + k, m));
            f[3 * i + k] = m * (swing[k] + 0.2 * (2.0 * unit(&mut seed) - 1.0));
        }
    }
    let mut list: Vec<HairContact> = Vec::with_capacity(contacts);
    let seg = nodes_per_rod - 1;
    // The other rod is 1..=reach rods further (never the same rod).
    let reach = 64.min(rods - 1);
    for _ in 0..contacts {
        let a = (unit(&mut seed) * rods as f64) as usize;
        let s = (unit(&mut seed) * seg as f64) as usize;
        let b = (a + 1 + (unit(&mut seed) * reach as f64) as usize) % rods;
        let t = (s as f64 + (unit(&mut seed) * 5.0).floor() - 2.0).clamp(0.0, (seg - 1) as f64) as usize;
        let (na, nb) = (a * nodes_per_rod + s, b * nodes_per_rod + t);
        let (al, be) = (unit(&mut seed), unit(&mut seed));
        let kind = unit(&mut seed);
        let (nodes, n) = if kind < 0.2 {
            ([(na, 1.0); 4], 1)
        } else if kind < 0.3 {
            ([(na, 1.0), (nb, -(1.0 - be)), (nb + 1, -be), (na, 0.0)], 3)
        } else {
            ([(na, 1.0 - al), (na + 1, al), (nb, -(1.0 - be)), (nb + 1, -be)], 4)
        };
        let nrm = normalize([2.0 * unit(&mut seed) - 1.0, 2.0 * unit(&mut seed) - 1.0, 2.0 * unit(&mut seed) - 0.5]);
        list.push(HairContact { key: (a, s), nodes, n, nrm });
    }
    list.sort_by_key(|x| x.key);
    let mut ht = Vec::with_capacity(36 * contacts);
    let mut w = Vec::with_capacity(3 * contacts);
    for (c, hc) in list.iter().enumerate() {
        let nrm = hc.nrm;
        let t1 = normalize(cross(nrm, if nrm[0].abs() < 0.9 { [1.0, 0.0, 0.0] } else { [0.0, 1.0, 0.0] }));
        let t2 = cross(nrm, t1);
        for &(i, b) in &hc.nodes[..hc.n] {
            for (k, axis) in [nrm, t1, t2].iter().enumerate() {
                for (d, x) in axis.iter().enumerate() {
                    ht.push(Triplet::new(3 * i + d, 3 * c + k, b * x));
                }
            }
        }
        // Gap over dt between -0.02 and +0.03 m/s: some contacts close within the step, some
        // start penetrating; small tangential known velocities (collider motion).
        w.extend([-0.02 + 0.05 * unit(&mut seed), 0.01 * (2.0 * unit(&mut seed) - 1.0), 0.0]);
    }
    let m = Csc::try_new_from_triplets(ndof, ndof, &mt).expect("valid diagonal");
    let h = Csc::try_new_from_triplets(ndof, 3 * contacts, &ht).expect("indices in range");
    let cone = Cone::isotropic(mu).expect("caller passes mu >= 0");
    GlobalProblem::new(m, h, f, w, vec![cone; contacts]).expect("consistent sizes")
}
