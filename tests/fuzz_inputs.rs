//! Seeded mutation fuzzing of every reader of user input: the scene loader (load, validate, build
//! and one step), the mesh readers (VTK legacy and XML, PLY ASCII and binary, OBJ, polylines), the
//! structure-texture loader (PNG) and the FCLib readers (HDF5 and text). Each target mutates
//! shipped inputs (numbers replaced by edge values, lines dropped or repeated, bytes flipped,
//! inserted or cut, files truncated) and feeds the mutants to the library. Nothing may panic,
//! hang (a watchdog aborts after `HANG_SECONDS` on one input) or allocate without bound (the
//! process's address space is capped, so an absurd allocation aborts the run).
//!
//! The default run tries `DEFAULT_INPUTS` mutants per target. The long run:
//! `FRICSIM_FUZZ_INPUTS=100000 cargo test --release --test fuzz_inputs -- --ignored`
//! (`FRICSIM_FUZZ_SEED` picks another seed). A mutant that fails is saved under
//! `target/fuzz-failures/` with the seed and index that made it.

use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, Once};
use std::time::{Duration, Instant};

/// Mutants per target in the default test run: enough to have found both known crashers
/// (6 in 2000 scene mutants, 7 in 167 mesh mutants), a few seconds per target.
const DEFAULT_INPUTS: usize = 2000;
/// One input taking longer than this is a hang (the slowest seeds load, build and step in
/// well under a second).
const HANG_SECONDS: u64 = 60;
/// The address-space cap: far above any seed's needs (< 200 MB), far below the machine's memory.
const ADDRESS_SPACE_BYTES: u64 = 8 << 30;

fn repo(rel: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join(rel)
}

// ------------------------------------------------------------------------------------ mutation

/// xorshift64*: reproducible from the seed alone.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
}

/// Values at the edges of what readers and validation must handle.
const EDGE_VALUES: [&str; 22] = [
    "0",
    "-1",
    "-0.0",
    "1e-320",
    "5e-324",
    "1e308",
    "-1e308",
    "1e400",
    "NaN",
    "inf",
    "-inf",
    "1e9",
    "100000",
    "2147483648",
    "4294967296",
    "18446744073709551616",
    "0.5",
    "1",
    "2",
    "3",
    "1e-9",
    "99999999999999999999",
];

fn is_number_byte(b: u8) -> bool {
    b.is_ascii_digit() || matches!(b, b'.' | b'e' | b'E' | b'+' | b'-')
}

/// One random edit of `data`: text-aware edits (a number, a line) are picked for text inputs.
fn mutate_once(data: &mut Vec<u8>, rng: &mut Rng, text: bool) {
    let len = data.len();
    let choice = if text { rng.below(9) } else { 3 + rng.below(6) };
    match choice {
        // Replace the number around a random position by an edge value.
        0 | 1 => {
            let at = rng.below(len);
            let Some(p) = (at..len).chain(0..at).find(|&i| data[i].is_ascii_digit()) else { return };
            let (mut s, mut e) = (p, p);
            while s > 0 && is_number_byte(data[s - 1]) {
                s -= 1;
            }
            while e < len && is_number_byte(data[e]) {
                e += 1;
            }
            let v = EDGE_VALUES[rng.below(EDGE_VALUES.len())];
            data.splice(s..e, v.bytes());
        }
        // Drop or repeat a line.
        2 => {
            let lines: Vec<usize> = std::iter::once(0)
                .chain(data.iter().enumerate().filter(|(_, b)| **b == b'\n').map(|(i, _)| i + 1))
                .collect();
            let k = rng.below(lines.len());
            let (s, e) = (lines[k].min(len), lines.get(k + 1).copied().unwrap_or(len));
            if rng.below(2) == 0 {
                data.drain(s..e);
            } else {
                let line = data[s..e].to_vec();
                data.splice(s..s, line);
            }
        }
        // Flip a bit, set a byte, insert or delete bytes.
        3 => {
            if len > 0 {
                let i = rng.below(len);
                data[i] ^= 1 << rng.below(8);
            }
        }
        4 => {
            if len > 0 {
                let i = rng.below(len);
                data[i] = [0u8, 0xff, b'(', b')', b',', b':', b'"', b'-', b'9', b'\n'][rng.below(10)];
            }
        }
        5 => {
            let i = rng.below(len + 1);
            let n = 1 + rng.below(8);
            let bytes: Vec<u8> = (0..n).map(|_| rng.next() as u8).collect();
            data.splice(i..i, bytes);
        }
        6 => {
            if len > 0 {
                let i = rng.below(len);
                let n = (1 + rng.below(16)).min(len - i);
                data.drain(i..i + n);
            }
        }
        // Overwrite four bytes with a large little- or big-endian integer (binary headers).
        7 => {
            if len >= 4 {
                let i = rng.below(len - 3);
                let v: u32 = [u32::MAX, 0x7fff_ffff, 0x4000_0000, 1_000_000_000, 0][rng.below(5)];
                let b = if rng.below(2) == 0 { v.to_le_bytes() } else { v.to_be_bytes() };
                data[i..i + 4].copy_from_slice(&b);
            }
        }
        // Truncate.
        _ => {
            let keep = rng.below(len + 1);
            data.truncate(keep);
        }
    }
}

fn mutant(seed: &[u8], rng: &mut Rng, text: bool) -> Vec<u8> {
    let mut data = seed.to_vec();
    for _ in 0..1 + rng.below(3) {
        mutate_once(&mut data, rng, text);
    }
    data
}

// ------------------------------------------------------------------------------------ harness

/// The last panic's message (the default hook's output is suppressed while fuzzing).
static PANIC: Mutex<Option<String>> = Mutex::new(None);
static SETUP: Once = Once::new();

fn setup() {
    SETUP.call_once(|| {
        let cap = libc::rlimit { rlim_cur: ADDRESS_SPACE_BYTES, rlim_max: ADDRESS_SPACE_BYTES };
        // SAFETY: setrlimit only reads the struct; a failure leaves the limit as it was.
        unsafe { libc::setrlimit(libc::RLIMIT_AS, &cap) };
        std::panic::set_hook(Box::new(|info| {
            let at = info.location().map(|l| format!(" at {}:{}", l.file(), l.line())).unwrap_or_default();
            let msg = info
                .payload()
                .downcast_ref::<&str>()
                .map(|s| s.to_string())
                .or_else(|| info.payload().downcast_ref::<String>().cloned())
                .unwrap_or_default();
            *PANIC.lock().unwrap_or_else(|e| e.into_inner()) = Some(format!("{msg}{at}"));
        }));
    });
}

fn inputs() -> usize {
    std::env::var("FRICSIM_FUZZ_INPUTS").ok().and_then(|v| v.parse().ok()).unwrap_or(DEFAULT_INPUTS)
}

fn seed() -> u64 {
    std::env::var("FRICSIM_FUZZ_SEED").ok().and_then(|v| v.parse().ok()).unwrap_or(0x5eed_f1c5)
}

/// Feed `n` mutants of `seeds` (name, bytes, is text) to `target`, which gets the mutant's bytes
/// and returns normally for any outcome (an `Err` is a correct refusal). Panics and hangs are
/// collected with the mutant saved for reproduction.
fn fuzz(name: &str, seeds: &[(String, Vec<u8>, bool)], n: usize, target: impl Fn(&str, &[u8])) {
    setup();
    let started = Arc::new(AtomicU64::new(0));
    let epoch = Instant::now();
    let watch = Arc::clone(&started);
    let label = name.to_string();
    std::thread::spawn(move || {
        loop {
            std::thread::sleep(Duration::from_secs(1));
            let s = watch.load(Ordering::Relaxed);
            if s != 0 && epoch.elapsed().as_secs().saturating_sub(s - 1) > HANG_SECONDS {
                eprintln!("fuzz {label}: one input ran over {HANG_SECONDS} s (a hang); see target/fuzz-failures/");
                std::process::abort();
            }
        }
    });
    let dir = repo("target/fuzz-failures");
    let mut rng = Rng(seed() ^ name.bytes().fold(0u64, |h, b| h.wrapping_mul(31).wrapping_add(u64::from(b))));
    let mut failures = Vec::new();
    for k in 0..n {
        let (seed_name, bytes, text) = &seeds[k % seeds.len()];
        let m = mutant(bytes, &mut rng, *text);
        let saved = dir.join(format!("{name}-{k}-{seed_name}"));
        // Saved before the run so that a hang or an abort leaves it behind; removed if it passes.
        let _ = std::fs::create_dir_all(&dir).and_then(|()| std::fs::write(&saved, &m));
        started.store(epoch.elapsed().as_secs() + 1, Ordering::Relaxed);
        let outcome = catch_unwind(AssertUnwindSafe(|| target(seed_name, &m)));
        started.store(0, Ordering::Relaxed);
        match outcome {
            Ok(()) => {
                let _ = std::fs::remove_file(&saved);
            }
            Err(_) => {
                let why = PANIC.lock().unwrap_or_else(|e| e.into_inner()).take().unwrap_or_default();
                failures.push(format!("{}: {why}", saved.display()));
            }
        }
    }
    assert!(failures.is_empty(), "fuzz {name}: {} of {n} mutants panicked:\n{}", failures.len(), failures.join("\n"));
}

fn read(rel: &str) -> Vec<u8> {
    std::fs::read(repo(rel)).unwrap_or_else(|e| panic!("{rel}: {e}"))
}

// ------------------------------------------------------------------------------------ targets

/// A temporary copy of `scenes/`'s layout: mutants are written where their seed lives, so
/// relative mesh paths resolve; `data/` is the shipped one.
fn scene_dir() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(dir.path().join("scenes/validation")).unwrap();
    std::os::unix::fs::symlink(repo("scenes/data"), dir.path().join("scenes/data")).unwrap();
    dir
}

/// Load, validate and build a scene; if it is small, step it once (settling at most 2 steps).
fn scene_target(dir: &Path, seed_name: &str, bytes: &[u8]) {
    let path = dir.join("scenes").join(seed_name.replace("__", "/"));
    std::fs::write(&path, bytes).unwrap();
    let Ok(loaded) = fricsim::scene::load_scene(&path, &[]) else { return };
    let Ok((mut model, state)) = fricsim::scene::build::build(&loaded) else { return };
    if model.dof_count() > 30_000 {
        return;
    }
    model.settle_steps = model.settle_steps.min(2);
    let mut sim = fricsim::simulation::Simulation::new(model, state);
    let _ = sim.step();
}

fn scene_seeds() -> Vec<(String, Vec<u8>, bool)> {
    let names = [
        "validation/ramp10.ron",
        "validation/cloth_ramp10.ron",
        "validation/bounce.ron",
        "validation/smooth_rigid_ramp10.ron",
        "validation/smooth_mesh_ramp10.ron",
        "validation/smooth_cloth_cylinder.ron",
        "anisotropic_hair.ron",
        "capsule_hopper.ron",
        "rope_over_cylinder.ron",
        "stool.ron",
        "cloth_on_sphere.ron",
    ];
    names.iter().map(|n| (n.replace('/', "__"), read(&format!("scenes/{n}")), true)).collect()
}

#[test]
fn scenes_never_panic() {
    let dir = scene_dir();
    fuzz("scene", &scene_seeds(), inputs(), |name, bytes| scene_target(dir.path(), name, bytes));
}

/// Mesh files of every reader, the legacy VTK both as shipped and as written by fricsim.
fn mesh_seeds() -> Vec<(String, Vec<u8>, bool)> {
    let mut seeds: Vec<(String, Vec<u8>, bool)> =
        ["stool.vtk", "strands.vtk", "strands.ply", "v_groove.obj", "square.obj"]
            .iter()
            .map(|n| (n.to_string(), read(&format!("scenes/data/{n}")), true))
            .collect();
    // XML and binary inputs from fricsim's own writers.
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("run");
    let o = std::process::Command::new(env!("CARGO_BIN_EXE_fricsim"))
        .args(["run", repo("scenes/validation/ramp10.ron").to_str().unwrap(), "--frames", "1", "--quiet", "--out"])
        .arg(&out)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    seeds.push(("block.vtu".into(), std::fs::read(out.join("vtk/block_00001.vtu")).unwrap(), true));
    seeds.push(("block.ply".into(), std::fs::read(out.join("ply/block_00001.ply")).unwrap(), false));
    seeds
}

fn mesh_target(dir: &Path, name: &str, bytes: &[u8]) {
    let path = dir.join(name);
    std::fs::write(&path, bytes).unwrap();
    match name.rsplit('.').next() {
        Some("vtk") | Some("vtu") => {
            let _ = fricsim::mesh::vtk_read::read_tet_mesh(&path);
            let _ = fricsim::mesh::polyline_read::read_polylines(&path);
        }
        Some("ply") => {
            let _ = fricsim::mesh::trimesh::read_tri_mesh(&path);
            let _ = fricsim::mesh::polyline_read::read_polylines(&path);
        }
        _ => {
            let _ = fricsim::mesh::trimesh::read_tri_mesh(&path);
        }
    }
}

#[test]
fn mesh_files_never_panic() {
    let dir = tempfile::tempdir().unwrap();
    fuzz("mesh", &mesh_seeds(), inputs(), |name, bytes| mesh_target(dir.path(), name, bytes));
}

/// PNGs of the kinds the loader reads: 8-bit RGB, 16-bit RGBA, grey.
fn texture_seeds() -> Vec<(String, Vec<u8>, bool)> {
    let encode = |img: image::DynamicImage| {
        let mut out = std::io::Cursor::new(Vec::new());
        img.write_to(&mut out, image::ImageFormat::Png).unwrap();
        out.into_inner()
    };
    let rgb = image::RgbImage::from_fn(8, 6, |x, y| image::Rgb([(x * 30) as u8, (y * 40) as u8, 128]));
    let rgba16 = image::ImageBuffer::<image::Rgba<u16>, _>::from_fn(5, 7, |x, y| {
        image::Rgba([x as u16 * 9000, y as u16 * 7000, 0, 65535])
    });
    let grey = image::GrayImage::from_fn(4, 4, |x, y| image::Luma([(x * 60 + y) as u8]));
    vec![
        ("rgb.png".into(), encode(image::DynamicImage::ImageRgb8(rgb)), false),
        ("rgba16.png".into(), encode(image::DynamicImage::ImageRgba16(rgba16)), false),
        ("grey.png".into(), encode(image::DynamicImage::ImageLuma8(grey)), false),
    ]
}

#[test]
fn textures_never_panic() {
    let dir = tempfile::tempdir().unwrap();
    fuzz("texture", &texture_seeds(), inputs(), |name, bytes| {
        let path = dir.path().join(name);
        std::fs::write(&path, bytes).unwrap();
        if let Ok(t) = fricsim::friction::texture::StructureTexture::load(&path) {
            let _ = t.sample([0.3, 0.7]);
        }
    });
}

fn fclib_seeds() -> Vec<(String, Vec<u8>, bool)> {
    let shared = Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/fclib");
    [
        "BoxesStack_local_problem_test.hdf5",
        "Siconos_FrictionContact3D_1c.txt",
        "LMGC_GlobalFrictionContactProblem00046.hdf5",
        "Capsules-i125-1213.siconos-NSGS.txt",
    ]
    .iter()
    .filter_map(|n| std::fs::read(shared.join(n)).ok().map(|b| (n.to_string(), b, !n.ends_with(".hdf5"))))
    .collect()
}

#[test]
fn fclib_files_never_panic() {
    let seeds = fclib_seeds();
    assert!(!seeds.is_empty(), "../shared/fclib holds the seed problems");
    let dir = tempfile::tempdir().unwrap();
    fuzz("fclib", &seeds, inputs(), |name, bytes| {
        let path = dir.path().join(name);
        std::fs::write(&path, bytes).unwrap();
        if name.contains("siconos") {
            let _ = fricsim::dfcp::fclib::read_vectors(&path);
        } else {
            let _ = fricsim::dfcp::fclib::read_problem(&path);
        }
    });
}

/// The long run: every target with `FRICSIM_FUZZ_INPUTS` mutants (see the module doc).
#[test]
#[ignore]
fn long_run_of_every_target() {
    scenes_never_panic();
    mesh_files_never_panic();
    textures_never_panic();
    fclib_files_never_panic();
}
