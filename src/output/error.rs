//! The one error type of the output layer.

use std::path::{Path, PathBuf};

/// An output file could not be written. Every variant names the file and the cause, so the
/// message alone tells a user what went wrong and where.
///
/// The cause is part of the message (not only an error `source`) because the CLI prints these
/// errors with `{}` as often as with anyhow's `{:#}`.
#[derive(Debug, thiserror::Error)]
pub enum OutputError {
    /// The operating system refused an operation (create, write, flush, rename, ...).
    #[error("cannot write '{}': {action}: {cause}", path.display())]
    Io {
        /// The file being written.
        path: PathBuf,
        /// What was being done, e.g. "creating a temporary file".
        action: &'static str,
        /// The underlying I/O error.
        cause: std::io::Error,
    },
    /// The data handed to a writer is inconsistent (wrong array length, index out of range, a
    /// row that does not match the header, ...). Nothing was written.
    #[error("not writing '{}': {message}", path.display())]
    InvalidData {
        /// The file that would have been written.
        path: PathBuf,
        /// What is wrong with the data, with the offending names and numbers.
        message: String,
    },
    /// A format library (vtkio, ply-rs-bw, serde_json) failed to encode the data.
    #[error("cannot encode '{}': {message}", path.display())]
    Encode {
        /// The file being written.
        path: PathBuf,
        /// The library's message.
        message: String,
    },
}

impl OutputError {
    pub(crate) fn io(path: &Path, action: &'static str, cause: std::io::Error) -> Self {
        OutputError::Io { path: path.to_path_buf(), action, cause }
    }

    pub(crate) fn invalid(path: &Path, message: impl Into<String>) -> Self {
        OutputError::InvalidData { path: path.to_path_buf(), message: message.into() }
    }

    pub(crate) fn encode(path: &Path, message: impl std::fmt::Display) -> Self {
        OutputError::Encode { path: path.to_path_buf(), message: message.to_string() }
    }
}
