//! Number formatting shared by the text writers (CSV, PVD).

/// Formats an `f64` with the fewest characters that still parse back to the same value.
///
/// Rust's `{}` and `{:e}` both print the shortest digit string that round-trips (Grisu/Ryu);
/// they differ only in where the decimal point goes. `{}` never uses an exponent, so `1e-300`
/// would take 300+ characters, while `{:e}` turns `0.5` into `5e-1`. We print both and keep the
/// shorter (ties go to `{}`, which is easier to read). Non-finite values print as `NaN`, `inf`
/// and `-inf`, which Python, pandas, NumPy and ParaView all parse.
pub fn format_f64(x: f64) -> String {
    let plain = format!("{x}");
    if !x.is_finite() {
        return plain;
    }
    let sci = format!("{x:e}");
    if sci.len() < plain.len() { sci } else { plain }
}

#[cfg(test)]
mod tests {
    use super::format_f64;

    #[test]
    fn shortest_and_round_trips() {
        assert_eq!(format_f64(0.5), "0.5");
        assert_eq!(format_f64(1e-7), "1e-7");
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
