//! Statistics CSV: header, rows, per-row flush, escaping, number format, length check.

use fricsim::output::OutputError;
use fricsim::output::stats::{StatValue, StatsWriter};

fn cols(names: &[&str]) -> Vec<String> {
    names.iter().map(|s| s.to_string()).collect()
}

#[test]
fn rows_are_visible_before_the_writer_is_dropped() {
    let dir = tempfile::tempdir().expect("temp dir");
    let path = dir.path().join("stats.csv");
    let mut w = StatsWriter::create(&path, cols(&["step", "time", "solver"])).expect("create");
    assert_eq!(std::fs::read_to_string(&path).expect("read"), "step,time,solver\n");

    w.write_row(&[StatValue::Int(1), StatValue::Float(0.001), "prox".into()]).expect("row 1");
    assert_eq!(
        std::fs::read_to_string(&path).expect("read"),
        "step,time,solver\n1,0.001,prox\n",
        "row 1 must be on disk while the writer is alive"
    );
    w.write_row(&[2_i64.into(), (0.1 + 0.2).into(), "gauss-seidel, nodal".into()]).expect("row 2");
    w.write_row(&[3_usize.into(), 1e-300.into(), "say \"hi\"\nbye".into()]).expect("row 3");
    w.write_row(&[StatValue::Int(-4), f64::NAN.into(), "".into()]).expect("row 4");
    assert_eq!(w.rows_written(), 4);
    let text = std::fs::read_to_string(&path).expect("read");
    assert_eq!(
        text,
        "step,time,solver\n1,0.001,prox\n2,0.30000000000000004,\"gauss-seidel, nodal\"\n\
         3,1e-300,\"say \"\"hi\"\"\nbye\"\n-4,NaN,\n"
    );
    drop(w);
}

#[test]
fn floats_round_trip_through_the_text() {
    let dir = tempfile::tempdir().expect("temp dir");
    let path = dir.path().join("f.csv");
    let values = [1.0 / 3.0, -2.5e-17, 6.02214076e23, 5e-324, 1e16, 123.0];
    let mut w = StatsWriter::create(&path, cols(&["x"])).expect("create");
    for &x in &values {
        w.write_row(&[StatValue::Float(x)]).expect("row");
    }
    let text = std::fs::read_to_string(&path).expect("read");
    let back: Vec<f64> = text.lines().skip(1).map(|l| l.parse().expect("float")).collect();
    assert_eq!(back, values);
    // Shortest digits, laid out as Python's repr (scientific below 1e-4 and from 1e16).
    assert_eq!(text, "x\n0.3333333333333333\n-2.5e-17\n6.02214076e23\n5e-324\n1e16\n123\n");
}

#[test]
fn row_length_mismatch_is_an_error_and_writes_nothing() {
    let dir = tempfile::tempdir().expect("temp dir");
    let path = dir.path().join("stats.csv");
    let mut w = StatsWriter::create(&path, cols(&["a", "b"])).expect("create");
    let err = w.write_row(&[StatValue::Int(1)]).expect_err("short row");
    assert!(matches!(err, OutputError::InvalidData { .. }));
    let msg = err.to_string();
    assert!(msg.contains("1 values but the header has 2 columns"), "{msg}");
    assert!(msg.contains("stats.csv"), "{msg}");
    assert!(w.write_row(&[1_i64.into(), 2_i64.into(), 3_i64.into()]).is_err());
    assert_eq!(std::fs::read_to_string(&path).expect("read"), "a,b\n");
    assert!(StatsWriter::create(dir.path().join("e.csv"), vec![]).is_err());
}

#[test]
fn header_names_are_escaped_too() {
    let dir = tempfile::tempdir().expect("temp dir");
    let path = dir.path().join("h.csv");
    let _w = StatsWriter::create(&path, cols(&["time", "residual, rel"])).expect("create");
    assert_eq!(std::fs::read_to_string(&path).expect("read"), "time,\"residual, rel\"\n");
}

#[test]
fn creating_in_a_missing_folder_names_the_file() {
    let dir = tempfile::tempdir().expect("temp dir");
    let path = dir.path().join("no/such/dir/stats.csv");
    let err = StatsWriter::create(&path, cols(&["a"])).expect_err("missing folder");
    assert!(matches!(err, OutputError::Io { .. }));
    assert!(err.to_string().contains("no/such/dir/stats.csv"), "{err}");
}
