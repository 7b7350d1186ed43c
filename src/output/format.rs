//! Number formatting shared by the text writers (CSV, PVD).

/// Formats an `f64` as the shortest digit string that parses back to the same value, in the
/// layout of Python's `repr`: positional for decimal exponents -4..=15 (`0.001`, `123.5`),
/// scientific otherwise (`1e-5`, `2.5e20`).
///
/// Rust's `{}` and `{:e}` both print the shortest round-trip digits (Ryu-style); they differ
/// only in where the point goes. `{}` alone would print `1e-300` with 300 zeros, and "shortest of
/// the two" would turn a time column into `9e-3, 0.01, 0.011`. Python's rule is what our users
/// see in NumPy and pandas, so we use it. Non-finite values print as `NaN`, `inf` and `-inf`,
/// which Python, pandas, NumPy and ParaView all parse.
pub fn format_f64(x: f64) -> String {
    if !x.is_finite() || x == 0.0 {
        return format!("{x}");
    }
    let sci = format!("{x:e}");
    // `{:e}` always has exactly one 'e' followed by a decimal exponent.
    let exponent: i32 = sci.rsplit_once('e').and_then(|(_, e)| e.parse().ok()).unwrap_or(0);
    if (-4..16).contains(&exponent) { format!("{x}") } else { sci }
}

#[cfg(test)]
mod tests {
    use super::format_f64;

    #[test]
    fn shortest_and_round_trips() {
        assert_eq!(format_f64(0.5), "0.5");
        assert_eq!(format_f64(0.001), "0.001");
        assert_eq!(format_f64(1e-4), "0.0001");
        assert_eq!(format_f64(9.5e-5), "9.5e-5");
        assert_eq!(format_f64(1e-7), "1e-7");
        assert_eq!(format_f64(123456789012345.6), "123456789012345.6");
        assert_eq!(format_f64(1e16), "1e16");
        assert_eq!(format_f64(1.5e20), "1.5e20");
        assert_eq!(format_f64(-0.0), "-0");
        assert_eq!(format_f64(f64::NAN), "NaN");
        assert_eq!(format_f64(f64::NEG_INFINITY), "-inf");
        for x in [0.1 + 0.2, 1.0 / 3.0, 6.02214076e23, 5e-324, f64::MAX, 123456.789] {
            let s = format_f64(x);
            assert_eq!(s.parse::<f64>().ok(), Some(x), "{s}");
        }
    }
}
