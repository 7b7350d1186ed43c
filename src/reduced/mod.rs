//! Reduced deformable bodies with a floating frame (002 §7.2; Shabana's floating frame of
//! reference): a tet mesh whose nodes move as
//!
//! `x_i = c + R (X_i + Φ_i q)`
//!
//! with `c`, `R` the frame (centre of mass and rotation), `X_i` the rest offset from the centre
//! of mass, `Φ_i` node `i`'s rows of `r` vibration modes of the free body (`modes`) and `q` the
//! modal coordinates. The unknowns are `u = (V, ω, q̇)`, 6 + r per body (ω in world axes), and a
//! node's velocity is `ẋ_i = P_i u` with `P_i = [1, −[y_i]×, R Φ_i]`, `y_i = R (X_i + Φ_i q)`.
//!
//! Elasticity lives in the modal coordinates only: `Modal` is linear (`E = ½ qᵀ Λ q`, Λ the
//! eigenvalues), `StVK` the reduced St. Venant–Kirchhoff polynomial (`stvk`). Because the modes
//! are mass-orthogonal to the rigid ones, `Σ m_i Φ_i q = 0` for every `q`: `c` stays the centre
//! of mass. The mass matrix `Σ m_i P_iᵀ P_i` of the lumped nodes carries every floating-frame
//! coupling (the deformed inertia, the rotation–deformation terms) without a separate formula.

pub mod modes;
pub mod stvk;

use crate::dfcp::problem::Csc;
use crate::energy::elastic::material::Material;
use crate::energy::elastic::tet::TetElement;
use nalgebra::{DMatrix, DVector, Matrix3, UnitQuaternion, Vector3};
use std::ops::Range;
use std::sync::Arc;

/// The elastic energy of the modal coordinates.
#[derive(Debug, Clone, PartialEq)]
pub enum Elasticity {
    /// `E = ½ Σ λ_j q_j²`.
    Modal,
    /// Reduced StVK (`stvk`).
    Stvk(stvk::StvkPolynomial),
}

/// A reduced body: its nodes and its model (shared by every body of the same mesh, material and
/// modes: the model lives in the mesh's own frame, and each body's frame carries its placement).
#[derive(Debug, Clone, PartialEq)]
pub struct ReducedBody {
    /// Its nodes in the model's node numbering (those of the `Solid` it reduces).
    pub nodes: Range<usize>,
    pub model: Arc<ReducedModel>,
}

impl std::ops::Deref for ReducedBody {
    type Target = ReducedModel;
    fn deref(&self) -> &ReducedModel {
        &self.model
    }
}

/// A reduced model: rest shape, modes, elasticity, damping, in the mesh's own frame.
#[derive(Debug, Clone, PartialEq)]
pub struct ReducedModel {
    /// Rest offsets from the centre of mass, body frame.
    pub rest: Vec<Vector3<f64>>,
    /// Lumped nodal masses.
    pub mass: Vec<f64>,
    /// Modes, `3N × r`, body frame, M-orthonormal.
    pub phi: DMatrix<f64>,
    /// Their eigenvalues ω² (1/s²).
    pub lambda: Vec<f64>,
    pub elasticity: Elasticity,
    /// Rayleigh damping of the modal coordinates `D = α 1 + β ∇²E` (the rigid motion is not damped).
    pub damping: (f64, f64),
    /// Subspace-iteration passes the modes took and the build time (s), for `fricsim check`.
    pub build: (usize, f64),
}

/// What a reduced body's step changes: frame, velocities, modal coordinates and rates.
#[derive(Debug, Clone, PartialEq)]
pub struct ReducedState {
    /// World position of the centre of mass.
    pub position: Vector3<f64>,
    /// Body-to-world rotation.
    pub orientation: UnitQuaternion<f64>,
    pub linear_velocity: Vector3<f64>,
    /// World angular velocity.
    pub angular_velocity: Vector3<f64>,
    pub q: DVector<f64>,
    pub qdot: DVector<f64>,
}

/// A reduced body linearized at a pose: the world offsets `y_i` and world modes `R Φ_i`.
pub struct Frame {
    pub y: Vec<Vector3<f64>>,
    /// `3N × r`, world axes.
    pub modes: DMatrix<f64>,
}

impl ReducedModel {
    /// The reduced model of a tet mesh in its own frame: `elements` over its vertices `rest`
    /// (lumped masses `mass`), `r` modes, StVK or linear.
    pub fn new(
        elements: &[TetElement],
        rest: &[Vector3<f64>],
        mass: &[f64],
        material: &Material,
        (r, stvk): (usize, bool),
        damping: (f64, f64),
    ) -> Result<ReducedModel, String> {
        let clock = std::time::Instant::now();
        let k = rest_stiffness(elements, rest, material)?;
        let m = modes::lowest_modes(&k, mass, rest, r)?;
        let total: f64 = mass.iter().sum();
        let com = rest.iter().zip(mass).map(|(x, m)| x * *m).sum::<Vector3<f64>>() / total;
        let elasticity = if stvk {
            Elasticity::Stvk(stvk::StvkPolynomial::new(elements, material.lame, &m.phi))
        } else {
            Elasticity::Modal
        };
        Ok(ReducedModel {
            rest: rest.iter().map(|x| x - com).collect(),
            mass: mass.to_vec(),
            phi: m.phi,
            lambda: m.lambda,
            elasticity,
            damping,
            build: (m.passes, clock.elapsed().as_secs_f64()),
        })
    }

    /// Number of modes.
    pub fn modes(&self) -> usize {
        self.phi.ncols()
    }

    /// Unknowns: 6 + r.
    pub fn dofs(&self) -> usize {
        6 + self.modes()
    }

    /// The state at rest with its centre of mass at `position`, turned by `orientation` from the
    /// mesh's own frame, moving rigidly.
    pub fn state_at(
        &self,
        (position, orientation): (Vector3<f64>, UnitQuaternion<f64>),
        linear: Vector3<f64>,
        angular: Vector3<f64>,
    ) -> ReducedState {
        let r = self.modes();
        ReducedState {
            position,
            orientation,
            linear_velocity: linear,
            angular_velocity: angular,
            q: DVector::zeros(r),
            qdot: DVector::zeros(r),
        }
    }

    /// The modal coordinates nearest to nodal displacements `u` (body frame) in the mass norm:
    /// `q = Φᵀ M u`, the modes being M-orthonormal. Translations and infinitesimal rotations in
    /// `u` drop out (the modes are M-orthogonal to them); a finite rotation leaves its second
    /// order.
    pub fn project(&self, u: &[Vector3<f64>]) -> DVector<f64> {
        DVector::from_fn(self.modes(), |j, _| {
            u.iter()
                .zip(&self.mass)
                .enumerate()
                .map(|(i, (u, m))| m * self.phi.fixed_view::<3, 1>(3 * i, j).dot(u))
                .sum()
        })
    }

    /// Elastic energy, its gradient and Hessian in the modal coordinates.
    pub fn elastic(&self, q: &DVector<f64>) -> (f64, DVector<f64>, DMatrix<f64>) {
        match &self.elasticity {
            Elasticity::Modal => {
                let lam = DVector::from_column_slice(&self.lambda);
                let g = lam.component_mul(q);
                (0.5 * q.dot(&g), g, DMatrix::from_diagonal(&lam))
            }
            Elasticity::Stvk(p) => p.evaluate(q),
        }
    }

    /// Node `i`'s (local index) body-frame offset `X_i + Φ_i q`.
    pub fn local_offset(&self, i: usize, q: &DVector<f64>) -> Vector3<f64> {
        let mut x = self.rest[i];
        for (j, qj) in q.iter().enumerate() {
            for a in 0..3 {
                x[a] += self.phi[(3 * i + a, j)] * qj;
            }
        }
        x
    }

    /// World positions of every node.
    pub fn positions(&self, s: &ReducedState) -> impl Iterator<Item = Vector3<f64>> + '_ {
        let (c, rot) = (s.position, s.orientation.to_rotation_matrix().into_inner());
        let q = s.q.clone();
        (0..self.rest.len()).map(move |i| c + rot * self.local_offset(i, &q))
    }

    /// The linearization at `s` (module doc).
    pub fn frame(&self, s: &ReducedState) -> Frame {
        let rot = s.orientation.to_rotation_matrix().into_inner();
        let y = (0..self.rest.len()).map(|i| rot * self.local_offset(i, &s.q)).collect();
        let mut modes = DMatrix::zeros(self.phi.nrows(), self.modes());
        for i in 0..self.rest.len() {
            let rows = self.phi.rows(3 * i, 3);
            modes.rows_mut(3 * i, 3).copy_from(&(rot * rows));
        }
        Frame { y, modes }
    }

    /// Node `i`'s velocity `P_i u` from the body's unknowns `u` (6 + r).
    pub fn node_velocity(&self, f: &Frame, i: usize, u: &[f64]) -> Vector3<f64> {
        let (v, w) = (Vector3::new(u[0], u[1], u[2]), Vector3::new(u[3], u[4], u[5]));
        v + w.cross(&f.y[i]) + modal_velocity(f, i, &u[6..])
    }

    /// The generalized mass `Σ m_i P_iᵀ P_i`, `P_i = [1, −[y_i]×, R Φ_i]`.
    pub fn mass_matrix(&self, f: &Frame) -> DMatrix<f64> {
        let n = self.dofs();
        let mut m = DMatrix::zeros(n, n);
        let mut p = DMatrix::zeros(3, n);
        p.view_mut((0, 0), (3, 3)).copy_from(&Matrix3::identity());
        for (i, &mi) in self.mass.iter().enumerate() {
            p.view_mut((0, 3), (3, 3)).copy_from(&(-f.y[i].cross_matrix()));
            p.view_mut((0, 6), (3, self.modes())).copy_from(&f.modes.rows(3 * i, 3));
            m.gemm_tr(mi, &p, &p, 1.0);
        }
        (&m + m.transpose()) * 0.5
    }

    /// The quadratic velocity forces at velocity `u`: `−Σ m_i P_iᵀ Ṗ_i u` with
    /// `Ṗ_i u = ω × (ω × y_i) + 2 ω × (R Φ_i q̇)` (centripetal and Coriolis accelerations of the
    /// nodes), so that `M u̇ = Σ P_iᵀ f_i + g` is each node's `m a = f` projected onto the body's
    /// motions. On the rigid rows they are the gyroscopic torque `−ω × I ω`, on the modal rows
    /// the centrifugal and Coriolis loads.
    pub fn quadratic_velocity(&self, f: &Frame, u: &[f64]) -> DVector<f64> {
        let w = Vector3::new(u[3], u[4], u[5]);
        let mut g = DVector::zeros(self.dofs());
        for (i, &mi) in self.mass.iter().enumerate() {
            let modal = modal_velocity(f, i, &u[6..]);
            let acc = (w.cross(&(w.cross(&f.y[i]))) + 2.0 * w.cross(&modal)) * (-mi);
            // P_iᵀ acc: the force, the torque y × acc, and the modes' share.
            for a in 0..3 {
                g[a] += acc[a];
            }
            let torque = f.y[i].cross(&acc);
            for a in 0..3 {
                g[3 + a] += torque[a];
            }
            for j in 0..self.modes() {
                g[6 + j] += (0..3).map(|a| f.modes[(3 * i + a, j)] * acc[a]).sum::<f64>();
            }
        }
        g
    }

    /// The frame's and modes' update over a step `h` at velocity `u`: `c += h V`, `R ← exp(h ω) R`
    /// (ω in world axes), `q += h q̇`; the velocities are set to `u`.
    pub fn advance(&self, s: &mut ReducedState, u: &[f64], h: f64) {
        self.set_velocity(s, u);
        s.position += h * s.linear_velocity;
        let dq = UnitQuaternion::from_scaled_axis(h * s.angular_velocity);
        s.orientation = UnitQuaternion::new_normalize((dq * s.orientation).into_inner());
        s.q += &s.qdot * h;
    }

    /// Sets the velocities from the unknowns `u`.
    pub fn set_velocity(&self, s: &mut ReducedState, u: &[f64]) {
        s.linear_velocity = Vector3::new(u[0], u[1], u[2]);
        s.angular_velocity = Vector3::new(u[3], u[4], u[5]);
        s.qdot = DVector::from_column_slice(&u[6..6 + self.modes()]);
    }
}

/// Node `i`'s velocity from the modes alone, `R Φ_i q̇`.
fn modal_velocity(f: &Frame, i: usize, qdot: &[f64]) -> Vector3<f64> {
    let mut x = Vector3::zeros();
    for (j, qd) in qdot.iter().enumerate() {
        for a in 0..3 {
            x[a] += f.modes[(3 * i + a, j)] * qd;
        }
    }
    x
}

impl ReducedState {
    /// The unknowns `(V, ω, q̇)`.
    pub fn velocity(&self) -> Vec<f64> {
        let mut u = Vec::with_capacity(6 + self.qdot.len());
        u.extend(self.linear_velocity.iter().chain(self.angular_velocity.iter()).chain(self.qdot.iter()));
        u
    }

    /// Flat form for checkpoints: position, quaternion (w, i, j, k), V, ω, q, q̇.
    pub fn to_flat(&self) -> Vec<f64> {
        let (x, o) = (self.position, self.orientation.quaternion());
        let mut a = vec![x.x, x.y, x.z, o.w, o.i, o.j, o.k];
        a.extend(self.velocity()[..6].iter());
        a.extend(self.q.iter().chain(self.qdot.iter()));
        a
    }

    /// Inverse of [`to_flat`](Self::to_flat); `None` if the length does not fit this body.
    pub fn set_flat(&mut self, a: &[f64]) -> Option<()> {
        let r = self.q.len();
        if a.len() != 13 + 2 * r {
            return None;
        }
        let v3 = |k: usize| Vector3::new(a[k], a[k + 1], a[k + 2]);
        self.position = v3(0);
        self.orientation = UnitQuaternion::new_unchecked(nalgebra::Quaternion::new(a[3], a[4], a[5], a[6]));
        self.linear_velocity = v3(7);
        self.angular_velocity = v3(10);
        self.q = DVector::from_column_slice(&a[13..13 + r]);
        self.qdot = DVector::from_column_slice(&a[13 + r..]);
        Some(())
    }
}

/// The stiffness of `elements` (local node indices) at `rest`: the Hessian of the energy at
/// rest, Hooke's law for every model (`energy::elastic::material`).
pub fn rest_stiffness(elements: &[TetElement], rest: &[Vector3<f64>], material: &Material) -> Result<Csc, String> {
    let mut t = Vec::with_capacity(144 * elements.len());
    for el in elements {
        let x = el.gather(rest);
        let (_, _, h) = el.energy_gradient_hessian(material, &x, false);
        for a in 0..12 {
            for b in 0..12 {
                let (i, j) = (3 * el.nodes[a / 3] + a % 3, 3 * el.nodes[b / 3] + b % 3);
                t.push(faer::sparse::Triplet::new(i, j, h[(a, b)]));
            }
        }
    }
    let n = 3 * rest.len();
    Csc::try_new_from_triplets(n, n, &t).map_err(|e| format!("stiffness assembly: {e:?}"))
}

#[cfg(test)]
mod tests;
