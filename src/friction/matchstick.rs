//! The Matchstick anisotropic friction law (003, Erleben et al.): a per-contact elliptic
//! Coulomb cone whose shape and orientation come from the two surfaces' structure directions.
//!
//! Parameters belong to the **material pair** (003 §3.1, Algorithm 1; §5.1: "we treat the
//! physical coefficients depending on the pair-wise material types and separate only the
//! structure ... into our maps"): `mu` for orthogonal structures (isotropic) and
//! `mu_t <= mu_b` for parallel structures (the extreme ellipse; `t` along the common structure,
//! the direction of least resistance). Each surface contributes only its structure direction.
//!
//! The generator (Algorithm 1 with the corrections of the digest of 003):
//!
//! 1. Each structure direction is normalized and projected onto the contact's tangent plane
//!    (003 §3: `s_A, s_B` are "in coordinates of the tangent plane of the common frame"), then
//!    renormalized. One that is absent, zero, not finite, or within
//!    [`MIN_TANGENTIAL_FRACTION`] of the normal has no tangential structure.
//! 2. `s_B` is flipped if `s_A · s_B < 0` (Alg. 1 lines 1–3: only the axis matters).
//! 3. `theta = angle(s_A, s_B)` in [0, π/2] and `d = 1 − 2 theta / π` (eq. 5). `theta` is
//!    computed as `atan2(|s_A × s_B|, s_A · s_B)`, which is exact near 0 where `acos` loses half
//!    the digits.
//! 4. `mu_t' = d mu_t + (1 − d) mu`, `mu_b' = d mu_b + (1 − d) mu` (eqs. 10, 11).
//! 5. The cone is `(f_t / mu_t')² + (f_b / mu_b')² <= f_n²` (eq. 12 / 13 with the squares and
//!    subscripts the print lost, as in eq. 6 and A.11): [`Cone::elliptic`]`(mu_t', mu_b')`.
//! 6. `t = (s_A + s_B) / |s_A + s_B|` (eq. 7) and `b = n × t` (eq. 8): frame columns `(n, t, b)`,
//!    right-handed for the normal the caller passes. `t` is the **low**-friction axis (the
//!    short axis of the force ellipse; the paper's "major axis" wording contradicts its own
//!    `mu_t^A <= mu_b^A`).
//!
//! **One structured side.** When exactly one surface has a tangential structure (step 1), it
//! sets the anisotropy alone: the cone is the full ellipse `(mu_t, mu_b)` with `t` along it —
//! 003 §6: a zero field makes "only the object with the non-zero structure determine the
//! anisotropy", read as eq. 5 with `s_B = s_A` (`d = 1`). Eq. 5 taken literally (and the
//! authors' supplementary code [Erl19]) would give the isotropic cone instead (`theta = π/2`,
//! `d = 0`); that would make a hair or a grooved plank isotropic against any plain surface,
//! which is not what §6 or its Fig. 10 (a zero-structure sphere on a structured surface) show.
//! With neither side structured the cone is the isotropic `mu`.
//!
//! **Isotropic results use the canonical frame.** Whenever the resolved cone is isotropic
//! (`mu_t' == mu_b'`: orthogonal structures, no structure, or a pair with `mu_t == mu_b`), the
//! frame is the contact's default frame `(n, tangent_basis(n))`, not one built from the
//! structure. The orientation of an isotropic cone is irrelevant to the physics; using the
//! default frame makes such a contact bit-for-bit the plain isotropic contact.

use nalgebra::{Matrix3, Vector3};

use super::cone::{Cone, InvalidCone, hyp};
use crate::rigid::shape::tangent_basis;

/// A structure direction whose tangential part is shorter than this fraction of its length is
/// treated as absent: it is within 1e-6 rad (6e-5 degrees) of the normal, and the direction of its
/// projection would be set by round-off (relative error ~1e-16 / 1e-6 = 1e-10 at the limit).
pub const MIN_TANGENTIAL_FRACTION: f64 = 1e-6;

/// Why a friction law could not be built.
#[derive(Debug, thiserror::Error, PartialEq)]
pub enum MatchstickError {
    #[error("invalid matchstick coefficients (mu = {mu}, mu_t = {mu_t}, mu_b = {mu_b}): {reason}")]
    InvalidCoefficients { mu: f64, mu_t: f64, mu_b: f64, reason: &'static str },
    #[error(
        "an elliptic friction cone (mu_t = {mu_t}, mu_b = {mu_b}) needs an axis, but {axis:?} is zero, not \
         finite or parallel to the contact normal"
    )]
    NoAxis { axis: [f64; 3], mu_t: f64, mu_b: f64 },
    #[error(transparent)]
    Cone(#[from] InvalidCone),
}

/// The three coefficients of a material pair (003 Algorithm 1 "Data").
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct MatchstickPair {
    mu: f64,
    mu_t: f64,
    mu_b: f64,
}

/// The friction law resolved for one contact: the frame and the cone in it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ResolvedFriction {
    /// Columns `(n, t, b)`: right-handed orthonormal, `n` the contact normal as given, `t` the
    /// axis of `cone.mu_t`, `b = n × t` the axis of `cone.mu_b`.
    pub frame: Matrix3<f64>,
    pub cone: Cone,
}

impl MatchstickPair {
    /// `mu`: friction between orthogonal structures (isotropic); `mu_t <= mu_b`: friction along
    /// and across the common structure when the structures are parallel.
    ///
    /// All must be finite and >= 0, `mu_t <= mu_b` (the structure is the direction of least
    /// resistance, 003 §3.1), and `mu_t > 0` when `mu_t < mu_b` (an ellipse with a zero axis
    /// is not a cone the solvers can scale).
    pub fn new(mu: f64, mu_t: f64, mu_b: f64) -> Result<Self, MatchstickError> {
        let err = |reason| Err(MatchstickError::InvalidCoefficients { mu, mu_t, mu_b, reason });
        if ![mu, mu_t, mu_b].iter().all(|c| c.is_finite() && *c >= 0.0) {
            return err("every coefficient must be a finite number >= 0");
        }
        if mu_t > mu_b {
            return err("mu_t (along the structure) must not exceed mu_b (across it): the structure direction is the \
                 direction of least resistance; swap them, or turn the structure by 90 degrees");
        }
        if mu_t == 0.0 && mu_b > 0.0 {
            return err("mu_t must be > 0 when mu_b > 0 (an elliptic cone needs two positive semi-axes)");
        }
        Ok(MatchstickPair { mu, mu_t, mu_b })
    }

    /// A pair without anisotropy: every contact gets the isotropic cone `mu`.
    pub fn isotropic(mu: f64) -> Result<Self, MatchstickError> {
        Self::new(mu, mu, mu)
    }

    pub fn mu(&self) -> f64 {
        self.mu
    }

    pub fn mu_t(&self) -> f64 {
        self.mu_t
    }

    pub fn mu_b(&self) -> f64 {
        self.mu_b
    }

    /// The cone at alignment `d` (eqs. 10, 11; `d` clamped to [0, 1], NaN taken as 0): `d = 1`
    /// gives exactly `(mu_t, mu_b)`, `d = 0` exactly the isotropic `mu`.
    pub fn cone_at(&self, d: f64) -> Cone {
        let d = if d.is_nan() { 0.0 } else { d.clamp(0.0, 1.0) };
        let (mu_t, mu_b) = (lerp(self.mu, self.mu_t, d), lerp(self.mu, self.mu_b, d));
        // Valid by construction: both are convex combinations of valid coefficients, equal
        // when the ends are equal, and both > 0 unless d = 0 or all ends are 0 (new()).
        debug_assert!(Cone::elliptic(mu_t, mu_b).is_ok(), "{self:?} at d = {d}");
        Cone { mu_t, mu_b }
    }

    /// Eq. 5 as printed (Algorithm 1): isotropic unless both sides have a tangential structure.
    fn resolve_both(
        &self,
        normal: &Vector3<f64>,
        s_a: Option<&Vector3<f64>>,
        s_b: Option<&Vector3<f64>>,
    ) -> ResolvedFriction {
        let (Some(a), Some(b)) = (tangential(normal, s_a), tangential(normal, s_b)) else {
            return ResolvedFriction::in_default_frame(normal, self.cone_at(0.0));
        };
        let b = if a.dot(&b) < 0.0 { -b } else { b };
        let cone = self.cone_at(alignment(&a, &b));
        if cone.is_isotropic() {
            return ResolvedFriction::in_default_frame(normal, cone);
        }
        // |a + b| >= sqrt(2) for unit tangents with a . b >= 0; re-projecting removes the
        // round-off of the two earlier projections.
        let t = a + b;
        let t = (t - normal * normal.dot(&t)).normalize();
        ResolvedFriction { frame: frame_from_tangent(normal, &t), cone }
    }
}

impl MatchstickPair {
    /// The law at one contact with unit normal `normal` and the two surfaces' structure
    /// directions in world coordinates (any length; `None` when a surface has no structure):
    /// both structured, Algorithm 1; one structured, the full ellipse along it; neither, the
    /// isotropic `mu` in the default frame (module documentation).
    ///
    /// `normal` may point either way (the paper's n points from A to B, fricsim's rigid
    /// contacts from B to A): the coefficients do not depend on it, the frame's first column is
    /// exactly `normal`, and `b = normal × t` keeps the frame right-handed.
    pub fn resolve(
        &self,
        normal: &Vector3<f64>,
        s_a: Option<&Vector3<f64>>,
        s_b: Option<&Vector3<f64>>,
    ) -> ResolvedFriction {
        let (a, b) = (tangential(normal, s_a), tangential(normal, s_b));
        match (a, b) {
            (Some(a), None) => self.resolve_both(normal, Some(&a), Some(&a)),
            (None, Some(b)) => self.resolve_both(normal, Some(&b), Some(&b)),
            _ => self.resolve_both(normal, s_a, s_b),
        }
    }
}

/// `a + d (b - a)`, exact at `d = 0`, at `d = 1` and when `a == b`.
fn lerp(a: f64, b: f64, d: f64) -> f64 {
    if a == b || d == 0.0 {
        a
    } else if d == 1.0 {
        b
    } else {
        (1.0 - d) * a + d * b
    }
}

/// The unit tangential part of a structure direction, if it has one (module doc, step 1).
fn tangential(normal: &Vector3<f64>, s: Option<&Vector3<f64>>) -> Option<Vector3<f64>> {
    let s = s?;
    let len = s.norm();
    if !(len.is_finite() && len > 0.0) {
        return None;
    }
    let u = s / len;
    let p = u - normal * normal.dot(&u);
    let plen = p.norm();
    if plen.is_nan() || plen <= MIN_TANGENTIAL_FRACTION {
        return None;
    }
    Some(p / plen)
}

/// The alignment `d = 1 − 2 theta / π` of two structure axes (eq. 5), `theta` the angle between
/// the axes in [0, π/2] (the sign of either direction is ignored). Inputs need not be unit.
/// 1 for parallel, 0 for perpendicular axes, and 0 when either is zero or not finite (eq. 5
/// read literally: `s_A · s_B = 0`).
pub fn alignment(s_a: &Vector3<f64>, s_b: &Vector3<f64>) -> f64 {
    let (cos, sin) = (s_a.dot(s_b).abs(), s_a.cross(s_b).norm());
    if (cos + sin).is_nan() || cos + sin == 0.0 || (cos + sin).is_infinite() {
        return 0.0;
    }
    1.0 - sin.atan2(cos) / std::f64::consts::FRAC_PI_2
}

/// The frame `(n, t, n × t)` for a unit tangent `t ⟂ n`.
fn frame_from_tangent(normal: &Vector3<f64>, t: &Vector3<f64>) -> Matrix3<f64> {
    Matrix3::from_columns(&[*normal, *t, normal.cross(t)])
}

impl ResolvedFriction {
    /// The plain isotropic Coulomb law `|f_T| <= mu f_n` in the contact's default frame
    /// `(n, tangent_basis(n))` (the frame of [`crate::contact::rigid::frame`]).
    pub fn isotropic(normal: &Vector3<f64>, mu: f64) -> Result<Self, MatchstickError> {
        Ok(Self::in_default_frame(normal, Cone::isotropic(mu)?))
    }

    /// An elliptic law with a fixed axis: `mu_t` along `axis` (projected onto the tangent
    /// plane), `mu_b` across it. With `mu_t == mu_b` this is exactly [`Self::isotropic`]
    /// whatever the axis.
    pub fn elliptic(normal: &Vector3<f64>, axis: &Vector3<f64>, mu_t: f64, mu_b: f64) -> Result<Self, MatchstickError> {
        let cone = Cone::elliptic(mu_t, mu_b)?;
        if cone.is_isotropic() {
            return Ok(Self::in_default_frame(normal, cone));
        }
        let t = tangential(normal, Some(axis)).ok_or(MatchstickError::NoAxis {
            axis: [axis.x, axis.y, axis.z],
            mu_t,
            mu_b,
        })?;
        Ok(ResolvedFriction { frame: frame_from_tangent(normal, &t), cone })
    }

    fn in_default_frame(normal: &Vector3<f64>, cone: Cone) -> Self {
        let (t1, t2) = tangent_basis(normal);
        ResolvedFriction { frame: Matrix3::from_columns(&[*normal, t1, t2]), cone }
    }

    pub fn normal(&self) -> Vector3<f64> {
        self.frame.column(0).into()
    }

    /// The axis of `cone.mu_t` (the low-friction axis for a matchstick pair).
    pub fn tangent(&self) -> Vector3<f64> {
        self.frame.column(1).into()
    }

    pub fn binormal(&self) -> Vector3<f64> {
        self.frame.column(2).into()
    }
}

/// Validation case 7, static: the steepest incline (as `tan(slope)`, i.e. the largest ratio of
/// tangential to normal load) that an elliptic cone `(mu_1, mu_2)` holds when the load makes
/// the angle `gamma` (radians) with the `mu_1` axis:
/// `(cos²γ / μ1² + sin²γ / μ2²)^(-1/2)`, evaluated as `μ1 μ2 / sqrt(μ2² cos²γ + μ1² sin²γ)`
/// (no division by a zero coefficient). Exactly `mu_1` when `mu_1 == mu_2`.
pub fn incline_threshold(mu_1: f64, mu_2: f64, gamma: f64) -> f64 {
    if mu_1 == mu_2 {
        return mu_1;
    }
    let (s, c) = gamma.sin_cos();
    mu_1 * mu_2 / hyp(mu_2 * c, mu_1 * s)
}

/// Validation case 7, sliding: the friction force of maximal dissipation for the tangential
/// slip velocity `slip = (v_t, v_b)` in the cone's frame and normal force `normal_force`:
/// `f = -N Mu² v / |Mu v|`, `Mu = diag(mu_t, mu_b)`. It lies on the ellipse boundary and is
/// anti-parallel to the slip only along an axis: `tan(angle f) = mu_b² v_b / (mu_t² v_t)`.
/// Zero slip gives zero (the direction is undefined; the contact sticks). For an isotropic cone
/// it is exactly `-N mu v / |v|`.
pub fn sliding_friction(cone: &Cone, normal_force: f64, slip: [f64; 2]) -> [f64; 2] {
    if cone.is_isotropic() {
        let v = hyp(slip[0], slip[1]);
        if v == 0.0 {
            return [0.0, 0.0];
        }
        let k = -normal_force * cone.mu_t / v;
        return [k * slip[0], k * slip[1]];
    }
    let (mt, mb) = (cone.mu_t, cone.mu_b);
    let m = hyp(mt * slip[0], mb * slip[1]);
    if m == 0.0 {
        return [0.0, 0.0];
    }
    [-normal_force * mt * mt * slip[0] / m, -normal_force * mb * mb * slip[1] / m]
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::f64::consts::{FRAC_PI_2, FRAC_PI_4, PI};

    #[test]
    fn one_sided_structure_gives_the_extreme_ellipse_along_it() {
        let n = Vector3::z();
        let p = pair();
        for a in [0.0, 0.3, FRAC_PI_2, 2.0] {
            let s = dir(a) + n * 0.7;
            for (sa, sb) in [(Some(&s), None), (None, Some(&s))] {
                let law = p.resolve(&n, sa, sb);
                assert_eq!(law.cone, Cone { mu_t: 0.2, mu_b: 0.9 });
                assert!((law.tangent() - dir(a)).norm() < ROUND_OFF, "a = {a}: {}", law.tangent());
                assert_eq!(law.normal(), n);
            }
            // Both structured: the two-sided law, whatever the rule.
            let t = dir(a + 0.4);
            assert_eq!(p.resolve(&n, Some(&s), Some(&t)), p.resolve_both(&n, Some(&s), Some(&t)));
        }
        // Neither, or a structure along the normal: isotropic in the default frame.
        let iso = ResolvedFriction::isotropic(&n, 0.5).unwrap();
        assert_eq!(p.resolve(&n, None, None), iso);
        assert_eq!(p.resolve(&n, Some(&(n * 2.0)), None), iso);
        assert_eq!(p.resolve(&n, Some(&Vector3::zeros()), None), iso);
    }

    /// Round-off of a handful of flops on unit vectors (normalize, cross, atan2).
    const ROUND_OFF: f64 = 1e-15;

    fn pair() -> MatchstickPair {
        MatchstickPair::new(0.5, 0.2, 0.9).unwrap()
    }

    /// Unit vector at angle `a` in the xy-plane.
    fn dir(a: f64) -> Vector3<f64> {
        Vector3::new(a.cos(), a.sin(), 0.0)
    }

    /// SplitMix64 in [-1, 1): reproducible random inputs without a dependency.
    struct Rng(u64);
    impl Rng {
        fn sym(&mut self) -> f64 {
            crate::test_rng::symmetric(&mut self.0)
        }
        fn vec3(&mut self) -> Vector3<f64> {
            Vector3::new(self.sym(), self.sym(), self.sym())
        }
    }

    fn assert_frame(f: &Matrix3<f64>, n: &Vector3<f64>) {
        assert_eq!(f.column(0), n.column(0), "first column is the normal as given");
        // Unit n: |n| = 1 to ~1e-16, and the tangents inherit a few roundings more.
        assert!((f.transpose() * f - Matrix3::identity()).amax() < 4.0 * ROUND_OFF, "{f}");
        assert!((f.determinant() - 1.0).abs() < 4.0 * ROUND_OFF, "right-handed: {f}");
    }

    #[test]
    fn equal_coefficients_give_the_isotropic_cone_in_the_contact_frame() {
        let p = MatchstickPair::isotropic(0.4).unwrap();
        let n = Vector3::new(1.0, -2.0, 0.5).normalize();
        let iso = ResolvedFriction::isotropic(&n, 0.4).unwrap();
        assert_eq!(iso.frame, crate::contact::rigid::frame(&n));
        for (a, b) in
            [(Some(dir(0.3)), Some(dir(1.0))), (Some(dir(0.3)), None), (None, None), (Some(n), Some(dir(2.0)))]
        {
            let r = p.resolve(&n, a.as_ref(), b.as_ref());
            assert_eq!(r, iso);
            assert_eq!(r.cone, Cone::isotropic(0.4).unwrap());
            assert_eq!(r.normal(), n);
        }
        // mu_t == mu_b != mu: isotropic at every alignment, with the blended coefficient.
        let p = MatchstickPair::new(0.6, 0.3, 0.3).unwrap();
        let r = p.resolve(&Vector3::z(), Some(&dir(0.0)), Some(&dir(FRAC_PI_4)));
        assert!(r.cone.is_isotropic());
        assert_eq!(r.frame, crate::contact::rigid::frame(&Vector3::z()));
        // d = 1/2 from atan2 of unit vectors, to a few ulps.
        assert!((r.cone.mu_t - 0.45).abs() < 4.0 * ROUND_OFF);
    }

    #[test]
    fn frames_are_orthonormal_and_right_handed_for_random_inputs() {
        let mut rng = Rng(7);
        let p = pair();
        for k in 0..2000 {
            let n = rng.vec3().normalize();
            let mut s = [rng.vec3(), rng.vec3() * 1e-3];
            // Every tenth case: one direction along the normal (no tangential structure on
            // that side), or both aligned.
            match k % 10 {
                0 => s[1] = n * 2.0,
                1 => s[1] = s[0] * -3.0,
                _ => {}
            }
            let r = p.resolve(&n, Some(&s[0]), Some(&s[1]));
            assert_frame(&r.frame, &n);
            if k % 10 == 0 {
                // The structured side alone: the full ellipse along it.
                assert_eq!(r, p.resolve(&n, Some(&s[0]), None));
                assert_eq!(r.cone, Cone::elliptic(0.2, 0.9).unwrap());
                continue;
            }
            if !r.cone.is_isotropic() {
                // t bisects the two projected axes (with s_B flipped toward s_A).
                let a = tangential(&n, Some(&s[0])).unwrap();
                let b = tangential(&n, Some(&s[1])).unwrap();
                let b = if a.dot(&b) < 0.0 { -b } else { b };
                let t = r.tangent();
                assert!((t.dot(&a) - t.dot(&b)).abs() < 4.0 * ROUND_OFF);
                assert!(t.dot(&a) > 0.0);
            }
        }
    }

    #[test]
    fn interpolation_limits_match_the_paper() {
        let p = pair();
        let n = Vector3::z();
        // Parallel structures: exactly the extreme ellipse (d = 1), t along the structure.
        let r = p.resolve(&n, Some(&dir(0.4)), Some(&dir(0.4)));
        assert_eq!(r.cone, Cone::elliptic(0.2, 0.9).unwrap());
        assert!((r.tangent() - dir(0.4)).norm() < ROUND_OFF);
        assert!((r.binormal() - dir(0.4 + FRAC_PI_2)).norm() < ROUND_OFF);
        // Anti-parallel is parallel (the sign is ignored): exactly for an exact negation; for
        // dir(0.4 + pi), whose rounding leaves a cross product of ~1e-16, to a few ulps.
        assert_eq!(p.resolve(&n, Some(&dir(0.4)), Some(&-dir(0.4))).cone, r.cone);
        let q = p.resolve(&n, Some(&dir(0.4)), Some(&dir(0.4 + PI))).cone;
        assert!((q.mu_t - 0.2).abs() < 4.0 * ROUND_OFF && (q.mu_b - 0.9).abs() < 4.0 * ROUND_OFF);
        // Perpendicular: exactly the isotropic mu (d = 0), default frame.
        let r = p.resolve(&n, Some(&dir(0.4)), Some(&dir(0.4 + FRAC_PI_2)));
        assert_eq!(r, ResolvedFriction::isotropic(&n, 0.5).unwrap());
        // Oblique: d = 1 - 2 theta / pi with theta the acute angle between the axes
        // (30 deg -> 2/3, 45 -> 1/2, 60 -> 1/3, 150 -> 2/3), linear blend (eqs. 10, 11),
        // t the bisector of the acute angle.
        for (deg, d) in [(30.0, 2.0 / 3.0), (45.0, 0.5), (60.0, 1.0 / 3.0), (150.0, 2.0 / 3.0), (-75.0, 1.0 / 6.0)] {
            let theta = f64::to_radians(deg);
            let r = p.resolve(&n, Some(&dir(0.4)), Some(&dir(0.4 + theta)));
            // d from atan2 of unit vectors: a few ulps.
            assert!((alignment(&dir(0.4), &dir(0.4 + theta)) - d).abs() < 4.0 * ROUND_OFF);
            assert!((r.cone.mu_t - (d * 0.2 + (1.0 - d) * 0.5)).abs() < 4.0 * ROUND_OFF, "{deg}");
            assert!((r.cone.mu_b - (d * 0.9 + (1.0 - d) * 0.5)).abs() < 4.0 * ROUND_OFF, "{deg}");
            let acute = if theta.cos() >= 0.0 { theta } else { theta - PI.copysign(theta) };
            let t = r.tangent();
            assert!((t - dir(0.4 + acute / 2.0)).norm() < 4.0 * ROUND_OFF, "{deg}: {t}");
            // Invariant under swapping A and B and flipping either direction: the cone exactly,
            // the frame up to the sign of (t, b).
            for (a, b) in [(dir(0.4 + theta), dir(0.4)), (-dir(0.4), dir(0.4 + theta)), (dir(0.4), -dir(0.4 + theta))] {
                let q = p.resolve(&n, Some(&a), Some(&b));
                assert_eq!(q.cone, r.cone);
                assert!((q.tangent().dot(&t).abs() - 1.0).abs() < 4.0 * ROUND_OFF);
            }
        }
        assert_eq!(alignment(&dir(0.3), &Vector3::zeros()), 0.0);
        assert_eq!(alignment(&Vector3::new(f64::NAN, 0.0, 0.0), &dir(0.3)), 0.0);
        assert_eq!(p.cone_at(1.0), Cone::elliptic(0.2, 0.9).unwrap());
        assert_eq!(p.cone_at(0.0), Cone::isotropic(0.5).unwrap());
        assert_eq!(p.cone_at(f64::NAN), Cone::isotropic(0.5).unwrap());
        assert_eq!(p.cone_at(7.0), p.cone_at(1.0));
    }

    #[test]
    fn directions_are_projected_onto_the_tangent_plane() {
        let p = pair();
        let n = Vector3::new(0.0, -0.6, 0.8);
        let (t1, t2) = tangent_basis(&n);
        let a = t1 * 0.3 + t2 * 0.1;
        let b = t1 * 0.2 - t2 * 0.4;
        let flat = p.resolve(&n, Some(&a), Some(&b));
        let tilted = p.resolve(&n, Some(&(a + n * 5.0)), Some(&(b * 3.0 - n)));
        // Same law; the projections differ from the flat inputs by round-off only.
        assert!((flat.frame - tilted.frame).amax() < 4.0 * ROUND_OFF);
        assert!((flat.cone.mu_t - tilted.cone.mu_t).abs() < 4.0 * ROUND_OFF);
        assert!((flat.cone.mu_b - tilted.cone.mu_b).abs() < 4.0 * ROUND_OFF);
        assert_frame(&tilted.frame, &n);
    }

    #[test]
    fn missing_zero_or_normal_structure_falls_back_to_isotropic_mu() {
        let p = pair();
        let n = Vector3::new(0.0, 0.0, -1.0);
        let iso = ResolvedFriction::isotropic(&n, 0.5).unwrap();
        let s = dir(1.0);
        let zero = Vector3::zeros();
        let nan = Vector3::new(f64::NAN, 0.0, 0.0);
        let inf = Vector3::new(f64::INFINITY, 1.0, 0.0);
        let along_n = n * 3.0 + dir(0.2) * 1e-8; // tangential fraction 3e-9 < 1e-6
        // A side without a usable structure leaves the other's alone: the full ellipse along s.
        let along_s = p.resolve(&n, Some(&s), Some(&s));
        assert_eq!(along_s.cone, Cone::elliptic(0.2, 0.9).unwrap());
        for other in [None, Some(&zero), Some(&nan), Some(&inf), Some(&along_n)] {
            assert_eq!(p.resolve(&n, Some(&s), other), along_s);
            assert_eq!(p.resolve(&n, other, Some(&s)), along_s);
            assert_eq!(p.resolve(&n, other, other), iso);
        }
        // Just above the threshold the structure counts (and is aligned with s here).
        let slightly = n + dir(1.0) * 1e-5;
        assert_eq!(p.resolve(&n, Some(&s), Some(&slightly)).cone, Cone::elliptic(0.2, 0.9).unwrap());
    }

    #[test]
    fn coefficient_and_axis_errors() {
        let e = MatchstickPair::new(0.5, 0.9, 0.2).unwrap_err();
        assert_eq!(
            e.to_string(),
            "invalid matchstick coefficients (mu = 0.5, mu_t = 0.9, mu_b = 0.2): mu_t (along the structure) must \
             not exceed mu_b (across it): the structure direction is the direction of least resistance; swap them, \
             or turn the structure by 90 degrees"
        );
        assert!(MatchstickPair::new(-0.1, 0.2, 0.3).is_err());
        assert!(MatchstickPair::new(0.5, 0.2, f64::INFINITY).is_err());
        assert!(MatchstickPair::new(0.5, 0.0, 0.3).is_err());
        assert!(MatchstickPair::new(0.0, 0.0, 0.0).is_ok());
        // mu = 0 with an anisotropic pair: positive axes for every d > 0, zero at d = 0.
        let p = MatchstickPair::new(0.0, 0.1, 0.3).unwrap();
        assert!(Cone::elliptic(p.cone_at(1e-300).mu_t, p.cone_at(1e-300).mu_b).is_ok());
        let n = Vector3::z();
        let e = ResolvedFriction::elliptic(&n, &n, 0.2, 0.9).unwrap_err();
        assert!(matches!(e, MatchstickError::NoAxis { .. }), "{e}");
        assert_eq!(
            ResolvedFriction::elliptic(&n, &n, 0.3, 0.3).unwrap(),
            ResolvedFriction::isotropic(&n, 0.3).unwrap()
        );
        assert!(matches!(ResolvedFriction::isotropic(&n, -1.0), Err(MatchstickError::Cone(_))));
        let r = ResolvedFriction::elliptic(&n, &Vector3::new(0.0, 2.0, 1.0), 0.2, 0.9).unwrap();
        assert_eq!((r.tangent(), r.binormal()), (Vector3::y(), -Vector3::x()));
    }

    #[test]
    fn incline_threshold_and_sliding_force_limits() {
        let (m1, m2) = (0.2, 0.9);
        assert_eq!(incline_threshold(m1, m2, 0.0), m1);
        // cos(pi/2) = 6e-17, not 0: relative effect (m2/m1)^2 * 6e-17 / 2, far below 1e-15.
        assert!((incline_threshold(m1, m2, FRAC_PI_2) - m2).abs() < ROUND_OFF);
        for g in [0.0, 0.3, 1.0, 2.0, -4.0] {
            assert_eq!(incline_threshold(0.7, 0.7, g), 0.7);
            let t = incline_threshold(m1, m2, g);
            // The load at the threshold lies on the ellipse: (F cos/m1)^2 + (F sin/m2)^2 = 1.
            assert!(((t * g.cos() / m1).powi(2) + (t * g.sin() / m2).powi(2) - 1.0).abs() < 4.0 * ROUND_OFF);
        }
        let cone = Cone::elliptic(m1, m2).unwrap();
        for v in [[1.0, 0.0], [0.0, -2.0], [1.0, 1.0], [-0.3, 2.0], [5.0, -0.01]] {
            let f = sliding_friction(&cone, 2.0, v);
            // On the boundary of the ellipse scaled by N = 2.
            assert!(((f[0] / m1).powi(2) + (f[1] / m2).powi(2) - 4.0).abs() < 16.0 * ROUND_OFF);
            // Maximal dissipation: no point of the boundary dissipates more (-f . v largest).
            let p = -(f[0] * v[0] + f[1] * v[1]);
            let best = (0..20_000)
                .map(|k| {
                    let a = k as f64 * 2.0 * PI / 20_000.0;
                    -(2.0 * m1 * a.cos() * v[0] + 2.0 * m2 * a.sin() * v[1])
                })
                .fold(f64::MIN, f64::max);
            // Sampling misses the maximum by O(h^2 |v| N mu_b) ~ 1e-7 here.
            assert!(p >= best - 1e-12 && p <= best + 1e-6, "{p} vs {best}");
        }
        assert_eq!(sliding_friction(&cone, 2.0, [0.0, 0.0]), [0.0, 0.0]);
        let iso = Cone::isotropic(0.6).unwrap();
        let v = [0.3, -0.7];
        let norm = hyp(v[0], v[1]);
        assert_eq!(sliding_friction(&iso, 2.0, v), [-2.0 * 0.6 / norm * v[0], -2.0 * 0.6 / norm * v[1]]);
    }
}
