//! Slices: the unit of scheduling, storage and verification.

use std::fmt;

/// A slice's stable, human-readable id, e.g. `outer-07`.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct SliceId(String);

/// The longest slice id any family makes, with room to spare.
pub const MAX_SLICE_ID: usize = 64;

/// Text from outside that is not a slice id.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("a slice id is 1 to {MAX_SLICE_ID} letters, digits, - or _ (this one has {bytes} bytes)")]
pub struct NotASliceId {
    pub bytes: usize,
}

impl SliceId {
    /// An id the families make (trusted: it is not checked).
    pub fn new(id: impl Into<String>) -> SliceId {
        SliceId(id.into())
    }

    /// An id from outside (a peer, a file), checked to be short and plain
    /// before it is echoed into answers and logs.
    ///
    /// # Errors
    /// [`NotASliceId`] for an empty or longer id, or one with other
    /// characters.
    pub fn parse(id: &str) -> Result<SliceId, NotASliceId> {
        let plain = |c: char| c.is_ascii_alphanumeric() || c == '-' || c == '_';
        if (1..=MAX_SLICE_ID).contains(&id.len()) && id.chars().all(plain) {
            return Ok(SliceId(id.to_string()));
        }
        Err(NotASliceId { bytes: id.len() })
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }
}

/// Maps keyed by id are looked up with the text a store record holds.
impl std::borrow::Borrow<str> for SliceId {
    fn borrow(&self) -> &str {
        &self.0
    }
}

impl PartialEq<&str> for SliceId {
    fn eq(&self, other: &&str) -> bool {
        self.0 == *other
    }
}

impl fmt::Display for SliceId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// What a scheduler needs to know of a slice before anyone solves it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SliceInfo {
    pub id: SliceId,
    /// Positions in the slice, every arrangement once.
    pub positions: u64,
    /// Cells of the slice's table as stored: Nim has 64 per word (some
    /// unused where a word holds fewer positions), Morris one per index
    /// entry of each table.
    pub entries: u64,
    /// Cells a worker holds of the table while solving with depths: Nim
    /// depth tables keep one row of each symmetry orbit; else `entries`.
    pub kept_entries: u64,
    /// Slices whose values this one reads; all come earlier in the plan.
    pub dependencies: Vec<SliceId>,
    /// Stones left outside the word block (Nim).
    pub stones: Option<u32>,
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Game, GameSpec};

    /// Every id a family makes passes the check ids from outside meet.
    #[test]
    fn every_family_makes_ids_that_parse() {
        for spec in [
            "nim:triangle:8:normal",
            "nim:triangle:3:misere",
            "nim:hexagram",
            "morris:taiwan:12",
            "morris:taiwan-protected:12",
            "morris:standard:12",
            "morris:morabaraba:12",
        ] {
            let game = Game::from_spec(&spec.parse::<GameSpec>().expect("a spec")).expect("a game");
            for slice in game.slices() {
                assert_eq!(
                    SliceId::parse(slice.id.as_str()).as_ref(),
                    Ok(&slice.id),
                    "{spec}"
                );
            }
        }
    }

    #[test]
    fn ids_that_are_long_empty_or_not_plain_are_refused() {
        for bad in ["", "a b", "x\u{1b}[2J", "dé", &"x".repeat(MAX_SLICE_ID + 1)] {
            let refused = SliceId::parse(bad).expect_err(bad);
            assert_eq!(refused.bytes, bad.len());
        }
        assert!(SliceId::parse(&"x".repeat(MAX_SLICE_ID)).is_ok());
        let id = SliceId::new("move-03-02");
        let map = std::collections::HashMap::from([(id.clone(), 1)]);
        assert_eq!(map.get("move-03-02"), Some(&1));
        assert!(id == "move-03-02");
    }
}
