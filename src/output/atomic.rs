//! Atomic file replacement: write under a temporary name in the target's folder, then rename.
//!
//! A reader (ParaView polling a run, `tail`, a crashed-run post-mortem) therefore sees either
//! the previous complete file or the new complete file, never a prefix. The temporary file lives
//! in the same folder because `rename` is only atomic within one file system.

use std::fs::{File, OpenOptions};
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

use super::OutputError;

/// Distinguishes temporary names of concurrent writes from one process (e.g. rayon-parallel
/// body output); the pid separates processes writing into the same folder.
static COUNTER: AtomicU64 = AtomicU64::new(0);

/// See [`set_sync_to_disk`].
static SYNC_TO_DISK: AtomicBool = AtomicBool::new(true);

/// Chooses whether [`write_atomically`] syncs each file's data to disk before the rename
/// (default: yes).
///
/// The rename alone already guarantees that a crashed or killed *process* never leaves a partial
/// file. The sync adds the same guarantee for an *operating-system* crash or power loss, where
/// an unsynced new file can otherwise survive as empty. It costs about 10-20 ms per file on the
/// project's VM (measured in `benches/output.rs`), which matters only for runs that write many
/// small frames; such runs may turn it off.
pub fn set_sync_to_disk(enabled: bool) {
    SYNC_TO_DISK.store(enabled, Ordering::Relaxed);
}

/// Buffer size for the file writer: large enough that the format encoders' many small writes
/// become few system calls (a 1 MB frame in 16), small beside a run's memory (at 1 MB it was an
/// eighth of `ramp_6k`'s heap while a frame was written).
const BUFFER_BYTES: usize = 1 << 16;

/// Writes `path` atomically: `write` fills a buffered temporary file next to `path`, which is
/// flushed, synced to disk (see [`set_sync_to_disk`]) and renamed over `path` only if `write`
/// returned `Ok`.
///
/// On any error (or a panic inside `write`) the temporary file is removed and `path` is left as
/// it was (absent, or its previous complete content). The data is synced before the rename so
/// that after an operating-system crash the file is also either old or new, not empty.
pub fn write_atomically<F>(path: &Path, write: F) -> Result<(), OutputError>
where
    F: FnOnce(&mut BufWriter<File>) -> Result<(), OutputError>,
{
    let mut temp = TempFile::create(path)?;
    let mut out = BufWriter::with_capacity(BUFFER_BYTES, temp.take_file());
    write(&mut out)?;
    let file = out.into_inner().map_err(|e| OutputError::io(path, "flushing", e.into_error()))?;
    if SYNC_TO_DISK.load(Ordering::Relaxed) {
        file.sync_data().map_err(|e| OutputError::io(path, "syncing to disk", e))?;
    }
    drop(file);
    temp.persist()
}

/// Convenience for writers that already hold the whole content in memory.
pub fn write_bytes_atomically(path: &Path, bytes: &[u8]) -> Result<(), OutputError> {
    write_atomically(path, |out| out.write_all(bytes).map_err(|e| OutputError::io(path, "writing", e)))
}

/// The temporary sibling of a target file; removed on drop unless persisted.
struct TempFile {
    target: PathBuf,
    temp: PathBuf,
    file: Option<File>,
    persisted: bool,
}

impl TempFile {
    fn create(target: &Path) -> Result<Self, OutputError> {
        let name = target.file_name().ok_or_else(|| OutputError::invalid(target, "the path has no file name"))?;
        let n = COUNTER.fetch_add(1, Ordering::Relaxed);
        // Leading dot: hidden from `ls` and from ParaView's file dialog while it exists.
        let mut temp_name = std::ffi::OsString::from(".");
        temp_name.push(name);
        temp_name.push(format!(".{}.{n}.tmp", std::process::id()));
        let temp = target.with_file_name(temp_name);
        let file = OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&temp)
            .map_err(|e| OutputError::io(target, "creating a temporary file", e))?;
        Ok(TempFile { target: target.to_path_buf(), temp, file: Some(file), persisted: false })
    }

    fn take_file(&mut self) -> File {
        // Called exactly once, right after `create`, which always sets the file.
        self.file.take().expect("TempFile::take_file is called once after create")
    }

    fn persist(mut self) -> Result<(), OutputError> {
        std::fs::rename(&self.temp, &self.target)
            .map_err(|e| OutputError::io(&self.target, "renaming the temporary file", e))?;
        self.persisted = true;
        Ok(())
    }
}

impl Drop for TempFile {
    fn drop(&mut self) {
        if !self.persisted {
            // Best effort: the error that brought us here is the one worth reporting.
            let _ = std::fs::remove_file(&self.temp);
        }
    }
}
