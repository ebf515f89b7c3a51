//! Dependency bytes this process has already checked as sound, so that a
//! slice read again (by the next task, or after a check dropped the
//! solver's tables) is not checked again: on P = 12 the counts that check
//! Morris slices took 8.5 % of a worker's time, most of them of slices it
//! had read before.
//!
//! Bytes are known by a BLAKE3 digest, not a CRC: a CRC can be forged, so a
//! coordinator or cache writer that knows which bytes passed could hand in
//! others with the same CRC (cells the engines take as never stored) and
//! skip the check that refuses them.

use std::collections::BTreeSet;
use std::sync::Mutex;

/// Pairs kept at most; past it the set starts again (a game has a few
/// thousand slices, so only a process that lives through many games
/// gets there).
const MOST: usize = 1 << 16;

/// A slice's id and the digest of bytes of it found sound.
type Sound = (String, [u8; 32]);

/// Slices by id and the digest of their raw bytes, each found sound once.
#[derive(Debug, Default)]
pub struct SoundShards {
    seen: Mutex<BTreeSet<Sound>>,
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
        let key = (id.to_string(), *blake3::hash(raw).as_bytes());
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
    fn lock(&self) -> std::sync::MutexGuard<'_, BTreeSet<Sound>> {
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
    fn bytes_with_the_crc_of_sound_ones_are_checked_again() {
        let (sound_bytes, forged) = crc32_collision();
        let sound = SoundShards::new();
        let runs = &Cell::new(0);
        let check = |bytes: &[u8]| {
            let ok = bytes == sound_bytes;
            move || -> Result<(), String> {
                runs.set(runs.get() + 1);
                if ok {
                    Ok(())
                } else {
                    Err("refused".to_string())
                }
            }
        };
        sound
            .check_once("a", &sound_bytes, check(&sound_bytes))
            .unwrap();
        assert!(
            sound.check_once("a", &forged, check(&forged)).is_err(),
            "the same CRC-32 is no proof of the same bytes"
        );
        assert_eq!(runs.get(), 2);
    }

    /// Two different 8-byte strings with one CRC-32, found by counting
    /// (about 2^16 hashes by the birthday bound). The count is spread over
    /// all 64 bits: strings that differ within 32 bits never collide.
    fn crc32_collision() -> (Vec<u8>, Vec<u8>) {
        let spread = |n: u64| n.wrapping_mul(0x9e37_79b9_7f4a_7c15).to_le_bytes();
        let mut first = std::collections::HashMap::new();
        for n in 0u64.. {
            if let Some(earlier) = first.insert(crc32fast::hash(&spread(n)), n) {
                return (spread(earlier).to_vec(), spread(n).to_vec());
            }
        }
        unreachable!("a 32-bit hash collides within 2^32 + 1 inputs")
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
