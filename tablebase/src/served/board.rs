//! What the web explorer needs to draw a game's positions, given once in
//! `/api/v1/info`: the Morris board's points (in notation order) and the
//! lines between them, or the triangle's size. Other games have no board
//! and the explorer shows their notation and moves only.

use egdb_games::morris::board::{lines, Point};
use egdb_games::nim::Board;
use egdb_games::Game;
use serde_json::{json, Value as Json};

/// The board of `game` as JSON, `null` for games without one.
pub fn board_json(game: &Game) -> Json {
    match game {
        Game::Morris(morris) => {
            // Notation order: by rank, then file (a1 d1 g1 b2 … g7).
            let mut points: Vec<Point> = Point::all().collect();
            points.sort_by_key(|p| {
                let name = p.name().as_bytes();
                (name[1], name[0])
            });
            let edges: Vec<[&str; 2]> = lines(morris.rules().diagonals)
                .iter()
                .flat_map(|line| line.points.windows(2).map(|w| [w[0].name(), w[1].name()]))
                .collect();
            json!({
                "kind": "morris",
                "points": points.iter().map(|p| p.name()).collect::<Vec<_>>(),
                "edges": edges,
            })
        }
        Game::Nim(nim) => match nim.definition().board {
            Board::Triangle { layers } => json!({"kind": "triangle", "layers": layers}),
            _ => Json::Null,
        },
        _ => Json::Null,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use egdb_games::GameSpec;

    fn board(spec: &str) -> Json {
        board_json(&Game::from_spec(&spec.parse::<GameSpec>().unwrap()).unwrap())
    }

    #[test]
    fn morris_points_are_in_notation_order_with_diagonals_where_the_rules_have_them() {
        let taiwan = board("morris:taiwan:3");
        let points: Vec<&str> = taiwan["points"]
            .as_array()
            .unwrap()
            .iter()
            .map(|p| p.as_str().unwrap())
            .collect();
        let order = "a1 d1 g1 b2 d2 f2 c3 d3 e3 a4 b4 c4 e4 f4 g4 c5 d5 e5 b6 d6 f6 a7 d7 g7";
        assert_eq!(points.join(" "), order);
        // 16 lines of two edges each, and 4 diagonals of two more.
        assert_eq!(taiwan["edges"].as_array().unwrap().len(), 40);
        assert_eq!(
            board("morris:standard:3")["edges"]
                .as_array()
                .unwrap()
                .len(),
            32
        );
        assert_eq!(board("nim:triangle:4:normal")["layers"], json!(4));
        assert_eq!(board("nim:hexagram"), Json::Null);
    }
}
