//! Friction laws. `smooth`: the smoothed Coulomb/Stribeck/viscous law of the penalty pipeline.
pub mod smooth;
