//! The volume-change penalty of 001 §2.4 (eqs. 17–20): a soft constraint on the volume enclosed
//! by a closed, outward-oriented triangle surface (a solid's boundary, a closed shell), from the
//! medium's isothermal compressibility κv = −(1/V) ∂V/∂P.
//!
//! With `V(q) = Σ_t x0 · (x1 × x2) / 6` (divergence theorem; exact for any closed surface) and a
//! reference volume `Vr`, the energy `W(V)` and the pressure it exerts `π(V) = −W'(V)` are
//!
//! | form | W(V) | π(V) |
//! |---|---|---|
//! | `Quadratic` (19) | (V − Vr)² / (2 Vr κ) | −(V − Vr) / (Vr κ) |
//! | `IdealGas` (17), P₀ = 1/κ | P₀ (V − Vr (1 + ln(V/Vr))) | P₀ (Vr/V − 1) |
//! | `NearlyIncompressible` (18) | (Vr − V (1 − ln(V/Vr))) / κ | −ln(V/Vr) / κ |
//!
//! All three have `W(Vr) = 0`, `π(Vr) = 0` and `W''(Vr) = 1/(Vr κ)`: they agree to second order
//! (001 Fig. 3). The logarithmic forms are undefined for V ≤ 0. κ is in 1/Pa here (the scene
//! gives it in 1/atm, 001's unit).
//!
//! **Pressurisation.** A zone whose medium is at gauge pressure `p_g` in the rest shape (a tennis
//! ball, a tyre) uses the `Vr` for which `π(V0) = p_g`: `V0 / (1 − κ p_g)`, `V0 (1 + κ p_g)` and
//! `V0 exp(κ p_g)` for the three forms (for a gas, Boyle's law: the gas would fill `Vr` at the
//! outside pressure).
//!
//! The force on the surface nodes is `f = π(V) ∇V`, with `∂V/∂x0 = (x1 × x2)/6` and cyclically.
//! Its Jacobian `π'(V) ∇V ∇Vᵀ + π(V) ∇²V` is a dense rank-one term plus a sparse one.

use crate::contact::vec3::{Scalar, V3, cross, dot, scale};

/// Pa per atm.
pub const ATM: f64 = 101_325.0;

/// Which energy of 001 §2.4.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Deserialize, serde::Serialize, Default)]
pub enum VolumeForm {
    /// W₂, eq. (19): the second-order form, defined for every V.
    #[default]
    Quadratic,
    /// W_ig, eq. (17): an ideal gas at constant temperature.
    IdealGas,
    /// W_ni, eq. (18): constant compressibility (nearly incompressible media such as water).
    NearlyIncompressible,
}

/// One volume zone: a closed surface and its medium.
#[derive(Clone, Debug, PartialEq)]
pub struct VolumeZone {
    /// Outward triangles (global node indices).
    pub triangles: Vec<[usize; 3]>,
    pub form: VolumeForm,
    /// Compressibility κ (1/Pa).
    pub compressibility: f64,
    /// Enclosed volume of the rest shape V0 (m³).
    pub rest_volume: f64,
    /// Reference volume Vr (m³), where the pressure vanishes.
    pub reference_volume: f64,
    /// Keep the dense rank-one term `π'(V) ∇V ∇Vᵀ` in assembled Jacobians (001 Table II(c)'s
    /// "Exact J"); matrix-free products always have it.
    pub exact_jacobian: bool,
}

/// Signed volume enclosed by outward triangles at positions `q` (3 per node).
pub fn enclosed_volume<T: Scalar>(triangles: &[[usize; 3]], q: &[T]) -> T {
    let at = |i: usize| -> V3<T> { [q[3 * i], q[3 * i + 1], q[3 * i + 2]] };
    triangles.iter().fold(T::from(0.0), |acc, t| acc + dot(at(t[0]), cross(at(t[1]), at(t[2]))) * (1.0 / 6.0))
}

/// Whether `triangles` form closed, consistently oriented surfaces: every directed edge is used
/// once and its reverse once (no hole, no flipped triangle), the condition for the enclosed
/// volume to be independent of the origin.
pub fn is_closed(triangles: &[[usize; 3]]) -> bool {
    let mut edges = std::collections::HashMap::new();
    for t in triangles {
        for k in 0..3 {
            *edges.entry((t[k], t[(k + 1) % 3])).or_insert(0u32) += 1;
        }
    }
    !edges.is_empty() && edges.iter().all(|(&(a, b), &n)| n == 1 && edges.get(&(b, a)) == Some(&1))
}

/// The triangles of a closed boundary split into its connected pieces (sharing a vertex).
pub fn surface_components(triangles: &[[usize; 3]]) -> Vec<Vec<[usize; 3]>> {
    let n = triangles.iter().flatten().max().map_or(0, |m| m + 1);
    let mut parent: Vec<usize> = (0..n).collect();
    fn root(p: &mut [usize], mut i: usize) -> usize {
        while p[i] != i {
            p[i] = p[p[i]];
            i = p[i];
        }
        i
    }
    for t in triangles {
        for k in 1..3 {
            let (a, b) = (root(&mut parent, t[0]), root(&mut parent, t[k]));
            parent[a] = b;
        }
    }
    let mut groups: std::collections::BTreeMap<usize, Vec<[usize; 3]>> = Default::default();
    for t in triangles {
        groups.entry(root(&mut parent, t[0])).or_default().push(*t);
    }
    groups.into_values().collect()
}

/// The cavities of a hollow solid: every piece of its outward boundary but the outermost (the one
/// enclosing the largest volume), turned to face into the cavity, so that their volume is the
/// cavity's. `None` for a solid without an inner boundary.
pub fn cavity_triangles(surface: &[[usize; 3]], q: &[f64]) -> Option<Vec<[usize; 3]>> {
    let mut pieces = surface_components(surface);
    let outer = pieces
        .iter()
        .enumerate()
        .max_by(|a, b| enclosed_volume(a.1, q).total_cmp(&enclosed_volume(b.1, q)))
        .map(|(k, _)| k)?;
    pieces.swap_remove(outer);
    let inner: Vec<[usize; 3]> = pieces.into_iter().flatten().map(|[a, b, c]| [a, c, b]).collect();
    (!inner.is_empty()).then_some(inner)
}

impl VolumeZone {
    /// A zone over `triangles` whose rest positions are `q0`, with compressibility in 1/atm and a
    /// gauge pressure in atm at the rest shape.
    pub fn new(
        triangles: Vec<[usize; 3]>,
        q0: &[f64],
        form: VolumeForm,
        compressibility_per_atm: f64,
        gauge_pressure_atm: f64,
        exact_jacobian: bool,
    ) -> VolumeZone {
        let rest_volume = enclosed_volume(&triangles, q0);
        let kp = compressibility_per_atm * gauge_pressure_atm; // κ p_g, dimensionless
        let reference_volume = rest_volume
            * match form {
                VolumeForm::Quadratic => 1.0 / (1.0 - kp),
                VolumeForm::IdealGas => 1.0 + kp,
                VolumeForm::NearlyIncompressible => kp.exp(),
            };
        VolumeZone {
            triangles,
            form,
            compressibility: compressibility_per_atm / ATM,
            rest_volume,
            reference_volume,
            exact_jacobian,
        }
    }

    /// `W(V)` (J); +∞ where a logarithmic form is undefined (V ≤ 0).
    pub fn energy(&self, v: f64) -> f64 {
        let (vr, k) = (self.reference_volume, self.compressibility);
        match self.form {
            VolumeForm::Quadratic => (v - vr).powi(2) / (2.0 * vr * k),
            _ if v <= 0.0 => f64::INFINITY,
            VolumeForm::IdealGas => (v - vr * (1.0 + (v / vr).ln())) / k,
            VolumeForm::NearlyIncompressible => (vr - v * (1.0 - (v / vr).ln())) / k,
        }
    }

    /// `π(V) = −W'(V)` (Pa), generic over the scalar; NaN where undefined (V ≤ 0).
    pub fn pressure<T: Scalar>(&self, v: T) -> T {
        let (vr, k) = (self.reference_volume, self.compressibility);
        match self.form {
            VolumeForm::Quadratic => (v - vr) * (-1.0 / (vr * k)),
            _ if v.re() <= 0.0 => T::from(f64::NAN),
            VolumeForm::IdealGas => (T::from(vr) / v - 1.0) * (1.0 / k),
            VolumeForm::NearlyIncompressible => (v * (1.0 / vr)).ln() * (-1.0 / k),
        }
    }

    /// `π'(V)` (Pa/m³).
    pub fn pressure_slope(&self, v: f64) -> f64 {
        let (vr, k) = (self.reference_volume, self.compressibility);
        match self.form {
            VolumeForm::Quadratic => -1.0 / (vr * k),
            VolumeForm::IdealGas => -vr / (v * v * k),
            VolumeForm::NearlyIncompressible => -1.0 / (v * k),
        }
    }

    /// Add the volume force `π(V) ∇V` at positions `q` to `force` (both full-length), generic so
    /// that forward-mode AD of this code gives the exact (dense) Jacobian-vector product. Returns V.
    pub fn add_force<T: Scalar>(&self, q: &[T], force: &mut [T]) -> T {
        let v = enclosed_volume(&self.triangles, q);
        let pi = self.pressure(v) * (1.0 / 6.0);
        let at = |i: usize| -> V3<T> { [q[3 * i], q[3 * i + 1], q[3 * i + 2]] };
        for t in &self.triangles {
            let x = t.map(at);
            for (a, g) in [cross(x[1], x[2]), cross(x[2], x[0]), cross(x[0], x[1])].into_iter().enumerate() {
                let g = scale(g, pi);
                for k in 0..3 {
                    force[3 * t[a] + k] += g[k];
                }
            }
        }
        v
    }

    /// `∇V` at `q` (full-length).
    pub fn volume_gradient(&self, q: &[f64], out: &mut [f64]) {
        out.iter_mut().for_each(|g| *g = 0.0);
        let at = |i: usize| -> V3<f64> { [q[3 * i], q[3 * i + 1], q[3 * i + 2]] };
        for t in &self.triangles {
            let x = t.map(at);
            for (a, g) in [cross(x[1], x[2]), cross(x[2], x[0]), cross(x[0], x[1])].into_iter().enumerate() {
                for k in 0..3 {
                    out[3 * t[a] + k] += g[k] / 6.0;
                }
            }
        }
    }

    /// The 9×9 Hessian of one triangle's volume `x0 · (x1 × x2) / 6` at `x`: zero diagonal blocks,
    /// `∂²V/∂x_a∂x_b = ±[x_c]× / 6` with `c` the third corner (`+` for (a, b) cyclic).
    pub fn triangle_volume_hessian(x: &[V3<f64>; 3]) -> nalgebra::SMatrix<f64, 9, 9> {
        let skew = |v: V3<f64>| nalgebra::Matrix3::new(0.0, -v[2], v[1], v[2], 0.0, -v[0], -v[1], v[0], 0.0);
        let mut h = nalgebra::SMatrix::<f64, 9, 9>::zeros();
        for (a, b, c) in [(0, 1, 2), (1, 2, 0), (2, 0, 1)] {
            // ∂g_a/∂x_b = −[x_c]× / 6 for (a, b, c) cyclic: g_a = (x_b × x_c)/6 = −[x_c]× x_b / 6.
            let block = skew(x[c]) * (-1.0 / 6.0);
            h.fixed_view_mut::<3, 3>(3 * a, 3 * b).copy_from(&block);
            h.fixed_view_mut::<3, 3>(3 * b, 3 * a).copy_from(&block.transpose());
        }
        h
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use num_dual::Dual64;

    /// A unit cube's 12 outward triangles, nodes 0..8 at the corners (bit k of the index: axis k).
    fn cube() -> (Vec<[usize; 3]>, Vec<f64>) {
        let q: Vec<f64> = (0..8).flat_map(|i| [(i & 1) as f64, ((i >> 1) & 1) as f64, ((i >> 2) & 1) as f64]).collect();
        let quads = [[0, 2, 3, 1], [4, 5, 7, 6], [0, 1, 5, 4], [2, 6, 7, 3], [0, 4, 6, 2], [1, 3, 7, 5]];
        let tris = quads.iter().flat_map(|f| [[f[0], f[1], f[2]], [f[0], f[2], f[3]]]).collect();
        (tris, q)
    }

    fn deformed() -> (Vec<[usize; 3]>, Vec<f64>) {
        let (t, mut q) = cube();
        for (i, x) in q.iter_mut().enumerate() {
            *x += 0.07 * ((i * 37 % 11) as f64 / 11.0 - 0.5);
        }
        (t, q)
    }

    #[test]
    fn cube_volume_and_pressurisation() {
        let (t, q) = cube();
        assert!((enclosed_volume(&t, &q) - 1.0).abs() < 1e-15);
        for form in [VolumeForm::Quadratic, VolumeForm::IdealGas, VolumeForm::NearlyIncompressible] {
            let z = VolumeZone::new(t.clone(), &q, form, 0.5, 0.3, true);
            // The rest shape carries the gauge pressure asked for: 0.3 atm (round-off only).
            let v0 = z.rest_volume;
            assert!((z.pressure(v0) - 0.3 * ATM).abs() < 1e-9 * ATM, "{form:?}: {}", z.pressure(v0));
            let u = VolumeZone::new(t.clone(), &q, form, 0.5, 0.0, true);
            assert_eq!(u.pressure(v0), 0.0);
            assert_eq!(u.energy(v0), 0.0);
        }
    }

    /// A cube with a smaller cube cavity: the boundary has two pieces; the cavity's volume is the
    /// inner cube's, positive.
    #[test]
    fn cavity_of_a_hollow_cube() {
        let (t, q) = cube();
        let mut inner_q: Vec<f64> = q.iter().map(|x| 0.25 + 0.5 * x).collect();
        let mut all_q = q.clone();
        all_q.append(&mut inner_q);
        // The inner surface of the material faces into the cavity: the cube's triangles reversed.
        let mut surface = t.clone();
        surface.extend(t.iter().map(|[a, b, c]| [a + 8, c + 8, b + 8]));
        assert!((enclosed_volume(&surface, &all_q) - (1.0 - 0.125)).abs() < 1e-15);
        let cavity = cavity_triangles(&surface, &all_q).expect("a cavity");
        assert!((enclosed_volume(&cavity, &all_q) - 0.125).abs() < 1e-15);
        assert!(cavity_triangles(&t, &q).is_none());
    }

    /// The three forms agree to second order at Vr (001 Fig. 3): W''(Vr) = 1/(Vr κ), and the
    /// third-order difference over ±1 % is at most O(0.01³) relative to W.
    #[test]
    fn forms_agree_to_second_order() {
        let (t, q) = cube();
        let zones = [VolumeForm::Quadratic, VolumeForm::IdealGas, VolumeForm::NearlyIncompressible]
            .map(|f| VolumeZone::new(t.clone(), &q, f, 1.0, 0.0, true));
        for dv in [-0.01, 0.01] {
            let w: Vec<f64> = zones.iter().map(|z| z.energy(1.0 + dv)).collect();
            for wi in &w[1..] {
                // W = dv² / (2 κ) ~ 5e-5 / κ; the cubic terms differ by ~dv/3 relative: < 1 %.
                assert!(((wi - w[0]) / w[0]).abs() < 0.01, "{w:?}");
            }
        }
    }

    /// The force is minus the gradient of the energy (central differences), and π' matches the
    /// derivative of π (forward-mode AD), for every form.
    #[test]
    fn force_is_the_energy_gradient_and_the_slope_is_exact() {
        let (t, q) = deformed();
        for form in [VolumeForm::Quadratic, VolumeForm::IdealGas, VolumeForm::NearlyIncompressible] {
            let z = VolumeZone::new(t.clone(), &cube().1, form, 1.0, 0.5, true);
            let mut f = vec![0.0; q.len()];
            z.add_force(&q, &mut f);
            let w = |q: &[f64]| z.energy(enclosed_volume(&t, q));
            let fscale = f.iter().fold(0.0f64, |m, x| m.max(x.abs()));
            for i in 0..q.len() {
                let h = 1e-6;
                let (mut a, mut b) = (q.clone(), q.clone());
                a[i] += h;
                b[i] -= h;
                let fd = -(w(&a) - w(&b)) / (2.0 * h);
                // Central differences: O(h²) truncation ~ 1e-12 relative, plus cancellation of
                // W ~ 1e4 J at h = 1e-6: ~1e-16 * 1e4 / 1e-6 = 1e-6 N against forces of ~1e5 N.
                assert!((fd - f[i]).abs() < 1e-8 * fscale, "{form:?} dof {i}: fd {fd} vs {}", f[i]);
            }
            let v = enclosed_volume(&t, &q);
            let d = z.pressure(Dual64::new(v, 1.0));
            assert!((d.eps - z.pressure_slope(v)).abs() < 1e-12 * z.pressure_slope(v).abs());
        }
    }

    /// The triangle volume Hessian against forward-mode AD of the gradient.
    #[test]
    fn triangle_volume_hessian_matches_ad() {
        let x = [[0.1, -0.3, 0.7], [1.2, 0.4, -0.2], [-0.5, 0.9, 0.3]];
        let h = VolumeZone::triangle_volume_hessian(&x);
        let tri = vec![[0usize, 1, 2]];
        let z = VolumeZone {
            triangles: tri,
            form: VolumeForm::Quadratic,
            compressibility: 1.0,
            rest_volume: 1.0,
            reference_volume: 1.0,
            exact_jacobian: false,
        };
        let q: Vec<f64> = x.iter().flatten().copied().collect();
        for j in 0..9 {
            let qd: Vec<Dual64> = q.iter().enumerate().map(|(i, &v)| Dual64::new(v, (i == j) as u8 as f64)).collect();
            let mut g = vec![Dual64::from(0.0); 9];
            // π = −(V − 1): the force is −(V − 1) ∇V; differentiate ∇V alone by dividing out π.
            let v = enclosed_volume(&z.triangles, &q);
            z.add_force(&qd, &mut g);
            let pi = -(v - 1.0);
            for i in 0..9 {
                // d(π ∇V)/dq_j = π' ∇V_j ∇V_i + π H_ij with π' = −1.
                let grad = |k: usize| {
                    let mut out = vec![0.0; 9];
                    z.volume_gradient(&q, &mut out);
                    out[k]
                };
                let expect = -grad(j) * grad(i) + pi * h[(i, j)];
                assert!((g[i].eps - expect).abs() < 1e-13, "({i}, {j}): {} vs {expect}", g[i].eps);
            }
        }
    }
}
