//! `fricsim plot INPUT... -y COLUMN`: a PNG or SVG of what runs measured. An input is a run
//! folder (its `stats.csv`), a CSV file, or a sweep (its folder or `sweep.csv`). Columns are
//! drawn against `-x` (default `time`); a sweep's points are overlaid with their parameters as
//! legend, or, when `-x` names a swept parameter, its `sweep.csv` metric is drawn against it, one
//! line per value of the other parameters. `--curve LABEL=EXPR` adds a closed-form answer.

use super::PlotArgs;
use crate::output::csv_table::Table;
use crate::plot::expr::Expr;
use crate::plot::{Figure, Format, Series, Style, render, units};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

/// Points a closed-form curve is sampled at across the plotted abscissa.
const CURVE_SAMPLES: usize = 400;

pub fn run(args: &PlotArgs) -> ExitCode {
    match plot(args) {
        Ok(path) => {
            println!("wrote {}", path.display());
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::from(super::exit::BAD_INPUT)
        }
    }
}

fn plot(args: &PlotArgs) -> Result<PathBuf, String> {
    let out = args.out.clone().unwrap_or_else(|| default_out(args));
    let format = match out.extension().and_then(|e| e.to_str()).map(str::to_ascii_lowercase).as_deref() {
        Some("png") => Format::Png,
        Some("svg") => Format::Svg,
        _ => return Err(format!("--out {}: the file must end in .png or .svg", out.display())),
    };
    let size = parse_size(&args.size)?;
    let curves: Vec<(String, Expr)> = args.curves.iter().map(|c| parse_curve(c)).collect::<Result<_, _>>()?;
    let inputs: Vec<Input> = args.inputs.iter().map(|p| Input::open(p)).collect::<Result<_, _>>()?;
    if !args.labels.is_empty() && args.labels.len() != inputs.len() {
        return Err(format!("--label: {} given for {} inputs; give one per input", args.labels.len(), inputs.len()));
    }
    let mut series = Vec::new();
    for (k, input) in inputs.iter().enumerate() {
        let label = args.labels.get(k).cloned();
        series.extend(input.series(&args.x, &args.y, label, inputs.len() > 1)?);
    }
    add_curves(&mut series, &curves, args.log_x);
    let y_title = match args.y.as_slice() {
        [one] => units::title(one),
        _ => shared_unit(&args.y),
    };
    let fig = Figure {
        title: args.title.clone().unwrap_or_else(|| format!("{} against {}", args.y.join(", "), args.x)),
        x_title: units::title(&args.x),
        y_title,
        log_x: args.log_x,
        log_y: args.log_y,
        size,
        series,
    };
    let bytes = render(&fig, format)?;
    crate::output::atomic::write_bytes_atomically(&out, &bytes).map_err(|e| e.to_string())?;
    Ok(out)
}

/// `<first input folder>/<y>[_vs_<x>].png`.
fn default_out(args: &PlotArgs) -> PathBuf {
    let first = &args.inputs[0];
    let dir = if first.is_dir() { first.clone() } else { first.parent().map(Path::to_path_buf).unwrap_or_default() };
    let y = args.y.first().map_or("plot", String::as_str);
    let stem = if args.x == "time" { y.to_string() } else { format!("{y}_vs_{}", args.x) };
    let clean: String =
        stem.chars().map(|c| if c.is_ascii_alphanumeric() || "._-".contains(c) { c } else { '_' }).collect();
    dir.join(format!("{clean}.png"))
}

/// Several columns on one axis: their unit if they share it.
fn shared_unit(columns: &[String]) -> String {
    let first = units::unit(&columns[0]);
    match first {
        Some(u) if columns.iter().all(|c| units::unit(c) == first) => format!("[{u}]"),
        _ => String::new(),
    }
}

fn parse_size(s: &str) -> Result<(u32, u32), String> {
    let bad = || format!("--size {s:?}: expected WIDTHxHEIGHT in pixels, e.g. 1000x640");
    let (w, h) = s.split_once(['x', 'X']).ok_or_else(bad)?;
    Ok((w.trim().parse().map_err(|_| bad())?, h.trim().parse().map_err(|_| bad())?))
}

fn parse_curve(spec: &str) -> Result<(String, Expr), String> {
    // The expression holds no '=', the label may.
    let (label, text) = spec
        .rsplit_once('=')
        .ok_or_else(|| format!("--curve {spec:?}: expected LABEL=EXPRESSION, e.g. 'a t^2/2=0.5*1.2*t^2'"))?;
    let e = Expr::parse(text).map_err(|e| format!("--curve {label:?}: {e}"))?;
    Ok((label.trim().to_string(), e))
}

/// Closed forms sampled across the abscissa of the measured series.
fn add_curves(series: &mut Vec<Series>, curves: &[(String, Expr)], log_x: bool) {
    let xs = series.iter().flat_map(|s| s.points.iter().map(|p| p.0)).filter(|x| x.is_finite() && (!log_x || *x > 0.0));
    let (lo, hi) = xs.fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), x| (a.min(x), b.max(x)));
    if lo > hi {
        return;
    }
    let at = |k: usize| {
        let s = k as f64 / (CURVE_SAMPLES - 1) as f64;
        if log_x { lo * (hi / lo).powf(s) } else { lo + s * (hi - lo) }
    };
    for (label, e) in curves {
        let points = (0..CURVE_SAMPLES).map(at).map(|x| (x, e.eval(x))).collect();
        series.push(Series { label: label.clone(), points, style: Style::Dashed });
    }
}

/// What one input names.
enum Input {
    /// A CSV of rows against time (`stats.csv`).
    Run { path: PathBuf, table: Table },
    /// A sweep's folder with its `sweep.csv` and its points' folders.
    Sweep { dir: PathBuf, table: Table },
}

impl Input {
    fn open(path: &Path) -> Result<Input, String> {
        if path.is_dir() {
            if path.join("sweep.csv").is_file() {
                return Ok(Input::Sweep { dir: path.to_path_buf(), table: Table::read(&path.join("sweep.csv"))? });
            }
            if path.join("stats.csv").is_file() {
                return Ok(Input::Run { path: path.to_path_buf(), table: Table::read(&path.join("stats.csv"))? });
            }
            return Err(format!("{}: a folder with neither stats.csv (a run) nor sweep.csv (a sweep)", path.display()));
        }
        if !path.exists() {
            return Err(format!("{}: no such file or folder", path.display()));
        }
        let table = Table::read(path)?;
        if path.file_name().is_some_and(|n| n == "sweep.csv") {
            let dir = path.parent().map(Path::to_path_buf).unwrap_or_default();
            return Ok(Input::Sweep { dir, table });
        }
        Ok(Input::Run { path: path.to_path_buf(), table })
    }

    fn series(&self, x: &str, ys: &[String], label: Option<String>, several: bool) -> Result<Vec<Series>, String> {
        match self {
            Input::Run { path, table } => {
                let name = label.unwrap_or_else(|| run_name(path));
                let name = several.then_some(name);
                columns(table, &path.display().to_string(), x, ys, name.as_deref(), Style::Line)
            }
            Input::Sweep { dir, table } if x != "time" && table.column(x).is_some() => {
                sweep_metric(table, &dir.join("sweep.csv"), x, ys)
            }
            Input::Sweep { dir, .. } => {
                let mut out = Vec::new();
                for (params, run_dir) in sweep_points(dir)? {
                    let stats = run_dir.join("stats.csv");
                    let Ok(table) = Table::read(&stats) else { continue };
                    let name = match &label {
                        Some(l) => format!("{l} {params}"),
                        None => params,
                    };
                    out.extend(columns(&table, &stats.display().to_string(), x, ys, Some(&name), Style::Line)?);
                }
                if out.is_empty() {
                    return Err(format!("{}: no point of the sweep has a stats.csv yet", dir.display()));
                }
                Ok(out)
            }
        }
    }
}

/// A run's name for the legend: its folder's name.
fn run_name(path: &Path) -> String {
    let dir = if path.is_dir() { Some(path) } else { path.parent() };
    dir.and_then(Path::file_name).map_or_else(|| path.display().to_string(), |n| n.to_string_lossy().into_owned())
}

fn column_of(table: &Table, source: &str, name: &str) -> Result<usize, String> {
    table.column(name).ok_or_else(|| {
        let known = table.header.join(", ");
        format!("{source}: no column {name:?}; its columns are: {known}")
    })
}

/// The columns `ys` of a table against its column `x`, labelled by the run and/or the column.
fn columns(
    table: &Table,
    source: &str,
    x: &str,
    ys: &[String],
    run: Option<&str>,
    style: Style,
) -> Result<Vec<Series>, String> {
    let xs = table.numbers(column_of(table, source, x)?);
    ys.iter()
        .map(|y| {
            let vs = table.numbers(column_of(table, source, y)?);
            let label = match (run, ys.len()) {
                (Some(r), 1) => r.to_string(),
                (Some(r), _) => format!("{r}: {y}"),
                (None, _) => y.clone(),
            };
            Ok(Series { label, points: xs.iter().copied().zip(vs).collect(), style })
        })
        .collect()
}

/// A `sweep.csv` metric against a swept parameter, one line per value of the other parameters;
/// points that did not complete are left out (their metrics describe a run cut short).
fn sweep_metric(table: &Table, source: &Path, x: &str, ys: &[String]) -> Result<Vec<Series>, String> {
    let src = source.display().to_string();
    let status = column_of(table, &src, "status")?;
    let params: Vec<usize> = (1..status).filter(|&c| table.header[c] != x).collect();
    let xc = column_of(table, &src, x)?;
    let mut groups: Vec<(String, Vec<&Vec<String>>)> = Vec::new();
    let mut skipped = 0;
    for row in &table.rows {
        if row.get(status).map(String::as_str) != Some("completed") {
            skipped += 1;
            continue;
        }
        let key = params
            .iter()
            .map(|&c| format!("{}={}", leaf(&table.header[c]), row.get(c).map_or("", String::as_str)))
            .collect::<Vec<_>>()
            .join(" ");
        match groups.iter_mut().find(|g| g.0 == key) {
            Some(g) => g.1.push(row),
            None => groups.push((key, vec![row])),
        }
    }
    if skipped > 0 {
        eprintln!("note: {skipped} point(s) of {src} did not complete and are not drawn");
    }
    let mut out = Vec::new();
    for y in ys {
        let yc = column_of(table, &src, y)?;
        for (key, rows) in &groups {
            let num = |r: &Vec<String>, c: usize| r.get(c).and_then(|s| s.parse::<f64>().ok()).unwrap_or(f64::NAN);
            if rows.iter().all(|r| num(r, xc).is_nan()) {
                return Err(format!("{src}: the swept values of {x} are not numbers"));
            }
            let mut points: Vec<(f64, f64)> = rows.iter().map(|r| (num(r, xc), num(r, yc))).collect();
            points.sort_by(|a, b| a.0.total_cmp(&b.0));
            let label = match (key.is_empty(), ys.len()) {
                (true, _) => y.clone(),
                (false, 1) => key.clone(),
                (false, _) => format!("{y}: {key}"),
            };
            out.push(Series { label, points, style: Style::Markers });
        }
    }
    Ok(out)
}

fn leaf(path: &str) -> &str {
    path.rsplit('.').next().unwrap_or(path)
}

/// The points' folders of a sweep (those with a `point.json`), in point order, with their
/// parameters as a legend.
fn sweep_points(dir: &Path) -> Result<Vec<(String, PathBuf)>, String> {
    let entries = std::fs::read_dir(dir).map_err(|e| format!("{}: cannot list: {e}", dir.display()))?;
    let mut points = Vec::new();
    for entry in entries.flatten() {
        let path = entry.path();
        let Ok(text) = std::fs::read_to_string(path.join("point.json")) else { continue };
        let Ok(json) = serde_json::from_str::<serde_json::Value>(&text) else { continue };
        let index = json["point"].as_u64().unwrap_or(u64::MAX);
        let params = json["parameters"]
            .as_object()
            .map(|m| m.iter().map(|(k, v)| format!("{}={}", leaf(k), v.as_str().unwrap_or(""))).collect::<Vec<_>>())
            .unwrap_or_default()
            .join(" ");
        points.push((index, params, path));
    }
    points.sort_by_key(|p| p.0);
    Ok(points.into_iter().map(|(_, l, p)| (l, p)).collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_and_curves() {
        assert_eq!(parse_size("800x600").unwrap(), (800, 600));
        assert!(parse_size("800").is_err());
        assert!(parse_size("-1x5").is_err());
        let (l, e) = parse_curve("a t^2/2 = 0.5*2*t^2").unwrap();
        assert_eq!(l, "a t^2/2");
        assert_eq!(e.eval(3.0), 9.0);
        assert_eq!(parse_curve("mu = 0.1 = t").unwrap().0, "mu = 0.1");
        assert!(parse_curve("no equals").is_err());
    }
}
