//! Parameter studies: the points of a sweep (the product, or the pairing, of axes over `--set`
//! paths), their folders, and the table that joins each point's parameters with its outcome.

pub mod emit;
pub mod table;

/// Sweeps larger than this are refused before anything is run or allocated per point.
pub const MAX_POINTS: usize = 100_000;

/// One axis: a `--set` path and the values (RON text) it takes.
#[derive(Debug, Clone, PartialEq)]
pub struct Axis {
    pub path: String,
    pub values: Vec<String>,
}

/// One point: `(path, value)` per axis.
pub type Point = Vec<(String, String)>;

fn split_assignment(spec: &str, flag: &str) -> Result<(String, String), String> {
    match spec.split_once('=') {
        Some((p, v)) if !p.trim().is_empty() && !v.trim().is_empty() => {
            Ok((p.trim().to_string(), v.trim().to_string()))
        }
        _ => Err(format!("{flag} {spec:?}: expected PATH=VALUES, e.g. friction.pairs[0].mu=0.1:0.3:5")),
    }
}

/// `--grid 'PATH=a:b:n'` (n values from a to b, linear) or `'PATH=a:b:n:log'` (geometric).
pub fn parse_grid(spec: &str) -> Result<Axis, String> {
    let (path, range) = split_assignment(spec, "--grid")?;
    let parts: Vec<&str> = range.split(':').collect();
    let bad = |why: &str| format!("--grid {spec:?}: {why}; expected a:b:n or a:b:n:log");
    let (log, parts) = match parts.as_slice() {
        [a, b, n] => (false, [*a, *b, *n]),
        [a, b, n, "log"] => (true, [*a, *b, *n]),
        _ => return Err(bad("wrong number of fields")),
    };
    let a: f64 = parts[0].trim().parse().map_err(|_| bad("a is not a number"))?;
    let b: f64 = parts[1].trim().parse().map_err(|_| bad("b is not a number"))?;
    let n: usize = parts[2].trim().parse().map_err(|_| bad("n is not a whole number"))?;
    if !(a.is_finite() && b.is_finite()) {
        return Err(bad("a and b must be finite"));
    }
    if !(1..=MAX_POINTS).contains(&n) || (n == 1 && a != b) {
        return Err(bad(&format!("n must be in 1..={MAX_POINTS} (1 only when a = b)")));
    }
    if log && !(a > 0.0 && b > 0.0) {
        return Err(bad("a log grid needs a > 0 and b > 0"));
    }
    let at = |k: usize| {
        let s = if n == 1 { 0.0 } else { k as f64 / (n - 1) as f64 };
        if log { (a.ln() + s * (b.ln() - a.ln())).exp() } else { a + s * (b - a) }
    };
    // Rounded to 15 significant digits (0.02, not 0.019999999999999997, between 0.01 and 0.03),
    // then the shortest text that reads back as that f64; exact at the ends.
    let round = |x: f64| format!("{x:.14e}").parse::<f64>().unwrap_or(x);
    let values = (0..n)
        .map(|k| {
            if k + 1 == n {
                b
            } else if k == 0 {
                a
            } else {
                round(at(k))
            }
        })
        .map(|x| format!("{x:?}"))
        .collect();
    Ok(Axis { path, values })
}

/// `--list 'PATH=v1,v2,...'`: any RON values, split at the commas outside brackets and quotes.
pub fn parse_list(spec: &str) -> Result<Axis, String> {
    let (path, text) = split_assignment(spec, "--list")?;
    let (mut values, mut cur, mut depth, mut quoted) = (Vec::new(), String::new(), 0i32, false);
    for c in text.chars() {
        match c {
            '"' => quoted = !quoted,
            '(' | '[' | '{' if !quoted => depth += 1,
            ')' | ']' | '}' if !quoted => depth -= 1,
            ',' if !quoted && depth == 0 => {
                values.push(std::mem::take(&mut cur).trim().to_string());
                continue;
            }
            _ => {}
        }
        cur.push(c);
    }
    values.push(cur.trim().to_string());
    if quoted || depth != 0 || values.iter().any(|v| v.is_empty()) {
        return Err(format!("--list {spec:?}: unbalanced brackets or quotes, or an empty value"));
    }
    Ok(Axis { path, values })
}

/// The points: every combination of the axes' values (the first axis slowest), or with `zip`
/// the axes paired value by value (they must then have the same length).
pub fn points(axes: &[Axis], zip: bool) -> Result<Vec<Point>, String> {
    if axes.is_empty() {
        return Err("a sweep needs at least one --grid or --list axis".into());
    }
    if zip {
        let n = axes[0].values.len();
        if let Some(a) = axes.iter().find(|a| a.values.len() != n) {
            return Err(format!(
                "--zip pairs the axes value by value: {} has {} values, {} has {n}",
                a.path,
                a.values.len(),
                axes[0].path
            ));
        }
        return Ok((0..n).map(|k| axes.iter().map(|a| (a.path.clone(), a.values[k].clone())).collect()).collect());
    }
    let total = axes.iter().try_fold(1usize, |t, a| t.checked_mul(a.values.len()).filter(|&t| t <= MAX_POINTS));
    let Some(total) = total else {
        return Err(format!("the sweep has more than {MAX_POINTS} points; split it"));
    };
    Ok((0..total)
        .map(|mut k| {
            let mut point: Point = Vec::with_capacity(axes.len());
            for a in axes.iter().rev() {
                point.push((a.path.clone(), a.values[k % a.values.len()].clone()));
                k /= a.values.len();
            }
            point.reverse();
            point
        })
        .collect())
}

/// Folder of point `index`: its number and its parameters (`path=value`, characters outside
/// `[A-Za-z0-9._=-]` replaced by `-`), at most 120 characters.
pub fn folder_name(index: usize, point: &Point) -> String {
    let params: Vec<String> = point
        .iter()
        .map(|(p, v)| {
            let leaf = p.rsplit('.').next().unwrap_or(p);
            format!("{leaf}={v}")
        })
        .collect();
    let clean: String = params
        .join("_")
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() || "._=-".contains(c) { c } else { '-' })
        .collect();
    let mut name = format!("p{index:04}_{clean}");
    name.truncate(120);
    name
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn grids_lists_products_and_zips() {
        let g = parse_grid("dt=0.01:0.03:3").unwrap();
        assert_eq!(g.values, ["0.01", "0.02", "0.03"]);
        let l = parse_grid("x=1:100:3:log").unwrap();
        assert_eq!(l.values, ["1.0", "10.0", "100.0"]);
        let c = parse_list("bodies[0].mesh.cells=(4, 4, 4),(8, 8, 8)").unwrap();
        assert_eq!(c.values, ["(4, 4, 4)", "(8, 8, 8)"]);
        let p = points(&[g.clone(), c.clone()], false).unwrap();
        assert_eq!(p.len(), 6);
        assert_eq!(p[1], vec![("dt".to_string(), "0.01".to_string()), (c.path.clone(), "(8, 8, 8)".to_string())]);
        assert!(points(&[g.clone(), c], true).unwrap_err().contains("--zip"));
        assert_eq!(points(&[g.clone(), g], true).unwrap().len(), 3);
        for bad in ["dt=1:2", "dt=a:2:3", "dt=1:2:0", "x=0:1:3:log", "=1:2:3", "dt=1:2:1000000"] {
            assert!(parse_grid(bad).is_err(), "{bad}");
        }
        assert!(parse_list("x=(1,2").is_err());
        let big = parse_grid("a=0:1:1000").unwrap();
        assert!(points(&[big.clone(), big.clone()], false).unwrap_err().contains("more than"));
        assert_eq!(folder_name(3, &vec![("friction.pairs[0].mu".into(), "0.176".into())]), "p0003_mu=0.176");
    }
}
