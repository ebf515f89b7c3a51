//! A finished Morris store's results as `docs/results/` publishes them
//! (`egdb results`): Markdown of the start value, first placements by
//! symmetry orbit, counts by phase and pieces, the longest forced line and
//! solve time by phase; the per-slice checksum list; and the damage found
//! reading every block, without which nothing is published.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use egdb_db_format::encoding::unpack_value_depth16;
use egdb_db_format::{SliceRecord, SolvedBy, ValueCode};
use egdb_games::morris::index::TableIndex;
use egdb_games::morris::symmetry::{BOARD_SYMMETRIES, SYMMETRIES};
use egdb_games::morris::{MorrisGame, MorrisSlice, Move};
use rayon::prelude::*;

use crate::{MoveAnswer, Probe, Tablebase, TablebaseError};

/// The per-slice checksum list, `slice positions raw_crc32` per line, as
/// `egdb compare --crc` and `--verified-crc` read it.
pub fn checksum_list(records: &[&SliceRecord]) -> String {
    let mut list = String::new();
    for r in records {
        let _ = writeln!(
            list,
            "{} {} {:08x}",
            r.slice, r.counts.positions, r.raw_crc32
        );
    }
    list
}

/// The built slices among those `compared` takes whose blocks, read whole
/// (on every core), fail their checksums or do not give the checksum their
/// records hold, in plan order, with why.
///
/// # Errors
/// A store whose records cannot be read.
pub fn damaged(
    tablebase: &Tablebase,
    compared: impl Fn(&str) -> bool + Sync,
) -> Result<Vec<(String, String)>, TablebaseError> {
    let records = tablebase.planned_records()?;
    Ok(records
        .par_iter()
        .filter(|r| compared(&r.slice))
        .filter_map(|r| {
            tablebase
                .check_stored(r)
                .err()
                .map(|e| (r.slice.clone(), e.to_string()))
        })
        .collect())
}

/// The results page of a complete, undamaged store of `game`, its
/// `records` the plan's.
///
/// # Errors
/// A store that cannot be read, or whose tables contradict each other.
pub fn markdown(
    tablebase: &Tablebase,
    game: &MorrisGame,
    records: &[&SliceRecord],
) -> Result<String, TablebaseError> {
    let mut out = String::new();
    let start = tablebase.start()?;
    let _ = writeln!(out, "## Start position\n");
    let _ = writeln!(out, "The first player to move: **{}**.\n", start);
    out += &first_placements(tablebase)?;
    out += &counts(records);
    out += &longest_line(tablebase, game, records)?;
    out += &solve_times(records);
    out += &solve_paths(records);
    Ok(out)
}

/// The start's moves, one row per symmetry orbit of the point placed on.
fn first_placements(tablebase: &Tablebase) -> Result<String, TablebaseError> {
    let answer = tablebase.answer("start")?;
    let mut orbits: BTreeMap<Vec<usize>, (Vec<String>, Probe)> = BTreeMap::new();
    for MoveAnswer { mv, probe, .. } in &answer.moves {
        let parsed = Move::parse(mv)?;
        let p = parsed.to.index();
        let mut orbit: Vec<usize> = (0..SYMMETRIES)
            .map(|s| BOARD_SYMMETRIES.point(s, p))
            .collect();
        orbit.sort_unstable();
        orbit.dedup();
        let entry = orbits.entry(orbit).or_insert((Vec::new(), *probe));
        entry.0.push(mv.clone());
        if entry.1 != *probe {
            return Err(TablebaseError::Inconsistent(format!(
                "placements {} of one symmetry orbit differ",
                entry.0.join(", ")
            )));
        }
    }
    let mut out = String::from("## First placements, by symmetry orbit\n\n");
    out += "| placements | the second player to move | so the first placement |\n|---|---|---|\n";
    for (points, probe) in orbits.values() {
        let verdict = match probe.value {
            egdb_games::Value::Loss => "wins",
            egdb_games::Value::Win => "loses",
            egdb_games::Value::Draw => "draws",
        };
        let _ = writeln!(out, "| {} | {} | {verdict} |", points.join(" "), probe);
    }
    out.push('\n');
    Ok(out)
}

#[derive(Default)]
struct Row {
    slices: usize,
    positions: u64,
    win: u64,
    loss: u64,
    draw: u64,
    classes: u64,
    max_depth: u32,
}

impl Row {
    /// Adds `other` in: counts read from a store, so summed without
    /// overflow.
    fn add(&mut self, other: &Row) {
        self.slices = self.slices.saturating_add(other.slices);
        self.positions = self.positions.saturating_add(other.positions);
        self.win = self.win.saturating_add(other.win);
        self.loss = self.loss.saturating_add(other.loss);
        self.draw = self.draw.saturating_add(other.draw);
        self.classes = self.classes.saturating_add(other.classes);
        self.max_depth = self.max_depth.max(other.max_depth);
    }
}

/// Counts by movement pieces (both sides to move, both parities) and by
/// placement round.
fn counts(records: &[&SliceRecord]) -> String {
    let mut rows: BTreeMap<(u32, u32, u32), Row> = BTreeMap::new();
    for r in records {
        let key = match MorrisSlice::parse(&r.slice) {
            Some(MorrisSlice::Movement { a, b, .. }) => (0, a, b),
            Some(MorrisSlice::Placement { ply, .. }) => (1, ply, 0),
            Some(MorrisSlice::Hand { first, second, .. }) => {
                (2, first.hand + second.hand, first.board + second.board)
            }
            None => continue,
        };
        let c = &r.counts;
        rows.entry(key).or_default().add(&Row {
            slices: 1,
            positions: c.positions,
            win: c.win,
            loss: c.loss,
            draw: c.draw,
            classes: c.canonical_positions.unwrap_or(0),
            max_depth: c.max_depth.unwrap_or(0),
        });
    }
    let mut out = String::from("## Positions by phase and pieces\n\n");
    out += "Every arrangement counted once (a symmetry class stands for all its members); classes counted once each; values for the side to move.\n\n";
    out += "| phase | pieces / round | slices | positions | win | loss | draw | classes | longest |\n|---|---|---|---:|---:|---:|---:|---:|---:|\n";
    let mut total = Row::default();
    for ((phase, x, y), row) in &rows {
        let (phase, what) = match phase {
            0 => ("movement", format!("{x} v {y}")),
            1 => ("placement", format!("after {x} placements")),
            _ => ("hands", format!("{x} in hand, {y} on the board")),
        };
        let _ = writeln!(
            out,
            "| {phase} | {what} | {} | {} | {} | {} | {} | {} | {} |",
            row.slices, row.positions, row.win, row.loss, row.draw, row.classes, row.max_depth
        );
        total.add(row);
    }
    let _ = writeln!(
        out,
        "| **all** | | {} | {} | {} | {} | {} | {} | {} |\n",
        total.slices,
        total.positions,
        total.win,
        total.loss,
        total.draw,
        total.classes,
        total.max_depth
    );
    out
}

/// A position of the deepest slice whose depth is the game's longest, and
/// its perfect-play line.
fn longest_line(
    tablebase: &Tablebase,
    game: &MorrisGame,
    records: &[&SliceRecord],
) -> Result<String, TablebaseError> {
    let Some(deepest) = records
        .iter()
        .max_by_key(|r| r.counts.max_depth.unwrap_or(0))
    else {
        return Ok(String::new());
    };
    let depth = deepest.counts.max_depth.unwrap_or(0);
    let slice = MorrisSlice::parse(&deepest.slice).ok_or_else(|| {
        TablebaseError::Inconsistent(format!("{} is no Morris slice", deepest.slice))
    })?;
    let (_, raw) = tablebase.store().read_slice(&deepest.slice)?;
    let mut at = 0usize;
    for (table, key) in slice.tables().into_iter().enumerate() {
        let index = TableIndex::new(key);
        let cells = raw.get(at..at + 2 * index.len() as usize).ok_or_else(|| {
            TablebaseError::Inconsistent(format!(
                "slice {} is shorter than its tables",
                deepest.slice
            ))
        })?;
        at += cells.len();
        let found = cells.chunks_exact(2).position(|b| {
            let (code, d) = unpack_value_depth16(u16::from_le_bytes([b[0], b[1]]));
            u32::from(d) == depth && matches!(code, ValueCode::Win | ValueCode::Loss)
        });
        let Some(i) = found else {
            continue;
        };
        let entry = index.entry(i as u64);
        let position = game
            .position_in(slice, table, entry.mover, entry.opponent)
            .ok_or_else(|| {
                TablebaseError::Inconsistent(format!("no position at {} {i}", deepest.slice))
            })?;
        let text = position.to_string();
        let probe = tablebase.probe(&text)?;
        let line = tablebase.line(&text, depth + 1)?;
        let moves: Vec<String> = line.iter().map(|s| s.mv.clone()).collect();
        let mut out = String::from("## The longest forced line\n\n");
        let _ = writeln!(
            out,
            "{depth} plies, in slice `{}`: from `{text}` the side to move {} (`{}`):\n\n{}\n",
            deepest.slice,
            match probe.value {
                egdb_games::Value::Win => "wins",
                _ => "loses",
            },
            probe,
            moves.join(" ")
        );
        return Ok(out);
    }
    Ok(String::new())
}

/// Solve seconds by phase, summed over records.
#[derive(Default)]
struct PhaseSeconds {
    movement: f64,
    placement: f64,
}

impl PhaseSeconds {
    fn add(&mut self, r: &SliceRecord) {
        match MorrisSlice::parse(&r.slice) {
            Some(MorrisSlice::Movement { .. }) => self.movement += r.seconds,
            // Placing and moving mixed: with the placements, where hands are.
            Some(MorrisSlice::Placement { .. } | MorrisSlice::Hand { .. }) => {
                self.placement += r.seconds;
            }
            None => {}
        }
    }
}

/// Solve seconds by phase (the engines' time per slice, as recorded).
fn solve_times(records: &[&SliceRecord]) -> String {
    let (mut seconds, mut stored, mut reused) = (PhaseSeconds::default(), 0u64, 0);
    for r in records {
        stored += r.stored_bytes;
        // Solved for another store: its seconds are in the paths below.
        if matches!(r.solved_by, Some(SolvedBy::Reused { .. })) {
            reused += 1;
            continue;
        }
        seconds.add(r);
    }
    let PhaseSeconds {
        movement,
        placement,
    } = seconds;
    let others = if reused > 0 {
        format!(", not counting the {reused} slices reused from another store")
    } else {
        String::new()
    };
    format!(
        "## Solve time and size\n\nSolve time recorded per slice (the engines, counts and compression; no queueing){others}: movement {:.0} s, placement {:.0} s, total {:.0} s ({:.2} h). Stored blocks: {:.1} MiB.\n\n",
        movement,
        placement,
        movement + placement,
        (movement + placement) / 3600.0,
        stored as f64 / (1 << 20) as f64
    )
}

/// Slices, entries and solve seconds by the path that put each slice in
/// the store, as its record says; nothing for a store whose records
/// predate the path.
fn solve_paths(records: &[&SliceRecord]) -> String {
    #[derive(Default)]
    struct Path {
        slices: u64,
        entries: u64,
        seconds: PhaseSeconds,
    }
    if records.iter().all(|r| r.solved_by.is_none()) {
        return String::new();
    }
    let mut paths: BTreeMap<String, Path> = BTreeMap::new();
    let mut total = 0u64;
    // Names from a store: kept from breaking the table.
    let cell = |text: &str| text.replace(['|', '`', '\n'], " ");
    for r in records {
        let name = match &r.solved_by {
            Some(SolvedBy::Process { worker }) => {
                format!("in the building process, {}", cell(worker))
            }
            Some(SolvedBy::Network { worker }) => {
                format!("over the network, worker {}", cell(worker))
            }
            Some(SolvedBy::Reused { from }) => format!("reused from `{}`", cell(from)),
            None => "not recorded".to_string(),
        };
        let entries = r.encoding.entries_in(r.raw_len);
        total = total.saturating_add(entries);
        let path = paths.entry(name).or_default();
        path.slices += 1;
        path.entries = path.entries.saturating_add(entries);
        path.seconds.add(r);
    }
    let mut out = String::from(
        "## Solve paths\n\nThe path each slice took into the store, as its record says (a reused slice's seconds are its first solve's).\n\n| path | slices | entries | share of entries | movement solve | placement solve |\n|---|---:|---:|---:|---:|---:|\n",
    );
    for (name, p) in &paths {
        let _ = writeln!(
            out,
            "| {name} | {} | {} | {:.1} % | {:.0} s | {:.0} s |",
            p.slices,
            p.entries,
            100.0 * p.entries as f64 / total.max(1) as f64,
            p.seconds.movement,
            p.seconds.placement
        );
    }
    out.push('\n');
    out
}
