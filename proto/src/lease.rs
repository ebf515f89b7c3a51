//! A lease as both ends see it: a slice to solve or check, a wait, or the
//! end of the build. It crosses the wire as [`v1::LeaseReply`]; these are
//! the conversions.

use egdb_games::SliceId;

use crate::{v1, WireError};

/// A slice leased to a worker: what to solve (or check) and what it reads.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Task {
    /// The game spec, e.g. `nim:triangle:7:normal`.
    pub game: String,
    /// The game's definition where the spec alone does not give it (game
    /// files).
    pub game_definition: Option<String>,
    pub slice_id: SliceId,
    /// Whether the build stores depths.
    pub depth: bool,
    /// The slices this one reads, all finished.
    pub dependencies: Vec<SliceId>,
    /// Check the stored slice against its moves instead of solving it.
    pub verify: bool,
    /// Write blocks with zstd only (the coordinator ranks them later).
    pub zstd_only: bool,
    /// Bytes of memory the coordinator counts the task to need (0: not
    /// said): what the worker has beyond them keeps tables for later tasks.
    pub memory: u64,
}

/// What a worker that asks for work is given.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Lease {
    Task(Task),
    /// Nothing is ready for this worker yet: ask again later.
    Wait,
    /// The build is over: the worker stops.
    Stop,
}

impl Lease {
    /// The task, if this lease gives one.
    pub fn task(self) -> Option<Task> {
        match self {
            Lease::Task(task) => Some(task),
            Lease::Wait | Lease::Stop => None,
        }
    }
}

impl From<Task> for v1::SliceTask {
    fn from(t: Task) -> v1::SliceTask {
        v1::SliceTask {
            game: t.game,
            game_definition: t.game_definition,
            slice_id: t.slice_id.to_string(),
            depth: t.depth,
            dependencies: t.dependencies.iter().map(ToString::to_string).collect(),
            verify: t.verify,
            zstd_only: t.zstd_only,
            memory: t.memory,
        }
    }
}

impl TryFrom<v1::SliceTask> for Task {
    type Error = WireError;

    /// # Errors
    /// A slice id that is not one, the task's or a dependency's.
    fn try_from(t: v1::SliceTask) -> Result<Task, WireError> {
        Ok(Task {
            game: t.game,
            game_definition: t.game_definition,
            slice_id: SliceId::parse(&t.slice_id)?,
            depth: t.depth,
            dependencies: t
                .dependencies
                .iter()
                .map(|d| SliceId::parse(d))
                .collect::<Result<_, _>>()?,
            verify: t.verify,
            zstd_only: t.zstd_only,
            memory: t.memory,
        })
    }
}

pub use crate::wire_limits::MAX_HELD;

/// A lease with what the coordinator says of the shards the worker holds:
/// those that jobs not done still read, the soonest first (`None`: it does
/// not say, and the worker's cache keeps what it used last).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Leased {
    pub lease: Lease,
    pub still_read: Option<Vec<SliceId>>,
}

impl From<Lease> for Leased {
    fn from(lease: Lease) -> Leased {
        Leased {
            lease,
            still_read: None,
        }
    }
}

/// Slice ids as they cross the wire, [`MAX_HELD`] at most.
///
/// # Errors
/// Too many, or one that is not an id.
pub fn slice_ids(ids: &[String]) -> Result<Vec<SliceId>, WireError> {
    if ids.len() > MAX_HELD {
        return Err(WireError::TooManySlices(ids.len()));
    }
    Ok(ids
        .iter()
        .map(|id| SliceId::parse(id))
        .collect::<Result<_, _>>()?)
}

impl From<Leased> for v1::LeaseReply {
    fn from(leased: Leased) -> v1::LeaseReply {
        let (task, stop) = match leased.lease {
            Lease::Task(task) => (Some(task.into()), false),
            Lease::Wait => (None, false),
            Lease::Stop => (None, true),
        };
        v1::LeaseReply {
            task,
            stop,
            still_read: leased.still_read.map(|ids| v1::SliceList {
                slices: ids.iter().map(ToString::to_string).collect(),
            }),
        }
    }
}

impl From<Lease> for v1::LeaseReply {
    fn from(lease: Lease) -> v1::LeaseReply {
        Leased::from(lease).into()
    }
}

impl TryFrom<v1::LeaseReply> for Leased {
    type Error = WireError;

    /// A reply that says stop is a stop, whatever else it carries.
    ///
    /// # Errors
    /// A task whose slice ids are not ids; a list of slices still read
    /// that is too long or holds one that is not an id.
    fn try_from(reply: v1::LeaseReply) -> Result<Leased, WireError> {
        let lease = match (reply.stop, reply.task) {
            (true, _) => Lease::Stop,
            (false, Some(task)) => Lease::Task(task.try_into()?),
            (false, None) => Lease::Wait,
        };
        let still_read = match reply.still_read {
            Some(list) => Some(slice_ids(&list.slices)?),
            None => None,
        };
        Ok(Leased { lease, still_read })
    }
}

impl TryFrom<v1::LeaseReply> for Lease {
    type Error = WireError;

    /// As [`Leased`]'s, the list of slices still read left out.
    ///
    /// # Errors
    /// A task whose slice ids are not ids.
    fn try_from(reply: v1::LeaseReply) -> Result<Lease, WireError> {
        Leased::try_from(v1::LeaseReply {
            still_read: None,
            ..reply
        })
        .map(|leased| leased.lease)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn leases_cross_the_wire_unchanged() {
        let task = Task {
            game: "nim:file:x".to_string(),
            game_definition: Some("cells = 3".to_string()),
            slice_id: SliceId::new("outer-02"),
            depth: true,
            dependencies: vec![SliceId::new("outer-01")],
            verify: true,
            zstd_only: true,
            memory: 1 << 30,
        };
        for lease in [Lease::Task(task), Lease::Wait, Lease::Stop] {
            let reply = v1::LeaseReply::from(lease.clone());
            assert_eq!(Lease::try_from(reply), Ok(lease));
        }
        let both = v1::LeaseReply {
            task: Some(v1::SliceTask::default()),
            stop: true,
            still_read: None,
        };
        assert_eq!(Lease::try_from(both), Ok(Lease::Stop));
        let hostile = v1::LeaseReply {
            task: Some(v1::SliceTask {
                slice_id: "a\u{1b}[2J".to_string(),
                ..v1::SliceTask::default()
            }),
            stop: false,
            still_read: None,
        };
        assert!(Lease::try_from(hostile)
            .expect_err("refused")
            .to_string()
            .starts_with("a slice id is"));
    }

    #[test]
    fn the_slices_still_read_cross_the_wire_bounded() {
        let leased = Leased {
            lease: Lease::Wait,
            still_read: Some(vec![
                SliceId::new("move-03-03"),
                SliceId::new("place-05-02-03"),
            ]),
        };
        let reply = v1::LeaseReply::from(leased.clone());
        assert_eq!(Leased::try_from(reply), Ok(leased));
        let silent = v1::LeaseReply::from(Lease::Wait);
        assert_eq!(Leased::try_from(silent).unwrap().still_read, None);
        let too_many = v1::LeaseReply {
            still_read: Some(v1::SliceList {
                slices: vec!["move-03-03".to_string(); MAX_HELD + 1],
            }),
            ..v1::LeaseReply::default()
        };
        let refused = Leased::try_from(too_many)
            .expect_err("too many")
            .to_string();
        assert_eq!(refused, "65537 slices in one list; at most 65536");
        let hostile = v1::LeaseReply {
            still_read: Some(v1::SliceList {
                slices: vec!["../../etc".to_string()],
            }),
            ..v1::LeaseReply::default()
        };
        assert!(Leased::try_from(hostile).is_err());
    }
}
