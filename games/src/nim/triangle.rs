//! Triangular Nim: `n` layers, row `r` (0-based from the top) holds `r + 1`
//! stones. Cell `(r, c)` with `0 <= c <= r` has number `r (r + 1) / 2 + c`.
//!
//! Lines run in three directions: along a row `(0, +1)`, down-left `(+1, 0)`
//! and down-right `(+1, +1)`; every run of consecutive cells on a line is a move.

/// Cell number of `(row, column)`.
pub fn cell(row: u32, col: u32) -> u32 {
    row * (row + 1) / 2 + col
}

/// `(row, column)` of a cell number.
pub fn coordinates(cell: u32) -> (u32, u32) {
    let mut row = 0;
    while (row + 1) * (row + 2) / 2 <= cell {
        row += 1;
    }
    (row, cell - row * (row + 1) / 2)
}

pub fn cell_count(layers: u32) -> u32 {
    layers * (layers + 1) / 2
}

const DIRECTIONS: [(u32, u32); 3] = [(0, 1), (1, 0), (1, 1)];

/// Every move: each single cell, and each run of two or more consecutive
/// cells along a line, as cell masks, in a fixed order.
pub fn moves(layers: u32) -> Vec<u64> {
    let mut moves: Vec<u64> = (0..cell_count(layers)).map(|c| 1u64 << c).collect();
    for row in 0..layers {
        for col in 0..=row {
            for (dr, dc) in DIRECTIONS {
                let mut mask = 1u64 << cell(row, col);
                let (mut r, mut c) = (row + dr, col + dc);
                while r < layers && c <= r {
                    mask |= 1u64 << cell(r, c);
                    moves.push(mask);
                    r += dr;
                    c += dc;
                }
            }
        }
    }
    moves
}

/// The six symmetries of the triangle as cell permutations. In barycentric
/// coordinates `x = c`, `y = r - c`, `z = n - 1 - r` they permute `(x, y, z)`.
pub fn symmetries(layers: u32) -> Vec<Vec<u32>> {
    let orders: [[usize; 3]; 6] = [
        [0, 1, 2],
        [1, 2, 0],
        [2, 0, 1],
        [1, 0, 2],
        [0, 2, 1],
        [2, 1, 0],
    ];
    orders
        .iter()
        .map(|order| {
            (0..cell_count(layers))
                .map(|c| {
                    let (r, col) = coordinates(c);
                    let xyz = [col, r - col, layers - 1 - r];
                    let (x, y) = (xyz[order[0]], xyz[order[1]]);
                    cell(x + y, x)
                })
                .collect()
        })
        .collect()
}

/// The name of a cell: row letter from the top, then 1-based column (`a1`
/// is the apex, `c3` the right end of the third row).
pub fn cell_name(cell: u32) -> String {
    let (r, c) = coordinates(cell);
    format!("{}{}", (b'a' + r as u8) as char, c + 1)
}

/// Parses a cell name, `None` if it is not one of this triangle's cells.
pub fn parse_cell(layers: u32, name: &str) -> Option<u32> {
    let mut chars = name.chars();
    let letter = chars.next()?;
    if !letter.is_ascii_lowercase() {
        return None;
    }
    let row = letter as u32 - 'a' as u32;
    let col: u32 = chars.as_str().parse().ok()?;
    (row < layers && (1..=row + 1).contains(&col)).then(|| cell(row, col - 1))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn eight_layers_have_288_moves() {
        let mut moves = moves(8);
        let n = moves.len();
        moves.sort_unstable();
        moves.dedup();
        assert_eq!(moves.len(), n);
        assert_eq!(n, 288);
    }

    #[test]
    fn cell_names_round_trip() {
        for c in 0..cell_count(9) {
            assert_eq!(parse_cell(9, &cell_name(c)), Some(c));
        }
        assert_eq!(parse_cell(3, "d1"), None);
        assert_eq!(parse_cell(3, "b3"), None);
    }
}
