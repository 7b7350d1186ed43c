//! Per-frame output of a model: one VTU and one PLY per body, the colliders' geometry (VTU), and
//! the `.pvd` collection.

use super::OutputError;
use super::colliders::{ColliderGeometry, collider_geometry};
use super::joints::{JOINTS, joint_lines};
use super::ply::write_ply;
use super::pvd::PvdCollection;
use super::vtu::{Cells, UnstructuredSnapshot, write_vtu};
use crate::contact::ContactPoint;
use crate::model::{Model, State, node};
use nalgebra::Vector3;
use std::path::{Path, PathBuf};

/// Tetrahedra and surface triangles of one solid, in its own node numbering.
/// A solid's tets and surface triangles in its local numbering, and the first local node of
/// its PLY surface (an embedded surface's nodes follow the cage's, which the PLY leaves out).
type LocalTopology = (Vec<[usize; 4]>, Vec<[usize; 3]>, usize);

pub struct FrameWriter {
    out_dir: PathBuf,
    pvd: PvdCollection,
    /// Per solid: tets and surface triangles in local node numbering.
    local: Vec<LocalTopology>,
    /// Per cloth: triangles, and per rod bundle: segments, in local node numbering.
    cloth_triangles: Vec<Vec<[usize; 3]>>,
    rod_segments: Vec<Vec<[usize; 2]>>,
    /// The colliders' geometry, and the file of each one that never moves once written.
    colliders: Vec<ColliderGeometry>,
    collider_files: Vec<Option<String>>,
    /// One collection per series (`vtk/<series>.pvd`), so that each body, collider or the contact
    /// points can be opened, coloured and hidden on its own (`open_in_paraview.py`).
    series: std::collections::BTreeMap<String, PvdCollection>,
}

/// Per-node vectors every nodal body writes: velocity, contact force, friction force.
struct NodalFields {
    velocity: Vec<[f64; 3]>,
    contact: Vec<[f64; 3]>,
    friction: Vec<[f64; 3]>,
}

impl NodalFields {
    fn new(nodes: std::ops::Range<usize>, state: &State, normal_force: &[f64], friction_force: &[f64]) -> Self {
        let take = |x: &[f64]| nodes.clone().map(|i| node(x, i).into()).collect();
        NodalFields { velocity: take(&state.v), contact: take(normal_force), friction: take(friction_force) }
    }

    fn vectors(&self) -> Vec<(&'static str, &[[f64; 3]])> {
        vec![("velocity", &self.velocity), ("contact_force", &self.contact), ("friction_force", &self.friction)]
    }
}

impl FrameWriter {
    /// A writer for `model` starting from `state` (which sizes the planes' patches).
    pub fn new(model: &Model, state: &State, out_dir: &Path) -> Result<FrameWriter, OutputError> {
        FrameWriter::open(model, state, out_dir, 0)
    }

    /// What a checkpoint keeps of the writer: the collections' entries and the files of the
    /// colliders that never move.
    pub fn saved(&self) -> FramesSaved {
        FramesSaved {
            pvd: self.pvd.entries().to_vec(),
            series: self.series.iter().map(|(k, c)| (k.clone(), c.entries().to_vec())).collect(),
            collider_files: self.collider_files.clone(),
        }
    }

    /// Continue a run at frame `frame` (a checkpoint's): `state` is the run's initial state (it
    /// sized the planes' patches), frames up to `frame` are kept and later ones removed.
    pub fn resume(
        model: &Model,
        state: &State,
        out_dir: &Path,
        frame: usize,
        saved: FramesSaved,
    ) -> Result<FrameWriter, OutputError> {
        let mut w = FrameWriter::open(model, state, out_dir, frame + 1)?;
        if saved.collider_files.len() != w.colliders.len() {
            return Err(OutputError::invalid(out_dir, "the checkpoint's colliders are not this scene's"));
        }
        w.pvd = PvdCollection::with_entries(w.pvd.path().to_path_buf(), saved.pvd);
        w.series = saved
            .series
            .into_iter()
            .map(|(k, e)| {
                let path = out_dir.join("vtk").join(format!("{k}.pvd"));
                (k, PvdCollection::with_entries(path, e))
            })
            .collect();
        w.collider_files = saved.collider_files;
        Ok(w)
    }

    /// A writer that removes this model's frame files numbered `first_stale` and above (all of
    /// them for a new run), so that none is mistaken for a frame of this run: ParaView groups
    /// `block_*.vtu` into one series. Other files are left alone.
    fn open(model: &Model, state: &State, out_dir: &Path, first_stale: usize) -> Result<FrameWriter, OutputError> {
        let colliders = collider_geometry(model, state);
        for (sub, ext) in [("vtk", ".vtu"), ("ply", ".ply")] {
            let dir = out_dir.join(sub);
            std::fs::create_dir_all(&dir).map_err(|e| OutputError::io(&dir, "creating the folder", e))?;
            let entries = std::fs::read_dir(&dir).map_err(|e| OutputError::io(&dir, "listing the folder", e))?;
            let series: Vec<&str> = body_names(model).chain(colliders.iter().map(|c| c.series.as_str())).collect();
            for entry in entries.flatten() {
                let name = entry.file_name();
                let stale = name
                    .to_str()
                    .is_some_and(|n| series.iter().any(|b| frame_of(n, b, ext).is_some_and(|f| f >= first_stale)));
                if stale {
                    std::fs::remove_file(entry.path())
                        .map_err(|e| OutputError::io(&entry.path(), "removing a stale frame", e))?;
                }
            }
        }
        let local = model
            .solids
            .iter()
            .map(|s| {
                let o = s.nodes.start;
                let first = s.embedding.as_ref().map_or(o, |e| e.nodes.start);
                (
                    s.elements.iter().map(|e| e.nodes.map(|i| i - o)).collect(),
                    s.surface.iter().map(|t| t.map(|i| i - first)).collect(),
                    first - o,
                )
            })
            .collect();
        let cloth_triangles =
            model.cloths.iter().map(|c| c.triangles.iter().map(|t| t.map(|i| i - c.nodes.start)).collect()).collect();
        let rod_segments = model
            .rod_bundles
            .iter()
            .map(|b| {
                let o = b.nodes.start;
                b.rods.iter().flat_map(|r| (r.first - o..r.first - o + r.len - 1).map(|j| [j, j + 1])).collect()
            })
            .collect();
        let pvd = PvdCollection::new(out_dir.join(format!("{}.pvd", model.name)));
        let collider_files = vec![None; colliders.len()];
        let series = std::collections::BTreeMap::new();
        if model.output.vtk {
            let bodies: Vec<&str> = body_names(model).filter(|n| ![CONTACTS, JOINTS].contains(n)).collect();
            let names: Vec<&str> = colliders.iter().map(|c| c.series.as_str()).collect();
            super::paraview_script::write(
                out_dir,
                &bodies,
                &names,
                !model.rigids.is_empty(),
                !model.joints.is_empty(),
            )?;
        }
        Ok(FrameWriter {
            out_dir: out_dir.to_path_buf(),
            pvd,
            local,
            cloth_triangles,
            rod_segments,
            colliders,
            collider_files,
            series,
        })
    }

    /// Write frame `frame` of every body (and the contact points, if any) and add it to the
    /// collection.
    pub fn write_frame(
        &mut self,
        model: &Model,
        state: &State,
        frame: usize,
        normal_force: &[f64],
        friction_force: &[f64],
        contacts: &[ContactPoint],
    ) -> Result<(), OutputError> {
        let mut files = Vec::new();
        for (c, tris) in model.cloths.iter().zip(&self.cloth_triangles) {
            let pts: Vec<[f64; 3]> = c.nodes.clone().map(|i| node(&state.q, i).into()).collect();
            if model.output.vtk {
                let fields = NodalFields::new(c.nodes.clone(), state, normal_force, friction_force);
                let snap = UnstructuredSnapshot {
                    points: &pts,
                    cells: Cells::Triangle(tris),
                    point_vectors: fields.vectors(),
                    point_scalars: vec![],
                    cell_scalars: vec![],
                    cell_vectors: vec![],
                };
                files.push(self.write_series(&c.name, frame, &snap)?);
            }
            if model.output.ply {
                let rel = format!("ply/{}_{frame:05}.ply", c.name);
                write_ply(&self.out_dir.join(&rel), &pts, tris, &[])?;
            }
        }
        let mut first_rod = 0;
        for (b, lines) in model.rod_bundles.iter().zip(&self.rod_segments) {
            if model.output.vtk {
                let pts: Vec<[f64; 3]> = b.nodes.clone().map(|i| node(&state.q, i).into()).collect();
                let fields = NodalFields::new(b.nodes.clone(), state, normal_force, friction_force);
                let twist = RodTwistFields::new(b, first_rod, state);
                let snap = UnstructuredSnapshot {
                    points: &pts,
                    cells: Cells::Line(lines),
                    point_vectors: fields.vectors(),
                    point_scalars: vec![],
                    cell_scalars: vec![("twist_angle", &twist.angle), ("twist_rate", &twist.rate)],
                    cell_vectors: vec![("material_director", &twist.director)],
                };
                files.push(self.write_series(&b.name, frame, &snap)?);
            }
            first_rod += b.rods.len();
        }
        for (r, body) in model.rigids.iter().zip(&state.rigid) {
            let (local, tris) = &r.surface;
            let pts: Vec<[f64; 3]> = local.iter().map(|x| body.world_point(x).into()).collect();
            if model.output.vtk {
                let vel: Vec<[f64; 3]> = pts.iter().map(|p| body.point_velocity(&Vector3::from(*p)).into()).collect();
                // Structure direction at each vertex (zero where the surface has none).
                let sdir: Vec<[f64; 3]> = local
                    .iter()
                    .map(|x| {
                        let d = r.structure.as_ref().and_then(|s| s.direction_at(x)).unwrap_or_else(Vector3::zeros);
                        (body.orientation * d).into()
                    })
                    .collect();
                let snap = UnstructuredSnapshot {
                    points: &pts,
                    cells: Cells::Triangle(tris),
                    point_vectors: vec![("velocity", &vel), ("structure_direction", &sdir)],
                    point_scalars: vec![],
                    cell_scalars: vec![],
                    cell_vectors: vec![],
                };
                files.push(self.write_series(&r.name, frame, &snap)?);
            }
            if model.output.ply {
                let rel = format!("ply/{}_{frame:05}.ply", r.name);
                write_ply(&self.out_dir.join(&rel), &pts, tris, &[])?;
            }
        }
        if model.output.vtk && !model.rigids.is_empty() {
            // Contact points as vertex cells: normal and friction force on the first body, the
            // frame's first tangent (the structure axis of a matchstick contact) and the two
            // friction coefficients along it and across it.
            let pts: Vec<[f64; 3]> = contacts.iter().map(|c| c.point.into()).collect();
            let fnorm: Vec<[f64; 3]> = contacts.iter().map(|c| c.normal_force.into()).collect();
            let ffric: Vec<[f64; 3]> = contacts.iter().map(|c| c.friction_force.into()).collect();
            let tangent: Vec<[f64; 3]> = contacts.iter().map(|c| c.tangent.into()).collect();
            let mu_t: Vec<f64> = contacts.iter().map(|c| c.mu[0]).collect();
            let mu_b: Vec<f64> = contacts.iter().map(|c| c.mu[1]).collect();
            let gap: Vec<f64> = contacts.iter().map(|c| c.gap).collect();
            let cells: Vec<[usize; 1]> = (0..pts.len()).map(|i| [i]).collect();
            let snap = UnstructuredSnapshot {
                points: &pts,
                cells: Cells::Vertex(&cells),
                point_vectors: vec![("contact_force", &fnorm), ("friction_force", &ffric), ("tangent", &tangent)],
                point_scalars: vec![("mu_t", &mu_t), ("mu_b", &mu_b), ("gap", &gap)],
                cell_scalars: vec![],
                cell_vectors: vec![],
            };
            files.push(self.write_series(CONTACTS, frame, &snap)?);
        }
        if model.output.vtk && !model.joints.is_empty() {
            let j = joint_lines(model, state);
            let snap = UnstructuredSnapshot {
                points: &j.points,
                cells: Cells::Line(&j.lines),
                point_vectors: vec![],
                point_scalars: vec![],
                cell_scalars: vec![("joint", &j.joint), ("kind", &j.kind), ("part", &j.part)],
                cell_vectors: vec![],
            };
            files.push(self.write_series(JOINTS, frame, &snap)?);
        }
        for (b, solid) in model.solids.iter().enumerate() {
            let range = solid.nodes.clone();
            let pts: Vec<[f64; 3]> = range.clone().map(|i| node(&state.q, i).into()).collect();
            if model.output.vtk {
                let fields = NodalFields::new(range.clone(), state, normal_force, friction_force);
                let psi: Vec<f64> = solid
                    .elements
                    .iter()
                    .map(|e| {
                        let x = e.nodes.map(|i| node(&state.q, i));
                        solid.elastic.energy_density(&e.deformation_gradient(&x))
                    })
                    .collect();
                let snap = UnstructuredSnapshot {
                    points: &pts,
                    cells: Cells::Tetra(&self.local[b].0),
                    point_vectors: fields.vectors(),
                    point_scalars: vec![],
                    cell_scalars: vec![("strain_energy_density", &psi)],
                    cell_vectors: vec![],
                };
                files.push(self.write_series(&solid.name, frame, &snap)?);
            }
            if model.output.ply {
                let rel = format!("ply/{}_{frame:05}.ply", solid.name);
                let (_, tris, first) = &self.local[b];
                write_ply(&self.out_dir.join(&rel), &pts[*first..], tris, &[])?;
            }
        }
        if model.output.vtk {
            self.write_colliders(model, state, frame, &mut files)?;
            self.pvd.add_frame(state.time, &files)?;
            for f in &files {
                // `vtk/<series>_<frame>.vtu`, listed from `vtk/<series>.pvd`.
                let file = f.strip_prefix("vtk/").unwrap_or(f);
                let name = file.rsplit_once('_').map_or(file, |(n, _)| n);
                let dir = self.out_dir.join("vtk");
                let c = self
                    .series
                    .entry(name.to_string())
                    .or_insert_with(|| PvdCollection::new(dir.join(format!("{name}.pvd"))));
                c.add_frame(state.time, &[file])?;
            }
        }
        Ok(())
    }

    /// Every collider posed at the frame's time (one that never moves: its first file again).
    fn write_colliders(
        &mut self,
        model: &Model,
        state: &State,
        frame: usize,
        files: &mut Vec<String>,
    ) -> Result<(), OutputError> {
        for (k, c) in self.colliders.iter().enumerate() {
            if let (false, Some(file)) = (c.moves, &self.collider_files[k]) {
                files.push(file.clone());
                continue;
            }
            let pts = c.posed(&super::colliders::placement(model, k, state.time), state.time);
            let mark = vec![1.0; c.triangles.len()];
            let snap = UnstructuredSnapshot {
                points: &pts,
                cells: Cells::Triangle(&c.triangles),
                point_vectors: vec![],
                point_scalars: vec![],
                cell_scalars: vec![("collider", &mark)],
                cell_vectors: vec![],
            };
            let rel = self.write_series(&c.series, frame, &snap)?;
            self.collider_files[k] = Some(rel.clone());
            files.push(rel);
        }
        Ok(())
    }

    /// Write frame `frame` of the series `name` and return its path relative to the output.
    fn write_series(&self, name: &str, frame: usize, snap: &UnstructuredSnapshot<'_>) -> Result<String, OutputError> {
        let rel = format!("vtk/{name}_{frame:05}.vtu");
        write_vtu(&self.out_dir.join(&rel), snap)?;
        Ok(rel)
    }
}

/// File-name stem of the contact points' series.
pub const CONTACTS: &str = "contacts";

/// Names of every series this model writes.
fn body_names(model: &Model) -> impl Iterator<Item = &str> {
    let contacts = (!model.rigids.is_empty()).then_some(CONTACTS);
    let joints = (!model.joints.is_empty()).then_some(JOINTS);
    model
        .solids
        .iter()
        .map(|s| s.name.as_str())
        .chain(model.rigids.iter().map(|r| r.name.as_str()))
        .chain(model.cloths.iter().map(|c| c.name.as_str()))
        .chain(model.rod_bundles.iter().map(|b| b.name.as_str()))
        .chain(contacts)
        .chain(joints)
}

/// Whether `name` is `<body>_<frame digits><ext>`, a frame file this writer names.
/// The frame number of `name` if it is a frame file `<body>_<NNNNN><ext>` of `body`.
fn frame_of(name: &str, body: &str, ext: &str) -> Option<usize> {
    name.strip_prefix(body)
        .and_then(|r| r.strip_prefix('_'))
        .and_then(|r| r.strip_suffix(ext))
        .filter(|d| d.len() >= 5 && d.bytes().all(|b| b.is_ascii_digit()))
        .and_then(|d| d.parse().ok())
}

/// What a checkpoint keeps of a [`FrameWriter`].
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct FramesSaved {
    pvd: Vec<super::pvd::PvdEntry>,
    series: Vec<(String, Vec<super::pvd::PvdEntry>)>,
    collider_files: Vec<Option<String>>,
}

/// Per rod segment of a bundle: its edge angle θ (rad), its rate (rad/s) and the material
/// director m1 (the reference frame transported to the segment's current tangent, turned by θ):
/// glyphs of m1 show the twist in ParaView.
struct RodTwistFields {
    angle: Vec<f64>,
    rate: Vec<f64>,
    director: Vec<[f64; 3]>,
}

impl RodTwistFields {
    fn new(b: &crate::model::RodBundle, first_rod: usize, state: &State) -> RodTwistFields {
        let mut f = RodTwistFields { angle: Vec::new(), rate: Vec::new(), director: Vec::new() };
        for (k, piece) in b.rods.iter().enumerate() {
            let (frames, twist) = (&state.rod_frames[first_rod + k], &state.rod_twist[first_rod + k]);
            for j in 0..piece.len - 1 {
                let t = (node(&state.q, piece.first + j + 1) - node(&state.q, piece.first + j)).normalize();
                f.director.push(frames.edges[j].transported(&t).material(twist.angle[j]).0.into());
            }
            f.angle.extend_from_slice(&twist.angle);
            f.rate.extend_from_slice(&twist.rate);
        }
        f
    }
}
