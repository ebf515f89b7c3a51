//! HTTP/1 connections of a public server, held to its [`Limits`]: the
//! first request header read cheaply and within a timeout, a bounded
//! number of connections where a newcomer closes the oldest connection
//! still waiting for its request.

use std::collections::VecDeque;
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};
use std::time::Duration;

use axum::body::Body;
use hyper::body::Incoming;
use hyper_util::rt::{TokioIo, TokioTimer};
use tokio::sync::Notify;

use super::Limits;
use egdb_proto::client_io::ClientIo;

/// Headers every reply carries: no type sniffing, no framing by other
/// sites, nothing loaded from elsewhere.
pub(super) const HARDENING: [(&str, &str); 3] = [
    ("x-content-type-options", "nosniff"),
    (
        "content-security-policy",
        "default-src 'self'; frame-ancestors 'none'",
    ),
    ("x-frame-options", "DENY"),
];

/// One open HTTP connection as the registry sees it.
#[derive(Default)]
struct Slot {
    /// A request is being answered (its reply not yet all written).
    busy: AtomicBool,
    /// The connection has ended.
    closed: AtomicBool,
    /// Told to close, to make room for a newcomer.
    evict: Notify,
}

/// The open HTTP connections, oldest first (with some that have closed
/// since, dropped as they are met).
struct Registry {
    max: usize,
    open: Mutex<VecDeque<Arc<Slot>>>,
    /// Connections admitted and not yet ended.
    live: Arc<std::sync::atomic::AtomicUsize>,
}

impl Registry {
    fn new(max: usize) -> Registry {
        Registry {
            max: max.max(1),
            open: Mutex::new(VecDeque::new()),
            live: Arc::default(),
        }
    }

    /// A slot for a new connection; at the limit, the oldest connection
    /// that is waiting for a request (slow or idle) is told to close. `None`
    /// when every connection is busy answering: the newcomer is turned away.
    fn admit(&self) -> Option<Arc<Slot>> {
        let mut open = self.open.lock().unwrap_or_else(|p| p.into_inner());
        if self.live.load(Ordering::Acquire) >= self.max {
            while open
                .front()
                .is_some_and(|slot| slot.closed.load(Ordering::Acquire))
            {
                open.pop_front();
            }
            let waiting = open.iter().position(|slot| {
                !slot.closed.load(Ordering::Acquire) && !slot.busy.load(Ordering::Acquire)
            })?;
            if let Some(slot) = open.remove(waiting) {
                slot.evict.notify_one();
            }
        }
        if open.len() >= 2 * self.max {
            open.retain(|slot| !slot.closed.load(Ordering::Acquire));
        }
        self.live.fetch_add(1, Ordering::AcqRel);
        let slot = Arc::new(Slot::default());
        open.push_back(slot.clone());
        Some(slot)
    }

    /// Marks `slot`'s connection ended.
    fn closed(&self, slot: &Slot) {
        slot.closed.store(true, Ordering::Release);
        self.live.fetch_sub(1, Ordering::AcqRel);
    }
}

/// Serves `router` over HTTP/1 on `listener` until `shutdown` completes,
/// within `limits`.
///
/// A connection's first request header is read here, into a buffer of a
/// few hundred bytes, and only a whole header is handed to hyper (whose
/// buffers take some 20 KiB a connection): thousands of slow clients cost
/// little memory, and none of hyper's.
///
/// # Errors
/// The listener fails for good.
pub(super) async fn serve_http1(
    router: axum::Router,
    listener: tokio::net::TcpListener,
    limits: Limits,
    shutdown: impl std::future::Future<Output = ()> + Send,
) -> Result<(), String> {
    let registry = Arc::new(Registry::new(limits.max_connections));
    let mut builder = hyper::server::conn::http1::Builder::new();
    builder
        .timer(TokioTimer::new())
        .header_read_timeout(limits.header_timeout)
        .max_buf_size(MAX_BUFFER);
    let graceful = hyper_util::server::graceful::GracefulShutdown::new();
    tokio::pin!(shutdown);
    loop {
        let (mut tcp, _) = tokio::select! {
            accepted = listener.accept() => match accepted {
                Ok(accepted) => accepted,
                Err(e) => {
                    // Out of descriptors and the like: wait, go on.
                    tracing::warn!(error = %e, "cannot accept an HTTP connection");
                    tokio::time::sleep(Duration::from_millis(100)).await;
                    continue;
                }
            },
            () = &mut shutdown => break,
        };
        let Some(slot) = registry.admit() else {
            tracing::warn!("every HTTP connection is busy answering: one turned away");
            continue;
        };
        let _ = tcp.set_nodelay(true);
        let service = hyper::service::service_fn({
            let (router, slot) = (router.clone(), slot.clone());
            move |request: hyper::Request<Incoming>| {
                let (router, busy) = (router.clone(), Busy::new(slot.clone()));
                async move {
                    use tower::ServiceExt;
                    let response = router.oneshot(request.map(Body::new)).await;
                    // Busy until the whole reply is written.
                    response.map(|r| r.map(|body| Body::new(Tracked { body, _busy: busy })))
                }
            }
        });
        let (builder, watcher) = (builder.clone(), graceful.watcher());
        let (registry, header_timeout) = (registry.clone(), limits.header_timeout);
        tokio::spawn(async move {
            let served = async move {
                let head = match first_head(&mut tcp, header_timeout).await {
                    Ok(head) => head,
                    Err(FirstHead::Gone) => return,
                    Err(FirstHead::Refused(status, reason)) => {
                        return refuse(&mut tcp, status, reason).await;
                    }
                };
                let io = TokioIo::new(ClientIo::after(head, tcp));
                let _ = watcher.watch(builder.serve_connection(io, service)).await;
            };
            tokio::select! {
                () = served => {}
                () = slot.evict.notified() => {}
            }
            registry.closed(&slot);
        });
    }
    // Requests under way get a moment to finish.
    let _ = tokio::time::timeout(Duration::from_secs(5), graceful.shutdown()).await;
    Ok(())
}

/// Why a connection's first request is not handed to hyper.
enum FirstHead {
    /// The client closed, or took too long: nothing to answer.
    Gone,
    /// Not a request this server reads: the status and why, answered in
    /// JSON like every other error.
    Refused(u16, &'static str),
}

/// The bytes of a connection's first request header (and whatever came
/// with it), read within `timeout` and checked to parse.
async fn first_head(
    tcp: &mut tokio::net::TcpStream,
    timeout: Duration,
) -> Result<Vec<u8>, FirstHead> {
    use tokio::io::AsyncReadExt;
    let read = async {
        let mut head = Vec::with_capacity(FIRST_READ);
        loop {
            let searched = head.len().saturating_sub(3);
            if !matches!(tcp.read_buf(&mut head).await, Ok(n) if n > 0) {
                return Err(FirstHead::Gone);
            }
            if head[searched..].windows(4).any(|w| w == b"\r\n\r\n") {
                return Ok(head);
            }
            if head.len() >= MAX_BUFFER {
                return Err(FirstHead::Refused(
                    431,
                    "the request header is longer than this server reads (64 KiB)",
                ));
            }
        }
    };
    let head = tokio::time::timeout(timeout, read)
        .await
        .map_err(|_| FirstHead::Gone)??;
    let mut headers = [httparse::EMPTY_HEADER; MAX_HEADERS];
    match httparse::Request::new(&mut headers).parse(&head) {
        Ok(_) => Ok(head),
        Err(httparse::Error::TooManyHeaders) => Err(FirstHead::Refused(
            431,
            "the request has more header fields than this server reads (100)",
        )),
        Err(_) => Err(FirstHead::Refused(400, "not an HTTP/1 request")),
    }
}

/// Header fields hyper takes in one request (its default).
const MAX_HEADERS: usize = 100;

/// Answers a request that never reached the routes as they would: JSON,
/// CORS, the same security headers; then closes.
async fn refuse(tcp: &mut tokio::net::TcpStream, status: u16, reason: &str) {
    use tokio::io::AsyncWriteExt;
    let body = serde_json::json!({"error": reason, "code": "InvalidArgument"}).to_string();
    let text = if status == 431 {
        "Request Header Fields Too Large"
    } else {
        "Bad Request"
    };
    let mut reply = format!(
        "HTTP/1.1 {status} {text}\r\ncontent-type: application/json\r\n\
         access-control-allow-origin: *\r\ncache-control: no-store\r\nconnection: close\r\n"
    );
    for (name, value) in HARDENING {
        reply += &format!("{name}: {value}\r\n");
    }
    reply += &format!("content-length: {}\r\n\r\n{body}", body.len());
    let _ = tcp.write_all(reply.as_bytes()).await;
    let _ = tcp.shutdown().await;
    // Closing with the client's bytes unread would reset the connection,
    // and the reset can destroy the reply: read a little of what follows.
    use tokio::io::AsyncReadExt;
    let mut sink = [0u8; 4096];
    let _ = tokio::time::timeout(Duration::from_secs(1), async {
        let mut drained = 0;
        while drained < 1 << 20 {
            match tcp.read(&mut sink).await {
                Ok(n) if n > 0 => drained += n,
                _ => break,
            }
        }
    })
    .await;
}

/// The first read of a connection: most request headers fit.
const FIRST_READ: usize = 512;

/// The most an HTTP connection buffers: a request line and headers fit
/// (the first request is refused with 431 beyond, later ones by hyper), a
/// body is never read.
const MAX_BUFFER: usize = 64 << 10;

/// Marks a connection busy for as long as it lives.
struct Busy(Arc<Slot>);

impl Busy {
    fn new(slot: Arc<Slot>) -> Busy {
        slot.busy.store(true, Ordering::Release);
        Busy(slot)
    }
}

impl Drop for Busy {
    fn drop(&mut self) {
        self.0.busy.store(false, Ordering::Release);
    }
}

/// A reply's body that keeps its connection busy until it is written.
struct Tracked {
    body: Body,
    _busy: Busy,
}

impl http_body::Body for Tracked {
    type Data = <Body as http_body::Body>::Data;
    type Error = <Body as http_body::Body>::Error;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<http_body::Frame<Self::Data>, Self::Error>>> {
        Pin::new(&mut self.body).poll_frame(cx)
    }

    fn is_end_stream(&self) -> bool {
        self.body.is_end_stream()
    }

    fn size_hint(&self) -> http_body::SizeHint {
        self.body.size_hint()
    }
}
