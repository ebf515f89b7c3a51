//! Morris slices checked from decoded tables in memory.

use std::collections::{HashMap, VecDeque};
use std::sync::Arc;

use egdb_db_format::FormatError;
use egdb_games::morris::{MorrisGame, MorrisSlice};
use egdb_tablebase::check::morris::{check_morris, MorrisTables};

use super::{corrupt, SliceCheck};
use crate::tablebase::Tablebase;
use crate::CoordinatorError;

/// Decoded slices kept for the checks to come, oldest out first.
pub(super) struct Loaded {
    budget: u64,
    bytes: u64,
    slices: HashMap<MorrisSlice, Arc<MorrisTables>>,
    order: VecDeque<MorrisSlice>,
    /// Each slice's dependencies, from the game's plan.
    plan: Option<HashMap<MorrisSlice, Vec<MorrisSlice>>>,
}

/// Why a slice could not be loaded.
enum Unloadable {
    /// Its bytes fail a check: the slice's own check fails with this.
    Corrupt(String),
    Error(CoordinatorError),
}

impl From<FormatError> for Unloadable {
    fn from(e: FormatError) -> Unloadable {
        match e {
            FormatError::Corrupt { .. } => Unloadable::Corrupt(e.to_string()),
            e => Unloadable::Error(e.into()),
        }
    }
}

impl Loaded {
    pub(super) fn new(budget: u64) -> Loaded {
        Loaded {
            budget,
            bytes: 0,
            slices: HashMap::new(),
            order: VecDeque::new(),
            plan: None,
        }
    }

    pub(super) fn check(
        &mut self,
        tablebase: &Tablebase,
        game: &MorrisGame,
        slice: &str,
    ) -> Result<SliceCheck, CoordinatorError> {
        let unknown = || CoordinatorError::Unverifiable {
            slice: slice.to_string(),
            reason: "not a slice of the store's game".to_string(),
        };
        let parsed = MorrisSlice::parse(slice).ok_or_else(unknown)?;
        let plan = self
            .plan
            .get_or_insert_with(|| game.plan().into_iter().collect());
        let deps = plan.get(&parsed).ok_or_else(unknown)?.clone();
        let own = match self.load(tablebase, parsed) {
            Ok(own) => own,
            Err(Unloadable::Corrupt(reason)) => return Ok(corrupt(slice, reason)),
            Err(Unloadable::Error(e)) => return Err(e),
        };
        let mut read = HashMap::new();
        for dep in deps {
            match self.load(tablebase, dep) {
                Ok(tables) => {
                    read.insert(dep, tables);
                }
                Err(Unloadable::Corrupt(reason)) => {
                    let why =
                        format!("its moves lead into slice {dep}, which is corrupt ({reason})");
                    return Ok(corrupt(slice, why));
                }
                Err(Unloadable::Error(CoordinatorError::SliceNotFound { .. })) => {
                    let why = format!("its moves lead into slice {dep}, which is missing");
                    return Ok(corrupt(slice, why));
                }
                Err(Unloadable::Error(e)) => return Err(e),
            }
        }
        let rules = game.rules();
        match check_morris(rules, &own, |s| read.get(&s).map(Arc::as_ref)) {
            Ok(check) => Ok(check),
            Err(e) => Ok(corrupt(slice, e.to_string())),
        }
    }

    /// The decoded slice, from the cache or the store (every block's and
    /// the slice's checksum checked).
    fn load(
        &mut self,
        tablebase: &Tablebase,
        slice: MorrisSlice,
    ) -> Result<Arc<MorrisTables>, Unloadable> {
        if let Some(tables) = self.slices.get(&slice) {
            return Ok(Arc::clone(tables));
        }
        let id = slice.to_string();
        if tablebase.store().slice(&id)?.is_none() {
            return Err(Unloadable::Error(CoordinatorError::SliceNotFound {
                slice: id,
            }));
        }
        let (_, raw) = tablebase.store().read_slice(&id)?;
        let tables = MorrisTables::from_bytes(slice, &raw)
            .map_err(|e| Unloadable::Corrupt(e.to_string()))?;
        drop(raw);
        let tables = Arc::new(tables);
        self.bytes += tables.bytes();
        self.slices.insert(slice, Arc::clone(&tables));
        self.order.push_back(slice);
        while self.bytes > self.budget && self.order.len() > 1 {
            let Some(oldest) = self.order.pop_front() else {
                break;
            };
            if let Some(gone) = self.slices.remove(&oldest) {
                self.bytes -= gone.bytes();
            }
        }
        Ok(tables)
    }
}
