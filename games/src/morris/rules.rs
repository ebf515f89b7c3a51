//! Morris rule variants as data: one options struct, named presets.

use super::board::{self, Line};
use crate::Value;

/// Fewest and most pieces per side a game may start with.
pub const MIN_PIECES: u8 = 3;
pub const MAX_PIECES: u8 = 12;

/// Which opponent pieces a mill may remove.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum MillTargets {
    /// Any piece (Taiwan: pieces in mills are not protected).
    Any,
    /// A piece not in a mill, unless every piece is in one (standard).
    NotInMillUnlessAll,
    /// As `NotInMillUnlessAll` while placing, any piece while moving (the
    /// base Twelve Men's Morris rule kept for Taiwan's placement phase: the
    /// reading issue 16 tests against the 2011 thesis).
    NotInMillWhilePlacing,
}

impl MillTargets {
    /// The name rules files use.
    pub fn as_str(self) -> &'static str {
        match self {
            MillTargets::Any => "any",
            MillTargets::NotInMillUnlessAll => "not-in-mill-unless-all",
            MillTargets::NotInMillWhilePlacing => "not-in-mill-while-placing",
        }
    }
}

/// When a player has lost for lack of pieces.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum PieceLoss {
    /// Fewer than 3 on the board, counted from the first position of the
    /// movement phase on (Taiwan).
    BoardInMovement,
    /// Fewer than 3 on the board and in hand together, in either phase
    /// (standard).
    BoardAndHand,
}

impl PieceLoss {
    /// The name rules files use.
    pub fn as_str(self) -> &'static str {
        match self {
            PieceLoss::BoardInMovement => "board-in-movement",
            PieceLoss::BoardAndHand => "board-and-hand",
        }
    }
}

/// What a 擔 removes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum DanTakes {
    /// Both corner pieces (RULES.md §2).
    #[default]
    Both,
    /// One of the two, as the mover chooses.
    One,
}

impl DanTakes {
    /// The name rules files use.
    pub fn as_str(self) -> &'static str {
        match self {
            DanTakes::Both => "both",
            DanTakes::One => "one",
        }
    }
}

/// Whether a move that opens a capture must take one.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum CaptureRule {
    /// An open capture must be taken (RULES.md §2 and §3).
    #[default]
    Compulsory,
    /// The mover may also capture nothing.
    Optional,
}

impl CaptureRule {
    /// The name rules files use.
    pub fn as_str(self) -> &'static str {
        match self {
            CaptureRule::Compulsory => "compulsory",
            CaptureRule::Optional => "optional",
        }
    }
}

/// What a move that opens several captures takes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum SeveralCaptures {
    /// Exactly one of them, as the mover chooses (RULES.md §2 and §3: a
    /// double mill takes one piece).
    #[default]
    One,
    /// Every one: each mill closed takes a piece of the mover's choice, a
    /// 槓 its middle piece, a 擔 its corners, all different pieces.
    All,
}

impl SeveralCaptures {
    /// The name rules files use.
    pub fn as_str(self) -> &'static str {
        match self {
            SeveralCaptures::One => "one",
            SeveralCaptures::All => "all",
        }
    }
}

/// What becomes of a side to move that has no legal move in the movement
/// phase (a full board is a draw under either).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Blocked {
    /// It has lost (RULES.md §2 and §3).
    #[default]
    Loses,
    /// The game is drawn: the stalemate rule some Morris rule books give.
    Draws,
}

impl Blocked {
    /// The name rules files use.
    pub fn as_str(self) -> &'static str {
        match self {
            Blocked::Loses => "loses",
            Blocked::Draws => "draws",
        }
    }

    /// The blocked side's value.
    pub const fn value(self) -> Value {
        match self {
            Blocked::Loses => Value::Loss,
            Blocked::Draws => Value::Draw,
        }
    }
}

/// How pieces in hand come into play.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Placing {
    /// A player with pieces in hand must place one (RULES.md §2, §3).
    #[default]
    Forced,
    /// A player with pieces in hand places one or moves one (Lasker
    /// Morris, RULES.md §3a).
    Lasker,
}

impl Placing {
    /// The name rules files use.
    pub fn as_str(self) -> &'static str {
        match self {
            Placing::Forced => "forced",
            Placing::Lasker => "lasker",
        }
    }
}

/// The most opponent pieces any one move removes under any rules: three,
/// where a move takes every capture it opens (three mills through a
/// corner, or a 擔 and a 槓 from a side's midpoint).
pub const MAX_REMOVED: u32 = 3;

/// The rules of one Morris variant. A rule every variant shares: a full
/// board is a draw.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MorrisRules {
    /// Pieces each side starts with in hand; with `hands`, the larger hand.
    pub pieces: u8,
    /// `Some([K, L])`: the game with pieces in hand while moving (RULES.md
    /// §3a), the first player starting with K in hand and the second with
    /// L, its stores holding every position with at most K and L pieces.
    /// `None`: the two-phase game, `pieces` each.
    pub hands: Option<[u8; 2]>,
    pub placing: Placing,
    /// Whether the 4 diagonals are lines (and so adjacencies).
    pub diagonals: bool,
    pub mill_targets: MillTargets,
    /// 槓: an end of a midline or diagonal brackets an opponent piece.
    pub gang: bool,
    /// 擔: the midpoint of a side between two opponent pieces.
    pub dan: bool,
    /// A player with exactly 3 pieces moves to any empty point.
    pub flying: bool,
    pub piece_loss: PieceLoss,
    pub dan_takes: DanTakes,
    pub capture: CaptureRule,
    pub several_captures: SeveralCaptures,
    pub blocked: Blocked,
}

/// The named presets, for specs and messages.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Variant {
    Taiwan,
    Standard,
    /// Taiwan with pieces in mills protected while placing.
    TaiwanProtected,
    /// The South African game: the board with diagonals, mills only.
    Morabaraba,
    /// The standard rules with pieces in hand while moving (RULES.md §3a).
    Lasker,
}

impl Variant {
    pub fn as_str(self) -> &'static str {
        match self {
            Variant::Taiwan => "taiwan",
            Variant::Standard => "standard",
            Variant::TaiwanProtected => "taiwan-protected",
            Variant::Morabaraba => "morabaraba",
            Variant::Lasker => "lasker",
        }
    }

    /// Every preset, in the order specs list them.
    pub const ALL: [Variant; 5] = [
        Variant::Taiwan,
        Variant::Standard,
        Variant::TaiwanProtected,
        Variant::Morabaraba,
        Variant::Lasker,
    ];

    /// The preset a spec names, e.g. `taiwan`.
    pub fn from_name(name: &str) -> Option<Variant> {
        Variant::ALL.into_iter().find(|v| v.as_str() == name)
    }

    /// How games of this preset are called.
    pub fn title(self) -> &'static str {
        match self {
            Variant::Taiwan => "Taiwan Morris",
            Variant::TaiwanProtected => "Taiwan Morris, mills protected while placing",
            Variant::Standard => "Morris, standard rules",
            Variant::Morabaraba => "Morabaraba",
            Variant::Lasker => "Lasker Morris",
        }
    }
}

impl MorrisRules {
    /// Taiwan Morris (RULES.md §2): diagonals, 直/槓/擔, no flying.
    pub const fn taiwan(pieces: u8) -> MorrisRules {
        MorrisRules {
            pieces,
            diagonals: true,
            mill_targets: MillTargets::Any,
            gang: true,
            dan: true,
            flying: false,
            piece_loss: PieceLoss::BoardInMovement,
            dan_takes: DanTakes::Both,
            capture: CaptureRule::Compulsory,
            several_captures: SeveralCaptures::One,
            blocked: Blocked::Loses,
            hands: None,
            placing: Placing::Forced,
        }
    }

    /// Nine Men's Morris rules (RULES.md §3) with any number of pieces.
    pub const fn standard(pieces: u8) -> MorrisRules {
        MorrisRules {
            pieces,
            diagonals: false,
            mill_targets: MillTargets::NotInMillUnlessAll,
            gang: false,
            dan: false,
            flying: true,
            piece_loss: PieceLoss::BoardAndHand,
            dan_takes: DanTakes::Both,
            capture: CaptureRule::Compulsory,
            several_captures: SeveralCaptures::One,
            blocked: Blocked::Loses,
            hands: None,
            placing: Placing::Forced,
        }
    }

    pub const fn preset(variant: Variant, pieces: u8) -> MorrisRules {
        match variant {
            Variant::Taiwan => MorrisRules::taiwan(pieces),
            Variant::Standard => MorrisRules::standard(pieces),
            Variant::TaiwanProtected => MorrisRules {
                mill_targets: MillTargets::NotInMillWhilePlacing,
                ..MorrisRules::taiwan(pieces)
            },
            Variant::Morabaraba => MorrisRules::morabaraba(pieces),
            Variant::Lasker => MorrisRules::lasker(pieces),
        }
    }

    /// Morabaraba: the board with diagonals, mills only (a piece in a mill
    /// is taken only when all are), flying at 3 pieces, a player left with
    /// fewer than 3 on the board and in hand loses.
    pub const fn morabaraba(pieces: u8) -> MorrisRules {
        MorrisRules {
            diagonals: true,
            ..MorrisRules::standard(pieces)
        }
    }

    /// Lasker Morris (RULES.md §3a): the standard rules, a player with
    /// pieces in hand placing or moving, `pieces` each.
    pub const fn lasker(pieces: u8) -> MorrisRules {
        MorrisRules {
            hands: Some([pieces, pieces]),
            placing: Placing::Lasker,
            ..MorrisRules::standard(pieces)
        }
    }

    /// These rules with the first player starting with `first` pieces and
    /// the second with `second`, pieces in hand while moving.
    ///
    /// # Errors
    /// The reason these rules allow no such start: a count outside 3…12,
    /// or a loss rule that does not count pieces in hand.
    pub fn with_hands(self, first: u8, second: u8) -> Result<MorrisRules, String> {
        for count in [first, second] {
            if !(MIN_PIECES..=MAX_PIECES).contains(&count) {
                return Err(format!(
                    "pieces in hand must be {MIN_PIECES} to {MAX_PIECES}, not {count}"
                ));
            }
        }
        if self.piece_loss != PieceLoss::BoardAndHand {
            return Err(
                "pieces in hand while moving need a loss rule that counts them \
                 (lose_below_three = \"board-and-hand\": standard, morabaraba, lasker)"
                    .to_string(),
            );
        }
        if self.mill_targets == MillTargets::NotInMillWhilePlacing {
            return Err(
                "mills protected while placing have no meaning when placing and moving mix"
                    .to_string(),
            );
        }
        Ok(MorrisRules {
            pieces: first.max(second),
            hands: Some([first, second]),
            ..self
        })
    }

    /// Whether pieces in hand and moves mix (RULES.md §3a): the stores hold
    /// hand slices instead of placement rounds.
    pub const fn mixes_hands(&self) -> bool {
        self.hands.is_some()
    }

    /// The pieces each side starts with, first player first.
    pub const fn start_hands(&self) -> [u8; 2] {
        match self.hands {
            Some(hands) => hands,
            None => [self.pieces, self.pieces],
        }
    }

    /// The rules as they stand in one phase: a mill's targets may depend
    /// on it.
    pub const fn in_phase(&self, placing: bool) -> MorrisRules {
        let mill_targets = match (self.mill_targets, placing) {
            (MillTargets::NotInMillWhilePlacing, true) => MillTargets::NotInMillUnlessAll,
            (MillTargets::NotInMillWhilePlacing, false) => MillTargets::Any,
            (targets, _) => targets,
        };
        MorrisRules {
            mill_targets,
            ..*self
        }
    }

    pub fn lines(&self) -> &'static [Line] {
        board::lines(self.diagonals)
    }

    /// Pieces in hand of the side to move and of the other side after
    /// `ply` placements (both 0 from 2P on: the movement phase).
    pub const fn hands_after(&self, ply: u32) -> [u32; 2] {
        let p = self.pieces as u32;
        [p.saturating_sub(ply / 2), p.saturating_sub(ply.div_ceil(2))]
    }

    /// The most opponent pieces one move removes: two where a 擔 takes
    /// both corners; where a move takes every capture it opens, three with
    /// diagonals (three mills through a corner) or a 擔 (and a 槓 or mill
    /// on the midline), else two (two mills). What slices read, and so
    /// what the plan gives them.
    pub const fn most_removed(&self) -> u32 {
        let dan_both = self.dan && matches!(self.dan_takes, DanTakes::Both);
        match self.several_captures {
            SeveralCaptures::One if dan_both => 2,
            SeveralCaptures::One => 1,
            SeveralCaptures::All if self.diagonals || dan_both => MAX_REMOVED,
            SeveralCaptures::All => 2,
        }
    }

    /// Whether a side with `count` pieces on the board moves by flying.
    pub const fn flies(&self, count: u32) -> bool {
        self.flying && count == 3
    }

    /// The fewest pieces of its own a side has on the board, the one just
    /// placed or moved among them, when its move captures: a mill takes
    /// three, a 槓 two (its ends), a 擔 one (its midpoint).
    pub const fn fewest_to_capture(&self) -> u32 {
        if self.dan {
            1
        } else if self.gang {
            2
        } else {
            3
        }
    }

    /// Whether a side with `board` pieces on the board and `hand` in hand
    /// moves by flying: at 3 on the board, or under Lasker rules at 3 on
    /// the board and in hand together (RULES.md §3a).
    pub const fn flies_with(&self, board: u32, hand: u32) -> bool {
        match self.placing {
            Placing::Lasker => self.flies(board + hand),
            Placing::Forced => self.flies(board),
        }
    }

    /// Whether a side with pieces in hand may move one on the board instead
    /// of placing.
    pub const fn moves_with_hand(&self) -> bool {
        matches!(self.placing, Placing::Lasker)
    }

    /// Whether step moves keep the parity classes of RULES.md §1 in a
    /// movement slice where the sides have `a` and `b` pieces.
    pub const fn parity_splits(&self, a: u32, b: u32) -> bool {
        !self.flies(a) && !self.flies(b)
    }
}
