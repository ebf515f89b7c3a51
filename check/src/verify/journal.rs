//! The passes of an `egdb verify` in progress, kept beside the store so
//! that an interrupted verify goes on where it stopped.
//!
//! `verify.journal` in the store's directory: a header line naming the
//! game and the store (RocksDB's identity of it, made when the store was),
//! then one line per passed slice with the checksum of the bytes that
//! passed (`<slice> <raw_crc32 in hex>`). A journal of another store (one
//! copied beside it) is no journal of this one. A slice whose record
//! gives another checksum since is checked again, and callers read a
//! slice's bytes again before they count it as passed (a damaged block
//! leaves the record's checksum as it was); failures are never recorded,
//! so they are found again.
//!
//! A build that checked every slice as it stored it keeps its passes
//! under another header (`egdb-built`): the same build command run again
//! finds nothing left to check, while `egdb verify` takes none of them and
//! checks a finished store whole.

use std::collections::HashMap;
use std::fs::{File, OpenOptions};
use std::io::{BufRead, BufReader, Read, Write};
use std::path::{Path, PathBuf};

use egdb_games::{Game, SliceId};

/// The file's name in the store's directory.
const NAME: &str = "verify.journal";
/// Lines of a journal read at the most (a store has far fewer slices).
const MAX_LINES: usize = 1 << 20;
/// Bytes of one line at most: a header or a slice id and its checksum.
const MAX_LINE_BYTES: usize = 4096;

/// Passes recorded so far, and the file new ones go to.
pub struct Journal {
    path: PathBuf,
    passed: HashMap<SliceId, u32>,
    file: Option<File>,
    /// The header it is written with: the game and store it is of.
    header: String,
}

impl Journal {
    /// The journal of the store at `store`, holding `game`; an unreadable,
    /// foreign or damaged journal counts as empty, `fresh` forgets it.
    pub fn open(store: &Path, game: &Game, fresh: bool) -> Journal {
        Journal::open_with(store, &header(store, game), &[], fresh)
    }

    /// [`Journal::open`] for a build that checks its slices as it stores
    /// them, which also takes the passes a binary before store identities
    /// wrote (of the same game, in its own store): a build under way keeps
    /// its checks across a change of binary.
    pub fn open_of_build(store: &Path, game: &Game) -> Journal {
        let built = header_of(BUILT, store, game);
        match read(&store.join(NAME), &built) {
            // A finished build's passes stay a build's only.
            Some(passed) => Journal::written(store.join(NAME), passed, built),
            None => {
                let before = format!("egdb-verify 1 {} {:016x}", game.spec(), game.fingerprint());
                Journal::open_with(store, &header(store, game), &[&before], false)
            }
        }
    }

    fn open_with(store: &Path, header: &str, also: &[&str], fresh: bool) -> Journal {
        let path = store.join(NAME);
        let passed = if fresh {
            None
        } else {
            std::iter::once(header)
                .chain(also.iter().copied())
                .find_map(|h| read(&path, h))
        };
        Journal::written(path, passed.unwrap_or_default(), header.to_string())
    }

    /// A journal of `passed` at `path`, its file written anew under `header`.
    fn written(path: PathBuf, passed: HashMap<SliceId, u32>, header: String) -> Journal {
        Journal {
            path,
            passed,
            file: None,
            header,
        }
        .start()
    }

    /// Rewrites the file with the header and the passes kept; without a
    /// writable directory the verify runs on, unrecorded. The new file
    /// replaces the old one whole, so a kill meanwhile loses no passes.
    fn start(mut self) -> Journal {
        let written = (|| -> std::io::Result<File> {
            let new_path = self.path.with_extension("journal.new");
            // Made anew, never opened through whatever stands at the name
            // (a link there would have the write land elsewhere).
            match std::fs::remove_file(&new_path) {
                Err(e) if e.kind() != std::io::ErrorKind::NotFound => return Err(e),
                _ => {}
            }
            let mut file = OpenOptions::new()
                .write(true)
                .create_new(true)
                .open(&new_path)?;
            writeln!(file, "{}", self.header)?;
            for (slice, crc) in &self.passed {
                writeln!(file, "{slice} {crc:08x}")?;
            }
            file.sync_data()?;
            std::fs::rename(&new_path, &self.path)?;
            Ok(file)
        })();
        match written {
            Ok(file) => self.file = Some(file),
            Err(e) => tracing::warn!(
                path = %self.path.display(),
                "cannot keep a verify journal ({e}); an interrupted verify will start over"
            ),
        }
        self
    }

    /// Whether `slice` passed before with these bytes.
    pub fn passed(&self, slice: &SliceId, raw_crc32: u32) -> bool {
        self.passed.get(slice) == Some(&raw_crc32)
    }

    pub fn record(&mut self, slice: &SliceId, raw_crc32: u32) {
        self.passed.insert(slice.clone(), raw_crc32);
        if let Some(file) = &mut self.file {
            let kept = writeln!(file, "{slice} {raw_crc32:08x}").and_then(|()| file.sync_data());
            if let Err(e) = kept {
                tracing::warn!(path = %self.path.display(), "verify journal not written: {e}");
                self.file = None;
            }
        }
    }

    /// Removes the journal once a verify ran to its end.
    pub fn finish(self) {
        drop(self.file);
        let _ = std::fs::remove_file(&self.path);
    }

    /// Keeps the passes of a build that checked every slice it stored,
    /// under the header only a build takes ([`Journal::open_of_build`]).
    pub fn keep_as_built(mut self) {
        // Already a build's: its file is up to date.
        let Some(names) = self.header.strip_prefix(VERIFY) else {
            return;
        };
        self.header = format!("{BUILT}{names}");
        self.file = None;
        drop(self.start());
    }
}

/// The first word of a journal's header: a verify's (or a build's under
/// way), and a finished build's.
const VERIFY: &str = "egdb-verify";
const BUILT: &str = "egdb-built";

/// The header of the journal of `game` in the store at `store`.
fn header(store: &Path, game: &Game) -> String {
    header_of(VERIFY, store, game)
}

fn header_of(kind: &str, store: &Path, game: &Game) -> String {
    format!(
        "{kind} 2 {} {:016x} {}",
        game.spec(),
        game.fingerprint(),
        store_identity(store)
    )
}

/// RocksDB's identity of the store at `store` (a UUID in its `IDENTITY`
/// file, written when the store was made), or `-` when it has none.
fn store_identity(store: &Path) -> String {
    let Ok(text) = egdb_games::bounded_file::read_at_most(&store.join("IDENTITY"), 256) else {
        return "-".to_string();
    };
    let text = String::from_utf8_lossy(&text);
    let id = text.trim();
    if id.is_empty() || !id.chars().all(|c| c.is_ascii_hexdigit() || c == '-') {
        return "-".to_string();
    }
    id.to_string()
}

/// The passes of a journal whose header is `header`; a journal with a line
/// far longer than any slice id is damaged, and not read further.
fn read(path: &Path, header: &str) -> Option<HashMap<SliceId, u32>> {
    // A pipe or a device at the name would block the open or never end:
    // only a regular file is a journal, looked at before and after.
    if !std::fs::symlink_metadata(path).ok()?.is_file() {
        return None;
    }
    let file = OpenOptions::new().read(true).open(path).ok()?;
    if !file.metadata().ok()?.is_file() {
        return None;
    }
    let mut file = BufReader::new(file);
    let mut next_line = || -> Option<Option<String>> {
        let mut line = Vec::new();
        let read = (&mut file)
            .take(MAX_LINE_BYTES as u64 + 1)
            .read_until(b'\n', &mut line)
            .ok()?;
        if read > MAX_LINE_BYTES {
            return None;
        }
        if line.pop() != Some(b'\n') {
            // The end of the file, or a line cut short by a crash: dropped,
            // not trusted.
            return Some(None);
        }
        Some(Some(String::from_utf8(line).ok()?))
    };
    if next_line()?? != header {
        return None;
    }
    let mut passed = HashMap::new();
    for _ in 0..MAX_LINES {
        let Some(line) = next_line()? else {
            break;
        };
        let Some((slice, crc)) = line.split_once(' ') else {
            continue;
        };
        if let (Ok(slice), Ok(crc)) = (SliceId::parse(slice), u32::from_str_radix(crc, 16)) {
            passed.insert(slice, crc);
        }
    }
    Some(passed)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn passes_survive_a_restart_and_a_torn_line() {
        let dir = tempfile::tempdir().unwrap();
        let mut journal = Journal::open_with(dir.path(), "egdb-verify 1 g", &[], false);
        journal.record(&SliceId::new("move-03-03"), 0xdead_beef);
        journal.record(&SliceId::new("place-05-02-03"), 7);
        drop(journal);
        let mut text = std::fs::read_to_string(dir.path().join(NAME)).unwrap();
        text.push_str("move-04-0");
        std::fs::write(dir.path().join(NAME), text).unwrap();
        let again = Journal::open_with(dir.path(), "egdb-verify 1 g", &[], false);
        assert!(again.passed(&SliceId::new("move-03-03"), 0xdead_beef));
        assert!(
            !again.passed(&SliceId::new("move-03-03"), 1),
            "other bytes are checked again"
        );
        assert!(again.passed(&SliceId::new("place-05-02-03"), 7));
        assert!(!again.passed(&SliceId::new("move-04-0"), 0));
        // A line that never ends is not read whole: the journal is damaged.
        let mut text = std::fs::read_to_string(dir.path().join(NAME)).unwrap();
        text.push_str(&"x".repeat(1 << 20));
        std::fs::write(dir.path().join(NAME), text).unwrap();
        assert!(read(&dir.path().join(NAME), "egdb-verify 1 g").is_none());
        let other_game = Journal::open_with(dir.path(), "egdb-verify 1 h", &[], false);
        assert!(!other_game.passed(&SliceId::new("place-05-02-03"), 7));
        let fresh = Journal::open_with(dir.path(), "egdb-verify 1 h", &[], true);
        assert!(!fresh.passed(&SliceId::new("place-05-02-03"), 7));
        fresh.finish();
        assert!(!dir.path().join(NAME).exists());
    }

    #[test]
    fn a_journal_copied_beside_another_store_is_not_its_journal() {
        let game = Game::from_spec(&"nim:triangle:3:normal".parse().unwrap()).unwrap();
        let (a, b) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
        std::fs::write(
            a.path().join("IDENTITY"),
            "6b3c8f1e-0000-4000-8000-00000000000a\n",
        )
        .unwrap();
        std::fs::write(
            b.path().join("IDENTITY"),
            "6b3c8f1e-0000-4000-8000-00000000000b\n",
        )
        .unwrap();
        let slice = SliceId::new("stones-03");
        Journal::open(a.path(), &game, false).record(&slice, 9);
        assert!(Journal::open(a.path(), &game, false).passed(&slice, 9));
        std::fs::copy(a.path().join(NAME), b.path().join(NAME)).unwrap();
        assert!(!Journal::open(b.path(), &game, false).passed(&slice, 9));
        // A build's journal written before stores were named is still its own.
        let before = format!(
            "egdb-verify 1 {} {:016x}\nstones-03 00000009\n",
            game.spec(),
            game.fingerprint()
        );
        std::fs::write(b.path().join(NAME), &before).unwrap();
        assert!(Journal::open_of_build(b.path(), &game).passed(&slice, 9));
        std::fs::write(b.path().join(NAME), &before).unwrap();
        assert!(!Journal::open(b.path(), &game, false).passed(&slice, 9));
    }

    #[test]
    fn a_finished_builds_passes_are_a_builds_only() {
        let game = Game::from_spec(&"nim:triangle:3:normal".parse().unwrap()).unwrap();
        let dir = tempfile::tempdir().unwrap();
        let slice = SliceId::new("stones-03");
        let mut journal = Journal::open_of_build(dir.path(), &game);
        journal.record(&slice, 9);
        journal.keep_as_built();
        for _ in 0..2 {
            // Opened by the build run again (which may end without
            // finishing: it had nothing to do), they stay a build's.
            let again = Journal::open_of_build(dir.path(), &game);
            assert!(
                again.passed(&slice, 9),
                "the build run again checks nothing"
            );
        }
        assert!(!Journal::open(dir.path(), &game, false).passed(&slice, 9));
    }

    #[test]
    fn a_pipe_or_a_link_in_the_journals_place_is_not_followed() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(NAME);
        // A pipe nobody writes to: read at once as no journal, not waited on.
        let made = std::process::Command::new("mkfifo")
            .arg(&path)
            .status()
            .unwrap();
        assert!(made.success());
        assert!(read(&path, "egdb-verify 1 g").is_none());
        std::fs::remove_file(&path).unwrap();
        // A link at the new file's name: the file it points to is untouched.
        let victim = dir.path().join("victim");
        std::fs::write(&victim, "keep me").unwrap();
        std::os::unix::fs::symlink(&victim, path.with_extension("journal.new")).unwrap();
        let mut journal = Journal::open_with(dir.path(), "egdb-verify 1 g", &[], false);
        journal.record(&SliceId::new("move-03-03"), 1);
        assert_eq!(std::fs::read_to_string(&victim).unwrap(), "keep me");
        assert!(read(&path, "egdb-verify 1 g")
            .unwrap()
            .contains_key("move-03-03"));
        // A link in the journal's own place is not read as one.
        std::fs::remove_file(&path).unwrap();
        std::os::unix::fs::symlink(&victim, &path).unwrap();
        assert!(read(&path, "egdb-verify 1 g").is_none());
    }
}
