//! 003 Figs. 4 and 5 (`scenes/log_ravine.ron`): the slope's direction, the field that steers the
//! beams around the building, and where the building's faces are. Shared by
//! `tests/matchstick_experiments.rs` and `tests/implicit_frames.rs`.
#![allow(dead_code)]

use nalgebra::Vector3;

/// The `--set` of the field that pushes the beams aside before the building and then down the
/// slope again, `(1, 2y e^(−2y²))`.
pub const AROUND: &str = "colliders[0].structure_field=Expression(x: \"1\", y: \"2 * y * exp(-2 * y^2)\", z: \"0\")";

/// Down the 25° slope.
pub fn down() -> Vector3<f64> {
    let a = 25f64.to_radians();
    Vector3::new(a.cos(), 0.0, -a.sin())
}

/// A beam held by the building: its centre short of the building's near face, 2.7 m down the
/// slope (a beam is 0.4 m long).
pub fn blocked(x: f64) -> bool {
    x < 2.7
}

/// A beam past the building: beyond its far face, 3.3 m down the slope.
pub fn passed(x: f64) -> bool {
    x > 3.3
}
