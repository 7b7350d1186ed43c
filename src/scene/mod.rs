//! Scene files: RON loading, `--set` overrides, semantic validation and error messages.
//!
//! The CLI calls [`load_scene`]; the model builder reads [`LoadedScene::scene`], resolves mesh
//! paths with [`resolve_path`] and reports later problems with [`error_at`] so that every scene
//! error has the same `file[:line:col]: field [= value]: message` form.

pub mod build;
mod displacement;
mod embedded;
pub mod error;
mod joints;
pub mod load;
mod locate;
pub mod overrides;
mod regions;
mod rigid;
pub mod schema;
mod surface_structure;
mod thin;
pub mod validate;

pub use error::{Problem, SceneError, error_at};
pub use load::{LoadedScene, load_scene, load_scene_with, parse_scene_str, parse_scene_str_with, resolve_path};
