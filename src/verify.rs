//! `egdb verify`: checksums, then every stored position against its moves.

use std::time::Instant;

use std::collections::HashMap;

use egdb_db_format::SliceRecord;
use egdb_tablebase::verify::{Journal, SliceCheck, Verifier};
use egdb_tablebase::{Probe, Tablebase};
use serde_json::json;

use crate::build::{default_memory, positions_bar};
use crate::cli::VerifyArgs;
use crate::failure::Failure;
use crate::query::describe;
use crate::Exit;

pub fn run(args: VerifyArgs) -> Exit {
    let tablebase = Tablebase::open(&args.store)?;
    if !tablebase.is_complete() {
        return Err(Failure::bad_input(format!(
            "{} is not a complete tablebase; finish its build first",
            args.store.display()
        )));
    }
    let game = tablebase.game();
    let mut journal = Journal::open(&args.store, game, args.fresh);
    // Plan order: a slice's dependencies come just before it, so most of
    // them are still decoded in memory when it is checked.
    let records: HashMap<String, &SliceRecord> = tablebase
        .records()
        .into_iter()
        .map(|r| (r.slice.clone(), r))
        .collect();
    let plan: Vec<String> = game
        .slices()
        .into_iter()
        .map(|s| s.id.to_string())
        .collect();
    let positions: u64 = records.values().map(|r| r.counts.positions).sum();
    let bar = positions_bar(positions);
    let started = Instant::now();
    let mut verifier = Verifier::new(&tablebase, args.memory.unwrap_or_else(default_memory));
    let mut checks = Vec::with_capacity(plan.len());
    let mut earlier = 0;
    for slice in &plan {
        let Some(record) = records.get(slice) else {
            // A complete store holds every slice of its plan.
            let check = SliceCheck {
                slice: slice.clone(),
                corrupt: Some(
                    "the store is marked complete, but this slice is missing".to_string(),
                ),
                ..SliceCheck::default()
            };
            tracing::warn!(%slice, "{}", failure_line(&check));
            checks.push(check);
            continue;
        };
        if journal.passed(slice, record.raw_crc32) {
            earlier += 1;
            bar.inc(record.counts.positions);
            bar.reset_eta();
            continue;
        }
        bar.set_message(slice.clone());
        let check = verifier.check(slice)?;
        if check.passed() {
            journal.record(slice, record.raw_crc32);
        } else {
            tracing::warn!(slice = %check.slice, "{}", failure_line(&check));
        }
        tracing::info!(slice = %check.slice, positions = check.positions, mismatches = check.mismatches, "slice verified");
        bar.inc(record.counts.positions);
        checks.push(check);
    }
    bar.finish_and_clear();
    let failed: Vec<&SliceCheck> = checks.iter().filter(|c| !c.passed()).collect();
    let checked: u64 = checks.iter().map(|c| c.positions).sum();
    if failed.is_empty() {
        journal.finish();
    }
    if args.json {
        let slices: Vec<serde_json::Value> = checks.iter().map(as_json).collect();
        println!("{:#}", serde_json::Value::Array(slices));
    } else {
        for check in &failed {
            print!("{}", report(check));
        }
        let resumed = if earlier > 0 {
            format!(" ({earlier} passed in an earlier, interrupted verify)")
        } else {
            String::new()
        };
        println!(
            "{}: {} of {} slices passed{resumed}; {checked} stored positions checked against their moves in {:.1} s",
            args.store.display(),
            plan.len() - failed.len(),
            plan.len(),
            started.elapsed().as_secs_f64()
        );
    }
    Ok(if failed.is_empty() { 0 } else { 1 })
}

fn failure_line(check: &SliceCheck) -> String {
    match &check.corrupt {
        Some(reason) => format!("slice {}: FAILED: {reason}", check.slice),
        None if check.mismatches == 0 => format!(
            "slice {}: FAILED: {} entries that only repeat a symmetry class hold a value",
            check.slice, check.duplicates_with_values
        ),
        None => format!(
            "slice {}: FAILED: {} of {} positions disagree with their moves",
            check.slice, check.mismatches, check.positions
        ),
    }
}

/// A failed slice's lines: what failed, then the positions kept as examples.
pub fn report(check: &SliceCheck) -> String {
    let mut out = failure_line(check) + "\n";
    for m in &check.examples {
        let stored = m.stored.as_ref().map_or("no value".to_string(), describe);
        out += &format!(
            "  {}: stored {stored}, its moves say {}\n",
            m.position,
            describe(&m.expected)
        );
    }
    out
}

fn as_json(check: &SliceCheck) -> serde_json::Value {
    let probe = |p: &Probe| json!({"value": p.value.to_string(), "depth": p.depth});
    json!({
        "slice": check.slice,
        "passed": check.passed(),
        "positions": check.positions,
        "mismatches": check.mismatches,
        "duplicates_with_values": check.duplicates_with_values,
        "corrupt": check.corrupt,
        "examples": check.examples.iter().map(|m| json!({
            "position": m.position,
            "stored": m.stored.as_ref().map(probe),
            "expected": probe(&m.expected),
        })).collect::<Vec<_>>(),
    })
}
