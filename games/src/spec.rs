//! Game specs: the `GAME` argument of the command line.
//!
//! `nim:triangle:LAYERS:normal|misere`, `nim:hexagram`, `nim:file:PATH`,
//! `morris:taiwan:PIECES`, `morris:standard:PIECES`,
//! `morris:taiwan-protected:PIECES` (RULES.md §2 with mills protected while
//! placing), `morris:morabaraba:PIECES`, `morris:lasker:PIECES`,
//! `morris:FAMILY:K:L` (unequal starts, RULES.md §3a: standard, morabaraba
//! or lasker), `morris:file:PATH` (a rules file, [`crate::morris::file`]).

use std::fmt;
use std::path::PathBuf;
use std::str::FromStr;

use crate::morris::{Variant, MAX_PIECES, MIN_PIECES};
use crate::GameError;

/// Largest heap of a rotor game.
pub const MAX_TOKENS: u32 = 99;

/// Who wins when the stones run out.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Rule {
    /// The player who cannot move (who faces an empty board) loses.
    Normal,
    /// The player who cannot move wins: taking the last stone loses.
    Misere,
}

impl Rule {
    pub fn as_str(self) -> &'static str {
        match self {
            Rule::Normal => "normal",
            Rule::Misere => "misere",
        }
    }
}

impl FromStr for Rule {
    type Err = String;
    fn from_str(s: &str) -> Result<Rule, String> {
        match s {
            "normal" => Ok(Rule::Normal),
            "misere" | "misère" => Ok(Rule::Misere),
            other => Err(format!("rule must be `normal` or `misere`, not `{other}`")),
        }
    }
}

/// Largest triangle whose cells fit the 64-bit position masks.
pub const MAX_TRIANGLE_LAYERS: u32 = 9;

/// A parsed, not yet instantiated, game spec.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum GameSpec {
    NimTriangle {
        layers: u32,
        rule: Rule,
    },
    NimHexagram,
    NimFile {
        path: PathBuf,
    },
    Morris {
        variant: Variant,
        pieces: u8,
    },
    /// A start with K pieces for the first player and L for the second,
    /// pieces in hand while moving (`morris:FAMILY:K:L`, RULES.md §3a);
    /// Lasker with K = L is `Morris`.
    MorrisHands {
        variant: Variant,
        first: u8,
        second: u8,
    },
    /// A Morris variant from a rules file (`morris:file:PATH`).
    MorrisFile {
        path: PathBuf,
    },
    /// The test-only rotor game (feature `toy`).
    Rotor {
        tokens: u32,
    },
}

/// What a Morris spec may be, for errors.
const MORRIS_SPECS: &str = "expected morris:taiwan:PIECES, morris:standard:PIECES, \
     morris:taiwan-protected:PIECES, morris:morabaraba:PIECES, morris:lasker:PIECES, \
     morris:FAMILY:K:L (standard, morabaraba, lasker) or morris:file:PATH";

impl FromStr for GameSpec {
    type Err = GameError;

    fn from_str(spec: &str) -> Result<GameSpec, GameError> {
        let fail = |reason: String| GameError::UnknownSpec {
            spec: spec.to_string(),
            reason,
        };
        let parts: Vec<&str> = spec.split(':').collect();
        match parts.as_slice() {
            ["nim", "triangle", layers, rule] => {
                let layers: u32 = whole_number(layers).ok_or_else(|| {
                    fail(format!("layers must be a whole number, not `{layers}`"))
                })?;
                if !(1..=MAX_TRIANGLE_LAYERS).contains(&layers) {
                    return Err(fail(format!(
                        "layers must be 1 to {MAX_TRIANGLE_LAYERS}, not {layers}"
                    )));
                }
                let rule = rule.parse().map_err(fail)?;
                Ok(GameSpec::NimTriangle { layers, rule })
            }
            ["nim", "triangle", ..] => Err(fail(
                "expected nim:triangle:LAYERS:normal|misere".to_string(),
            )),
            ["nim", "hexagram"] => Ok(GameSpec::NimHexagram),
            ["nim", "file", _, ..] => {
                // A path may itself contain colons.
                let path = spec["nim:file:".len()..].to_string();
                if path.is_empty() {
                    return Err(fail("expected nim:file:PATH".to_string()));
                }
                Ok(GameSpec::NimFile { path: path.into() })
            }
            ["morris", "file", _, ..] => {
                let path = spec["morris:file:".len()..].to_string();
                if path.is_empty() {
                    return Err(fail("expected morris:file:PATH".to_string()));
                }
                Ok(GameSpec::MorrisFile { path: path.into() })
            }
            ["morris", name, pieces] => {
                let variant =
                    Variant::from_name(name).ok_or_else(|| fail(MORRIS_SPECS.to_string()))?;
                let pieces = morris_pieces(pieces).map_err(fail)?;
                Ok(GameSpec::Morris { variant, pieces })
            }
            ["morris", name, first, second] => {
                let variant =
                    Variant::from_name(name).ok_or_else(|| fail(MORRIS_SPECS.to_string()))?;
                let (first, second) = (
                    morris_pieces(first).map_err(fail)?,
                    morris_pieces(second).map_err(fail)?,
                );
                crate::morris::MorrisRules::preset(variant, first)
                    .with_hands(first, second)
                    .map_err(|reason| fail(format!("{}: {reason}", variant.as_str())))?;
                Ok(match variant {
                    Variant::Lasker if first == second => GameSpec::Morris {
                        variant,
                        pieces: first,
                    },
                    _ => GameSpec::MorrisHands {
                        variant,
                        first,
                        second,
                    },
                })
            }
            #[cfg(feature = "toy")]
            ["toy", "rotor", tokens] => match whole_number::<u32>(tokens) {
                Some(tokens @ 1..=MAX_TOKENS) => Ok(GameSpec::Rotor { tokens }),
                _ => Err(fail(format!("tokens must be 1 to {}", MAX_TOKENS))),
            },
            ["morris", ..] => Err(fail(MORRIS_SPECS.to_string())),
            _ => Err(fail(format!(
                "expected nim:triangle:LAYERS:RULE, nim:hexagram, nim:file:PATH or {}",
                &MORRIS_SPECS["expected ".len()..]
            ))),
        }
    }
}

/// A count written in decimal digits only: `parse` would take `+3` too,
/// so that two spellings named one game (or one request).
pub fn whole_number<T: FromStr>(text: &str) -> Option<T> {
    if text.is_empty() || !text.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    text.parse().ok()
}

/// A Morris spec's count of pieces: 3 to 12.
fn morris_pieces(text: &str) -> Result<u8, String> {
    let pieces: u8 =
        whole_number(text).ok_or_else(|| format!("pieces must be a whole number, not `{text}`"))?;
    if !(MIN_PIECES..=MAX_PIECES).contains(&pieces) {
        return Err(format!(
            "pieces must be {MIN_PIECES} to {MAX_PIECES}, not {pieces}"
        ));
    }
    Ok(pieces)
}

impl fmt::Display for GameSpec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            GameSpec::NimTriangle { layers, rule } => {
                write!(f, "nim:triangle:{layers}:{}", rule.as_str())
            }
            GameSpec::NimHexagram => f.write_str("nim:hexagram"),
            GameSpec::NimFile { path } => write!(f, "nim:file:{}", path.display()),
            GameSpec::Morris { variant, pieces } => {
                write!(f, "morris:{}:{pieces}", variant.as_str())
            }
            GameSpec::MorrisHands {
                variant,
                first,
                second,
            } => write!(f, "morris:{}:{first}:{second}", variant.as_str()),
            GameSpec::MorrisFile { path } => write!(f, "morris:file:{}", path.display()),
            GameSpec::Rotor { tokens } => write!(f, "toy:rotor:{tokens}"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn specs_round_trip() {
        for text in [
            "nim:triangle:7:normal",
            "nim:triangle:1:misere",
            "nim:hexagram",
            "nim:file:a:b.toml",
            "morris:taiwan:6",
            "morris:standard:12",
            "morris:taiwan-protected:6",
            "morris:morabaraba:12",
            "morris:lasker:10",
            "morris:standard:9:3",
            "morris:morabaraba:7:7",
            "morris:lasker:3:12",
            "morris:file:rules/lasker.toml",
        ] {
            let spec: GameSpec = text.parse().unwrap();
            assert_eq!(spec.to_string(), text);
        }
    }

    #[test]
    fn lasker_with_equal_hands_is_one_spec() {
        let spec: GameSpec = "morris:lasker:10:10".parse().unwrap();
        assert_eq!(spec.to_string(), "morris:lasker:10");
        let spec: GameSpec = "morris:standard:9:9".parse().unwrap();
        assert_eq!(spec.to_string(), "morris:standard:9:9");
    }

    #[test]
    fn bad_specs_name_the_problem() {
        for (text, needle) in [
            ("nim:triangle:0:normal", "layers must be 1"),
            ("nim:triangle:x:normal", "whole number"),
            ("nim:triangle:5:sudden", "rule must be"),
            ("nim:triangle:5", "expected nim:triangle"),
            ("chess:kqk", "expected nim:triangle"),
            ("nim:file:", "expected nim:file"),
            ("morris:taiwan:13", "pieces must be 3 to 12"),
            ("morris:standard:two", "whole number"),
            // `str::parse` alone would take these as 3 and 4.
            ("morris:lasker:+3", "whole number"),
            ("morris:standard:4:+4", "whole number"),
            ("nim:triangle:+4:normal", "whole number"),
            ("morris:standard: 3", "whole number"),
            ("morris:tw:6", "expected morris:taiwan"),
            ("morris:morabaraba:2", "pieces must be 3 to 12"),
            ("morris:file:", "expected morris:file"),
            ("morris:standard:9:13", "pieces must be 3 to 12"),
            ("morris:lasker:2:5", "pieces must be 3 to 12"),
            (
                "morris:taiwan:6:5",
                "taiwan: pieces in hand while moving need",
            ),
            (
                "morris:taiwan-protected:6:6",
                "taiwan-protected: pieces in hand",
            ),
            ("morris:standard:6:5:4", "expected morris:taiwan"),
        ] {
            let err = text.parse::<GameSpec>().unwrap_err().to_string();
            assert!(err.contains(needle), "{text}: {err}");
        }
    }
}
