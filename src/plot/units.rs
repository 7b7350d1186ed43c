//! Axis titles: a column of `stats.csv` or `sweep.csv` with its SI unit.

/// The unit of a column, `None` where it is a pure number or unknown.
pub fn unit(column: &str) -> Option<&'static str> {
    // sweep.csv reductions (`max:min_gap`) carry the column's unit.
    let column = column.rsplit(':').next().unwrap_or(column);
    // A body's columns are `name.x`, `name.vx`; a swept path ends in its field's name.
    let last = column.rsplit(['.', ']']).next().unwrap_or(column);
    if column.contains('.') && !column.contains(['[', '"']) && matches!(last, "x" | "y" | "z") {
        return Some("m");
    }
    if column.contains('.') && matches!(last, "vx" | "vy" | "vz") {
        return Some("m/s");
    }
    Some(match last {
        "time" | "wall_s" | "dt" | "duration" | "assembly_s" | "linear_solve_s" | "detection_s" | "projection_s"
        | "wall_seconds" => "s",
        "min_gap" | "delta" | "radius" | "thickness" | "epsilon" | "size" => "m",
        "kinetic_energy" | "elastic_energy" => "J",
        "final_residual" => "m/s²",
        "kappa" => "N/m",
        "youngs_modulus" | "shear_modulus" => "Pa",
        "density" => "kg/m³",
        "frame_rate" => "1/s",
        _ => return None,
    })
}

/// `column [unit]`, or the column alone.
pub fn title(column: &str) -> String {
    match unit(column) {
        Some(u) => format!("{column} [{u}]"),
        None => column.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn columns_and_swept_paths() {
        assert_eq!(title("time"), "time [s]");
        assert_eq!(title("block.x"), "block.x [m]");
        assert_eq!(title("block.vz"), "block.vz [m/s]");
        assert_eq!(title("max:min_gap"), "max:min_gap [m]");
        assert_eq!(title("friction.pairs[0].mu"), "friction.pairs[0].mu");
        assert_eq!(title("dt"), "dt [s]");
        assert_eq!(title("newton_iters"), "newton_iters");
    }
}
