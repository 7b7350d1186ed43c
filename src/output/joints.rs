//! Joints in the time series (`vtk/joints_<frame>.vtu`), as line cells: for each joint the arm
//! from each body's center of mass to its anchor (the world side has none) and, for a hinge, the
//! axis through the anchor, as long as the first body's bounding radius. Cell scalars: `joint`
//! (its index in the scene's list), `kind` (0 ball, 1 hinge, 2 fixed) and `part` (0 arm,
//! 1 axis), to colour or threshold by.

use crate::model::{Model, State};
use crate::rigid::joint::JointKind;

/// File-name stem of the joints' series.
pub const JOINTS: &str = "joints";

/// Points, line cells and cell scalars of every joint at the state's poses.
#[derive(Default)]
pub struct JointLines {
    pub points: Vec<[f64; 3]>,
    pub lines: Vec<[usize; 2]>,
    pub joint: Vec<f64>,
    pub kind: Vec<f64>,
    pub part: Vec<f64>,
}

impl JointLines {
    fn segment(&mut self, a: [f64; 3], b: [f64; 3], joint: usize, kind: f64, part: f64) {
        let n = self.points.len();
        self.points.extend([a, b]);
        self.lines.push([n, n + 1]);
        self.joint.push(joint as f64);
        self.kind.push(kind);
        self.part.push(part);
    }
}

pub fn joint_lines(model: &Model, state: &State) -> JointLines {
    let mut out = JointLines::default();
    for (k, j) in model.joints.iter().enumerate() {
        let ([pa, pb], axes) = j.world_frame(&state.rigid);
        let kind = match j.kind {
            JointKind::Ball => 0.0,
            JointKind::Hinge { .. } => 1.0,
            JointKind::Fixed { .. } => 2.0,
        };
        let a = &state.rigid[j.a];
        out.segment(a.position.into(), pa.into(), k, kind, 0.0);
        if let Some(b) = j.b {
            out.segment(state.rigid[b].position.into(), pb.into(), k, kind, 0.0);
        }
        if let Some([axis, _]) = axes {
            let half = 0.5 * a.shape.bounding_radius();
            out.segment((pa - half * axis).into(), (pa + half * axis).into(), k, kind, 1.0);
        }
    }
    out
}
