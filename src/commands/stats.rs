//! `egdb stats`: per-slice counts of a store.

use std::collections::HashMap;

use egdb_db_format::SliceRecord;
use egdb_games::morris::MorrisSlice;
use egdb_games::{phase_of, printable};
use egdb_tablebase::Tablebase;
use serde_json::{json, Value as Json};

use crate::cli::StatsArgs;
use crate::failure::Exit;

pub fn run(args: StatsArgs) -> Exit {
    let tablebase = Tablebase::open(&args.store)?;
    let game = tablebase.game();
    let plan = game.slices();
    let mut records = tablebase.records();
    // Plan order: dependencies first, as the build solved them; ids off
    // the plan (a damaged store) last.
    let order: HashMap<&str, usize> = plan
        .iter()
        .enumerate()
        .map(|(i, s)| (s.id.as_str(), i))
        .collect();
    records.sort_by_key(|r| order.get(r.slice.as_str()).copied().unwrap_or(usize::MAX));
    let complete = tablebase.is_complete();
    if args.json {
        let slices: Vec<Json> = records.iter().map(|r| slice_json(r)).collect();
        outln!("{}", Json::Array(slices))?;
        return Ok(0);
    }
    outln!(
        "{} ({}), {} of {} slices{}",
        game.spec(),
        game.name(),
        records.len(),
        plan.len(),
        if complete {
            ", complete"
        } else {
            ", incomplete"
        }
    )?;
    let row = |cells: [String; 8]| {
        let [slice, positions, win, loss, draw, classes, depth, stored] = cells;
        outln!(
            "{slice:<15} {positions:>14} {win:>14} {loss:>14} {draw:>14} {classes:>13} {depth:>6} {stored:>10}"
        )
    };
    let text = |s: &str| s.to_string();
    row([
        "slice",
        "positions",
        "win",
        "loss",
        "draw",
        "classes",
        "depth",
        "stored",
    ]
    .map(text))?;
    let optional = |n: Option<u64>| n.map_or("-".to_string(), |n| n.to_string());
    for r in &records {
        let c = &r.counts;
        row([
            // A record's id is the store's word: printed, not obeyed.
            printable(&r.slice),
            c.positions.to_string(),
            c.win.to_string(),
            c.loss.to_string(),
            c.draw.to_string(),
            optional(c.canonical_positions),
            optional(c.max_depth.map(u64::from)),
            format!("{:.1}K", r.stored_bytes as f64 / 1024.0),
        ])?;
    }
    // The store's counts are read, not trusted: summed without overflow.
    let sum = |f: fn(&SliceRecord) -> u64| {
        let total = records.iter().fold(0u64, |n, r| n.saturating_add(f(r)));
        total.to_string()
    };
    row([
        text("total"),
        sum(|r| r.counts.positions),
        sum(|r| r.counts.win),
        sum(|r| r.counts.loss),
        sum(|r| r.counts.draw),
        String::new(),
        String::new(),
        format!(
            "{:.1}K",
            records.iter().map(|r| r.stored_bytes as f64).sum::<f64>() / 1024.0
        ),
    ])?;
    Ok(0)
}

fn slice_json(r: &SliceRecord) -> Json {
    let c = &r.counts;
    let (mover, opponent, ply, parity) = match MorrisSlice::parse(&r.slice) {
        Some(MorrisSlice::Movement { a, b, parity }) => (Some(a), Some(b), None, parity),
        Some(MorrisSlice::Placement {
            ply,
            mover,
            opponent,
        }) => (Some(mover), Some(opponent), Some(ply), None),
        Some(MorrisSlice::Hand {
            first,
            second,
            parity,
        }) => (Some(first.board), Some(second.board), None, parity),
        None => (None, None, None, None),
    };
    json!({
        "slice": r.slice,
        "phase": phase_of(&r.slice),
        "mover_pieces": mover,
        "opponent_pieces": opponent,
        "ply": ply,
        "parity": parity,
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
        // Recorded by builds that check each slice as they store it.
        "check_seconds": (r.check_seconds > 0.0).then_some(r.check_seconds),
        "solved_by": r.solved_by,
    })
}
