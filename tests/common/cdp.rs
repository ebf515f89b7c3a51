//! Headless Chromium driven over the DevTools protocol: JSON commands and
//! events on a WebSocket. Clicks go through the browser's input pipeline
//! (mouse events at an element's place on the screen, as a person's would);
//! the page's state is read back with JavaScript; every console message,
//! log entry and uncaught exception is kept so that a test can fail on it.

use std::net::TcpStream;
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::{json, Value as Json};
use tungstenite::{Message, WebSocket};

/// How long one wait for the page may take before the test fails.
const PATIENCE: Duration = Duration::from_secs(20);

pub struct Browser {
    chromium: Child,
    socket: WebSocket<TcpStream>,
    /// The page's session on the browser's one connection.
    session: String,
    next_id: u64,
    /// Console messages, log entries and exceptions, as text, in order.
    pub complaints: Vec<String>,
    _profile: tempfile::TempDir,
}

impl Drop for Browser {
    fn drop(&mut self) {
        let _ = self.chromium.kill();
        let _ = self.chromium.wait();
    }
}

impl Browser {
    /// A fresh browser with one blank page; `None` (the reason on standard
    /// error) where Chromium is not installed.
    pub fn launch() -> Option<Browser> {
        let profile = tempfile::tempdir().unwrap();
        let chromium = Command::new("chromium")
            .args(["--headless", "--no-sandbox", "--disable-gpu"])
            .args(["--no-first-run", "--remote-debugging-port=0"])
            .arg("--window-size=1000,900")
            .arg(format!("--user-data-dir={}", profile.path().display()))
            .arg("about:blank")
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn();
        let chromium = match chromium {
            Ok(child) => child,
            Err(e) => {
                super::skip(
                    "browser",
                    &format!(
                        "the browser part: no chromium ({e}); deploy/setup-browser.sh installs it"
                    ),
                );
                return None;
            }
        };
        let (port, path) = devtools_address(profile.path());
        let stream = TcpStream::connect(("127.0.0.1", port)).unwrap();
        stream.set_read_timeout(Some(PATIENCE)).unwrap();
        let (socket, _) = tungstenite::client(format!("ws://127.0.0.1:{port}{path}"), stream)
            .expect("the DevTools WebSocket handshake");
        let mut browser = Browser {
            chromium,
            socket,
            session: String::new(),
            next_id: 0,
            complaints: Vec::new(),
            _profile: profile,
        };
        let target = browser.call("Target.createTarget", json!({"url": "about:blank"}));
        let attached = browser.call(
            "Target.attachToTarget",
            json!({"targetId": target["targetId"], "flatten": true}),
        );
        browser.session = attached["sessionId"].as_str().unwrap().to_string();
        for domain in ["Runtime.enable", "Log.enable", "Page.enable"] {
            browser.call(domain, json!({}));
        }
        Some(browser)
    }

    /// Sends one command (to the page once attached) and returns its
    /// result; events that arrive meanwhile are kept.
    pub fn call(&mut self, method: &str, params: Json) -> Json {
        self.next_id += 1;
        let id = self.next_id;
        let mut command = json!({"id": id, "method": method, "params": params});
        if !self.session.is_empty() {
            command["sessionId"] = Json::from(self.session.clone());
        }
        self.socket
            .send(Message::text(command.to_string()))
            .expect("DevTools takes the command");
        loop {
            let message = self.socket.read().expect("DevTools answers");
            let Ok(text) = message.to_text() else {
                continue;
            };
            let Ok(reply) = serde_json::from_str::<Json>(text) else {
                continue;
            };
            if reply["id"] == json!(id) {
                assert!(reply["error"].is_null(), "{method}: {}", reply["error"]);
                return reply["result"].clone();
            }
            self.keep_event(&reply);
        }
    }

    fn keep_event(&mut self, event: &Json) {
        let params = &event["params"];
        let complaint = match event["method"].as_str() {
            Some("Runtime.consoleAPICalled") => {
                let args: Vec<String> = params["args"]
                    .as_array()
                    .into_iter()
                    .flatten()
                    .map(|a| a["value"].to_string())
                    .collect();
                format!("console.{}: {}", params["type"], args.join(" "))
            }
            Some("Runtime.exceptionThrown") => {
                let details = &params["exceptionDetails"];
                format!(
                    "exception: {} {}",
                    details["text"], details["exception"]["description"]
                )
            }
            Some("Log.entryAdded") => format!(
                "log {}: {} ({})",
                params["entry"]["level"], params["entry"]["text"], params["entry"]["url"]
            ),
            _ => return,
        };
        self.complaints.push(complaint);
    }

    /// Loads `url` and waits until the document and its scripts are in.
    pub fn goto(&mut self, url: &str) {
        self.call("Page.navigate", json!({"url": url}));
        self.wait_for("document.readyState === 'complete'", "the page loads");
    }

    /// The value of a JavaScript expression (promises awaited).
    pub fn eval(&mut self, expression: &str) -> Json {
        let result = self.call(
            "Runtime.evaluate",
            json!({"expression": expression, "returnByValue": true, "awaitPromise": true}),
        );
        assert!(
            result["exceptionDetails"].is_null(),
            "{expression}: {}",
            result["exceptionDetails"]
        );
        result["result"]["value"].clone()
    }

    /// Waits until `expression` is true; fails naming `what` and the page's
    /// error line if it does not become so.
    pub fn wait_for(&mut self, expression: &str, what: &str) {
        let start = Instant::now();
        while self.eval(&format!("!!({expression})")) != json!(true) {
            if start.elapsed() > PATIENCE {
                let error = self.eval("(document.getElementById('error') || {}).textContent");
                panic!("waited {PATIENCE:?} for {what} ({expression}); error shown: {error}");
            }
            std::thread::sleep(Duration::from_millis(25));
        }
    }

    /// Clicks the middle of the first element `selector` matches with the
    /// left mouse button, as a person would (scrolled into view first).
    pub fn click(&mut self, selector: &str) {
        let quoted = serde_json::to_string(selector).unwrap();
        let place = self.eval(&format!(
            "(() => {{ const e = document.querySelector({quoted}); if (!e) return null; \
             e.scrollIntoView({{block: 'center'}}); const r = e.getBoundingClientRect(); \
             return [r.x + r.width / 2, r.y + r.height / 2]; }})()"
        ));
        assert!(place.is_array(), "nothing to click at {selector}");
        let (x, y) = (place[0].clone(), place[1].clone());
        self.call(
            "Input.dispatchMouseEvent",
            json!({"type": "mouseMoved", "x": x, "y": y}),
        );
        for kind in ["mousePressed", "mouseReleased"] {
            self.call(
                "Input.dispatchMouseEvent",
                json!({"type": kind, "x": x, "y": y, "button": "left", "clickCount": 1}),
            );
        }
    }
}

/// Chromium writes the port and path of its DevTools endpoint to
/// `DevToolsActivePort` in the profile once it listens.
fn devtools_address(profile: &Path) -> (u16, String) {
    let file = profile.join("DevToolsActivePort");
    let start = Instant::now();
    loop {
        if let Ok(text) = std::fs::read_to_string(&file) {
            let mut lines = text.lines();
            if let (Some(port), Some(path)) = (lines.next(), lines.next()) {
                return (port.parse().expect("a port"), path.to_string());
            }
        }
        assert!(
            start.elapsed() < PATIENCE,
            "chromium did not open its DevTools port"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
}
