//! The joints of a rigid step, eliminated exactly from the contact problem.
//!
//! The step's velocities satisfy the joint rows `G v + e = 0` (`e = C / h` for an equality row,
//! so a position error closes within the step; `-speed` for a motor row) with impulses `λ` on
//! top of the contact impulses: `M v = M v_p + Gᵀ λ + Jᵀ r`. Eliminating `λ` with
//! `S = G M⁻¹ Gᵀ` leaves a contact problem of the usual form, `u = W r + q`, with
//! `W = J P Jᵀ`, `P = M⁻¹ - M⁻¹ Gᵀ S⁻¹ G M⁻¹`, and `q` taken at `v̂`, the predicted velocity
//! projected onto the joints. Every DFCP solver therefore handles jointed bodies unchanged, and
//! the joint rows hold to the factorization's accuracy, not to a solver tolerance. The
//! projection `v ← v - M⁻¹ Gᵀ S⁻¹ (G v + e)` is applied before the contact solve (giving `v̂`)
//! and after it (which adds `-M⁻¹ Gᵀ S⁻¹ G M⁻¹ Jᵀ r`, the rest of `P Jᵀ r`).
//!
//! A motor row's impulse is bounded, `|λ| <= h max_torque`: an active set. A saturated motor
//! leaves `G` and applies its bound as a known impulse; it is freed again when the spin it
//! drives overshoots its target. The set is settled on the joints alone (cheap), then checked
//! after the contact solve; a change repeats the step's solve (see the pipeline).
//!
//! Position errors left by the step's position update (second order in `h`) are removed after
//! it by Gauss–Newton on `C(q) = 0` in the same mass metric (post-stabilization, Cline & Pai
//! 2003), so a joint holds to round-off over any number of steps.
//!
//! Bodies linked by joints form components, each with its own dense `S` (a component is one
//! articulated structure: tens of rows, not thousands).

use super::assemble::{ContactJacobian, Minv, Sides};
use crate::model::Model;
use crate::rigid::RigidBody;
use crate::rigid::joint::{Joint, Row, Row6, RowKind, displace};
use nalgebra::{DMatrix, DVector, Matrix3, SMatrix};
use std::collections::BTreeMap;

/// Position error (m, or rad) the projection after the step stops at: a few hundred ulps of a
/// 1 m scene, far below any contact or solver tolerance and above the rounding of the update.
pub const POSITION_TOLERANCE: f64 = 1e-12;
/// Gauss–Newton iterations of that projection; from an O(h²) error it converges quadratically
/// and stops after two or three.
const POSITION_ITERATIONS: usize = 10;
/// Relative diagonal shift of `S` before its Cholesky factorization: it makes redundant rows (a
/// closed loop, two joints on one pair) factorizable, and moves the answer of a regular `S` by
/// one part in 1e12.
const SHIFT: f64 = 1e-12;

/// One articulated structure: its rows at the step's poses and its motors' active set.
struct Component {
    rows: Vec<Row>,
    /// Per row: `0` for a row in `S` (equality or free motor); `±1` for a motor saturated at
    /// `±h max_torque`.
    saturated: Vec<f64>,
    /// Per row: impulse accumulated over the current pass.
    impulse: Vec<f64>,
    /// Rows in `S`, and its Cholesky factor.
    active: Vec<usize>,
    factor: Option<nalgebra::Cholesky<f64, nalgebra::Dyn>>,
}

/// The joints of one step.
#[derive(Default)]
pub struct JointSystem {
    components: Vec<Component>,
    /// Per body: its component (`None`: not jointed, or not dynamic).
    component_of: Vec<Option<usize>>,
    h: f64,
}

/// A side's velocity entries (zero for the world).
fn side_velocity(bodies: &[RigidBody], side: Option<usize>) -> Row6 {
    side.map_or_else(Row6::zeros, |i| bodies[i].velocity())
}

/// `M⁻¹ jᵀ` of a row's side (zero for the world and for scripted bodies).
fn weighted(minv: &[Minv], side: Option<usize>, j: &Row6) -> Row6 {
    side.map_or_else(Row6::zeros, |i| minv[i] * j)
}

/// `G v + e` of one row.
fn violation(row: &Row, bodies: &[RigidBody], h: f64) -> f64 {
    let gv = row.jac[0].dot(&side_velocity(bodies, row.body[0])) + row.jac[1].dot(&side_velocity(bodies, row.body[1]));
    match row.kind {
        RowKind::Equality => gv + row.error / h,
        RowKind::Motor(m) => gv - m.speed,
    }
}

/// `v += M⁻¹ jᵀ λ` for both sides of a row.
fn push_impulse(row: &Row, lambda: f64, bodies: &mut [RigidBody], minv: &[Minv]) {
    for s in 0..2 {
        if let Some(i) = row.body[s] {
            let v = bodies[i].velocity() + minv[i] * row.jac[s] * lambda;
            bodies[i].set_velocity(&v);
        }
    }
}

/// `S = G M⁻¹ Gᵀ` over `rows[active]`, shifted and factored.
fn factor(rows: &[Row], active: &[usize], minv: &[Minv]) -> Option<nalgebra::Cholesky<f64, nalgebra::Dyn>> {
    let n = active.len();
    let weighted: Vec<[Row6; 2]> = active
        .iter()
        .map(|&i| [weighted(minv, rows[i].body[0], &rows[i].jac[0]), weighted(minv, rows[i].body[1], &rows[i].jac[1])])
        .collect();
    let mut s = DMatrix::zeros(n, n);
    for (a, &i) in active.iter().enumerate() {
        for (b, &j) in active.iter().enumerate().skip(a) {
            let mut sum = 0.0;
            for (si, bi) in rows[i].body.iter().enumerate() {
                for (sj, bj) in rows[j].body.iter().enumerate() {
                    if bi.is_some() && bi == bj {
                        sum += rows[i].jac[si].dot(&weighted[b][sj]);
                    }
                }
            }
            s[(a, b)] = sum;
            s[(b, a)] = sum;
        }
    }
    let scale = (0..n).map(|k| s[(k, k)]).fold(0.0, f64::max);
    for k in 0..n {
        s[(k, k)] += SHIFT * scale.max(f64::MIN_POSITIVE);
    }
    s.cholesky()
}

impl Component {
    fn refactor(&mut self, minv: &[Minv]) {
        self.active = (0..self.rows.len()).filter(|&i| self.saturated[i] == 0.0).collect();
        self.factor = factor(&self.rows, &self.active, minv);
    }

    /// `v ← v - M⁻¹ Gᵀ S⁻¹ (G v + e)` over the active rows; the impulses are accumulated.
    fn project(&mut self, bodies: &mut [RigidBody], minv: &[Minv], h: f64) {
        let Some(f) = &self.factor else { return };
        let e =
            DVector::from_iterator(self.active.len(), self.active.iter().map(|&i| violation(&self.rows[i], bodies, h)));
        let lambda = -f.solve(&e);
        for (k, &i) in self.active.iter().enumerate() {
            push_impulse(&self.rows[i], lambda[k], bodies, minv);
            self.impulse[i] += lambda[k];
        }
    }

    /// Saturated motors' impulses, applied as known ones.
    fn apply_saturated(&mut self, bodies: &mut [RigidBody], minv: &[Minv], h: f64) {
        for (i, row) in self.rows.iter().enumerate() {
            if let (RowKind::Motor(m), s) = (row.kind, self.saturated[i])
                && s != 0.0
            {
                let lambda = s * h * m.max_torque;
                push_impulse(row, lambda, bodies, minv);
                self.impulse[i] += lambda;
            }
        }
    }

    /// Updates the motors' active set from the pass's impulses and end velocities; true if it
    /// changed. A free motor whose impulse exceeds its bound saturates at it; a saturated one
    /// whose spin passed its target (its bound pushes the wrong way) is freed.
    fn update_motors(&mut self, bodies: &[RigidBody], h: f64) -> bool {
        let mut changed = false;
        for (i, row) in self.rows.iter().enumerate() {
            let RowKind::Motor(m) = row.kind else { continue };
            let bound = h * m.max_torque;
            let s = self.saturated[i];
            let next = if s == 0.0 {
                // Round-off of a free motor that sits exactly at its bound must not flip it.
                if self.impulse[i].abs() > bound * (1.0 + 1e-12) { self.impulse[i].signum() } else { 0.0 }
            } else if s * violation(row, bodies, h) > 0.0 {
                0.0
            } else {
                s
            };
            changed |= next != s;
            self.saturated[i] = next;
        }
        changed
    }
}

impl JointSystem {
    /// The joints' rows at the bodies' current poses (with the motors' rows if `motors`),
    /// grouped by the dynamic bodies they link. Joints touching no dynamic body (refused by
    /// validation) are left out.
    pub fn new(model: &Model, bodies: &[RigidBody], minv: &[Minv], h: f64, motors: bool) -> JointSystem {
        let dynamic: Vec<bool> = model.rigids.iter().map(|r| r.is_dynamic()).collect();
        Self::of(&model.joints, &dynamic, bodies, minv, h, motors)
    }

    /// [`JointSystem::new`] for the joints `joints` over bodies of which `is_dynamic` move.
    pub fn of(
        joints: &[Joint],
        is_dynamic: &[bool],
        bodies: &[RigidBody],
        minv: &[Minv],
        h: f64,
        motors: bool,
    ) -> JointSystem {
        // Scripted sides keep their velocity in `G v`; their zero `M⁻¹` gives them no impulse.
        let mut component_of = vec![None; bodies.len()];
        let mut components = Vec::new();
        for (k, (members, rows)) in
            crate::rigid::joint_space::components(joints, is_dynamic, bodies, motors).into_iter().enumerate()
        {
            for i in members {
                component_of[i] = Some(k);
            }
            let n = rows.len();
            let mut c =
                Component { rows, saturated: vec![0.0; n], impulse: vec![0.0; n], active: Vec::new(), factor: None };
            c.refactor(minv);
            components.push(c);
        }
        JointSystem { components, component_of, h }
    }

    pub fn is_empty(&self) -> bool {
        self.components.is_empty()
    }

    /// Body pairs a joint links (both dynamic): they belong to one contact island.
    pub fn links(&self) -> Vec<(usize, usize)> {
        let mut first: Vec<Option<usize>> = vec![None; self.components.len()];
        let mut out = Vec::new();
        for (i, c) in self.component_of.iter().enumerate() {
            if let Some(k) = *c {
                match first[k] {
                    Some(f) => out.push((f, i)),
                    None => first[k] = Some(i),
                }
            }
        }
        out
    }

    /// Starts a pass from the predicted velocities: saturated motors' impulses, then the
    /// projection onto the joints (`v̂`).
    pub fn begin_pass(&mut self, bodies: &mut [RigidBody], minv: &[Minv]) {
        for c in &mut self.components {
            c.impulse.fill(0.0);
            c.apply_saturated(bodies, minv, self.h);
            c.project(bodies, minv, self.h);
        }
    }

    /// The projection after the contact impulses.
    pub fn end_pass(&mut self, bodies: &mut [RigidBody], minv: &[Minv]) {
        for c in &mut self.components {
            c.project(bodies, minv, self.h);
        }
    }

    /// Checks the motors after a pass (see [`Component::update_motors`]) and refactors the
    /// components whose set changed; true if any did.
    pub fn update_motors(&mut self, bodies: &[RigidBody], minv: &[Minv]) -> bool {
        let mut changed = false;
        for c in &mut self.components {
            if c.update_motors(bodies, self.h) {
                c.refactor(minv);
                changed = true;
            }
        }
        changed
    }

    /// Settles the motors' active set on the joints alone, from the predicted velocities (which
    /// `bodies` hold on entry and on return). Returns false if it did not settle.
    pub fn settle_motors(&mut self, bodies: &mut [RigidBody], minv: &[Minv]) -> bool {
        let motors =
            self.components.iter().flat_map(|c| &c.rows).filter(|r| matches!(r.kind, RowKind::Motor(_))).count();
        if motors == 0 {
            return true;
        }
        let predicted: Vec<_> = bodies.iter().map(RigidBody::velocity).collect();
        // Each motor changes state at most twice on a consistent set (saturate, then free once
        // its overshoot shows): more passes than that is a cycle.
        for _ in 0..=2 * motors {
            self.begin_pass(bodies, minv);
            let changed = self.update_motors(bodies, minv);
            for (b, v) in bodies.iter_mut().zip(&predicted) {
                b.set_velocity(v);
            }
            if !changed {
                return true;
            }
        }
        false
    }

    /// Whether body `i` belongs to a component (its contacts' Delassus blocks come from
    /// [`JointSystem::add_delassus`]).
    pub fn joins(&self, i: usize) -> bool {
        self.component_of.get(i).is_some_and(Option::is_some)
    }

    /// Adds to the Delassus blocks the part of every contact pair that runs through a component's
    /// bodies, `J N (Nᵀ M N)⁻¹ Nᵀ Jᵀ` with `N` an orthonormal basis of the velocities the active
    /// rows allow (the null space of `G`): this is `J P Jᵀ`. It is computed on the null space
    /// rather than as `J M⁻¹ Jᵀ - Yᵀ S⁻¹ Y` (`Y = G M⁻¹ Jᵀ`), whose cancellation leaves the
    /// constrained directions with round-off the size of the largest inverse inertia times the
    /// conditioning of `S`: on a thin hinged paddle, eigenvalues of 1e-8 of `W`'s scale where
    /// there should be none, which the contact solvers answered with impulses of 1e5 N s.
    pub fn add_delassus(
        &self,
        jac: &ContactJacobian,
        bodies: &[RigidBody],
        blocks: &mut BTreeMap<(usize, usize), Matrix3<f64>>,
    ) {
        self.add_delassus_rows(&jac.rows, bodies, blocks);
    }

    /// [`JointSystem::add_delassus`] for contacts of `D` rows each (`rows[c]`: each side's
    /// body and `D × 6` block), such as the drilling problem's four.
    pub fn add_delassus_rows<const D: usize>(
        &self,
        rows: &[Sides<D>],
        bodies: &[RigidBody],
        blocks: &mut BTreeMap<(usize, usize), SMatrix<f64, D, D>>,
    ) {
        for (k, comp) in self.components.iter().enumerate() {
            let members: Vec<usize> = (0..bodies.len()).filter(|&i| self.component_of[i] == Some(k)).collect();
            let local = |i: usize| members.binary_search(&i).ok();
            // J_c N (D x dim N) of every contact touching the component.
            let touching: Vec<(usize, Vec<_>)> = rows
                .iter()
                .enumerate()
                .filter_map(|(c, sides)| {
                    let on: Vec<(usize, &SMatrix<f64, D, 6>)> =
                        sides.iter().flatten().filter_map(|(i, b)| local(*i).map(|l| (l, b))).collect();
                    (!on.is_empty()).then_some((c, on))
                })
                .collect();
            if touching.is_empty() {
                continue;
            }
            let n = allowed_velocities(comp, &members);
            if n.ncols() == 0 {
                continue;
            }
            let mut mn = DMatrix::zeros(n.nrows(), n.ncols());
            for (l, &i) in members.iter().enumerate() {
                let m = bodies[i].mass_matrix();
                let rows = n.rows(6 * l, 6);
                mn.rows_mut(6 * l, 6).copy_from(&(DMatrix::from_fn(6, 6, |a, b| m[(a, b)]) * rows));
            }
            let Some(kf) = (n.transpose() * &mn).cholesky() else { continue };
            let jn: Vec<(usize, DMatrix<f64>)> = touching
                .iter()
                .map(|(c, on)| {
                    let mut y = DMatrix::zeros(D, n.ncols());
                    for (l, block) in on {
                        y += DMatrix::from_fn(D, 6, |a, b| block[(a, b)]) * n.rows(6 * l, 6);
                    }
                    (*c, y)
                })
                .collect();
            let z: Vec<DMatrix<f64>> = jn.iter().map(|(_, y)| kf.solve(&y.transpose())).collect();
            for (c, yc) in &jn {
                for ((d, _), zd) in jn.iter().zip(&z) {
                    let w = yc * zd;
                    *blocks.entry((*c, *d)).or_insert_with(SMatrix::zeros) += SMatrix::from_fn(|a, b| w[(a, b)]);
                }
            }
        }
    }
}

/// An orthonormal basis (columns) of the component's velocities, 6 per member body, that its
/// active rows allow (`rigid::joint_space::allowed`).
fn allowed_velocities(comp: &Component, members: &[usize]) -> DMatrix<f64> {
    // Every row of a component touches only its members (or fixed sides, which leave `G`).
    let (g, rhs) = crate::rigid::joint_space::active_rows(&comp.rows, &comp.saturated, members, |_| None, 1.0);
    crate::rigid::joint_space::allowed(&g, &rhs).0
}

/// Gauss–Newton on the joints' position errors after the step's position update, in the mass
/// metric: `δ = -M⁻¹ Gᵀ S⁻¹ C` per component, each body displaced by its part. Returns the
/// largest error left (m or rad).
pub fn project_positions(model: &Model, bodies: &mut [RigidBody], minv: &[Minv]) -> f64 {
    let mut worst = 0.0;
    let mut rows = Vec::new();
    for _ in 0..=POSITION_ITERATIONS {
        // The errors first: a step that left none factors nothing.
        rows.clear();
        for j in &model.joints {
            j.rows(bodies, false, &mut rows);
        }
        worst = rows.iter().map(|r| r.error.abs()).fold(0.0, f64::max);
        if worst <= POSITION_TOLERANCE {
            break;
        }
        let system = JointSystem::new(model, bodies, minv, 1.0, false);
        let mut delta = vec![Row6::zeros(); bodies.len()];
        for c in &system.components {
            let Some(f) = &c.factor else { continue };
            let lambda = -f.solve(&DVector::from_iterator(c.rows.len(), c.rows.iter().map(|r| r.error)));
            for (row, l) in c.rows.iter().zip(lambda.iter()) {
                for s in 0..2 {
                    if let Some(i) = row.body[s] {
                        delta[i] += minv[i] * row.jac[s] * *l;
                    }
                }
            }
        }
        for (b, d) in bodies.iter_mut().zip(&delta) {
            if *d != Row6::zeros() {
                displace(b, d);
            }
        }
    }
    worst
}

#[cfg(test)]
mod tests {
    use super::super::assemble::{Block, rows_gram};
    use super::*;
    use crate::rigid::RigidShape;
    use crate::rigid::joint::JointKind;
    use crate::test_rng::symmetric;
    use nalgebra::{SVector, UnitQuaternion, Vector3};

    fn random3(seed: &mut u64, s: f64) -> Vector3<f64> {
        Vector3::new(s * symmetric(seed), s * symmetric(seed), s * symmetric(seed))
    }

    /// `W = J P Jᵀ` from [`JointSystem::add_delassus`] against the dense KKT system
    /// `[M Gᵀ; G 0] [v; -λ] = [Jᵀ r; 0]`, whose `J v` is `W r` by definition: a chain of three
    /// bodies (ball, hinge, fixed joint) plus one held to the world, with contacts on every body.
    /// Both sides are computed in f64 from O(1) data with a well conditioned KKT matrix; 1e-9
    /// relative is far above their rounding and far below any error of a missing term.
    #[test]
    fn corrected_delassus_is_the_kkt_operator() {
        let mut seed = 11u64;
        let bodies: Vec<RigidBody> = (0..4)
            .map(|k| {
                let shape = RigidShape::Box { half: Vector3::new(0.2, 0.15, 0.1 + 0.05 * k as f64) };
                let q = UnitQuaternion::from_scaled_axis(random3(&mut seed, 1.0));
                RigidBody::from_density(shape, 500.0 + 200.0 * k as f64, random3(&mut seed, 1.0), q).0
            })
            .collect();
        let axis = random3(&mut seed, 1.0).normalize();
        let joint = |kind: JointKind, a: usize, b: Option<usize>, p: Vector3<f64>| {
            let frame = |i: Option<usize>| {
                i.map_or((Vector3::zeros(), UnitQuaternion::identity()), |i| {
                    (bodies[i].position, bodies[i].orientation)
                })
            };
            let ((xa, qa), (xb, qb)) = (frame(Some(a)), frame(b));
            let kind = match kind {
                JointKind::Hinge { motor, .. } => {
                    JointKind::Hinge { axis_a: qa.inverse() * axis, axis_b: qb.inverse() * axis, motor }
                }
                JointKind::Fixed { .. } => JointKind::Fixed { relative: qb.inverse() * qa },
                k => k,
            };
            Joint { kind, a, b, anchor_a: qa.inverse() * (p - xa), anchor_b: qb.inverse() * (p - xb) }
        };
        let hinge = JointKind::Hinge { axis_a: axis, axis_b: axis, motor: None };
        let fixed = JointKind::Fixed { relative: UnitQuaternion::identity() };
        let joints = vec![
            joint(JointKind::Ball, 0, Some(1), random3(&mut seed, 0.5)),
            joint(hinge, 2, Some(1), random3(&mut seed, 0.5)),
            joint(fixed, 3, Some(2), random3(&mut seed, 0.5)),
            joint(JointKind::Ball, 0, None, random3(&mut seed, 0.5)),
        ];
        let minv: Vec<Minv> = bodies.iter().map(|b| b.mass_matrix().try_inverse().expect("positive mass")).collect();
        let system = JointSystem::of(&joints, &[true; 4], &bodies, &minv, 1e-2, false);
        // Two contacts per body, against the world (one side) or another body.
        let mut rows = Vec::new();
        for i in 0..4 {
            for other in [None, Some((i + 1) % 4)] {
                let frame = nalgebra::Rotation3::from_scaled_axis(random3(&mut seed, 1.0)).into_inner();
                let p = bodies[i].position + random3(&mut seed, 0.2);
                let side = |k: usize, s: f64| -> Block { frame.transpose() * bodies[k].point_jacobian(&p) * s };
                rows.push([Some((i, side(i, 1.0))), other.map(|k| (k, side(k, -1.0)))]);
            }
        }
        let jac = ContactJacobian { rows, inverse_mass: minv.clone() };
        let mut blocks = jac.delassus_blocks(4, |i| system.joins(i));
        system.add_delassus(&jac, &bodies, &mut blocks);
        // The dense KKT matrix over the 24 velocities and the joints' rows.
        let g_rows: Vec<Row> = system.components.iter().flat_map(|c| c.rows.clone()).collect();
        let (nv, ng) = (24, g_rows.len());
        let mut kkt = DMatrix::zeros(nv + ng, nv + ng);
        for (i, b) in bodies.iter().enumerate() {
            let m: SMatrix<f64, 6, 6> = b.mass_matrix();
            kkt.view_mut((6 * i, 6 * i), (6, 6)).copy_from(&m);
        }
        for (k, row) in g_rows.iter().enumerate() {
            for s in 0..2 {
                if let Some(i) = row.body[s] {
                    for d in 0..6 {
                        kkt[(nv + k, 6 * i + d)] = row.jac[s][d];
                        kkt[(6 * i + d, nv + k)] = row.jac[s][d];
                    }
                }
            }
        }
        let lu = kkt.lu();
        assert_kkt_operator(&jac.rows, &blocks, &lu, nv + ng);
        // The drilling problem's four rows: the three above and the relative spin about the
        // first frame row's direction (A's angular part, B's negated).
        let rows4: Vec<Sides<4>> = jac
            .rows
            .iter()
            .map(|sides| {
                let n = sides[0].expect("A is a body").1.fixed_view::<1, 3>(0, 0).normalize();
                std::array::from_fn(|k| {
                    sides[k].map(|(i, b3)| {
                        let mut b = SMatrix::<f64, 4, 6>::zeros();
                        b.fixed_rows_mut::<3>(0).copy_from(&b3);
                        b.fixed_view_mut::<1, 3>(3, 3).copy_from(&(n * if k == 0 { 1.0 } else { -1.0 }));
                        (i, b)
                    })
                })
            })
            .collect();
        let mut blocks4 = rows_gram(&rows4, 4, &minv, |i| system.joins(i));
        system.add_delassus_rows(&rows4, &bodies, &mut blocks4);
        assert_kkt_operator(&rows4, &blocks4, &lu, nv + ng);
    }

    /// Every column of the blocks `W` against the KKT system's `J v` for a unit impulse on that
    /// row (`D` rows per contact).
    fn assert_kkt_operator<const D: usize>(
        rows: &[Sides<D>],
        blocks: &BTreeMap<(usize, usize), SMatrix<f64, D, D>>,
        lu: &nalgebra::linalg::LU<f64, nalgebra::Dyn, nalgebra::Dyn>,
        size: usize,
    ) {
        let nc = rows.len();
        for col in 0..D * nc {
            // v from the KKT system for r = e_col, then J v.
            let mut rhs = DVector::zeros(size);
            let (c, comp) = (col / D, col % D);
            for (i, blk) in rows[c].iter().flatten() {
                for d in 0..6 {
                    rhs[6 * i + d] += blk[(comp, d)];
                }
            }
            let v = lu.solve(&rhs).expect("the KKT matrix is regular");
            for (d, sides) in rows.iter().enumerate() {
                let mut jv = SVector::<f64, D>::zeros();
                for (i, blk) in sides.iter().flatten() {
                    jv += blk * v.rows(6 * i, 6);
                }
                let w = blocks.get(&(d, c)).map_or(SVector::zeros(), |b| b.column(comp).into_owned());
                assert!((w - jv).norm() <= 1e-9 * jv.norm().max(1.0), "W[{d},{c}] column {comp}: {w} against {jv}");
            }
        }
    }
}
