//! `open_in_paraview.py`, written into every run folder: a ParaView Python script that opens the
//! run with each body, collider and the contact points as pipeline objects of their own (from
//! the per-series collections `vtk/<series>.pvd`): bodies coloured by speed, colliders as
//! translucent grey geometry, contact forces as arrows, joints as red lines. `paraview --script=open_in_paraview.py`
//! opens it in the GUI; `pvbatch open_in_paraview.py out.png` renders the last frame to a PNG.

use super::OutputError;
use super::atomic::write_bytes_atomically;
use std::path::Path;

const SCRIPT: &str = r#"# Opens this fricsim run in ParaView: bodies coloured by speed, colliders as translucent grey
# geometry, contact forces as arrows, joints as red lines; each is its own pipeline object, to
# hide or restyle.
#   paraview --script=open_in_paraview.py
#   pvbatch open_in_paraview.py last_frame.png     (renders the last frame to a PNG)
import os
import sys
from paraview.simple import *

HERE = os.path.dirname(os.path.abspath(__file__))
BODIES = __BODIES__
COLLIDERS = __COLLIDERS__
CONTACTS = __CONTACTS__
JOINTS = __JOINTS__


def series(name):
    return PVDReader(registrationName=name, FileName=os.path.join(HERE, "vtk", name + ".pvd"))


view = GetActiveViewOrCreate("RenderView")
bodies = []
for name in BODIES:
    shown = Show(series(name), view)
    ColorBy(shown, ("POINTS", "velocity", "Magnitude"))
    shown.SetScalarBarVisibility(view, True)
    bodies.append(shown)
# Bodies often start at rest: let the speed's colour range grow as the animation plays.
GetColorTransferFunction("velocity").AutomaticRescaleRangeMode = "Grow and update every timestep"

for name in COLLIDERS:
    shown = Show(series(name), view)
    ColorBy(shown, None)
    shown.AmbientColor = [0.7, 0.7, 0.7]
    shown.DiffuseColor = [0.7, 0.7, 0.7]
    shown.Opacity = 0.4
if CONTACTS and os.path.exists(os.path.join(HERE, "vtk", "contacts.pvd")):
    arrows = Glyph(registrationName="contact forces", Input=series("contacts"), GlyphType="Arrow")
    arrows.OrientationArray = ["POINTS", "contact_force"]
    arrows.ScaleArray = ["POINTS", "No scale array"]
    arrows.GlyphMode = "All Points"
    Show(arrows, view)
if JOINTS:
    # Arms from each body's center to the joint, and hinge axes, as thick red lines.
    shown = Show(series("joints"), view)
    ColorBy(shown, None)
    shown.AmbientColor = [0.9, 0.1, 0.1]
    shown.DiffuseColor = [0.9, 0.1, 0.1]
    shown.LineWidth = 4.0
scene = GetAnimationScene()
scene.UpdateAnimationUsingDataTimeSteps()
# Look from the front, slightly above (z is up in fricsim scenes), at everything.
view.CameraFocalPoint = [0.0, 0.0, 0.0]
view.CameraPosition = [0.6, -1.0, 0.7]
view.CameraViewUp = [0.0, 0.0, 1.0]
view.ResetCamera()
if len(sys.argv) > 1:
    scene.AnimationTime = scene.EndTime
    for shown in bodies:
        shown.RescaleTransferFunctionToDataRange(False, True)
    view.ViewSize = [1024, 768]
    Render(view)
    SaveScreenshot(sys.argv[1], view, ImageResolution=[1024, 768])
else:
    Render(view)
"#;

/// Python list literal of names (series names are scene names: quote them as Python strings).
fn py_list(names: &[&str]) -> String {
    let quoted: Vec<String> = names.iter().map(|n| format!("{:?}", n)).collect();
    format!("[{}]", quoted.join(", "))
}

/// Write `open_in_paraview.py` into `out_dir` for these body and collider series, with the
/// contact points' and the joints' series if the run writes them.
pub fn write(
    out_dir: &Path,
    bodies: &[&str],
    colliders: &[&str],
    contacts: bool,
    joints: bool,
) -> Result<(), OutputError> {
    let py_bool = |b: bool| if b { "True" } else { "False" };
    let text = SCRIPT
        .replace("__BODIES__", &py_list(bodies))
        .replace("__COLLIDERS__", &py_list(colliders))
        .replace("__CONTACTS__", py_bool(contacts))
        .replace("__JOINTS__", py_bool(joints));
    write_bytes_atomically(&out_dir.join("open_in_paraview.py"), text.as_bytes())
}
