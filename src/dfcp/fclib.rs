//! FCLib problem files: reading the HDF5 layout (`hdf5-pure`) and the plain-text copies, and
//! writing both, plus solution files in the text format `fclib_tools.py check` reads.
//!
//! HDF5 layout (see `shared/fclib/README.md`): `/fclib_local/{spacedim, W/{m,n,nz,nzmax,p,i,x},
//! vectors/{q,mu}}` or `/fclib_global/{spacedim, M/.., H/.., vectors/{f,w,mu}}`. Matrices copy
//! CSparse's `cs`: `nz == -2` CSR, `nz == -1` CSC, `nz >= 0` triplets with `i` = row, `p` = column.

use super::problem::{Csc, GlobalProblem, LocalProblem};
use crate::friction::cone::Cone;
use anyhow::{Context, Result, anyhow, bail};
use faer::sparse::Triplet;
use std::collections::HashMap;
use std::fmt::Write as _;
use std::path::Path;

/// A problem read from an FCLib file.
#[derive(Clone, Debug)]
pub enum FclibProblem {
    Local(LocalProblem),
    Global(GlobalProblem),
}

impl FclibProblem {
    pub fn nc(&self) -> usize {
        match self {
            FclibProblem::Local(p) => p.nc(),
            FclibProblem::Global(p) => p.nc(),
        }
    }
}

fn cones_from_mu(mu: &[f64]) -> Result<Vec<Cone>> {
    mu.iter().enumerate().map(|(c, &m)| Cone::isotropic(m).with_context(|| format!("contact {c}"))).collect()
}

fn csc_from_triplets(m: usize, n: usize, t: &[Triplet<usize, usize, f64>], name: &str) -> Result<Csc> {
    Csc::try_new_from_triplets(m, n, t).map_err(|e| anyhow!("matrix {name}: cannot build sparse matrix: {e:?}"))
}

/// Read a problem from `.hdf5`/`.h5` (HDF5) or any other extension (text copy).
pub fn read_problem(path: &Path) -> Result<FclibProblem> {
    let is_hdf5 = std::fs::read(path)
        .with_context(|| format!("cannot read {}", path.display()))?
        .starts_with(b"\x89HDF\r\n\x1a\n");
    let p = if is_hdf5 { read_hdf5(path) } else { read_text_problem(path) };
    p.with_context(|| format!("reading FCLib problem {}", path.display()))
}

// ---------------------------------------------------------------- HDF5

fn h5_i32(file: &hdf5_pure::File, path: &str) -> Result<Vec<i32>> {
    let d = file.dataset(path).map_err(|e| anyhow!("missing dataset {path}: {e}"))?;
    d.read_i32().map_err(|e| anyhow!("dataset {path} is not int32: {e}"))
}

fn h5_f64(file: &hdf5_pure::File, path: &str) -> Result<Vec<f64>> {
    let d = file.dataset(path).map_err(|e| anyhow!("missing dataset {path}: {e}"))?;
    d.read_f64().map_err(|e| anyhow!("dataset {path} is not float64: {e}"))
}

fn h5_scalar(file: &hdf5_pure::File, path: &str) -> Result<i64> {
    h5_i32(file, path)?.first().map(|&v| v as i64).ok_or_else(|| anyhow!("dataset {path} is empty"))
}

fn idx(v: i32, bound: usize, what: &str) -> Result<usize> {
    if v < 0 || v as usize >= bound {
        bail!("{what} index {v} out of range 0..{bound}");
    }
    Ok(v as usize)
}

fn h5_matrix(file: &hdf5_pure::File, g: &str, name: &'static str) -> Result<Csc> {
    let m = h5_scalar(file, &format!("{g}/m"))?;
    let n = h5_scalar(file, &format!("{g}/n"))?;
    let nz = h5_scalar(file, &format!("{g}/nz"))?;
    if m < 0 || n < 0 {
        bail!("matrix {name}: negative size {m}x{n}");
    }
    let (m, n) = (m as usize, n as usize);
    let p = h5_i32(file, &format!("{g}/p"))?;
    let i = h5_i32(file, &format!("{g}/i"))?;
    let x = h5_f64(file, &format!("{g}/x"))?;
    let mut t = Vec::new();
    match nz {
        nz if nz >= 0 => {
            let nz = nz as usize;
            if p.len() < nz || i.len() < nz || x.len() < nz {
                bail!("matrix {name}: triplet arrays shorter than nz = {nz}");
            }
            for k in 0..nz {
                t.push(Triplet::new(idx(i[k], m, "row")?, idx(p[k], n, "column")?, x[k]));
            }
        }
        -1 | -2 => {
            let (outer, inner) = if nz == -1 { (n, m) } else { (m, n) };
            if p.len() != outer + 1 {
                bail!("matrix {name}: pointer array has {} entries, expected {}", p.len(), outer + 1);
            }
            for o in 0..outer {
                let (a, b) = (p[o], p[o + 1]);
                if a < 0 || b < a || b as usize > i.len().min(x.len()) {
                    bail!("matrix {name}: corrupt pointer array at {o}");
                }
                for k in a as usize..b as usize {
                    let inn = idx(i[k], inner, "index")?;
                    let (r, c) = if nz == -1 { (inn, o) } else { (o, inn) };
                    t.push(Triplet::new(r, c, x[k]));
                }
            }
        }
        other => bail!("matrix {name}: unknown storage nz = {other}"),
    }
    csc_from_triplets(m, n, &t, name)
}

fn read_hdf5(path: &Path) -> Result<FclibProblem> {
    let file = hdf5_pure::File::open(path).map_err(|e| anyhow!("not a readable HDF5 file: {e}"))?;
    let spacedim_ok = |g: &str| -> Result<()> {
        let s = h5_scalar(&file, &format!("{g}/spacedim"))?;
        if s != 3 {
            bail!("spacedim {s} is not supported (only 3)");
        }
        Ok(())
    };
    if file.dataset("/fclib_local/spacedim").is_ok() {
        spacedim_ok("/fclib_local")?;
        let w = h5_matrix(&file, "/fclib_local/W", "W")?;
        let q = h5_f64(&file, "/fclib_local/vectors/q")?;
        let mu = h5_f64(&file, "/fclib_local/vectors/mu")?;
        return Ok(FclibProblem::Local(LocalProblem::new(w, q, cones_from_mu(&mu)?)?));
    }
    if file.dataset("/fclib_global/spacedim").is_ok() {
        spacedim_ok("/fclib_global")?;
        let m = h5_matrix(&file, "/fclib_global/M", "M")?;
        let h = h5_matrix(&file, "/fclib_global/H", "H")?;
        let f = h5_f64(&file, "/fclib_global/vectors/f")?;
        let w = h5_f64(&file, "/fclib_global/vectors/w")?;
        let mu = h5_f64(&file, "/fclib_global/vectors/mu")?;
        return Ok(FclibProblem::Global(GlobalProblem::new(m, h, f, w, cones_from_mu(&mu)?)?));
    }
    bail!("neither /fclib_local nor /fclib_global found")
}

fn h5_write_matrix(parent: &mut hdf5_pure::GroupBuilder, name: &str, a: &Csc) -> Result<()> {
    let a = a.as_ref();
    let to_i32 = |v: usize| i32::try_from(v).map_err(|_| anyhow!("matrix {name} too large for int32 indices"));
    let p: Vec<i32> = a.symbolic().col_ptr().iter().map(|&v| to_i32(v)).collect::<Result<_>>()?;
    let mut i = Vec::new();
    let mut x = Vec::new();
    for j in 0..a.ncols() {
        for (r, v) in a.row_idx_of_col_raw(j).iter().zip(a.val_of_col(j)) {
            i.push(to_i32(*r)?);
            x.push(*v);
        }
    }
    let mut g = parent.create_group(name);
    g.create_dataset("m").with_i32_data(&[to_i32(a.nrows())?]);
    g.create_dataset("n").with_i32_data(&[to_i32(a.ncols())?]);
    g.create_dataset("nz").with_i32_data(&[-1]);
    g.create_dataset("nzmax").with_i32_data(&[to_i32(x.len())?]);
    g.create_dataset("p").with_i32_data(&p);
    g.create_dataset("i").with_i32_data(&i);
    g.create_dataset("x").with_f64_data(&x);
    parent.add_group(g.finish());
    Ok(())
}

/// Write a problem in the FCLib HDF5 layout (matrices in CSC form, `nz = -1`). Only isotropic
/// cones can be written: FCLib has no field for elliptic ones.
pub fn write_hdf5(path: &Path, p: &FclibProblem) -> Result<()> {
    let mut fb = hdf5_pure::FileBuilder::new();
    let (gname, cones) = match p {
        FclibProblem::Local(l) => ("fclib_local", &l.cones),
        FclibProblem::Global(g) => ("fclib_global", &g.cones),
    };
    let mu = isotropic_mu(cones)?;
    let mut g = fb.create_group(gname);
    g.create_dataset("spacedim").with_i32_data(&[3]);
    let mut vecs = g.create_group("vectors");
    match p {
        FclibProblem::Local(l) => {
            h5_write_matrix(&mut g, "W", &l.w)?;
            vecs.create_dataset("q").with_f64_data(&l.q);
        }
        FclibProblem::Global(gl) => {
            h5_write_matrix(&mut g, "M", &gl.m)?;
            h5_write_matrix(&mut g, "H", &gl.h)?;
            vecs.create_dataset("f").with_f64_data(&gl.f);
            vecs.create_dataset("w").with_f64_data(&gl.w);
        }
    }
    vecs.create_dataset("mu").with_f64_data(&mu);
    g.add_group(vecs.finish());
    fb.add_group(g.finish());
    fb.write(path).map_err(|e| anyhow!("writing {}: {e}", path.display()))
}

fn isotropic_mu(cones: &[Cone]) -> Result<Vec<f64>> {
    cones
        .iter()
        .enumerate()
        .map(|(c, k)| {
            if k.is_isotropic() {
                Ok(k.mu_t)
            } else {
                Err(anyhow!("contact {c} has an elliptic cone: FCLib stores only isotropic mu"))
            }
        })
        .collect()
}

// ---------------------------------------------------------------- text

/// Contents of a text file in the `fclib_tools.py` format.
#[derive(Debug, Default)]
pub struct TextData {
    pub kind: Option<String>,
    pub spacedim: Option<usize>,
    pub nc: Option<usize>,
    pub matrices: HashMap<String, Csc>,
    pub vectors: HashMap<String, Vec<f64>>,
}

fn parse_num<T: std::str::FromStr>(tok: Option<&str>, what: &str, line: usize) -> Result<T> {
    let t = tok.ok_or_else(|| anyhow!("line {line}: missing {what}"))?;
    t.parse::<T>().map_err(|_| anyhow!("line {line}: cannot parse {what} from {t:?}"))
}

/// The largest matrix dimension the text reader accepts (33 M contacts): a column count is
/// allocated as a column-pointer array before any entry is read.
const MAX_TEXT_DIM: usize = 100_000_000;
/// The shortest entry or value line (`0\n`, `0 0 0` is longer).
const MIN_LINE_BYTES: usize = 2;

/// Parse the text format: `kind`, `spacedim`, `nc`, `matrix NAME m n nnz` + `row col value`
/// lines, `vector NAME len` + one value per line; `#` starts a comment.
pub fn parse_text(src: &str) -> Result<TextData> {
    let mut d = TextData::default();
    let mut lines = src
        .lines()
        .enumerate()
        .map(|(k, l)| (k + 1, l.split('#').next().unwrap_or("").trim()))
        .filter(|(_, l)| !l.is_empty());
    while let Some((ln, line)) = lines.next() {
        let mut tok = line.split_whitespace();
        match tok.next() {
            Some("kind") => d.kind = Some(parse_num::<String>(tok.next(), "kind", ln)?),
            Some("spacedim") => d.spacedim = Some(parse_num(tok.next(), "spacedim", ln)?),
            Some("nc") => d.nc = Some(parse_num(tok.next(), "nc", ln)?),
            Some("matrix") => {
                let name: String = parse_num(tok.next(), "matrix name", ln)?;
                let m: usize = parse_num(tok.next(), "row count", ln)?;
                let n: usize = parse_num(tok.next(), "column count", ln)?;
                let nnz: usize = parse_num(tok.next(), "nnz", ln)?;
                if m > MAX_TEXT_DIM || n > MAX_TEXT_DIM {
                    bail!("line {ln}: matrix {name} is {m}x{n}; at most {MAX_TEXT_DIM} rows and columns are read");
                }
                // Counts come from the file: reserve no more than its lines can hold.
                let mut t = Vec::with_capacity(nnz.min(src.len() / MIN_LINE_BYTES));
                for _ in 0..nnz {
                    let (l2, e) =
                        lines.next().ok_or_else(|| anyhow!("matrix {name}: file ends before its {nnz} entries"))?;
                    let mut et = e.split_whitespace();
                    let i: usize = parse_num(et.next(), "row", l2)?;
                    let j: usize = parse_num(et.next(), "column", l2)?;
                    let x: f64 = parse_num(et.next(), "value", l2)?;
                    if i >= m || j >= n {
                        bail!("line {l2}: entry ({i}, {j}) outside the {m}x{n} matrix {name}");
                    }
                    t.push(Triplet::new(i, j, x));
                }
                d.matrices.insert(name.clone(), csc_from_triplets(m, n, &t, &name)?);
            }
            Some("vector") => {
                let name: String = parse_num(tok.next(), "vector name", ln)?;
                let len: usize = parse_num(tok.next(), "vector length", ln)?;
                let mut v = Vec::with_capacity(len.min(src.len() / MIN_LINE_BYTES));
                for _ in 0..len {
                    let (l2, e) =
                        lines.next().ok_or_else(|| anyhow!("vector {name}: file ends before its {len} values"))?;
                    v.push(parse_num::<f64>(Some(e), "value", l2)?);
                }
                d.vectors.insert(name, v);
            }
            Some(other) => bail!("line {ln}: unknown keyword {other:?}"),
            None => {}
        }
    }
    Ok(d)
}

fn take_matrix(d: &mut TextData, name: &str) -> Result<Csc> {
    d.matrices.remove(name).ok_or_else(|| anyhow!("matrix {name} missing"))
}
fn take_vector(d: &mut TextData, name: &str) -> Result<Vec<f64>> {
    d.vectors.remove(name).ok_or_else(|| anyhow!("vector {name} missing"))
}

fn read_text_problem(path: &Path) -> Result<FclibProblem> {
    let src = std::fs::read_to_string(path).with_context(|| format!("cannot read {}", path.display()))?;
    let mut d = parse_text(&src)?;
    if let Some(s) = d.spacedim
        && s != 3
    {
        bail!("spacedim {s} is not supported (only 3)");
    }
    let mu = take_vector(&mut d, "mu")?;
    if let Some(nc) = d.nc
        && nc != mu.len()
    {
        bail!("nc = {nc} but mu has {} entries", mu.len());
    }
    let cones = cones_from_mu(&mu)?;
    match d.kind.as_deref() {
        Some("local") => {
            let w = take_matrix(&mut d, "W")?;
            let q = take_vector(&mut d, "q")?;
            Ok(FclibProblem::Local(LocalProblem::new(w, q, cones)?))
        }
        Some("global") => {
            let m = take_matrix(&mut d, "M")?;
            let h = take_matrix(&mut d, "H")?;
            let f = take_vector(&mut d, "f")?;
            let w = take_vector(&mut d, "w")?;
            Ok(FclibProblem::Global(GlobalProblem::new(m, h, f, w, cones)?))
        }
        Some(k) => bail!("unknown kind {k:?} (expected local or global)"),
        None => bail!("missing 'kind' line"),
    }
}

fn write_text_matrix(out: &mut String, name: &str, a: &Csc) {
    let a = a.as_ref();
    let _ = writeln!(out, "matrix {name} {} {} {}   # row col value, 0-based", a.nrows(), a.ncols(), a.compute_nnz());
    for j in 0..a.ncols() {
        for (i, v) in a.row_idx_of_col_raw(j).iter().zip(a.val_of_col(j)) {
            let _ = writeln!(out, "{} {j} {}", i, fmt17(*v));
        }
    }
}

/// `%.17g`-equivalent round-trip formatting (Rust's shortest repr round-trips exactly).
fn fmt17(x: f64) -> String {
    format!("{x:e}")
}

/// Append `vector NAME len` and the values.
pub fn write_text_vector(out: &mut String, name: &str, v: &[f64]) {
    let _ = writeln!(out, "vector {name} {}", v.len());
    for x in v {
        let _ = writeln!(out, "{}", fmt17(*x));
    }
}

/// Write a problem in the text format (isotropic cones only, as FCLib).
pub fn write_text_problem(path: &Path, p: &FclibProblem) -> Result<()> {
    let mut s = String::from("# FCLib problem written by fricsim\n");
    match p {
        FclibProblem::Local(l) => {
            let _ = writeln!(s, "kind local\nspacedim 3\nnc {}", l.nc());
            write_text_matrix(&mut s, "W", &l.w);
            write_text_vector(&mut s, "q", &l.q);
            write_text_vector(&mut s, "mu", &isotropic_mu(&l.cones)?);
        }
        FclibProblem::Global(g) => {
            let _ = writeln!(s, "kind global\nspacedim 3\nnc {}", g.nc());
            write_text_matrix(&mut s, "M", &g.m);
            write_text_matrix(&mut s, "H", &g.h);
            write_text_vector(&mut s, "f", &g.f);
            write_text_vector(&mut s, "w", &g.w);
            write_text_vector(&mut s, "mu", &isotropic_mu(&g.cones)?);
        }
    }
    std::fs::write(path, s).with_context(|| format!("writing {}", path.display()))
}

/// Write a solution file readable by `fclib_tools.py check` (`r`, `u`, and `v` if global).
pub fn write_solution(path: &Path, header: &str, r: &[f64], u: &[f64], v: Option<&[f64]>) -> Result<()> {
    let mut s = String::new();
    for l in header.lines() {
        let _ = writeln!(s, "# {l}");
    }
    write_text_vector(&mut s, "r", r);
    write_text_vector(&mut s, "u", u);
    if let Some(v) = v {
        write_text_vector(&mut s, "v", v);
    }
    std::fs::write(path, s).with_context(|| format!("writing {}", path.display()))
}

/// Read the vectors of a solution/reference file.
pub fn read_vectors(path: &Path) -> Result<HashMap<String, Vec<f64>>> {
    let src = std::fs::read_to_string(path).with_context(|| format!("cannot read {}", path.display()))?;
    Ok(parse_text(&src).with_context(|| format!("parsing {}", path.display()))?.vectors)
}
