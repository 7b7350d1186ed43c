//! Rigid bodies in the Smooth pipeline, against answers known in closed form.
//!
//! - A rigid box on a 10° ramp collider (its refined surface points touch the ramp), and an
//!   elastic block on a scripted rigid slab tilted by 10° (the block's vertices touch the slab's
//!   MLS field), each 0.0001 below and 0.0002 above tan θ = 0.176327: stuck means a speed under
//!   1e-6 m/s at the end, three orders below the slower slide's 1.2e-3 m/s (exact Coulomb
//!   friction has no creep; the solvers' tolerances leave 4e-7 m/s on the rigid box with its 81
//!   redundant contacts, 5e-11 on the block), sliding means a = g (sin θ − μ cos θ) within 2 %
//!   over the second half (measured: 0.006 % on the rigid box, 0.5 % on the block).
//! - The same box on a mesh collider (`smooth_mesh_ramp10.ron`: a square of two triangles, its
//!   refined surface the field), same bounds (measured: a within 0.006 %, stuck at 4e-7 m/s).
//! - A rigid ball dropped into a V groove mesh (`scenes/ball_in_groove.ron`, faces at 30°) rests
//!   touching both faces: its centre within 1 mm of the crease's vertical plane and of
//!   r / cos 30° = 5.774 cm above the crease (the 32-segment polyhedral ball's points sit up to
//!   0.24 mm inside its sphere; measured 0.03 mm and 0.1 mm), moving slower than 1 cm/s at 2 s.
//! - Rigid–rigid contact: the same box on a scripted rigid slab tilted by 10°, same bounds; a box
//!   sliding on a free plate until both move together, against the closed form (below); a stack
//!   of boxes with a block dropped on it (below).
//! - A rigid box and ball dropped onto an elastic block (`scenes/smooth_mixed_drop.ron`) come to
//!   rest on its top face: both move by less than 0.1 mm over 1.2–1.5 s (the ball, landed on the
//!   pole of its tessellation, tips onto a ring of points first and rests from 0.95 s), the
//!   box's bottom corner sits on the block's top (within 2 mm: the rubber under it is pressed in
//!   by its weight) and the ball's centre one radius above it (same).

#[path = "support/scene_run.rs"]
mod scene_run;

use fricsim::simulation::Simulation;
use nalgebra::Vector3;
use std::path::Path;

const G: f64 = 9.81;

fn sim(path: &str, overrides: &[String]) -> Simulation {
    let p = Path::new(env!("CARGO_MANIFEST_DIR")).join(path);
    Simulation::from_file(&p, overrides).unwrap_or_else(|e| panic!("{path}: {e}"))
}

/// Downhill velocity of the tracked body after each step for 1 s; every step converges.
fn downhill(s: &mut Simulation, velocity: impl Fn(&Simulation) -> Vector3<f64>) -> Vec<(f64, f64)> {
    let theta = 10f64.to_radians();
    let down = Vector3::new(-theta.cos(), 0.0, -theta.sin());
    (0..(1.0 / s.model.dt).round() as usize)
        .map(|_| {
            let st = s.step().expect("finite state");
            assert!(st.converged, "step {} failed: {:?}", s.state.step, st.failure);
            (s.state.time, velocity(s).dot(&down))
        })
        .collect()
}

/// Least-squares slope over the second half.
fn slope(trace: &[(f64, f64)]) -> f64 {
    let half = &trace[trace.len() / 2..];
    let n = half.len() as f64;
    let (mt, mv) = (half.iter().map(|p| p.0).sum::<f64>() / n, half.iter().map(|p| p.1).sum::<f64>() / n);
    let num: f64 = half.iter().map(|(t, v)| (t - mt) * (v - mv)).sum();
    num / half.iter().map(|(t, _)| (t - mt).powi(2)).sum::<f64>()
}

fn check_threshold(scene: &str, velocity: impl Fn(&Simulation) -> Vector3<f64> + Copy) {
    let theta = 10f64.to_radians();
    for mu in [0.1762, 0.1765] {
        let mut s = sim(scene, &[format!("friction.pairs[0].mu={mu}")]);
        let trace = downhill(&mut s, velocity);
        let exact = G * (theta.sin() - mu * theta.cos());
        let end = trace.last().unwrap().1;
        eprintln!("{scene}, mu {mu}: a = {:.6e} (exact {exact:.6e}), speed at the end {end:.3e}", slope(&trace));
        if exact > 0.0 {
            let a = slope(&trace);
            assert!((a - exact).abs() <= 0.02 * exact, "{scene}, mu {mu}: a = {a} vs {exact}");
        } else {
            assert!(end.abs() < 1e-6, "{scene}, mu {mu}: still moves at {end} m/s");
        }
    }
}

#[test]
fn rigid_box_on_the_ramp_sticks_and_slides_at_the_threshold() {
    check_threshold("scenes/validation/smooth_rigid_ramp10.ron", |s| s.state.rigid[0].linear_velocity);
}

#[test]
fn rigid_box_on_a_mesh_ramp_sticks_and_slides_at_the_threshold() {
    check_threshold("scenes/validation/smooth_mesh_ramp10.ron", |s| s.state.rigid[0].linear_velocity);
}

#[test]
fn a_ball_dropped_in_a_v_groove_mesh_rests_against_both_faces() {
    let mut s = sim("scenes/ball_in_groove.ron", &[]);
    for _ in 0..(2.0 / s.model.dt).round() as usize {
        let st = s.step().expect("finite state");
        assert!(st.converged, "step {} failed: {:?}", s.state.step, st.failure);
    }
    let b = &s.state.rigid[0];
    let height = 0.05 / 30f64.to_radians().cos();
    eprintln!(
        "ball at x = {:.5}, z = {:.5} (exact 0, {height:.5}), speed {:.2e}",
        b.position.x,
        b.position.z,
        b.linear_velocity.norm()
    );
    assert!(b.position.x.abs() < 1e-3 && (b.position.z - height).abs() < 1e-3, "ball at {:?}", b.position);
    assert!(b.linear_velocity.norm() < 1e-2, "ball still moves at {}", b.linear_velocity.norm());
}

#[test]
fn elastic_block_on_a_rigid_slab_sticks_and_slides_at_the_threshold() {
    check_threshold("scenes/validation/smooth_block_on_rigid_slab.ron", |s| {
        s.state.nodes_centroid(&s.model, 0..s.model.node_count()).1
    });
}

#[test]
fn rigid_bodies_dropped_on_an_elastic_block_come_to_rest_on_it() {
    let mut s = sim("scenes/smooth_mixed_drop.ron", &[]);
    let mut at_12 = Vec::new();
    for _ in 0..(1.5 / s.model.dt).round() as usize {
        let st = s.step().expect("finite state");
        assert!(st.converged, "step {} failed: {:?}", s.state.step, st.failure);
        if at_12.is_empty() && s.state.time >= 1.2 - 1e-9 {
            at_12 = s.state.rigid.iter().map(|b| b.position).collect();
        }
    }
    let (bx, ball) = (&s.state.rigid[0], &s.state.rigid[1]);
    for (b, p0) in s.state.rigid.iter().zip(&at_12) {
        let moved = (b.position - p0).norm();
        assert!(moved < 1e-4, "a rigid body still moves: {moved} m in 0.3 s");
    }
    let corners = [-1.0, 1.0]
        .iter()
        .flat_map(|&x| [-1.0, 1.0].iter().flat_map(move |&y| [-1.0, 1.0].map(|z| Vector3::new(x, y, z))));
    let lowest = corners
        .map(|c| bx.world_point(&c.component_mul(&Vector3::new(0.04, 0.04, 0.02))).z)
        .fold(f64::INFINITY, f64::min);
    eprintln!("box's lowest corner at z = {lowest:.5}, ball's centre at {:.5}", ball.position.z);
    assert!((lowest - 0.1).abs() < 2e-3, "the box's lowest corner is at z = {lowest}");
    assert!((ball.position.z - 0.13).abs() < 2e-3, "the ball's centre is at z = {}", ball.position.z);
}

/// Rigid–rigid contact: the box of the ramp case on a scripted rigid slab tilted by 10°, its
/// refined surface points against the slab's exact signed distance; the same bounds.
#[test]
fn rigid_box_on_a_rigid_slab_sticks_and_slides_at_the_threshold() {
    check_threshold("scenes/validation/smooth_rigid_on_rigid_slab.ron", |s| s.state.rigid[0].linear_velocity);
}

/// Two dynamic rigid bodies (`smooth_rigid_slide_on_slab.ron`): a 2 kg box thrown at 0.5 m/s
/// along a 2.4 kg plate on a frictionless floor, μ 0.3 between them. In closed form the box
/// decelerates at μ g and the plate accelerates at μ g m_box / m_plate until both move at
/// m_box v0 / (m_box + m_plate) after t* = v0 / (μ g (1 + m_box / m_plate)) = 0.0927 s.
/// - The horizontal momentum is the box's initial one at every step: the contacts act on both
///   bodies at one point, equal and opposite, and the floor's are vertical; to 1e-12 of it
///   (round-off; measured 2e-16).
/// - While sliding (0.01–0.08 s), each step's change of velocity is the closed form's to 0.5 %
///   (measured to 1e-6 of it: exact Coulomb friction on exact fields).
/// - The relative sliding ends at t* within one step and the two move at the common speed to
///   1e-6 m/s after it (the friction solve's tolerance leaves ~1e-7).
/// - The box stays on the plate's top to 1e-6 m (measured 1e-11).
#[test]
fn a_box_slides_on_a_free_plate_until_both_move_together() {
    let mut s = sim("scenes/validation/smooth_rigid_slide_on_slab.ron", &[]);
    let (m_box, m_plate, mu, v0, h) = (2.0, 2.4, 0.3, 0.5, s.model.dt);
    let (a_box, a_plate) = (mu * G, mu * G * m_box / m_plate);
    let t_star = v0 / (mu * G * (1.0 + m_box / m_plate));
    let common = m_box * v0 / (m_box + m_plate);
    let (mut stopped, mut worst_rate, mut worst_height): (Option<f64>, f64, f64) = (None, 0.0, 0.0);
    let mut prev = (v0, 0.0);
    while s.state.time < 0.2 - 1e-9 {
        let st = s.step().expect("finite state");
        assert!(st.converged, "step {} failed: {:?}", s.state.step, st.failure);
        let (plate, bx) = (&s.state.rigid[0], &s.state.rigid[1]);
        let (vb, vp) = (bx.linear_velocity.x, plate.linear_velocity.x);
        let momentum = m_box * vb + m_plate * vp;
        assert!((momentum - m_box * v0).abs() < 1e-12 * m_box * v0, "t {}: momentum {momentum}", s.state.time);
        let t = s.state.time;
        if (0.01..0.08).contains(&t) {
            let rates = ((prev.0 - vb) / h / a_box - 1.0, (vp - prev.1) / h / a_plate - 1.0);
            worst_rate = worst_rate.max(rates.0.abs()).max(rates.1.abs());
        }
        if stopped.is_none() && (vb - vp).abs() < 1e-6 {
            stopped = Some(t);
        }
        if t > t_star + h {
            assert!((vb - common).abs() < 1e-6 && (vp - common).abs() < 1e-6, "t {t}: {vb} and {vp} vs {common}");
        }
        worst_height = worst_height.max((bx.position.z - 0.09).abs());
        prev = (vb, vp);
    }
    let stopped = stopped.expect("the box never stopped sliding on the plate");
    eprintln!(
        "slide: rates off by {worst_rate:.1e}, relative sliding ended at {stopped:.3} s (t* {t_star:.4}), \
         height off by {worst_height:.1e} m"
    );
    assert!(worst_rate < 5e-3, "accelerations off by {worst_rate}");
    assert!((stopped - t_star).abs() <= h + 1e-12, "sliding ended at {stopped} s, not {t_star}");
    assert!(worst_height < 1e-6, "the box left the plate's top by {worst_height} m");
}

/// Rigid bodies on rigid bodies (`scenes/smooth_rigid_stack.ron`): three 10 cm boxes stacked
/// on the floor and a steel block dropped from 2 cm onto the top one, off its centre and turned
/// by 30°. After 0.5 s every box is at its exact height (0.05, 0.15, 0.25 m; the block 0.32 m)
/// and where it started across, to 1e-6 m (exact fields of flat faces: measured 1e-11 in height,
/// 1.3e-8 across), and moves slower than 1e-6 m/s (measured 2.4e-8: the solvers' tolerances).
#[test]
fn a_stack_of_rigid_boxes_stands_and_a_dropped_block_rests_on_it() {
    let mut s = sim("scenes/smooth_rigid_stack.ron", &[]);
    let start: Vec<Vector3<f64>> = s.state.rigid.iter().map(|b| b.position).collect();
    while s.state.time < 0.5 - 1e-9 {
        let st = s.step().expect("finite state");
        assert!(st.converged, "step {} failed: {:?}", s.state.step, st.failure);
    }
    for (k, (b, p0)) in s.state.rigid.iter().zip(&start).enumerate() {
        let height = [0.05, 0.15, 0.25, 0.32][k];
        let (off, across) = (b.position.z - height, (b.position - p0).xy().norm());
        let speed = b.linear_velocity.norm() + b.angular_velocity.norm() * b.shape.bounding_radius();
        eprintln!("body {k}: height off by {off:.1e} m, moved across {across:.1e} m, speed {speed:.1e} m/s");
        assert!(off.abs() < 1e-6 && across < 1e-6, "body {k} at {:?}", b.position);
        assert!(speed < 1e-6, "body {k} still moves at {speed} m/s");
    }
}

/// The predictor's rigid block `M_r + Aᵀ D A` loses its positive definiteness to round-off when
/// bodies rest on many redundant contacts (`D` reaches 1e16): here three stacked boxes, a steel
/// ball landed on them and a capsule on the floor, whose step at 0.235 s failed ("the Newton
/// system could not be solved": the block's smallest eigenvalue computed as −1.3e-4 against a
/// ball inertia of 3e-4 kg m²). The block is then factored by QR of its square root
/// (`RigidBlock::factor_by_qr`; measured: used at two steps of these 60): every step converges
/// and the ball rests on the top box, its centre one radius above it to 1e-6 m.
#[test]
fn a_ball_landed_on_a_rigid_stack_does_not_break_the_predictor() {
    let scene = r#"Scene(
    name: "ball_on_stack", dt: 5e-3, duration: 0.3, frame_rate: 50.0,
    materials: { "wood": (density: 600.0), "steel": (density: 7800.0) },
    friction: (default: (mu: 0.5)),
    bodies: [
        Rigid(name: "box0", material: "wood", shape: Box(size: (0.1, 0.1, 0.1)), position: (0.0, 0.0, 0.05)),
        Rigid(name: "box1", material: "wood", shape: Box(size: (0.1, 0.1, 0.1)), position: (0.0, 0.0, 0.15)),
        Rigid(name: "box2", material: "wood", shape: Box(size: (0.1, 0.1, 0.1)), position: (0.0, 0.0, 0.25)),
        Rigid(name: "ball", material: "steel", shape: Sphere(radius: 0.03), position: (0.01, 0.005, 0.4)),
        Rigid(name: "capsule", material: "steel", shape: Capsule(radius: 0.02, length: 0.12), position: (0.12, 0.0, 0.1), rotation: (90.0, 0.0, 20.0)),
    ],
    colliders: [ Plane(name: "floor", material: "wood") ],
    pipeline: Smooth(field: (kernel: Cubic, radius: 0.02)),
)"#;
    let mut s = scene_run::simulation(scene);
    for _ in 0..60 {
        let st = s.step().expect("finite state");
        assert!(st.converged, "step {} failed: {:?}", s.state.step, st.failure);
    }
    let ball = s.state.rigid[3].position.z;
    eprintln!("the ball's centre at {ball:.7} m (0.33 on the top box)");
    assert!((ball - 0.33).abs() < 1e-6, "the ball's centre is at {ball}");
}
