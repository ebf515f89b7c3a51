//! `egdb verify`: checksums, then every stored position against its moves.

use std::time::{Duration, Instant};

use std::collections::{HashMap, HashSet};

use egdb_check::verify::{Journal, SliceCheck, Verifier};
use egdb_db_format::SliceRecord;
use egdb_games::SliceId;
use egdb_tablebase::{Probe, Tablebase};
use serde_json::json;

use crate::checked::{failure_line, report};
use crate::cli::VerifyArgs;
use crate::failure::Exit;
use crate::failure::Failure;
use crate::host::{default_memory, positions_bar};

pub fn run(args: VerifyArgs) -> Exit {
    if args.follow {
        return follow(&args);
    }
    let tablebase = Tablebase::open(&args.store)?;
    if !tablebase.is_complete() && !args.built {
        return Err(Failure::bad_input(format!(
            "{} is not a complete tablebase; finish its build first, or check the slices \
             it has with --built (--follow: as the build finishes them)",
            args.store.display()
        )));
    }
    let round = check_round(&args, &tablebase, args.fresh)?;
    finish(&args, &round)
}

/// Checks a running build's slices as they are finished: each round opens
/// the store as it is then and checks what the journal lacks, until the
/// store is complete (the last round reports on every slice) or a slice
/// fails, which is worth knowing before later slices are built on it.
fn follow(args: &VerifyArgs) -> Exit {
    let mut fresh = args.fresh;
    // Slices that failed on the last open, and whether the last open
    // failed: each is reported only if it happens again on the next.
    let mut suspects: HashSet<SliceId> = HashSet::new();
    let mut open_failed = false;
    loop {
        // A store opened while a build writes it is no snapshot: a flush
        // as it opens can take out of the log what its table files do not
        // hold yet, a slice's blocks (its record already in a table file)
        // or a file the open was about to read. Damage stays on a fresh
        // open; the journal lacks the failed slices, so they are checked
        // again.
        let tablebase = match Tablebase::open(&args.store) {
            Ok(tablebase) => tablebase,
            Err(e) if !open_failed => {
                tracing::warn!(error = %e, "opening the store again in a moment");
                open_failed = true;
                std::thread::sleep(Duration::from_secs(args.poll_seconds));
                continue;
            }
            Err(e) => return Err(e.into()),
        };
        open_failed = false;
        let round = check_round(args, &tablebase, fresh)?;
        fresh = false;
        let failed: HashSet<SliceId> = round
            .checks
            .iter()
            .filter(|c| !c.passed())
            .map(|c| c.slice.clone())
            .collect();
        if failed.iter().any(|slice| suspects.contains(slice)) {
            return finish(args, &round);
        }
        if !failed.is_empty() {
            tracing::warn!(
                failed = failed.len(),
                "checking the failed slices again on a fresh open of the store"
            );
            suspects = failed;
            drop(tablebase);
            std::thread::sleep(Duration::from_secs(args.poll_seconds));
            continue;
        }
        suspects.clear();
        if round.complete {
            return finish(args, &round);
        }
        tracing::info!(
            checked = round.checks.len(),
            built = round.planned - round.not_built,
            not_built = round.not_built,
            "waiting for the build to finish more slices"
        );
        std::thread::sleep(Duration::from_secs(args.poll_seconds));
    }
}

/// One pass over the slices a store held when it was opened.
struct Round {
    /// Slices checked now (and, in a complete store, those missing).
    checks: Vec<SliceCheck>,
    /// Slices the journal says passed before, with the same bytes.
    earlier: usize,
    /// Slices of the plan an incomplete store does not have yet.
    not_built: usize,
    planned: usize,
    complete: bool,
    elapsed: Duration,
}

impl Round {
    fn failed(&self) -> usize {
        self.checks.iter().filter(|c| !c.passed()).count()
    }
}

fn check_round(args: &VerifyArgs, tablebase: &Tablebase, fresh: bool) -> Result<Round, Failure> {
    let game = tablebase.game();
    let complete = tablebase.is_complete();
    let mut journal = Journal::open(&args.store, game, fresh);
    // Plan order: a slice's dependencies come just before it, so most of
    // them are still decoded in memory when it is checked. A built slice's
    // dependencies were built before it.
    let records: HashMap<&str, &SliceRecord> = tablebase
        .records()
        .into_iter()
        .map(|r| (r.slice.as_str(), r))
        .collect();
    let plan: Vec<SliceId> = game.slices().into_iter().map(|s| s.id).collect();
    let positions = records
        .values()
        .fold(0u64, |n, r| n.saturating_add(r.counts.positions));
    let bar = positions_bar(positions);
    let started = Instant::now();
    let mut verifier = Verifier::new(
        tablebase.store(),
        tablebase.game().clone(),
        args.memory.unwrap_or_else(default_memory),
    );
    let mut round = Round {
        checks: Vec::with_capacity(plan.len()),
        earlier: 0,
        not_built: 0,
        planned: plan.len(),
        complete,
        elapsed: Duration::ZERO,
    };
    // Positions of slices the journal passes (no part of this run's pace),
    // and of those checked in this run.
    let (mut skipped, mut checked_now) = (0u64, 0u64);
    for slice in &plan {
        let Some(record) = records.get(slice.as_str()) else {
            if !complete {
                round.not_built += 1;
                continue;
            }
            // A complete store holds every slice of its plan.
            let check = SliceCheck::corrupt(
                slice.clone(),
                "the store is marked complete, but this slice is missing",
            );
            tracing::warn!(%slice, "{}", failure_line(&check));
            round.checks.push(check);
            continue;
        };
        // Passed before: counted so once its bytes, read again, still give
        // that checksum (a damaged block leaves the record as it was);
        // else checked again, which names the damage.
        if journal.passed(slice, record.raw_crc32) && tablebase.check_stored(record).is_ok() {
            round.earlier += 1;
            skipped = skipped.saturating_add(record.counts.positions);
            bar.inc(record.counts.positions);
            bar.reset_eta();
            continue;
        }
        bar.set_message(slice.to_string());
        let check = verifier.check(slice)?;
        if check.passed() {
            journal.record(slice, record.raw_crc32);
        } else {
            tracing::warn!(slice = %check.slice, "{}", failure_line(&check));
        }
        bar.inc(record.counts.positions);
        // For a log with no terminal to draw the bar on: how far, and how
        // long the rest takes at this run's pace.
        checked_now = checked_now.saturating_add(record.counts.positions);
        let left = positions.saturating_sub(skipped.saturating_add(checked_now));
        let eta_minutes = (started.elapsed().as_secs_f64() / 60.0 * left as f64
            / checked_now.max(1) as f64)
            .round();
        tracing::info!(
            slice = %check.slice,
            positions = check.positions,
            mismatches = check.mismatches,
            slices_done = round.checks.len() + 1 + round.earlier,
            of = plan.len(),
            eta_minutes,
            "slice verified"
        );
        round.checks.push(check);
    }
    bar.finish_and_clear();
    // The journal goes once a whole store has passed; a store still being
    // built keeps it for the checks to come.
    if complete && round.failed() == 0 {
        journal.finish();
    }
    round.elapsed = started.elapsed();
    Ok(round)
}

/// Prints a round's report; the exit status: 1 when a slice failed.
fn finish(args: &VerifyArgs, round: &Round) -> Exit {
    let failed: Vec<&SliceCheck> = round.checks.iter().filter(|c| !c.passed()).collect();
    let checked = round
        .checks
        .iter()
        .fold(0u64, |n, c| n.saturating_add(c.positions));
    if args.json {
        let slices: Vec<serde_json::Value> = round.checks.iter().map(as_json).collect();
        outln!("{:#}", serde_json::Value::Array(slices))?;
    } else {
        for check in &failed {
            out!("{}", report(check))?;
        }
        let resumed = if round.earlier > 0 {
            format!(
                " ({} passed in an earlier verify, kept in its journal, their bytes read again)",
                round.earlier
            )
        } else {
            String::new()
        };
        let built = round.planned - round.not_built;
        let passed = built - failed.len();
        let (what, unbuilt) = if round.complete {
            (format!("{passed} of {built} slices"), String::new())
        } else {
            (
                format!("{passed} of the {built} slices built so far"),
                format!("; {} of {} not built yet", round.not_built, round.planned),
            )
        };
        outln!(
            "{}: {what} passed{resumed}{unbuilt}; {checked} stored positions checked against their moves in {:.1} s",
            args.store.display(),
            round.elapsed.as_secs_f64()
        )?;
    }
    Ok(i32::from(!failed.is_empty()))
}

fn as_json(check: &SliceCheck) -> serde_json::Value {
    let probe = |p: &Probe| json!({"value": p.value.to_string(), "depth": p.depth});
    json!({
        "slice": check.slice.as_str(),
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
