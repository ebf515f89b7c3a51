//! `egdb stats`: per-slice counts of a store.

use egdb_coordinator::Tablebase;
use egdb_db_format::SliceRecord;
use serde_json::{json, Value as Json};

use crate::cli::StatsArgs;
use crate::Exit;

pub fn run(args: StatsArgs) -> Exit {
    let tablebase = Tablebase::open(&args.store)?;
    let mut records = tablebase.records();
    records.sort_by_key(|r| r.stones);
    let complete = tablebase.store().is_complete()?;
    if args.json {
        let slices: Vec<Json> = records.iter().map(|r| slice_json(r)).collect();
        println!("{}", Json::Array(slices));
        return Ok(0);
    }
    let game = tablebase.game();
    println!(
        "{} ({}), {} of {} slices{}",
        game.spec(),
        game.name(),
        records.len(),
        game.slices().len(),
        if complete {
            ", complete"
        } else {
            ", incomplete"
        }
    );
    println!(
        "{:<10} {:>14} {:>14} {:>14} {:>13} {:>6} {:>10}",
        "slice", "positions", "win", "loss", "classes", "depth", "stored"
    );
    for r in &records {
        let c = &r.counts;
        println!(
            "{:<10} {:>14} {:>14} {:>14} {:>13} {:>6} {:>10}",
            r.slice,
            c.positions,
            c.win,
            c.loss,
            c.canonical_positions
                .map_or("-".to_string(), |n| n.to_string()),
            c.max_depth.map_or("-".to_string(), |n| n.to_string()),
            format!("{:.1}K", r.stored_bytes as f64 / 1024.0),
        );
    }
    let sum = |f: fn(&SliceRecord) -> u64| records.iter().map(|r| f(r)).sum::<u64>();
    println!(
        "{:<10} {:>14} {:>14} {:>14}",
        "total",
        sum(|r| r.counts.positions),
        sum(|r| r.counts.win),
        sum(|r| r.counts.loss)
    );
    Ok(0)
}

fn slice_json(r: &SliceRecord) -> Json {
    let c = &r.counts;
    json!({
        "slice": r.slice,
        "phase": "nim",
        "mover_pieces": null,
        "opponent_pieces": null,
        "ply": null,
        "stones": r.stones,
        "positions": c.positions,
        "win": c.win,
        "loss": c.loss,
        "draw": c.draw,
        "max_depth": c.max_depth,
        "canonical_positions": c.canonical_positions,
        "canonical_win": c.canonical_win,
        "canonical_loss": c.canonical_loss,
        "canonical_draw": c.canonical_draw,
        "raw_crc32": r.raw_crc32,
        "stored_bytes": r.stored_bytes,
        "blocks": r.blocks,
        "seconds": r.seconds,
    })
}
