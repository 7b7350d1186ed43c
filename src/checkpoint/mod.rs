//! Checkpoints: everything a run's next step and next frame read, written atomically every few
//! frames, so that `fricsim run --resume OUT` continues bit for bit where the run was.
//!
//! A checkpoint does not hold the model: the resumed run loads, builds and settles the scene again
//! (deterministic), which also rebuilds what the pipelines fix at their construction (the adapted
//! penalty's starting stiffness, a solid's outward surface pieces, the colliders' patches). Over
//! that it lays the [`State`], the pipeline's data carried across steps ([`PipelineData`]), the
//! output writers' positions and the run's totals. The scene's hash (its effective RON with the
//! run length left out) is kept so that a changed scene is refused.

mod file;
mod state;

pub use file::{CHECKPOINT_FILE, read, write};
pub use state::SavedState;

use crate::output::frames::FramesSaved;
use serde::{Deserialize, Serialize};

/// Written into every checkpoint; a checkpoint of another format version is refused.
/// 2: rods keep their edge angles and rates (dynamic twist).
pub const FORMAT_VERSION: u32 = 3;

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Checkpoint {
    pub format_version: u32,
    pub fricsim_version: String,
    /// [`scene_hash`] of the scene the run was started with.
    pub scene_hash: u64,
    /// The scene file and `--set` overrides the run was started with (to resume without naming
    /// them again).
    pub scene_path: String,
    pub overrides: Vec<String>,
    pub checkpoint_every: usize,
    /// The last frame written before the checkpoint.
    pub frame: usize,
    pub state: SavedState,
    pub pipeline: PipelineData,
    pub frames: FramesSaved,
    /// `stats.csv` rows and bytes at the checkpoint (`None`: the scene writes no statistics).
    pub stats: Option<(u64, u64)>,
    /// The run's totals (run.json), as the run's own serialised form.
    pub totals: Vec<u8>,
}

/// What a pipeline carries from one step to the next: its own carried data, encoded by the
/// pipeline itself ([`PipelineData::of`]) and decoded by it ([`PipelineData::read`]), so that
/// checkpoints see pipelines only through `Pipeline::save`/`restore` and name none of their types.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PipelineData {
    /// The pipeline that wrote it (`Penalty`, `Nonsmooth`, `Smooth`).
    pub pipeline: String,
    /// Its carried data in postcard.
    pub bytes: Vec<u8>,
}

impl PipelineData {
    /// `data` as written by `pipeline`.
    pub fn of<T: Serialize>(pipeline: &str, data: &T) -> PipelineData {
        // Serialising plain data (numbers, vectors, maps as sorted lists) into memory cannot fail.
        let bytes = postcard::to_stdvec(data).expect("carried pipeline data serialises");
        PipelineData { pipeline: pipeline.into(), bytes }
    }

    /// The data `pipeline` wrote; an error if another pipeline wrote it or it does not decode.
    pub fn read<T: serde::de::DeserializeOwned>(&self, pipeline: &str) -> Result<T, String> {
        if self.pipeline != pipeline {
            return Err(format!("the checkpoint was taken by the {} pipeline, not this scene's", self.pipeline));
        }
        postcard::from_bytes(&self.bytes).map_err(|e| format!("the {pipeline} pipeline's data cannot be decoded: {e}"))
    }
}

/// FNV-1a of the scene's effective RON with its run length (`duration`, `frames`) left out:
/// running longer is what resuming is for, anything else changes the results.
pub fn scene_hash(scene: &crate::scene::schema::Scene) -> Result<u64, String> {
    let mut s = scene.clone();
    s.duration = None;
    s.frames = None;
    let text = crate::scene::load::to_ron(&s).map_err(|e| e.to_string())?;
    Ok(fnv1a(text.as_bytes()))
}

/// 64-bit FNV-1a: stable across builds and platforms (std's hashers are not promised to be).
pub fn fnv1a(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |h, &b| (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3))
}

/// A map's entries sorted by key, so that a checkpoint's bytes do not depend on hash order.
pub fn sorted<K: Ord + Clone, V: Clone>(map: &std::collections::HashMap<K, V>) -> Vec<(K, V)> {
    let mut v: Vec<(K, V)> = map.iter().map(|(k, v)| (k.clone(), v.clone())).collect();
    v.sort_by(|a, b| a.0.cmp(&b.0));
    v
}
