//! Contacts of round shapes (sphere, capsule, cylinder) with planes, spheres, capsules, boxes and
//! cylinders: closest points of points and segments, then sphere-like contacts.

use super::{ContactGeometry, polyhedral::reduce_manifold};
use nalgebra::{Isometry3, Vector3};

/// Sine of the angle below which two capsule axes count as parallel and get a two-point manifold
/// (a lying capsule on another must not rock on one point); 1e-6 is far below any modelled tilt.
const PARALLEL_SIN: f64 = 1e-6;

/// Contact of a sphere (A) with a point `q` of B, where `n` is B's outward normal at `q` and `d`
/// the signed distance of the sphere's center from B's surface along it.
fn sphere_at(c: &Vector3<f64>, r: f64, on_b: Vector3<f64>, n: Vector3<f64>, margin: f64) -> Option<ContactGeometry> {
    let g = ContactGeometry::from_witnesses(c - r * n, on_b, n);
    (g.gap < margin).then_some(g)
}

/// Sphere (A) against a body whose signed distance at the sphere's center `c` is `d` with unit
/// outward normal `n` (the analytic colliders provide both).
pub fn from_signed_distance(
    c: &Vector3<f64>,
    r: f64,
    d: f64,
    n: &Vector3<f64>,
    margin: f64,
) -> Option<ContactGeometry> {
    sphere_at(c, r, c - d * n, *n, margin)
}

/// Sphere (A) against the half-space below the plane through `p0` with unit normal `n` (B).
pub fn sphere_plane(
    c: &Vector3<f64>,
    r: f64,
    p0: &Vector3<f64>,
    n: &Vector3<f64>,
    margin: f64,
) -> Option<ContactGeometry> {
    from_signed_distance(c, r, n.dot(&(c - p0)), n, margin)
}

/// Sphere A (center `ca`, radius `ra`) against sphere B.
pub fn sphere_sphere(ca: &Vector3<f64>, ra: f64, cb: &Vector3<f64>, rb: f64, margin: f64) -> Option<ContactGeometry> {
    let d = ca - cb;
    let dist = d.norm();
    // Concentric centers: any direction separates equally; +z keeps the result deterministic.
    let n = if dist > 0.0 { d / dist } else { Vector3::z() };
    sphere_at(ca, ra, cb + rb * n, n, margin)
}

/// Closest point to `p` on the segment `c ± h a` (`a` unit).
fn closest_on_segment(p: &Vector3<f64>, c: &Vector3<f64>, a: &Vector3<f64>, h: f64) -> Vector3<f64> {
    c + a * a.dot(&(p - c)).clamp(-h, h)
}

/// Sphere (A) against the capsule B with center `cb`, unit axis `axis`, half length `h`, radius `rb`.
pub fn sphere_capsule(
    ca: &Vector3<f64>,
    ra: f64,
    cb: &Vector3<f64>,
    axis: &Vector3<f64>,
    h: f64,
    rb: f64,
    margin: f64,
) -> Option<ContactGeometry> {
    sphere_sphere(ca, ra, &closest_on_segment(ca, cb, axis, h), rb, margin)
}

/// Capsule (A) against a plane (B): the two end spheres, so a lying capsule rests on two points.
pub fn capsule_plane(
    c: &Vector3<f64>,
    axis: &Vector3<f64>,
    h: f64,
    r: f64,
    p0: &Vector3<f64>,
    n: &Vector3<f64>,
    margin: f64,
) -> Vec<ContactGeometry> {
    let ends: &[f64] = if h > 0.0 { &[-1.0, 1.0] } else { &[0.0] };
    ends.iter().filter_map(|s| sphere_plane(&(c + s * h * axis), r, p0, n, margin)).collect()
}

/// Closest points `(s, t)` (parameters in [-1, 1] times the half lengths) of the segments
/// `ca + s a` (|s| <= ha) and `cb + t b` (|t| <= hb), `a` and `b` unit (Ericson §5.1.9, centered).
pub fn segment_segment(
    ca: &Vector3<f64>,
    a: &Vector3<f64>,
    ha: f64,
    cb: &Vector3<f64>,
    b: &Vector3<f64>,
    hb: f64,
) -> (f64, f64) {
    let r = ca - cb;
    let ab = a.dot(b);
    let (ra, rb) = (a.dot(&r), b.dot(&r));
    let denom = 1.0 - ab * ab;
    // Non-parallel: unconstrained minimizer on A's line, clamped; parallel: any s, take A's center.
    let mut s = if denom > 1e-12 { ((ab * rb - ra) / denom).clamp(-ha, ha) } else { 0.0 };
    let t = (rb + ab * s).clamp(-hb, hb);
    s = (ab * t - ra).clamp(-ha, ha);
    (s, t)
}

/// Capsule A `(center, unit axis, half length, radius)` against capsule B. Parallel overlapping
/// axes give two points (the ends of the overlap), otherwise one.
pub fn capsule_capsule(
    (ca, a, ha, ra): (&Vector3<f64>, &Vector3<f64>, f64, f64),
    (cb, b, hb, rb): (&Vector3<f64>, &Vector3<f64>, f64, f64),
    margin: f64,
) -> Vec<ContactGeometry> {
    if a.cross(b).norm() < PARALLEL_SIN && ha > 0.0 && hb > 0.0 {
        // Overlap of B's extent projected on A's axis, in A's parameter.
        let t0 = a.dot(&(cb - hb * b - ca));
        let t1 = a.dot(&(cb + hb * b - ca));
        let (lo, hi) = (t0.min(t1).max(-ha), t0.max(t1).min(ha));
        if hi - lo > 1e-9 * (ha + hb) {
            return [lo, hi]
                .iter()
                .filter_map(|s| {
                    let p = ca + a * *s;
                    sphere_sphere(&p, ra, &closest_on_segment(&p, cb, b, hb), rb, margin)
                })
                .collect();
        }
    }
    let (s, t) = segment_segment(ca, a, ha, cb, b, hb);
    sphere_sphere(&(ca + s * a), ra, &(cb + t * b), rb, margin).into_iter().collect()
}

/// Sphere (A) against a box B at pose `pb` with half extents `half`.
pub fn sphere_box(
    c: &Vector3<f64>,
    r: f64,
    pb: &Isometry3<f64>,
    half: &Vector3<f64>,
    margin: f64,
) -> Option<ContactGeometry> {
    let p = pb.inverse_transform_point(&(*c).into()).coords;
    let q = p.zip_map(half, |x, h| x.clamp(-h, h));
    let (on_b, n) = if q == p {
        // Center inside: leave through the nearest face.
        let depth = half - p.abs();
        let k = depth.imin();
        let s = if p[k] < 0.0 { -1.0 } else { 1.0 };
        let mut on = p;
        on[k] = s * half[k];
        (on, Vector3::ith(k, s))
    } else {
        (q, (p - q).normalize())
    };
    sphere_at(c, r, pb.transform_point(&on_b.into()).coords, pb.rotation * n, margin)
}

/// Sphere (A) against a solid cylinder B at pose `pb` (axis = body z).
pub fn sphere_cylinder(
    c: &Vector3<f64>,
    r: f64,
    pb: &Isometry3<f64>,
    radius: f64,
    h: f64,
    margin: f64,
) -> Option<ContactGeometry> {
    let p = pb.inverse_transform_point(&(*c).into()).coords;
    let rho = p.xy().norm();
    // On the axis every radial direction is as good; x keeps it deterministic.
    let radial = if rho > 0.0 { Vector3::new(p.x / rho, p.y / rho, 0.0) } else { Vector3::x() };
    let axial = Vector3::new(0.0, 0.0, if p.z < 0.0 { -1.0 } else { 1.0 });
    let (on_b, n) = if rho <= radius && p.z.abs() <= h {
        if radius - rho < h - p.z.abs() {
            (radial * radius + Vector3::z() * p.z, radial)
        } else {
            (radial * rho + axial * h, axial)
        }
    } else {
        let q = radial * rho.min(radius) + Vector3::z() * p.z.clamp(-h, h);
        (q, (p - q).normalize())
    };
    sphere_at(c, r, pb.transform_point(&on_b.into()).coords, pb.rotation * n, margin)
}

/// Solid cylinder (A) at pose `pa` against a plane (B): on each cap, the rim point lowest along
/// the normal; when the cap is within about 3 degrees of parallel to the plane (a standing
/// cylinder, whose lowest rim point is undefined or jumps around the rim), also the four rim points
/// on the body x and y axes, so it rests on four points. Reduced to at most 4.
pub fn cylinder_plane(
    pa: &Isometry3<f64>,
    radius: f64,
    h: f64,
    p0: &Vector3<f64>,
    n: &Vector3<f64>,
    margin: f64,
) -> Vec<ContactGeometry> {
    let axis = pa.rotation * Vector3::z();
    let (ex, ey) = (pa.rotation * Vector3::x(), pa.rotation * Vector3::y());
    let down = -(n - axis * axis.dot(n));
    // sin 0.05 ≈ 3 degrees: tilts below it are a standing cylinder disturbed by drift.
    let flat = axis.cross(n).norm() < 0.05;
    let mut found = Vec::new();
    for s in [-1.0, 1.0] {
        let cap = pa.translation.vector + s * h * axis;
        let mut rim = if flat { vec![ex, ey, -ex, -ey] } else { Vec::new() };
        // Lowest rim point, unless the cap lies (nearly) flat and it is undefined, or it is one of
        // the four already listed (a duplicate point would make the manifold degenerate).
        if down.norm() > 1e-9 {
            let d = down.normalize();
            if rim.iter().all(|e| (e - d).norm() > 1e-9) {
                rim.push(d);
            }
        }
        for d in rim {
            let x = cap + radius * d;
            let gap = n.dot(&(x - p0));
            if gap < margin {
                found.push(ContactGeometry::from_witnesses(x, x - gap * n, *n));
            }
        }
    }
    reduce_manifold(found)
}
