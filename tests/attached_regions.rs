//! A solid's `kinematic` region attached to a rigid body (`attach_to`): riding on a dynamic body
//! as part of it (Nonsmooth), or following a scripted body's motion (any pipeline); and the
//! scenes that are refused.

#[path = "support/scene_run.rs"]
mod scene_run;

use nalgebra::Vector3;

const G: f64 = 9.81;

/// A 1 kg rigid cube (10 cm) with a soft pad (10 × 10 × 2 cm, 0.2 kg) whose top layer is
/// attached to the cube's bottom face, `drop` metres above a floor, spinning at 90°/s about z.
fn composite(core_motion: &str, region: &str, pipeline: &str) -> String {
    format!(
        r#"Scene(
    name: "composite", dt: 0.005, duration: 1.0, frame_rate: 10.0,
    materials: {{
        "wood": (density: 1000.0),
        "foam": (density: 1000.0, youngs_modulus: 1e5, poisson_ratio: 0.3),
    }},
    friction: (default: (mu: 0.5)),
    bodies: [
        Rigid(name: "core", material: "wood", shape: Box(size: (0.1, 0.1, 0.1)), position: (0.0, 0.0, 0.27),
              {core_motion}),
        Solid(name: "pad", material: "foam", mesh: Box(size: (0.1, 0.1, 0.02), cells: (2, 2, 1)), position: (0.0, 0.0, 0.21),
              angular_velocity: (0.0, 0.0, 90.0),
              kinematic: [ (region: Box(min: (-1.0, -1.0, 0.2199), max: (1.0, 1.0, 1.0)), {region}) ]),
    ],
    colliders: [ Plane(name: "floor", material: "wood") ],
    pipeline: {pipeline},
)"#
    )
}

/// Riding on a dynamic body, the pad is part of it:
/// - in free fall (the first 0.15 s) the total momentum of core and pad changes by (m + m_pad) g
///   h per step, to 1e-9 of it (nothing but gravity acts on the whole; the pad's elastic forces
///   on its attached layer are internal), and every attached node stays at its body-frame
///   offset to 1e-12 m while the composite turns (they are put back on the body after each step);
/// - landed (1 s), the composite rests on its pad: the core is still (under 1 mm/s) and its
///   bottom is 2 cm above the floor less the pad's compression under 1 kg, which is about
///   m g t / (E A) = 0.2 mm (a one-cell pad, so only its order is checked: 0.05–1 mm).
#[test]
fn a_pad_riding_on_a_dynamic_body_falls_with_it_and_carries_it() {
    let text = composite("angular_velocity: (0.0, 0.0, 90.0)", r#"attach_to: "core""#, "Nonsmooth()");
    let mut s = scene_run::simulation(&text);
    let region = s.model.attached_regions[0].clone();
    assert_eq!(region.nodes.len(), 9, "the pad's top layer (3 x 3 nodes) rides on the core");
    let pad = s.model.solids[0].nodes.clone();
    let momentum = |s: &fricsim::simulation::Simulation| {
        let nodal: Vector3<f64> =
            pad.clone().map(|i| Vector3::from_column_slice(&s.state.v[3 * i..3 * i + 3]) * s.model.node_mass[i]).sum();
        nodal + s.state.rigid[0].linear_velocity * s.state.rigid[0].mass
    };
    let total_mass = s.state.rigid[0].mass + pad.clone().map(|i| s.model.node_mass[i]).sum::<f64>();
    let h = s.model.dt;
    let (mut worst_momentum, mut worst_offset) = (0.0f64, 0.0f64);
    for _ in 0..30 {
        let before = momentum(&s);
        scene_run::run_for(&mut s, h, h);
        let change = momentum(&s) - before - Vector3::new(0.0, 0.0, -total_mass * G * h);
        worst_momentum = worst_momentum.max(change.norm() / (total_mass * G * h));
        let body = &s.state.rigid[0];
        for (&i, local) in region.nodes.iter().zip(&region.offsets) {
            let x = Vector3::from_column_slice(&s.state.q[3 * i..3 * i + 3]);
            worst_offset = worst_offset.max((x - body.position - body.orientation * local).norm());
        }
    }
    println!("free fall: momentum error {worst_momentum:e} of m g h, attached nodes off by {worst_offset:e} m");
    assert!(worst_momentum < 1e-9 && worst_offset < 1e-12);
    assert!(s.state.rigid[0].angular_velocity.z > 1.0, "the composite stopped turning in the air");
    scene_run::run_for(&mut s, 0.85, h);
    let core = &s.state.rigid[0];
    let bottom = core.position.z - 0.05;
    println!("landed: core speed {:e} m/s, bottom {bottom} m", core.linear_velocity.norm());
    assert!(core.linear_velocity.norm() < 1e-3, "the composite still moves");
    assert!((0.019..0.01995).contains(&bottom), "the core's bottom is at {bottom} m over a 2 cm pad");
}

/// Attached to a scripted body, a region follows its script: the pad attached to a core spinning
/// by `Spin` moves as the same pad whose top layer has that `Spin` as its own motion, node for
/// node to 1e-12 m over 0.2 s (Nonsmooth; the scripted core pushes on nothing).
#[test]
fn a_region_attached_to_a_scripted_body_follows_its_script() {
    let spin = "motion: Spin(pivot: (0.0, 0.0, 0.0), axis: (0.0, 0.0, 1.0), rate: 90.0)";
    let pipeline = "Nonsmooth()";
    let mut attached = scene_run::simulation(&composite(spin, r#"attach_to: "core""#, pipeline));
    let mut scripted = scene_run::simulation(&composite(spin, spin, pipeline));
    assert!(attached.model.attached_regions.is_empty(), "a scripted body's region is a kinematic set");
    scene_run::run_for(&mut attached, 0.2, 0.005);
    scene_run::run_for(&mut scripted, 0.2, 0.005);
    let apart = attached.state.q.iter().zip(&scripted.state.q).map(|(a, b)| (a - b).abs()).fold(0.0, f64::max);
    println!("attached against scripted: {apart:e} m");
    assert!(apart < 1e-12);
}

/// Refused with the field: riding on a dynamic body outside Nonsmooth, `attach_to` with a
/// `motion` or a `follow`, a name that is no rigid body, a node both riding and scripted.
#[test]
fn attachments_that_cannot_work_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let cases = [
        (composite("", r#"attach_to: "core""#, "Penalty()"), "needs `pipeline: Nonsmooth(..)`"),
        (
            composite("", r#"attach_to: "core", motion: Velocity(0.0, 0.0, 1.0)"#, "Nonsmooth()"),
            "give either `attach_to` or `motion`",
        ),
        (
            composite("", r#"attach_to: "core", follow: (path: "s_{}.obj", animation: (fps: 10.0))"#, "Nonsmooth()"),
            "give either `follow` or `attach_to`",
        ),
        (composite("", r#"attach_to: "lid""#, "Nonsmooth()"), "names no rigid body"),
    ];
    for (text, message) in cases {
        let text = text.replace(",\n              ),", "),");
        let e = fricsim::scene::parse_scene_str(&text, "a.ron", dir.path(), &[])
            .and_then(|l| fricsim::scene::build::build(&l))
            .err()
            .unwrap_or_else(|| panic!("accepted:\n{text}"))
            .to_string();
        assert!(e.contains("bodies[1].kinematic[0]") && e.contains(message), "{message}:\n{e}");
    }
    // A second region scripting the attached layer.
    let both = r#"attach_to: "core"), (region: Box(min: (-1.0, -1.0, 0.2199), max: (1.0, 1.0, 1.0)), motion: Velocity(0.0, 0.0, 1.0)"#;
    let built = fricsim::scene::parse_scene_str(&composite("", both, "Nonsmooth()"), "a.ron", dir.path(), &[])
        .and_then(|l| fricsim::scene::build::build(&l));
    let Err(e) = built else { panic!("a node both riding and scripted was accepted") };
    let e = e.to_string();
    assert!(e.contains("bodies[1].kinematic") && e.contains("cannot ride on a body and follow a script"), "{e}");
}

/// A `Cylinder` region selects the vertices within its radius of its axis and half its length
/// of its centre. The pad's vertices stand in 9 columns at x, y ∈ {−0.05, 0, 0.05}, two layers
/// each: a cylinder of radius 0.071 about z takes all 18, one of 0.06 the centre and the 4 edge
/// columns (10), one off the pad none (refused). A zero axis or a negative radius is refused with
/// its field.
#[test]
fn a_cylinder_region_selects_by_distance_from_its_axis() {
    let dir = tempfile::tempdir().unwrap();
    let region = |centre: &str, radius: &str, axis: &str| {
        let text = composite("", "motion: Fixed", "Nonsmooth()").replace(
            "region: Box(min: (-1.0, -1.0, 0.2199), max: (1.0, 1.0, 1.0))",
            &format!("region: Cylinder(center: {centre}, axis: {axis}, radius: {radius}, length: 0.1)"),
        );
        fricsim::scene::parse_scene_str(&text, "a.ron", dir.path(), &[]).and_then(|l| fricsim::scene::build::build(&l))
    };
    let on = "(0.0, 0.0, 0.21)";
    for (radius, selected) in [("0.071", 18), ("0.06", 10)] {
        let (model, _) = region(on, radius, "(0.0, 0.0, 1.0)").unwrap_or_else(|e| panic!("{e}"));
        let n = (0..model.node_count()).filter(|&i| model.node_is_kinematic[i]).count();
        assert_eq!(n, selected, "radius {radius}");
    }
    for (centre, radius, axis, field, message) in [
        ("(1.0, 1.0, 0.21)", "0.06", "(0.0, 0.0, 1.0)", "bodies[1].kinematic[0].region", "selects"),
        (on, "0.071", "(0.0, 0.0, 0.0)", "bodies[1].kinematic[0].region.axis", "non-zero"),
        (on, "-0.1", "(0.0, 0.0, 1.0)", "bodies[1].kinematic[0].region.radius", "must be a length"),
    ] {
        let Err(e) = region(centre, radius, axis) else { panic!("radius {radius}, axis {axis} was accepted") };
        let e = e.to_string();
        assert!(e.contains(field) && e.contains(message), "{field}: {e}");
    }
}
