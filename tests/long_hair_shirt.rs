//! 004 W7's long hair over a shirt (`scenes/long_hair_shirt.ron`): long strands hang from the
//! back of a head over the back of a skinned torso, leaning forward as a runner does, and over
//! the tank top hanging on its shoulders; the chest sways from 0.5 s on. The hair must lie on the
//! shirt without passing through it, and the shirt must keep hanging on the shoulders under it.

#[path = "support/scene_run.rs"]
mod scene_run;

use fricsim::contact::point_triangle::{Feature, closest_feature, evaluate};
use fricsim::simulation::Simulation;
use rayon::prelude::*;

/// The hair's radius and the shirt's thickness in the scene: a strand resting on the shirt has
/// its nodes this far off the shirt's mid-surface.
const HAIR_R: f64 = 4e-5;
const SHIRT_T: f64 = 2e-3;
/// The torso's tilt in the scene: its glTF +y axis turned by this (degrees) about x, through
/// the origin (90° to stand up, 15° of lean).
const TORSO_TILT: f64 = 105.0;

/// The direction from the torso's axis to `x`, across the axis.
fn outward(x: [f64; 3]) -> [f64; 3] {
    let b = TORSO_TILT.to_radians();
    let axis = [0.0, b.cos(), b.sin()];
    let along: f64 = (0..3).map(|i| x[i] * axis[i]).sum();
    std::array::from_fn(|i| x[i] - along * axis[i])
}

/// How near a node must be to a triangle's face to count (m): the hair moves well under a
/// millimetre a step here, so a node crossing the shirt in a step is within this of the
/// triangle it crosses before and after.
const NEAR: f64 = 3e-3;

/// The shirt and the hair at one time: each shirt triangle with the sign that makes its face
/// gap positive away from the torso, each hair node, and the triangle nearest to it when that
/// nearest point lies inside the triangle's face within `NEAR`.
struct Snapshot {
    shirt: Vec<([[f64; 3]; 3], f64)>,
    hair: Vec<[f64; 3]>,
    nearest: Vec<Option<usize>>,
}

impl Snapshot {
    fn of(s: &Simulation) -> Snapshot {
        let q = &s.state.q;
        let node = |i: usize| -> [f64; 3] { std::array::from_fn(|d| q[3 * i + d]) };
        let shirt: Vec<([[f64; 3]; 3], f64)> = s.model.cloths[0]
            .triangles
            .iter()
            .map(|t| {
                let p = t.map(node);
                let centre: [f64; 3] = std::array::from_fn(|d| (p[0][d] + p[1][d] + p[2][d]) / 3.0);
                let out = outward(centre);
                let probe: [f64; 3] = std::array::from_fn(|d| centre[d] + 1e-3 * out[d]);
                (p, evaluate::<f64>(Feature::Face, 1.0, probe, &p).gap.signum())
            })
            .collect();
        let hair: Vec<[f64; 3]> = s.model.rod_bundles[0].nodes.clone().map(node).collect();
        let nearest = hair
            .par_iter()
            .map(|&x| {
                let (k, (feature, d2)) = shirt
                    .iter()
                    .map(|(t, _)| closest_feature(x, t))
                    .enumerate()
                    .min_by(|a, b| a.1.1.total_cmp(&b.1.1))?;
                (feature == Feature::Face && d2 < NEAR * NEAR).then_some(k)
            })
            .collect();
        Snapshot { shirt, hair, nearest }
    }

    /// Hair node `i`'s signed gap to triangle `t`'s plane (positive away from the torso), if its
    /// nearest point of `t` lies inside the face.
    fn side(&self, t: usize, i: usize) -> Option<f64> {
        let (p, sign) = &self.shirt[t];
        let x = self.hair[i];
        (closest_feature(x, p).0 == Feature::Face).then(|| sign * evaluate::<f64>(Feature::Face, 1.0, x, p).gap)
    }
}

/// Hair nodes that crossed a shirt triangle from outside to inside between two snapshots: the
/// triangle nearest the node before or after holds it in its face region at both times, on the
/// outer side before and the inner side after. (Nodes only: a strand's 1.4 cm edges between
/// them are not checked.)
fn crossings(before: &Snapshot, after: &Snapshot) -> usize {
    let crossed = |i: usize| {
        [before.nearest[i], after.nearest[i]]
            .into_iter()
            .flatten()
            .any(|t| before.side(t, i).is_some_and(|g| g >= 0.0) && after.side(t, i).is_some_and(|g| g < 0.0))
    };
    (0..before.hair.len()).into_par_iter().filter(|&i| crossed(i)).count()
}

/// Hair nodes resting on the shirt: outside it, within a hair radius and half the shirt's
/// thickness of its mid-surface, plus 0.5 mm (a quarter of the shirt's thickness: near enough
/// to count as lying on it, while the hair starts 3 mm off it).
fn resting(n: &Snapshot) -> usize {
    let touching = HAIR_R + 0.5 * SHIRT_T + 5e-4;
    (0..n.hair.len())
        .filter(|&i| n.nearest[i].and_then(|t| n.side(t, i)).is_some_and(|g| (0.0..touching).contains(&g)))
        .count()
}

/// The shirt's mean height (its nodes weigh alike up to the mesh's areas; enough to see it slip).
fn shirt_height(s: &Simulation) -> f64 {
    let nodes = &s.model.cloths[0].nodes;
    scene_run::mean_height(&s.state.q[3 * nodes.start..3 * nodes.end])
}

/// What a run did: the hair nodes that crossed a shirt triangle, the most nodes resting on the
/// shirt at a frame's end and those at the end of the run, how far the shirt's mean height fell
/// from the start, and the steps short of the solver's stop.
struct Run {
    crossed: usize,
    most_resting: usize,
    resting: usize,
    shirt_fell: f64,
    missed: usize,
}

/// Runs the scene for `seconds`, checking the hair against the shirt every step.
fn run(seconds: f64) -> Run {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("scenes/long_hair_shirt.ron");
    let mut s = Simulation::from_file(&path, &[format!("duration={seconds}")]).unwrap_or_else(|e| panic!("{e}"));
    let start = shirt_height(&s);
    let mut before = Snapshot::of(&s);
    let mut r = Run { crossed: 0, most_resting: 0, resting: 0, shirt_fell: 0.0, missed: 0 };
    for k in 1..=s.model.step_count() {
        r.missed += usize::from(!s.step().expect("finite state").converged);
        let after = Snapshot::of(&s);
        r.crossed += crossings(&before, &after);
        before = after;
        if k % s.model.steps_per_frame == 0 {
            r.resting = resting(&before);
            r.most_resting = r.most_resting.max(r.resting);
            println!(
                "{:.2} s: {} crossed, {} resting, shirt fell {:.2e} m",
                s.state.time,
                r.crossed,
                r.resting,
                start - shirt_height(&s)
            );
        }
    }
    r.shirt_fell = start - shirt_height(&s);
    r
}

/// 0.6 s: the hair falls 3 mm onto the shirt and the back, lies there while the torso hangs
/// still, and rides the sway's first 0.1 s. Measured: no hair node crosses a shirt triangle in
/// any step; 860 of the 3280 hair nodes rest on the shirt at the end (1391 at most, at 0.12 s,
/// before the strands' sides slide off the back; 617 at 0.8 s); the shirt's mean height falls
/// 4.3 mm, of which it settles 4.7 mm onto the shoulders in the first 0.08 s (it is made 4 mm
/// off the skin); every step meets the solver's stop. Bounds: no crossing at all; a tenth of the hair's nodes
/// resting on the shirt; the shirt 1 cm lower (at μ 0.5 it slides 16 cm down in 0.32 s).
#[test]
fn long_hair_lies_on_the_shirt_without_passing_through() {
    let r = run(0.6);
    println!(
        "crossed {}, resting {} (most {}), shirt fell {:.3e} m, {} steps short",
        r.crossed, r.resting, r.most_resting, r.shirt_fell, r.missed
    );
    assert_eq!(r.crossed, 0, "hair nodes crossed the shirt");
    assert!(r.resting >= 328, "only {} hair nodes rest on the shirt", r.resting);
    assert!(r.shirt_fell < 1e-2, "the shirt slid {:e} m down", r.shirt_fell);
    assert_eq!(r.missed, 0, "steps short of the solver's stop");
}
