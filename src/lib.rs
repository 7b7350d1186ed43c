pub mod cli;
pub mod dfcp;
pub mod friction;
pub mod linalg;

pub mod version {
    pub const VERSION: &str = env!("CARGO_PKG_VERSION");
}
