//! `egdb serve --http`: the JSON API gives gRPC's answers for every position
//! of `morris:taiwan:3` and `nim:triangle:5`, moves best first, and errors
//! with HTTP statuses, CORS and cache headers; the explorer page it serves
//! shows the same answers in headless Chromium. Real processes, real
//! sockets; the client is a few lines of HTTP/1.1 with pipelining.

mod common;

use std::io::{BufRead, BufReader, Write};
use std::net::TcpStream;
use std::path::Path;
use std::process::{Child, Command, Stdio};

use common::*;
use egdb_games::morris::oracle::Oracle;
use egdb_games::morris::{MorrisGame, Variant};
use egdb_games::nim::NimGame;
use egdb_games::GameSpec;
use egdb_proto::v1::query_client::QueryClient;
use egdb_proto::v1::{BatchRequest, PositionRequest};
use serde_json::Value as Json;

/// `egdb serve` with both listeners; killed when dropped.
struct Served {
    child: Child,
    grpc: String,
    http: String,
}

impl Drop for Served {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn serve_both(store: &Path) -> Served {
    let mut child = Command::new(env!("CARGO_BIN_EXE_egdb"))
        .args(["serve", "--store", store.to_str().unwrap()])
        .args(["--listen", "127.0.0.1:0", "--http", "127.0.0.1:0"])
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("egdb starts");
    let mut out = BufReader::new(child.stdout.take().unwrap());
    let mut said = |prefix: &str| {
        let mut line = String::new();
        out.read_line(&mut line).unwrap();
        line.trim()
            .strip_prefix(prefix)
            .unwrap_or_else(|| panic!("egdb said {line:?}"))
            .to_string()
    };
    let grpc = format!("http://{}", said("listening on "));
    let http = said("http on ");
    Served { child, grpc, http }
}

/// A reply: status, headers (lower-case names), the body as sent and as
/// JSON (`null` when it is not).
struct Reply {
    status: u16,
    headers: Vec<(String, String)>,
    text: String,
    body: Json,
}

impl Reply {
    fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    }
}

/// `paths` asked on one connection, 256 requests in flight at a time.
fn get_all(address: &str, paths: &[String]) -> Vec<Reply> {
    let stream = TcpStream::connect(address).unwrap();
    stream.set_nodelay(true).unwrap();
    let mut writer = stream.try_clone().unwrap();
    let mut reader = BufReader::new(stream);
    let mut replies = Vec::with_capacity(paths.len());
    for chunk in paths.chunks(256) {
        let mut requests = String::new();
        for path in chunk {
            requests += &format!("GET {path} HTTP/1.1\r\nHost: egdb\r\n\r\n");
        }
        writer.write_all(requests.as_bytes()).unwrap();
        for _ in chunk {
            replies.push(read_reply(&mut reader));
        }
    }
    replies
}

fn get(address: &str, path: &str) -> Reply {
    get_all(address, &[path.to_string()]).remove(0)
}

fn read_reply(reader: &mut impl BufRead) -> Reply {
    let mut line = String::new();
    reader.read_line(&mut line).unwrap();
    let status = line.split_whitespace().nth(1).unwrap().parse().unwrap();
    let mut headers = Vec::new();
    loop {
        line.clear();
        reader.read_line(&mut line).unwrap();
        let Some((name, value)) = line.trim_end().split_once(": ") else {
            break;
        };
        headers.push((name.to_ascii_lowercase(), value.to_string()));
    }
    let length: usize = headers
        .iter()
        .find(|(n, _)| n == "content-length")
        .map(|(_, v)| v.parse().unwrap())
        .expect("a content length");
    let mut body = vec![0; length];
    reader.read_exact(&mut body).unwrap();
    let text = String::from_utf8(body).unwrap();
    let body = serde_json::from_str(&text).unwrap_or(Json::Null);
    Reply {
        status,
        headers,
        text,
        body,
    }
}

/// `text` as a query-string value.
fn encoded(text: &str) -> String {
    text.bytes()
        .map(|b| match b {
            b'a'..=b'z' | b'A'..=b'Z' | b'0'..=b'9' | b'.' | b'-' | b'_' => char::from(b).into(),
            _ => format!("%{b:02X}"),
        })
        .collect()
}

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

/// The page's DOM after its scripts ran, and what it wrote to the console;
/// `None` (the reason on standard error) where Chromium is missing.
fn in_browser(url: &str) -> Option<(String, Vec<String>)> {
    let profile = tempfile::tempdir().unwrap();
    let out = Command::new("chromium")
        .args(["--headless", "--no-sandbox", "--disable-gpu"])
        .args([
            "--virtual-time-budget=10000",
            "--enable-logging=stderr",
            "--v=0",
        ])
        .arg(format!("--user-data-dir={}", profile.path().display()))
        .args(["--dump-dom", url])
        .output();
    let out = match out {
        Ok(out) if out.status.success() => out,
        Ok(out) => panic!("chromium failed: {}", String::from_utf8_lossy(&out.stderr)),
        Err(e) => {
            eprintln!(
                "SKIPPED the browser part: no chromium ({e}); deploy/setup-browser.sh installs it"
            );
            return None;
        }
    };
    let console = String::from_utf8_lossy(&out.stderr)
        .lines()
        .filter(|l| l.contains(":CONSOLE"))
        .map(str::to_string)
        .collect();
    Some((String::from_utf8(out.stdout).unwrap(), console))
}

/// (move, text, class) of each row of the page's moves table, in order.
fn listed_moves(dom: &str) -> Vec<(String, String, String)> {
    dom.split("<tr data-move=\"")
        .skip(1)
        .map(|row| {
            let mv = row.split('"').next().unwrap().to_string();
            let class = row.split("class=\"").nth(1).unwrap();
            let (class, rest) = class.split_once("\">").unwrap();
            let text = rest.split('<').next().unwrap().to_string();
            (mv, text, class.to_string())
        })
        .collect()
}

/// What the page must say of a move the API lists: the result for the
/// side making it.
fn expected_row(row: &Json) -> (String, String, String) {
    let plies = row["depth"].as_u64().map(|d| format!(" in {}", d + 1));
    let (text, class) = match row["value"].as_str().unwrap() {
        "loss" => (format!("win{}", plies.unwrap_or_default()), "win"),
        "win" => (format!("loss{}", plies.unwrap_or_default()), "loss"),
        _ => ("draw".to_string(), "draw"),
    };
    (
        row["move"].as_str().unwrap().to_string(),
        text,
        class.to_string(),
    )
}

#[test]
fn the_explorer_is_small_self_contained_and_shows_the_apis_answers_in_chromium() {
    let dir = tempfile::tempdir().unwrap();
    let store = dir.path().join("tw3");
    build("morris:taiwan:3", &store, &[]);
    let served = serve_both(&store);

    // Three files, all from this server: nothing else is loaded.
    let files = ["/", "/explorer.js", "/explorer.css"].map(|path| get(&served.http, path));
    let weight: usize = files.iter().map(|f| f.text.len()).sum();
    assert!(weight <= 200_000, "the page weighs {weight} bytes");
    for file in &files {
        assert_eq!(file.status, 200);
        assert_eq!(
            file.header("content-security-policy"),
            Some("default-src 'self'")
        );
        for outside in [
            "src=\"http",
            "href=\"http",
            "@import",
            "url(",
            "//cdn",
            "fonts.",
        ] {
            assert!(!file.text.contains(outside), "{outside} in {}", file.text);
        }
    }
    assert!(files[0].text.contains("src=\"/explorer.js\""));

    let position = ".........B...........BW. w 1 2";
    let url = format!("http://{}/?position={}", served.http, encoded(position));
    let Some((dom, console)) = in_browser(&url) else {
        return;
    };
    assert!(console.is_empty(), "console: {console:?}");
    let api = get(
        &served.http,
        &format!("/api/v1/moves?position={}", encoded(position)),
    );
    let expected: Vec<_> = api.body["moves"]
        .as_array()
        .unwrap()
        .iter()
        .map(expected_row)
        .collect();
    assert!(expected.len() > 5);
    assert_eq!(listed_moves(&dom), expected, "{dom}");
    assert!(
        dom.contains("White to move; in hand: Black 1, White 2"),
        "{dom}"
    );
    assert_eq!(dom.matches("class=\"piece B\"").count(), 2, "{dom}");
    assert_eq!(dom.matches("class=\"piece W\"").count(), 1, "{dom}");

    // A bad position in the URL: the server's error text, not a blank page.
    let url = format!("http://{}/?position=no-such-position", served.http);
    let (dom, console) = in_browser(&url).unwrap();
    let error = dom.split("id=\"error\"").nth(1).unwrap();
    assert!(!error.starts_with(" hidden"), "{dom}");
    assert!(error.contains("malformed position"), "{dom}");
    let unexpected: Vec<_> = console
        .iter()
        .filter(|l| !l.contains("status of 400"))
        .collect();
    assert!(unexpected.is_empty(), "console: {unexpected:?}");
    drop(served);

    // The triangle: one circle per cell, stones where the position has them.
    let store = dir.path().join("tri4");
    build("nim:triangle:4:normal", &store, &[]);
    let served = serve_both(&store);
    let url = format!(
        "http://{}/?position={}",
        served.http,
        encoded("o/.o/ooo/o..o")
    );
    let (dom, console) = in_browser(&url).unwrap();
    assert!(console.is_empty(), "console: {console:?}");
    assert_eq!(dom.matches("class=\"stone\"").count(), 7, "{dom}");
    assert_eq!(dom.matches("class=\"hole\"").count(), 3, "{dom}");
    let api = get(
        &served.http,
        &format!("/api/v1/moves?position={}", encoded("o/.o/ooo/o..o")),
    );
    let expected: Vec<_> = api.body["moves"]
        .as_array()
        .unwrap()
        .iter()
        .map(expected_row)
        .collect();
    assert_eq!(listed_moves(&dom), expected, "{dom}");
}
