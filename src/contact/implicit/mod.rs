//! 000's smooth implicit contact surfaces (§4.1): a moving least-squares potential Ψ blended from
//! the planes of a triangle surface's samples under a compactly supported kernel, C1 where the
//! triangle surface has edges and corners. Any triangle surface generates one: a solid's
//! boundary, a cloth, a rigid or collider mesh.

pub mod force;
pub mod kernel;
pub mod potential;
pub mod surface;

pub use kernel::Kernel;
pub use surface::ImplicitSurface;
