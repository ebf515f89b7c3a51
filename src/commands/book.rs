//! `egdb book`: an opening book of a finished store as JSON lines (the
//! schema is docs/BOOK.md), with a Markdown summary per ply; or the
//! positions along one line of play.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::io::{BufWriter, Write};

use egdb_games::Value;
use egdb_tablebase::reader::best_move;
use egdb_tablebase::{BookEntry, Probe, Tablebase};
use serde_json::json;

use crate::cli::BookArgs;
use crate::failure::Exit;
use crate::failure::Failure;
use crate::written_file::{same_file, WrittenFile};

/// Moves a line given to `--along` may hold: beyond any game's length in
/// plies that anyone follows by hand (the longest P = 9 line is 49). Each
/// entry carries the line up to it, so the output grows as its square.
const MAX_LINE_MOVES: usize = 1_000;

pub fn run(args: BookArgs) -> Exit {
    let tablebase = Tablebase::open(&args.store)?;
    if !tablebase.is_complete() {
        return Err(Failure::bad_input(format!(
            "{} is not a complete tablebase: a book reads slices of every phase",
            args.store.display()
        )));
    }
    if let (Some(out), Some(summary)) = (&args.out, &args.summary) {
        if same_file(out, summary) {
            return Err(Failure::bad_input(format!(
                "--out and --summary both name {}: give each a file of its own",
                out.display()
            )));
        }
    }
    // The book and its summary are put in place only once both are whole.
    let mut file = args.out.as_deref().map(WrittenFile::create).transpose()?;
    let sink: Box<dyn Write + '_> = match file.as_mut() {
        Some(file) => Box::new(file),
        None => Box::new(std::io::stdout().lock()),
    };
    let mut out = BufWriter::new(sink);
    let game = tablebase.game().spec().to_string();
    // Gathered only when asked for: its rows grow with the book.
    let mut summary = args.summary.as_ref().map(|_| Summary::new(&game, &args));
    let mut write = |entry: BookEntry| -> Result<(), Failure> {
        writeln!(out, "{}", entry_json(&entry))
            .map_err(|e| Failure::failed(format!("cannot write the book: {e}")))?;
        if let Some(summary) = summary.as_mut() {
            summary.add(&entry);
        }
        Ok(())
    };
    match &args.along {
        Some(line) => {
            let moves: Vec<&str> = line.split_whitespace().collect();
            if moves.len() > MAX_LINE_MOVES {
                return Err(Failure::bad_input(format!(
                    "--along holds {} moves; at most {MAX_LINE_MOVES}",
                    moves.len()
                )));
            }
            for entry in tablebase.along(&args.from, &moves)? {
                write(entry)?;
            }
        }
        None => tablebase.book(&args.from, args.plies, args.max_positions, write)?,
    }
    out.flush()
        .map_err(|e| Failure::failed(format!("cannot write the book: {e}")))?;
    drop(out);
    if let (Some(path), Some(summary)) = (&args.summary, &summary) {
        let mut written = WrittenFile::create(path)?;
        written
            .write_all(summary.markdown().as_bytes())
            .map_err(|e| Failure::failed(format!("cannot write {}: {e}", path.display())))?;
        written.finish()?;
    }
    if let Some(file) = file {
        file.finish()?;
    }
    Ok(0)
}

/// One line of the book (docs/BOOK.md).
fn entry_json(entry: &BookEntry) -> serde_json::Value {
    let best = best_moves(entry);
    let moves: Vec<_> = entry
        .answer
        .moves
        .iter()
        .zip(&entry.next)
        .enumerate()
        .map(|(i, (m, next))| {
            json!({"move": m.mv, "after": m.after, "value": m.probe.value.as_str(),
                   "depth": m.probe.depth, "best": best.contains(&i), "next": next})
        })
        .collect();
    json!({
        "id": entry.id,
        "ply": entry.ply,
        "line": entry.line.join(" "),
        "position": entry.answer.position,
        "class": entry.class,
        "value": entry.answer.probe.value.as_str(),
        "depth": entry.answer.probe.depth,
        "moves": moves,
    })
}

/// The moves perfect play may take: every one as good as the one
/// [`best_move`] picks (same value and depth after it).
fn best_moves(entry: &BookEntry) -> Vec<usize> {
    let probes: Vec<Probe> = entry.answer.moves.iter().map(|m| m.probe).collect();
    match best_move(entry.answer.probe.value, &probes) {
        Some(pick) => (0..probes.len())
            .filter(|&i| probes[i] == probes[pick])
            .collect(),
        None => Vec::new(),
    }
}

/// What a move gives the side that plays it.
fn for_mover(after: &Probe) -> Probe {
    Probe {
        value: match after.value {
            Value::Win => Value::Loss,
            Value::Loss => Value::Win,
            Value::Draw => Value::Draw,
        },
        depth: after.depth.map(|d| d + 1),
    }
}

/// The Markdown summary, gathered as entries go by.
struct Summary {
    heading: String,
    along: bool,
    /// Per ply: positions that win, draw and lose for the side to move.
    plies: BTreeMap<u32, [u64; 3]>,
    detail_plies: u32,
    rows: String,
}

impl Summary {
    fn new(game: &str, args: &BookArgs) -> Summary {
        let heading = match &args.along {
            Some(line) => format!(
                "# `{game}` along `{}` from `{}`\n\nMade by `egdb book --along`: each position of the line, values for the side to move, each move's result for the side that plays it.\n\n",
                line.split_whitespace().collect::<Vec<_>>().join(" "),
                args.from
            ),
            None => format!(
                "# Opening book of `{game}` from `{}`, {} plies\n\nMade by `egdb book`: every position within {} plies, each symmetry class once (at the first ply that reaches it), values for the side to move; each move's result is for the side that plays it.\n\n",
                args.from, args.plies, args.plies
            ),
        };
        Summary {
            heading,
            along: args.along.is_some(),
            plies: BTreeMap::new(),
            detail_plies: if args.along.is_some() {
                u32::MAX
            } else {
                args.summary_plies
            },
            rows: String::new(),
        }
    }

    fn add(&mut self, entry: &BookEntry) {
        let counts = self.plies.entry(entry.ply).or_default();
        let slot = match entry.answer.probe.value {
            Value::Win => 0,
            Value::Draw => 1,
            Value::Loss => 2,
        };
        counts[slot] += 1;
        if entry.ply > self.detail_plies {
            return;
        }
        let mut by_result: [Vec<&str>; 3] = Default::default();
        for m in &entry.answer.moves {
            let slot = match for_mover(&m.probe).value {
                Value::Win => 0,
                Value::Draw => 1,
                Value::Loss => 2,
            };
            by_result[slot].push(&m.mv);
        }
        let best: Vec<String> = best_moves(entry)
            .into_iter()
            .map(|i| {
                let m = &entry.answer.moves[i];
                format!("{} ({})", m.mv, for_mover(&m.probe))
            })
            .collect();
        let list = |moves: &[&str]| {
            if moves.is_empty() {
                "—".to_string()
            } else {
                moves.join(" ")
            }
        };
        let line = if entry.line.is_empty() {
            "(root)".to_string()
        } else {
            entry.line.join(" ")
        };
        let _ = writeln!(
            self.rows,
            "| {} | {line} | `{}` | {} | {} | {} | {} | {} |",
            entry.ply,
            entry.answer.position,
            entry.answer.probe,
            list(&best.iter().map(String::as_str).collect::<Vec<_>>()),
            list(&by_result[0]),
            list(&by_result[1]),
            list(&by_result[2]),
        );
    }

    fn markdown(&self) -> String {
        let mut out = self.heading.clone();
        if !self.along {
            out += "| ply | positions | win | draw | loss |\n|---:|---:|---:|---:|---:|\n";
            for (ply, [win, draw, loss]) in &self.plies {
                let _ = writeln!(
                    out,
                    "| {ply} | {} | {win} | {draw} | {loss} |",
                    win + draw + loss
                );
            }
            let _ = writeln!(
                out,
                "\n## Positions of plies 0 to {}\n",
                self.detail_plies
                    .min(self.plies.len().saturating_sub(1) as u32)
            );
        }
        out += "| ply | line | position | value | best moves | moves that win | draw | lose |\n|---:|---|---|---|---|---|---|---|\n";
        out += &self.rows;
        out
    }
}
