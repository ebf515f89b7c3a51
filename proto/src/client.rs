//! A [`Coordinator`] across the network: the gRPC client a remote worker
//! talks through. Calls block (the worker is synchronous); a coordinator
//! that is down is waited for, so workers ride out its restart.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use tokio::runtime::Runtime;
use tonic::transport::{Channel, Endpoint};
use tonic::{Code, Status};

use crate::lease::MAX_HELD;
use crate::shard::{header_fault, unexpected_block};
use crate::tls::{client_config, client_refusal, TlsFiles};
use crate::v1::coordination_client::CoordinationClient;
use crate::v1::{
    self, result_part, shard_part, Caller, FailRequest, FetchRequest, HeartbeatRequest,
    LeaseRequest, RegisterRequest, ResultHeader, ResultPart, StatusRequest,
};
pub use crate::wire_limits::DEADLINE;
use crate::wire_limits::MAX_MESSAGE_BYTES;
use crate::{
    BuildStatus, CheckReport, Coordinator, Lease, Leased, LinkError, LinkKind, Registration, Shard,
    SliceId, SliceResult, WorkerInfo, PROTOCOL_VERSION,
};

/// The client of one coordinator.
pub struct RemoteCoordinator {
    runtime: Runtime,
    client: CoordinationClient<Channel>,
    token: Option<String>,
    /// How long a call waits for a coordinator that cannot be reached.
    patience: Duration,
    /// How long one attempt of a short call may go unanswered (and a
    /// transfer without progress): [`DEADLINE`] unless set.
    deadline: Duration,
    /// The most raw bytes a fetched shard may announce: a shard larger
    /// than the memory a worker has for a whole slice cannot be one it
    /// needs, so its blocks are not received.
    max_shard_bytes: u64,
    /// Set when the worker is asked to stop: a coordinator that cannot be
    /// reached is then not waited for.
    stop: Option<Arc<AtomicBool>>,
}

impl RemoteCoordinator {
    /// A client of the coordinator at `url` (`http://host:port`, or
    /// `https://host:port` with `tls`); nothing is sent before the first
    /// call.
    ///
    /// # Errors
    /// A malformed URL, a scheme that does not match `tls`, unusable TLS
    /// files, or no async runtime.
    pub fn new(
        url: &str,
        token: Option<String>,
        patience: Duration,
        tls: Option<&TlsFiles>,
    ) -> Result<RemoteCoordinator, LinkError> {
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(1)
            .enable_all()
            .build()
            .map_err(|e| LinkError::internal(format!("no async runtime: {e}")))?;
        let endpoint = endpoint_of(url)
            .map_err(|e| LinkError::refused(format!("`{url}` is not a coordinator URL: {e}")))?
            .connect_timeout(Duration::from_secs(5))
            .tcp_nodelay(true);
        let endpoint = match (tls, endpoint.uri().scheme_str()) {
            (Some(files), Some("https")) => {
                let config = client_config(files).map_err(|e| LinkError::refused(e.to_string()))?;
                endpoint
                    .tls_config(config)
                    .map_err(|e| LinkError::refused(format!("TLS set-up failed: {e}")))?
            }
            (None, Some("http")) => endpoint,
            (Some(_), _) => {
                return Err(LinkError::refused(format!(
                    "`{url}`: with --tls-* the coordinator's URL is https://host:port"
                )))
            }
            (None, Some("https")) => {
                return Err(LinkError::refused(format!(
                    "`{url}`: an https:// coordinator needs --tls-ca, --tls-cert and --tls-key; otherwise use http://host:port"
                )))
            }
            (None, _) => {
                return Err(LinkError::refused(format!(
                    "`{url}`: use http://host:port, or https://host:port with --tls-ca, --tls-cert and --tls-key"
                )))
            }
        };
        let channel = {
            let _entered = runtime.enter();
            endpoint.connect_lazy()
        };
        let client = CoordinationClient::new(channel)
            .max_decoding_message_size(MAX_MESSAGE_BYTES)
            .max_encoding_message_size(MAX_MESSAGE_BYTES);
        Ok(RemoteCoordinator {
            runtime,
            client,
            token,
            patience,
            deadline: DEADLINE,
            max_shard_bytes: u64::MAX,
            stop: None,
        })
    }

    /// The same client refusing shards that announce more than `bytes`.
    pub fn with_max_shard_bytes(self, bytes: u64) -> RemoteCoordinator {
        RemoteCoordinator {
            max_shard_bytes: bytes,
            ..self
        }
    }

    /// The same client giving up on an unreachable coordinator at once
    /// once `stop` is set (a worker asked to stop gives its lease back if
    /// it can, and does not wait out the patience to try).
    pub fn with_stop(self, stop: Arc<AtomicBool>) -> RemoteCoordinator {
        RemoteCoordinator {
            stop: Some(stop),
            ..self
        }
    }

    /// The same client with another deadline per attempt (see [`DEADLINE`]).
    pub fn with_deadline(self, deadline: Duration) -> RemoteCoordinator {
        RemoteCoordinator { deadline, ..self }
    }

    fn caller(&self, worker: &str) -> Caller {
        Caller {
            protocol_version: PROTOCOL_VERSION,
            token: self.token.clone(),
            worker: worker.to_string(),
        }
    }

    /// Runs a call, again while the coordinator is unreachable or gives
    /// no answer within `deadline`, up to the patience.
    fn retrying<T, F, Fut>(&self, deadline: Duration, mut call: F) -> Result<T, LinkError>
    where
        F: FnMut(CoordinationClient<Channel>) -> Fut,
        Fut: std::future::Future<Output = Result<T, Status>>,
    {
        let started = Instant::now();
        let mut pause = Duration::from_millis(100);
        loop {
            let answer = self
                .runtime
                .block_on(within(deadline, call(self.client.clone())));
            let status = match answer {
                Ok(value) => return Ok(value),
                Err(status) => status,
            };
            if let Some(reason) = client_refusal(&status) {
                // A refused certificate does not heal by waiting.
                return Err(LinkError::new(LinkKind::Unauthenticated, reason));
            }
            let stopping = self.stop.as_ref().is_some_and(|s| s.load(Ordering::SeqCst));
            if !unreachable_now(&status) || started.elapsed() > self.patience || stopping {
                return Err(link_error(status));
            }
            tracing::debug!(error = %status.message(), "coordinator unreachable; retrying");
            std::thread::sleep(pause);
            pause = (pause * 2).min(Duration::from_secs(2));
        }
    }
}

/// `call`, or DEADLINE_EXCEEDED when it has not finished within `deadline`.
async fn within<T>(
    deadline: Duration,
    call: impl std::future::Future<Output = Result<T, Status>>,
) -> Result<T, Status> {
    tokio::time::timeout(deadline, call)
        .await
        .unwrap_or_else(|_| {
            Err(Status::deadline_exceeded(format!(
                "the coordinator gave no answer within {deadline:?}"
            )))
        })
}

/// Whether a call failed because the coordinator could not be reached, went
/// away mid-call (a connection broken under a stream comes back as UNKNOWN
/// with the transport's error as its source) or stalled past its deadline,
/// not because it said no.
fn unreachable_now(status: &Status) -> bool {
    status.code() == Code::Unavailable
        || status.code() == Code::DeadlineExceeded
        || (status.code() == Code::Unknown && std::error::Error::source(status).is_some())
}

/// A status as the worker sees it.
fn link_error(status: Status) -> LinkError {
    let kind = match status.code() {
        Code::InvalidArgument => LinkKind::Refused,
        Code::NotFound => LinkKind::NotFound,
        Code::FailedPrecondition => LinkKind::Mismatch,
        Code::Unauthenticated => LinkKind::Unauthenticated,
        Code::Unavailable | Code::DeadlineExceeded => LinkKind::Unavailable,
        Code::DataLoss => LinkKind::DataLoss,
        Code::AlreadyExists => LinkKind::Duplicate,
        _ => LinkKind::Internal,
    };
    LinkError::new(kind, with_causes(status.message(), &status))
}

/// `message` followed by the causes of `error` not already in it: a
/// "transport error" alone says nothing, its causes say what broke.
pub fn with_causes(message: &str, error: &dyn std::error::Error) -> String {
    let mut text = message.to_string();
    let mut source = error.source();
    while let Some(cause) = source {
        let cause_text = cause.to_string();
        if !text.contains(&cause_text) {
            text.push_str(": ");
            text.push_str(&cause_text);
        }
        source = cause.source();
    }
    text
}

impl Coordinator for RemoteCoordinator {
    fn register(&self, worker: &WorkerInfo) -> Result<Registration, LinkError> {
        let request = RegisterRequest {
            caller: Some(self.caller(&worker.name)),
            threads: worker.threads,
            memory: worker.memory,
            version: env!("CARGO_PKG_VERSION").to_string(),
            game: worker.game.clone(),
            instance: worker.instance,
            replaces: worker.replaces,
        };
        let started = Instant::now();
        loop {
            let answer = self.retrying(self.deadline, |mut c| {
                let request = request.clone();
                async move {
                    c.register(request).await.map(|r| {
                        let r = r.into_inner();
                        Registration {
                            game: r.game,
                            lease_seconds: r.lease_seconds,
                        }
                    })
                }
            });
            // Another process under this name may be this worker's earlier
            // run, which the coordinator forgets once it falls silent.
            match answer {
                Err(e) if e.kind == LinkKind::Duplicate && started.elapsed() < self.patience => {
                    tracing::warn!(worker = %worker.name, "{}; waiting", e.message);
                    std::thread::sleep(Duration::from_secs(2));
                }
                answer => return answer,
            }
        }
    }

    fn lease(&self, worker: &str) -> Result<Lease, LinkError> {
        self.lease_holding(worker, &[]).map(|leased| leased.lease)
    }

    fn lease_holding(&self, worker: &str, held: &[SliceId]) -> Result<Leased, LinkError> {
        let request = LeaseRequest {
            caller: Some(self.caller(worker)),
            // The rest (never more in a plan) is not said.
            held: held
                .iter()
                .take(MAX_HELD)
                .map(ToString::to_string)
                .collect(),
        };
        self.retrying(self.deadline, |mut c| {
            let request = request.clone();
            async move {
                let reply = c.lease(request).await?.into_inner();
                Leased::try_from(reply).map_err(|e| Status::data_loss(e.to_string()))
            }
        })
    }

    fn heartbeat(&self, worker: &str, slice_id: &SliceId) -> Result<bool, LinkError> {
        let request = HeartbeatRequest {
            caller: Some(self.caller(worker)),
            slice_id: slice_id.to_string(),
        };
        self.retrying(self.deadline, |mut c| {
            let request = request.clone();
            async move { c.heartbeat(request).await.map(|r| r.into_inner().keep) }
        })
    }

    fn fetch_shard(&self, worker: &str, slice_id: &SliceId) -> Result<Shard, LinkError> {
        let request = FetchRequest {
            caller: Some(self.caller(worker)),
            slice_id: slice_id.to_string(),
        };
        // The whole transfer may take long; each message may not.
        let deadline = self.deadline;
        let max_shard_bytes = self.max_shard_bytes;
        self.retrying(Duration::MAX, |mut c| {
            let request = request.clone();
            async move {
                let mut parts = within(deadline, c.fetch_shard(request)).await?.into_inner();
                let mut shard: Option<v1::Shard> = None;
                while let Some(part) = within(deadline, parts.message()).await? {
                    match (part.part, shard.as_mut()) {
                        (Some(shard_part::Part::Header(header)), None) => {
                            if let Some(fault) = header_fault(&header) {
                                return Err(Status::data_loss(fault));
                            }
                            if header.raw_len > max_shard_bytes {
                                return Err(Status::data_loss(format!(
                                    "the coordinator announced {} bytes for shard {slice_id}, \
                                     more than this worker's memory for a slice ({max_shard_bytes})",
                                    header.raw_len
                                )));
                            }
                            shard = Some(header);
                        }
                        (Some(shard_part::Part::Block(block)), Some(shard)) => {
                            if let Some(fault) = unexpected_block(shard, &block) {
                                return Err(Status::data_loss(fault));
                            }
                            shard.blocks.push(block);
                        }
                        _ => return Err(Status::data_loss("shard stream out of order")),
                    }
                }
                let shard = shard.ok_or_else(|| Status::data_loss("empty shard stream"))?;
                Shard::try_from(shard).map_err(|e| Status::data_loss(e.to_string()))
            }
        })
    }

    fn complete(&self, worker: &str, result: SliceResult) -> Result<(), LinkError> {
        let mut result = v1::SliceResult::from(result);
        let blocks = result
            .shard
            .as_mut()
            .map(|s| std::mem::take(&mut s.blocks))
            .unwrap_or_default();
        let header = ResultPart {
            part: Some(result_part::Part::Header(ResultHeader {
                caller: Some(self.caller(worker)),
                result: Some(result),
            })),
        };
        let bytes: usize = blocks.iter().map(|b| b.record.len()).sum();
        let deadline = self.deadline * (2 + (bytes >> 20) as u32);
        self.retrying(deadline, |mut c| {
            let parts: Vec<ResultPart> = std::iter::once(header.clone())
                .chain(blocks.iter().map(|b| ResultPart {
                    part: Some(result_part::Part::Block(b.clone())),
                }))
                .collect();
            async move { c.complete(tokio_stream::iter(parts)).await.map(|_| ()) }
        })
    }

    fn fail(&self, worker: &str, slice_id: &SliceId, reason: &str) -> Result<(), LinkError> {
        let request = FailRequest {
            caller: Some(self.caller(worker)),
            slice_id: slice_id.to_string(),
            reason: reason.to_string(),
        };
        self.retrying(self.deadline, |mut c| {
            let request = request.clone();
            async move { c.fail(request).await.map(|_| ()) }
        })
    }

    fn status(&self) -> Result<BuildStatus, LinkError> {
        let request = StatusRequest {
            caller: Some(self.caller("status")),
        };
        self.retrying(self.deadline, |mut c| {
            let request = request.clone();
            async move {
                let reply = c.status(request).await?.into_inner();
                BuildStatus::try_from(reply).map_err(|e| Status::internal(e.to_string()))
            }
        })
    }

    fn checked(&self, worker: &str, report: CheckReport) -> Result<(), LinkError> {
        let request = v1::CheckReport {
            caller: Some(self.caller(worker)),
            ..report.into()
        };
        self.retrying(self.deadline, |mut c| {
            let request = request.clone();
            async move { c.checked(request).await.map(|_| ()) }
        })
    }
}

/// An endpoint for `url`, whose port, if it names one, is a port: the
/// URL parser drops one past 65535 and would connect to the scheme's
/// default port instead.
///
/// # Errors
/// Why `url` is no URL, or its port no port.
pub fn endpoint_of(url: &str) -> Result<Endpoint, String> {
    let endpoint = Endpoint::from_shared(url.to_string()).map_err(|e| e.to_string())?;
    let authority = endpoint.uri().authority().map_or("", |a| a.as_str());
    // `[::1]` has colons but no port; `[::1]:7070` ends in one.
    if let Some((_, port)) = authority
        .rsplit_once(':')
        .filter(|(_, p)| !p.ends_with(']'))
    {
        if !matches!(port.parse::<u16>(), Ok(1..)) {
            return Err(format!("port `{port}` is not 1 to 65535"));
        }
    }
    Ok(endpoint)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A "coordinator" that accepts connections and never says a word.
    fn silent_listener() -> (std::net::TcpListener, String) {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let url = format!("http://{}", listener.local_addr().unwrap());
        (listener, url)
    }

    #[test]
    fn a_silent_coordinator_is_given_up_on_after_the_patience() {
        let (listener, url) = silent_listener();
        let held = std::thread::spawn(move || {
            let mut open = Vec::new();
            for stream in listener.incoming().take(8) {
                open.push(stream);
            }
        });
        let link = RemoteCoordinator::new(&url, None, Duration::from_secs(1), None)
            .unwrap()
            .with_deadline(Duration::from_millis(300));
        let started = Instant::now();
        let err = link.lease("w").unwrap_err();
        assert_eq!(err.kind, LinkKind::Unavailable, "{err}");
        assert!(err.message.contains("no answer within"), "{err}");
        // One attempt past the patience, then it stops.
        assert!(
            started.elapsed() < Duration::from_secs(20),
            "{:?}",
            started.elapsed()
        );
        drop(link);
        drop(held);
    }

    #[test]
    fn a_worker_asked_to_stop_does_not_wait_out_the_patience() {
        // Nothing listens on this port once the listener is dropped.
        let (listener, url) = silent_listener();
        drop(listener);
        let stop = Arc::new(AtomicBool::new(true));
        let link = RemoteCoordinator::new(&url, None, Duration::from_secs(600), None)
            .unwrap()
            .with_stop(stop);
        let started = Instant::now();
        let err = link.lease("w").unwrap_err();
        assert_eq!(err.kind, LinkKind::Unavailable, "{err}");
        // One attempt, not ten minutes of them.
        assert!(
            started.elapsed() < Duration::from_secs(30),
            "{:?}",
            started.elapsed()
        );
    }
}
