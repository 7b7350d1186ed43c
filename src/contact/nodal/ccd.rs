//! Continuous collision detection of vertex–triangle and edge–edge pairs over one step of
//! linear node motion, by additive CCD (Li, Kaufman, Jiang 2021, "Codimensional Incremental
//! Potential Contact", Algorithm 1): conservative advancement driven by distance evaluations.
//!
//! # Method
//! Subtract the mean displacement (distances only depend on relative motion), bound the speed at
//! which the distance can shrink by `l_p = max |p_i| + max |p_j|` over the nodes of each side
//! (every point of a primitive moves with a convex combination of its nodes' velocities), and
//! advance time by `(d₀ − ξ − g)/l_p` first and `0.9 (d − ξ)/l_p` afterwards: by the bound the
//! distance cannot reach the thickness ξ inside such a step. The pair is reported at the last
//! verified time once the gap `d − ξ` falls below `g = min(s (d₀ − ξ), max_separation)` (Li et
//! al. use `g = s (d₀ − ξ)`; the cap keeps impacts local, see [`CcdOptions::max_separation`]),
//! and as "no impact" when the advancement passes the end of the step.
//!
//! # Why additive CCD rather than cubic roots
//! - It needs only the distance functions of [`super::proximity`], and handles a thickness
//!   natively: a rod or cloth with a radius is hit when the distance reaches ξ, a condition a
//!   coplanarity cubic does not express (its roots find exact contact, zero distance).
//! - Its guarantee rests on one Lipschitz bound and on distance evaluations, which are accurate
//!   to rounding everywhere, whereas floating-point cubic solvers have documented false
//!   negatives in degenerate (coplanar, parallel) configurations (Wang et al. 2021, "A Large
//!   Scale Benchmark and an Inclusion-Based Algorithm for Continuous Collision Detection").
//! - The time of impact it returns is separated from contact by construction (the `s` margin),
//!   which is what a step-fraction line search needs; an exact root would have to be backed off.
//!
//! Its cost grows when a pair moves fast relative to its gap while staying close (sliding
//! contact): iterations are bounded by about `l_p / (0.9 g)`. An iteration cap stops it
//! there and reports an impact at the last verified time, which is still safe.
//!
//! # Guarantee
//! Up to the rounding of the distance evaluation (a few ulps of the coordinates; see
//! [`super::proximity::segment_segment`] for the nearly-parallel case): if the pair comes within
//! distance `ξ_eff` of each other at some time in [0, 1], an impact is reported at a time `t`
//! before that, and on [0, t] the distance stays above `ξ_eff`. Here `ξ_eff = ξ` when the pair
//! starts farther apart than its thickness; a pair that already starts inside its thickness
//! (a resting contact left slightly penetrating by a solver) is checked against `ξ_eff = 0`
//! instead, so CCD stops it from crossing without freezing it at time 0. At the reported time
//! the gap `d − ξ_eff` is at least `g` (up to rounding), never zero; conversely an impact is only
//! reported for a pair that comes within `ξ_eff + g` (so within `ξ + max_separation`).

use super::proximity::{point_triangle_distance2, segment_segment};

/// Settings of the additive CCD.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct CcdOptions {
    /// Fraction `s` of the initial gap that is kept at the reported time of impact. Li et al.
    /// use 0.1 to 0.2: smaller values let the step go closer to contact but take more iterations.
    pub min_separation: f64,
    /// Upper bound (m) on the gap kept at a time of impact: the kept gap is
    /// `min(s (d₀ − ξ), max_separation)`. Without it a pair far apart that merely comes within
    /// `s` of its initial gap counts as an impact, which makes impacts non-local (two primitives
    /// a metre apart that end 9 cm apart stop the step). With it, an impacting pair always
    /// comes within `ξ + max_separation`, so a broad phase inflated by that much finds every
    /// impact. Infinite (the default) is Li et al.'s plain relative rule; values that are not
    /// positive are treated as infinite.
    pub max_separation: f64,
    /// Advancement iterations after which the pair is reported at its last verified time.
    pub max_iterations: u32,
}

impl Default for CcdOptions {
    fn default() -> Self {
        // 1000 iterations cover relative motions of about 100 initial gaps at s = 0.1 (see the
        // module docs); beyond that the pair is reported, which is safe.
        CcdOptions { min_separation: 0.1, max_separation: f64::INFINITY, max_iterations: 1000 }
    }
}

/// Time of impact in [0, 1] of a vertex `x[0]` against a triangle `x[1..4]` moving linearly
/// from `x0` to `x1`, for contact distance `thickness`; `None` if they stay apart.
pub fn vertex_triangle_toi(x0: &[[f64; 3]; 4], x1: &[[f64; 3]; 4], thickness: f64, opts: &CcdOptions) -> Option<f64> {
    additive_ccd(x0, x1, thickness, opts, 1, |x| point_triangle_distance2(x[0], &[x[1], x[2], x[3]]))
}

/// Time of impact in [0, 1] of edge `x[0..2]` against edge `x[2..4]`, as
/// [`vertex_triangle_toi`].
pub fn edge_edge_toi(x0: &[[f64; 3]; 4], x1: &[[f64; 3]; 4], thickness: f64, opts: &CcdOptions) -> Option<f64> {
    additive_ccd(x0, x1, thickness, opts, 2, |x| segment_segment(x[0], x[1], x[2], x[3]).2)
}

/// Additive CCD for two primitives made of nodes `0..split` and `split..4`.
fn additive_ccd(
    x0: &[[f64; 3]; 4],
    x1: &[[f64; 3]; 4],
    thickness: f64,
    opts: &CcdOptions,
    split: usize,
    dist2: impl Fn(&[[f64; 3]; 4]) -> f64,
) -> Option<f64> {
    let finite = x0.iter().chain(x1).flatten().all(|c| c.is_finite());
    if !finite || thickness.is_nan() || thickness < 0.0 {
        // Nothing can be certified: report contact at the start.
        return Some(0.0);
    }
    let mut p = [[0.0; 3]; 4];
    let mut mean = [0.0; 3];
    for i in 0..4 {
        for k in 0..3 {
            p[i][k] = x1[i][k] - x0[i][k];
            mean[k] += 0.25 * p[i][k];
        }
    }
    for pi in &mut p {
        for k in 0..3 {
            pi[k] -= mean[k];
        }
    }
    let len = |v: &[f64; 3]| (v[0] * v[0] + v[1] * v[1] + v[2] * v[2]).sqrt();
    let side_max = |r: std::ops::Range<usize>| p[r].iter().map(len).fold(0.0, f64::max);
    let lp = side_max(0..split) + side_max(split..4);
    if lp <= 0.0 {
        // No relative motion: the distance is constant.
        return None;
    }
    let d0sq = dist2(x0);
    let d0 = d0sq.sqrt();
    if d0 <= 0.0 {
        return Some(0.0);
    }
    let xi = if d0 > thickness { thickness } else { 0.0 };
    // d − ξ written as (d² − ξ²)/(d + ξ): no cancellation when d is close to ξ.
    let gap = |dsq: f64| (dsq - xi * xi) / (dsq.sqrt() + xi);
    let s = opts.min_separation.clamp(f64::EPSILON, 1.0 - f64::EPSILON);
    let cap = if opts.max_separation > 0.0 { opts.max_separation } else { f64::INFINITY };
    let gap0 = gap(d0sq);
    let g = (s * gap0).min(cap);
    let mut t = 0.0;
    // The bound keeps the gap above g over this first step.
    let mut step = (gap0 - g) / lp;
    if step > 1.0 {
        return None;
    }
    let mut x = [[0.0; 3]; 4];
    for _ in 0..opts.max_iterations {
        let next = t + step;
        for i in 0..4 {
            for k in 0..3 {
                x[i][k] = x0[i][k] + next * p[i][k];
            }
        }
        let h = gap(dist2(&x));
        // The first step is certified by the bound alone (rounding may put `h` a hair under
        // `g`); only a contradiction of the bound (h <= 0) stops it.
        if h < g && (t > 0.0 || h <= 0.0) {
            return Some(t);
        }
        t = next;
        if t > 1.0 {
            return None;
        }
        step = 0.9 * h / lp;
    }
    Some(t)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::contact::nodal::proximity::point_triangle_distance2;

    const TRI: [[f64; 3]; 3] = [[0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0]];

    fn vt(v0: [f64; 3], v1: [f64; 3]) -> ([[f64; 3]; 4], [[f64; 3]; 4]) {
        ([v0, TRI[0], TRI[1], TRI[2]], [v1, TRI[0], TRI[1], TRI[2]])
    }

    #[test]
    fn falling_vertex_stops_before_the_thickness() {
        let opts = CcdOptions::default();
        let (a, b) = vt([0.2, 0.2, 1.0], [0.2, 0.2, -1.0]);
        let t = vertex_triangle_toi(&a, &b, 0.1, &opts).unwrap();
        // Contact at z = 0.1, i.e. t = 0.45; the gap kept is at least s (1 − 0.1) = 0.09.
        let z = 1.0 - 2.0 * t;
        assert!(z - 0.1 >= 0.09 * (1.0 - 1e-12) && t > 0.3, "t = {t}, z = {z}");
        // Moving away, or staying clear: no impact.
        let (a, b) = vt([0.2, 0.2, 1.0], [0.2, 0.2, 3.0]);
        assert_eq!(vertex_triangle_toi(&a, &b, 0.1, &opts), None);
        let (a, b) = vt([0.2, 0.2, 1.0], [0.2, 0.2, 0.2]);
        assert_eq!(vertex_triangle_toi(&a, &b, 0.1, &opts), None);
        // No motion at all.
        assert_eq!(vertex_triangle_toi(&a, &a, 0.1, &opts), None);
    }

    #[test]
    fn tunnelling_and_touching() {
        let opts = CcdOptions::default();
        // Through the triangle in one step at 1e5 times the gap.
        let (a, b) = vt([0.1, 0.1, 1e-3], [0.1, 0.1, -100.0]);
        let t = vertex_triangle_toi(&a, &b, 0.0, &opts).unwrap();
        assert!(t < 1e-5 && 1e-3 - (1e-3 + 100.0) * t > 0.0);
        // Already touching: impact at 0.
        let (a, b) = vt([0.1, 0.1, 0.0], [0.1, 0.1, -1.0]);
        assert_eq!(vertex_triangle_toi(&a, &b, 0.0, &opts), Some(0.0));
        // Starting inside the thickness: only crossing is stopped.
        let (a, b) = vt([0.2, 0.2, 0.05], [0.2, 0.2, 0.06]);
        assert_eq!(vertex_triangle_toi(&a, &b, 0.1, &opts), None);
        let (a, b) = vt([0.2, 0.2, 0.05], [0.2, 0.2, -0.05]);
        let t = vertex_triangle_toi(&a, &b, 0.1, &opts).unwrap();
        assert!(t < 0.5 && 0.05 - 0.1 * t >= 0.1 * 0.05 * (1.0 - 1e-12));
        // Non-finite input cannot be certified.
        let (a, b) = vt([f64::NAN, 0.2, 0.05], [0.2, 0.2, -0.05]);
        assert_eq!(vertex_triangle_toi(&a, &b, 0.1, &opts), Some(0.0));
    }

    #[test]
    fn grazing_vertex_and_sliding_edges() {
        let opts = CcdOptions::default();
        // Passing over the triangle just below and just above the thickness.
        for (h, hit) in [(0.1 * (1.0 - 1e-9), true), (0.3, false)] {
            let (a, b) = vt([-1.0, 0.3, h], [2.0, 0.3, h]);
            assert_eq!(vertex_triangle_toi(&a, &b, 0.1, &opts).is_some(), hit, "h = {h}");
            assert_eq!(point_triangle_distance2([0.2, 0.3, h], &TRI).sqrt(), h);
        }
        // Parallel edges sliding past each other: clear of the thickness and of the s margin
        // (gap 0.35 > 0.1 x initial gap), then inside the thickness.
        let e0 = [[0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [-3.0, 0.5, 0.0], [-2.0, 0.5, 0.0]];
        let e1 = [[0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [3.0, 0.5, 0.0], [4.0, 0.5, 0.0]];
        assert_eq!(edge_edge_toi(&e0, &e1, 0.15, &opts), None);
        let (mut c0, mut c1) = (e0, e1);
        for k in 2..4 {
            (c0[k][1], c1[k][1]) = (0.1, 0.1);
        }
        let t = edge_edge_toi(&c0, &c1, 0.15, &opts).unwrap();
        assert!(t > 0.0 && t < 0.5);
        // Crossing edges tunnelling through each other.
        let a = [[0.0, 0.0, 1.0], [1.0, 0.0, 1.0], [0.5, -0.5, 0.0], [0.5, 0.5, 0.0]];
        let b = [[0.0, 0.0, -1.0], [1.0, 0.0, -1.0], [0.5, -0.5, 0.0], [0.5, 0.5, 0.0]];
        let t = edge_edge_toi(&a, &b, 0.0, &opts).unwrap();
        assert!(t < 0.5 && 1.0 - 2.0 * t >= 0.1 * (1.0 - 1e-12));
    }

    #[test]
    fn max_separation_keeps_impacts_local() {
        // From 1 m to 5 cm above the face: within s = 0.1 of the initial gap, far from contact.
        let (a, b) = vt([0.2, 0.2, 1.0], [0.2, 0.2, 0.05]);
        assert!(vertex_triangle_toi(&a, &b, 0.0, &CcdOptions::default()).is_some());
        let capped = CcdOptions { max_separation: 0.01, ..CcdOptions::default() };
        assert_eq!(vertex_triangle_toi(&a, &b, 0.0, &capped), None);
        // Falling through: stopped with a gap between the cap and ten times it (the last
        // advancement covers at most 90 % of the gap).
        let (a, b) = vt([0.2, 0.2, 1.0], [0.2, 0.2, -1.0]);
        let t = vertex_triangle_toi(&a, &b, 0.0, &capped).unwrap();
        let z = 1.0 - 2.0 * t;
        assert!((0.01 * (1.0 - 1e-12)..0.1).contains(&z), "z = {z}");
    }

    #[test]
    fn iteration_cap_reports_a_safe_time() {
        // Sliding fast at a tiny gap: more iterations than allowed, reported early (safe).
        let opts = CcdOptions { max_iterations: 5, ..CcdOptions::default() };
        let (a, b) = vt([0.1, 0.1, 0.1 + 1e-6], [0.3, 0.3, 0.1 + 1e-6]);
        let t = vertex_triangle_toi(&a, &b, 0.1, &opts).unwrap();
        assert!(t > 0.0 && t < 1e-3);
    }
}
