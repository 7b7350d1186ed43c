pub mod version {
    pub const VERSION: &str = env!("CARGO_PKG_VERSION");
}
pub mod output;
