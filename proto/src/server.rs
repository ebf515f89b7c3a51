//! Any [`Coordinator`] as the `egdb.v1.Coordination` gRPC service.
//!
//! Every request is checked first: its protocol version, then the cluster
//! token. The coordinator's own calls block (they write the store), so they
//! run on tokio's blocking threads.

use std::net::SocketAddr;
use std::pin::Pin;
use std::sync::Arc;
use std::time::Duration;

use egdb_games::SliceId;
use tokio::sync::Semaphore;
use tokio_stream::wrappers::ReceiverStream;
use tokio_stream::{Stream, StreamExt};
use tonic::{Request, Response, Status, Streaming};

use crate::client_io::limited;
use crate::lease::slice_ids;
use crate::shard::{header_fault, unexpected_block};
use crate::tls::ServerTls;
use crate::v1::coordination_server::{Coordination, CoordinationServer};
use crate::v1::{
    self, result_part, shard_part, Caller, CheckReport, Empty, FailRequest, FetchRequest,
    HeartbeatReply, HeartbeatRequest, LeaseReply, LeaseRequest, RegisterReply, RegisterRequest,
    ResultPart, ShardPart, StatusReply, StatusRequest,
};
use crate::wire_limits::DEADLINE;
pub use crate::wire_limits::MAX_MESSAGE_BYTES;
use crate::{
    Coordinator, LinkError, LinkKind, Shard, ShardPiece, SliceResult, WireError, WorkerInfo,
    PROTOCOL_VERSION,
};

/// Shard parts read ahead of the network, per fetch.
const FETCH_QUEUE: usize = 32;

/// Shards read for workers at once; more wait for their turn. Each holds
/// a thread of the blocking pool, which every other call runs on too:
/// fetches nobody reads (each lets go after [`DEADLINE`]) must not take
/// them all and leave leases unrenewed.
const MAX_FETCHES: usize = 64;

/// Open connections a coordinator keeps (a worker holds one); at the
/// limit, accepting waits until one closes, so that a flood of idle ones
/// cannot take every file descriptor the store needs too.
const MAX_CONNECTIONS: usize = 1024;

/// A connection that sends nothing for this long is closed. A worker sends
/// a heartbeat at least every 10 minutes (more often with shorter leases).
const IDLE_TIMEOUT: Duration = Duration::from_secs(15 * 60);

/// Calls in flight on one connection (a worker makes one at a time, and a
/// fetch beside it).
const MAX_STREAMS: u32 = 64;

/// The service around a coordinator.
pub struct Service {
    coordinator: Arc<dyn Coordinator>,
    /// The cluster token; `None`: any caller is let in.
    token: Option<String>,
    fetches: Arc<Semaphore>,
}

impl Service {
    pub fn new(coordinator: Arc<dyn Coordinator>, token: Option<String>) -> Service {
        Service {
            coordinator,
            token,
            fetches: Arc::new(Semaphore::new(MAX_FETCHES)),
        }
    }

    /// Refuses callers of another protocol version or without the token,
    /// saying so in the coordinator's log too.
    fn admit(&self, caller: Option<&Caller>) -> Result<String, Status> {
        self.check(caller).inspect_err(|status| {
            tracing::warn!(reason = %status.message(), "request refused");
        })
    }

    fn check(&self, caller: Option<&Caller>) -> Result<String, Status> {
        let caller = caller.ok_or_else(|| Status::invalid_argument("request without a caller"))?;
        // Checked first: every other answer and log line names the worker.
        if let Some(fault) = crate::worker_name_fault(&caller.worker) {
            return Err(Status::invalid_argument(fault));
        }
        if caller.protocol_version != PROTOCOL_VERSION {
            return Err(Status::failed_precondition(format!(
                "worker {} speaks egdb protocol v{}; this coordinator speaks v{PROTOCOL_VERSION}",
                caller.worker, caller.protocol_version
            )));
        }
        if let Some(token) = &self.token {
            if !same_token(token, caller.token.as_deref().unwrap_or_default()) {
                return Err(Status::unauthenticated(format!(
                    "worker {} did not give this cluster's token (check --token-file)",
                    caller.worker
                )));
            }
        }
        Ok(caller.worker.clone())
    }

    /// Runs a blocking coordinator call off the async threads.
    async fn call<T, F>(&self, f: F) -> Result<T, Status>
    where
        T: Send + 'static,
        F: FnOnce(&dyn Coordinator) -> Result<T, LinkError> + Send + 'static,
    {
        let coordinator = self.coordinator.clone();
        tokio::task::spawn_blocking(move || f(coordinator.as_ref()))
            .await
            .map_err(|e| Status::internal(format!("coordinator task failed: {e}")))?
            .map_err(status_of)
    }
}

/// The longest failure reason kept from a worker.
const MAX_REASON: usize = 4096;

/// Refuses slice ids that are not short and plain before they are echoed
/// into answers and logs.
fn plain_slice_id(id: &str) -> Result<SliceId, LinkError> {
    SliceId::parse(id).map_err(|e| LinkError::refused(e.to_string()))
}

/// A worker's failure reason, cut to [`MAX_REASON`] bytes (at a character
/// boundary) before it is logged.
/// A message that does not convert, as the peer is told.
fn invalid(e: WireError) -> Status {
    Status::invalid_argument(e.to_string())
}

fn bounded(reason: &str) -> &str {
    let mut end = reason.len().min(MAX_REASON);
    while !reason.is_char_boundary(end) {
        end -= 1;
    }
    &reason[..end]
}

/// Compares tokens in time independent of where they differ.
fn same_token(expected: &str, given: &str) -> bool {
    let (a, b) = (expected.as_bytes(), given.as_bytes());
    a.len() == b.len() && a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

/// The gRPC status of a coordinator's error.
pub fn status_of(e: LinkError) -> Status {
    match e.kind {
        LinkKind::Refused => Status::invalid_argument(e.message),
        LinkKind::NotFound => Status::not_found(e.message),
        LinkKind::Mismatch => Status::failed_precondition(e.message),
        LinkKind::Unauthenticated => Status::unauthenticated(e.message),
        LinkKind::Unavailable => Status::unavailable(e.message),
        LinkKind::Internal => Status::internal(e.message),
        LinkKind::DataLoss => Status::data_loss(e.message),
        LinkKind::Duplicate => Status::already_exists(e.message),
    }
}

type PartStream = Pin<Box<dyn Stream<Item = Result<ShardPart, Status>> + Send>>;

#[tonic::async_trait]
impl Coordination for Service {
    async fn register(
        &self,
        request: Request<RegisterRequest>,
    ) -> Result<Response<RegisterReply>, Status> {
        let r = request.into_inner();
        let name = self.admit(r.caller.as_ref())?;
        // Same protocol, another release: worth a line in the log (the
        // version is the peer's text: shown only if it looks like one).
        let ours = env!("CARGO_PKG_VERSION");
        if r.version != ours {
            let plain = r.version.len() <= 32
                && r.version
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || ".-+".contains(c));
            let theirs = if plain {
                r.version.as_str()
            } else {
                "(unreadable)"
            };
            tracing::warn!(worker = %name, version = theirs, ours, "worker runs another egdb release");
        }
        let info = WorkerInfo {
            name,
            threads: r.threads,
            memory: r.memory,
            game: r.game,
            instance: r.instance,
            replaces: r.replaces,
        };
        let registration = self.call(move |c| c.register(&info)).await?;
        Ok(Response::new(RegisterReply {
            game: registration.game,
            lease_seconds: registration.lease_seconds,
        }))
    }

    async fn lease(&self, request: Request<LeaseRequest>) -> Result<Response<LeaseReply>, Status> {
        let r = request.into_inner();
        let worker = self.admit(r.caller.as_ref())?;
        let held = slice_ids(&r.held).map_err(invalid)?;
        let leased = self.call(move |c| c.lease_holding(&worker, &held)).await?;
        Ok(Response::new(leased.into()))
    }

    async fn heartbeat(
        &self,
        request: Request<HeartbeatRequest>,
    ) -> Result<Response<HeartbeatReply>, Status> {
        let r = request.into_inner();
        let worker = self.admit(r.caller.as_ref())?;
        let keep = self
            .call(move |c| c.heartbeat(&worker, &plain_slice_id(&r.slice_id)?))
            .await?;
        Ok(Response::new(HeartbeatReply { keep }))
    }

    type FetchShardStream = PartStream;

    async fn fetch_shard(
        &self,
        request: Request<FetchRequest>,
    ) -> Result<Response<PartStream>, Status> {
        let r = request.into_inner();
        let worker = self.admit(r.caller.as_ref())?;
        let slice_id = plain_slice_id(&r.slice_id).map_err(status_of)?;
        // Pieces go out as they are read: a shard of many blocks is not
        // held whole here, and the worker hears from us while it is read.
        let (sender, receiver) = tokio::sync::mpsc::channel(FETCH_QUEUE);
        let coordinator = self.coordinator.clone();
        let runtime = tokio::runtime::Handle::current();
        let turn = Arc::clone(&self.fetches)
            .acquire_owned()
            .await
            .map_err(|_| Status::unavailable("the coordinator is stopping"))?;
        tokio::task::spawn_blocking(move || {
            let _turn = turn;
            // A reader that takes nothing for as long as a worker waits for
            // a message has gone: its thread is not held any longer.
            let send = |part| {
                let sent = tokio::time::timeout(DEADLINE, sender.send(part));
                matches!(runtime.block_on(sent), Ok(Ok(())))
            };
            let mut index = 0u32;
            let read = coordinator.fetch_shard_pieces(&worker, &slice_id, &mut |piece| {
                let part = match piece {
                    ShardPiece::Header(header) => shard_part::Part::Header(header.into()),
                    ShardPiece::Block(record) => {
                        let block = v1::ShardBlock { index, record };
                        index += 1;
                        shard_part::Part::Block(block)
                    }
                };
                send(Ok(ShardPart { part: Some(part) }))
            });
            if let Err(e) = read {
                send(Err(status_of(e)));
            }
        });
        // A slice that is not there, or not readable at all, is the call's
        // answer, as when the shard was read whole first.
        let mut parts = ReceiverStream::new(receiver);
        match parts.next().await {
            Some(Ok(first)) => Ok(Response::new(Box::pin(
                tokio_stream::once(Ok(first)).chain(parts),
            ))),
            Some(Err(status)) => Err(status),
            None => Err(Status::internal("coordinator task ended without an answer")),
        }
    }

    async fn complete(
        &self,
        request: Request<Streaming<ResultPart>>,
    ) -> Result<Response<Empty>, Status> {
        let mut parts = request.into_inner();
        let first = parts
            .next()
            .await
            .ok_or_else(|| Status::invalid_argument("empty result stream"))??;
        let Some(result_part::Part::Header(header)) = first.part else {
            return Err(Status::invalid_argument(
                "a result stream starts with its header",
            ));
        };
        let worker = self.admit(header.caller.as_ref())?;
        let mut result = header
            .result
            .ok_or_else(|| Status::invalid_argument("result header without a result"))?;
        let shard: &mut v1::Shard = result
            .shard
            .as_mut()
            .ok_or_else(|| Status::invalid_argument("result without a shard"))?;
        if !shard.blocks.is_empty() {
            return Err(Status::invalid_argument(
                "a result header carries no blocks; they follow it",
            ));
        }
        if let Some(fault) = header_fault(shard) {
            return Err(Status::invalid_argument(fault));
        }
        let header = Shard::try_from(shard.clone()).map_err(invalid)?;
        let slice = header.slice_id.clone();
        let admitted = worker.clone();
        // The header's slice id was checked as it converted.
        self.call(move |c| c.admit_result(&admitted, &header))
            .await?;
        // Admitted: the header's length is the slice's, and each block is
        // held only if the layout has room for it and its size fits.
        while let Some(part) = parts.next().await {
            match part?.part {
                Some(result_part::Part::Block(block)) => {
                    if let Some(fault) = unexpected_block(shard, &block) {
                        return Err(Status::invalid_argument(format!(
                            "slice {}: {fault}",
                            shard.slice_id
                        )));
                    }
                    shard.blocks.push(block)
                }
                _ => {
                    return Err(Status::invalid_argument(
                        "a second header in a result stream",
                    ))
                }
            }
        }
        let result = match SliceResult::try_from(result) {
            Ok(result) => result,
            Err(reason) => {
                // Damaged on the way, say: the slice is leased again.
                let reason = reason.to_string();
                let given_back = reason.clone();
                self.call(move |c| c.fail(&worker, &slice, &given_back))
                    .await?;
                return Err(Status::invalid_argument(reason));
            }
        };
        self.call(move |c| c.complete(&worker, result)).await?;
        Ok(Response::new(Empty {}))
    }

    async fn fail(&self, request: Request<FailRequest>) -> Result<Response<Empty>, Status> {
        let r = request.into_inner();
        let worker = self.admit(r.caller.as_ref())?;
        self.call(move |c| c.fail(&worker, &plain_slice_id(&r.slice_id)?, bounded(&r.reason)))
            .await?;
        Ok(Response::new(Empty {}))
    }

    async fn status(
        &self,
        request: Request<StatusRequest>,
    ) -> Result<Response<StatusReply>, Status> {
        self.admit(request.get_ref().caller.as_ref())?;
        let status = self.call(|c| c.status()).await?;
        Ok(Response::new(status.into()))
    }

    async fn checked(&self, request: Request<CheckReport>) -> Result<Response<Empty>, Status> {
        let report = request.into_inner();
        let worker = self.admit(report.caller.as_ref())?;
        let report = crate::CheckReport::try_from(report).map_err(invalid)?;
        self.call(move |c| c.checked(&worker, report)).await?;
        Ok(Response::new(Empty {}))
    }
}

/// Serves `service` on `listener` until `shutdown` resolves.
///
/// # Errors
/// Transport errors.
pub async fn serve(
    service: Service,
    listener: tokio::net::TcpListener,
    tls: Option<ServerTls>,
    shutdown: impl std::future::Future<Output = ()> + Send,
) -> Result<(), tonic::transport::Error> {
    // One service, so no router: tonic's router (and axum with it) stays
    // out of the build's crates.
    let service = CoordinationServer::new(service)
        .max_decoding_message_size(MAX_MESSAGE_BYTES)
        .max_encoding_message_size(MAX_MESSAGE_BYTES);
    let server = tonic::transport::Server::builder().max_concurrent_streams(MAX_STREAMS);
    match tls {
        Some(tls) => {
            let connections = limited(tls.incoming(listener), MAX_CONNECTIONS, IDLE_TIMEOUT);
            server
                .serve_with_incoming_shutdown(service, connections, shutdown)
                .await
        }
        None => {
            let connections = limited(incoming(listener), MAX_CONNECTIONS, IDLE_TIMEOUT);
            server
                .serve_with_incoming_shutdown(service, connections, shutdown)
                .await
        }
    }
}

/// The connections `listener` accepts, with Nagle's algorithm off: a small
/// reply must not wait for the peer's delayed acknowledgement (tens of
/// milliseconds per request otherwise).
pub fn incoming(
    listener: tokio::net::TcpListener,
) -> impl Stream<Item = std::io::Result<tokio::net::TcpStream>> {
    tokio_stream::wrappers::TcpListenerStream::new(listener).map(|accepted| {
        let stream = accepted?;
        stream.set_nodelay(true)?;
        Ok(stream)
    })
}

/// Connections the kernel holds for a listener before it takes them
/// (tokio's default is 1024): under a flood of connections a full queue
/// drops an honest client's handshake, which then waits a second or more
/// to try again. The kernel caps it at `net.core.somaxconn`.
const LISTEN_BACKLOG: u32 = 8192;

/// Binds `address` (port 0: any free port) and says where it listens.
///
/// # Errors
/// When the address cannot be resolved or bound.
pub async fn bind(address: &str) -> std::io::Result<(tokio::net::TcpListener, SocketAddr)> {
    let mut failed = None;
    for candidate in tokio::net::lookup_host(address).await? {
        match listen_on(candidate) {
            Ok(listener) => {
                let local = listener.local_addr()?;
                return Ok((listener, local));
            }
            Err(e) => failed = Some(e),
        }
    }
    Err(failed.unwrap_or_else(|| {
        std::io::Error::new(
            std::io::ErrorKind::InvalidInput,
            format!("{address} names no address"),
        )
    }))
}

fn listen_on(address: SocketAddr) -> std::io::Result<tokio::net::TcpListener> {
    let socket = if address.is_ipv4() {
        tokio::net::TcpSocket::new_v4()?
    } else {
        tokio::net::TcpSocket::new_v6()?
    };
    // As std's and tokio's own bind: a restarted server takes its port back
    // while old connections linger in TIME_WAIT.
    socket.set_reuseaddr(true)?;
    socket.bind(address)?;
    socket.listen(LISTEN_BACKLOG)
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use egdb_db_format::CellEncoding;

    use super::*;
    use crate::client::RemoteCoordinator;
    use crate::shard::MIN_WIRE_BLOCK_BYTES;
    use crate::{BuildStatus, CheckReport, Lease, Registration};

    /// Block records a [`Slow`] coordinator gives, and the time it takes
    /// to read each.
    const BLOCKS: usize = 16;
    const READ: Duration = Duration::from_millis(100);

    /// A coordinator whose one shard takes `BLOCKS * READ` to read, as a
    /// large shard on a busy disk does.
    struct Slow;

    impl Slow {
        fn header() -> Shard {
            Shard {
                slice_id: SliceId::new("outer-03"),
                encoding: CellEncoding::ValueDepth16,
                raw_len: BLOCKS as u64 * MIN_WIRE_BLOCK_BYTES,
                raw_crc32: 0,
                block_bytes: MIN_WIRE_BLOCK_BYTES,
                blocks: Vec::new(),
            }
        }
    }

    impl Coordinator for Slow {
        fn register(&self, _: &WorkerInfo) -> Result<Registration, LinkError> {
            Err(LinkError::internal("not here"))
        }
        fn lease(&self, _: &str) -> Result<Lease, LinkError> {
            Err(LinkError::internal("not here"))
        }
        fn heartbeat(&self, _: &str, _: &SliceId) -> Result<bool, LinkError> {
            Ok(false)
        }
        // The server asks for pieces only.
        fn fetch_shard(&self, _: &str, _: &SliceId) -> Result<Shard, LinkError> {
            Err(LinkError::internal("not here"))
        }
        fn fetch_shard_pieces(
            &self,
            _: &str,
            _: &SliceId,
            piece: &mut dyn FnMut(ShardPiece) -> bool,
        ) -> Result<(), LinkError> {
            if piece(ShardPiece::Header(Slow::header())) {
                for i in 0..BLOCKS {
                    std::thread::sleep(READ);
                    if !piece(ShardPiece::Block(vec![i as u8])) {
                        break;
                    }
                }
            }
            Ok(())
        }
        fn complete(&self, _: &str, _: SliceResult) -> Result<(), LinkError> {
            Ok(())
        }
        fn fail(&self, _: &str, _: &SliceId, _: &str) -> Result<(), LinkError> {
            Ok(())
        }
        fn status(&self) -> Result<BuildStatus, LinkError> {
            Err(LinkError::internal("not here"))
        }
        fn checked(&self, _: &str, _: CheckReport) -> Result<(), LinkError> {
            Ok(())
        }
    }

    #[test]
    fn a_shard_slower_to_read_than_the_deadline_arrives_piece_by_piece() {
        let runtime = tokio::runtime::Runtime::new().unwrap();
        let (listener, address) = runtime.block_on(bind("127.0.0.1:0")).unwrap();
        let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
        let service = Service::new(Arc::new(Slow), None);
        runtime.spawn(serve(service, listener, None, async {
            let _ = stopped.await;
        }));
        // Each piece comes well within the deadline, the whole shard not:
        // read whole before its first message, it never arrived.
        let deadline = READ * 5;
        assert!(READ * BLOCKS as u32 > deadline * 3);
        let url = format!("http://{address}");
        let client = RemoteCoordinator::new(&url, None, Duration::from_secs(10), None)
            .unwrap()
            .with_deadline(deadline);
        let shard = client
            .fetch_shard("ws1", &SliceId::new("outer-03"))
            .unwrap();
        let records: Vec<Vec<u8>> = (0..BLOCKS as u8).map(|i| vec![i]).collect();
        assert_eq!(shard.blocks, records);
        assert_eq!(
            Shard {
                blocks: Vec::new(),
                ..shard
            },
            Slow::header()
        );
        let _ = stop.send(());
    }

    #[test]
    fn fetches_past_the_limit_wait_for_their_turn() {
        let runtime = tokio::runtime::Runtime::new().unwrap();
        let (listener, address) = runtime.block_on(bind("127.0.0.1:0")).unwrap();
        let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
        let mut service = Service::new(Arc::new(Slow), None);
        service.fetches = Arc::new(Semaphore::new(1));
        runtime.spawn(serve(service, listener, None, async {
            let _ = stopped.await;
        }));
        let url = format!("http://{address}");
        let started = std::time::Instant::now();
        let fetchers: Vec<_> = ["ws1", "ws2"]
            .into_iter()
            .map(|name| {
                let url = url.clone();
                std::thread::spawn(move || {
                    RemoteCoordinator::new(&url, None, Duration::from_secs(10), None)
                        .unwrap()
                        .fetch_shard(name, &SliceId::new("outer-03"))
                        .unwrap()
                })
            })
            .collect();
        for fetcher in fetchers {
            assert_eq!(fetcher.join().unwrap().blocks.len(), BLOCKS);
        }
        // One shard read at a time: the second began when the first ended.
        let one = READ * BLOCKS as u32;
        assert!(started.elapsed() >= one * 2, "{:?}", started.elapsed());
        let _ = stop.send(());
    }

    #[tokio::test]
    async fn bind_takes_a_name_or_an_address_and_refuses_a_port_in_use() {
        let (listener, local) = bind("localhost:0").await.unwrap();
        assert!(local.ip().is_loopback() && local.port() != 0);
        let client = tokio::net::TcpStream::connect(local);
        let (accepted, _) = tokio::join!(listener.accept(), client);
        assert!(accepted.is_ok());

        let in_use = bind(&local.to_string()).await.unwrap_err();
        assert_eq!(in_use.kind(), std::io::ErrorKind::AddrInUse, "{in_use}");
        assert!(
            bind("127.0.0.1").await.is_err(),
            "an address without a port"
        );
    }
}
