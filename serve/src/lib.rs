//! A tablebase as the `egdb.v1.Query` gRPC service (`egdb serve`): a
//! finished one, or one a build is still writing (slices not there yet are
//! UNAVAILABLE, and the store is opened again to catch up).
//!
//! Probes may read RocksDB and decompress a block, so each request runs
//! in `block_in_place`; the block cache is shared by all of them.
//! [`listen`] puts the service on the network.

mod board;
pub mod http;
mod http1;
mod limits;
mod listen;
pub mod wire;

pub use limits::Limits;
pub use listen::serve;
use wire::{moves_reply, probe_reply};

use std::path::{Path, PathBuf};
use std::pin::Pin;
use std::sync::{Arc, Mutex, RwLock, TryLockError};
use std::time::{Duration, Instant};

use egdb_db_format::FormatError;
use egdb_proto::v1::query_server::Query;
use egdb_proto::v1::{
    BatchReply, BatchRequest, InfoReply, InfoRequest, LineReply, LineRequest, LineStep, MovesReply,
    PositionRequest, ProbeReply,
};
use tokio_stream::{Stream, StreamExt};
use tonic::{Request, Response, Status, Streaming};

use egdb_tablebase::reader::LineStep as Step;
use egdb_tablebase::{Answer, Probe, Tablebase, TablebaseError};

/// Plies of a line when the request gives no bound.
const DEFAULT_LINE_PLIES: u32 = 1000;
/// Plies in one line at most: the longest forced lines are a few hundred
/// plies, and a drawn line would otherwise run on for billions.
pub const MAX_LINE_PLIES: u32 = 10_000;
/// Positions in one batch at most.
pub const MAX_BATCH: usize = 100_000;
/// Longest position text taken: the longest notation (a custom game's list
/// of 64 cells) is a few hundred bytes.
pub const MAX_POSITION: usize = 4096;

/// Refuses a position text over [`MAX_POSITION`] before it is parsed.
fn bounded(text: &str) -> Result<(), Status> {
    if text.len() > MAX_POSITION {
        return Err(Status::invalid_argument(format!(
            "a position of {} bytes; at most {MAX_POSITION}",
            text.len()
        )));
    }
    Ok(())
}

pub struct QueryService {
    opened: Arc<Opened>,
    /// Lines and batches: a few at once.
    expensive: limits::Gate,
}

/// The store as last opened, reopened to catch up with a build that is
/// still writing it; shared with the probe streams, which read whatever
/// is current at each message (a stream that kept the instance it began
/// with would keep its block cache alive too, one more per reopen).
struct Opened {
    current: RwLock<Arc<Tablebase>>,
    path: PathBuf,
    cache_bytes: u64,
    last_opened: Mutex<Instant>,
}

/// A store still being built is opened again at most this often.
const CATCH_UP_EVERY: Duration = Duration::from_secs(1);

impl QueryService {
    /// Serves the store at `path`, keeping up to `cache_bytes` of blocks,
    /// with the expensive requests `limits` allows.
    ///
    /// # Errors
    /// As [`Tablebase::open`].
    pub fn open(
        path: &Path,
        cache_bytes: u64,
        limits: &Limits,
    ) -> Result<QueryService, TablebaseError> {
        let tablebase = Tablebase::open(path)?.with_cache_bytes(cache_bytes);
        Ok(QueryService {
            opened: Arc::new(Opened {
                current: RwLock::new(Arc::new(tablebase)),
                path: path.to_path_buf(),
                cache_bytes,
                last_opened: Mutex::new(Instant::now()),
            }),
            expensive: limits::Gate::new(limits),
        })
    }

    /// The store as last opened.
    pub fn tablebase(&self) -> Arc<Tablebase> {
        self.opened.tablebase()
    }

    async fn run<T, F>(&self, f: F) -> Result<T, Status>
    where
        F: Fn(&Tablebase) -> Result<T, TablebaseError>,
    {
        // Most probes hit cached blocks and take microseconds: run in place
        // (the runtime moves its other tasks away meanwhile) rather than pay
        // a hand-over to the blocking pool on every request.
        tokio::task::block_in_place(|| self.opened.answer(f))
    }

    // What both protocols answer, as the reader's own types: each protocol
    // converts them once, gRPC to messages and HTTP to JSON.

    /// A position (bounded) as the game prints it, and its probe.
    async fn probe_text(&self, text: String) -> Result<(String, Probe), Status> {
        bounded(&text)?;
        self.run(move |t| t.probe_named(&text)).await
    }

    /// A position's probe and every legal move's.
    async fn answer_text(&self, text: String) -> Result<Answer, Status> {
        bounded(&text)?;
        self.run(move |t| t.answer(&text)).await
    }

    /// Perfect play from a position for up to `max_plies` (0: the
    /// default), through the gate of expensive requests.
    async fn line_text(
        &self,
        text: String,
        max_plies: u32,
    ) -> Result<((String, Probe), Vec<Step>), Status> {
        bounded(&text)?;
        let plies = match max_plies {
            0 => DEFAULT_LINE_PLIES,
            plies if plies > MAX_LINE_PLIES => {
                return Err(Status::invalid_argument(format!(
                    "max_plies is at most {MAX_LINE_PLIES}, not {plies}"
                )))
            }
            plies => plies,
        };
        let line = self.run(move |t| Ok((t.probe_named(&text)?, t.line(&text, plies)?)));
        self.expensive.pass(line).await
    }
}

impl Opened {
    fn tablebase(&self) -> Arc<Tablebase> {
        self.current
            .read()
            .unwrap_or_else(|p| p.into_inner())
            .clone()
    }

    /// `f` on the store; asked again once the store has been opened anew
    /// when it names a slice not built yet.
    fn answer<T>(&self, f: impl Fn(&Tablebase) -> Result<T, TablebaseError>) -> Result<T, Status> {
        let mut tablebase = self.tablebase();
        let mut outcome = f(&tablebase);
        if matches!(outcome, Err(TablebaseError::SliceNotFound { .. })) && self.catch_up(&tablebase)
        {
            tablebase = self.tablebase();
            outcome = f(&tablebase);
        }
        outcome.map_err(|e| match e {
            // The build has not got there yet: worth asking again later.
            TablebaseError::SliceNotFound { slice } if !tablebase.is_complete() => {
                Status::unavailable(format!(
                    "slice {slice} is not built yet; the store's build is still running"
                ))
            }
            e => status_of(e),
        })
    }

    /// Opens the store again if `seen` is not complete and was opened long
    /// enough ago: slices finished since become visible. Whether it did.
    /// One request opens it while the others go on with what they have
    /// (they do not queue behind the lock), and the next opening waits a
    /// full period from the end of this one: on a store so large that
    /// opening it takes longer than the period, openings are not back to
    /// back.
    fn catch_up(&self, seen: &Tablebase) -> bool {
        if seen.is_complete() {
            return false;
        }
        let mut last = match self.last_opened.try_lock() {
            Ok(last) => last,
            Err(TryLockError::WouldBlock) => return false,
            Err(TryLockError::Poisoned(p)) => p.into_inner(),
        };
        if last.elapsed() < CATCH_UP_EVERY {
            return false;
        }
        let opened = Tablebase::open(&self.path);
        *last = Instant::now();
        match opened {
            Ok(fresh) => {
                let fresh = Arc::new(fresh.with_cache_bytes(self.cache_bytes));
                *self.current.write().unwrap_or_else(|p| p.into_inner()) = fresh;
                true
            }
            Err(e) => {
                tracing::warn!(error = %e, "cannot open the store again");
                false
            }
        }
    }
}

/// The gRPC status of a failed query.
pub fn status_of(e: TablebaseError) -> Status {
    match e {
        TablebaseError::Game(_)
        | TablebaseError::BookTooLarge { .. }
        | TablebaseError::NotAMove { .. } => Status::invalid_argument(e.to_string()),
        TablebaseError::SliceNotFound { .. } => Status::not_found(e.to_string()),
        TablebaseError::Format(FormatError::Corrupt { .. }) => Status::data_loss(e.to_string()),
        TablebaseError::Format(FormatError::Damaged(detail)) => {
            // The detail names the store's files: for the log, not clients.
            tracing::error!(%detail, "the store is damaged");
            Status::data_loss("the store is damaged (RocksDB found corrupt data); run egdb verify")
        }
        other => Status::internal(other.to_string()),
    }
}

#[tonic::async_trait]
impl Query for QueryService {
    async fn info(&self, _: Request<InfoRequest>) -> Result<Response<InfoReply>, Status> {
        self.run(|t| {
            let records = t.records();
            let built: Vec<String> = records.iter().map(|r| r.slice.clone()).collect();
            let in_store: std::collections::HashSet<&str> =
                built.iter().map(String::as_str).collect();
            let missing = t
                .plan()
                .iter()
                .map(ToString::to_string)
                .filter(|id| !in_store.contains(id.as_str()))
                .collect();
            Ok(InfoReply {
                game: t.game().spec().to_string(),
                complete: t.is_complete(),
                slices: records.len() as u32,
                // Counts read from the store: summed without overflow.
                positions: records
                    .iter()
                    .fold(0, |n, r| n.saturating_add(r.counts.positions)),
                depth: t.store().identity().depth,
                built,
                missing,
            })
        })
        .await
        .map(Response::new)
    }

    async fn probe(
        &self,
        request: Request<PositionRequest>,
    ) -> Result<Response<ProbeReply>, Status> {
        let (position, probe) = self.probe_text(request.into_inner().position).await?;
        Ok(Response::new(probe_reply(position, probe)))
    }

    async fn moves(
        &self,
        request: Request<PositionRequest>,
    ) -> Result<Response<MovesReply>, Status> {
        let answer = self.answer_text(request.into_inner().position).await?;
        Ok(Response::new(moves_reply(answer)))
    }

    async fn line(&self, request: Request<LineRequest>) -> Result<Response<LineReply>, Status> {
        let r = request.into_inner();
        let ((position, probe), steps) = self.line_text(r.position, r.max_plies).await?;
        Ok(Response::new(LineReply {
            start: Some(probe_reply(position, probe)),
            steps: steps
                .into_iter()
                .map(|s| LineStep {
                    r#move: s.mv,
                    after: Some(probe_reply(s.position, s.probe)),
                })
                .collect(),
        }))
    }

    type ProbeStreamStream = Pin<Box<dyn Stream<Item = Result<ProbeReply, Status>> + Send>>;

    async fn probe_stream(
        &self,
        request: Request<Streaming<PositionRequest>>,
    ) -> Result<Response<Self::ProbeStreamStream>, Status> {
        let opened = Arc::clone(&self.opened);
        let replies = request.into_inner().map(move |asked| {
            let text = asked?.position;
            bounded(&text)?;
            tokio::task::block_in_place(|| opened.answer(|t| t.probe_named(&text)))
                .map(|(position, probe)| probe_reply(position, probe))
        });
        Ok(Response::new(Box::pin(replies)))
    }

    async fn batch_probe(
        &self,
        request: Request<BatchRequest>,
    ) -> Result<Response<BatchReply>, Status> {
        let positions = request.into_inner().positions;
        if positions.len() > MAX_BATCH {
            return Err(Status::invalid_argument(format!(
                "{} positions in one batch; at most {MAX_BATCH}",
                positions.len()
            )));
        }
        positions.iter().try_for_each(|text| bounded(text))?;
        let batch = self.run(move |t| {
            let probes = positions
                .iter()
                .map(|text| t.probe_named(text).map(|(p, probe)| probe_reply(p, probe)))
                .collect::<Result<Vec<_>, _>>()?;
            Ok(BatchReply { probes })
        });
        self.expensive.pass(batch).await.map(Response::new)
    }
}
