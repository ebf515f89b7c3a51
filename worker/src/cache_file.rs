//! One cached shard as one file: a header naming the slice and its layout,
//! then each block record after its length.
//!
//! A file is written beside its place and renamed over it, unsynced: the
//! cache holds nothing that cannot be fetched again, and a file torn by a
//! crash fails its checks when read. Reading checks every length against
//! the file's size and the shard's layout before anything is allocated,
//! and every block's checksum before the shard is given out.

use std::fs::File;
use std::io::{BufWriter, Read, Write};
use std::os::unix::fs::OpenOptionsExt;
use std::path::Path;

use egdb_db_format::block::{block_len, checksum_holds, layout_fault, max_record_len};
use egdb_db_format::{CellEncoding, FormatError};
use egdb_proto::{Shard, SliceId};

use crate::WorkerError;

/// The first bytes of every cached shard file, with the format's version.
const MAGIC: &[u8; 8] = b"egdbshc1";

/// Bytes buffered between the shard and the file it is written to.
const BUFFER: usize = 4 << 20;

/// Writes `shard` to `path` by way of `aside` (whatever stood there, a
/// link say, removed first): the bytes the file takes.
///
/// # Errors
/// I/O errors, and a slice id too long for the header.
pub(crate) fn write(path: &Path, aside: &Path, shard: &Shard) -> std::io::Result<u64> {
    let id = shard.slice_id.as_str().as_bytes();
    let id_len = u8::try_from(id.len())
        .map_err(|_| std::io::Error::other("a slice id longer than 255 bytes"))?;
    match std::fs::remove_file(aside) {
        Err(e) if e.kind() != std::io::ErrorKind::NotFound => return Err(e),
        _ => {}
    }
    let file = File::options()
        .write(true)
        .create_new(true)
        .mode(0o600)
        .open(aside)?;
    // A disk that fills keeps no half of it.
    if let Err(e) = write_to(BufWriter::with_capacity(BUFFER, file), id_len, shard) {
        let _ = std::fs::remove_file(aside);
        return Err(e);
    }
    std::fs::rename(aside, path)?;
    Ok(file_bytes(shard))
}

fn write_to(mut out: BufWriter<File>, id_len: u8, shard: &Shard) -> std::io::Result<()> {
    let id = shard.slice_id.as_str().as_bytes();
    out.write_all(MAGIC)?;
    out.write_all(&[id_len])?;
    out.write_all(id)?;
    out.write_all(&[shard.encoding.tag()])?;
    out.write_all(&shard.raw_len.to_le_bytes())?;
    out.write_all(&shard.raw_crc32.to_le_bytes())?;
    out.write_all(&shard.block_bytes.to_le_bytes())?;
    let blocks = u32::try_from(shard.blocks.len())
        .map_err(|_| std::io::Error::other("more blocks than a shard holds"))?;
    out.write_all(&blocks.to_le_bytes())?;
    for block in &shard.blocks {
        let len = u32::try_from(block.len())
            .map_err(|_| std::io::Error::other("a block record past 4 GiB"))?;
        out.write_all(&len.to_le_bytes())?;
        out.write_all(block)?;
    }
    out.into_inner().map_err(|e| e.into_error())?;
    Ok(())
}

/// The bytes a shard's file takes: the header, then each block after its
/// length.
pub(crate) fn file_bytes(shard: &Shard) -> u64 {
    let header = MAGIC.len() + 1 + shard.slice_id.as_str().len() + 1 + 8 + 4 + 8 + 4;
    header as u64 + 4 * shard.blocks.len() as u64 + shard.stored_bytes()
}

/// The shard of `slice_id` in `path`, `None` when there is no such file.
/// A shard of more than `max_raw` raw bytes is refused before it is read.
///
/// # Errors
/// [`WorkerError::BadShard`] for one too large; [`FormatError::Corrupt`]
/// for a file that is not a whole, checked shard of that slice; I/O errors
/// as [`WorkerError::Cache`].
pub(crate) fn read(
    path: &Path,
    slice_id: &SliceId,
    max_raw: u64,
) -> Result<Option<Shard>, WorkerError> {
    // A link is not followed, nor a pipe waited on.
    let opened = File::options()
        .read(true)
        .custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK)
        .open(path);
    let mut file = match opened.and_then(|f| Ok((f.metadata()?, f))) {
        Ok((meta, file)) => Bounded {
            input: file,
            left: meta.len(),
            regular: meta.is_file(),
            path,
            slice: slice_id,
        },
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(io_failure(path, &e)),
    };
    if !file.regular {
        return Err(file.corrupt(None, "not a regular file".to_string()));
    }
    if file.take(MAGIC.len() as u64, "header")? != MAGIC {
        return Err(file.corrupt(None, "not a cached shard of this egdb".to_string()));
    }
    let id_len = file.take(1, "header")?[0];
    let id = file.take(u64::from(id_len), "header")?;
    if id != slice_id.as_str().as_bytes() {
        let held = format!("holds slice {:?}", String::from_utf8_lossy(&id));
        return Err(file.corrupt(None, held));
    }
    let fixed = file.take(1 + 8 + 4 + 8 + 4, "header")?;
    let word = |at: usize| u64::from_le_bytes(fixed[at..at + 8].try_into().unwrap_or_default());
    let half = |at: usize| u32::from_le_bytes(fixed[at..at + 4].try_into().unwrap_or_default());
    let (raw_len, raw_crc32, block_bytes, blocks) = (word(1), half(9), word(13), half(21));
    let Some(encoding) = CellEncoding::from_tag(fixed[0]) else {
        return Err(file.corrupt(None, format!("cell encoding {} is none", fixed[0])));
    };
    if raw_len > max_raw {
        return Err(WorkerError::BadShard {
            slice: slice_id.to_string(),
            reason: format!(
                "the cache holds {raw_len} raw bytes for it, more than this worker's memory for a slice ({max_raw})"
            ),
        });
    }
    if let Some(fault) = layout_fault(raw_len, block_bytes, u64::from(blocks)) {
        return Err(file.corrupt(None, fault));
    }
    // Each block takes at least its length's bytes.
    if u64::from(blocks) * 4 > file.left {
        return Err(file.corrupt(None, format!("too short for {blocks} blocks")));
    }
    let mut shard = Shard {
        slice_id: slice_id.clone(),
        encoding,
        raw_len,
        raw_crc32,
        block_bytes,
        blocks: Vec::with_capacity(blocks as usize),
    };
    for index in 0..blocks {
        let len = file.take(4, "block lengths")?;
        let len = u64::from(u32::from_le_bytes([len[0], len[1], len[2], len[3]]));
        let most = max_record_len(block_len(raw_len, block_bytes, index));
        if len > most {
            let reason = format!("a record of {len} bytes, past the {most} its block can make");
            return Err(file.corrupt(Some(index), reason));
        }
        let record = file.take(len, "blocks")?;
        if !checksum_holds(&record) {
            let reason = "checksum mismatch in the cache".to_string();
            return Err(file.corrupt(Some(index), reason));
        }
        shard.blocks.push(record);
    }
    if file.left != 0 {
        let reason = format!("{} bytes after the last block", file.left);
        return Err(file.corrupt(None, reason));
    }
    Ok(Some(shard))
}

fn io_failure(path: &Path, e: &std::io::Error) -> WorkerError {
    WorkerError::Cache {
        dir: path.display().to_string(),
        reason: e.to_string(),
    }
}

/// A cached shard's file, read no further than its length at opening.
struct Bounded<'a> {
    input: File,
    left: u64,
    regular: bool,
    path: &'a Path,
    slice: &'a SliceId,
}

impl Bounded<'_> {
    /// The next `n` bytes, refused before they are allocated when the file
    /// is shorter.
    fn take(&mut self, n: u64, what: &str) -> Result<Vec<u8>, WorkerError> {
        let Some(left) = self.left.checked_sub(n) else {
            return Err(self.corrupt(None, format!("ends before its {what}")));
        };
        self.left = left;
        // Read into spare capacity: no zeros written first.
        let mut bytes = Vec::with_capacity(n as usize);
        match (&mut self.input).take(n).read_to_end(&mut bytes) {
            Ok(got) if got as u64 == n => Ok(bytes),
            Ok(_) => Err(self.corrupt(None, "shrank while it was read".to_string())),
            Err(e) => Err(io_failure(self.path, &e)),
        }
    }

    fn corrupt(&self, block: Option<u32>, reason: String) -> WorkerError {
        WorkerError::Format(FormatError::Corrupt {
            slice: self.slice.to_string(),
            block,
            reason: format!("cached file {}: {reason}", self.path.display()),
        })
    }
}
