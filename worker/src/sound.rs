//! Dependency bytes this process has already checked as sound, so that a
//! slice read again (by the next task, or after a check dropped the
//! solver's tables) is not checked again: on P = 12 the counts that check
//! Morris slices took 8.5 % of a worker's time, most of them of slices it
//! had read before.

use std::collections::BTreeSet;
use std::sync::Mutex;

/// Pairs kept at most; past it the set starts again (a game has a few
/// thousand slices, so only a process that lives through many games
/// gets there).
const MOST: usize = 1 << 16;

/// Slices by id and the CRC-32 of their raw bytes, each found sound once.
#[derive(Debug, Default)]
pub struct SoundShards {
    seen: Mutex<BTreeSet<(String, u32)>>,
}

impl SoundShards {
    pub const fn new() -> SoundShards {
        SoundShards {
            seen: Mutex::new(BTreeSet::new()),
        }
    }

    /// Runs `check` on `raw`, the bytes of slice `id`, unless the same
    /// bytes of the same slice passed it before; only a pass is kept.
    ///
    /// # Errors
    /// What `check` fails with.
    pub fn check_once<E>(
        &self,
        id: &str,
        raw: &[u8],
        check: impl FnOnce() -> Result<(), E>,
    ) -> Result<(), E> {
        let key = (id.to_string(), crc32fast::hash(raw));
        if self.lock().contains(&key) {
            return Ok(());
        }
        check()?;
        let mut seen = self.lock();
        if seen.len() >= MOST {
            seen.clear();
        }
        seen.insert(key);
        Ok(())
    }

    /// The set, also after a thread panicked holding it: it only ever
    /// holds whole pairs.
    fn lock(&self) -> std::sync::MutexGuard<'_, BTreeSet<(String, u32)>> {
        self.seen
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }
}

#[cfg(test)]
mod tests {
    use std::cell::Cell;

    use super::*;

    #[test]
    fn the_same_bytes_are_checked_once_and_other_bytes_again() {
        let sound = SoundShards::new();
        let runs = Cell::new(0);
        let pass = || -> Result<(), String> {
            runs.set(runs.get() + 1);
            Ok(())
        };
        sound.check_once("a", b"xy", pass).unwrap();
        sound.check_once("a", b"xy", pass).unwrap();
        assert_eq!(runs.get(), 1, "the same bytes of the same slice");
        sound.check_once("a", b"xz", pass).unwrap();
        sound.check_once("b", b"xy", pass).unwrap();
        assert_eq!(runs.get(), 3, "other bytes, or another slice");
    }

    #[test]
    fn a_failed_check_is_not_kept() {
        let sound = SoundShards::new();
        let runs = Cell::new(0);
        let fail = || -> Result<(), String> {
            runs.set(runs.get() + 1);
            Err("misplaced".to_string())
        };
        assert!(sound.check_once("a", b"xy", fail).is_err());
        assert!(sound.check_once("a", b"xy", fail).is_err());
        assert_eq!(runs.get(), 2, "refused each time, never taken as sound");
    }
}
