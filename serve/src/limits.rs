//! What a public `egdb serve` allows each client, so that slow clients and
//! floods of expensive queries cannot hold the server: connections per
//! server, time to send a request, and expensive requests at once.

use std::time::Duration;

use tokio::sync::{Semaphore, TryAcquireError};
use tonic::Status;

/// The limits of one `egdb serve` (docs/serving.md: "A server for the public").
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    /// Time an HTTP client has to send a whole request header, on a new
    /// connection and for each next request on a kept-alive one (so this is
    /// also how long an idle kept-alive connection stays open).
    pub header_timeout: Duration,
    /// A gRPC connection that sends nothing for this long is closed.
    pub idle_timeout: Duration,
    /// Open HTTP connections. At the limit, a new connection closes the
    /// oldest one that is waiting for its request (slow or idle).
    pub max_connections: usize,
    /// Open gRPC connections (each holds HTTP/2 buffers); at the limit,
    /// accepting waits until one closes.
    pub max_grpc_connections: usize,
    /// Expensive requests (lines and batches) computed at once.
    pub max_expensive: usize,
    /// Expensive requests waiting for their turn; more are refused as
    /// busy (gRPC `RESOURCE_EXHAUSTED`, HTTP 503 with `Retry-After`).
    pub max_waiting: usize,
}

impl Default for Limits {
    fn default() -> Limits {
        Limits {
            header_timeout: Duration::from_secs(10),
            idle_timeout: Duration::from_secs(120),
            max_connections: 16_384,
            max_grpc_connections: 1024,
            max_expensive: std::thread::available_parallelism().map_or(1, |n| n.get().div_ceil(2)),
            max_waiting: 32,
        }
    }
}

/// Expensive requests: a few run, a few wait, the rest are told to come
/// back later. A waiting request holds no more than its connection.
pub(super) struct Gate {
    running: Semaphore,
    /// Those running and those waiting. A permit, not a count: a request
    /// dropped while it waits (its client hung up, its deadline passed)
    /// leaves the room with it.
    room: Semaphore,
    max_waiting: usize,
}

impl Gate {
    pub(super) fn new(limits: &Limits) -> Gate {
        let running = limits.max_expensive.max(1);
        Gate {
            running: Semaphore::new(running),
            room: Semaphore::new(running + limits.max_waiting),
            max_waiting: limits.max_waiting,
        }
    }

    /// Runs `work` once its turn comes.
    ///
    /// # Errors
    /// `RESOURCE_EXHAUSTED` when too many are waiting already; what `work`
    /// returns.
    pub(super) async fn pass<T>(
        &self,
        work: impl std::future::Future<Output = Result<T, Status>>,
    ) -> Result<T, Status> {
        let stopping = || Status::unavailable("the server is stopping");
        let _in_room = self.room.try_acquire().map_err(|e| match e {
            TryAcquireError::NoPermits => Status::resource_exhausted(format!(
                "busy: {} expensive requests (lines, batches) are waiting already; try again shortly",
                self.max_waiting
            )),
            TryAcquireError::Closed => stopping(),
        })?;
        let _running = self.running.acquire().await.map_err(|_| stopping())?;
        work.await
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;
    use tokio::sync::watch;
    use tokio::task::JoinHandle;

    /// A gate where one request runs and two may wait.
    fn small_gate() -> Arc<Gate> {
        Arc::new(Gate::new(&Limits {
            max_expensive: 1,
            max_waiting: 2,
            ..Limits::default()
        }))
    }

    /// A request that, once it runs, holds its turn until `hold` says go.
    fn held(gate: &Arc<Gate>, hold: &watch::Receiver<bool>) -> JoinHandle<Result<(), Status>> {
        let (gate, mut hold) = (gate.clone(), hold.clone());
        tokio::spawn(async move {
            gate.pass(async move {
                let _ = hold.wait_for(|go| *go).await;
                Ok(())
            })
            .await
        })
    }

    #[tokio::test]
    async fn past_the_waiting_room_requests_are_told_to_come_back() {
        let gate = small_gate();
        let (release, hold) = watch::channel(false);
        // One runs and two wait: the gate is full.
        let mut waiting = vec![held(&gate, &hold), held(&gate, &hold)];
        tokio::time::sleep(Duration::from_millis(50)).await;
        waiting.push(held(&gate, &hold));
        tokio::time::sleep(Duration::from_millis(50)).await;
        let refused = gate.pass(async { Ok(()) }).await.unwrap_err();
        assert_eq!(refused.code(), tonic::Code::ResourceExhausted);
        release.send_replace(true);
        for task in waiting {
            task.await.unwrap().unwrap();
        }
        // The room is empty again.
        gate.pass(async { Ok(()) }).await.unwrap();
    }

    /// A request dropped while it waits (a client that hung up) gives its
    /// place back: before, each one kept it, and after `max_waiting` of
    /// them every expensive request was refused until a restart.
    #[tokio::test]
    async fn requests_dropped_while_waiting_leave_the_room() {
        let gate = small_gate();
        let (release, hold) = watch::channel(false);
        let runner = held(&gate, &hold);
        tokio::time::sleep(Duration::from_millis(50)).await;
        // Three times as many as may wait, each dropped while it waits.
        for _ in 0..6 {
            let waiting =
                tokio::time::timeout(Duration::from_millis(20), gate.pass(async { Ok(()) })).await;
            assert!(waiting.is_err(), "it should still be waiting");
        }
        release.send_replace(true);
        runner.await.unwrap().unwrap();
        gate.pass(async { Ok(()) }).await.unwrap();
    }
}
