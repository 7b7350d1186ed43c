//! Reference frames of rod edges: parallel transport, time-parallel update and reference twist.

use nalgebra::Vector3;

use crate::contact::vec3::{Scalar, V3, add, cross, dot, scale};

/// The reference frame of one edge as stored between updates: unit tangent t and unit director
/// u ⊥ t (the third axis is v = t × u).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct EdgeFrame {
    pub tangent: Vector3<f64>,
    pub director: Vector3<f64>,
}

impl EdgeFrame {
    /// v = t × u.
    #[inline]
    pub fn binormal(&self) -> Vector3<f64> {
        self.tangent.cross(&self.director)
    }

    /// This frame moved to the new unit tangent `t` by the minimal rotation (time-parallel
    /// transport, Bergou 2010 §4): the frame does not spin about the tangent.
    pub fn transported(&self, t: &Vector3<f64>) -> EdgeFrame {
        let u = transport(self.tangent.into(), (*t).into(), self.director.into());
        // Re-orthonormalize: round-off would otherwise accumulate over many steps.
        let u = Vector3::from(u);
        let u = (u - t * t.dot(&u)).normalize();
        EdgeFrame { tangent: *t, director: u }
    }

    /// The material frame (m1, m2) for edge angle θ: the reference frame rotated about t by θ.
    pub fn material(&self, theta: f64) -> (Vector3<f64>, Vector3<f64>) {
        let (s, c) = theta.sin_cos();
        let v = self.binormal();
        (self.director * c + v * s, -self.director * s + v * c)
    }

    /// The edge angle θ for which the material director m1 equals `m1` (projected onto the
    /// plane ⊥ t): the inverse of [`Self::material`]. Used to carry a material frame over a frame
    /// update (e.g. a rigid rotation of the whole rod).
    pub fn angle_of(&self, m1: &Vector3<f64>) -> f64 {
        m1.dot(&self.binormal()).atan2(m1.dot(&self.director))
    }
}

/// Parallel transport of `u` from unit vector `a` to unit vector `b`: the rotation about a × b
/// taking a to b (Rodrigues with axis n = a × b, |n| = sin φ, c = cos φ = a·b):
/// P u = c u + n × u + (n·u)/(1 + c) n. Rational in a, b, u, hence smooth and cheap under AD;
/// singular only for b = −a (an edge reversing its direction in one step or within one hinge).
#[inline]
pub fn transport<T: Scalar>(a: V3<T>, b: V3<T>, u: V3<T>) -> V3<T> {
    let n = cross(a, b);
    let c = dot(a, b);
    let k = dot(n, u) / (c + 1.0);
    add(add(scale(u, c), cross(n, u)), scale(n, k))
}

/// The signed angle about `t1` from `a` (already ⊥ t1) to `b` (⊥ t1), in (−π, π], then moved by a
/// multiple of 2π to lie within π of `hint`. Why the hint: the reference twist is a continuous
/// quantity (it can exceed π in a strongly twisted rod), while atan2 only knows it modulo 2π.
#[inline]
pub fn signed_angle<T: Scalar>(a: V3<T>, b: V3<T>, t1: V3<T>, hint: f64) -> T {
    let ang = dot(cross(a, b), t1).atan2(dot(a, b));
    let tau = std::f64::consts::TAU;
    ang + ((hint - ang.re()) / tau).round() * tau
}

/// Reference twist m_ref at the node between edges 0 and 1: the angle about t1 from the
/// space-parallel transport of u0 (from t0 to t1) to u1.
#[inline]
pub fn reference_twist<T: Scalar>(t0: V3<T>, u0: V3<T>, t1: V3<T>, u1: V3<T>, hint: f64) -> T {
    signed_angle(transport(t0, t1, u0), u1, t1, hint)
}

/// The reference frames of a rod (state: changed by every update) and the reference twist at each
/// interior node (node i ↔ `reference_twist[i − 1]`).
#[derive(Clone, Debug, PartialEq)]
pub struct RodFrames {
    pub edges: Vec<EdgeFrame>,
    pub reference_twist: Vec<f64>,
}

impl RodFrames {
    /// Space-parallel frames along the polyline `x`: edge 0 gets a director ⊥ t_0 (built from the
    /// coordinate axis least aligned with t_0, so it is well conditioned), every next edge the
    /// parallel transport of the previous director. All reference twists are then 0.
    pub fn space_parallel(x: &[Vector3<f64>]) -> RodFrames {
        let mut edges: Vec<EdgeFrame> = Vec::with_capacity(x.len().saturating_sub(1));
        for j in 0..x.len().saturating_sub(1) {
            let t = (x[j + 1] - x[j]).normalize();
            let frame = match edges.last() {
                None => {
                    let k = t.iamin();
                    let axis = Vector3::from_fn(|r, _| if r == k { 1.0 } else { 0.0 });
                    EdgeFrame { tangent: t, director: t.cross(&axis).normalize() }
                }
                Some(prev) => prev.transported(&t),
            };
            edges.push(frame);
        }
        let reference_twist = vec![0.0; edges.len().saturating_sub(1)];
        RodFrames { edges, reference_twist }
    }

    /// Time-parallel update to the positions `x`: every edge frame is transported from its old
    /// tangent to the new one, and the reference twists are recomputed (continuous in time: each
    /// new value is taken on the 2π branch nearest the old one). Call once per accepted step (or
    /// per Newton iterate); the kernels are exact for any stored frames, so this only keeps the
    /// transport rotations small.
    pub fn update(&mut self, x: &[Vector3<f64>]) {
        for (j, f) in self.edges.iter_mut().enumerate() {
            *f = f.transported(&(x[j + 1] - x[j]).normalize());
        }
        for (k, m) in self.reference_twist.iter_mut().enumerate() {
            let (a, b) = (&self.edges[k], &self.edges[k + 1]);
            *m = reference_twist::<f64>(a.tangent.into(), a.director.into(), b.tangent.into(), b.director.into(), *m);
        }
    }
}
