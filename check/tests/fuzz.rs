//! Fuzzing the checks of stored tables: a slice's bytes passed every
//! checksum yet hold anything (a bug where they were made), are the wrong
//! size or encoding, or are missing or corrupt. A check must report what
//! it finds, never panic; correct tables (from the oracle) must pass.
//!
//! `PROPTEST_CASES` sets the cases per target: 256 unless set,
//! `deploy/fuzz.sh` runs a million.

use std::collections::HashMap;
use std::sync::atomic::AtomicBool;
use std::sync::OnceLock;

use egdb_check::{Checker, Fetched};
use egdb_db_format::encoding::{pack_value_depth16, pack_value_depth8};
use egdb_db_format::{CellEncoding, ValueCode};
use egdb_games::morris::{MorrisGame, Variant};
use egdb_games::nim::{oracle, NimGame};
use egdb_games::{Game, GameSpec, Rule, SliceId, SliceInfo, Value};
use proptest::prelude::*;
use proptest::sample::{select, Index};

#[path = "../../tests/common/fuzz_edits.rs"]
mod fuzz_edits;
use fuzz_edits::*;

/// A game with every slice's stored bytes: right for take-away games (from
/// the oracle), noise of the right size for Morris (no oracle covers every
/// arrangement of a slice).
struct Stored {
    game: Game,
    slices: Vec<SliceInfo>,
    bytes: HashMap<String, (CellEncoding, Vec<u8>)>,
    right: bool,
}

fn code(value: Value) -> ValueCode {
    match value {
        Value::Win => ValueCode::Win,
        Value::Loss => ValueCode::Loss,
        Value::Draw => ValueCode::Draw,
    }
}

fn nim_stored(spec: GameSpec, depth: bool) -> Stored {
    let game = NimGame::from_spec(&spec).expect("builds");
    let truth = oracle::solve(&game);
    let layout = game.layout();
    let mut bytes = HashMap::new();
    for h in 0..layout.slice_count() {
        let words = layout.words(h);
        let mut raw = Vec::new();
        for word in 0..words {
            let mut bits = 0u64;
            for bit in 0..64 {
                let position = layout.position(h, word, bit);
                let (value, plies) = truth[position as usize];
                if depth {
                    let canonical = game.symmetry().is_canonical(position);
                    raw.push(if canonical {
                        pack_value_depth8(code(value), plies as u8)
                    } else {
                        0
                    });
                }
                bits |= u64::from(value == Value::Win) << bit;
            }
            if !depth {
                raw.extend_from_slice(&bits.to_le_bytes());
            }
        }
        let encoding = if depth {
            CellEncoding::ValueDepth8
        } else {
            CellEncoding::WinBits
        };
        bytes.insert(egdb_games::nim::slice_id(h).to_string(), (encoding, raw));
    }
    let game = Game::Nim(game);
    Stored {
        slices: game.slices(),
        game,
        bytes,
        right: true,
    }
}

fn morris_stored(variant: Variant) -> Stored {
    let game = Game::Morris(MorrisGame::new(variant, 3));
    let slices = game.slices();
    let mut state = 0x2545_f491_4f6c_dd1du64;
    let mut bytes = HashMap::new();
    for info in &slices {
        let raw: Vec<u8> = (0..info.entries)
            .flat_map(|_| {
                state ^= state << 13;
                state ^= state >> 7;
                state ^= state << 17;
                let code = [ValueCode::Loss, ValueCode::Draw, ValueCode::Win][(state % 3) as usize];
                pack_value_depth16(code, (state >> 8) as u16 % 40).to_le_bytes()
            })
            .collect();
        bytes.insert(info.id.to_string(), (CellEncoding::ValueDepth16, raw));
    }
    Stored {
        game,
        slices,
        bytes,
        right: false,
    }
}

/// Triangles of 3 and 4 layers and the hexagram, values and depths;
/// Morris with 3 pieces under both rules.
fn stored() -> &'static [Stored] {
    static STORED: OnceLock<Vec<Stored>> = OnceLock::new();
    STORED.get_or_init(|| {
        let mut all = Vec::new();
        for spec in [
            GameSpec::NimTriangle {
                layers: 3,
                rule: Rule::Normal,
            },
            GameSpec::NimTriangle {
                layers: 4,
                rule: Rule::Misere,
            },
            GameSpec::NimHexagram,
        ] {
            for depth in [false, true] {
                all.push(nim_stored(spec.clone(), depth));
            }
        }
        all.push(morris_stored(Variant::Taiwan));
        all.push(morris_stored(Variant::Standard));
        all
    })
}

/// What a fetch gives for one slice.
#[derive(Debug, Clone)]
enum Change {
    Edited(Vec<ByteEdit>),
    /// Every cell set to one byte or one 16-bit cell.
    Filled(u16),
    Encoding(CellEncoding),
    Corrupt,
    Missing,
}

fn change() -> impl Strategy<Value = Change> {
    let edit = prop_oneof![
        6 => (any::<Index>(), 0u8..8).prop_map(|(i, b)| ByteEdit::Flip(i, b)),
        3 => (any::<Index>(), any::<u8>()).prop_map(|(i, b)| ByteEdit::Set(i, b)),
        1 => (any::<Index>(), any::<u8>()).prop_map(|(i, b)| ByteEdit::Insert(i, b)),
        1 => any::<Index>().prop_map(ByteEdit::Delete),
    ];
    prop_oneof![
        6 => prop::collection::vec(edit, 1..8).prop_map(Change::Edited),
        2 => prop_oneof![any::<u16>(), select(&[0u16, 0xffff, 0x4000, 0x8000, 0xc000, 0x3fff][..])]
            .prop_map(Change::Filled),
        1 => select(&[CellEncoding::WinBits, CellEncoding::ValueDepth8, CellEncoding::ValueDepth16][..])
            .prop_map(Change::Encoding),
        1 => Just(Change::Corrupt),
        1 => Just(Change::Missing),
    ]
}

fn fetched((encoding, raw): &(CellEncoding, Vec<u8>), change: Option<&Change>) -> Fetched {
    match change {
        None => Fetched::Slice(*encoding, raw.clone()),
        Some(Change::Edited(edits)) => Fetched::Slice(*encoding, edited(raw, edits)),
        Some(Change::Filled(cell)) => {
            let bytes = match encoding {
                CellEncoding::ValueDepth16 => {
                    raw.chunks(2).flat_map(|_| cell.to_le_bytes()).collect()
                }
                _ => vec![*cell as u8; raw.len()],
            };
            Fetched::Slice(*encoding, bytes)
        }
        Some(Change::Encoding(other)) => Fetched::Slice(*other, raw.clone()),
        Some(Change::Corrupt) => Fetched::Corrupt("fuzz".to_string()),
        Some(Change::Missing) => Fetched::Missing,
    }
}

/// Slices of at most this many entries are checked (Morris 3 v 3
/// movement slices take a while); their dependencies may be larger.
const MOST_ENTRIES: u64 = 40_000;

/// Checks `slice` (of the game or not) fetched with `changes`; right
/// tables, unchanged, must pass.
fn check(
    stored: &Stored,
    slice: &str,
    changes: &HashMap<String, Change>,
) -> Result<(), TestCaseError> {
    let mut checker = Checker::new(stored.game.clone(), 1 << 30);
    let found = checker.check(&SliceId::new(slice), &AtomicBool::new(false), |id| {
        Ok::<_, ()>(match stored.bytes.get(id.as_str()) {
            Some(bytes) => fetched(bytes, changes.get(id.as_str())),
            None => Fetched::Missing,
        })
    });
    let found = found.map_err(|()| TestCaseError::fail("the fetch never fails"))?;
    let check = found.ok_or_else(|| TestCaseError::fail("nothing cancelled the check"))?;
    prop_assert_eq!(check.slice.as_str(), slice);
    let planned = stored.slices.iter().any(|s| s.id.as_str() == slice);
    if changes.is_empty() && stored.right && planned {
        prop_assert!(check.passed(), "{:?}", check);
    }
    Ok(())
}

fn small(stored: &Stored) -> Vec<&SliceInfo> {
    stored
        .slices
        .iter()
        .filter(|s| s.entries <= MOST_ENTRIES)
        .collect()
}

#[test]
fn right_tables_pass() {
    for stored in stored() {
        for info in small(stored) {
            check(stored, info.id.as_str(), &HashMap::new()).unwrap();
        }
    }
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn stored_tables(
        game in any::<Index>(),
        slice in any::<Index>(),
        changes in prop::collection::vec((any::<Index>(), change()), 0..3),
        other in prop::option::weighted(0.05, "[a-z0-9-]{0,12}"),
    ) {
        let stored = game.get(stored());
        let small = small(stored);
        let info = slice.get(&small);
        // The slice or one it reads.
        let ids: Vec<String> = std::iter::once(info.id.to_string())
            .chain(info.dependencies.iter().map(|d| d.to_string()))
            .collect();
        let changes: HashMap<String, Change> = changes
            .into_iter()
            .map(|(which, change)| (which.get(&ids).clone(), change))
            .collect();
        check(stored, other.as_deref().unwrap_or(info.id.as_str()), &changes)?;
    }
}

/// A slice kept from an earlier check, as one that check read, is fetched
/// anew when it is itself checked: the bytes checked are those given now
/// (a worker reports their checksum), and damage in them is found.
#[test]
fn a_slice_checked_after_it_was_read_is_fetched_again() {
    // A right store's small slice that reads another small one.
    let (stored, reader, read) = stored()
        .iter()
        .filter(|s| s.right)
        .find_map(|stored| {
            let small = small(stored);
            small.iter().find_map(|info| {
                let dep = info
                    .dependencies
                    .iter()
                    .find(|d| small.iter().any(|s| s.id == **d))?;
                Some((stored, info.id.clone(), dep.clone()))
            })
        })
        .expect("a slice that reads another, both small");
    let mut checker = Checker::new(stored.game.clone(), 1 << 30);
    let never = AtomicBool::new(false);
    let fetches = std::cell::RefCell::new(HashMap::<String, u32>::new());
    let fetch = |damaged: bool| {
        let (fetches, read) = (&fetches, &read);
        move |id: &SliceId| {
            *fetches.borrow_mut().entry(id.to_string()).or_default() += 1;
            let change = (damaged && id == read).then_some(Change::Filled(0xffff));
            Ok::<_, ()>(match stored.bytes.get(id.as_str()) {
                Some(bytes) => fetched(bytes, change.as_ref()),
                None => Fetched::Missing,
            })
        }
    };
    let first = checker
        .check(&reader, &never, fetch(false))
        .unwrap()
        .unwrap();
    assert!(first.passed(), "{first:?}");
    let second = checker.check(&read, &never, fetch(true)).unwrap().unwrap();
    assert!(
        !second.passed(),
        "{read} was checked from what {reader}'s check kept"
    );
    assert_eq!(fetches.borrow()[read.as_str()], 2);
}
