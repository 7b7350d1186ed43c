//! Quasistatic twist (004 §7.4, the ADMM hair demo): the edge angles are not unknowns but are set,
//! for given positions, to the minimizer of the rod's twist energy
//! Σ_i β/(2 ℓ_i) (θ_i − θ_{i−1} + m_ref,i − m̄_i)².
//!
//! Write c_i = m_ref,i − m̄_i and m_i = θ_i − θ_{i−1} + c_i (the twist at interior node i):
//! - **free tip** (root angle prescribed, tip free): every m_i = 0 is reachable, so
//!   θ_i = θ_{i−1} − c_i and the twist energy is 0;
//! - **both ends clamped**: Σ_i m_i = T := θ_tip − θ_root + Σ_i c_i is fixed; minimizing
//!   Σ β m_i²/(2 ℓ_i) under that constraint gives m_i = ℓ_i T / L with L = Σ ℓ_i (uniform twist
//!   per unit length) and the energy β T²/(2 L).
//!
//! Only the twist energy is minimized. That is exact for isotropic B and naturally straight rods
//! (then the bending energy does not depend on θ); with natural curvature or an elliptic
//! section the bending energy also depends on θ and this is the usual approximation (as in 004's
//! quasistatic-twist demo). By the envelope theorem the positional gradient of the reduced energy is the
//! bend–twist gradient evaluated at these angles (position block only).

use super::{Rod, RodFrames};

/// How the ends of a rod hold its material frame.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum TwistBoundary {
    /// The root edge's angle is prescribed, the tip is free.
    FreeTip { root_angle: f64 },
    /// Both the first and the last edge's angles are prescribed.
    Clamped { root_angle: f64, tip_angle: f64 },
}

/// The edge angles minimizing the twist energy for the current frames (call
/// [`RodFrames::update`] first so that `frames.reference_twist` belongs to the current
/// positions), and that minimal twist energy (J). O(n), no solve.
pub fn quasistatic_twist(rod: &Rod, frames: &RodFrames, boundary: TwistBoundary) -> (Vec<f64>, f64) {
    let n_edges = frames.edges.len();
    let c: Vec<f64> =
        rod.bend_twist.iter().zip(&frames.reference_twist).map(|(el, m_ref)| m_ref - el.rest_twist).collect();
    let mut theta = vec![0.0; n_edges];
    if n_edges == 0 {
        return (theta, 0.0);
    }
    let beta = rod.stiffness.twist;
    match boundary {
        TwistBoundary::FreeTip { root_angle } => {
            theta[0] = root_angle;
            for i in 1..n_edges {
                theta[i] = theta[i - 1] - c[i - 1];
            }
            (theta, 0.0)
        }
        TwistBoundary::Clamped { root_angle, tip_angle } => {
            let total: f64 = tip_angle - root_angle + c.iter().sum::<f64>();
            let length: f64 = rod.bend_twist.iter().map(|el| el.voronoi_length()).sum();
            theta[0] = root_angle;
            if length == 0.0 {
                // A single edge: nothing to twist.
                return (theta, 0.0);
            }
            for i in 1..n_edges {
                let m = rod.bend_twist[i - 1].voronoi_length() * total / length;
                theta[i] = theta[i - 1] + m - c[i - 1];
            }
            // Set the tip exactly (the recursion reaches it up to round-off).
            theta[n_edges - 1] = tip_angle;
            (theta, 0.5 * beta * total * total / length)
        }
    }
}
