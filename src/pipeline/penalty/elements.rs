//! The elastic elements of the penalty pipeline's bodies — solid tetrahedra, cloth membrane
//! triangles and cloth bending hinges — behind one stencil of four nodes, so that the residual,
//! the assembled Jacobian, the matrix-free products and the block-Jacobi preconditioner each have
//! one loop over elements whatever the body.
//!
//! A membrane triangle has three nodes: its fourth stencil node repeats the first and carries zero
//! gradient and Hessian entries, so scattering it adds nothing and needs no pattern entry of its
//! own.

use super::system::EvalError;
use crate::energy::ElasticModel;
use crate::energy::elastic::StressLinearization;
use crate::energy::membrane::MembraneModel;
use crate::model::{Model, node, node_arr};
use nalgebra::{SMatrix, SVector};
use num_dual::Dual64;
use rayon::prelude::*;

/// One elastic element: the body (index into `Model::solids` or `Model::cloths`) and the element
/// within it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Element {
    Tet { solid: u32, index: u32 },
    Membrane { cloth: u32, index: u32 },
    Hinge { cloth: u32, index: u32 },
}

/// Energy, gradient and Hessian of one element on its four-node stencil.
pub type Evaluated = (f64, SVector<f64, 12>, SMatrix<f64, 12, 12>);

impl Element {
    /// Every element of the model's solids and cloths.
    pub fn all(model: &Model) -> Vec<Element> {
        let mut out = Vec::new();
        for (s, b) in model.solids.iter().enumerate() {
            out.extend((0..b.elements.len()).map(|e| Element::Tet { solid: s as u32, index: e as u32 }));
        }
        for (c, b) in model.cloths.iter().enumerate() {
            out.extend((0..b.membrane.len()).map(|e| Element::Membrane { cloth: c as u32, index: e as u32 }));
            if b.bending > 0.0 {
                out.extend((0..b.hinges.len()).map(|e| Element::Hinge { cloth: c as u32, index: e as u32 }));
            }
        }
        out
    }

    /// The four stencil nodes (a membrane repeats its first node).
    pub fn nodes(&self, model: &Model) -> [usize; 4] {
        match *self {
            Element::Tet { solid, index } => model.solids[solid as usize].elements[index as usize].nodes,
            Element::Membrane { cloth, index } => {
                let [a, b, c] = model.cloths[cloth as usize].membrane[index as usize].nodes;
                [a, b, c, a]
            }
            Element::Hinge { cloth, index } => model.cloths[cloth as usize].hinges[index as usize].nodes,
        }
    }

    /// Stiffness-proportional Rayleigh coefficient β of the element's body.
    pub fn beta(&self, model: &Model) -> f64 {
        match *self {
            Element::Tet { solid, .. } => model.solids[solid as usize].rayleigh.1,
            Element::Membrane { cloth, .. } | Element::Hinge { cloth, .. } => model.cloths[cloth as usize].rayleigh.1,
        }
    }

    /// An error where the element's energy is undefined at `q`: a neo-Hookean tetrahedron with
    /// `det F <= 0`, a neo-Hookean membrane collapsed to zero area.
    fn check(&self, model: &Model, q: &[f64]) -> Result<(), EvalError> {
        match *self {
            Element::Tet { solid, index } => {
                let s = &model.solids[solid as usize];
                let el = &s.elements[index as usize];
                let x = el.nodes.map(|i| node(q, i));
                if s.elastic.model == ElasticModel::NeoHookean && el.deformation_gradient(&x).determinant() <= 0.0 {
                    return Err(EvalError::Inverted { solid: solid as usize, element: index as usize });
                }
            }
            Element::Membrane { cloth, index } => {
                let c = &model.cloths[cloth as usize];
                if c.membrane_material.model == MembraneModel::NeoHookean {
                    let el = &c.membrane[index as usize];
                    let f = el.deformation_gradient(&el.nodes.map(|i| node(q, i)));
                    if (f.transpose() * f).determinant() <= 0.0 {
                        return Err(EvalError::Collapsed { cloth: cloth as usize, element: index as usize });
                    }
                }
            }
            Element::Hinge { .. } => {}
        }
        Ok(())
    }

    /// Energy and gradient at `q`.
    pub fn energy_gradient(&self, model: &Model, q: &[f64]) -> Result<(f64, SVector<f64, 12>), EvalError> {
        self.check(model, q)?;
        Ok(match *self {
            Element::Tet { solid, index } => {
                let s = &model.solids[solid as usize];
                let el = &s.elements[index as usize];
                el.energy_gradient(&s.elastic, &el.nodes.map(|i| node(q, i)))
            }
            Element::Membrane { cloth, index } => {
                let c = &model.cloths[cloth as usize];
                let el = &c.membrane[index as usize];
                let (e, g) = el.energy_gradient(&c.membrane_material, &el.nodes.map(|i| node(q, i)));
                (e, pad_vector(&g))
            }
            Element::Hinge { cloth, index } => {
                let c = &model.cloths[cloth as usize];
                let el = &c.hinges[index as usize];
                el.energy_gradient(c.bending, &el.nodes.map(|i| node(q, i)))
            }
        })
    }

    /// Energy, gradient and the exact (unprojected) Hessian at `q`: Newton's Jacobian must be
    /// the derivative of the residual, as the matrix-free products are.
    pub fn energy_gradient_hessian(&self, model: &Model, q: &[f64]) -> Result<Evaluated, EvalError> {
        self.check(model, q)?;
        Ok(match *self {
            Element::Tet { solid, index } => {
                let s = &model.solids[solid as usize];
                let el = &s.elements[index as usize];
                el.energy_gradient_hessian(&s.elastic, &el.nodes.map(|i| node(q, i)), false)
            }
            Element::Membrane { cloth, index } => {
                let c = &model.cloths[cloth as usize];
                let el = &c.membrane[index as usize];
                let (e, g, h) = el.energy_gradient_hessian(&c.membrane_material, &el.nodes.map(|i| node(q, i)), false);
                let mut hp = SMatrix::<f64, 12, 12>::zeros();
                hp.fixed_view_mut::<9, 9>(0, 0).copy_from(&h);
                (e, pad_vector(&g), hp)
            }
            Element::Hinge { cloth, index } => {
                let c = &model.cloths[cloth as usize];
                let el = &c.hinges[index as usize];
                el.energy_gradient_hessian(c.bending, &el.nodes.map(|i| node(q, i)), false)
            }
        })
    }

    /// A positive semi-definite stand-in for the Hessian at `q`, for a preconditioner: the tet's
    /// and membrane's with their material stiffness projected (`project_psd`), the hinge's
    /// Gauss–Newton `2 k w ∇θ ∇θᵀ`. Zero where the element is undefined at `q`.
    pub fn psd_hessian(&self, model: &Model, q: &[f64]) -> SMatrix<f64, 12, 12> {
        if self.check(model, q).is_err() {
            return SMatrix::zeros();
        }
        match *self {
            Element::Tet { solid, index } => {
                let s = &model.solids[solid as usize];
                let el = &s.elements[index as usize];
                el.energy_gradient_hessian(&s.elastic, &el.nodes.map(|i| node(q, i)), true).2
            }
            Element::Membrane { cloth, index } => {
                let c = &model.cloths[cloth as usize];
                let el = &c.membrane[index as usize];
                let h = el.energy_gradient_hessian(&c.membrane_material, &el.nodes.map(|i| node(q, i)), true).2;
                let mut hp = SMatrix::<f64, 12, 12>::zeros();
                hp.fixed_view_mut::<9, 9>(0, 0).copy_from(&h);
                hp
            }
            Element::Hinge { cloth, index } => {
                let c = &model.cloths[cloth as usize];
                let el = &c.hinges[index as usize];
                el.energy_gradient_gauss_newton(c.bending, &el.nodes.map(|i| node(q, i))).2
            }
        }
    }

    /// ∂P/∂F at the element's F at `q` where it has a product form (tetrahedra of the models
    /// written in I_C and J), for [`Self::hessian_product`]; `None` elsewhere.
    pub fn linearize(&self, model: &Model, q: &[f64]) -> Option<StressLinearization> {
        let Element::Tet { solid, index } = *self else { return None };
        let s = &model.solids[solid as usize];
        let el = &s.elements[index as usize];
        let x = el.nodes.map(|i| node(q, i));
        s.elastic.stress_linearization(&el.deformation_gradient(&x))
    }

    /// The Hessian times the position direction `dq` (per stencil node): by the tetrahedron's
    /// `lin` ([`Self::linearize`] at the same `q`) where given, else by forward-mode AD of the
    /// element's own gradient code seeded with `dq`: the tetrahedron's stress
    /// (`gradient_generic`), the membrane's `h A F S c_a` and the hinge's `2 k w δ ∇θ`.
    pub fn hessian_product(
        &self,
        model: &Model,
        q: &[f64],
        lin: Option<&StressLinearization>,
        dq: &[[f64; 3]; 4],
    ) -> [f64; 12] {
        let seeded = |i: usize, n: usize| -> [Dual64; 3] {
            let x = node_arr(q, i);
            std::array::from_fn(|k| Dual64::new(x[k], dq[n][k]))
        };
        match *self {
            Element::Tet { solid, index } => {
                let s = &model.solids[solid as usize];
                let el = &s.elements[index as usize];
                if let Some(lin) = lin {
                    let g = el.hessian_product(lin, dq);
                    return std::array::from_fn(|r| g[r / 3][r % 3]);
                }
                let x: [[Dual64; 3]; 4] = std::array::from_fn(|n| seeded(el.nodes[n], n));
                let g = el.gradient_generic(&s.elastic, &x);
                std::array::from_fn(|r| g[r / 3][r % 3].eps)
            }
            Element::Membrane { cloth, index } => {
                let c = &model.cloths[cloth as usize];
                let el = &c.membrane[index as usize];
                let x: [Dual64; 9] = std::array::from_fn(|r| seeded(el.nodes[r / 3], r / 3)[r % 3]);
                let g = el.gradient_generic(&c.membrane_material, &x);
                std::array::from_fn(|r| if r < 9 { g[r].eps } else { 0.0 })
            }
            Element::Hinge { cloth, index } => {
                let c = &model.cloths[cloth as usize];
                let el = &c.hinges[index as usize];
                let x: [Dual64; 12] = std::array::from_fn(|r| seeded(el.nodes[r / 3], r / 3)[r % 3]);
                el.gradient_generic(c.bending, &x).map(|g| g.eps)
            }
        }
    }
}

/// A membrane's 9-entry vector on the 12-entry stencil (zeros for the repeated node).
fn pad_vector(g: &SVector<f64, 9>) -> SVector<f64, 12> {
    SVector::<f64, 12>::from_fn(|r, _| if r < 9 { g[r] } else { 0.0 })
}

/// Each element's 12×12 matrix `hessian(element)`, computed in parallel a chunk at a time into
/// `buffer` (its length is the chunk: it bounds the memory, 1.2 kB per element, without
/// serialising the kernels) and handed in element order to `add(index, element, matrix)`.
pub(super) fn for_each_hessian(
    elems: &[Element],
    buffer: &mut [SMatrix<f64, 12, 12>],
    hessian: impl Fn(&Element) -> SMatrix<f64, 12, 12> + Sync,
    mut add: impl FnMut(usize, &Element, &SMatrix<f64, 12, 12>),
) {
    let chunk = buffer.len();
    for (c, els) in elems.chunks(chunk).enumerate() {
        let hessians = &mut buffer[..els.len()];
        hessians.par_iter_mut().zip(els.par_iter()).for_each(|(h, el)| *h = hessian(el));
        for (j, (h, el)) in hessians.iter().zip(els).enumerate() {
            add(c * chunk + j, el, h);
        }
    }
}
