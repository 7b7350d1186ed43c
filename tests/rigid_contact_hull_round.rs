//! Spheres and capsules against boxes and convex meshes: the point–hull signed distance against
//! the box collider's analytic one, and capsule manifolds against analytic gaps.

use fricsim::contact::collider::{Collider, Shape};
use fricsim::contact::rigid::hull_round::point_hull;
use fricsim::contact::rigid::polyhedral::PosedHull;
use fricsim::contact::rigid::{ContactGeometry, collide_shapes};
use fricsim::model::motion::Motion;
use fricsim::rigid::{ConvexMesh, RigidShape};
use nalgebra::{Isometry3, Matrix3, Translation3, UnitQuaternion, Vector3};
use std::f64::consts::FRAC_PI_2;

fn pose(p: [f64; 3], q: UnitQuaternion<f64>) -> Isometry3<f64> {
    Isometry3::from_parts(Translation3::new(p[0], p[1], p[2]), q)
}

fn check(cs: &[ContactGeometry]) {
    for c in cs {
        // Orthonormal right-handed frame, unit normal first (rounding 1e-14).
        assert!((c.frame.transpose() * c.frame - Matrix3::identity()).amax() < 1e-14);
        assert!((c.frame.determinant() - 1.0).abs() < 1e-14 && (c.frame.column(0) - c.normal).norm() < 1e-15);
    }
}

#[test]
fn point_hull_distance_matches_the_analytic_box() {
    let half = Vector3::new(0.3, 0.4, 0.5);
    let q = UnitQuaternion::from_euler_angles(0.3, -0.4, 0.5);
    let center = Vector3::new(0.2, 0.1, -0.3);
    let shape = RigidShape::Box { half };
    let posed = PosedHull::new(&shape, &pose(center.into(), q)).unwrap();
    let col = Collider {
        name: "box".into(),
        material: 0,
        shape: Shape::Box { half: half.into() },
        rotation: *q.to_rotation_matrix().matrix(),
        position: center,
        motion: Motion::Fixed,
    };
    let mut k = 0u32;
    for i in -4..=4 {
        for j in -4..=4 {
            for l in -4..=4 {
                // A 9³ grid through and around the box, shifted off the symmetry planes.
                let p =
                    center + Vector3::new(i as f64 * 0.11 + 0.003, j as f64 * 0.13 - 0.002, l as f64 * 0.16 + 0.001);
                let (d, x, n) = point_hull(&posed, &p);
                let (da, na) = col.signed_distance(&col.placement(0.0), [p.x, p.y, p.z]);
                // Same distance through triangles vs the box formula: rounding 1e-14.
                assert!((d - da).abs() < 1e-14, "{p}: {d} vs {da}");
                assert!((n - Vector3::from(na)).norm() < 1e-12, "{p}: {n} vs {na:?}");
                assert!((p - d * n - x).norm() < 1e-14);
                k += 1;
            }
        }
    }
    assert_eq!(k, 729);
}

#[test]
fn sphere_against_a_box_mesh_matches_sphere_against_the_box() {
    let half = Vector3::new(0.3, 0.4, 0.5);
    let c = ConvexMesh::cuboid(&half);
    let mesh = RigidShape::ConvexMesh(ConvexMesh::new(c.vertices, c.triangles).unwrap());
    let bx = RigidShape::Box { half };
    let sphere = RigidShape::Sphere { radius: 0.2 };
    let pb = pose([0.1, 0.0, 0.2], UnitQuaternion::from_euler_angles(0.2, 0.1, -0.3));
    for p in [[0.1, 0.1, 0.85], [0.5, 0.6, 0.9], [0.45, 0.0, 0.2], [0.1, 0.1, 0.3]] {
        let pa = pose(p, UnitQuaternion::identity());
        let x = collide_shapes(&sphere, &pa, &bx, &pb, 0.5);
        let y = collide_shapes(&sphere, &pa, &mesh, &pb, 0.5);
        check(&y);
        assert_eq!(x.len(), 1);
        assert_eq!(y.len(), 1);
        // Two exact closest-point formulas: rounding 1e-14.
        assert!((x[0].gap - y[0].gap).abs() < 1e-14 && (x[0].point - y[0].point).norm() < 1e-14, "{p:?}");
    }
}

#[test]
fn capsule_on_a_box_lying_standing_overhanging_and_across_an_edge() {
    let cap = RigidShape::Capsule { radius: 0.1, half_length: 0.5 };
    let bx = RigidShape::Box { half: Vector3::new(1.0, 1.0, 0.5) };
    let id = Isometry3::identity();
    let along_x = UnitQuaternion::from_euler_angles(0.0, FRAC_PI_2, 0.0);
    // Lying flat on the top face, 1e-4 deep: two points under the ends.
    let cs = collide_shapes(&cap, &pose([0.2, 0.3, 0.6 - 1e-4], along_x), &bx, &id, 1e-3);
    check(&cs);
    assert_eq!(cs.len(), 2);
    // The golden-section search is not involved in the face points: rounding 1e-15.
    assert!(cs.iter().all(|c| (c.gap + 1e-4).abs() < 1e-15 && (c.normal - Vector3::z()).norm() < 1e-15));
    let mut xs: Vec<f64> = cs.iter().map(|c| c.point.x).collect();
    xs.sort_by(f64::total_cmp);
    assert!((xs[0] + 0.3).abs() < 1e-15 && (xs[1] - 0.7).abs() < 1e-15);
    // Overhanging the edge x = 1: the manifold is clipped to the face, x in [0.7, 1].
    let cs = collide_shapes(&cap, &pose([1.2, 0.0, 0.6], along_x), &bx, &id, 1e-3);
    check(&cs);
    let mut xs: Vec<f64> = cs.iter().map(|c| c.point.x).collect();
    xs.sort_by(f64::total_cmp);
    assert_eq!(xs.len(), 2);
    assert!((xs[0] - 0.7).abs() < 1e-14 && (xs[1] - 1.0).abs() < 1e-14, "{xs:?}");
    // Standing on an end: one point under it; the reverse argument order flips the normal.
    let cs = collide_shapes(&cap, &pose([0.0, 0.0, 1.09], UnitQuaternion::identity()), &bx, &id, 1e-3);
    assert_eq!(cs.len(), 1);
    assert!((cs[0].gap + 0.01).abs() < 1e-14 && (cs[0].point - Vector3::new(0.0, 0.0, 0.495)).norm() < 1e-14);
    let back = collide_shapes(&bx, &id, &cap, &pose([0.0, 0.0, 1.09], UnitQuaternion::identity()), 1e-3);
    assert!((back[0].normal + Vector3::z()).norm() < 1e-15);
    // Tilted 0.3 rad and crossing the edge x = 1, z = 0.5 (along y) from outside the box: the
    // closest point is on the edge. Axis (cos 0.3, 0, -sin 0.3) through (1 + 0.12 sin 0.3 ... ):
    // put the axis at distance 0.095 from the edge along the normal (sin 0.3, 0, cos 0.3).
    let (s, c) = 0.3f64.sin_cos();
    let nrm = Vector3::new(s, 0.0, c);
    let center = Vector3::new(1.0, 0.0, 0.5) + 0.095 * nrm;
    let tilt = UnitQuaternion::from_euler_angles(0.0, FRAC_PI_2 + 0.3, 0.0);
    assert!((tilt * Vector3::z()).dot(&nrm).abs() < 1e-15);
    let cs = collide_shapes(&cap, &pose(center.into(), tilt), &bx, &id, 1e-3);
    check(&cs);
    assert_eq!(cs.len(), 1, "{cs:#?}");
    // Golden-section minimum of a smooth function: the parameter is found to ~1e-8 (square root
    // of rounding), the gap to its square, 1e-12; the normal to 1e-7.
    assert!((cs[0].gap + 0.005).abs() < 1e-12, "{}", cs[0].gap);
    assert!((cs[0].normal - nrm).norm() < 1e-7);
}

#[test]
fn capsule_against_a_cylinder_mesh() {
    let (v, t) = RigidShape::Cylinder { radius: 0.5, half_length: 0.2 }.tessellate(32);
    let cyl = RigidShape::ConvexMesh(ConvexMesh::new(v, t).unwrap());
    let cap = RigidShape::Capsule { radius: 0.05, half_length: 0.2 };
    // Lying on the top cap: two points, gap 0 to rounding.
    let q = UnitQuaternion::from_euler_angles(FRAC_PI_2, 0.0, 0.3);
    let cs = collide_shapes(&cap, &pose([0.1, 0.0, 0.25], q), &cyl, &Isometry3::identity(), 1e-3);
    check(&cs);
    assert_eq!(cs.len(), 2);
    assert!(cs.iter().all(|c| c.gap.abs() < 1e-14));
}
