//! `egdb query`: a position's value, depth and moves.

use egdb_coordinator::{Probe, Tablebase};
use serde_json::json;

use crate::cli::QueryArgs;
use crate::Exit;

pub fn run(args: QueryArgs) -> Exit {
    let tablebase = Tablebase::open(&args.store)?;
    let answer = tablebase.answer(&args.position)?;
    if args.json {
        let moves: Vec<_> = answer
            .moves
            .iter()
            .map(|(m, p)| json!({"move": m, "value": p.value.as_str(), "depth": p.depth}))
            .collect();
        let out = json!({
            "game": tablebase.game().spec().to_string(),
            "position": answer.position,
            "value": answer.probe.value.as_str(),
            "depth": answer.probe.depth,
            "moves": moves,
        });
        println!("{out}");
        return Ok(0);
    }
    println!("{}: {}", answer.position, describe(&answer.probe));
    for (m, p) in &answer.moves {
        println!("  {m:<10} -> {}", describe(p));
    }
    if answer.moves.is_empty() {
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
