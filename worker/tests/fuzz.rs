//! Fuzzing what a worker takes from its coordinator: shards (as messages,
//! as bytes off the wire, damaged in transfer), the tables inside shards
//! that passed their checksums (a peer's bug, not transport damage), and
//! tasks naming slices and dependencies. Each must answer Ok or Err, never
//! panic; what is undamaged must decode, and solve to the same bytes.
//!
//! `PROPTEST_CASES` sets the cases per target: 256 unless set,
//! `deploy/fuzz.sh` runs a million.

use std::collections::HashMap;
use std::sync::atomic::AtomicBool;
use std::sync::{Arc, OnceLock};

use egdb_db_format::{CellEncoding, Packing};
use egdb_games::morris::{MorrisGame, MorrisSlice, Variant};
use egdb_games::nim::{slice_id, NimGame};
use egdb_games::{GameSpec, Rule, SliceId, SliceInfo};
use egdb_proto::v1::{self, ShardBlock};
use egdb_proto::{
    BuildStatus, CheckReport, Coordinator, Lease, LinkError, LinkKind, Registration, Shard,
    SliceResult, Task, WorkerInfo,
};
use egdb_worker::morris::task::{from_stored, stored_bytes, MorrisTasks};
use egdb_worker::morris::{Dependencies, MorrisEngine, SolvedSlice, SolvedTable};
use egdb_worker::nim::task::NimTasks;
use egdb_worker::nim::{solve_all, NimEngine};
use egdb_worker::shard::{decode_shard, encode_shard};
use egdb_worker::solver::{Keeping, ShardOptions, SliceSolver, SolveContext};
use egdb_worker::sound::SoundShards;
use egdb_worker::source::ShardSource;
use egdb_worker::{ShardCache, WorkerError};
use proptest::prelude::*;
use proptest::sample::{select, Index};
use proptest::strategy::ValueTree;
use prost::Message;

#[path = "../../tests/common/fuzz_edits.rs"]
mod fuzz_edits;
use fuzz_edits::*;

const OPTIONS: ShardOptions = ShardOptions {
    block_bytes: 1024,
    packing: Packing::Small(1),
};

// ---- Shards ----

/// How a shard may arrive damaged.
#[derive(Debug, Clone)]
enum ShardDamage {
    SliceId(String),
    Encoding(u32),
    RawLen(u64),
    Crc(u32),
    BlockBytes(u64),
    /// One block's record edited, its CRC made to hold or not.
    Block(Index, Vec<ByteEdit>, bool),
    BlockIndex(Index, u32),
    DropBlock(Index),
    RepeatBlock(Index),
    SwapBlocks(Index, Index),
    ExtraBlock(Vec<u8>),
}

fn shard_damage() -> impl Strategy<Value = ShardDamage> {
    prop_oneof![
        1 => prop_oneof![Just(String::new()), "[a-z0-9-]{0,10}"].prop_map(ShardDamage::SliceId),
        1 => prop_oneof![0u32..=4, any::<u32>()].prop_map(ShardDamage::Encoding),
        1 => prop_oneof![0u64..10_000, any::<u64>()].prop_map(ShardDamage::RawLen),
        1 => any::<u32>().prop_map(ShardDamage::Crc),
        1 => prop_oneof![0u64..=2048, Just(16 << 20), any::<u64>()].prop_map(ShardDamage::BlockBytes),
        3 => (any::<Index>(), byte_edits(), prop::bool::weighted(0.7))
            .prop_map(|(i, e, fix)| ShardDamage::Block(i, e, fix)),
        1 => (any::<Index>(), prop_oneof![0u32..8, any::<u32>()])
            .prop_map(|(i, v)| ShardDamage::BlockIndex(i, v)),
        1 => any::<Index>().prop_map(ShardDamage::DropBlock),
        1 => any::<Index>().prop_map(ShardDamage::RepeatBlock),
        1 => (any::<Index>(), any::<Index>()).prop_map(|(a, b)| ShardDamage::SwapBlocks(a, b)),
        1 => prop::collection::vec(any::<u8>(), 0..64).prop_map(ShardDamage::ExtraBlock),
    ]
}

fn damaged(shard: &v1::Shard, damage: &[ShardDamage]) -> v1::Shard {
    let mut shard = shard.clone();
    for d in damage {
        let n = shard.blocks.len();
        match d {
            ShardDamage::SliceId(id) => shard.slice_id = id.clone(),
            ShardDamage::Encoding(e) => shard.encoding = *e,
            ShardDamage::RawLen(v) => shard.raw_len = *v,
            ShardDamage::Crc(v) => shard.raw_crc32 = *v,
            ShardDamage::BlockBytes(v) => shard.block_bytes = *v,
            ShardDamage::Block(i, edits, fix) if n > 0 => {
                let block = &mut shard.blocks[i.index(n)];
                let record = edited(&block.record, edits);
                block.record = if *fix { with_crc(record) } else { record };
            }
            ShardDamage::BlockIndex(i, v) if n > 0 => shard.blocks[i.index(n)].index = *v,
            ShardDamage::DropBlock(i) if n > 0 => {
                shard.blocks.remove(i.index(n));
            }
            ShardDamage::RepeatBlock(i) if n > 0 => {
                let i = i.index(n);
                let block = shard.blocks[i].clone();
                shard.blocks.insert(i, block);
            }
            ShardDamage::SwapBlocks(a, b) if n > 0 => shard.blocks.swap(a.index(n), b.index(n)),
            ShardDamage::ExtraBlock(record) => shard.blocks.push(ShardBlock {
                index: n as u32,
                record: record.clone(),
            }),
            _ => {}
        }
    }
    shard
}

/// Decodes a shard as received (converted, then checked); what decodes is
/// its announced length and checksum.
fn check_decode(received: &v1::Shard) -> Result<Option<Vec<u8>>, TestCaseError> {
    let Ok(shard) = Shard::try_from(received.clone()) else {
        return Ok(None);
    };
    let Ok((encoding, raw)) = decode_shard(&shard) else {
        return Ok(None);
    };
    prop_assert_eq!(u32::from(encoding.tag()), received.encoding);
    prop_assert_eq!(raw.len() as u64, shard.raw_len);
    prop_assert_eq!(crc32fast::hash(&raw), shard.raw_crc32);
    Ok(Some(raw))
}

fn raw_bytes() -> impl Strategy<Value = Vec<u8>> {
    prop_oneof![
        prop::collection::vec(any::<u8>(), 0..6000),
        (any::<u8>(), 0usize..6000).prop_map(|(b, n)| vec![b; n]),
    ]
}

fn valid_shard() -> impl Strategy<Value = (v1::Shard, Vec<u8>)> {
    (
        "[a-z0-9-]{1,10}",
        encoding(),
        raw_bytes(),
        prop_oneof![1usize..=64, 65usize..=4096],
        -1i32..=3,
    )
        .prop_map(|(id, encoding, raw, block_bytes, level)| {
            let shard = encode_shard(
                &SliceId::new(id),
                encoding,
                &raw,
                block_bytes,
                Packing::Small(level),
            )
            .expect("encodes");
            (v1::Shard::from(shard), raw)
        })
}

fn arbitrary_shard() -> impl Strategy<Value = v1::Shard> {
    let block = (
        prop_oneof![0u32..4, any::<u32>()],
        prop::collection::vec(any::<u8>(), 0..64),
    )
        .prop_map(|(index, record)| ShardBlock { index, record });
    (
        "[a-z0-9-]{0,10}",
        prop_oneof![1u32..=3, any::<u32>()],
        prop_oneof![0u64..256, any::<u64>()],
        any::<u32>(),
        prop_oneof![0u64..=256, any::<u64>()],
        prop::collection::vec(block, 0..5),
    )
        .prop_map(
            |(slice_id, encoding, raw_len, raw_crc32, block_bytes, blocks)| v1::Shard {
                slice_id,
                encoding,
                raw_len,
                raw_crc32,
                block_bytes,
                blocks,
            },
        )
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn shards_arbitrary(shard in arbitrary_shard()) {
        check_decode(&shard)?;
    }

    #[test]
    fn shards_damaged(
        (shard, raw) in valid_shard(),
        damage in prop::collection::vec(shard_damage(), 0..3),
    ) {
        let decoded = check_decode(&damaged(&shard, &damage))?;
        if damage.is_empty() {
            prop_assert_eq!(decoded, Some(raw));
        }
    }

    #[test]
    fn shards_from_wire_bytes(
        (shard, _) in valid_shard(),
        edits in prop::option::weighted(0.8, byte_edits()),
        arbitrary in prop::option::weighted(0.2, prop::collection::vec(any::<u8>(), 0..256)),
    ) {
        let bytes = match (arbitrary, edits) {
            (Some(bytes), _) => bytes,
            (None, Some(edits)) => edited(&shard.encode_to_vec(), &edits),
            (None, None) => shard.encode_to_vec(),
        };
        if let Ok(received) = v1::Shard::decode(bytes.as_slice()) {
            check_decode(&received)?;
        }
    }
}

/// A worker's cached shard file, edited on disk: refused (and the file
/// removed; or kept, when it announces more than the worker's memory, for
/// one with more), or read back to a shard whose table is the one put.
#[test]
fn cached_shard_files() {
    let dir = tempfile::tempdir().unwrap();
    let max_raw = 4000;
    let cache = ShardCache::open(dir.path())
        .unwrap()
        .with_max_shard_bytes(max_raw);
    let task = Task {
        game: "nim:triangle:5:normal".to_string(),
        depth: false,
        game_definition: None,
        slice_id: SliceId::new("next"),
        dependencies: Vec::new(),
        verify: false,
        zstd_only: false,
        memory: 0,
    };
    let files = dir.path().join("nim-triangle-5-normal-00000000.shards");
    run((valid_shard(), byte_edits()), |((sent, raw), edits)| {
        let shard = Shard::try_from(sent).expect("valid");
        cache.put(&task, &shard).unwrap();
        let file = files.join(format!("{}.shard", shard.slice_id));
        let good = std::fs::read(&file).unwrap();
        std::fs::write(&file, edited(&good, &edits)).unwrap();
        match cache.get(&task, &shard.slice_id) {
            Ok(Some(back)) => {
                // Fields outside the blocks are checked with the table.
                if let Ok((_, table)) = decode_shard(&back) {
                    prop_assert_eq!(table, raw);
                }
            }
            Ok(None) => prop_assert!(false, "a file there reads as none"),
            Err(WorkerError::BadShard { reason, .. }) => {
                prop_assert!(reason.contains("raw bytes"), "{reason}");
                prop_assert!(file.exists());
            }
            Err(e) => prop_assert!(!file.exists(), "{e}"),
        }
        Ok(())
    });
}

// ---- Tables inside checked shards, and tasks ----

/// A coordinator that serves fixed shards (as they come off the wire) and
/// nothing else.
struct Served(HashMap<String, v1::Shard>);

fn not_served() -> LinkError {
    LinkError::internal("not served here")
}

impl Coordinator for Served {
    fn register(&self, _: &WorkerInfo) -> Result<Registration, LinkError> {
        Err(not_served())
    }
    fn lease(&self, _: &str) -> Result<Lease, LinkError> {
        Err(not_served())
    }
    fn heartbeat(&self, _: &str, _: &SliceId) -> Result<bool, LinkError> {
        Err(not_served())
    }
    fn fetch_shard(&self, _: &str, slice_id: &SliceId) -> Result<Shard, LinkError> {
        let received =
            self.0.get(slice_id.as_str()).cloned().ok_or_else(|| {
                LinkError::new(LinkKind::NotFound, format!("{slice_id} is not done"))
            })?;
        // As the client does.
        Shard::try_from(received).map_err(|e| LinkError::new(LinkKind::DataLoss, e.to_string()))
    }
    fn complete(&self, _: &str, _: SliceResult) -> Result<(), LinkError> {
        Err(not_served())
    }
    fn fail(&self, _: &str, _: &SliceId, _: &str) -> Result<(), LinkError> {
        Err(not_served())
    }
    fn status(&self) -> Result<BuildStatus, LinkError> {
        Err(not_served())
    }
    fn checked(&self, _: &str, _: CheckReport) -> Result<(), LinkError> {
        Err(not_served())
    }
}

/// A small game solved whole: every slice's stored bytes and shard.
struct Solved {
    spec: GameSpec,
    /// Take-away games' engine (tables are loaded through it).
    engine: Option<NimEngine>,
    depth: bool,
    slices: Vec<SliceInfo>,
    raw: HashMap<String, (CellEncoding, Vec<u8>)>,
    shards: HashMap<String, v1::Shard>,
}

/// `raw` of slice `id` as a worker's shard source receives it.
fn stored_shard(id: &str, encoding: CellEncoding, raw: &[u8]) -> v1::Shard {
    encode_shard(
        &SliceId::new(id),
        encoding,
        raw,
        OPTIONS.block_bytes,
        Packing::Small(1),
    )
    .expect("encodes")
    .into()
}

impl Solved {
    fn add(&mut self, id: String, encoding: CellEncoding, raw: Vec<u8>) {
        self.shards
            .insert(id.clone(), stored_shard(&id, encoding, &raw));
        self.raw.insert(id, (encoding, raw));
    }
}

fn nim(spec: &GameSpec) -> NimGame {
    NimGame::from_spec(spec).expect("builds")
}

/// Triangles of 4 and 5 layers and the hexagram, values and depths; Morris
/// with 3 pieces under both rules.
fn solved() -> &'static [Solved] {
    static SOLVED: OnceLock<Vec<Solved>> = OnceLock::new();
    SOLVED.get_or_init(|| {
        let mut all = Vec::new();
        let never = AtomicBool::new(false);
        for spec in [
            GameSpec::NimTriangle {
                layers: 4,
                rule: Rule::Normal,
            },
            GameSpec::NimTriangle {
                layers: 5,
                rule: Rule::Misere,
            },
            GameSpec::NimHexagram,
        ] {
            for depth in [false, true] {
                let engine = NimEngine::new(nim(&spec));
                let mut solved = Solved {
                    spec: spec.clone(),
                    engine: None,
                    depth,
                    slices: engine.game().slices(),
                    raw: HashMap::new(),
                    shards: HashMap::new(),
                };
                for (h, table) in solve_all(&engine, depth, &never)
                    .expect("solves")
                    .iter()
                    .enumerate()
                {
                    let (encoding, raw) = engine.stored_bytes(h as u32, table);
                    solved.add(slice_id(h as u32).to_string(), encoding, raw.into_owned());
                }
                solved.engine = Some(engine);
                all.push(solved);
            }
        }
        for variant in [Variant::Taiwan, Variant::Standard] {
            let game = MorrisGame::new(variant, 3);
            let mut solved = Solved {
                spec: game.spec(),
                engine: None,
                depth: true,
                slices: game.slices(),
                raw: HashMap::new(),
                shards: HashMap::new(),
            };
            for (slice, table) in MorrisEngine::new(game).solve_all() {
                solved.add(
                    slice.to_string(),
                    CellEncoding::ValueDepth16,
                    stored_bytes(&table),
                );
            }
            all.push(solved);
        }
        all
    })
}

/// What goes into a table decoder: the stored bytes, edited in place, of
/// the wrong length, or noise of the right length.
#[derive(Debug, Clone)]
enum Content {
    Stored,
    Edited(Vec<ByteEdit>),
    Resized(Vec<ByteEdit>),
    Noise(u64),
    /// Each cell holding a value given another value and depth (deep ones
    /// often): a table that passes every check on load, and is wrong.
    Revalued(u64),
    Encoding(CellEncoding),
}

fn content() -> impl Strategy<Value = Content> {
    prop_oneof![
        1 => Just(Content::Stored),
        4 => byte_edits_in_place().prop_map(Content::Edited),
        1 => byte_edits().prop_map(Content::Resized),
        2 => any::<u64>().prop_map(Content::Noise),
        2 => any::<u64>().prop_map(Content::Revalued),
        1 => encoding().prop_map(Content::Encoding),
    ]
}

fn filled(encoding: CellEncoding, raw: &[u8], content: &Content) -> (CellEncoding, Vec<u8>) {
    match content {
        Content::Stored => (encoding, raw.to_vec()),
        Content::Edited(edits) | Content::Resized(edits) => (encoding, edited(raw, edits)),
        Content::Noise(seed) => {
            let mut state = seed | 1;
            let noise = (0..raw.len())
                .map(|_| {
                    state ^= state << 13;
                    state ^= state >> 7;
                    state ^= state << 17;
                    state as u8
                })
                .collect();
            (encoding, noise)
        }
        Content::Revalued(seed) => {
            let mut state = seed | 1;
            let mut next = move || {
                state ^= state << 13;
                state ^= state >> 7;
                state ^= state << 17;
                state
            };
            let mut out = raw.to_vec();
            match encoding {
                CellEncoding::WinBits => out.iter_mut().for_each(|b| *b = next() as u8),
                CellEncoding::ValueDepth8 => {
                    for b in out.iter_mut().filter(|b| **b != 0) {
                        let r = next();
                        // Often the deepest depths: 63 is refused, 62 is
                        // one ply short of it.
                        let depth = if r & 1 == 0 {
                            62 + (r >> 8) as u8 % 2
                        } else {
                            (r >> 8) as u8 % 64
                        };
                        *b = (1 + (r >> 1) as u8 % 3) << 6 | depth;
                    }
                }
                CellEncoding::ValueDepth16 => {
                    for cell in out.chunks_exact_mut(2).filter(|c| c != &[0, 0]) {
                        let r = next();
                        let depth = if r & 1 == 0 {
                            0x3ffe + (r >> 8) as u16 % 2
                        } else {
                            (r >> 8) as u16 % 0x4000
                        };
                        let code = 1 + (r >> 1) as u16 % 3;
                        cell.copy_from_slice(&(code << 14 | depth).to_le_bytes());
                    }
                }
            }
            (encoding, out)
        }
        Content::Encoding(other) => (*other, raw.to_vec()),
    }
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn tables_from_stored(game in any::<Index>(), slice in any::<Index>(), content in content()) {
        let solved = &solved()[game.index(solved().len())];
        let info = &solved.slices[slice.index(solved.slices.len())];
        let (encoding, raw) = &solved.raw[info.id.as_str()];
        let (encoding, bytes) = filled(*encoding, raw, &content);
        let loaded = match &solved.engine {
            None => {
                let slice = MorrisSlice::parse(info.id.as_str()).expect("a plan's slice parses");
                from_stored(slice, encoding, &bytes).map(drop)
            }
            Some(engine) => {
                let h = engine.game().slice_number(&info.id).expect("a plan's slice");
                engine.table_from_stored(h, encoding, bytes).map(drop)
            }
        };
        if matches!(content, Content::Stored) {
            prop_assert!(loaded.is_ok(), "{}: {:?}", info.id, loaded.err());
        }
    }
}

/// A task for a slice of a solved game, with its slice id or dependency
/// list changed, and dependency shards damaged in transfer or in content.
#[derive(Debug, Clone)]
struct TaskCase {
    game: Index,
    slice: Index,
    ids: Vec<IdChange>,
    shards: Vec<(Index, DepChange)>,
}

#[derive(Debug, Clone)]
enum IdChange {
    Slice(String),
    DropDependency(Index),
    AddDependency(String),
    RepeatDependency(Index),
    OtherDepth,
}

#[derive(Debug, Clone)]
enum DepChange {
    /// Wrong contents, whose shard passes every check.
    Content(Content),
    Transfer(Vec<ShardDamage>),
    Missing,
}

fn an_id() -> impl Strategy<Value = String> {
    prop_oneof![
        select(
            &[
                "outer-00",
                "outer-01",
                "outer-99",
                "outer-",
                "move-03-03",
                "move-03-03-p0",
                "move-03-03-p7",
                "place-00-00-00",
                "place-05-03-02",
                "place-99-99-99",
                ""
            ][..]
        )
        .prop_map(String::from),
        "[a-z0-9-]{0,12}",
    ]
}

fn task_case() -> impl Strategy<Value = TaskCase> {
    let id_change = prop_oneof![
        an_id().prop_map(IdChange::Slice),
        any::<Index>().prop_map(IdChange::DropDependency),
        an_id().prop_map(IdChange::AddDependency),
        any::<Index>().prop_map(IdChange::RepeatDependency),
        Just(IdChange::OtherDepth),
    ];
    let dep_change = prop_oneof![
        3 => content().prop_map(DepChange::Content),
        2 => prop::collection::vec(shard_damage(), 1..3).prop_map(DepChange::Transfer),
        1 => Just(DepChange::Missing),
    ];
    (
        any::<Index>(),
        any::<Index>(),
        prop::collection::vec(id_change, 0..2),
        prop::collection::vec((any::<Index>(), dep_change), 0..3),
    )
        .prop_map(|(game, slice, ids, shards)| TaskCase {
            game,
            slice,
            ids,
            shards,
        })
}

/// Slices of at most this many entries are solved here (Morris 3 v 3
/// movement slices take a second).
const MOST_ENTRIES: u64 = 40_000;

fn small_slices(solved: &Solved) -> Vec<&SliceInfo> {
    solved
        .slices
        .iter()
        .filter(|s| s.entries <= MOST_ENTRIES)
        .collect()
}

fn check_case(case: &TaskCase) -> Result<(), TestCaseError> {
    let solved = case.game.get(solved());
    let small = small_slices(solved);
    check_task(solved, small[case.slice.index(small.len())], case)
}

fn check_task(solved: &Solved, info: &SliceInfo, case: &TaskCase) -> Result<(), TestCaseError> {
    let mut task = Task {
        game: solved.spec.to_string(),
        game_definition: None,
        slice_id: info.id.clone(),
        depth: solved.depth,
        dependencies: info.dependencies.clone(),
        verify: false,
        zstd_only: false,
        memory: 0,
    };
    for change in &case.ids {
        let deps = &mut task.dependencies;
        match change {
            IdChange::Slice(id) => task.slice_id = SliceId::new(id.as_str()),
            IdChange::DropDependency(i) if !deps.is_empty() => {
                deps.remove(i.index(deps.len()));
            }
            IdChange::AddDependency(id) => deps.push(SliceId::new(id.as_str())),
            IdChange::RepeatDependency(i) if !deps.is_empty() => {
                let id = deps[i.index(deps.len())].clone();
                deps.push(id);
            }
            IdChange::OtherDepth => task.depth = !task.depth,
            _ => {}
        }
    }
    let mut shards = solved.shards.clone();
    let dependencies: Vec<String> = info.dependencies.iter().map(|d| d.to_string()).collect();
    for (which, change) in &case.shards {
        if dependencies.is_empty() {
            break;
        }
        let id = &dependencies[which.index(dependencies.len())];
        match change {
            DepChange::Content(content) => {
                let (encoding, raw) = &solved.raw[id];
                let (encoding, raw) = filled(*encoding, raw, content);
                shards.insert(id.clone(), stored_shard(id, encoding, &raw));
            }
            DepChange::Transfer(damage) => {
                if let Some(shard) = shards.get(id) {
                    let shard = damaged(shard, damage);
                    shards.insert(id.clone(), shard);
                }
            }
            DepChange::Missing => {
                shards.remove(id);
            }
        }
    }
    let link = Served(shards);
    let source = ShardSource::new(&link, "fuzz", &task, None);
    let never = AtomicBool::new(false);
    // Fresh: each case's dependencies are checked.
    let sound = SoundShards::new();
    let result = match (&solved.spec, &solved.engine) {
        (GameSpec::Morris { variant, pieces }, _) => {
            MorrisTasks::new(MorrisGame::new(*variant, *pieces))
                .solve(&task, context(&source, &never, &sound))
        }
        (_, Some(engine)) => {
            NimTasks::new(engine.game().clone()).solve(&task, context(&source, &never, &sound))
        }
        (spec, None) => return Err(TestCaseError::fail(format!("{spec} has no engine"))),
    };
    if case.ids.is_empty() && case.shards.is_empty() {
        let done = result.map_err(|e| TestCaseError::fail(format!("{}: {e}", info.id)))?;
        let (_, raw) = decode_shard(&done.shard).map_err(|e| TestCaseError::fail(e.to_string()))?;
        prop_assert_eq!(
            &raw,
            &solved.raw[info.id.as_str()].1,
            "{} solves otherwise",
            info.id
        );
    }
    Ok(())
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn tasks(case in task_case()) {
        check_case(&case)?;
    }
}

#[test]
fn task_seeds_solve() {
    let mut runner = proptest::test_runner::TestRunner::deterministic();
    let mut case = task_case().new_tree(&mut runner).unwrap().current();
    case.ids.clear();
    case.shards.clear();
    for solved in solved() {
        let small = small_slices(solved);
        assert!(small.len() > 1, "{}", solved.spec);
        for info in small {
            check_task(solved, info, &case).unwrap();
        }
    }
}

/// Solves every slice of `solved` (of at most [`MOST_ENTRIES`]) from
/// dependencies whose cells holding a value all become `cell(raw)`; each
/// slice's stored bytes, or why its solve failed.
fn solve_over(
    solved: &Solved,
    cell: impl Fn(&[u8]) -> Vec<u8>,
) -> Vec<(String, Result<Vec<u8>, String>)> {
    let mut shards = solved.shards.clone();
    for (id, (encoding, raw)) in &solved.raw {
        shards.insert(id.clone(), stored_shard(id, *encoding, &cell(raw)));
    }
    let link = Served(shards);
    let never = AtomicBool::new(false);
    let mut done = Vec::new();
    for info in small_slices(solved) {
        let task = Task {
            game: solved.spec.to_string(),
            game_definition: None,
            slice_id: info.id.clone(),
            depth: solved.depth,
            dependencies: info.dependencies.clone(),
            verify: false,
            zstd_only: false,
            memory: 0,
        };
        let source = ShardSource::new(&link, "fuzz", &task, None);
        let sound = SoundShards::new();
        let result = match (&solved.spec, &solved.engine) {
            (GameSpec::Morris { variant, pieces }, _) => {
                MorrisTasks::new(MorrisGame::new(*variant, *pieces))
                    .solve(&task, context(&source, &never, &sound))
            }
            (_, Some(engine)) => {
                NimTasks::new(engine.game().clone()).solve(&task, context(&source, &never, &sound))
            }
            (_, None) => continue,
        };
        let raw = result
            .map(|solved| decode_shard(&solved.shard).expect("decodes").1)
            .map_err(|e| e.to_string());
        done.push((info.id.to_string(), raw));
    }
    done
}

fn solved_game(spec: &str) -> &'static Solved {
    solved()
        .iter()
        .find(|s| s.spec.to_string() == spec && s.depth)
        .expect("solved")
}

/// Every Morris cell holding a value becomes a loss in `depth` plies.
fn morris_losses(depth: u16) -> impl Fn(&[u8]) -> Vec<u8> {
    move |raw: &[u8]| {
        raw.chunks_exact(2)
            .flat_map(|c| {
                if c == [0, 0] {
                    [0, 0]
                } else {
                    (1u16 << 14 | depth).to_le_bytes()
                }
            })
            .collect()
    }
}

/// Errors of `outcomes` that contain `needle`; panics on a stored win or
/// loss in 0 plies where `over_at_once` says none can be.
fn refusals(
    outcomes: &[(String, Result<Vec<u8>, String>)],
    needle: &str,
    wrapped: impl Fn(&str, &[u8]) -> bool,
) -> usize {
    for (id, raw) in outcomes {
        if let Ok(raw) = raw {
            assert!(!wrapped(id, raw), "{id}: a depth wrapped to 0");
        }
    }
    outcomes
        .iter()
        .filter(|(_, r)| r.as_ref().is_err_and(|e| e.contains(needle)))
        .count()
}

/// Found by `tasks` (`Revalued` dependencies of a Taiwan 3-piece placement
/// slice): a dependency cell at the deepest depth a cell holds (16383 in
/// 16 bits, 63 in 8) made a position one ply deeper than a cell can hold,
/// and the worker handed over a wrong table (under debug assertions, a
/// panic in `pack_value_depth16`). Such dependencies are now refused, and
/// a movement slice whose levels would pass the deepest depth stops.
#[test]
fn dependencies_at_the_deepest_depth_are_refused_and_nothing_wraps() {
    // A placement is never over: a win or loss is at least a ply.
    let placement_wrapped = |id: &str, raw: &[u8]| {
        id.starts_with("place")
            && raw.chunks_exact(2).any(|c| {
                let cell = u16::from_le_bytes([c[0], c[1]]);
                matches!(cell >> 14, 1 | 3) && cell & 0x3fff == 0
            })
    };
    let taiwan = solved_game("morris:taiwan:3");
    let deepest = solve_over(taiwan, morris_losses(0x3fff));
    assert!(refusals(&deepest, "at depth 16383", placement_wrapped) > 0);
    // One ply less is taken, and placements reach the deepest depth.
    let below = solve_over(taiwan, morris_losses(0x3ffe));
    assert_eq!(refusals(&below, "depth", placement_wrapped), 0);

    // Under the normal rule only a lost position is over at once.
    let nim_wrapped = |_: &str, raw: &[u8]| raw.iter().any(|&b| b >> 6 == 3 && b & 63 == 0);
    let nim = solved_game("nim:triangle:4:normal");
    let nim_losses = |depth: u8| {
        move |raw: &[u8]| -> Vec<u8> {
            raw.iter()
                .map(|&b| if b == 0 { 0 } else { 1 << 6 | depth })
                .collect()
        }
    };
    let deepest = solve_over(nim, nim_losses(63));
    assert!(refusals(&deepest, "at depth 63", nim_wrapped) > 0);
    let below = solve_over(nim, nim_losses(62));
    assert_eq!(refusals(&below, "depth", nim_wrapped), 0);
}

/// A movement slice's levels go deeper than its dependencies: from
/// captures into a slice whose positions are all lost one ply short of the
/// deepest depth, the level loop would store a depth no cell holds.
#[test]
fn a_movement_slice_whose_levels_would_pass_the_deepest_depth_stops() {
    let engine = MorrisEngine::new(MorrisGame::new(Variant::Taiwan, 4));
    let never = AtomicBool::new(false);
    let three = MorrisSlice::parse("move-03-03").unwrap();
    let solved = engine.solve(three, &Dependencies::new(), &never).unwrap();
    let deep = SolvedSlice {
        slice: three,
        tables: solved
            .tables
            .into_iter()
            .map(|t| SolvedTable {
                index: t.index,
                cells: t
                    .cells
                    .iter()
                    .map(|&c| if c == 0 { 0 } else { 1 << 14 | 0x3ffe })
                    .collect(),
            })
            .collect(),
    };
    let deps = Dependencies::from([(three, Arc::new(deep))]);
    let four = MorrisSlice::parse("move-04-03-p0").unwrap();
    let err = engine.solve(four, &deps, &never).unwrap_err();
    assert!(
        matches!(err, WorkerError::TooDeep { depth: 16383, .. }),
        "{err}"
    );
    assert!(err.to_string().contains("move-04-03-p0"), "{err}");
}

/// Nothing kept but each task's own reads.
static KEEP_NOTHING: std::sync::LazyLock<Keeping> = std::sync::LazyLock::new(Keeping::default);

fn context<'a>(
    source: &'a ShardSource<'a>,
    never: &'a AtomicBool,
    sound: &'a SoundShards,
) -> SolveContext<'a> {
    SolveContext {
        source,
        options: OPTIONS,
        cancel: never,
        sound,
        keeping: &KEEP_NOTHING,
    }
}
