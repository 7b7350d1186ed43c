//! Mass properties: closed forms of the primitives against the exact polyhedral integrals of their
//! tessellations (box exact, curved shapes converging), parallel axis against direct integrals.

use fricsim::rigid::mass::polyhedron;
use fricsim::rigid::{ConvexMesh, MassProperties, RigidShape};
use nalgebra::{Matrix3, Rotation3, Vector3};

const DENSITY: f64 = 700.0;

/// Largest entry of `a - b` relative to the largest entry of `b`.
fn rel(a: &Matrix3<f64>, b: &Matrix3<f64>) -> f64 {
    (a - b).amax() / b.amax()
}

#[test]
fn box_mesh_is_exact_and_rotated_box_has_rotated_inertia() {
    let half = Vector3::new(0.3, 0.5, 0.7);
    let exact = MassProperties::from_shape(&RigidShape::Box { half }, DENSITY);
    let mesh = ConvexMesh::cuboid(&half);
    let poly = polyhedron(&mesh.vertices, &mesh.triangles, DENSITY);
    // The polyhedral integrals are exact for a box: only rounding (1e-13 relative) remains.
    assert!((poly.mass - exact.mass).abs() < 1e-13 * exact.mass);
    assert!(poly.center.norm() < 1e-14);
    assert!(rel(&poly.inertia, &exact.inertia) < 1e-13);
    // Moved and rotated: the center moves with it and the inertia becomes R I Rᵀ (exercises the
    // off-diagonal products, which vanish for the axis-aligned box).
    let r = Rotation3::from_euler_angles(0.4, -0.9, 1.3);
    let t = Vector3::new(1.0, -2.0, 0.5);
    let moved: Vec<_> = mesh.vertices.iter().map(|v| r * v + t).collect();
    let poly = polyhedron(&moved, &mesh.triangles, DENSITY);
    assert!((poly.center - t).norm() < 1e-12);
    let expected = r.matrix() * exact.inertia * r.matrix().transpose();
    assert!(rel(&poly.inertia, &expected) < 1e-12, "{} vs {}", poly.inertia, expected);
}

/// Tessellations of the curved primitives converge to the closed forms at second order (inscribed
/// polygons lose O(1/n²) of the area): each doubling of `segments` cuts the error by > 3x, and at
/// 256 segments the error is below 1e-3 relative.
#[test]
fn curved_primitives_tessellations_converge_to_closed_forms() {
    let shapes = [
        RigidShape::Sphere { radius: 0.4 },
        RigidShape::Cylinder { radius: 0.3, half_length: 0.8 },
        RigidShape::Capsule { radius: 0.25, half_length: 0.6 },
        RigidShape::Capsule { radius: 0.25, half_length: 0.0 },
    ];
    for shape in shapes {
        let exact = MassProperties::from_shape(&shape, DENSITY);
        let mut last = f64::INFINITY;
        for segments in [32, 64, 128, 256] {
            let (v, t) = shape.tessellate(segments);
            if segments == 32 {
                // The hull checks are O(triangles x vertices): validate the small one only.
                ConvexMesh::new(v.clone(), t.clone()).expect("tessellation is a convex hull");
            }
            let poly = polyhedron(&v, &t, DENSITY);
            let err = ((poly.mass - exact.mass).abs() / exact.mass).max(rel(&poly.inertia, &exact.inertia));
            assert!(poly.center.norm() < 1e-12, "{shape:?}: symmetric mesh, center {}", poly.center);
            assert!(err < last / 3.0, "{shape:?} at {segments}: error {err:e} after {last:e}");
            last = err;
        }
        assert!(last < 1e-3, "{shape:?}: error {last:e} at 256 segments");
    }
}

/// The parallel-axis shift of the box's inertia against the inertia about the origin integrated
/// directly over the displaced box (products of one-dimensional integrals).
#[test]
fn parallel_axis_matches_direct_integral() {
    let half = Vector3::new(0.2, 0.35, 0.5);
    let d = Vector3::new(0.7, -0.4, 1.1);
    let mp = MassProperties::from_shape(&RigidShape::Box { half }, DENSITY);
    let (lo, hi) = (d - half, d + half);
    // ∫ x^k over [lo, hi] per axis.
    let m = |i: usize, k: i32| (hi[i].powi(k + 1) - lo[i].powi(k + 1)) / (k + 1) as f64;
    let second = |i: usize, j: usize| {
        let mut p = DENSITY;
        for a in 0..3 {
            p *= m(a, (a == i) as i32 + (a == j) as i32);
        }
        p
    };
    let s = Matrix3::from_fn(second);
    // Inertia about the origin: trace(S) 1 - S.
    let direct = Matrix3::identity() * s.trace() - s;
    assert!(rel(&mp.inertia_about(&d), &direct) < 1e-13, "{} vs {}", mp.inertia_about(&d), direct);
    let mesh = ConvexMesh::cuboid(&half);
    let moved: Vec<_> = mesh.vertices.iter().map(|v| v + d).collect();
    let poly = polyhedron(&moved, &mesh.triangles, DENSITY);
    // Rounding of the origin-based sums of a displaced box: 1e-12 relative.
    assert!((poly.center - d).norm() < 1e-12);
    assert!(rel(&poly.inertia, &mp.inertia) < 1e-12);
}

#[test]
fn hull_structure_of_box_and_cylinder() {
    let m = ConvexMesh::cuboid(&Vector3::new(1.0, 2.0, 3.0));
    assert_eq!((m.faces.len(), m.edges.len(), m.edge_directions.len()), (6, 12, 3));
    assert!(m.faces.iter().all(|f| f.polygon.len() == 4));
    let (v, t) = RigidShape::Cylinder { radius: 1.0, half_length: 1.0 }.tessellate(12);
    let c = ConvexMesh::new(v, t).unwrap();
    // 12 sides + 2 caps (the fan centers dropped from the cap polygons).
    assert_eq!(c.faces.len(), 14);
    assert_eq!(c.faces.iter().map(|f| f.polygon.len()).max(), Some(12));
    // A non-convex (dented) or open mesh is rejected.
    let mut dented = m.vertices.clone();
    dented[7] *= 0.5;
    assert!(ConvexMesh::new(dented, m.triangles.clone()).is_err());
    let mut open = m.triangles.clone();
    open.pop();
    assert!(ConvexMesh::new(m.vertices.clone(), open).is_err());
}
