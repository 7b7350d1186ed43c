//! Solids whose surface is embedded in a cage of tetrahedra (`mesh: Embedded(surface, cage)`,
//! 004's non-conforming solids): the surface makes the contacts, the cage carries elasticity and
//! mass, and the surface's nodes stay the barycentric combinations of their cage tets' corners.

#[path = "support/scene_run.rs"]
mod scene_run;

use fricsim::model::node;
use fricsim::simulation::Simulation;
use std::path::{Path, PathBuf};

const SIDE: f64 = 0.1;

/// A folder holding `cube.obj` (a closed cube of side `SIDE` centred at the origin), one per test.
fn folder(test: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("fricsim_embedded_{}_{test}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let h = SIDE / 2.0;
    let mut obj = String::new();
    for k in 0..8 {
        let c = |b: usize| if k >> b & 1 == 1 { h } else { -h };
        obj += &format!("v {} {} {}\n", c(0), c(1), c(2));
    }
    for f in [
        [1, 3, 2],
        [2, 3, 4],
        [5, 6, 7],
        [6, 8, 7],
        [1, 2, 5],
        [2, 6, 5],
        [3, 7, 4],
        [4, 7, 8],
        [1, 5, 3],
        [3, 5, 7],
        [2, 4, 6],
        [4, 8, 6],
    ] {
        obj += &format!("f {} {} {}\n", f[0], f[1], f[2]);
    }
    std::fs::write(dir.join("cube.obj"), obj).unwrap();
    dir
}

/// The scene text: the embedded cube `body` over a plane turned by `tilt` degrees about y.
fn scene(body: &str, tilt: f64, mu: f64, pipeline: &str) -> String {
    format!(
        r#"Scene(name: "embedded", dt: 1e-3, frames: 1, frame_rate: 1.0, gravity: (0.0, 0.0, -9.81),
        materials: {{ "rubber": (density: 1000.0, youngs_modulus: 1e7, poisson_ratio: 0.3, model: FixedCorotated),
                      "ground": () }},
        friction: (default: (mu: {mu})),
        bodies: [ {body} ],
        colliders: [ Plane(name: "ground", material: "ground", rotation: (0.0, {tilt}, 0.0)) ],
        pipeline: {pipeline})"#
    )
}

fn cube(position: [f64; 3], tilt: f64) -> String {
    format!(
        r#"Solid(name: "cube", material: "rubber", mesh: Embedded(surface: "cube.obj", cage: Grid(cell: 0.03)),
            position: ({}, {}, {}), rotation: (0.0, {tilt}, 0.0))"#,
        position[0], position[1], position[2]
    )
}

const NONSMOOTH: &str = "Nonsmooth(solver: Auto, tolerance: 1e-9, max_iterations: 2000)";

fn build(dir: &Path, text: &str) -> Simulation {
    scene_run::simulation_in(text, dir)
}

/// The largest distance of an embedded node from the combination of its cage corners.
fn off_the_cage(s: &Simulation) -> f64 {
    let e = s.model.solids[0].embedding.as_ref().expect("embedded");
    e.nodes
        .clone()
        .enumerate()
        .map(|(k, i)| (node(&s.state.q, i) - e.on_cage(&s.state.q, k)).norm())
        .fold(0.0, f64::max)
}

/// A 0.1 m cube in a 0.12 m cage of 3 cm cells, dropped 0.5 mm onto a plane, rests on its own
/// faces: its surface's lowest corner at the plane (to the contact solve's closing of the gap),
/// while the cage's lowest nodes hang 1 cm below it, touching nothing. The mass is the surface's
/// (ρ V = 1 kg), not the cage's 1.728 kg, and every surface node stays on its cage position.
#[test]
fn an_embedded_cube_rests_on_its_surface_not_its_cage() {
    let dir = folder("rest");
    let mut s = build(&dir, &scene(&cube([0.0, 0.0, SIDE / 2.0 + 5e-4], 0.0), 0.0, 0.5, NONSMOOTH));
    let solid = &s.model.solids[0];
    assert!((solid.mass - 1.0).abs() < 1e-12, "mass {}", solid.mass);
    let e = solid.embedding.clone().unwrap();
    assert_eq!(e.nodes.len(), 8);
    scene_run::run_for(&mut s, 0.3, 1e-3);
    let lowest =
        |nodes: &mut dyn Iterator<Item = usize>| nodes.map(|i| s.state.q[3 * i + 2]).fold(f64::INFINITY, f64::min);
    let surface = lowest(&mut e.nodes.clone());
    let cage = lowest(&mut (s.model.solids[0].nodes.start..e.nodes.start));
    // Gaps close exactly in the nodal step (no penetration allowance): what is left is the
    // solve's error at tolerance 1e-9 times a step's travel (measured 8e-15 m).
    assert!(surface.abs() < 1e-10, "lowest surface node at z = {surface:e}");
    assert!(cage < -0.009, "the cage's lowest node at z = {cage} should hang below the plane");
    // The map is linear and the step moves every node by h v: exact to round-off of 0.1 m.
    assert!(off_the_cage(&s) < 1e-14, "surface nodes off their cage positions by {:e}", off_the_cage(&s));
}

/// On a 20° incline the cube sticks at μ = tan θ + 0.05 and slides at tan θ − 0.05 with
/// Coulomb's acceleration g (sin θ − μ cos θ) (friction is exact: all four corners slide).
#[test]
fn an_embedded_cube_sticks_or_slides_on_an_incline() {
    let dir = folder("incline");
    let theta = 20f64.to_radians();
    let n = [-theta.sin(), 0.0, theta.cos()];
    let at = n.map(|c| c * (SIDE / 2.0 + 1e-5));
    let down = nalgebra::Vector3::new(-theta.cos(), 0.0, -theta.sin());
    // The centre of mass's position and velocity along the slope.
    let along = |s: &Simulation| {
        let (m, nodes) = (&s.model.node_mass, s.model.solids[0].nodes.clone());
        let total: f64 = nodes.clone().map(|i| m[i]).sum();
        let (x, v) = nodes.fold((nalgebra::Vector3::zeros(), nalgebra::Vector3::zeros()), |(x, v), i| {
            (x + node(&s.state.q, i) * m[i], v + node(&s.state.v, i) * m[i])
        });
        (down.dot(&x) / total, down.dot(&v) / total)
    };
    for (dmu, slides) in [(0.05, false), (-0.05, true)] {
        let mu = theta.tan() + dmu;
        let mut s = build(&dir, &scene(&cube(at, -20.0), -20.0, mu, NONSMOOTH));
        // Settle onto the plane, then measure over 0.2 s.
        scene_run::run_for(&mut s, 0.05, 1e-3);
        let (x0, v0) = along(&s);
        scene_run::run_for(&mut s, 0.2, 1e-3);
        let (x1, v1) = along(&s);
        let exact = 9.81 * (theta.sin() - mu * theta.cos());
        if slides {
            let a = (v1 - v0) / 0.2;
            // Every step's friction is exact to the solve's tolerance 1e-9 (relative); 200
            // steps of it stay far below 1e-6 (measured 7.6e-9).
            assert!((a - exact).abs() < 1e-6 * exact, "μ = {mu:.4}: a = {a} against {exact}");
        } else {
            // Holding: the centre moves by the solve's residual creep only (measured 1.7e-10 m
            // in 0.2 s; the slide at 0.05 below the threshold moves 14 mm).
            assert!((x1 - x0).abs() < 1e-8 && v1.abs() < 1e-7, "μ = {mu:.4}: moved {:e} m, v = {v1:e}", x1 - x0);
        }
    }
}

/// Refused with the field and the reason: an open surface, a cage cell far too small, a cage
/// file that leaves surface vertices out, the Penalty pipeline, scripted vertices.
#[test]
fn bad_embeddings_are_refused_with_the_field_named() {
    let dir = folder("bad");
    let open: String =
        std::fs::read_to_string(dir.join("cube.obj")).unwrap().lines().take(19).collect::<Vec<_>>().join("\n");
    std::fs::write(dir.join("open.obj"), open).unwrap();
    // A 2 cm cube of 6 tets: the 10 cm surface's corners lie outside it.
    let small = "# vtk DataFile Version 3.0\nsmall cage\nASCII\nDATASET UNSTRUCTURED_GRID\nPOINTS 8 double\n\
        -0.01 -0.01 -0.01\n0.01 -0.01 -0.01\n-0.01 0.01 -0.01\n0.01 0.01 -0.01\n\
        -0.01 -0.01 0.01\n0.01 -0.01 0.01\n-0.01 0.01 0.01\n0.01 0.01 0.01\n\
        CELLS 6 30\n4 0 1 3 7\n4 0 3 2 7\n4 0 2 6 7\n4 0 6 4 7\n4 0 4 5 7\n4 0 5 1 7\n\
        CELL_TYPES 6\n10\n10\n10\n10\n10\n10\n";
    std::fs::write(dir.join("small.vtk"), small).unwrap();
    let body = |mesh: &str, extra: &str| {
        format!(r#"Solid(name: "cube", material: "rubber", mesh: {mesh}, position: (0.0, 0.0, 0.06){extra})"#)
    };
    let cases = [
        (
            body(r#"Embedded(surface: "open.obj", cage: Grid(cell: 0.03))"#, ""),
            NONSMOOTH,
            "bodies[0].mesh.surface",
            "cannot be embedded",
        ),
        (
            body(r#"Embedded(surface: "cube.obj", cage: Grid(cell: 1e-5))"#, ""),
            NONSMOOTH,
            "bodies[0].mesh.cage.cell",
            "at most 1000000",
        ),
        (
            body(r#"Embedded(surface: "cube.obj", cage: File(path: "small.vtk"))"#, ""),
            NONSMOOTH,
            "bodies[0].mesh.cage",
            "outside the cage",
        ),
        (
            body(r#"Embedded(surface: "cube.obj", cage: Grid(cell: 0.03))"#, ""),
            "Penalty()",
            "bodies[0].mesh",
            "needs `pipeline: Nonsmooth",
        ),
        (
            body(
                r#"Embedded(surface: "cube.obj", cage: Grid(cell: 0.03))"#,
                r#", kinematic: [(region: Box(min: (-1.0, -1.0, -1.0), max: (1.0, 1.0, 1.0)))]"#,
            ),
            NONSMOOTH,
            "bodies[0].kinematic",
            "no scripted or attached",
        ),
    ];
    for (b, pipeline, field, reason) in cases {
        let text = scene(&b, 0.0, 0.5, pipeline);
        let err = fricsim::scene::parse_scene_str(&text, "test", &dir, &[])
            .and_then(|l| fricsim::scene::build::build(&l).map(|_| ()))
            .expect_err(&b)
            .to_string();
        assert!(err.contains(field) && err.contains(reason), "{b}:\n{err}");
    }
}
