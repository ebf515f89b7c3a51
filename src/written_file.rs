//! A file a command writes whole or not at all: written beside its place
//! under a temporary name and renamed there once complete, so that a
//! command that fails (bad input found late, a damaged store, a full disk)
//! leaves the file that was there before, not an empty or partial one.
//! Through a link the file it names is replaced, not the link; a device
//! or a pipe (`/dev/stdout`, a FIFO) is written in place, never replaced.

use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};

use crate::failure::Failure;

pub struct WrittenFile {
    path: PathBuf,
    /// Where the bytes go until they are complete; none for a device or
    /// a pipe, written directly.
    temporary: Option<PathBuf>,
    file: Option<BufWriter<File>>,
}

impl WrittenFile {
    /// Starts writing what will become `path`.
    pub fn create(path: &Path) -> Result<WrittenFile, Failure> {
        let cannot =
            |e: std::io::Error| Failure::failed(format!("cannot write {}: {e}", path.display()));
        match std::fs::metadata(path) {
            Ok(found) if found.is_dir() => {
                return Err(Failure::bad_input(format!(
                    "{} is a directory",
                    path.display()
                )));
            }
            Ok(found) if !found.is_file() => {
                let file = std::fs::OpenOptions::new()
                    .write(true)
                    .open(path)
                    .map_err(cannot)?;
                return Ok(WrittenFile {
                    path: path.to_path_buf(),
                    temporary: None,
                    file: Some(BufWriter::new(file)),
                });
            }
            _ => {}
        }
        // A link to a file: that file is the place.
        let place = std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf());
        let name = place
            .file_name()
            .ok_or_else(|| Failure::bad_input(format!("{} names no file", path.display())))?;
        let mut hidden = std::ffi::OsString::from(".");
        hidden.push(name);
        hidden.push(format!(".{}.partial", std::process::id()));
        let temporary = place.with_file_name(hidden);
        let file = File::create(&temporary).map_err(cannot)?;
        Ok(WrittenFile {
            path: place,
            temporary: Some(temporary),
            file: Some(BufWriter::new(file)),
        })
    }

    /// Puts the file in its place, complete.
    pub fn finish(mut self) -> Result<(), Failure> {
        let failed = |e: std::io::Error| {
            Failure::failed(format!("cannot write {}: {e}", self.path.display()))
        };
        let file = self.file.take().expect("a file is finished once");
        let file = file.into_inner().map_err(|e| failed(e.into_error()))?;
        let Some(temporary) = &self.temporary else {
            return Ok(());
        };
        file.sync_all().map_err(failed)?;
        std::fs::rename(temporary, &self.path).map_err(failed)
    }
}

impl Write for WrittenFile {
    fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
        self.file
            .as_mut()
            .expect("written before finish")
            .write(bytes)
    }

    fn flush(&mut self) -> std::io::Result<()> {
        self.file.as_mut().expect("written before finish").flush()
    }
}

impl Drop for WrittenFile {
    /// Unfinished: the partial file goes, what was at `path` stays.
    fn drop(&mut self) {
        if let (Some(_), Some(temporary)) = (self.file.take(), &self.temporary) {
            let _ = std::fs::remove_file(temporary);
        }
    }
}

/// Whether two paths a command writes name the same file (as spelt, or
/// through links to a file that exists).
pub fn same_file(a: &Path, b: &Path) -> bool {
    if a == b {
        return true;
    }
    match (std::fs::canonicalize(a), std::fs::canonicalize(b)) {
        (Ok(a), Ok(b)) => a == b,
        _ => absolute(a) == absolute(b),
    }
}

fn absolute(path: &Path) -> Option<PathBuf> {
    let parent = path.parent().filter(|p| !p.as_os_str().is_empty());
    let dir = std::fs::canonicalize(parent.unwrap_or(Path::new("."))).ok()?;
    Some(dir.join(path.file_name()?))
}
