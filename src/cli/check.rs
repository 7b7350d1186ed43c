//! `fricsim check`: validate a scene and summarize it.

use super::CheckArgs;
use crate::model::Model;
use crate::pipeline::penalty::linear_choice::{self, is_matrix_free};
use crate::pipeline::penalty::system::System;
use crate::scene;
use std::process::ExitCode;

pub fn run(args: &CheckArgs) -> ExitCode {
    let loaded = match scene::load_scene_with(&args.scene, &args.overrides, args.allow_large) {
        Ok(l) => l,
        Err(e) => {
            eprintln!("{e}");
            return ExitCode::from(super::exit::BAD_INPUT);
        }
    };
    let (model, state) = match scene::build::build(&loaded) {
        Ok(m) => m,
        Err(e) => {
            eprintln!("{e}");
            return ExitCode::from(super::exit::BAD_INPUT);
        }
    };
    print!("{}", summary(&model, state.kappa, &state.rigid));
    print!("{}", implicit_surfaces(&model, &state.q, &state.rigid));
    ExitCode::SUCCESS
}

/// With `contact.geometry: Implicit`, each solid's field at the positions `q`: its kernel and
/// radius, the largest triangle, 000's approximation error h_err, and a warning where the radius
/// is not above half the largest triangle (the surface would have holes). With `Smooth`, also each
/// rigid body's field (its refined surface, and the number of its triangles). Empty otherwise.
pub fn implicit_surfaces(model: &Model, q: &[f64], rigid: &[crate::rigid::RigidBody]) -> String {
    use crate::scene::schema::{ContactGeometry, PipelineSpec};
    use std::fmt::Write;
    let (kernel, radius) = match &model.pipeline {
        PipelineSpec::Penalty(p) => match p.contact.geometry {
            ContactGeometry::Implicit { kernel, radius } => (kernel, radius),
            ContactGeometry::Closest => return String::new(),
        },
        PipelineSpec::Smooth(p) => (p.field.kernel, p.field.radius),
        PipelineSpec::Nonsmooth(_) => return String::new(),
    };
    let field =
        if matches!(model.pipeline, PipelineSpec::Smooth(_)) { "pipeline.field" } else { "pipeline.contact.geometry" };
    let mut s = String::new();
    for solid in &model.solids {
        let field_surface =
            crate::contact::implicit::ImplicitSurface::of_solid_boundary(&solid.surface, kernel, radius, q);
        let _ = writeln!(
            s,
            "  implicit surface of '{}': {kernel:?}, radius {radius} m, largest triangle {:.4e} m, h_err {:.3e}",
            solid.name,
            field_surface.largest_triangle(q),
            field_surface.approximation_error(q)
        );
        if let Some(w) = field_surface.radius_warning(q) {
            let _ = writeln!(s, "  warning: {field}.radius: '{}': {w}", solid.name);
        }
    }
    if !matches!(model.pipeline, PipelineSpec::Smooth(_)) {
        return s;
    }
    use crate::pipeline::smooth::rigid_field::RigidSurface;
    let rigid_fields =
        rigid.iter().zip(&model.rigids).map(|(b, r)| (r.name.as_str(), RigidSurface::new(&b.shape, kernel, radius)));
    let mesh_fields = model
        .mesh_colliders
        .iter()
        .map(|m| (m.name.as_str(), RigidSurface::from_mesh(m.vertices.clone(), m.triangles.clone(), kernel, radius)));
    for m in &model.mesh_colliders {
        if let Some(a) = &m.animation {
            let _ = writeln!(s, "  mesh collider '{}': animated, {}", m.name, a.describe());
        }
    }
    for (name, f) in rigid_fields.chain(mesh_fields) {
        if f.is_exact() {
            let _ = writeln!(s, "  field of '{name}': its exact signed distance, {} contact points", f.q.len() / 3);
            continue;
        }
        let _ = writeln!(
            s,
            "  implicit surface of '{name}': {kernel:?}, radius {radius} m, {} triangles, {} points, largest triangle \
             {:.4e} m, h_err {:.3e}",
            f.field.triangles.len(),
            f.q.len() / 3,
            f.field.largest_triangle(&f.q),
            f.field.approximation_error(&f.q)
        );
        if let Some(w) = f.field.radius_warning(&f.q) {
            let _ = writeln!(s, "  warning: pipeline.field.radius: '{name}': {w}");
        }
    }
    s
}

/// Human-readable summary of a model (also printed at the start of a run).
fn shape_name(s: &crate::rigid::RigidShape) -> String {
    use crate::rigid::RigidShape as S;
    match s {
        S::Box { half } => format!("box {:?} m", (2.0 * half).as_slice()),
        S::Sphere { radius } => format!("sphere r {radius} m"),
        S::Cylinder { radius, half_length } => format!("cylinder r {radius} m, length {} m", 2.0 * half_length),
        S::Capsule { radius, half_length } => format!("capsule r {radius} m, length {} m", 2.0 * half_length),
        S::ConvexMesh(m) => format!("convex mesh ({} vertices, {} faces)", m.vertices.len(), m.faces.len()),
        S::NonConvex(m) => format!(
            "non-convex mesh ({} vertices, {} triangles, {} creases; checked and distance tree built in {:.1} ms, \
             {:.0} kB)",
            m.vertices.len(),
            m.triangles.len(),
            m.crease_count(),
            1e3 * m.build_seconds,
            m.memory_bytes() as f64 / 1e3
        ),
    }
}

pub fn summary(model: &Model, kappa: f64, rigid: &[crate::rigid::RigidBody]) -> String {
    use std::fmt::Write;
    let mut s = String::new();
    let _ = writeln!(s, "scene '{}'", model.name);
    let _ = writeln!(
        s,
        "  time: dt {} s, {} steps/frame at {} frames/s, {} frames, {} steps, {} s simulated",
        model.dt,
        model.steps_per_frame,
        model.frame_rate,
        model.frames,
        model.step_count(),
        model.step_count() as f64 * model.dt
    );
    let _ = writeln!(s, "  gravity: ({}, {}, {}) m/s^2", model.gravity.x, model.gravity.y, model.gravity.z);
    for b in &model.solids {
        let kin = model.kinematic.iter().flat_map(|k| &k.nodes).filter(|&&i| b.nodes.contains(&i)).count();
        let _ = writeln!(
            s,
            "  solid '{}': {} nodes ({} kinematic), {} tets, {} surface triangles, mass {:.6} kg, material '{}' ({:?}){}",
            b.name,
            b.node_count(),
            kin,
            b.elements.len(),
            b.surface.len(),
            b.mass,
            model.friction.materials[b.material],
            b.elastic.model,
            if b.structure.is_empty() {
                String::new()
            } else {
                let n = b.structure.iter().filter(|c| **c != [0.0, 0.0]).count();
                format!(", with structure on {n} surface triangles")
            }
        );
        if let Some(e) = &b.embedding {
            let _ = writeln!(
                s,
                "    embedded: a surface of {} vertices enclosing {:.4e} m^3 in a cage of {} nodes enclosing {:.4e} m^3 \
                 (the cage's tets carry the elasticity, the mass is the surface's)",
                e.nodes.len(),
                e.surface_volume,
                b.node_count() - e.nodes.len(),
                e.cage_volume
            );
        }
        if let Some(d) = &b.displaced {
            let taken = if b.reduced.is_some() {
                format!(", taken by the modes to within {:.3e} m", d.off)
            } else {
                String::new()
            };
            let _ = writeln!(s, "    starts displaced from its rest shape by up to {:.3e} m{taken}", d.largest);
        }
        if let Some(k) = b.reduced {
            // Bodies of one mesh, material and modes share one model, built once.
            let first = model.reduced.iter().position(|r| std::sync::Arc::ptr_eq(&r.model, &model.reduced[k].model));
            match first {
                Some(f) if f < k => {
                    let _ = writeln!(s, "    reduced: the model of reduced body {f} (same mesh, material and modes)");
                }
                _ => {
                    let _ = writeln!(s, "    {}", reduced_summary(&model.reduced[k]));
                }
            }
        }
    }
    for c in &model.colliders {
        let _ =
            writeln!(s, "  collider '{}': {:?}, material '{}'", c.name, c.shape, model.friction.materials[c.material]);
    }
    for (c, m) in model.mesh_colliders.iter().filter_map(|c| Some((c, c.surface.as_ref()?))) {
        let sides = if m.closed { "closed" } else { "open, one-sided" };
        let _ = writeln!(
            s,
            "  mesh collider '{}' met by rigid bodies: {sides}, {} vertices, {} triangles, {} creases; checked and \
             distance tree built in {:.1} ms, {:.0} kB{}",
            c.name,
            m.vertices.len(),
            m.triangles.len(),
            m.crease_count(),
            1e3 * m.build_seconds,
            m.memory_bytes() as f64 / 1e3,
            if c.animation.is_some() { " (its tree rebuilt each step)" } else { "" }
        );
    }
    for (r, b) in model.rigids.iter().zip(rigid) {
        let kind = if r.is_dynamic() { "dynamic" } else { "kinematic" };
        let _ = writeln!(
            s,
            "  rigid '{}': {}, {kind}, mass {:.6} kg, inertia diag ({:.4e}, {:.4e}, {:.4e}) kg m^2, material '{}'{}",
            r.name,
            shape_name(&b.shape),
            b.mass,
            b.inertia_body[(0, 0)],
            b.inertia_body[(1, 1)],
            b.inertia_body[(2, 2)],
            model.friction.materials[r.material],
            if r.structure.is_some() { ", with structure direction" } else { "" }
        );
    }
    for j in &model.joints {
        use crate::rigid::joint::JointKind;
        let kind = match &j.kind {
            JointKind::Ball => "ball".to_string(),
            JointKind::Hinge { motor: Some(m), .. } => {
                format!("hinge with motor ({:.4} deg/s, at most {} N m)", m.speed.to_degrees(), m.max_torque)
            }
            JointKind::Hinge { motor: None, .. } => "hinge".to_string(),
            JointKind::Fixed { .. } => "fixed".to_string(),
        };
        let other = j.b.map_or("the world", |b| model.rigids[b].name.as_str());
        let _ = writeln!(s, "  joint: {kind} between '{}' and {}{other}{}", model.rigids[j.a].name, q(j.b), q(j.b));
    }
    for c in &model.cloths {
        let _ = writeln!(
            s,
            "  cloth '{}': {} nodes, {} triangles, {} hinges, thickness {} m, material '{}'{}",
            c.name,
            c.nodes.len(),
            c.triangles.len(),
            c.hinges.len(),
            c.thickness,
            model.friction.materials[c.material],
            if c.structure.is_empty() { "" } else { ", with structure (warp) direction" }
        );
    }
    for b in &model.rod_bundles {
        let _ = writeln!(
            s,
            "  rods '{}': {} rods, {} nodes, radius {} m, material '{}', {}{}",
            b.name,
            b.rods.len(),
            b.nodes.len(),
            b.radius,
            model.friction.materials[b.material],
            match b.twist {
                crate::scene::schema::TwistSpec::Quasistatic => "quasistatic twist".to_string(),
                crate::scene::schema::TwistSpec::Dynamic => {
                    format!("dynamic twist (rotational inertia {:.3e} kg m²/m)", b.twist_inertia)
                }
            },
            match &b.attached {
                Some(a) => format!(", roots riding on dynamic body '{}'", model.rigids[a.body].name),
                None => String::new(),
            }
        );
    }
    for a in &model.attached_regions {
        let _ = writeln!(s, "  {} nodes riding on dynamic body '{}'", a.nodes.len(), model.rigids[a.body].name);
    }
    // What the penalty Newton runs: `Auto` resolved once (it may take a symbolic analysis).
    let matrix_free = matches!(&model.pipeline, crate::scene::schema::PipelineSpec::Penalty(p)
        if is_matrix_free(model, &p.newton));
    match &model.pipeline {
        crate::scene::schema::PipelineSpec::Penalty(p) => {
            let _ = writeln!(
                s,
                "  pipeline: Penalty, {}, {:?} friction, delta {} m, initial kappa {:.4e} N/m, {} linear solves",
                crate::integrator::Scheme::new(p.integrator, true).name,
                p.friction,
                p.contact.delta,
                kappa,
                linear_choice::name(p.newton.linear_solver, matrix_free)
            );
            if p.newton.linear_solver == crate::scene::schema::LinearSolverSpec::Auto {
                let _ = writeln!(
                    s,
                    "  linear_solver Auto: Iterative for solids (no cloth, no volume penalty) up to largest h² k / m {} \
                     where the preconditioner rule gives block Jacobi, else Gmres; here largest h² k / m {:.3}",
                    linear_choice::MATRIX_FREE_RATIO,
                    crate::pipeline::penalty::stiffness_cholesky::stiffness_ratio(model)
                );
            }
        }
        crate::scene::schema::PipelineSpec::Nonsmooth(p) => {
            let _ = writeln!(
                s,
                "  pipeline: Nonsmooth, solver {:?}, tolerance {:e}, max {} iterations, warm start {}, restitution {}",
                p.solver, p.tolerance, p.max_iterations, p.warm_start, p.restitution
            );
        }
        crate::scene::schema::PipelineSpec::Smooth(p) => {
            let _ = writeln!(
                s,
                "  pipeline: Smooth, field {:?} R = {} m, forwarding {}, friction {:?} to {:e}, predictor to {:e} m/s",
                p.field.kernel,
                p.field.radius,
                p.forwarding,
                p.friction.solver,
                p.friction.tolerance,
                p.predictor.tolerance
            );
            if p.delassus == crate::scene::schema::DelassusSpec::Mass {
                lumped_mass_notes(model, &mut s);
            }
        }
    }
    let rigid_mass: f64 = rigid.iter().map(|b| b.mass).sum();
    let _ = writeln!(
        s,
        "  totals: {} nodes, {} DOFs, {} tets, {} rigid bodies, mass {:.6} kg",
        model.node_count(),
        model.dof_count() + 6 * rigid.len(),
        model.element_count(),
        rigid.len(),
        model.total_mass() + rigid_mass
    );
    // The preconditioner's sizes and choice, from one symbolic analysis.
    let preconditioner = match &model.pipeline {
        crate::scene::schema::PipelineSpec::Penalty(p) if matrix_free => {
            use crate::pipeline::penalty::stiffness_cholesky::{
                FILL_LIMIT, STIFF_RATIO, StiffnessCholesky, choice, stiffness_ratio,
            };
            let (nnz, fill) = StiffnessCholesky::sizes(&System::new(model, false));
            let cholesky = choice(model, p.newton.preconditioner, || (nnz, fill));
            let kind = if cholesky { "Cholesky" } else { "block Jacobi" };
            let _ = writeln!(
                s,
                "  Iterative preconditioner: {kind} (largest h² k / m {:.3}, Cholesky matrix nnz {nnz}, factor nnz {fill}; Auto takes the Cholesky above {STIFF_RATIO} up to {FILL_LIMIT}× fill)",
                stiffness_ratio(model)
            );
            cholesky.then_some((nnz, fill))
        }
        _ => None,
    };
    if model.cloths.is_empty() && model.rod_bundles.is_empty() && model.rigids.is_empty() {
        if matrix_free {
            let bytes = matrix_free_memory_estimate(model, preconditioner);
            let what = match preconditioner {
                Some((nnz, fill)) => format!("Cholesky preconditioner nnz {nnz}, factor nnz {fill}"),
                None => "block-Jacobi preconditioner".into(),
            };
            let _ = writeln!(
                s,
                "  estimated memory: {:.0} MB (matrix-free Newton: no Jacobian is assembled; {what})",
                bytes as f64 / 1e6
            );
        } else {
            let (bytes, nnz, fill) = memory_estimate(model);
            let _ = writeln!(
                s,
                "  estimated memory: {:.0} MB (Jacobian nnz {nnz}, Cholesky factor nnz {fill})",
                bytes as f64 / 1e6
            );
        }
    } else {
        // The estimate models the penalty pipeline's matrices; the nonsmooth pipeline's memory
        // grows with the contact count, which a scene does not fix in advance.
        let _ = writeln!(
            s,
            "  estimated memory: not available for rigid bodies, cloth and rods (see the README's measured tables)"
        );
    }
    s
}

/// With 000's lumped-mass Delassus operator `G M⁻¹ Gᵀ`, a note for each solid whose surface
/// vertices' period `√(m/k)` is below the time step: the friction step then treats a contact
/// vertex as a free mass `m` where the implicit step holds it with its elements (`m + h² k`), and
/// prices sticking at `m / (m + h² k)` of its cost; vertices stick where they should slip and the
/// elements around them tear (README, "The thumb"). `m` is the median surface node mass and
/// `k ≈ E c` with `c` the node spacing (the cube root of the volume per node).
fn lumped_mass_notes(model: &Model, s: &mut String) {
    use std::fmt::Write as _;
    let h = model.dt;
    for solid in &model.solids {
        let Some((m, k)) = solid.surface_node_stiffness(&model.node_mass) else { continue };
        let period = (m / k).sqrt();
        if h > period {
            let _ = writeln!(
                s,
                "  note: delassus Mass with h = {h} s above solid '{}''s surface-vertex period √(m/k) = {period:.2e} s \
                 (m {m:.2e} kg, k ≈ E × spacing = {k:.3e} N/m): its friction step prices sticking at m/(m + h²k) = \
                 {:.2e} of the cost; vertices may stick where they should slip. Use h below the period or `delassus: Stiffness`",
                solid.name,
                m / (m + h * h * k)
            );
        }
    }
}

/// Peak memory of a matrix-free (`Iterative`, or `Auto` resolved to it) penalty run, in bytes:
/// the process baseline, per element its energy and gradient, the product and preconditioner
/// buffers, its ∂P/∂F in product form (and a 12×12 damping stiffness with Rayleigh beta), per node
/// its 3×3 preconditioner block, about 31 full-length vectors (state, forces, residual, integrator
/// levels, BiCGSTAB, the product form's positions) and, with the Cholesky preconditioner, its
/// matrix and factor (`cholesky`: their entries, from the symbolic analysis). Measured with block
/// Jacobi: 19.7 MB for the 6000-tet ramp; this gives 19 MB.
pub fn matrix_free_memory_estimate(model: &Model, cholesky: Option<(usize, usize)>) -> usize {
    const BASELINE: usize = 14_000_000; // measured RSS of a run of a 192-tet scene
    let damping = model.solids.iter().any(|s| s.rayleigh.1 > 0.0);
    // Per element: its entry, energy and gradient, start-of-step stiffness for damping, and
    // either (Cholesky) its product buffer and ∂P/∂F or (block Jacobi) its slots in the node
    // blocks; per node: block Jacobi's inverse and about 16 node blocks with their columns.
    let products = if cholesky.is_some() { 96 + 184 } else { 64 };
    let per_element = 8 + 104 + products + if damping { 1152 } else { 0 };
    let per_node = if cholesky.is_some() { 0 } else { 72 + 16 * 76 };
    let base =
        BASELINE + model.element_count() * per_element + model.node_count() * per_node + model.dof_count() * 8 * 31;
    base + cholesky.map_or(0, |(nnz, fill)| nnz * 16 + fill * 12)
}

/// Peak memory of a run, in bytes: the process baseline, per-element buffers, the Jacobian, the
/// Cholesky factor of its symmetric part (exact size from the symbolic analysis) and, since the
/// first steps may fall back to sparse LU, an LU factor budgeted at five times the Cholesky fill
/// (measured peak RSS: 97 MB for the 6000-tet ramp, 15 MB for the 192-tet block, 27 MB for a
/// 1300-tet ball; this estimate gives 100, 15 and 26 MB).
pub fn memory_estimate(model: &Model) -> (usize, usize, usize) {
    use faer::sparse::SymbolicSparseColMatRef;
    use faer::sparse::linalg::cholesky::factorize_symbolic_cholesky;
    const BASELINE: usize = 14_000_000; // measured RSS of a run of a 192-tet scene
    let sys = System::new(model, true);
    let p = &sys.jacobian.pattern;
    let sym = SymbolicSparseColMatRef::new_checked(p.n, p.n, &p.col_ptr, None, &p.row_idx);
    let fill = factorize_symbolic_cholesky(sym, faer::Side::Lower, Default::default(), Default::default())
        .map(|f| f.len_val())
        .unwrap_or(10 * p.nnz());
    let per_element = 8 + 96 + 1152 + 576; // energy, gradient, Hessian, assembly slots
    let bytes = BASELINE
        + model.element_count() * per_element
        + p.nnz() * 16 * 2 // Jacobian values + indices, and its symmetric part
        + fill * 12 * 6 // Cholesky values + indices, and the LU fallback at 5x
        + model.dof_count() * 8 * 60; // state, residual, Newton and GMRES(40) vectors
    (bytes, p.nnz(), fill)
}

/// A quote around a body name, none around "the world".
fn q(side: Option<usize>) -> &'static str {
    if side.is_some() { "'" } else { "" }
}

/// A reduced body's line: its model, unknowns, frequency range and what its build cost.
fn reduced_summary(r: &crate::reduced::ReducedModel) -> String {
    let (kind, bytes) = match &r.elasticity {
        crate::reduced::Elasticity::Modal => ("linear modal", 0),
        crate::reduced::Elasticity::Stvk(p) => ("reduced StVK", p.bytes()),
    };
    let hz = |l: f64| l.max(0.0).sqrt() / (2.0 * std::f64::consts::PI);
    format!(
        "reduced: {kind}, {} modes ({} unknowns), {:.4e} to {:.4e} Hz, built in {:.3} s ({} subspace passes), modes {:.2} MB, StVK coefficients {:.2} MB",
        r.modes(),
        r.dofs(),
        hz(r.lambda[0]),
        hz(r.lambda[r.modes() - 1]),
        r.build.1,
        r.build.0,
        (8 * r.phi.len()) as f64 / 1e6,
        bytes as f64 / 1e6
    )
}
