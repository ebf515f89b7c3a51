//! `egdb query`: a position's value, depth and moves.

use egdb_coordinator::{Probe, Tablebase};
use serde_json::json;

use crate::cli::QueryArgs;
use crate::Exit;

pub fn run(args: QueryArgs) -> Exit {
    let tablebase = Tablebase::open(&args.store)?;
    let game = tablebase.game();
    let position = game.parse_position(&args.position)?;
    let probe = tablebase.probe(position)?;
    let moves = tablebase.moves(position)?;
    if args.json {
        let moves: Vec<_> = moves
            .iter()
            .map(|(m, p)| json!({"move": game.format_move(*m), "value": p.value.as_str(), "depth": p.depth}))
            .collect();
        let out = json!({
            "game": game.spec().to_string(),
            "position": game.format_position(position),
            "value": probe.value.as_str(),
            "depth": probe.depth,
            "moves": moves,
        });
        println!("{out}");
        return Ok(0);
    }
    println!("{}: {}", game.format_position(position), describe(&probe));
    for (m, p) in &moves {
        println!("  {:<10} -> {}", game.format_move(*m), describe(p));
    }
    if moves.is_empty() {
        println!("  (no moves: the game is over)");
    }
    Ok(0)
}

fn describe(probe: &Probe) -> String {
    match probe.depth {
        Some(d) => format!("{} in {d}", probe.value),
        None => probe.value.to_string(),
    }
}
