//! `fricsim plot`: a run's column against time beside its closed form (PNG), a sweep's metric
//! against its swept parameter (one line per value of the other parameter), SVG output, and bad
//! requests refused with a message naming what is wrong.

use std::path::Path;
use std::process::{Command, Output};

const BIN: &str = env!("CARGO_BIN_EXE_fricsim");

fn fricsim(args: &[&str]) -> Output {
    Command::new(BIN).args(args).output().expect("run fricsim")
}

fn write(path: &Path, text: &str) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

/// A run folder whose stats.csv holds x = t² at 50 steps (a stand-in for a sliding body).
fn fake_run(dir: &Path, scale: f64) {
    let mut csv = String::from("step,time,wall_s,block.x\n");
    for k in 1..=50 {
        let t = k as f64 * 0.02;
        csv.push_str(&format!("{k},{t},0.001,{}\n", scale * t * t));
    }
    write(&dir.join("stats.csv"), &csv);
}

/// Decoded RGB pixels and how many of them have the given colour (within 40 per channel:
/// anti-aliasing blends line edges).
fn pixels(png: &Path) -> (u32, u32, Vec<[u8; 3]>) {
    let img = image::open(png).expect("a PNG image can decode").to_rgb8();
    let (w, h) = img.dimensions();
    (w, h, img.pixels().map(|p| p.0).collect())
}

fn count(px: &[[u8; 3]], c: [u8; 3]) -> usize {
    px.iter().filter(|p| (0..3).all(|i| (p[i] as i32 - c[i] as i32).abs() < 40)).count()
}

const BLUE: [u8; 3] = [31, 119, 180];
const RED: [u8; 3] = [214, 39, 40];

#[test]
fn a_run_against_its_closed_form_is_a_png_of_the_asked_size_with_both_lines() {
    let dir = tempfile::tempdir().unwrap();
    let run = dir.path().join("run");
    fake_run(&run, 1.0);
    let png = dir.path().join("x.png");
    let o = fricsim(&[
        "plot",
        run.to_str().unwrap(),
        "-y",
        "block.x",
        "--curve",
        "t^2=t^2",
        "--size",
        "640x400",
        "-o",
        png.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let (w, h, px) = pixels(&png);
    assert_eq!((w, h), (640, 400));
    // Not blank: a white background, a measured line of a few hundred blue pixels (a 2-pixel line
    // across a 500-pixel plot), and black from the axes, text and the dashed curve.
    let white = count(&px, [255, 255, 255]);
    assert!(white > px.len() / 2 && white < px.len() - 2000, "white {white} of {}", px.len());
    assert!(count(&px, BLUE) > 300, "measured line: {} blue pixels", count(&px, BLUE));
    assert!(count(&px, [0, 0, 0]) > 1000, "axes, text and curve: {} black pixels", count(&px, [0, 0, 0]));
    // Default name: the column in the run's folder; SVG by extension, with the titles as text.
    let o = fricsim(&["plot", run.to_str().unwrap(), "-y", "block.x"]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert!(run.join("block.x.png").is_file());
    let svg = dir.path().join("x.svg");
    let o = fricsim(&["plot", run.to_str().unwrap(), "-y", "block.x", "--log-y", "-o", svg.to_str().unwrap()]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let text = std::fs::read_to_string(&svg).unwrap();
    assert!(text.starts_with("<svg") && text.contains("time [s]") && text.contains("block.x [m]"), "{}", &text[..200]);
}

#[test]
fn a_sweep_metric_against_its_parameter_draws_one_line_per_other_parameter() {
    let dir = tempfile::tempdir().unwrap();
    let sweep = dir.path().join("sweep");
    let mut csv = String::from("point,friction.pairs[0].mu,dt,status,exit_status,wall_s,steps,failed_steps,box.vx\n");
    for (k, (mu, dt)) in
        [(0.1, 0.01), (0.2, 0.01), (0.3, 0.01), (0.1, 0.02), (0.2, 0.02), (0.3, 0.02)].iter().enumerate()
    {
        csv.push_str(&format!("{k},{mu},{dt},completed,completed,0.1,10,0,{}\n", 1.0 - mu - dt));
    }
    csv.push_str("6,0.4,0.02,failed,failed: diverged,0.1,3,1,\n");
    write(&sweep.join("sweep.csv"), &csv);
    let png = dir.path().join("m.png");
    let o = fricsim(&[
        "plot",
        sweep.to_str().unwrap(),
        "-x",
        "friction.pairs[0].mu",
        "-y",
        "box.vx",
        "-o",
        png.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert!(String::from_utf8_lossy(&o.stderr).contains("1 point(s)"), "the failed point is reported as not drawn");
    let (_, _, px) = pixels(&png);
    assert!(count(&px, BLUE) > 200 && count(&px, RED) > 200, "two lines: {} and {}", count(&px, BLUE), count(&px, RED));
    // Over time, a sweep's folder overlays its points' runs.
    for (k, s) in [(0, 1.0), (1, 2.0)] {
        let p = sweep.join(format!("p{k:04}"));
        fake_run(&p, s);
        write(&p.join("point.json"), &format!("{{\"point\": {k}, \"parameters\": {{\"dt\": \"{s}\"}}}}"));
    }
    let o = fricsim(&["plot", sweep.to_str().unwrap(), "-y", "block.x", "-o", png.to_str().unwrap()]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let (_, _, px) = pixels(&png);
    assert!(count(&px, BLUE) > 200 && count(&px, RED) > 200, "two runs: {} and {}", count(&px, BLUE), count(&px, RED));
}

#[test]
fn bad_requests_are_refused_with_what_is_allowed() {
    let dir = tempfile::tempdir().unwrap();
    let run = dir.path().join("run");
    fake_run(&run, 1.0);
    let r = run.to_str().unwrap();
    let cases: [(&[&str], &str); 7] = [
        (&["plot", r, "-y", "block.q"], "no column \"block.q\"; its columns are: step, time, wall_s, block.x"),
        (&["plot", r, "-y", "block.x", "-o", "x.jpg"], "must end in .png or .svg"),
        (&["plot", r, "-y", "block.x", "--size", "100000x100000"], "each side must be 200 to 8000 pixels"),
        (&["plot", r, "-y", "block.x", "--size", "big"], "expected WIDTHxHEIGHT"),
        (&["plot", r, "-y", "block.x", "--curve", "c=sin(t"], "expected ')'"),
        (&["plot", "/no/such/run", "-y", "block.x"], "no such file or folder"),
        (&["plot", r, "-y", "block.x", "--log-y", "--curve", "c=-1"], ""),
    ];
    for (args, message) in &cases[..6] {
        let o = fricsim(args);
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {err}");
        assert!(err.contains(message), "{args:?}: {err}");
    }
    // A curve that is negative everywhere on a log axis is left out; the measured line still plots.
    let o = fricsim(cases[6].0);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    // Non-positive everything on a log axis: nothing to plot.
    fake_run(&run, -1.0);
    let o = fricsim(&["plot", r, "-y", "block.x", "--log-y"]);
    assert!(String::from_utf8_lossy(&o.stderr).contains("a log axis shows positive values only"));
}

/// A CSV of a few rows (a table, as `scripts/hairy_scale.py --csv` writes) against any column,
/// on log axes: a one-row input is drawn as a marker, not lost as a line of one point. The legend
/// alone (the same input with its value NaN, left out) gives the baseline red pixel count.
#[test]
fn a_one_row_table_is_drawn_as_a_marker() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    write(&dir.join("many.csv"), "contacts_mean,s_per_frame\n72,0.9\n3570,2.2\n25000,8.0\n759000,133\n");
    write(&dir.join("one.csv"), "contacts_mean,s_per_frame\n40000,30\n");
    write(&dir.join("none.csv"), "contacts_mean,s_per_frame\n40000,nan\n");
    let red = |second: &str| {
        let png = dir.join(format!("{second}.png"));
        let (a, b) = (dir.join("many.csv"), dir.join(format!("{second}.csv")));
        let out = fricsim(&[
            "plot",
            a.to_str().unwrap(),
            b.to_str().unwrap(),
            "-x",
            "contacts_mean",
            "-y",
            "s_per_frame",
            "--log-x",
            "--log-y",
            "-o",
            png.to_str().unwrap(),
        ]);
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        count(&pixels(&png).2, RED)
    };
    let (one, legend) = (red("one"), red("none"));
    assert!(one > legend + 30, "the one-row series adds a marker: {one} red pixels against {legend} for the legend");
}
