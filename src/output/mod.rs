//! Output layer: everything fricsim writes to disk.
//!
//! Layout of a run folder (see `DESIGN.md`, section Output):
//! `scene.pvd` ([`pvd`]), `vtk/<body>_<frame>.vtu` ([`vtu`]; colliders as
//! `vtk/collider_<name>_<frame>.vtu`, [`colliders`]), `ply/<body>_<frame>.ply`
//! ([`ply`]), `stats.csv` ([`stats`]) and `run.json` ([`summary`]).
//!
//! Principle 7 ("output never lies and never half-writes") is enforced here: every whole-file
//! writer goes through [`atomic::write_atomically`], the `.pvd` collection is rewritten after each
//! frame, and statistics rows are flushed as they are written.

pub mod atomic;
pub mod colliders;
/// Reading back the CSV tables written here (`stats.csv`, `sweep.csv`).
pub mod csv_table;
mod error;
mod format;
pub mod frames;
pub mod joints;
pub mod paraview_script;
pub mod ply;
pub mod pvd;
pub mod stats;
pub mod summary;
pub mod vtu;

pub use error::OutputError;
pub use format::format_f64;
