//! `egdb bench-query --hostile`: an `egdb serve` under a mixed hostile load
//! — slow clients that send a header line every few seconds, floods of
//! the longest lines, malformed requests, connections dropped half-way —
//! while honest clients probe it on fresh connections and its memory is
//! read from /proc. What a public server must hold (docs/serving.md, "A server for
//! the public").

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use serde_json::json;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

use crate::bench_http::{encoded, quantile_us};
use crate::failure::Failure;

/// How many of each attacker, and for how long.
#[derive(Debug, Clone, Copy)]
pub struct Attack {
    pub slow: usize,
    pub lines: usize,
    pub malformed: usize,
    pub drops: usize,
    pub seconds: f64,
}

/// What the honest clients and the server's memory showed.
pub struct Outcome {
    pub http: Latencies,
    pub grpc: Latencies,
    pub peak_rss: u64,
    pub attackers: Counters,
}

#[derive(Default)]
pub struct Latencies {
    pub asked: usize,
    /// Not answered within [`HONEST_PATIENCE`], or answered wrongly.
    pub failed: usize,
    /// Why, for the first few.
    pub why: Vec<String>,
    pub p50_us: f64,
    pub p99_us: f64,
    pub max_us: f64,
}

/// What the attackers saw.
#[derive(Default)]
pub struct Counters {
    pub connections: AtomicU64,
    pub closed_by_server: AtomicU64,
    pub lines_answered: AtomicU64,
    pub busy: AtomicU64,
}

/// How long an honest client waits for an answer before it counts it as
/// lost.
const HONEST_PATIENCE: Duration = Duration::from_secs(30);

/// Between two honest probes.
const HONEST_EVERY: Duration = Duration::from_millis(250);

/// A slow client's pace: one header line this often.
const SLOW_LINE_EVERY: Duration = Duration::from_secs(3);

/// Runs `attack` against the server at `http` (JSON API) and `grpc` (URL),
/// whose process is `pid`, asking honest probes of `positions` meanwhile.
///
/// # Errors
/// No async runtime.
pub fn run(
    attack: Attack,
    http: &str,
    grpc: &str,
    pid: u32,
    positions: &[String],
) -> Result<Outcome, Failure> {
    crate::open_files::raise();
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .map_err(|e| Failure::failed(format!("no async runtime: {e}")))?;
    let stop = Arc::new(AtomicBool::new(false));
    // The honest clients and the memory reader on threads of their own:
    // the attackers' thousands of tasks must not delay what measures the
    // server.
    let honest_http = on_own_thread(honest_http(
        http.to_string(),
        positions.to_vec(),
        stop.clone(),
    ))?;
    let honest_grpc = on_own_thread(honest_grpc(
        grpc.to_string(),
        positions.to_vec(),
        stop.clone(),
    ))?;
    let peak = on_own_thread(peak_rss(pid, stop.clone()))?;
    let attackers = runtime.block_on(async {
        let counters = Arc::new(Counters::default());
        let address = http.to_string();
        let mut attackers = tokio::task::JoinSet::new();
        for i in 0..attack.slow {
            let (address, stop, counters) = (address.clone(), stop.clone(), counters.clone());
            attackers.spawn(async move {
                // Spread out so that they do not all tick at once.
                tokio::time::sleep(SLOW_LINE_EVERY.mul_f64(i as f64 / attack.slow as f64)).await;
                slow_client(&address, &stop, &counters).await;
            });
        }
        for _ in 0..attack.lines {
            let (address, stop, counters) = (address.clone(), stop.clone(), counters.clone());
            attackers.spawn(async move { line_flood(&address, &stop, &counters).await });
        }
        for i in 0..attack.malformed {
            let (address, stop, counters) = (address.clone(), stop.clone(), counters.clone());
            attackers.spawn(async move { malformed(&address, i, &stop, &counters).await });
        }
        for _ in 0..attack.drops {
            let (address, stop, counters) = (address.clone(), stop.clone(), counters.clone());
            attackers.spawn(async move { drops(&address, &stop, &counters).await });
        }
        tokio::time::sleep(Duration::from_secs_f64(attack.seconds)).await;
        stop.store(true, Ordering::Release);
        attackers.abort_all();
        while attackers.join_next().await.is_some() {}
        Arc::try_unwrap(counters).unwrap_or_default()
    });
    Ok(Outcome {
        http: honest_http.join().unwrap_or_default(),
        grpc: honest_grpc.join().unwrap_or_default(),
        peak_rss: peak.join().unwrap_or(0),
        attackers,
    })
}

/// Runs `work` to its end on a new thread with a runtime of its own.
fn on_own_thread<F>(work: F) -> Result<std::thread::JoinHandle<F::Output>, Failure>
where
    F: std::future::Future + Send + 'static,
    F::Output: Send + 'static,
{
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| Failure::failed(format!("no async runtime: {e}")))?;
    std::thread::Builder::new()
        .spawn(move || runtime.block_on(work))
        .map_err(|e| Failure::failed(format!("no thread: {e}")))
}

/// The outcome as JSON (`--json`).
pub fn outcome_json(attack: &Attack, outcome: &Outcome) -> serde_json::Value {
    let latencies = |l: &Latencies| {
        json!({"asked": l.asked, "failed": l.failed, "why_failed": l.why, "p50_us": l.p50_us,
               "p99_us": l.p99_us, "max_us": l.max_us})
    };
    let a = &outcome.attackers;
    json!({
        "seconds": attack.seconds,
        "slow_clients": attack.slow,
        "line_floods": attack.lines,
        "malformed_clients": attack.malformed,
        "dropping_clients": attack.drops,
        "honest_http": latencies(&outcome.http),
        "honest_grpc": latencies(&outcome.grpc),
        "server_peak_rss_bytes": outcome.peak_rss,
        "attacker_connections": a.connections.load(Ordering::Relaxed),
        "attacker_connections_closed_by_server": a.closed_by_server.load(Ordering::Relaxed),
        "lines_answered": a.lines_answered.load(Ordering::Relaxed),
        "busy_answers": a.busy.load(Ordering::Relaxed),
    })
}

/// Sends a request's first line, then a header line every few seconds,
/// never the blank line that ends the header; connects again when closed.
async fn slow_client(address: &str, stop: &AtomicBool, counters: &Counters) {
    while !stop.load(Ordering::Acquire) {
        if let Ok(mut tcp) = TcpStream::connect(address).await {
            counters.connections.fetch_add(1, Ordering::Relaxed);
            let mut line: &[u8] = b"GET /api/v1/probe?position=start HTTP/1.1\r\n";
            while !stop.load(Ordering::Acquire) && tcp.write_all(line).await.is_ok() {
                line = b"X-Slow: 1\r\n";
                let mut byte = [0u8; 1];
                // Wait, noticing when the server closes meanwhile.
                match tokio::time::timeout(SLOW_LINE_EVERY, tcp.read(&mut byte)).await {
                    Err(_) => continue,
                    Ok(_) => break,
                }
            }
            counters.closed_by_server.fetch_add(1, Ordering::Relaxed);
        }
        tokio::time::sleep(Duration::from_secs(1)).await;
    }
}

/// Asks the longest line the server gives, again and again.
async fn line_flood(address: &str, stop: &AtomicBool, counters: &Counters) {
    let request =
        b"GET /api/v1/line?position=start&max_plies=10000 HTTP/1.1\r\nHost: flood\r\nConnection: close\r\n\r\n";
    while !stop.load(Ordering::Acquire) {
        let Ok(mut tcp) = TcpStream::connect(address).await else {
            tokio::time::sleep(Duration::from_millis(100)).await;
            continue;
        };
        counters.connections.fetch_add(1, Ordering::Relaxed);
        if tcp.write_all(request).await.is_err() {
            continue;
        }
        let mut reply = Vec::new();
        let _ = tcp.read_to_end(&mut reply).await;
        if reply.starts_with(b"HTTP/1.1 200") {
            counters.lines_answered.fetch_add(1, Ordering::Relaxed);
        } else if reply.starts_with(b"HTTP/1.1 503") {
            counters.busy.fetch_add(1, Ordering::Relaxed);
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    }
}

/// Requests no server should take: garbage, oversized headers, a body on
/// a GET, bytes that are no UTF-8, an HTTP/2 preface on the HTTP/1 port.
async fn malformed(address: &str, seed: usize, stop: &AtomicBool, counters: &Counters) {
    let long_header = format!("GET / HTTP/1.1\r\nX-Long: {}\r\n\r\n", "x".repeat(200_000));
    let cases: [&[u8]; 6] = [
        b"NONSENSE\r\n\r\n",
        long_header.as_bytes(),
        b"GET /api/v1/probe?position=%ff%fe HTTP/1.1\r\nHost: x\r\n\r\n",
        b"GET /api/v1/moves?position=start HTTP/1.1\r\nContent-Length: 99999999\r\n\r\nabc",
        b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n",
        b"GET /../../etc/passwd HTTP/1.1\r\nHost: x\r\n\r\n",
    ];
    let mut at = seed;
    while !stop.load(Ordering::Acquire) {
        if let Ok(mut tcp) = TcpStream::connect(address).await {
            counters.connections.fetch_add(1, Ordering::Relaxed);
            let _ = tcp.write_all(cases[at % cases.len()]).await;
            let mut reply = Vec::new();
            let _ = tokio::time::timeout(Duration::from_secs(5), tcp.read_to_end(&mut reply)).await;
        }
        at += 1;
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

/// Connects and leaves at once, or half-way through a request.
async fn drops(address: &str, stop: &AtomicBool, counters: &Counters) {
    let mut half = false;
    while !stop.load(Ordering::Acquire) {
        if let Ok(mut tcp) = TcpStream::connect(address).await {
            counters.connections.fetch_add(1, Ordering::Relaxed);
            if half {
                let _ = tcp
                    .write_all(b"GET /api/v1/line?position=start HTTP/1.1\r\nHo")
                    .await;
            }
        }
        half = !half;
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

/// Probes on a fresh connection each, until `stop`.
async fn honest_http(address: String, positions: Vec<String>, stop: Arc<AtomicBool>) -> Latencies {
    let mut tally = Tally::default();
    for position in positions.iter().cycle() {
        if stop.load(Ordering::Acquire) {
            break;
        }
        let asked = Instant::now();
        let request = format!(
            "GET /api/v1/probe?position={} HTTP/1.1\r\nHost: honest\r\nConnection: close\r\n\r\n",
            encoded(position)
        );
        let answer = tokio::time::timeout(HONEST_PATIENCE, async {
            let mut tcp = TcpStream::connect(&address).await?;
            tcp.write_all(request.as_bytes()).await?;
            let mut reply = Vec::new();
            tcp.read_to_end(&mut reply).await?;
            Ok::<_, std::io::Error>(reply)
        })
        .await;
        tally.record(
            asked,
            match answer {
                Ok(Ok(reply)) if reply.starts_with(b"HTTP/1.1 200") => Ok(()),
                Ok(Ok(reply)) => Err(format!(
                    "answered {:?}",
                    String::from_utf8_lossy(&reply[..reply.len().min(40)])
                )),
                Ok(Err(e)) => Err(e.to_string()),
                Err(_) => Err("no answer within 30 s".to_string()),
            },
        );
        tokio::time::sleep(HONEST_EVERY).await;
    }
    tally.summary()
}

/// gRPC probes, each on a fresh channel, until `stop`.
async fn honest_grpc(url: String, positions: Vec<String>, stop: Arc<AtomicBool>) -> Latencies {
    use egdb_proto::v1::query_client::QueryClient;
    use egdb_proto::v1::PositionRequest;
    let mut tally = Tally::default();
    for position in positions.iter().cycle() {
        if stop.load(Ordering::Acquire) {
            break;
        }
        let asked = Instant::now();
        let answer = tokio::time::timeout(HONEST_PATIENCE, async {
            let mut client = QueryClient::connect(url.clone())
                .await
                .map_err(|e| e.to_string())?;
            client
                .probe(PositionRequest {
                    position: position.clone(),
                })
                .await
                .map(|_| ())
                .map_err(|e| e.to_string())
        })
        .await;
        tally.record(
            asked,
            answer.unwrap_or_else(|_| Err("no answer within 30 s".to_string())),
        );
        tokio::time::sleep(HONEST_EVERY * 4).await;
    }
    tally.summary()
}

/// The honest probes of one kind, as they come back.
#[derive(Default)]
struct Tally {
    latencies: Vec<Duration>,
    failed: usize,
    why: Vec<String>,
}

impl Tally {
    /// A probe asked at `asked`: answered, or lost and why.
    fn record(&mut self, asked: Instant, outcome: Result<(), String>) {
        match outcome {
            Ok(()) => self.latencies.push(asked.elapsed()),
            Err(why) => {
                self.failed += 1;
                if self.why.len() < 5 {
                    self.why.push(why);
                }
            }
        }
    }

    fn summary(mut self) -> Latencies {
        let max_us = self
            .latencies
            .iter()
            .max()
            .map_or(0.0, |d| d.as_secs_f64() * 1e6);
        Latencies {
            asked: self.latencies.len() + self.failed,
            failed: self.failed,
            why: self.why,
            p50_us: quantile_us(&mut self.latencies, 0.5),
            p99_us: quantile_us(&mut self.latencies, 0.99),
            max_us,
        }
    }
}

/// The largest resident set the process `pid` had, read every 100 ms.
async fn peak_rss(pid: u32, stop: Arc<AtomicBool>) -> u64 {
    let mut peak = 0;
    while !stop.load(Ordering::Acquire) {
        if let Some(rss) = rss_of(pid) {
            peak = peak.max(rss);
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    peak
}

/// VmRSS of a process, in bytes.
fn rss_of(pid: u32) -> Option<u64> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    let line = status.lines().find(|l| l.starts_with("VmRSS:"))?;
    let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kib * 1024)
}
