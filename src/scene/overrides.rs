//! `--set PATH=VALUE` overrides, applied in order before validation.
//!
//! The typed scene goes to a `serde_json::Value`, the path is walked there, the RON value is
//! converted to JSON and put in place, and the JSON goes back to a typed `Scene` after each
//! override so that a type error is blamed on the override that caused it. Enum variants are
//! transparent in paths (`bodies[0].mesh.size` reaches into `Box(size: ..)`), which works because
//! serde encodes a variant as a one-key object whose key is the CamelCase variant name, while
//! struct fields are snake_case and the only map (`materials`) is known by position.

use super::error::{Problem, SceneError, did_you_mean};
use super::load::ron_options;
use super::locate::SourceIndex;
use super::schema::Scene;
use serde_json::Value as Json;

/// Parses a RON value into JSON keeping enum variant names. serde's untagged-enum buffering makes
/// ron report variants as one-key maps (`Ball(radius: 1.0)` -> `{"Ball": {"radius": 1.0}}`) and
/// unit variants as strings, which is exactly serde_json's encoding of enums.
#[derive(serde::Deserialize)]
#[serde(untagged)]
enum AnyJson {
    V(Json),
}

#[derive(Debug, Clone, PartialEq)]
enum Seg {
    Key(String),
    Index(usize),
}

/// Applies the overrides in order. Returns the scene and, for each override, the field path it
/// set (as shown in messages) and the argument as given.
pub fn apply(scene: Scene, overrides: &[String]) -> Result<(Scene, Vec<(String, String)>), SceneError> {
    if overrides.is_empty() {
        return Ok((scene, Vec::new()));
    }
    let fail = |arg: &str, message: String| {
        SceneError::single(Problem {
            origin: format!("--set {arg}"),
            line_col: None,
            path: String::new(),
            value: None,
            message,
        })
    };
    let mut json =
        serde_json::to_value(&scene).map_err(|e| fail("", format!("internal error converting the scene: {e}")))?;
    let mut scene = scene;
    let mut set = Vec::new();
    for arg in overrides {
        let Some((path_text, value_text)) = arg.split_once('=') else {
            return Err(fail(arg, "expected PATH=VALUE, e.g. --set friction.pairs[0].mu=0.2".into()));
        };
        let (path_text, value_text) = (path_text.trim(), value_text.trim());
        let segs = parse_path(path_text).map_err(|m| fail(arg, m))?;
        let new = parse_value(value_text).map_err(|m| fail(arg, m))?;
        let (slot, shown) = walk(&mut json, &segs, String::new(), false, None).map_err(|m| fail(arg, m))?;
        *slot = new;
        scene = serde_json::from_value(json.clone()).map_err(|e| fail(arg, friendly(&e.to_string())))?;
        set.push((shown, arg.clone()));
    }
    Ok((scene, set))
}

/// `friction.pairs[0].mu`, `materials.rubber.density`, `materials."my rubber".density`.
fn parse_path(text: &str) -> Result<Vec<Seg>, String> {
    let bad = |why: &str| {
        format!("bad path `{text}`: {why}; paths look like `friction.pairs[0].mu` or `materials.rubber.density`")
    };
    let chars: Vec<char> = text.chars().collect();
    let mut segs = Vec::new();
    let mut i = 0;
    let mut expect_key = true;
    while i < chars.len() {
        match chars[i] {
            '[' => {
                let close = chars[i..].iter().position(|&c| c == ']').ok_or_else(|| bad("missing `]`"))? + i;
                let digits: String = chars[i + 1..close].iter().collect();
                let n = digits.trim().parse::<usize>().map_err(|_| bad("an index must be a whole number >= 0"))?;
                segs.push(Seg::Index(n));
                i = close + 1;
                expect_key = false;
            }
            '.' if !expect_key => {
                i += 1;
                expect_key = true;
            }
            '"' if expect_key => {
                let close =
                    chars[i + 1..].iter().position(|&c| c == '"').ok_or_else(|| bad("missing closing `\"`"))? + i + 1;
                segs.push(Seg::Key(chars[i + 1..close].iter().collect()));
                i = close + 1;
                expect_key = false;
            }
            _ if expect_key => {
                let len = chars[i..].iter().position(|&c| c == '.' || c == '[').unwrap_or(chars.len() - i);
                if len == 0 {
                    return Err(bad("empty field name"));
                }
                segs.push(Seg::Key(chars[i..i + len].iter().collect::<String>().trim().to_string()));
                i += len;
                expect_key = false;
            }
            c => return Err(bad(&format!("unexpected `{c}`"))),
        }
    }
    if segs.is_empty() || expect_key {
        return Err(bad("empty field name"));
    }
    Ok(segs)
}

fn parse_value(text: &str) -> Result<Json, String> {
    if let Err(e) = ron_options().from_str::<ron::Value>(text) {
        return Err(format!("`{text}` is not a valid RON value ({}: {})", e.span.start.col, e.code));
    }
    // Reject NaN and infinities here: in JSON they would become null, i.e. `None`.
    if SourceIndex::scan(text).nonfinite().next().is_some() {
        return Err("values must be finite numbers (NaN and infinity are not allowed)".into());
    }
    match ron_options().from_str::<AnyJson>(text) {
        Ok(AnyJson::V(v)) => Ok(v),
        Err(e) => Err(format!("`{text}` is not a valid value: {}", e.code)),
    }
}

fn is_variant(map: &serde_json::Map<String, Json>) -> Option<&str> {
    let mut keys = map.keys();
    match (keys.next(), keys.next()) {
        (Some(k), None) if k.starts_with(|c: char| c.is_ascii_uppercase()) => Some(k.as_str()),
        _ => None,
    }
}

fn join(shown: &str, key: &str) -> String {
    if shown.is_empty() { key.to_string() } else { format!("{shown}.{key}") }
}

/// One step of the walk, decided on a shared borrow and then taken on the mutable one.
enum Step {
    Key { key: String, shown: String, is_map: bool, variant: Option<String>, consume: bool, insert: bool },
    Index { index: usize, shown: String },
}

/// Finds the value at `segs` below `node` (shown as `shown`); `is_map` marks the materials map.
fn walk<'a>(
    node: &'a mut Json,
    segs: &[Seg],
    shown: String,
    is_map: bool,
    variant: Option<String>,
) -> Result<(&'a mut Json, String), String> {
    let Some((seg, rest)) = segs.split_first() else {
        return Ok((node, shown));
    };
    let step = decide(node, seg, rest.is_empty(), &shown, is_map, variant)?;
    match step {
        Step::Key { key, shown, is_map, variant, consume, insert } => {
            let Json::Object(map) = node else {
                return Err("internal error: expected an object".into());
            };
            if insert {
                // Setting a whole new entry of the materials map adds a material.
                map.insert(key.clone(), Json::Null);
            }
            let next = map.get_mut(&key).ok_or_else(|| format!("no field `{key}`"))?;
            walk(next, if consume { rest } else { segs }, shown, is_map, variant)
        }
        Step::Index { index, shown } => {
            let Json::Array(items) = node else {
                return Err("internal error: expected a list".into());
            };
            let next = items.get_mut(index).ok_or_else(|| format!("no element [{index}]"))?;
            walk(next, rest, shown, false, None)
        }
    }
}

fn decide(
    node: &Json,
    seg: &Seg,
    last: bool,
    shown: &str,
    is_map: bool,
    variant: Option<String>,
) -> Result<Step, String> {
    let here = if shown.is_empty() { "the scene".to_string() } else { format!("`{shown}`") };
    match node {
        Json::Object(map) if is_map => match seg {
            Seg::Key(k) => {
                let insert = !map.contains_key(k);
                if insert && !last {
                    let names: Vec<String> = map.keys().map(|n| format!("{n:?}")).collect();
                    let hint = did_you_mean(k, map.keys().map(String::as_str))
                        .map(|s| format!(" (did you mean {s:?}?)"))
                        .unwrap_or_default();
                    return Err(format!("no entry {k:?} in `{shown}`{hint}; entries: {}", names.join(", ")));
                }
                Ok(Step::Key {
                    key: k.clone(),
                    shown: format!("{shown}.{k:?}"),
                    is_map: false,
                    variant: None,
                    consume: true,
                    insert,
                })
            }
            Seg::Index(_) => Err(format!("`{shown}` is a map from names; use `{shown}.NAME`")),
        },
        Json::Object(map) => {
            let variant_here = is_variant(map).map(str::to_string);
            if let Seg::Key(k) = seg
                && map.contains_key(k)
            {
                // Naming the variant itself (`mesh.Box.size`) is allowed and not shown.
                let child = if variant_here.is_some() { shown.to_string() } else { join(shown, k) };
                return Ok(Step::Key {
                    key: k.clone(),
                    shown: child,
                    is_map: shown.is_empty() && k == "materials",
                    variant: variant_here,
                    consume: true,
                    insert: false,
                });
            }
            if let Some(v) = variant_here {
                return Ok(Step::Key {
                    key: v.clone(),
                    shown: shown.to_string(),
                    is_map: false,
                    variant: Some(v),
                    consume: false,
                    insert: false,
                });
            }
            let fields: Vec<&str> = map.keys().map(String::as_str).collect();
            let kind = variant.map(|v| format!(" (a `{v}`)")).unwrap_or_default();
            match seg {
                Seg::Key(k) => {
                    let hint = did_you_mean(k, fields.iter().copied())
                        .map(|s| format!(" (did you mean `{s}`?)"))
                        .unwrap_or_default();
                    Err(format!("no field `{k}` in {here}{kind}{hint}; fields: {}", fields.join(", ")))
                }
                Seg::Index(i) => {
                    Err(format!("{here}{kind} is not a list, `[{i}]` does not apply; fields: {}", fields.join(", ")))
                }
            }
        }
        // `gravity.z` is `gravity[2]`: vectors are (x, y, z) tuples.
        Json::Array(items)
            if items.len() == 3 && matches!(seg, Seg::Key(k) if matches!(k.as_str(), "x" | "y" | "z")) =>
        {
            let index = match seg {
                Seg::Key(k) if k == "x" => 0,
                Seg::Key(k) if k == "y" => 1,
                _ => 2,
            };
            Ok(Step::Index { index, shown: format!("{shown}[{index}]") })
        }
        Json::Array(items) => match seg {
            Seg::Index(i) if *i < items.len() => Ok(Step::Index { index: *i, shown: format!("{shown}[{i}]") }),
            Seg::Index(i) => {
                let n = items.len();
                let name = shown.rsplit(['.', ']']).next().filter(|s| !s.is_empty()).unwrap_or(shown);
                Err(format!("`{name}` has {n} element{} (index {i} is out of range)", if n == 1 { "" } else { "s" }))
            }
            Seg::Key(k) => Err(format!("{here} is a list, not a struct; use an index, e.g. `{shown}[0]`, not `.{k}`")),
        },
        Json::Null => Err(format!("{here} is not set (None); set it as a whole, e.g. `--set {shown}=...`")),
        other => {
            let what = match seg {
                Seg::Key(k) => format!("field `{k}`"),
                Seg::Index(i) => format!("element [{i}]"),
            };
            Err(format!("{here} is a single value ({other}), it has no {what}"))
        }
    }
}

/// serde_json's type errors in plain words.
fn friendly(msg: &str) -> String {
    let msg = msg
        .replace("an array of length 3", "3 values in parentheses, e.g. `(0.0, 0.0, 1.0)`")
        .replace("f64", "a number")
        .replace("usize", "a whole number >= 0");
    if let Some(rest) = msg.strip_prefix("invalid type: ")
        && let Some((found, expected)) = rest.split_once(", expected ")
    {
        return format!("expected {expected}, found {found}");
    }
    msg
}
