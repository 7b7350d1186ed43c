//! Wavefront OBJ surfaces: `v`, `vt` and `f` statements (hand-written; the format is small and
//! a reader of our own gives line-numbered messages).
//!
//! Supported: `v x y z [w | r g b]` (extra numbers ignored), `vt u [v [w]]` (`v` defaults to 0),
//! `f` with corners `v`, `v/vt`, `v/vt/vn` or `v//vn`, 1-based or negative (relative) indices,
//! polygons (fan-triangulated), `#` comments and `\` line continuation. Every other statement
//! (`vn`, `o`, `g`, `s`, `usemtl`, `mtllib`, `l`, `p`, curves, ...) is ignored: none of them
//! changes the triangle surface.

use std::collections::HashMap;
use std::collections::hash_map::Entry;
use std::path::Path;

use nalgebra::Vector3;

use super::MeshError;
use super::trimesh::{RawTriMesh, fan};

/// One face corner: 0-based position index and optional 0-based texture-coordinate index.
type Corner = (usize, Option<usize>);

/// Face corners as read, with the line they came from (for messages about later checks).
struct Face {
    line: usize,
    corners: Vec<Corner>,
}

pub(super) fn read_obj(path: &Path) -> Result<RawTriMesh, MeshError> {
    let bytes = std::fs::read(path).map_err(|source| MeshError::Io { path: path.to_path_buf(), source })?;
    // OBJ is ASCII; comments and names written in another encoding must not make the file unreadable.
    let text = String::from_utf8_lossy(&bytes);
    let at = |line: usize, message: String| MeshError::AtLine { path: path.to_path_buf(), line, message };

    let mut positions: Vec<Vector3<f64>> = Vec::new();
    let mut texcoords: Vec<[f64; 2]> = Vec::new();
    let mut faces: Vec<Face> = Vec::new();
    for (line, statement) in logical_lines(&text) {
        let mut tokens = statement.split_whitespace();
        let Some(keyword) = tokens.next() else { continue };
        let args: Vec<&str> = tokens.collect();
        match keyword {
            "v" => {
                if args.len() < 3 {
                    return Err(at(line, format!("a vertex needs 3 coordinates ('v x y z'), found {}", args.len())));
                }
                let mut x = [0.0; 3];
                for (k, (c, s)) in x.iter_mut().zip(&args).enumerate() {
                    *c = number(s).map_err(|m| at(line, format!("vertex coordinate {} {m}", k + 1)))?;
                }
                positions.push(Vector3::from(x));
            }
            "vt" => {
                if args.is_empty() {
                    return Err(at(line, "a texture coordinate needs at least u ('vt u v')".into()));
                }
                let u = number(args[0]).map_err(|m| at(line, format!("texture coordinate u {m}")))?;
                let v = match args.get(1) {
                    Some(s) => number(s).map_err(|m| at(line, format!("texture coordinate v {m}")))?,
                    None => 0.0,
                };
                texcoords.push([u, v]);
            }
            "f" => {
                if args.len() < 3 {
                    return Err(at(line, format!("a face needs at least 3 corners, found {}", args.len())));
                }
                let mut corners = Vec::with_capacity(args.len());
                for a in &args {
                    corners.push(corner(a, positions.len(), texcoords.len()).map_err(|m| at(line, m))?);
                }
                faces.push(Face { line, corners });
            }
            _ => {}
        }
    }
    build(path, positions, texcoords, faces)
}

/// Lines with comments removed and `\`-continued lines joined, each with the 1-based number of
/// its first physical line.
fn logical_lines(text: &str) -> Vec<(usize, String)> {
    let mut out = Vec::new();
    let mut pending: Option<(usize, String)> = None;
    for (i, raw) in text.lines().enumerate() {
        let content = raw.split('#').next().unwrap_or("");
        let (content, continues) = match content.trim_end().strip_suffix('\\') {
            Some(head) => (head, true),
            None => (content, false),
        };
        let (start, mut buf) = pending.take().unwrap_or((i + 1, String::new()));
        buf.push(' ');
        buf.push_str(content);
        if continues {
            pending = Some((start, buf));
        } else {
            out.push((start, buf));
        }
    }
    out.extend(pending);
    out
}

/// A finite number, or the reason it is not one.
fn number(s: &str) -> Result<f64, String> {
    match s.parse::<f64>() {
        Ok(x) if x.is_finite() => Ok(x),
        Ok(_) => Err(format!("is '{s}'; coordinates must be finite numbers (no NaN or infinity)")),
        Err(_) => Err(format!("is '{s}', which is not a number")),
    }
}

/// Parses one face corner (`v`, `v/vt`, `v/vt/vn`, `v//vn`). Negative indices are resolved here
/// against the counts so far (OBJ: relative to the current end of the list); positive ones are
/// range-checked once the whole file is read, so forward references work as in other readers.
fn corner(token: &str, n_pos: usize, n_tex: usize) -> Result<Corner, String> {
    let mut parts = token.split('/');
    let v = parts.next().unwrap_or("");
    let vt = parts.next().filter(|s| !s.is_empty());
    // The normal index is ignored but must still be an index if present.
    let vn = parts.next().filter(|s| !s.is_empty());
    if parts.next().is_some() {
        return Err(format!(
            "face corner '{token}' has more than 3 '/'-separated parts; allowed are v, v/vt, v/vt/vn, v//vn"
        ));
    }
    let position = index(v, n_pos, "vertex", token)?;
    let texcoord = vt.map(|s| index(s, n_tex, "texture coordinate", token)).transpose()?;
    if let Some(s) = vn {
        s.parse::<i64>().map_err(|_| format!("face corner '{token}': normal index '{s}' is not an integer"))?;
    }
    Ok((position, texcoord))
}

/// A 1-based (positive) or relative (negative) OBJ index, as a 0-based index. Positive indices
/// are returned unchecked (see [`corner`]).
fn index(s: &str, count: usize, what: &str, token: &str) -> Result<usize, String> {
    let i: i64 = s.parse().map_err(|_| {
        format!("face corner '{token}': {what} index '{s}' is not an integer (allowed forms: v, v/vt, v/vt/vn, v//vn)")
    })?;
    if i > 0 {
        usize::try_from(i - 1).map_err(|_| format!("face corner '{token}': {what} index {i} is too large"))
    } else if i < 0 {
        let back = i.unsigned_abs();
        usize::try_from(back).ok().and_then(|b| count.checked_sub(b)).ok_or_else(|| {
            format!(
                "face corner '{token}': relative {what} index {i} reaches before the first {what} \
                 (only {count} defined so far; -1 is the last one)"
            )
        })
    } else {
        Err(format!(
            "face corner '{token}': {what} index 0 is not valid; OBJ indices start at 1 (negative indices \
             count back from the last {what})"
        ))
    }
}

/// Range checks, vertex splitting for per-corner UVs, and fan triangulation.
fn build(
    path: &Path,
    positions: Vec<Vector3<f64>>,
    texcoords: Vec<[f64; 2]>,
    faces: Vec<Face>,
) -> Result<RawTriMesh, MeshError> {
    let at = |line: usize, message: String| MeshError::AtLine { path: path.to_path_buf(), line, message };
    // UVs are all or nothing: a surface with UVs on some faces only would give the others
    // made-up texture coordinates.
    let first_face = faces.first().map(|f| (f.line, f.corners[0].1.is_some()));
    for f in &faces {
        for &(p, t) in &f.corners {
            if p >= positions.len() {
                return Err(at(
                    f.line,
                    format!(
                        "vertex index {} is out of range; the file defines {} vertices (v lines)",
                        p + 1,
                        positions.len()
                    ),
                ));
            }
            if let Some(t) = t
                && t >= texcoords.len()
            {
                return Err(at(
                    f.line,
                    format!(
                        "texture coordinate index {} is out of range; the file defines {} texture \
                         coordinates (vt lines)",
                        t + 1,
                        texcoords.len()
                    ),
                ));
            }
            if let Some((line0, with_uv)) = first_face
                && t.is_some() != with_uv
            {
                let (this, that) = if with_uv { ("has no", "has") } else { ("has a", "has no") };
                return Err(at(
                    f.line,
                    format!(
                        "this face corner {this} texture coordinate but the face on line {line0} {that}; \
                         give vt indices on every face corner or on none"
                    ),
                ));
            }
        }
    }
    let has_uvs = first_face.is_some_and(|(_, with_uv)| with_uv);
    let mut vertices = positions;
    let mut triangles = Vec::with_capacity(faces.len());
    if !has_uvs {
        for f in &faces {
            let corners: Vec<usize> = f.corners.iter().map(|c| c.0).collect();
            fan(&corners, &mut triangles);
        }
        return Ok((vertices, triangles, None));
    }
    // Vertex splitting: a position keeps its file index with the first UV it is used with; each
    // further distinct UV at that position gets a new vertex appended at the end. Indices of
    // unsplit vertices thus match the file's.
    let n = vertices.len();
    let mut uv_of: Vec<Option<[f64; 2]>> = vec![None; n];
    let mut split: HashMap<(usize, [u64; 2]), usize> = HashMap::new();
    for f in &faces {
        let mut corners = Vec::with_capacity(f.corners.len());
        for &(p, t) in &f.corners {
            // Checked above: every corner of a file with UVs has an in-range vt index.
            let uv = texcoords[t.unwrap_or(0)];
            let index = match uv_of[p] {
                None => {
                    uv_of[p] = Some(uv);
                    p
                }
                Some(existing) if existing == uv => p,
                Some(_) => match split.entry((p, uv.map(f64::to_bits))) {
                    Entry::Occupied(e) => *e.get(),
                    Entry::Vacant(e) => {
                        vertices.push(vertices[p]);
                        uv_of.push(Some(uv));
                        *e.insert(vertices.len() - 1)
                    }
                },
            };
            corners.push(index);
        }
        fan(&corners, &mut triangles);
    }
    // Positions no face uses have no UV; (0, 0) is a placeholder they never pass to a triangle.
    let uvs = uv_of.into_iter().map(|uv| uv.unwrap_or([0.0, 0.0])).collect();
    Ok((vertices, triangles, Some(uvs)))
}
