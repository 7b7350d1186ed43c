//! `fricsim check`: validate a scene and summarize it.

use super::CheckArgs;
use crate::model::Model;
use crate::pipeline::penalty::system::System;
use crate::scene;
use std::process::ExitCode;

pub fn run(args: &CheckArgs) -> ExitCode {
    let loaded = match scene::load_scene(&args.scene, &args.overrides) {
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
    print!("{}", summary(&model, state.kappa));
    ExitCode::SUCCESS
}

/// Human-readable summary of a model (also printed at the start of a run).
pub fn summary(model: &Model, kappa: f64) -> String {
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
            "  solid '{}': {} nodes ({} kinematic), {} tets, {} surface triangles, mass {:.6} kg, material '{}' ({:?})",
            b.name,
            b.node_count(),
            kin,
            b.elements.len(),
            b.surface.len(),
            b.mass,
            model.friction.materials[b.material],
            b.elastic.model
        );
    }
    for c in &model.colliders {
        let _ =
            writeln!(s, "  collider '{}': {:?}, material '{}'", c.name, c.shape, model.friction.materials[c.material]);
    }
    let crate::scene::schema::PipelineSpec::Penalty(p) = &model.pipeline;
    let _ = writeln!(
        s,
        "  pipeline: Penalty, backward Euler, {:?} friction, delta {} m, initial kappa {:.4e} N/m",
        p.friction, p.contact.delta, kappa
    );
    let _ = writeln!(
        s,
        "  totals: {} nodes, {} DOFs, {} tets, mass {:.6} kg",
        model.node_count(),
        model.dof_count(),
        model.element_count(),
        model.total_mass()
    );
    let sys = System::new(model);
    let nnz = sys.jacobian.pattern.nnz();
    // Element buffers (energy, gradient, 12x12 Hessian, slots) + Jacobian values and pattern +
    // sparse LU factors, whose fill we bound by ~10x the Jacobian for 3D tet meshes under COLAMD.
    let bytes = model.element_count() * (8 + 96 + 1152 + 576) + nnz * 16 + 10 * nnz * 16 + model.dof_count() * 8 * 12;
    let _ = writeln!(s, "  estimated memory: {:.1} MB (Jacobian nnz {})", bytes as f64 / 1e6, nnz);
    s
}
