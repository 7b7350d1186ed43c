//! Structure-direction textures (003 §5.1): a PNG whose red and green channels encode, per
//! texel, the direction of least friction resistance in the surface's UV space.
//!
//! Decoding: a channel value `c` in [0, 1] (8- or 16-bit, as stored: no gamma or colour
//! management, as for normal maps) gives the UV-space direction `d = (2 r - 1, 2 g - 1)`.
//! A (near-)zero `d` — e.g. the neutral colour (128, 128) — means "no structure here", and the
//! contact falls back to the isotropic law (see [`crate::friction::matchstick`]).
//!
//! UV convention: `u` grows to the right, `v` grows **upwards**: `v = 0` is the bottom row of
//! the image and `v = 1` its top row, as OBJ and PLY texture coordinates are defined. Texel
//! `(i, j)` (column `i`, row `j` counted from the bottom) is centred at
//! `((i + 0.5) / width, (j + 0.5) / height)`. Lookups wrap (repeat) in both directions.
//!
//! Mapping to the world: a UV direction is carried onto a triangle with the triangle's
//! `dP/du` and `dP/dv` (the tangent frame of normal mapping), so a direction drawn in the
//! image follows the same curve on the surface even where the UV layout is stretched, sheared
//! or mirrored. The paper's `s = (2r-1) t + (2g-1) b` with an orthonormal `(t, b = n × t)` is the
//! same direction wherever the UV map is conformal.

use std::io::Cursor;
use std::path::{Path, PathBuf};

use image::{ImageFormat, ImageReader};
use nalgebra::Vector3;

/// Below this length a sampled direction means "no structure". 8-bit PNGs cannot store 0.5
/// exactly: the neutral (128, 128) decodes to a length of 0.0055, one 8-bit step is 0.0078;
/// 0.02 is ~2.5 steps, far below any deliberately painted direction (length ~1).
pub const MIN_STRUCTURE_MAGNITUDE: f64 = 0.02;

/// Why a structure texture could not be used.
#[derive(Debug, thiserror::Error)]
pub enum TextureError {
    #[error("cannot read structure texture '{}': {source}", path.display())]
    Io { path: PathBuf, source: std::io::Error },
    #[error(
        "structure texture '{}' is not a PNG file ({found}); structure directions are read from PNG \
         images (red: component along u, green: component along v, 128 = zero)",
        path.display()
    )]
    NotPng { path: PathBuf, found: String },
    #[error("structure texture '{}' could not be decoded as PNG: {message}", path.display())]
    Decode { path: PathBuf, message: String },
    #[error("invalid structure texture: {0}")]
    Invalid(String),
}

/// A decoded structure-direction texture: one UV-space direction per texel.
#[derive(Clone, Debug, PartialEq)]
pub struct StructureTexture {
    width: usize,
    height: usize,
    /// Row-major, row 0 at `v = 0` (the bottom of the image).
    texels: Vec<[f64; 2]>,
}

impl StructureTexture {
    /// Reads and decodes a PNG (8- or 16-bit; grey, grey-alpha, RGB, RGBA or palette; alpha is
    /// ignored). Errors name the file and say whether it is missing or unreadable, not a PNG,
    /// or a damaged PNG.
    pub fn load(path: &Path) -> Result<Self, TextureError> {
        let bytes = std::fs::read(path).map_err(|source| TextureError::Io { path: path.to_path_buf(), source })?;
        const SIGNATURE: &[u8] = b"\x89PNG\r\n\x1a\n";
        if !bytes.starts_with(SIGNATURE) {
            let found = if bytes.is_empty() {
                "the file is empty".to_string()
            } else {
                match image::guess_format(&bytes) {
                    Ok(format) => format!("it looks like a {format:?} image"),
                    Err(_) => "it does not start with the PNG signature".to_string(),
                }
            };
            return Err(TextureError::NotPng { path: path.to_path_buf(), found });
        }
        let decode_err =
            |e: image::ImageError| TextureError::Decode { path: path.to_path_buf(), message: e.to_string() };
        let image = ImageReader::with_format(Cursor::new(bytes), ImageFormat::Png).decode().map_err(decode_err)?;
        // 16 bits per channel for every source depth: 8-bit values are widened exactly (x 257),
        // so c = value / 65535 is the stored fraction for both depths.
        let rgb = image.to_rgb16();
        let (width, height) = (rgb.width() as usize, rgb.height() as usize);
        let mut texels = Vec::with_capacity(width * height);
        // Image rows run top to bottom; store bottom to top so that row index follows v.
        for row in (0..height).rev() {
            for col in 0..width {
                let p = rgb.get_pixel(col as u32, row as u32).0;
                texels.push([decode_channel(p[0]), decode_channel(p[1])]);
            }
        }
        Self::from_directions(width, height, texels)
    }

    /// A texture from UV-space directions, row-major with row 0 at `v = 0` (bottom).
    pub fn from_directions(width: usize, height: usize, texels: Vec<[f64; 2]>) -> Result<Self, TextureError> {
        if width == 0 || height == 0 || width.checked_mul(height) != Some(texels.len()) {
            return Err(TextureError::Invalid(format!(
                "{width} x {height} texels need {} directions, {} given (and both sizes must be > 0)",
                width.saturating_mul(height),
                texels.len()
            )));
        }
        if let Some(k) = texels.iter().position(|d| !d.iter().all(|c| c.is_finite())) {
            return Err(TextureError::Invalid(format!("texel {k} has a non-finite direction {:?}", texels[k])));
        }
        Ok(StructureTexture { width, height, texels })
    }

    pub fn width(&self) -> usize {
        self.width
    }

    pub fn height(&self) -> usize {
        self.height
    }

    /// The direction stored at column `i`, row `j` (row 0 at the bottom); indices wrap.
    pub fn texel(&self, i: isize, j: isize) -> [f64; 2] {
        let i = i.rem_euclid(self.width as isize) as usize;
        let j = j.rem_euclid(self.height as isize) as usize;
        self.texels[j * self.width + i]
    }

    /// The UV-space structure direction at `uv`: bilinear between the four nearest texel
    /// centres, repeating outside [0, 1). Non-finite `uv` gives zero (no structure).
    ///
    /// Structure directions are axes (the sign is ignored, 003 eq. 5), so the filter blends the
    /// doubled-angle vectors `|d|² (cos 2φ, sin 2φ)` rather than `d` itself: texels painted
    /// `(1, 0)` and `(-1, 0)` describe the same grain and blend to it, not to zero (which would
    /// put a spurious isotropic seam between them). The result has length `sqrt|blend|` and
    /// the sign of the plain linear blend. At texel centres and in uniform regions it is the
    /// stored direction (to round-off); between two equal-length directions less than 90 degrees
    /// apart it bisects them, as linear filtering does; perpendicular axes blend to zero (no
    /// axis dominates).
    pub fn sample(&self, uv: [f64; 2]) -> [f64; 2] {
        if !(uv[0].is_finite() && uv[1].is_finite()) {
            return [0.0, 0.0];
        }
        // Continuous texel coordinates: texel centres at integers.
        let x = uv[0].rem_euclid(1.0) * self.width as f64 - 0.5;
        let y = uv[1].rem_euclid(1.0) * self.height as f64 - 0.5;
        let (x0, y0) = (x.floor(), y.floor());
        let (fx, fy) = (x - x0, y - y0);
        let (i0, j0) = (x0 as isize, y0 as isize);
        let taps = [
            ((1.0 - fx) * (1.0 - fy), self.texel(i0, j0)),
            (fx * (1.0 - fy), self.texel(i0 + 1, j0)),
            ((1.0 - fx) * fy, self.texel(i0, j0 + 1)),
            (fx * fy, self.texel(i0 + 1, j0 + 1)),
        ];
        let (mut linear, mut doubled) = ([0.0; 2], [0.0; 2]);
        for (w, d) in taps {
            linear = [linear[0] + w * d[0], linear[1] + w * d[1]];
            doubled = [doubled[0] + w * (d[0] * d[0] - d[1] * d[1]), doubled[1] + w * 2.0 * d[0] * d[1]];
        }
        let length = doubled[0].hypot(doubled[1]).sqrt();
        if length == 0.0 {
            return [0.0, 0.0];
        }
        let (s, c) = (0.5 * doubled[1].atan2(doubled[0])).sin_cos();
        let mut dir = [length * c, length * s];
        // Sign: that of the linear blend; if that vanishes, that of the heaviest tap.
        let reference = if linear != [0.0, 0.0] {
            linear
        } else {
            taps.iter().fold((0.0, [0.0; 2]), |best, &(w, d)| if w > best.0 { (w, d) } else { best }).1
        };
        if dir[0] * reference[0] + dir[1] * reference[1] < 0.0 {
            dir = [-dir[0], -dir[1]];
        }
        dir
    }

    /// The world-space structure direction at a point of a textured triangle: the UV is
    /// interpolated with the barycentric coordinates `bary`, the texture sampled there, and the
    /// direction mapped onto the triangle with [`uv_direction_to_world`]. `None` means no
    /// structure: a sampled direction shorter than [`MIN_STRUCTURE_MAGNITUDE`], or degenerate
    /// geometry/UVs.
    pub fn structure_at(
        &self,
        corners: &[Vector3<f64>; 3],
        uvs: &[[f64; 2]; 3],
        bary: [f64; 3],
    ) -> Option<Vector3<f64>> {
        let uv = [0, 1].map(|k| bary[0] * uvs[0][k] + bary[1] * uvs[1][k] + bary[2] * uvs[2][k]);
        let d = self.sample(uv);
        if d[0].hypot(d[1]) < MIN_STRUCTURE_MAGNITUDE {
            return None;
        }
        uv_direction_to_world(corners, uvs, d)
    }
}

#[inline]
fn decode_channel(v: u16) -> f64 {
    2.0 * (f64::from(v) / 65535.0) - 1.0
}

/// Relative size below which the UV triangle counts as degenerate: `|det| <= this × |Δuv1| |Δuv2|`
/// (the sine of the UV triangle's angle at corner 0). Round-off gives ~1e-16; 1e-10 rejects
/// collapsed UV triangles, whose `dP/du, dP/dv` would be noise amplified by > 1e10.
const DEGENERATE_UV: f64 = 1e-10;

/// The triangle's tangent `dP/du` and bitangent `dP/dv` (world units per UV unit), from its
/// corner positions and UVs: the solution of `[e1 e2] = [T B] [Δuv1 Δuv2]`. `None` when the UV
/// triangle is degenerate (zero or collinear UVs).
pub fn uv_gradients(corners: &[Vector3<f64>; 3], uvs: &[[f64; 2]; 3]) -> Option<(Vector3<f64>, Vector3<f64>)> {
    let e1 = corners[1] - corners[0];
    let e2 = corners[2] - corners[0];
    let a = [uvs[1][0] - uvs[0][0], uvs[1][1] - uvs[0][1]];
    let b = [uvs[2][0] - uvs[0][0], uvs[2][1] - uvs[0][1]];
    let det = a[0] * b[1] - b[0] * a[1];
    let scale = a[0].hypot(a[1]) * b[0].hypot(b[1]);
    // NaN (non-finite UVs) fails too.
    if det.is_nan() || det.abs() <= DEGENERATE_UV * scale {
        return None;
    }
    let tangent = (e1 * b[1] - e2 * a[1]) / det;
    let bitangent = (e2 * a[0] - e1 * b[0]) / det;
    Some((tangent, bitangent))
}

/// The unit world direction on the triangle of the UV-space direction `dir_uv`:
/// `d_u dP/du + d_v dP/dv`, projected onto the triangle's plane (which removes only round-off)
/// and normalized. `None` when `dir_uv` is zero or not finite, the UVs are degenerate, or the
/// triangle has no area.
pub fn uv_direction_to_world(
    corners: &[Vector3<f64>; 3],
    uvs: &[[f64; 2]; 3],
    dir_uv: [f64; 2],
) -> Option<Vector3<f64>> {
    let (tangent, bitangent) = uv_gradients(corners, uvs)?;
    let normal = (corners[1] - corners[0]).cross(&(corners[2] - corners[0])).try_normalize(0.0)?;
    let w = tangent * dir_uv[0] + bitangent * dir_uv[1];
    let w = w - normal * normal.dot(&w);
    // Relative to the sizes that formed it, so that only a true zero (or round-off of one) fails.
    let scale = dir_uv[0].abs() * tangent.norm() + dir_uv[1].abs() * bitangent.norm();
    if w.norm().is_nan() || w.norm() <= 1e-12 * scale {
        return None;
    }
    Some(w.normalize())
}

#[cfg(test)]
mod tests {
    use super::*;
    use image::{ImageBuffer, Rgb, Rgba};
    use nalgebra::Rotation3;

    /// Round-off of a few flops on O(1) values (sample: weights, atan2, sin_cos, sqrt).
    const ROUND_OFF: f64 = 1e-14;

    fn close(a: [f64; 2], b: [f64; 2], tol: f64) -> bool {
        (a[0] - b[0]).abs() <= tol && (a[1] - b[1]).abs() <= tol
    }

    #[test]
    fn uniform_8_and_16_bit_pngs_decode_to_the_stored_direction() {
        let dir = tempfile::tempdir().unwrap();
        // 8-bit (255, 0): d = (1, -1) exactly.
        let p8 = dir.path().join("u8.png");
        ImageBuffer::from_pixel(4, 3, Rgb([255u8, 0, 77])).save(&p8).unwrap();
        // 16-bit RGBA, alpha ignored: (49151, 16384) -> (2*49151/65535 - 1, 2*16384/65535 - 1).
        let p16 = dir.path().join("u16.png");
        ImageBuffer::from_pixel(5, 2, Rgba([49151u16, 16384, 0, 1000])).save(&p16).unwrap();
        let t8 = StructureTexture::load(&p8).unwrap();
        let t16 = StructureTexture::load(&p16).unwrap();
        assert_eq!((t8.width(), t8.height()), (4, 3));
        let want16 = [2.0 * 49151.0 / 65535.0 - 1.0, 2.0 * 16384.0 / 65535.0 - 1.0];
        for uv in [[0.0, 0.0], [0.3, 0.7], [0.999, 0.5], [-2.25, 13.5]] {
            assert!(close(t8.sample(uv), [1.0, -1.0], ROUND_OFF), "{uv:?}");
            assert!(close(t16.sample(uv), want16, ROUND_OFF), "{uv:?}");
        }
        // The 8-bit neutral colour is below the no-structure threshold; one step off it is too.
        let grey = dir.path().join("grey.png");
        ImageBuffer::from_pixel(1, 1, Rgb([128u8, 127, 0])).save(&grey).unwrap();
        let d = StructureTexture::load(&grey).unwrap().sample([0.5, 0.5]);
        assert!(d[0].hypot(d[1]) < MIN_STRUCTURE_MAGNITUDE);
    }

    #[test]
    fn gradient_is_bilinear_with_bottom_row_at_v0_and_repeat_wrap() {
        // 4 x 2 image. Red ramps with the column (0, 85, 170, 255 -> d_u = -1, -1/3, 1/3, 1);
        // green is 255 in the image's top row and 0 in its bottom row (d_v = 1 at the top).
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("ramp.png");
        ImageBuffer::from_fn(4, 2, |x, y| Rgb([(85 * x) as u8, if y == 0 { 255u8 } else { 0 }, 0]))
            .save(&path)
            .unwrap();
        let t = StructureTexture::load(&path).unwrap();
        // Texel centres: u = 1/8, 3/8, 5/8, 7/8; v = 1/4 (bottom row), 3/4 (top row).
        assert!(close(t.sample([0.125, 0.25]), [-1.0, -1.0], ROUND_OFF));
        assert!(close(t.sample([0.875, 0.75]), [1.0, 1.0], ROUND_OFF));
        // Halfway between columns 1 and 2 of the bottom row: the axes (-1/3, -1) and (1/3, -1)
        // blend to the v axis, with length sqrt(8/9) (the doubled-angle blend (-8/9, 0)).
        let d = t.sample([0.5, 0.25]);
        assert!(close(d, [0.0, -(8.0f64 / 9.0).sqrt()], ROUND_OFF), "{d:?}");
        // Halfway between the rows in column 1: (-1/3, -1) and (-1/3, 1) are both near the v
        // axis, and so is their blend (linear filtering of d would give the u axis instead).
        let m = t.sample([0.375, 0.5]);
        assert!(close([m[0], m[1].abs()], [0.0, (8.0f64 / 9.0).sqrt()], ROUND_OFF), "{m:?}");
        // Repeat wrap: u = 0 is halfway between column 3 and column 0 of a row: (1, -1) and
        // (-1, -1) are perpendicular axes, no axis dominates, and the blend is zero (no
        // structure). An eighth of a texel further in, column 0 has weight 5/8: its axis, with
        // the length sqrt(5/8 - 3/8) of the doubled-angle blend.
        assert!(close(t.sample([0.0, 0.25]), [0.0, 0.0], ROUND_OFF));
        assert_eq!(t.sample([1.0, 0.25]), t.sample([0.0, 0.25]));
        let w = t.sample([1.0 / 32.0, 0.25]);
        assert_eq!(t.sample([-3.0 + 1.0 / 32.0, 5.25]), w);
        assert!(close(w, [-0.5, -0.5], ROUND_OFF), "{w:?}");
        assert_eq!(t.sample([f64::NAN, 0.0]), [0.0, 0.0]);
    }

    #[test]
    fn opposite_signs_blend_to_the_common_axis_not_to_zero() {
        let t = StructureTexture::from_directions(2, 1, vec![[1.0, 0.0], [-1.0, 0.0]]).unwrap();
        // Halfway between the two texel centres (u = 0.5): plain linear filtering would give 0.
        let d = t.sample([0.5, 0.5]);
        assert!(close([d[0].abs(), d[1]], [1.0, 0.0], ROUND_OFF), "{d:?}");
        // Unit directions 45 degrees apart blend to their bisector, as linear filtering does.
        let h = std::f64::consts::FRAC_1_SQRT_2;
        let t = StructureTexture::from_directions(2, 1, vec![[1.0, 0.0], [h, h]]).unwrap();
        let d = t.sample([0.5, 0.5]);
        assert!((d[1].atan2(d[0]) - std::f64::consts::FRAC_PI_8).abs() < ROUND_OFF, "{d:?}");
        // Perpendicular axes: no axis dominates, so no structure.
        let t = StructureTexture::from_directions(2, 1, vec![[1.0, 0.0], [0.0, 1.0]]).unwrap();
        assert!(close(t.sample([0.5, 0.5]), [0.0, 0.0], ROUND_OFF));
    }

    #[test]
    fn palette_png_decodes_through_its_palette() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("pal.png");
        let file = std::fs::File::create(&path).unwrap();
        let mut enc = png::Encoder::new(std::io::BufWriter::new(file), 2, 1);
        enc.set_color(png::ColorType::Indexed);
        enc.set_depth(png::BitDepth::Eight);
        enc.set_palette(vec![255, 128, 0, 128, 255, 0]);
        enc.write_header().unwrap().write_image_data(&[1, 0]).unwrap();
        let t = StructureTexture::load(&path).unwrap();
        let g = 2.0 * 128.0 / 255.0 - 1.0;
        assert!(close(t.texel(0, 0), [g, 1.0], ROUND_OFF));
        assert!(close(t.texel(1, 0), [1.0, g], ROUND_OFF));
    }

    #[test]
    fn load_errors_name_the_file_and_the_reason() {
        let dir = tempfile::tempdir().unwrap();
        let missing = dir.path().join("none.png");
        let e = StructureTexture::load(&missing).unwrap_err();
        assert!(matches!(e, TextureError::Io { .. }));
        assert!(e.to_string().starts_with(&format!("cannot read structure texture '{}': ", missing.display())));
        let jpeg = dir.path().join("grain.png");
        std::fs::write(&jpeg, [0xFF, 0xD8, 0xFF, 0xE0, 0, 0x10, b'J', b'F', b'I', b'F']).unwrap();
        assert_eq!(
            StructureTexture::load(&jpeg).unwrap_err().to_string(),
            format!(
                "structure texture '{}' is not a PNG file (it looks like a Jpeg image); structure directions \
                 are read from PNG images (red: component along u, green: component along v, 128 = zero)",
                jpeg.display()
            )
        );
        let text = dir.path().join("notes.png");
        std::fs::write(&text, "hello").unwrap();
        assert!(
            StructureTexture::load(&text).unwrap_err().to_string().contains("does not start with the PNG signature")
        );
        let empty = dir.path().join("empty.png");
        std::fs::write(&empty, "").unwrap();
        assert!(StructureTexture::load(&empty).unwrap_err().to_string().contains("(the file is empty)"));
        // A PNG cut short after its header.
        let good = dir.path().join("good.png");
        ImageBuffer::from_pixel(8, 8, Rgb([1u8, 2, 3])).save(&good).unwrap();
        let bytes = std::fs::read(&good).unwrap();
        let cut = dir.path().join("cut.png");
        std::fs::write(&cut, &bytes[..40]).unwrap();
        let e = StructureTexture::load(&cut).unwrap_err();
        assert!(matches!(e, TextureError::Decode { .. }), "{e}");
        assert!(
            e.to_string().starts_with(&format!("structure texture '{}' could not be decoded as PNG: ", cut.display()))
        );
        assert!(StructureTexture::from_directions(2, 2, vec![[0.0; 2]; 3]).is_err());
        assert!(StructureTexture::from_directions(1, 1, vec![[f64::NAN, 0.0]]).is_err());
    }

    #[test]
    fn uv_directions_map_onto_a_rotated_triangle() {
        // Triangle in the xy-plane with UVs stretched (u over 2 m, v over 0.5 m) and mirrored in
        // v, then rotated arbitrarily: dP/du and dP/dv must be the rotated (2, 0, 0) and (0, -0.5, 0).
        let rot = Rotation3::new(Vector3::new(0.3, -1.1, 0.7));
        let flat = [Vector3::new(0.0, 0.0, 0.0), Vector3::new(2.0, 0.0, 0.0), Vector3::new(0.0, 0.5, 0.0)];
        let corners = flat.map(|p| rot * p + Vector3::new(5.0, -1.0, 2.0));
        let uvs = [[0.0, 1.0], [1.0, 1.0], [0.0, 0.0]];
        let (t, b) = uv_gradients(&corners, &uvs).unwrap();
        // Round-off of the 2x2 solve on O(1) data, magnified by the offset translation (5 m).
        assert!((t - rot * Vector3::new(2.0, 0.0, 0.0)).norm() < 1e-14 * 10.0);
        assert!((b - rot * Vector3::new(0.0, -0.5, 0.0)).norm() < 1e-14 * 10.0);
        // The UV direction (1, 1) is the world direction (2, -0.5) / |.| (not (1, -1)/sqrt 2:
        // the stretch is honoured).
        let w = uv_direction_to_world(&corners, &uvs, [1.0, 1.0]).unwrap();
        let want = (rot * Vector3::new(2.0, -0.5, 0.0)).normalize();
        assert!((w - want).norm() < 1e-14 * 10.0, "{w} vs {want}");
        let normal = rot * Vector3::z();
        assert!(w.dot(&normal).abs() < 1e-14 * 10.0);
        // Degenerate inputs give no direction.
        assert!(uv_direction_to_world(&corners, &uvs, [0.0, 0.0]).is_none());
        assert!(uv_direction_to_world(&corners, &[[0.0, 0.0], [1.0, 1.0], [2.0, 2.0]], [1.0, 0.0]).is_none());
        assert!(uv_direction_to_world(&corners, &[[0.3, 0.3]; 3], [1.0, 0.0]).is_none());
        let line = [Vector3::zeros(), Vector3::x(), Vector3::x() * 2.0];
        assert!(uv_direction_to_world(&line, &uvs, [1.0, 0.0]).is_none());
        // Through a texture: uniform (1, 0) in UV space is +dP/du on the surface; neutral grey is None.
        let tex = StructureTexture::from_directions(1, 1, vec![[1.0, 0.0]]).unwrap();
        let s = tex.structure_at(&corners, &uvs, [0.2, 0.3, 0.5]).unwrap();
        assert!((s - rot * Vector3::x()).norm() < 1e-14 * 10.0);
        let grey = StructureTexture::from_directions(1, 1, vec![[0.0055, 0.0]]).unwrap();
        assert!(grey.structure_at(&corners, &uvs, [0.2, 0.3, 0.5]).is_none());
    }
}
