//! The command line (DESIGN.md, "Command line").

use std::path::PathBuf;
use std::time::Duration;

use clap::{Args, Parser, Subcommand};
use egdb_proto::tls::TlsFiles;

#[derive(Debug, Parser)]
#[command(
    name = "egdb",
    version,
    about = "Build, inspect and query endgame databases"
)]
pub struct Cli {
    /// More log output on standard error (-v: each slice, -vv: debug).
    #[arg(short, long, action = clap::ArgAction::Count, global = true)]
    pub verbose: u8,
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Build a tablebase: an embedded coordinator with local workers.
    Build(BuildArgs),
    /// Per-slice counts of a store.
    Stats(StatsArgs),
    /// The value, depth and moves of a position.
    Query(QueryArgs),
    /// Probes per second and latency of `egdb serve` on a store, from one
    /// client on loopback.
    BenchQuery(BenchQueryArgs),
    /// Bytes per symmetry class a store's blocks would take under other
    /// codecs and zstd levels, measured on its own blocks (writes nothing).
    BenchStore(BenchStoreArgs),
    /// Seconds per GiB and disk bytes per byte of a worker's shard cache,
    /// on shards of noise put and read back as a worker does.
    BenchCache(BenchCacheArgs),
    /// Serve a tablebase over gRPC (egdb.v1.Query, health, reflection).
    Serve(ServeArgs),
    /// Check a finished store: every checksum, then every position's value
    /// and depth against its moves.
    Verify(VerifyArgs),
    /// A finished Morris store's results as Markdown, and its checksum list.
    Results(ResultsArgs),
    /// An opening book: every position within some plies of the start,
    /// each symmetry class once, with its value and every move's (JSON
    /// lines, docs/BOOK.md); or the positions along one line (--along).
    Book(BookArgs),
    /// A store's slices (finished or still building) against a published
    /// checksum list, as `results --crc` writes.
    Compare(CompareArgs),
    /// Measure the engines against the per-position scan (Nim).
    Bench(BenchArgs),
    /// A build's slices with sizes and memory needs, and a projection of
    /// its time from a finished store's rates.
    Plan(PlanArgs),
    /// Serve a build to workers over gRPC.
    Coordinator(CoordinatorArgs),
    /// Solve slices for a coordinator.
    Worker(WorkerArgs),
    /// How far a coordinator's build is: slices, workers, bytes, time left.
    Status(StatusArgs),
    /// Certificates for mutual TLS in a cluster.
    #[command(subcommand)]
    Tls(TlsCommand),
    /// Bring a store back from its backups (`--backup` of build or
    /// coordinator): the newest sound one, into a new directory.
    Restore(RestoreArgs),
}

#[derive(Debug, Args)]
pub struct RestoreArgs {
    /// The directory of backups.
    #[arg(long)]
    pub backup: PathBuf,
    /// The store to make: a new or empty directory.
    #[arg(long, required_unless_present = "list", conflicts_with = "list")]
    pub store: Option<PathBuf>,
    /// List the backups (newest first) with their slices and time instead.
    #[arg(long)]
    pub list: bool,
}

/// Mutual TLS between a coordinator and its workers (`egdb tls init` makes
/// the files). All three or none.
#[derive(Debug, Args, Clone, Default)]
pub struct TlsArgs {
    /// This host's certificate (PEM), e.g. tls/HOST.pem.
    #[arg(long, requires_all = ["tls_key", "tls_ca"])]
    pub tls_cert: Option<PathBuf>,
    /// This host's private key (PEM), e.g. tls/HOST.key.
    #[arg(long, requires_all = ["tls_cert", "tls_ca"])]
    pub tls_key: Option<PathBuf>,
    /// The cluster's CA certificate (PEM), e.g. tls/ca.pem: the peer's
    /// certificate must be signed by it.
    #[arg(long, requires_all = ["tls_cert", "tls_key"])]
    pub tls_ca: Option<PathBuf>,
}

/// Backups of the store while it is built (RocksDB's backup engine:
/// incremental, each complete on its own; `egdb restore` brings one back).
#[derive(Debug, Args, Clone, Default)]
pub struct BackupArgs {
    /// A directory for backups of the store (another disk, a network
    /// mount); a backup that fails is said and never stops the build.
    #[arg(long)]
    pub backup: Option<PathBuf>,
    /// How often a backup is taken, e.g. 600, 90s, 10m, 1h.
    #[arg(long, default_value = "10m", value_parser = parse_interval, requires = "backup")]
    pub backup_every: Duration,
    /// Backups kept: the newest.
    #[arg(long, default_value_t = 2, value_parser = clap::value_parser!(u32).range(1..=1000), requires = "backup")]
    pub backup_keep: u32,
}

impl BackupArgs {
    pub fn plan(&self) -> Option<egdb_coordinator::BackupPlan> {
        self.backup
            .as_ref()
            .map(|dir| egdb_coordinator::BackupPlan {
                dir: dir.clone(),
                every: self.backup_every,
                keep: self.backup_keep as usize,
            })
    }
}

impl TlsArgs {
    /// The files, when TLS was asked for (clap sees that it is all three).
    pub fn files(&self) -> Option<TlsFiles> {
        match (&self.tls_cert, &self.tls_key, &self.tls_ca) {
            (Some(cert), Some(key), Some(ca)) => Some(TlsFiles {
                cert: cert.clone(),
                key: key.clone(),
                ca: ca.clone(),
            }),
            _ => None,
        }
    }
}

#[derive(Debug, Args)]
pub struct TlsInitArgs {
    /// The directory to write ca.pem, ca.key and HOST.pem, HOST.key into;
    /// a CA already there is kept and signs the new hosts.
    pub dir: PathBuf,
    /// The hosts, comma separated, as the URLs name them (DNS names or IP
    /// addresses), e.g. coord,ws1,ws2 or 10.0.0.1,10.0.0.2.
    #[arg(long, value_delimiter = ',', required = true)]
    pub hosts: Vec<String>,
}

#[derive(Debug, Subcommand)]
pub enum TlsCommand {
    /// Make a small lab CA and one certificate per host.
    Init(TlsInitArgs),
}

#[derive(Debug, Args)]
pub struct StatusArgs {
    /// The coordinator's URL, e.g. http://host:7070 (https:// with --tls-*).
    #[arg(long, required_unless_present = "store", conflicts_with = "store")]
    pub coordinator: Option<String>,
    /// Instead: a store, finished or still being built (by any process):
    /// its slices stored and checked against the game's plan.
    #[arg(long)]
    pub store: Option<PathBuf>,
    /// A file holding the cluster token.
    #[arg(long)]
    pub token_file: Option<PathBuf>,
    #[command(flatten)]
    pub tls: TlsArgs,
    /// Seconds to wait for an unreachable coordinator.
    #[arg(long, default_value = "5", value_parser = parse_seconds)]
    pub patience: Duration,
    #[arg(long)]
    pub json: bool,
}

#[derive(Debug, Args)]
pub struct CoordinatorArgs {
    /// A game spec, as for `build`.
    pub game: String,
    #[arg(long)]
    pub store: PathBuf,
    /// Address to listen on, e.g. 0.0.0.0:7070 (port 0: any free port; the
    /// address taken is printed).
    #[arg(long)]
    pub listen: String,
    /// A file holding the cluster token every worker must give.
    #[arg(long)]
    pub token_file: Option<PathBuf>,
    #[command(flatten)]
    pub tls: TlsArgs,
    /// Store depths as well as values (Nim).
    #[arg(long)]
    pub depth: bool,
    /// Seconds a lease lives without a heartbeat.
    #[arg(long, default_value = "30", value_parser = parse_lease)]
    pub lease_seconds: Duration,
    /// Verify the finished store instead of building: workers check every
    /// slice against its moves and report; passes are kept in the store's
    /// verify journal, so a coordinator started again goes on.
    #[arg(long, conflicts_with = "backup")]
    pub verify: bool,
    /// Check every slice against its moves once it is stored; no slice is
    /// solved from one that has not passed, and the build stops at the
    /// first that fails.
    #[arg(long, conflicts_with = "verify")]
    pub verify_as_built: bool,
    /// With `--verify-as-built`: the checksum list (as `egdb results --crc`
    /// writes it) of a store of the same rules that `egdb verify` checked
    /// in full; a movement or hand slice taken with `--reuse` (in this run
    /// or an earlier one) with the positions and CRC it lists counts as
    /// passed, its check done once already on those very bytes.
    #[arg(long, requires = "verify_as_built")]
    pub verified_crc: Option<PathBuf>,
    /// A store of the same movement rules (another number of pieces, other
    /// rules of placing): its movement slices are taken, each checked,
    /// instead of solved.
    #[arg(long, conflicts_with = "verify")]
    pub reuse: Option<PathBuf>,
    #[command(flatten)]
    pub backups: BackupArgs,
}

#[derive(Debug, Args)]
pub struct WorkerArgs {
    /// The coordinator's URL, e.g. http://host:7070 (https:// with --tls-*).
    #[arg(long)]
    pub coordinator: String,
    /// Engine threads (default: every core).
    #[arg(long, value_parser = parse_threads)]
    pub threads: Option<usize>,
    /// Memory for one slice, e.g. 20GiB (default: 80% of available memory).
    #[arg(long, value_parser = parse_memory)]
    pub memory: Option<u64>,
    /// A file holding the cluster token.
    #[arg(long)]
    pub token_file: Option<PathBuf>,
    #[command(flatten)]
    pub tls: TlsArgs,
    /// Name in logs and status (default: host-pid).
    #[arg(long)]
    pub name: Option<String>,
    /// Refuse a coordinator that builds another game.
    #[arg(long)]
    pub game: Option<String>,
    /// Seconds to wait for an unreachable coordinator before giving up.
    #[arg(long, default_value = "120", value_parser = parse_seconds)]
    pub patience: Duration,
    /// zstd level of the blocks handed over (the coordinator ranks Morris
    /// blocks later), -7 (fastest) to 22 (smallest).
    #[arg(long, default_value_t = 1, allow_negative_numbers = true, value_parser = clap::value_parser!(i32).range(-7..=22))]
    pub zstd_level: i32,
    /// A directory where the worker keeps the shards it reads and solves,
    /// so that after a restart it reads them from disk (one per worker);
    /// a worker started again with it takes its name back at once.
    #[arg(long)]
    pub cache: Option<PathBuf>,
    /// The most disk the cache keeps of a build's shards, e.g. 20GiB; past
    /// it the least recently used go (default: no limit).
    #[arg(long, value_parser = parse_bytes)]
    pub cache_limit: Option<u64>,
}

#[derive(Debug, Args)]
pub struct BuildArgs {
    /// nim:triangle:LAYERS:normal|misere, nim:hexagram, nim:file:PATH,
    /// morris:taiwan:PIECES, morris:standard:PIECES,
    /// morris:taiwan-protected:PIECES, morris:morabaraba:PIECES,
    /// morris:lasker:PIECES, morris:FAMILY:K:L (unequal starts) or
    /// morris:file:PATH (a rules file, as in docs/variants/).
    pub game: String,
    /// The store to write (default: ./GAME.egdb with `:` turned into `-`).
    #[arg(long)]
    pub store: Option<PathBuf>,
    /// Local workers.
    #[arg(long, default_value_t = 1, value_parser = parse_workers)]
    pub workers: usize,
    /// Threads for the engines (default: every core).
    #[arg(long, value_parser = parse_threads)]
    pub threads: Option<usize>,
    /// Memory budget per slice, e.g. 12GiB (default: 80% of available memory).
    #[arg(long, value_parser = parse_memory)]
    pub memory: Option<u64>,
    /// Store each position's depth (plies to the end) as well as its value
    /// (Morris stores always do).
    #[arg(long)]
    pub depth: bool,
    /// Stop after solving this many slices; a re-run goes on from there.
    #[arg(long, value_parser = clap::value_parser!(u64).range(1..))]
    pub max_slices: Option<u64>,
    /// Check every slice against its moves once it is stored; no slice is
    /// solved from one that has not passed, and the build stops at the
    /// first that fails.
    #[arg(long)]
    pub verify_as_built: bool,
    /// With `--verify-as-built`: the checksum list (as `egdb results --crc`
    /// writes it) of a store of the same rules that `egdb verify` checked
    /// in full; a movement or hand slice taken with `--reuse` (in this run
    /// or an earlier one) with the positions and CRC it lists counts as
    /// passed, its check done once already on those very bytes.
    #[arg(long, requires = "verify_as_built")]
    pub verified_crc: Option<PathBuf>,
    /// zstd level of the blocks written (Morris blocks are ranked once no
    /// unfinished slice reads them), -7 (fastest) to 22 (smallest).
    #[arg(long, default_value_t = 1, allow_negative_numbers = true, value_parser = clap::value_parser!(i32).range(-7..=22))]
    pub zstd_level: i32,
    /// A store of the same movement rules (another number of pieces, other
    /// rules of placing): its movement slices are taken, each checked,
    /// instead of solved.
    #[arg(long)]
    pub reuse: Option<PathBuf>,
    #[command(flatten)]
    pub backups: BackupArgs,
}

#[derive(Debug, Args)]
pub struct BenchStoreArgs {
    #[arg(long)]
    pub store: PathBuf,
    /// zstd levels to measure, e.g. 1,3,9,19.
    #[arg(long, value_delimiter = ',', default_value = "1,3,9", allow_negative_numbers = true, value_parser = clap::value_parser!(i32).range(-7..=22))]
    pub levels: Vec<i32>,
    /// Measure every Nth block only (the high levels take minutes per GB).
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u64).range(1..))]
    pub every: u64,
}

#[derive(Debug, Args)]
pub struct BenchCacheArgs {
    /// Where the cache is made (a directory of this run's own, removed
    /// after): on the disk a worker's --cache would use.
    #[arg(long)]
    pub dir: PathBuf,
    /// Raw bytes of each shard, e.g. 256MiB.
    #[arg(long, default_value = "256MiB", value_parser = parse_memory)]
    pub shard_bytes: u64,
    /// Shards put, one after another.
    #[arg(long, default_value_t = 24, value_parser = clap::value_parser!(u32).range(1..=100_000))]
    pub shards: u32,
    /// The cache's limit (--cache-limit of a worker).
    #[arg(long, default_value = "1GiB", value_parser = parse_bytes)]
    pub limit: u64,
    /// Shards put last read back before each put (a task reading its
    /// dependencies before it keeps its own).
    #[arg(long, default_value_t = 2, value_parser = clap::value_parser!(u32).range(0..=1000))]
    pub reads: u32,
}

#[derive(Debug, Args)]
pub struct StatsArgs {
    #[arg(long)]
    pub store: PathBuf,
    /// One JSON object per slice, in an array.
    #[arg(long)]
    pub json: bool,
}

#[derive(Debug, Args)]
#[command(group = clap::ArgGroup::new("source").required(true).args(["store", "server"]))]
pub struct QueryArgs {
    /// A store on this machine.
    #[arg(long)]
    pub store: Option<PathBuf>,
    /// An `egdb serve` to ask instead, e.g. http://host:7071 (https://
    /// with --tls-ca).
    #[arg(long)]
    pub server: Option<String>,
    /// The CA that signed the TLS server's certificate (PEM).
    #[arg(long, requires = "server")]
    pub tls_ca: Option<PathBuf>,
    /// A position in the game's notation, or `start`.
    pub position: String,
    #[arg(long)]
    pub json: bool,
    /// No picture of the position (drawn above the answer on a terminal).
    #[arg(long)]
    pub plain: bool,
}

#[derive(Debug, Args)]
pub struct BenchQueryArgs {
    #[arg(long)]
    pub store: PathBuf,
    /// Random positions to probe (each way of asking probes them all).
    #[arg(long, default_value_t = 20_000, value_parser = clap::builder::RangedU64ValueParser::<usize>::new().range(1..=100_000_000))]
    pub probes: usize,
    /// Requests in flight at once in the concurrent run.
    #[arg(long, default_value_t = 16)]
    pub concurrency: usize,
    /// Instead: a mixed hostile load against the server (slow clients,
    /// floods of long lines, malformed requests, dropped connections)
    /// while honest clients probe it; their latency and the server's peak
    /// memory are reported.
    #[arg(long)]
    pub hostile: bool,
    /// Seconds of hostile load.
    #[arg(long, default_value = "60", value_parser = parse_timeout, requires = "hostile")]
    pub seconds: Duration,
    /// Slow clients: each sends a header line every 3 s, never the end.
    #[arg(long, default_value_t = 19_000, requires = "hostile", value_parser = clap::value_parser!(u32).range(0..=1_000_000))]
    pub slow: u32,
    /// Clients asking the longest line again and again.
    #[arg(long, default_value_t = 1000, requires = "hostile", value_parser = clap::value_parser!(u32).range(0..=1_000_000))]
    pub lines: u32,
    /// Clients sending malformed requests.
    #[arg(long, default_value_t = 50, requires = "hostile", value_parser = clap::value_parser!(u32).range(0..=1_000_000))]
    pub malformed: u32,
    /// Clients that connect and leave, some half-way through a request.
    #[arg(long, default_value_t = 50, requires = "hostile", value_parser = clap::value_parser!(u32).range(0..=1_000_000))]
    pub drops: u32,
    /// The hostile run's outcome as one JSON object.
    #[arg(long, requires = "hostile")]
    pub json: bool,
}

#[derive(Debug, Args)]
pub struct ServeArgs {
    #[arg(long)]
    pub store: PathBuf,
    /// Address to listen on, e.g. 0.0.0.0:7071 (port 0: any free port; the
    /// address taken is printed).
    #[arg(long)]
    pub listen: String,
    /// Memory for decompressed blocks, e.g. 8GiB; repeated probes of a
    /// cached block decompress nothing.
    #[arg(long, value_parser = parse_bytes, default_value = "4GiB")]
    pub cache: u64,
    /// Serve TLS with this certificate (PEM); queries stay open to every
    /// client, TLS only keeps them private and the server authentic.
    #[arg(long, requires = "tls_key")]
    pub tls_cert: Option<PathBuf>,
    /// The key of --tls-cert (PEM).
    #[arg(long, requires = "tls_cert")]
    pub tls_key: Option<PathBuf>,
    /// Also answer JSON over plain HTTP on this address (/api/v1/info,
    /// probe, moves, line), e.g. 127.0.0.1:8080; the address taken is
    /// printed. Put a TLS proxy in front of it beyond this machine.
    #[arg(long)]
    pub http: Option<String>,
    /// Seconds an HTTP client has to send a request's header; also how
    /// long a kept-alive connection may wait for its next request.
    #[arg(long, default_value = "10", value_parser = parse_timeout)]
    pub header_timeout: Duration,
    /// Seconds a gRPC connection may send nothing before it is closed.
    #[arg(long, default_value = "120", value_parser = parse_timeout)]
    pub idle_timeout: Duration,
    /// Open HTTP connections (default: 16384, or what the open-file limit
    /// leaves). At the limit a new one closes the oldest connection still
    /// waiting for its request.
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..=1_000_000))]
    pub max_connections: Option<u32>,
    /// Open gRPC connections; at the limit, accepting waits for one to
    /// close.
    #[arg(long, default_value_t = 1024, value_parser = clap::value_parser!(u32).range(1..=1_000_000))]
    pub max_grpc_connections: u32,
    /// Lines and batches computed at once (default: half the cores).
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..=4096))]
    pub max_expensive: Option<u32>,
    /// Lines and batches that may wait their turn; more are told to come
    /// back (HTTP 503 with Retry-After, gRPC RESOURCE_EXHAUSTED).
    #[arg(long, default_value_t = 32, value_parser = clap::value_parser!(u32).range(0..=1_000_000))]
    pub max_waiting: u32,
}

impl ServeArgs {
    /// The limits these arguments give a public server that may hold
    /// `open_files` descriptors.
    ///
    /// # Errors
    /// Connections asked for that the open-file limit cannot hold.
    pub fn limits(&self, open_files: u64) -> Result<egdb_serve::Limits, String> {
        let defaults = egdb_serve::Limits::default();
        let grpc = self.max_grpc_connections as usize;
        // The store's files, the listeners and a margin.
        let room = usize::try_from(open_files.saturating_sub(OTHER_FILES)).unwrap_or(usize::MAX);
        let http = match self.max_connections {
            Some(n) if n as usize + grpc > room => {
                return Err(format!(
                    "--max-connections {n} and --max-grpc-connections {grpc} need more open files than the {open_files} this process may have (ulimit -n)"
                ))
            }
            Some(n) => n as usize,
            None => defaults.max_connections.min(room.saturating_sub(grpc)).max(1),
        };
        if grpc > room {
            return Err(format!(
                "--max-grpc-connections {grpc} needs more open files than the {open_files} this process may have (ulimit -n)"
            ));
        }
        Ok(egdb_serve::Limits {
            header_timeout: self.header_timeout,
            idle_timeout: self.idle_timeout,
            max_connections: http,
            max_grpc_connections: grpc,
            max_expensive: self
                .max_expensive
                .map_or(defaults.max_expensive, |n| n as usize),
            max_waiting: self.max_waiting as usize,
        })
    }
}

/// Descriptors `egdb serve` keeps for other things than connections: the
/// store's files, the listeners, a margin.
const OTHER_FILES: u64 = 512;

#[derive(Debug, Args)]
pub struct VerifyArgs {
    #[arg(long)]
    pub store: PathBuf,
    /// One JSON object per slice, in an array.
    #[arg(long)]
    pub json: bool,
    /// Memory for decoded slices kept between checks, e.g. 12GiB (default:
    /// 80% of available memory).
    #[arg(long, value_parser = parse_bytes)]
    pub memory: Option<u64>,
    /// Check every slice again, forgetting the passes an earlier,
    /// interrupted verify recorded.
    #[arg(long)]
    pub fresh: bool,
    /// On a store still being built, check the slices it has so far; their
    /// passes are kept, so the verify after the build checks only the rest.
    #[arg(long)]
    pub built: bool,
    /// Check the slices of a running build as it finishes them, until the
    /// store is complete and every slice is checked (or one fails).
    #[arg(long)]
    pub follow: bool,
    /// How often `--follow` looks for newly finished slices.
    #[arg(long, default_value_t = 30, value_parser = clap::value_parser!(u64).range(1..=3600), requires = "follow")]
    pub poll_seconds: u64,
}

#[derive(Debug, Args)]
pub struct ResultsArgs {
    #[arg(long)]
    pub store: PathBuf,
    /// Also write the per-slice checksum list here (`slice positions
    /// raw_crc32`, one line per slice, plan order).
    #[arg(long)]
    pub crc: Option<PathBuf>,
}

#[derive(Debug, Args)]
pub struct BookArgs {
    #[arg(long)]
    pub store: PathBuf,
    /// The book's root: a position in the game's notation, or `start`.
    #[arg(long, default_value = "start")]
    pub from: String,
    /// Positions up to this many plies from the root.
    #[arg(long, default_value_t = 4, value_parser = clap::value_parser!(u32).range(0..=64))]
    pub plies: u32,
    /// Instead of a book: the root and each position after these moves
    /// (space separated, as the JSON's `line`), each with all its moves.
    #[arg(long, conflicts_with = "plies")]
    pub along: Option<String>,
    /// Stop with an error rather than hold more positions than this.
    #[arg(long, default_value_t = 5_000_000, value_parser = clap::value_parser!(u64).range(1..=1_000_000_000))]
    pub max_positions: u64,
    /// Write the JSON lines here instead of standard output.
    #[arg(long)]
    pub out: Option<PathBuf>,
    /// Also write a Markdown summary here: per ply the positions and their
    /// values, and every position of the first plies with its moves.
    #[arg(long)]
    pub summary: Option<PathBuf>,
    /// Plies whose positions the summary lists one by one.
    #[arg(long, default_value_t = 2, value_parser = clap::value_parser!(u32).range(0..=8))]
    pub summary_plies: u32,
}

#[derive(Debug, Args)]
pub struct CompareArgs {
    #[arg(long)]
    pub store: PathBuf,
    /// The checksum list: `slice positions raw_crc32` per line.
    #[arg(long)]
    pub crc: PathBuf,
    /// The comparison as one JSON object.
    #[arg(long)]
    pub json: bool,
    /// Compare the checksums the store's records hold without reading its
    /// blocks (fast, and said so: damage to the blocks goes unseen).
    #[arg(long)]
    pub recorded: bool,
    /// Compare only the slices the list names (e.g. the movement slices
    /// another game's list shares with this one): the game's other slices
    /// are not read and do not count against the list.
    #[arg(long)]
    pub listed_only: bool,
}

#[derive(Debug, Args)]
pub struct PlanArgs {
    /// A game spec, as for `build`.
    pub game: String,
    /// Plan a build with depths (Nim; Morris always has them).
    #[arg(long)]
    pub depth: bool,
    /// Say whether every slice fits this memory budget, e.g. 20GiB.
    #[arg(long, value_parser = parse_memory)]
    pub memory: Option<u64>,
    /// Project the build's time from the seconds per entry of each phase
    /// in this finished store (of the same game family).
    #[arg(long)]
    pub rates_from: Option<PathBuf>,
    #[arg(long)]
    pub json: bool,
}

#[derive(Debug, Args)]
pub struct BenchArgs {
    /// A Nim game spec, e.g. nim:triangle:7:normal.
    #[arg(default_value = "nim:triangle:7:normal")]
    pub game: String,
    /// Threads for the parallel run (default: every core).
    #[arg(long, value_parser = parse_threads)]
    pub threads: Option<usize>,
    /// Timed runs of each method; the median is reported.
    #[arg(long, default_value_t = 3)]
    pub runs: usize,
    /// Skip the per-position scan (it takes minutes past 7 layers).
    #[arg(long)]
    pub no_scan: bool,
    /// Time the depth engine too, and check its values against the word
    /// engine's.
    #[arg(long)]
    pub depth: bool,
}

/// The longest duration an argument may give: a year.
const MAX_SECONDS: f64 = 365.0 * 24.0 * 3600.0;

/// Parses a number of seconds: finite, not negative, at most a year
/// (`inf` or `nan` make no duration).
pub fn parse_seconds(text: &str) -> Result<Duration, String> {
    let seconds: f64 = text
        .trim()
        .parse()
        .map_err(|_| format!("`{text}` is not a number of seconds"))?;
    if !(0.0..=MAX_SECONDS).contains(&seconds) {
        return Err(format!(
            "`{text}` is not between 0 and {MAX_SECONDS} seconds"
        ));
    }
    Ok(Duration::from_secs_f64(seconds))
}

/// Parses a server's timeout: seconds as [`parse_seconds`], at least a
/// tenth of a second (none would close every connection at once).
pub fn parse_timeout(text: &str) -> Result<Duration, String> {
    let timeout = parse_seconds(text)?;
    if timeout < Duration::from_millis(100) {
        return Err(format!("`{text}`: a timeout is at least 0.1 seconds"));
    }
    Ok(timeout)
}

/// Parses an interval: seconds (`600`, `90s`), minutes (`10m`) or hours
/// (`1h`), at least a second.
pub fn parse_interval(text: &str) -> Result<Duration, String> {
    let trimmed = text.trim();
    let (number, scale) = match trimmed.char_indices().next_back() {
        Some((at, 's')) => (&trimmed[..at], 1.0),
        Some((at, 'm')) => (&trimmed[..at], 60.0),
        Some((at, 'h')) => (&trimmed[..at], 3600.0),
        _ => (trimmed, 1.0),
    };
    let seconds = number
        .parse::<f64>()
        .ok()
        .map(|n| n * scale)
        .filter(|s| (1.0..=MAX_SECONDS).contains(s))
        .ok_or_else(|| {
            format!("`{text}` is not an interval from 1 s to {MAX_SECONDS} s, like 10m")
        })?;
    Ok(Duration::from_secs_f64(seconds))
}

/// Parses a lease length: seconds as [`parse_seconds`], and more than none
/// (a lease that ends as it begins would be leased again at once).
pub fn parse_lease(text: &str) -> Result<Duration, String> {
    let lease = parse_seconds(text)?;
    if lease.is_zero() {
        return Err("a lease must last longer than 0 seconds".to_string());
    }
    Ok(lease)
}

/// Parses a memory budget for one slice: a size as [`parse_bytes`], and
/// not 0 (no slice fits in nothing).
pub fn parse_memory(text: &str) -> Result<u64, String> {
    match parse_bytes(text)? {
        0 => Err("a memory budget of 0 bytes holds no slice".to_string()),
        bytes => Ok(bytes),
    }
}

/// Parses a number of threads: 1 to 4096.
pub fn parse_threads(text: &str) -> Result<usize, String> {
    parse_count(text, "threads", 4096)
}

/// Parses a number of local workers: 1 to 256.
pub fn parse_workers(text: &str) -> Result<usize, String> {
    parse_count(text, "workers", 256)
}

fn parse_count(text: &str, what: &str, most: usize) -> Result<usize, String> {
    match text.trim().parse::<usize>() {
        Ok(n) if (1..=most).contains(&n) => Ok(n),
        _ => Err(format!(
            "`{text}` is not a number of {what} from 1 to {most}"
        )),
    }
}

/// Parses `123`, `64MiB`, `12G`, `1.5GiB` (binary units either way).
pub fn parse_bytes(text: &str) -> Result<u64, String> {
    let text = text.trim();
    let split = text
        .find(|c: char| c.is_ascii_alphabetic())
        .unwrap_or(text.len());
    let (number, unit) = text.split_at(split);
    let number: f64 = number
        .trim()
        .parse()
        .map_err(|_| format!("`{text}` is not a size like 12GiB"))?;
    let scale: u64 = match unit.trim().to_ascii_lowercase().as_str() {
        "" | "b" => 1,
        "k" | "kb" | "kib" => 1 << 10,
        "m" | "mb" | "mib" => 1 << 20,
        "g" | "gb" | "gib" => 1 << 30,
        "t" | "tb" | "tib" => 1 << 40,
        other => return Err(format!("unknown size unit `{other}`")),
    };
    if number.is_nan() || number < 0.0 {
        return Err(format!("`{text}` is not a size"));
    }
    let bytes = number * scale as f64;
    // 2^64 itself would saturate: only sizes below it are exact.
    if bytes >= u64::MAX as f64 {
        return Err(format!("`{text}` is more bytes than a size can be"));
    }
    Ok(bytes as u64)
}
