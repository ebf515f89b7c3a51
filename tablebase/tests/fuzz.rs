//! Fuzzing the reader: queries of positions, edited or arbitrary text,
//! against finished stores whose tables hold anything (tables pass their
//! checksums whatever a buggy build put in them). Each must answer Ok or
//! Err, never panic.
//!
//! `PROPTEST_CASES` sets the cases per target: 256 unless set,
//! `deploy/fuzz.sh` runs a million.

use std::sync::atomic::{AtomicUsize, Ordering};

use egdb_games::{with_game, Family, Game};
use egdb_tablebase::Tablebase;
use proptest::prelude::*;

#[path = "../../tests/common/fuzz_edits.rs"]
mod fuzz_edits;
use fuzz_edits::*;

#[path = "../../tests/common/build_noise.rs"]
mod build_noise;
use build_noise::noise_store;

/// Position text of `game`: printed positions and moves' texts, edited.
fn position_text(game: &Game, seed: u64, edits: &[ByteEdit]) -> String {
    // A random position: a short game from the start (Morris), any
    // stones (Nim).
    let text = with_game!(game, g => printed(g, seed));
    String::from_utf8_lossy(&edited(text.as_bytes(), edits)).into_owned()
}

fn printed<F: Family>(game: &F, seed: u64) -> String {
    game.format_position(&game.random_position(seed))
}

fn queries(spec: &str) {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let path = dir.path().join("s");
    let game = noise_store(&path, spec);
    let tablebase = Tablebase::open(&path).expect("opens");
    let _ = tablebase.start();
    let answered = AtomicUsize::new(0);
    let strategy = (
        any::<u64>(),
        prop::option::weighted(0.5, byte_edits()),
        prop::option::weighted(0.1, any::<String>()),
    );
    run(strategy, |(seed, edits, arbitrary)| {
        let text = arbitrary
            .unwrap_or_else(|| position_text(&game, seed, edits.as_deref().unwrap_or_default()));
        let answer = tablebase.answer(&text);
        let _ = tablebase.probe(&text);
        let _ = tablebase.line(&text, 12);
        answered.fetch_add(usize::from(answer.is_ok()), Ordering::SeqCst);
        Ok(())
    });
    // Noise holds values too: some queries must have been answered.
    assert!(answered.load(Ordering::SeqCst) > 0);
}

#[test]
fn queries_against_a_nim_store_of_noise() {
    queries("nim:hexagram");
}

#[test]
fn queries_against_a_morris_store_of_noise() {
    queries("morris:taiwan:3");
}
