//! Time integrators described by their stage coefficients (DESIGN.md principle 6), shared by the
//! pipelines that integrate forces.
//!
//! Every scheme here is a sequence of implicit stages. Stage `s` has one unknown, its end
//! velocity `v_s`, and reads known *levels*: the previous step (BDF2), the step start, and the
//! stages solved before it. With `f = f(q, v)` the force (001 eq. 1b), stage `s` solves
//!
//! ```text
//! q_s   = q̂_s + a_s h v_s,            q̂_s = Σ_j αq_j q_j + h Σ_j βq_j v_j
//! M v_s = M v̂_s + b_s h f(q_s, v_s),  v̂_s = Σ_j αv_j v_j + h M⁻¹ Σ_j βf_j f_j
//! ```
//!
//! and the last stage is the step's result (every scheme here is stiffly accurate). 001's point is
//! that `f` is the **whole** force — elastic, damping, gravity, volume, contact and friction — in
//! every stage and every explicit term. The force weights therefore come as a pair (body forces,
//! contact + friction) that only IPC's decoupled trapezoid, a baseline for comparisons, sets
//! differently.
//!
//! Coefficients (001 eqs. 22–23 and the standard definitions of its supplement, which agree with
//! the authors' code):
//!
//! | scheme | stages |
//! |---|---|
//! | BE | `q = q0 + h v`, `M v = M v0 + h f` |
//! | TR | `q = q0 + h/2 (v0 + v)`, `M v = M v0 + h/2 (f0 + f)` |
//! | BDF2 | `q = 4/3 q0 − 1/3 q₋₁ + 2/3 h v`, `M v = M (4/3 v0 − 1/3 v₋₁) + 2/3 h f` (BE starter) |
//! | TR-BDF2(γ) | TR over γh to `(q_γ, v_γ)`, then `y = [y_γ − (1−γ)² y0]/(γ(2−γ)) + (1−γ)/(2−γ) h y'` for `y = q, Mv` |
//! | SDIRK2 | γ = 1 − √2/2: BE over γh to `(q¹, v¹)`, then `q = q0 + h((1−γ) v¹ + γ v)`, `M v = M v0 + h((1−γ) f¹ + γ f)` |
//! | TR, decoupled | as TR for the body forces; contact and friction backward Euler (weight 1, no explicit half) |

pub mod variational;

use crate::scene::schema::IntegratorSpec;

/// A known quantity a stage is built from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Level {
    /// The start of the previous step (`q₋₁`, `v₋₁`).
    Previous,
    /// The start of this step.
    Start,
    /// The result of an earlier stage of this step.
    Stage(usize),
}

/// Weights of the two force classes: body forces (elastic, damping, gravity, volume) and contact
/// forces (penalty and friction).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ForceWeights {
    pub body: f64,
    pub contact: f64,
}

impl ForceWeights {
    /// The same weight on the whole force (001).
    pub fn whole(w: f64) -> ForceWeights {
        ForceWeights { body: w, contact: w }
    }
}

/// One implicit stage (see the module docs for the equations).
#[derive(Debug, Clone, PartialEq)]
pub struct StageCoefficients {
    /// End of the stage as a fraction of the step: its time is `t0 + c h`.
    pub c: f64,
    /// `αq`: weights of known positions in `q̂`.
    pub positions: Vec<(Level, f64)>,
    /// `βq`: weights of known velocities in `q̂` (times h).
    pub position_velocities: Vec<(Level, f64)>,
    /// Weight of the unknown velocity in the stage positions (times h).
    pub a: f64,
    /// `αv`: weights of known velocities in `v̂`.
    pub velocities: Vec<(Level, f64)>,
    /// `βf`: weights of known forces in `v̂` (times h M⁻¹).
    pub forces: Vec<(Level, ForceWeights)>,
    /// Weight of the unknown stage force (times h).
    pub b: ForceWeights,
}

/// A time integrator: its stages in order.
#[derive(Debug, Clone, PartialEq)]
pub struct Scheme {
    pub name: &'static str,
    pub stages: Vec<StageCoefficients>,
    /// Global order of accuracy on smooth problems.
    pub order: usize,
}

/// TR-BDF2's classic stage fraction, which makes both stages share one Jacobian scale.
pub fn tr_bdf2_default_gamma() -> f64 {
    2.0 - std::f64::consts::SQRT_2
}

/// SDIRK2's γ = 1 − √2/2 (L-stable, second order).
pub const SDIRK2_GAMMA: f64 = 1.0 - std::f64::consts::FRAC_1_SQRT_2;

impl Scheme {
    /// The scheme of `spec`. A multistep scheme without a previous step of the same size (the
    /// first step, or after a change of step size) starts with backward Euler.
    pub fn new(spec: IntegratorSpec, history_available: bool) -> Scheme {
        match spec {
            IntegratorSpec::BackwardEuler => Self::backward_euler(),
            IntegratorSpec::Trapezoid => Self::trapezoid(ForceWeights::whole(0.5), ForceWeights::whole(0.5), "TR"),
            IntegratorSpec::TrapezoidDecoupled => Self::trapezoid(
                ForceWeights { body: 0.5, contact: 0.0 },
                ForceWeights { body: 0.5, contact: 1.0 },
                "TR (IPC, contact decoupled)",
            ),
            IntegratorSpec::Bdf2 if history_available => Self::bdf2(),
            IntegratorSpec::Bdf2 => Scheme { name: "BDF2 (backward Euler start)", ..Self::backward_euler() },
            IntegratorSpec::TrBdf2 { gamma } => Self::tr_bdf2(gamma),
            IntegratorSpec::Sdirk2 => Self::sdirk2(),
        }
    }

    /// Does this scheme read the previous step (`Level::Previous`)?
    pub fn uses_history(&self) -> bool {
        self.stages.iter().any(|s| {
            s.positions.iter().chain(&s.velocities).chain(&s.position_velocities).any(|(l, _)| *l == Level::Previous)
        })
    }

    /// Levels whose force some stage reads explicitly.
    pub fn explicit_force_levels(&self) -> Vec<Level> {
        let mut out: Vec<Level> = Vec::new();
        for s in &self.stages {
            for (l, _) in &s.forces {
                if !out.contains(l) {
                    out.push(*l);
                }
            }
        }
        out
    }

    fn backward_euler() -> Scheme {
        Scheme {
            name: "backward Euler",
            stages: vec![StageCoefficients {
                c: 1.0,
                positions: vec![(Level::Start, 1.0)],
                position_velocities: vec![],
                a: 1.0,
                velocities: vec![(Level::Start, 1.0)],
                forces: vec![],
                b: ForceWeights::whole(1.0),
            }],
            order: 1,
        }
    }

    /// `q = q0 + h/2 (v0 + v)`, `M v = M v0 + h (explicit f0 + implicit f)`.
    fn trapezoid(explicit: ForceWeights, implicit: ForceWeights, name: &'static str) -> Scheme {
        Scheme {
            name,
            stages: vec![StageCoefficients {
                c: 1.0,
                positions: vec![(Level::Start, 1.0)],
                position_velocities: vec![(Level::Start, 0.5)],
                a: 0.5,
                velocities: vec![(Level::Start, 1.0)],
                forces: vec![(Level::Start, explicit)],
                b: implicit,
            }],
            order: 2,
        }
    }

    fn bdf2() -> Scheme {
        let known = vec![(Level::Start, 4.0 / 3.0), (Level::Previous, -1.0 / 3.0)];
        Scheme {
            name: "BDF2",
            stages: vec![StageCoefficients {
                c: 1.0,
                positions: known.clone(),
                position_velocities: vec![],
                a: 2.0 / 3.0,
                velocities: known,
                forces: vec![],
                b: ForceWeights::whole(2.0 / 3.0),
            }],
            order: 2,
        }
    }

    fn tr_bdf2(g: f64) -> Scheme {
        let half = 0.5 * g;
        let tr = StageCoefficients {
            c: g,
            positions: vec![(Level::Start, 1.0)],
            position_velocities: vec![(Level::Start, half)],
            a: half,
            velocities: vec![(Level::Start, 1.0)],
            forces: vec![(Level::Start, ForceWeights::whole(half))],
            b: ForceWeights::whole(half),
        };
        let d = g * (2.0 - g);
        let known = vec![(Level::Stage(0), 1.0 / d), (Level::Start, -(1.0 - g).powi(2) / d)];
        let w = (1.0 - g) / (2.0 - g);
        let bdf = StageCoefficients {
            c: 1.0,
            positions: known.clone(),
            position_velocities: vec![],
            a: w,
            velocities: known,
            forces: vec![],
            b: ForceWeights::whole(w),
        };
        Scheme { name: "TR-BDF2", stages: vec![tr, bdf], order: 2 }
    }

    fn sdirk2() -> Scheme {
        let g = SDIRK2_GAMMA;
        let first = StageCoefficients {
            c: g,
            positions: vec![(Level::Start, 1.0)],
            position_velocities: vec![],
            a: g,
            velocities: vec![(Level::Start, 1.0)],
            forces: vec![],
            b: ForceWeights::whole(g),
        };
        let second = StageCoefficients {
            c: 1.0,
            positions: vec![(Level::Start, 1.0)],
            position_velocities: vec![(Level::Stage(0), 1.0 - g)],
            a: g,
            velocities: vec![(Level::Start, 1.0)],
            forces: vec![(Level::Stage(0), ForceWeights::whole(1.0 - g))],
            b: ForceWeights::whole(g),
        };
        Scheme { name: "SDIRK2", stages: vec![first, second], order: 2 }
    }
}

/// The known quantities of one level, full-length vectors.
#[derive(Debug, Clone, Default)]
pub struct LevelState {
    /// Time of the level.
    pub t: f64,
    pub q: Vec<f64>,
    pub v: Vec<f64>,
    /// Body and contact forces at `(q, v)`, where a stage reads them.
    pub force: Option<(Vec<f64>, Vec<f64>)>,
}

/// The known levels of a step: previous step, start, and stages solved so far.
#[derive(Debug, Clone, Default)]
pub struct Levels {
    pub previous: Option<LevelState>,
    pub start: LevelState,
    pub stages: Vec<LevelState>,
}

impl Levels {
    pub fn get(&self, l: Level) -> &LevelState {
        match l {
            Level::Previous => self.previous.as_ref().expect("a multistep stage reads a previous step"),
            Level::Start => &self.start,
            Level::Stage(k) => &self.stages[k],
        }
    }
}

impl StageCoefficients {
    /// `q̂` and `v̂` of this stage from the known levels (lumped masses `mass`, one per node; a
    /// node with no mass gets no explicit force term).
    pub fn known(&self, levels: &Levels, h: f64, mass: &[f64], q_hat: &mut [f64], v_hat: &mut [f64]) {
        q_hat.iter_mut().for_each(|x| *x = 0.0);
        v_hat.iter_mut().for_each(|x| *x = 0.0);
        for &(l, w) in &self.positions {
            axpy(w, &levels.get(l).q, q_hat);
        }
        for &(l, w) in &self.position_velocities {
            axpy(w * h, &levels.get(l).v, q_hat);
        }
        for &(l, w) in &self.velocities {
            axpy(w, &levels.get(l).v, v_hat);
        }
        for &(l, w) in &self.forces {
            let (body, contact) = levels.get(l).force.as_ref().expect("explicit forces are evaluated before the stage");
            for (i, vi) in v_hat.iter_mut().enumerate() {
                let m = mass[i / 3];
                if m > 0.0 {
                    *vi += h * (w.body * body[i] + w.contact * contact[i]) / m;
                }
            }
        }
    }
}

fn axpy(w: f64, x: &[f64], y: &mut [f64]) {
    for (yi, xi) in y.iter_mut().zip(x) {
        *yi += w * xi;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every scheme integrates the linear oscillator `x'' = -ω² x` (one node, unit mass, force
    /// `-ω² q`) with its stated order: the error at t = 1 falls by 2^order per halving of h.
    /// Each stage is solved in closed form (it is linear in `v_s`).
    #[test]
    fn order_of_accuracy_on_the_linear_oscillator() {
        let w2: f64 = 4.0;
        let exact = |t: f64| ((w2.sqrt() * t).cos(), -w2.sqrt() * (w2.sqrt() * t).sin());
        let run = |spec: IntegratorSpec, n: usize| {
            let h = 1.0 / n as f64;
            let (mut q, mut v) = (vec![1.0, 0.0, 0.0], vec![0.0; 3]);
            let mut prev: Option<LevelState> = None;
            for _ in 0..n {
                let scheme = Scheme::new(spec, prev.is_some());
                let force = |q: &[f64]| (q.iter().map(|x| -w2 * x).collect::<Vec<_>>(), vec![0.0; 3]);
                let mut levels = Levels {
                    previous: prev.clone(),
                    start: LevelState { t: 0.0, q: q.clone(), v: v.clone(), force: Some(force(&q)) },
                    stages: vec![],
                };
                for st in &scheme.stages {
                    let (mut qh, mut vh) = (vec![0.0; 3], vec![0.0; 3]);
                    st.known(&levels, h, &[1.0], &mut qh, &mut vh);
                    // v = vh + b h (-w2 (qh + a h v))  =>  v (1 + b a h² w2) = vh - b h w2 qh
                    let vs: Vec<f64> = (0..3)
                        .map(|i| (vh[i] - st.b.body * h * w2 * qh[i]) / (1.0 + st.b.body * st.a * h * h * w2))
                        .collect();
                    let qs: Vec<f64> = (0..3).map(|i| qh[i] + st.a * h * vs[i]).collect();
                    levels.stages.push(LevelState { t: 0.0, force: Some(force(&qs)), q: qs, v: vs });
                }
                prev = Some(LevelState { force: None, ..levels.start });
                let last = levels.stages.pop().expect("a stage");
                (q, v) = (last.q, last.v);
            }
            let (qe, ve) = exact(1.0);
            ((q[0] - qe).powi(2) + (v[0] - ve).powi(2)).sqrt()
        };
        let specs = [
            (IntegratorSpec::BackwardEuler, 1.0),
            (IntegratorSpec::Trapezoid, 2.0),
            (IntegratorSpec::Bdf2, 2.0),
            (IntegratorSpec::TrBdf2 { gamma: tr_bdf2_default_gamma() }, 2.0),
            (IntegratorSpec::TrBdf2 { gamma: 0.5 }, 2.0),
            (IntegratorSpec::Sdirk2, 2.0),
        ];
        for (spec, order) in specs {
            let e: Vec<f64> = [100, 200, 400, 800].iter().map(|&n| run(spec, n)).collect();
            for k in 0..3 {
                let slope = (e[k] / e[k + 1]).log2();
                // The issue's gate: the slope within 0.2 of the order (asymptotic regime: ωh <= 0.02).
                assert!((slope - order).abs() < 0.2, "{spec:?}: slope {slope} at h = 1/{}", 100 << k);
            }
        }
    }

    #[test]
    fn decoupled_trapezoid_differs_only_in_the_contact_weights() {
        let tr = Scheme::new(IntegratorSpec::Trapezoid, false);
        let ipc = Scheme::new(IntegratorSpec::TrapezoidDecoupled, false);
        assert_eq!(tr.stages[0].b.body, ipc.stages[0].b.body);
        assert_eq!(ipc.stages[0].b.contact, 1.0);
        assert_eq!(ipc.stages[0].forces[0].1.contact, 0.0);
        assert!(Scheme::new(IntegratorSpec::Bdf2, true).uses_history());
        assert!(!Scheme::new(IntegratorSpec::Bdf2, false).uses_history());
    }
}
