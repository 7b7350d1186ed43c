//! Discrete Elastic Rods (Bergou et al. 2008, "Discrete Elastic Rods"; Bergou et al. 2010,
//! "Discrete Viscous Threads"), the rod model of seed 004.
//!
//! A rod is a polyline of `n` nodes x_0 … x_{n−1} and `n − 1` edges e_j = x_{j+1} − x_j. Each edge
//! carries an orthonormal *reference frame* (t_j, u_j, v_j = t_j × u_j) and a scalar *edge angle*
//! θ_j; the *material frame* is the reference frame rotated about t_j by θ_j:
//! m1_j = cos θ_j u_j + sin θ_j v_j, m2_j = −sin θ_j u_j + cos θ_j v_j.
//!
//! # Energies
//! - [`stretch`]: per edge, E_s = k_s/2 (|e|/|ē| − 1)² |ē|, k_s = E π r².
//! - [`bend_twist`]: per interior node i (edges i−1 and i), with the discrete curvature binormal
//!   κb_i = 2 e_{i−1} × e_i / (|ē_{i−1}||ē_i| + e_{i−1}·e_i), the material curvatures
//!   ω_i^j = (κb_i·m2_j, −κb_i·m1_j) in both adjacent material frames j ∈ {i−1, i},
//!   E_b = 1/(4 ℓ_i) Σ_j (ω_i^j − ω̄_i^j)ᵀ B (ω_i^j − ω̄_i^j) and
//!   E_t = β/(2 ℓ_i) (θ_i − θ_{i−1} + m_ref,i − m̄_i)²,
//!   with ℓ_i = (|ē_{i−1}| + |ē_i|)/2 the Voronoi length, B = E π r⁴/4 I₂ for a round section
//!   (a general symmetric 2×2 B is accepted for elliptic sections), β = G π r⁴/2, and m_ref,i the
//!   reference twist. (Bergou 2008 writes 1/(2 l̄_i) with l̄_i = |ē_{i−1}| + |ē_i| = 2 ℓ_i: the
//!   same energy.)
//! - [`quasistatic`]: the edge angles eliminated by minimizing the twist energy per rod;
//!   [`dynamic`]: the edge angles as unknowns with their rotational inertia, a staggered
//!   backward-Euler step after the positions'.
//!
//! Reference frames ([`frames`]) are updated by *time-parallel transport*: the director u_j of the
//! previous step is rotated by the minimal rotation taking the previous tangent to the new one.
//! Inside the kernels that transport is part of the energy (a smooth function of the positions,
//! given the stored previous frame), so the energy of a stencil is one well-defined function of
//! its 11 unknowns and finite differences check gradients and Hessians exactly. At the stored
//! frames' own configuration its derivatives coincide with Bergou 2010's (e.g. the holonomy
//! gradient of the reference twist; `tests/thin_energy_fd.rs` checks its consequence, the
//! gradient's orthogonality to infinitesimal rigid rotations).
//!
//! # DOF layout (decision)
//! A rod body's range of the generalized vector (DESIGN.md, Principle 2) holds **all node
//! positions first (3 entries per node, node-major), then the n − 1 edge angles**:
//! `[x_0, y_0, z_0, …, x_{n−1}, y_{n−1}, z_{n−1}, θ_0, …, θ_{n−2}]` ([`RodDofs`]). Why:
//! - node i sits at offset 3 i exactly as for cloth and solids, so the contact code (Assumption 1
//!   of 004: colliding points are combinations of 3D nodal DOFs), the mass vector and the
//!   positions `Vec<Vector3>` all index rods the same way as other nodal bodies;
//! - with quasistatic twist the angles are not unknowns: the body's range simply ends after the
//!   positions, nothing is re-indexed;
//! - interleaving (`[x_0, θ_0, x_1, θ_1, …]`) would make a rod's matrix banded (half-bandwidth 10)
//!   for a banded Cholesky; the same band is one permutation away (or the fill-reducing ordering
//!   of the sparse factorization finds it).
//!
//! Local stencil order of the bend–twist kernel (11 DOFs): `[x_{i−1}, x_i, x_{i+1}, θ_{i−1}, θ_i]`
//! ([`RodDofs::bend_twist_dofs`] maps it to global indices); stretch: `[x_j, x_{j+1}]` (6).

pub mod bend_twist;
pub mod dynamic;
pub mod frames;
pub mod quasistatic;
pub mod stretch;

pub use bend_twist::BendTwistElement;
pub use dynamic::{TwistReport, TwistState, TwistStep};
pub use frames::{EdgeFrame, RodFrames};
pub use quasistatic::{TwistBoundary, quasistatic_twist};
pub use stretch::StretchElement;

use nalgebra::{Matrix2, Vector3};

/// Stiffness parameters of a rod (uniform along the rod).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RodStiffness {
    /// Stretching stiffness k_s = E A (N).
    pub stretch: f64,
    /// Bending stiffness matrix B (N m²), symmetric positive semi-definite, in the material
    /// frame basis (m1, m2).
    pub bend: Matrix2<f64>,
    /// Twisting stiffness β = G J (N m²).
    pub twist: f64,
}

impl RodStiffness {
    /// A round cross-section of radius r: k_s = E π r², B = E π r⁴/4 I₂, β = G π r⁴/2.
    pub fn circular(youngs_modulus: f64, shear_modulus: f64, radius: f64) -> RodStiffness {
        RodStiffness::elliptic(youngs_modulus, shear_modulus, radius, radius)
    }

    /// The same with the bending stiffness from its own modulus `E_b` (004's separate bending
    /// and stretching moduli): B = E_b π r⁴/4 I₂, the rest as [`Self::circular`].
    pub fn circular_with_bending(
        youngs_modulus: f64,
        bending_modulus: f64,
        shear_modulus: f64,
        radius: f64,
    ) -> RodStiffness {
        let mut s = RodStiffness::circular(youngs_modulus, shear_modulus, radius);
        s.bend *= bending_modulus / youngs_modulus;
        s
    }

    /// An elliptic cross-section with semi-axes a (along m1) and b (along m2):
    /// k_s = E π a b, B = E diag(π a³ b/4, π a b³/4), β = G π a³ b³/(a² + b²) (Saint-Venant
    /// torsion constant of an ellipse; π r⁴/2 for a = b = r).
    ///
    /// Why B₁₁ uses a³: ω_1 = κb·m2 ≠ 0 means the binormal is along m2, so the centerline bends
    /// towards m2 × t = m1, i.e. across the semi-axis a; that is resisted by the second moment of
    /// area about m2, π a³ b/4.
    pub fn elliptic(youngs_modulus: f64, shear_modulus: f64, a: f64, b: f64) -> RodStiffness {
        let pi = std::f64::consts::PI;
        RodStiffness {
            stretch: youngs_modulus * pi * a * b,
            bend: Matrix2::new(
                youngs_modulus * pi * a.powi(3) * b / 4.0,
                0.0,
                0.0,
                youngs_modulus * pi * a * b.powi(3) / 4.0,
            ),
            twist: shear_modulus * pi * a.powi(3) * b.powi(3) / (a * a + b * b),
        }
    }
}

/// Where a rod's unknowns sit in the generalized vector (see the module docs).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RodDofs {
    /// First index of the rod's range.
    pub start: usize,
    /// Number of nodes n (≥ 2); the rod has n − 1 edges.
    pub nodes: usize,
    /// Whether the edge angles are unknowns (false with quasistatic twist).
    pub with_angles: bool,
}

impl RodDofs {
    /// Index of coordinate 0 (x) of node i.
    #[inline]
    pub fn node(&self, i: usize) -> usize {
        self.start + 3 * i
    }
    /// Index of the angle of edge j (only with `with_angles`).
    #[inline]
    pub fn angle(&self, j: usize) -> usize {
        debug_assert!(self.with_angles && j + 1 < self.nodes);
        self.start + 3 * self.nodes + j
    }
    /// Number of entries of the range.
    pub fn len(&self) -> usize {
        3 * self.nodes + if self.with_angles { self.nodes - 1 } else { 0 }
    }
    /// Always false (a rod has at least 2 nodes); for clippy's `len_without_is_empty`.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
    /// Global indices of the 11 local DOFs of the bend–twist stencil at interior node i
    /// (1 ≤ i ≤ n − 2): `[x_{i−1}, x_i, x_{i+1}, θ_{i−1}, θ_i]`.
    pub fn bend_twist_dofs(&self, i: usize) -> [usize; 11] {
        let n0 = self.node(i - 1);
        let mut out = [0; 11];
        for (k, o) in out.iter_mut().take(9).enumerate() {
            *o = n0 + k;
        }
        out[9] = self.angle(i - 1);
        out[10] = self.angle(i);
        out
    }
    /// Global indices of the 6 DOFs of the stretch stencil of edge j: `[x_j, x_{j+1}]`.
    pub fn stretch_dofs(&self, j: usize) -> [usize; 6] {
        std::array::from_fn(|k| self.node(j) + k)
    }
}

/// The elements of one rod built from its rest polyline.
#[derive(Clone, Debug)]
pub struct Rod {
    pub stiffness: RodStiffness,
    /// One per edge.
    pub stretch: Vec<StretchElement>,
    /// One per interior node (node i ↔ element i − 1).
    pub bend_twist: Vec<BendTwistElement>,
}

impl Rod {
    /// Elements and initial frames for the rest polyline `rest` (≥ 2 nodes, no zero-length edge,
    /// no edge folding exactly back onto the previous one), naturally untwisted: the rest
    /// reference frames are space-parallel transported along the rod, the rest edge angles are 0,
    /// so the rest curvatures ω̄ are those of the rest shape and m̄ = 0.
    ///
    /// Returns the rod and the frames to use as the initial state (edge angles 0 with these
    /// frames reproduce the rest material frames).
    pub fn from_rest_polyline(rest: &[Vector3<f64>], stiffness: RodStiffness) -> (Rod, RodFrames) {
        let frames = RodFrames::space_parallel(rest);
        let stretch = (0..rest.len().saturating_sub(1))
            .map(|j| StretchElement::new([j, j + 1], (rest[j + 1] - rest[j]).norm()))
            .collect();
        let bend_twist = (1..rest.len().saturating_sub(1))
            .map(|i| {
                BendTwistElement::new(
                    i,
                    &[rest[i - 1], rest[i], rest[i + 1]],
                    &[frames.edges[i - 1], frames.edges[i]],
                    [0.0, 0.0],
                )
            })
            .collect();
        (Rod { stiffness, stretch, bend_twist }, frames)
    }

    /// Total elastic energy (stretch, bend, twist) of the rod: positions `x`, edge angles `theta`,
    /// frames as last updated (see [`RodFrames::update`]). For tests and diagnostics.
    pub fn energy(&self, frames: &RodFrames, x: &[Vector3<f64>], theta: &[f64]) -> f64 {
        let (s, b, t) = self.energy_parts(frames, x, theta);
        s + b + t
    }

    /// (stretch, bend, twist) energies of the whole rod.
    pub fn energy_parts(&self, frames: &RodFrames, x: &[Vector3<f64>], theta: &[f64]) -> (f64, f64, f64) {
        let s = self.stretch.iter().map(|e| e.energy(self.stiffness.stretch, &e.gather(x))).sum();
        let (mut b, mut t) = (0.0, 0.0);
        for (k, e) in self.bend_twist.iter().enumerate() {
            let i = e.node;
            let (eb, et) = e.energy_parts(
                &self.stiffness,
                &[x[i - 1], x[i], x[i + 1]],
                &[theta[i - 1], theta[i]],
                &[frames.edges[i - 1], frames.edges[i]],
                frames.reference_twist[k],
            );
            b += eb;
            t += et;
        }
        (s, b, t)
    }
}
