//! `.pvd` collections: after every frame the file on disk is complete XML that lists every frame
//! so far (time, parts, existing files). Parsed with quick-xml (already in the tree via vtkio).

use std::path::Path;

use fricsim::output::OutputError;
use fricsim::output::pvd::PvdCollection;
use quick_xml::Reader;
use quick_xml::events::Event;

/// (timestep text, part, file) of every DataSet; panics unless the whole file is well-formed
/// XML with the VTKFile/Collection structure ParaView expects.
fn parse(path: &Path) -> Vec<(String, usize, String)> {
    let text = std::fs::read_to_string(path).expect("read pvd");
    let mut reader = Reader::from_str(&text);
    let mut stack: Vec<String> = Vec::new();
    let mut out = Vec::new();
    let mut saw_collection_type = false;
    loop {
        match reader.read_event().unwrap_or_else(|e| panic!("invalid XML: {e}\n{text}")) {
            Event::Start(e) => {
                let name = String::from_utf8_lossy(e.name().as_ref()).to_string();
                if name == "VTKFile" {
                    let ty = e.try_get_attribute("type").expect("attr").expect("type attribute");
                    saw_collection_type = ty.value.as_ref() == b"Collection";
                }
                stack.push(name);
            }
            Event::End(e) => {
                let name = String::from_utf8_lossy(e.name().as_ref()).to_string();
                assert_eq!(stack.pop().as_deref(), Some(name.as_str()), "mismatched tags");
            }
            Event::Empty(e) => {
                assert_eq!(e.name().as_ref(), b"DataSet");
                assert_eq!(stack, ["VTKFile", "Collection"], "DataSet outside Collection");
                let get = |k: &str| {
                    e.try_get_attribute(k)
                        .expect("attr")
                        .unwrap_or_else(|| panic!("DataSet without {k}"))
                        .unescape_value()
                        .expect("unescape")
                        .to_string()
                };
                out.push((get("timestep"), get("part").parse().expect("part"), get("file")));
            }
            Event::Eof => break,
            _ => {}
        }
    }
    assert!(stack.is_empty(), "unclosed tags {stack:?}");
    assert!(saw_collection_type, "VTKFile type must be Collection");
    out
}

#[test]
fn every_frame_is_listed_and_the_file_is_valid_after_each_frame() {
    let dir = tempfile::tempdir().expect("temp dir");
    std::fs::create_dir(dir.path().join("vtk")).expect("mkdir");
    let pvd_path = dir.path().join("scene.pvd");
    let mut pvd = PvdCollection::new(&pvd_path);
    // Times that need full precision to tell apart, and names that need XML escaping.
    let times = [0.0, 0.1 + 0.2, 1.0 / 3.0, 2e-9, 12345.678901234567];
    let bodies = ["block", "cloth&rod", "a\"b<c>"];
    for (frame, &t) in times.iter().enumerate() {
        let files: Vec<String> = bodies.iter().map(|b| format!("vtk/{b}_{frame:04}.vtu")).collect();
        for f in &files {
            std::fs::write(dir.path().join(f), "placeholder").expect("write data file");
        }
        pvd.add_frame(t, &files).expect("add frame");

        let listed = parse(&pvd_path);
        assert_eq!(listed.len(), (frame + 1) * bodies.len());
        for (k, (ts, part, file)) in listed.iter().enumerate() {
            let (f, b) = (k / bodies.len(), k % bodies.len());
            let back: f64 = ts.parse().expect("time parses");
            assert_eq!(back.to_bits(), times[f].to_bits(), "time {ts} round-trips");
            assert_eq!(*part, b);
            assert_eq!(*file, format!("vtk/{}_{f:04}.vtu", bodies[b]));
            assert!(dir.path().join(file).is_file(), "{file} exists");
        }
    }
    assert_eq!(pvd.entries().len(), times.len() * bodies.len());
    let leftovers: Vec<_> = std::fs::read_dir(dir.path())
        .expect("list")
        .filter_map(|e| e.ok())
        .map(|e| e.file_name().to_string_lossy().to_string())
        .filter(|n| n.ends_with(".tmp"))
        .collect();
    assert!(leftovers.is_empty(), "temporary files left: {leftovers:?}");
}

#[test]
fn missing_files_and_bad_times_are_refused_and_keep_the_old_collection() {
    let dir = tempfile::tempdir().expect("temp dir");
    let pvd_path = dir.path().join("run.pvd");
    std::fs::write(dir.path().join("a.vtu"), "x").expect("write");
    let mut pvd = PvdCollection::new(&pvd_path);
    pvd.add_frame(0.5, &["a.vtu"]).expect("first frame");
    let before = std::fs::read_to_string(&pvd_path).expect("read");

    let err = pvd.add_frame(1.0, &["a.vtu", "missing.vtu"]).expect_err("missing file");
    assert!(matches!(err, OutputError::InvalidData { .. }));
    assert!(err.to_string().contains("missing.vtu"), "{err}");
    let err = pvd.add_frame(f64::NAN, &["a.vtu"]).expect_err("NaN time");
    assert!(err.to_string().contains("finite"), "{err}");

    assert_eq!(std::fs::read_to_string(&pvd_path).expect("read"), before);
    assert_eq!(pvd.entries().len(), 1);
}
