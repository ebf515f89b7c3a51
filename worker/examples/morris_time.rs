//! Solves a whole Morris game in RAM, without a store, and prints each
//! slice's time and the CRC-32 of its stored bytes (the `raw_crc32` of
//! `egdb stats`, to compare tables with a store); the engines alone:
//! `egdb build` adds counts, zstd and the store:
//!
//! ```sh
//! cargo run --release -p egdb-worker --example morris_time taiwan 6
//! ```

use std::process::ExitCode;
use std::sync::atomic::AtomicBool;
use std::sync::Arc;
use std::time::Instant;

use egdb_games::morris::{MorrisGame, Position, Variant, MAX_PIECES, MIN_PIECES};
use egdb_worker::morris::task::stored_bytes;
use egdb_worker::morris::{probe, Dependencies, MorrisEngine};

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let variant = match args.first().map(String::as_str) {
        Some("taiwan") => Variant::Taiwan,
        Some("standard") => Variant::Standard,
        _ => return usage(),
    };
    let Some(pieces) = args.get(1).and_then(|p| p.parse::<u8>().ok()) else {
        return usage();
    };
    if !(MIN_PIECES..=MAX_PIECES).contains(&pieces) {
        return usage();
    }
    let game = MorrisGame::new(variant, pieces);
    let engine = MorrisEngine::new(game.clone());
    let mut solved = Dependencies::new();
    let all = Instant::now();
    let mut entries = 0u64;
    for (slice, _) in game.plan() {
        let started = Instant::now();
        let done = engine
            .solve(slice, &solved, &AtomicBool::new(false))
            .expect("nothing cancels this run");
        let n: u64 = done.tables.iter().map(|t| t.index.len()).sum();
        entries += n;
        let secs = started.elapsed().as_secs_f64();
        let crc = crc32fast::hash(&stored_bytes(&done));
        println!(
            "{slice}\t{n}\t{secs:.2} s\t{:.0} ns/entry\t{crc:08x}",
            secs * 1e9 / n.max(1) as f64
        );
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

fn usage() -> ExitCode {
    eprintln!("usage: morris_time taiwan|standard PIECES (3 to 12)");
    ExitCode::from(2)
}
