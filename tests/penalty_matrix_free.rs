//! 001's matrix-free Jacobian-vector products (forward-mode AD of the residual code) against the
//! assembled Jacobian, force by force, and the Iterative Newton against the direct one.

use fricsim::contact::penalty::Penalty;
use fricsim::integrator::ForceWeights;
use fricsim::pipeline::penalty::contacts::{Detector, lagged_entries, strip_friction};
use fricsim::pipeline::penalty::matrix_free::MatrixFree;
use fricsim::pipeline::penalty::system::{StageSystem, System};
use fricsim::simulation::Simulation;
use std::path::Path;

fn sim(name: &str, overrides: &[&str]) -> Simulation {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("scenes/validation").join(name);
    let ov: Vec<String> = overrides.iter().map(|s| s.to_string()).collect();
    Simulation::from_file(&path, &ov).unwrap_or_else(|e| panic!("{name}: {e}"))
}

/// After `steps` steps of `name`, compare `J p` assembled and matrix-free for a deterministic
/// pseudo-random `p` at a TR-BDF2-like stage (a, b and the contact weight all different from 1, so
/// that a misplaced coefficient shows). Returns the relative difference and the contact count.
fn compare(name: &str, overrides: &[&str], steps: usize, lagged: bool) -> (f64, usize) {
    let mut s = sim(name, overrides);
    for _ in 0..steps {
        s.step().expect("finite");
    }
    let (model, state) = (&s.model, &s.state);
    let h = model.dt;
    let stage = StageSystem {
        dq_dv: 0.29 * h,
        bh: ForceWeights { body: 0.29 * h, contact: 0.71 * h },
        t0: state.time,
        duration: 0.58 * h,
    };
    let mut sys = System::new(model, true);
    sys.prepare_damping(model, &state.q).expect("valid state");
    let fricsim::scene::schema::PipelineSpec::Penalty(spec) = &model.pipeline else { panic!("a penalty scene") };
    let penalty = Penalty { delta: spec.contact.delta, kappa: state.kappa };
    let detector = Detector::new(model, &state.q, 0.01);
    sys.implicit = detector.implicit.clone();
    detector.detect(model, &state.q, stage.t1(), penalty, true, &mut sys.contacts);
    if lagged {
        let frozen = lagged_entries(&sys.contacts.clone(), model, &detector.implicit, &state.q, state.time);
        strip_friction(&mut sys.contacts);
        sys.contacts.extend(frozen);
    }
    let contacts = sys.contacts.len();
    sys.evaluate(model, &stage, &state.q, &state.v, &state.v, true, None).expect("valid state");
    if sys.grow_pattern_if_needed() {
        // Contacts between bodies couple nodes that no element does.
        sys.evaluate(model, &stage, &state.q, &state.v, &state.v, true, None).expect("valid state");
    }
    let n = sys.n_free;
    let p: Vec<f64> = (0..n).map(|i| ((i * 7919 % 1013) as f64 / 1013.0 - 0.5) * 1e-2).collect();
    let mut assembled = vec![0.0; n];
    sys.jacobian.mul_vec(&p, &mut assembled);
    for (u, w) in &sys.low_rank {
        let wp: f64 = w.iter().zip(&p).map(|(a, b)| a * b).sum();
        assembled.iter_mut().zip(u).for_each(|(a, ui)| *a += ui * wp);
    }
    let scale = assembled.iter().fold(0.0f64, |m, x| m.max(x.abs()));
    let diff = largest_product_difference(model, &sys, &stage, &state.q, &state.v, &p, &assembled);
    // Central differences of the residual itself along (q, v) + t (dq_dv p, p), the contact set
    // (stencils and features) held: checks that both products are the residual's derivative.
    let mut full = vec![0.0; model.dof_count()];
    for (dof, &fi) in sys.free.iter().enumerate() {
        if fi != usize::MAX {
            full[dof] = p[fi];
        }
    }
    let t = 1e-6;
    let mut shifted = |sign: f64| {
        let q: Vec<f64> = state.q.iter().zip(&full).map(|(x, d)| x + sign * t * stage.dq_dv * d).collect();
        let v: Vec<f64> = state.v.iter().zip(&full).map(|(x, d)| x + sign * t * d).collect();
        sys.evaluate(model, &stage, &q, &v, &state.v, false, None).expect("valid state");
        sys.residual.clone()
    };
    let (plus, minus) = (shifted(1.0), shifted(-1.0));
    let fd_diff = (0..n).fold(0.0f64, |m, i| m.max(((plus[i] - minus[i]) / (2.0 * t) - assembled[i]).abs()));
    let fd = fd_diff / scale;
    println!("{name}: finite differences of the residual vs assembled J p: {fd:.2e}");
    assert!(fd < FD_TOLERANCE, "{name}: J p is not the residual's derivative ({fd:e})");
    (diff / scale, contacts)
}

/// The largest entry of `J p − assembled` over both ways of taking the elements' part of the
/// matrix-free product: held as node blocks, and element by element.
fn largest_product_difference(
    model: &fricsim::model::Model,
    sys: &System,
    stage: &StageSystem,
    q: &[f64],
    v: &[f64],
    p: &[f64],
    assembled: &[f64],
) -> f64 {
    [false, true].iter().fold(0.0f64, |diff, &node_blocks| {
        let mut product = vec![0.0; p.len()];
        MatrixFree::new(model, sys, node_blocks).jacobian_product(sys, model, stage, q, v, p, &mut product);
        assembled.iter().zip(&product).fold(diff, |m, (a, b)| m.max((a - b).abs()))
    })
}

/// Central differences with step 1e-6 on O(1) quantities: truncation ~1e-12 relative times the
/// third derivative, round-off ~1e-16/1e-6 = 1e-10 relative; the cubic penalty's third derivative
/// at a 1 mm layer adds ~t/δ = 1e-3 relative. 1e-5 separates those from a missing term (O(1)).
const FD_TOLERANCE: f64 = 1e-5;

/// Both paths are exact derivatives of the same forces (the assembled one from the analytic ∂P/∂F
/// and the AD'd contact kernels, the matrix-free one from AD of P and of the same kernels), so they
/// agree to round-off: 1e-11 relative leaves room for ~1e4 ulps of cancellation in a 12-node sum.
const ROUND_OFF: f64 = 1e-11;

#[test]
fn elastic_and_rayleigh_damping_products_match_the_assembled_jacobian() {
    let ov = ["materials.\"foam\".damping=(alpha: 0.7, beta: 0.01)"];
    let (rel, contacts) = compare("cantilever.ron", &ov, 5, false);
    println!("elastic + damping: relative difference {rel:.2e}");
    assert_eq!(contacts, 0);
    assert!(rel < ROUND_OFF, "{rel:e}");
}

#[test]
fn collider_contact_and_sliding_friction_products_match() {
    let (rel, contacts) = compare("ramp10.ron", &["friction.pairs[0].mu=0.1"], 20, false);
    println!("collider contact + friction: relative difference {rel:.2e} over {contacts} contacts");
    assert!(contacts > 0);
    assert!(rel < ROUND_OFF, "{rel:e}");
}

#[test]
fn lagged_friction_products_match() {
    let (rel, contacts) = compare("ramp10.ron", &["friction.pairs[0].mu=0.1"], 20, true);
    println!("lagged friction: relative difference {rel:.2e} over {contacts} contacts");
    assert!(contacts > 0);
    assert!(rel < ROUND_OFF, "{rel:e}");
}

#[test]
fn triangle_contact_and_friction_products_match() {
    let (rel, contacts) = compare("block_on_slab.ron", &["friction.pairs[0].mu=0.1"], 20, false);
    println!("solid-solid contact + friction: relative difference {rel:.2e} over {contacts} contacts");
    assert!(contacts > 0);
    assert!(rel < ROUND_OFF, "{rel:e}");
}

#[test]
fn cloth_membrane_bending_contact_and_friction_products_match() {
    let (rel, contacts) = compare("cloth_ramp10.ron", &["friction.pairs[0].mu=0.1"], 5, false);
    println!("cloth on a collider: relative difference {rel:.2e} over {contacts} contacts");
    assert!(contacts > 0);
    assert!(rel < ROUND_OFF, "{rel:e}");
    let (rel, contacts) = compare("cloth_drape.ron", &[], 5, false);
    println!("cloth draped on a solid, both ways: relative difference {rel:.2e} over {contacts} contacts");
    assert!(contacts > 0);
    assert!(rel < ROUND_OFF, "{rel:e}");
}

/// 000's implicit surface as 001's gap function: the vertex–field stencils (the vertex and every
/// node of the triangles near it) on a block sliding on a slab, and on a cloth draped over a
/// block with the two meshes' grids aligned.
#[test]
fn implicit_surface_contact_products_match() {
    let fine = "bodies[1].mesh=Box(size: (0.6, 0.3, 0.05), cells: (12, 6, 1))";
    let implicit = "pipeline.contact.geometry=Implicit(kernel: Cubic, radius: 0.05)";
    let (rel, contacts) = compare("block_on_slab.ron", &["friction.pairs[0].mu=0.1", fine, implicit], 20, false);
    println!("implicit surface, sliding block: relative difference {rel:.2e} over {contacts} contacts");
    assert!(contacts > 0);
    assert!(rel < ROUND_OFF, "{rel:e}");
    let (rel, _) = compare("block_on_slab.ron", &["friction.pairs[0].mu=0.1", fine, implicit], 20, true);
    assert!(rel < ROUND_OFF, "lagged: {rel:e}");
    let aligned = "bodies[1].position=(0.0, 0.0, 0.105)";
    let drape = "pipeline.contact.geometry=Implicit(kernel: Approximate(epsilon: 0.01), radius: 0.06)";
    let (rel, contacts) = compare("cloth_drape.ron", &[aligned, drape], 5, false);
    println!("implicit surface, cloth on a block: relative difference {rel:.2e} over {contacts} contacts");
    assert!(contacts > 0);
    assert!(rel < ROUND_OFF, "{rel:e}");
}

/// Final state of `steps` steps with the given linear solver, and the step statistics summed.
fn run(name: &str, overrides: &[&str], solver: &str, steps: usize) -> (Vec<f64>, Vec<f64>, usize, usize) {
    let mut ov = overrides.to_vec();
    let set = format!("pipeline.newton.linear_solver={solver}");
    ov.push(&set);
    let mut s = sim(name, &ov);
    let (mut newton, mut linear) = (0, 0);
    for _ in 0..steps {
        let st = s.step().expect("finite");
        assert!(st.converged, "{name} {solver}: {:?}", st.failure);
        newton += st.newton_iterations;
        linear += st.linear_iterations;
    }
    (s.state.q, s.state.v, newton, linear)
}

/// Iterative (matrix-free BiCGSTAB) and Lu (direct) Newton reach the same steps: both stop at the
/// residual tolerance 1e-7 m/s^2 of these scenes, so each step's velocities differ by at most
/// ~h * 1e-7 and 100 steps by ~1e-7 m/s; positions by h times that. Gates: 1e-6 m/s and 1e-8 m.
#[test]
fn iterative_and_direct_newton_take_the_same_steps() {
    let cases: [(&str, &[&str]); 6] = [
        ("ramp10.ron", &["friction.pairs[0].mu=0.176"]),
        ("ramp10.ron", &["friction.pairs[0].mu=0.177"]),
        ("block_on_slab.ron", &["friction.pairs[0].mu=0.1"]),
        ("flat_stop.ron", &[]),
        ("cloth_ramp10.ron", &["friction.pairs[0].mu=0.176"]),
        (
            "block_on_slab.ron",
            &[
                "friction.pairs[0].mu=0.1",
                "bodies[1].mesh=Box(size: (0.6, 0.3, 0.05), cells: (12, 6, 1))",
                "pipeline.contact.geometry=Implicit(kernel: Cubic, radius: 0.05)",
            ],
        ),
    ];
    for (name, ov) in cases {
        let (q_lu, v_lu, n_lu, _) = run(name, ov, "Lu", 100);
        for preconditioner in ["Cholesky", "BlockJacobi"] {
            let set = format!("pipeline.newton.preconditioner={preconditioner}");
            let ov_it = [ov, &[set.as_str()]].concat();
            let (q_it, v_it, n_it, lin) = run(name, &ov_it, "Iterative", 100);
            let dq = max_abs_diff(&q_lu, &q_it);
            let dv = max_abs_diff(&v_lu, &v_it);
            println!(
                "{name} {ov:?}: |dq| {dq:.2e} m, |dv| {dv:.2e} m/s; Newton {n_lu} (Lu) vs {n_it} (Iterative, {preconditioner}, {lin} BiCGSTAB)"
            );
            assert!(dv < 1e-6 && dq < 1e-8, "{name} {preconditioner}: dq {dq:e}, dv {dv:e}");
        }
    }
}

fn max_abs_diff(a: &[f64], b: &[f64]) -> f64 {
    a.iter().zip(b).fold(0.0f64, |m, (x, y)| m.max((x - y).abs()))
}

/// The Cholesky preconditioner holds what block Jacobi leaves to BiCGSTAB: a cloth's in-plane
/// stiffness between nodes (`h² K` a hundred times its nodes' masses) and a volume penalty's
/// dense rank-one term (by Sherman–Morrison around the factor). Every step converges (`run`), and
/// BiCGSTAB needs at most a third of block Jacobi's iterations: measured 13× and 24× fewer, so a
/// preconditioner that lost the element couplings fails (the rank-one term's correction is only
/// exercised here, by every step converging). On the cloth the
/// steps are Lu's (gates as above). The squished water ball's are sensitive to the Newton path:
/// Lu, Auto and Iterative, each converged to 1e-6 m/s² at every step, end 30 steps up to 4e-6 m
/// apart, so no state is compared there.
#[test]
fn cholesky_preconditioner_holds_cloth_stiffness_and_the_volume_term() {
    let cloth: (&str, &[&str], usize) = ("cloth_ramp10.ron", &["friction.pairs[0].mu=0.176"], 100);
    // A water-like ball pressed on the floor (Lu stalls at round-off before 1e-7 m/s² here).
    let squish: (&str, &[&str], usize) = (
        "../ball_squish.ron",
        &["bodies[0].volume.compressibility_per_atm=4.6e-5", "pipeline.newton.residual_tolerance=1e-6"],
        30,
    );
    for (name, ov, steps) in [cloth, squish] {
        let ov_ch = [ov, &["pipeline.newton.preconditioner=Cholesky"]].concat();
        let (q_ch, v_ch, n_ch, lin_ch) = run(name, &ov_ch, "Iterative", steps);
        let ov_bj = [ov, &["pipeline.newton.preconditioner=BlockJacobi"]].concat();
        let (.., n_bj, lin_bj) = run(name, &ov_bj, "Iterative", steps);
        println!("{name}: Cholesky {lin_ch} BiCGSTAB in {n_ch} Newton, block Jacobi {lin_bj} in {n_bj}");
        assert!(3 * lin_ch <= lin_bj, "{name}: Cholesky {lin_ch} against block Jacobi {lin_bj} BiCGSTAB iterations");
        if name == cloth.0 {
            let (q_lu, v_lu, ..) = run(name, ov, "Lu", steps);
            let (dq, dv) = (max_abs_diff(&q_lu, &q_ch), max_abs_diff(&v_lu, &v_ch));
            assert!(dv < 1e-6 && dq < 1e-8, "{name}: dq {dq:e}, dv {dv:e}");
        }
    }
}

/// The volume penalty (001 eq. 20) and its exact Jacobian: the assembled sparse part plus the
/// rank-one update against AD of the force.
#[test]
fn volume_penalty_products_match_the_exact_jacobian() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("scenes/ball_squish.ron");
    let mut s = Simulation::from_file(&path, &[]).expect("scene");
    for _ in 0..30 {
        s.step().expect("finite");
    }
    let (model, state) = (&s.model, &s.state);
    let stage = StageSystem {
        dq_dv: 0.3 * model.dt,
        bh: ForceWeights::whole(0.3 * model.dt),
        t0: state.time,
        duration: model.dt,
    };
    let mut sys = System::new(model, true);
    sys.evaluate(model, &stage, &state.q, &state.v, &state.v, true, None).expect("valid state");
    assert_eq!(sys.low_rank.len(), 1);
    let n = sys.n_free;
    let p: Vec<f64> = (0..n).map(|i| ((i * 7919 % 1013) as f64 / 1013.0 - 0.5) * 1e-2).collect();
    let mut assembled = vec![0.0; n];
    sys.jacobian.mul_vec(&p, &mut assembled);
    let (u, w) = &sys.low_rank[0];
    let wp: f64 = w.iter().zip(&p).map(|(a, b)| a * b).sum();
    assembled.iter_mut().zip(u).for_each(|(a, ui)| *a += ui * wp);
    let scale = assembled.iter().fold(0.0f64, |m, x| m.max(x.abs()));
    let rel = largest_product_difference(model, &sys, &stage, &state.q, &state.v, &p, &assembled) / scale;
    println!("volume penalty: relative difference {rel:.2e}");
    assert!(rel < ROUND_OFF, "{rel:e}");
}
