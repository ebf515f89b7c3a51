//! Running the real `egdb` binary.

#![allow(dead_code)]

pub mod cdp;
pub mod http;

use std::path::Path;
use std::process::{Child, Command, Output};
use std::time::{Duration, Instant};

/// A file of the clone under test, by its path from the root. The root is
/// read when the test runs, not when it compiles (`env!`): a test binary
/// built from another clone that shares the build cache would otherwise
/// look in that clone, which may be gone.
pub fn repo_file(path: &str) -> std::path::PathBuf {
    let root = std::env::var_os("CARGO_MANIFEST_DIR").expect("cargo test sets CARGO_MANIFEST_DIR");
    Path::new(&root).join(path)
}

/// A test that cannot run here for want of `facility` (one of
/// deploy/facilities.sh's): skipped with the reason on standard error,
/// unless `EGDB_REQUIRE` lists the facility (deploy/test.sh sets it to
/// what this machine was found to have), when the test fails instead.
pub fn skip(facility: &str, reason: &str) {
    let required = std::env::var("EGDB_REQUIRE").unwrap_or_default();
    if required.split(',').any(|f| f.trim() == facility) {
        panic!(
            "{reason}: this machine has {facility} (EGDB_REQUIRE={required}), so the test must run"
        );
    }
    eprintln!("SKIPPED (no {facility} here): {reason}");
}

/// A file of `tests/data`.
pub fn test_data(name: &str) -> std::path::PathBuf {
    repo_file("tests/data").join(name)
}

/// The `egdb` binary under test, as a child that is killed when the test
/// thread that starts it ends: a test that fails half-way leaves no
/// coordinator, worker or server running behind it.
pub fn egdb_command() -> Command {
    use std::os::unix::process::CommandExt;
    let mut command = Command::new(env!("CARGO_BIN_EXE_egdb"));
    // SAFETY: prctl is async-signal-safe; the closure allocates nothing.
    unsafe {
        command.pre_exec(
            || match libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL) {
                -1 => Err(std::io::Error::last_os_error()),
                _ => Ok(()),
            },
        )
    };
    command
}

pub fn egdb(args: &[&str]) -> Output {
    egdb_command().args(args).output().expect("egdb runs")
}

pub fn stdout(out: &Output) -> String {
    String::from_utf8_lossy(&out.stdout).into_owned()
}

pub fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// `egdb build GAME --store DIR [extra]`, asserting success.
pub fn build(game: &str, store: &Path, extra: &[&str]) -> Output {
    let mut args = vec!["build", game, "--store", store.to_str().unwrap()];
    args.extend_from_slice(extra);
    let out = egdb(&args);
    assert!(
        out.status.success(),
        "build {game} failed: {}",
        stderr(&out)
    );
    out
}

pub fn stats_json(store: &Path) -> Vec<serde_json::Value> {
    let out = egdb(&["stats", "--store", store.to_str().unwrap(), "--json"]);
    assert!(out.status.success(), "stats failed: {}", stderr(&out));
    serde_json::from_slice::<serde_json::Value>(&out.stdout)
        .unwrap()
        .as_array()
        .unwrap()
        .clone()
}

pub fn query_json(store: &Path, position: &str) -> serde_json::Value {
    let out = egdb(&[
        "query",
        "--store",
        store.to_str().unwrap(),
        position,
        "--json",
    ]);
    assert!(
        out.status.success(),
        "query {position} failed: {}",
        stderr(&out)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

/// Slice id → checksum of its table.
pub fn checksums(store: &Path) -> Vec<(String, u64)> {
    stats_json(store)
        .iter()
        .map(|s| {
            (
                s["slice"].as_str().unwrap().to_string(),
                s["raw_crc32"].as_u64().unwrap(),
            )
        })
        .collect()
}

/// `egdb results --store STORE --crc LIST`, asserting that it succeeds.
pub fn write_crc_list(store: &Path, list: &Path) {
    let out = egdb(&[
        "results",
        "--store",
        store.to_str().unwrap(),
        "--crc",
        list.to_str().unwrap(),
    ]);
    assert!(out.status.success(), "results: {}", stderr(&out));
}

/// `egdb compare --store STORE --crc LIST [--json]`.
pub fn compare(store: &Path, list: &Path, json: bool) -> Output {
    let mut args = vec![
        "compare",
        "--store",
        store.to_str().unwrap(),
        "--crc",
        list.to_str().unwrap(),
    ];
    if json {
        args.push("--json");
    }
    egdb(&args)
}

/// `egdb verify --store DIR`, asserting that every slice passes.
pub fn assert_verified(store: &Path) {
    let out = egdb(&["verify", "--store", store.to_str().unwrap()]);
    assert!(
        out.status.success(),
        "verify {}: {}{}",
        store.display(),
        stdout(&out),
        stderr(&out)
    );
}

/// Starts `egdb ARGS` (a command that prints `listening on ADDRESS` first)
/// and gives the child and its URL.
pub fn spawn_listening(args: &[&str]) -> (std::process::Child, String) {
    use std::io::BufRead;
    let mut child = egdb_command()
        .args(args)
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("egdb starts");
    let mut line = String::new();
    std::io::BufReader::new(child.stdout.as_mut().expect("piped"))
        .read_line(&mut line)
        .expect("egdb says where it listens");
    let address = line
        .trim()
        .strip_prefix("listening on ")
        .unwrap_or_else(|| panic!("egdb said {line:?}"))
        .to_string();
    (child, format!("http://{address}"))
}

/// The ids of the slices a store holds.
pub fn stored_slices(store: &Path) -> Vec<String> {
    let opened = egdb_db_format::Store::open_read_only(store).unwrap();
    opened
        .slices()
        .unwrap()
        .into_iter()
        .map(|r| r.slice)
        .collect()
}

/// Rewrites one slice's bytes through `change`, with fresh checksums, so
/// that only the consistency check can tell.
pub fn rewrite_slice(
    store: &Path,
    slice: &str,
    change: impl FnOnce(&egdb_db_format::SliceRecord, &mut Vec<u8>),
) {
    let opened = egdb_db_format::Store::open(store).unwrap();
    let (record, mut raw) = opened.read_slice(slice).unwrap();
    change(&record, &mut raw);
    let blocks: Vec<Vec<u8>> = raw
        .chunks(record.block_bytes as usize)
        .enumerate()
        .map(|(i, chunk)| {
            egdb_db_format::encode_block(
                i as u32,
                record.encoding,
                chunk,
                egdb_db_format::Packing::Small(1),
            )
            .unwrap()
        })
        .collect();
    let record = egdb_db_format::SliceRecord {
        raw_crc32: crc32fast::hash(&raw),
        blocks: blocks.len() as u32,
        stored_bytes: blocks.iter().map(|b| b.len() as u64).sum(),
        ..record
    };
    opened.put_slice(&record, &blocks).unwrap();
}

/// How a stored slice's blocks are coded: ranked ones, and zstd ones that
/// ranking would not make smaller, as ranking late leaves them; the rest.
pub struct Coded {
    pub ranked_or_kept: u32,
    pub zstd: u32,
}

/// Every block of `record` read and checked: how it is coded, and that the
/// record's stored size is the blocks' own.
pub fn coded(store: &egdb_db_format::Store, record: &egdb_db_format::SliceRecord) -> Coded {
    use egdb_db_format::{block_codec, rank_block, Codec};
    let mut coded = Coded {
        ranked_or_kept: 0,
        zstd: 0,
    };
    let mut stored = 0;
    for index in 0..record.blocks {
        let bytes = store.block_record(&record.slice, index).unwrap();
        let len = record.block_len(index);
        stored += bytes.len() as u64;
        let codec = block_codec(&record.slice, index, len, &bytes).unwrap();
        let rankable = rank_block(&record.slice, index, len, &bytes)
            .unwrap()
            .is_some();
        if codec != Codec::Zstd || !rankable {
            coded.ranked_or_kept += 1;
        } else {
            coded.zstd += 1;
        }
    }
    assert_eq!(
        stored, record.stored_bytes,
        "{}: stored bytes",
        record.slice
    );
    coded
}

/// Every slice of a finished store ranked where that makes it smaller,
/// none left waiting for it.
pub fn assert_ranked(store: &Path) {
    let opened = egdb_db_format::Store::open_read_only(store).unwrap();
    for record in opened.slices().unwrap() {
        assert!(!record.rank_pending, "{} still waits", record.slice);
        let coded = coded(&opened, &record);
        assert_eq!(coded.zstd, 0, "{}: zstd blocks left", record.slice);
    }
}

/// Flips a bit in the middle of every slice's first block record, so that
/// its checksum fails.
pub fn damage_first_blocks(store: &Path) {
    let opened = egdb_db_format::Store::open(store).unwrap();
    for record in opened.slices().unwrap() {
        let mut blocks: Vec<Vec<u8>> = (0..record.blocks)
            .map(|i| opened.block_record(&record.slice, i).unwrap())
            .collect();
        let middle = blocks[0].len() / 2;
        blocks[0][middle] ^= 0x20;
        opened.put_slice(&record, &blocks).unwrap();
    }
}

/// The largest slice of a store.
pub fn largest_slice(store: &Path) -> String {
    stats_json(store)
        .iter()
        .max_by_key(|s| s["positions"].as_u64().unwrap())
        .map(|s| s["slice"].as_str().unwrap().to_string())
        .unwrap()
}

/// Cells of a Morris slice as stored, and writes them back.
pub fn morris_cells(raw: &[u8]) -> Vec<u16> {
    raw.chunks_exact(2)
        .map(|b| u16::from_le_bytes([b[0], b[1]]))
        .collect()
}

pub fn put_cells(raw: &mut [u8], cells: &[u16]) {
    for (bytes, cell) in raw.chunks_exact_mut(2).zip(cells) {
        bytes.copy_from_slice(&cell.to_le_bytes());
    }
}

/// Turns the value of a Morris slice's first cell that holds one (its
/// top bit flipped): a table that lies, for `rewrite_slice` to store
/// behind good checksums.
pub fn turn_a_value(raw: &mut [u8]) {
    let mut cells = morris_cells(raw);
    let at = cells.iter().position(|&c| c != 0).unwrap();
    cells[at] ^= 1 << 15;
    put_cells(raw, &cells);
}

/// `egdb worker` of the coordinator at `url`, one engine thread.
pub fn start_worker(url: &str, name: &str, extra: &[&str]) -> Child {
    egdb_command()
        .args([
            "worker",
            "--coordinator",
            url,
            "--name",
            name,
            "--threads",
            "1",
        ])
        .args(["--memory", "4GiB", "--patience", "20"])
        .args(extra)
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap()
}

/// Waits for a process, killing it after `limit`.
pub fn finish(child: Child, what: &str, limit: Duration) -> std::process::Output {
    let started = Instant::now();
    let id = child.id();
    let ended = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let watched = ended.clone();
    let watchdog = std::thread::spawn(move || {
        while started.elapsed() < limit {
            if watched.load(std::sync::atomic::Ordering::SeqCst) {
                // Reaped: its pid may already be another process's.
                return;
            }
            std::thread::sleep(Duration::from_millis(200));
        }
        // SAFETY: kills our own child, still unreaped after the limit (the
        // wait below has not returned, so the pid is still ours).
        unsafe { libc::kill(id as libc::pid_t, libc::SIGKILL) };
    });
    let out = child.wait_with_output().unwrap();
    ended.store(true, std::sync::atomic::Ordering::SeqCst);
    drop(watchdog);
    assert!(
        started.elapsed() < limit,
        "{what} did not finish in {limit:?}"
    );
    out
}

/// The `--tls-*` arguments of `host` in the directory `dir` of `egdb tls init`.
pub fn tls_args(dir: &Path, host: &str) -> Vec<String> {
    let file = |name: String| dir.join(name).to_str().unwrap().to_string();
    vec![
        "--tls-cert".into(),
        file(format!("{host}.pem")),
        "--tls-key".into(),
        file(format!("{host}.key")),
        "--tls-ca".into(),
        file("ca.pem".into()),
    ]
}

/// `egdb serve` on a loopback port, killed when dropped.
pub struct Server {
    child: Child,
    pub url: String,
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

pub fn serve(store: &Path) -> Server {
    let (mut child, url) = spawn_listening(&[
        "serve",
        "--store",
        store.to_str().unwrap(),
        "--listen",
        "127.0.0.1:0",
    ]);
    // Its log is read and dropped, so that it never blocks on a full pipe
    // (nor dies writing to a closed one).
    if let Some(mut log) = child.stderr.take() {
        std::thread::spawn(move || std::io::copy(&mut log, &mut std::io::sink()));
    }
    Server { child, url }
}
