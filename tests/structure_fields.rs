//! Procedural structure fields (003 §2.9) on a plane collider steer matchstick friction: a box
//! sliding along a line through a field's center meets the along-structure coefficient `mu_t`
//! where the field runs along the line and the across coefficient `mu_b` where it runs across,
//! and stops after `v₀² / (2 μ g)` (the box has no structure of its own, so the plane's cone is
//! the full ellipse `(mu_t, mu_b)` along its field).
//!
//! The fields are centered 1 km behind the box, which slides along +x on the line y = 0 through
//! that center (at 10 m the corners, 5 cm off the line, see the field turned by ±5 mrad, which
//! raises the coefficient along x to `√(μ_t² cos²θ + μ_b² sin²θ)`, 1.9e-4 relative, measured as
//! a 24 µm shorter slide; at 1 km that is 2e-8): there `Radial` and the `Sweep` of reference x point along x, `Concentric` and
//! the equivalent `Expression` along y, at every point of the slide, so each slide sees one
//! coefficient. Asserted: within 1 % of the closed form (backward Euler's positions use the
//! end-of-step velocity, which shortens the slide by v₀ h / 2 = 0.25 mm, 0.2–0.8 % of these
//! 3.2–12.7 cm), and within 1 µm of the discrete closed form `h (N v₀ − a h N (N + 1) / 2)`,
//! `N = ⌊v₀ / (a h)⌋`, `a = μ g`, which has that offset.

#[path = "support/scene_run.rs"]
mod scene_run;

const G: f64 = 9.81;
const MU_T: f64 = 0.1;
const MU_B: f64 = 0.4;
const V0: f64 = 0.5;

fn slide(field: &str) -> f64 {
    box_slide(&format!(
        r#"Scene(name: "slide", dt: 1e-3, duration: 0.7, frame_rate: 100.0,
    materials: {{ "wood": (density: 600.0) }},
    friction: (default: (mu: 0.25, mu_t: {MU_T}, mu_b: {MU_B})),
    bodies: [ Rigid(name: "box", material: "wood", shape: Box(size: (0.1, 0.1, 0.1)), position: (0.0, 0.0, 0.05),
                    velocity: ({V0}, 0.0, 0.0)) ],
    colliders: [ Plane(name: "floor", material: "wood", structure_field: {field}) ],
    pipeline: Nonsmooth(solver: GaussSeidel, tolerance: 1e-10, max_iterations: 1000))"#
    ))
}

/// The box's slide over 700 steps of the scene `text`, which must end at rest on y = 0: no
/// horizontal speed left (1e-9 m/s) and a side drift below 1e-7 m (0 on a plane; 9e-9 m on
/// Smooth's MLS field of a mesh, whose normal is not exactly vertical).
fn box_slide(text: &str) -> f64 {
    let mut sim = scene_run::simulation(text);
    for _ in 0..700 {
        let st = sim.step().expect("finite");
        assert!(st.converged, "{:?}", st.failure);
    }
    let b = &sim.state.rigid[0];
    assert!(b.linear_velocity.xy().norm() < 1e-9, "still sliding at {}", b.linear_velocity);
    assert!(b.position.y.abs() < 1e-7, "drifted sideways by {}", b.position.y);
    b.position.x
}

/// The mean displacement of the nodes (a cloth's or a solid's) over 700 steps of the scene
/// `text`, which must end at rest.
fn cloth_slide(text: &str) -> f64 {
    let mut sim = scene_run::simulation(text);
    // The cloth's or solid's nodes (a mesh collider's prescribed nodes are nodes too).
    let m = &sim.model;
    let n: Vec<usize> =
        m.cloths.iter().map(|c| c.nodes.clone()).chain(m.solids.iter().map(|s| s.nodes.clone())).flatten().collect();
    let mean_x = |q: &[f64]| n.iter().map(|&i| q[3 * i]).sum::<f64>() / n.len() as f64;
    let x0 = mean_x(&sim.state.q);
    for _ in 0..700 {
        let st = sim.step().expect("finite");
        assert!(st.converged, "{:?}", st.failure);
    }
    assert!(n.iter().all(|&i| sim.state.v[3 * i..3 * i + 3].iter().all(|v| v.abs() < 1e-9)), "still moving");
    mean_x(&sim.state.q) - x0
}

/// Assert a slide of `got` metres against the closed form and backward Euler's discrete one.
fn assert_slide(label: &str, mu: f64, got: f64) {
    let (want, discrete) = (V0 * V0 / (2.0 * mu * G), discrete_slide(mu));
    println!("{label}: slid {got:.7} m, closed form {want:.7} m, discrete {discrete:.7} m (mu {mu})");
    assert!((got / want - 1.0).abs() < 0.01, "{label}: {got} vs {want}");
    assert!((got - discrete).abs() < 1e-6, "{label}: {got} vs {discrete}");
}

/// A 2 m square floor mesh of two triangles in a fresh folder; its path.
fn floor_obj(tag: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("fricsim_{tag}_{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let obj = dir.join("floor.obj");
    std::fs::write(&obj, "v -1 -1 0\nv 1 -1 0\nv 1 1 0\nv -1 1 0\nf 1 2 3\nf 1 3 4\n").unwrap();
    obj
}

/// Backward Euler's slide at h = 1e-3 (module doc).
fn discrete_slide(mu: f64) -> f64 {
    let (a, h) = (mu * G, 1e-3);
    let n = (V0 / (a * h)).floor();
    h * (n * V0 - a * h * n * (n + 1.0) / 2.0)
}

#[test]
fn a_box_slides_along_a_plane_field_with_the_coefficient_the_field_gives_there() {
    for (field, mu) in [
        ("Radial(center: (-1000.0, 0.0, 0.0))", MU_T),
        ("Sweep(center: (-1000.0, 0.0, 0.0), axis: (0.0, 0.0, 1.0), reference: (1.0, 0.0, 0.0))", MU_T),
        ("Concentric(center: (-1000.0, 0.0, 0.0), axis: (0.0, 0.0, 1.0))", MU_B),
        (r#"Expression(x: "-y", y: "x + 1000", z: "0")"#, MU_B),
        ("Sweep(center: (-1000.0, 0.0, 0.0), axis: (0.0, 0.0, 1.0), reference: (0.0, 1.0, 0.0))", MU_B),
    ] {
        let got = slide(field);
        assert_slide(field, mu, got);
    }
}

/// The same slides of a cloth square (the nodal pipeline's contacts, a field evaluated at each
/// node's contact point): every node carries its own weight, so the cloth decelerates as one
/// body, unstressed. Same bounds.
#[test]
fn a_cloth_slides_along_a_plane_field_with_the_coefficient_the_field_gives_there() {
    for (field, mu) in
        [("Radial(center: (-1000.0, 0.0, 0.0))", MU_T), (r#"Expression(x: "-y", y: "x + 1000", z: "0")"#, MU_B)]
    {
        let text = format!(
            r#"Scene(name: "slide", dt: 1e-3, duration: 0.7, frame_rate: 100.0,
    materials: {{ "felt": (density: 300.0, youngs_modulus: 1e6, poisson_ratio: 0.3, thickness: 1e-3) }},
    friction: (default: (mu: 0.25, mu_t: {MU_T}, mu_b: {MU_B})),
    bodies: [ Cloth(name: "c", material: "felt", mesh: Grid(size: (0.1, 0.1), cells: (2, 2)), position: (0.0, 0.0, 5e-4),
                    velocity: ({V0}, 0.0, 0.0)) ],
    colliders: [ Plane(name: "floor", material: "felt", structure_field: {field}) ],
    pipeline: Nonsmooth(solver: GaussSeidel, tolerance: 1e-10, max_iterations: 1000))"#
        );
        let got = cloth_slide(&text);
        assert_slide(&format!("cloth, {field}"), mu, got);
    }
}

/// The cloth's slides on a mesh collider (a 2 m square of two triangles) carrying the field as
/// its `structure`: the nodal pipeline's vertex–face contacts take the collider's field at the
/// vertex. Same bounds.
#[test]
fn a_cloth_slides_along_a_mesh_collider_field_with_the_coefficient_the_field_gives_there() {
    let obj = floor_obj("mesh_field");
    for (field, mu) in [
        ("Radial(center: (-1000.0, 0.0, 0.0))", MU_T),
        ("Concentric(center: (-1000.0, 0.0, 0.0), axis: (0.0, 0.0, 1.0))", MU_B),
    ] {
        let text = format!(
            r#"Scene(name: "slide", dt: 1e-3, duration: 0.7, frame_rate: 100.0,
    materials: {{ "felt": (density: 300.0, youngs_modulus: 1e6, poisson_ratio: 0.3, thickness: 1e-3) }},
    friction: (default: (mu: 0.25, mu_t: {MU_T}, mu_b: {MU_B})),
    bodies: [ Cloth(name: "c", material: "felt", mesh: Grid(size: (0.1, 0.1), cells: (2, 2)), position: (0.0, 0.0, 5e-4),
                    velocity: ({V0}, 0.0, 0.0), self_contact: false) ],
    colliders: [ Mesh(name: "floor", material: "felt", path: {path:?}, structure: {field}) ],
    pipeline: Nonsmooth(solver: GaussSeidel, tolerance: 1e-10, max_iterations: 1000))"#,
            path = obj.to_str().unwrap()
        );
        let got = cloth_slide(&text);
        assert_slide(&format!("cloth on a mesh, {field}"), mu, got);
    }
    std::fs::remove_dir_all(obj.parent().unwrap()).ok();
}

/// The box's slides in the Smooth pipeline on a mesh collider carrying the field (000's MLS field
/// of the mesh; the field's structure at the box's vertices). Same bounds: measured within 1e-7 m
/// of the discrete slide.
#[test]
fn a_box_slides_along_a_smooth_mesh_field_with_the_coefficient_the_field_gives_there() {
    let obj = floor_obj("smooth_field");
    for (field, mu) in [
        ("Radial(center: (-1000.0, 0.0, 0.0))", MU_T),
        ("Concentric(center: (-1000.0, 0.0, 0.0), axis: (0.0, 0.0, 1.0))", MU_B),
    ] {
        let got = box_slide(&format!(
            r#"Scene(name: "slide", dt: 1e-3, duration: 0.7, frame_rate: 100.0,
    materials: {{ "wood": (density: 600.0) }},
    friction: (default: (mu: 0.25, mu_t: {MU_T}, mu_b: {MU_B})),
    bodies: [ Rigid(name: "box", material: "wood", shape: Box(size: (0.1, 0.1, 0.1)), position: (0.0, 0.0, 0.05),
                    velocity: ({V0}, 0.0, 0.0)) ],
    colliders: [ Mesh(name: "floor", material: "wood", path: {path:?}, structure: {field}) ],
    pipeline: Smooth(field: (radius: 0.02)))"#,
            path = obj.to_str().unwrap()
        ));
        assert_slide(&format!("Smooth box on a mesh, {field}"), mu, got);
    }
    std::fs::remove_dir_all(obj.parent().unwrap()).ok();
}

/// A cloth carrying the field itself (`structure_field`, each triangle's direction taken at its
/// rest centroid) slides on a plain plane: the cloth's structure alone sets the cone. Same bounds.
#[test]
fn a_cloth_carrying_a_field_slides_with_the_coefficient_its_field_gives() {
    for (field, mu) in [
        ("Radial(center: (-1000.0, 0.0, 0.0))", MU_T),
        ("Concentric(center: (-1000.0, 0.0, 0.0), axis: (0.0, 0.0, 1.0))", MU_B),
    ] {
        let got = cloth_slide(&format!(
            r#"Scene(name: "slide", dt: 1e-3, duration: 0.7, frame_rate: 100.0,
    materials: {{ "felt": (density: 300.0, youngs_modulus: 1e6, poisson_ratio: 0.3, thickness: 1e-3) }},
    friction: (default: (mu: 0.25, mu_t: {MU_T}, mu_b: {MU_B})),
    bodies: [ Cloth(name: "c", material: "felt", mesh: Grid(size: (0.1, 0.1), cells: (2, 2)), position: (0.0, 0.0, 5e-4),
                    velocity: ({V0}, 0.0, 0.0), structure_field: {field}) ],
    colliders: [ Plane(name: "floor", material: "felt") ],
    pipeline: Nonsmooth(solver: GaussSeidel, tolerance: 1e-10, max_iterations: 1000))"#
        ));
        assert_slide(&format!("cloth with its own field, {field}"), mu, got);
    }
}

/// Bad fields are refused with the field named and the reason.
#[test]
fn bad_structure_fields_are_refused() {
    for (field, expect) in [
        (r#"Expression(x: "x +* 2", y: "0", z: "0")"#, "does not parse"),
        (r#"Expression(x: "r", y: "0", z: "0")"#, "the variables are x, y and z"),
        ("Concentric(axis: (0.0, 0.0, 0.0))", "non-zero `axis`"),
        ("Sweep(axis: (0.0, 0.0, 1.0), reference: (0.0, 0.0, 0.0))", "non-zero `axis` and `reference`"),
        (r#"Texture(path: "t.png")"#, "no texture coordinates"),
    ] {
        let text = format!(
            r#"Scene(name: "bad", dt: 1e-3, duration: 0.01, frame_rate: 100.0,
    materials: {{ "wood": (density: 600.0) }},
    friction: (default: (mu: 0.25, mu_t: 0.1, mu_b: 0.4)),
    bodies: [ Rigid(name: "box", material: "wood", shape: Box(size: (0.1, 0.1, 0.1))) ],
    colliders: [ Plane(name: "floor", material: "wood", structure_field: {field}) ],
    pipeline: Nonsmooth())"#
        );
        let err = fricsim::scene::parse_scene_str(&text, "bad", std::path::Path::new("."), &[])
            .err()
            .unwrap_or_else(|| panic!("{field} accepted"))
            .to_string();
        assert!(err.contains("colliders[0].structure_field") && err.contains(expect), "{field}: {err}");
    }
}

/// A tet solid carrying a structure on its boundary (`structure` in the mesh's own frame, or
/// `structure_field`, each boundary triangle's direction taken at its rest centroid and carried
/// by its deformation) slides on a plain plane: its bottom's structure alone sets the cone. A
/// direction along the slide gives `mu_t`; across it, or along it before a 90° `rotation`
/// about z, `mu_b`; a field likewise. Same bounds, for a stiff block (1 GPa), which slides as
/// one body: under the friction its shear moves the nodes' mean by ~1e-8 m (at 10 MPa it
/// was 3 µm, which the 1 µm bound caught).
#[test]
fn a_solid_carrying_a_structure_slides_with_the_coefficient_it_gives() {
    for (structure, rotation, mu) in [
        ("structure: (1.0, 0.0, 0.0)", 0.0, MU_T),
        ("structure: (0.0, 1.0, 0.0)", 0.0, MU_B),
        ("structure: (1.0, 0.0, 0.0)", 90.0, MU_B),
        ("structure_field: Radial(center: (-1000.0, 0.0, 0.0))", 0.0, MU_T),
        (r#"structure_field: Expression(x: "0", y: "1", z: "0")"#, 0.0, MU_B),
    ] {
        let got = cloth_slide(&format!(
            r#"Scene(name: "slide", dt: 1e-3, duration: 0.7, frame_rate: 100.0,
    materials: {{ "wood": (density: 1000.0, youngs_modulus: 1e9, poisson_ratio: 0.3) }},
    friction: (default: (mu: 0.25, mu_t: {MU_T}, mu_b: {MU_B})),
    bodies: [ Solid(name: "block", material: "wood", mesh: Box(size: (0.1, 0.1, 0.1), cells: (2, 2, 2)),
                    position: (0.0, 0.0, 0.05), rotation: (0.0, 0.0, {rotation}), velocity: ({V0}, 0.0, 0.0), {structure}) ],
    colliders: [ Plane(name: "floor", material: "wood") ],
    pipeline: Nonsmooth(solver: FischerBurmeister, tolerance: 1e-10))"#
        ));
        assert_slide(&format!("solid, {structure}, turned {rotation}°"), mu, got);
    }
}

/// A solid's structure is refused where it would do nothing or is malformed, with the field
/// named: outside `Nonsmooth`, a zero direction, both forms at once, a bad field.
#[test]
fn bad_solid_structures_are_refused() {
    for (structure, pipeline, at, expect) in [
        ("structure: (1.0, 0.0, 0.0)", "Penalty()", "bodies[0].structure", "acts in `pipeline: Nonsmooth(..)` only"),
        ("structure: (0.0, 0.0, 0.0)", "Nonsmooth()", "bodies[0].structure", "must be non-zero"),
        (
            r#"structure: (1.0, 0.0, 0.0), structure_field: Radial()"#,
            "Nonsmooth()",
            "bodies[0].structure_field",
            "not both",
        ),
        (
            r#"structure_field: Expression(x: "q", y: "0", z: "0")"#,
            "Nonsmooth()",
            "bodies[0].structure_field",
            "x, y and z",
        ),
    ] {
        let text = format!(
            r#"Scene(name: "bad", dt: 1e-3, duration: 0.01, frame_rate: 100.0,
    materials: {{ "wood": (density: 600.0, youngs_modulus: 1e9, poisson_ratio: 0.3) }},
    friction: (default: (mu: 0.25, mu_t: 0.1, mu_b: 0.4)),
    bodies: [ Solid(name: "block", material: "wood", mesh: Box(size: (0.1, 0.1, 0.1), cells: (1, 1, 1)), {structure}) ],
    colliders: [ Plane(name: "floor", material: "wood") ],
    pipeline: {pipeline})"#
        );
        let err = fricsim::scene::parse_scene_str(&text, "bad", std::path::Path::new("."), &[])
            .err()
            .unwrap_or_else(|| panic!("{structure} accepted"))
            .to_string();
        assert!(err.contains(at) && err.contains(expect), "{structure}: {err}");
    }
}
