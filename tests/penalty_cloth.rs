//! Cloth and shells in the penalty pipeline (001): membrane and bending forces, penalty contact
//! with colliders and with solids both ways, smoothed friction, and the volume penalty on a
//! closed shell.
//!
//! Tolerances and why:
//! - Cloth on a plane: every node touches the plane and the sheet moves as one piece, so the
//!   penalty pipeline's smoothed friction gives the block's numbers exactly (README, validation):
//!   the sliding acceleration to 1e-6 relative (Newton tolerance 1e-7 m/s^2 against a ≥ 3e-3
//!   m/s^2 acceleration), the sticking creep at v* = eps (1 - sqrt(1 - tan/mu)) to 0.1 % (the
//!   residual tolerance integrated over the run).
//! - A block on a cloth: the vertex–triangle penalty against a two-sided cloth sums one penalty per
//!   triangle within the layer (see `contacts::vertex_pairs`), so the normal force over the cloth
//!   is bumpy at the scale of its triangles; the block's sliding acceleration, fitted over 1 s, is
//!   within 2 % (the issue's gate for sliding) at a 15 % margin below tan θ, and the stick–slip
//!   threshold is resolved within 2 % of μ (measured: slides at 0.173, sticks at 0.176 and above,
//!   tan θ = 0.1763).

#[path = "support/nodal_scenes.rs"]
mod nodal_scenes;
#[path = "support/rng.rs"]
#[allow(dead_code)]
mod rng;

use fricsim::energy::volume::enclosed_volume;
use fricsim::simulation::Simulation;
use nalgebra::Vector3;
use std::path::Path;

const G: f64 = 9.81;
const EPS: f64 = 1e-4;

fn sim(path: &str, overrides: &[String]) -> Simulation {
    let p = Path::new(env!("CARGO_MANIFEST_DIR")).join(path);
    Simulation::from_file(&p, overrides).unwrap_or_else(|e| panic!("{path}: {e}"))
}

/// Downhill velocity of a nodal body's centroid after each step (the body `nodes`), over
/// `duration`; every step must converge.
fn downhill_speeds(s: &mut Simulation, nodes: std::ops::Range<usize>, theta: f64, duration: f64) -> Vec<(f64, f64)> {
    let down = Vector3::new(-theta.cos(), 0.0, -theta.sin());
    let steps = (duration / s.model.dt).round() as usize;
    (0..steps)
        .map(|_| {
            let st = s.step().expect("finite state");
            assert!(st.converged, "step {} failed: {:?}", s.state.step, st.failure);
            let (_, v) = s.state.nodes_centroid(&s.model, nodes.clone());
            (s.state.time, v.dot(&down))
        })
        .collect()
}

/// Least-squares slope of v(t).
fn fitted_acceleration(trace: &[(f64, f64)]) -> f64 {
    let n = trace.len() as f64;
    let (mt, mv) = (trace.iter().map(|p| p.0).sum::<f64>() / n, trace.iter().map(|p| p.1).sum::<f64>() / n);
    let num: f64 = trace.iter().map(|(t, v)| (t - mt) * (v - mv)).sum();
    num / trace.iter().map(|(t, _)| (t - mt).powi(2)).sum::<f64>()
}

/// Validation case 1 for a cloth on a plane at two slopes: sticks (creeping at the smoothing
/// speed) just above tan θ and slides with a = g (sin θ − μ cos θ) just below.
#[test]
fn cloth_on_a_ramp_sticks_and_slides_at_the_coulomb_threshold() {
    for (deg, mus) in [(10.0f64, [0.177, 0.176]), (26.565051177077994, [0.501, 0.499])] {
        let theta = deg.to_radians();
        for mu in mus {
            let rot = format!("(0.0, -{deg}, 0.0)");
            let ov = vec![
                format!("friction.pairs[0].mu={mu}"),
                format!("bodies[0].rotation={rot}"),
                format!("colliders[0].rotation={rot}"),
            ];
            let mut s = sim("scenes/validation/cloth_ramp10.ron", &ov);
            let nodes = s.model.cloths[0].nodes.clone();
            let trace = downhill_speeds(&mut s, nodes, theta, 1.0);
            let tan = theta.tan();
            if mu > tan {
                let creep = EPS * (1.0 - (1.0 - tan / mu).sqrt());
                let v = trace.last().unwrap().1;
                println!("{deg:.2} deg, mu {mu}: creeps at {v:.6e} m/s, v* = {creep:.6e}");
                assert!(v > 0.0 && v <= creep * 1.001, "{deg} deg, mu {mu}: {v:e} vs v* {creep:e}");
            } else {
                let a = fitted_acceleration(&trace[trace.len() / 2..]);
                let exact = G * (theta.sin() - mu * theta.cos());
                println!("{deg:.2} deg, mu {mu}: a = {a:.9e} vs {exact:.9e}");
                assert!((a / exact - 1.0).abs() < 1e-6, "{deg} deg, mu {mu}: a {a:e} vs {exact:e}");
            }
        }
    }
}

/// A stiff block on a cloth on a 10° ramp (contact between deformable bodies both ways): slides
/// at g (sin θ − μ cos θ) well below the threshold, sticks above it.
#[test]
fn block_on_cloth_slides_below_the_threshold_and_sticks_above() {
    let theta = 10f64.to_radians();
    let run = |mu: f64| {
        let mut s = sim("scenes/validation/block_on_cloth.ron", &[format!("friction.pairs[0].mu={mu}")]);
        let nodes = s.model.solids[0].nodes.clone();
        downhill_speeds(&mut s, nodes, theta, 1.0)
    };
    let mu = 0.15;
    let a = fitted_acceleration(&run(mu));
    let exact = G * (theta.sin() - mu * theta.cos());
    println!("block on cloth, mu {mu}: a = {a:.5} vs {exact:.5} m/s^2 ({:+.2} %)", 100.0 * (a / exact - 1.0));
    assert!((a / exact - 1.0).abs() < 0.02, "a {a} vs {exact}");
    // 2 % above tan θ: held, creeping no faster than the smoothing allows: the block's creep on
    // the cloth plus the cloth's on the ramp (μ = 1 under the same slope), two smoothed layers in
    // series.
    let mu = 1.02 * theta.tan();
    let v = run(mu).last().unwrap().1;
    let creep_at = |mu: f64| EPS * (1.0 - (1.0 - theta.tan() / mu).sqrt());
    let creep = creep_at(mu) + creep_at(1.0);
    println!("block on cloth, mu {mu:.4}: creeps at {v:.3e} m/s (v* = {creep:.3e})");
    assert!(v.abs() <= 1.01 * creep, "v {v:e} vs v* {creep:e}");
}

/// A cloth dropped on a soft block: contacts both ways (cloth vertices on the block's faces,
/// block vertices on the cloth's triangles), nothing passes through, and the sheet comes to rest
/// on the block.
#[test]
fn cloth_drapes_over_a_solid_block() {
    let mut s = sim("scenes/validation/cloth_drape.ron", &[]);
    let cloth = s.model.cloths[0].nodes.clone();
    let (mut min_gap, mut cloth_first, mut block_first) = (f64::INFINITY, 0, 0);
    for _ in 0..100 {
        let st = s.step().expect("finite state");
        assert!(st.converged, "step {}: {:?}", s.state.step, st.failure);
        min_gap = min_gap.min(st.min_gap);
    }
    let fricsim::scene::schema::PipelineSpec::Penalty(spec) = &s.model.pipeline else { panic!("penalty") };
    let detector = fricsim::pipeline::penalty::contacts::Detector::new(&s.model, &s.state.q, 0.01);
    let penalty = fricsim::contact::penalty::Penalty { delta: spec.contact.delta, kappa: s.state.kappa };
    let mut entries = Vec::new();
    detector.detect(&s.model, &s.state.q, s.state.time, penalty, true, &mut entries);
    for e in &entries {
        if let fricsim::pipeline::penalty::contacts::Stencil::Triangle { nodes, .. } = e.stencil {
            if cloth.contains(&nodes[0]) { cloth_first += 1 } else { block_first += 1 }
        }
    }
    let (x, v) = s.state.nodes_centroid(&s.model, cloth.clone());
    println!(
        "drape: smallest gap {min_gap:.2e} m, {cloth_first} cloth-vertex and {block_first} block-vertex contacts, \
         sheet centroid z {:.4} m moving at {:.2e} m/s",
        x.z,
        v.norm()
    );
    assert!(min_gap > 0.0, "a vertex passed through a surface: gap {min_gap:e}");
    assert!(cloth_first > 0 && block_first > 0, "contact both ways");
    // The centre rests on the block's top (z = 0.1) within the 2 mm layer; the hem hangs lower.
    let centre = (cloth.start..cloth.end)
        .map(|i| Vector3::new(s.state.q[3 * i], s.state.q[3 * i + 1], s.state.q[3 * i + 2]))
        .min_by(|a, b| a.xy().norm().total_cmp(&b.xy().norm()))
        .unwrap();
    assert!(centre.z > 0.1 && centre.z < 0.102, "centre at z = {}", centre.z);
}

/// The volume penalty on a closed shell (001 §2.4): a rubber sphere squeezed between plates by 30 %
/// of its diameter keeps more of its air the stiffer the medium: none ≫ κv = 1/atm ≫ κv = 0.01/atm.
#[test]
fn a_closed_shell_holds_its_volume_by_the_penalty() {
    let loss = |overrides: &[&str]| {
        let mut ov: Vec<String> = overrides.iter().map(|s| s.to_string()).collect();
        ov.push("duration=0.8".into());
        let mut s = sim("scenes/shell_squish.ron", &ov);
        let tris = s.model.cloths[0].triangles.clone();
        let v0 = enclosed_volume(&tris, &s.state.q);
        for _ in 0..80 {
            let st = s.step().expect("finite state");
            assert!(st.converged, "{overrides:?} step {}: {:?}", s.state.step, st.failure);
        }
        100.0 * (v0 - enclosed_volume(&tris, &s.state.q)) / v0
    };
    let none = loss(&["bodies[0].volume=None"]);
    let gas = loss(&[]);
    let stiff = loss(&["bodies[0].volume.compressibility_per_atm=0.01"]);
    println!("shell volume loss: none {none:.2} %, kv = 1/atm {gas:.3} %, kv = 0.01/atm {stiff:.4} %");
    // "≫": each at least five times the next (measured about 8x and 70x).
    assert!(none > 5.0 * gas && gas > 5.0 * stiff && stiff > 0.0, "{none} {gas} {stiff}");
}

/// A 40 cm cloth folded in half over a 2 cm bend (16 x 16 quads, edges 2.5 cm, jittered by
/// 6 µm so no vertex lies exactly above another), its lower half on the floor, dropped so its
/// upper half falls onto the lower one. Returns the simulation, the upper half's flat vertices
/// and the lower half's.
fn folded_drape(self_contact: bool) -> (Simulation, Vec<usize>, Vec<usize>) {
    let (tris, x) = nodal_scenes::folded_cloth(16, 0.4, 0.02, 1e-4 / 16.0, &mut rng::Rng(5));
    let dir = std::env::temp_dir().join(format!("fricsim_folded_{}_{self_contact}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let mut obj = String::new();
    for p in x.chunks(3) {
        obj += &format!("v {} {} {}\n", p[0], p[1], p[2]);
    }
    for t in &tris {
        obj += &format!("f {} {} {}\n", t[0] + 1, t[1] + 1, t[2] + 1);
    }
    std::fs::write(dir.join("folded.obj"), obj).unwrap();
    let scene = format!(
        r#"Scene(
    name: "folded", dt: 0.005, duration: 0.4, frame_rate: 20.0,
    materials: {{ "cotton": (density: 300.0, youngs_modulus: 1e6, poisson_ratio: 0.3, thickness: 5e-4), "floor": () }},
    friction: (default: (mu: 0.3), epsilon: 1e-3),
    bodies: [ Cloth(name: "sheet", material: "cotton", mesh: File(path: "folded.obj"), position: (0.0, 0.0, 0.002),
                    self_contact: {self_contact}) ],
    colliders: [ Plane(name: "floor", material: "floor") ],
    pipeline: Penalty(contact: (delta: 2e-3)),
)"#
    );
    std::fs::write(dir.join("folded.ron"), scene).unwrap();
    let s = Simulation::from_file(&dir.join("folded.ron"), &[]).unwrap_or_else(|e| panic!("{e}"));
    let z = |i: usize| x[3 * i + 2];
    let upper = (0..x.len() / 3).filter(|&i| z(i) > 0.02 - 1e-3).collect();
    let lower = (0..x.len() / 3).filter(|&i| z(i) < 1e-3).collect();
    (s, upper, lower)
}

/// Cloth self-contact in the penalty pipeline: the upper half of a folded cloth falls 2 cm onto
/// the lower half and rests on it, its lowest vertex above the lower half's highest in every step
/// (both halves stay flat: the lower one on the floor, so this is the no-crossing test for these
/// two sheets); without self-contact it falls through to the floor.
#[test]
fn a_folded_cloth_lands_on_itself() {
    let (mut s, upper, lower) = folded_drape(true);
    let lowest =
        |s: &Simulation, set: &[usize]| set.iter().map(|&i| s.state.q[3 * i + 2]).fold(f64::INFINITY, f64::min);
    let highest =
        |s: &Simulation, set: &[usize]| set.iter().map(|&i| s.state.q[3 * i + 2]).fold(f64::NEG_INFINITY, f64::max);
    let mut closest = f64::INFINITY;
    for _ in 0..80 {
        let st = s.step().expect("finite state");
        assert!(st.converged, "step {} failed: {:?}", s.state.step, st.failure);
        let clearance = lowest(&s, &upper) - highest(&s, &lower);
        assert!(clearance > 0.0, "step {}: the upper half crossed the lower one ({clearance:.2e} m)", s.state.step);
        closest = closest.min(clearance);
    }
    let rest = lowest(&s, &upper) - highest(&s, &lower);
    println!("self-contact: closest clearance {closest:.2e} m, at rest {rest:.2e} m");
    // At rest the upper half lies in the lower one's penalty layer (2 mm), not above it.
    assert!(rest < 2e-3, "the upper half must have landed: {rest} m");

    let (mut s, upper, lower) = folded_drape(false);
    for _ in 0..80 {
        assert!(s.step().expect("finite state").converged);
    }
    let (through, floor) = (lowest(&s, &upper) - highest(&s, &lower), lowest(&s, &upper));
    println!("without self-contact: clearance {through:.2e} m, the upper half's lowest vertex at {floor:.2e} m");
    // It falls through the lower half into the floor's 2 mm layer, where the lower half lies.
    assert!(through < 0.0 && floor < 2e-3, "without self-contact the upper half falls through: {through} m");
}
