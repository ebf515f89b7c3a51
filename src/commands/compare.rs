//! `egdb compare`: a store's slices against a published checksum list (as
//! `egdb results --crc` writes, `slice positions raw_crc32`), so that a
//! rebuild, finished or still running, shows whether it holds the same
//! tables, and two rule readings show which slices they differ on.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use egdb_coordinator::{read_checksum_list, Listed};
use serde_json::json;

use crate::cli::CompareArgs;
use crate::failure::Exit;
use crate::failure::Failure;

/// How the store's plan and the list compare, slice by slice.
#[derive(Debug, Default)]
struct Comparison {
    /// The plan's slices in the store.
    built: usize,
    /// Slices in the game's plan.
    planned: usize,
    same: Vec<String>,
    /// Slice, what the store holds, what the list says.
    differ: Vec<(String, Listed, Listed)>,
    /// In the plan and the list, not yet in the store.
    not_built: Vec<String>,
    /// In the plan, missing from the list.
    unlisted: Vec<String>,
    /// In the plan, missing from the list, and not compared
    /// (`--listed-only`).
    not_compared: usize,
    /// Listed, but not a slice of the store's game.
    not_in_plan: Vec<String>,
    /// Slices whose blocks do not hold what their records say: the damage.
    damaged: Vec<(String, String)>,
    /// Whether every built slice's blocks were read (else only the records'
    /// checksums were compared).
    read: bool,
}

impl Comparison {
    fn agrees(&self) -> bool {
        self.differ.is_empty()
            && self.unlisted.is_empty()
            && self.not_in_plan.is_empty()
            && self.damaged.is_empty()
    }
}

pub fn run(args: CompareArgs) -> Exit {
    let list = read_checksum_list(&args.crc).map_err(|e| Failure::bad_input(e.to_string()))?;
    let tablebase = egdb_tablebase::Tablebase::open(&args.store)?;
    let built: BTreeMap<&str, Listed> = tablebase
        .planned_records()?
        .into_iter()
        .map(|r| {
            let listed = Listed {
                positions: r.counts.positions,
                crc: r.raw_crc32,
            };
            (r.slice.as_str(), listed)
        })
        .collect();
    let plan: Vec<&str> = tablebase.plan().iter().map(|s| s.as_str()).collect();
    let mut comparison = compare(&plan, &built, &list, args.listed_only);
    if !args.recorded {
        let listed: std::collections::BTreeSet<&str> =
            list.iter().map(|(s, _)| s.as_str()).collect();
        let compared = |slice: &str| !args.listed_only || listed.contains(slice);
        comparison.damaged = egdb_tablebase::results::damaged(&tablebase, compared)?;
        comparison.read = true;
    }
    let game = tablebase.game().spec().to_string();
    let against = args.crc.display();
    if args.json {
        outln!("{}", as_json(&comparison, &game))?;
    } else {
        out!("{}", as_text(&comparison, &game, &against.to_string()))?;
    }
    if args.listed_only && comparison.same.is_empty() && comparison.differ.is_empty() {
        return Err(Failure::failed(format!(
            "no slice {against} lists is in {} yet: nothing was compared",
            args.store.display()
        )));
    }
    if comparison.agrees() {
        return Ok(0);
    }
    Err(Failure::failed(format!(
        "{} does not hold the tables {against} lists",
        args.store.display()
    )))
}

/// Plan order throughout, then the list's strays in its own order. With
/// `listed_only`, the plan's slices the list lacks are only counted.
fn compare(
    plan: &[&str],
    built: &BTreeMap<&str, Listed>,
    list: &[(String, Listed)],
    listed_only: bool,
) -> Comparison {
    let listed: BTreeMap<&str, Listed> = list.iter().map(|(s, l)| (s.as_str(), *l)).collect();
    let mut c = Comparison {
        built: built.len(),
        planned: plan.len(),
        ..Comparison::default()
    };
    for &slice in plan {
        match (built.get(slice), listed.get(slice)) {
            (_, None) if listed_only => c.not_compared += 1,
            (_, None) => c.unlisted.push(slice.to_string()),
            (None, Some(_)) => c.not_built.push(slice.to_string()),
            (Some(here), Some(there)) if here == there => c.same.push(slice.to_string()),
            (Some(here), Some(there)) => c.differ.push((slice.to_string(), *here, *there)),
        }
    }
    let planned: std::collections::BTreeSet<&str> = plan.iter().copied().collect();
    c.not_in_plan = list
        .iter()
        .filter(|(s, _)| !planned.contains(s.as_str()))
        .map(|(s, _)| s.clone())
        .collect();
    c
}

fn as_text(c: &Comparison, game: &str, against: &str) -> String {
    let mut out = format!(
        "{game} against {against}: {} of {} slices built\n",
        c.built, c.planned
    );
    let _ = writeln!(out, "same:      {}", c.same.len());
    let _ = writeln!(out, "differ:    {}", c.differ.len());
    let _ = writeln!(out, "not built: {}", c.not_built.len());
    if c.not_compared > 0 {
        let _ = writeln!(
            out,
            "not listed: {} (--listed-only: neither compared nor read)",
            c.not_compared
        );
    }
    // With --listed-only, what agrees or was read is the listed slices.
    let (built, kind) = if c.not_compared > 0 {
        ("built listed", "listed slice")
    } else {
        ("built", "slice")
    };
    if c.read {
        let _ = writeln!(
            out,
            "damaged:   {} (every block of the {built} slices read and checked)",
            c.damaged.len()
        );
    } else {
        out +=
            "damaged:   not looked for (--recorded: the records' checksums only, no block read)\n";
    }
    for (slice, why) in &c.damaged {
        let _ = writeln!(out, "  damaged {slice}: {why}");
    }
    for (slice, here, there) in &c.differ {
        let _ = writeln!(
            out,
            "  differs {slice}: here {} positions, crc {:08x}; listed {} positions, crc {:08x}",
            here.positions, here.crc, there.positions, there.crc
        );
    }
    for (what, slices) in [
        ("slices of the game the list lacks", &c.unlisted),
        ("listed slices that are not the game's", &c.not_in_plan),
    ] {
        if !slices.is_empty() {
            let _ = writeln!(out, "{what} ({}): {}", slices.len(), slices.join(" "));
        }
    }
    let ending = match (c.agrees(), c.not_built.is_empty(), c.read) {
        (false, _, _)
            if c.differ.is_empty() && c.unlisted.is_empty() && c.not_in_plan.is_empty() =>
        {
            "the store is damaged: its records agree with the list, its blocks do not".to_string()
        }
        (false, _, _) => "the store and the list differ".to_string(),
        (true, true, true) => format!("every {kind} agrees"),
        (true, false, true) => format!("every {kind} built so far agrees"),
        (true, true, false) => {
            format!("every {kind}'s recorded checksum agrees (blocks not read)")
        }
        (true, false, false) => {
            format!("every {kind} built so far has the recorded checksum listed (blocks not read)")
        }
    };
    out + &ending + "\n"
}

fn as_json(c: &Comparison, game: &str) -> serde_json::Value {
    let differ: Vec<serde_json::Value> = c
        .differ
        .iter()
        .map(|(slice, here, there)| {
            json!({
                "slice": slice,
                "positions": here.positions,
                "crc": format!("{:08x}", here.crc),
                "listed_positions": there.positions,
                "listed_crc": format!("{:08x}", there.crc),
            })
        })
        .collect();
    json!({
        "game": game,
        "planned": c.planned,
        "built": c.built,
        "agrees": c.agrees(),
        "same": c.same,
        "differ": differ,
        "not_built": c.not_built,
        "unlisted": c.unlisted,
        "not_compared": c.not_compared,
        "not_in_plan": c.not_in_plan,
        "blocks_read": c.read,
        "damaged": c.damaged.iter().map(|(slice, why)| json!({"slice": slice, "reason": why})).collect::<Vec<_>>(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn listed(positions: u64, crc: u32) -> Listed {
        Listed { positions, crc }
    }

    #[test]
    fn slices_are_sorted_into_same_differ_not_built_and_strays() {
        let plan = ["a", "b", "c", "d", "e"];
        let built: BTreeMap<&str, Listed> = [
            ("a", listed(1, 1)),
            ("b", listed(2, 2)),
            ("c", listed(3, 3)),
            ("e", listed(5, 5)),
        ]
        .into();
        let list = vec![
            ("a".to_string(), listed(1, 1)),
            ("b".to_string(), listed(2, 7)),
            ("c".to_string(), listed(4, 3)),
            ("d".to_string(), listed(4, 4)),
            ("z".to_string(), listed(9, 9)),
        ];
        let c = compare(&plan, &built, &list, false);
        assert_eq!(c.same, ["a"]);
        assert_eq!(
            c.differ,
            [
                ("b".to_string(), listed(2, 2), listed(2, 7)),
                ("c".to_string(), listed(3, 3), listed(4, 3))
            ]
        );
        assert_eq!(c.not_built, ["d"]);
        assert_eq!(c.unlisted, ["e"]);
        assert_eq!(c.not_in_plan, ["z"]);
        assert!(!c.agrees());
        assert_eq!((c.built, c.planned), (4, 5));
        // Only what the list names: "e" is counted, not held against it.
        let only = compare(&plan, &built, &list, true);
        assert!(only.unlisted.is_empty());
        assert_eq!(only.not_compared, 1);
        assert_eq!((only.same.len(), only.differ.len()), (1, 2));
        assert_eq!(only.not_in_plan, ["z"]);
    }

    #[test]
    fn a_store_in_progress_agrees_on_what_it_has() {
        let plan = ["a", "b"];
        let built: BTreeMap<&str, Listed> = [("a", listed(1, 1))].into();
        let list = vec![
            ("a".to_string(), listed(1, 1)),
            ("b".to_string(), listed(2, 2)),
        ];
        let mut c = compare(&plan, &built, &list, false);
        assert!(c.agrees());
        // Only blocks read vouch for the bytes.
        let text = as_text(&c, "g", "l");
        assert!(text.ends_with("(blocks not read)\n"), "{text}");
        c.read = true;
        let text = as_text(&c, "g", "l");
        assert!(text.contains("1 of 2 slices built"), "{text}");
        assert!(
            text.ends_with("every slice built so far agrees\n"),
            "{text}"
        );
        c.damaged = vec![("a".to_string(), "corrupt block 3".to_string())];
        assert!(!c.agrees());
        let text = as_text(&c, "g", "l");
        assert!(text.contains("damaged a: corrupt block 3"), "{text}");
        assert!(text.ends_with("its blocks do not\n"), "{text}");
    }
}
