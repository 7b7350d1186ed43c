//! Per-step statistics as CSV (`stats.csv`), one row per step, flushed as it is written.
//!
//! Format: RFC 4180 CSV with a header line, `\n` line ends. Integers print in decimal; floats
//! print with [`format_f64`]: the shortest digits that parse back to the
//! same `f64`, positional or scientific as Python's `repr` would (`0.001`, `1e-12`, `NaN`,
//! `inf`). Text fields containing a comma, a double
//! quote or a line break are quoted, with inner quotes doubled, as every CSV reader expects.
//!
//! Unlike the other files this one is appended to while the run goes on (so a user can
//! `tail -f` it or plot it live), not replaced atomically. Each row goes to the file in one
//! `write` of a complete line followed by a flush, so readers see whole rows.

use std::borrow::Cow;
use std::fs::File;
use std::io::Write;
use std::path::{Path, PathBuf};

use super::{OutputError, format_f64};

/// One cell of a statistics row.
#[derive(Clone, Debug, PartialEq)]
pub enum StatValue {
    /// A count or index.
    Int(i64),
    /// A measured or computed quantity.
    Float(f64),
    /// A label (solver name, termination reason, ...). Escaped as needed.
    Text(String),
}

impl From<i64> for StatValue {
    fn from(v: i64) -> Self {
        StatValue::Int(v)
    }
}

impl From<usize> for StatValue {
    fn from(v: usize) -> Self {
        // Counts beyond i64::MAX do not occur; saturate rather than wrap if one ever does.
        StatValue::Int(i64::try_from(v).unwrap_or(i64::MAX))
    }
}

impl From<f64> for StatValue {
    fn from(v: f64) -> Self {
        StatValue::Float(v)
    }
}

impl From<&str> for StatValue {
    fn from(v: &str) -> Self {
        StatValue::Text(v.to_string())
    }
}

impl From<String> for StatValue {
    fn from(v: String) -> Self {
        StatValue::Text(v)
    }
}

/// A CSV file with a fixed header; every row must have one value per column.
#[derive(Debug)]
pub struct StatsWriter {
    path: PathBuf,
    file: File,
    columns: Vec<String>,
    line: String,
    rows: u64,
    /// Length of the file so far (bytes): where a resumed run cuts it.
    bytes: u64,
}

impl StatsWriter {
    /// Creates (or truncates) `path` and writes the header line.
    pub fn create(path: impl Into<PathBuf>, columns: Vec<String>) -> Result<Self, OutputError> {
        let path = path.into();
        if columns.is_empty() {
            return Err(OutputError::invalid(&path, "a CSV needs at least one column"));
        }
        let file = File::create(&path).map_err(|e| OutputError::io(&path, "creating the file", e))?;
        let mut w = StatsWriter { path, file, columns, line: String::new(), rows: 0, bytes: 0 };
        let mut line = String::new();
        for (i, c) in w.columns.iter().enumerate() {
            if i > 0 {
                line.push(',');
            }
            line.push_str(&escape(c));
        }
        w.emit(line)?;
        Ok(w)
    }

    /// Continue a file of `rows` rows and `bytes` bytes (a checkpoint's), cutting off whatever
    /// was written after them; its header must be `columns`.
    pub fn resume(path: impl Into<PathBuf>, columns: Vec<String>, rows: u64, bytes: u64) -> Result<Self, OutputError> {
        let path = path.into();
        let file = File::open(&path).map_err(|e| OutputError::io(&path, "opening the file to resume it", e))?;
        let len = file.metadata().map_err(|e| OutputError::io(&path, "reading its length", e))?.len();
        let mut header = String::new();
        std::io::BufRead::read_line(&mut std::io::BufReader::new(file), &mut header)
            .map_err(|e| OutputError::io(&path, "reading its header", e))?;
        let expected = columns.iter().map(|c| escape(c)).collect::<Vec<_>>().join(",");
        if header.trim_end_matches(['\n', '\r']) != expected {
            return Err(OutputError::invalid(&path, "its header is not this scene's columns; it cannot be resumed"));
        }
        if len < bytes {
            return Err(OutputError::invalid(
                &path,
                format!("it holds {len} bytes but the checkpoint wrote {bytes}; it cannot be resumed"),
            ));
        }
        let file = std::fs::OpenOptions::new()
            .write(true)
            .open(&path)
            .map_err(|e| OutputError::io(&path, "opening the file to resume it", e))?;
        file.set_len(bytes).map_err(|e| OutputError::io(&path, "cutting the rows after the checkpoint", e))?;
        let mut file = file;
        std::io::Seek::seek(&mut file, std::io::SeekFrom::End(0))
            .map_err(|e| OutputError::io(&path, "seeking its end", e))?;
        Ok(StatsWriter { path, file, columns, line: String::new(), rows, bytes })
    }

    /// Bytes written so far (header and rows).
    pub fn bytes_written(&self) -> u64 {
        self.bytes
    }

    /// Path of the CSV file.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The header columns.
    pub fn columns(&self) -> &[String] {
        &self.columns
    }

    /// Number of data rows written so far.
    pub fn rows_written(&self) -> u64 {
        self.rows
    }

    /// Appends one row and flushes it to the file. A row whose length differs from the header
    /// is refused (nothing is written).
    pub fn write_row(&mut self, row: &[StatValue]) -> Result<(), OutputError> {
        if row.len() != self.columns.len() {
            return Err(OutputError::invalid(
                &self.path,
                format!(
                    "row {} has {} values but the header has {} columns ({})",
                    self.rows + 1,
                    row.len(),
                    self.columns.len(),
                    self.columns.join(",")
                ),
            ));
        }
        let mut line = std::mem::take(&mut self.line);
        line.clear();
        for (i, v) in row.iter().enumerate() {
            if i > 0 {
                line.push(',');
            }
            match v {
                StatValue::Int(n) => line.push_str(&n.to_string()),
                StatValue::Float(x) => line.push_str(&format_f64(*x)),
                StatValue::Text(t) => line.push_str(&escape(t)),
            }
        }
        self.emit(line)?;
        self.rows += 1;
        Ok(())
    }

    /// Writes `line` plus a newline in one call, flushes, and keeps the buffer for reuse.
    fn emit(&mut self, mut line: String) -> Result<(), OutputError> {
        line.push('\n');
        let result = self
            .file
            .write_all(line.as_bytes())
            .and_then(|()| self.file.flush())
            .map_err(|e| OutputError::io(&self.path, "appending a row", e));
        if result.is_ok() {
            self.bytes += line.len() as u64;
        }
        self.line = line;
        result
    }
}

/// Quotes a field if a CSV reader would otherwise split or misread it (RFC 4180).
fn escape(field: &str) -> Cow<'_, str> {
    if field.contains([',', '"', '\n', '\r']) || field.starts_with(' ') || field.ends_with(' ') {
        Cow::Owned(format!("\"{}\"", field.replace('"', "\"\"")))
    } else {
        Cow::Borrowed(field)
    }
}
