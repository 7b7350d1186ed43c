//! Two of 004 Table 1's cloth problems (after Li et al. 2018's "Argus" scenes), made by
//! `scripts/argus.py`: a cloth dragged on the floor by one edge, and a cloth draped over a box
//! and a cone. Each step's contact-solver time is printed beside 004's.

#[path = "support/scene_run.rs"]
mod scene_run;

use scene_run::scene_file;

fn norm(c: &[f64]) -> f64 {
    (c[0] * c[0] + c[1] * c[1] + c[2] * c[2]).sqrt()
}

fn total(f: &[f64]) -> f64 {
    f.chunks(3).map(norm).sum()
}

/// The contact solver's mean time per step (ms): ADMM's global steps and projections.
fn solver_ms(stats: &[fricsim::pipeline::StepStats]) -> f64 {
    1e3 * stats.iter().map(|s| s.linear_solve_s + s.projection_s).sum::<f64>() / stats.len() as f64
}

#[test]
fn a_dragged_cloth_slides_on_the_floor_at_mu_times_its_weight() {
    let mu = 0.4;
    let mut s = scene_file("argus_drag.ron", &[]);
    let g = 9.81;
    // The weight the floor carries: every node but the dragged column's (kinematic nodes take
    // no contact force).
    let free_mass: f64 =
        (0..s.model.node_count()).filter(|&i| !s.model.node_is_kinematic[i]).map(|i| s.model.node_mass[i]).sum();
    let x0: Vec<f64> = s.state.q.chunks(3).map(|c| c[0]).collect();
    let (mut stats, mut ratios, mut loads) = (Vec::new(), Vec::new(), Vec::new());
    for _ in 0..s.model.step_count() {
        let st = s.step().expect("finite state");
        assert!(st.converged, "step {} failed: {:?}", s.state.step, st.failure);
        stats.push(st);
        // Sliding under way: 0.2 s after the pull starts.
        if s.state.time > 0.3 {
            let (normal, friction) = s.pipeline.contact_forces(&s.model, &s.state);
            ratios.push(total(&friction) / total(&normal));
            loads.push(total(&normal) / (free_mass * g));
        }
    }
    let (lo, hi) = ratios.iter().fold((f64::INFINITY, 0.0f64), |(a, b), r| (a.min(*r), b.max(*r)));
    let (load_lo, load_hi) = loads.iter().fold((f64::INFINITY, 0.0f64), |(a, b), r| (a.min(*r), b.max(*r)));
    // The trailing edge (x = +0.2 m) has followed the pull of 0.125 m.
    let moved =
        s.state.q.chunks(3).zip(&x0).filter(|(_, x)| **x > 0.199).map(|(c, x)| c[0] - x).fold(f64::INFINITY, f64::min);
    println!(
        "dragged cloth: friction/normal {lo:.5}–{hi:.5} (mu {mu}), normal/weight {load_lo:.4}–{load_hi:.4}, trailing edge moved {:.4} m; contact solver {:.2} ms/step (004 Table 1: 0.4 ms ours, 1.6 nodal, 8.2 NL-ICA)",
        moved,
        solver_ms(&stats)
    );
    // Every floor contact slides, so each meets its cone's edge: the sums' ratio is mu up to
    // the solve's relative tolerance 1e-4 (a tenfold margin: 1e-3).
    assert!(hi <= mu * (1.0 + 1e-3) && lo >= mu * (1.0 - 1e-3), "friction/normal {lo}–{hi}");
    // The floor carries the cloth's weight: the vertical accelerations of a cloth sliding flat
    // are small (1 % bound: the edge's start-up jerk is over by then).
    assert!(load_lo > 0.99 && load_hi < 1.01, "normal/weight {load_lo}–{load_hi}");
    // Cotton at E = 1e6 Pa stretches little under its own friction (0.19 N over 0.4 m of width):
    // the far edge follows to within a millimetre.
    assert!((moved - 0.125).abs() < 1e-3, "trailing edge moved {moved} m");
}

/// 1.5 s of a 1353-node cloth: about 3 minutes, so not in the default run:
/// `cargo test --release --test argus -- --ignored`.
#[test]
#[ignore]
fn a_cloth_drapes_over_a_box_and_a_cone_and_settles() {
    let mut s = scene_file("argus_box_cone.ron", &[]);
    let mut stats = Vec::new();
    let mut peak_ke = 0.0f64;
    for _ in 0..s.model.step_count() {
        stats.push(s.step().expect("finite state"));
        peak_ke = peak_ke.max(s.state.kinetic_energy(&s.model));
    }
    let failed = stats.iter().filter(|s| !s.converged).count();
    let last_ke = s.state.kinetic_energy(&s.model);
    let contacts = stats.iter().map(|s| s.active_contacts).max().unwrap();
    let xs: Vec<[f64; 3]> = s.model.cloths[0]
        .nodes
        .clone()
        .map(|i| [s.state.q[3 * i], s.state.q[3 * i + 1], s.state.q[3 * i + 2]])
        .collect();
    // The highest cloth node over the cone's apex (0.25, 0, 0.35) and over the box's top.
    let over = |cx: f64, half: f64| {
        xs.iter()
            .filter(|p| (p[0] - cx).abs() < half && p[1].abs() < half)
            .map(|p| p[2])
            .fold(f64::NEG_INFINITY, f64::max)
    };
    let (on_cone, on_box) = (over(0.25, 0.02), over(-0.25, 0.15));
    let lowest = xs.iter().map(|p| p[2]).fold(f64::INFINITY, f64::min);
    println!(
        "box & cone: {failed} of {} steps failed, up to {contacts} contacts, kinetic energy {:.2e} J at the end (peak {:.2e}), cloth over the apex at {on_cone:.4} m, over the box at {on_box:.4} m, lowest node {lowest:.4} m; contact solver {:.1} ms/step (004 Table 1: 275 ms ours, 292 nodal, 490 NL-ICA)",
        stats.len(),
        last_ke,
        peak_ke,
        solver_ms(&stats)
    );
    // 004's ADMM misses the tolerance on the first touch of the cone's apex: 8 contacts at
    // tiny forces, relative natural-map errors up to 6e-2 (absolute 2.6e-5) in 14 steps, where
    // FB and Auto meet it. A step short of it with more contacts than that touch is a
    // regression.
    let late = stats.iter().filter(|s| !s.converged && s.active_contacts > 16).count();
    assert_eq!(late, 0, "{late} steps past the apex's first touch short of 1e-4");
    // Settling: the fall's energy is dissipated to 1 % (measured 0.15 %, still falling as the
    // cloth creeps down the cone's sides); a cloth still swinging or bouncing keeps far more.
    assert!(last_ke < 1e-2 * peak_ke, "still moving: {last_ke:e} J");
    // Hung on the cone's apex (0.35 m) and lying on the box's top (0.30 m), the cloth's
    // half-thickness 0.5 mm above them. The apex touches a triangle between its nodes, which
    // may stand above it by the triangle's tilt times its 2.5 cm edge (1 cm allowed); below the
    // apex by more than 1 mm would mean the apex poked through.
    assert!(on_cone > 0.3495 && on_cone < 0.3605, "over the apex at {on_cone} m");
    // On the box's flat top the nodes lie on it, up to 3 mm of wrinkles.
    assert!((on_box - 0.3005).abs() < 3e-3, "over the box at {on_box} m");
    // Nothing passes through the floor: no node below its half-thickness by more than 0.1 mm.
    assert!(lowest > 0.0004, "lowest node at {lowest} m");
}
