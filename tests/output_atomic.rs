//! Atomic replacement: complete files only, no temporary files left behind, errors keep the
//! previous file.

use std::io::Write;
use std::path::Path;

use fricsim::output::OutputError;
use fricsim::output::atomic::{write_atomically, write_bytes_atomically};

fn names(dir: &Path) -> Vec<String> {
    let mut v: Vec<String> = std::fs::read_dir(dir)
        .expect("list")
        .filter_map(|e| e.ok())
        .map(|e| e.file_name().to_string_lossy().to_string())
        .collect();
    v.sort();
    v
}

#[test]
fn writes_and_replaces_without_leaving_temporaries() {
    let dir = tempfile::tempdir().expect("temp dir");
    let path = dir.path().join("f.txt");
    write_bytes_atomically(&path, b"first").expect("write");
    assert_eq!(std::fs::read(&path).expect("read"), b"first");
    write_bytes_atomically(&path, b"second, longer").expect("rewrite");
    assert_eq!(std::fs::read(&path).expect("read"), b"second, longer");
    assert_eq!(names(dir.path()), ["f.txt"]);
}

#[test]
fn the_target_does_not_exist_while_the_content_is_being_written() {
    let dir = tempfile::tempdir().expect("temp dir");
    let path = dir.path().join("big.bin");
    write_atomically(&path, |out| {
        out.write_all(&[7u8; 3 << 20]).expect("write");
        out.flush().expect("flush to the temp file");
        assert!(!path.exists(), "target visible before the rename");
        let during = names(dir.path());
        assert_eq!(during.len(), 1);
        assert!(during[0].starts_with(".big.bin.") && during[0].ends_with(".tmp"), "{during:?}");
        Ok(())
    })
    .expect("write");
    assert_eq!(std::fs::metadata(&path).expect("stat").len(), 3 << 20);
    assert_eq!(names(dir.path()), ["big.bin"]);
}

#[test]
fn an_error_leaves_no_partial_target_and_no_temporary() {
    let dir = tempfile::tempdir().expect("temp dir");
    let path = dir.path().join("out.vtu");
    let res = write_atomically(&path, |out| {
        out.write_all(b"half of a file").expect("write");
        Err(OutputError::InvalidData { path: path.clone(), message: "boom".into() })
    });
    assert!(res.is_err());
    assert!(!path.exists(), "partial target left behind");
    assert!(names(dir.path()).is_empty(), "{:?}", names(dir.path()));

    // With an existing file, a failed rewrite keeps the old complete content.
    write_bytes_atomically(&path, b"old complete").expect("write");
    let _ = write_atomically(&path, |out| {
        out.write_all(b"new but broken").expect("write");
        Err(OutputError::InvalidData { path: path.clone(), message: "boom".into() })
    });
    assert_eq!(std::fs::read(&path).expect("read"), b"old complete");
    assert_eq!(names(dir.path()), ["out.vtu"]);
}

#[test]
fn a_panic_while_writing_leaves_no_temporary() {
    let dir = tempfile::tempdir().expect("temp dir");
    let path = dir.path().join("p.txt");
    let p2 = path.clone();
    let res = std::panic::catch_unwind(move || {
        let _ = write_atomically(&p2, |out| {
            out.write_all(b"partial").expect("write");
            panic!("encoder bug");
        });
    });
    assert!(res.is_err());
    assert!(names(dir.path()).is_empty(), "{:?}", names(dir.path()));
}

#[test]
fn a_missing_folder_is_an_io_error_naming_the_file() {
    let dir = tempfile::tempdir().expect("temp dir");
    let path = dir.path().join("nope").join("x.pvd");
    let err = write_bytes_atomically(&path, b"x").expect_err("no folder");
    assert!(matches!(err, OutputError::Io { .. }));
    let msg = err.to_string();
    assert!(msg.contains("nope/x.pvd") && msg.contains("creating a temporary file"), "{msg}");
}
