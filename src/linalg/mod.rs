//! Linear algebra shared by the pipelines.
pub mod sparse;
