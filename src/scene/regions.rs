//! A nodal body's `kinematic` regions: the nodes each selects, and what moves them: a scripted
//! motion, an animated surface they follow, or a rigid body they are attached to (`attach_to`):
//! a scripted body's script, or riding on a dynamic body as part of it.

use super::build::{follow, motion};
use super::schema::{BodySpec, KinematicSpec};
use super::{LoadedScene, SceneError, error_at};
use crate::model::motion::Motion;
use crate::model::{AttachedRegion, KinematicSet, RodBundle};
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
            let nodes: Vec<usize> =
                (0..x.len()).filter(|&i| kin.region.contains(&[x[i].x, x[i].y, x[i].z])).map(|i| i + offset).collect();
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

/// What is needed to put nodes on the dynamic bodies they ride on, once every body is built.
pub struct Riders<'a> {
    pub loaded: &'a LoadedScene,
    pub bodies: &'a [RigidBody],
    pub node_is_kinematic: &'a [bool],
    pub node_body: &'a [usize],
    pub q: &'a [f64],
}

impl Riders<'_> {
    /// Node `i` on `body`: its body-frame offset, its initial velocity set to the body's there
    /// (the node's own body's `velocity` applies to its other nodes). `scripted` says why it
    /// cannot also be scripted, should a `kinematic` region select it.
    fn ride(
        &self,
        body: usize,
        i: usize,
        v: &mut [f64],
        scripted: impl Fn() -> String,
    ) -> Result<Vector3<f64>, SceneError> {
        if self.node_is_kinematic[i] {
            let field = format!("bodies[{}].kinematic", self.node_body[i]);
            return Err(error_at(&self.loaded.path, &field, scripted()));
        }
        let (body, x) = (&self.bodies[body], crate::model::node(self.q, i));
        crate::model::set_node(v, i, &body.point_velocity(&x));
        Ok(body.orientation.inverse() * (x - body.position))
    }

    /// Rod roots attached to a dynamic body: their offsets (one per rod).
    pub fn roots(&self, bundles: &mut [RodBundle], v: &mut [f64]) -> Result<(), SceneError> {
        for bundle in bundles.iter_mut() {
            let Some(att) = bundle.attached.as_mut() else { continue };
            let mut offsets = Vec::with_capacity(bundle.rods.len());
            for (k, piece) in bundle.rods.iter().enumerate() {
                let at = crate::model::node_arr(self.q, piece.first);
                offsets.push(self.ride(att.body, piece.first, v, || {
                    format!(
                        "selects the root of rod {k} (node at {at:?}), which rides on the dynamic body named by \
                         `attach_to`: a root cannot also follow a script"
                    )
                })?);
            }
            att.offsets = offsets;
        }
        Ok(())
    }

    /// Attached regions: their offsets (one per node).
    pub fn regions(&self, regions: &mut [AttachedRegion], v: &mut [f64]) -> Result<(), SceneError> {
        for region in regions {
            let mut offsets = Vec::with_capacity(region.nodes.len());
            for &i in &region.nodes {
                let at = crate::model::node_arr(self.q, i);
                offsets.push(self.ride(region.body, i, v, || {
                    format!(
                        "a region attached to a dynamic rigid body and a scripted region share the node at {at:?}: \
                         a node cannot ride on a body and follow a script"
                    )
                })?);
            }
            region.offsets = offsets;
        }
        Ok(())
    }
}
