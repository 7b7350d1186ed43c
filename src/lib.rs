//! fricsim: batch simulation of frictional contact. See DESIGN.md for the map of modules.

pub mod checkpoint;
pub mod cli;
pub mod contact;
pub mod dfcp;
pub mod energy;
pub mod friction;
pub mod integrator;
pub mod linalg;
pub mod mesh;
pub mod model;
pub mod output;
pub mod pipeline;
pub mod plot;
pub mod reduced;
pub mod rigid;
pub mod scene;
pub mod simulation;
pub mod sweep;
mod test_rng;
