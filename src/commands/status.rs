//! `egdb status`: how far a running build is, asked of its coordinator,
//! or read from its store (any build's, while it runs or after it
//! stopped).

use egdb_proto::client::RemoteCoordinator;
use egdb_proto::{BuildStatus, WorkerStatus};
use egdb_proto::{Coordinator, LinkKind};
use serde_json::json;
use std::collections::HashSet;
use std::path::Path;

use egdb_db_format::SliceRecord;
use egdb_games::SliceInfo;
use egdb_tablebase::Tablebase;

use crate::cli::StatusArgs;
use crate::cluster_access::{plaintext_hint, read_token};
use crate::failure::Exit;
use crate::failure::Failure;

pub fn run(args: StatusArgs) -> Exit {
    let coordinator = match (&args.coordinator, &args.store) {
        (Some(url), _) => url,
        (None, Some(store)) => return store_status(store, args.json),
        (None, None) => unreachable!("clap requires --coordinator or --store"),
    };
    let token = read_token(args.token_file.as_deref())?;
    let link = RemoteCoordinator::new(coordinator, token, args.patience, args.tls.files().as_ref())
        .map_err(|e| Failure::bad_input(e.to_string()))?;
    let status = link.status().map_err(|e| {
        let message = format!(
            "coordinator {coordinator}: {e}{}",
            plaintext_hint(&e.to_string(), args.tls.files().is_some())
        );
        match e.kind {
            LinkKind::Mismatch | LinkKind::Unauthenticated => Failure::bad_input(message),
            _ => Failure::failed(message),
        }
    })?;
    if args.json {
        outln!("{:#}", as_json(&status))?;
    } else {
        out!("{}", as_text(&status))?;
    }
    Ok(0)
}

/// What a store holds of its game's plan: slices and positions stored,
/// slices checked as they were stored, bytes and seconds so far.
fn store_status(path: &Path, json: bool) -> Exit {
    let tablebase = Tablebase::open(path)?;
    let plan = tablebase.game().slices();
    let records = tablebase.planned_records()?;
    let stored: HashSet<&str> = records.iter().map(|r| r.slice.as_str()).collect();
    let seconds = |f: &dyn Fn(&SliceRecord) -> f64| records.iter().map(|r| f(r)).sum::<f64>();
    let of_plan = |f: &dyn Fn(&SliceInfo) -> u64, built: bool| {
        plan.iter()
            .filter(|s| !built || stored.contains(s.id.as_str()))
            .fold(0u64, |n, s| n.saturating_add(f(s)))
    };
    let checked = records.iter().filter(|r| r.check_seconds > 0.0).count();
    let game = tablebase.game().spec().to_string();
    let (entries_done, entries_total) = (
        of_plan(&|s| s.entries, true),
        of_plan(&|s| s.entries, false),
    );
    let (positions_done, positions_total) = (
        of_plan(&|s| s.positions, true),
        of_plan(&|s| s.positions, false),
    );
    let (solving, checking) = (seconds(&|r| r.seconds), seconds(&|r| r.check_seconds));
    let stored_bytes = records
        .iter()
        .fold(0u64, |n, r| n.saturating_add(r.stored_bytes));
    if json {
        outln!(
            "{:#}",
            json!({
                "game": game,
                "complete": tablebase.is_complete(),
                "slices": {"total": plan.len(), "stored": records.len(), "checked_as_built": checked},
                "positions_total": positions_total,
                "positions_done": positions_done,
                "entries_total": entries_total,
                "entries_done": entries_done,
                "stored_bytes": stored_bytes,
                "solve_seconds": solving,
                "check_seconds": checking,
            })
        )?;
        return Ok(0);
    }
    let share = |done: u64, total: u64| 100.0 * done as f64 / total.max(1) as f64;
    outln!(
        "{game} in {}: {}\n\
         slices: {} of {} stored, {checked} of them checked as they were stored\n\
         positions: {positions_done} of {positions_total} ({:.1} %)\n\
         class entries: {entries_done} of {entries_total} ({:.1} %)\n\
         stored: {}; solving took {}, checking {} (worker time)",
        path.display(),
        if tablebase.is_complete() {
            "complete"
        } else {
            "not complete"
        },
        records.len(),
        plan.len(),
        share(positions_done, positions_total),
        share(entries_done, entries_total),
        mib(stored_bytes),
        clock(solving),
        clock(checking),
    )?;
    if !tablebase.is_complete() {
        outln!(
            "the time left: egdb plan {game} --rates-from {}",
            path.display()
        )?;
    }
    Ok(0)
}

fn as_json(s: &BuildStatus) -> serde_json::Value {
    let workers: Vec<serde_json::Value> = s
        .workers
        .iter()
        .map(|w| {
            json!({
                "name": w.name,
                "threads": w.threads,
                "memory": w.memory,
                "slice": w.holds.as_ref().map(|(job, _)| job.to_string()),
                "held_seconds": w.holds.as_ref().map_or(0.0, |(_, held)| held.as_secs_f64()),
                "slices_done": w.slices_done,
                "positions_done": w.positions_done,
                "bytes_sent": w.bytes_sent,
                "bytes_received": w.bytes_received,
                "last_seen_seconds": w.last_seen.as_secs_f64(),
            })
        })
        .collect();
    json!({
        "game": s.game,
        "complete": s.complete,
        "slices": {
            "total": s.slices_total,
            "done": s.slices_done,
            "running": s.slices_running,
            "ready": s.slices_ready,
            "waiting": s.slices_waiting,
        },
        "positions_total": s.positions_total,
        "positions_done": s.positions_done,
        "bytes_sent": s.bytes_sent,
        "bytes_received": s.bytes_received,
        "elapsed_seconds": s.elapsed.as_secs_f64(),
        "eta_seconds": s.eta.map(|eta| eta.as_secs_f64()),
        "workers": workers,
    })
}

fn as_text(s: &BuildStatus) -> String {
    let mut out = format!(
        "{}: {}\nslices: {} done, {} running, {} pending ({} ready, {} waiting) of {}\n",
        s.game,
        if s.complete { "complete" } else { "building" },
        s.slices_done,
        s.slices_running,
        s.slices_ready.saturating_add(s.slices_waiting),
        s.slices_ready,
        s.slices_waiting,
        s.slices_total,
    );
    let share = 100.0 * s.positions_done as f64 / s.positions_total.max(1) as f64;
    out += &format!(
        "positions: {} of {} ({share:.1} %)\nmoved: {} to workers, {} from workers\n",
        s.positions_done,
        s.positions_total,
        mib(s.bytes_sent),
        mib(s.bytes_received),
    );
    out += &format!(
        "running for {}, {}\n",
        clock(s.elapsed.as_secs_f64()),
        match s.eta {
            Some(eta) => format!("about {} left at this run's rate", clock(eta.as_secs_f64())),
            None => "no time estimate before the first slice is done".to_string(),
        }
    );
    if !s.workers.is_empty() {
        out += "workers:\n";
    }
    for w in &s.workers {
        out += &worker_line(w);
    }
    out
}

fn worker_line(w: &WorkerStatus) -> String {
    let holds = match &w.holds {
        None => "idle".to_string(),
        Some((slice, held)) => format!("{slice} for {}", clock(held.as_secs_f64())),
    };
    format!(
        "  {}  {} threads, {:.1} GiB  {holds}; {} slices done, {} in, {} out; seen {:.0} s ago\n",
        w.name,
        w.threads,
        w.memory as f64 / (1u64 << 30) as f64,
        w.slices_done,
        mib(w.bytes_sent),
        mib(w.bytes_received),
        w.last_seen.as_secs_f64(),
    )
}

fn mib(bytes: u64) -> String {
    format!("{:.1} MiB", bytes as f64 / (1u64 << 20) as f64)
}

/// `1h02m`, `3m07s`, `12s`.
fn clock(seconds: f64) -> String {
    let s = seconds.max(0.0).round() as u64;
    match (s / 3600, s / 60 % 60, s % 60) {
        (0, 0, sec) => format!("{sec}s"),
        (0, min, sec) => format!("{min}m{sec:02}s"),
        (h, min, _) => format!("{h}h{min:02}m"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn clock_reads_like_a_clock() {
        assert_eq!(clock(0.4), "0s");
        assert_eq!(clock(187.0), "3m07s");
        assert_eq!(clock(3720.0), "1h02m");
    }
}
