//! glTF 2.0 skinned animations (`.gltf` with embedded or external buffers, or `.glb`), as
//! Blender exports them: every mesh of the file's scene becomes one triangle surface moved by
//! one animation clip through its skin (or rigidly with its node if it has none).
//!
//! Refused, with the file and what is wrong: a file that is not valid glTF, a buffer that is
//! missing or shorter than it says, a file with no skinned mesh, no clip (or no clip of the
//! name asked for), a clip with no channels, a morph-target animation, non-triangle primitives,
//! a vertex with no weight, a joint index outside its skin, non-finite data.
//! Vertices that are identical in position and influences (split by glTF at UV or normal seams)
//! are welded into one, so the surface is connected where the model is.

use crate::model::skinning::clip::{Channel, Clip, Property, Sampling};
use crate::model::skinning::{Node, SkinnedMesh};
use nalgebra::{Matrix4, Vector3, Vector4};
use std::collections::HashMap;
use std::path::Path;

/// The skinned surface of `path` played by the clip named `clip` (or the file's first clip),
/// looping or not, scaled by `scale`; and its triangles.
pub fn read_skinned(
    path: &Path,
    clip: Option<&str>,
    looped: bool,
    scale: f64,
) -> Result<(SkinnedMesh, Vec<[usize; 3]>), String> {
    let at = path.display();
    let bytes = std::fs::read(path).map_err(|e| format!("cannot read {at}: {e}"))?;
    let gltf = gltf::Gltf::from_slice(&bytes).map_err(|e| format!("{at} is not a valid glTF 2.0 file: {e}"))?;
    let buffers = buffers(&gltf, path).map_err(|e| format!("{at}: {e}"))?;
    let read = Reader { buffers: &buffers };
    let nodes = nodes(&gltf.document).map_err(|e| format!("{at}: {e}"))?;
    let mut surface = Surface::default();
    read.meshes(&gltf.document, &nodes.order, &mut surface).map_err(|e| format!("{at}: {e}"))?;
    if surface.skinned == 0 {
        return Err(format!(
            "{at} has no skinned mesh: no node of its scene has both a mesh and a skin (export the mesh with its armature)"
        ));
    }
    let clip = read.clip(&gltf.document, clip, &nodes.position).map_err(|e| format!("{at}: {e}"))?;
    let (bind, offsets, influences, triangles) = surface.welded();
    let skinned = SkinnedMesh {
        nodes: nodes.nodes,
        palette: surface.palette.into_iter().map(|(n, b)| (nodes.position[n], b)).collect(),
        bind,
        offsets,
        influences,
        clip,
        looped,
        scale,
    };
    Ok((skinned, triangles))
}

/// Every buffer's bytes: the `.glb` binary chunk, a base64 `data:` URI, or a file beside `path`.
fn buffers(gltf: &gltf::Gltf, path: &Path) -> Result<Vec<Vec<u8>>, String> {
    use base64::Engine;
    gltf.buffers()
        .map(|b| {
            let data = match b.source() {
                gltf::buffer::Source::Bin => {
                    gltf.blob.clone().ok_or("buffer 0 refers to a binary chunk the file does not have")?
                }
                gltf::buffer::Source::Uri(uri) if uri.starts_with("data:") => {
                    let (_, payload) = uri.split_once(";base64,").ok_or("a data: URI that is not base64")?;
                    base64::engine::general_purpose::STANDARD
                        .decode(payload)
                        .map_err(|e| format!("buffer {}: bad base64 data: {e}", b.index()))?
                }
                gltf::buffer::Source::Uri(uri) => {
                    let file = path.parent().unwrap_or(Path::new(".")).join(percent_decoded(uri));
                    std::fs::read(&file)
                        .map_err(|e| format!("buffer {}: cannot read {}: {e}", b.index(), file.display()))?
                }
            };
            if data.len() < b.length() {
                return Err(format!("buffer {} holds {} bytes but declares {}", b.index(), data.len(), b.length()));
            }
            Ok(data)
        })
        .collect()
}

/// A relative URI's `%XX` escapes decoded (`my%20arm.bin`).
fn percent_decoded(uri: &str) -> String {
    let bytes = uri.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let hex = bytes.get(i + 1..i + 3).and_then(|h| u8::from_str_radix(std::str::from_utf8(h).ok()?, 16).ok());
        match (bytes[i], hex) {
            (b'%', Some(c)) => {
                out.push(c);
                i += 3;
            }
            (c, _) => {
                out.push(c);
                i += 1;
            }
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// The scene graph, parents before children.
struct Nodes {
    nodes: Vec<Node>,
    /// glTF node index -> position in `nodes`.
    position: Vec<usize>,
    /// glTF node indices, parents first.
    order: Vec<usize>,
}

fn nodes(doc: &gltf::Document) -> Result<Nodes, String> {
    let n = doc.nodes().len();
    let mut parent = vec![None; n];
    for node in doc.nodes() {
        for child in node.children() {
            if parent[child.index()].replace(node.index()).is_some() || child.index() == node.index() {
                return Err(format!(
                    "node {} has more than one parent: the scene graph must be a forest",
                    child.index()
                ));
            }
        }
    }
    let by_index: Vec<gltf::Node> = doc.nodes().collect();
    let mut order: Vec<usize> = (0..n).filter(|&i| parent[i].is_none()).collect();
    let mut k = 0;
    while k < order.len() {
        order.extend(by_index[order[k]].children().map(|c| c.index()));
        k += 1;
    }
    if order.len() != n {
        return Err("the scene graph has a cycle".into());
    }
    let mut position = vec![0; n];
    for (p, &i) in order.iter().enumerate() {
        position[i] = p;
    }
    let nodes = order
        .iter()
        .map(|&i| {
            let transform = by_index[i].transform();
            let (t, r, s) = transform.clone().decomposed();
            let m = transform.matrix();
            let v3 = |v: [f32; 3]| Vector4::new(v[0].into(), v[1].into(), v[2].into(), 0.0);
            Node {
                parent: parent[i].map(|p| position[p]),
                matrix: Matrix4::from_fn(|r, c| m[c][r].into()),
                trs: [v3(t), Vector4::from(r.map(f64::from)).normalize(), v3(s)],
            }
        })
        .collect();
    Ok(Nodes { nodes, position, order })
}

struct Reader<'b> {
    buffers: &'b [Vec<u8>],
}

/// The merged surface as it is read: bind positions, influences (palette index, weight) and
/// triangles of every mesh, and the palette (glTF node index, inverse bind matrix).
#[derive(Default)]
struct Surface {
    bind: Vec<Vector3<f64>>,
    influences: Vec<Vec<(u32, f64)>>,
    triangles: Vec<[usize; 3]>,
    palette: Vec<(usize, Matrix4<f64>)>,
    skinned: usize,
}

impl<'b> Reader<'b> {
    fn get(&self) -> impl Clone + Fn(gltf::Buffer) -> Option<&'b [u8]> + 'b {
        let buffers = self.buffers;
        move |b: gltf::Buffer| buffers.get(b.index()).map(Vec::as_slice)
    }

    /// Every mesh node of the file's scene (or of the whole file if it names no scene).
    fn meshes(&self, doc: &gltf::Document, order: &[usize], out: &mut Surface) -> Result<(), String> {
        let in_scene = scene_nodes(doc);
        let by_index: Vec<gltf::Node> = doc.nodes().collect();
        for &i in order.iter().filter(|&&i| in_scene[i]) {
            let node = &by_index[i];
            let Some(mesh) = node.mesh() else { continue };
            let joints = match node.skin() {
                Some(skin) => {
                    out.skinned += 1;
                    self.skin(&skin, out)?
                }
                None => {
                    out.palette.push((i, Matrix4::identity()));
                    1
                }
            };
            let base = out.palette.len() - joints;
            self.mesh(&mesh, node.skin().is_some(), base, joints, out)?;
        }
        Ok(())
    }

    /// Appends `skin`'s joints to the palette; returns their number.
    fn skin(&self, skin: &gltf::Skin, out: &mut Surface) -> Result<usize, String> {
        let ibm: Vec<Matrix4<f64>> = match skin.reader(self.get()).read_inverse_bind_matrices() {
            Some(m) => m.map(|m| Matrix4::from_fn(|r, c| m[c][r].into())).collect(),
            None => vec![Matrix4::identity(); skin.joints().len()],
        };
        if ibm.len() != skin.joints().len() || ibm.iter().any(|m| !m.iter().all(|x| x.is_finite())) {
            return Err(format!(
                "skin {} has {} finite inverse bind matrices for {} joints",
                skin.index(),
                ibm.len(),
                skin.joints().len()
            ));
        }
        out.palette.extend(skin.joints().map(|j| j.index()).zip(ibm));
        Ok(skin.joints().len())
    }

    /// Appends `mesh`'s triangles; a skinned mesh's vertices are bound to palette entries
    /// `base..base + joints`, an unskinned one's to `base` with weight one.
    fn mesh(
        &self,
        mesh: &gltf::Mesh,
        skinned: bool,
        base: usize,
        joints: usize,
        out: &mut Surface,
    ) -> Result<(), String> {
        let name = || mesh.name().map_or(format!("mesh {}", mesh.index()), |n| format!("mesh '{n}'"));
        if mesh.weights().is_some_and(|w| w.iter().any(|&w| w != 0.0)) {
            return Err(format!(
                "{} has morph targets with non-zero weights: apply the shape keys before export",
                name()
            ));
        }
        for (p, prim) in mesh.primitives().enumerate() {
            if prim.mode() != gltf::mesh::Mode::Triangles {
                return Err(format!("{} primitive {p} is {:?}: only triangles make a surface", name(), prim.mode()));
            }
            let r = prim.reader(self.get());
            let first = out.bind.len();
            let positions = r.read_positions().ok_or_else(|| format!("{} primitive {p} has no POSITION", name()))?;
            for x in positions {
                let x = Vector3::new(x[0].into(), x[1].into(), x[2].into());
                if !x.iter().all(|c: &f64| c.is_finite()) {
                    return Err(format!("{} primitive {p} vertex {} is not finite", name(), out.bind.len() - first));
                }
                out.bind.push(x);
            }
            let count = out.bind.len() - first;
            if skinned {
                self.weights(&prim, base, joints, count, out).map_err(|e| format!("{} primitive {p}: {e}", name()))?;
            } else {
                out.influences.extend(std::iter::repeat_n(vec![(base as u32, 1.0)], count));
            }
            let indices: Vec<usize> = match r.read_indices() {
                Some(i) => i.into_u32().map(|i| i as usize).collect(),
                None => (0..count).collect(),
            };
            if let Some(bad) = indices.iter().find(|&&i| i >= count) {
                return Err(format!("{} primitive {p} index {bad} is past its {count} vertices", name()));
            }
            out.triangles.extend(indices.chunks_exact(3).map(|t| [first + t[0], first + t[1], first + t[2]]));
        }
        Ok(())
    }

    /// The `count` vertices' joints and weights (every JOINTS_n/WEIGHTS_n set), normalised.
    fn weights(
        &self,
        prim: &gltf::Primitive,
        base: usize,
        joints: usize,
        count: usize,
        out: &mut Surface,
    ) -> Result<(), String> {
        let r = prim.reader(self.get());
        let first = out.influences.len();
        out.influences.resize(first + count, Vec::new());
        let mut set = 0;
        while let (Some(j), Some(w)) = (r.read_joints(set), r.read_weights(set)) {
            for (v, (j, w)) in j.into_u16().zip(w.into_f32()).enumerate().take(count) {
                for (j, w) in j.into_iter().zip(w).filter(|&(_, w)| w != 0.0) {
                    if usize::from(j) >= joints || !w.is_finite() || w < 0.0 {
                        return Err(format!("vertex {v} has joint {j} (of {joints}) at weight {w}"));
                    }
                    out.influences[first + v].push(((base + usize::from(j)) as u32, w.into()));
                }
            }
            set += 1;
        }
        if set == 0 {
            return Err("a skinned mesh without JOINTS_0 and WEIGHTS_0".into());
        }
        for (v, inf) in out.influences[first..].iter_mut().enumerate() {
            let sum: f64 = inf.iter().map(|e| e.1).sum();
            if sum <= 0.0 {
                return Err(format!("vertex {v} has no joint weight"));
            }
            inf.iter_mut().for_each(|e| e.1 /= sum);
        }
        Ok(())
    }

    /// The clip named `name`, or the first, with its channels in node positions.
    fn clip(&self, doc: &gltf::Document, name: Option<&str>, position: &[usize]) -> Result<Clip, String> {
        let names: Vec<String> =
            doc.animations().map(|a| a.name().map_or(format!("#{}", a.index()), |n| format!("'{n}'"))).collect();
        let animation = match name {
            None => doc.animations().next().ok_or("has no animation clip")?,
            Some(n) => doc.animations().find(|a| a.name() == Some(n)).ok_or_else(|| {
                format!(
                    "has no animation clip named '{n}'; its clips: {}",
                    if names.is_empty() { "none".into() } else { names.join(", ") }
                )
            })?,
        };
        let label = names[animation.index()].clone();
        let channels: Vec<Channel> = animation
            .channels()
            .map(|c| self.channel(&c, position).map_err(|e| format!("clip {label}, channel {}: {e}", c.index())))
            .collect::<Result<_, _>>()?;
        if channels.is_empty() {
            return Err(format!("clip {label} has no channels: it moves nothing"));
        }
        Ok(Clip::new(label, channels))
    }

    fn channel(&self, c: &gltf::animation::Channel, position: &[usize]) -> Result<Channel, String> {
        use gltf::animation::util::ReadOutputs;
        let r = c.reader(self.get());
        let times: Vec<f64> = r.read_inputs().ok_or("no key times")?.map(f64::from).collect();
        if times.is_empty() || times.iter().any(|t| !t.is_finite()) || times.windows(2).any(|w| w[0] >= w[1]) {
            return Err("key times must be finite and strictly increasing".into());
        }
        let v3 = |v: [f32; 3]| Vector4::new(v[0].into(), v[1].into(), v[2].into(), 0.0);
        let (property, values): (Property, Vec<Vector4<f64>>) = match r.read_outputs().ok_or("no key values")? {
            ReadOutputs::Translations(t) => (Property::Translation, t.map(v3).collect()),
            ReadOutputs::Scales(s) => (Property::Scale, s.map(v3).collect()),
            ReadOutputs::Rotations(q) => {
                (Property::Rotation, q.into_f32().map(|q| Vector4::from(q.map(f64::from))).collect())
            }
            ReadOutputs::MorphTargetWeights(_) => {
                return Err(
                    "animates morph-target weights, which are not supported: bake them into an OBJ sequence".into()
                );
            }
        };
        let sampling = match c.sampler().interpolation() {
            gltf::animation::Interpolation::Step => Sampling::Step,
            gltf::animation::Interpolation::Linear => Sampling::Linear,
            gltf::animation::Interpolation::CubicSpline => Sampling::CubicSpline,
        };
        let per_key = if sampling == Sampling::CubicSpline { 3 } else { 1 };
        if values.len() != per_key * times.len() || values.iter().any(|v| !v.iter().all(|x| x.is_finite())) {
            return Err(format!("{} finite values for {} keys of {sampling:?}", values.len(), times.len()));
        }
        if property == Property::Rotation && values.iter().any(|q| q.norm() == 0.0) {
            return Err("a rotation key of zero length".into());
        }
        Ok(Channel { node: position[c.target().node().index()], property, sampling, times, values })
    }
}

/// Which nodes belong to the file's default (or first) scene; every node if it has no scene.
fn scene_nodes(doc: &gltf::Document) -> Vec<bool> {
    let n = doc.nodes().len();
    let Some(scene) = doc.default_scene().or_else(|| doc.scenes().next()) else { return vec![true; n] };
    let mut in_scene = vec![false; n];
    let mut stack: Vec<gltf::Node> = scene.nodes().collect();
    while let Some(node) = stack.pop() {
        in_scene[node.index()] = true;
        stack.extend(node.children());
    }
    in_scene
}

impl Surface {
    /// Vertices identical in bind position and influences merged (first occurrence kept, order
    /// kept); the influences in offset form; degenerate triangles that welding made dropped.
    #[allow(clippy::type_complexity)]
    fn welded(&self) -> (Vec<Vector3<f64>>, Vec<usize>, Vec<(u32, f64)>, Vec<[usize; 3]>) {
        let key = |v: usize| {
            let mut k: Vec<u64> = self.bind[v].iter().map(|x| x.to_bits()).collect();
            k.extend(self.influences[v].iter().flat_map(|&(j, w)| [u64::from(j), w.to_bits()]));
            k
        };
        let mut first: HashMap<Vec<u64>, usize> = HashMap::new();
        let (mut bind, mut offsets, mut influences) = (Vec::new(), vec![0], Vec::new());
        let map: Vec<usize> = (0..self.bind.len())
            .map(|v| {
                *first.entry(key(v)).or_insert_with(|| {
                    bind.push(self.bind[v]);
                    influences.extend_from_slice(&self.influences[v]);
                    offsets.push(influences.len());
                    bind.len() - 1
                })
            })
            .collect();
        let triangles = self
            .triangles
            .iter()
            .map(|t| t.map(|v| map[v]))
            .filter(|t| t[0] != t[1] && t[1] != t[2] && t[0] != t[2])
            .collect();
        (bind, offsets, influences, triangles)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn percent_escapes_decode() {
        assert_eq!(percent_decoded("my%20arm.bin"), "my arm.bin");
        assert_eq!(percent_decoded("a%2"), "a%2");
    }
}
