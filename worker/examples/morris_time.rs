//! Solves a whole Morris game in RAM, without a store, and prints each
//! slice's time and the CRC-32 of its stored bytes (the `raw_crc32` of
//! `egdb stats`, to compare tables with a store); the engines alone:
//! `egdb build` adds counts, zstd and the store:
//!
//! ```sh
//! cargo run --release -p egdb-worker --example morris_time taiwan 6
//! ```
//!
//! With `--store DIR SLICE...`, solves only the slices named, each from
//! the slices it reads as a store of the same game (a finished one, or one
//! still being built) holds them, and checks each against the store's own
//! checksum where the store has it too: one large round of a game too big
//! to solve here in RAM. With `--check DIR SLICE...`, checks each stored
//! slice named against its moves instead (the checker of `egdb verify`),
//! from the store's tables, and prints the time of the check alone.

use std::collections::HashMap;
use std::path::Path;
use std::process::ExitCode;
use std::sync::atomic::AtomicBool;
use std::sync::Arc;
use std::time::Instant;

use egdb_check::cpu::process_cpu_seconds;
use egdb_check::morris::{check_morris, MorrisTables};
use egdb_db_format::Store;
use egdb_games::morris::{MorrisGame, MorrisSlice, Position, Variant, MAX_PIECES, MIN_PIECES};
use egdb_worker::morris::task::{from_stored, stored_bytes};
use egdb_worker::morris::{probe, Dependencies, MorrisEngine, SolvedSlice};

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let Some(variant) = args.first().and_then(|name| Variant::from_name(name)) else {
        return usage();
    };
    let Some(pieces) = args.get(1).and_then(|p| p.parse::<u8>().ok()) else {
        return usage();
    };
    if !(MIN_PIECES..=MAX_PIECES).contains(&pieces) {
        return usage();
    }
    let game = MorrisGame::new(variant, pieces);
    match args.get(2).map(String::as_str) {
        None => whole_game(&game),
        Some(mode @ ("--store" | "--check")) if args.len() > 4 => {
            let spec = format!("morris:{}:{pieces}", args[0]);
            let run = match mode {
                "--store" => from_store,
                _ => check_from_store,
            };
            match run(&game, &spec, &args[3], &args[4..]) {
                Ok(()) => ExitCode::SUCCESS,
                Err(e) => {
                    eprintln!("morris_time: {e}");
                    ExitCode::FAILURE
                }
            }
        }
        Some(_) => usage(),
    }
}

fn whole_game(game: &MorrisGame) -> ExitCode {
    let engine = MorrisEngine::new(game.clone());
    let mut solved = Dependencies::new();
    let all = Instant::now();
    let mut entries = 0u64;
    for (slice, _) in game.plan() {
        let (done, _) = timed(&engine, slice, &solved);
        entries += done.tables.iter().map(|t| t.index.len()).sum::<u64>();
        solved.insert(slice, Arc::new(done));
    }
    let rules = *game.rules();
    let start = probe(&rules, &solved, &Position::start(&rules));
    println!(
        "{}: {entries} entries in {:.1} s; start {} in {} plies",
        game.name(),
        all.elapsed().as_secs_f64(),
        start.0,
        start.1
    );
    ExitCode::SUCCESS
}

/// Solves `slice` and prints its line: id, entries, seconds, ns per
/// entry, checksum. Returns the slice and its checksum.
fn timed(engine: &MorrisEngine, slice: MorrisSlice, deps: &Dependencies) -> (SolvedSlice, u32) {
    let started = Instant::now();
    let done = engine
        .solve(slice, deps, &AtomicBool::new(false))
        .expect("nothing cancels this run");
    let n: u64 = done.tables.iter().map(|t| t.index.len()).sum();
    let secs = started.elapsed().as_secs_f64();
    let crc = crc32fast::hash(&stored_bytes(&done));
    println!(
        "{slice}\t{n}\t{secs:.2} s\t{:.0} ns/entry\t{crc:08x}",
        secs * 1e9 / n.max(1) as f64
    );
    (done, crc)
}

/// The store at `dir`, opened read-only, if it holds `spec`.
fn open_store(spec: &str, dir: &str) -> Result<Store, String> {
    let store = Store::open_read_only(Path::new(dir)).map_err(|e| e.to_string())?;
    if store.identity().game != spec {
        return Err(format!("{dir} holds {}, not {spec}", store.identity().game));
    }
    Ok(store)
}

/// Slice `id` of `plan` and the slices it reads.
fn slice_of<'a>(
    game: &MorrisGame,
    plan: &'a [(MorrisSlice, Vec<MorrisSlice>)],
    id: &str,
) -> Result<(MorrisSlice, &'a [MorrisSlice]), String> {
    let slice = MorrisSlice::parse(id).ok_or_else(|| format!("{id} is not a slice id"))?;
    plan.iter()
        .find(|(s, _)| *s == slice)
        .map(|(s, reads)| (*s, reads.as_slice()))
        .ok_or_else(|| format!("{id} is not a slice of {}", game.name()))
}

fn from_store(game: &MorrisGame, spec: &str, dir: &str, slices: &[String]) -> Result<(), String> {
    let store = open_store(spec, dir)?;
    let plan = game.plan();
    let engine = MorrisEngine::new(game.clone());
    for id in slices {
        let (slice, reads) = slice_of(game, &plan, id)?;
        let mut deps = Dependencies::new();
        for read in reads {
            let (record, raw) = store
                .read_slice(&read.to_string())
                .map_err(|e| e.to_string())?;
            let solved = from_stored(*read, record.encoding, &raw).map_err(|e| e.to_string())?;
            deps.insert(*read, Arc::new(solved));
        }
        let (_, crc) = timed(&engine, slice, &deps);
        match store.slice(id).map_err(|e| e.to_string())? {
            Some(record) if record.raw_crc32 != crc => {
                return Err(format!(
                    "{id}: checksum {crc:08x}, the store's {:08x}",
                    record.raw_crc32
                ))
            }
            Some(_) => println!("{id}: the store's checksum"),
            None => println!("{id}: not in the store yet"),
        }
    }
    Ok(())
}

/// Checks each stored slice of `slices` against its moves, from the
/// store's tables; prints its line: id, entries, seconds of the check,
/// ns per entry, CPU seconds, entries that disagree.
fn check_from_store(
    game: &MorrisGame,
    spec: &str,
    dir: &str,
    slices: &[String],
) -> Result<(), String> {
    let store = open_store(spec, dir)?;
    let plan = game.plan();
    let tables_of = |slice: MorrisSlice| -> Result<MorrisTables, String> {
        let (_, raw) = store
            .read_slice(&slice.to_string())
            .map_err(|e| e.to_string())?;
        MorrisTables::from_bytes(slice, &raw).map_err(|e| e.to_string())
    };
    for id in slices {
        let (slice, reads) = slice_of(game, &plan, id)?;
        let own = tables_of(slice)?;
        let mut deps = HashMap::new();
        for read in reads {
            deps.insert(*read, tables_of(*read)?);
        }
        let started = Instant::now();
        let cpu_before = process_cpu_seconds();
        let found = check_morris(game.rules(), &own, &AtomicBool::new(false), |s| {
            deps.get(&s)
        })
        .map_err(|e| e.to_string())?;
        let secs = started.elapsed().as_secs_f64();
        let cpu = process_cpu_seconds() - cpu_before;
        let n: u64 = own.tables.iter().map(|t| t.index.len()).sum();
        println!(
            "{slice}\t{n}\t{secs:.2} s\t{:.0} ns/entry\t{cpu:.2} s cpu\t{} mismatches",
            secs * 1e9 / n.max(1) as f64,
            found.mismatches
        );
    }
    Ok(())
}

fn usage() -> ExitCode {
    eprintln!("usage: morris_time taiwan|standard|taiwan-protected|morabaraba PIECES (3 to 12) [--store|--check DIR SLICE...]");
    ExitCode::from(2)
}
