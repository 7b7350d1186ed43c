//! A stretched elastic band on a spherical head (004 W7's hair band): its geometry and the
//! friction it needs to stay where it is put.
#![allow(dead_code)]

/// 004 Table 4's hair band: 5 mm thick, 0.4 g/cm³, E_s 1 MPa, ν 0.4.
pub const THICKNESS: f64 = 5e-3;
pub const DENSITY: f64 = 400.0;
pub const YOUNGS: f64 = 1e6;
pub const POISSON: f64 = 0.4;
/// The band's width (m) as meshed, and its rest scale: every rest length 0.9 of the mesh's, so
/// the band sits stretched by 1/0.9.
pub const WIDTH: f64 = 0.01;
pub const REST_SCALE: f64 = 0.9;

/// The band as an OBJ: a conical strip `WIDTH` wide tangent to the sphere of radius `rho`
/// (centred at the origin) along its circle of latitude `phi` (rad), `around` × `across` quads
/// each split in two.
pub fn frustum_obj(rho: f64, phi: f64, around: usize, across: usize) -> String {
    let mut text = String::new();
    let (c, s) = (phi.cos(), phi.sin());
    for j in 0..=across {
        // Along the cone's generator, tangent to the sphere's meridian at the middle circle.
        let t = WIDTH * (j as f64 / across as f64 - 0.5);
        let (radial, z) = (rho * c - t * s, rho * s + t * c);
        for i in 0..around {
            let a = std::f64::consts::TAU * i as f64 / around as f64;
            text += &format!("v {:.12} {:.12} {:.12}\n", radial * a.cos(), radial * a.sin(), z);
        }
    }
    let id = |i: usize, j: usize| j * around + i % around + 1;
    for j in 0..across {
        for i in 0..around {
            text += &format!("f {} {} {}\n", id(i, j), id(i + 1, j), id(i + 1, j + 1));
            text += &format!("f {} {} {}\n", id(i, j), id(i + 1, j + 1), id(i, j + 1));
        }
    }
    text
}

/// The friction coefficient at which a band stretched to hoop tension `tension` (N) and weighing
/// `weight` per metre (N/m) stops sliding towards the pole from latitude `phi` on a sphere it
/// touches at radius `rho`. The tension pulls the ring (radius ρ cos φ) inwards by T/(ρ cos φ)
/// per metre: T/ρ along the sphere's normal and T tan φ/ρ along its meridian towards the pole;
/// the weight adds w sin φ to the normal load and w cos φ away from the pole. It holds iff
/// T tan φ/ρ − w cos φ ≤ μ (T/ρ + w sin φ).
pub fn threshold(tension: f64, weight: f64, rho: f64, phi: f64) -> f64 {
    let beta = weight * rho / tension;
    (phi.tan() - beta * phi.cos()) / (1.0 + beta * phi.sin())
}

/// The band's hoop tension (N) when it sits at its mesh's size: the membrane (St. Venant–
/// Kirchhoff in Green's strain) stretched by λ = 1/REST_SCALE along the hoop with its width free
/// to narrow carries the first Piola stress λ E (λ² − 1)/2 on its rest section (thickness × rest
/// width).
pub fn hoop_tension() -> f64 {
    let stretch = 1.0 / REST_SCALE;
    stretch * YOUNGS * 0.5 * (stretch * stretch - 1.0) * THICKNESS * WIDTH * REST_SCALE
}

/// The band's weight per metre of its stretched length (N/m): the mass is the rest sheet's,
/// spread over a length 1/REST_SCALE of its rest length.
pub fn weight_per_metre(g: f64) -> f64 {
    DENSITY * THICKNESS * WIDTH * REST_SCALE * REST_SCALE * g
}
