//! SplitMix64: reproducible pseudo-random numbers without a dependency, for unit tests and the
//! eigensolver's start block (integration tests use `tests/support/rng.rs`).

/// Uniform in [0, 1).
pub fn unit(seed: &mut u64) -> f64 {
    *seed = seed.wrapping_add(0x9E37_79B9_7F4A_7C15);
    let mut z = *seed;
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    ((z ^ (z >> 31)) >> 11) as f64 / (1u64 << 53) as f64
}

/// Uniform in [-1, 1).
pub fn symmetric(seed: &mut u64) -> f64 {
    2.0 * unit(seed) - 1.0
}
