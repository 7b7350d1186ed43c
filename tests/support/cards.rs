//! The house of cards' A-frame (004 Table 1's cards): its geometry, as `scripts/argus.py`
//! builds it, and its rigid statics. Shared by `tests/leaning_card.rs` and `tests/argus.rs`.
#![allow(dead_code)]

/// Two cards of length `L` leaning on each other: card B at θ from vertical, its foot on the
/// floor; card A's top edge rests on B's face `s` below B's top (as real cards meet), so A
/// leans a little further from vertical, at θ_A > θ. Card centres `(y, z)` and A's angle, for `scripts/argus.py`'s
/// house too.
pub struct AFrame {
    pub theta_a: f64,
    pub theta_b: f64,
    pub centre_a: (f64, f64),
    pub centre_b: (f64, f64),
}

pub const CARD: (f64, f64, f64) = (0.064, 0.089, 1.5e-4); // width, length, half thickness (m)
pub const APEX_DROP: f64 = 5e-4; // how far below B's top edge A's top rests (m)

pub fn a_frame(theta_deg: f64) -> AFrame {
    let (_, len, r) = CARD;
    let tb = theta_deg.to_radians();
    let (down, toward_a) = ((tb.sin(), -tb.cos()), (-tb.cos(), -tb.sin()));
    let top_b = (0.0, r + len * tb.cos());
    // A's top row sits on B's face: two half thicknesses and 20 µm off its mid-surface.
    let gap = 2.0 * r + 2e-5;
    let top_a = (top_b.0 + APEX_DROP * down.0 + gap * toward_a.0, top_b.1 + APEX_DROP * down.1 + gap * toward_a.1);
    let ta = ((top_a.1 - r) / len).acos();
    AFrame {
        theta_a: ta,
        theta_b: tb,
        centre_a: (top_a.0 - 0.5 * len * ta.sin(), top_a.1 - 0.5 * len * ta.cos()),
        centre_b: (top_b.0 + 0.5 * len * tb.sin(), top_b.1 - 0.5 * len * tb.cos()),
    }
}

/// The least friction coefficients at the apex and on the floor for which the A-frame, as two
/// rigid rods, can stand. Moments about B's foot give the apex's normal push `P` (the
/// tangential force `T` acts along B, through its foot); moments about A's foot then give `T`;
/// the floor's forces follow from B's balance and the whole's.
pub fn a_frame_thresholds(f: &AFrame) -> (f64, f64) {
    let (_, len, _) = CARD;
    let (ta, tb) = (f.theta_a, f.theta_b);
    let weight = 1.0;
    let p = weight * len * tb.sin() / (2.0 * (len - APEX_DROP));
    let t = (p * (ta + tb).cos() - weight * ta.sin() / 2.0) / (ta + tb).sin();
    let friction_b = p * tb.cos() - t * tb.sin();
    let normal_b = weight - p * tb.sin() - t * tb.cos();
    let normal_a = 2.0 * weight - normal_b;
    (t.abs() / p, friction_b.abs() / normal_b.min(normal_a))
}
