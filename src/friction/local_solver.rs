//! Exact solvers for the one-contact Coulomb problem
//! `u = W r + u*`, `r in K`, `u` and `r` satisfying Signorini + Coulomb (take-off, stick, slide).
//!
//! * [`solve_isotropic_diagonal`]: the closed form of 004 §3 when `W = s I` (nodal/ADMM case).
//! * [`solve_full_block`]: a general 3x3 block (Delassus diagonal blocks of rigid bodies, FEM),
//!   by enumeration of the three cases. Take-off and stick are explicit; sliding is
//!   `r = rho (1, mu cos th, mu sin th)` with `u_N = 0` and `u_T` anti-parallel to `r_T`, which is
//!   one scalar equation `G(th) = 0` (a degree-2 trigonometric polynomial, at most 4 roots). It is
//!   solved by Newton from the previous direction, then by a sign-change scan with safeguarded
//!   Newton if that fails: exact to round-off, no iteration tolerance to tune.
//! * [`solve_contact`]: either of the above on an elliptic cone through the exact scaling of
//!   [`crate::friction::cone`].

use super::cone::{Cone, hyp};
use std::sync::LazyLock;

/// Which branch of the Coulomb law the local solution is on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ContactCase {
    TakeOff,
    Stick,
    Slide,
    /// No exact branch was found (singular or indefinite block): the candidate with the smallest
    /// local natural-map residual was returned. The global residual reports the consequence.
    Fallback,
}

/// Closed-form solution for the diagonal block `s I` (004 §3, Eq. 9): returns the post-solve
/// velocity `u`; the force is `r = (u - u*) / s`.
#[inline]
pub fn solve_isotropic_diagonal(ustar: [f64; 3], mu: f64) -> ([f64; 3], ContactCase) {
    if ustar[0] >= 0.0 {
        return (ustar, ContactCase::TakeOff);
    }
    let tau = hyp(ustar[1], ustar[2]);
    let alpha = -mu * ustar[0];
    if tau <= alpha {
        ([0.0; 3], ContactCase::Stick)
    } else {
        let f = 1.0 - alpha / tau;
        ([0.0, f * ustar[1], f * ustar[2]], ContactCase::Slide)
    }
}

/// Local natural-map residual of one contact (De Saxcé form, isotropic `mu`), squared.
#[inline]
pub fn local_residual_sq(r: &[f64; 3], u: &[f64; 3], mu: f64) -> f64 {
    let t = [r[0] - (u[0] + mu * hyp(u[1], u[2])), r[1] - u[1], r[2] - u[2]];
    let p = super::cone::project_isotropic(&t, mu);
    (r[0] - p[0]).powi(2) + (r[1] - p[1]).powi(2) + (r[2] - p[2]).powi(2)
}

#[inline]
fn matvec(w: &[f64; 9], r: &[f64; 3]) -> [f64; 3] {
    [
        w[0] * r[0] + w[1] * r[1] + w[2] * r[2],
        w[3] * r[0] + w[4] * r[1] + w[5] * r[2],
        w[6] * r[0] + w[7] * r[1] + w[8] * r[2],
    ]
}

/// Solve `W x = b` for a 3x3 row-major `W`; `None` if it is numerically singular.
#[inline]
pub fn solve3(w: &[f64; 9], b: &[f64; 3]) -> Option<[f64; 3]> {
    let c00 = w[4] * w[8] - w[5] * w[7];
    let c01 = w[5] * w[6] - w[3] * w[8];
    let c02 = w[3] * w[7] - w[4] * w[6];
    let det = w[0] * c00 + w[1] * c01 + w[2] * c02;
    let scale = w.iter().fold(0.0f64, |m, x| m.max(x.abs()));
    if det.is_nan() || det.abs() <= 1e-13 * scale * scale * scale {
        return None;
    }
    let inv = 1.0 / det;
    let i = [
        c00,
        w[2] * w[7] - w[1] * w[8],
        w[1] * w[5] - w[2] * w[4],
        c01,
        w[0] * w[8] - w[2] * w[6],
        w[2] * w[3] - w[0] * w[5],
        c02,
        w[1] * w[6] - w[0] * w[7],
        w[0] * w[4] - w[1] * w[3],
    ];
    let x = matvec(&i, b);
    Some([x[0] * inv, x[1] * inv, x[2] * inv])
}

const SCAN: usize = 48;
static DIRECTIONS: LazyLock<[(f64, f64); SCAN + 1]> = LazyLock::new(|| {
    let mut d = [(0.0, 0.0); SCAN + 1];
    for (k, e) in d.iter_mut().enumerate() {
        let t = k as f64 * std::f64::consts::TAU / SCAN as f64;
        *e = (t.cos(), t.sin());
    }
    d
});

/// Data of the sliding equation for one contact.
struct Slide<'a> {
    w: &'a [f64; 9],
    us: [f64; 3],
    mu: f64,
}

impl Slide<'_> {
    /// `(G, G', D)` at direction `(c, s)`: `D = (W d)_N` and `G = D cross(u*_T, e) - u*_N cross((W d)_T, e)`,
    /// which is `D` times the cross product of the sliding velocity with the force direction.
    #[inline]
    fn eval(&self, c: f64, s: f64) -> (f64, f64, f64) {
        let w = self.w;
        let m = self.mu;
        // wd = W (1, m c, m s), and its derivative in theta.
        let wd = [w[0] + m * (c * w[1] + s * w[2]), w[3] + m * (c * w[4] + s * w[5]), w[6] + m * (c * w[7] + s * w[8])];
        let dwd = [m * (-s * w[1] + c * w[2]), m * (-s * w[4] + c * w[5]), m * (-s * w[7] + c * w[8])];
        let us = self.us;
        let cr = |a0: f64, a1: f64| a0 * s - a1 * c; // cross(a, e)
        let crp = |a0: f64, a1: f64| a0 * c + a1 * s; // cross(a, e')
        let g = wd[0] * cr(us[1], us[2]) - us[0] * cr(wd[1], wd[2]);
        let dg =
            dwd[0] * cr(us[1], us[2]) + wd[0] * crp(us[1], us[2]) - us[0] * (cr(dwd[1], dwd[2]) + crp(wd[1], wd[2]));
        (g, dg, wd[0])
    }

    /// The force at direction `theta`, if it is a valid sliding solution.
    fn candidate(&self, theta: f64) -> Option<[f64; 3]> {
        let (s, c) = theta.sin_cos();
        let r_dir = [1.0, self.mu * c, self.mu * s];
        let wd = matvec(self.w, &r_dir);
        if wd[0] <= 0.0 {
            return None;
        }
        let rho = -self.us[0] / wd[0];
        let ut = [rho * wd[1] + self.us[1], rho * wd[2] + self.us[2]];
        // u_T must be anti-parallel to the force direction: `along <= 0` and `across == 0` up to
        // round-off. Round-off is measured on the velocity scale of the data (|u*| and |W r|),
        // not on |u_T|: at the stick/slide boundary u_T -> 0 and its direction is pure noise,
        // while the solution is still exact (sliding at zero speed = sticking on the boundary).
        let scale = self.us[0].abs() + hyp(self.us[1], self.us[2]) + rho * (wd[0].abs() + hyp(wd[1], wd[2]));
        let along = ut[0] * c + ut[1] * s;
        let across = ut[0] * s - ut[1] * c;
        if along > 1e-12 * scale || across.abs() > 1e-10 * scale {
            return None;
        }
        Some([rho, rho * r_dir[1], rho * r_dir[2]])
    }

    /// Safeguarded Newton on `G` in `[a, b]` with `G(a) G(b) <= 0`.
    fn root_in(&self, mut a: f64, mut b: f64, mut ga: f64) -> f64 {
        let mut t = 0.5 * (a + b);
        for _ in 0..60 {
            let (s, c) = t.sin_cos();
            let (g, dg, _) = self.eval(c, s);
            if g == 0.0 {
                return t;
            }
            if (g < 0.0) == (ga < 0.0) {
                a = t;
                ga = g;
            } else {
                b = t;
            }
            let mut tn = t - g / dg;
            if !(tn > a && tn < b) {
                tn = 0.5 * (a + b);
            }
            if (tn - t).abs() < 4.0 * f64::EPSILON {
                return tn;
            }
            t = tn;
        }
        t
    }

    /// Newton from `theta0`, unguarded: a cheap first try when the previous direction is close.
    fn newton_from(&self, mut t: f64) -> Option<f64> {
        for _ in 0..8 {
            let (s, c) = t.sin_cos();
            let (g, dg, _) = self.eval(c, s);
            if dg == 0.0 || !dg.is_finite() {
                return None;
            }
            let step = g / dg;
            t -= step;
            if step.abs() < 1e-14 {
                return Some(t);
            }
        }
        None
    }
}

/// Exact solution of the one-contact problem with a general 3x3 (row-major) block `w`, isotropic
/// cone `mu`, free velocity `ustar` (everything but the contact's own force). `r_prev` selects
/// among several sliding solutions (non-symmetric blocks) and seeds the Newton start.
pub fn solve_full_block(w: &[f64; 9], ustar: [f64; 3], mu: f64, r_prev: [f64; 3]) -> ([f64; 3], ContactCase) {
    if ustar[0] >= 0.0 {
        return ([0.0; 3], ContactCase::TakeOff);
    }
    let mut best: Option<([f64; 3], f64)> = None;
    let consider = |r: [f64; 3], best: &mut Option<([f64; 3], f64)>| {
        let u = matvec(w, &r);
        let u = [u[0] + ustar[0], u[1] + ustar[1], u[2] + ustar[2]];
        let e = local_residual_sq(&r, &u, mu);
        if best.is_none_or(|b| e < b.1) {
            *best = Some((r, e));
        }
    };
    if let Some(x) = solve3(w, &ustar) {
        let r = [-x[0], -x[1], -x[2]];
        // Stick if r is in the cone; the relative slack absorbs the round-off of the 3x3 solve.
        if r[0] >= 0.0 && hyp(r[1], r[2]) <= mu * r[0] * (1.0 + 1e-12) {
            return (r, ContactCase::Stick);
        }
        consider(r, &mut best);
    }
    if mu == 0.0 {
        if w[0] > 0.0 {
            return ([-ustar[0] / w[0], 0.0, 0.0], ContactCase::Slide);
        }
        consider([0.0; 3], &mut best);
        return (best.map_or([0.0; 3], |b| b.0), ContactCase::Fallback);
    }
    let sl = Slide { w, us: ustar, mu };
    // 1) Newton from the previous sliding direction.
    let prev_t = hyp(r_prev[1], r_prev[2]);
    let theta_prev = if prev_t > 0.0 { Some(r_prev[2].atan2(r_prev[1])) } else { None };
    if let Some(t0) = theta_prev
        && let Some(t) = sl.newton_from(t0)
        && let Some(r) = sl.candidate(t)
    {
        return (r, ContactCase::Slide);
    }
    // 2) Scan for sign changes of G, refine each, keep the valid root closest to the previous one.
    let dirs = &*DIRECTIONS;
    let mut chosen: Option<([f64; 3], f64)> = None;
    let (mut g0, _, _) = sl.eval(dirs[0].0, dirs[0].1);
    let h = std::f64::consts::TAU / SCAN as f64;
    for k in 0..SCAN {
        let (g1, _, _) = sl.eval(dirs[k + 1].0, dirs[k + 1].1);
        if g0 == 0.0 || (g0 < 0.0) != (g1 < 0.0) {
            let t = if g0 == 0.0 { k as f64 * h } else { sl.root_in(k as f64 * h, (k + 1) as f64 * h, g0) };
            if let Some(r) = sl.candidate(t) {
                let dist = theta_prev.map_or(0.0, |tp| {
                    let d = (t - tp).rem_euclid(std::f64::consts::TAU);
                    d.min(std::f64::consts::TAU - d)
                });
                if chosen.is_none_or(|c| dist < c.1) {
                    chosen = Some((r, dist));
                }
            }
        }
        g0 = g1;
    }
    if let Some((r, _)) = chosen {
        return (r, ContactCase::Slide);
    }
    consider([0.0; 3], &mut best);
    consider(r_prev, &mut best);
    (best.map_or([0.0; 3], |b| b.0), ContactCase::Fallback)
}

/// One-contact solve on any cone: isotropic directly, elliptic through the scaling
/// `S = diag(1, mu_t/mu, mu_b/mu)` (`W' = S W S`, `u*' = S u*`, `r = S r'`).
pub fn solve_contact(w: &[f64; 9], ustar: [f64; 3], cone: &Cone, r_prev: [f64; 3]) -> ([f64; 3], ContactCase) {
    if cone.is_isotropic() {
        return solve_full_block(w, ustar, cone.mu_t, r_prev);
    }
    let [st, sb] = cone.scale();
    let s = [1.0, st, sb];
    let mut ws = [0.0; 9];
    for i in 0..3 {
        for j in 0..3 {
            ws[3 * i + j] = s[i] * s[j] * w[3 * i + j];
        }
    }
    let us = [ustar[0], st * ustar[1], sb * ustar[2]];
    let rp = [r_prev[0], r_prev[1] / st, r_prev[2] / sb];
    let (r, case) = solve_full_block(&ws, us, cone.mu_ref(), rp);
    ([r[0], st * r[1], sb * r[2]], case)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn u_of(w: &[f64; 9], r: &[f64; 3], us: &[f64; 3]) -> [f64; 3] {
        let x = matvec(w, r);
        [x[0] + us[0], x[1] + us[1], x[2] + us[2]]
    }

    /// Signorini + Coulomb + maximal dissipation, checked directly (not via the residual).
    fn assert_coulomb(r: &[f64; 3], u: &[f64; 3], mu: f64, scale: f64) {
        // Tolerances: a few hundred ulps of the data scale.
        let tol = 1e-12 * scale;
        assert!(r[0] >= -tol && u[0] >= -tol, "r={r:?} u={u:?}");
        assert!((r[0] * u[0]).abs() <= tol * scale);
        let rt = hyp(r[1], r[2]);
        let ut = hyp(u[1], u[2]);
        assert!(rt <= mu * r[0] + tol);
        if ut > tol {
            assert!((rt - mu * r[0]).abs() <= tol, "slide must saturate: {rt} vs {}", mu * r[0]);
            // r_T = -|r_T| u_T/|u_T| (maximal dissipation).
            assert!((r[1] + rt * u[1] / ut).abs() <= tol && (r[2] + rt * u[2] / ut).abs() <= tol);
        }
    }

    #[test]
    fn closed_form_three_cases() {
        let mu = 0.5;
        let (u, c) = solve_isotropic_diagonal([0.1, 3.0, 0.0], mu);
        assert_eq!(c, ContactCase::TakeOff);
        assert_eq!(u, [0.1, 3.0, 0.0]);
        let (u, c) = solve_isotropic_diagonal([-1.0, 0.3, 0.2], mu);
        assert_eq!((u, c), ([0.0; 3], ContactCase::Stick));
        let s = 2.0;
        let us = [-1.0, 3.0, -4.0];
        let (u, c) = solve_isotropic_diagonal(us, mu);
        assert_eq!(c, ContactCase::Slide);
        let r = [(u[0] - us[0]) / s, (u[1] - us[1]) / s, (u[2] - us[2]) / s];
        assert_coulomb(&r, &u, mu, 5.0);
    }

    #[test]
    fn full_block_matches_closed_form_on_diagonal_blocks() {
        let s = 3.0;
        let w = [s, 0.0, 0.0, 0.0, s, 0.0, 0.0, 0.0, s];
        for us in [[0.2, 1.0, 1.0], [-1.0, 0.1, 0.2], [-1.0, 2.0, -0.5], [-0.3, -1.0, 4.0]] {
            let (u, _) = solve_isotropic_diagonal(us, 0.3);
            let (r, _) = solve_full_block(&w, us, 0.3, [0.0; 3]);
            for i in 0..3 {
                // Newton on theta converges to ~1e-15; forces are O(1).
                assert!(((u[i] - us[i]) / s - r[i]).abs() < 1e-12, "{us:?}");
            }
        }
    }

    #[test]
    fn full_block_general_spd_all_cases() {
        // The Siconos one-contact problem (FrictionContact3D_1c) and perturbations of it.
        let w = [15.0, -1.0, -2.0, -1.0, 14.0, 1.0, -2.0, 1.0, 16.0];
        for (us, mu, expect) in [
            ([-1.0, 2.0, 3.0], 0.1, ContactCase::Slide),
            ([-1.0, 0.01, 0.02], 0.5, ContactCase::Stick),
            ([1.0, 2.0, 3.0], 0.5, ContactCase::TakeOff),
            ([-1.0, -5.0, 0.3], 0.8, ContactCase::Slide),
        ] {
            let (r, case) = solve_full_block(&w, us, mu, [0.0; 3]);
            assert_eq!(case, expect);
            assert_coulomb(&r, &u_of(&w, &r, &us), mu, 10.0);
        }
        // Known Siconos reference (W SPD => unique): r to round-off.
        let (r, _) = solve_full_block(&w, [-1.0, 2.0, 3.0], 0.1, [0.0; 3]);
        let rref = [0.065695682897738, -0.003678614906807, -0.005443070813559];
        for i in 0..3 {
            // The reference is printed with 15 decimals.
            assert!((r[i] - rref[i]).abs() < 1e-14);
        }
    }

    #[test]
    fn random_blocks_satisfy_coulomb() {
        // Deterministic pseudo-random SPD blocks (LCG), many free velocities: every solve must be
        // exact (no Fallback) and satisfy the law.
        let mut seed = 12345u64;
        let mut rnd = || {
            seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            ((seed >> 11) as f64 / (1u64 << 53) as f64) * 2.0 - 1.0
        };
        for _ in 0..2000 {
            let a: [f64; 9] = std::array::from_fn(|_| rnd());
            let mut w = [0.0; 9];
            for i in 0..3 {
                for j in 0..3 {
                    w[3 * i + j] =
                        (0..3).map(|k| a[3 * i + k] * a[3 * j + k]).sum::<f64>() + if i == j { 0.2 } else { 0.0 };
                }
            }
            let us = [rnd(), 2.0 * rnd(), 2.0 * rnd()];
            let mu = 0.05 + rnd().abs();
            let (r, case) = solve_full_block(&w, us, mu, [0.0; 3]);
            assert_ne!(case, ContactCase::Fallback, "w={w:?} us={us:?} mu={mu}");
            assert_coulomb(&r, &u_of(&w, &r, &us), mu, 1e3);
        }
    }

    #[test]
    fn elliptic_reduces_exactly_and_dissipates_maximally() {
        let w = [2.0, 0.1, 0.0, 0.1, 1.5, 0.2, 0.0, 0.2, 1.8];
        let us = [-1.0, 3.0, 2.0];
        let iso = solve_contact(&w, us, &Cone::isotropic(0.4).unwrap(), [0.0; 3]);
        let ell = solve_contact(&w, us, &Cone::elliptic(0.4, 0.4).unwrap(), [0.0; 3]);
        assert_eq!(iso, ell); // bit-identical: the scaling is skipped, not approximated
        // Anisotropic: r on the ellipse boundary and maximal dissipation
        // r_T = -rN M^2 u_T / |M u_T| with M = diag(mu_t, mu_b) (validation/README case 7).
        let cone = Cone::elliptic(0.2, 0.9).unwrap();
        let (r, case) = solve_contact(&w, us, &cone, [0.0; 3]);
        assert_eq!(case, ContactCase::Slide);
        let u = u_of(&w, &r, &us);
        assert!(u[0].abs() < 1e-12);
        let m = hyp(0.2 * u[1], 0.9 * u[2]);
        // Round-off of the theta Newton (1e-14) amplified by the aspect ratio 4.5.
        assert!((r[1] + r[0] * 0.04 * u[1] / m).abs() < 1e-12);
        assert!((r[2] + r[0] * 0.81 * u[2] / m).abs() < 1e-12);
    }
}
