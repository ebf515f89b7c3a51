//! Custom take-away games read from a TOML file.
//!
//! ```toml
//! name = "five in a row"
//! cells = 5
//! rule = "normal"            # or "misere"
//! moves = [[0], [4], [1, 3]] # cell sets that must all be present; removed together
//! lines = [[0, 1, 2, 3, 4]]  # optional: every run of consecutive cells is a move
//! start = [0, 1, 2, 3, 4]    # optional: the start position (default: every cell)
//! symmetries = [[4, 3, 2, 1, 0]]  # optional: cell permutations that keep the moves
//! ```

use serde::Deserialize;

use super::{Board, NimDefinition, MAX_CELLS};
use crate::{GameError, Rule};

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct GameFile {
    name: Option<String>,
    cells: u32,
    rule: Rule,
    #[serde(default)]
    moves: Vec<Vec<u32>>,
    #[serde(default)]
    lines: Vec<Vec<u32>>,
    start: Option<Vec<u32>>,
    #[serde(default)]
    symmetries: Vec<Vec<u32>>,
}

/// The longest game file: real ones are a few kilobytes.
pub const MAX_FILE_BYTES: u64 = 1 << 20;

/// The most distinct moves a game may have (a 63-cell board's runs along
/// its lines are a few thousand).
pub const MAX_MOVES: usize = 1 << 16;

/// Reads a game file of at most [`MAX_FILE_BYTES`] (a device or a huge
/// file is refused, not read to the end).
///
/// # Errors
/// [`GameError::GameFile`] when it cannot be read, is too long or is not
/// UTF-8.
pub fn read(path: &std::path::Path) -> Result<String, GameError> {
    crate::text_file::read_bounded(path, MAX_FILE_BYTES)
}

/// Parses and validates a game file's text; `path` only names it in errors.
///
/// # Errors
/// [`GameError::GameFile`] naming the first problem: too long, TOML
/// syntax, unknown keys, cells out of range, a move listing a cell twice,
/// no moves at all, too many.
pub fn parse(text: &str, path: &str) -> Result<NimDefinition, GameError> {
    let fail = |reason: String| GameError::GameFile {
        path: path.to_string(),
        reason,
    };
    let file: GameFile = crate::text_file::parse_bounded(text, path, MAX_FILE_BYTES)?;
    if !(1..=MAX_CELLS).contains(&file.cells) {
        return Err(fail(format!(
            "cells must be 1 to {MAX_CELLS}, not {}",
            file.cells
        )));
    }
    let to_mask = |what: &str, cells: &[u32]| -> Result<u64, GameError> {
        let mut mask = 0u64;
        for &c in cells {
            if c >= file.cells {
                return Err(fail(format!(
                    "{what} names cell {c}, but cells are 0 to {}",
                    file.cells - 1
                )));
            }
            if mask & (1 << c) != 0 {
                return Err(fail(format!("{what} names cell {c} twice")));
            }
            mask |= 1 << c;
        }
        Ok(mask)
    };
    // Distinct moves in file order, bounded as they come (a megabyte of
    // long lines could otherwise name billions of runs).
    let mut moves = Vec::new();
    let mut seen = std::collections::HashSet::new();
    let mut add = |mask: u64| -> Result<(), GameError> {
        if seen.insert(mask) {
            if moves.len() == MAX_MOVES {
                return Err(fail(format!("more than {MAX_MOVES} distinct moves")));
            }
            moves.push(mask);
        }
        Ok(())
    };
    for (i, cells) in file.moves.iter().enumerate() {
        if cells.is_empty() {
            return Err(fail(format!("move {i} is empty")));
        }
        add(to_mask(&format!("move {i}"), cells)?)?;
    }
    for (i, line) in file.lines.iter().enumerate() {
        to_mask(&format!("line {i}"), line)?;
        for start in 0..line.len() {
            for end in start..line.len() {
                add(line[start..=end].iter().fold(0u64, |m, &c| m | 1 << c))?;
            }
        }
    }
    if moves.is_empty() {
        return Err(fail(
            "the game has no moves (give `moves` or `lines`)".to_string(),
        ));
    }
    let all = (1u64 << file.cells) - 1;
    let start = match &file.start {
        Some(cells) => to_mask("start", cells)?,
        None => all,
    };
    Ok(NimDefinition {
        name: match file.name {
            Some(name) => crate::text_file::plain_name(name).map_err(fail)?,
            None => crate::shown::printable(path),
        },
        board: Board::Custom,
        cells: file.cells,
        rule: file.rule,
        moves,
        start,
        symmetries: file.symmetries,
    })
}

/// The definition as a game file that [`parse`] reads back to the same game.
pub fn to_toml(def: &NimDefinition) -> String {
    let cells_of = |mask: u64| -> String {
        let cells: Vec<String> = (0..64)
            .filter(|c| mask & (1u64 << c) != 0)
            .map(|c: u32| c.to_string())
            .collect();
        format!("[{}]", cells.join(", "))
    };
    let moves: Vec<String> = def.moves.iter().map(|&m| cells_of(m)).collect();
    let symmetries: Vec<String> = def
        .symmetries
        .iter()
        .map(|p| {
            format!(
                "[{}]",
                p.iter().map(u32::to_string).collect::<Vec<_>>().join(", ")
            )
        })
        .collect();
    format!(
        "name = {}\ncells = {}\nrule = \"{}\"\nstart = {}\nmoves = [{}]\nsymmetries = [{}]\n",
        crate::text_file::toml_string(&def.name),
        def.cells,
        def.rule.as_str(),
        cells_of(def.start),
        moves.join(", "),
        symmetries.join(", ")
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_expand_to_runs() {
        let def = parse("cells = 3\nrule = \"normal\"\nlines = [[0, 1, 2]]\n", "t").unwrap();
        assert_eq!(def.moves.len(), 6);
        let again = parse(&to_toml(&def), "t").unwrap();
        assert_eq!(again.moves, def.moves);
        assert_eq!(again.start, 0b111);
    }

    #[test]
    fn bad_files_name_the_problem() {
        let long_name = format!(
            "name = \"{}\"\ncells = 3\nrule = \"normal\"\nmoves = [[0]]",
            "n".repeat(101)
        );
        for (text, needle) in [
            (
                "cells = 3\nrule = \"normal\"\nmoves = [[0, 3]]",
                "cells are 0 to 2",
            ),
            ("cells = 3\nrule = \"normal\"\nmoves = [[1, 1]]", "twice"),
            ("cells = 3\nrule = \"normal\"", "no moves"),
            (
                "cells = 3\nrule = \"sudden\"\nmoves = [[0]]",
                "unknown variant",
            ),
            (
                "cells = 3\nrule = \"normal\"\nmoves = [[0]]\ncolour = 1",
                "unknown field",
            ),
            (
                "cells = 0\nrule = \"normal\"\nmoves = [[0]]",
                "cells must be",
            ),
            ("cells = [", "line 1: unclosed array"),
            (
                "name = \"\\u001b]0;pwned\\u0007\"\ncells = 3\nrule = \"normal\"\nmoves = [[0]]",
                "without control characters",
            ),
            (
                "name = \"\\u001b[2J\"\ncells = 3\nrule = \"normal\"\nmoves = [[0]]",
                "without control characters",
            ),
            (long_name.as_str(), "1 to 100 characters"),
        ] {
            let err = parse(text, "g.toml").unwrap_err().to_string();
            assert!(
                err.contains(needle) && err.contains("g.toml"),
                "{text}: {err}"
            );
        }
    }

    #[test]
    fn endless_and_huge_files_are_refused_unread() {
        let err = read(std::path::Path::new("/dev/zero"))
            .unwrap_err()
            .to_string();
        assert!(err.contains("not a regular file (a device)"), "{err}");
        let long = format!(
            "cells = 3\nrule = \"normal\"\nmoves = [[0]]\n#{}",
            "x".repeat(1 << 20)
        );
        let err = parse(&long, "g.toml").unwrap_err().to_string();
        assert!(err.contains("longer than"), "{err}");
    }

    #[test]
    fn moves_are_bounded_as_they_are_listed() {
        // 100 lines of all 45 cells, each shuffled: about 100 000 runs.
        let mut state = 0x9e37_79b9_7f4a_7c15u64;
        let lines: Vec<String> = (0..100)
            .map(|_| {
                let mut cells: Vec<u32> = (0..45).collect();
                for i in (1..cells.len()).rev() {
                    state ^= state << 13;
                    state ^= state >> 7;
                    state ^= state << 17;
                    cells.swap(i, (state % (i as u64 + 1)) as usize);
                }
                let cells: Vec<String> = cells.iter().map(u32::to_string).collect();
                format!("[{}]", cells.join(", "))
            })
            .collect();
        let text = format!(
            "cells = 45\nrule = \"normal\"\nlines = [{}]\n",
            lines.join(", ")
        );
        let err = parse(&text, "g.toml").err().map(|e| e.to_string());
        assert!(
            err.as_deref().is_some_and(|e| e.contains("distinct moves")),
            "{err:?}"
        );
    }
}
