//! Per-vertex animation of a triangle mesh: the vertex positions of a sequence of frames with one
//! topology, played at `fps` frames per second and interpolated in time.
//!
//! Frame `k` is shown at `t = k / fps`. Before the first frame and after the last the mesh holds
//! still, unless the animation loops, when frame `n` is frame 0 again (a loop's last frame should
//! lead back into its first). Between frames the positions are interpolated linearly, or by the
//! uniform Catmull–Rom spline through the frames (`Smooth`: C¹, so velocities are continuous;
//! ends clamped by repeating the end frame). A step moves every animated point with its mean
//! velocity over the step, `(x(t + h) - x(t)) / h`, as scripted motions do, so it lands on its
//! path at the end of every step.
//!
//! The positions may instead come from a skinned mesh played by a glTF clip
//! (`super::skinning`), which keeps its own key times and interpolation.

use super::skinning::SkinnedMesh;
use nalgebra::Vector3;

/// How positions between frames are made.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Serialize, serde::Deserialize)]
pub enum Interpolation {
    /// Straight lines between consecutive frames.
    #[default]
    Linear,
    /// The uniform Catmull–Rom spline through the frames.
    Smooth,
}

#[derive(Debug, Clone, PartialEq)]
pub struct VertexAnimation {
    source: Source,
    /// The positions at t = 0 (the mesh where the scene places it).
    first: Vec<Vector3<f64>>,
}

#[derive(Debug, Clone, PartialEq)]
enum Source {
    Frames(Frames),
    Skinned(Box<SkinnedMesh>),
}

/// A sequence of frames.
#[derive(Debug, Clone, PartialEq)]
struct Frames {
    /// Vertex positions of every frame (at least one), all of one length.
    frames: Vec<Vec<Vector3<f64>>>,
    fps: f64,
    looped: bool,
    interpolation: Interpolation,
}

impl VertexAnimation {
    /// An animation of `frames` (non-empty, equal lengths: the reader checks both).
    pub fn new(frames: Vec<Vec<Vector3<f64>>>, fps: f64, looped: bool, interpolation: Interpolation) -> Self {
        debug_assert!(!frames.is_empty() && frames.iter().all(|f| f.len() == frames[0].len()));
        let first = frames[0].clone();
        VertexAnimation { source: Source::Frames(Frames { frames, fps, looped, interpolation }), first }
    }

    /// A skinned mesh played by its clip.
    pub fn skinned(mesh: SkinnedMesh) -> Self {
        let mut first = Vec::new();
        mesh.positions(0.0, &mut first);
        VertexAnimation { source: Source::Skinned(Box::new(mesh)), first }
    }

    pub fn vertex_count(&self) -> usize {
        self.first.len()
    }

    /// What plays, in a few words (`fricsim check`).
    pub fn describe(&self) -> String {
        match &self.source {
            Source::Frames(f) => format!("{} frames of {} vertices at {} fps", f.frames.len(), self.first.len(), f.fps),
            Source::Skinned(s) => format!(
                "{} vertices skinned to {} joints, clip {} of {:.3} s",
                self.first.len(),
                s.joint_count(),
                s.clip.name,
                s.clip.end - s.clip.start
            ),
        }
    }

    /// The positions at t = 0 (the mesh where the scene places it).
    pub fn first(&self) -> &[Vector3<f64>] {
        &self.first
    }

    /// Vertex positions at time `t` into `out` (resized).
    pub fn positions(&self, t: f64, out: &mut Vec<Vector3<f64>>) {
        match &self.source {
            Source::Frames(f) => f.positions(t, out),
            Source::Skinned(s) => s.positions(t, out),
        }
    }

    /// Positions at `t` and the mean velocities over the step `[t, t + h]`.
    pub fn step(&self, t: f64, h: f64) -> (Vec<Vector3<f64>>, Vec<Vector3<f64>>) {
        let (mut x0, mut x1) = (Vec::new(), Vec::new());
        self.positions(t, &mut x0);
        self.positions(t + h, &mut x1);
        let v = x0.iter().zip(&x1).map(|(a, b)| (b - a) / h).collect();
        (x0, v)
    }
}

impl Frames {
    fn vertex_count(&self) -> usize {
        self.frames[0].len()
    }

    /// The frame index `k` wrapped into range (looped) or clamped to it.
    fn frame(&self, k: isize) -> &[Vector3<f64>] {
        let n = self.frames.len() as isize;
        let i = if self.looped { k.rem_euclid(n) } else { k.clamp(0, n - 1) };
        &self.frames[i as usize]
    }

    /// Vertex positions at time `t` into `out` (resized).
    fn positions(&self, t: f64, out: &mut Vec<Vector3<f64>>) {
        let n = self.frames.len();
        out.resize(self.vertex_count(), Vector3::zeros());
        let mut s = t * self.fps;
        if !self.looped {
            s = s.clamp(0.0, (n - 1) as f64);
        }
        let k = s.floor();
        let a = s - k;
        let k = k as isize;
        let (p1, p2) = (self.frame(k), self.frame(k + 1));
        match self.interpolation {
            Interpolation::Linear => {
                for (o, (x1, x2)) in out.iter_mut().zip(p1.iter().zip(p2)) {
                    *o = x1 + a * (x2 - x1);
                }
            }
            Interpolation::Smooth => {
                let (p0, p3) = (self.frame(k - 1), self.frame(k + 2));
                let (a2, a3) = (a * a, a * a * a);
                // Catmull–Rom basis: the curve passes through p1 at a = 0 and p2 at a = 1 with
                // tangents (p2 - p0) / 2 and (p3 - p1) / 2.
                let w = [
                    0.5 * (-a + 2.0 * a2 - a3),
                    0.5 * (2.0 - 5.0 * a2 + 3.0 * a3),
                    0.5 * (a + 4.0 * a2 - 3.0 * a3),
                    0.5 * (-a2 + a3),
                ];
                for (i, o) in out.iter_mut().enumerate() {
                    *o = w[0] * p0[i] + w[1] * p1[i] + w[2] * p2[i] + w[3] * p3[i];
                }
            }
        }
    }
}

/// Points riding on an animated surface (a kinematic region following an animated mesh): each
/// point is bound at t = 0 to its nearest point on the first frame (a triangle and barycentric
/// weights) and keeps its offset from it, in world axes. Points on the surface (offset zero)
/// follow it exactly; a region a little off it keeps that gap.
#[derive(Debug, Clone)]
pub struct Embedding {
    animation: std::sync::Arc<VertexAnimation>,
    triangles: Vec<[usize; 3]>,
    /// Per point: triangle, weights, offset.
    bound: Vec<(usize, [f64; 3], Vector3<f64>)>,
}

impl Embedding {
    /// Binds `points` to the surface of `animation`'s first frame (triangles `triangles`).
    pub fn new(
        animation: std::sync::Arc<VertexAnimation>,
        triangles: Vec<[usize; 3]>,
        points: &[Vector3<f64>],
    ) -> Self {
        use crate::contact::point_triangle::{closest_feature, closest_point};
        let first = animation.first();
        let corners = |t: &[usize; 3]| t.map(|i| [first[i].x, first[i].y, first[i].z]);
        let tree = crate::rigid::mesh_distance::TriangleTree::new(first, &triangles);
        let bound = points
            .iter()
            .map(|p| {
                let x = [p.x, p.y, p.z];
                let k = tree.nearest(x).expect("an animated mesh has triangles");
                let c = corners(&triangles[k]);
                let near = Vector3::from(closest_point(closest_feature(x, &c).0, x, &c));
                let w = barycentric(&near, &c.map(Vector3::from));
                (k, w, p - near)
            })
            .collect();
        Embedding { animation, triangles, bound }
    }

    /// The points' positions at time `t`.
    pub fn positions(&self, t: f64, work: &mut Vec<Vector3<f64>>) -> Vec<Vector3<f64>> {
        self.animation.positions(t, work);
        self.bound
            .iter()
            .map(|(k, w, offset)| {
                let tri = self.triangles[*k];
                w[0] * work[tri[0]] + w[1] * work[tri[1]] + w[2] * work[tri[2]] + offset
            })
            .collect()
    }
}

/// Barycentric weights of a point `c` of the plane of triangle `t` (a degenerate triangle gives
/// its first corner).
pub fn barycentric(c: &Vector3<f64>, t: &[Vector3<f64>; 3]) -> [f64; 3] {
    let (e1, e2, d) = (t[1] - t[0], t[2] - t[0], c - t[0]);
    let (a, b, cc) = (e1.dot(&e1), e1.dot(&e2), e2.dot(&e2));
    let det = a * cc - b * b;
    if det <= f64::EPSILON * a * cc {
        return [1.0, 0.0, 0.0];
    }
    let (p, q) = (d.dot(&e1), d.dot(&e2));
    let (u, w) = ((cc * p - b * q) / det, (a * q - b * p) / det);
    [1.0 - u - w, u, w]
}

#[cfg(test)]
mod tests {
    use super::*;

    fn line(frames: &[f64]) -> Vec<Vec<Vector3<f64>>> {
        frames.iter().map(|&x| vec![Vector3::new(x, 0.0, 0.0), Vector3::new(0.0, x * x, 0.0)]).collect()
    }

    /// Frames are hit exactly at their times; linear interpolation is linear in between; outside
    /// the range the ends hold, or the loop wraps back to frame 0 after the last.
    #[test]
    fn frames_are_hit_and_the_ends_hold_or_wrap() {
        let frames = line(&[0.0, 1.0, 3.0]);
        let mut out = Vec::new();
        for interpolation in [Interpolation::Linear, Interpolation::Smooth] {
            let a = VertexAnimation::new(frames.clone(), 10.0, false, interpolation);
            for (k, f) in frames.iter().enumerate() {
                a.positions(k as f64 / 10.0, &mut out);
                assert!((out[0] - f[0]).norm() < 1e-14 && (out[1] - f[1]).norm() < 1e-14);
            }
            for t in [-1.0, 0.2, 5.0] {
                a.positions(t, &mut out);
                let held = if t < 0.0 { 0.0 } else { 3.0 };
                assert_eq!(out[0].x, held);
            }
            let l = VertexAnimation::new(frames.clone(), 10.0, true, interpolation);
            l.positions(0.3, &mut out);
            assert!(out[0].x.abs() < 1e-14, "frame 3 of a 3-frame loop is frame 0");
        }
        let a = VertexAnimation::new(frames, 10.0, false, Interpolation::Linear);
        a.positions(0.125, &mut out);
        assert!((out[0].x - (1.0 + 0.25 * 2.0)).abs() < 1e-14);
    }

    /// The Catmull–Rom spline reproduces a quadratic motion sampled at frames exactly in the
    /// interior intervals (it is exact on polynomials of degree two), and its velocity is
    /// continuous across a frame where the linear one jumps.
    #[test]
    fn smooth_interpolation_is_exact_on_quadratics_and_c1() {
        let times: Vec<f64> = (0..6).map(|k| k as f64).collect();
        let frames: Vec<Vec<Vector3<f64>>> = times.iter().map(|&s| vec![Vector3::new(s * s, 2.0 * s, 1.0)]).collect();
        let a = VertexAnimation::new(frames.clone(), 1.0, false, Interpolation::Smooth);
        let mut out = Vec::new();
        for s in [1.25, 2.5, 3.75] {
            a.positions(s, &mut out);
            assert!((out[0] - Vector3::new(s * s, 2.0 * s, 1.0)).norm() < 1e-12, "{s}: {}", out[0]);
        }
        let speed = |anim: &VertexAnimation, t: f64| {
            let h = 1e-6;
            let (_, v) = anim.step(t, h);
            v[0].x
        };
        let lin = VertexAnimation::new(frames, 1.0, false, Interpolation::Linear);
        // Across frame 3: the spline's speed 2 s = 6 on both sides; the linear one 5 then 7.
        assert!((speed(&a, 3.0 - 1e-3) - speed(&a, 3.0 + 1e-3)).abs() < 1e-2);
        assert!((speed(&lin, 3.0 - 1e-3) - speed(&lin, 3.0 + 1e-3)).abs() > 1.9);
    }
}
