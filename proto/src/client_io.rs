//! A client's connection as a server open to others reads it (the query
//! server, the coordinator): bytes read ahead come first; with an idle
//! limit its reads fail once the client has been silent that long, and it
//! holds a place among the open connections until dropped ([`limited`]).

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::Duration;

use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::sync::{OwnedSemaphorePermit, Semaphore};
use tokio_stream::{Stream, StreamExt};

/// A client's connection: reads what was read ahead first, then the
/// socket's, within its idle limit if it has one.
pub struct ClientIo<IO> {
    io: IO,
    /// Bytes read already, handed out before the socket's.
    head: Vec<u8>,
    at: usize,
    idle: Option<Idle>,
}

/// The silence a connection is allowed, and its place.
struct Idle {
    limit: Duration,
    deadline: Pin<Box<tokio::time::Sleep>>,
    _place: OwnedSemaphorePermit,
}

impl<IO> ClientIo<IO> {
    /// `io`, whose first bytes `head` were read already.
    pub fn after(head: Vec<u8>, io: IO) -> ClientIo<IO> {
        ClientIo {
            io,
            head,
            at: 0,
            idle: None,
        }
    }

    /// `io`, holding `place`, its reads failing after `limit` of silence.
    pub fn quiet(io: IO, place: OwnedSemaphorePermit, limit: Duration) -> ClientIo<IO> {
        ClientIo {
            io,
            head: Vec::new(),
            at: 0,
            idle: Some(Idle {
                limit,
                deadline: Box::pin(tokio::time::sleep(limit)),
                _place: place,
            }),
        }
    }
}

impl<IO: AsyncRead + Unpin> AsyncRead for ClientIo<IO> {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<std::io::Result<()>> {
        let this = &mut *self;
        if this.at < this.head.len() {
            let take = buf.remaining().min(this.head.len() - this.at);
            buf.put_slice(&this.head[this.at..this.at + take]);
            this.at += take;
            if this.at == this.head.len() {
                this.head = Vec::new();
                this.at = 0;
            }
            return Poll::Ready(Ok(()));
        }
        let before = buf.filled().len();
        let read = Pin::new(&mut this.io).poll_read(cx, buf);
        let Some(idle) = this.idle.as_mut() else {
            return read;
        };
        match read {
            Poll::Ready(Ok(())) if buf.filled().len() > before => {
                let next = tokio::time::Instant::now() + idle.limit;
                idle.deadline.as_mut().reset(next);
                Poll::Ready(Ok(()))
            }
            Poll::Pending => match idle.deadline.as_mut().poll(cx) {
                Poll::Ready(()) => Poll::Ready(Err(std::io::Error::new(
                    std::io::ErrorKind::TimedOut,
                    "the peer sent nothing for too long",
                ))),
                Poll::Pending => Poll::Pending,
            },
            done => done,
        }
    }
}

impl<IO: AsyncWrite + Unpin> AsyncWrite for ClientIo<IO> {
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

impl<IO: tonic::transport::server::Connected> tonic::transport::server::Connected for ClientIo<IO> {
    type ConnectInfo = IO::ConnectInfo;

    fn connect_info(&self) -> Self::ConnectInfo {
        self.io.connect_info()
    }
}

/// The connections `incoming` yields, at most `max_connections` open at
/// once (the next is taken once one closes), each closed when it sends
/// nothing for `idle_timeout`.
pub fn limited<S, IO>(
    incoming: S,
    max_connections: usize,
    idle_timeout: Duration,
) -> impl Stream<Item = std::io::Result<ClientIo<IO>>>
where
    S: Stream<Item = std::io::Result<IO>>,
{
    let open = Arc::new(Semaphore::new(max_connections.max(1)));
    incoming.then(move |io| {
        let open = open.clone();
        async move {
            let io = io?;
            let place = open
                .acquire_owned()
                .await
                .map_err(|_| std::io::Error::other("the server is stopping"))?;
            Ok(ClientIo::quiet(io, place, idle_timeout))
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use tokio::io::{AsyncReadExt, AsyncWriteExt};

    #[tokio::test]
    async fn bytes_read_ahead_come_first_and_silence_ends_a_quiet_connection() {
        let (client, mut server) = tokio::io::duplex(64);
        let mut io = ClientIo::after(b"GET ".to_vec(), client);
        server.write_all(b"/ HTTP/1.1").await.unwrap();
        let mut read = vec![0; 14];
        io.read_exact(&mut read).await.unwrap();
        assert_eq!(read, b"GET / HTTP/1.1");

        let (client, mut server) = tokio::io::duplex(64);
        let place = std::sync::Arc::new(tokio::sync::Semaphore::new(1))
            .acquire_owned()
            .await
            .unwrap();
        let mut io = ClientIo::quiet(client, place, Duration::from_millis(200));
        server.write_all(b"x").await.unwrap();
        let mut byte = [0u8; 1];
        io.read_exact(&mut byte).await.unwrap();
        let silent = io.read(&mut byte).await.unwrap_err();
        assert_eq!(silent.kind(), std::io::ErrorKind::TimedOut);
    }
}
