//! The JSON API's part of `egdb bench-query`: single GET requests, one at a
//! time on one kept-alive connection, as a browser or a script asks them.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::time::{Duration, Instant};

use crate::failure::Failure;

/// Requests per second and latency quantiles of one run.
pub struct HttpRun {
    pub rate: f64,
    pub p50_us: f64,
    pub p99_us: f64,
}

/// Asks `/api/v1/{route}?position=…` for every position, one at a time.
///
/// # Errors
/// The server cannot be reached or answers anything but 200.
pub fn measure(address: &str, route: &str, positions: &[String]) -> Result<HttpRun, Failure> {
    let failed = |e: std::io::Error| Failure::failed(format!("HTTP to {address}: {e}"));
    let stream = TcpStream::connect(address).map_err(failed)?;
    stream.set_nodelay(true).map_err(failed)?;
    let mut writer = stream.try_clone().map_err(failed)?;
    let mut reader = BufReader::new(stream);
    let mut latencies = Vec::with_capacity(positions.len());
    let started = Instant::now();
    for position in positions {
        let asked = Instant::now();
        let request = format!(
            "GET /api/v1/{route}?position={} HTTP/1.1\r\nHost: bench\r\n\r\n",
            encoded(position)
        );
        writer.write_all(request.as_bytes()).map_err(failed)?;
        let status = read_reply(&mut reader).map_err(failed)?;
        if status != 200 {
            return Err(Failure::failed(format!(
                "{route} of {position:?} answered HTTP {status}"
            )));
        }
        latencies.push(asked.elapsed());
    }
    let rate = positions.len() as f64 / started.elapsed().as_secs_f64();
    Ok(HttpRun {
        rate,
        p50_us: quantile_us(&mut latencies, 0.5),
        p99_us: quantile_us(&mut latencies, 0.99),
    })
}

/// The `q` quantile of `latencies`, in microseconds.
pub fn quantile_us(latencies: &mut [Duration], q: f64) -> f64 {
    latencies.sort_unstable();
    let i = ((latencies.len() as f64 * q) as usize).min(latencies.len().saturating_sub(1));
    latencies.get(i).map_or(0.0, |d| d.as_secs_f64() * 1e6)
}

/// Reads one reply (its body skipped); its status.
fn read_reply(reader: &mut impl BufRead) -> std::io::Result<u16> {
    let bad = |what: &str| std::io::Error::new(std::io::ErrorKind::InvalidData, what.to_string());
    let mut line = String::new();
    reader.read_line(&mut line)?;
    let status = line
        .split_whitespace()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .ok_or_else(|| bad("no status line"))?;
    let mut length = None;
    loop {
        line.clear();
        if reader.read_line(&mut line)? == 0 {
            return Err(bad("the connection closed mid-reply"));
        }
        let header = line.trim_end();
        if header.is_empty() {
            break;
        }
        if let Some((name, value)) = header.split_once(':') {
            if name.eq_ignore_ascii_case("content-length") {
                length = value.trim().parse::<u64>().ok();
            }
        }
    }
    let length = length.ok_or_else(|| bad("a reply without its length"))?;
    std::io::copy(&mut reader.take(length), &mut std::io::sink())?;
    Ok(status)
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
