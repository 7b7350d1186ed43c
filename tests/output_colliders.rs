//! What ParaView shows is the whole scene: every collider is a series of its own in the `.pvd`
//! (`collider_<name>`, cell scalar `collider` = 1), posed at every frame by its script; a plane
//! is a patch around the bodies; a collider that never moves is written once. And a run writes
//! `run.json` with status `running` as it starts, so a run killed outright is recognisable.

use std::path::Path;
use std::process::Command;

const BIN: &str = env!("CARGO_BIN_EXE_fricsim");

const SCENE: &str = r#"Scene(
    name: "pusher",
    dt: 0.01, duration: 0.1, frame_rate: 50.0,
    materials: { "rubber": (density: 1000.0, youngs_modulus: 1e6, poisson_ratio: 0.3), "steel": () },
    friction: (default: (mu: 0.5)),
    bodies: [ Solid(name: "block", material: "rubber", mesh: Box(size: (0.1, 0.1, 0.1), cells: (2, 2, 2)), position: (0.3, 0.2, 0.05)) ],
    colliders: [
        Plane(name: "floor", material: "steel"),
        Sphere(name: "pusher", material: "steel", radius: 0.05, position: (0.0, 0.0, 0.5), motion: Velocity(1.0, 0.0, 0.0)),
    ],
    pipeline: Penalty(),
)"#;

/// Point coordinates of a `.vtu` written in ASCII or base64: read through the `<Points>` block's
/// values as ParaView would, by vtkio.
fn points(path: &Path) -> Vec<[f64; 3]> {
    let vtk = vtkio::Vtk::import(path).expect("readable vtu");
    let vtkio::model::DataSet::UnstructuredGrid { pieces, .. } = vtk.data else { panic!("an unstructured grid") };
    let piece = pieces.into_iter().next().expect("one piece").into_loaded_piece_data(None).expect("inline data");
    let p: Vec<f64> = piece.points.cast_into().expect("f64 points");
    p.chunks(3).map(|c| [c[0], c[1], c[2]]).collect()
}

#[test]
fn colliders_are_series_of_their_own_posed_at_every_frame() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("s.ron"), SCENE).unwrap();
    let out = dir.path().join("out");
    let st =
        Command::new(BIN).args(["run", "s.ron", "--quiet", "--out", "out"]).current_dir(dir.path()).status().unwrap();
    assert!(st.success());
    let pvd = std::fs::read_to_string(out.join("pusher.pvd")).unwrap();
    let frames = 6;
    // The floor never moves: one file, listed at every frame. The sphere moves: one per frame.
    assert_eq!(pvd.matches("file=\"vtk/collider_floor_00000.vtu\"").count(), frames, "{pvd}");
    for f in 0..frames {
        assert!(pvd.contains(&format!("file=\"vtk/collider_pusher_{f:05}.vtu\"")), "{pvd}");
    }
    assert!(!out.join("vtk/collider_floor_00001.vtu").exists());
    // The patch lies in z = 0 and covers the block (at x 0.25..0.35, y 0.15..0.25).
    let floor = points(&out.join("vtk/collider_floor_00000.vtu"));
    assert!(floor.iter().all(|p| p[2] == 0.0));
    let (xmin, xmax) = floor.iter().fold((f64::MAX, f64::MIN), |(a, b), p| (a.min(p[0]), b.max(p[0])));
    let (ymin, ymax) = floor.iter().fold((f64::MAX, f64::MIN), |(a, b), p| (a.min(p[1]), b.max(p[1])));
    assert!(xmin < 0.25 && xmax > 0.35 && ymin < 0.15 && ymax > 0.25, "patch x {xmin}..{xmax}, y {ymin}..{ymax}");
    // The sphere's centre follows its script: x = t at frame 5 (t = 0.1 s).
    let ball = points(&out.join("vtk/collider_pusher_00005.vtu"));
    let n = ball.len() as f64;
    let centre = ball.iter().fold([0.0; 3], |c, p| [c[0] + p[0] / n, c[1] + p[1] / n, c[2] + p[2] / n]);
    assert!((centre[0] - 0.1).abs() < 1e-3 && (centre[2] - 0.5).abs() < 1e-3, "sphere centre {centre:?}");
    for p in &ball {
        let r = ((p[0] - 0.1).powi(2) + p[1].powi(2) + (p[2] - 0.5).powi(2)).sqrt();
        assert!((r - 0.05).abs() < 1e-9, "a sphere vertex at radius {r}");
    }
    let vtu = std::fs::read_to_string(out.join("vtk/collider_pusher_00005.vtu")).unwrap();
    assert!(vtu.contains("Name=\"collider\""), "the collider mark is missing");
}

#[test]
fn a_killed_run_says_running_in_run_json() {
    let dir = tempfile::tempdir().unwrap();
    let long = SCENE.replace("duration: 0.1", "duration: 1000.0");
    std::fs::write(dir.path().join("s.ron"), long).unwrap();
    let mut child =
        Command::new(BIN).args(["run", "s.ron", "--quiet", "--out", "out"]).current_dir(dir.path()).spawn().unwrap();
    let summary = dir.path().join("out/run.json");
    let start = std::time::Instant::now();
    while !summary.exists() && start.elapsed().as_secs() < 30 {
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    std::thread::sleep(std::time::Duration::from_millis(300));
    child.kill().unwrap(); // SIGKILL: no handler runs
    child.wait().unwrap();
    let json: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&summary).unwrap()).unwrap();
    assert_eq!(json["exit_status"], "running");
    assert!(dir.path().join("out/pusher.pvd").exists(), "the frames written so far are listed");
}
