//! `fricsim plot`: line plots of what runs measured (`stats.csv` columns against time, several
//! runs overlaid, a `sweep.csv` metric against a swept parameter, closed-form curves beside them),
//! drawn with plotters into PNG or SVG. The text font (DejaVu Sans, `assets/fonts`) is built into
//! the binary, so a plot looks the same on every machine and needs no system font library.

pub mod expr;
pub mod units;

use plotters::coord::Shift;
use plotters::coord::ranged1d::{AsRangedCoord, ValueFormatter};
use plotters::prelude::*;

/// One line of a figure.
#[derive(Debug, Clone, PartialEq)]
pub struct Series {
    pub label: String,
    pub points: Vec<(f64, f64)>,
    pub style: Style,
}

#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Style {
    /// Measured values joined by a line.
    Line,
    /// Measured values marked and joined (few points: a sweep).
    Markers,
    /// A closed-form answer: dashed.
    Dashed,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Figure {
    pub title: String,
    pub x_title: String,
    pub y_title: String,
    pub log_x: bool,
    pub log_y: bool,
    pub size: (u32, u32),
    pub series: Vec<Series>,
}

#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Format {
    Png,
    Svg,
}

/// The largest picture side accepted (pixels): a 8000 × 8000 RGB buffer is 192 MB.
pub const MAX_SIDE: u32 = 8000;
/// The smallest side that leaves room for the axes, their titles and a plot area.
pub const MIN_SIDE: u32 = 200;

/// The distinguishable colours series take in turn (measured lines; closed forms are black).
const COLOURS: [RGBColor; 8] = [
    RGBColor(31, 119, 180),
    RGBColor(214, 39, 40),
    RGBColor(44, 160, 44),
    RGBColor(255, 127, 14),
    RGBColor(148, 103, 189),
    RGBColor(140, 86, 75),
    RGBColor(227, 119, 194),
    RGBColor(23, 190, 207),
];

const FONT: &str = "sans-serif";

fn register_font() -> Result<(), String> {
    static REGISTERED: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    let ok = *REGISTERED.get_or_init(|| {
        let bytes: &'static [u8] = include_bytes!("../../assets/fonts/DejaVuSans.ttf");
        plotters::style::register_font(FONT, FontStyle::Normal, bytes).is_ok()
    });
    if ok { Ok(()) } else { Err("the built-in font could not be loaded".to_string()) }
}

/// Draw the figure and encode it.
pub fn render(fig: &Figure, format: Format) -> Result<Vec<u8>, String> {
    register_font()?;
    let (w, h) = fig.size;
    if !(MIN_SIDE..=MAX_SIDE).contains(&w) || !(MIN_SIDE..=MAX_SIDE).contains(&h) {
        return Err(format!("--size {w}x{h}: each side must be {MIN_SIDE} to {MAX_SIDE} pixels"));
    }
    let ranges = Ranges::of(fig)?;
    match format {
        Format::Svg => {
            let mut text = String::new();
            draw_on(SVGBackend::with_string(&mut text, (w, h)).into_drawing_area(), fig, &ranges)?;
            Ok(text.into_bytes())
        }
        Format::Png => {
            let mut rgb = vec![0u8; w as usize * h as usize * 3];
            draw_on(BitMapBackend::with_buffer(&mut rgb, (w, h)).into_drawing_area(), fig, &ranges)?;
            let mut png = Vec::new();
            image::codecs::png::PngEncoder::new(&mut png)
                .write_image(&rgb, w, h, image::ExtendedColorType::Rgb8)
                .map_err(|e| format!("encoding the PNG: {e}"))?;
            Ok(png)
        }
    }
}

use image::ImageEncoder;

/// The axes' extents: every finite point (positive on a log axis), padded by 4 % of the span
/// (of the logarithms on a log axis) so that no point sits on the frame.
struct Ranges {
    x: (f64, f64),
    y: (f64, f64),
}

impl Ranges {
    fn of(fig: &Figure) -> Result<Ranges, String> {
        let shown = |p: &&(f64, f64)| {
            p.0.is_finite() && p.1.is_finite() && (!fig.log_x || p.0 > 0.0) && (!fig.log_y || p.1 > 0.0)
        };
        let pts: Vec<(f64, f64)> = fig.series.iter().flat_map(|s| s.points.iter().filter(shown).copied()).collect();
        if pts.is_empty() {
            let log = if fig.log_x || fig.log_y { " (a log axis shows positive values only)" } else { "" };
            return Err(format!("nothing to plot: no finite values{log}"));
        }
        let extent = |vals: Vec<f64>, log: bool| {
            let (lo, hi) = vals.iter().fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), &v| (a.min(v), b.max(v)));
            match (log, hi > lo) {
                (true, true) => {
                    let pad = (hi / lo).powf(0.04);
                    (lo / pad, hi * pad)
                }
                (true, false) => (lo / 2.0, hi * 2.0),
                (false, true) => (lo - 0.04 * (hi - lo), hi + 0.04 * (hi - lo)),
                (false, false) => (lo - 0.5 * lo.abs().max(1e-300), hi + 0.5 * hi.abs().max(1e-300)),
            }
        };
        Ok(Ranges {
            x: extent(pts.iter().map(|p| p.0).collect(), fig.log_x),
            y: extent(pts.iter().map(|p| p.1).collect(), fig.log_y),
        })
    }
}

impl Ranges {
    /// Where the legend hides the fewest points: the corner (a third of each axis) holding the
    /// fewest of them.
    fn emptiest_corner(&self, fig: &Figure) -> SeriesLabelPosition {
        let frac = |v: f64, (lo, hi): (f64, f64), log: bool| {
            if log { (v.ln() - lo.ln()) / (hi.ln() - lo.ln()) } else { (v - lo) / (hi - lo) }
        };
        let mut count = [0usize; 4];
        for p in fig.series.iter().flat_map(|s| &s.points).filter(|p| p.0.is_finite() && p.1.is_finite()) {
            let (fx, fy) = (frac(p.0, self.x, fig.log_x), frac(p.1, self.y, fig.log_y));
            let (left, right, low, high) = (fx < 0.4, fx > 0.6, fy < 0.35, fy > 0.65);
            count[0] += usize::from(left && high);
            count[1] += usize::from(right && high);
            count[2] += usize::from(left && low);
            count[3] += usize::from(right && low);
        }
        let best = (0..4).min_by_key(|&k| count[k]).unwrap_or(0);
        match best {
            0 => SeriesLabelPosition::UpperLeft,
            1 => SeriesLabelPosition::UpperRight,
            2 => SeriesLabelPosition::LowerLeft,
            _ => SeriesLabelPosition::LowerRight,
        }
    }
}

/// A tick label: short, and `0` rather than `-0.0` or `1e-17` at a zero crossing.
fn tick(v: f64, (lo, hi): (f64, f64)) -> String {
    let a = v.abs();
    if a == 0.0 || (lo < 0.0 && hi > 0.0 && a < 1e-9 * (hi - lo)) {
        return "0".to_string();
    }
    let trim = |s: String| {
        if s.contains('.') { s.trim_end_matches('0').trim_end_matches('.').to_string() } else { s }
    };
    if (1e-3..1e5).contains(&a) {
        return trim(format!("{v:.6}"));
    }
    let s = format!("{v:.3e}");
    match s.split_once('e') {
        Some((m, e)) => format!("{}e{e}", trim(m.to_string())),
        None => s,
    }
}

/// Series with at most this many points are drawn with markers as well as their line.
const MARKED_POINTS: usize = 40;

fn draw_on<DB: DrawingBackend>(root: DrawingArea<DB, Shift>, fig: &Figure, r: &Ranges) -> Result<(), String> {
    let (x, y) = (r.x.0..r.x.1, r.y.0..r.y.1);
    match (fig.log_x, fig.log_y) {
        (false, false) => draw(&root, fig, r, x, y),
        (true, false) => draw(&root, fig, r, x.log_scale(), y),
        (false, true) => draw(&root, fig, r, x, y.log_scale()),
        (true, true) => draw(&root, fig, r, x.log_scale(), y.log_scale()),
    }?;
    root.present().map_err(|e| format!("drawing: {e:?}"))
}

fn draw<DB, X, Y>(root: &DrawingArea<DB, Shift>, fig: &Figure, r: &Ranges, x: X, y: Y) -> Result<(), String>
where
    DB: DrawingBackend,
    X: AsRangedCoord<Value = f64>,
    Y: AsRangedCoord<Value = f64>,
    X::CoordDescType: ValueFormatter<f64>,
    Y::CoordDescType: ValueFormatter<f64>,
{
    let err = |e: DrawingAreaErrorKind<DB::ErrorType>| format!("drawing: {e:?}");
    root.fill(&WHITE).map_err(err)?;
    let side = fig.size.0.min(fig.size.1) as f64;
    let text = |scale: f64| (FONT, (side * scale).clamp(10.0, 60.0));
    let mut chart = ChartBuilder::on(root)
        .caption(&fig.title, text(0.045))
        .margin((side * 0.025) as u32)
        .x_label_area_size((side * 0.09) as u32)
        .y_label_area_size((side * 0.14) as u32)
        .build_cartesian_2d(x, y)
        .map_err(err)?;
    chart
        .configure_mesh()
        .x_desc(&fig.x_title)
        .y_desc(&fig.y_title)
        .label_style(text(0.026))
        .axis_desc_style(text(0.03))
        .light_line_style(WHITE.mix(0.0))
        .x_label_formatter(&|v| tick(*v, r.x))
        .y_label_formatter(&|v| tick(*v, r.y))
        .draw()
        .map_err(err)?;
    let finite = |p: &&(f64, f64)| p.0.is_finite() && p.1.is_finite();
    let mut measured = 0;
    for s in &fig.series {
        let colour = match s.style {
            Style::Dashed => BLACK,
            _ => {
                measured += 1;
                COLOURS[(measured - 1) % COLOURS.len()]
            }
        };
        let stroke = colour.stroke_width(((side / 400.0).round() as u32).max(1) + 1);
        let pts = s.points.iter().filter(finite).copied();
        let label = s.label.clone();
        if s.style == Style::Dashed {
            chart.draw_series(DashedLineSeries::new(pts, 8, 5, stroke)).map_err(err)?.label(label).legend(
                move |(x, y)| plotters::element::DashedPathElement::new(vec![(x, y), (x + 24, y)], 6, 4, stroke),
            );
        } else {
            chart
                .draw_series(LineSeries::new(pts, stroke))
                .map_err(err)?
                .label(label)
                .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 24, y)], stroke));
        }
        // Markers where the points are few (a table's rows, a sweep's points): a line alone would
        // hide single points and the positions of sparse ones.
        if s.style == Style::Markers || (s.style != Style::Dashed && s.points.len() <= MARKED_POINTS) {
            let r = ((side / 160.0) as i32).max(2);
            chart
                .draw_series(s.points.iter().filter(finite).map(|&p| Circle::new(p, r, colour.filled())))
                .map_err(err)?;
        }
    }
    if fig.series.len() > 1 || fig.series.iter().any(|s| !s.label.is_empty()) {
        chart
            .configure_series_labels()
            .label_font(text(0.026))
            .border_style(BLACK)
            .background_style(WHITE.mix(0.85))
            .position(r.emptiest_corner(fig))
            .draw()
            .map_err(err)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tick_labels() {
        assert_eq!(tick(0.30000000000000004, (0.0, 1.0)), "0.3");
        assert_eq!(tick(-1e-17, (-1.0, 1.0)), "0");
        assert_eq!(tick(2.5e-7, (1e-8, 1e-6)), "2.5e-7");
        assert_eq!(tick(1e6, (0.0, 2e6)), "1e6");
        assert_eq!(tick(-1.25, (-2.0, 0.0)), "-1.25");
    }
}
