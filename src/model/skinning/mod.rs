//! A skinned mesh played by a clip: linear blend skinning as glTF 2.0 defines it.
//!
//! A node's local transform is `T R S` (its clip's channels replacing the rest values they
//! drive), its global transform its parent's global times its local. A vertex moves with the
//! joints that influence it, `x = sum_j w_j G_j B_j x_bind`, where `G_j` is joint `j`'s global
//! transform and `B_j` its inverse bind matrix; the skinned mesh's own node transform is ignored
//! (glTF 2.0 §3.7.3). A mesh without a skin moves rigidly with its node, as a one-joint skin
//! with `B = I` would. The whole is then scaled by the scene's `scale`.

pub mod clip;

use clip::{Clip, Property};
use nalgebra::{Matrix3, Matrix4, Translation3, UnitQuaternion, Vector3, Vector4};

/// A node of the scene graph: its parent and its rest transform.
#[derive(Debug, Clone, PartialEq)]
pub struct Node {
    pub parent: Option<usize>,
    /// The rest transform, used as is when no channel drives the node.
    pub matrix: Matrix4<f64>,
    /// The rest transform as translation, rotation (`xyzw`) and scale, which channels replace.
    pub trs: [Vector4<f64>; 3],
}

/// A skinned mesh: bind positions, the influences on each vertex, the joint palette and the
/// scene graph the clip moves.
#[derive(Debug, Clone, PartialEq)]
pub struct SkinnedMesh {
    /// Nodes, parents before children.
    pub nodes: Vec<Node>,
    /// Palette entries: a node and its inverse bind matrix.
    pub palette: Vec<(usize, Matrix4<f64>)>,
    pub bind: Vec<Vector3<f64>>,
    /// Influences of vertex `v`: `influences[offsets[v]..offsets[v + 1]]`, palette index and
    /// weight (positive, summing to one).
    pub offsets: Vec<usize>,
    pub influences: Vec<(u32, f64)>,
    pub clip: Clip,
    pub looped: bool,
    pub scale: f64,
}

impl SkinnedMesh {
    /// Number of joints in the palette.
    pub fn joint_count(&self) -> usize {
        self.palette.len()
    }

    /// Every node's global transform at clip time `tc`.
    fn globals(&self, tc: f64) -> Vec<Matrix4<f64>> {
        let mut trs: Vec<Option<[Vector4<f64>; 3]>> = vec![None; self.nodes.len()];
        for c in &self.clip.channels {
            let slot = trs[c.node].get_or_insert(self.nodes[c.node].trs);
            let k = match c.property {
                Property::Translation => 0,
                Property::Rotation => 1,
                Property::Scale => 2,
            };
            slot[k] = c.sample(tc);
        }
        let mut global: Vec<Matrix4<f64>> = Vec::with_capacity(self.nodes.len());
        for (node, trs) in self.nodes.iter().zip(&trs) {
            let local = trs.as_ref().map_or(node.matrix, compose);
            global.push(match node.parent {
                Some(p) => global[p] * local,
                None => local,
            });
        }
        global
    }

    /// Vertex positions at simulation time `t` into `out` (resized).
    pub fn positions(&self, t: f64, out: &mut Vec<Vector3<f64>>) {
        let global = self.globals(self.clip.time(t, self.looped));
        let skin: Vec<(Matrix3<f64>, Vector3<f64>)> = self
            .palette
            .iter()
            .map(|(node, inverse_bind)| {
                let m = global[*node] * inverse_bind * self.scale;
                (m.fixed_view::<3, 3>(0, 0).into_owned(), m.fixed_view::<3, 1>(0, 3).into_owned())
            })
            .collect();
        out.resize(self.bind.len(), Vector3::zeros());
        for (v, o) in out.iter_mut().enumerate() {
            let x = self.bind[v];
            *o = self.influences[self.offsets[v]..self.offsets[v + 1]]
                .iter()
                .map(|&(j, w)| {
                    let (a, b) = &skin[j as usize];
                    w * (a * x + b)
                })
                .sum();
        }
    }
}

/// `T R S` of a translation, a rotation (`xyzw`) and a scale.
pub fn compose(trs: &[Vector4<f64>; 3]) -> Matrix4<f64> {
    let [t, r, s] = trs;
    let q = UnitQuaternion::from_quaternion(nalgebra::Quaternion::new(r.w, r.x, r.y, r.z));
    Translation3::new(t.x, t.y, t.z).to_homogeneous()
        * q.to_homogeneous()
        * Matrix4::new_nonuniform_scaling(&Vector3::new(s.x, s.y, s.z))
}
