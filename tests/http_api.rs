//! `egdb serve --http`: the JSON API gives gRPC's answers for every position
//! of `morris:taiwan:3` and `nim:triangle:5`, moves best first, and errors
//! with HTTP statuses, CORS and cache headers (the explorer page is
//! `tests/explorer.rs`). Real processes, real sockets; the client is a few
//! lines of HTTP/1.1 with pipelining.

mod common;

use common::http::*;
use common::*;
use egdb_games::morris::oracle::Oracle;
use egdb_games::morris::{MorrisGame, Variant};
use egdb_games::nim::NimGame;
use egdb_games::GameSpec;
use egdb_proto::v1::query_client::QueryClient;
use egdb_proto::v1::{BatchRequest, PositionRequest};
use serde_json::Value as Json;

/// (value, depth) of each position over gRPC, in batches.
fn grpc_probes(url: &str, positions: &[String]) -> Vec<(String, Option<u32>)> {
    let runtime = tokio::runtime::Runtime::new().unwrap();
    let mut client = runtime
        .block_on(QueryClient::connect(url.to_string()))
        .unwrap()
        .max_decoding_message_size(64 << 20);
    positions
        .chunks(10_000)
        .flat_map(|chunk| {
            let reply = runtime
                .block_on(client.batch_probe(BatchRequest {
                    positions: chunk.to_vec(),
                }))
                .unwrap()
                .into_inner();
            reply
                .probes
                .into_iter()
                .map(|p| (value_name(p.value), p.depth))
                .collect::<Vec<_>>()
        })
        .collect()
}

fn value_name(tag: i32) -> String {
    egdb_proto::values::value_of(tag)
        .unwrap()
        .as_str()
        .to_string()
}

/// The gRPC moves of each position as JSON rows (move, after, value,
/// depth), sorted by move.
fn grpc_moves(url: &str, positions: &[String]) -> Vec<Vec<Json>> {
    let runtime = tokio::runtime::Runtime::new().unwrap();
    let mut client = runtime
        .block_on(QueryClient::connect(url.to_string()))
        .unwrap();
    positions
        .iter()
        .map(|position| {
            let reply = runtime
                .block_on(client.moves(PositionRequest {
                    position: position.clone(),
                }))
                .unwrap()
                .into_inner();
            let mut rows: Vec<Json> = reply
                .moves
                .iter()
                .map(|m| {
                    serde_json::json!({"move": m.r#move, "after": m.after,
                        "value": value_name(m.value), "depth": m.depth})
                })
                .collect();
            rows.sort_by_key(|row| row["move"].as_str().unwrap().to_string());
            rows
        })
        .collect()
}

/// Rank of a move for the side to move (what it leads to): lower is better.
fn rank(row: &Json) -> (u8, i64) {
    let depth = row["depth"].as_i64().unwrap_or(0);
    match row["value"].as_str().unwrap() {
        "loss" => (0, depth),
        "draw" => (1, 0),
        _ => (2, -depth),
    }
}

/// Every position's probe over HTTP equals gRPC's; the moves of every
/// `stride`-th position too, sorted best first.
fn agrees_with_grpc(served: &Served, positions: &[String], stride: usize) {
    let truth = grpc_probes(&served.grpc, positions);
    let paths: Vec<String> = positions
        .iter()
        .map(|p| format!("/api/v1/probe?position={}", encoded(p)))
        .collect();
    let replies = get_all(&served.http, &paths);
    for ((position, reply), (value, depth)) in positions.iter().zip(&replies).zip(&truth) {
        assert_eq!(reply.status, 200, "{position}: {}", reply.body);
        assert_eq!(
            reply.body["value"],
            Json::from(value.as_str()),
            "{position}"
        );
        assert_eq!(reply.body["depth"], serde_json::json!(depth), "{position}");
    }

    let sampled: Vec<String> = positions.iter().step_by(stride).cloned().collect();
    let truth = grpc_moves(&served.grpc, &sampled);
    let paths: Vec<String> = sampled
        .iter()
        .map(|p| format!("/api/v1/moves?position={}", encoded(p)))
        .collect();
    let replies = get_all(&served.http, &paths);
    for ((position, reply), expected) in sampled.iter().zip(&replies).zip(&truth) {
        assert_eq!(reply.status, 200, "{position}: {}", reply.body);
        let listed = reply.body["moves"].as_array().unwrap();
        assert!(
            listed.windows(2).all(|w| rank(&w[0]) <= rank(&w[1])),
            "{position}: moves not best first: {listed:?}"
        );
        let mut rows = listed.clone();
        rows.sort_by_key(|row| row["move"].as_str().unwrap().to_string());
        assert_eq!(&rows, expected, "{position}");
    }
}

#[test]
fn json_answers_equal_grpc_for_every_position_of_taiwan_3_and_triangle_5() {
    let dir = tempfile::tempdir().unwrap();

    let store = dir.path().join("tw3");
    build("morris:taiwan:3", &store, &[]);
    let served = serve_both(&store);
    let game = MorrisGame::new(Variant::Taiwan, 3);
    let positions: Vec<String> = Oracle::whole_game(game.rules())
        .solutions()
        .map(|(p, _)| p.to_string())
        .collect();
    assert!(positions.len() > 10_000);
    agrees_with_grpc(&served, &positions, 50);
    drop(served);

    let spec = "nim:triangle:5:misere";
    let store = dir.path().join("tri5");
    build(spec, &store, &["--depth"]);
    let served = serve_both(&store);
    let game = NimGame::from_spec(&spec.parse::<GameSpec>().unwrap()).unwrap();
    let positions: Vec<String> = (0..1u64 << 15).map(|p| game.format_position(p)).collect();
    agrees_with_grpc(&served, &positions, 1);

    // A line steps through perfect play: each step one ply shorter.
    let line = get(&served.http, "/api/v1/line?position=start&max_plies=100");
    assert_eq!(line.status, 200, "{}", line.body);
    let depth = line.body["start"]["depth"].as_u64().unwrap();
    let steps = line.body["steps"].as_array().unwrap();
    assert_eq!(steps.len() as u64, depth, "{}", line.body);
    for (i, step) in steps.iter().enumerate() {
        assert_eq!(step["depth"].as_u64(), Some(depth - 1 - i as u64));
    }
}

#[test]
fn errors_have_http_statuses_and_finished_answers_may_be_cached() {
    let dir = tempfile::tempdir().unwrap();
    let partial = dir.path().join("partial");
    build("nim:triangle:5:normal", &partial, &["--max-slices", "3"]);
    let served = serve_both(&partial);

    let info = get(&served.http, "/api/v1/info");
    assert_eq!(info.status, 200);
    assert_eq!(info.body["complete"], Json::from(false));
    assert_eq!(info.header("cache-control"), Some("no-store"));
    assert_eq!(info.header("access-control-allow-origin"), Some("*"));
    // Which slices are in and which are not: the plan, split in two.
    let ids = |key: &str| -> Vec<String> {
        info.body[key]
            .as_array()
            .unwrap()
            .iter()
            .map(|id| id.as_str().unwrap().to_string())
            .collect()
    };
    let (built, missing) = (ids("built"), ids("missing"));
    assert_eq!(built.len(), 3, "{}", info.body);
    assert_eq!(info.body["slices"], Json::from(3));
    let plan: Vec<String> = NimGame::from_spec(&"nim:triangle:5:normal".parse().unwrap())
        .unwrap()
        .slices()
        .iter()
        .map(|s| s.id.to_string())
        .collect();
    let mut both = [built.clone(), missing].concat();
    both.sort();
    let mut plan = plan;
    plan.sort();
    assert_eq!(both, plan);

    let cases = [
        (
            "/api/v1/probe?position=o%2Foo%2Fooo%2Fx",
            400,
            "malformed position",
        ),
        ("/api/v1/probe", 400, "no position given"),
        ("/api/v1/moves?position=start", 503, "not built yet"),
        ("/api/v1/line?position=start&max_plies=x", 400, "max_plies"),
        (
            "/api/v1/line?position=start&max_plies=%2B5",
            400,
            "max_plies",
        ),
        (
            "/api/v1/line?position=start&max_plies=99999",
            400,
            "at most 10000",
        ),
        ("/nowhere", 404, "no such page"),
    ];
    for (path, status, says) in cases {
        let reply = get(&served.http, path);
        assert_eq!(reply.status, status, "{path}: {}", reply.body);
        let error = reply.body["error"].as_str().unwrap();
        assert!(error.contains(says), "{path}: {error}");
        assert_eq!(reply.header("access-control-allow-origin"), Some("*"));
        assert_eq!(reply.header("cache-control"), Some("no-store"), "{path}");
    }
    let long = format!("/api/v1/probe?position={}", "o".repeat(5000));
    assert_eq!(get(&served.http, &long).status, 400);

    // Finished: answers may be kept. Damaged blocks are a 500 naming
    // slice and block, never a value.
    build("nim:triangle:5:normal", &partial, &[]);
    let served = serve_both(&partial);
    let start = get(&served.http, "/api/v1/probe?position=start");
    assert_eq!(start.status, 200);
    assert_eq!(start.body["value"], Json::from("win"));
    assert!(start
        .header("cache-control")
        .is_some_and(|c| c.contains("max-age")));
    // Its errors are not kept: a mended server may answer otherwise.
    let bad = get(&served.http, "/api/v1/probe?position=x");
    assert_eq!(bad.status, 400);
    assert_eq!(bad.header("cache-control"), Some("no-store"));
    // Every reply, JSON or not, forbids sniffing and framing.
    let post = request(&served.http, "POST", "/api/v1/probe?position=start");
    for reply in [&start, &bad, &post, &get(&served.http, "/explorer.js")] {
        assert_eq!(reply.header("x-content-type-options"), Some("nosniff"));
        assert!(reply
            .header("content-security-policy")
            .is_some_and(|c| c.contains("frame-ancestors 'none'")));
    }
    // Other methods: a JSON 405 with CORS, and preflights answered.
    assert_eq!(post.status, 405, "{}", post.text);
    assert!(post.body["error"].as_str().unwrap().contains("POST"));
    assert_eq!(post.header("access-control-allow-origin"), Some("*"));
    assert_eq!(post.header("allow"), Some("GET, HEAD, OPTIONS"));
    // What never reaches the routes is answered as they would: JSON, CORS.
    let many = (0..150)
        .map(|i| format!("X-{i}: 1\r\n"))
        .collect::<String>();
    let long = format!("X-Long: {}\r\n", "x".repeat(70_000));
    for (sent, status) in [
        ("NONSENSE\r\n\r\n".to_string(), 400),
        (format!("GET /api/v1/info HTTP/1.1\r\n{many}\r\n"), 431),
        (format!("GET /api/v1/info HTTP/1.1\r\n{long}\r\n"), 431),
    ] {
        let mut tcp = std::net::TcpStream::connect(&served.http).unwrap();
        std::io::Write::write_all(&mut tcp, sent.as_bytes()).unwrap();
        let reply = read_reply(&mut std::io::BufReader::new(tcp));
        assert_eq!(reply.status, status, "{}", reply.text);
        assert!(reply.body["error"].is_string(), "{}", reply.text);
        assert_eq!(reply.header("access-control-allow-origin"), Some("*"));
        assert_eq!(reply.header("x-content-type-options"), Some("nosniff"));
    }
    let preflight = request(&served.http, "OPTIONS", "/api/v1/moves?position=start");
    assert_eq!(preflight.status, 204);
    assert_eq!(preflight.header("access-control-allow-origin"), Some("*"));
    assert!(preflight
        .header("access-control-allow-methods")
        .is_some_and(|m| m.contains("GET")));

    let damaged = dir.path().join("damaged");
    build("nim:triangle:5:normal", &damaged, &[]);
    damage_first_blocks(&damaged);
    let served = serve_both(&damaged);
    let lost = get(&served.http, "/api/v1/probe?position=start");
    assert_eq!(lost.status, 500, "{}", lost.body);
    let error = lost.body["error"].as_str().unwrap();
    assert!(error.contains("corrupt block 0 of slice"), "{error}");
    assert_eq!(lost.header("cache-control"), Some("no-store"));
}
