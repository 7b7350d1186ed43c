//! Numbered sequences of triangle-mesh files, an animation exported frame by frame
//! (`hand_0000.obj`, `hand_0001.obj`, ...): the file-name pattern, finding the frames, and
//! checking that every frame has the first one's topology.

use super::read_tri_mesh;
use nalgebra::Vector3;
use std::path::Path;

/// Vertex positions stored over all frames of one sequence at most (24 bytes each: 2.4 GB).
pub const MAX_VERTEX_FRAMES: usize = 100_000_000;

/// A file-name pattern with one frame-number placeholder: `{}` (the number as is) or `{:0N}`
/// (zero-padded to N digits, N from 1 to 9).
#[derive(Debug, Clone, PartialEq)]
pub struct FramePattern {
    prefix: String,
    width: usize,
    suffix: String,
}

impl FramePattern {
    /// `None` if `pattern` has no `{`: a single file. An error says what is wrong with a
    /// placeholder that is not one of the two forms.
    pub fn parse(pattern: &str) -> Result<Option<FramePattern>, String> {
        let Some(open) = pattern.find('{') else { return Ok(None) };
        let rest = &pattern[open..];
        let close = rest.find('}').ok_or("a `{` without its `}`: write the frame number as `{}` or `{:04}`")?;
        let spec = &rest[1..close];
        let suffix = &rest[close + 1..];
        if suffix.contains(['{', '}']) {
            return Err("only one frame-number placeholder is allowed".into());
        }
        let width = match spec {
            "" => 0,
            s if s.len() == 3 && s.starts_with(":0") && s.as_bytes()[2].is_ascii_digit() && &s[2..] != "0" => {
                usize::from(s.as_bytes()[2] - b'0')
            }
            _ => return Err(format!("`{{{spec}}}` is not a frame number: write `{{}}` or a zero-padded `{{:04}}`")),
        };
        Ok(Some(FramePattern { prefix: pattern[..open].to_string(), width, suffix: suffix.to_string() }))
    }

    /// The file name of frame `k`.
    pub fn name(&self, k: usize) -> String {
        format!("{}{:0width$}{}", self.prefix, k, self.suffix, width = self.width)
    }
}

/// The frames of a sequence (vertex positions) and their common triangles. Frames are numbered
/// from 0, or from 1 when there is no frame 0, up to the last number before the first missing
/// one. `resolve` turns a frame's name into its path.
#[allow(clippy::type_complexity)]
pub fn read_sequence(
    pattern: &FramePattern,
    resolve: impl Fn(&str) -> std::path::PathBuf,
) -> Result<(Vec<Vec<Vector3<f64>>>, Vec<[usize; 3]>), String> {
    let first = (0..2).find(|&k| resolve(&pattern.name(k)).is_file()).ok_or_else(|| {
        format!(
            "no frame of the sequence found: neither {} nor {} exists",
            resolve(&pattern.name(0)).display(),
            resolve(&pattern.name(1)).display()
        )
    })?;
    let read = |k: usize| {
        let path = resolve(&pattern.name(k));
        read_tri_mesh(&path).map(|m| (m, path)).map_err(|e| e.to_string())
    };
    let (mesh, first_path) = read(first)?;
    let triangles = mesh.triangles;
    let mut frames = vec![mesh.vertices];
    let n = frames[0].len();
    for k in first + 1.. {
        if !resolve(&pattern.name(k)).is_file() {
            break;
        }
        if (frames.len() + 1) * n > MAX_VERTEX_FRAMES {
            return Err(format!(
                "too long: {} frames of {n} vertices would keep more than {MAX_VERTEX_FRAMES} positions in memory",
                frames.len() + 1
            ));
        }
        let (m, path) = read(k)?;
        same_topology(&m.vertices, &m.triangles, &path, (n, &triangles), &first_path)?;
        frames.push(m.vertices);
    }
    Ok((frames, triangles))
}

/// A frame must have the first frame's vertex count and triangles, in the same order.
fn same_topology(
    vertices: &[Vector3<f64>],
    triangles: &[[usize; 3]],
    path: &Path,
    (n, first): (usize, &[[usize; 3]]),
    first_path: &Path,
) -> Result<(), String> {
    let (here, there) = (path.display(), first_path.display());
    if vertices.len() != n {
        return Err(format!("{here}: {} vertices, where the first frame {there} has {n}", vertices.len()));
    }
    if triangles.len() != first.len() {
        return Err(format!(
            "{here}: {} triangles, where the first frame {there} has {}",
            triangles.len(),
            first.len()
        ));
    }
    if let Some(t) = (0..first.len()).find(|&t| triangles[t] != first[t]) {
        return Err(format!(
            "{here}: triangle {t} is {:?}, where the first frame {there} has {:?} (every frame needs the same triangles)",
            triangles[t], first[t]
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn patterns_name_frames_and_bad_placeholders_are_refused() {
        let p = FramePattern::parse("hand_{:04}.obj").unwrap().unwrap();
        assert_eq!(p.name(7), "hand_0007.obj");
        assert_eq!(p.name(12345), "hand_12345.obj");
        assert_eq!(FramePattern::parse("f{}.ply").unwrap().unwrap().name(12), "f12.ply");
        assert_eq!(FramePattern::parse("still.obj").unwrap(), None);
        for bad in ["a{:4}.obj", "a{x}.obj", "a{.obj", "a{}{}.obj", "a{:00}.obj", "a{:012}.obj"] {
            assert!(FramePattern::parse(bad).is_err(), "{bad}");
        }
    }
}
