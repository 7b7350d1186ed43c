//! Validation of `joints`: what each names, which pipeline takes them, and the motor's values.

use super::{Checks, fmt_f, nonzero_axis};
use crate::scene::schema::{JointSpec, PipelineSpec, RigidSpec, Scene};

pub(super) fn joints(c: &mut Checks, s: &Scene) {
    if s.joints.is_empty() {
        return;
    }
    let rigids = super::rigid_specs(s);
    let smooth = matches!(s.pipeline, PipelineSpec::Smooth(_));
    let pipeline_ok = smooth || matches!(s.pipeline, PipelineSpec::Nonsmooth(_));
    for (k, j) in s.joints.iter().enumerate() {
        let p = format!("joints[{k}]");
        if !pipeline_ok {
            c.push(&p, None, "joints are solved by the `Nonsmooth` and `Smooth` pipelines (`Penalty` takes none)");
        }
        let (a, b) = match j {
            JointSpec::Ball { a, b, .. } | JointSpec::Hinge { a, b, .. } | JointSpec::Fixed { a, b } => (a, b),
        };
        let find = |c: &mut Checks, field: &str, name: &str| {
            let found = rigids.iter().find(|r| r.name == name).copied();
            if found.is_none() {
                let names: Vec<&str> = rigids.iter().map(|r| r.name.as_str()).collect();
                c.push(format!("{p}.{field}"), Some(format!("{name:?}")), format!("names no rigid body: {names:?}"));
            }
            found
        };
        let ra = find(c, "a", a);
        let rb = b.as_ref().map(|b| find(c, "b", b));
        if b.as_ref() == Some(a) {
            c.push(
                format!("{p}.b"),
                Some(format!("{a:?}")),
                "a joint links two different bodies (leave `b` out for the world)",
            );
        }
        let scripted = |r: Option<&RigidSpec>| r.is_some_and(|r| r.motion.is_some());
        let b_fixed = match rb {
            None => true,
            Some(r) => scripted(r),
        };
        if scripted(ra) && b_fixed {
            c.push(
                &p,
                None,
                "links no dynamic body: `a` has a `motion` and `b` is the world or scripted too, so nothing can move",
            );
        }
        if let JointSpec::Hinge { axis, motor, .. } = j {
            nonzero_axis(c, &format!("{p}.axis"), axis);
            if let Some(m) = motor {
                if smooth {
                    c.push(
                        format!("{p}.motor"),
                        None,
                        "a motor's torque limit is solved by the `Nonsmooth` pipeline only (`Smooth` takes hinges without motors)",
                    );
                }
                let path = format!("{p}.motor.max_torque");
                if m.max_torque.is_finite() && m.max_torque <= 0.0 {
                    c.push(path, Some(fmt_f(m.max_torque)), "must be > 0 (N m)");
                }
            }
        }
    }
}
