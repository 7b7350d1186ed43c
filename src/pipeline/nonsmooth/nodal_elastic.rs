//! Elastic forces and stiffness of solids, cloth and rods for the projected Newton step: every
//! element (tetrahedron, membrane triangle, bending hinge, rod edge, rod bend–twist node) is one stencil of up to four
//! nodes; kernels run in parallel (rayon) over chunks of stencils and are scattered serially in
//! stencil order, so results are bit-identical for any thread count. The sparsity pattern of the
//! free-dof stiffness matrix is fixed, so it is analysed once (`SymbolicSparseColMat` plus the
//! argsort of the entries) and each assembly only writes values in a fixed order.

use crate::dfcp::problem::Csc;
use crate::model::{Model, State, node};
use faer::sparse::SymbolicSparseColMat;
use nalgebra::{SMatrix, Vector3};
use rayon::prelude::*;

/// One element: which kernel, where its data lives, its nodes (global, `nn` of them).
#[derive(Clone, Copy, Debug)]
pub(super) struct Stencil {
    kind: Kind,
    body: u32,
    /// Rod stencils: the rod's index among all rods (frames, twist angles)...
    rod: u32,
    /// ...and within its bundle.
    rod_in_body: u32,
    element: u32,
    pub(super) nodes: [usize; 4],
    pub(super) nn: u8,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    Tet,
    Membrane,
    Hinge,
    Stretch,
    BendTwist,
}

/// A kernel's result, in the stencil's local dof order (3 per node).
pub(super) struct Local {
    pub(super) energy: f64,
    pub(super) grad: [f64; 12],
    pub(super) hess: [[f64; 12]; 12],
}

/// Stencils evaluated per parallel chunk: bounds the buffered results (1.3 KB each).
const CHUNK: usize = 8192;

pub struct ElasticAssembly {
    stencils: Vec<Stencil>,
    /// The free-dof stiffness pattern with the mass diagonal, and the argsort of the entries in
    /// assembly order (stencil blocks over free dofs, then the diagonal).
    pattern: SymbolicSparseColMat<usize>,
    argsort: faer::sparse::Argsort<usize>,
    n_free: usize,
    values: Vec<f64>,
    /// Per stencil: its body's stiffness-proportional Rayleigh coefficient β (s).
    beta: Vec<f64>,
    /// Per node: its body's mass-proportional Rayleigh coefficient α (1/s).
    alpha: Vec<f64>,
}

impl ElasticAssembly {
    /// The elements, in assembly order.
    pub(super) fn stencils(&self) -> &[Stencil] {
        &self.stencils
    }

    pub fn new(model: &Model, free: &[usize], n_free: usize) -> Result<ElasticAssembly, String> {
        let mut stencils = Vec::new();
        let pad = |n: &[usize]| -> [usize; 4] { std::array::from_fn(|k| n.get(k).copied().unwrap_or(n[0])) };
        // A reduced solid's elasticity is in its modal coordinates (`reduced_nodes`).
        for (si, solid) in model.solids.iter().enumerate().filter(|(_, s)| s.reduced.is_none()) {
            for (e, el) in solid.elements.iter().enumerate() {
                stencils.push(Stencil {
                    kind: Kind::Tet,
                    body: si as u32,
                    rod: 0,
                    rod_in_body: 0,
                    element: e as u32,
                    nodes: el.nodes,
                    nn: 4,
                });
            }
        }
        for (ci, c) in model.cloths.iter().enumerate() {
            for (e, el) in c.membrane.iter().enumerate() {
                stencils.push(Stencil {
                    kind: Kind::Membrane,
                    body: ci as u32,
                    rod: 0,
                    rod_in_body: 0,
                    element: e as u32,
                    nodes: pad(&el.nodes),
                    nn: 3,
                });
            }
            for (e, el) in c.hinges.iter().enumerate() {
                stencils.push(Stencil {
                    kind: Kind::Hinge,
                    body: ci as u32,
                    rod: 0,
                    rod_in_body: 0,
                    element: e as u32,
                    nodes: el.nodes,
                    nn: 4,
                });
            }
        }
        let mut rod_index = 0u32;
        for (bi, b) in model.rod_bundles.iter().enumerate() {
            for (k, piece) in b.rods.iter().enumerate() {
                for (e, el) in piece.rod.stretch.iter().enumerate() {
                    let n = el.nodes.map(|j| piece.first + j);
                    stencils.push(Stencil {
                        kind: Kind::Stretch,
                        body: bi as u32,
                        rod: rod_index,
                        rod_in_body: k as u32,
                        element: e as u32,
                        nodes: pad(&n),
                        nn: 2,
                    });
                }
                for (e, el) in piece.rod.bend_twist.iter().enumerate() {
                    let i = piece.first + el.node;
                    stencils.push(Stencil {
                        kind: Kind::BendTwist,
                        body: bi as u32,
                        rod: rod_index,
                        rod_in_body: k as u32,
                        element: e as u32,
                        nodes: pad(&[i - 1, i, i + 1]),
                        nn: 3,
                    });
                }
                rod_index += 1;
            }
        }
        let mut pairs = Vec::new();
        for s in &stencils {
            for_free_pairs(s, free, |r, c, _, _| pairs.push(faer::sparse::Pair::new(r, c)));
        }
        pairs.extend((0..n_free).map(|i| faer::sparse::Pair::new(i, i)));
        let (pattern, argsort) = SymbolicSparseColMat::try_new_from_indices(n_free, n_free, &pairs)
            .map_err(|e| format!("stiffness pattern: {e:?}"))?;
        let values = vec![0.0; pairs.len()];
        let beta = stencils.iter().map(|s| rayleigh_beta(model, s)).collect();
        Ok(ElasticAssembly { stencils, pattern, argsort, n_free, values, beta, alpha: model.node_rayleigh_alpha() })
    }

    /// Energy, gradient (all dofs, `grad` overwritten) and `A = M + h D + h² K` over free dofs,
    /// with `K` PSD (projected membrane Hessians, Gauss–Newton hinges and rod bending, projected
    /// rod stretch) and the Rayleigh damping `D = α M + β K` of each body's material, acting on
    /// the new velocity (`M v⁺ − M v₀ = h (f − D v⁺)`). Also returns `K v` over free dofs for
    /// the right-hand side (undamped: the damping term is all on the left).
    #[allow(clippy::too_many_arguments)]
    pub fn assemble(
        &mut self,
        model: &Model,
        state: &State,
        theta: &[Vec<f64>],
        free: &[usize],
        x: &[f64],
        h: f64,
        v_free: &[f64],
        grad: &mut [f64],
        kv: &mut [f64],
    ) -> Result<(f64, Csc), String> {
        grad.fill(0.0);
        kv.fill(0.0);
        let mut energy = 0.0;
        let mut k = 0;
        for (ci, chunk) in self.stencils.chunks(CHUNK).enumerate() {
            let locals: Vec<Local> = chunk.par_iter().map(|s| evaluate(model, state, theta, x, s)).collect();
            for (si, (s, l)) in chunk.iter().zip(&locals).enumerate() {
                let stiff = h * h + h * self.beta[ci * CHUNK + si];
                energy += l.energy;
                for (a, &na) in s.nodes[..s.nn as usize].iter().enumerate() {
                    for d in 0..3 {
                        grad[3 * na + d] += l.grad[3 * a + d];
                    }
                }
                let values = &mut self.values;
                for_free_pairs(s, free, |r, c, la, lb| {
                    let hv = l.hess[la][lb];
                    values[k] = stiff * hv;
                    kv[r] += hv * v_free[c];
                    k += 1;
                });
            }
        }
        for (d, &fd) in free.iter().enumerate() {
            if fd != usize::MAX {
                self.values[k + fd] = model.node_mass[d / 3] * (1.0 + h * self.alpha[d / 3]);
            }
        }
        let a = faer::sparse::SparseColMat::new_from_argsort(self.pattern.clone(), &self.argsort, &self.values)
            .map_err(|e| format!("stiffness values: {e:?}"))?;
        debug_assert_eq!(a.nrows(), self.n_free);
        Ok((energy, a))
    }
}

/// Visit the free-free dof pairs of a stencil's block in a fixed order: `(free row, free col,
/// local row, local col)`.
fn for_free_pairs(s: &Stencil, free: &[usize], mut f: impl FnMut(usize, usize, usize, usize)) {
    let n = 3 * s.nn as usize;
    for la in 0..n {
        let r = free[3 * s.nodes[la / 3] + la % 3];
        if r == usize::MAX {
            continue;
        }
        for lb in 0..n {
            let c = free[3 * s.nodes[lb / 3] + lb % 3];
            if c != usize::MAX {
                f(r, c, la, lb);
            }
        }
    }
}

fn copy_into<const N: usize>(e: f64, g: &nalgebra::SVector<f64, N>, hm: &SMatrix<f64, N, N>) -> Local {
    let mut l = Local { energy: e, grad: [0.0; 12], hess: [[0.0; 12]; 12] };
    for a in 0..N {
        l.grad[a] = g[a];
        for b in 0..N {
            l.hess[a][b] = hm[(a, b)];
        }
    }
    l
}

fn evaluate(model: &Model, state: &State, theta: &[Vec<f64>], x: &[f64], s: &Stencil) -> Local {
    let at: [Vector3<f64>; 4] = std::array::from_fn(|k| node(x, s.nodes[k]));
    evaluate_at(model, state, theta, s, &at, true)
}

/// The kernel of stencil `s` with its nodes at `at` (the first `s.nn` entries): energy, gradient
/// and Hessian in the stencil's local dof order; PSD (projected or Gauss–Newton) when `psd`,
/// else the projection is skipped (callers that need the gradient only).
pub(super) fn evaluate_at(
    model: &Model,
    state: &State,
    theta: &[Vec<f64>],
    s: &Stencil,
    at: &[Vector3<f64>; 4],
    psd: bool,
) -> Local {
    let p = |k: usize| -> Vector3<f64> { at[k] };
    match s.kind {
        Kind::Tet => {
            let solid = &model.solids[s.body as usize];
            let (e, g, hm) = solid.elements[s.element as usize].energy_gradient_hessian(
                &solid.elastic,
                &[p(0), p(1), p(2), p(3)],
                psd,
            );
            copy_into(e, &g, &hm)
        }
        Kind::Membrane => {
            let c = &model.cloths[s.body as usize];
            let (e, g, hm) =
                c.membrane[s.element as usize].energy_gradient_hessian(&c.membrane_material, &[p(0), p(1), p(2)], psd);
            copy_into(e, &g, &hm)
        }
        Kind::Hinge => {
            let c = &model.cloths[s.body as usize];
            let (e, g, hm) =
                c.hinges[s.element as usize].energy_gradient_gauss_newton(c.bending, &[p(0), p(1), p(2), p(3)]);
            copy_into(e, &g, &hm)
        }
        Kind::Stretch => {
            let rod = rod_of(model, s);
            let ks = rod.rod.stiffness.stretch;
            let (e, g, hm) = rod.rod.stretch[s.element as usize].energy_gradient_hessian(ks, &[p(0), p(1)], psd);
            copy_into(e, &g, &hm)
        }
        Kind::BendTwist => {
            let rod = rod_of(model, s);
            let el = &rod.rod.bend_twist[s.element as usize];
            let (i, r) = (el.node, s.rod as usize);
            let frames = &state.rod_frames[r];
            let th = &theta[r];
            let (e, g, hm) = el.energy_gradient_gauss_newton(
                &rod.rod.stiffness,
                &[p(0), p(1), p(2)],
                &[th[i - 1], th[i]],
                &[frames.edges[i - 1], frames.edges[i]],
                frames.reference_twist[i - 1],
            );
            // Quasistatic twist: the angles are minimized out; by the envelope theorem the
            // positional gradient is the position block, and the Hessian's position block is
            // the Gauss–Newton one (PSD).
            let mut l = Local { energy: e, grad: [0.0; 12], hess: [[0.0; 12]; 12] };
            for a in 0..9 {
                l.grad[a] = g[a];
                for b in 0..9 {
                    l.hess[a][b] = hm[(a, b)];
                }
            }
            l
        }
    }
}

/// The stiffness-proportional Rayleigh coefficient β of a stencil's body.
pub(super) fn rayleigh_beta(model: &Model, s: &Stencil) -> f64 {
    match s.kind {
        Kind::Tet => model.solids[s.body as usize].rayleigh.1,
        Kind::Membrane | Kind::Hinge => model.cloths[s.body as usize].rayleigh.1,
        Kind::Stretch | Kind::BendTwist => model.rod_bundles[s.body as usize].rayleigh.1,
    }
}

/// The rod a stencil belongs to.
fn rod_of<'m>(model: &'m Model, s: &Stencil) -> &'m crate::model::RodPiece {
    &model.rod_bundles[s.body as usize].rods[s.rod_in_body as usize]
}
