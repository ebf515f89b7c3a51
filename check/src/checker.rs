//! Checking slices one after another: each slice and the slices its moves
//! lead into are fetched (by the caller: from a store, or from a
//! coordinator), decoded, kept for the checks to come, and checked.

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use egdb_db_format::CellEncoding;
use egdb_games::morris::MorrisSlice;
use egdb_games::nim::slice_id as nim_slice_id;
use egdb_games::{with_game, Game, SliceId, SliceInfo};

use crate::cells::{check_cells, CellTable};
use crate::identity::misfit;
use crate::loaded::Loaded;
use crate::morris::{check_morris, MorrisTables};
use crate::nim::{check_nim, NimTable};
use crate::SliceCheck;

/// What fetching a slice's bytes gave.
#[derive(Debug)]
pub enum Fetched {
    /// The slice's bytes, every block's and the slice's checksum checked.
    Slice(CellEncoding, Vec<u8>),
    /// Its bytes fail a check; the reason.
    Corrupt(String),
    /// The slice is not there.
    Missing,
}

/// Checks slices of one game, keeping decoded slices up to a budget.
pub struct Checker {
    game: Game,
    /// Each slice's place in the game's plan, and the slice.
    plan: HashMap<SliceId, (u32, SliceInfo)>,
    morris: Loaded<MorrisSlice, MorrisTables>,
    nim: Loaded<u32, NimTable>,
    /// Families without a checker of their own: by place in the plan.
    cells: Loaded<u32, CellTable>,
}

/// What a decoded slice is kept under: a Morris slice, a Nim slice's
/// number, another family's place in the plan.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Key {
    Morris(MorrisSlice),
    Nim(u32),
    Cells(u32),
}

/// A slice decoded for a check.
enum Decoded {
    Morris(Arc<MorrisTables>),
    Nim(Arc<NimTable>),
    Cells(Arc<CellTable>),
}

impl Decoded {
    fn morris(&self) -> Option<(MorrisSlice, &MorrisTables)> {
        match self {
            Decoded::Morris(t) => Some((t.slice, t)),
            _ => None,
        }
    }

    fn nim(&self) -> Option<(u32, &NimTable)> {
        match self {
            Decoded::Nim(t) => Some((t.stones, t)),
            _ => None,
        }
    }

    fn cells(&self) -> Option<(u32, &CellTable)> {
        match self {
            Decoded::Cells(t) => Some((t.place, t)),
            _ => None,
        }
    }
}

impl Checker {
    /// A checker keeping up to `memory` bytes of decoded slices between
    /// checks.
    pub fn new(game: Game, memory: u64) -> Checker {
        let plan = game
            .slices()
            .into_iter()
            .enumerate()
            .map(|(i, s)| (s.id.clone(), (i as u32, s)))
            .collect();
        Checker {
            game,
            plan,
            morris: Loaded::new(memory),
            nim: Loaded::new(memory),
            cells: Loaded::new(memory),
        }
    }

    pub fn game(&self) -> &Game {
        &self.game
    }

    /// Checks `slice`; `fetch` gives the bytes of it and of the slices it
    /// reads. A slice that is corrupt, or reads a corrupt or missing slice,
    /// fails its check. `None` when `cancel` was set meanwhile.
    ///
    /// # Errors
    /// What `fetch` fails with (I/O, not damage).
    pub fn check<E>(
        &mut self,
        slice: &SliceId,
        cancel: &AtomicBool,
        mut fetch: impl FnMut(&SliceId) -> Result<Fetched, E>,
    ) -> Result<Option<SliceCheck>, E> {
        let failed = |reason: String| SliceCheck::corrupt(slice.clone(), reason);
        let Some(deps) = self.plan.get(slice).map(|(_, s)| s.dependencies.clone()) else {
            return Ok(Some(failed("not a slice of the store's game".to_string())));
        };
        // The slice itself is read anew, even if an earlier check kept it
        // as one it read: what is checked is what `fetch` gives now (the
        // caller takes the checksum of those bytes).
        if let Some(key) = self.key(slice) {
            self.forget(key);
        }
        self.make_room(slice, &deps);
        let own = match self.load(slice, &mut fetch)? {
            Ok(own) => own,
            Err(reason) => return Ok(Some(failed(reason))),
        };
        let mut read = Vec::with_capacity(deps.len());
        for dep in &deps {
            match self.load(dep, &mut fetch)? {
                Ok(decoded) => read.push(decoded),
                Err(reason) => {
                    let why = format!("its moves lead into slice {dep}: {reason}");
                    return Ok(Some(failed(why)));
                }
            }
        }
        let found = match (&self.game, own) {
            (Game::Morris(game), Decoded::Morris(own)) => {
                let tables: HashMap<MorrisSlice, &MorrisTables> =
                    read.iter().filter_map(Decoded::morris).collect();
                check_morris(game.rules(), &own, cancel, |s| tables.get(&s).copied())
                    .map_err(|e| e.to_string())
            }
            (Game::Nim(game), Decoded::Nim(own)) => {
                let tables: HashMap<u32, &NimTable> =
                    read.iter().filter_map(Decoded::nim).collect();
                check_nim(game, &own, cancel, |h| tables.get(&h).copied())
                    .map_err(|e| e.to_string())
            }
            (game, Decoded::Cells(own)) => {
                let tables: HashMap<u32, &CellTable> =
                    read.iter().filter_map(Decoded::cells).collect();
                // Moves may stay in the slice.
                let table = |p: u32| match p == own.place {
                    true => Some(own.as_ref()),
                    false => tables.get(&p).copied(),
                };
                with_game!(game, g => check_cells(g, slice, &own, cancel, table))
            }
            _ => Err("decoded as another family's slice".to_string()),
        };
        if cancel.load(Ordering::Relaxed) {
            return Ok(None);
        }
        Ok(Some(found.unwrap_or_else(failed)))
    }

    /// Drops kept slices that a check of `slice` does not read, oldest
    /// first, until those it still has to fetch fit in the budget beside
    /// the rest, with the largest one's fetched bytes held while it is
    /// decoded. Dropping only as each slice came in let the slices kept
    /// from earlier checks and this check's own pass the budget together
    /// (P = 12: 11.8 GiB under 9 GiB).
    fn make_room(&mut self, slice: &SliceId, deps: &[SliceId]) {
        let mut keys = Vec::with_capacity(deps.len() + 1);
        let (mut fetched, mut largest) = (0, 0);
        for read in std::iter::once(slice).chain(deps) {
            let Some(key) = self.key(read) else {
                continue;
            };
            if self.kept_under(key).is_none() {
                // Cells of at most 16 bits: a bound for every family's tables.
                let bytes = self.plan.get(read).map_or(0, |(_, info)| 2 * info.entries);
                fetched += bytes;
                largest = largest.max(bytes);
            }
            keys.push(key);
        }
        let room = fetched + largest;
        self.morris
            .make_room(room, |k| keys.contains(&Key::Morris(*k)));
        self.nim.make_room(room, |k| keys.contains(&Key::Nim(*k)));
        self.cells
            .make_room(room, |k| keys.contains(&Key::Cells(*k)));
    }

    /// The slices kept decoded for the checks to come.
    pub fn kept_slices(&self) -> Vec<SliceId> {
        let morris = self.morris.keys().map(|s| SliceId::new(s.to_string()));
        let nim = self.nim.keys().map(|&h| nim_slice_id(h));
        let cells = self.cells.keys().filter_map(|&place| {
            self.plan
                .iter()
                .find(|(_, (at, _))| *at == place)
                .map(|(id, _)| id.clone())
        });
        morris.chain(nim).chain(cells).collect()
    }

    /// Drops what is kept under `key`.
    fn forget(&mut self, key: Key) {
        match key {
            Key::Morris(s) => self.morris.remove(s),
            Key::Nim(h) => self.nim.remove(h),
            Key::Cells(place) => self.cells.remove(place),
        }
    }

    /// What `slice` is kept under, in its family's [`Loaded`].
    fn key(&self, slice: &SliceId) -> Option<Key> {
        match &self.game {
            Game::Morris(_) => MorrisSlice::parse(slice.as_str()).map(Key::Morris),
            Game::Nim(game) => game.slice_number(slice).map(Key::Nim),
            _ => self.plan.get(slice).map(|(place, _)| Key::Cells(*place)),
        }
    }

    /// The decoded slice, if it is kept.
    fn kept(&self, slice: &SliceId) -> Option<Decoded> {
        self.key(slice).and_then(|key| self.kept_under(key))
    }

    /// The decoded slice kept under `key`, if any.
    fn kept_under(&self, key: Key) -> Option<Decoded> {
        match key {
            Key::Morris(s) => self.morris.get(s).map(Decoded::Morris),
            Key::Nim(h) => self.nim.get(h).map(Decoded::Nim),
            Key::Cells(place) => self.cells.get(place).map(Decoded::Cells),
        }
    }

    /// The decoded slice, loaded before or fetched now; `Ok(Err(reason))` when it is
    /// corrupt or missing.
    fn load<E>(
        &mut self,
        slice: &SliceId,
        fetch: &mut impl FnMut(&SliceId) -> Result<Fetched, E>,
    ) -> Result<Result<Decoded, String>, E> {
        if let Some(kept) = self.kept(slice) {
            return Ok(Ok(kept));
        }
        let (encoding, raw) = match fetch(slice)? {
            Fetched::Slice(encoding, raw) => (encoding, raw),
            Fetched::Corrupt(reason) => return Ok(Err(reason)),
            Fetched::Missing => return Ok(Err("the slice is missing".to_string())),
        };
        let decoded = match &self.game {
            Game::Morris(_) => {
                let Some(parsed) = MorrisSlice::parse(slice.as_str()) else {
                    return Ok(Err("not a Morris slice".to_string()));
                };
                if encoding != CellEncoding::ValueDepth16 {
                    return Ok(Err(format!("{encoding:?} cells in a Morris slice")));
                }
                match MorrisTables::from_bytes(parsed, &raw) {
                    Ok(tables) => {
                        drop(raw);
                        let bytes = tables.bytes();
                        Decoded::Morris(self.morris.insert(parsed, tables, bytes))
                    }
                    Err(e) => return Ok(Err(e.to_string())),
                }
            }
            Game::Nim(game) => {
                let Some(h) = game.slice_number(slice) else {
                    return Ok(Err("not a slice of this game".to_string()));
                };
                match NimTable::new(game, h, encoding, raw) {
                    Ok(table) => {
                        let bytes = table.bytes();
                        Decoded::Nim(self.nim.insert(h, table, bytes))
                    }
                    Err(e) => return Ok(Err(e.to_string())),
                }
            }
            game => {
                let Some((place, info)) = self.plan.get(slice) else {
                    return Ok(Err("not a slice of this game".to_string()));
                };
                if let Some(reason) = misfit(game, info, encoding, raw.len() as u64) {
                    return Ok(Err(reason));
                }
                let table = CellTable {
                    place: *place,
                    encoding,
                    entries: info.entries,
                    raw,
                };
                let bytes = table.bytes();
                Decoded::Cells(self.cells.insert(*place, table, bytes))
            }
        };
        Ok(Ok(decoded))
    }
}
