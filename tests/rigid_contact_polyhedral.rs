//! Contacts of boxes and convex meshes: against a plane, resting and stacked manifolds, edge–edge,
//! margins, and a convex mesh of a box behaving like the box.

use fricsim::contact::rigid::{ContactGeometry, collide_shape_plane, collide_shapes};
use fricsim::rigid::{ConvexMesh, RigidShape};
use nalgebra::{Isometry3, Matrix3, Translation3, UnitQuaternion, Vector3};
use std::f64::consts::{FRAC_PI_4, SQRT_2};

fn pose(p: [f64; 3], q: UnitQuaternion<f64>) -> Isometry3<f64> {
    Isometry3::from_parts(Translation3::new(p[0], p[1], p[2]), q)
}

fn boxed(x: f64, y: f64, z: f64) -> RigidShape {
    RigidShape::Box { half: Vector3::new(x, y, z) }
}

/// Frame orthonormal and right-handed, normal first and unit (rounding: 1e-14).
fn check(cs: &[ContactGeometry]) {
    for c in cs {
        let f = c.frame;
        assert!((f.transpose() * f - Matrix3::identity()).amax() < 1e-14, "frame {f}");
        assert!((f.determinant() - 1.0).abs() < 1e-14);
        assert!((f.column(0) - c.normal).norm() < 1e-15);
        assert!((c.normal.norm() - 1.0).abs() < 1e-14);
        // The witness points are `gap` apart along the normal.
        assert!(((c.point_on_a() - c.point_on_b()).dot(&c.normal) - c.gap).abs() < 1e-14);
    }
}

/// Every expected point is matched by exactly one contact point within `tol`.
fn same_points(cs: &[ContactGeometry], expected: &[Vector3<f64>], tol: f64) {
    assert_eq!(cs.len(), expected.len(), "{cs:#?}");
    for e in expected {
        let n = cs.iter().filter(|c| (c.point - e).norm() < tol).count();
        assert_eq!(n, 1, "point {e} matched {n} times in {:?}", cs.iter().map(|c| c.point).collect::<Vec<_>>());
    }
}

#[test]
fn resting_box_on_plane_has_four_corner_contacts_with_zero_gap() {
    let half = Vector3::new(0.5, 0.3, 0.2);
    let q = UnitQuaternion::from_euler_angles(0.0, 0.0, 0.7);
    let p = pose([0.3, -0.1, 0.2], q);
    let cs = collide_shape_plane(&boxed(0.5, 0.3, 0.2), &p, &Vector3::zeros(), &Vector3::z(), 1e-3);
    check(&cs);
    let corners: Vec<_> = [(-1.0, -1.0), (1.0, -1.0), (1.0, 1.0), (-1.0, 1.0)]
        .iter()
        .map(|(sx, sy)| p * nalgebra::Point3::new(sx * half.x, sy * half.y, -half.z))
        .map(|x| x.coords)
        .collect();
    // Corners are transformed with the same rotation: rounding 1e-15.
    same_points(&cs, &corners, 1e-14);
    for c in &cs {
        assert!(c.gap.abs() < 1e-15 && c.normal == Vector3::z());
    }
}

#[test]
fn tilted_box_on_plane_touches_on_an_edge_or_a_corner() {
    let shape = boxed(0.5, 0.3, 0.2);
    // Tilted about x: the lowest edge touches (2 points); the other corners are far above.
    let q = UnitQuaternion::from_euler_angles(0.3, 0.0, 0.0);
    let low = (0.3f64.cos() * 0.2 + 0.3f64.sin() * 0.3) - 1e-4;
    let cs = collide_shape_plane(&shape, &pose([0.0, 0.0, low], q), &Vector3::zeros(), &Vector3::z(), 1e-3);
    check(&cs);
    assert_eq!(cs.len(), 2);
    // The lowest edge is 1e-4 below the plane (trigonometry rounding: 1e-15).
    assert!(cs.iter().all(|c| (c.gap + 1e-4).abs() < 1e-15));
    // Tilted about two axes: one corner, placed 1e-4 below the plane.
    let q = UnitQuaternion::from_euler_angles(0.3, 0.2, 0.0);
    let lowest = ConvexMesh::cuboid(&Vector3::new(0.5, 0.3, 0.2))
        .vertices
        .iter()
        .map(|v| (q * v).z)
        .fold(f64::INFINITY, f64::min);
    let cs = collide_shape_plane(&shape, &pose([0.0, 0.0, -lowest - 1e-4], q), &Vector3::zeros(), &Vector3::z(), 1e-3);
    check(&cs);
    assert_eq!(cs.len(), 1);
    // Rounding of the rotated corner's height: 1e-15.
    assert!((cs[0].gap + 1e-4).abs() < 1e-15, "{}", cs[0].gap);
}

fn stack(rot: UnitQuaternion<f64>, a_first: bool) -> Vec<ContactGeometry> {
    let (top, bottom) = (boxed(0.3, 0.2, 0.25), boxed(1.0, 1.0, 0.5));
    let pt = pose([0.1, -0.2, 0.75], rot * UnitQuaternion::from_euler_angles(0.0, 0.0, 0.4));
    let pb = pose([0.0, 0.0, 0.0], UnitQuaternion::identity());
    let cs = if a_first {
        collide_shapes(&top, &pt, &bottom, &pb, 1e-3)
    } else {
        collide_shapes(&bottom, &pb, &top, &pt, 1e-3).iter().map(|c| c.flipped()).collect()
    };
    check(&cs);
    cs
}

#[test]
fn box_stacked_on_box_has_a_stable_four_point_manifold() {
    let rest = stack(UnitQuaternion::identity(), true);
    let corners: Vec<_> = [(-1.0, -1.0), (1.0, -1.0), (1.0, 1.0), (-1.0, 1.0)]
        .iter()
        .map(|(sx, sy)| {
            let q = UnitQuaternion::from_euler_angles(0.0, 0.0, 0.4);
            Vector3::new(0.1, -0.2, 0.5) + q * Vector3::new(sx * 0.3, sy * 0.2, 0.0)
        })
        .collect();
    // The bottom corners of the top box, on the bottom box's top face (rounding: 1e-14).
    same_points(&rest, &corners, 1e-14);
    assert!(rest.iter().all(|c| c.gap.abs() < 1e-14 && (c.normal - Vector3::z()).norm() < 1e-15));
    // Tiny rotations (1e-7 rad) about every axis, either argument order: the same 4 points, moved by
    // at most angle x size (1e-7 x 0.4 m); tolerance 1e-7.
    for axis in [Vector3::x(), Vector3::y(), Vector3::z(), Vector3::new(1.0, -2.0, 0.5)] {
        for a_first in [true, false] {
            let rot = UnitQuaternion::from_scaled_axis(axis.normalize() * 1e-7);
            let cs = stack(rot, a_first);
            same_points(&cs, &corners, 1e-7);
            assert!(cs.iter().all(|c| (c.normal - Vector3::z()).norm() < 1e-6));
        }
    }
}

#[test]
fn overhanging_box_is_clipped_to_the_support_face() {
    // A 0.6-wide box centered at x = 0.9 on a box reaching x = 1: the manifold spans x in [0.6, 1].
    let top = boxed(0.3, 0.3, 0.3);
    let bottom = boxed(1.0, 1.0, 0.5);
    let pt = pose([0.9, 0.0, 0.799], UnitQuaternion::identity());
    let cs = collide_shapes(&top, &pt, &bottom, &Isometry3::identity(), 1e-3);
    check(&cs);
    let expected: Vec<_> =
        [(0.6, -0.3), (1.0, -0.3), (1.0, 0.3), (0.6, 0.3)].iter().map(|(x, y)| Vector3::new(*x, *y, 0.4995)).collect();
    // Penetration 1e-3 split evenly by the midpoint; rounding 1e-14.
    same_points(&cs, &expected, 1e-14);
    assert!(cs.iter().all(|c| (c.gap + 1e-3).abs() < 1e-14));
}

fn crossing(dx: f64, dy: f64, depth: f64, margin: f64) -> Vec<ContactGeometry> {
    // A: long along x, turned 45 deg about x (an edge along x points down); B: long along y,
    // turned 45 deg about y (an edge along y points up). The edges cross at (dx, dy).
    let a = boxed(1.0, 0.2, 0.2);
    let b = boxed(0.2, 1.0, 0.2);
    let pa = pose([0.0, dy, 0.4 * SQRT_2 - depth], UnitQuaternion::from_euler_angles(FRAC_PI_4, 0.0, 0.0));
    let pb = pose([dx, 0.0, 0.0], UnitQuaternion::from_euler_angles(0.0, FRAC_PI_4, 0.0));
    let cs = collide_shapes(&a, &pa, &b, &pb, margin);
    check(&cs);
    cs
}

#[test]
fn crossing_edges_give_one_point_at_the_crossing() {
    for (dx, dy) in [(0.0, 0.0), (-0.2, 0.3)] {
        let cs = crossing(dx, dy, 0.01, 1e-3);
        assert_eq!(cs.len(), 1, "{cs:#?}");
        let c = cs[0];
        // Midpoint of the two edges 0.01 apart; the 45 deg rotations round at 1e-15.
        assert!((c.point - Vector3::new(dx, dy, 0.2 * SQRT_2 - 0.005)).norm() < 1e-14, "{}", c.point);
        assert!((c.gap + 0.01).abs() < 1e-14);
        assert!((c.normal - Vector3::z()).norm() < 1e-14);
    }
    // Separated by 0.02: reported only with a margin above 0.02.
    assert!(crossing(0.0, 0.0, -0.02, 0.01).is_empty());
    let cs = crossing(0.0, 0.0, -0.02, 0.03);
    assert_eq!(cs.len(), 1);
    assert!((cs[0].gap - 0.02).abs() < 1e-14);
}

#[test]
fn no_contacts_beyond_the_margin() {
    let a = boxed(0.5, 0.5, 0.5);
    let p = |z: f64| pose([0.1, 0.0, z], UnitQuaternion::from_euler_angles(0.0, 0.0, 0.3));
    assert!(collide_shapes(&a, &p(1.02), &a, &Isometry3::identity(), 0.01).is_empty());
    let cs = collide_shapes(&a, &p(1.02), &a, &Isometry3::identity(), 0.03);
    check(&cs);
    assert_eq!(cs.len(), 4);
    // Face separation 0.02 (rounding 1e-14).
    assert!(cs.iter().all(|c| (c.gap - 0.02).abs() < 1e-14));
    assert!(collide_shape_plane(&a, &p(0.52), &Vector3::zeros(), &Vector3::z(), 0.01).is_empty());
    assert_eq!(collide_shape_plane(&a, &p(0.52), &Vector3::zeros(), &Vector3::z(), 0.03).len(), 4);
    // Far apart sideways.
    assert!(
        collide_shapes(&a, &pose([3.0, 0.0, 0.0], UnitQuaternion::identity()), &a, &Isometry3::identity(), 0.1)
            .is_empty()
    );
}

/// The box as a general mesh: vertices permuted and quads split along the other diagonal.
fn box_mesh(half: Vector3<f64>) -> RigidShape {
    let cube = ConvexMesh::cuboid(&half);
    let perm = [5, 2, 7, 0, 3, 6, 1, 4];
    let mut vertices = vec![Vector3::zeros(); 8];
    for (old, &new) in perm.iter().enumerate() {
        vertices[new] = cube.vertices[old];
    }
    let mut triangles = Vec::new();
    for pair in cube.triangles.chunks(2) {
        // Quad (a, b, c, d) was split as (a, b, c), (a, c, d); split it as (a, b, d), (b, c, d).
        let [a, b, c] = pair[0];
        let d = pair[1][2];
        triangles.push([perm[a], perm[b], perm[d]]);
        triangles.push([perm[b], perm[c], perm[d]]);
    }
    RigidShape::ConvexMesh(ConvexMesh::new(vertices, triangles).unwrap())
}

#[test]
fn convex_mesh_of_a_box_behaves_like_the_box() {
    let half = Vector3::new(0.3, 0.2, 0.25);
    let (b, m) = (RigidShape::Box { half }, box_mesh(half));
    let big = boxed(1.0, 1.0, 0.5);
    let poses = [
        pose([0.1, -0.2, 0.7499], UnitQuaternion::from_euler_angles(0.0, 0.0, 0.4)),
        pose([0.0, 0.0, 0.78], UnitQuaternion::from_euler_angles(0.3, 0.2, 0.1)),
        pose([0.2, 0.1, 0.8], UnitQuaternion::from_euler_angles(0.6, 0.0, 0.2)),
    ];
    let mut compared = 0;
    for p in poses {
        let margin = 0.05;
        let pairs = [
            (
                collide_shapes(&b, &p, &big, &Isometry3::identity(), margin),
                collide_shapes(&m, &p, &big, &Isometry3::identity(), margin),
            ),
            (
                collide_shapes(&big, &Isometry3::identity(), &b, &p, margin),
                collide_shapes(&big, &Isometry3::identity(), &m, &p, margin),
            ),
            (
                collide_shapes(&b, &p, &b, &Isometry3::identity(), margin),
                collide_shapes(&m, &p, &m, &Isometry3::identity(), margin),
            ),
            (
                collide_shape_plane(&b, &p, &Vector3::new(0.0, 0.0, 0.5), &Vector3::z(), margin),
                collide_shape_plane(&m, &p, &Vector3::new(0.0, 0.0, 0.5), &Vector3::z(), margin),
            ),
        ];
        for (x, y) in pairs {
            compared += x.len();
            check(&y);
            // Same geometry through another vertex numbering: rounding only (1e-14).
            same_points(&y, &x.iter().map(|c| c.point).collect::<Vec<_>>(), 1e-14);
            for c in &y {
                let twin = x.iter().find(|d| (d.point - c.point).norm() < 1e-14).unwrap();
                assert!((twin.gap - c.gap).abs() < 1e-14 && (twin.normal - c.normal).norm() < 1e-14);
            }
        }
    }
    // Not vacuous: the poses touch in most of the pairs.
    assert!(compared >= 20, "{compared}");
}

#[test]
fn cylinder_mesh_on_box_and_plane() {
    let (v, t) = RigidShape::Cylinder { radius: 0.3, half_length: 0.2 }.tessellate(24);
    let cyl = RigidShape::ConvexMesh(ConvexMesh::new(v, t).unwrap());
    let big = boxed(1.0, 1.0, 0.5);
    // Standing: the bottom cap (a 24-gon) rests on the box: reduced to 4 points spanning it.
    let p = pose([0.0, 0.1, 0.7], UnitQuaternion::identity());
    let cs = collide_shapes(&cyl, &p, &big, &Isometry3::identity(), 1e-3);
    check(&cs);
    assert_eq!(cs.len(), 4);
    for c in &cs {
        // On the rim of the bottom cap (radius 0.3 around (0, 0.1)), zero gap (rounding 1e-14).
        assert!(((c.point - Vector3::new(0.0, 0.1, 0.5)).norm() - 0.3).abs() < 1e-14);
        assert!(c.gap.abs() < 1e-14);
    }
    // The 4 points span the cap: their bounding box covers more than half its diameter each way.
    let span = |k: usize| {
        let xs: Vec<f64> = cs.iter().map(|c| c.point[k]).collect();
        xs.iter().cloned().fold(f64::NEG_INFINITY, f64::max) - xs.iter().cloned().fold(f64::INFINITY, f64::min)
    };
    assert!(span(0) > 0.3 && span(1) > 0.3);
    let cs = collide_shape_plane(
        &cyl,
        &pose([0.0, 0.0, 0.2], UnitQuaternion::identity()),
        &Vector3::zeros(),
        &Vector3::z(),
        1e-3,
    );
    assert_eq!(cs.len(), 4);
}
