//! A tolerant structural scan of RON text that maps field paths to source positions.
//!
//! ron reports line:column only for errors it finds while parsing. Problems found later (semantic
//! validation) are about typed values, so to point at the offending line we re-scan the source and
//! record where every value sits under the same path syntax the validator and `--set` use:
//! `a.b`, `list[3]`, `map."key"`, with enum variants transparent (`mesh: Box(size: ..)` gives
//! `mesh.size`) and a variant holding a single value transparent too (`Keyframes([..])` gives
//! `motion[i]`). The scan never fails: on text it does not understand it stops, and lookups fall
//! back to the nearest recorded ancestor.

/// A value found in the source.
#[derive(Debug, Clone)]
pub struct Entry {
    pub path: String,
    /// Byte offset of the field name (for struct fields and map entries) or of the value.
    pub start: usize,
    /// Byte offset one past the end of the value.
    pub end: usize,
    /// The value is a float literal that is NaN or infinite (`NaN`, `inf`, `1e999`).
    pub nonfinite: bool,
}

#[derive(Debug, Default)]
pub struct SourceIndex {
    pub entries: Vec<Entry>,
}

#[derive(Debug, Clone, PartialEq)]
enum Tok {
    Open(char),
    Close(char),
    Comma,
    Colon,
    Ident,
    Str,
    Num,
    Other,
}

#[derive(Debug, Clone)]
struct Token {
    tok: Tok,
    start: usize,
    end: usize,
}

/// Splits RON text into tokens; comments and `#![...]` attributes are skipped.
fn lex(src: &str) -> Vec<Token> {
    let b = src.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < b.len() {
        let c = b[i];
        let start = i;
        let tok = match c {
            _ if c.is_ascii_whitespace() => {
                i += 1;
                continue;
            }
            b'/' if b.get(i + 1) == Some(&b'/') => {
                while i < b.len() && b[i] != b'\n' {
                    i += 1;
                }
                continue;
            }
            b'/' if b.get(i + 1) == Some(&b'*') => {
                // RON block comments nest.
                let mut depth = 0usize;
                while i < b.len() {
                    if b[i] == b'/' && b.get(i + 1) == Some(&b'*') {
                        depth += 1;
                        i += 2;
                    } else if b[i] == b'*' && b.get(i + 1) == Some(&b'/') {
                        depth -= 1;
                        i += 2;
                        if depth == 0 {
                            break;
                        }
                    } else {
                        i += 1;
                    }
                }
                continue;
            }
            b'#' => {
                let mut depth = 0usize;
                while i < b.len() {
                    match b[i] {
                        b'[' => depth += 1,
                        b']' => {
                            depth = depth.saturating_sub(1);
                            if depth == 0 {
                                i += 1;
                                break;
                            }
                        }
                        _ => {}
                    }
                    i += 1;
                }
                continue;
            }
            b'(' | b'[' | b'{' => {
                i += 1;
                Tok::Open(c as char)
            }
            b')' | b']' | b'}' => {
                i += 1;
                Tok::Close(c as char)
            }
            b',' => {
                i += 1;
                Tok::Comma
            }
            b':' => {
                i += 1;
                Tok::Colon
            }
            b'"' => {
                i = skip_string(b, i + 1);
                Tok::Str
            }
            b'r' | b'b' if matches!(b.get(i + 1), Some(b'"') | Some(b'#')) && raw_string_end(b, i).is_some() => {
                i = raw_string_end(b, i).unwrap_or(b.len());
                Tok::Str
            }
            b'\'' => {
                i += 1;
                while i < b.len() && b[i] != b'\'' {
                    i += if b[i] == b'\\' { 2 } else { 1 };
                }
                i = (i + 1).min(b.len());
                Tok::Str
            }
            b'0'..=b'9' | b'+' | b'-' | b'.' => {
                i += 1;
                while i < b.len() {
                    let d = b[i];
                    let exp_sign = (d == b'+' || d == b'-') && matches!(b[i - 1], b'e' | b'E');
                    if d.is_ascii_alphanumeric() || d == b'.' || d == b'_' || exp_sign {
                        i += 1;
                    } else {
                        break;
                    }
                }
                Tok::Num
            }
            _ if c == b'_' || c.is_ascii_alphabetic() || c >= 0x80 => {
                while i < b.len() && (b[i] == b'_' || b[i].is_ascii_alphanumeric() || b[i] >= 0x80 || b[i] == b'#') {
                    i += 1;
                }
                Tok::Ident
            }
            _ => {
                i += 1;
                Tok::Other
            }
        };
        out.push(Token { tok, start, end: i.min(b.len()) });
    }
    out
}

fn skip_string(b: &[u8], mut i: usize) -> usize {
    while i < b.len() && b[i] != b'"' {
        i += if b[i] == b'\\' { 2 } else { 1 };
    }
    (i + 1).min(b.len())
}

/// End of a raw string `r"..."`, `r#"..."#` (or byte string `b"..."`) starting at `i`.
fn raw_string_end(b: &[u8], i: usize) -> Option<usize> {
    if b[i] == b'b' {
        return (b.get(i + 1) == Some(&b'"')).then(|| skip_string(b, i + 2));
    }
    let mut j = i + 1;
    let mut hashes = 0;
    while b.get(j) == Some(&b'#') {
        hashes += 1;
        j += 1;
    }
    if b.get(j) != Some(&b'"') {
        return None;
    }
    j += 1;
    while j < b.len() {
        if b[j] == b'"' && b[j + 1..].iter().take(hashes).filter(|&&h| h == b'#').count() == hashes {
            return Some((j + 1 + hashes).min(b.len()));
        }
        j += 1;
    }
    Some(b.len())
}

/// Whether a number or identifier literal denotes a non-finite float.
fn is_nonfinite_literal(text: &str) -> bool {
    let t = text.trim_start_matches(['+', '-']);
    let t = t.strip_suffix("f64").or_else(|| t.strip_suffix("f32")).unwrap_or(t);
    if t == "inf" || t == "NaN" {
        return true;
    }
    let digits: String = t.chars().filter(|&c| c != '_').collect();
    // Only decimal floats can overflow to infinity; integers and hex are left to ron.
    let looks_float = digits.contains(['.', 'e', 'E']) && !digits.starts_with("0x");
    looks_float && digits.parse::<f64>().is_ok_and(|v| !v.is_finite())
}

struct Scanner<'a> {
    src: &'a str,
    toks: Vec<Token>,
    pos: usize,
    entries: Vec<Entry>,
}

// Deeper nesting than this is not a scene; ron rejects it too (its recursion limit is 128).
const MAX_DEPTH: usize = 200;

impl Scanner<'_> {
    fn peek(&self, k: usize) -> Option<&Tok> {
        self.toks.get(self.pos + k).map(|t| &t.tok)
    }

    fn text(&self, t: &Token) -> &str {
        self.src.get(t.start..t.end).unwrap_or("")
    }

    /// Scans one value at `path`; returns false when the text stops making sense.
    fn value(&mut self, path: &str, key_start: Option<usize>, depth: usize) -> bool {
        let Some(t) = self.toks.get(self.pos).cloned() else {
            return false;
        };
        if depth > MAX_DEPTH {
            return false;
        }
        let idx = self.entries.len();
        self.entries.push(Entry {
            path: path.to_string(),
            start: key_start.unwrap_or(t.start),
            end: t.end,
            nonfinite: false,
        });
        self.pos += 1;
        let ok = match t.tok {
            Tok::Num => {
                self.entries[idx].nonfinite = is_nonfinite_literal(self.text(&t));
                true
            }
            Tok::Str => true,
            Tok::Ident => {
                let name = self.text(&t).to_string();
                if self.peek(0) == Some(&Tok::Open('(')) {
                    self.pos += 1;
                    self.paren_body(path, true, depth)
                } else {
                    self.entries[idx].nonfinite = is_nonfinite_literal(&name);
                    true
                }
            }
            Tok::Open('(') => self.paren_body(path, false, depth),
            Tok::Open('[') => self.seq_body(path, depth),
            Tok::Open('{') => self.map_body(path, depth),
            _ => false,
        };
        let end = self.toks.get(self.pos.saturating_sub(1)).map_or(self.src.len(), |t| t.end);
        self.entries[idx].end = end;
        ok
    }

    /// After `(`: named fields `a: 1, b: 2` or positional elements. `after_name` marks an enum
    /// variant or `Some`, whose single positional element is transparent.
    fn paren_body(&mut self, path: &str, after_name: bool, depth: usize) -> bool {
        if self.peek(0) == Some(&Tok::Ident) && self.peek(1) == Some(&Tok::Colon) {
            return self.fields_body(path, ')', depth);
        }
        let first = self.entries.len();
        let mut n = 0;
        loop {
            if self.peek(0) == Some(&Tok::Close(')')) {
                self.pos += 1;
                break;
            }
            if !self.value(&format!("{path}[{n}]"), None, depth + 1) {
                return false;
            }
            n += 1;
            match self.peek(0) {
                Some(Tok::Comma) => self.pos += 1,
                Some(Tok::Close(')')) => {}
                _ => return false,
            }
        }
        if after_name && n == 1 {
            let inner = format!("{path}[0]");
            for e in &mut self.entries[first..] {
                if let Some(rest) = e.path.strip_prefix(&inner) {
                    e.path = format!("{path}{rest}");
                }
            }
            // The transparent element duplicates its parent's path; drop it so lookups find the
            // outer entry (which spans the variant name too).
            if first < self.entries.len() && self.entries[first].path == path {
                let inner = self.entries.remove(first);
                if let Some(outer) = self.entries[..first].iter_mut().rev().find(|e| e.path == path) {
                    outer.nonfinite |= inner.nonfinite;
                }
            }
        }
        true
    }

    fn fields_body(&mut self, path: &str, close: char, depth: usize) -> bool {
        loop {
            match self.peek(0) {
                Some(Tok::Close(c)) if *c == close => {
                    self.pos += 1;
                    return true;
                }
                Some(Tok::Ident) | Some(Tok::Str) | Some(Tok::Num) => {}
                _ => return false,
            }
            let key = self.toks[self.pos].clone();
            let name = self.text(&key).to_string();
            let child = match (key.tok, path.is_empty()) {
                (Tok::Ident, true) => name,
                (_, true) => name,
                (_, false) => format!("{path}.{name}"),
            };
            self.pos += 1;
            if self.peek(0) != Some(&Tok::Colon) {
                return false;
            }
            self.pos += 1;
            if !self.value(&child, Some(key.start), depth + 1) {
                return false;
            }
            match self.peek(0) {
                Some(Tok::Comma) => self.pos += 1,
                Some(Tok::Close(c)) if *c == close => {}
                _ => return false,
            }
        }
    }

    fn seq_body(&mut self, path: &str, depth: usize) -> bool {
        let mut n = 0;
        loop {
            if self.peek(0) == Some(&Tok::Close(']')) {
                self.pos += 1;
                return true;
            }
            if !self.value(&format!("{path}[{n}]"), None, depth + 1) {
                return false;
            }
            n += 1;
            match self.peek(0) {
                Some(Tok::Comma) => self.pos += 1,
                Some(Tok::Close(']')) => {}
                _ => return false,
            }
        }
    }

    fn map_body(&mut self, path: &str, depth: usize) -> bool {
        self.fields_body(path, '}', depth)
    }
}

impl SourceIndex {
    pub fn scan(src: &str) -> SourceIndex {
        let mut s = Scanner { src, toks: lex(src), pos: 0, entries: Vec::new() };
        s.value("", None, 0);
        SourceIndex { entries: s.entries }
    }

    /// Byte offset of `path`, or of its nearest recorded ancestor.
    pub fn offset_of(&self, path: &str) -> Option<usize> {
        let mut p = path;
        loop {
            if let Some(e) = self.entries.iter().find(|e| e.path == p) {
                return Some(e.start);
            }
            if p.is_empty() {
                return None;
            }
            p = parent(p);
        }
    }

    /// The innermost value whose text contains `byte`.
    pub fn path_at(&self, byte: usize) -> Option<&str> {
        self.entries
            .iter()
            .filter(|e| e.start <= byte && byte < e.end)
            .min_by_key(|e| e.end - e.start)
            .map(|e| e.path.as_str())
    }

    pub fn nonfinite(&self) -> impl Iterator<Item = &Entry> {
        self.entries.iter().filter(|e| e.nonfinite)
    }
}

/// `a.b[2]` -> `a.b`, `a.b` -> `a`, `a."x.y"` -> `a`, `a` -> ``.
pub fn parent(path: &str) -> &str {
    let bytes = path.as_bytes();
    let mut in_quotes = false;
    let mut cut = 0;
    for (i, &c) in bytes.iter().enumerate() {
        match c {
            b'"' => in_quotes = !in_quotes,
            b'.' | b'[' if !in_quotes => cut = i,
            _ => {}
        }
    }
    &path[..cut]
}

/// The text of the token at or just after `byte` (for quoting a bad value); None at the end.
pub fn token_at(src: &str, byte: usize) -> Option<String> {
    let toks = lex(src);
    let t = toks.iter().find(|t| t.end > byte)?;
    let text = src.get(t.start..t.end)?;
    // Keep messages one short line even for a long string literal.
    if text.chars().count() > 60 {
        let cut: String = text.chars().take(57).collect();
        return Some(format!("{cut}..."));
    }
    Some(text.to_string())
}
