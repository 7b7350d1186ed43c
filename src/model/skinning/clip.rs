//! An animation clip as glTF 2.0 stores one: channels, each driving one property (translation,
//! rotation or scale) of one node by keyframes, sampled step-wise, linearly (rotations by
//! spherical interpolation) or by cubic Hermite splines (glTF's `CUBICSPLINE`, whose keys carry
//! an in-tangent, a value and an out-tangent, in that order). Before its first key a channel holds
//! its first value, after its last its last value (glTF 2.0 §3.11).

use nalgebra::{Quaternion, UnitQuaternion, Vector4};

/// The node property a channel drives.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Property {
    Translation,
    /// A unit quaternion stored `(x, y, z, w)`.
    Rotation,
    Scale,
}

/// How values between keys are made.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Sampling {
    Step,
    Linear,
    CubicSpline,
}

/// One channel: key times (strictly increasing, seconds) and their values (`xyz` for translation
/// and scale, `xyzw` for rotation; three per key for cubic splines).
#[derive(Debug, Clone, PartialEq)]
pub struct Channel {
    pub node: usize,
    pub property: Property,
    pub sampling: Sampling,
    pub times: Vec<f64>,
    pub values: Vec<Vector4<f64>>,
}

impl Channel {
    /// The key's value (the middle of a cubic key's three entries).
    fn value(&self, k: usize) -> Vector4<f64> {
        match self.sampling {
            Sampling::CubicSpline => self.values[3 * k + 1],
            _ => self.values[k],
        }
    }

    /// The channel's value at clip time `t` (rotations of unit length).
    pub fn sample(&self, t: f64) -> Vector4<f64> {
        let n = self.times.len();
        let v = if t <= self.times[0] {
            self.value(0)
        } else if t >= self.times[n - 1] {
            self.value(n - 1)
        } else {
            // times[k] <= t < times[k + 1]
            let k = self.times.partition_point(|&x| x <= t) - 1;
            let d = self.times[k + 1] - self.times[k];
            self.between(k, (t - self.times[k]) / d, d)
        };
        match self.property {
            Property::Rotation => v.normalize(),
            _ => v,
        }
    }

    /// The value a fraction `s` of the way from key `k` to key `k + 1`, `d` seconds apart.
    fn between(&self, k: usize, s: f64, d: f64) -> Vector4<f64> {
        let (a, b) = (self.value(k), self.value(k + 1));
        match (self.sampling, self.property) {
            (Sampling::Step, _) => a,
            (Sampling::Linear, Property::Rotation) => slerp(a, b, s),
            (Sampling::Linear, _) => a + s * (b - a),
            (Sampling::CubicSpline, _) => {
                // glTF 2.0 Appendix C: tangents are scaled by the key interval.
                let (out_a, in_b) = (self.values[3 * k + 2] * d, self.values[3 * (k + 1)] * d);
                let (s2, s3) = (s * s, s * s * s);
                (2.0 * s3 - 3.0 * s2 + 1.0) * a
                    + (s3 - 2.0 * s2 + s) * out_a
                    + (-2.0 * s3 + 3.0 * s2) * b
                    + (s3 - s2) * in_b
            }
        }
    }
}

/// Spherical interpolation along the shorter arc (`q` and `-q` are one rotation).
fn slerp(a: Vector4<f64>, b: Vector4<f64>, s: f64) -> Vector4<f64> {
    let q = |v: Vector4<f64>| UnitQuaternion::from_quaternion(Quaternion::new(v.w, v.x, v.y, v.z));
    let (qa, mut qb) = (q(a), q(b));
    if qa.coords.dot(&qb.coords) < 0.0 {
        qb = UnitQuaternion::new_unchecked(-qb.into_inner());
    }
    let r = qa.slerp(&qb, s);
    Vector4::new(r.i, r.j, r.k, r.w)
}

/// A named clip: its channels and the span of their keys.
#[derive(Debug, Clone, PartialEq)]
pub struct Clip {
    pub name: String,
    pub channels: Vec<Channel>,
    /// The first and the last key time over all channels.
    pub start: f64,
    pub end: f64,
}

impl Clip {
    pub fn new(name: String, channels: Vec<Channel>) -> Self {
        let start = channels.iter().map(|c| c.times[0]).fold(f64::INFINITY, f64::min);
        let end = channels.iter().map(|c| c.times[c.times.len() - 1]).fold(f64::NEG_INFINITY, f64::max);
        Clip { name, channels, start, end }
    }

    /// The clip time shown at simulation time `t`: the clip starts at its first key at `t = 0`
    /// and holds its last pose after its end, or starts over with `looped`.
    pub fn time(&self, t: f64, looped: bool) -> f64 {
        let span = self.end - self.start;
        if looped && span > 0.0 { self.start + t.rem_euclid(span) } else { self.start + t.max(0.0) }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn channel(property: Property, sampling: Sampling, times: &[f64], values: &[[f64; 4]]) -> Channel {
        Channel {
            node: 0,
            property,
            sampling,
            times: times.to_vec(),
            values: values.iter().map(|v| (*v).into()).collect(),
        }
    }

    /// Linear translation is linear between keys and held outside them; step holds the earlier
    /// key up to the next.
    #[test]
    fn linear_and_step_translation() {
        let keys = [[0.0, 0.0, 0.0, 0.0], [2.0, -4.0, 1.0, 0.0]];
        let lin = channel(Property::Translation, Sampling::Linear, &[1.0, 3.0], &keys);
        assert_eq!(lin.sample(2.5), Vector4::new(1.5, -3.0, 0.75, 0.0));
        assert_eq!(lin.sample(0.0), Vector4::zeros());
        assert_eq!(lin.sample(9.0), Vector4::from(keys[1]));
        let step = channel(Property::Translation, Sampling::Step, &[1.0, 3.0], &keys);
        assert_eq!(step.sample(2.999), Vector4::zeros());
        assert_eq!(step.sample(3.0), Vector4::from(keys[1]));
    }

    /// Spherical interpolation turns at a constant rate along the shorter arc: half-way between
    /// 0 and 90 degrees about z is 45 degrees, also when the second key is stored as `-q`.
    #[test]
    fn rotation_slerps_along_the_shorter_arc() {
        let h = std::f64::consts::FRAC_1_SQRT_2;
        for sign in [1.0, -1.0] {
            let c = channel(
                Property::Rotation,
                Sampling::Linear,
                &[0.0, 1.0],
                &[[0.0, 0.0, 0.0, 1.0], [0.0, 0.0, sign * h, sign * h]],
            );
            let q = c.sample(0.5);
            let a = std::f64::consts::FRAC_PI_8;
            assert!((q - Vector4::new(0.0, 0.0, a.sin(), a.cos())).norm() < 1e-15, "{q}");
        }
    }

    /// A cubic spline passes through its keys with the given tangents: with value 0 -> 1 and
    /// both tangents 0 it is the smoothstep 3 s^2 - 2 s^3; with tangents 1 over a unit interval
    /// it is the straight line.
    #[test]
    fn cubic_spline_is_hermite() {
        let z = [0.0; 4];
        let one = [1.0, 0.0, 0.0, 0.0];
        let flat = channel(Property::Scale, Sampling::CubicSpline, &[0.0, 2.0], &[z, z, z, z, one, z]);
        let s: f64 = 0.3;
        assert!((flat.sample(0.6).x - (3.0 * s * s - 2.0 * s.powi(3))).abs() < 1e-15);
        let line = channel(Property::Scale, Sampling::CubicSpline, &[0.0, 1.0], &[one, z, one, one, one, one]);
        assert!((line.sample(0.3).x - 0.3).abs() < 1e-15);
    }

    #[test]
    fn clip_time_starts_at_the_first_key_and_loops_over_the_span() {
        let c = channel(Property::Scale, Sampling::Linear, &[0.5, 2.5], &[[0.0; 4], [0.0; 4]]);
        let clip = Clip::new("c".into(), vec![c]);
        assert_eq!(clip.time(0.0, false), 0.5);
        assert_eq!(clip.time(3.0, false), 3.5);
        assert_eq!(clip.time(3.0, true), 1.5);
    }
}
