//! Scene errors: one line per problem, `file[:line:col]: field path [= value]: message`.
//!
//! Every error about a scene (parse, `--set`, validation, and problems found later while building
//! the model) goes through this type so that they all look alike and name the file, the place,
//! the field, the offending value and what is allowed (DESIGN.md, principle 8).

use std::fmt;
use std::path::Path;

/// One problem in a scene.
#[derive(Debug, Clone, PartialEq)]
pub struct Problem {
    /// Where the problem comes from: the scene file as the user named it, or `--set PATH=VALUE`.
    pub origin: String,
    /// 1-based line and column (in characters) in `origin`, when known.
    pub line_col: Option<(usize, usize)>,
    /// Field path such as `bodies[0].mesh.size` or `materials."rubber".poisson_ratio`; empty when
    /// the problem is not about one field (e.g. a syntax error before the first field).
    pub path: String,
    /// The offending value as written (RON), when there is one.
    pub value: Option<String>,
    /// What is wrong and what is allowed.
    pub message: String,
}

impl fmt::Display for Problem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.origin)?;
        if let Some((line, col)) = self.line_col {
            write!(f, ":{line}:{col}")?;
        }
        write!(f, ": ")?;
        if !self.path.is_empty() {
            write!(f, "{}", self.path)?;
            if let Some(v) = &self.value {
                write!(f, " = {v}")?;
            }
            write!(f, ": ")?;
        }
        write!(f, "{}", self.message)
    }
}

/// One or more problems in a scene; `Display` prints one line per problem.
#[derive(Debug, Clone, PartialEq)]
pub struct SceneError {
    problems: Vec<Problem>,
}

impl SceneError {
    /// An error made of several problems; an empty list is given a generic problem so that an
    /// error is never silent.
    pub fn new(mut problems: Vec<Problem>) -> SceneError {
        if problems.is_empty() {
            problems.push(Problem {
                origin: "scene".into(),
                line_col: None,
                path: String::new(),
                value: None,
                message: "invalid scene".into(),
            });
        }
        SceneError { problems }
    }

    pub fn single(problem: Problem) -> SceneError {
        SceneError { problems: vec![problem] }
    }

    pub fn problems(&self) -> &[Problem] {
        &self.problems
    }
}

impl fmt::Display for SceneError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, p) in self.problems.iter().enumerate() {
            if i > 0 {
                writeln!(f)?;
            }
            write!(f, "{p}")?;
        }
        Ok(())
    }
}

impl std::error::Error for SceneError {}

/// An error about `field_path` of the scene `file`, for problems found after loading (e.g. a mesh
/// file that exists but cannot be read): `file: field_path: message`.
pub fn error_at(file: &Path, field_path: &str, message: impl Into<String>) -> SceneError {
    SceneError::single(Problem {
        origin: file.display().to_string(),
        line_col: None,
        path: field_path.to_string(),
        value: None,
        message: message.into(),
    })
}

/// Lines and columns (1-based, columns counted in characters like ron does) of byte offsets.
pub(crate) fn line_col(src: &str, byte: usize) -> (usize, usize) {
    let byte = byte.min(src.len());
    // Step back to a char boundary so slicing cannot panic on a multi-byte character.
    let mut b = byte;
    while b > 0 && !src.is_char_boundary(b) {
        b -= 1;
    }
    let before = &src[..b];
    let line = 1 + before.matches('\n').count();
    let line_start = before.rfind('\n').map_or(0, |i| i + 1);
    let col = 1 + before[line_start..].chars().count();
    (line, col)
}

/// Byte offset of a 1-based (line, column-in-chars) position; clamped to the source.
pub(crate) fn byte_of(src: &str, line: usize, col: usize) -> usize {
    let mut offset = 0;
    for (i, l) in src.split_inclusive('\n').enumerate() {
        if i + 1 == line {
            let in_line = l.char_indices().nth(col.saturating_sub(1)).map_or(l.len(), |(b, _)| b);
            return offset + in_line;
        }
        offset += l.len();
    }
    src.len()
}

/// Closest candidate to `word` by edit distance, if it is close enough to be a likely typo.
pub(crate) fn did_you_mean<'a>(word: &str, candidates: impl IntoIterator<Item = &'a str>) -> Option<&'a str> {
    let mut best: Option<(usize, &str)> = None;
    for c in candidates {
        let d = edit_distance(word, c);
        if best.is_none_or(|(bd, _)| d < bd) {
            best = Some((d, c));
        }
    }
    // Allow roughly one edit per three characters: catches typos, not unrelated names.
    best.filter(|&(d, c)| d > 0 && d <= 1 + c.chars().count() / 3).map(|(_, c)| c)
}

fn edit_distance(a: &str, b: &str) -> usize {
    let a: Vec<char> = a.chars().collect();
    let b: Vec<char> = b.chars().collect();
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.iter().enumerate() {
        let mut cur = vec![i + 1; b.len() + 1];
        for (j, cb) in b.iter().enumerate() {
            let sub = prev[j] + usize::from(ca != cb);
            cur[j + 1] = sub.min(prev[j + 1] + 1).min(cur[j] + 1);
        }
        prev = cur;
    }
    prev[b.len()]
}
