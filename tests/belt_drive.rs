//! 000's belt drive (E7, Fig. 9) in the Nonsmooth pipeline (`scenes/belt_drive.ron`, made by
//! `scripts/belt_drive.py`): a motorised driver pulley turns a braked pulley of the same radius
//! through a tensioned cloth belt, by friction alone. The capstan equation bounds the torque a
//! half-wrapped belt carries, `τ* = R F tanh(μ π / 2)`, `F = T1 + T2` the belt's pull on the
//! pulley (measured from the contact forces): below it the driven pulley turns with the driver,
//! above it the belt slips on it.

#[path = "support/scene_run.rs"]
mod scene_run;

use fricsim::simulation::Simulation;
use nalgebra::Vector3;

const R: f64 = 0.08;
const D: f64 = 0.3;
const Z: f64 = 0.5;
const MU: f64 = 0.3;

/// Over the run's last quarter: the driver's and the driven pulley's mean spin (rad/s), the
/// belt's mean pull on the driven pulley `F` (N) and the mean torque its friction puts on it
/// about the axle (N m).
struct Run {
    driver: f64,
    driven: f64,
    pull: f64,
    torque: f64,
}

fn run(load: f64, mu: f64) -> Run {
    run_scene("belt_drive.ron", load, mu, 1.0, false, &[]).0
}

/// [`run`] for scene `name` over `seconds`, both pulleys started at the driver's target spin
/// when `spun`, with the overrides `more`; also the largest distance of the driven pulley's hub
/// from its axle line over the run (m).
fn run_scene(name: &str, load: f64, mu: f64, seconds: f64, spun: bool, more: &[&str]) -> (Run, f64) {
    let mut overrides = vec![format!("joints[1].motor.max_torque={load}"), format!("friction.pairs[0].mu={mu}")];
    overrides.extend(more.iter().map(|s| s.to_string()));
    if spun {
        for b in 0..2 {
            overrides.push(format!("bodies[{b}].angular_velocity=(0.0, 120.0, 0.0)"));
        }
    }
    let mut s: Simulation = scene_run::scene_file(name, &overrides);
    let steps = (seconds / s.model.dt).round() as usize;
    let mut axle: f64 = 0.0;
    let tail = steps / 4;
    let (mut driver, mut driven, mut pull, mut torque) = (0.0, 0.0, 0.0, 0.0);
    for step in 1..=steps {
        let st = s.step().expect("finite");
        assert!(st.converged, "load {load}, step {step}: {:?}", st.failure);
        let hub = s.state.rigid[1].position;
        axle = axle.max((hub - Vector3::new(D, 0.0, Z)).norm());
        if step + tail <= steps {
            continue;
        }
        driver += s.state.rigid[0].angular_velocity.y / tail as f64;
        driven += s.state.rigid[1].angular_velocity.y / tail as f64;
        let (mut f, mut t) = (Vector3::zeros(), 0.0);
        for c in s.pipeline.contact_points().iter().filter(|c| c.point.x > 0.5 * D) {
            f += c.normal_force + c.friction_force;
            let arm = c.point - Vector3::new(D, 0.0, Z);
            t += arm.cross(&c.friction_force).y;
        }
        pull += f.norm() / tail as f64;
        torque += t.abs() / tail as f64;
    }
    (Run { driver, driven, pull, torque }, axle)
}

/// At a brake torque of 0.3 N m the driven pulley turns with the driver (same radius: the same
/// spin, to 3 % over the last quarter second, the ringing of the pulleys through the elastic
/// belt not quite gone), its friction torque balancing the brake (to 5 %). The capstan bound from
/// the measured pull lies above the load. Then, with both pulleys started at speed (so that the
/// driven one need not spin up, which near the bound takes longer than the run): at 0.9 of the
/// bound the driven pulley keeps the driver's spin (95 %), at 1.1 it falls behind (the belt
/// slips; the study below bisects the threshold to within 1 % of the bound), and at 1.5 it stops.
#[test]
fn the_belt_drives_below_the_capstan_bound_and_slips_above_it() {
    let load = 0.3;
    let grip = run(load, MU);
    let bound = R * grip.pull * (MU * std::f64::consts::PI / 2.0).tanh();
    println!(
        "load {load}: driver {:.4} rad/s, driven {:.4} rad/s, pull {:.2} N, friction torque {:.4} N m, capstan bound {bound:.3} N m",
        grip.driver, grip.driven, grip.pull, grip.torque
    );
    assert!(load < 0.9 * bound, "the test's load must be well below the bound {bound}");
    assert!((grip.driven - grip.driver).abs() < 0.03 * grip.driver, "the driven pulley must follow");
    assert!((grip.torque - load).abs() < 0.05 * load, "the friction torque must balance the brake");
    for (factor, follows) in [(0.9, true), (1.1, false)] {
        let r = run_scene("belt_drive.ron", factor * bound, MU, 1.0, true, &[]).0;
        println!("spun, {factor} of the bound: driver {:.4} rad/s, driven {:.4} rad/s", r.driver, r.driven);
        assert_eq!(r.driven > 0.95 * r.driver, follows, "at {factor} of the capstan bound");
    }
    let slip = run(1.5 * bound, MU);
    println!(
        "load {:.3}: driver {:.4} rad/s, driven {:.4} rad/s, pull {:.2} N",
        1.5 * bound,
        slip.driver,
        slip.driven,
        slip.pull
    );
    assert!(slip.driven.abs() < 0.5 * slip.driver, "the belt must slip on the driven pulley");
}

/// 000's own arrangement (`belt_drive_soft.ron`): the driven pulley a soft ring (E = 5 MPa, 144
/// tetrahedra) whose bore rides on a rigid hub turning on the braked hinge (`attach_to` and a
/// joint in one nodal step). Under the same 0.3 N m brake it turns with the driver: its mean
/// spin over the last 0.15 s of 0.6 s within 3 % of the driver's (the ring rings on its hub by
/// about ±2.5 % through the run), and the hub stays on its axle to 1e-8 m. About 17 s.
#[test]
fn a_soft_ring_on_a_hinged_hub_follows_the_driver() {
    let (soft, axle) = run_scene("belt_drive_soft.ron", 0.3, MU, 0.6, false, &[]);
    println!("soft ring: driver {:.4} rad/s, driven {:.4} rad/s, axle {axle:.1e} m", soft.driver, soft.driven);
    assert!((soft.driven - soft.driver).abs() < 0.03 * soft.driver, "the soft pulley must follow");
    assert!(axle < 1e-8, "the hub left its axle by {axle:e} m");
}

/// The same drive under `solver: Admm` (004's nodal ADMM on the problem the joints are
/// eliminated from, its in-solve CCD mapped through them), at its tolerance 1e-4: under the
/// 0.3 N m brake the driven pulley follows to 3 % and the hubs keep their axles. About 3 s.
#[test]
fn the_admm_solver_drives_the_belt_through_the_joints() {
    let (r, axle) =
        run_scene("belt_drive.ron", 0.3, MU, 1.0, false, &["pipeline.solver=Admm", "pipeline.tolerance=1e-4"]);
    println!("admm: driver {:.4} rad/s, driven {:.4} rad/s, axle {axle:.1e} m", r.driver, r.driven);
    assert!((r.driven - r.driver).abs() < 0.03 * r.driver, "the driven pulley must follow");
    assert!(axle < 1e-8, "the hub left its axle by {axle:e} m");
}

/// The threshold study behind the README's table: for μ = 0.15, 0.3 and 0.5 the brake torque at
/// which the driven pulley stops following (its spin over the last quarter second below 95 % of
/// the driver's), bisected to 1 % of the capstan bound, against that bound from the belt's pull
/// measured at the threshold. Both pulleys start at the driver's target spin (`spun`): started
/// from rest, a driven pulley loaded near the bound spins up at only `(τ* − τ) / I` and had not
/// caught up within the second, which put the measured threshold 3–14 % low. About two minutes:
/// `cargo test --release --test belt_drive -- --ignored capstan_threshold --nocapture`.
#[test]
#[ignore]
fn capstan_threshold() {
    println!("| μ | pull F (N) | capstan bound R F tanh(μπ/2) (N m) | measured threshold (N m) | ratio |");
    println!("|---|---|---|---|---|");
    for mu in [0.15, 0.3, 0.5] {
        let follows = |r: &Run| r.driven > 0.95 * r.driver;
        let bound_at = |r: &Run| R * r.pull * (mu * std::f64::consts::PI / 2.0).tanh();
        let spun = |load: f64| run_scene("belt_drive.ron", load, mu, 1.0, true, &[]).0;
        let first = spun(0.1);
        assert!(follows(&first), "μ = {mu}: the driven pulley must follow at 0.1 N m");
        let (mut lo, mut hi) = (0.1, 2.0 * bound_at(&first));
        assert!(!follows(&spun(hi)), "μ = {mu}: it must slip at twice the bound");
        let mut at = first;
        while hi - lo > 0.01 * bound_at(&at) {
            let mid = 0.5 * (lo + hi);
            let r = spun(mid);
            if follows(&r) {
                lo = mid;
                at = r;
            } else {
                hi = mid;
            }
        }
        let bound = bound_at(&at);
        let threshold = 0.5 * (lo + hi);
        println!("| {mu} | {:.2} | {bound:.3} | {threshold:.3} | {:.3} |", at.pull, threshold / bound);
    }
}
