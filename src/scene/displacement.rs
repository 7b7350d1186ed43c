//! A solid's initial displacement (`displacement:` in a scene): the solid starts deformed,
//! stressed by its own elasticity (a woven strip bent over and under its neighbours presses on
//! them). The field is three formulas of the rest position, both in the mesh's own coordinates.
//! A reduced solid can only take the part its modes span: its modal coordinates are the
//! mass-weighted projection `q = Φᵀ M u`, and `fricsim check` says how far that lies from the
//! field asked for.

use super::schema::DisplacementSpec;
use crate::friction::structure_field::Formula;
use crate::mesh::tet::{TetMesh, signed_volume};
use crate::reduced::ReducedModel;
use nalgebra::{DVector, Matrix3, Rotation3, UnitQuaternion, Vector3};

/// What a solid starts from: the displacement of each vertex (mesh coordinates) as taken, and
/// for a reduced solid its modal coordinates and the rigid part its frame takes.
pub(crate) struct Initial {
    pub u: Vec<Vector3<f64>>,
    pub modal: Option<(DVector<f64>, Rigid)>,
    pub summary: crate::model::Displaced,
}

/// The rigid part of a displacement: a translation of the centre of mass and a turn about it
/// (mesh coordinates).
pub(crate) struct Rigid {
    pub translation: Vector3<f64>,
    pub turn: UnitQuaternion<f64>,
}

/// The field at `mesh`'s (unplaced) vertices, projected onto `reduced`'s modes if given; a
/// message names the first vertex where a formula is not finite, or the first tet the
/// displacement (as taken) turns inside out.
pub(crate) fn initial(
    spec: &DisplacementSpec,
    mesh: &TetMesh,
    reduced: Option<&ReducedModel>,
) -> Result<Initial, String> {
    let asked = evaluate(spec, mesh)?;
    let largest = asked.iter().map(|u| u.norm()).fold(0.0, f64::max);
    // A full solid takes the field as asked; a reduced one what its frame and modes span.
    let (u, modal, off) = match reduced {
        None => (asked, None, 0.0),
        Some(model) => {
            let (taken, q, rigid) = take_by_frame_and_modes(model, &asked);
            let off = asked.iter().zip(&taken).map(|(a, t)| (a - t).norm()).fold(0.0, f64::max);
            (taken, Some((q, rigid)), off)
        }
    };
    if let Some(t) = first_inverted(mesh, &u) {
        let centroid = mesh.tets[t].iter().map(|&i| mesh.vertices[i]).sum::<Vector3<f64>>() / 4.0;
        return Err(format!(
            "turns tet {t} (rest centroid {:?}) inside out{}: the field folds it (det(I + grad u) <= 0; too large an \
             amplitude for its wavelength, or a mirror)",
            centroid.as_slice(),
            if reduced.is_some() { " as the modes take it" } else { "" }
        ));
    }
    Ok(Initial { u, modal, summary: crate::model::Displaced { largest, off } })
}

/// The three formulas at every vertex, or a message naming the first non-finite value.
fn evaluate(spec: &DisplacementSpec, mesh: &TetMesh) -> Result<Vec<Vector3<f64>>, String> {
    let (fx, fy, fz) = (Formula::parse(&spec.x)?, Formula::parse(&spec.y)?, Formula::parse(&spec.z)?);
    mesh.vertices
        .iter()
        .enumerate()
        .map(|(i, x)| {
            let u = Vector3::new(fx.eval(x), fy.eval(x), fz.eval(x));
            match u.iter().position(|c| !c.is_finite()) {
                None => Ok(u),
                Some(k) => Err(format!(
                    "`{}` is {} at vertex {i} (rest position {:?})",
                    ["x", "y", "z"][k],
                    u[k],
                    x.as_slice()
                )),
            }
        })
        .collect()
}

/// What a reduced body takes of `asked`: the rigid part in its frame, then what is left in the
/// turned frame, `R⁻¹ (X + u − t) − X`, by its modes. Returns the displacement as taken, the
/// modal coordinates and the rigid part.
fn take_by_frame_and_modes(model: &ReducedModel, asked: &[Vector3<f64>]) -> (Vec<Vector3<f64>>, DVector<f64>, Rigid) {
    let rigid = rigid_part(model, asked);
    let left: Vec<_> = (0..asked.len())
        .map(|i| rigid.turn.inverse() * (model.rest[i] + asked[i] - rigid.translation) - model.rest[i])
        .collect();
    let q = model.project(&left);
    let taken =
        (0..asked.len()).map(|i| rigid.translation + rigid.turn * model.local_offset(i, &q) - model.rest[i]).collect();
    (taken, q, rigid)
}

/// The first tet whose signed volume changes sign (or vanishes) under `u`.
fn first_inverted(mesh: &TetMesh, u: &[Vector3<f64>]) -> Option<usize> {
    mesh.tets.iter().position(|t| {
        let rest = signed_volume(t.map(|i| &mesh.vertices[i]));
        let now = signed_volume(t.map(|i| mesh.vertices[i] + u[i]).each_ref());
        now * rest.signum() <= 0.0
    })
}

/// The rigid motion nearest to `u` in the mass norm: the mean translation `t` and the rotation
/// nearest to `Σ m_i (X_i + u_i − t) X_iᵀ` (its polar factor; `X_i` the offsets from the centre of
/// mass), as the mass-weighted Procrustes problem has it.
fn rigid_part(model: &ReducedModel, u: &[Vector3<f64>]) -> Rigid {
    let total: f64 = model.mass.iter().sum();
    let translation = u.iter().zip(&model.mass).map(|(u, m)| u * *m).sum::<Vector3<f64>>() / total;
    let mut cross = Matrix3::zeros();
    for ((x, u), m) in model.rest.iter().zip(u).zip(&model.mass) {
        cross += *m * (x + u - translation) * x.transpose();
    }
    let svd = cross.svd(true, true);
    let (w, vt) = (svd.u.expect("asked for"), svd.v_t.expect("asked for"));
    // A reflection is no rotation: flip the direction of the smallest singular value.
    let flip = Matrix3::from_diagonal(&Vector3::new(1.0, 1.0, (w * vt).determinant().signum()));
    let turn = UnitQuaternion::from_rotation_matrix(&Rotation3::from_matrix_unchecked(w * flip * vt));
    Rigid { translation, turn }
}
