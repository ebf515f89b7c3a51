//! `egdb verify`: checksums, then every stored position against its moves.

use std::time::Instant;

use egdb_coordinator::verify::{verify_slice, SliceCheck};
use egdb_coordinator::{Probe, Tablebase};
use serde_json::json;

use crate::build::positions_bar;
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
    let records = tablebase.records();
    let positions: u64 = records.iter().map(|r| r.counts.positions).sum();
    let bar = positions_bar(positions);
    let started = Instant::now();
    let mut checks = Vec::with_capacity(records.len());
    for record in &records {
        bar.set_message(record.slice.clone());
        let check = verify_slice(&tablebase, &record.slice)?;
        if !check.passed() {
            tracing::warn!(slice = %check.slice, "{}", failure_line(&check));
        }
        tracing::info!(slice = %check.slice, positions = check.positions, mismatches = check.mismatches, "slice verified");
        bar.inc(record.counts.positions);
        checks.push(check);
    }
    bar.finish_and_clear();
    let failed: Vec<&SliceCheck> = checks.iter().filter(|c| !c.passed()).collect();
    let checked: u64 = checks.iter().map(|c| c.positions).sum();
    if args.json {
        let slices: Vec<serde_json::Value> = checks.iter().map(as_json).collect();
        println!("{:#}", serde_json::Value::Array(slices));
    } else {
        for check in &failed {
            print!("{}", report(check));
        }
        println!(
            "{}: {} of {} slices passed; {checked} stored positions checked against their moves in {:.1} s",
            args.store.display(),
            checks.len() - failed.len(),
            checks.len(),
            started.elapsed().as_secs_f64()
        );
    }
    Ok(if failed.is_empty() { 0 } else { 1 })
}

fn failure_line(check: &SliceCheck) -> String {
    match &check.corrupt {
        Some(reason) => format!("slice {}: FAILED: {reason}", check.slice),
        None => format!(
            "slice {}: FAILED: {} of {} positions disagree with their moves",
            check.slice, check.mismatches, check.positions
        ),
    }
}

fn report(check: &SliceCheck) -> String {
    let mut out = failure_line(check) + "\n";
    for m in &check.examples {
        out += &format!(
            "  {}: stored {}, its moves say {}\n",
            m.position,
            describe(&m.stored),
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
        "corrupt": check.corrupt,
        "examples": check.examples.iter().map(|m| json!({
            "position": m.position,
            "stored": probe(&m.stored),
            "expected": probe(&m.expected),
        })).collect::<Vec<_>>(),
    })
}
