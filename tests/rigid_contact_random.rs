//! Random configurations of box and convex-mesh pairs: every contact's witness points lie on the
//! two surfaces, gaps are below the margin, at most 4 points, and
//! the result does not depend on whether a box is given as a box or as a mesh.

use fricsim::contact::rigid::hull_round::point_hull;
use fricsim::contact::rigid::polyhedral::PosedHull;
use fricsim::contact::rigid::{ContactGeometry, collide_shapes};
use fricsim::rigid::{ConvexMesh, RigidShape};
use nalgebra::{Isometry3, Translation3, UnitQuaternion, Vector3};

/// Deterministic pseudo-random numbers in [0, 1) (xorshift).
fn uniform(state: &mut u64) -> f64 {
    *state ^= *state << 13;
    *state ^= *state >> 7;
    *state ^= *state << 17;
    (*state >> 11) as f64 / (1u64 << 53) as f64
}

fn random_pose(s: &mut u64, spread: f64) -> Isometry3<f64> {
    let mut u = || uniform(s);
    let t = Translation3::new(spread * (2.0 * u() - 1.0), spread * (2.0 * u() - 1.0), spread * (2.0 * u() - 1.0));
    Isometry3::from_parts(t, UnitQuaternion::from_euler_angles(6.3 * u(), 6.3 * u(), 6.3 * u()))
}

fn surface_check(
    a: &RigidShape,
    pa: &Isometry3<f64>,
    b: &RigidShape,
    pb: &Isometry3<f64>,
    cs: &[ContactGeometry],
    margin: f64,
) {
    let (ha, hb) = (PosedHull::new(a, pa).unwrap(), PosedHull::new(b, pb).unwrap());
    assert!(cs.len() <= 4);
    for c in cs {
        // Witnesses are built on faces and edges: on the surface to rounding (1e-12 of size 1).
        let (da, _, _) = point_hull(&ha, &c.point_on_a());
        let (db, _, _) = point_hull(&hb, &c.point_on_b());
        assert!(da.abs() < 1e-12 && db.abs() < 1e-12, "witness off the surface: {da:e} {db:e} in {c:?}");
        assert!(c.gap < margin);
        // (Witnesses inside the other body are not required: clipping projects incident corners
        // onto the reference plane, which may leave a leaning incident body.)
    }
}

#[test]
fn random_box_and_mesh_pairs_give_consistent_contacts() {
    let mut s = 0x2545f4914f6cdd1du64;
    let half_a = Vector3::new(0.5, 0.3, 0.2);
    let half_b = Vector3::new(0.4, 0.4, 0.25);
    let as_mesh = |h: &Vector3<f64>| {
        let c = ConvexMesh::cuboid(h);
        RigidShape::ConvexMesh(ConvexMesh::new(c.vertices, c.triangles).unwrap())
    };
    let (ba, bb) = (RigidShape::Box { half: half_a }, RigidShape::Box { half: half_b });
    let (ma, mb) = (as_mesh(&half_a), as_mesh(&half_b));
    let (v, t) = RigidShape::Cylinder { radius: 0.3, half_length: 0.3 }.tessellate(10);
    let cyl = RigidShape::ConvexMesh(ConvexMesh::new(v, t).unwrap());
    let margin = 0.02;
    let mut touching = 0;
    for _ in 0..5000 {
        let (pa, pb) = (random_pose(&mut s, 0.45), random_pose(&mut s, 0.45));
        let boxes = collide_shapes(&ba, &pa, &bb, &pb, margin);
        surface_check(&ba, &pa, &bb, &pb, &boxes, margin);
        let meshes = collide_shapes(&ma, &pa, &mb, &pb, margin);
        // A box and its mesh: the same contacts to rounding (1e-12).
        assert_eq!(boxes.len(), meshes.len());
        for (x, y) in boxes.iter().zip(&meshes) {
            assert!((x.point - y.point).norm() < 1e-12 && (x.gap - y.gap).abs() < 1e-12);
        }
        let mixed = collide_shapes(&ba, &pa, &cyl, &pb, margin);
        surface_check(&ba, &pa, &cyl, &pb, &mixed, margin);
        touching += usize::from(!boxes.is_empty());
    }
    // Not vacuous: most random pairs at this spread overlap.
    assert!(touching > 2500, "{touching}");
}
