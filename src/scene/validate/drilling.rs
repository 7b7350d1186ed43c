//! Validation of drilling torque (`mu_tau` on a friction law): its value, and the scenes whose
//! contacts can take it (rigid bodies under `Nonsmooth`, solved by PROX).

use super::{Checks, fmt_f, laws};
use crate::scene::schema::{BodySpec, DfcpSolverSpec, PipelineSpec, Scene};

pub(super) fn drilling(c: &mut Checks, s: &Scene) {
    let mut any = None;
    for (lp, l) in laws(s) {
        let Some(m) = l.mu_tau else { continue };
        let p = format!("{lp}.mu_tau");
        c.non_negative(&p, m);
        if m > 0.0 && m.is_finite() {
            if !(l.mu > 0.0 && l.mu_t.is_none_or(|t| t > 0.0)) {
                c.push(&p, Some(fmt_f(m)), "drilling torque needs friction: give mu > 0 (and mu_t, mu_b > 0)");
            }
            any.get_or_insert(p);
        }
    }
    let Some(p) = any else { return };
    let mut refuse = |why: String| c.push(&p, None, format!("drilling torque {why}"));
    let PipelineSpec::Nonsmooth(ns) = &s.pipeline else {
        return refuse("is applied by the Nonsmooth pipeline only".into());
    };
    if let Some(i) = s.bodies.iter().position(|b| !matches!(b, BodySpec::Rigid(_))) {
        refuse(format!(
            "acts at rigid-body contacts only: bodies[{i}] is a nodal body (solid, cloth or rods), whose contacts \
             the nodal step solves without torque rows"
        ));
    }
    if laws(s).any(|(_, l)| l.cohesion.is_some() || l.compliance.is_some()) {
        refuse("is not available with cohesion or compliance".into());
    }
    if !matches!(ns.solver, DfcpSolverSpec::Prox | DfcpSolverSpec::Auto) {
        refuse(format!("is solved by PROX (003 Alg. 2): `solver` must be Prox or Auto, not {:?}", ns.solver));
    }
    if ns.diagnostics {
        refuse("is not available with `diagnostics` (they measure three-row problems)".into());
    }
}
