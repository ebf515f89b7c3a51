//! Reading a small file given from outside (a game or rules file, a
//! certificate, a cluster token) with a bound: a huge file or a device is
//! refused before it is read to its end, and a pipe that nobody writes to
//! cannot hang the reader.

use std::io::Read;
use std::path::Path;

/// Why a bounded file could not be read.
#[derive(Debug, thiserror::Error)]
pub enum BoundedFileError {
    #[error("{0}")]
    Io(#[from] std::io::Error),
    #[error("longer than {max} bytes")]
    TooLarge { max: u64 },
    #[error("not a regular file ({kind})")]
    NotAFile { kind: &'static str },
}

/// The bytes of the regular file at `path`, at most `max` of them.
///
/// # Errors
/// [`BoundedFileError`]: unreadable, longer than `max`, or a directory,
/// device, pipe or socket.
pub fn read_at_most(path: &Path, max: u64) -> Result<Vec<u8>, BoundedFileError> {
    let kind = std::fs::metadata(path)?.file_type();
    if !kind.is_file() {
        return Err(BoundedFileError::NotAFile {
            kind: kind_name(&kind),
        });
    }
    let file = std::fs::File::open(path)?;
    // The file may have been swapped for another between the two looks:
    // the handle is what counts.
    let kind = file.metadata()?.file_type();
    if !kind.is_file() {
        return Err(BoundedFileError::NotAFile {
            kind: kind_name(&kind),
        });
    }
    let mut bytes = Vec::new();
    file.take(max + 1).read_to_end(&mut bytes)?;
    if bytes.len() as u64 > max {
        return Err(BoundedFileError::TooLarge { max });
    }
    Ok(bytes)
}

fn kind_name(kind: &std::fs::FileType) -> &'static str {
    use std::os::unix::fs::FileTypeExt;
    if kind.is_dir() {
        "a directory"
    } else if kind.is_fifo() {
        "a pipe"
    } else if kind.is_char_device() || kind.is_block_device() {
        "a device"
    } else if kind.is_socket() {
        "a socket"
    } else {
        "not a file"
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn devices_pipes_and_long_files_are_refused_short_files_read() {
        let dir = tempfile::tempdir().unwrap();
        let short = dir.path().join("short");
        std::fs::write(&short, "token\n").unwrap();
        assert_eq!(read_at_most(&short, 6).unwrap(), b"token\n");
        assert!(matches!(
            read_at_most(&short, 5),
            Err(BoundedFileError::TooLarge { max: 5 })
        ));
        assert!(matches!(
            read_at_most(Path::new("/dev/zero"), 1 << 20),
            Err(BoundedFileError::NotAFile { kind: "a device" })
        ));
        assert!(matches!(
            read_at_most(dir.path(), 10),
            Err(BoundedFileError::NotAFile {
                kind: "a directory"
            })
        ));
        let fifo = dir.path().join("fifo");
        let made = std::process::Command::new("mkfifo").arg(&fifo).status();
        if made.is_ok_and(|s| s.success()) {
            // Opening a pipe nobody writes to would block for ever.
            assert!(matches!(
                read_at_most(&fifo, 10),
                Err(BoundedFileError::NotAFile { kind: "a pipe" })
            ));
        }
        assert!(matches!(
            read_at_most(&dir.path().join("absent"), 10),
            Err(BoundedFileError::Io(_))
        ));
    }
}
