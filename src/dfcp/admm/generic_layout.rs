//! The projection layout for any `H`: per-dof rows of `H` and `W^{-1} H` per contact.

use super::*;

/// The general layout (any `H`): per contact, the dofs it touches with `H` rows and `W^{-1} H`
/// rows (`ptr` delimits each contact's entries), its 3x3 block `S_cc` and, when `S_cc` is
/// isotropic on an isotropic cone, the scalar of the closed form.
pub(super) struct GenericContacts {
    pub(super) ptr: Vec<usize>,
    pub(super) dof: Vec<usize>,
    pub(super) h: Vec<[f64; 3]>,
    pub(super) gamma: Vec<[f64; 3]>,
    pub(super) s: Vec<[f64; 9]>,
    pub(super) iso: Vec<Option<f64>>,
    pub(super) wc: Vec<[f64; 3]>,
    pub(super) cone: Vec<Cone>,
}

impl GenericContacts {
    /// The data of contacts `order[0], order[1], ...` in that order.
    pub(super) fn new(g: &GlobalProblem, w: &[f64], order: &[usize]) -> Self {
        let hr = g.h.as_ref();
        let mut gc = GenericContacts {
            ptr: vec![0],
            dof: Vec::new(),
            h: Vec::new(),
            gamma: Vec::new(),
            s: Vec::with_capacity(order.len()),
            iso: Vec::with_capacity(order.len()),
            wc: Vec::with_capacity(order.len()),
            cone: Vec::with_capacity(order.len()),
        };
        let mut slot = vec![usize::MAX; g.ndof()];
        for &c in order {
            let base = gc.dof.len();
            for k in 0..3 {
                for (i, v) in hr.row_idx_of_col_raw(3 * c + k).iter().zip(hr.val_of_col(3 * c + k)) {
                    let i = *i;
                    if slot[i] == usize::MAX {
                        slot[i] = gc.dof.len();
                        gc.dof.push(i);
                        gc.h.push([0.0; 3]);
                    }
                    gc.h[slot[i]][k] += v;
                }
            }
            let mut sc = [0.0; 9];
            for e in base..gc.dof.len() {
                slot[gc.dof[e]] = usize::MAX;
                let he = gc.h[e];
                let inv = 1.0 / w[gc.dof[e]];
                gc.gamma.push([he[0] * inv, he[1] * inv, he[2] * inv]);
                for a in 0..3 {
                    for b in 0..3 {
                        sc[3 * a + b] += he[a] * he[b] * inv;
                    }
                }
            }
            let cone = g.cones[c];
            gc.iso.push(if cone.is_isotropic() { crate::dfcp::gauss_seidel::isotropic_diagonal(&sc) } else { None });
            gc.s.push(sc);
            gc.ptr.push(gc.dof.len());
            gc.wc.push([g.w[3 * c], g.w[3 * c + 1], g.w[3 * c + 2]]);
            gc.cone.push(cone);
        }
        gc
    }
}

impl Contacts for GenericContacts {
    #[inline]
    fn force_scale(&self, _slot: usize) -> f64 {
        1.0
    }

    #[inline]
    fn local(&self, slot: usize, p: &[Shared<f64>], rc: [f64; 3]) -> [f64; 3] {
        let mut u = self.wc[slot];
        for e in self.ptr[slot]..self.ptr[slot + 1] {
            let pv = p[self.dof[e]].get();
            let he = &self.h[e];
            u[0] += he[0] * pv;
            u[1] += he[1] * pv;
            u[2] += he[2] * pv;
        }
        let s = &self.s[slot];
        let us = [
            u[0] - (s[0] * rc[0] + s[1] * rc[1] + s[2] * rc[2]),
            u[1] - (s[3] * rc[0] + s[4] * rc[1] + s[5] * rc[2]),
            u[2] - (s[6] * rc[0] + s[7] * rc[1] + s[8] * rc[2]),
        ];
        let cone = &self.cone[slot];
        match self.iso[slot] {
            Some(sc) => {
                let (un, _) = solve_isotropic_diagonal(us, cone.mu_t);
                [(un[0] - us[0]) / sc, (un[1] - us[1]) / sc, (un[2] - us[2]) / sc]
            }
            None => solve_contact(s, us, cone, rc).0,
        }
    }

    #[inline]
    fn spread(&self, slot: usize, x: [f64; 3], p: &[Shared<f64>]) {
        for e in self.ptr[slot]..self.ptr[slot + 1] {
            let ge = &self.gamma[e];
            p[self.dof[e]].add(ge[0] * x[0] + ge[1] * x[1] + ge[2] * x[2]);
        }
    }

    #[inline]
    fn velocity_change(&self, slot: usize, d: [f64; 3]) -> f64 {
        let s = &self.s[slot];
        (s[0] * d[0] + s[1] * d[1] + s[2] * d[2])
            .abs()
            .max((s[3] * d[0] + s[4] * d[1] + s[5] * d[2]).abs())
            .max((s[6] * d[0] + s[7] * d[1] + s[8] * d[2]).abs())
    }
}
