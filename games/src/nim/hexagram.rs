//! The hexagram ring game (六芒星棋): 13 points, a move removes one ring or
//! two rings on adjacent points, and whoever removes the last ring loses.

/// The neighbours of each point, as RULES.md §5 lists them.
pub const ADJACENCY: [&[u32]; 13] = [
    &[2, 3],
    &[2, 5],
    &[0, 1, 3, 5, 6],
    &[0, 2, 4, 6, 7],
    &[3, 7],
    &[1, 2, 6, 8, 9],
    &[2, 3, 5, 7, 9, 10],
    &[3, 4, 6, 10, 11],
    &[5, 9],
    &[5, 6, 8, 10, 12],
    &[6, 7, 9, 11, 12],
    &[7, 10],
    &[9, 10],
];

pub const POINTS: u32 = 13;

/// Singles, then each adjacent pair once.
pub fn moves() -> Vec<u64> {
    let mut moves: Vec<u64> = (0..POINTS).map(|p| 1u64 << p).collect();
    for (p, neighbours) in ADJACENCY.iter().enumerate() {
        for &q in neighbours.iter() {
            if (q as usize) > p {
                moves.push((1u64 << p) | (1u64 << q));
            }
        }
    }
    moves
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn adjacency_is_symmetric() {
        for (p, neighbours) in ADJACENCY.iter().enumerate() {
            for &q in neighbours.iter() {
                assert!(ADJACENCY[q as usize].contains(&(p as u32)), "{p}-{q}");
            }
        }
    }
}
