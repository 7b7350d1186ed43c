//! Tiny 3-vector helpers generic over the AD scalar (`f64` or a num-dual number).
//!
//! nalgebra's `Vector3<T>` needs `T: RealField` for norms, which num-dual's numbers are not; these
//! few free functions keep the contact kernels readable instead.

use num_dual::DualNum;

pub type V3<T> = [T; 3];

pub trait Scalar: DualNum<Primitive = f64> + Copy {}
impl<T: DualNum<Primitive = f64> + Copy> Scalar for T {}

#[inline]
pub fn dot<T: Scalar>(a: V3<T>, b: V3<T>) -> T {
    a[0] * b[0] + a[1] * b[1] + a[2] * b[2]
}
#[inline]
pub fn sub<T: Scalar>(a: V3<T>, b: V3<T>) -> V3<T> {
    [a[0] - b[0], a[1] - b[1], a[2] - b[2]]
}
#[inline]
pub fn add<T: Scalar>(a: V3<T>, b: V3<T>) -> V3<T> {
    [a[0] + b[0], a[1] + b[1], a[2] + b[2]]
}
#[inline]
pub fn scale<T: Scalar>(a: V3<T>, s: T) -> V3<T> {
    [a[0] * s, a[1] * s, a[2] * s]
}
#[inline]
pub fn cross<T: Scalar>(a: V3<T>, b: V3<T>) -> V3<T> {
    [a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]]
}
#[inline]
pub fn norm<T: Scalar>(a: V3<T>) -> T {
    dot(a, a).sqrt()
}
/// Constant (derivative-free) vector from f64 values.
#[inline]
pub fn konst<T: Scalar>(a: [f64; 3]) -> V3<T> {
    [T::from(a[0]), T::from(a[1]), T::from(a[2])]
}
/// `m * a` for a constant 3x3 matrix (row-major rows).
#[inline]
pub fn mat_mul<T: Scalar>(m: &nalgebra::Matrix3<f64>, a: V3<T>) -> V3<T> {
    let mut out = [T::from(0.0); 3];
    for (i, o) in out.iter_mut().enumerate() {
        *o = a[0] * m[(i, 0)] + a[1] * m[(i, 1)] + a[2] * m[(i, 2)];
    }
    out
}
/// `|t|` with the derivative of `|.|` (sign of the value).
#[inline]
pub fn abs<T: Scalar>(t: T) -> T {
    if t.re() < 0.0 { -t } else { t }
}
/// Real parts.
#[inline]
pub fn re<T: Scalar>(a: V3<T>) -> [f64; 3] {
    [a[0].re(), a[1].re(), a[2].re()]
}
