//! Rod bending and twisting at one interior node: the 11-DOF stencil
//! `[x_{i−1}, x_i, x_{i+1}, θ_{i−1}, θ_i]` (see the [module docs](super)).
//!
//! The energy is written once, generic over the scalar ([`BendTwistElement::energy_generic`]);
//! gradient and Hessian are its forward-mode derivatives (num-dual: `DualSVec64<8>` for the
//! gradient, `Dual2SVec64<8>` for the Hessian, in the 8 translation-invariant variables
//! (e_{i−1}, e_i, θ_{i−1}, θ_i), mapped back to the 11 stencil DOFs exactly, see [`reduce`]). Why AD here and not hand-derived formulas: the
//! DER Hessian (Bergou 2010, App. A; Kaufman et al. 2014) is long and easy to get subtly wrong
//! (it also has to differentiate the time-parallel transport of the frames), while one generic
//! energy of ~150 operations gives exact derivatives. The cost is measured in `benches/thin.rs`
//! (the Hessian dual carries 8 + 64 numbers per operation, ~0.6 KB per intermediate value, for
//! ~300 intermediate values: the exact AD Hessian is slow, tens of µs per stencil).
//!
//! For projected Newton there is a much cheaper PSD alternative,
//! [`BendTwistElement::energy_gradient_gauss_newton`]: the energy is a quadratic form
//! E = ½ rᵀ K r in the 5 strains r = (ω^0 − ω̄^0, ω^1 − ω̄^1, m − m̄) with the constant
//! K = diag(B/(2ℓ), B/(2ℓ), β/ℓ), so with the strain Jacobian J (5×11, first-order AD)
//! ∇E = Jᵀ K r exactly and H ≈ Jᵀ K J (PSD for PSD B; drops Σ_k (K r)_k ∇²r_k, exact at rest).

use nalgebra::{SMatrix, SVector, Vector2, Vector3};
use num_dual::{Dual2SVec64, DualSVec64, gradient, hessian, jacobian};

use super::RodStiffness;
use super::frames::{EdgeFrame, reference_twist, transport};
use crate::contact::vec3::{Scalar, V3, cross, dot, konst, norm, scale};

/// Rest data of the bend–twist stencil at interior node `node`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct BendTwistElement {
    /// The interior node i (the stencil uses nodes i−1, i, i+1 and edges i−1, i).
    pub node: usize,
    /// Rest lengths |ē_{i−1}|, |ē_i| (they appear in κb's denominator, Bergou 2008).
    pub rest_lengths: [f64; 2],
    /// Rest material curvatures ω̄_i^j in the frames of edges i−1 (j = 0) and i (j = 1).
    pub rest_curvature: [Vector2<f64>; 2],
    /// Rest twist m̄_i (rad).
    pub rest_twist: f64,
}

/// Local state needed besides the 11 unknowns: the stored reference frames of the two edges
/// (from which the current frames are time-parallel transported) and the last reference twist
/// (2π branch selection).
pub type FrameData<'a> = (&'a [EdgeFrame; 2], f64);

impl BendTwistElement {
    /// Rest data from rest positions, rest frames and rest edge angles: ω̄ and m̄ are the
    /// curvatures and twist of the rest configuration, so the rest state has zero energy and
    /// zero gradient.
    pub fn new(node: usize, rest: &[Vector3<f64>; 3], frames: &[EdgeFrame; 2], rest_theta: [f64; 2]) -> Self {
        let rest_lengths = [(rest[1] - rest[0]).norm(), (rest[2] - rest[1]).norm()];
        let mut el = BendTwistElement { node, rest_lengths, rest_curvature: [Vector2::zeros(); 2], rest_twist: 0.0 };
        let q: [f64; 11] = pack(rest, &rest_theta);
        let hint = reference_twist::<f64>(
            frames[0].tangent.into(),
            frames[0].director.into(),
            frames[1].tangent.into(),
            frames[1].director.into(),
            0.0,
        );
        let g = el.geometry(&reduce(&q), frames, hint);
        el.rest_curvature = [Vector2::new(g.omega[0][0], g.omega[0][1]), Vector2::new(g.omega[1][0], g.omega[1][1])];
        el.rest_twist = g.twist;
        el
    }

    /// Voronoi length ℓ_i = (|ē_{i−1}| + |ē_i|)/2.
    #[inline]
    pub fn voronoi_length(&self) -> f64 {
        0.5 * (self.rest_lengths[0] + self.rest_lengths[1])
    }

    /// Material curvatures and twist (θ_i − θ_{i−1} + m_ref) of the stencil `q`; `m_ref_hint`
    /// selects the 2π branch of the reference twist.
    /// Works on the reduced variables z = (e_{i−1}, e_i, θ_{i−1}, θ_i) (see [`reduce`]).
    fn geometry<T: Scalar>(&self, z: &[T; 8], frames: &[EdgeFrame; 2], m_ref_hint: f64) -> Geometry<T> {
        let e = [[z[0], z[1], z[2]], [z[3], z[4], z[5]]];
        let t = e.map(|ej| scale(ej, norm(ej).recip()));
        // Current reference directors: time-parallel transport of the stored ones.
        let u: [V3<T>; 2] =
            std::array::from_fn(|j| transport(konst(frames[j].tangent.into()), t[j], konst(frames[j].director.into())));
        let denom = dot(e[0], e[1]) + self.rest_lengths[0] * self.rest_lengths[1];
        let kb = scale(cross(e[0], e[1]), denom.recip() * 2.0);
        let omega = std::array::from_fn(|j| {
            let v = cross(t[j], u[j]);
            let (s, c) = z[6 + j].sin_cos();
            let (ku, kv) = (dot(kb, u[j]), dot(kb, v));
            // ω = (κb·m2, −κb·m1), m1 = c u + s v, m2 = −s u + c v.
            [kv * c - ku * s, -(ku * c + kv * s)]
        });
        let m_ref = reference_twist(t[0], u[0], t[1], u[1], m_ref_hint);
        Geometry { omega, twist: z[7] - z[6] + m_ref }
    }

    /// (bending, twisting) energies for the 11 stencil values `q` (generic scalar).
    pub fn energy_parts_generic<T: Scalar>(&self, s: &RodStiffness, q: &[T; 11], fd: FrameData) -> (T, T) {
        self.energy_parts_reduced(s, &reduce(q), fd)
    }

    /// (bending, twisting) energies in the reduced variables z = (e_{i−1}, e_i, θ_{i−1}, θ_i).
    fn energy_parts_reduced<T: Scalar>(&self, s: &RodStiffness, z: &[T; 8], fd: FrameData) -> (T, T) {
        let (frames, m_ref_prev) = fd;
        let g = self.geometry(z, frames, m_ref_prev);
        let inv_l = self.voronoi_length().recip();
        let b = &s.bend;
        let mut bend = T::from(0.0);
        for j in 0..2 {
            let d0 = g.omega[j][0] - self.rest_curvature[j][0];
            let d1 = g.omega[j][1] - self.rest_curvature[j][1];
            bend += d0 * d0 * b[(0, 0)] + d0 * d1 * (b[(0, 1)] + b[(1, 0)]) + d1 * d1 * b[(1, 1)];
        }
        let dt = g.twist - self.rest_twist;
        (bend * (0.25 * inv_l), dt * dt * (0.5 * s.twist * inv_l))
    }

    /// E_b + E_t for the 11 stencil values `q` (generic scalar, for AD).
    pub fn energy_generic<T: Scalar>(&self, s: &RodStiffness, q: &[T; 11], fd: FrameData) -> T {
        let (b, t) = self.energy_parts_generic(s, q, fd);
        b + t
    }

    /// (E_b, E_t) in f64.
    pub fn energy_parts(
        &self,
        s: &RodStiffness,
        x: &[Vector3<f64>; 3],
        theta: &[f64; 2],
        frames: &[EdgeFrame; 2],
        m_ref_prev: f64,
    ) -> (f64, f64) {
        self.energy_parts_generic(s, &pack(x, theta), (frames, m_ref_prev))
    }

    /// E_b + E_t (J).
    pub fn energy(
        &self,
        s: &RodStiffness,
        x: &[Vector3<f64>; 3],
        theta: &[f64; 2],
        frames: &[EdgeFrame; 2],
        m_ref_prev: f64,
    ) -> f64 {
        let (b, t) = self.energy_parts(s, x, theta, frames, m_ref_prev);
        b + t
    }

    /// Energy and gradient with respect to the 11 stencil DOFs (forward-mode AD, 11 directions).
    pub fn energy_gradient(
        &self,
        s: &RodStiffness,
        x: &[Vector3<f64>; 3],
        theta: &[f64; 2],
        frames: &[EdgeFrame; 2],
        m_ref_prev: f64,
    ) -> (f64, SVector<f64, 11>) {
        let z = SVector::<f64, 8>::from(reduce(&pack(x, theta)));
        let (e, gz) = gradient(
            |v: SVector<DualSVec64<8>, 8>| {
                let (b, t) = self.energy_parts_reduced(s, &std::array::from_fn(|k| v[k]), (frames, m_ref_prev));
                b + t
            },
            &z,
        );
        (e, expand_gradient(&gz))
    }

    /// Energy, gradient and 11×11 Hessian (second-order forward-mode AD). With `project_psd`
    /// the Hessian is replaced by its nearest PSD matrix ([`crate::energy::project_psd`]): the
    /// DER Hessian is indefinite away from the rest state (bending of a twisted rod, twist of a
    /// bent one).
    pub fn energy_gradient_hessian(
        &self,
        s: &RodStiffness,
        x: &[Vector3<f64>; 3],
        theta: &[f64; 2],
        frames: &[EdgeFrame; 2],
        m_ref_prev: f64,
        project_psd: bool,
    ) -> (f64, SVector<f64, 11>, SMatrix<f64, 11, 11>) {
        let z = SVector::<f64, 8>::from(reduce(&pack(x, theta)));
        let (e, gz, hz) = hessian(
            |v: SVector<Dual2SVec64<8>, 8>| {
                let (b, t) = self.energy_parts_reduced(s, &std::array::from_fn(|k| v[k]), (frames, m_ref_prev));
                b + t
            },
            &z,
        );
        let (g, mut h) = (expand_gradient(&gz), expand_hessian(&hz));
        if project_psd {
            crate::energy::project_psd(&mut h);
        }
        (e, g, h)
    }
}

impl BendTwistElement {
    /// Energy, gradient and exact Hessian with respect to the two edge angles only, the
    /// positions held: second-order AD in 2 variables, a small fraction of the full Hessian's
    /// cost. Dynamic twist's Newton uses it (`super::dynamic`): the Gauss–Newton θθ block
    /// also counts the turning of the curvature vector, which a round section's bending energy
    /// does not see, and on a bent rod that slows Newton to a crawl.
    pub fn angle_derivatives(
        &self,
        s: &RodStiffness,
        x: &[Vector3<f64>; 3],
        theta: &[f64; 2],
        frames: &[EdgeFrame; 2],
        m_ref_prev: f64,
    ) -> (f64, SVector<f64, 2>, SMatrix<f64, 2, 2>) {
        let z0 = reduce(&pack(x, theta));
        hessian(
            |v: SVector<Dual2SVec64<2>, 2>| {
                let z: [Dual2SVec64<2>; 8] =
                    std::array::from_fn(|k| if k < 6 { Dual2SVec64::from(z0[k]) } else { v[k - 6] });
                let (b, t) = self.energy_parts_reduced(s, &z, (frames, m_ref_prev));
                b + t
            },
            &SVector::from([theta[0], theta[1]]),
        )
    }

    /// The 5 strains r = (ω^0 − ω̄^0, ω^1 − ω̄^1, m − m̄) (generic scalar).
    pub fn strains_generic<T: Scalar>(&self, q: &[T; 11], fd: FrameData) -> [T; 5] {
        self.strains_reduced(&reduce(q), fd)
    }

    fn strains_reduced<T: Scalar>(&self, z: &[T; 8], fd: FrameData) -> [T; 5] {
        let g = self.geometry(z, fd.0, fd.1);
        [
            g.omega[0][0] - self.rest_curvature[0][0],
            g.omega[0][1] - self.rest_curvature[0][1],
            g.omega[1][0] - self.rest_curvature[1][0],
            g.omega[1][1] - self.rest_curvature[1][1],
            g.twist - self.rest_twist,
        ]
    }

    /// Energy, exact gradient and the Gauss–Newton Hessian Jᵀ K J (see the module docs): PSD by
    /// construction (for PSD B), no eigen-decomposition, one first-order AD pass with 11
    /// directions. Equal to the exact Hessian at the rest state; away from it, it drops the
    /// strain-curvature term Σ_k (K r)_k ∇²r_k, which is what makes the exact Hessian indefinite.
    pub fn energy_gradient_gauss_newton(
        &self,
        s: &RodStiffness,
        x: &[Vector3<f64>; 3],
        theta: &[f64; 2],
        frames: &[EdgeFrame; 2],
        m_ref_prev: f64,
    ) -> (f64, SVector<f64, 11>, SMatrix<f64, 11, 11>) {
        let z = SVector::<f64, 8>::from(reduce(&pack(x, theta)));
        let (r, jz): (SVector<f64, 5>, SMatrix<f64, 5, 8>) = jacobian(
            |v: SVector<DualSVec64<8>, 8>| {
                SVector::from(self.strains_reduced(&std::array::from_fn(|k| v[k]), (frames, m_ref_prev)))
            },
            &z,
        );
        // Strain Jacobian in the stencil's 11 DOFs: J = J_z T.
        let j = SMatrix::<f64, 5, 11>::from_fn(|row, col| {
            let gz = SVector::<f64, 8>::from_fn(|k, _| jz[(row, k)]);
            expand_gradient(&gz)[col]
        });
        let inv_l = self.voronoi_length().recip();
        let mut k = SMatrix::<f64, 5, 5>::zeros();
        let bb = (s.bend + s.bend.transpose()) * (0.25 * inv_l); // B/(2ℓ), symmetrized
        k.fixed_view_mut::<2, 2>(0, 0).copy_from(&bb);
        k.fixed_view_mut::<2, 2>(2, 2).copy_from(&bb);
        k[(4, 4)] = s.twist * inv_l;
        let kr = k * r;
        let kj = k * j;
        (0.5 * r.dot(&kr), j.transpose() * kr, j.transpose() * kj)
    }
}

/// The reduced variables z = (e_{i−1}, e_i, θ_{i−1}, θ_i) = T q of a stencil q. The energy is
/// translation invariant, so it depends on the 11 DOFs only through these 8: differentiating
/// with respect to z and mapping back (g = Tᵀ g_z, H = Tᵀ H_z T) is exact and makes the AD
/// numbers 8 + 64 wide instead of 11 + 121 (about half the Hessian cost).
#[inline]
pub fn reduce<T: Scalar>(q: &[T; 11]) -> [T; 8] {
    [q[3] - q[0], q[4] - q[1], q[5] - q[2], q[6] - q[3], q[7] - q[4], q[8] - q[5], q[9], q[10]]
}

/// g = Tᵀ g_z: ∂/∂x_{i−1} = −∂/∂e_{i−1}, ∂/∂x_i = ∂/∂e_{i−1} − ∂/∂e_i, ∂/∂x_{i+1} = ∂/∂e_i.
#[inline]
fn expand_gradient(gz: &SVector<f64, 8>) -> SVector<f64, 11> {
    let mut g = SVector::<f64, 11>::zeros();
    for c in 0..3 {
        g[c] = -gz[c];
        g[3 + c] = gz[c] - gz[3 + c];
        g[6 + c] = gz[3 + c];
    }
    g[9] = gz[6];
    g[10] = gz[7];
    g
}

/// H = Tᵀ H_z T, applying [`expand_gradient`] to the columns and then to the rows.
#[inline]
fn expand_hessian(hz: &SMatrix<f64, 8, 8>) -> SMatrix<f64, 11, 11> {
    let mut half = SMatrix::<f64, 8, 11>::zeros();
    for r in 0..8 {
        let row = SVector::<f64, 8>::from_fn(|k, _| hz[(r, k)]);
        half.set_row(r, &expand_gradient(&row).transpose());
    }
    let mut h = SMatrix::<f64, 11, 11>::zeros();
    for c in 0..11 {
        h.set_column(c, &expand_gradient(&half.column(c).into_owned()));
    }
    h
}

/// Stencil values `[x_{i−1}, x_i, x_{i+1}, θ_{i−1}, θ_i]` as one array.
#[inline]
pub fn pack(x: &[Vector3<f64>; 3], theta: &[f64; 2]) -> [f64; 11] {
    std::array::from_fn(|k| if k < 9 { x[k / 3][k % 3] } else { theta[k - 9] })
}

struct Geometry<T> {
    omega: [[T; 2]; 2],
    twist: T,
}
