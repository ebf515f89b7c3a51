//! `egdb serve` with its gRPC and HTTP listeners, and a few lines of
//! HTTP/1.1 (with pipelining) to ask the JSON API.

use std::io::{BufRead, BufReader, Write};
use std::net::TcpStream;
use std::path::Path;
use std::process::{Child, Stdio};

use serde_json::Value as Json;

/// `egdb serve` with both listeners; killed when dropped.
pub struct Served {
    pub child: Child,
    pub grpc: String,
    pub http: String,
}

impl Drop for Served {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

pub fn serve_both(store: &Path) -> Served {
    let mut child = super::egdb_command()
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
pub struct Reply {
    pub status: u16,
    pub headers: Vec<(String, String)>,
    pub text: String,
    pub body: Json,
}

impl Reply {
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    }
}

/// `paths` asked on one connection, 256 requests in flight at a time.
pub fn get_all(address: &str, paths: &[String]) -> Vec<Reply> {
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

pub fn get(address: &str, path: &str) -> Reply {
    get_all(address, &[path.to_string()]).remove(0)
}

/// One request of any method, on a connection of its own.
pub fn request(address: &str, method: &str, path: &str) -> Reply {
    let mut stream = TcpStream::connect(address).unwrap();
    let body = if method == "POST" { "{}" } else { "" };
    write!(
        stream,
        "{method} {path} HTTP/1.1\r\nHost: egdb\r\nContent-Length: {}\r\n\r\n{body}",
        body.len()
    )
    .unwrap();
    read_reply(&mut BufReader::new(stream))
}

pub fn read_reply(reader: &mut impl BufRead) -> Reply {
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
        .map_or(0, |(_, v)| v.parse().unwrap());
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
pub fn encoded(text: &str) -> String {
    text.bytes()
        .map(|b| match b {
            b'a'..=b'z' | b'A'..=b'Z' | b'0'..=b'9' | b'.' | b'-' | b'_' => char::from(b).into(),
            _ => format!("%{b:02X}"),
        })
        .collect()
}
