//! Semantic checks of a parsed scene. Every check names the field path and the allowed range;
//! all problems are collected, not only the first.

use super::build::rotation_from_degrees;
use super::error::did_you_mean;
use super::load::{resolve_path, to_ron};
use super::locate::SourceIndex;
use super::schema::*;
use nalgebra::{Rotation3, UnitQuaternion};
use std::collections::BTreeMap;
use std::path::Path;

mod drilling;
mod joints;

/// Upper bound on the tetrahedra of one procedural mesh (about 10 GB of model data).
pub const MAX_TETS: usize = 50_000_000;

/// The sizes a body or collider may have (m): 1 nm to 1000 km.
pub const MIN_LENGTH: f64 = 1e-9;
pub const MAX_LENGTH: f64 = 1e6;

/// The densities a material may have (kg/m^3): far below any gas at room conditions to far above
/// any solid. A subnormal density made massless rigid bodies and a non-finite contact problem.
pub const MIN_DENSITY: f64 = 1e-6;
pub const MAX_DENSITY: f64 = 1e6;
/// The masses a rigid body may be given (kg): a nanometre speck of gas to a mountain.
pub const MIN_MASS: f64 = 1e-30;
pub const MAX_MASS: f64 = 1e15;

/// Lower bounds of the memory one element takes in a run (bytes): a tetrahedron's energy,
/// gradient, 12×12 Hessian and assembly slots (`cli::check::memory_estimate`), a triangle's
/// 9×9 and a hinge's 12×12 share, a rod node's state, frames and contact records.
const TET_BYTES: f64 = 1832.0;
const TRIANGLE_BYTES: f64 = 1500.0;
const ROD_NODE_BYTES: f64 = 600.0;

/// The element count of a resolution and what one element costs, for its refusal.
struct Resolution<'a> {
    count: f64,
    what: &'a str,
    bytes_each: f64,
}
/// Upper bound on the time steps of a run (1e12: months of wall time even at 1e5 steps/s).
pub const MAX_STEPS: f64 = 1e12;

/// A problem found in a typed scene, before it is given a file position.
#[derive(Debug, Clone, PartialEq)]
pub struct Issue {
    pub path: String,
    pub value: Option<String>,
    pub message: String,
}

#[derive(Default)]
struct Checks {
    issues: Vec<Issue>,
    /// Every accepted resolution with the memory it needs, for the whole-scene memory check.
    demands: Vec<Demand>,
}

/// An accepted resolution: where it is, and the memory its elements need.
struct Demand {
    path: String,
    shown: String,
    count: f64,
    what: String,
    bytes_each: f64,
}

/// Formats a value for a message (`0.5`, `1e-7`, `(1.0, 0.0, 2.0)`).
fn fmt_f(v: f64) -> String {
    format!("{v:?}")
}
fn fmt_v3(v: &Vec3) -> String {
    format!("({:?}, {:?}, {:?})", v[0], v[1], v[2])
}

impl Checks {
    fn push(&mut self, path: impl Into<String>, value: Option<String>, message: impl Into<String>) {
        self.issues.push(Issue { path: path.into(), value, message: message.into() });
    }

    // Non-finite values are reported once by `nonfinite`, so range checks skip them.
    fn check(&mut self, path: &str, v: f64, ok: impl Fn(f64) -> bool, allowed: &str) {
        if v.is_finite() && !ok(v) {
            self.push(path, Some(fmt_f(v)), allowed);
        }
    }
    /// A resolution: refused by `small` (the rule it breaks, if it is too coarse), else when it
    /// makes more than `MAX_TETS` elements, with the memory they would need. Counts are f64 so
    /// that an absurd resolution cannot overflow.
    fn resolution(&mut self, path: &str, shown: String, small: Option<&str>, r: Resolution<'_>) {
        let why = match small {
            Some(rule) => rule.to_string(),
            None if r.count > MAX_TETS as f64 => format!(
                "too fine: {:.3e} {} would need at least {:.3e} GB of memory ({:.1} kB each); at most \
                 {MAX_TETS} are allowed",
                r.count,
                r.what,
                r.count * r.bytes_each / 1e9,
                r.bytes_each / 1e3
            ),
            None => {
                let (count, what, bytes_each) = (r.count, r.what.to_string(), r.bytes_each);
                self.demands.push(Demand { path: path.to_string(), shown, count, what, bytes_each });
                return;
            }
        };
        self.push(path, Some(shown), why);
    }

    /// Refuses a scene whose bodies need more memory than `limit` bytes by the per-element
    /// estimates, naming the largest body's resolution and both numbers.
    fn memory(&mut self, limit: u64) {
        let total: f64 = self.demands.iter().map(|d| d.count * d.bytes_each).sum();
        if total <= limit as f64 {
            return;
        }
        let Some(big) =
            self.demands.iter().max_by(|a, b| (a.count * a.bytes_each).total_cmp(&(b.count * b.bytes_each)))
        else {
            return;
        };
        let message = format!(
            "too large for this machine: {:.3e} {} need about {:.1} GB by fricsim's estimate ({:.1} kB each; \
             {:.1} GB for the whole scene), more than this machine's {:.1} GB of memory; pass --allow-large to \
             run it anyway",
            big.count,
            big.what,
            big.count * big.bytes_each / 1e9,
            big.bytes_each / 1e3,
            total / 1e9,
            limit as f64 / 1e9
        );
        let (path, shown) = (big.path.clone(), big.shown.clone());
        self.push(path, Some(shown), message);
    }
    fn positive(&mut self, path: &str, v: f64, unit: &str) {
        if unit == " (m)" {
            return self.length(path, v);
        }
        self.check(path, v, |v| v > 0.0, &format!("must be > 0{unit}"));
    }
    /// A size of a body or collider: positive and within what f64 geometry can resolve next to
    /// the other sizes of a scene (a subnormal or astronomic size ends in non-finite masses).
    fn length(&mut self, path: &str, v: f64) {
        let message = format!("must be a length from {MIN_LENGTH:e} to {MAX_LENGTH:e} (m)");
        self.check(path, v, |v| (MIN_LENGTH..=MAX_LENGTH).contains(&v), &message);
    }
    fn non_negative(&mut self, path: &str, v: f64) {
        self.check(path, v, |v| v >= 0.0, "must be >= 0");
    }
    fn positive3(&mut self, path: &str, v: &Vec3) {
        if v.iter().all(|x| x.is_finite()) && v.iter().any(|&x| !(MIN_LENGTH..=MAX_LENGTH).contains(&x)) {
            let message = format!("every component must be a length from {MIN_LENGTH:e} to {MAX_LENGTH:e} (m)");
            self.push(path, Some(fmt_v3(v)), message);
        }
    }
    fn name(&mut self, path: &str, name: &str, what: &str) {
        // Names become file names (`vtk/<body>_<frame>.vtu`, `output/<scene>/`).
        let bad = if name.trim().is_empty() {
            Some("must not be empty or blank")
        } else if name.contains(['/', '\\']) {
            Some("must not contain `/` or `\\`")
        } else if name.chars().any(char::is_control) {
            Some("must not contain control characters")
        } else if name == "." || name == ".." {
            Some("must not be `.` or `..`")
        } else {
            None
        };
        if let Some(why) = bad {
            self.push(path, Some(format!("{name:?}")), format!("{what} {why} (it is used in file names)"));
        }
    }
}

/// Every NaN or infinite number in the scene, with its path. The scene is printed as RON (which
/// writes `NaN`/`inf`) and scanned, so no f64 field can be forgotten here as the schema grows.
pub fn nonfinite(scene: &Scene) -> Vec<Issue> {
    let Ok(text) = to_ron(scene) else {
        return Vec::new();
    };
    SourceIndex::scan(&text)
        .nonfinite()
        .map(|e| Issue {
            path: e.path.clone(),
            value: text.get(e.start..e.end).map(|s| s.rsplit(": ").next().unwrap_or(s).trim().to_string()),
            message: "must be a finite number (NaN and infinity are not allowed)".into(),
        })
        .collect()
}

/// All semantic problems of `scene`; mesh files are looked up relative to `base_dir`. The scene is
/// also refused if its bodies need more memory than this machine has ([`machine_memory`]).
pub fn validate(scene: &Scene, base_dir: &Path) -> Vec<Issue> {
    validate_with(scene, base_dir, machine_memory())
}

/// [`validate`] with the memory limit given: `None` checks no limit (`--allow-large`).
pub fn validate_with(scene: &Scene, base_dir: &Path, memory_limit: Option<u64>) -> Vec<Issue> {
    let mut c = Checks { issues: nonfinite(scene), demands: Vec::new() };
    c.name("name", &scene.name, "the scene name");
    time(&mut c, scene);
    materials(&mut c, scene);
    friction(&mut c, scene);
    bodies(&mut c, scene, base_dir);
    colliders(&mut c, scene, base_dir);
    pipeline(&mut c, scene);
    joints::joints(&mut c, scene);
    drilling::drilling(&mut c, scene);
    if let Some(limit) = memory_limit {
        c.memory(limit);
    }
    c.issues
}

/// This machine's memory in bytes (`MemTotal` of `/proc/meminfo`), `None` where it cannot be read.
pub fn machine_memory() -> Option<u64> {
    let info = std::fs::read_to_string("/proc/meminfo").ok()?;
    let line = info.lines().find(|l| l.starts_with("MemTotal:"))?;
    let kb: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    kb.checked_mul(1024)
}

fn time(c: &mut Checks, s: &Scene) {
    c.positive("dt", s.dt, " (seconds)");
    c.non_negative("settle", s.settle);
    if s.settle_in_motion && s.settle <= 0.0 {
        c.push("settle_in_motion", Some("true".into()), "needs `settle` > 0 (the seconds of relaxation)");
    }
    let reduced = s.bodies.iter().any(|b| matches!(b, BodySpec::Solid(sd) if sd.reduced.is_some()));
    if s.settle_in_motion && reduced {
        c.push("settle_in_motion", Some("true".into()), "is not available with reduced solids");
    }
    match (s.duration, s.frames) {
        (Some(_), Some(f)) => c.push("frames", Some(f.to_string()), "give either `duration` or `frames`, not both"),
        (None, None) => {
            c.push("duration", None, "missing: give either `duration` (seconds, > 0) or `frames` (count, >= 1)")
        }
        (Some(d), None) => c.positive("duration", d, " (seconds)"),
        (None, Some(0)) => c.push("frames", Some("0".into()), "must be >= 1"),
        (None, Some(_)) => {}
    }
    c.positive("frame_rate", s.frame_rate, " (frames per second)");
    if s.dt.is_finite() && s.dt > 0.0 && s.frame_rate.is_finite() && s.frame_rate > 0.0 {
        let steps = 1.0 / (s.frame_rate * s.dt);
        let whole = steps.round();
        // The step count must fit the counters: `frame_rate: 1e-300` or `frames` near 2^64
        // would overflow `frames * steps_per_frame` (a panic in debug builds, a wrapped count
        // in release).
        let frames = match (s.frames, s.duration) {
            (Some(f), _) => f as f64,
            (None, Some(d)) => (d * s.frame_rate).ceil(),
            (None, None) => 1.0,
        };
        if whole > MAX_STEPS {
            c.push(
                "frame_rate",
                Some(fmt_f(s.frame_rate)),
                format!(
                    "one frame would take {steps:.3e} steps of dt = {}; at most {MAX_STEPS:e} steps are allowed",
                    fmt_f(s.dt)
                ),
            );
        } else if whole * frames > MAX_STEPS {
            let (field, value) = match (s.frames, s.duration) {
                (Some(f), _) => ("frames", f.to_string()),
                (None, d) => ("duration", fmt_f(d.unwrap_or(0.0))),
            };
            c.push(
                field,
                Some(value),
                format!(
                    "the run would take {:.3e} steps of dt = {}; at most {MAX_STEPS:e} steps are allowed",
                    whole * frames,
                    fmt_f(s.dt)
                ),
            );
        } else if whole < 1.0 {
            c.push(
                "dt",
                Some(fmt_f(s.dt)),
                format!(
                    "longer than one frame (1 / frame_rate = {}); dt must be at most {}",
                    fmt_f(1.0 / s.frame_rate),
                    fmt_f(1.0 / s.frame_rate)
                ),
            );
        } else if (steps - whole).abs() > 1e-9 * steps {
            let fit = 1.0 / (s.frame_rate * whole);
            c.push(
                "dt",
                Some(fmt_f(s.dt)),
                format!(
                    "1 / (frame_rate * dt) = {steps:.6} steps per frame (frame_rate = {}) must be a whole number; dt = {} ({whole} steps per frame) would fit",
                    fmt_f(s.frame_rate),
                    fmt_f(fit)
                ),
            );
        }
    }
}

fn mat_path(name: &str) -> String {
    format!("materials.{name:?}")
}

fn materials(c: &mut Checks, s: &Scene) {
    for (name, m) in &s.materials {
        let p = mat_path(name);
        if let Some(d) = m.density {
            let allowed = format!("must be from {MIN_DENSITY:e} to {MAX_DENSITY:e} (kg/m^3)");
            c.check(&format!("{p}.density"), d, |d| (MIN_DENSITY..=MAX_DENSITY).contains(&d), &allowed);
        }
        if let Some(e) = m.youngs_modulus {
            c.positive(&format!("{p}.youngs_modulus"), e, " (Pa)");
        }
        if let Some(nu) = m.poisson_ratio {
            c.check(
                &format!("{p}.poisson_ratio"),
                nu,
                |v| (0.0..0.5).contains(&v),
                "must be in [0, 0.5) (0.5 is incompressible, not supported by tetrahedral FEM; negative ratios are not supported)",
            );
        }
        if let Some(k) = m.bending {
            c.non_negative(&format!("{p}.bending"), k);
        }
        if let Some(e) = m.bending_modulus {
            c.positive(&format!("{p}.bending_modulus"), e, " (Pa)");
        }
        if let Some(d) = &m.damping {
            c.non_negative(&format!("{p}.damping.alpha"), d.alpha);
            c.non_negative(&format!("{p}.damping.beta"), d.beta);
        }
    }
    // Elastic constants are required only where an elastic solid uses the material.
    let mut reported = Vec::new();
    for (i, body) in s.bodies.iter().enumerate() {
        let b = match body {
            BodySpec::Solid(b) => b,
            BodySpec::Rigid(r) => {
                let density = s.materials.get(&r.material).and_then(|m| m.density);
                if r.mass.is_none() && density.is_none() && s.materials.contains_key(&r.material) {
                    c.push(
                        format!("bodies[{i}].mass"),
                        None,
                        format!(
                            "missing: give the rigid body a `mass` (kg) or its material {:?} a `density` (kg/m^3)",
                            r.material
                        ),
                    );
                }
                continue;
            }
            BodySpec::Cloth(b) => {
                c.check(
                    &format!("bodies[{i}].rest_scale"),
                    b.rest_scale,
                    |v| (0.5..=2.0).contains(&v),
                    "must be from 0.5 to 2 (the rest shape's scale)",
                );
                thin_material(
                    c,
                    s,
                    i,
                    &b.material,
                    "thickness",
                    s.materials.get(&b.material).and_then(|m| m.thickness),
                );
                continue;
            }
            BodySpec::Rods(b) => {
                thin_material(c, s, i, &b.material, "radius", s.materials.get(&b.material).and_then(|m| m.radius));
                continue;
            }
        };
        let Some(m) = s.materials.get(&b.material) else {
            continue;
        };
        let missing: Vec<&str> =
            [("density", m.density), ("youngs_modulus", m.youngs_modulus), ("poisson_ratio", m.poisson_ratio)]
                .into_iter()
                .filter(|(_, v)| v.is_none())
                .map(|(n, _)| n)
                .collect();
        if !missing.is_empty() && !reported.contains(&b.material) {
            reported.push(b.material.clone());
            c.push(
                mat_path(&b.material),
                None,
                format!(
                    "missing {}: required because bodies[{i}] ({:?}) is an elastic solid made of it",
                    missing.join(", "),
                    b.name
                ),
            );
        }
    }
}

/// A cloth or rod material needs its elastic constants and its `thickness` or `radius`.
fn thin_material(c: &mut Checks, s: &Scene, i: usize, name: &str, extra: &str, value: Option<f64>) {
    let Some(m) = s.materials.get(name) else { return };
    let mut missing: Vec<&str> =
        [("density", m.density), ("youngs_modulus", m.youngs_modulus), ("poisson_ratio", m.poisson_ratio)]
            .into_iter()
            .filter(|(_, v)| v.is_none())
            .map(|(n, _)| n)
            .collect();
    if value.is_none() {
        missing.push(extra);
    }
    if !missing.is_empty() {
        c.push(
            mat_path(name),
            None,
            format!(
                "missing {}: required because bodies[{i}] is a {} made of it",
                missing.join(", "),
                if extra == "radius" { "rod body" } else { "cloth" }
            ),
        );
    }
    if let Some(v) = value {
        c.positive(&format!("{}.{extra}", mat_path(name)), v, " (m)");
    }
}

fn known_material(c: &mut Checks, s: &Scene, path: &str, name: &str) {
    if !s.materials.contains_key(name) {
        let names: Vec<String> = s.materials.keys().map(|n| format!("{n:?}")).collect();
        let hint = did_you_mean(name, s.materials.keys().map(String::as_str))
            .map(|m| format!(" (did you mean {m:?}?)"))
            .unwrap_or_default();
        let known = if names.is_empty() { "none are defined".to_string() } else { names.join(", ") };
        c.push(path, Some(format!("{name:?}")), format!("no such material{hint}; materials: {known}"));
    }
}

fn law(c: &mut Checks, p: &str, l: &FrictionLawSpec, epsilon: f64) {
    c.non_negative(&format!("{p}.mu"), l.mu);
    if let Some(mu_s) = l.mu_s
        && l.mu.is_finite()
    {
        c.check(
            &format!("{p}.mu_s"),
            mu_s,
            |v| v >= l.mu,
            &format!("the static coefficient must be >= mu ({})", fmt_f(l.mu)),
        );
    }
    if let Some(v_s) = l.v_s
        && epsilon.is_finite()
    {
        c.check(
            &format!("{p}.v_s"),
            v_s,
            |v| v > epsilon,
            &format!("the Stribeck velocity must be > friction.epsilon ({})", fmt_f(epsilon)),
        );
    }
    c.non_negative(&format!("{p}.mu_v"), l.mu_v);
    if let Some(co) = l.cohesion {
        c.non_negative(&format!("{p}.cohesion.force"), co.force);
        c.positive(&format!("{p}.cohesion.range"), co.range, " (m)");
    }
    if let Some(x) = l.compliance {
        c.check(
            &format!("{p}.compliance"),
            x,
            |v| (1e-15..=1.0).contains(&v),
            "must be from 1e-15 to 1 (m/N: a contact stiffness from 1 to 1e15 N/m)",
        );
    }
    match (l.mu_t, l.mu_b) {
        (Some(t), Some(b)) => {
            c.non_negative(&format!("{p}.mu_t"), t);
            c.non_negative(&format!("{p}.mu_b"), b);
            if t.is_finite() && b.is_finite() && t > b {
                c.push(
                    format!("{p}.mu_t"),
                    Some(fmt_f(t)),
                    format!(
                        "must be <= mu_b ({}): the structure direction is the direction of least resistance (003)",
                        fmt_f(b)
                    ),
                );
            }
            if t.is_finite() && b.is_finite() && (t == 0.0) != (b == 0.0) {
                c.push(format!("{p}.mu_t"), Some(fmt_f(t)), "mu_t and mu_b must both be > 0 or both be 0");
            }
        }
        (Some(t), None) => {
            c.push(format!("{p}.mu_b"), None, format!("missing: mu_t ({}) is given; give both", fmt_f(t)))
        }
        (None, Some(b)) => {
            c.push(format!("{p}.mu_t"), None, format!("missing: mu_b ({}) is given; give both", fmt_f(b)))
        }
        (None, None) => {}
    }
}

fn friction(c: &mut Checks, s: &Scene) {
    let f = &s.friction;
    c.positive("friction.epsilon", f.epsilon, " (m/s)");
    law(c, "friction.default", &f.default, f.epsilon);
    let mut seen: BTreeMap<(String, String), usize> = BTreeMap::new();
    for (i, pair) in f.pairs.iter().enumerate() {
        let p = format!("friction.pairs[{i}]");
        known_material(c, s, &format!("{p}.between[0]"), &pair.between.0);
        known_material(c, s, &format!("{p}.between[1]"), &pair.between.1);
        let (a, b) = (&pair.between.0, &pair.between.1);
        let key = if a <= b { (a.clone(), b.clone()) } else { (b.clone(), a.clone()) };
        if let Some(first) = seen.get(&key) {
            c.push(
                format!("{p}.between"),
                Some(format!("({a:?}, {b:?})")),
                format!("duplicates friction.pairs[{first}] (a pair is the same in either order)"),
            );
        } else {
            seen.insert(key, i);
        }
        law(c, &p, &pair.law(), f.epsilon);
    }
}

fn unique_names<'a>(c: &mut Checks, names: impl Iterator<Item = (String, &'a str)>) {
    let mut seen: BTreeMap<&str, String> = BTreeMap::new();
    for (path, name) in names {
        // These are the file names of the contact points' and the joints' series.
        let series = [crate::output::frames::CONTACTS, crate::output::joints::JOINTS];
        if path.starts_with("bodies") && series.contains(&name) {
            let why = "is reserved for an output series (vtk/contacts_*.vtu, vtk/joints_*.vtu): choose another name";
            c.push(format!("{path}.name"), Some(format!("{name:?}")), why);
        }
        if let Some(first) = seen.get(name) {
            c.push(
                format!("{path}.name"),
                Some(format!("{name:?}")),
                format!("duplicate name, already used by {first}; body and collider names must be unique"),
            );
        } else {
            seen.insert(name, path);
        }
    }
}

fn bodies(c: &mut Checks, s: &Scene, base_dir: &Path) {
    if s.bodies.is_empty() {
        c.push("bodies", None, "at least one body is required");
    }
    let nonsmooth = matches!(s.pipeline, PipelineSpec::Nonsmooth(_));
    for (i, body) in s.bodies.iter().enumerate() {
        let p = format!("bodies[{i}]");
        let b = match body {
            BodySpec::Solid(b) => b,
            BodySpec::Cloth(cl) => {
                thin_body(c, s, &p, (&cl.name, &cl.material), None, &cl.kinematic, base_dir);
                if matches!(s.pipeline, PipelineSpec::Smooth(_)) && cl.self_contact {
                    c.push(
                        format!("{p}.self_contact"),
                        Some("true".into()),
                        "the Smooth pipeline has no cloth self-contact (its contacts are between different \
                         bodies): set `self_contact: false`, or use `pipeline: Nonsmooth(..)` or `Penalty(..)`",
                    );
                }
                cloth_structure(c, &p, cl);
                if let Some(vol) = &cl.volume {
                    volume(c, &format!("{p}.volume"), vol, nonsmooth);
                    if vol.region == crate::scene::schema::VolumeRegion::Cavity {
                        c.push(
                            format!("{p}.volume.region"),
                            Some("Cavity".into()),
                            "a cloth encloses its volume with its own surface: use `Boundary` (a closed mesh such as `Sphere`)",
                        );
                    }
                }
                match &cl.mesh {
                    ClothMeshSpec::Grid { size, cells } => {
                        if size.iter().any(|&x| x.is_finite() && !(MIN_LENGTH..=MAX_LENGTH).contains(&x)) {
                            let message =
                                format!("every component must be a length from {MIN_LENGTH:e} to {MAX_LENGTH:e} (m)");
                            c.push(format!("{p}.mesh.size"), Some(format!("{size:?}")), message);
                        }
                        let small = cells.contains(&0).then_some("every component must be >= 1");
                        let count = 2.0 * cells[0] as f64 * cells[1] as f64;
                        let r = Resolution { count, what: "triangles (2 nx ny)", bytes_each: TRIANGLE_BYTES };
                        c.resolution(&format!("{p}.mesh.cells"), format!("{cells:?}"), small, r);
                    }
                    ClothMeshSpec::Tube { radius, length, cells } => {
                        c.positive(&format!("{p}.mesh.radius"), *radius, " (m)");
                        c.positive(&format!("{p}.mesh.length"), *length, " (m)");
                        let small = (cells[0] < 3 || cells[1] == 0).then_some("(around, along) must be >= 3 and >= 1");
                        let count = 2.0 * cells[0] as f64 * cells[1] as f64;
                        let r = Resolution { count, what: "triangles (2 around along)", bytes_each: TRIANGLE_BYTES };
                        c.resolution(&format!("{p}.mesh.cells"), format!("{cells:?}"), small, r);
                    }
                    ClothMeshSpec::Sphere { radius, resolution } => {
                        c.positive(&format!("{p}.mesh.radius"), *radius, " (m)");
                        let small = (*resolution == 0).then_some("must be >= 1");
                        let count = 12.0 * (*resolution as f64).powi(2);
                        let r = Resolution { count, what: "triangles (12 resolution²)", bytes_each: TRIANGLE_BYTES };
                        c.resolution(&format!("{p}.mesh.resolution"), resolution.to_string(), small, r);
                    }
                    ClothMeshSpec::File { path, scale } => {
                        c.positive(&format!("{p}.mesh.scale"), *scale, "");
                        file(
                            c,
                            &format!("{p}.mesh.path"),
                            path,
                            &["ply", "obj"],
                            "a `.ply` or `.obj` triangle mesh",
                            base_dir,
                        );
                    }
                }
                continue;
            }
            BodySpec::Rods(r) => {
                let needs = (!nonsmooth).then_some("rods need `pipeline: Nonsmooth(..)`");
                thin_body(c, s, &p, (&r.name, &r.material), needs, &r.kinematic, base_dir);
                curves(c, &format!("{p}.curves"), &r.curves, base_dir);
                c.non_negative(&format!("{p}.tip_mass"), r.tip_mass);
                c.non_negative(&format!("{p}.root_mass"), r.root_mass);
                if (r.fixed_roots || r.attach_to.is_some()) && r.root_mass != 0.0 {
                    c.push(
                        format!("{p}.root_mass"),
                        Some(fmt_f(r.root_mass)),
                        "must be 0 (or absent) with `fixed_roots: true` or `attach_to`: such roots are scripted, or ride \
                         on a rigid body (give that body the mass)",
                    );
                }
                motion(c, &format!("{p}.root_motion"), &r.root_motion);
                if let Some(name) = &r.attach_to {
                    attach_to(c, s, &p, name, "root_motion", &r.root_motion);
                }
                continue;
            }
            BodySpec::Rigid(r) => {
                rigid(c, s, &p, r, base_dir);
                let smooth = matches!(s.pipeline, PipelineSpec::Smooth(_));
                if !nonsmooth && !smooth {
                    c.push(
                        p.to_string(),
                        Some(format!("Rigid(name: {:?}, ..)", r.name)),
                        "rigid bodies need `pipeline: Nonsmooth(..)` or `Smooth(..)` (the Penalty pipeline simulates \
                         elastic solids and cloth)",
                    );
                }
                if smooth && matches!(r.structure, Some(crate::scene::schema::StructureSpec::Texture { .. })) {
                    c.push(
                        format!("{p}.structure"),
                        Some("Texture(..)".into()),
                        "a structure texture on a rigid body needs `pipeline: Nonsmooth(..)`; with Smooth, give one \
                         `Direction` for the body",
                    );
                }
                continue;
            }
        };

        c.name(&format!("{p}.name"), &b.name, "a body name");
        known_material(c, s, &format!("{p}.material"), &b.material);
        mesh(c, &format!("{p}.mesh"), &b.mesh, base_dir);
        for (k, kin) in b.kinematic.iter().enumerate() {
            let kp = format!("{p}.kinematic[{k}]");
            region(c, &format!("{kp}.region"), &kin.region);
            kinematic_motion(c, s, &kp, kin, base_dir);
        }
        if let Some(vol) = &b.volume {
            volume(c, &format!("{p}.volume"), vol, nonsmooth);
        }
        solid_structure(c, &p, b, nonsmooth);
        if let Some(d) = &b.displacement {
            displacement(c, &format!("{p}.displacement"), d, b);
        }
        if let Some(red) = &b.reduced {
            reduced(c, s, &p, b, red);
        }
        if matches!(b.mesh, MeshSpec::Embedded { .. }) {
            embedded(c, s, &p, b);
        }
    }
    let bodies = s.bodies.iter().enumerate().map(|(i, b)| (format!("bodies[{i}]"), b.name()));
    let colliders = s.colliders.iter().enumerate().map(|(i, col)| (format!("colliders[{i}]"), collider_name(col)));
    unique_names(c, bodies.chain(colliders));
}

/// A displacement field's three formulas parse, in `x`, `y`, `z` only (the build evaluates
/// them at the vertices and refuses a value that is not finite or a tet it inverts). Scripted
/// regions take their rest positions from the undisplaced placement, and an embedded surface's
/// rest shape from its cage's: both are refused with a displacement rather than half honoured.
fn displacement(c: &mut Checks, p: &str, d: &DisplacementSpec, b: &crate::scene::schema::SolidSpec) {
    for (axis, text) in [("x", &d.x), ("y", &d.y), ("z", &d.z)] {
        if let Err(e) = crate::friction::structure_field::Formula::parse(text) {
            c.push(format!("{p}.{axis}"), Some(format!("{text:?}")), e);
        }
    }
    if !b.kinematic.is_empty() {
        c.push(
            p.to_string(),
            None,
            "a displaced solid takes no `kinematic` regions (they would start from the rest shape)",
        );
    }
    if matches!(b.mesh, MeshSpec::Embedded { .. }) {
        c.push(
            p.to_string(),
            None,
            "an `Embedded` solid cannot start displaced (its surface's rest shape is its cage's)",
        );
    }
}

/// Largest numbers of modes: StVK's coefficients grow as r⁴ (40 modes: 20 MB, 2.6 M terms per
/// force evaluation), linear modes only as the mesh times r.
const MAX_STVK_MODES: usize = 40;
const MAX_MODAL_MODES: usize = 200;

/// A reduced solid (002 §7.2): the nodal step of `Nonsmooth` with Newton, free of scripted
/// vertices and volume terms (its nodes all follow the frame and the modes).
fn reduced(c: &mut Checks, s: &Scene, p: &str, b: &crate::scene::schema::SolidSpec, red: &ReducedSpec) {
    let (modes, stvk) = red.modes();
    let cap = if stvk { MAX_STVK_MODES } else { MAX_MODAL_MODES };
    if !(1..=cap).contains(&modes) {
        let what = if stvk { "StVK" } else { "Modal" };
        c.push(
            format!("{p}.reduced.modes"),
            Some(modes.to_string()),
            format!("must be from 1 to {cap} for {what} (and at most the mesh's 3 x vertices - 6)"),
        );
    }
    newton_nodal_only(
        c,
        s,
        &format!("{p}.reduced"),
        ("reduced solids are stepped", "reduced solids need `pipeline: Nonsmooth(..)`"),
    );
    if !b.kinematic.is_empty() {
        c.push(
            format!("{p}.kinematic"),
            None,
            "a reduced solid moves as a whole (frame and modes): it takes no scripted or attached vertex sets",
        );
    }
}

/// A volume-change penalty (001 §2.4).
fn volume(c: &mut Checks, p: &str, v: &VolumeSpec, nonsmooth: bool) {
    if nonsmooth {
        c.push(
            p.to_string(),
            None,
            "the volume-change penalty is part of the Penalty pipeline (`pipeline: Penalty(..)`)",
        );
    }
    // Below 1e-12 1/atm (a million times stiffer than water) the penalty's stiffness overflows
    // any Newton solve; above 1e3 1/atm it holds nothing (a gas at a thousandth of an atmosphere).
    c.check(
        &format!("{p}.compressibility_per_atm"),
        v.compressibility_per_atm,
        |k| (1e-12..=1e3).contains(&k),
        "must be in [1e-12, 1e3] (1/atm): a gas at 1 atm is 1, water 4.6e-5",
    );
    let kp = v.compressibility_per_atm * v.gauge_pressure_atm;
    if v.form == crate::energy::volume::VolumeForm::Quadratic && kp >= 1.0 && kp.is_finite() {
        c.push(
            format!("{p}.gauge_pressure_atm"),
            Some(fmt_f(v.gauge_pressure_atm)),
            "with the Quadratic form, compressibility_per_atm * gauge_pressure_atm must be < 1 (the reference volume V0 / (1 - kv p) would not be positive)",
        );
    }
}

/// A cloth or rod body's name, material and scripted regions; `unsupported` says why the
/// scene's pipeline cannot simulate it.
fn thin_body(
    c: &mut Checks,
    s: &Scene,
    p: &str,
    (name, material): (&str, &str),
    unsupported: Option<&str>,
    kin: &[KinematicSpec],
    base_dir: &Path,
) {
    c.name(&format!("{p}.name"), name, "a body name");
    known_material(c, s, &format!("{p}.material"), material);
    if let Some(why) = unsupported {
        c.push(p.to_string(), Some(format!("{name:?}")), why);
    }
    for (k, kin) in kin.iter().enumerate() {
        kinematic_motion(c, s, &format!("{p}.kinematic[{k}]"), kin, base_dir);
    }
}

/// A kinematic region's `motion`, or the animated surface it `follow`s or the rigid body it is
/// attached to instead. Riding on a dynamic body is the nonsmooth nodal step's.
fn kinematic_motion(c: &mut Checks, s: &Scene, kp: &str, kin: &KinematicSpec, base_dir: &Path) {
    motion(c, &format!("{kp}.motion"), &kin.motion);
    if let Some(name) = &kin.attach_to {
        if kin.follow.is_some() {
            c.push(format!("{kp}.follow"), None, "give either `follow` or `attach_to`, not both");
        }
        attach_to(c, s, kp, name, "motion", &kin.motion);
        let dynamic = rigid_specs(s).iter().any(|r| &r.name == name && r.motion.is_none());
        if dynamic && !matches!(s.pipeline, PipelineSpec::Nonsmooth(_)) {
            c.push(
                format!("{kp}.attach_to"),
                Some(format!("{name:?}")),
                "riding on a dynamic rigid body needs `pipeline: Nonsmooth(..)` (a scripted body's motion works in every pipeline)",
            );
        }
    }
    if let Some(f) = &kin.follow {
        if kin.motion != MotionSpec::Fixed {
            c.push(format!("{kp}.follow"), None, "give either `motion` or `follow`, not both");
        }
        c.positive(&format!("{kp}.follow.scale"), f.scale, "");
        mesh_collider_files(c, &format!("{kp}.follow"), &f.path, Some(&f.animation), base_dir);
    }
}

/// The scene's rigid bodies, in order.
fn rigid_specs(s: &Scene) -> Vec<&RigidSpec> {
    s.bodies
        .iter()
        .filter_map(|b| match b {
            BodySpec::Rigid(r) => Some(r),
            _ => None,
        })
        .collect()
}

/// Nodes attached to a body (rod roots, a region): it must be a rigid body, either dynamic (the
/// nodes ride on it) or kinematic with its whole motion in its script (no free spin on top of
/// it); and the nodes' own motion (field `other`) must be left `Fixed`.
fn attach_to(c: &mut Checks, s: &Scene, p: &str, name: &str, other: &str, own: &MotionSpec) {
    let ap = format!("{p}.attach_to");
    if *own != MotionSpec::Fixed {
        c.push(&ap, Some(format!("{name:?}")), format!("give either `attach_to` or `{other}`, not both"));
    }
    let rigids = rigid_specs(s);
    let Some(r) = rigids.iter().find(|r| r.name == name) else {
        let names: Vec<&str> = rigids.iter().map(|r| r.name.as_str()).collect();
        c.push(
            ap,
            Some(format!("{name:?}")),
            format!(
                "names no rigid body; nodes attach to a rigid body (dynamic, or kinematic with a `motion`): {names:?}"
            ),
        );
        return;
    };
    if r.motion.is_some() && r.angular_velocity.iter().any(|&w| w != 0.0) {
        c.push(
            ap,
            Some(format!("{name:?}")),
            "names a kinematic body that spins at its `angular_velocity`; attached nodes follow only a scripted motion \
             (give the rotation as a `Spin`, `Oscillate` or `Rigid` motion instead)",
        );
    }
}

fn curves(c: &mut Checks, p: &str, cv: &CurvesSpec, base_dir: &Path) {
    let segs = |c: &mut Checks, n: usize| {
        if n == 0 || n > MAX_TETS {
            c.push(format!("{p}.segments"), Some(n.to_string()), format!("must be in 1..={MAX_TETS}"));
        }
    };
    match cv {
        CurvesSpec::Straight { segments, .. } => segs(c, *segments),
        CurvesSpec::Helix { radius, segments, .. } => {
            c.positive(&format!("{p}.radius"), *radius, " (m)");
            segs(c, *segments);
        }
        CurvesSpec::HairyBall { radius, count, length, segments, curliness, .. } => {
            c.positive(&format!("{p}.radius"), *radius, " (m)");
            c.positive(&format!("{p}.length"), *length, " (m)");
            c.check(&format!("{p}.curliness"), *curliness, |v| (0.0..1.0).contains(&v), "must be in [0, 1)");
            segs(c, *segments);
            let small = (*count == 0).then_some("must be >= 1");
            let nodes = *count as f64 * (*segments as f64 + 1.0);
            let r = Resolution { count: nodes, what: "rod nodes (count (segments + 1))", bytes_each: ROD_NODE_BYTES };
            c.resolution(&format!("{p}.count"), count.to_string(), small, r);
        }
        CurvesSpec::Polylines(lines) => {
            if lines.is_empty() {
                c.push(p.to_string(), None, "give at least one polyline");
            }
        }
        CurvesSpec::File { path, scale } => {
            c.positive(&format!("{p}.scale"), *scale, "");
            file(
                c,
                &format!("{p}.path"),
                path,
                &["vtk", "vtp", "ply"],
                "a `.vtk`/`.vtp` poly data file with lines or a `.ply` file with an `edge` element",
                base_dir,
            );
        }
    }
}

fn rigid(c: &mut Checks, s: &Scene, p: &str, r: &RigidSpec, base_dir: &Path) {
    c.name(&format!("{p}.name"), &r.name, "a body name");
    known_material(c, s, &format!("{p}.material"), &r.material);
    if let Some(m) = r.mass {
        let allowed = format!("must be from {MIN_MASS:e} to {MAX_MASS:e} (kg)");
        c.check(&format!("{p}.mass"), m, |m| (MIN_MASS..=MAX_MASS).contains(&m), &allowed);
    }
    let sp = format!("{p}.shape");
    match &r.shape {
        RigidShapeSpec::Box { size } => {
            c.positive3(&format!("{sp}.size"), size);
            rigid_extents(c, &format!("{sp}.size"), fmt_v3(size), size);
        }
        RigidShapeSpec::Sphere { radius } => {
            c.positive(&format!("{sp}.radius"), *radius, " (m)");
            rigid_extents(c, &format!("{sp}.radius"), format!("{radius:?}"), &[*radius]);
        }
        RigidShapeSpec::Cylinder { radius, length } | RigidShapeSpec::Capsule { radius, length } => {
            c.positive(&format!("{sp}.radius"), *radius, " (m)");
            rigid_extents(c, &format!("{sp}.radius"), format!("{radius:?}"), &[*radius]);
            if matches!(r.shape, RigidShapeSpec::Cylinder { .. }) {
                c.positive(&format!("{sp}.length"), *length, " (m)");
            } else {
                c.non_negative(&format!("{sp}.length"), *length);
            }
        }
        RigidShapeSpec::Prism { profile, length } => {
            c.positive(&format!("{sp}.length"), *length, " (m)");
            if profile.len() < 3 {
                c.push(
                    format!("{sp}.profile"),
                    Some(format!("{} points", profile.len())),
                    "a prism profile needs at least 3 points (a simple polygon in the xy plane)",
                );
            }
        }
        RigidShapeSpec::Mesh { path, scale } => {
            c.positive(&format!("{sp}.scale"), *scale, "");
            file(c, &format!("{sp}.path"), path, &["ply", "obj"], "a `.ply` or `.obj` triangle mesh", base_dir);
        }
    }
    if let Some(q) = r.orientation {
        if r.rotation != [0.0; 3] {
            c.push(
                format!("{p}.orientation"),
                None,
                "give either `rotation` (degrees) or `orientation` (quaternion), not both",
            );
        }
        let norm = q.iter().map(|x| x * x).sum::<f64>().sqrt();
        if norm.is_finite() && (norm - 1.0).abs() > 1e-6 {
            c.push(
                format!("{p}.orientation"),
                Some(format!("({:?}, {:?}, {:?}, {:?})", q[0], q[1], q[2], q[3])),
                format!("must be a unit quaternion (w, x, y, z); its norm is {norm}"),
            );
        }
    }
    if let Some(m) = &r.motion {
        motion(c, &format!("{p}.motion"), m);
        if rotates(m) && r.angular_velocity.iter().any(|&w| w != 0.0) {
            c.push(
                format!("{p}.angular_velocity"),
                Some(fmt_v3(&r.angular_velocity)),
                "a body whose `motion` turns it takes its rotation from the motion; leave `angular_velocity` out",
            );
        }
    }
    match &r.structure {
        Some(StructureSpec::Direction(d)) if d.iter().all(|x| x.is_finite()) && d.iter().all(|&x| x == 0.0) => c.push(
            format!("{p}.structure"),
            Some(fmt_v3(d)),
            "a structure direction must be non-zero (leave `structure` out for an isotropic surface)",
        ),
        Some(StructureSpec::Texture { path }) => {
            file(c, &format!("{p}.structure.path"), path, &["png"], "a `.png` image", base_dir)
        }
        Some(f) => {
            if let Err(why) = crate::scene::rigid::structure(f, nalgebra::Vector3::zeros()) {
                c.push(format!("{p}.structure"), None, why);
            }
        }
        None => {}
    }
}

/// A cloth's structure direction: non-zero, and for a `Grid` (which lies in its local xy plane)
/// with a non-zero in-plane part, else no triangle would have a tangential structure.
fn cloth_structure(c: &mut Checks, p: &str, cl: &ClothSpec) {
    direction_or_field(c, p, cl.structure.as_ref(), cl.structure_field.as_ref());
    let Some(d) = cl.structure else { return };
    if !d.iter().all(|x| x.is_finite()) {
        return;
    }
    if d.iter().all(|&x| x == 0.0) {
        c.push(
            format!("{p}.structure"),
            Some(fmt_v3(&d)),
            "a structure direction must be non-zero (leave `structure` out for an isotropic cloth)",
        );
    } else if matches!(cl.mesh, ClothMeshSpec::Grid { .. }) && d[0] == 0.0 && d[1] == 0.0 {
        c.push(
            format!("{p}.structure"),
            Some(fmt_v3(&d)),
            "a Grid cloth lies in its local xy plane: the structure direction needs a non-zero x or y component",
        );
    }
}

/// A tet solid's boundary structure: a non-zero direction or a well-formed field, not both,
/// and only where it acts (the `Nonsmooth` pipeline's nodal contacts).
fn solid_structure(c: &mut Checks, p: &str, b: &crate::scene::schema::SolidSpec, nonsmooth: bool) {
    direction_or_field(c, p, b.structure.as_ref(), b.structure_field.as_ref());
    if let Some(d) = b.structure.filter(|d| d.iter().all(|x| *x == 0.0)) {
        c.push(
            format!("{p}.structure"),
            Some(fmt_v3(&d)),
            "a structure direction must be non-zero (leave `structure` out for an isotropic solid)",
        );
    }
    if !nonsmooth && (b.structure.is_some() || b.structure_field.is_some()) {
        let which = if b.structure.is_some() { "structure" } else { "structure_field" };
        c.push(
            format!("{p}.{which}"),
            None,
            "a solid's matchstick structure acts in `pipeline: Nonsmooth(..)` only (the other pipelines' \
             contacts with solids are isotropic)",
        );
    }
}

/// A file named in the scene: known extension and present.
fn file(c: &mut Checks, p: &str, path: &str, exts: &[&str], what: &str, base_dir: &Path) {
    let ext = Path::new(path).extension().and_then(|e| e.to_str()).map(str::to_ascii_lowercase);
    let full = resolve_path(base_dir, path);
    if !ext.as_deref().is_some_and(|e| exts.contains(&e)) {
        c.push(p, Some(format!("{path:?}")), format!("must be {what}"));
    } else if !full.exists() {
        c.push(
            p,
            Some(format!("{path:?}")),
            format!("file not found (looked for {}; paths are relative to the scene file)", full.display()),
        );
    } else if !full.is_file() {
        c.push(p, Some(format!("{path:?}")), format!("not a file ({})", full.display()));
    }
}

fn mesh(c: &mut Checks, p: &str, m: &MeshSpec, base_dir: &Path) {
    match m {
        MeshSpec::Box { size, cells, wall } => {
            c.positive3(&format!("{p}.size"), size);
            let half = size.iter().fold(f64::INFINITY, |m, &x| m.min(0.5 * x));
            c.check(
                &format!("{p}.wall"),
                *wall,
                |w| w >= 0.0 && (w == 0.0 || w < half),
                "must be 0 (a solid box) or in (0, half the smallest size) (m)",
            );
            if cells.contains(&0) {
                c.push(
                    format!("{p}.cells"),
                    Some(format!("({}, {}, {})", cells[0], cells[1], cells[2])),
                    "every component must be >= 1",
                );
            }
            // A typo such as `cells: (4000, 4000, 4000)` must be an error, not an out-of-memory abort.
            let count = 6.0 * cells.iter().map(|&k| k as f64).product::<f64>();
            let r = Resolution { count, what: "tetrahedra (6 nx ny nz)", bytes_each: TET_BYTES };
            c.resolution(&format!("{p}.cells"), format!("({}, {}, {})", cells[0], cells[1], cells[2]), None, r);
        }
        MeshSpec::Ball { radius, resolution, inner_radius } | MeshSpec::Bowl { radius, resolution, inner_radius } => {
            let bowl = matches!(m, MeshSpec::Bowl { .. });
            c.positive(&format!("{p}.radius"), *radius, " (m)");
            c.check(
                &format!("{p}.inner_radius"),
                *inner_radius,
                |r| if bowl { r > 0.0 && r < *radius } else { r >= 0.0 && r < *radius },
                if bowl { "must be in (0, radius) (m)" } else { "must be in [0, radius) (m); 0 is a solid ball" },
            );
            if (bowl || *inner_radius > 0.0) && (!resolution.is_multiple_of(2) || *resolution < 4) {
                c.push(
                    format!("{p}.resolution"),
                    Some(resolution.to_string()),
                    "a hollow ball or a bowl needs an even resolution >= 4",
                );
            }
            if *resolution < 2 {
                c.push(
                    format!("{p}.resolution"),
                    Some(resolution.to_string()),
                    "must be >= 2 (cells across the diameter)",
                );
            }
            let count = 6.0 * (*resolution as f64).powi(3);
            let r = Resolution { count, what: "tetrahedra (6 resolution³)", bytes_each: TET_BYTES };
            c.resolution(&format!("{p}.resolution"), resolution.to_string(), None, r);
        }
        MeshSpec::File { path, scale } => {
            c.positive(&format!("{p}.scale"), *scale, "");
            let ext = Path::new(path).extension().and_then(|e| e.to_str()).map(str::to_ascii_lowercase);
            let full = resolve_path(base_dir, path);
            if !matches!(ext.as_deref(), Some("vtk" | "vtu")) {
                c.push(
                    format!("{p}.path"),
                    Some(format!("{path:?}")),
                    "must be a `.vtk` (legacy) or `.vtu` file of tetrahedra",
                );
            } else if !full.exists() {
                c.push(
                    format!("{p}.path"),
                    Some(format!("{path:?}")),
                    format!("file not found (looked for {}; paths are relative to the scene file)", full.display()),
                );
            } else if !full.is_file() {
                c.push(format!("{p}.path"), Some(format!("{path:?}")), format!("not a file ({})", full.display()));
            }
        }
        MeshSpec::Embedded { surface, scale, cage } => {
            c.positive(&format!("{p}.scale"), *scale, "");
            file(c, &format!("{p}.surface"), surface, &["obj", "ply"], "a closed `.obj` or `.ply` surface", base_dir);
            match cage {
                // The count of cubes against the surface's size is checked when it is read.
                CageSpec::Grid { cell } => c.positive(&format!("{p}.cage.cell"), *cell, " (m)"),
                CageSpec::File { path, scale } => {
                    c.positive(&format!("{p}.cage.scale"), *scale, "");
                    file(c, &format!("{p}.cage.path"), path, &["vtk", "vtu"], "a `.vtk` or `.vtu` tet mesh", base_dir);
                }
            }
        }
    }
}

/// Bodies that only the Newton nodal step of `Nonsmooth` takes (their nodes are eliminated onto
/// other unknowns): `stepped` names them in the message against the ADMM integrator, `elsewhere`
/// is the message for any other pipeline.
fn newton_nodal_only(c: &mut Checks, s: &Scene, field: &str, (stepped, elsewhere): (&str, &str)) {
    match &s.pipeline {
        PipelineSpec::Nonsmooth(n) if n.nodal_integrator == crate::scene::schema::NodalIntegratorSpec::Admm => c.push(
            field.to_string(),
            None,
            format!("{stepped} by the Newton nodal integrator: use `nodal_integrator: Newton`"),
        ),
        PipelineSpec::Nonsmooth(_) => {}
        _ => c.push(field.to_string(), None, elsewhere),
    }
}

/// An embedded solid (004): the Newton nodal step of `Nonsmooth`, whose contact columns carry the
/// surface's barycentric weights onto the cage; the cage's vertices are all its own unknowns.
fn embedded(c: &mut Checks, s: &Scene, p: &str, b: &crate::scene::schema::SolidSpec) {
    newton_nodal_only(
        c,
        s,
        &format!("{p}.mesh"),
        ("an embedded solid is stepped", "an `Embedded` solid mesh needs `pipeline: Nonsmooth(..)`"),
    );
    if !b.kinematic.is_empty() {
        c.push(format!("{p}.kinematic"), None, "an embedded solid takes no scripted or attached vertex sets (yet)");
    }
    if b.reduced.is_some() {
        c.push(format!("{p}.reduced"), None, "an embedded solid cannot also be reduced");
    }
}

/// Largest turn (degrees) between consecutive `Rigid` keys: the shortest rotation between two
/// orientations is ambiguous at 180 degrees and ill-conditioned near it.
const MAX_KEY_TURN_DEGREES: f64 = 179.0;

fn increasing_times(c: &mut Checks, p: &str, times: impl Iterator<Item = f64>) {
    let times: Vec<f64> = times.collect();
    for (k, pair) in times.windows(2).enumerate() {
        let (t0, t1) = (pair[0], pair[1]);
        if t0.is_finite() && t1.is_finite() && t1 <= t0 {
            c.push(
                format!("{p}[{}][0]", k + 1),
                Some(fmt_f(t1)),
                format!("keyframe times must be strictly increasing (previous key is at {})", fmt_f(t0)),
            );
        }
    }
}

fn motion(c: &mut Checks, p: &str, m: &MotionSpec) {
    match m {
        MotionSpec::Fixed | MotionSpec::Velocity(_) => {}
        MotionSpec::Keyframes(keys) => {
            if keys.is_empty() {
                c.push(p, None, "`Keyframes` needs at least one `(time, (dx, dy, dz))` key");
            }
            increasing_times(c, p, keys.iter().map(|k| k.0));
        }
        MotionSpec::Rigid { keys, .. } => {
            let kp = format!("{p}.keys");
            if keys.is_empty() {
                c.push(&kp, None, "`Rigid` needs at least one `(time, (dx, dy, dz), (rx, ry, rz))` key");
                return;
            }
            increasing_times(c, &kp, keys.iter().map(|k| k.0));
            let finite = keys.iter().all(|(t, x, r)| t.is_finite() && x.iter().chain(r).all(|v| v.is_finite()));
            if !finite {
                return; // reported by `nonfinite`
            }
            let model = super::build::motion(m);
            for (k, pair) in keys.windows(2).enumerate() {
                let [a, b] = [pair[0].2, pair[1].2].map(|r| {
                    UnitQuaternion::from_rotation_matrix(&Rotation3::from_matrix_unchecked(rotation_from_degrees(r)))
                });
                let turn = a.angle_to(&b).to_degrees();
                // The orientation turns the shortest way: 0 -> 200 degrees about z would turn by
                // -160. Asking for steps of at most 180 degrees per angle keeps what is written
                // and what happens the same for turns about one axis.
                let jump = (0..3).map(|i| (pair[1].2[i] - pair[0].2[i]).abs()).fold(0.0, f64::max);
                if jump > 180.0 {
                    c.push(
                        format!("{kp}[{}][2]", k + 1),
                        Some(fmt_v3(&pair[1].2)),
                        format!(
                            "an angle changes by {jump:.1} degrees from the previous key; between consecutive keys \
                             each angle may change by at most 180 degrees, as the orientation turns the shortest \
                             way from key to key: insert an intermediate key"
                        ),
                    );
                } else if turn > MAX_KEY_TURN_DEGREES {
                    c.push(
                        format!("{kp}[{}][2]", k + 1),
                        Some(fmt_v3(&pair[1].2)),
                        format!(
                            "turns {turn:.1} degrees from the previous key; consecutive keys may differ by at most \
                             {MAX_KEY_TURN_DEGREES} degrees (the shortest rotation is ambiguous at 180): insert an \
                             intermediate key"
                        ),
                    );
                }
            }
            let (c0, r0) = (model.offset(0.0), model.rotation(0.0).angle().to_degrees());
            // Keys are in m and degrees as typed; 1e-12 only forgives the round-off of an
            // interpolation through t = 0 between keys that are both at rest.
            if c0.norm() > 1e-12 || r0 > 1e-12 {
                c.push(
                    &kp,
                    None,
                    format!(
                        "the pose at t = 0 must be the scene placement (zero translation and rotation), but the \
                         keys give translation ({:?}, {:?}, {:?}) m and a turn of {r0:?} degrees there; place the \
                         object with its position/rotation fields and start the keys from ((0, 0, 0), (0, 0, 0))",
                        c0.x, c0.y, c0.z
                    ),
                );
            }
        }
        MotionSpec::Oscillate { axis, period, .. } => {
            nonzero_axis(c, &format!("{p}.axis"), axis);
            c.positive(&format!("{p}.period"), *period, " (seconds)");
        }
        MotionSpec::Spin { axis, .. } => nonzero_axis(c, &format!("{p}.axis"), axis),
    }
}

/// A rigid body must be a solid: no length below 1 nm, and no side of a box below 1e-6 of its
/// longest (a flatter box is a degenerate hull; a subnormal length has no usable volume or
/// inertia).
fn rigid_extents(c: &mut Checks, p: &str, shown: String, lengths: &[f64]) {
    let longest = lengths.iter().fold(0.0f64, |m, x| m.max(x.abs()));
    let too_thin = lengths.iter().any(|&x| x > 0.0 && (x < 1e-9 || x < 1e-6 * longest));
    if lengths.iter().all(|x| x.is_finite()) && too_thin {
        c.push(p, Some(shown), "must be at least 1e-9 m (and each side of a box at least 1e-6 of its longest)");
    }
}

/// A kinematic region: a box's bounds in order, a cylinder's axis and sizes.
fn region(c: &mut Checks, p: &str, r: &RegionSpec) {
    match r {
        RegionSpec::Box { min, max } => {
            if (0..3).any(|j| min[j] > max[j]) {
                c.push(
                    format!("{p}.min"),
                    Some(fmt_v3(min)),
                    format!("must be <= max {} in every component", fmt_v3(max)),
                );
            }
        }
        RegionSpec::Cylinder { axis, radius, length, .. } => {
            nonzero_axis(c, &format!("{p}.axis"), axis);
            c.positive(&format!("{p}.radius"), *radius, " (m)");
            c.positive(&format!("{p}.length"), *length, " (m)");
        }
    }
}

fn nonzero_axis(c: &mut Checks, p: &str, axis: &Vec3) {
    if axis.iter().all(|x| x.is_finite()) && axis.iter().all(|&x| x == 0.0) {
        c.push(p, Some(fmt_v3(axis)), "a rotation axis must be non-zero");
    }
}

/// Does the motion turn (as opposed to translating only)?
fn rotates(m: &MotionSpec) -> bool {
    matches!(m, MotionSpec::Rigid { .. } | MotionSpec::Oscillate { .. } | MotionSpec::Spin { .. })
}

/// A plane's, box's or cloth's structure: `structure` (a direction, checked by the caller where
/// it has more to say) or `structure_field`, not both.
fn direction_or_field(c: &mut Checks, p: &str, direction: Option<&Vec3>, field: Option<&StructureSpec>) {
    if direction.is_some() && field.is_some() {
        c.push(format!("{p}.structure_field"), None, "give `structure` (a direction) or `structure_field`, not both");
    }
    if let Some(f) = field {
        surface_structure(c, &format!("{p}.structure_field"), f);
    }
}

/// The structure of a surface without texture coordinates (colliders, cloth): a non-zero
/// direction or a well-formed procedural field (what the build makes of it: `rigid::structure`).
fn surface_structure(c: &mut Checks, p: &str, f: &StructureSpec) {
    match f {
        StructureSpec::Direction(d) if d.iter().all(|&x| x == 0.0) => {
            c.push(p.to_string(), Some(fmt_v3(d)), "a structure direction must be non-zero")
        }
        StructureSpec::Texture { .. } => c.push(
            p.to_string(),
            Some("Texture(..)".into()),
            "this surface has no texture coordinates: use a direction or a procedural field",
        ),
        f => {
            if let Err(why) = crate::scene::rigid::structure(f, nalgebra::Vector3::zeros()) {
                c.push(p.to_string(), None, why);
            }
        }
    }
}

fn collider_name(col: &ColliderSpec) -> &str {
    match col {
        ColliderSpec::Plane { name, .. }
        | ColliderSpec::Box { name, .. }
        | ColliderSpec::Sphere { name, .. }
        | ColliderSpec::Mesh { name, .. }
        | ColliderSpec::Cylinder { name, .. } => name,
    }
}

fn colliders(c: &mut Checks, s: &Scene, base_dir: &Path) {
    for (i, col) in s.colliders.iter().enumerate() {
        let p = format!("colliders[{i}]");
        c.name(&format!("{p}.name"), collider_name(col), "a collider name");
        if let ColliderSpec::Plane { structure, structure_field, .. }
        | ColliderSpec::Box { structure, structure_field, .. } = col
        {
            direction_or_field(c, &p, structure.as_ref(), structure_field.as_ref());
            if let Some(d) = structure {
                surface_structure(c, &format!("{p}.structure"), &StructureSpec::Direction(*d));
            }
        }
        let (material, motion_spec) = match col {
            ColliderSpec::Plane { material, motion, .. } => (material, motion),
            ColliderSpec::Box { material, size, motion, .. } => {
                c.positive3(&format!("{p}.size"), size);
                (material, motion)
            }
            ColliderSpec::Sphere { material, radius, motion, .. } => {
                c.positive(&format!("{p}.radius"), *radius, " (m)");
                (material, motion)
            }
            ColliderSpec::Cylinder { material, radius, length, motion, .. } => {
                c.positive(&format!("{p}.radius"), *radius, " (m)");
                c.positive(&format!("{p}.length"), *length, " (m)");
                (material, motion)
            }
            ColliderSpec::Mesh { material, path, scale, motion, animation, structure, .. } => {
                c.positive(&format!("{p}.scale"), *scale, "");
                if let Some(f) = structure {
                    surface_structure(c, &format!("{p}.structure"), f);
                }
                mesh_collider_files(c, &p, path, animation.as_ref(), base_dir);
                (material, motion)
            }
        };
        known_material(c, s, &format!("{p}.material"), material);
        motion(c, &format!("{p}.motion"), motion_spec);
    }
}

/// A mesh collider's file; with `animation` its numbered pattern, whose first frame (0, or 1 if
/// there is no 0) must exist, or its glTF file. The other frames, and the glTF's content, are
/// read and checked when the scene is built.
fn mesh_collider_files(c: &mut Checks, p: &str, path: &str, animation: Option<&AnimationSpec>, base_dir: &Path) {
    let at = format!("{p}.path");
    let what = "a `.ply` or `.obj` triangle mesh";
    if crate::mesh::is_gltf(path) {
        return gltf_animation(c, p, path, animation, base_dir);
    }
    let pattern = match crate::mesh::sequence::FramePattern::parse(path) {
        Ok(pattern) => pattern,
        Err(why) => return c.push(at, Some(format!("{path:?}")), why),
    };
    match (pattern, animation) {
        (None, None) => file(c, &at, path, &["ply", "obj"], what, base_dir),
        (Some(_), None) => c.push(
            at,
            Some(format!("{path:?}")),
            "a numbered pattern is a sequence of frames: give its `animation: (fps: ..)`, or name one file",
        ),
        (None, Some(_)) => c.push(
            at,
            Some(format!("{path:?}")),
            "an animated mesh is a numbered sequence (write the frame number as `{}` or `{:04}`: \
             \"hand_{:04}.obj\") or a glTF skinned animation (`.gltf`, `.glb`)",
        ),
        (Some(pattern), Some(a)) => {
            match a.fps {
                Some(fps) => c.positive(&format!("{p}.animation.fps"), fps, " (frames per second)"),
                None => c.push(format!("{p}.animation.fps"), None, "a numbered sequence needs its frames per second"),
            }
            if let Some(clip) = &a.clip {
                c.push(format!("{p}.animation.clip"), Some(format!("{clip:?}")), "clips are for glTF files");
            }
            let first = if resolve_path(base_dir, &pattern.name(0)).exists() { 0 } else { 1 };
            file(c, &at, &pattern.name(first), &["ply", "obj"], what, base_dir);
        }
    }
}

/// A glTF skinned animation: the file, and an `animation` without a sequence's settings (the
/// clip has its own key times and interpolation).
fn gltf_animation(c: &mut Checks, p: &str, path: &str, animation: Option<&AnimationSpec>, base_dir: &Path) {
    file(c, &format!("{p}.path"), path, &["gltf", "glb"], "a glTF 2.0 file", base_dir);
    let Some(a) = animation else {
        return c.push(
            format!("{p}.animation"),
            None,
            "a glTF file is played as a skinned animation: give `animation: (clip: \"name\")` (or `animation: ()` for its first clip)",
        );
    };
    if let Some(fps) = a.fps {
        c.push(format!("{p}.animation.fps"), Some(fps.to_string()), "a glTF clip has its own key times: remove `fps`");
    }
    if let Some(i) = a.interpolation {
        c.push(
            format!("{p}.animation.interpolation"),
            Some(format!("{i:?}")),
            "a glTF clip has its own interpolation per channel: remove `interpolation`",
        );
    }
}

fn nonsmooth(c: &mut Checks, s: &Scene, ns: &NonsmoothSpec) {
    let p = "pipeline";
    if ns.newton_iterations < 1 {
        c.push(format!("{p}.newton_iterations"), Some(ns.newton_iterations.to_string()), "must be >= 1");
    }
    if ns.admm.gs_sweeps < 1 {
        c.push(format!("{p}.admm.gs_sweeps"), Some(ns.admm.gs_sweeps.to_string()), "must be >= 1");
    }
    c.positive(&format!("{p}.admm.element_weight"), ns.admm.element_weight, "");
    c.positive(&format!("{p}.admm.contact_weight"), ns.admm.contact_weight, "");
    c.positive(&format!("{p}.admm.tau_ls"), ns.admm.tau_ls, "");
    if let Some(d) = ns.admm.delta_inf {
        c.positive(&format!("{p}.admm.delta_inf"), d, " (m)");
    }
    let rigid = s.bodies.iter().position(|b| matches!(b, BodySpec::Rigid(_)));
    let nodal = s.bodies.iter().any(|b| matches!(b, BodySpec::Solid(_) | BodySpec::Cloth(_) | BodySpec::Rods(_)));
    if let (Some(r), DfcpSolverSpec::Admm | DfcpSolverSpec::NlIca, false) = (rigid, ns.solver, nodal) {
        c.push(
            format!("{p}.solver"),
            Some(format!("{:?}", ns.solver)),
            format!("{:?} solves the global form of scenes with solids, cloth or rods; a scene of rigid bodies only (bodies[{r}]) needs a local solver: StaggeredProjections, Prox, FischerBurmeister, GaussSeidel, PgsLcp, PgsPolygon, Lemke, RegularisedLcp, Sqp, VelocityAdmm or Auto", ns.solver),
        );
    }
    if ns.solver == DfcpSolverSpec::VelocityAdmm {
        let why = if nodal {
            Some(
                "VelocityAdmm solves rigid-body scenes only: on the global form of scenes with solids, cloth, rods or reduced bodies it is not yet validated (three reduced critters landing in a bin end 4 mm from where Admm puts them); use Admm or Auto",
            )
        } else if !s.joints.is_empty() {
            Some(
                "VelocityAdmm works in the bodies' velocities through W = J M⁻¹ Jᵀ, which the joints of a rigid-body scene change; use Auto, Prox or GaussSeidel with joints",
            )
        } else {
            None
        };
        if let Some(why) = why {
            c.push(format!("{p}.solver"), Some("VelocityAdmm".into()), why);
        }
    }
    if ns.implicit_frames > crate::scene::schema::MAX_IMPLICIT_FRAMES {
        c.push(
            format!("{p}.implicit_frames"),
            Some(ns.implicit_frames.to_string()),
            format!(
                "must be at most {} (each pass is a full contact solve)",
                crate::scene::schema::MAX_IMPLICIT_FRAMES
            ),
        );
    }
    if ns.implicit_frames > 0 && nodal {
        c.push(
            format!("{p}.implicit_frames"),
            Some(ns.implicit_frames.to_string()),
            "implicit frames are generated for rigid-body scenes; this scene has solids, cloth or rods, whose contacts the nodal step solves (use 0)",
        );
    }
    if let (RigidIntegratorSpec::Variational, true) = (ns.integrator, nodal) {
        c.push(
            format!("{p}.integrator"),
            Some("Variational".into()),
            "002's variational integrator takes rigid bodies only; this scene has solids, cloth or rods (use `Moreau`)",
        );
    }
    if ns.nodal_integrator == NodalIntegratorSpec::Admm {
        if ns.solver != DfcpSolverSpec::Admm {
            c.push(
                format!("{p}.solver"),
                Some(format!("{:?}", ns.solver)),
                "`nodal_integrator: Admm` solves the contacts inside its own ADMM loop: set `solver: Admm`",
            );
        }
        let dynamic = s.bodies.iter().position(|b| matches!(b, BodySpec::Rigid(r) if r.motion.is_none()));
        if let Some(r) = dynamic {
            c.push(
                format!("{p}.nodal_integrator"),
                Some("Admm".into()),
                format!("the ADMM integrator splits nodal elements only; bodies[{r}] is a dynamic rigid body (use `ProjectedNewton`, or give the body a `motion`)"),
            );
        }
    }
    c.positive(&format!("{p}.tolerance"), ns.tolerance, "");
    if ns.max_iterations < 1 {
        c.push(format!("{p}.max_iterations"), Some(ns.max_iterations.to_string()), "must be >= 1");
    }
    c.check(&format!("{p}.restitution"), ns.restitution, |v| (0.0..=1.0).contains(&v), "must be in [0, 1]");
    c.non_negative(&format!("{p}.restitution_threshold"), ns.restitution_threshold);
    c.check(
        &format!("{p}.penetration_correction"),
        ns.penetration_correction,
        |v| (0.0..=1.0).contains(&v),
        "must be in [0, 1] (the fraction of a penetration removed per step)",
    );
    c.non_negative(&format!("{p}.allowed_penetration"), ns.allowed_penetration);
    c.non_negative(&format!("{p}.contact_margin"), ns.contact_margin);
    if let DfcpSolverSpec::StaggeredProjections { acceleration, proximal, stop, contact_qp, .. } = ns.solver {
        sp_switches(c, &format!("{p}.solver"), acceleration, proximal, stop);
        if contact_qp == SpContactQpSpec::Primal && proximal != 0.0 {
            c.push(
                format!("{p}.solver.contact_qp"),
                Some("Primal".into()),
                "the primal contact QP (002 eq. 5.11) has no proximal term: set `proximal: 0.0` with it",
            );
        }
    }
    let samples = ns.solver.samples();
    if let Some(k) = samples.filter(|k| !crate::dfcp::stewart_trinkle::SAMPLES.contains(k)) {
        c.push(
            format!("{p}.solver.samples"),
            Some(k.to_string()),
            "a friction polygon has 3 to 64 samples (002 uses 8)",
        );
    }
    exact_coulomb_laws(c, s, "Nonsmooth");
}

/// The switches of Staggered Projections at `path`.
fn sp_switches(c: &mut Checks, path: &str, acceleration: SpAcceleration, proximal: f64, stop: SpStopSpec) {
    if let SpAcceleration::Anderson(m) = acceleration
        && !(1..=50).contains(&m)
    {
        c.push(
            format!("{path}.acceleration"),
            Some(format!("Anderson({m})")),
            "an Anderson memory from 1 to 50 (or `Off`)",
        );
    }
    c.check(
        &format!("{path}.proximal"),
        proximal,
        |v| (0.0..=1.0).contains(&v),
        "must be in [0, 1] (relative to the QPs' Lipschitz constants; 0: the QPs as printed)",
    );
    if let SpStopSpec::RelativeChange(e) | SpStopSpec::Residual(e) = stop {
        c.positive(&format!("{path}.stop"), e, "");
    }
}

/// The kernel and support radius of an MLS field at `path`.
fn mls_field(c: &mut Checks, path: &str, kernel: crate::contact::implicit::Kernel, radius: f64) {
    c.positive(&format!("{path}.radius"), radius, " (m)");
    if let crate::contact::implicit::Kernel::Approximate { epsilon } = kernel {
        c.check(
            &format!("{path}.kernel.epsilon"),
            epsilon,
            |e| e > 0.0 && e <= 1.0,
            "must be in (0, 1]: small values interpolate the surface (000 uses 1e-5 to 0.1)",
        );
    }
}

/// Exact Coulomb friction has one coefficient (and `mu_t`, `mu_b`): the smoothed laws' extras
/// would be ignored by the `pipeline` named.
fn exact_coulomb_laws(c: &mut Checks, s: &Scene, pipeline: &str) {
    for (lp, l) in laws(s) {
        if l.mu_s.is_some() || l.v_s.is_some() || l.mu_v != 0.0 {
            c.push(
                lp,
                None,
                format!(
                    "Stribeck (mu_s, v_s) and viscous (mu_v) friction are smoothed laws of the Penalty pipeline; \
                     the {pipeline} pipeline uses exact Coulomb friction with `mu` (and `mu_t`, `mu_b`)"
                ),
            );
        }
    }
}

fn smooth(c: &mut Checks, s: &Scene, sm: &SmoothSpec) {
    mls_field(c, "pipeline.field", sm.field.kernel, sm.field.radius);
    c.positive("pipeline.predictor.tolerance", sm.predictor.tolerance, " (m/s)");
    if sm.predictor.max_iterations < 1 {
        c.push("pipeline.predictor.max_iterations", Some(sm.predictor.max_iterations.to_string()), "must be >= 1");
    }
    c.positive("pipeline.friction.tolerance", sm.friction.tolerance, "");
    if sm.friction.max_iterations < 1 {
        c.push("pipeline.friction.max_iterations", Some(sm.friction.max_iterations.to_string()), "must be >= 1");
    }
    if let crate::dfcp::polar_sp::PolarStop::RelativeChange(eps) = sm.friction.stop {
        c.check("pipeline.friction.stop", eps, |e| e > 0.0 && e < 1.0, "RelativeChange(ε) needs 0 < ε < 1 (000: 1e-4)");
        if sm.friction.solver != SmoothFrictionSolver::PolarStaggeredProjections {
            c.push(
                "pipeline.friction.stop",
                Some(format!("RelativeChange({eps})")),
                "000's stop rule is polar Staggered Projections' (the other solvers stop on the natural map)",
            );
        }
    }
    c.non_negative("pipeline.prune", sm.prune);
    exact_coulomb_laws(c, s, "Smooth");
}

/// Every friction law of the scene with its field path.
fn laws(s: &Scene) -> impl Iterator<Item = (String, FrictionLawSpec)> + '_ {
    std::iter::once(("friction.default".to_string(), s.friction.default))
        .chain(s.friction.pairs.iter().enumerate().map(|(i, pr)| (format!("friction.pairs[{i}]"), pr.law())))
}

/// Cohesion and compliance are terms of the exact contact law of `Nonsmooth` (compliance not
/// with its variational rigid integrator nor the ADMM integrator); elsewhere they would be
/// ignored.
fn nonsmooth_contact_terms(c: &mut Checks, s: &Scene, pipeline: &str) {
    for (lp, l) in laws(s) {
        for (term, given) in [("cohesion", l.cohesion.is_some()), ("compliance", l.compliance.is_some())] {
            if given && pipeline != "Nonsmooth" {
                c.push(
                    format!("{lp}.{term}"),
                    None,
                    format!("{term} is applied by the Nonsmooth pipeline only; this scene uses {pipeline}"),
                );
            }
        }
        if let (Some(_), PipelineSpec::Nonsmooth(ns)) = (l.compliance, &s.pipeline) {
            if ns.integrator == RigidIntegratorSpec::Variational {
                c.push(format!("{lp}.compliance"), None, "compliance is not available with `integrator: Variational`");
            }
            if ns.nodal_integrator == NodalIntegratorSpec::Admm {
                c.push(
                    format!("{lp}.compliance"),
                    None,
                    "compliance is not available with `nodal_integrator: Admm` (use `ProjectedNewton`)",
                );
            }
        }
    }
}

fn pipeline(c: &mut Checks, s: &Scene) {
    let name = match &s.pipeline {
        PipelineSpec::Penalty(_) => "Penalty",
        PipelineSpec::Nonsmooth(_) => "Nonsmooth",
        PipelineSpec::Smooth(_) => "Smooth",
    };
    nonsmooth_contact_terms(c, s, name);
    let pen = match &s.pipeline {
        PipelineSpec::Penalty(pen) => pen,
        PipelineSpec::Nonsmooth(ns) => return nonsmooth(c, s, ns),
        PipelineSpec::Smooth(sm) => return smooth(c, s, sm),
    };
    c.positive("pipeline.contact.delta", pen.contact.delta, " (m)");
    if let crate::scene::schema::ContactGeometry::Implicit { kernel, radius } = pen.contact.geometry {
        mls_field(c, "pipeline.contact.geometry", kernel, radius);
    }
    if let Some(k) = pen.contact.kappa {
        c.positive("pipeline.contact.kappa", k, " (N/m)");
    }
    let n = &pen.newton;
    c.positive("pipeline.newton.residual_tolerance", n.residual_tolerance, " (m/s^2)");
    c.positive("pipeline.newton.step_tolerance", n.step_tolerance, " (m/s)");
    if n.max_iterations < 1 {
        c.push("pipeline.newton.max_iterations", Some(n.max_iterations.to_string()), "must be >= 1");
    }
    c.check("pipeline.newton.armijo", n.armijo, |v| v > 0.0 && v < 1.0, "must be in (0, 1)");
    c.check("pipeline.newton.backtrack", n.backtrack, |v| v > 0.0 && v < 1.0, "must be in (0, 1)");
    if let IntegratorSpec::TrBdf2 { gamma } = pen.integrator {
        c.check(
            "pipeline.integrator.gamma",
            gamma,
            |g| g > 0.0 && g < 1.0,
            "must be in (0, 1) (the TR stage's fraction of the step)",
        );
    }
    if pen.lagged_iterations > 0 && pen.friction != FrictionEvaluation::Lagged {
        c.push(
            "pipeline.lagged_iterations",
            Some(pen.lagged_iterations.to_string()),
            "applies to `friction: Lagged` only (implicit friction has nothing to iterate)",
        );
    }
}
