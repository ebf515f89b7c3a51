//! The web explorer of `egdb serve --http` in headless Chromium (Debian's
//! package), driven over the DevTools protocol (`common::cdp`): pages load
//! from their URL and list the API's answers, real mouse clicks play moves
//! and captures, a perfect-play line is stepped to its end, undo and redo
//! walk the history, edit mode sets up positions the server checks, the
//! Morris board shows its coordinates, each side's pieces in hand and each
//! move's result on its point or arrow (of a 12-piece store as of a small
//! one), and no page writes anything to the console. Without Chromium the browser
//! parts say SKIPPED and why.

mod common;

use common::cdp::Browser;
use common::http::*;
use common::*;
use serde_json::Value as Json;

fn text(value: &Json) -> String {
    value.as_str().unwrap_or_default().to_string()
}

/// (move, result text, class) of each row of the page's moves table.
fn listed_moves(browser: &mut Browser) -> Vec<(String, String, String)> {
    let rows = browser.eval(
        "[...document.querySelectorAll('#moves tbody tr')]\
         .map(r => [r.dataset.move, r.cells[1].textContent, r.cells[1].className])",
    );
    rows.as_array()
        .unwrap()
        .iter()
        .map(|r| (text(&r[0]), text(&r[1]), text(&r[2])))
        .collect()
}

/// "win in 5", "loss in 8" or "draw" for `value` and `depth`.
fn result_text(value: &str, depth: Option<u64>) -> String {
    match (value, depth) {
        ("draw", _) => "draw".to_string(),
        (value, Some(depth)) => format!("{value} in {depth}"),
        (value, None) => value.to_string(),
    }
}

/// What the page must say of a move the API lists: the result for the
/// side making it, and its colour.
fn expected_row(row: &Json) -> (String, String, String) {
    let after = row["depth"].as_u64().map(|d| d + 1);
    let (value, class) = match row["value"].as_str().unwrap() {
        "loss" => ("win", "win"),
        "win" => ("loss", "loss"),
        _ => ("draw", "draw"),
    };
    (
        text(&row["move"]),
        result_text(value, after),
        class.to_string(),
    )
}

fn api_moves(served: &Served, position: &str) -> Json {
    let reply = get(
        &served.http,
        &format!("/api/v1/moves?position={}", encoded(position)),
    );
    assert_eq!(reply.status, 200, "{position}: {}", reply.body);
    reply.body
}

/// Waits until the page shows `position` in its URL and notation field,
/// then checks that its moves and its value heading are the API's.
fn expect_showing(browser: &mut Browser, served: &Served, position: &str) {
    let quoted = serde_json::to_string(position).unwrap();
    browser.wait_for(
        &format!(
            "new URLSearchParams(location.search).get('position') === {quoted} \
             && document.getElementById('notation').value === {quoted}"
        ),
        &format!("the page to show {position}"),
    );
    let api = api_moves(served, position);
    let expected: Vec<_> = api["moves"]
        .as_array()
        .unwrap()
        .iter()
        .map(expected_row)
        .collect();
    assert_eq!(listed_moves(browser), expected, "at {position}");
    let own = result_text(api["value"].as_str().unwrap(), api["depth"].as_u64());
    let heading = if expected.is_empty() {
        format!("game over: {own}")
    } else {
        own
    };
    assert_eq!(
        browser.eval("document.getElementById('value').textContent"),
        Json::from(heading),
        "at {position}"
    );
}

fn count(browser: &mut Browser, selector: &str) -> u64 {
    let quoted = serde_json::to_string(selector).unwrap();
    browser
        .eval(&format!("document.querySelectorAll({quoted}).length"))
        .as_u64()
        .unwrap()
}

/// The selector of the board's cell called `name` (its title, which a
/// move's result may follow).
fn cell(browser: &mut Browser, name: &str) -> String {
    let quoted = serde_json::to_string(name).unwrap();
    let index = browser.eval(&format!(
        "[...document.querySelectorAll('#board circle[data-cell]')]\
         .find(c => c.querySelector('title').textContent.split(':')[0] === {quoted}).dataset.cell"
    ));
    format!("#board circle[data-cell=\"{}\"]", text(&index))
}

/// `egdb serve` on a store of `game` built in `dir`.
fn built_and_served(dir: &tempfile::TempDir, game: &str) -> Served {
    let store = dir.path().join(game.replace([':', '/'], "-"));
    build(game, &store, &[]);
    serve_both(&store)
}

/// Loads the explorer of `served` at `position`.
fn open(browser: &mut Browser, served: &Served, position: &str) {
    let url = format!("http://{}/?position={}", served.http, encoded(position));
    browser.goto(&url);
}

/// Waits for the page's error line and checks that it says `says`, and
/// that the browser's only complaints are the failed requests (`status`)
/// behind it, which it then forgets.
fn expect_error(browser: &mut Browser, says: &str, status: u16) {
    browser.wait_for(
        "!document.getElementById('error').hidden",
        &format!("the error {says:?}"),
    );
    let error = text(&browser.eval("document.getElementById('error').textContent"));
    assert!(!error.is_empty() && error.contains(says), "{error}");
    let failed = format!("status of {status}");
    assert!(
        browser.complaints.iter().all(|c| c.contains(&failed)),
        "{:?}",
        browser.complaints
    );
    browser.complaints.clear();
}

fn assert_quiet(browser: &Browser) {
    assert!(
        browser.complaints.is_empty(),
        "console: {:?}",
        browser.complaints
    );
}

#[test]
fn the_explorer_is_small_self_contained_and_draws_every_kind_of_board() {
    // Servers stay up to the end: a page may still ask one for its icon.
    let mut finished = Vec::new();
    let dir = tempfile::tempdir().unwrap();
    let served = built_and_served(&dir, "morris:taiwan:3");

    // Four files, all from this server: nothing else is loaded.
    let files =
        ["/", "/explorer.js", "/explorer.css", "/favicon.svg"].map(|path| get(&served.http, path));
    let weight: usize = files.iter().map(|f| f.text.len()).sum();
    assert!(weight <= 200_000, "the page weighs {weight} bytes");
    for file in &files {
        assert_eq!(file.status, 200);
        assert_eq!(
            file.header("content-security-policy"),
            Some("default-src 'self'; frame-ancestors 'none'")
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

    let Some(mut browser) = Browser::launch() else {
        return;
    };
    let position = ".........B...........BW. w 1 2";
    open(&mut browser, &served, position);
    expect_showing(&mut browser, &served, position);
    assert!(count(&mut browser, "#moves tbody tr") > 5);
    assert_eq!(
        browser.eval("document.getElementById('status').textContent"),
        Json::from("White to move; in hand: Black 1, White 2")
    );
    assert_eq!(count(&mut browser, "#board .piece.B"), 2);
    assert_eq!(count(&mut browser, "#board .piece.W"), 1);
    assert_eq!(count(&mut browser, "#board circle[data-cell]"), 24);
    // 16 lines of two edges and the 4 diagonals of Taiwan Morris.
    assert_eq!(count(&mut browser, "#board line"), 40);
    assert_quiet(&browser);

    // A bad position in the URL: the server's error text, not a blank page.
    open(&mut browser, &served, "no-such-position");
    expect_error(&mut browser, "malformed position", 400);
    finished.push(served);

    // The triangle: one circle per cell, stones where the position has them.
    let served = built_and_served(&dir, "nim:triangle:4:normal");
    let position = "o/.o/ooo/o..o";
    open(&mut browser, &served, position);
    expect_showing(&mut browser, &served, position);
    assert_eq!(count(&mut browser, "#board .stone"), 7);
    assert_eq!(count(&mut browser, "#board .hole"), 3);
    finished.push(served);

    // The hexagram: 13 points joined where RULES.md makes them neighbours;
    // a click on a ring that only one move takes plays that move.
    let served = built_and_served(&dir, "nim:hexagram");
    open(&mut browser, &served, "2088");
    expect_showing(&mut browser, &served, "2088");
    assert_eq!(count(&mut browser, "#board .stone"), 3);
    assert_eq!(count(&mut browser, "#board .hole"), 10);
    assert_eq!(count(&mut browser, "#board line"), 24);
    let alone = api_moves(&served, "2088")["moves"]
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["move"] == "3")
        .cloned()
        .expect("ring 3 has no ringed neighbour: taking it alone is a move");
    let selector = cell(&mut browser, "3");
    browser.click(&selector);
    expect_showing(&mut browser, &served, &text(&alone["after"]));
    finished.push(served);

    // A custom game from a file: its cells on a ring, joined where one
    // move takes two.
    let store = dir.path().join("strip");
    let file = dir.path().join("strip.toml");
    std::fs::copy(test_data("strip.toml"), &file).unwrap();
    build(&format!("nim:file:{}", file.display()), &store, &[]);
    let served = serve_both(&store);
    browser.goto(&format!("http://{}/", served.http));
    expect_showing(&mut browser, &served, "ooooooooo");
    assert_eq!(count(&mut browser, "#board .stone"), 9);
    assert_eq!(count(&mut browser, "#board line"), 8);
    finished.push(served);

    // A store still being built says which slices are in.
    let store = dir.path().join("partial");
    build("nim:triangle:5:normal", &store, &["--max-slices", "2"]);
    let served = serve_both(&store);
    let info = get(&served.http, "/api/v1/info").body;
    let planned =
        info["built"].as_array().unwrap().len() + info["missing"].as_array().unwrap().len();
    browser.goto(&format!("http://{}/", served.http));
    browser.wait_for(
        "!document.getElementById('building').hidden",
        "the build's slices",
    );
    assert_eq!(
        browser.eval("document.getElementById('building-count').textContent"),
        Json::from(format!("still being built: 2 of {planned} slices in"))
    );
    assert_eq!(count(&mut browser, "#slice-list .built"), 2);
    assert_eq!(
        count(&mut browser, "#slice-list .missing") as usize,
        planned - 2
    );
    let built: Vec<Json> = info["built"].as_array().unwrap().clone();
    assert_eq!(
        browser
            .eval("[...document.querySelectorAll('#slice-list .built')].map(l => l.textContent)"),
        Json::from(built)
    );
    expect_error(&mut browser, "not built yet", 503);
}

#[test]
fn clicks_place_move_and_capture_and_step_a_perfect_line_to_its_end() {
    let dir = tempfile::tempdir().unwrap();
    let served = built_and_served(&dir, "morris:taiwan:3");
    let Some(mut browser) = Browser::launch() else {
        return;
    };

    // The best move, clicked in the list.
    let position = ".........B...........BW. w 1 2";
    open(&mut browser, &served, position);
    expect_showing(&mut browser, &served, position);
    let moves = api_moves(&served, position)["moves"].clone();
    browser.click("#moves tbody tr:nth-child(1)");
    expect_showing(&mut browser, &served, &text(&moves[0]["after"]));

    // Undo and redo walk the browser's history.
    browser.click("#undo");
    expect_showing(&mut browser, &served, position);
    browser.click("#redo");
    expect_showing(&mut browser, &served, &text(&moves[0]["after"]));

    // A placement that closes a mill, played on the board: the point, then
    // the piece it takes.
    let mill = "BB.......W.........W.... b 1 1";
    open(&mut browser, &served, mill);
    expect_showing(&mut browser, &served, mill);
    let moves = api_moves(&served, mill)["moves"].clone();
    // The move that takes the most: its cells name no other move's.
    let capture = moves
        .as_array()
        .unwrap()
        .iter()
        .max_by_key(|m| text(&m["move"]).matches('x').count())
        .filter(|m| text(&m["move"]).contains('x'))
        .cloned()
        .expect("closing a1-d1-g1 takes a piece");
    for name in text(&capture["move"]).split(['x', '-']) {
        let selector = cell(&mut browser, name);
        browser.click(&selector);
    }
    expect_showing(&mut browser, &served, &text(&capture["after"]));

    // A step in the movement phase: the piece, then where it goes (d1 is
    // where g1 could go too; the piece clicked first decides).
    let movement = "B.B.......W.W......B..W. b 0 0";
    open(&mut browser, &served, movement);
    expect_showing(&mut browser, &served, movement);
    let step = api_moves(&served, movement)["moves"]
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["move"] == "a1-d1")
        .cloned()
        .expect("a1 steps to d1");
    for name in ["a1", "d1"] {
        let selector = cell(&mut browser, name);
        browser.click(&selector);
    }
    expect_showing(&mut browser, &served, &text(&step["after"]));

    // A perfect-play line from the first position's longest decided reply,
    // stepped to its end.
    let first_moves = api_moves(&served, position)["moves"].clone();
    let decided = first_moves
        .as_array()
        .unwrap()
        .iter()
        .filter(|m| m["value"] != "draw")
        .max_by_key(|m| m["depth"].as_u64())
        .map(|m| text(&m["after"]))
        .expect("a move to a decided position");
    open(&mut browser, &served, &decided);
    expect_showing(&mut browser, &served, &decided);
    let line = get(
        &served.http,
        &format!("/api/v1/line?position={}&max_plies=300", encoded(&decided)),
    )
    .body;
    let steps = line["steps"].as_array().unwrap().clone();
    assert!(steps.len() >= 2, "{line}");
    browser.click("#line");
    browser.wait_for(
        &format!(
            "document.querySelectorAll('#steps li').length === {}",
            steps.len()
        ),
        "the perfect-play line",
    );
    let listed =
        browser.eval("[...document.querySelectorAll('#steps li')].map(l => l.textContent)");
    let expected: Vec<String> = steps
        .iter()
        .map(|s| format!("{}  →  {}", text(&s["move"]), text(&s["position"])))
        .collect();
    assert_eq!(listed, Json::from(expected.clone()));
    for (i, step) in steps.iter().enumerate() {
        browser.click(&format!("#steps li:nth-child({})", i + 1));
        expect_showing(&mut browser, &served, &text(&step["position"]));
        assert_eq!(count(&mut browser, "#steps li"), steps.len() as u64);
    }
    assert_eq!(
        count(&mut browser, "#moves tbody tr"),
        0,
        "the line ends where the game does"
    );
    assert_eq!(
        browser.eval("document.querySelector('#steps li.current').textContent"),
        Json::from(expected.last().unwrap().clone())
    );
    assert_quiet(&browser);
}

#[test]
fn typed_and_edited_positions_are_checked_by_the_server() {
    // Servers stay up to the end: a page may still ask one for its icon.
    let mut finished = Vec::new();
    let dir = tempfile::tempdir().unwrap();
    let served = built_and_served(&dir, "morris:taiwan:3");
    let Some(mut browser) = Browser::launch() else {
        return;
    };
    open(&mut browser, &served, "start");
    let start = text(&api_moves(&served, "start")["position"]);
    expect_showing(&mut browser, &served, &start);

    // Typed into the notation field: a bad position gets the server's
    // error, a good one is shown.
    let typed = ".........B...........BW. w 1 2";
    for (position, error) in [("B B B", Some("malformed position")), (typed, None)] {
        browser.eval("document.getElementById('notation').select()");
        browser.call("Input.insertText", serde_json::json!({"text": position}));
        browser.click("#goto button");
        match error {
            Some(says) => expect_error(&mut browser, says, 400),
            None => expect_showing(&mut browser, &served, position),
        }
    }
    assert_eq!(
        browser.eval("document.getElementById('error').hidden"),
        Json::Bool(true)
    );
    open(&mut browser, &served, "start");
    expect_showing(&mut browser, &served, &start);

    // Black on a1 and d1 (one click each), White on a4 and d6 (two each),
    // Black to move with one piece in hand each.
    browser.click("#edit");
    browser.wait_for("!document.getElementById('editor').hidden", "the editor");
    for (name, clicks) in [("a1", 1), ("d1", 1), ("a4", 2), ("d6", 2)] {
        for _ in 0..clicks {
            let selector = cell(&mut browser, name);
            browser.click(&selector);
        }
    }
    browser.eval(
        "for (const [id, value] of [['edit-side', 'b'], ['edit-black', '1'], ['edit-white', '1']]) {\
           const field = document.getElementById(id); field.value = value;\
           field.dispatchEvent(new Event('change')); }",
    );
    let set_up = "BB.......W.........W.... b 1 1";
    assert_eq!(
        browser.eval("document.getElementById('notation').value"),
        Json::from(set_up)
    );
    browser.click("#edit-done");
    expect_showing(&mut browser, &served, set_up);
    assert!(browser.eval("document.getElementById('editor').hidden") == Json::Bool(true));

    // Too many pieces: the server says why, and editing goes on.
    browser.click("#edit");
    for name in ["g1", "g7"] {
        let selector = cell(&mut browser, name);
        browser.click(&selector);
    }
    browser.click("#edit-done");
    expect_error(&mut browser, "more than the 3 of the game", 400);
    assert_eq!(
        browser.eval("document.getElementById('editor').hidden"),
        Json::Bool(false)
    );
    assert_eq!(count(&mut browser, "#board .piece.B"), 4);
    browser.click("#edit-cancel");
    expect_showing(&mut browser, &served, set_up);
    assert_eq!(count(&mut browser, "#board .piece.B"), 2);
    assert_quiet(&browser);
    finished.push(served);

    // The hexagram's positions are integers: ringing point 0 adds 1.
    let served = built_and_served(&dir, "nim:hexagram");
    open(&mut browser, &served, "2088");
    expect_showing(&mut browser, &served, "2088");
    browser.click("#edit");
    let selector = cell(&mut browser, "0");
    browser.click(&selector);
    browser.click("#edit-done");
    expect_showing(&mut browser, &served, "2089");
    assert_quiet(&browser);
}

/// Orders results for the side making the move as the page does: the
/// quickest win, then draws, then the slowest loss.
fn preference(result: &str) -> (u8, i64) {
    let depth = result
        .split(" in ")
        .nth(1)
        .map_or(0, |d| d.parse::<i64>().unwrap());
    match result.split(' ').next().unwrap() {
        "win" => (0, depth),
        "draw" => (1, 0),
        _ => (2, -depth),
    }
}

/// Keeps at `point` the better of what it holds and `result`.
fn keep_best(best: &mut std::collections::BTreeMap<String, String>, point: &str, result: String) {
    let slot = best.entry(point.to_string()).or_insert(result.clone());
    if preference(&result) < preference(slot) {
        *slot = result;
    }
}

/// The best result, for the mover, of the moves whose cell to click next
/// (the piece moved, else where it lands) is each point: what the board
/// must show on it.
fn best_by_point(served: &Served, position: &str) -> std::collections::BTreeMap<String, String> {
    let points: Vec<String> = get(&served.http, "/api/v1/info").body["board"]["points"]
        .as_array()
        .unwrap()
        .iter()
        .map(text)
        .collect();
    let mover = if position.split(' ').nth(1) == Some("b") {
        'B'
    } else {
        'W'
    };
    let before: Vec<char> = position.split(' ').next().unwrap().chars().collect();
    let mut best = std::collections::BTreeMap::<String, String>::new();
    for m in api_moves(served, position)["moves"].as_array().unwrap() {
        let after: Vec<char> = text(&m["after"])
            .split(' ')
            .next()
            .unwrap()
            .chars()
            .collect();
        let changed = |keep: fn(char, char, char) -> bool| {
            (0..before.len()).find(|&i| before[i] != after[i] && keep(before[i], after[i], mover))
        };
        let next = changed(|b, _, mover| b == mover)
            .or_else(|| changed(|_, a, mover| a == mover))
            .unwrap();
        let (_, result, _) = expected_row(m);
        keep_best(&mut best, &points[next], result);
    }
    best
}

/// Each point the board marks with a result: its name, the result, and
/// whether its colour is the result's.
fn marked(browser: &mut Browser) -> std::collections::BTreeMap<String, String> {
    let marks = browser.eval(
        "[...document.querySelectorAll('#board circle[data-result]')].map(c => [\
           c.querySelector('title').textContent.split(':')[0], c.dataset.result,\
           c.classList.contains('result-' + c.dataset.result.split(' ')[0])])",
    );
    marks
        .as_array()
        .unwrap()
        .iter()
        .map(|m| {
            assert_eq!(m[2], Json::Bool(true), "{m}: coloured as its result");
            (text(&m[0]), text(&m[1]))
        })
        .collect()
}

#[test]
fn the_board_shows_coordinates_hands_and_each_moves_result() {
    let mut finished = Vec::new();
    let dir = tempfile::tempdir().unwrap();
    let served = built_and_served(&dir, "morris:taiwan:3");
    let Some(mut browser) = Browser::launch() else {
        return;
    };

    // Placing: files and ranks around the board, each side's hand beside
    // it, and on every empty point the best its placements give White.
    let placing = ".........B...........BW. w 1 2";
    open(&mut browser, &served, placing);
    expect_showing(&mut browser, &served, placing);
    assert_eq!(
        browser.eval(
            "[...document.querySelectorAll('#board .coordinate')].map(t => t.textContent).join('')"
        ),
        Json::from("a1b2c3d4e5f6g7")
    );
    assert_eq!(count(&mut browser, "#board .hand.B"), 1);
    assert_eq!(count(&mut browser, "#board .hand.W"), 2);
    let expected = best_by_point(&served, placing);
    assert_eq!(expected.len(), 21, "White may place on every empty point");
    assert_eq!(marked(&mut browser), expected);

    // Moving: each piece that can move shows the best of its moves; a
    // piece clicked shows an arrow to each point it may go to, coloured
    // by that move's result, and the point the same.
    let moving = "B.B.......W.W......B..W. b 0 0";
    open(&mut browser, &served, moving);
    expect_showing(&mut browser, &served, moving);
    assert_eq!(count(&mut browser, "#board .hand"), 0);
    assert_eq!(marked(&mut browser), best_by_point(&served, moving));
    let selector = cell(&mut browser, "a1");
    browser.click(&selector);
    let mut from_a1 = std::collections::BTreeMap::<String, String>::new();
    for m in api_moves(&served, moving)["moves"].as_array().unwrap() {
        let name = text(&m["move"]);
        let Some(to) = name
            .strip_prefix("a1-")
            .and_then(|rest| rest.split('x').next())
        else {
            continue;
        };
        let result = expected_row(m).1;
        keep_best(&mut from_a1, to, result);
    }
    assert!(!from_a1.is_empty(), "a1 can move");
    browser.wait_for(
        &format!(
            "document.querySelectorAll('#board line.arrow').length === {}",
            from_a1.len()
        ),
        "an arrow to each point a1 may go to",
    );
    assert_eq!(marked(&mut browser), from_a1);
    let arrows = browser.eval(
        "[...document.querySelectorAll('#board line.arrow')].map(a => \
           a.classList.contains('result-' + document.querySelector(\
             `#board circle[data-cell=\"${a.dataset.to}\"]`).dataset.result.split(' ')[0]))",
    );
    assert!(
        arrows
            .as_array()
            .unwrap()
            .iter()
            .all(|a| a == &Json::Bool(true)),
        "each arrow coloured as its point: {arrows}"
    );
    assert_quiet(&browser);
    finished.push(served);

    // A 12-piece store (its first slices, built in a second): the same
    // board, and twelve pieces in each hand drawn while setting one up.
    let store = dir.path().join("tw12");
    // The plan's largest slice must fit the budget, even though only the
    // two smallest are built: the budget is stated, not taken from what
    // this machine has free beside the other tests.
    build(
        "morris:taiwan:12",
        &store,
        &["--max-slices", "2", "--memory", "20GiB"],
    );
    let served = serve_both(&store);
    open(&mut browser, &served, moving);
    expect_showing(&mut browser, &served, moving);
    assert!(
        text(&browser.eval("document.getElementById('game').textContent"))
            .starts_with("morris:taiwan:12, "),
        "the page names the game"
    );
    assert_eq!(marked(&mut browser), best_by_point(&served, moving));
    browser.click("#edit");
    browser.wait_for("!document.getElementById('editor').hidden", "the editor");
    browser.eval(
        "for (const id of ['edit-black', 'edit-white']) {\
           const field = document.getElementById(id); field.value = '12';\
           field.dispatchEvent(new Event('change')); }",
    );
    assert_eq!(count(&mut browser, "#board .hand.B"), 12);
    assert_eq!(count(&mut browser, "#board .hand.W"), 12);
    browser.click("#edit-cancel");
    expect_showing(&mut browser, &served, moving);
    assert_eq!(count(&mut browser, "#board .hand"), 0);
    assert_quiet(&browser);
}
