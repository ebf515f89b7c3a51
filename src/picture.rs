//! Positions drawn as text for `egdb query` on a terminal: the Morris
//! board with its lines (and diagonals where the rules have them), the Nim
//! triangle. Other games have no picture.

use egdb_games::morris::board::{lines, Point};
use egdb_games::morris::{Color, MorrisRules, Position};
use egdb_games::GameSpec;

/// The picture of `position` (in the game's notation) in the game `spec`
/// names; `rules` where the spec alone does not give them (rules files).
pub fn picture(spec: &GameSpec, rules: Option<MorrisRules>, position: &str) -> Option<String> {
    match spec {
        GameSpec::NimTriangle { layers, .. } => triangle(*layers, position),
        GameSpec::Morris { variant, pieces } => {
            morris(&MorrisRules::preset(*variant, *pieces), position)
        }
        GameSpec::MorrisHands {
            variant,
            first,
            second,
        } => morris(
            &MorrisRules::preset(*variant, *first)
                .with_hands(*first, *second)
                .ok()?,
            position,
        ),
        GameSpec::MorrisFile { .. } => morris(&rules?, position),
        _ => None,
    }
}

/// Columns between neighbouring files.
const DX: usize = 4;
/// Rows between neighbouring ranks.
const DY: usize = 2;

/// Where a point is drawn: column from its file, row from its rank (7 on top).
fn at(point: Point) -> (usize, usize) {
    let name = point.name().as_bytes();
    let file = usize::from(name[0] - b'a');
    let rank = usize::from(name[1] - b'1');
    (file * DX, (6 - rank) * DY)
}

fn morris(rules: &MorrisRules, text: &str) -> Option<String> {
    let position = Position::parse(rules, text).ok()?;
    let mut grid = vec![vec![' '; 6 * DX + 1]; 6 * DY + 1];
    for line in lines(rules.diagonals) {
        for pair in line.points.windows(2) {
            let ((x0, y0), (x1, y1)) = (at(pair[0]), at(pair[1]));
            if y0 == y1 {
                (x0.min(x1) + 1..x0.max(x1)).for_each(|x| grid[y0][x] = '-');
            } else if x0 == x1 {
                (y0.min(y1) + 1..y0.max(y1)).for_each(|y| grid[y][x0] = '|');
            } else {
                let falling = (x1 > x0) == (y1 > y0);
                grid[(y0 + y1) / 2][(x0 + x1) / 2] = if falling { '\\' } else { '/' };
            }
        }
    }
    let (mover, opponent) = position.sides();
    let first_moves = position.to_move() == Color::First;
    for point in Point::all() {
        let (x, y) = at(point);
        grid[y][x] = match (mover.contains(point), opponent.contains(point)) {
            (true, _) if first_moves => 'B',
            (true, _) => 'W',
            (_, true) if first_moves => 'W',
            (_, true) => 'B',
            _ => '.',
        };
    }
    let mut out = String::new();
    for (y, row) in grid.iter().enumerate() {
        let label = if y % DY == 0 {
            char::from(b'7' - (y / DY) as u8)
        } else {
            ' '
        };
        let row: String = row.iter().collect();
        out += &format!("{label}  {}\n", row.trim_end());
    }
    out += "   a   b   c   d   e   f   g\n";
    let side = if first_moves {
        "Black (B)"
    } else {
        "White (W)"
    };
    let (black, white) = (position.hand(Color::First), position.hand(Color::Second));
    out += &format!("{side} to move");
    if black + white > 0 {
        out += &format!("; in hand: Black {black}, White {white}");
    }
    out.push('\n');
    Some(out)
}

/// Rows of the triangle's notation (`o/oo/ooo`), centred, row letters on
/// the left as moves name them; `None` unless `text` has the triangle's
/// shape (a server's answer is drawn only after it is checked: a long
/// string of slashes must not become a quadratic picture).
fn triangle(layers: u32, text: &str) -> Option<String> {
    let layers = usize::try_from(layers).ok()?;
    let rows: Vec<&str> = text.splitn(layers + 1, '/').collect();
    let shaped = rows.len() == layers
        && rows
            .iter()
            .enumerate()
            .all(|(r, row)| row.len() == r + 1 && row.bytes().all(|b| b == b'o' || b == b'.'));
    if !shaped {
        return None;
    }
    let mut out = String::new();
    for (r, row) in rows.iter().enumerate() {
        let cells: Vec<String> = row.chars().map(String::from).collect();
        let letter = char::from(b'a' + (r % 26) as u8);
        let indent = " ".repeat(layers - r - 1);
        out += &format!("{letter}  {indent}{}\n", cells.join(" "));
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec(text: &str) -> GameSpec {
        text.parse().unwrap()
    }

    #[test]
    fn morris_pieces_stand_on_their_points() {
        // B on a1 (first in notation order), W on g7 (last).
        let text = "B......................W b 2 2";
        let board = picture(&spec("morris:standard:3"), None, text).unwrap();
        let rows: Vec<&str> = board.lines().collect();
        assert!(
            rows[0].starts_with("7  .-") && rows[0].ends_with("-W"),
            "{board}"
        );
        assert!(
            rows[12].starts_with("1  B-") && rows[12].ends_with("-."),
            "{board}"
        );
        assert!(!board.contains('\\') && !board.contains('/'), "{board}");
        assert!(
            board.ends_with("Black (B) to move; in hand: Black 2, White 2\n"),
            "{board}"
        );
        // Taiwan's diagonals, drawn between the squares' corners.
        let taiwan = picture(&spec("morris:taiwan:3"), None, text).unwrap();
        assert_eq!(taiwan.matches('\\').count(), 4, "{taiwan}");
        assert_eq!(taiwan.matches('/').count(), 4, "{taiwan}");
        assert_eq!(taiwan.lines().count(), 15);
    }

    #[test]
    fn a_morris_position_in_movement_has_no_hands_line() {
        let text = "BBB..................WWW w 0 0";
        let board = picture(&spec("morris:standard:3"), None, text).unwrap();
        assert!(board.ends_with("White (W) to move\n"), "{board}");
        let grid: String = board.lines().take(13).collect();
        assert_eq!(grid.matches('B').count(), 3, "{board}");
        assert_eq!(grid.matches('W').count(), 3, "{board}");
    }

    #[test]
    fn triangles_are_drawn_and_other_games_are_not() {
        let drawn = picture(&spec("nim:triangle:3:normal"), None, "o/.o/ooo").unwrap();
        assert_eq!(drawn, "a    o\nb   . o\nc  o o o\n");
        assert_eq!(picture(&spec("nim:hexagram"), None, "2088"), None);
        // Only the triangle's own shape is drawn.
        let triangle3 = spec("nim:triangle:3:normal");
        for bad in ["o/oo", "o/oo/ooo/o", "o/o/ooo", "o/ox/ooo", "", "start"] {
            assert_eq!(picture(&triangle3, None, bad), None, "{bad}");
        }
        let slashes = "/".repeat(1 << 20);
        assert_eq!(picture(&triangle3, None, &slashes), None);
        assert_eq!(picture(&spec("morris:file:x.toml"), None, "start"), None);
        assert_eq!(
            picture(&spec("morris:taiwan:3"), None, "not a position"),
            None
        );
    }
}
