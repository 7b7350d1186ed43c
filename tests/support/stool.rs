//! The stool of `scenes/stool.ron` (000 Fig. 8) and `scenes/chairs.ron` (002 Fig. 7.3, reduced)
//! pushed down its 10° ramp: stick–slip of its leg groups while it slides, then its hold.
#![allow(dead_code)]

use fricsim::simulation::Simulation;
use nalgebra::Vector3;

/// What a run of the stool showed.
pub struct Chatter {
    /// Times the front and the hind legs went from slipping to sticking while it slid (0.1–1.4 s,
    /// its centroid faster than 1 cm/s).
    pub sticks: [usize; 2],
    /// Steps with both groups stuck at once in that window.
    pub together: usize,
    /// Distance its centroid travelled down the ramp.
    pub travelled: f64,
    /// How far its feet moved along the ramp over the last 0.4 s (after 1.6 s).
    pub drift: f64,
}

/// Runs the stool (nodes `0..N`, feet on the ramp at the start) for 2 s, every step required to
/// converge. A leg group sticks while its feet move at less than a tenth of the centroid's speed.
pub fn run(s: &mut Simulation) -> Chatter {
    let theta = 10f64.to_radians();
    let down = Vector3::new(-theta.cos(), 0.0, -theta.sin());
    let normal = Vector3::new(-theta.sin(), 0.0, theta.cos());
    let at = |x: &[f64], i: usize| Vector3::new(x[3 * i], x[3 * i + 1], x[3 * i + 2]);
    let all = 0..s.model.node_count();
    // Feet: the vertices on the ramp; the front legs are downhill of the centroid.
    let (c0, _) = s.state.nodes_centroid(&s.model, all.clone());
    let feet: Vec<usize> = all.clone().filter(|&i| at(&s.state.q, i).dot(&normal).abs() < 1e-9).collect();
    let front: Vec<bool> = feet.iter().map(|&i| (at(&s.state.q, i) - c0).dot(&down) > 0.0).collect();
    let mean = |x: &[f64], want: bool| {
        let sel: Vec<f64> =
            feet.iter().zip(&front).filter(|(_, f)| **f == want).map(|(&i, _)| at(x, i).dot(&down)).collect();
        sel.iter().sum::<f64>() / sel.len() as f64
    };
    let (mut sticks, mut was_stuck, mut together) = ([0, 0], [false, false], 0);
    let mut held_from = None;
    for _ in 0..(2.0 / s.model.dt).round() as usize {
        let st = s.step().expect("finite state");
        assert!(st.converged, "step {} failed: {:?}", s.state.step, st.failure);
        let speed = s.state.nodes_centroid(&s.model, all.clone()).1.dot(&down);
        let (vf, vh) = (mean(&s.state.v, true), mean(&s.state.v, false));
        // While it slides: once stopped (a rigid stool at 1.31 s), its feet's speeds are round-off.
        if (0.1..1.4).contains(&s.state.time) && speed > 0.01 {
            let stuck = [vf < 0.1 * speed, vh < 0.1 * speed];
            for g in 0..2 {
                sticks[g] += usize::from(stuck[g] && !was_stuck[g]);
            }
            together += usize::from(stuck[0] && stuck[1]);
            was_stuck = stuck;
        }
        if held_from.is_none() && s.state.time >= 1.6 - 1e-9 {
            held_from = Some((mean(&s.state.q, true), mean(&s.state.q, false)));
        }
    }
    let (f0, h0) = held_from.expect("the run reaches 1.6 s");
    let drift = (mean(&s.state.q, true) - f0).abs().max((mean(&s.state.q, false) - h0).abs());
    let travelled = (s.state.nodes_centroid(&s.model, all).0 - c0).dot(&down);
    Chatter { sticks, together, travelled, drift }
}
