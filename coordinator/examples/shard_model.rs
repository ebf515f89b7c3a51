//! The bytes of shards a cluster build would send, replayed: a game's plan
//! (`egdb plan GAME --json`) and a finished build's records (`egdb stats
//! --json`: each slice's solve seconds and stored bytes) run through this
//! crate's own [`Scheduler`] with two workers that solve and check (a
//! build with `--verify-as-built`), each with its memory, its kept tables
//! and its shard cache modelled, under the leasing of before locality
//! (plan order; a task keeps only what the next one reads; caches drop the
//! least recently used) or of now (workers say what they hold, keep what
//! later tasks read within their memory, caches drop what no job reads
//! there first; solves and checks weighed alike, `Scheduler::mix_kinds`),
//! with shards crossing zstd only (as before) or at their stored size (as
//! a network build's workers now send them, ranked). Prints the bytes each
//! sends, against the store's:
//!
//! ```sh
//! egdb plan morris:taiwan:12 --json >plan.json
//! cargo run --release -p egdb-coordinator --example shard_model -- \
//!     plan.json docs/results/taiwan-12.stats.json
//! ```
//!
//! Options (after the files): `--cache BYTES` per worker (default 3 GiB),
//! `--memory BYTES,BYTES` (default 8.5 and 9.75 GiB, as
//! `deploy/long-build.sh`), `--wire-ratio R` (bytes sent per stored byte
//! where blocks cross zstd-only, default 1.58 as measured on taiwan:6),
//! `--check-ratio R` (check seconds per solve second, default 1.11 as
//! Taiwan P = 12's), `--stored-scale S` (the records' stored bytes times
//! S: 1.11 gives a format-4 store's from a format-3 one's, tabled blocks
//! being 10-11 % larger than ranked; the zstd bytes stay as they were).

use std::collections::{HashMap, HashSet, VecDeque};
use std::process::ExitCode;
use std::time::{Duration, Instant};

use egdb_coordinator::schedule::{Job, JobKind, Offer, Scheduler};

const GIB: f64 = (1u64 << 30) as f64;
/// A worker between tasks asks again this soon (its poll).
const POLL: f64 = 0.02;

#[derive(Clone)]
struct Slice {
    reads: Vec<usize>,
    /// Decoded bytes in memory.
    table: u64,
    need: u64,
    seconds: f64,
    /// Stored bytes, and bytes sent.
    stored: u64,
    wire: u64,
}

#[derive(Clone, Copy, PartialEq)]
enum Policy {
    Before,
    Now,
}

/// A worker's shard cache: slice → (last use, bytes); with the
/// coordinator's word of when each is read next (`Now`).
struct Cache {
    limit: u64,
    used: HashMap<usize, (u64, u64)>,
    tick: u64,
    next_use: HashMap<usize, Option<usize>>,
}

impl Cache {
    fn touch(&mut self, slice: usize, bytes: u64) {
        self.tick += 1;
        self.used.insert(slice, (self.tick, bytes));
    }

    fn put(&mut self, slice: usize, bytes: u64) {
        self.touch(slice, bytes);
        while self.used.values().map(|&(_, b)| b).sum::<u64>() > self.limit {
            let gone = self
                .used
                .iter()
                .filter(|(&s, _)| s != slice)
                .max_by_key(|(s, &(tick, _))| {
                    let age = u64::MAX - tick;
                    match self.next_use.get(s) {
                        Some(None) => (2, age),
                        Some(Some(before)) => (1, *before as u64),
                        None => (0, age),
                    }
                })
                .map(|(&s, _)| s);
            match gone {
                Some(s) => {
                    self.used.remove(&s);
                    self.next_use.remove(&s);
                }
                None => break,
            }
        }
    }
}

struct Worker {
    name: String,
    memory: u64,
    /// The solver's kept tables (slice → bytes).
    solver: HashMap<usize, u64>,
    /// The checker's decoded slices, oldest first.
    checker: VecDeque<(usize, u64)>,
    cache: Cache,
    /// The job it works on and when it ends.
    busy: Option<(usize, f64)>,
    sent: u64,
    /// Bytes sent of slices it had had before (fetched or solved).
    again: u64,
    seen: HashSet<usize>,
}

fn main() -> ExitCode {
    match run() {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("shard_model: {e}");
            ExitCode::from(2)
        }
    }
}

fn run() -> Result<(), String> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [plan, stats, options @ ..] = args.as_slice() else {
        return Err("usage: shard_model PLAN.json STATS.json [--cache BYTES] [--memory A,B] [--wire-ratio R] [--check-ratio R]".into());
    };
    let option = |name: &str| {
        options
            .iter()
            .position(|o| o == name)
            .and_then(|i| options.get(i + 1))
    };
    let number = |name: &str, default: f64| -> Result<f64, String> {
        option(name).map_or(Ok(default), |v| {
            v.parse().map_err(|_| format!("{name} {v}: not a number"))
        })
    };
    let cache = number("--cache", 3.0 * GIB)? as u64;
    let wire_ratio = number("--wire-ratio", 1.58)?;
    let check_ratio = number("--check-ratio", 1.11)?;
    let stored_scale = number("--stored-scale", 1.0)?;
    let memory: Vec<u64> = match option("--memory") {
        Some(list) => list
            .split(',')
            .map(|m| m.parse().map_err(|_| format!("--memory {list}")))
            .collect::<Result<_, _>>()?,
        None => vec![(8.5 * GIB) as u64, (9.75 * GIB) as u64],
    };
    let slices = read_slices(plan, stats, wire_ratio, stored_scale)?;
    let store: u64 = slices.iter().map(|s| s.stored).sum();
    println!(
        "{} slices, {:.2} GiB stored; {} workers of {:?} GiB, caches of {:.2} GiB, zstd blocks {:.2} x the stored bytes, checks {check_ratio} x the solve",
        slices.len(),
        store as f64 / GIB,
        memory.len(),
        memory.iter().map(|&m| m as f64 / GIB).collect::<Vec<_>>(),
        cache as f64 / GIB,
        wire_ratio / stored_scale
    );
    let at_stored: Vec<Slice> = slices
        .iter()
        .map(|s| Slice {
            wire: s.stored,
            ..s.clone()
        })
        .collect();
    for (policy, slices, name) in [
        (Policy::Before, &slices, "plan order, shards zstd only"),
        (Policy::Now, &slices, "locality, shards zstd only"),
        (
            Policy::Now,
            &at_stored,
            "locality, shards at their stored size",
        ),
    ] {
        let sent = replay(slices, &memory, cache, check_ratio, policy);
        println!(
            "{name}: {:.1} GiB sent, {:.2} x the store ({:.1} GiB of it to workers that had had them before); {:.1} h",
            sent.total as f64 / GIB,
            sent.total as f64 / store as f64,
            sent.again as f64 / GIB,
            sent.hours
        );
    }
    Ok(())
}

/// The plan's slices with their records' seconds and bytes.
fn read_slices(
    plan: &str,
    stats: &str,
    wire_ratio: f64,
    stored_scale: f64,
) -> Result<Vec<Slice>, String> {
    let json = |path: &str| -> Result<serde_json::Value, String> {
        let text = std::fs::read_to_string(path).map_err(|e| format!("{path}: {e}"))?;
        serde_json::from_str(&text).map_err(|e| format!("{path}: {e}"))
    };
    let (plan, stats) = (json(plan)?, json(stats)?);
    let records: HashMap<&str, &serde_json::Value> = stats
        .as_array()
        .ok_or("the stats are not a list")?
        .iter()
        .filter_map(|r| Some((r["slice"].as_str()?, r)))
        .collect();
    let listed = plan["slices"]
        .as_array()
        .ok_or("the plan lists no slices")?;
    let at: HashMap<&str, usize> = listed
        .iter()
        .enumerate()
        .filter_map(|(i, s)| Some((s["slice"].as_str()?, i)))
        .collect();
    listed
        .iter()
        .map(|s| {
            let id = s["slice"].as_str().ok_or("a slice without an id")?;
            let record = records
                .get(id)
                .ok_or_else(|| format!("{id}: not in the stats"))?;
            let recorded = record["stored_bytes"].as_u64().unwrap_or(0);
            let stored = (recorded as f64 * stored_scale) as u64;
            Ok(Slice {
                reads: s["reads"]
                    .as_array()
                    .into_iter()
                    .flatten()
                    .filter_map(|r| at.get(r.as_str()?).copied())
                    .collect(),
                table: 2 * s["entries"].as_u64().unwrap_or(0),
                need: s["memory_need"].as_u64().unwrap_or(0),
                seconds: record["seconds"].as_f64().unwrap_or(0.0),
                stored,
                wire: (recorded as f64 * wire_ratio) as u64,
            })
        })
        .collect()
}

/// What a replay sent, and how long it took.
struct Sent {
    total: u64,
    /// Sent to a worker that had had them before (fetched or solved).
    again: u64,
    /// To the last job's end, both workers busy as the records say.
    hours: f64,
}

fn replay(slices: &[Slice], memory: &[u64], cache: u64, check_ratio: f64, policy: Policy) -> Sent {
    let n = slices.len();
    // Jobs 0..n solve slice i, n..2n check it.
    let mut jobs = Vec::with_capacity(2 * n);
    for (i, s) in slices.iter().enumerate() {
        jobs.push(Job {
            id: i,
            dependencies: s.reads.iter().flat_map(|&r| [r, n + r]).collect(),
            memory: s.need,
            kind: JobKind::Solve,
            reads: s.reads.clone(),
        });
    }
    for (i, s) in slices.iter().enumerate() {
        jobs.push(Job {
            id: n + i,
            dependencies: vec![i],
            memory: s.table + s.reads.iter().map(|&r| slices[r].table).sum::<u64>(),
            kind: JobKind::Check,
            reads: std::iter::once(i).chain(s.reads.iter().copied()).collect(),
        });
    }
    let start = Instant::now();
    let at = |t: f64| start + Duration::from_secs_f64(t);
    let mut schedule = Scheduler::new(jobs, None::<&usize>, Duration::from_secs(120), false);
    schedule.mix_kinds(policy == Policy::Now);
    let mut workers: Vec<Worker> = memory
        .iter()
        .enumerate()
        .map(|(w, &memory)| Worker {
            name: format!("ws{}", w + 1),
            memory,
            solver: HashMap::new(),
            checker: VecDeque::new(),
            cache: Cache {
                limit: cache,
                used: HashMap::new(),
                tick: 0,
                next_use: HashMap::new(),
            },
            busy: None,
            sent: 0,
            again: 0,
            seen: HashSet::new(),
        })
        .collect();
    for (w, worker) in workers.iter().enumerate() {
        schedule
            .register(&worker.name, w as u64 + 1, 1, worker.memory, at(0.0))
            .expect("new names");
    }
    let mut now = 0.0;
    let mut finished: Vec<usize> = Vec::new();
    let mut polls = 0u32;
    // Whoever is free asks, those that just finished first; otherwise the
    // clock moves to the next end, or past a job waiting for its holder.
    loop {
        let mut asked = false;
        let order: Vec<usize> = finished.drain(..).chain(0..workers.len()).collect();
        for w in order {
            for other in &workers {
                if let Some((job, _)) = other.busy {
                    schedule.heartbeat(&other.name, &job, at(now));
                }
            }
            if workers[w].busy.is_some() {
                continue;
            }
            if let Some(job) = lease(&mut schedule, &mut workers[w], slices, policy, at(now)) {
                let s = &slices[job % n];
                let seconds = if job < n {
                    s.seconds
                } else {
                    s.seconds * check_ratio
                };
                workers[w].busy = Some((job, now + seconds));
                asked = true;
            }
        }
        if schedule.is_complete() {
            break;
        }
        let next_end = workers
            .iter()
            .filter_map(|w| w.busy.map(|(_, end)| end))
            .fold(f64::INFINITY, f64::min);
        if next_end.is_infinite() {
            if !asked {
                // Only jobs waiting for a holder: a poll later.
                now += POLL;
                polls += 1;
                assert!(polls < 1_000_000, "no worker takes what is ready");
            }
            continue;
        }
        now = next_end;
        for (w, worker) in workers.iter_mut().enumerate() {
            if let Some((job, end)) = worker.busy {
                if end <= now {
                    finish(&mut schedule, worker, job, slices, policy);
                    worker.busy = None;
                    finished.push(w);
                }
            }
        }
    }
    let sent = Sent {
        total: workers.iter().map(|w| w.sent).sum(),
        again: workers.iter().map(|w| w.again).sum(),
        hours: now / 3600.0,
    };
    sent
}

/// The worker asks; a job it is given is fetched into its memory.
fn lease(
    schedule: &mut Scheduler<usize>,
    worker: &mut Worker,
    slices: &[Slice],
    policy: Policy,
    now: Instant,
) -> Option<usize> {
    let n = slices.len();
    if policy == Policy::Now {
        let held: HashSet<usize> = worker
            .solver
            .keys()
            .chain(worker.checker.iter().map(|(s, _)| s))
            .chain(worker.cache.used.keys())
            .copied()
            .collect();
        schedule.hold(&worker.name, &held.into_iter().collect::<Vec<_>>());
    }
    let Ok((Offer::Slice(job), _)) = schedule.lease(&worker.name, now) else {
        return None;
    };
    let still_read: Vec<usize> = match policy {
        Policy::Now => schedule.still_read(&worker.name),
        Policy::Before => Vec::new(),
    };
    if policy == Policy::Now {
        let rank: HashMap<usize, usize> = still_read
            .iter()
            .enumerate()
            .map(|(i, &s)| (s, i))
            .collect();
        worker.cache.next_use = worker
            .cache
            .used
            .keys()
            .map(|s| (*s, rank.get(s).copied()))
            .collect();
    }
    let need = schedule.jobs()[job].memory;
    let reads: Vec<usize> = schedule.jobs()[job].reads.clone();
    let fetch = |worker: &mut Worker, r: usize| {
        if worker.cache.used.contains_key(&r) {
            worker.cache.touch(r, slices[r].wire);
        } else {
            worker.sent += slices[r].wire;
            if !worker.seen.insert(r) {
                worker.again += slices[r].wire;
            }
            worker.cache.put(r, slices[r].wire);
        }
    };
    if job < n {
        worker.checker.clear();
        // Kept beyond the task's reads: (before) none; (now) those read
        // soonest while they fit in the memory it has beyond its need.
        let mut room = match policy {
            Policy::Now => worker.memory.saturating_sub(need),
            Policy::Before => 0,
        };
        let mut extras: Vec<(usize, usize, u64)> = worker
            .solver
            .iter()
            .filter(|(s, _)| !reads.contains(s))
            .filter_map(|(&s, &b)| Some((still_read.iter().position(|&r| r == s)?, s, b)))
            .collect();
        extras.sort_unstable();
        let kept: HashSet<usize> = extras
            .into_iter()
            .filter(|&(_, _, b)| {
                let fits = b <= room;
                room -= if fits { b } else { 0 };
                fits
            })
            .map(|(_, s, _)| s)
            .collect();
        worker
            .solver
            .retain(|s, _| reads.contains(s) || kept.contains(s));
        for &r in &reads {
            if !worker.solver.contains_key(&r) {
                fetch(worker, r);
                worker.solver.insert(r, slices[r].table);
            }
        }
    } else {
        // The checker: room for what it lacks, the oldest others out.
        worker.solver.clear();
        let lacking: Vec<usize> = reads
            .iter()
            .copied()
            .filter(|r| !worker.checker.iter().any(|(s, _)| s == r))
            .collect();
        let fetched: u64 = lacking.iter().map(|&r| slices[r].table).sum();
        let largest = lacking.iter().map(|&r| slices[r].table).max().unwrap_or(0);
        let held = |c: &VecDeque<(usize, u64)>| c.iter().map(|&(_, b)| b).sum::<u64>();
        while held(&worker.checker) + fetched + largest > worker.memory {
            let Some(at) = worker.checker.iter().position(|(s, _)| !reads.contains(s)) else {
                break;
            };
            worker.checker.remove(at);
        }
        for r in lacking {
            fetch(worker, r);
            worker.checker.push_back((r, slices[r].table));
            while held(&worker.checker) > worker.memory && worker.checker.len() > 1 {
                worker.checker.pop_front();
            }
        }
    }
    Some(job)
}

/// A job ends: a solve's table is kept and cached, and its check is left
/// to another worker (checks of network results are).
fn finish(
    schedule: &mut Scheduler<usize>,
    worker: &mut Worker,
    job: usize,
    slices: &[Slice],
    policy: Policy,
) {
    let n = slices.len();
    schedule.finish(&job);
    if job < n {
        schedule.set_shard_bytes(&job, slices[job].wire);
        schedule.avoid(&(n + job), &worker.name);
        worker.solver.insert(job, slices[job].table);
        worker.seen.insert(job);
        worker.cache.put(job, slices[job].wire);
        if policy == Policy::Now {
            // Put since the coordinator's word.
            worker.cache.next_use.remove(&job);
        }
    }
}
