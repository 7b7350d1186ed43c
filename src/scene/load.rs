//! Reading a scene: RON parsing with readable errors, `--set` overrides, validation.

use super::error::{Problem, SceneError, byte_of, did_you_mean, line_col};
use super::locate::{SourceIndex, token_at};
use super::schema::Scene;
use super::{overrides, validate};
use ron::error::Error as RonError;
use ron::extensions::Extensions;
use std::path::{Path, PathBuf};

/// A scene read from a file, with `--set` overrides applied and validated.
#[derive(Debug, Clone)]
pub struct LoadedScene {
    /// The scene after overrides, validated.
    pub scene: Scene,
    /// The scene file.
    pub path: PathBuf,
    /// Directory that mesh paths are relative to.
    pub base_dir: PathBuf,
    /// Pretty RON of `scene` (re-loads to the same `Scene`), for `scene.effective.ron`.
    pub effective_ron: String,
}

/// RON extensions of scene files. `IMPLICIT_SOME` lets users write `duration: 2.0` for an
/// `Option`; `UNWRAP_VARIANT_NEWTYPES` lets them write `Solid(name: ..)` and
/// `Penalty(newton: ..)` instead of `Solid((name: ..))` (as in DESIGN.md's sketch). The price is
/// that a vector inside a variant is written `Velocity(0.0, 0.0, 1.0)`, without inner parentheses.
pub fn extensions() -> Extensions {
    Extensions::IMPLICIT_SOME | Extensions::UNWRAP_VARIANT_NEWTYPES
}

pub(crate) fn ron_options() -> ron::Options {
    ron::Options::default().with_default_extension(extensions())
}

/// Pretty RON of a scene that parses back (with [`ron_options`]) to the same scene.
pub fn to_ron(scene: &Scene) -> Result<String, ron::Error> {
    let config = ron::ser::PrettyConfig::default().extensions(extensions());
    ron::ser::to_string_pretty(scene, config)
}

/// Reads, parses, overrides and validates a scene file, refusing one too large for this machine.
pub fn load_scene(path: &Path, overrides: &[String]) -> Result<LoadedScene, SceneError> {
    load_scene_with(path, overrides, false)
}

/// [`load_scene`]; `allow_large` skips the check of the model's memory against the machine's.
pub fn load_scene_with(path: &Path, overrides: &[String], allow_large: bool) -> Result<LoadedScene, SceneError> {
    let origin = path.display().to_string();
    let text = std::fs::read_to_string(path).map_err(|e| {
        SceneError::single(Problem {
            origin: origin.clone(),
            line_col: None,
            path: String::new(),
            value: None,
            message: format!("cannot read the scene file: {e}"),
        })
    })?;
    let base_dir = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => PathBuf::from("."),
    };
    let mut loaded = parse_scene_str_with(&text, &origin, &base_dir, overrides, allow_large)?;
    loaded.path = path.to_path_buf();
    Ok(loaded)
}

/// Same as [`load_scene`] for scene text that has already been read; `origin` names it in errors.
pub fn parse_scene_str(
    text: &str,
    origin: &str,
    base_dir: &Path,
    overrides: &[String],
) -> Result<LoadedScene, SceneError> {
    parse_scene_str_with(text, origin, base_dir, overrides, false)
}

/// [`parse_scene_str`]; `allow_large` skips the check of the model's memory against the machine's.
pub fn parse_scene_str_with(
    text: &str,
    origin: &str,
    base_dir: &Path,
    overrides: &[String],
    allow_large: bool,
) -> Result<LoadedScene, SceneError> {
    let parsed: Scene = ron_options().from_str(text).map_err(|e| SceneError::single(ron_problem(text, origin, &e)))?;
    let index = SourceIndex::scan(text);
    let at = |path: &str| index.offset_of(path).map(|b| line_col(text, b));

    // Non-finite numbers must be caught before overrides: the JSON round trip they go through
    // would turn NaN into null, i.e. silently into `None` for an optional field.
    let nonfinite = validate::nonfinite(&parsed);
    if !nonfinite.is_empty() && !overrides.is_empty() {
        return Err(SceneError::new(
            nonfinite
                .into_iter()
                .map(|i| Problem {
                    origin: origin.into(),
                    line_col: at(&i.path),
                    path: i.path,
                    value: i.value,
                    message: i.message,
                })
                .collect(),
        ));
    }

    let (scene, set_paths) = overrides::apply(parsed, overrides)?;
    let limit = if allow_large { None } else { validate::machine_memory() };
    let issues = validate::validate_with(&scene, base_dir, limit);
    if !issues.is_empty() {
        let problems = issues
            .into_iter()
            .map(|i| {
                // A value that came from `--set` is not where the file says; name the override.
                match set_paths.iter().rev().find(|(p, _)| is_within(&i.path, p)) {
                    Some((_, arg)) => Problem {
                        origin: format!("{origin} (after --set {arg})"),
                        line_col: None,
                        path: i.path,
                        value: i.value,
                        message: i.message,
                    },
                    None => Problem {
                        origin: origin.into(),
                        line_col: at(&i.path),
                        path: i.path,
                        value: i.value,
                        message: i.message,
                    },
                }
            })
            .collect();
        return Err(SceneError::new(problems));
    }
    let effective_ron = to_ron(&scene).map_err(|e| {
        SceneError::single(Problem {
            origin: origin.into(),
            line_col: None,
            path: String::new(),
            value: None,
            message: format!("cannot write the effective scene as RON: {e}"),
        })
    })?;
    Ok(LoadedScene { scene, path: PathBuf::from(origin), base_dir: base_dir.to_path_buf(), effective_ron })
}

/// Whether `path` is `ancestor` or lies below it.
fn is_within(path: &str, ancestor: &str) -> bool {
    ancestor.is_empty()
        || path == ancestor
        || path.strip_prefix(ancestor).is_some_and(|rest| rest.starts_with('.') || rest.starts_with('['))
}

/// Mesh and texture paths are relative to the scene file's directory; absolute paths are kept.
pub fn resolve_path(base_dir: &Path, p: &str) -> PathBuf {
    let joined = base_dir.join(p);
    std::path::absolute(&joined).unwrap_or(joined)
}

/// Turns a ron error into a problem with line:col, the field path and a plain-words message.
fn ron_problem(text: &str, origin: &str, e: &ron::error::SpannedError) -> Problem {
    // ron often reports the position just before a value; point at the value itself.
    let mut byte = byte_of(text, e.span.start.line, e.span.start.col);
    byte += text.get(byte..).map_or(0, |rest| rest.len() - rest.trim_start().len());
    let (line, col) = if byte < text.len() { line_col(text, byte) } else { (e.span.start.line, e.span.start.col) };
    let index = SourceIndex::scan(text);
    let path = index.path_at(byte).unwrap_or("").to_string();
    let found = token_at(text, byte);
    // A scalar is quoted as the field's value; brackets and punctuation only in the message.
    let scalar = found.clone().filter(|t| !t.starts_with(['(', '[', '{', ')', ']', '}', ',', ':']));
    let list = |xs: &[&str]| xs.iter().map(|x| format!("`{x}`")).collect::<Vec<_>>().join(", ");
    let hint = |found: &str, xs: &[&str]| {
        did_you_mean(found, xs.iter().copied()).map(|s| format!(" (did you mean `{s}`?)")).unwrap_or_default()
    };
    let expected = |what: &str| match &found {
        Some(t) => format!("expected {what}, found `{t}`"),
        None => format!("expected {what}, found the end of the file"),
    };
    // For a wrong-type scalar the value is already shown as `path = value`.
    let expected_value = |what: &str| match &scalar {
        Some(t) if t.starts_with('"') => format!("expected {what}, found a string"),
        Some(_) => format!("expected {what}"),
        None if found.as_deref() == Some("(") => format!(
            "{}; a vector inside an enum variant is written without extra parentheses, e.g. `Velocity(0.0, 0.0, 1.0)`",
            expected(what)
        ),
        None => expected(what),
    };
    // ron stops at a float such as `2.5` where a whole number is expected with "expected comma".
    let float_for_int = found.as_deref().is_some_and(|t| t.contains(['.', 'e', 'E']) && t.parse::<f64>().is_ok());
    if matches!(e.code, RonError::ExpectedComma) && float_for_int {
        // ron stops after the integer part (`2|.5`): point at the start of the number.
        let start = text[..byte].trim_end_matches(|c: char| c.is_ascii_digit() || c == '-' || c == '+').len();
        return Problem {
            origin: origin.into(),
            line_col: Some(line_col(text, start)),
            path,
            value: found,
            message: "expected a whole number such as `4` (no decimal point)".into(),
        };
    }
    let (path, value, message) = match &e.code {
        RonError::NoSuchStructField { expected, found, outer } => {
            let inside = outer.as_deref().map(|o| format!(" of `{o}`")).unwrap_or_default();
            (
                path,
                None,
                format!("unknown field `{found}`{}; allowed fields{inside}: {}", hint(found, expected), list(expected)),
            )
        }
        RonError::NoSuchEnumVariant { expected, found, outer } => {
            let of = outer.as_deref().map(|o| format!(" of `{o}`")).unwrap_or_default();
            (
                path,
                None,
                format!("unknown variant `{found}`{of}{}; allowed variants: {}", hint(found, expected), list(expected)),
            )
        }
        RonError::MissingStructField { field, outer } => {
            let inside = outer.as_deref().map(|o| format!(" (in `{o}`)")).unwrap_or_default();
            let field_path = if path.is_empty() { field.to_string() } else { format!("{path}.{field}") };
            (field_path, None, format!("missing required field{inside}"))
        }
        RonError::DuplicateStructField { field, .. } => (path, None, format!("field `{field}` is given twice")),
        RonError::ExpectedFloat => (path, scalar.clone(), expected_value("a number such as `1.0` or `2e-3`")),
        RonError::ExpectedInteger => {
            (path, scalar.clone(), expected_value("a whole number such as `4` (no decimal point)"))
        }
        RonError::IntegerOutOfBounds => {
            (path, scalar.clone(), "integer out of range (whole numbers here must be >= 0 and fit in 64 bits)".into())
        }
        RonError::ExpectedString | RonError::ExpectedStringEnd => {
            (path, scalar.clone(), expected_value("a string in double quotes, e.g. \"rubber\""))
        }
        RonError::ExpectedBoolean => (path, scalar.clone(), expected_value("`true` or `false`")),
        RonError::InvalidValueForType { expected, found } => {
            (path, None, format!("expected {expected}, found {found}"))
        }
        RonError::ExpectedDifferentLength { expected, found } => (
            path,
            None,
            match expected.strip_prefix("an array of length ") {
                Some(n) => format!("expected {n} values in parentheses, e.g. `(0.0, 0.0, 1.0)`, found {found}"),
                None => format!("expected {expected}, found {found} element(s)"),
            },
        ),
        RonError::ExpectedDifferentStructName { expected, found } => {
            (path, None, format!("expected `{expected}`, found `{found}`"))
        }
        RonError::ExpectedStructLike | RonError::ExpectedNamedStructLike(_) => (path, None, expected("`(`")),
        RonError::ExpectedComma => (path, None, syntax(expected("a comma `,` between items (or a closing bracket)"))),
        RonError::ExpectedStructLikeEnd | RonError::ExpectedOptionEnd => {
            (path, None, syntax(expected("`,` or a closing `)`")))
        }
        RonError::ExpectedArrayEnd => (path, None, syntax(expected("`,` or a closing `]`"))),
        RonError::ExpectedMapEnd => (path, None, syntax(expected("`,` or a closing `}`"))),
        RonError::ExpectedMapColon => (path, None, syntax(expected("`:` after the key"))),
        RonError::ExpectedIdentifier => {
            (path, None, syntax(expected("a field or variant name (written without quotes)")))
        }
        RonError::Eof => (path, None, "syntax error: unexpected end of file (an unclosed `(`, `[` or `{`?)".into()),
        RonError::TrailingCharacters => (path, None, syntax("unexpected text after the end of the scene".into())),
        other => (path, None, lowercase_first(&other.to_string())),
    };
    Problem { origin: origin.into(), line_col: Some((line, col)), path, value, message }
}

fn syntax(msg: String) -> String {
    format!("syntax error: {msg}")
}

fn lowercase_first(s: &str) -> String {
    let mut c = s.chars();
    c.next().map(|f| f.to_lowercase().chain(c).collect()).unwrap_or_default()
}
