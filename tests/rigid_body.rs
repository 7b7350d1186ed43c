//! Rigid body state: quaternion update, world inertia, point Jacobian, recentering of meshes.

use fricsim::rigid::{ANGULAR, ConvexMesh, DOFS, LINEAR, RigidBody, RigidShape};
use nalgebra::{SVector, UnitQuaternion, Vector3};

fn body() -> RigidBody {
    let shape = RigidShape::Box { half: Vector3::new(0.1, 0.2, 0.3) };
    let q = UnitQuaternion::from_euler_angles(0.2, 0.5, -0.3);
    RigidBody::from_density(shape, 1000.0, Vector3::new(1.0, 2.0, 3.0), q).0
}

/// A constant spin integrates exactly: after n steps the orientation is the rotation by the angle
/// |ω| t about ω applied to the initial one, and |q| stays 1 at every step.
#[test]
fn constant_spin_is_integrated_exactly_with_unit_quaternion() {
    let mut b = body();
    let q0 = b.orientation;
    b.angular_velocity = Vector3::new(0.3, -1.2, 2.0);
    b.linear_velocity = Vector3::new(0.5, 0.0, -1.0);
    let (h, n) = (1e-3, 5000);
    for _ in 0..n {
        b.integrate_position(h);
        // Renormalized every step: |q| is 1 to rounding (4 ulp).
        assert!((b.orientation.into_inner().norm() - 1.0).abs() < 1e-15);
    }
    let t = h * n as f64;
    let expected = UnitQuaternion::from_scaled_axis(b.angular_velocity * t) * q0;
    // n products of rotations about one axis: rounding grows like n ε ≈ 1e-12 rad.
    assert!(b.orientation.angle_to(&expected) < 1e-11, "{}", b.orientation.angle_to(&expected));
    let turned = (b.orientation * q0.inverse()).angle();
    let w = b.angular_velocity.norm() * t;
    // Angle ω t modulo 2π (a quaternion angle lies in [0, π]).
    let w = w % (2.0 * std::f64::consts::PI);
    let w = if w > std::f64::consts::PI { 2.0 * std::f64::consts::PI - w } else { w };
    assert!((turned - w).abs() < 1e-11, "{turned} vs {w}");
    assert!((b.position - Vector3::new(1.0 + 0.5 * t, 2.0, 3.0 - t)).norm() < 1e-12);
}

#[test]
fn world_inertia_is_rotated_body_inertia_and_energy_is_frame_independent() {
    let b = body();
    let r = b.rotation();
    let iw = b.world_inertia();
    // Symmetric to rounding of R I Rᵀ: 1e-15 relative.
    assert!((iw - iw.transpose()).amax() < 1e-15 * iw.amax());
    // Angular momentum in world = R (I_body (Rᵀ ω)): same energy computed in the body frame.
    let mut b = b;
    b.angular_velocity = Vector3::new(0.4, 1.0, -0.7);
    let wb = r.transpose() * b.angular_velocity;
    let e_body = 0.5 * wb.dot(&(b.inertia_body * wb));
    // Rounding of two 3x3 products: 1e-14 relative.
    assert!((b.kinetic_energy() - e_body).abs() < 1e-14 * e_body);
    assert!((b.world_inverse_inertia() * iw - nalgebra::Matrix3::identity()).amax() < 1e-12);
    let m = b.mass_matrix();
    assert_eq!(m[(0, 0)], b.mass);
    assert_eq!(m.fixed_view::<3, 3>(3, 3).into_owned(), iw);
}

#[test]
fn point_jacobian_gives_point_velocity_and_torque() {
    let mut b = body();
    let v = SVector::<f64, DOFS>::from([0.1, -0.2, 0.3, 1.5, -0.5, 2.0]);
    b.set_velocity(&v);
    assert_eq!(b.velocity(), v);
    assert_eq!(b.linear_velocity.as_slice(), &v.as_slice()[LINEAR]);
    assert_eq!(b.angular_velocity.as_slice(), &v.as_slice()[ANGULAR]);
    let p = b.world_point(&Vector3::new(0.1, -0.2, 0.3));
    let j = b.point_jacobian(&p);
    // Same formula two ways: rounding only.
    assert!((j * v - b.point_velocity(&p)).norm() < 1e-14);
    let f = Vector3::new(3.0, -1.0, 2.0);
    let g = j.transpose() * f;
    let torque = (p - b.position).cross(&f);
    assert!((g.fixed_rows::<3>(0) - f).norm() == 0.0);
    assert!((g.fixed_rows::<3>(3) - torque).norm() < 1e-14);
}

/// A mesh whose origin is not its center of mass is recentered; the body's position becomes the
/// world center of mass and the mesh lands where it was placed.
#[test]
fn off_center_mesh_is_recentered() {
    let half = Vector3::new(0.5, 0.5, 0.5);
    let cube = ConvexMesh::cuboid(&half);
    let shift = Vector3::new(2.0, 0.0, 1.0);
    let moved = ConvexMesh::new(cube.vertices.iter().map(|v| v + shift).collect(), cube.triangles.clone()).unwrap();
    let q = UnitQuaternion::from_euler_angles(0.0, 0.0, 0.5);
    let placed = Vector3::new(0.0, 1.0, 0.0);
    let (b, origin) = RigidBody::from_density(RigidShape::ConvexMesh(moved), 10.0, placed, q);
    // 1e-12: rounding of the polyhedral center.
    assert!((b.position - (placed + q * shift)).norm() < 1e-12);
    assert!((origin + shift).norm() < 1e-12);
    let RigidShape::ConvexMesh(m) = &b.shape else { panic!("shape kind changed") };
    let c = m.vertices.iter().sum::<Vector3<f64>>() / 8.0;
    assert!(c.norm() < 1e-12);
    assert!((b.mass - 10.0).abs() < 1e-12);
    assert!((b.clone().with_mass(5.0).inertia_body - b.inertia_body * 0.5).amax() < 1e-15);
}
