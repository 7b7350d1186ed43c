pub mod energy;
pub mod scene;

pub mod version {
    pub const VERSION: &str = env!("CARGO_PKG_VERSION");
}
