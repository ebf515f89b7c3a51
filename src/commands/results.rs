//! `egdb results`: a finished Morris store's results page and checksum
//! list (`egdb_tablebase::results`), written only from a store whose
//! every block reads back.

use egdb_games::Game;
use egdb_tablebase::results::{checksum_list, damaged, markdown};
use egdb_tablebase::Tablebase;

use crate::cli::ResultsArgs;
use crate::failure::Exit;
use crate::failure::Failure;

pub fn run(args: ResultsArgs) -> Exit {
    let tablebase = Tablebase::open(&args.store)?;
    if !tablebase.is_complete() {
        return Err(Failure::bad_input(format!(
            "{} is not a complete tablebase",
            args.store.display()
        )));
    }
    let Game::Morris(game) = tablebase.game().clone() else {
        return Err(Failure::bad_input("results are written for Morris stores"));
    };
    // Only the plan's slices, each checked to fit: the tables are read
    // whole and indexed by their slice's layout. Every block is read
    // first: what is published is what the store holds.
    let records = tablebase.planned_records()?;
    if let Some((slice, why)) = damaged(&tablebase, |_| true)?.into_iter().next() {
        return Err(Failure::failed(format!(
            "{} is damaged, nothing written: {why} (slice {slice}; `egdb verify` names every damaged slice)",
            args.store.display()
        )));
    }
    if let Some(path) = &args.crc {
        std::fs::write(path, checksum_list(&records))
            .map_err(|e| Failure::failed(format!("cannot write {}: {e}", path.display())))?;
    }
    out!("{}", markdown(&tablebase, &game, &records)?)?;
    Ok(0)
}
