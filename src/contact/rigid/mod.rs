//! Contact generation for rigid bodies: rigid–rigid pairs and rigid bodies against the analytic
//! colliders.
//!
//! Conventions, for every pair `(A, B)`: the normal points from B to A; the gap is the signed
//! distance along it (negative = penetration), `gap = (p_A - p_B) · n` for the witness points
//! `p_A` on A's surface and `p_B` on B's; the reported point is their midpoint, so both bodies see
//! the same lever arm to first order. Contacts are reported while `gap < margin`. The frame is
//! `(n, t1, t2)`, right-handed and orthonormal, `t1` chosen deterministically from `n` alone (see
//! [`crate::rigid::shape::tangent_basis`]).
//!
//! Every pair of shapes is handled: sphere–sphere, sphere–capsule, capsule–capsule, sphere–box,
//! sphere–cylinder and cylinder–plane exactly; sphere and capsule against boxes and convex meshes
//! through the exact point–hull distance ([`hull_round`]); boxes and convex meshes against each
//! other by SAT with face clipping ([`polyhedral`]). A cylinder against a box, mesh, capsule or
//! cylinder uses its inscribed 32-sided prism, made exact when the contact face is a flat face of
//! the other body (see [`polyhedral::cylinder_hull`]). A non-convex mesh meets every shape by
//! sampling both skeletons against the other's exact signed distance ([`sampled`]). The dispatch
//! matches every pair with no
//! catch-all, so a shape added later fails to compile until its contacts exist, rather than
//! producing no contacts in silence.

pub mod hull_round;
pub mod mesh_collider;
pub mod polyhedral;
pub mod round;
pub mod sampled;

use crate::contact::collider::{Collider, Shape};
use crate::rigid::shape::tangent_basis;
use crate::rigid::{RigidBody, RigidShape};
use nalgebra::{Isometry3, Matrix3, SMatrix, Translation3, UnitQuaternion, Vector3};

/// What is on one side of a contact.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Participant {
    /// Index into the rigid bodies.
    Body(usize),
    /// Index into the colliders (not unknowns: their motion enters as a known velocity).
    Collider(usize),
    /// Index into the mesh colliders (known velocities too, their animation's included).
    Mesh(usize),
}

/// The geometry of one contact point, before the participants are attached.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ContactGeometry {
    /// World point: midpoint of the two witness points.
    pub point: Vector3<f64>,
    /// Unit normal from B to A.
    pub normal: Vector3<f64>,
    /// Signed distance along the normal; negative = penetration.
    pub gap: f64,
    /// Columns `(n, t1, t2)`: right-handed orthonormal contact frame, normal first.
    pub frame: Matrix3<f64>,
}

impl ContactGeometry {
    /// The contact between witness points `on_a` (on A's surface) and `on_b` (on B's) with unit
    /// normal `normal` from B to A.
    pub fn from_witnesses(on_a: Vector3<f64>, on_b: Vector3<f64>, normal: Vector3<f64>) -> ContactGeometry {
        ContactGeometry { point: 0.5 * (on_a + on_b), normal, gap: (on_a - on_b).dot(&normal), frame: frame(&normal) }
    }

    /// The same contact seen with A and B swapped.
    pub fn flipped(&self) -> ContactGeometry {
        ContactGeometry { point: self.point, normal: -self.normal, gap: self.gap, frame: frame(&-self.normal) }
    }

    /// Witness point on A's surface.
    pub fn point_on_a(&self) -> Vector3<f64> {
        self.point + 0.5 * self.gap * self.normal
    }

    /// Witness point on B's surface.
    pub fn point_on_b(&self) -> Vector3<f64> {
        self.point - 0.5 * self.gap * self.normal
    }
}

/// The contact frame `(n, t1, t2)` as matrix columns.
pub fn frame(n: &Vector3<f64>) -> Matrix3<f64> {
    let (t1, t2) = tangent_basis(n);
    Matrix3::from_columns(&[*n, t1, t2])
}

/// A contact between two participants, at least one of them a rigid body.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RigidContact {
    pub a: Participant,
    pub b: Participant,
    pub point: Vector3<f64>,
    /// Unit normal from B to A.
    pub normal: Vector3<f64>,
    pub gap: f64,
    /// Columns `(n, t1, t2)`.
    pub frame: Matrix3<f64>,
}

impl RigidContact {
    pub fn new(a: Participant, b: Participant, g: &ContactGeometry) -> RigidContact {
        RigidContact { a, b, point: g.point, normal: g.normal, gap: g.gap, frame: g.frame }
    }

    /// Jacobian blocks of the relative velocity of A with respect to B at the contact point, in the
    /// contact frame (`u = Fᵀ (v_A(p) - v_B(p))`, normal component first): the 3x6 block on A's
    /// velocity entries and the one on B's, `None` for a collider (whose velocity is known).
    pub fn jacobians(&self, bodies: &[RigidBody]) -> (Option<SMatrix<f64, 3, 6>>, Option<SMatrix<f64, 3, 6>>) {
        let ft = self.frame.transpose();
        let block = |p: Participant, sign: f64| match p {
            Participant::Body(i) => Some(ft * bodies[i].point_jacobian(&self.point) * sign),
            Participant::Collider(_) | Participant::Mesh(_) => None,
        };
        (block(self.a, 1.0), block(self.b, -1.0))
    }
}

/// Contacts between shape `a` at pose `pa` and shape `b` at pose `pb` (body frame to world), with
/// gap below `margin`.
pub fn collide_shapes(
    a: &RigidShape,
    pa: &Isometry3<f64>,
    b: &RigidShape,
    pb: &Isometry3<f64>,
    margin: f64,
) -> Vec<ContactGeometry> {
    use RigidShape as S;
    // Bounding spheres about the body origins farther apart than the margin: nothing to do (the
    // cheap test that keeps far pairs from building hulls when no broad phase ran).
    if (pa.translation.vector - pb.translation.vector).norm() > a.bounding_radius() + b.bounding_radius() + margin {
        return Vec::new();
    }
    let swapped = |v: Vec<ContactGeometry>| v.iter().map(|c| c.flipped()).collect();
    let center = |p: &Isometry3<f64>| p.translation.vector;
    let axis = |p: &Isometry3<f64>| p.rotation * Vector3::z();
    match (a, b) {
        (S::NonConvex(_), _) | (_, S::NonConvex(_)) => sampled::collide(a, pa, b, pb, margin),
        (S::Sphere { radius: ra }, S::Sphere { radius: rb }) => {
            round::sphere_sphere(&center(pa), *ra, &center(pb), *rb, margin).into_iter().collect()
        }
        (S::Sphere { radius }, S::Capsule { radius: rc, half_length }) => {
            round::sphere_capsule(&center(pa), *radius, &center(pb), &axis(pb), *half_length, *rc, margin)
                .into_iter()
                .collect()
        }
        (S::Capsule { .. }, S::Sphere { .. }) => swapped(collide_shapes(b, pb, a, pa, margin)),
        (S::Capsule { radius: ra, half_length: ha }, S::Capsule { radius: rb, half_length: hb }) => {
            round::capsule_capsule((&center(pa), &axis(pa), *ha, *ra), (&center(pb), &axis(pb), *hb, *rb), margin)
        }
        (S::Sphere { radius }, S::Box { half }) => {
            round::sphere_box(&center(pa), *radius, pb, half, margin).into_iter().collect()
        }
        (S::Sphere { radius }, S::Cylinder { radius: rc, half_length }) => {
            round::sphere_cylinder(&center(pa), *radius, pb, *rc, *half_length, margin).into_iter().collect()
        }
        (S::Sphere { radius }, S::ConvexMesh(_)) => {
            let hb = polyhedral::PosedHull::new(b, pb).expect("mesh");
            hull_round::capsule_hull(&center(pa), &axis(pa), 0.0, *radius, &hb, margin)
        }
        (S::Capsule { radius, half_length }, S::Box { .. } | S::ConvexMesh(_)) => {
            let hb = polyhedral::PosedHull::new(b, pb).expect("box or mesh");
            hull_round::capsule_hull(&center(pa), &axis(pa), *half_length, *radius, &hb, margin)
        }
        (S::Capsule { radius, half_length }, S::Cylinder { radius: rc, .. }) => {
            // Against the inscribed prism, with the margin widened by its sag so that no contact
            // of the round cylinder within the margin is missed (gaps are up to the sag too large).
            let hb = polyhedral::PosedHull::new(b, pb).expect("cylinder");
            let widened = margin + polyhedral::cylinder_sag(*rc);
            hull_round::capsule_hull(&center(pa), &axis(pa), *half_length, *radius, &hb, widened)
        }
        (S::Cylinder { radius, half_length }, S::Box { .. } | S::ConvexMesh(_) | S::Cylinder { .. }) => {
            let ha = polyhedral::PosedHull::new(a, pa).expect("cylinder");
            let hb = polyhedral::PosedHull::new(b, pb).expect("box, mesh or cylinder");
            let b_is_cylinder = matches!(b, S::Cylinder { .. });
            polyhedral::cylinder_hull((*radius, *half_length, pa), &ha, &hb, b_is_cylinder, margin)
        }
        (S::Box { .. } | S::Cylinder { .. } | S::ConvexMesh(_), S::Sphere { .. })
        | (S::Box { .. } | S::ConvexMesh(_), S::Capsule { .. } | S::Cylinder { .. })
        | (S::Cylinder { .. }, S::Capsule { .. }) => swapped(collide_shapes(b, pb, a, pa, margin)),
        (S::Box { .. } | S::ConvexMesh(_), S::Box { .. } | S::ConvexMesh(_)) => {
            let ha = polyhedral::PosedHull::new(a, pa).expect("box or mesh");
            let hb = polyhedral::PosedHull::new(b, pb).expect("box or mesh");
            polyhedral::hull_hull(&ha, &hb, margin)
        }
    }
}

/// Contacts between shape `a` at pose `pa` and the half-space below the plane through `point` with
/// unit normal `normal` (B = the plane; the contact normal is the plane's).
pub fn collide_shape_plane(
    a: &RigidShape,
    pa: &Isometry3<f64>,
    point: &Vector3<f64>,
    normal: &Vector3<f64>,
    margin: f64,
) -> Vec<ContactGeometry> {
    let c = pa.translation.vector;
    let axis = pa.rotation * Vector3::z();
    match a {
        RigidShape::Sphere { radius } => round::sphere_plane(&c, *radius, point, normal, margin).into_iter().collect(),
        RigidShape::Capsule { radius, half_length } => {
            round::capsule_plane(&c, &axis, *half_length, *radius, point, normal, margin)
        }
        RigidShape::Cylinder { radius, half_length } => {
            round::cylinder_plane(pa, *radius, *half_length, point, normal, margin)
        }
        RigidShape::Box { .. } | RigidShape::ConvexMesh(_) => {
            let h = polyhedral::PosedHull::new(a, pa).expect("box or mesh");
            polyhedral::hull_plane(&h, point, normal, margin)
        }
        RigidShape::NonConvex(m) => sampled::mesh_plane(m, pa, point, normal, margin),
    }
}

/// Contacts between rigid bodies `i` (A) and `j` (B).
pub fn collide_bodies(bodies: &[RigidBody], i: usize, j: usize, margin: f64) -> Vec<RigidContact> {
    let (a, b) = (&bodies[i], &bodies[j]);
    let found = collide_shapes(&a.shape, &a.pose(), &b.shape, &b.pose(), margin);
    found.iter().map(|g| RigidContact::new(Participant::Body(i), Participant::Body(j), g)).collect()
}

/// Contacts between rigid body `i` (A) and collider `k` (B) at time `t`. A sphere meets every
/// collider through the collider's own signed distance; every other shape meets the plane through
/// [`collide_shape_plane`] and the box, sphere and cylinder colliders through [`collide_shapes`].
pub fn collide_body_collider(
    bodies: &[RigidBody],
    i: usize,
    colliders: &[Collider],
    k: usize,
    t: f64,
    margin: f64,
) -> Vec<RigidContact> {
    let (body, col) = (&bodies[i], &colliders[k]);
    let at = col.placement(t);
    let center = at.center;
    let rot = nalgebra::Rotation3::from_matrix(&at.rotation);
    let pose = Isometry3::from_parts(Translation3::from(center), UnitQuaternion::from_rotation_matrix(&rot));
    let found = match (&body.shape, &col.shape) {
        (RigidShape::Sphere { radius }, _) => {
            let c = body.position;
            let (d, n) = col.signed_distance(&at, [c.x, c.y, c.z]);
            let n = Vector3::from(n);
            round::from_signed_distance(&c, *radius, d, &n, margin).into_iter().collect()
        }
        (_, Shape::Plane) => {
            collide_shape_plane(&body.shape, &body.pose(), &center, &(at.rotation * Vector3::z()), margin)
        }
        (_, Shape::Box { half }) => {
            collide_shapes(&body.shape, &body.pose(), &RigidShape::Box { half: Vector3::from(*half) }, &pose, margin)
        }
        (_, Shape::Sphere { radius }) => {
            collide_shapes(&body.shape, &body.pose(), &RigidShape::Sphere { radius: *radius }, &pose, margin)
        }
        (_, Shape::Cylinder { radius, half_length }) => collide_shapes(
            &body.shape,
            &body.pose(),
            &RigidShape::Cylinder { radius: *radius, half_length: *half_length },
            &pose,
            margin,
        ),
    };
    found.iter().map(|g| RigidContact::new(Participant::Body(i), Participant::Collider(k), g)).collect()
}
