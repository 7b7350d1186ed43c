//! Mass properties from density: mass, center of mass, inertia tensor about the center of mass.
//!
//! Primitives use closed forms; a closed triangle mesh uses the exact polyhedral volume integrals
//! (Mirtich 1996, in the compact form of Eberly, "Polyhedral Mass Properties (Revisited)", 2002),
//! which reduce the volume integrals of 1, x, x², xy to sums over the outward triangles.

use super::shape::RigidShape;
use nalgebra::{Matrix3, Vector3};
use std::f64::consts::PI;

/// Mass, center of mass and inertia tensor about the center of mass, in the body frame.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct MassProperties {
    pub mass: f64,
    /// Center of mass in the shape's own coordinates (zero for the primitives).
    pub center: Vector3<f64>,
    /// Inertia tensor about `center`, axes of the shape's coordinates.
    pub inertia: Matrix3<f64>,
}

impl MassProperties {
    /// Mass properties of `shape` filled with uniform `density` (kg/m³).
    pub fn from_shape(shape: &RigidShape, density: f64) -> MassProperties {
        let diag = |m: f64, ixx: f64, iyy: f64, izz: f64| MassProperties {
            mass: m,
            center: Vector3::zeros(),
            inertia: Matrix3::from_diagonal(&Vector3::new(ixx, iyy, izz)),
        };
        match shape {
            RigidShape::Box { half } => {
                let m = density * 8.0 * half.x * half.y * half.z;
                let (a2, b2, c2) = (half.x * half.x, half.y * half.y, half.z * half.z);
                // m (side²)/12 with side = 2 * half.
                diag(m, m * (b2 + c2) / 3.0, m * (a2 + c2) / 3.0, m * (a2 + b2) / 3.0)
            }
            RigidShape::Sphere { radius } => {
                let m = density * 4.0 / 3.0 * PI * radius.powi(3);
                let i = 0.4 * m * radius * radius;
                diag(m, i, i, i)
            }
            RigidShape::Cylinder { radius, half_length } => {
                let (r, h) = (*radius, *half_length);
                let m = density * PI * r * r * 2.0 * h;
                // m (3 r² + L²)/12 with L = 2h.
                let ixx = m * (r * r / 4.0 + h * h / 3.0);
                diag(m, ixx, ixx, 0.5 * m * r * r)
            }
            RigidShape::Capsule { radius, half_length } => {
                let (r, h) = (*radius, *half_length);
                let mc = density * PI * r * r * 2.0 * h;
                let ms = density * 4.0 / 3.0 * PI * r.powi(3);
                // Each hemisphere (mass ms/2): 2/5 (ms/2) r² about its flat face's diameter, shifted
                // from its own center of mass (3r/8 above the face) to the capsule center
                // (h + 3r/8 away): 2/5 r² + h² + 3hr/4 per unit mass.
                let ixx = mc * (r * r / 4.0 + h * h / 3.0) + ms * (0.4 * r * r + h * h + 0.75 * h * r);
                let izz = 0.5 * mc * r * r + 0.4 * ms * r * r;
                diag(mc + ms, ixx, ixx, izz)
            }
            RigidShape::ConvexMesh(m) => polyhedron(&m.vertices, &m.triangles, density),
            RigidShape::NonConvex(m) => polyhedron(&m.vertices, &m.triangles, density),
        }
    }

    /// Inertia about a point displaced by `d` from the center of mass (parallel-axis theorem):
    /// `I + m (|d|² 1 - d dᵀ)`.
    pub fn inertia_about(&self, d: &Vector3<f64>) -> Matrix3<f64> {
        self.inertia + self.mass * (Matrix3::identity() * d.norm_squared() - d * d.transpose())
    }
}

/// Exact mass properties of the solid bounded by a closed, outward-oriented triangle mesh.
pub fn polyhedron(vertices: &[Vector3<f64>], triangles: &[[usize; 3]], density: f64) -> MassProperties {
    // Integrals of 1, x, y, z, x², y², z², xy, yz, zx over the volume.
    let mut s = [0.0f64; 10];
    for t in triangles {
        let [p0, p1, p2] = t.map(|i| vertices[i]);
        let d = (p1 - p0).cross(&(p2 - p0));
        let (f1x, f2x, f3x, g0x, g1x, g2x) = subexpressions(p0.x, p1.x, p2.x);
        let (_, f2y, f3y, g0y, g1y, g2y) = subexpressions(p0.y, p1.y, p2.y);
        let (_, f2z, f3z, g0z, g1z, g2z) = subexpressions(p0.z, p1.z, p2.z);
        s[0] += d.x * f1x;
        s[1] += d.x * f2x;
        s[2] += d.y * f2y;
        s[3] += d.z * f2z;
        s[4] += d.x * f3x;
        s[5] += d.y * f3y;
        s[6] += d.z * f3z;
        s[7] += d.x * (p0.y * g0x + p1.y * g1x + p2.y * g2x);
        s[8] += d.y * (p0.z * g0y + p1.z * g1y + p2.z * g2y);
        s[9] += d.z * (p0.x * g0z + p1.x * g1z + p2.x * g2z);
    }
    let mult = [
        1.0 / 6.0,
        1.0 / 24.0,
        1.0 / 24.0,
        1.0 / 24.0,
        1.0 / 60.0,
        1.0 / 60.0,
        1.0 / 60.0,
        1.0 / 120.0,
        1.0 / 120.0,
        1.0 / 120.0,
    ];
    for (v, k) in s.iter_mut().zip(mult) {
        *v *= k * density;
    }
    let mass = s[0];
    let c = Vector3::new(s[1], s[2], s[3]) / mass;
    let ixx = s[5] + s[6] - mass * (c.y * c.y + c.z * c.z);
    let iyy = s[4] + s[6] - mass * (c.z * c.z + c.x * c.x);
    let izz = s[4] + s[5] - mass * (c.x * c.x + c.y * c.y);
    let ixy = -(s[7] - mass * c.x * c.y);
    let iyz = -(s[8] - mass * c.y * c.z);
    let ixz = -(s[9] - mass * c.z * c.x);
    let inertia = Matrix3::new(ixx, ixy, ixz, ixy, iyy, iyz, ixz, iyz, izz);
    MassProperties { mass, center: c, inertia }
}

/// Eberly's per-coordinate subexpressions f1, f2, f3, g0, g1, g2 of one triangle.
fn subexpressions(w0: f64, w1: f64, w2: f64) -> (f64, f64, f64, f64, f64, f64) {
    let temp0 = w0 + w1;
    let f1 = temp0 + w2;
    let temp1 = w0 * w0;
    let temp2 = temp1 + w1 * temp0;
    let f2 = temp2 + w2 * f1;
    let f3 = w0 * temp1 + w1 * temp2 + w2 * f2;
    let g0 = f2 + w0 * (f1 + w0);
    let g1 = f2 + w1 * (f1 + w1);
    let g2 = f2 + w2 * (f1 + w2);
    (f1, f2, f3, g0, g1, g2)
}
