//! `egdb bench-query`: probes per second and single-probe latency of an
//! `egdb serve` on loopback, from one client, over gRPC and over the JSON
//! API (`bench_http`).
//!
//! The server is this egdb binary started as a child process on the store;
//! the positions are random (Nim: random sets of stones; Morris: random
//! games from the start), drawn before timing starts.

use std::io::{BufRead, BufReader};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use egdb_games::family::XorShift;
use egdb_games::{with_game, Family};
use egdb_proto::v1::query_client::QueryClient;
use egdb_proto::v1::{BatchRequest, PositionRequest};
use egdb_tablebase::Tablebase;

use crate::bench_hostile;
use crate::bench_http;
use crate::cli::BenchQueryArgs;
use crate::failure::Exit;
use crate::failure::Failure;

pub fn run(args: BenchQueryArgs) -> Exit {
    if args.hostile {
        return hostile(&args);
    }
    let (positions, cold) = {
        let tablebase = Tablebase::open(&args.store)?;
        let mut all = sample(&tablebase, args.probes.max(1) + COLD_MOVES);
        let cold = all.split_off(args.probes.max(1));
        (all, cold)
    };
    let mut server = Server::start(&args.store)?;
    // The JSON API first, while the server's block cache is empty: `moves`
    // of positions nothing has asked for yet, then single probes.
    let http = bench_http::measure(&server.http, "moves", &cold).and_then(|moves| {
        Ok((
            moves,
            bench_http::measure(&server.http, "probe", &positions)?,
        ))
    });
    let (cold_moves, http_probes) = match http {
        Ok(runs) => runs,
        Err(e) => {
            server.stop();
            return Err(e);
        }
    };
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .enable_all()
        .build()
        .map_err(|e| Failure::failed(format!("no async runtime: {e}")))?;
    let report = runtime.block_on(measure(&server.url, &positions, args.concurrency.max(1)));
    server.stop();
    let report = report?;
    outln!(
        "{}: {} random positions, one client on loopback",
        args.store.display(),
        positions.len()
    )?;
    outln!(
        "  single probes, one at a time: {:.0} probes/s, latency p50 {:.0} µs, p99 {:.0} µs",
        report.sequential_rate,
        report.p50_us,
        report.p99_us
    )?;
    outln!(
        "  {} probes in flight: {:.0} probes/s",
        args.concurrency,
        report.concurrent_rate
    )?;
    outln!(
        "  one stream of single probes: {:.0} probes/s",
        report.stream_rate
    )?;
    outln!("  batches of {}: {:.0} probes/s", BATCH, report.batch_rate)?;
    outln!(
        "  JSON over HTTP, one at a time: {:.0} probes/s, latency p50 {:.0} µs, p99 {:.0} µs",
        http_probes.rate,
        http_probes.p50_us,
        http_probes.p99_us
    )?;
    outln!(
        "  JSON moves of {} positions on a cold cache: p50 {:.0} µs, p99 {:.0} µs",
        cold.len(),
        cold_moves.p50_us,
        cold_moves.p99_us
    )?;
    Ok(0)
}

/// The hostile run: the attack against a server of its own, and its
/// report.
fn hostile(args: &BenchQueryArgs) -> Exit {
    let positions = sample(&Tablebase::open(&args.store)?, 200);
    let attack = bench_hostile::Attack {
        slow: args.slow as usize,
        lines: args.lines as usize,
        malformed: args.malformed as usize,
        drops: args.drops as usize,
        seconds: args.seconds.as_secs_f64(),
    };
    let mut server = Server::start(&args.store)?;
    let outcome = bench_hostile::run(
        attack,
        &server.http,
        &server.url,
        server.child.id(),
        &positions,
    );
    server.stop();
    let outcome = outcome?;
    if args.json {
        outln!("{}", bench_hostile::outcome_json(&attack, &outcome))?;
        return Ok(0);
    }
    let ms = |us: f64| us / 1000.0;
    outln!(
        "{}: {:.0} s of {} slow clients, {} line floods, {} malformed, {} dropping",
        args.store.display(),
        attack.seconds,
        attack.slow,
        attack.lines,
        attack.malformed,
        attack.drops
    )?;
    for (name, l) in [("HTTP", &outcome.http), ("gRPC", &outcome.grpc)] {
        outln!(
            "  honest {name} probes on fresh connections: {} asked, {} lost; p50 {:.1} ms, p99 {:.1} ms, max {:.1} ms",
            l.asked,
            l.failed,
            ms(l.p50_us),
            ms(l.p99_us),
            ms(l.max_us)
        )?;
        for why in &l.why {
            outln!("    lost: {why}")?;
        }
    }
    outln!(
        "  server peak RSS: {:.0} MiB",
        outcome.peak_rss as f64 / f64::from(1 << 20)
    )?;
    let a = &outcome.attackers;
    use std::sync::atomic::Ordering::Relaxed;
    outln!(
        "  attackers: {} connections, {} closed by the server; {} lines answered, {} told busy",
        a.connections.load(Relaxed),
        a.closed_by_server.load(Relaxed),
        a.lines_answered.load(Relaxed),
        a.busy.load(Relaxed)
    )?;
    Ok(0)
}

/// Positions whose moves are asked on a cold cache.
const COLD_MOVES: usize = 2000;

/// Positions per batch request.
const BATCH: usize = 1000;

struct Report {
    sequential_rate: f64,
    p50_us: f64,
    p99_us: f64,
    concurrent_rate: f64,
    stream_rate: f64,
    batch_rate: f64,
}

async fn measure(url: &str, positions: &[String], in_flight: usize) -> Result<Report, Failure> {
    let failed = |e: tonic::Status| Failure::failed(format!("probe failed: {}", e.message()));
    let mut client = QueryClient::connect(url.to_string())
        .await
        .map_err(|e| Failure::failed(format!("cannot reach {url}: {e}")))?;
    let request = |p: &String| PositionRequest {
        position: p.clone(),
    };

    // One at a time: the latency of a single probe.
    let mut latencies = Vec::with_capacity(positions.len());
    let started = Instant::now();
    for p in positions {
        let asked = Instant::now();
        client.probe(request(p)).await.map_err(failed)?;
        latencies.push(asked.elapsed());
    }
    let sequential_rate = positions.len() as f64 / started.elapsed().as_secs_f64();
    let (p50_us, p99_us) = (
        bench_http::quantile_us(&mut latencies, 0.5),
        bench_http::quantile_us(&mut latencies, 0.99),
    );

    // Many in flight on the one connection.
    let started = Instant::now();
    let mut tasks = tokio::task::JoinSet::new();
    for lane in 0..in_flight {
        let mut client = client.clone();
        let mine: Vec<PositionRequest> = positions
            .iter()
            .skip(lane)
            .step_by(in_flight)
            .map(request)
            .collect();
        tasks.spawn(async move {
            for r in mine {
                client.probe(r).await?;
            }
            Ok::<(), tonic::Status>(())
        });
    }
    while let Some(done) = tasks.join_next().await {
        done.map_err(|e| Failure::failed(e.to_string()))?
            .map_err(failed)?;
    }
    let concurrent_rate = positions.len() as f64 / started.elapsed().as_secs_f64();

    // One stream of single probes.
    let started = Instant::now();
    let asked: Vec<PositionRequest> = positions.iter().map(request).collect();
    let mut replies = client
        .probe_stream(tokio_stream::iter(asked))
        .await
        .map_err(failed)?
        .into_inner();
    let mut answered = 0;
    while replies.message().await.map_err(failed)?.is_some() {
        answered += 1;
    }
    if answered != positions.len() {
        return Err(Failure::failed(format!(
            "{answered} answers on the stream for {} probes",
            positions.len()
        )));
    }
    let stream_rate = positions.len() as f64 / started.elapsed().as_secs_f64();

    // Batches.
    let started = Instant::now();
    for chunk in positions.chunks(BATCH) {
        client
            .batch_probe(BatchRequest {
                positions: chunk.to_vec(),
            })
            .await
            .map_err(failed)?;
    }
    let batch_rate = positions.len() as f64 / started.elapsed().as_secs_f64();
    Ok(Report {
        sequential_rate,
        p50_us,
        p99_us,
        concurrent_rate,
        stream_rate,
        batch_rate,
    })
}

/// `count` random positions of the store's game, in notation: the same
/// ones every run.
fn sample(tablebase: &Tablebase, count: usize) -> Vec<String> {
    with_game!(tablebase.game(), g => sample_of(g, count))
}

fn sample_of<F: Family>(game: &F, count: usize) -> Vec<String> {
    let mut seeds = XorShift(0x9e37_79b9_7f4a_7c15);
    (0..count)
        .map(|_| game.format_position(&game.random_position(seeds.next())))
        .collect()
}

/// `egdb serve` as a child process.
struct Server {
    child: Child,
    /// The gRPC URL.
    url: String,
    /// The JSON API's address.
    http: String,
}

impl Server {
    fn start(store: &std::path::Path) -> Result<Server, Failure> {
        let exe = std::env::current_exe()
            .map_err(|e| Failure::failed(format!("cannot find egdb itself: {e}")))?;
        let mut child = Command::new(exe)
            .arg("serve")
            .arg("--store")
            .arg(store)
            .args(["--listen", "127.0.0.1:0", "--http", "127.0.0.1:0"])
            .stdout(Stdio::piped())
            .spawn()
            .map_err(|e| Failure::failed(format!("cannot start egdb serve: {e}")))?;
        let (mut grpc, mut http) = (String::new(), String::new());
        if let Some(out) = child.stdout.as_mut() {
            let mut out = BufReader::new(out);
            let _ = out.read_line(&mut grpc);
            let _ = out.read_line(&mut http);
        }
        let (Some(grpc), Some(http)) = (
            grpc.trim().strip_prefix("listening on "),
            http.trim().strip_prefix("http on "),
        ) else {
            let _ = child.kill();
            return Err(Failure::failed("egdb serve did not start"));
        };
        Ok(Server {
            url: format!("http://{grpc}"),
            http: http.to_string(),
            child,
        })
    }

    fn stop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
        std::thread::sleep(Duration::from_millis(10));
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
    }
}
