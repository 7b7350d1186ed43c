pub mod contact;
pub mod friction;
pub mod linalg;
pub mod model {
    pub mod motion;
}
pub mod energy;
pub mod mesh;
