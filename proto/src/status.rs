//! A build as its coordinator reports it to `egdb status`. It crosses the
//! wire as [`v1::StatusReply`]; these are the two conversions, the
//! incoming one refusing times that are not durations.

use std::time::Duration;

use crate::{v1, JobId, WireError};

/// Slices by state, workers, bytes moved and the time left.
#[derive(Debug, Clone, PartialEq)]
pub struct BuildStatus {
    pub game: String,
    pub slices_total: u32,
    pub slices_done: u32,
    pub slices_running: u32,
    /// Pending slices whose dependencies are all done.
    pub slices_ready: u32,
    /// Pending slices still waiting for dependencies.
    pub slices_waiting: u32,
    pub positions_total: u64,
    pub positions_done: u64,
    pub bytes_sent: u64,
    pub bytes_received: u64,
    /// Since this coordinator started.
    pub elapsed: Duration,
    /// At this run's rate; `None` before the first slice.
    pub eta: Option<Duration>,
    pub complete: bool,
    pub workers: Vec<WorkerStatus>,
}

/// One worker as the coordinator sees it.
#[derive(Debug, Clone, PartialEq)]
pub struct WorkerStatus {
    pub name: String,
    pub threads: u32,
    pub memory: u64,
    /// The job it holds, and for how long.
    pub holds: Option<(JobId, Duration)>,
    /// Slices it handed over (this coordinator run) and their positions.
    pub slices_done: u64,
    pub positions_done: u64,
    /// Shard bytes sent to it and result bytes received from it.
    pub bytes_sent: u64,
    pub bytes_received: u64,
    pub last_seen: Duration,
}

impl From<BuildStatus> for v1::StatusReply {
    fn from(s: BuildStatus) -> v1::StatusReply {
        v1::StatusReply {
            game: s.game,
            slices_total: s.slices_total,
            slices_done: s.slices_done,
            slices_running: s.slices_running,
            slices_ready: s.slices_ready,
            slices_waiting: s.slices_waiting,
            positions_total: s.positions_total,
            positions_done: s.positions_done,
            bytes_sent: s.bytes_sent,
            bytes_received: s.bytes_received,
            elapsed_seconds: s.elapsed.as_secs_f64(),
            eta_seconds: s.eta.map(|d| d.as_secs_f64()),
            complete: s.complete,
            workers: s.workers.into_iter().map(Into::into).collect(),
        }
    }
}

impl From<WorkerStatus> for v1::WorkerStatus {
    fn from(w: WorkerStatus) -> v1::WorkerStatus {
        let (slice_id, held) = w.holds.unzip();
        v1::WorkerStatus {
            name: w.name,
            threads: w.threads,
            memory: w.memory,
            slice_id: slice_id.map(|job| job.to_string()),
            held_seconds: held.unwrap_or_default().as_secs_f64(),
            slices_done: w.slices_done,
            positions_done: w.positions_done,
            bytes_sent: w.bytes_sent,
            bytes_received: w.bytes_received,
            last_seen_seconds: w.last_seen.as_secs_f64(),
        }
    }
}

/// `seconds` as a duration, or why it is none.
fn duration(seconds: f64, what: &'static str) -> Result<Duration, WireError> {
    Duration::try_from_secs_f64(seconds).map_err(|_| WireError::NotADuration { what, seconds })
}

impl TryFrom<v1::StatusReply> for BuildStatus {
    type Error = WireError;

    /// # Errors
    /// A time that is negative or not finite.
    fn try_from(s: v1::StatusReply) -> Result<BuildStatus, WireError> {
        Ok(BuildStatus {
            game: s.game,
            slices_total: s.slices_total,
            slices_done: s.slices_done,
            slices_running: s.slices_running,
            slices_ready: s.slices_ready,
            slices_waiting: s.slices_waiting,
            positions_total: s.positions_total,
            positions_done: s.positions_done,
            bytes_sent: s.bytes_sent,
            bytes_received: s.bytes_received,
            elapsed: duration(s.elapsed_seconds, "an elapsed time")?,
            eta: s
                .eta_seconds
                .map(|eta| duration(eta, "a time left"))
                .transpose()?,
            complete: s.complete,
            workers: s
                .workers
                .into_iter()
                .map(WorkerStatus::try_from)
                .collect::<Result<_, _>>()?,
        })
    }
}

impl TryFrom<v1::WorkerStatus> for WorkerStatus {
    type Error = WireError;

    fn try_from(w: v1::WorkerStatus) -> Result<WorkerStatus, WireError> {
        let held = duration(w.held_seconds, "a lease held")?;
        Ok(WorkerStatus {
            holds: w
                .slice_id
                .map(|job| JobId::parse(&job).map(|job| (job, held)))
                .transpose()?,
            name: w.name,
            threads: w.threads,
            memory: w.memory,
            slices_done: w.slices_done,
            positions_done: w.positions_done,
            bytes_sent: w.bytes_sent,
            bytes_received: w.bytes_received,
            last_seen: duration(w.last_seen_seconds, "a worker last seen")?,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_status_crosses_the_wire_unchanged_and_bad_times_are_refused() {
        let worker = WorkerStatus {
            name: "host-1".to_string(),
            threads: 2,
            memory: 1 << 30,
            holds: Some((
                JobId::Check(egdb_games::SliceId::new("move-03-03")),
                Duration::from_millis(1500),
            )),
            slices_done: 3,
            positions_done: 1000,
            bytes_sent: 10,
            bytes_received: 20,
            last_seen: Duration::from_millis(250),
        };
        let status = BuildStatus {
            game: "morris:taiwan:3".to_string(),
            slices_total: 9,
            slices_done: 3,
            slices_running: 1,
            slices_ready: 2,
            slices_waiting: 3,
            positions_total: 5000,
            positions_done: 1000,
            bytes_sent: 10,
            bytes_received: 20,
            elapsed: Duration::from_secs(7),
            eta: Some(Duration::from_secs(14)),
            complete: false,
            workers: vec![
                worker.clone(),
                WorkerStatus {
                    holds: None,
                    ..worker
                },
            ],
        };
        let wire = v1::StatusReply::from(status.clone());
        assert_eq!(BuildStatus::try_from(wire.clone()), Ok(status));
        for bad in [f64::NAN, -1.0, f64::INFINITY] {
            let mut elapsed = wire.clone();
            elapsed.elapsed_seconds = bad;
            assert!(BuildStatus::try_from(elapsed).is_err(), "{bad}");
            let mut seen = wire.clone();
            seen.workers[1].last_seen_seconds = bad;
            assert!(BuildStatus::try_from(seen).is_err(), "{bad}");
        }
    }
}
