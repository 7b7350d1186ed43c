//! Friction cones and their Euclidean projections.
//!
//! Every contact frame is (normal, tangent t, binormal b). The cone of admissible contact
//! forces is `K = {(r_N, r_t, r_b) : (r_t/mu_t)^2 + (r_b/mu_b)^2 <= r_N^2, r_N >= 0}`; it is the
//! isotropic Coulomb cone when `mu_t == mu_b` and the elliptic (Matchstick, 003 §2.5, with the
//! squares restored) cone otherwise.
//!
//! The elliptic cone is the image of the isotropic cone `K_mu` with `mu = sqrt(mu_t mu_b)` under
//! the diagonal map `S = diag(1, mu_t/mu, mu_b/mu)`: `r in K_ell <=> S^{-1} r in K_mu`, and the dual
//! variables map with `S`: `u' = S u`, so `r . u = r' . u'`. Solvers use this to reduce an elliptic
//! contact to an isotropic one exactly; for `mu_t == mu_b` the map is the identity, so the
//! elliptic code path reduces bit-for-bit to the isotropic one.

/// `sqrt(a^2 + b^2)` without `hypot`'s overflow/underflow guard, which made libm's `hypot` 30% of
/// a Gauss–Seidel sweep (perf, Capsules). Contact forces and velocities are far below 1e150, so
/// the squares cannot overflow; tiny values lose relative accuracy only below 1e-154.
#[inline(always)]
pub fn hyp(a: f64, b: f64) -> f64 {
    (a * a + b * b).sqrt()
}

/// Per-contact friction cone.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Cone {
    /// Friction coefficient along the first tangent.
    pub mu_t: f64,
    /// Friction coefficient along the second tangent (binormal).
    pub mu_b: f64,
}

/// Error for a cone with meaningless coefficients.
#[derive(Debug, thiserror::Error, PartialEq)]
#[error(
    "invalid friction cone (mu_t = {mu_t}, mu_b = {mu_b}): coefficients must be finite, >= 0, and both > 0 if they differ"
)]
pub struct InvalidCone {
    pub mu_t: f64,
    pub mu_b: f64,
}

impl Cone {
    /// Isotropic Coulomb cone `|r_T| <= mu r_N`.
    pub fn isotropic(mu: f64) -> Result<Self, InvalidCone> {
        Self::elliptic(mu, mu)
    }

    /// Elliptic cone with semi-axes `mu_t r_N` and `mu_b r_N`.
    pub fn elliptic(mu_t: f64, mu_b: f64) -> Result<Self, InvalidCone> {
        let ok = mu_t.is_finite()
            && mu_b.is_finite()
            && mu_t >= 0.0
            && mu_b >= 0.0
            && (mu_t == mu_b || (mu_t > 0.0 && mu_b > 0.0));
        if ok { Ok(Cone { mu_t, mu_b }) } else { Err(InvalidCone { mu_t, mu_b }) }
    }

    pub fn is_isotropic(&self) -> bool {
        self.mu_t == self.mu_b
    }

    /// The isotropic coefficient of the equivalent scaled problem.
    pub fn mu_ref(&self) -> f64 {
        if self.is_isotropic() { self.mu_t } else { (self.mu_t * self.mu_b).sqrt() }
    }

    /// Tangential scale factors `(mu_t/mu, mu_b/mu)` of the map `S` (identity when isotropic).
    pub fn scale(&self) -> [f64; 2] {
        if self.is_isotropic() {
            [1.0, 1.0]
        } else {
            let m = self.mu_ref();
            [self.mu_t / m, self.mu_b / m]
        }
    }

    /// True if `r` lies in the cone, up to `tol` (absolute, in force units).
    pub fn contains(&self, r: &[f64; 3], tol: f64) -> bool {
        let [st, sb] = self.scale();
        let mu = self.mu_ref();
        let nt = hyp(r[1] / st, r[2] / sb);
        r[0] >= -tol && nt <= mu * r[0] + tol
    }

    /// Euclidean projection onto the cone. For the elliptic cone this needs a 1-D root find
    /// (the projection does not commute with the scaling `S`).
    pub fn project(&self, x: &[f64; 3]) -> [f64; 3] {
        if self.is_isotropic() {
            project_isotropic(x, self.mu_t)
        } else {
            project_elliptic_cone(x, self.mu_t, self.mu_b)
        }
    }
}

/// Euclidean projection onto `K_mu = {|x_T| <= mu x_N}` (closed form).
#[inline]
pub fn project_isotropic(x: &[f64; 3], mu: f64) -> [f64; 3] {
    let nt = hyp(x[1], x[2]);
    match isotropic_projection(x[0], nt, mu) {
        None => *x,
        Some((rn, 0.0)) => [rn, 0.0, 0.0],
        Some((rn, radius)) => [rn, radius * x[1] / nt, radius * x[2] / nt],
    }
}

/// Where a point `x = (x_N, x_T)` with `|x_T| = nt` projects onto `K_mu`, in any dimension of
/// `x_T`: `None` if it lies in the cone, else `(p_N, mu p_N)`, the projection's normal part and
/// the length of its tangential part, which points along `x_T` (both zero at the apex).
#[inline]
pub fn isotropic_projection(xn: f64, nt: f64, mu: f64) -> Option<(f64, f64)> {
    if mu * nt <= -xn {
        return Some((0.0, 0.0));
    }
    if nt <= mu * xn {
        return None;
    }
    let rn = (mu * nt + xn) / (mu * mu + 1.0);
    Some((rn, mu * rn))
}

/// Projection of `z` onto the disc of radius `radius >= 0`.
#[inline]
pub fn project_disc(z: [f64; 2], radius: f64) -> [f64; 2] {
    let n = hyp(z[0], z[1]);
    if n <= radius {
        z
    } else if n == 0.0 {
        [0.0, 0.0]
    } else {
        [z[0] * radius / n, z[1] * radius / n]
    }
}

/// Euclidean projection of `z` onto the ellipse `{(x/a)^2 + (y/b)^2 <= 1}` with `a, b >= 0`.
///
/// Outside points: `x = a^2 z_x/(a^2+tau)`, `y = b^2 z_y/(b^2+tau)` with `tau > 0` the root of
/// `g(tau) = (a z_x/(a^2+tau))^2 + (b z_y/(b^2+tau))^2 - 1` (003 §3.3). `g` is decreasing and
/// convex on `tau > 0`, so Newton from the left of the root converges monotonically; a bisection
/// bracket guards against round-off.
pub fn project_ellipse(z: [f64; 2], a: f64, b: f64) -> [f64; 2] {
    if a <= 0.0 && b <= 0.0 {
        return [0.0, 0.0];
    }
    if a <= 0.0 {
        return [0.0, z[1].clamp(-b, b)];
    }
    if b <= 0.0 {
        return [z[0].clamp(-a, a), 0.0];
    }
    if (z[0] / a).powi(2) + (z[1] / b).powi(2) <= 1.0 {
        return z;
    }
    if a == b {
        return project_disc(z, a);
    }
    let (a2, b2) = (a * a, b * b);
    let g = |t: f64| {
        let x = a * z[0] / (a2 + t);
        let y = b * z[1] / (b2 + t);
        x * x + y * y - 1.0
    };
    // Bracket: g(0) > 0 (outside) and g(max(a,b)|z|) <= 0.
    let (mut lo, mut hi) = (0.0f64, a.max(b) * hyp(z[0], z[1]));
    let mut t = 0.0;
    for _ in 0..100 {
        let (da, db) = (a2 + t, b2 + t);
        let x = a * z[0] / da;
        let y = b * z[1] / db;
        let gv = x * x + y * y - 1.0;
        if gv > 0.0 {
            lo = t
        } else {
            hi = t
        }
        let dg = -2.0 * (x * x / da + y * y / db);
        let mut tn = if dg < 0.0 { t - gv / dg } else { 0.5 * (lo + hi) };
        if !(tn > lo && tn < hi) {
            tn = 0.5 * (lo + hi);
        }
        if (tn - t).abs() <= 1e-15 * tn.abs().max(f64::MIN_POSITIVE) {
            t = tn;
            break;
        }
        t = tn;
    }
    debug_assert!(g(t).abs() < 1e-8);
    [a2 * z[0] / (a2 + t), b2 * z[1] / (b2 + t)]
}

/// Euclidean projection onto the elliptic cone `{(x_t/mu_t)^2 + (x_b/mu_b)^2 <= x_N^2}`.
///
/// For a fixed normal component `n >= 0` the closest tangential point is the ellipse projection
/// of `x_T` with semi-axes `mu n`; the distance `phi(n) = (n - x_N)^2 + d(x_T, E(n))^2` is convex in
/// `n` (the cone is convex), so a golden-section search followed by the ellipse projection gives
/// the projection to round-off. Used only for residual evaluation; solvers work in the scaled
/// isotropic variables.
pub fn project_elliptic_cone(x: &[f64; 3], mu_t: f64, mu_b: f64) -> [f64; 3] {
    let k = Cone { mu_t, mu_b };
    if k.contains(x, 0.0) {
        return *x;
    }
    // Polar cone test: x in -K* <=> x_N <= -|(mu_t x_t, mu_b x_b)|  -> projection is 0.
    if x[0] <= -hyp(mu_t * x[1], mu_b * x[2]) {
        return [0.0; 3];
    }
    let phi = |n: f64| {
        let p = project_ellipse([x[1], x[2]], mu_t * n, mu_b * n);
        (n - x[0]).powi(2) + (p[0] - x[1]).powi(2) + (p[1] - x[2]).powi(2)
    };
    let norm = x[0].abs() + hyp(x[1], x[2]);
    let (mut lo, mut hi) = (0.0, x[0].max(0.0) + norm);
    let gr = 0.5 * (5f64.sqrt() - 1.0);
    let mut c = hi - gr * (hi - lo);
    let mut d = lo + gr * (hi - lo);
    let (mut fc, mut fd) = (phi(c), phi(d));
    for _ in 0..200 {
        if hi - lo <= 1e-15 * norm {
            break;
        }
        if fc < fd {
            hi = d;
            d = c;
            fd = fc;
            c = hi - gr * (hi - lo);
            fc = phi(c);
        } else {
            lo = c;
            c = d;
            fc = fd;
            d = lo + gr * (hi - lo);
            fd = phi(d);
        }
    }
    let n = 0.5 * (lo + hi);
    let p = project_ellipse([x[1], x[2]], mu_t * n, mu_b * n);
    [n, p[0], p[1]]
}

/// Euclidean projection of `z` onto the convex polygon with vertices `scale * dirs` (counter-
/// clockwise, around the origin): `z` itself inside, else the nearest point of its edges. A zero
/// scale, no vertices or all of them at the origin (no friction) give the origin.
pub fn project_polygon(z: [f64; 2], dirs: &[[f64; 2]], scale: f64) -> [f64; 2] {
    let k = dirs.len();
    let v = |j: usize| [scale * dirs[j % k][0], scale * dirs[j % k][1]];
    if scale <= 0.0 || dirs.iter().all(|d| d[0] == 0.0 && d[1] == 0.0) {
        return [0.0, 0.0];
    }
    let inside = (0..k).all(|j| {
        let (a, b) = (v(j), v(j + 1));
        (b[0] - a[0]) * (z[1] - a[1]) - (b[1] - a[1]) * (z[0] - a[0]) >= 0.0
    });
    if inside {
        return z;
    }
    let mut best = ([0.0, 0.0], f64::INFINITY);
    for j in 0..k {
        let (a, b) = (v(j), v(j + 1));
        let e = [b[0] - a[0], b[1] - a[1]];
        let len2 = e[0] * e[0] + e[1] * e[1];
        let t = if len2 > 0.0 { (((z[0] - a[0]) * e[0] + (z[1] - a[1]) * e[1]) / len2).clamp(0.0, 1.0) } else { 0.0 };
        let q = [a[0] + t * e[0], a[1] + t * e[1]];
        let d2 = (z[0] - q[0]).powi(2) + (z[1] - q[1]).powi(2);
        if d2 < best.1 {
            best = (q, d2);
        }
    }
    best.0
}

#[cfg(test)]
mod tests {

    /// The polygon projection (003 §4.1 D): inside points unchanged, outside points on the
    /// boundary and nearest among 20000 boundary samples (to their spacing), idempotent; no
    /// friction gives the origin.
    #[test]
    fn polygon_projection_is_the_nearest_boundary_point() {
        let dirs: Vec<[f64; 2]> = (0..8)
            .map(|j| {
                let t = j as f64 * std::f64::consts::TAU / 8.0;
                [0.3 * t.cos(), 0.9 * t.sin()]
            })
            .collect();
        let scale = 2.0;
        assert_eq!(project_polygon([0.1, -0.2], &dirs, scale), [0.1, -0.2]);
        let boundary: Vec<[f64; 2]> = (0..8)
            .flat_map(|j| {
                let (a, b) = (dirs[j], dirs[(j + 1) % 8]);
                (0..2500).map(move |i| {
                    let t = i as f64 / 2500.0;
                    [scale * (a[0] + t * (b[0] - a[0])), scale * (a[1] + t * (b[1] - a[1]))]
                })
            })
            .collect();
        for z in [[3.0, 0.5], [-1.0, -4.0], [0.0, 2.5], [0.9, 1.9], [-0.7, 0.2]] {
            let p = project_polygon(z, &dirs, scale);
            let d = ((z[0] - p[0]).powi(2) + (z[1] - p[1]).powi(2)).sqrt();
            let brute = boundary
                .iter()
                .map(|q| ((z[0] - q[0]).powi(2) + (z[1] - q[1]).powi(2)).sqrt())
                .fold(f64::INFINITY, f64::min);
            // Boundary samples are at most 1e-3 apart: the brute force is that close.
            assert!(d <= brute + 1e-15 && brute - d < 1e-3, "{z:?}: {d} vs brute {brute}");
            assert_eq!(project_polygon(p, &dirs, scale), p, "{z:?}: not idempotent");
        }
        let none = vec![[0.0, 0.0]; 8];
        assert_eq!(project_polygon([1.0, 1.0], &none, 1.0), [0.0, 0.0]);
        assert_eq!(project_polygon([1.0, 1.0], &dirs, 0.0), [0.0, 0.0]);
    }
    use super::*;

    #[test]
    fn isotropic_projection_cases() {
        // Inside: unchanged. Polar: zero. Otherwise on the boundary and x - p normal to it.
        assert_eq!(project_isotropic(&[1.0, 0.1, 0.0], 0.5), [1.0, 0.1, 0.0]);
        assert_eq!(project_isotropic(&[-1.0, 0.1, 0.0], 0.5), [0.0; 3]);
        let x = [1.0, 2.0, -1.0];
        let p = project_isotropic(&x, 0.3);
        let nt = hyp(p[1], p[2]);
        // Round-off of a few flops on O(1) data.
        assert!((nt - 0.3 * p[0]).abs() < 1e-14);
        let d = [x[0] - p[0], x[1] - p[1], x[2] - p[2]];
        assert!((d[0] * p[0] + d[1] * p[1] + d[2] * p[2]).abs() < 1e-14);
    }

    #[test]
    fn ellipse_projection_is_closest_point() {
        // Compare with brute-force sampling of the boundary at aspect ratio 30 (003 §4.1 D).
        let (a, b) = (0.1, 3.0);
        for z in [[1.0, 1.0], [0.05, 5.0], [-2.0, 0.3], [0.2, -0.01]] {
            let p = project_ellipse(z, a, b);
            assert!(((p[0] / a).powi(2) + (p[1] / b).powi(2) - 1.0).abs() < 1e-12);
            let dp = hyp(p[0] - z[0], p[1] - z[1]);
            let mut best = f64::INFINITY;
            for k in 0..200_000 {
                let t = k as f64 * std::f64::consts::TAU / 200_000.0;
                best = best.min(hyp(a * t.cos() - z[0], b * t.sin() - z[1]));
            }
            // The sampled minimum is above the exact one by O(h^2 * curvature) ~ 1e-9 here.
            assert!(dp <= best + 1e-12 && dp >= best - 1e-7, "{dp} vs {best}");
            // Idempotent (exactly inside after projection up to round-off).
            let pp = project_ellipse(p, a, b);
            assert!((pp[0] - p[0]).abs() < 1e-12 && (pp[1] - p[1]).abs() < 1e-12);
        }
    }

    #[test]
    fn elliptic_cone_reduces_to_isotropic() {
        let x = [0.3, 1.0, -2.0];
        let p1 = project_elliptic_cone(&x, 0.4, 0.4);
        let p2 = project_isotropic(&x, 0.4);
        // Golden-section search in n: accuracy ~1e-15 relative in n, sqrt-limited in phi -> 1e-7.
        for i in 0..3 {
            assert!((p1[i] - p2[i]).abs() < 1e-7, "{p1:?} {p2:?}");
        }
        assert_eq!(Cone::isotropic(0.4).unwrap().project(&x), p2);
    }

    #[test]
    fn invalid_cones_are_rejected() {
        assert!(Cone::isotropic(-0.1).is_err());
        assert!(Cone::elliptic(0.0, 0.3).is_err());
        assert!(Cone::isotropic(f64::NAN).is_err());
        assert!(Cone::isotropic(0.0).is_ok());
    }
}
