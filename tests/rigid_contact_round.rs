//! Contacts of spheres, capsules and cylinders against analytic distances; rigid bodies against the
//! analytic colliders; contact Jacobians.

use fricsim::contact::collider::{Collider, Shape};
use fricsim::contact::rigid::{
    ContactGeometry, Participant, collide_bodies, collide_body_collider, collide_shape_plane, collide_shapes,
};
use fricsim::model::motion::Motion;
use fricsim::rigid::{RigidBody, RigidShape};
use nalgebra::{Isometry3, Matrix3, Translation3, UnitQuaternion, Vector3};

fn pose(p: [f64; 3], q: UnitQuaternion<f64>) -> Isometry3<f64> {
    Isometry3::from_parts(Translation3::new(p[0], p[1], p[2]), q)
}

/// Frame orthonormal and right-handed with the unit normal first (rounding: 1e-14).
fn check(cs: &[ContactGeometry]) {
    for c in cs {
        let f = c.frame;
        assert!((f.transpose() * f - Matrix3::identity()).amax() < 1e-14);
        assert!((f.determinant() - 1.0).abs() < 1e-14);
        assert!((f.column(0) - c.normal).norm() < 1e-15 && (c.normal.norm() - 1.0).abs() < 1e-14);
    }
}

const SPHERE: RigidShape = RigidShape::Sphere { radius: 0.25 };

#[test]
fn sphere_plane_and_sphere_sphere_match_distances() {
    let n = Vector3::new(0.0, 0.6, 0.8);
    let p0 = Vector3::new(0.0, 0.0, 0.1);
    let c = Vector3::new(0.3, -0.2, 0.5);
    let d = n.dot(&(c - p0)) - 0.25;
    let cs = collide_shape_plane(&SPHERE, &pose(c.into(), UnitQuaternion::identity()), &p0, &n, d + 1e-3);
    check(&cs);
    assert_eq!(cs.len(), 1);
    // Rounding of a dot product: 1e-15.
    assert!((cs[0].gap - d).abs() < 1e-15 && cs[0].normal == n);
    assert!((cs[0].point_on_a() - (c - 0.25 * n)).norm() < 1e-15);
    assert!(collide_shape_plane(&SPHERE, &pose(c.into(), UnitQuaternion::identity()), &p0, &n, d - 1e-3).is_empty());

    let other = RigidShape::Sphere { radius: 0.4 };
    let (ca, cb) = (Vector3::new(0.1, 0.2, 0.3), Vector3::new(0.5, -0.1, 0.2));
    let dist = (ca - cb).norm();
    let cs = collide_shapes(
        &SPHERE,
        &pose(ca.into(), UnitQuaternion::identity()),
        &other,
        &pose(cb.into(), UnitQuaternion::identity()),
        0.1,
    );
    check(&cs);
    assert!((cs[0].gap - (dist - 0.65)).abs() < 1e-15);
    assert!((cs[0].normal - (ca - cb) / dist).norm() < 1e-15);
}

#[test]
fn capsules_against_plane_sphere_and_capsule() {
    let cap = RigidShape::Capsule { radius: 0.1, half_length: 0.5 };
    // Lying on the plane 1e-4 deep: two points under the end spheres.
    let lying = pose([0.0, 0.0, 0.1 - 1e-4], UnitQuaternion::from_euler_angles(0.0, std::f64::consts::FRAC_PI_2, 0.0));
    let cs = collide_shape_plane(&cap, &lying, &Vector3::zeros(), &Vector3::z(), 1e-3);
    check(&cs);
    assert_eq!(cs.len(), 2);
    // Trigonometry of the 90 deg rotation rounds at 1e-16.
    assert!(cs.iter().all(|c| (c.gap + 1e-4).abs() < 1e-15 && (c.point.x.abs() - 0.5).abs() < 1e-15));
    // Tilted by 0.2 rad: only the lower end is within the margin.
    let tilted = pose(
        [0.0, 0.0, 0.5 * 0.2f64.sin() + 0.1],
        UnitQuaternion::from_euler_angles(0.0, std::f64::consts::FRAC_PI_2 - 0.2, 0.0),
    );
    assert_eq!(collide_shape_plane(&cap, &tilted, &Vector3::zeros(), &Vector3::z(), 1e-3).len(), 1);

    // Sphere beside the capsule's segment and beyond its end: distance to the segment minus radii.
    let id = UnitQuaternion::identity();
    for (c, dist) in [([0.3, 0.0, 0.2], 0.3), ([0.0, 0.3, 0.9], 0.5)] {
        let cs = collide_shapes(&SPHERE, &pose(c, id), &cap, &Isometry3::identity(), 1.0);
        check(&cs);
        assert!((cs[0].gap - (dist - 0.35)).abs() < 1e-15, "{}", cs[0].gap);
        let back = collide_shapes(&cap, &Isometry3::identity(), &SPHERE, &pose(c, id), 1.0);
        assert!((back[0].normal + cs[0].normal).norm() < 1e-15 && back[0].gap == cs[0].gap);
    }

    // Crossing capsules (axes z and x, 0.3 apart in y): one point, gap 0.3 - 0.2.
    let cross = pose([0.0, 0.3, 0.1], UnitQuaternion::from_euler_angles(0.0, std::f64::consts::FRAC_PI_2, 0.0));
    let cs = collide_shapes(&cap, &cross, &cap, &Isometry3::identity(), 0.2);
    check(&cs);
    assert_eq!(cs.len(), 1);
    assert!((cs[0].gap - 0.1).abs() < 1e-15 && (cs[0].point - Vector3::new(0.0, 0.15, 0.1)).norm() < 1e-15);
    // Parallel, overlapping over z in [-0.2, 0.5]: two points at the ends of the overlap.
    let side = pose([0.19, 0.0, 0.3], id);
    let cs = collide_shapes(&cap, &side, &cap, &Isometry3::identity(), 1e-3);
    check(&cs);
    assert_eq!(cs.len(), 2);
    // 1e-15: the difference of the centers rounds at that level.
    assert!(cs.iter().all(|c| (c.gap + 0.01).abs() < 1e-15 && (c.normal - Vector3::x()).norm() < 1e-15));
    let mut zs: Vec<f64> = cs.iter().map(|c| c.point.z).collect();
    zs.sort_by(f64::total_cmp);
    assert!((zs[0] + 0.2).abs() < 1e-15 && (zs[1] - 0.5).abs() < 1e-15);
}

#[test]
fn sphere_against_box_and_cylinder() {
    let q = UnitQuaternion::from_euler_angles(0.3, -0.4, 0.5);
    let pb = pose([0.2, 0.1, -0.3], q);
    let half = Vector3::new(0.3, 0.4, 0.5);
    let bx = RigidShape::Box { half };
    // Near the corner (+,+,+), and inside near the +y face.
    let outside = pb * nalgebra::Point3::new(0.4, 0.5, 0.6);
    let cs = collide_shapes(&SPHERE, &pose(outside.coords.into(), q), &bx, &pb, 1.0);
    check(&cs);
    // Distance to the corner is |(0.1, 0.1, 0.1)|; rounding of the pose transform 1e-15.
    assert!((cs[0].gap - (0.03f64.sqrt() - 0.25)).abs() < 1e-15);
    let inside = pb * nalgebra::Point3::new(0.0, 0.35, 0.1);
    let cs = collide_shapes(&bx, &pb, &SPHERE, &pose(inside.coords.into(), q), 1.0);
    assert!((cs[0].gap - (-0.05 - 0.25)).abs() < 1e-15 && (cs[0].normal + q * Vector3::y()).norm() < 1e-15);

    let cyl = RigidShape::Cylinder { radius: 0.3, half_length: 0.5 };
    for (p, d) in [
        ([0.5, 0.0, 0.2], 0.2),
        ([0.0, 0.1, 0.7], 0.2),
        ([0.4, 0.0, 0.8], 0.1f64.hypot(0.3)),
        ([0.25, 0.0, 0.0], -0.05),
    ] {
        let x = pb * nalgebra::Point3::from(Vector3::from(p));
        let cs = collide_shapes(&SPHERE, &pose(x.coords.into(), q), &cyl, &pb, 1.0);
        check(&cs);
        assert!((cs[0].gap - (d - 0.25)).abs() < 1e-14, "{p:?}: {}", cs[0].gap);
    }
}

#[test]
fn cylinder_on_plane_lying_and_standing() {
    let cyl = RigidShape::Cylinder { radius: 0.3, half_length: 0.5 };
    let lying = pose([0.0, 0.0, 0.3], UnitQuaternion::from_euler_angles(std::f64::consts::FRAC_PI_2, 0.0, 0.0));
    let cs = collide_shape_plane(&cyl, &lying, &Vector3::zeros(), &Vector3::z(), 1e-3);
    check(&cs);
    // One line of contact, its two ends; the 90 deg rotation rounds at 1e-16.
    assert_eq!(cs.len(), 2);
    assert!(cs.iter().all(|c| c.gap.abs() < 1e-15));
    let standing = pose([0.0, 0.0, 0.5], UnitQuaternion::identity());
    let cs = collide_shape_plane(&cyl, &standing, &Vector3::zeros(), &Vector3::z(), 1e-3);
    assert_eq!(cs.len(), 4);
    assert!(cs.iter().all(|c| c.gap.abs() < 1e-15 && ((c.point.xy().norm()) - 0.3).abs() < 1e-15));
}

fn collider(shape: Shape, position: Vector3<f64>) -> Collider {
    Collider { name: "c".into(), material: 0, shape, rotation: Matrix3::identity(), position, motion: Motion::Fixed }
}

#[test]
fn rigid_bodies_against_analytic_colliders() {
    let id = UnitQuaternion::identity();
    let body = |shape: RigidShape, z: f64| RigidBody::from_density(shape, 1000.0, Vector3::new(0.0, 0.0, z), id).0;
    let bodies = vec![
        body(RigidShape::Box { half: Vector3::new(0.2, 0.2, 0.2) }, 0.2),
        body(SPHERE, 0.24),
        body(RigidShape::Capsule { radius: 0.1, half_length: 0.3 }, 0.39),
    ];
    let colliders = vec![
        collider(Shape::Plane, Vector3::zeros()),
        collider(Shape::Box { half: [1.0, 1.0, 0.5] }, Vector3::new(0.0, 0.0, -0.5)),
        collider(Shape::Cylinder { radius: 1.0, half_length: 0.5 }, Vector3::new(0.0, 0.0, -0.5)),
    ];
    let margin = 1e-3;
    let count = |i: usize, k: usize| collide_body_collider(&bodies, i, &colliders, k, 0.0, margin).len();
    assert_eq!(count(0, 0), 4);
    assert_eq!(count(0, 1), 4);
    assert_eq!(count(1, 0), 1);
    assert_eq!(count(1, 1), 1);
    assert_eq!(count(1, 2), 1);
    assert_eq!(count(2, 0), 1);
    assert_eq!(count(2, 1), 1);
    // The box on the cylinder's flat top: its 4 bottom corners.
    assert_eq!(count(0, 2), 4);
    let cs = collide_body_collider(&bodies, 1, &colliders, 2, 0.0, margin);
    assert_eq!((cs[0].a, cs[0].b), (Participant::Body(1), Participant::Collider(2)));
    // The sphere is 0.01 into the cylinder's top (rounding 1e-15).
    assert!((cs[0].gap + 0.01).abs() < 1e-15);
}

#[test]
fn contact_jacobians_give_relative_velocity_in_the_frame() {
    let q = UnitQuaternion::from_euler_angles(0.1, 0.2, 0.3);
    let mut a = RigidBody::from_density(SPHERE, 500.0, Vector3::new(0.0, 0.0, 0.45), q).0;
    let mut b =
        RigidBody::from_density(RigidShape::Box { half: Vector3::new(0.5, 0.5, 0.2) }, 500.0, Vector3::zeros(), q).0;
    a.linear_velocity = Vector3::new(0.1, -0.3, -1.0);
    a.angular_velocity = Vector3::new(2.0, 0.5, -1.0);
    b.linear_velocity = Vector3::new(-0.2, 0.1, 0.3);
    b.angular_velocity = Vector3::new(0.3, -0.7, 0.2);
    let bodies = vec![a, b];
    let cs = collide_bodies(&bodies, 0, 1, 0.1);
    assert_eq!(cs.len(), 1);
    let c = cs[0];
    let (ja, jb) = c.jacobians(&bodies);
    let u = ja.unwrap() * bodies[0].velocity() + jb.unwrap() * bodies[1].velocity();
    let rel = bodies[0].point_velocity(&c.point) - bodies[1].point_velocity(&c.point);
    // Same products in another order: rounding 1e-15.
    assert!((u - c.frame.transpose() * rel).norm() < 1e-15);
    assert!((u[0] - rel.dot(&c.normal)).abs() < 1e-15);
}

/// A cylinder lying on a box (a plank) touches along a line: exactly two points at its ends with
/// zero gap at every roll angle (the polygonal prism alone would bump by up to 0.0048 r); standing,
/// four rim points.
#[test]
fn cylinder_on_a_box_is_exact_while_rolling() {
    let cyl = RigidShape::Cylinder { radius: 0.3, half_length: 0.5 };
    let plank = RigidShape::Box { half: Vector3::new(2.0, 1.0, 0.1) };
    let id = Isometry3::identity();
    for k in 0..16 {
        // Axis along y, rolled about it by an angle that is not a multiple of the facet angle.
        let roll = 0.137 * k as f64;
        let q = UnitQuaternion::from_euler_angles(std::f64::consts::FRAC_PI_2, 0.0, 0.0)
            * UnitQuaternion::from_euler_angles(0.0, 0.0, roll);
        let p = pose([0.4, 0.1, 0.4], q);
        for (a_first, cs) in
            [(true, collide_shapes(&cyl, &p, &plank, &id, 1e-3)), (false, collide_shapes(&plank, &id, &cyl, &p, 1e-3))]
        {
            check(&cs);
            assert_eq!(cs.len(), 2, "roll {roll}: {cs:#?}");
            let sign: f64 = if a_first { 1.0 } else { -1.0 };
            for c in &cs {
                // Exact cylinder–plane points: rounding of the rotations only (1e-15).
                assert!(c.gap.abs() < 1e-15, "roll {roll}: gap {}", c.gap);
                assert!((c.normal - sign * Vector3::z()).norm() < 1e-15);
                assert!((c.point.x - 0.4).abs() < 1e-15 && ((c.point.y - 0.1).abs() - 0.5).abs() < 1e-15);
            }
        }
    }
    let cs = collide_shapes(&cyl, &pose([0.0, 0.0, 0.6], UnitQuaternion::identity()), &plank, &id, 1e-3);
    check(&cs);
    assert_eq!(cs.len(), 4);
    assert!(cs.iter().all(|c| c.gap.abs() < 1e-15 && (c.point.xy().norm() - 0.3).abs() < 1e-15));
}

/// Crossed lying cylinders touch side on side: the polygonal prisms give one point whose gap is
/// the analytic one (axis distance minus both radii) within the inscribed polygon's sag, 2 x
/// 0.0048 r.
#[test]
fn crossed_cylinders_within_the_polygon_sag() {
    let r = 0.2;
    let cyl = RigidShape::Cylinder { radius: r, half_length: 0.6 };
    let along_x = UnitQuaternion::from_euler_angles(0.0, std::f64::consts::FRAC_PI_2, 0.0);
    let along_y = UnitQuaternion::from_euler_angles(std::f64::consts::FRAC_PI_2, 0.0, 0.0);
    let sag = 2.0 * r * (1.0 - (std::f64::consts::PI / 32.0).cos());
    for (z, roll) in [(0.395, 0.0), (0.39, 0.05), (0.41, 0.3)] {
        let pa = pose([0.0, 0.0, z], along_x * UnitQuaternion::from_euler_angles(0.0, 0.0, roll));
        let cs = collide_shapes(&cyl, &pa, &cyl, &pose([0.0, 0.0, 0.0], along_y), 0.02);
        check(&cs);
        assert!(!cs.is_empty(), "{z}");
        let gap = cs.iter().map(|c| c.gap).fold(f64::INFINITY, f64::min);
        // Inscribed polygons: the reported gap is at least the true one and at most one sag more
        // per body (plus rounding 1e-12).
        assert!(gap >= z - 2.0 * r - 1e-12 && gap <= z - 2.0 * r + sag + 1e-12, "{z}: {gap} vs {}", z - 2.0 * r);
        assert!(cs.iter().all(|c| c.normal.z > 0.99));
    }
}
