//! Opt-in check with the real client: ParaView opens a `.pvd` time series written by fricsim
//! (a tet solid and a triangle cloth over three frames, written uncompressed, LZ4 and zlib),
//! reports what it read at every time step, and renders the last frame to a PNG; it also
//! reads a PLY surface with its own PLY reader.
//!
//! Needs Debian's ParaView and a virtual X server (large: ~1 GB installed):
//! ```text
//! apt-get install -y paraview python3-paraview xvfb xauth
//! CARGO_TARGET_DIR=/work/target cargo test --release --test output_paraview -- --ignored --nocapture
//! ```
//! Set `FRICSIM_PARAVIEW_PNG=/some/file.png` to keep the screenshot.

use std::path::Path;
use std::process::{Command, Output};
use std::sync::Mutex;

use fricsim::output::ply::write_ply;
use fricsim::output::pvd::PvdCollection;
use fricsim::output::vtu::{Cells, UnstructuredSnapshot, VtuCompression, write_vtu_with};

/// `xvfb-run -a` picks the first display number it finds free (`:99`) without reserving it, so two
/// calls started together in one test binary race for it and one fails with "bad X server
/// connection". The tests of this file therefore start their virtual X servers one at a time.
static XVFB: Mutex<()> = Mutex::new(());

/// `pvbatch` with `args` under a virtual X server, in `dir`, one call at a time (see [`XVFB`]).
fn pvbatch(args: &[&std::ffi::OsStr], dir: Option<&Path>) -> Output {
    let _one_at_a_time = XVFB.lock().unwrap_or_else(|e| e.into_inner());
    let mut cmd = Command::new("xvfb-run");
    // xvfb-run's default screen is 8-bit, which GLX visuals may refuse; ask for 24-bit.
    cmd.args(["-a", "-s", "-screen 0 1280x1024x24", "pvbatch"]).args(args);
    if let Some(d) = dir {
        cmd.current_dir(d);
    }
    cmd.output().expect("run xvfb-run pvbatch")
}

const SCRIPT: &str = r#"
import sys
from paraview.simple import *
pvd, png = sys.argv[1], sys.argv[2]
reader = PVDReader(FileName=pvd)
reader.UpdatePipeline()
times = list(reader.TimestepValues)
for t in times:
    reader.UpdatePipeline(t)
    info = reader.GetDataInformation()
    b = info.GetBounds()
    vz = reader.PointData['velocity'].GetRange(2)
    print('FRICSIM t=%r points=%d cells=%d zmin=%r zmax=%r vz=%r,%r' % (
        t, info.GetNumberOfPoints(), info.GetNumberOfCells(), b[4], b[5], vz[0], vz[1]))
view = GetActiveViewOrCreate('RenderView')
view.ViewTime = times[-1]
display = Show(reader, view)
ColorBy(display, ('POINTS', 'velocity', 'Magnitude'))
display.Opacity = 0.8
view.CameraPosition = [4.0, -5.0, 4.0]
view.CameraFocalPoint = [0.5, 0.5, 0.8]
view.CameraViewUp = [0.0, 0.0, 1.0]
view.ResetCamera()
SaveScreenshot(png, view, ImageResolution=[480, 360])
ply = PLYReader(FileNames=[sys.argv[3]])
ply.UpdatePipeline()
pi = ply.GetDataInformation()
pb = pi.GetBounds()
print('FRICSIM ply points=%d cells=%d bounds=%r,%r,%r,%r,%r,%r' % (
    (pi.GetNumberOfPoints(), pi.GetNumberOfCells()) + tuple(pb)))
print('FRICSIM times=%s arrays=%s' % (
    ','.join(repr(t) for t in times), ','.join(sorted(reader.PointData.keys()))))
"#;

/// Writes the series: frame f moves both bodies up by f/10.
fn write_series(dir: &Path) -> std::path::PathBuf {
    std::fs::create_dir_all(dir.join("vtk")).expect("mkdir");
    let solid0 = [[0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0], [1.0, 1.0, 1.0]];
    let tets = [[0, 1, 2, 3], [1, 2, 3, 4]];
    let cloth0 = [[-1.0, -1.0, 1.5], [2.0, -1.0, 1.5], [2.0, 2.0, 1.5], [-1.0, 2.0, 1.5]];
    let tris = [[0, 1, 2], [0, 2, 3]];
    let pvd_path = dir.join("scene.pvd");
    let mut pvd = PvdCollection::new(&pvd_path);
    for frame in 0..3 {
        let lift = |p: &[f64; 3]| [p[0], p[1], p[2] + frame as f64 / 10.0];
        let solid: Vec<[f64; 3]> = solid0.iter().map(lift).collect();
        let cloth: Vec<[f64; 3]> = cloth0.iter().map(lift).collect();
        let sv: Vec<[f64; 3]> = solid.iter().map(|p| [p[0], 0.0, 1.0]).collect();
        let cv = vec![[0.0, 0.0, -1.0]; cloth.len()];
        let mut s = UnstructuredSnapshot::new(&solid, Cells::Tetra(&tets));
        s.point_vectors.push(("velocity", &sv));
        let mut c = UnstructuredSnapshot::new(&cloth, Cells::Triangle(&tris));
        c.point_vectors.push(("velocity", &cv));
        let files = [format!("vtk/solid_{frame:04}.vtu"), format!("vtk/cloth_{frame:04}.vtu")];
        // Each frame uses another compression, so ParaView must read all three.
        let comp = [VtuCompression::None, VtuCompression::Lz4, VtuCompression::Zlib { level: 6 }][frame];
        write_vtu_with(&dir.join(&files[0]), &s, comp).expect("solid vtu");
        write_vtu_with(&dir.join(&files[1]), &c, comp).expect("cloth vtu");
        pvd.add_frame(frame as f64 * 0.02, &files).expect("pvd");
    }
    pvd_path
}

#[test]
#[ignore = "needs ParaView (apt-get install -y paraview python3-paraview xvfb xauth); see the file's doc comment"]
fn paraview_opens_and_renders_the_series() {
    let found = |tool: &str| Command::new("which").arg(tool).output().is_ok_and(|o| o.status.success());
    assert!(
        found("pvbatch") && found("xvfb-run"),
        "pvbatch or xvfb-run not found: apt-get install -y paraview python3-paraview xvfb xauth"
    );
    let dir = tempfile::tempdir().expect("temp dir");
    let pvd = write_series(dir.path());
    let script = dir.path().join("render.py");
    std::fs::write(&script, SCRIPT).expect("script");
    let png = dir.path().join("last_frame.png");
    // A PLY surface too (ParaView's own PLY reader, independent of ply-rs).
    let ply = dir.path().join("cloth.ply");
    let cloth = [[-1.0, -1.0, 1.5], [2.0, -1.0, 1.5], [2.0, 2.0, 1.75], [-1.0, 2.0, 1.5]];
    let vel = [[0.0, 0.0, -1.0]; 4];
    write_ply(&ply, &cloth, &[[0, 1, 2], [0, 2, 3]], &[("velocity", &vel)]).expect("ply");
    let out = pvbatch(&[script.as_os_str(), pvd.as_os_str(), png.as_os_str(), ply.as_os_str()], None);
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    println!("pvbatch stdout:\n{stdout}\npvbatch stderr:\n{stderr}");
    assert!(out.status.success(), "pvbatch failed: {}", out.status);

    // Three time steps with our exact times, both parts (5 + 4 points, 2 + 2 cells) at every
    // step, geometry moving up by 0.1 per frame, and the velocity values intact.
    for (t, zmin, zmax) in [("0.0", "0.0", "1.5"), ("0.02", "0.1", "1.6"), ("0.04", "0.2", "1.7")] {
        let line = format!("FRICSIM t={t} points=9 cells=4 zmin={zmin} zmax={zmax} vz=-1.0,1.0");
        assert!(stdout.contains(&line), "ParaView report lacks {line:?}: {stdout}");
    }
    assert!(stdout.contains("FRICSIM times=0.0,0.02,0.04 arrays=velocity"), "unexpected ParaView report: {stdout}");
    let line = "FRICSIM ply points=4 cells=2 bounds=-1.0,2.0,-1.0,2.0,1.5,1.75";
    assert!(stdout.contains(line), "ParaView report lacks {line:?}: {stdout}");
    let len = std::fs::metadata(&png).map(|m| m.len()).unwrap_or(0);
    assert!(len > 1000, "screenshot missing or empty ({len} bytes)");
    if let Ok(keep) = std::env::var("FRICSIM_PARAVIEW_PNG") {
        std::fs::copy(&png, keep).expect("copy screenshot");
    }
}

/// Fraction of the picture's pixels that differ from its top-left (background) pixel, and of
/// those that are the colliders' translucent grey over the background (all three channels equal
/// within 12 and differing from the background).
fn coverage(png: &Path) -> (f64, f64) {
    let img = image::open(png).expect("a PNG").to_rgb8();
    let bg = *img.get_pixel(0, 0);
    let total = (img.width() * img.height()) as f64;
    let differs = img.pixels().filter(|p| p.0.iter().zip(bg.0).any(|(a, b)| a.abs_diff(b) > 8)).count() as f64;
    let grey = img
        .pixels()
        .filter(|p| {
            let [r, g, b] = p.0;
            p.0.iter().zip(bg.0).any(|(a, b)| a.abs_diff(b) > 8) && r.abs_diff(g) < 12 && g.abs_diff(b) < 12
        })
        .count() as f64;
    (differs / total, grey / total)
}

/// Three shipped scenes (penalty, rigid, cloth) run for a few frames and opened by the
/// `open_in_paraview.py` each run writes, rendered by pvbatch: the pictures are not blank
/// (over 2 % of the pixels differ from the background), and the colliders' grey shows (over
/// 1 %). The same command, `pvbatch open_in_paraview.py last.png`, is what the README gives.
#[test]
#[ignore = "needs ParaView (apt-get install -y paraview python3-paraview xvfb xauth); see the file's doc comment"]
fn shipped_scenes_open_with_their_colliders() {
    const BIN: &str = env!("CARGO_BIN_EXE_fricsim");
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    for (scene, duration) in [
        ("scenes/validation/ramp10.ron", "0.3"),
        ("scenes/capsule_hopper.ron", "0.1"),
        ("scenes/cloth_on_box.ron", "0.2"),
        ("scenes/joints_chain.ron", "0.5"),
    ] {
        let dir = tempfile::tempdir().expect("temp dir");
        let out = dir.path().join("run");
        let st = Command::new(BIN)
            .args(["run", root.join(scene).to_str().unwrap(), "--quiet", "--out", out.to_str().unwrap()])
            .args(["--set", &format!("duration={duration}")])
            .status()
            .expect("run fricsim");
        assert!(st.success(), "{scene}: the run failed");
        let png = dir.path().join("last.png");
        let pv = pvbatch(&["open_in_paraview.py".as_ref(), png.as_os_str()], Some(&out));
        assert!(pv.status.success(), "{scene}: pvbatch failed: {}", String::from_utf8_lossy(&pv.stderr));
        let (shown, grey) = coverage(&png);
        println!("{scene}: {:.1} % of the pixels drawn, {:.1} % collider grey", 100.0 * shown, 100.0 * grey);
        assert!(shown > 0.02 && grey > 0.01, "{scene}: the picture is blank or shows no collider");
        if let Ok(keep) = std::env::var("FRICSIM_PARAVIEW_PNG") {
            let name = Path::new(scene).file_stem().unwrap().to_string_lossy().into_owned();
            std::fs::copy(&png, format!("{keep}.{name}.png")).expect("copy screenshot");
        }
    }
}
