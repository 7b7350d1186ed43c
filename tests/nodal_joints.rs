//! Joints in scenes that mix rigid bodies with solids, cloth or rods (the nodal step,
//! `pipeline::nonsmooth::joint_map`): the same jointed bodies move as in a rigid-only scene,
//! hinges keep their lines, and a motor turning a wheel that carries an attached soft pad spins
//! it up at the torque limit over the inertia of wheel and pad together.

#[path = "support/joints.rs"]
mod joints;
#[path = "support/scene_run.rs"]
mod scene_run;

use fricsim::simulation::Simulation;
use std::f64::consts::PI;

/// A scene with `bodies`, `joints` and, when `cloth`, a free 10 cm sheet 2 m away from them,
/// which puts the rigid bodies in the nodal step.
fn scene(dt: f64, bodies: &str, joints: &str, cloth: bool) -> Simulation {
    let sheet = if cloth {
        r#", Cloth(name: "sheet", material: "cotton", mesh: Grid(size: (0.1, 0.1), cells: (2, 2)), position: (2.0, 0.0, 0.5))"#
    } else {
        ""
    };
    let pipeline = "Nonsmooth(solver: Auto, tolerance: 1e-10, max_iterations: 5000)";
    scene_run::simulation(&joints::scene(dt, 0.5, pipeline, &format!("{bodies}{sheet}"), joints, ""))
}

/// A double pendulum of two hinged bars released at 30° with a spin about x that the hinges
/// remove, once alone (the rigid step) and once beside a sheet of cloth (the nodal step, where
/// the joints are eliminated onto the velocities they allow instead of through `M⁻¹`). Both
/// are the mass-metric projection of the same prediction onto the same rows, so they agree to
/// round-off at first, and a double pendulum amplifies it (measured: 7e-12 after 100 steps,
/// 1.4e-10 after 500, in m and rad). The gate is 1e-9 over 500 steps, and the hinge lines of
/// the nodal run stay one line to 1e-8 m (the rigid test's gate; measured 1.2e-12 m).
#[test]
fn a_double_pendulum_moves_as_in_the_rigid_step() {
    let (bodies, joints) = joints::double_pendulum();
    let mut rigid = scene(1e-3, &bodies, &joints, false);
    let mut mixed = scene(1e-3, &bodies, &joints, true);
    assert!(mixed.model.node_count() > 0);
    let (apart, worst, swing) = joints::compare_runs(&mut rigid, &mut mixed, 500);
    assert!(apart < 1e-9, "the nodal step's pendulum left the rigid step's by {apart:e}");
    assert!(worst < 1e-8, "a hinge line parted by {worst:e} m");
    assert!(swing > 0.2, "the pendulum did not swing ({swing} m)");
}

/// A wheel (r = 0.1 m, 5 cm thick) on a vertical axle carries a soft pad (6 × 6 × 2 cm,
/// 0.58 kg, E = 1e5 Pa) on its top, every vertex of it attached (`attach_to`): the pad's nodes
/// ride on the wheel, so the pair turns as one body of inertia `I = I_w + I_p`,
/// `I_p = Σ m_i d_i²` (d_i the nodes' distances from the axle; 27 % of I). A motor of torque
/// limit τ spins it up at τ / I until its target, then holds it.
///
/// The attached nodes carry their momentum as velocities `ω × r` at the step's start offsets
/// (`attached`), and the next step measures it about offsets turned by `ω h`: the pad's angular
/// momentum enters each step as `I_p ω cos(ω h)`. So the speeds follow
/// `I ω⁺ = (I_w + I_p cos(ω h)) ω + τ h`: checked to 1e-8 of the target (measured 1.4e-9; the
/// pad's nodes are put where the wheel's turn takes them within each Newton iteration, from the
/// previous iteration's spin, and 2 iterations leave that much; 7e-12 with a pad of no
/// stiffness). Before the nodes followed the turn, the pad's elastic forces, evaluated on the
/// straight update `x0 + h v` (off the turned wheel by `(ω h)² d / 2`), doubled the loss. The
/// closed form `ω = τ t / I` is met up to the sum of the `cos` losses (7.6e-4 of the target at
/// h = 1e-2); a pad left out of the inertia would miss it by 27 %. The rows keep the axle to
/// 1e-8 m.
#[test]
fn a_motor_spins_up_a_wheel_carrying_a_pad_over_their_joint_inertia() {
    let (r, len, tau, target, h) = (0.1, 0.05, 0.02, 90.0f64, 1e-2);
    let wheel = format!(
        r#"Rigid(name: "wheel", material: "m", shape: Cylinder(radius: {r}, length: {len}), position: (0.0, 0.0, 1.0)),
           Solid(name: "pad", material: "foam", mesh: Box(size: (0.06, 0.06, 0.02), cells: (2, 2, 1)), position: (0.07, 0.0, 1.035),
                 kinematic: [ (region: Box(min: (-1.0, -1.0, -1.0), max: (1.0, 1.0, 2.0)), attach_to: "wheel") ])"#
    );
    let joints = format!(
        r#"Hinge(a: "wheel", point: (0.0, 0.0, 1.0), axis: (0.0, 0.0, 1.0), motor: (speed: {target}, max_torque: {tau}))"#
    );
    let mut s = scene(h, &wheel, &joints, false);
    let i_w = 0.5 * PI * r * r * len * 1000.0 * r * r;
    let i_p: f64 = (0..s.model.node_count())
        .map(|i| {
            let (x, y) = (s.state.q[3 * i], s.state.q[3 * i + 1]);
            s.model.node_mass[i] * (x * x + y * y)
        })
        .sum();
    let inertia = i_w + i_p;
    assert!(i_p > 0.2 * inertia, "the pad must matter ({i_p:e} of {inertia:e} kg m²)");
    let (alpha, w1) = (tau / inertia, target.to_radians());
    let reach = w1 / alpha;
    assert!(reach < 2.5, "the test must reach the target ({reach} s)");
    let (mut worst, mut recursion, mut closed, mut losses) = (0.0f64, 0.0f64, 0.0f64, 0.0f64);
    let mut w_rec = 0.0;
    for step in 1..=300 {
        let st = s.step().expect("finite");
        assert!(st.converged, "step {step}: {:?}", st.failure);
        let t = step as f64 * h;
        if w_rec < w1 {
            // Held at the target, the motor makes up for them.
            losses += i_p * w_rec * (1.0 - (w_rec * h).cos()) / inertia;
        }
        w_rec = (((i_w + i_p * (w_rec * h).cos()) * w_rec + tau * h) / inertia).min(w1);
        let w = s.state.rigid[0].angular_velocity;
        recursion = recursion.max((w.z - w_rec).abs());
        closed = closed.max((w.z - (alpha * t).min(w1)).abs());
        worst = worst.max(joints::hinge_deviation(&s));
    }
    println!(
        "recursion {recursion:.1e}, closed form {closed:.1e} (losses {losses:.1e}) rad/s, target {w1}, axle {worst:.1e} m"
    );
    assert!(recursion < 1e-8 * w1, "{recursion:e} rad/s from the recursion");
    assert!(closed <= losses + 1e-10 * w1, "{closed:e} rad/s from the closed form, more than the losses {losses:e}");
    assert!(worst < 1e-8, "the axle moved by {worst:e} m");
}
