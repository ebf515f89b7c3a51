//! Ranking late: a build's two-byte cells are written with zstd while an
//! unfinished slice reads them, and ranked once none does, across stops
//! and resumes, with the tables unchanged.

mod common;

use std::collections::HashMap;

use common::*;
use egdb_db_format::{encode_block, Packing, SliceRecord, Store};
use egdb_games::Game;

/// The slices of `game` that read each slice.
fn readers(game: &str) -> HashMap<String, Vec<String>> {
    let game = Game::from_spec(&game.parse().unwrap()).unwrap();
    let mut readers: HashMap<String, Vec<String>> = HashMap::new();
    for slice in game.slices() {
        for dependency in &slice.dependencies {
            readers
                .entry(dependency.to_string())
                .or_default()
                .push(slice.id.to_string());
        }
    }
    readers
}

#[test]
fn a_stopped_build_ranks_what_nothing_unfinished_reads_and_the_resume_ranks_the_rest() {
    let dir = tempfile::tempdir().unwrap();
    let store = dir.path().join("t4");
    let game = "morris:taiwan:4";
    build(game, &store, &["--max-slices", "40"]);
    let readers = readers(game);
    {
        let opened = Store::open_read_only(&store).unwrap();
        let records = opened.slices().unwrap();
        let done: Vec<&str> = records.iter().map(|r| r.slice.as_str()).collect();
        let (mut waiting, mut ranked) = (0, 0);
        for record in &records {
            let coded = coded(&opened, record);
            let unfinished_reader = readers
                .get(&record.slice)
                .is_some_and(|r| r.iter().any(|s| !done.contains(&s.as_str())));
            assert_eq!(record.rank_pending, unfinished_reader, "{}", record.slice);
            if record.rank_pending {
                assert_eq!(coded.ranked_or_kept + coded.zstd, record.blocks);
                assert!(coded.zstd > 0, "{}: written with zstd", record.slice);
                waiting += 1;
            } else {
                assert_eq!(coded.zstd, 0, "{}", record.slice);
                ranked += 1;
            }
        }
        assert!(
            waiting > 0 && ranked > 0,
            "{waiting} waiting, {ranked} ranked"
        );
    }
    build(game, &store, &[]);
    assert_ranked(&store);
    let fresh = dir.path().join("fresh");
    build(game, &fresh, &[]);
    assert_eq!(checksums(&store), checksums(&fresh));
    assert_verified(&store);
}

#[test]
fn a_finished_store_left_part_ranked_is_ranked_by_the_same_build_command() {
    let dir = tempfile::tempdir().unwrap();
    let store = dir.path().join("t4");
    let game = "morris:taiwan:4";
    build(game, &store, &[]);
    let before = checksums(&store);
    let slice = largest_slice(&store);
    {
        // As a crash between a slice's blocks and its record leaves it:
        // every other block back to zstd, the record still waiting.
        let opened = Store::open(&store).unwrap();
        let (record, raw) = opened.read_slice(&slice).unwrap();
        assert!(record.blocks >= 2, "{slice} has {} blocks", record.blocks);
        let quick: Vec<(u32, Vec<u8>)> = raw
            .chunks(record.block_bytes as usize)
            .enumerate()
            .step_by(2)
            .map(|(i, cells)| {
                let block = encode_block(i as u32, record.encoding, cells, Packing::Quick(1));
                (i as u32, block.unwrap())
            })
            .collect();
        opened.put_blocks(&slice, &quick).unwrap();
        let stored = (0..record.blocks)
            .map(|i| opened.block_record(&slice, i).unwrap().len() as u64)
            .sum();
        opened
            .put_record(&SliceRecord {
                rank_pending: true,
                stored_bytes: stored,
                ..record
            })
            .unwrap();
        assert!(coded(&opened, &opened.slice(&slice).unwrap().unwrap()).zstd > 0);
    }
    // Read as it is meanwhile (compare reads every block): blocks of both
    // codecs give the same table.
    let list = dir.path().join("list.crc");
    write_crc_list(&store, &list);
    let compared = compare(&store, &list, false);
    assert!(compared.status.success(), "{}", stderr(&compared));
    let out = build(game, &store, &[]);
    assert!(
        stderr(&out).contains("ranked 1 slices written with zstd"),
        "{}",
        stderr(&out)
    );
    assert_ranked(&store);
    assert_eq!(checksums(&store), before);
    assert_verified(&store);
}
