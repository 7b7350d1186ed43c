//! Analytic colliders: signed distance and outward unit normal, generic over the AD scalar so the
//! contact kernels get exact derivatives (the normal's derivative is the "sliding basis
//! derivative" of 001).

use super::vec3::{Scalar, V3, abs, konst, mat_mul, norm, scale, sub};
use crate::model::motion::Motion;
use nalgebra::{Matrix3, Vector3};

#[derive(Debug, Clone, PartialEq)]
pub enum Shape {
    /// Half-space below the local xy-plane; normal +z.
    Plane,
    Box {
        half: [f64; 3],
    },
    Sphere {
        radius: f64,
    },
    /// Capped cylinder along local z.
    Cylinder {
        radius: f64,
        half_length: f64,
    },
}

#[derive(Debug, Clone)]
pub struct Collider {
    pub name: String,
    pub material: usize,
    pub shape: Shape,
    /// Local-to-world rotation at t = 0.
    pub rotation: Matrix3<f64>,
    /// Position at t = 0.
    pub position: Vector3<f64>,
    /// Scripted motion of the whole collider (its origin and axes follow it).
    pub motion: Motion,
}

/// Where a collider is at one time: its origin and its local-to-world rotation.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Placement {
    pub center: Vector3<f64>,
    pub rotation: Matrix3<f64>,
}

impl Placement {
    /// Where an object placed at `position` with `rotation` at t = 0 is at time `t` under
    /// `motion` (its origin and axes follow it).
    pub fn of(position: &Vector3<f64>, rotation: &Matrix3<f64>, motion: &Motion, t: f64) -> Placement {
        let center = motion.point(position, t);
        let rotation =
            if motion.rotates() { motion.rotation(t).to_rotation_matrix().into_inner() * rotation } else { *rotation };
        Placement { center, rotation }
    }
}

/// A triangle-mesh collider: its mesh in its own frame, placed and moved as the analytic
/// colliders are, and optionally deforming by a per-vertex animation. `Smooth` makes an MLS field
/// of it; the nodal pipelines (`Penalty`, `Nonsmooth`) carry its vertices as prescribed nodes,
/// so that its triangles take part in vertex–triangle contact as another body's would, with
/// their prescribed velocities in the friction terms.
#[derive(Debug, Clone)]
pub struct MeshCollider {
    pub name: String,
    pub material: usize,
    pub vertices: Vec<Vector3<f64>>,
    pub triangles: Vec<[usize; 3]>,
    pub rotation: Matrix3<f64>,
    pub position: Vector3<f64>,
    pub motion: Motion,
    /// Per-vertex animation in the collider's frame (`vertices` is its first frame), under the
    /// placement's rigid motion.
    pub animation: Option<std::sync::Arc<crate::model::animation::VertexAnimation>>,
    /// The global nodes carrying its vertices in the nodal pipelines (empty in `Smooth`).
    pub nodes: std::ops::Range<usize>,
    /// Its triangles over those nodes (empty in `Smooth`).
    pub node_triangles: Vec<[usize; 3]>,
    /// Matchstick structure in its own frame.
    pub structure: Option<crate::model::Structure>,
    /// Its checked surface in its own frame (the first frame of an animated one), where rigid
    /// bodies meet it (`Nonsmooth` with rigid bodies; `None` otherwise).
    pub surface: Option<std::sync::Arc<crate::rigid::SurfaceMesh>>,
}

impl MeshCollider {
    pub fn placement(&self, t: f64) -> Placement {
        Placement::of(&self.position, &self.rotation, &self.motion, t)
    }

    /// Its structure direction (world axes, unnormalised) at world point `x` and time `t`.
    pub fn structure_at(&self, x: &Vector3<f64>, t: f64) -> Option<Vector3<f64>> {
        self.structure.as_ref()?.direction_in(&self.placement(t), x)
    }

    /// Its vertices in world coordinates at time `t` (animated, then placed).
    pub fn world_vertices(&self, t: f64, work: &mut Vec<Vector3<f64>>) -> Vec<Vector3<f64>> {
        posed(&self.vertices, self.animation.as_deref(), &self.placement(t), t, work)
    }
}

/// World positions of a mesh whose own-frame vertices are `local`, or `animation`'s at time `t`
/// when it has one (`work` holds them), placed at `at`.
pub fn posed(
    local: &[Vector3<f64>],
    animation: Option<&crate::model::animation::VertexAnimation>,
    at: &Placement,
    t: f64,
    work: &mut Vec<Vector3<f64>>,
) -> Vec<Vector3<f64>> {
    let local = match animation {
        Some(a) => {
            a.positions(t, work);
            &work[..]
        }
        None => local,
    };
    local.iter().map(|x| at.center + at.rotation * x).collect()
}

impl Collider {
    /// The collider's placement at time `t`.
    pub fn placement(&self, t: f64) -> Placement {
        Placement::of(&self.position, &self.rotation, &self.motion, t)
    }

    /// Signed distance `d` (positive outside) and outward unit normal `n = grad d` at world point
    /// `x`, for the collider at placement `at`.
    pub fn signed_distance<T: Scalar>(&self, at: &Placement, x: V3<T>) -> (T, V3<T>) {
        let c = at.center;
        let p = mat_mul(&at.rotation.transpose(), sub(x, konst([c.x, c.y, c.z])));
        let (d, n_local) = local_sdf(&self.shape, p);
        (d, mat_mul(&at.rotation, n_local))
    }

    /// Distance bound used by broad-phase culling: every point farther than this from `center`
    /// has a gap larger than `r - bound`; `None` for unbounded shapes.
    pub fn bounding_radius(&self) -> Option<f64> {
        match &self.shape {
            Shape::Plane => None,
            Shape::Box { half } => Some(Vector3::from(*half).norm()),
            Shape::Sphere { radius } => Some(*radius),
            Shape::Cylinder { radius, half_length } => Some(radius.hypot(*half_length)),
        }
    }
}

fn sign<T: Scalar>(t: T) -> f64 {
    if t.re() < 0.0 { -1.0 } else { 1.0 }
}

/// Signed distance and outward unit normal of `shape` at point `p` of its own frame.
pub fn local_sdf<T: Scalar>(shape: &Shape, p: V3<T>) -> (T, V3<T>) {
    let zero = T::from(0.0);
    match shape {
        Shape::Plane => (p[2], konst([0.0, 0.0, 1.0])),
        Shape::Sphere { radius } => {
            let r = norm(p);
            if r.re() == 0.0 {
                // The center: every direction is a normal; pick +z (measure-zero case).
                (T::from(-*radius), konst([0.0, 0.0, 1.0]))
            } else {
                (r - *radius, scale(p, r.recip()))
            }
        }
        Shape::Box { half } => {
            let q = [abs(p[0]) - half[0], abs(p[1]) - half[1], abs(p[2]) - half[2]];
            if q.iter().all(|qi| qi.re() <= 0.0) {
                // Inside: distance to the nearest face.
                let i = (0..3).max_by(|&a, &b| q[a].re().total_cmp(&q[b].re())).unwrap_or(0);
                let mut n = [zero; 3];
                n[i] = T::from(sign(p[i]));
                (q[i], n)
            } else {
                let m = q.map(|qi| if qi.re() > 0.0 { qi } else { zero });
                let d = norm(m);
                let n = [m[0] * sign(p[0]), m[1] * sign(p[1]), m[2] * sign(p[2])];
                (d, scale(n, d.recip()))
            }
        }
        Shape::Cylinder { radius, half_length } => {
            let rho2 = p[0] * p[0] + p[1] * p[1];
            let (rho, radial) = if rho2.re() > 0.0 {
                let rho = rho2.sqrt();
                (rho, [p[0] / rho, p[1] / rho, zero])
            } else {
                (zero, konst([1.0, 0.0, 0.0]))
            };
            let axial = konst([0.0, 0.0, sign(p[2])]);
            let qr = rho - *radius;
            let qz = abs(p[2]) - *half_length;
            if qr.re() <= 0.0 && qz.re() <= 0.0 {
                if qr.re() > qz.re() { (qr, radial) } else { (qz, axial) }
            } else {
                let mr = if qr.re() > 0.0 { qr } else { zero };
                let mz = if qz.re() > 0.0 { qz } else { zero };
                let d = (mr * mr + mz * mz).sqrt();
                let n = [radial[0] * mr + axial[0] * mz, radial[1] * mr + axial[1] * mz, axial[2] * mz];
                (d, scale(n, d.recip()))
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use nalgebra::Rotation3;
    use nalgebra::SVector;
    use num_dual::{DualSVec64, jacobian};

    fn collider(shape: Shape) -> Collider {
        Collider {
            name: "c".into(),
            material: 0,
            shape,
            rotation: *Rotation3::from_euler_angles(0.3, -0.2, 0.7).matrix(),
            position: Vector3::new(0.1, -0.2, 0.3),
            motion: Motion::Fixed,
        }
    }

    /// The normal must be the gradient of the distance (checked by AD of d) and unit length,
    /// at points outside and inside, for every shape.
    #[test]
    fn normal_is_unit_gradient_of_distance() {
        let shapes = [
            Shape::Plane,
            Shape::Sphere { radius: 0.5 },
            Shape::Box { half: [0.3, 0.4, 0.5] },
            Shape::Cylinder { radius: 0.4, half_length: 0.6 },
        ];
        let pts = [[0.9, 0.1, 0.2], [0.15, -0.1, 0.35], [-0.5, 0.6, 1.2], [0.3, -0.6, -0.4], [0.2, 0.1, 0.9]];
        for s in shapes {
            let c = collider(s.clone());
            for p in pts {
                let x = SVector::<f64, 3>::from(p);
                let (d, g) = jacobian(
                    |x: SVector<DualSVec64<3>, 3>| {
                        let (d, _) = c.signed_distance(&c.placement(0.0), [x[0], x[1], x[2]]);
                        SVector::<_, 1>::from([d])
                    },
                    &x,
                );
                let (_, n) = c.signed_distance(&c.placement(0.0), p);
                // AD is exact up to rounding; 1e-12 covers the few operations involved.
                for k in 0..3 {
                    assert!((g[(0, k)] - n[k]).abs() < 1e-12, "{s:?} at {p:?}: grad {g} vs n {n:?}");
                }
                assert!((norm(n) - 1.0).abs() < 1e-12);
                let _ = d;
            }
        }
    }

    /// A turning collider carries its distance field: the material point that was at `p` at
    /// t = 0 has the same distance at time t, and the normal turns with the body.
    #[test]
    fn turning_collider_carries_its_distance_field() {
        let mut c = collider(Shape::Box { half: [0.3, 0.4, 0.5] });
        c.motion = Motion::Oscillate {
            pivot: Vector3::new(1.0, 0.0, -0.5),
            axis: nalgebra::Unit::new_normalize(Vector3::new(1.0, 2.0, 3.0)),
            amplitude: 0.8,
            period: 1.0,
        };
        let (t, p) = (0.2, Vector3::new(0.5, 0.1, 0.9));
        let (d0, n0) = c.signed_distance(&c.placement(0.0), p.into());
        let x = c.motion.point(&p, t);
        let (d, n) = c.signed_distance(&c.placement(t), x.into());
        // Same arithmetic up to one rotation each way: 1e-15 on distances of order 1.
        assert!((d - d0).abs() < 1e-15, "{d} vs {d0}");
        let turned = c.motion.rotation(t) * Vector3::from(n0);
        assert!((Vector3::from(n) - turned).norm() < 1e-15);
        // It does turn: the normal at t differs from the one at rest.
        assert!((Vector3::from(n) - Vector3::from(n0)).norm() > 0.1);
    }

    #[test]
    fn distances_of_known_points() {
        let mut c = collider(Shape::Sphere { radius: 0.5 });
        c.rotation = Matrix3::identity();
        c.position = Vector3::zeros();
        assert!((c.signed_distance(&c.placement(0.0), [0.0, 0.0, 0.8]).0 - 0.3f64).abs() < 1e-15);
        c.shape = Shape::Box { half: [1.0, 2.0, 3.0] };
        assert!((c.signed_distance(&c.placement(0.0), [0.0, 0.0, 0.5]).0 + 1.0f64).abs() < 1e-15);
        assert!((c.signed_distance(&c.placement(0.0), [2.0, 3.0, 0.0]).0 - 2f64.sqrt()).abs() < 1e-15);
        c.shape = Shape::Cylinder { radius: 1.0, half_length: 2.0 };
        assert!((c.signed_distance(&c.placement(0.0), [0.0, 1.5, 0.0]).0 - 0.5f64).abs() < 1e-15);
        assert!((c.signed_distance(&c.placement(0.0), [0.0, 0.0, 2.5]).0 - 0.5f64).abs() < 1e-15);
        assert!((c.signed_distance(&c.placement(0.0), [0.0, 0.5, 1.0]).0 + 0.5f64).abs() < 1e-15);
    }
}
