//! Test support shared by the energy tests: a tiny deterministic random generator.
//! Included with `#[path = "support/rng.rs"] mod rng;` so each test binary compiles it once.

use nalgebra::{Rotation3, Vector3};

/// Tiny deterministic generator (SplitMix64): reproducible, no dependency.
pub struct Rng(pub u64);
impl Rng {
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
    /// Uniform in [-1, 1).
    pub fn sym(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 / (1u64 << 52) as f64 - 1.0
    }
    pub fn vec3(&mut self) -> Vector3<f64> {
        Vector3::new(self.sym(), self.sym(), self.sym())
    }
    pub fn rotation(&mut self) -> Rotation3<f64> {
        Rotation3::new(self.vec3() * 3.0)
    }
}
