//! ADMM in the bodies' velocities (`dfcp::velocity_admm`): a box resting on many redundant
//! contacts (W of rank 6 on up to 675 contact unknowns) against the closed-form answers at both
//! sides of the friction threshold, alone and behind the pipeline's factored dispatch (small
//! problems to `auto` on `W` formed from the factor); an elliptic cone against its closed form;
//! random factored problems and global nodal problems against an independent measure of the
//! natural map.

use faer::sparse::Triplet;
use fricsim::dfcp::problem::{Csc, LocalProblem};
use fricsim::dfcp::problem::{csc_mul, csc_mul_add};
use fricsim::dfcp::residual::{local_error_of, natural_map_abs};
use fricsim::dfcp::solver::SolverOptions;
use fricsim::dfcp::{dispatch, synthetic, velocity_admm};
use fricsim::friction::cone::{Cone, project_ellipse};
use nalgebra::{Matrix3, Vector3};

const G: f64 = 9.81;
const H: f64 = 0.01;
const MASS: f64 = 2.0;
const SIDE: f64 = 0.2;

/// A box of side `SIDE` on the plane z = 0 touching it at `k x k` points of its bottom face
/// (frame: normal +z, tangents x and y), with predicted velocity `(vx, vy, -g h)` and no spin:
/// the local problem with its factor `G = J L`, `L = M^{-1/2}`.
fn box_on_plane(k: usize, vx: f64, vy: f64, cone: Cone) -> LocalProblem {
    let inertia = MASS * SIDE * SIDE / 6.0;
    let l = [
        1.0 / MASS.sqrt(),
        1.0 / MASS.sqrt(),
        1.0 / MASS.sqrt(),
        1.0 / inertia.sqrt(),
        1.0 / inertia.sqrt(),
        1.0 / inertia.sqrt(),
    ];
    let frame: Matrix3<f64> = Matrix3::from_columns(&[Vector3::<f64>::z(), Vector3::<f64>::x(), Vector3::<f64>::y()]);
    let mut rows = Vec::new();
    for a in 0..k {
        for b in 0..k {
            let s = |i: usize| if k == 1 { 0.0 } else { SIDE * (i as f64 / (k - 1) as f64 - 0.5) };
            let p: Vector3<f64> = Vector3::new(s(a), s(b), -SIDE / 2.0);
            // Point velocity v + ω × p = v - [p]x ω, in the contact frame.
            let jv = frame.transpose();
            let jw: Matrix3<f64> = -frame.transpose() * p.cross_matrix();
            rows.push((jv, jw));
        }
    }
    let nc = rows.len();
    let mut gt = Vec::new();
    for (c, (jv, jw)) in rows.iter().enumerate() {
        for i in 0..3 {
            for j in 0..3 {
                gt.push(Triplet::new(3 * c + i, j, jv[(i, j)] * l[j]));
                gt.push(Triplet::new(3 * c + i, 3 + j, jw[(i, j)] * l[3 + j]));
            }
        }
    }
    let g = Csc::try_new_from_triplets(3 * nc, 6, &gt).unwrap();
    let q = (0..nc).flat_map(|_| [-G * H, vx, vy]).collect();
    with_its_factor(g, q, vec![cone; nc])
}

/// The local problem `W = G Gᵀ` (dense product) with its factor `G`.
fn with_its_factor(g: Csc, q: Vec<f64>, cones: Vec<Cone>) -> LocalProblem {
    let n = g.nrows();
    let gd = g.to_dense();
    let wd = &gd * gd.transpose();
    let wt: Vec<_> =
        (0..n).flat_map(|i| (0..n).map(move |j| (i, j))).map(|(i, j)| Triplet::new(i, j, wd[(i, j)])).collect();
    let w = Csc::try_new_from_triplets(n, n, &wt).unwrap();
    LocalProblem::new(w, q, cones).unwrap().with_factor(g).unwrap()
}

/// The box's velocity after the step: `v_pred + M⁻¹ Jᵀ r`, linear part.
fn end_velocity(p: &LocalProblem, r: &[f64], vx: f64, vy: f64) -> Vector3<f64> {
    let mut x = vec![0.0; 6];
    csc_mul(&p.factor.as_ref().unwrap().transpose().to_col_major().unwrap(), r, &mut x);
    // Gᵀ r = L Jᵀ r, so M⁻¹ Jᵀ r = L (Gᵀ r).
    Vector3::new(vx, vy, -G * H) + Vector3::new(x[0], x[1], x[2]) / MASS.sqrt()
}

fn solve(p: &LocalProblem, tol: f64) -> (Vec<f64>, Vec<f64>, fricsim::dfcp::solver::SolveReport) {
    let n = 3 * p.nc();
    let (mut r, mut u) = (vec![0.0; n], vec![0.0; n]);
    let rep = velocity_admm::solve(p, &mut r, &mut u, &SolverOptions::new(tol, 20_000));
    (r, u, rep)
}

/// On 4, 25 and 100 contacts (W of rank 6 on up to 300 unknowns), pushed at 1 ± 1e-3
/// times what friction can hold in one step: below, the box stops (end velocity 0); above, it
/// slides on with `v - μ g h`. The tolerance 1e-10 on the natural map, relative to
/// max(|q|, |r|, |u|) (at most √100 · 0.1 m/s = 1 m/s here), bounds the velocity error by about
/// 1e-10 m/s; 1e-9 m/s is then a bound the solver must meet, and the 1e-3 margin
/// (1e-3 μ g h = 2.9e-5 m/s) is far above it. The returned `u` is `W r + q` to round-off
/// (1e-12 of the velocity scale).
#[test]
fn a_box_on_redundant_contacts_sticks_and_slides_at_both_sides_of_the_threshold() {
    let mu = 0.3;
    let hold = mu * G * H;
    for k in [2, 5, 10] {
        for side in [1.0 - 1e-3, 1.0 + 1e-3] {
            let vx = side * hold;
            let p = box_on_plane(k, vx, 0.0, Cone::isotropic(mu).unwrap());
            let (r, u, rep) = solve(&p, 1e-10);
            println!("{k}x{k}, push {side}: {rep}");
            assert!(rep.converged, "{rep}");
            // The solver measures through G (Gᵀ r); measured here through W: equal to rounding.
            assert!(local_error_of(&p, &r).rel <= 1.01e-10);
            let mut wr = p.q.clone();
            csc_mul_add(&p.w, &r, &mut wr);
            assert!(wr.iter().zip(&u).all(|(a, b)| (a - b).abs() <= 1e-12), "u is not W r + q");
            let v = end_velocity(&p, &r, vx, 0.0);
            let expect = if side < 1.0 { 0.0 } else { vx - hold };
            assert!((v.x - expect).abs() <= 1e-9 && v.y.abs() <= 1e-9 && v.z.abs() <= 1e-9, "{k}: {v:?} vs {expect}");
        }
    }
}

/// 003's point-mass oracle on an elliptic cone (μ_t 0.3, μ_b 0.6), pushed at 30° with twice
/// what μ_t holds, on 9 contacts: the friction impulse is the push's projection onto the
/// ellipse of semi-axes μ_t N, μ_b N (N = m g h). Same bound as above.
#[test]
fn an_elliptic_cone_gives_the_projection_onto_its_ellipse() {
    let a = 30f64.to_radians();
    let push = 2.0 * 0.3 * G * H;
    let (vx, vy) = (push * a.cos(), push * a.sin());
    let p = box_on_plane(3, vx, vy, Cone::elliptic(0.3, 0.6).unwrap());
    let (r, _, rep) = solve(&p, 1e-10);
    println!("{rep}");
    assert!(rep.converged, "{rep}");
    let n = MASS * G * H;
    let f = project_ellipse([-MASS * vx, -MASS * vy], 0.3 * n, 0.6 * n);
    let v = end_velocity(&p, &r, vx, vy);
    let expect = Vector3::new(vx + f[0] / MASS, vy + f[1] / MASS, 0.0);
    assert!((v - expect).norm() <= 1e-9, "{v:?} vs {expect:?}");
}

/// `W` formed from the factor (sparse, per dof) is the dense product `G Gᵀ` to rounding: each
/// entry a sum of 6 products, 1e-14 of the largest diagonal entry (about 2 here) bounds it.
#[test]
fn the_delassus_operator_formed_from_the_factor_is_g_g_transposed() {
    let p = box_on_plane(4, 0.1, 0.0, Cone::isotropic(0.3).unwrap());
    let w = velocity_admm::delassus_of_factor(p.factor.as_ref().unwrap()).unwrap().to_dense();
    let expect = p.w.to_dense();
    let scale = (0..expect.nrows()).map(|i| expect[(i, i)].abs()).fold(0.0, f64::max);
    assert!((&w - &expect).norm_max() <= 1e-14 * scale, "{}", (&w - &expect).norm_max());
}

/// The factored dispatch (the pipeline's `VelocityAdmm`): a problem small enough for dense FB
/// Newton (the box on 25 contacts, 75 unknowns) is answered by `auto` on `W` formed from its
/// factor, a larger one (the box on 225 contacts, 675 unknowns) by the velocity ADMM; each
/// pushed at 1 ± 1e-3 times the friction threshold and held to the first test's bounds.
#[test]
fn the_factored_dispatch_hands_small_problems_to_auto_and_both_meet_the_closed_form() {
    let mu = 0.3;
    let hold = mu * G * H;
    for (k, by) in [(5, "auto"), (15, "velocity-admm")] {
        for side in [1.0 - 1e-3, 1.0 + 1e-3] {
            let vx = side * hold;
            let p = box_on_plane(k, vx, 0.0, Cone::isotropic(mu).unwrap());
            let (mut r, mut u) = (vec![0.0; 3 * p.nc()], vec![0.0; 3 * p.nc()]);
            let rep = dispatch::factored(&p, &mut r, &mut u, &SolverOptions::new(1e-10, 20_000));
            println!("{k}x{k}, push {side}: {rep}");
            assert!(rep.converged && rep.solver == by, "{rep}");
            assert!(local_error_of(&p, &r).rel <= 1.01e-10, "measured through W: {rep}");
            let v = end_velocity(&p, &r, vx, 0.0);
            let expect = if side < 1.0 { 0.0 } else { vx - hold };
            assert!((v.x - expect).abs() <= 1e-9 && v.y.abs() <= 1e-9 && v.z.abs() <= 1e-9, "{k}: {v:?} vs {expect}");
        }
    }
}

/// Random factored problems (`W = G Gᵀ`, G dense random, `q = G v`) with more contacts than
/// velocities, as many, and fewer, frictionless and with friction: converged by the solver's
/// report, and by the natural map measured here from `r` alone.
#[test]
fn random_factored_problems_converge_by_an_independent_measure() {
    let mut seed = 5u64;
    let mut rnd = move || {
        seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        (seed >> 11) as f64 / (1u64 << 53) as f64 - 0.5
    };
    for (nc, m, mu) in [(40, 12, 0.5), (20, 12, 0.0), (4, 12, 0.8), (60, 6, 0.3)] {
        let g: Vec<f64> = (0..3 * nc * m).map(|_| rnd()).collect();
        let gt: Vec<_> = (0..3 * nc)
            .flat_map(|i| (0..m).map(move |j| (i, j)))
            .map(|(i, j)| Triplet::new(i, j, g[i * m + j]))
            .collect();
        let gm = Csc::try_new_from_triplets(3 * nc, m, &gt).unwrap();
        let v: Vec<f64> = (0..m).map(|_| 2.0 * rnd()).collect();
        let q: Vec<f64> = (0..3 * nc).map(|a| (0..m).map(|k| g[a * m + k] * v[k]).sum()).collect();
        let p = with_its_factor(gm, q, vec![Cone::isotropic(mu).unwrap(); nc]);
        let (r, _, rep) = solve(&p, 1e-8);
        println!("nc {nc}, m {m}, mu {mu}: {rep}");
        assert!(rep.converged, "{rep}");
        // Measured through W, the solver through G: equal to rounding.
        assert!(local_error_of(&p, &r).rel <= 1.01e-8);
    }
}

/// The global form: 004's particles (n bodies, 2n - 1 contacts) at three friction
/// coefficients, by the equation's residual and the natural map measured here from `(r, v)`. (50 particles at μ 0.8
/// reach 8e-6 in 20,000 iterations: there the shift's fixed point converges slowly at any ρ.)
#[test]
fn global_particle_problems_converge_by_an_independent_measure() {
    for (n, mu) in [(10, 0.3), (50, 0.5), (20, 0.8)] {
        let g = synthetic::particles(n, mu);
        let (mut r, mut v) = (vec![0.0; 3 * g.nc()], vec![0.0; g.ndof()]);
        let rep = velocity_admm::solve_global(&g, &mut r, &mut v, &SolverOptions::new(1e-9, 20_000));
        println!("{n} particles, mu {mu}: {rep}");
        assert!(rep.converged, "{rep}");
        // By hand: the equation's residual and the natural map, each within the tolerance
        // relative to its own scale (the solver stops on their sum).
        let (mut mv, mut hr) = (vec![0.0; g.ndof()], vec![0.0; g.ndof()]);
        csc_mul(&g.m, &v, &mut mv);
        csc_mul(&g.h, &r, &mut hr);
        let eq: f64 = (0..g.ndof()).map(|i| (mv[i] - hr[i] - g.f[i]).powi(2)).sum::<f64>().sqrt();
        let norm = |x: &[f64]| x.iter().map(|a| a * a).sum::<f64>().sqrt();
        assert!(eq <= 1e-9 * norm(&g.f).max(norm(&mv)).max(norm(&hr)), "equation residual {eq:e}");
        let mut u = g.w.clone();
        csc_mul_add_transpose(&g.h, &v, &mut u);
        let map = natural_map_abs(&r, &u, &g.cones);
        assert!(map <= 1e-9 * norm(&u).max(norm(&r)), "natural map {map:e}");
    }
}

/// `u += Hᵀ v`, column by column.
fn csc_mul_add_transpose(h: &Csc, v: &[f64], u: &mut [f64]) {
    let hr = h.as_ref();
    for (j, uj) in u.iter_mut().enumerate() {
        *uj += hr.row_idx_of_col_raw(j).iter().zip(hr.val_of_col(j)).map(|(i, x)| x * v[*i]).sum::<f64>();
    }
}

/// Without the factor the solver refuses, naming what it needs, rather than guessing.
#[test]
fn a_problem_without_its_factor_is_refused() {
    let p = box_on_plane(2, 0.0, 0.0, Cone::isotropic(0.5).unwrap());
    let p = LocalProblem::new(p.w.clone(), p.q.clone(), p.cones.clone()).unwrap();
    let (_, _, rep) = solve(&p, 1e-8);
    assert!(!rep.converged && rep.message.contains("W = G Gᵀ"), "{rep}");
}
