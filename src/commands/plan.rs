//! `egdb plan`: a build's slices before anyone solves them — sizes, memory
//! needs, and a projection of the time from rates measured in a finished
//! store.

use std::collections::{BTreeMap, HashSet};

use egdb_check::identity::cell_encoding;
use egdb_coordinator::building::memory_need;
use egdb_db_format::{CellEncoding, SliceRecord};
use egdb_games::{phase_of, Game, GameSpec, SliceInfo};
use egdb_tablebase::Tablebase;
use serde_json::json;

use crate::cli::PlanArgs;
use crate::failure::Exit;
use crate::failure::Failure;

pub fn run(args: PlanArgs) -> Exit {
    let spec: GameSpec = args.game.parse()?;
    let game = Game::from_spec(&spec)?;
    let plan = game.slices();
    let encoding = cell_encoding(&game, args.depth);
    let source = match &args.rates_from {
        Some(dir) => {
            let source = Tablebase::open(dir)?;
            let family = |spec: &GameSpec| spec.to_string().split(':').next().map(str::to_string);
            if family(&source.game().spec()) != family(&spec) {
                return Err(Failure::bad_input(format!(
                    "--rates-from {} holds {}, another family than {spec}: its rates say nothing of this build",
                    dir.display(),
                    source.game().spec()
                )));
            }
            Some(source)
        }
        None => None,
    };
    let rates = match &source {
        Some(source) => Some(Rates::of(source).ok_or_else(|| {
            Failure::bad_input(format!(
                "--rates-from {}: no slice there took a measurable time to solve",
                source.store().path().display()
            ))
        })?),
        None => None,
    };
    // Rates from a store of this very game, still being built: what is
    // left of its build.
    let own = source
        .as_ref()
        .filter(|s| s.game().spec() == game.spec() && s.game().fingerprint() == game.fingerprint());
    let records = own.map(Tablebase::records);
    let built: Option<HashSet<&str>> = records
        .as_ref()
        .map(|rs| rs.iter().map(|r| r.slice.as_str()).collect());
    let checked: HashSet<&str> = records
        .iter()
        .flatten()
        .filter(|r| r.check_seconds > 0.0)
        .map(|r| r.slice.as_str())
        .collect();
    let rows: Vec<Row> = plan
        .iter()
        .map(|s| Row {
            slice: s.id.to_string(),
            phase: phase_of(s.id.as_str()),
            positions: s.positions,
            entries: s.entries,
            stored: encoding.table_bytes(s.entries),
            memory: memory_need(&plan, s, encoding),
            seconds: rates.as_ref().and_then(|r| r.seconds(s, encoding)),
            check_seconds: rates.as_ref().and_then(|r| r.check_seconds(s)),
            reads: s.dependencies.iter().map(ToString::to_string).collect(),
        })
        .collect();
    let largest = rows.iter().max_by_key(|r| r.memory);
    let total = |f: fn(&Row) -> u64| rows.iter().map(f).sum::<u64>();
    let projected: Option<f64> = rows.iter().map(|r| r.seconds).sum();
    let projected_checks: Option<f64> = rows.iter().map(|r| r.check_seconds).sum();
    // Disk: the stored bytes at the compression the rates' store got.
    let disk = rates
        .as_ref()
        .and_then(|r| r.compression)
        .map(|ratio| (ratio * total(|r| r.stored) as f64).round() as u64);
    let left = built.as_ref().map(|built| Left::of(&rows, built, &checked));
    let fits = args
        .memory
        .map(|budget| largest.is_none_or(|r| r.memory <= budget));
    if args.json {
        let slices: Vec<_> = rows.iter().map(Row::json).collect();
        let out = json!({
            "game": spec.to_string(),
            "slices": slices,
            "positions": total(|r| r.positions),
            "entries": total(|r| r.entries),
            "stored_bytes": total(|r| r.stored),
            "largest_memory_need": largest.map(|r| r.memory),
            "largest_memory_slice": largest.map(|r| r.slice.clone()),
            "memory_budget": args.memory,
            "fits": fits,
            "rates_from": args.rates_from.as_ref().map(|p| p.display().to_string()),
            "seconds_per_entry": rates.as_ref().map(|r| r.per_entry.clone()),
            "check_seconds_per_entry": rates.as_ref().map(|r| r.check_per_entry.clone()),
            "rank_seconds_per_byte": rates.as_ref().and_then(|r| r.rank_per_byte),
            "projected_seconds": projected,
            "projected_check_seconds": projected_checks,
            "projected_seconds_with_checks": projected.zip(projected_checks).map(|(a, b)| a + b),
            "projected_disk_bytes": disk,
            "slices_left": left.as_ref().map(|l| l.slices),
            "projected_seconds_left": left.as_ref().and_then(|l| l.seconds),
            "projected_seconds_left_with_checks": left.as_ref().and_then(|l| l.with_checks),
        });
        outln!("{out}")?;
        return Ok(0);
    }
    outln!("{spec} ({}): {} slices", game.name(), rows.len())?;
    outln!(
        "{:<15} {:>9} {:>16} {:>15} {:>10} {:>10} {:>10}",
        "slice",
        "phase",
        "positions",
        "entries",
        "stored",
        "memory",
        "time"
    )?;
    for r in &rows {
        outln!(
            "{:<15} {:>9} {:>16} {:>15} {:>10} {:>10} {:>10}",
            r.slice,
            r.phase,
            r.positions,
            r.entries,
            gib(r.stored),
            gib(r.memory),
            r.seconds.map_or("-".to_string(), |s| format!("{s:.0} s")),
        )?;
    }
    outln!(
        "total: {} positions, {} entries, {} stored before compression",
        total(|r| r.positions),
        total(|r| r.entries),
        gib(total(|r| r.stored))
    )?;
    if let Some(r) = largest {
        outln!("largest memory need: {} ({})", gib(r.memory), r.slice)?;
    }
    if let (Some(budget), Some(fits)) = (args.memory, fits) {
        outln!(
            "every slice {} a budget of {}",
            if fits { "fits" } else { "does NOT fit" },
            gib(budget)
        )?;
    }
    if let (Some(rates), Some(seconds)) = (&rates, projected) {
        let mut shown: Vec<String> = rates
            .per_entry
            .iter()
            .map(|(phase, rate)| format!("{phase} {:.3} µs/entry", rate * 1e6))
            .collect();
        if let Some(rate) = rates.rank_per_byte {
            let hours = rates.rank_cpu(total(|r| r.stored)) / 3600.0;
            shown.push(format!(
                "ranking {:.1} CPU s/GiB stored: {hours:.1} h of CPU over {} cores",
                rate * f64::from(1 << 30),
                rates.cores
            ));
        }
        outln!(
            "projected: {:.1} h on one machine like the one that built {} ({})",
            seconds / 3600.0,
            args.rates_from
                .as_ref()
                .map_or(String::new(), |p| p.display().to_string()),
            shown.join(", ")
        )?;
    }
    if let (Some(solve), Some(checks)) = (projected, projected_checks) {
        outln!(
            "projected with a check of each slice as it is stored (--verify-as-built): {:.1} h ({:.1} h of checks at {})",
            (solve + checks) / 3600.0,
            checks / 3600.0,
            rates.as_ref().map_or(String::new(), |r| r
                .check_per_entry
                .iter()
                .map(|(phase, rate)| format!("{phase} {:.3} µs/entry", rate * 1e6))
                .collect::<Vec<_>>()
                .join(", "))
        )?;
    }
    if let (Some(rates), Some(bytes)) = (&rates, disk) {
        outln!(
            "projected on disk: {} (compressed to {:.0} % of the stored bytes, as in that store)",
            gib(bytes),
            rates.compression.unwrap_or_default() * 100.0
        )?;
    }
    if let Some(left) = left {
        outln!(
            "left of this build: {} of {} slices{}",
            left.slices,
            rows.len(),
            left.seconds.map_or(String::new(), |s| format!(
                ", projected {:.1} h at these rates",
                s / 3600.0
            ))
        )?;
        if let Some(s) = left.with_checks {
            outln!(
                "left with the checks still to do (the stored slices' included): {:.1} h",
                s / 3600.0
            )?;
        }
    }
    Ok(0)
}

struct Row {
    slice: String,
    phase: &'static str,
    positions: u64,
    entries: u64,
    stored: u64,
    memory: u64,
    seconds: Option<f64>,
    /// Its check's, where the rates' store recorded checks.
    check_seconds: Option<f64>,
    /// The slices its solve reads.
    reads: Vec<String>,
}

impl Row {
    fn json(&self) -> serde_json::Value {
        json!({
            "slice": self.slice,
            "phase": self.phase,
            "positions": self.positions,
            "entries": self.entries,
            "stored_bytes": self.stored,
            "memory_need": self.memory,
            "projected_seconds": self.seconds,
            "projected_check_seconds": self.check_seconds,
            "reads": self.reads,
        })
    }
}

/// What is left of a build whose own store lent the rates.
struct Left {
    slices: usize,
    /// The solves of the slices not stored yet.
    seconds: Option<f64>,
    /// Those solves and their checks, and the checks of the stored slices
    /// without a recorded one (stored, their check still to come).
    with_checks: Option<f64>,
}

impl Left {
    fn of(rows: &[Row], built: &HashSet<&str>, checked: &HashSet<&str>) -> Left {
        let unbuilt = rows.iter().filter(|r| !built.contains(r.slice.as_str()));
        let with_checks = rows
            .iter()
            .map(|r| {
                let done = |set: &HashSet<&str>| set.contains(r.slice.as_str());
                let solve = if done(built) { Some(0.0) } else { r.seconds };
                let check = if done(checked) {
                    Some(0.0)
                } else {
                    r.check_seconds
                };
                solve.zip(check).map(|(a, b)| a + b)
            })
            .sum();
        Left {
            slices: unbuilt.clone().count(),
            seconds: unbuilt.map(|r| r.seconds).sum(),
            with_checks,
        }
    }
}

fn gib(bytes: u64) -> String {
    format!("{:.2}G", bytes as f64 / (1u64 << 30) as f64)
}

/// Seconds per table entry of each phase, from the largest slices of that
/// phase in a store: the big slices dominate a build, and their rate grows
/// with the pieces on the board, so smaller ones would flatter it.
struct Rates {
    per_entry: BTreeMap<&'static str, f64>,
    /// Seconds per entry of the checks of each phase, from the largest
    /// slices whose check was recorded (empty: none was).
    check_per_entry: BTreeMap<&'static str, f64>,
    /// CPU seconds of ranking late per raw byte, where the store's slices
    /// were ranked after their solve.
    rank_per_byte: Option<f64>,
    /// Cores that ranking takes its CPU time from (this machine's).
    cores: f64,
    /// The store's blocks over its slices' raw bytes.
    compression: Option<f64>,
}

impl Rates {
    /// A slice's projected seconds: its solve at its phase's rate, and its
    /// ranking after, where the rates' store was ranked late. Ranking runs
    /// beside solves that use every core, so its CPU time is shared out
    /// over the cores.
    fn seconds(&self, slice: &SliceInfo, encoding: CellEncoding) -> Option<f64> {
        let solve = self.per_entry.get(phase_of(slice.id.as_str()))? * slice.entries as f64;
        Some(solve + self.rank_cpu(encoding.table_bytes(slice.entries)) / self.cores)
    }

    /// A slice's projected check seconds, at its phase's rate of checks.
    fn check_seconds(&self, slice: &SliceInfo) -> Option<f64> {
        Some(self.check_per_entry.get(phase_of(slice.id.as_str()))? * slice.entries as f64)
    }

    /// CPU seconds of ranking `bytes` raw bytes late.
    fn rank_cpu(&self, bytes: u64) -> f64 {
        self.rank_per_byte.unwrap_or(0.0) * bytes as f64
    }

    /// `None` when no slice of the store has a positive, finite time (a
    /// store of slices solved in no measurable time, or damaged records).
    fn of(tablebase: &Tablebase) -> Option<Rates> {
        let records = tablebase.records();
        let per_entry = largest_rates(&records, |r| r.seconds);
        let check_per_entry = largest_rates(&records, |r| r.check_seconds);
        let raw = records
            .iter()
            .fold(0u64, |n, r| n.saturating_add(r.raw_len));
        let stored = records
            .iter()
            .fold(0u64, |n, r| n.saturating_add(r.stored_bytes));
        let ranked = records
            .iter()
            .filter(|r| r.rank_seconds.is_finite() && r.rank_seconds > 0.0);
        let ranked_raw = ranked
            .clone()
            .fold(0u64, |n, r| n.saturating_add(r.raw_len));
        let rank_seconds: f64 = ranked.map(|r| r.rank_seconds).sum();
        (!per_entry.is_empty()).then(|| Rates {
            compression: (raw > 0).then(|| stored as f64 / raw as f64),
            rank_per_byte: (ranked_raw > 0).then(|| rank_seconds / ranked_raw as f64),
            cores: std::thread::available_parallelism().map_or(1, usize::from) as f64,
            per_entry,
            check_per_entry,
        })
    }
}

/// How many of a phase's largest slices its rate is the median of: one
/// slice solved beside other work, at a fraction of the machine, would
/// otherwise set the projection of the whole build.
const RATE_SAMPLES: usize = 3;

/// Seconds per entry of each phase, as `seconds` says of the slices of that
/// phase with a positive, finite time: the median over its `RATE_SAMPLES`
/// largest.
fn largest_rates(
    records: &[&SliceRecord],
    seconds: fn(&SliceRecord) -> f64,
) -> BTreeMap<&'static str, f64> {
    median_of_largest(records.iter().filter_map(|r| {
        let (time, entries) = (seconds(r), entries(r));
        (time.is_finite() && time > 0.0 && entries > 0).then(|| (phase_of(&r.slice), entries, time))
    }))
}

/// For each phase of the `(phase, entries, seconds)` of timed slices, the
/// median seconds per entry of its largest slices.
fn median_of_largest(
    timed: impl Iterator<Item = (&'static str, u64, f64)>,
) -> BTreeMap<&'static str, f64> {
    let mut by_phase: BTreeMap<&'static str, Vec<(u64, f64)>> = BTreeMap::new();
    for (phase, entries, seconds) in timed {
        by_phase.entry(phase).or_default().push((entries, seconds));
    }
    by_phase
        .into_iter()
        .map(|(phase, mut slices)| {
            slices.sort_by_key(|&(entries, _)| std::cmp::Reverse(entries));
            let mut rates: Vec<f64> = slices
                .iter()
                .take(RATE_SAMPLES)
                .map(|&(entries, seconds)| seconds / entries as f64)
                .collect();
            rates.sort_by(f64::total_cmp);
            let middle = rates.len() / 2;
            let median = if rates.len() % 2 == 1 {
                rates[middle]
            } else {
                (rates[middle - 1] + rates[middle]) / 2.0
            };
            (phase, median)
        })
        .collect()
}

fn entries(record: &SliceRecord) -> u64 {
    record.encoding.entries_in(record.raw_len)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_phase_rate_is_the_median_of_its_largest_slices() {
        let timed = [
            ("move", 1_000, 5_000.0), // solved beside other work
            ("move", 900, 900.0),
            ("move", 800, 960.0),
            ("move", 10, 1.0), // small: left out
            ("place", 100, 50.0),
            ("place", 50, 50.0),
        ];
        let rates = median_of_largest(timed.into_iter());
        assert_eq!(rates["move"], 1.2, "the median of 5.0, 1.0 and 1.2");
        assert_eq!(rates["place"], 0.75, "two slices: the mean of both");
        let one = median_of_largest([("move", 4, 2.0)].into_iter());
        assert_eq!(one["move"], 0.5);
        assert!(median_of_largest(std::iter::empty()).is_empty());
    }

    fn row(slice: &str, seconds: Option<f64>, check_seconds: Option<f64>) -> Row {
        Row {
            slice: slice.to_string(),
            phase: phase_of(slice),
            positions: 0,
            entries: 0,
            stored: 0,
            memory: 0,
            seconds,
            check_seconds,
            reads: Vec::new(),
        }
    }

    #[test]
    fn what_is_left_counts_the_checks_of_stored_slices_not_checked_yet() {
        let rows = [
            row("move-03-03", Some(1.0), Some(0.5)), // stored and checked
            row("place-05-00-00", Some(2.0), Some(1.0)), // stored, check to come
            row("place-04-00-00", Some(4.0), Some(3.0)), // to solve and check
        ];
        let built = HashSet::from(["move-03-03", "place-05-00-00"]);
        let checked = HashSet::from(["move-03-03"]);
        let left = Left::of(&rows, &built, &checked);
        assert_eq!(left.slices, 1);
        assert_eq!(left.seconds, Some(4.0));
        assert_eq!(left.with_checks, Some(8.0));
        // A phase without a check rate: no figure rather than a low one.
        let rows = [row("place-04-00-00", Some(4.0), None)];
        let left = Left::of(&rows, &HashSet::new(), &HashSet::new());
        assert_eq!((left.seconds, left.with_checks), (Some(4.0), None));
    }
}
