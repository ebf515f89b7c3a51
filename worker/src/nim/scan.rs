//! The plain per-position scan of the 2009 study, kept as the baseline the
//! benchmark measures the word engine against: every position in index
//! order, every move tried until a winning one is found, one bit per position.

use egdb_games::nim::NimGame;
use egdb_games::Value;

/// Win bits of every position, bit `p` of the result for mask `p`.
pub fn scan_values(game: &NimGame) -> Vec<u64> {
    let positions = game.position_count();
    let mut bits = vec![0u64; positions.div_ceil(64) as usize];
    let moves = game.moves();
    let terminal_wins = game.terminal_value() == Value::Win;
    for p in 0..positions {
        let mut movable = false;
        let mut wins = false;
        for &m in moves {
            if m & p == m {
                movable = true;
                let child = p ^ m;
                if bits[(child >> 6) as usize] & (1 << (child & 63)) == 0 {
                    wins = true;
                    break;
                }
            }
        }
        if wins || (!movable && terminal_wins) {
            bits[(p >> 6) as usize] |= 1 << (p & 63);
        }
    }
    bits
}
