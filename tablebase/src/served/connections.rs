//! Connections of a public server, held to its [`Limits`]: HTTP/1 with a
//! header timeout and a bounded number of connections where a newcomer
//! closes the oldest connection still waiting for its request; gRPC
//! connections counted and closed when they fall silent.

use std::collections::VecDeque;
use std::future::Future;
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};
use std::time::Duration;

use axum::body::Body;
use hyper::body::Incoming;
use hyper_util::rt::{TokioIo, TokioTimer};
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::sync::{Notify, OwnedSemaphorePermit, Semaphore};
use tokio_stream::{Stream, StreamExt};

use super::Limits;

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
                let Ok(head) = first_head(&mut tcp, header_timeout).await else {
                    return;
                };
                let io = TokioIo::new(Prefixed {
                    head,
                    at: 0,
                    io: tcp,
                });
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

/// The bytes of a connection's first request header (and whatever came
/// with it), read within `timeout`; at [`MAX_BUFFER`] bytes without its
/// end, what there is (hyper then answers 431).
///
/// # Errors
/// The client closed, or took too long.
async fn first_head(
    tcp: &mut tokio::net::TcpStream,
    timeout: Duration,
) -> std::io::Result<Vec<u8>> {
    use tokio::io::AsyncReadExt;
    let read = async {
        let mut head = Vec::with_capacity(FIRST_READ);
        loop {
            let searched = head.len().saturating_sub(3);
            if tcp.read_buf(&mut head).await? == 0 {
                return Err(std::io::ErrorKind::UnexpectedEof.into());
            }
            let ended = head[searched..].windows(4).any(|w| w == b"\r\n\r\n");
            if ended || head.len() >= MAX_BUFFER {
                return Ok(head);
            }
        }
    };
    tokio::time::timeout(timeout, read)
        .await
        .map_err(|_| std::io::Error::from(std::io::ErrorKind::TimedOut))?
}

/// The first read of a connection: most request headers fit.
const FIRST_READ: usize = 512;

/// The most an HTTP connection buffers: a request line and headers fit
/// (hyper answers 431 beyond), a body is never read.
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

/// A connection whose first bytes were read already: they come first.
struct Prefixed<IO> {
    head: Vec<u8>,
    at: usize,
    io: IO,
}

impl<IO: AsyncRead + Unpin> AsyncRead for Prefixed<IO> {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<std::io::Result<()>> {
        if self.at < self.head.len() {
            let take = buf.remaining().min(self.head.len() - self.at);
            buf.put_slice(&self.head[self.at..self.at + take]);
            self.at += take;
            if self.at == self.head.len() {
                self.head = Vec::new();
                self.at = 0;
            }
            return Poll::Ready(Ok(()));
        }
        Pin::new(&mut self.io).poll_read(cx, buf)
    }
}

impl<IO: AsyncWrite + Unpin> AsyncWrite for Prefixed<IO> {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<std::io::Result<usize>> {
        Pin::new(&mut self.io).poll_write(cx, buf)
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        Pin::new(&mut self.io).poll_flush(cx)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        Pin::new(&mut self.io).poll_shutdown(cx)
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

/// The gRPC connections `incoming` yields, at most
/// `limits.max_grpc_connections` open at once (the next is taken once one
/// closes), each closed when it sends nothing for `limits.idle_timeout`.
pub(super) fn limited<S, IO>(
    incoming: S,
    limits: Limits,
) -> impl Stream<Item = std::io::Result<Quiet<IO>>>
where
    S: Stream<Item = std::io::Result<IO>>,
{
    let open = Arc::new(Semaphore::new(limits.max_grpc_connections.max(1)));
    incoming.then(move |io| {
        let open = open.clone();
        async move {
            let io = io?;
            let permit = open
                .acquire_owned()
                .await
                .map_err(|_| std::io::Error::other("the server is stopping"))?;
            Ok(Quiet::new(io, permit, limits.idle_timeout))
        }
    })
}

/// A connection that fails its reads once its peer has sent nothing for a
/// while; it holds a place among the open connections until dropped.
pub(super) struct Quiet<IO> {
    io: IO,
    _place: OwnedSemaphorePermit,
    idle: Duration,
    deadline: Pin<Box<tokio::time::Sleep>>,
}

impl<IO> Quiet<IO> {
    fn new(io: IO, place: OwnedSemaphorePermit, idle: Duration) -> Quiet<IO> {
        Quiet {
            io,
            _place: place,
            idle,
            deadline: Box::pin(tokio::time::sleep(idle)),
        }
    }
}

impl<IO: AsyncRead + Unpin> AsyncRead for Quiet<IO> {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<std::io::Result<()>> {
        let before = buf.filled().len();
        match Pin::new(&mut self.io).poll_read(cx, buf) {
            Poll::Ready(Ok(())) => {
                if buf.filled().len() > before {
                    let next = tokio::time::Instant::now() + self.idle;
                    self.deadline.as_mut().reset(next);
                }
                Poll::Ready(Ok(()))
            }
            Poll::Ready(Err(e)) => Poll::Ready(Err(e)),
            Poll::Pending => match self.deadline.as_mut().poll(cx) {
                Poll::Ready(()) => Poll::Ready(Err(std::io::Error::new(
                    std::io::ErrorKind::TimedOut,
                    "the peer sent nothing for too long",
                ))),
                Poll::Pending => Poll::Pending,
            },
        }
    }
}

impl<IO: AsyncWrite + Unpin> AsyncWrite for Quiet<IO> {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<std::io::Result<usize>> {
        Pin::new(&mut self.io).poll_write(cx, buf)
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        Pin::new(&mut self.io).poll_flush(cx)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        Pin::new(&mut self.io).poll_shutdown(cx)
    }

    fn poll_write_vectored(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[std::io::IoSlice<'_>],
    ) -> Poll<std::io::Result<usize>> {
        Pin::new(&mut self.io).poll_write_vectored(cx, bufs)
    }

    fn is_write_vectored(&self) -> bool {
        self.io.is_write_vectored()
    }
}

impl<IO: tonic::transport::server::Connected> tonic::transport::server::Connected for Quiet<IO> {
    type ConnectInfo = IO::ConnectInfo;

    fn connect_info(&self) -> Self::ConnectInfo {
        self.io.connect_info()
    }
}
