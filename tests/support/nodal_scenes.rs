//! Procedural scenes for the nodal contact tests and benchmark: a cloth folded onto itself and a
//! bundle of wavy rods. Included with `#[path = ".../support/nodal_scenes.rs"] mod nodal_scenes;`
//! next to `mod rng;` (it uses `crate::rng::Rng`).
#![allow(dead_code)]

use crate::rng::Rng;
use fricsim::contact::nodal::{ContactMesh, ContactMeshBuilder};
use std::f64::consts::PI;

/// Triangles of an `nu x nv`-quad grid whose node (i, j) is `base + i (nv + 1) + j`.
pub fn grid_triangles(nu: usize, nv: usize, base: usize) -> Vec<[usize; 3]> {
    let id = |i: usize, j: usize| base + i * (nv + 1) + j;
    let mut t = Vec::with_capacity(2 * nu * nv);
    for i in 0..nu {
        for j in 0..nv {
            t.push([id(i, j), id(i + 1, j), id(i + 1, j + 1)]);
            t.push([id(i, j), id(i + 1, j + 1), id(i, j + 1)]);
        }
    }
    t
}

/// An `n x n`-quad square cloth of side `size` folded in half over a bend of diameter `gap`, so
/// that its upper half lies `gap` above the lower half; node positions get a uniform jitter of
/// `jitter` in every direction. Returns (triangles, positions).
pub fn folded_cloth(n: usize, size: f64, gap: f64, jitter: f64, rng: &mut Rng) -> (Vec<[usize; 3]>, Vec<f64>) {
    let rho = 0.5 * gap;
    let flat = 0.5 * (size - PI * rho);
    let mut x = Vec::with_capacity(3 * (n + 1) * (n + 1));
    for i in 0..=n {
        let s = size * i as f64 / n as f64;
        let (px, pz) = if s <= flat {
            (s, 0.0)
        } else if s <= flat + PI * rho {
            let phi = (s - flat) / rho;
            (flat + rho * phi.sin(), rho * (1.0 - phi.cos()))
        } else {
            (flat - (s - flat - PI * rho), 2.0 * rho)
        };
        for j in 0..=n {
            let py = size * j as f64 / n as f64;
            x.extend([px + jitter * rng.sym(), py + jitter * rng.sym(), pz + jitter * rng.sym()]);
        }
    }
    (grid_triangles(n, n, 0), x)
}

/// `count` rods of `segments` segments and length `length` along z, on a square lattice of pitch
/// `pitch` in the xy plane, each waving in x and y with amplitude `wave` and a random phase.
/// Node indices start at `base`. Returns (node lists, positions).
pub fn rod_bundle(
    count: usize,
    segments: usize,
    length: f64,
    pitch: f64,
    wave: f64,
    base: usize,
    rng: &mut Rng,
) -> (Vec<Vec<usize>>, Vec<f64>) {
    let side = (count as f64).sqrt().ceil() as usize;
    let mut rods = Vec::with_capacity(count);
    let mut x = Vec::with_capacity(3 * count * (segments + 1));
    for r in 0..count {
        let (cx, cy) = ((r % side) as f64 * pitch, (r / side) as f64 * pitch);
        let (phase_x, phase_y) = (PI * rng.sym(), PI * rng.sym());
        let first = base + r * (segments + 1);
        rods.push((first..=first + segments).collect());
        for k in 0..=segments {
            let z = length * k as f64 / segments as f64;
            let w = 2.0 * PI * 3.0 * z / length;
            x.extend([cx + wave * (w + phase_x).sin(), cy + wave * (w + phase_y).cos(), z]);
        }
    }
    (rods, x)
}

/// A folded cloth (self-contact on) of `n x n` quads, side 1 m, half-thickness `radius`.
pub fn cloth_scene(n: usize, radius: f64, gap: f64, rng: &mut Rng) -> (ContactMesh, Vec<f64>) {
    let (tris, x) = folded_cloth(n, 1.0, gap, 1e-3 / n as f64, rng);
    let mut b = ContactMeshBuilder::new();
    let o = b.add_object(true);
    b.add_surface(o, &tris, radius).expect("valid cloth");
    (b.build().expect("valid mesh"), x)
}

/// A bundle of `count` rods of `segments` segments, 10 cm long, of radius `radius`, 2.2 radii
/// apart and waving by one radius (so neighbours touch along their length).
pub fn rod_scene(count: usize, segments: usize, radius: f64, rng: &mut Rng) -> (ContactMesh, Vec<f64>) {
    let (rods, x) = rod_bundle(count, segments, 0.1, 2.2 * radius, radius, 0, rng);
    let mut b = ContactMeshBuilder::new();
    let o = b.add_object(true);
    for r in &rods {
        b.add_rod(o, r, radius).expect("valid rod");
    }
    (b.build().expect("valid mesh"), x)
}
