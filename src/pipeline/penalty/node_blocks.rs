//! The elements' stiffness as 3×3 blocks between nodes (block compressed rows over every node of
//! the model): the Iterative solver's Jacobian products and block Jacobi's diagonal, assembled
//! once per Newton iterate from the element Hessians block Jacobi computes anyway.
//!
//! A product then reads each node's row of blocks (about 15 on a tetrahedral grid) in parallel,
//! where the per-element product form evaluates ∂P/∂F on every tetrahedron (4.5 per node) and
//! scatters its 12 entries serially. The blocks also take less memory than the per-element
//! caches they replace: 15 × 9 numbers per node against 4.5 × (22 + 12 + 36) for the
//! linearisations, products and diagonal blocks.

use super::elements::{Element, for_each_hessian};
use crate::model::{Model, node};
use nalgebra::{Matrix3, SMatrix, Vector3};
use rayon::prelude::*;

/// Elements whose Hessians are computed in parallel at a time ([`for_each_hessian`]).
const CHUNK: usize = 256;

/// Rows of a node's product taken together by one rayon task.
const ROWS_PER_TASK: usize = 64;

pub struct NodeBlocks {
    /// Per node, its blocks `row_ptr[i]..row_ptr[i + 1]` in `cols` / `values`.
    row_ptr: Vec<usize>,
    cols: Vec<u32>,
    values: Vec<Matrix3<f64>>,
    /// Per element, the block of its stencil nodes `(a, b)` at `4 a + b`.
    slots: Vec<[u32; 16]>,
    hessians: Vec<SMatrix<f64, 12, 12>>,
    /// The positions and `dq_dv` the values were assembled at (empty: never, or invalidated).
    assembled_at: Vec<f64>,
    assembled_dq_dv: f64,
}

impl NodeBlocks {
    /// The pattern of `elem_nodes`' node pairs (every node with its own block) on `n_nodes` nodes.
    pub fn new(n_nodes: usize, elem_nodes: &[[usize; 4]]) -> NodeBlocks {
        let mut rows: Vec<Vec<u32>> = (0..n_nodes).map(|i| vec![i as u32]).collect();
        for nodes in elem_nodes {
            for &a in nodes {
                rows[a].extend(nodes.iter().map(|&b| b as u32));
            }
        }
        let mut row_ptr = Vec::with_capacity(n_nodes + 1);
        let mut cols = Vec::new();
        row_ptr.push(0);
        for row in &mut rows {
            row.sort_unstable();
            row.dedup();
            cols.extend_from_slice(row);
            row_ptr.push(cols.len());
        }
        drop(rows);
        let slot = |a: usize, b: usize| {
            let row = &cols[row_ptr[a]..row_ptr[a + 1]];
            (row_ptr[a] + row.binary_search(&(b as u32)).expect("in the pattern")) as u32
        };
        let slots = elem_nodes.iter().map(|n| std::array::from_fn(|k| slot(n[k / 4], n[k % 4]))).collect();
        NodeBlocks {
            values: vec![Matrix3::zeros(); cols.len()],
            row_ptr,
            cols,
            slots,
            hessians: vec![SMatrix::zeros(); CHUNK],
            assembled_at: Vec::new(),
            assembled_dq_dv: 0.0,
        }
    }

    /// `Σ_e (dq_dv H_e(q) + β_e D_e)` with `D_e` the element's stiffness at the start of the
    /// step (`damping_k`, empty without stiffness damping); skipped where it was last assembled
    /// at the same `q` and `dq_dv` since [`Self::invalidate`] (BiCGSTAB's products within one
    /// Newton iterate).
    pub fn assemble(
        &mut self,
        elems: &[Element],
        model: &Model,
        q: &[f64],
        dq_dv: f64,
        damping_k: &[SMatrix<f64, 12, 12>],
    ) {
        if self.assembled_at == q && self.assembled_dq_dv == dq_dv {
            return;
        }
        self.assembled_at.clear();
        self.assembled_at.extend_from_slice(q);
        self.assembled_dq_dv = dq_dv;
        self.values.iter_mut().for_each(|b| *b = Matrix3::zeros());
        let (values, slots) = (&mut self.values, &self.slots);
        // The residual was just evaluated at q, so every element is defined there.
        let hessian = |el: &Element| el.energy_gradient_hessian(model, q).map_or_else(|_| SMatrix::zeros(), |e| e.2);
        for_each_hessian(elems, &mut self.hessians, hessian, |k, el, h| {
            let beta = el.beta(model);
            let m = if beta > 0.0 { h * dq_dv + damping_k[k] * beta } else { h * dq_dv };
            for (s, &slot) in slots[k].iter().enumerate() {
                values[slot as usize] += m.fixed_view::<3, 3>(3 * (s / 4), 3 * (s % 4));
            }
        });
    }

    /// Forget the last assembly: a new step's `damping_k` may differ at the same positions.
    pub fn invalidate(&mut self) {
        self.assembled_at.clear();
    }

    /// Node `i`'s diagonal block.
    pub fn diagonal(&self, i: usize) -> Matrix3<f64> {
        let row = &self.cols[self.row_ptr[i]..self.row_ptr[i + 1]];
        self.values[self.row_ptr[i] + row.binary_search(&(i as u32)).expect("every node has its diagonal")]
    }

    /// `out = B p` on every DOF, in parallel over the nodes' rows.
    pub fn product(&self, p: &[f64], out: &mut [f64]) {
        out.par_chunks_mut(3).with_min_len(ROWS_PER_TASK).enumerate().for_each(|(i, o)| {
            let mut s = Vector3::zeros();
            for b in self.row_ptr[i]..self.row_ptr[i + 1] {
                s += self.values[b] * node(p, self.cols[b] as usize);
            }
            o.copy_from_slice(s.as_slice());
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Two tetrahedra sharing a face: the pattern holds each node's neighbours through either,
    /// and a product equals the sum of the element matrices applied one by one.
    #[test]
    fn product_is_the_sum_of_the_element_products() {
        let elem_nodes = [[0, 1, 2, 3], [1, 2, 3, 4]];
        let mut blocks = NodeBlocks::new(6, &elem_nodes);
        assert_eq!(blocks.row_ptr[6] - blocks.row_ptr[5], 1, "a node in no element keeps its diagonal");
        assert_eq!(blocks.row_ptr[1] - blocks.row_ptr[0], 4, "node 0 sees 0..3 only");
        let mats: Vec<SMatrix<f64, 12, 12>> =
            (0..2).map(|e| SMatrix::from_fn(|r, c| ((r * 7 + c * 3 + e * 5) % 11) as f64 - 5.0)).collect();
        for (k, m) in mats.iter().enumerate() {
            for (s, &slot) in blocks.slots[k].iter().enumerate() {
                blocks.values[slot as usize] += m.fixed_view::<3, 3>(3 * (s / 4), 3 * (s % 4));
            }
        }
        let p: Vec<f64> = (0..18).map(|i| (i as f64 * 0.37).sin()).collect();
        let mut out = vec![0.0; 18];
        blocks.product(&p, &mut out);
        let mut expected = vec![0.0; 18];
        for (m, nodes) in mats.iter().zip(&elem_nodes) {
            let pe = SMatrix::<f64, 12, 1>::from_fn(|r, _| p[3 * nodes[r / 3] + r % 3]);
            let y = m * pe;
            for r in 0..12 {
                expected[3 * nodes[r / 3] + r % 3] += y[r];
            }
        }
        for (a, b) in out.iter().zip(&expected) {
            // The same sums in another order: rounding only.
            assert!((a - b).abs() <= 1e-12 * (1.0 + b.abs()), "{a} against {b}");
        }
    }
}
