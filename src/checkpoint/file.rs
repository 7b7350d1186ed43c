//! The checkpoint file, `OUT/checkpoint.bin`: a magic word, the format version, the payload's
//! length and FNV-1a checksum, then the [`Checkpoint`] in postcard (compact, exact f64 bits). It
//! is replaced atomically (written under a temporary name, synced, renamed), so a run killed while
//! writing it leaves the previous checkpoint whole.

use super::{Checkpoint, FORMAT_VERSION, fnv1a};
use crate::output::OutputError;
use std::io::Write;
use std::path::Path;

pub const CHECKPOINT_FILE: &str = "checkpoint.bin";
const MAGIC: &[u8; 8] = b"FRICCKPT";
const HEADER: usize = 8 + 4 + 8 + 8;

/// Test hook: with this variable set to a frame number, the writer of that frame's checkpoint
/// stops half-way through the temporary file, says so on stderr and waits, so that a test can
/// kill the process mid-write.
const STALL_ENV: &str = "FRICSIM_TEST_STALL_CHECKPOINT_WRITE";

pub fn write(dir: &Path, c: &Checkpoint) -> Result<(), OutputError> {
    let path = dir.join(CHECKPOINT_FILE);
    let payload = postcard::to_stdvec(c).map_err(|e| OutputError::invalid(&path, format!("encoding: {e}")))?;
    let mut header = Vec::with_capacity(HEADER);
    header.extend_from_slice(MAGIC);
    header.extend_from_slice(&FORMAT_VERSION.to_le_bytes());
    header.extend_from_slice(&(payload.len() as u64).to_le_bytes());
    header.extend_from_slice(&fnv1a(&payload).to_le_bytes());
    crate::output::atomic::write_atomically(&path, |out| {
        let io = |e| OutputError::io(&path, "writing", e);
        out.write_all(&header).map_err(io)?;
        let (first, rest) = payload.split_at(payload.len() / 2);
        out.write_all(first).map_err(io)?;
        if std::env::var(STALL_ENV).ok().and_then(|f| f.parse::<usize>().ok()) == Some(c.frame) {
            out.flush().map_err(io)?;
            eprintln!("checkpoint write stalled (frame {})", c.frame);
            std::thread::sleep(std::time::Duration::from_secs(600));
        }
        out.write_all(rest).map_err(io)
    })
}

/// Read `dir`'s checkpoint; every failure is a message naming the file and what is wrong.
pub fn read(dir: &Path) -> Result<Checkpoint, String> {
    let path = dir.join(CHECKPOINT_FILE);
    let name = path.display();
    let bytes = std::fs::read(&path).map_err(|e| match e.kind() {
        std::io::ErrorKind::NotFound => {
            format!("{name}: no checkpoint; run with --checkpoint-every N to write one")
        }
        _ => format!("{name}: cannot read: {e}"),
    })?;
    if bytes.len() < HEADER || &bytes[..8] != MAGIC {
        return Err(format!("{name}: not a fricsim checkpoint"));
    }
    let word = |at: usize| u64::from_le_bytes(bytes[at..at + 8].try_into().expect("8 bytes"));
    let version = u32::from_le_bytes(bytes[8..12].try_into().expect("4 bytes"));
    if version != FORMAT_VERSION {
        return Err(format!("{name}: checkpoint format {version}, this fricsim reads format {FORMAT_VERSION}"));
    }
    let (len, sum) = (word(12), word(20));
    let payload = &bytes[HEADER..];
    if payload.len() as u64 != len || fnv1a(payload) != sum {
        return Err(format!("{name}: the checkpoint is damaged (length or checksum does not match)"));
    }
    postcard::from_bytes(payload).map_err(|e| format!("{name}: the checkpoint cannot be decoded: {e}"))
}
