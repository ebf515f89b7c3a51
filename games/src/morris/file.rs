//! Morris variants read from a TOML rules file (`morris:file:PATH`).
//!
//! ```toml
//! name = "Morabaraba, 12 pieces"
//! pieces = 12                 # per side, 3 to 12; or [K, L]: the first
//!                             # player K, the second L (RULES.md §3a)
//! diagonals = true            # the 4 diagonals are lines
//! mill_takes = "not-in-mill-unless-all"  # or "any", "not-in-mill-while-placing"
//! gang = false                # 槓 (RULES.md §2)
//! dan = false                 # 擔 (RULES.md §2)
//! flying = true               # a side with exactly 3 pieces flies
//! lose_below_three = "board-and-hand"    # or "board-in-movement"
//! dan_takes = "both"          # or "one" (optional; needs dan = true)
//! capture = "compulsory"      # or "optional" (optional key)
//! several_captures = "one"    # or "all" (optional; "all" needs dan_takes = "both")
//! blocked = "loses"           # or "draws": a side to move without a move (optional)
//! placing = "forced"          # or "lasker": place or move while holding
//!                             # pieces (optional; RULES.md §3a)
//! ```
//!
//! Every key but `name`, `dan_takes`, `capture`, `several_captures`,
//! `blocked` and `placing` is required: a rules file says what it means.
//! `pieces = [K, L]` or `placing = "lasker"` make a game where pieces in
//! hand and moves mix, whose loss rule must count pieces in hand. The
//! optional keys came later
//! and default to the rule that held before them, so older files and
//! stores keep their meaning. The rules every variant shares are those of [`MorrisRules`].

use serde::Deserialize;

use super::rules::{
    Blocked, CaptureRule, DanTakes, MillTargets, MorrisRules, PieceLoss, Placing, SeveralCaptures,
    MAX_PIECES, MIN_PIECES,
};
use crate::GameError;

/// The longest rules file: real ones are a few hundred bytes.
pub const MAX_RULES_BYTES: u64 = 64 << 10;

pub use crate::text_file::MAX_NAME_CHARS;

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RulesFile {
    name: Option<String>,
    pieces: Pieces,
    diagonals: bool,
    mill_takes: MillTargets,
    gang: bool,
    dan: bool,
    flying: bool,
    lose_below_three: PieceLoss,
    #[serde(default)]
    dan_takes: DanTakes,
    #[serde(default)]
    capture: CaptureRule,
    #[serde(default)]
    several_captures: SeveralCaptures,
    #[serde(default)]
    blocked: Blocked,
    #[serde(default)]
    placing: Placing,
}

/// `pieces`: one count for both sides, or the first's and the second's.
#[derive(Debug, Deserialize)]
#[serde(
    untagged,
    expecting = "pieces is a count for both sides (3 to 12) or [K, L], the first's and the second's"
)]
enum Pieces {
    Each(u8),
    Start([u8; 2]),
}

/// A variant as a rules file gives it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RulesDefinition {
    pub name: String,
    pub rules: MorrisRules,
}

/// Reads a rules file of at most [`MAX_RULES_BYTES`].
///
/// # Errors
/// [`GameError::GameFile`] when it cannot be read, is too long or is not
/// UTF-8.
pub fn read(path: &std::path::Path) -> Result<String, GameError> {
    crate::text_file::read_bounded(path, MAX_RULES_BYTES)
}

/// Parses and checks a rules file's text; `path` only names it in errors.
///
/// # Errors
/// [`GameError::GameFile`] naming the first problem: too long, TOML
/// syntax, an unknown or missing key, a value out of range.
pub fn parse(text: &str, path: &str) -> Result<RulesDefinition, GameError> {
    let fail = |reason: String| GameError::GameFile {
        path: path.to_string(),
        reason,
    };
    let file: RulesFile = crate::text_file::parse_bounded(text, path, MAX_RULES_BYTES)?;
    let (pieces, hands) = match file.pieces {
        Pieces::Each(p) if file.placing == Placing::Forced => (p, None),
        Pieces::Each(p) => (p, Some([p, p])),
        Pieces::Start([first, second]) => (first.max(second), Some([first, second])),
    };
    for count in hands.unwrap_or([pieces; 2]) {
        if !(MIN_PIECES..=MAX_PIECES).contains(&count) {
            return Err(fail(format!(
                "pieces must be {MIN_PIECES} to {MAX_PIECES}, not {count}"
            )));
        }
    }
    if file.dan_takes != DanTakes::Both && !file.dan {
        return Err(fail("dan_takes needs dan = true".to_string()));
    }
    // A 擔 taking one corner among other captures has no single meaning.
    if file.several_captures == SeveralCaptures::All && file.dan_takes != DanTakes::Both {
        return Err(fail(
            "several_captures = \"all\" needs dan_takes = \"both\"".to_string(),
        ));
    }
    let rules = MorrisRules {
        pieces,
        hands: None,
        placing: file.placing,
        diagonals: file.diagonals,
        mill_targets: file.mill_takes,
        gang: file.gang,
        dan: file.dan,
        flying: file.flying,
        piece_loss: file.lose_below_three,
        dan_takes: file.dan_takes,
        capture: file.capture,
        several_captures: file.several_captures,
        blocked: file.blocked,
    };
    let rules = match hands {
        None => rules,
        Some([first, second]) => rules.with_hands(first, second).map_err(fail)?,
    };
    let name = match file.name {
        None => format!(
            "Morris variant from {}, {} pieces",
            crate::shown::printable(path),
            match hands {
                Some([first, second]) if first != second => format!("{first} against {second}"),
                _ => pieces.to_string(),
            }
        ),
        Some(name) => crate::text_file::plain_name(name).map_err(fail)?,
    };
    Ok(RulesDefinition { name, rules })
}

/// The definition as a rules file that [`parse`] reads back to the same
/// variant: what a store keeps, so that it outlives the file.
pub fn to_toml(def: &RulesDefinition) -> String {
    let r = &def.rules;
    // `placing = "lasker"` alone makes equal hands mix; forced placing
    // needs them written out.
    let pieces = match r.hands {
        Some([first, second]) if first != second || r.placing == Placing::Forced => {
            format!("[{first}, {second}]")
        }
        _ => r.pieces.to_string(),
    };
    let mut text = format!(
        "name = {}\npieces = {}\ndiagonals = {}\nmill_takes = \"{}\"\ngang = {}\ndan = {}\n\
         flying = {}\nlose_below_three = \"{}\"\n",
        crate::text_file::toml_string(&def.name),
        pieces,
        r.diagonals,
        r.mill_targets.as_str(),
        r.gang,
        r.dan,
        r.flying,
        r.piece_loss.as_str(),
    );
    // Written only where they differ from their defaults, so that a store
    // of a variant without them stays readable by builds before them.
    if r.dan_takes != DanTakes::Both {
        text += &format!("dan_takes = \"{}\"\n", r.dan_takes.as_str());
    }
    if r.capture != CaptureRule::Compulsory {
        text += &format!("capture = \"{}\"\n", r.capture.as_str());
    }
    if r.several_captures != SeveralCaptures::One {
        text += &format!("several_captures = \"{}\"\n", r.several_captures.as_str());
    }
    if r.blocked != Blocked::Loses {
        text += &format!("blocked = \"{}\"\n", r.blocked.as_str());
    }
    if r.placing != Placing::Forced {
        text += &format!("placing = \"{}\"\n", r.placing.as_str());
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    const MORABARABA: &str = r#"
name = "Morabaraba"
pieces = 12
diagonals = true
mill_takes = "not-in-mill-unless-all"
gang = false
dan = false
flying = true
lose_below_three = "board-and-hand"
"#;

    #[test]
    fn a_file_gives_the_rules_it_names() {
        let def = parse(MORABARABA, "m.toml").unwrap();
        assert_eq!(def.name, "Morabaraba");
        assert_eq!(def.rules, MorrisRules::morabaraba(12));
        let taiwan = MORABARABA
            .replace("\"not-in-mill-unless-all\"", "\"any\"")
            .replace("gang = false", "gang = true")
            .replace("dan = false", "dan = true")
            .replace("flying = true", "flying = false")
            .replace("board-and-hand", "board-in-movement")
            .replace("name = \"Morabaraba\"\n", "");
        let def = parse(&taiwan, "t.toml").unwrap();
        assert_eq!(def.rules, MorrisRules::taiwan(12));
        assert!(def.name.contains("t.toml"), "{}", def.name);
    }

    /// The rules files in `docs/variants/` are the presets' rules.
    #[test]
    fn the_documented_variants_are_the_presets() {
        use super::super::Variant;
        for (text, variant, pieces) in [
            (
                include_str!("../../../docs/variants/taiwan.toml"),
                Variant::Taiwan,
                12,
            ),
            (
                include_str!("../../../docs/variants/standard.toml"),
                Variant::Standard,
                9,
            ),
            (
                include_str!("../../../docs/variants/taiwan-protected.toml"),
                Variant::TaiwanProtected,
                6,
            ),
            (
                include_str!("../../../docs/variants/morabaraba.toml"),
                Variant::Morabaraba,
                12,
            ),
            (
                include_str!("../../../docs/variants/lasker.toml"),
                Variant::Lasker,
                10,
            ),
        ] {
            let def = parse(text, variant.as_str()).unwrap();
            assert_eq!(
                def.rules,
                MorrisRules::preset(variant, pieces),
                "{variant:?}"
            );
        }
    }

    /// The readings `deploy/taiwan-rules.sh` builds parse, and each
    /// differs from RULES.md §2 and from the others.
    #[test]
    fn the_taiwan_readings_are_distinct_variants() {
        let mut seen = vec![MorrisRules::taiwan(6)];
        for text in [
            include_str!("../../../docs/variants/taiwan-readings/capture-optional.toml"),
            include_str!("../../../docs/variants/taiwan-readings/dan-one.toml"),
            include_str!("../../../docs/variants/taiwan-readings/flying.toml"),
            include_str!("../../../docs/variants/taiwan-readings/hand-counts.toml"),
            include_str!("../../../docs/variants/taiwan-readings/protected-always.toml"),
            include_str!("../../../docs/variants/taiwan-readings/take-all.toml"),
            include_str!("../../../docs/variants/taiwan-readings/blocked-draws.toml"),
            include_str!("../../../docs/variants/taiwan-readings/no-gang.toml"),
            include_str!("../../../docs/variants/taiwan-readings/no-dan.toml"),
            include_str!("../../../docs/variants/taiwan-readings/protected-optional.toml"),
        ] {
            let rules = parse(text, "reading.toml").unwrap().rules;
            assert!(!seen.contains(&rules), "{rules:?} twice");
            seen.push(rules);
        }
    }

    #[test]
    fn definitions_read_back_the_same() {
        let targets = [
            MillTargets::Any,
            MillTargets::NotInMillUnlessAll,
            MillTargets::NotInMillWhilePlacing,
        ];
        for (i, mill_targets) in targets.into_iter().enumerate() {
            for piece_loss in [PieceLoss::BoardInMovement, PieceLoss::BoardAndHand] {
                let def = RulesDefinition {
                    name: format!("v\"{i}\\ \u{1d11e}"),
                    rules: MorrisRules {
                        pieces: 3 + i as u8,
                        diagonals: i % 2 == 0,
                        mill_targets,
                        gang: i == 1,
                        dan: i != 1,
                        flying: piece_loss == PieceLoss::BoardAndHand,
                        piece_loss,
                        dan_takes: if i == 2 {
                            DanTakes::One
                        } else {
                            DanTakes::Both
                        },
                        capture: if piece_loss == PieceLoss::BoardAndHand {
                            CaptureRule::Optional
                        } else {
                            CaptureRule::Compulsory
                        },
                        several_captures: if i == 0 {
                            SeveralCaptures::All
                        } else {
                            SeveralCaptures::One
                        },
                        blocked: if piece_loss == PieceLoss::BoardInMovement {
                            Blocked::Draws
                        } else {
                            Blocked::Loses
                        },
                        hands: None,
                        placing: Placing::Forced,
                    },
                };
                assert_eq!(parse(&to_toml(&def), "x"), Ok(def.clone()));
                if piece_loss == PieceLoss::BoardAndHand && i != 2 {
                    for (hands, placing) in [
                        ([5, 3], Placing::Forced),
                        ([4, 4], Placing::Forced),
                        ([3, 7], Placing::Lasker),
                        ([6, 6], Placing::Lasker),
                    ] {
                        let rules = MorrisRules {
                            placing,
                            ..def.rules
                        }
                        .with_hands(hands[0], hands[1])
                        .unwrap();
                        let mixed = RulesDefinition {
                            rules,
                            ..def.clone()
                        };
                        assert_eq!(parse(&to_toml(&mixed), "x"), Ok(mixed));
                    }
                }
            }
        }
    }

    #[test]
    fn hands_and_lasker_placing_make_mixed_games() {
        let lasker = parse(&format!("{MORABARABA}placing = \"lasker\"\n"), "l.toml").unwrap();
        assert_eq!(lasker.rules.hands, Some([12, 12]));
        assert_eq!(lasker.rules.placing, Placing::Lasker);
        let unequal = parse(
            &MORABARABA.replace("pieces = 12", "pieces = [7, 5]"),
            "u.toml",
        )
        .unwrap()
        .rules;
        assert_eq!(
            unequal,
            MorrisRules::morabaraba(7).with_hands(7, 5).unwrap()
        );
        assert_eq!(unequal.start_hands(), [7, 5]);
        for (text, needle) in [
            (
                MORABARABA.replace("pieces = 12", "pieces = [7, 13]"),
                "pieces must be 3 to 12, not 13",
            ),
            (
                MORABARABA
                    .replace("pieces = 12", "pieces = [6, 6]")
                    .replace("board-and-hand", "board-in-movement"),
                "need a loss rule that counts them",
            ),
            (
                format!("{MORABARABA}placing = \"sometimes\"\n"),
                "unknown variant `sometimes`",
            ),
        ] {
            let err = parse(&text, "bad.toml").unwrap_err().to_string();
            assert!(err.contains(needle), "{err}");
        }
    }

    #[test]
    fn bad_files_name_the_problem() {
        for (change, needle) in [
            (("pieces = 12", "pieces = 13"), "pieces must be 3 to 12"),
            (("pieces = 12", "pieces = 300"), "line"),
            (("gang = false\n", ""), "missing field `gang`"),
            (
                ("dan = false", "dan = false\nkos = 1"),
                "unknown field `kos`",
            ),
            (("\"any\"", "\"any\""), ""),
            (
                ("not-in-mill-unless-all", "sometimes"),
                "unknown variant `sometimes`",
            ),
            (("board-and-hand", "never"), "unknown variant `never`"),
            (("\"Morabaraba\"", "\"a\\u0007b\""), "control characters"),
            (
                ("dan = false", "dan = false\ndan_takes = \"one\""),
                "dan_takes needs dan",
            ),
            (
                ("dan = false", "dan = false\ncapture = \"maybe\""),
                "unknown variant `maybe`",
            ),
            (
                ("dan = false", "dan = false\nseveral_captures = \"all\""),
                "",
            ),
            (
                (
                    "dan = false",
                    "dan = true\ndan_takes = \"one\"\nseveral_captures = \"all\"",
                ),
                "needs dan_takes = \"both\"",
            ),
            (
                ("dan = false", "dan = false\nblocked = \"passes\""),
                "unknown variant `passes`",
            ),
            (("\"Morabaraba\"", "\"  \""), "name must be"),
            (("diagonals = true", "diagonals = 1"), "line 4"),
        ] {
            let text = MORABARABA.replace(change.0, change.1);
            let result = parse(&text, "bad.toml");
            if needle.is_empty() {
                assert!(result.is_ok(), "{change:?}: {result:?}");
                continue;
            }
            let err = result.unwrap_err().to_string();
            assert!(err.contains(needle), "{change:?}: {err}");
            assert!(err.contains("bad.toml"), "{err}");
        }
        let long = format!("{MORABARABA}#{}", "x".repeat(MAX_RULES_BYTES as usize));
        assert!(parse(&long, "l.toml")
            .unwrap_err()
            .to_string()
            .contains("longer"));
    }
}
