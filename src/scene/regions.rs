//! A nodal body's `kinematic` regions: the nodes each selects, and what moves them: a scripted
//! motion, an animated surface they follow, or a rigid body they are attached to (`attach_to`):
//! a scripted body's script, or riding on a dynamic body as part of it.

use super::build::{follow, motion};
use super::schema::{BodySpec, KinematicSpec, RegionSpec};
use super::{LoadedScene, SceneError, error_at};
use crate::model::motion::Motion;
use crate::model::{AttachedRegion, KinematicSet};
use crate::rigid::RigidBody;
use nalgebra::Vector3;

/// What `attach_to` naming a rigid body does to the attached nodes.
pub enum Attach {
    /// They follow the scripted body's motion (the same rigid map of the scene placement, so they
    /// stay where they sit on that body).
    Scripted(Motion),
    /// They ride on the dynamic body with this index in `Model::rigids`.
    Rides(usize),
}

/// The rigid body named `name` (field `at`; validation guarantees it exists) as an [`Attach`].
pub fn attachment(loaded: &LoadedScene, at: &str, name: &str) -> Result<Attach, SceneError> {
    let rigid = loaded
        .scene
        .bodies
        .iter()
        .filter_map(|b| match b {
            BodySpec::Rigid(r) => Some(r),
            _ => None,
        })
        .enumerate()
        .find(|(_, r)| r.name == name);
    let (index, r) = rigid.ok_or_else(|| error_at(&loaded.path, at, "names no rigid body"))?;
    Ok(match &r.motion {
        Some(script) => Attach::Scripted(motion(script)),
        None => Attach::Rides(index),
    })
}

/// Where the sets go.
pub struct Regions<'a> {
    pub kinematic: &'a mut Vec<KinematicSet>,
    pub attached: &'a mut Vec<AttachedRegion>,
}

impl Regions<'_> {
    /// The regions `specs` of body `field` over its nodes `offset..offset + x.len()` (positions
    /// `x` after placement); `empty` says why a region that selects nothing is an error.
    pub fn add(
        &mut self,
        loaded: &LoadedScene,
        field: &str,
        specs: &[KinematicSpec],
        x: &[Vector3<f64>],
        offset: usize,
        empty: &dyn Fn() -> String,
    ) -> Result<(), SceneError> {
        for (k, kin) in specs.iter().enumerate() {
            let at = format!("{field}.kinematic[{k}]");
            let RegionSpec::Box { min, max } = kin.region;
            let nodes: Vec<usize> = (0..x.len())
                .filter(|&i| (0..3).all(|c| x[i][c] >= min[c] && x[i][c] <= max[c]))
                .map(|i| i + offset)
                .collect();
            if nodes.is_empty() {
                return Err(error_at(&loaded.path, &format!("{at}.region"), empty()));
            }
            let rest: Vec<Vector3<f64>> = nodes.iter().map(|&i| x[i - offset]).collect();
            let script = match &kin.attach_to {
                None => motion(&kin.motion),
                Some(name) => match attachment(loaded, &format!("{at}.attach_to"), name)? {
                    Attach::Scripted(m) => m,
                    Attach::Rides(body) => {
                        self.attached.push(AttachedRegion { body, nodes, offsets: Vec::new() });
                        continue;
                    }
                },
            };
            let follow = follow(loaded, &at, kin.follow.as_ref(), &rest)?;
            self.kinematic.push(KinematicSet { nodes, rest, motion: script, follow });
        }
        Ok(())
    }
}

/// Where a node at `x` sits on `body`: its body-frame offset from the centre of mass, and the
/// body's velocity there.
pub fn ride(body: &RigidBody, x: &Vector3<f64>) -> (Vector3<f64>, Vector3<f64>) {
    (body.orientation.inverse() * (x - body.position), body.point_velocity(x))
}

/// Every attached region's body-frame offsets from the scene placement, and its nodes' initial
/// velocity the body's there (their body's own `velocity` applies to its other nodes). A node
/// that another region scripts cannot also ride.
pub fn attach(
    loaded: &LoadedScene,
    regions: &mut [AttachedRegion],
    bodies: &[RigidBody],
    node_is_kinematic: &[bool],
    node_body: &[usize],
    q: &[f64],
    v: &mut [f64],
) -> Result<(), SceneError> {
    for region in regions {
        if let Some(&i) = region.nodes.iter().find(|&&i| node_is_kinematic[i]) {
            return Err(error_at(
                &loaded.path,
                &format!("bodies[{}].kinematic", node_body[i]),
                format!(
                    "a region attached to a dynamic rigid body and a scripted region share the node at {:?}: \
                     a node cannot ride on a body and follow a script",
                    crate::model::node_arr(q, i)
                ),
            ));
        }
        region.offsets = region
            .nodes
            .iter()
            .map(|&i| {
                let (offset, velocity) = ride(&bodies[region.body], &crate::model::node(q, i));
                crate::model::set_node(v, i, &velocity);
                offset
            })
            .collect();
    }
    Ok(())
}
