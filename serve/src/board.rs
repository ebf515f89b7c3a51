//! What the web explorer needs to draw a game's positions, given once in
//! `/api/v1/info`: the Morris board's points (in notation order) and the
//! lines between them; the triangle's size; or, for the hexagram and custom
//! games, each cell's place and the pairs of cells that one move takes
//! together, with how a position names its stones.

use egdb_games::morris::board::{lines, Point};
use egdb_games::nim::{Board, NimGame};
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
            Board::Hexagram => cells_json(nim, &hexagram_places(), "mask"),
            Board::Custom => cells_json(nim, &ring_places(nim.cells()), "chars"),
        },
        _ => Json::Null,
    }
}

/// Cells at `places` (x, y in a box about 4 wide), joined where a move takes
/// exactly those two; `encoding` says how positions are written: "mask"
/// (the integer of ringed cells) or "chars" (one `o`/`.` per cell).
fn cells_json(nim: &NimGame, places: &[(f64, f64)], encoding: &str) -> Json {
    let edges: Vec<[u32; 2]> = nim
        .moves()
        .iter()
        .filter(|m| m.count_ones() == 2)
        .map(|&m| {
            let low = m.trailing_zeros();
            [low, (m & !(1 << low)).trailing_zeros()]
        })
        .collect();
    let cells: Vec<Json> = places
        .iter()
        .enumerate()
        .map(|(i, &(x, y))| json!({"name": i.to_string(), "x": round(x), "y": round(y)}))
        .collect();
    json!({"kind": "cells", "encoding": encoding, "cells": cells, "edges": edges})
}

fn round(v: f64) -> f64 {
    (v * 1000.0).round() / 1000.0
}

/// The hexagram of RULES.md §5 with unit edges: point 6 in the middle,
/// the hexagon 2 3 7 10 9 5 around it, and a star tip beyond each of its
/// sides (0 on top), so that neighbours are exactly the points 1 apart.
fn hexagram_places() -> Vec<(f64, f64)> {
    let h = 3f64.sqrt() / 2.0;
    let mut places = vec![(0.0, 0.0); 13];
    for (point, x, y) in [
        (0, 0.0, -2.0 * h),
        (1, -1.5, -h),
        (2, -0.5, -h),
        (3, 0.5, -h),
        (4, 1.5, -h),
        (5, -1.0, 0.0),
        (6, 0.0, 0.0),
        (7, 1.0, 0.0),
        (8, -1.5, h),
        (9, -0.5, h),
        (10, 0.5, h),
        (11, 1.5, h),
        (12, 0.0, 2.0 * h),
    ] {
        places[point] = (x, y);
    }
    places
}

/// A custom game's cells on a circle, clockwise from the top: its file
/// gives no geometry, and on a circle every pair that moves together shows.
fn ring_places(cells: u32) -> Vec<(f64, f64)> {
    let radius = 2.0;
    (0..cells)
        .map(|i| {
            let angle = std::f64::consts::TAU * f64::from(i) / f64::from(cells.max(1));
            (radius * angle.sin(), -radius * angle.cos())
        })
        .collect()
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
    }

    #[test]
    fn hexagram_cells_are_joined_exactly_where_rules_md_makes_them_neighbours() {
        let hexagram = board("nim:hexagram");
        assert_eq!(hexagram["kind"], "cells");
        assert_eq!(hexagram["encoding"], "mask");
        let cells = hexagram["cells"].as_array().unwrap();
        assert_eq!(cells.len(), 13);
        let place = |i: u64| {
            let cell = &cells[i as usize];
            (cell["x"].as_f64().unwrap(), cell["y"].as_f64().unwrap())
        };
        let edges = hexagram["edges"].as_array().unwrap();
        let listed: usize = egdb_games::nim::hexagram::ADJACENCY
            .iter()
            .map(|n| n.len())
            .sum();
        assert_eq!(edges.len() * 2, listed);
        for edge in edges {
            let (a, b) = (edge[0].as_u64().unwrap(), edge[1].as_u64().unwrap());
            assert!(egdb_games::nim::hexagram::ADJACENCY[a as usize].contains(&(b as u32)));
            // Neighbours are one step apart on the drawing, nothing closer.
            let ((ax, ay), (bx, by)) = (place(a), place(b));
            let distance = ((ax - bx).powi(2) + (ay - by).powi(2)).sqrt();
            assert!((distance - 1.0).abs() < 0.01, "{a}-{b}: {distance}");
        }
        for a in 0..13u64 {
            for b in a + 1..13 {
                let ((ax, ay), (bx, by)) = (place(a), place(b));
                let distance = ((ax - bx).powi(2) + (ay - by).powi(2)).sqrt();
                assert!(distance > 0.99, "{a} {b}: {distance}");
                let neighbours = egdb_games::nim::hexagram::ADJACENCY[a as usize];
                assert_eq!(distance < 1.01, neighbours.contains(&(b as u32)), "{a} {b}");
            }
        }
    }
}
