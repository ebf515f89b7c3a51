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
        })
    }
}

impl From<Lease> for v1::LeaseReply {
    fn from(lease: Lease) -> v1::LeaseReply {
        match lease {
            Lease::Task(task) => v1::LeaseReply {
                task: Some(task.into()),
                stop: false,
            },
            Lease::Wait => v1::LeaseReply {
                task: None,
                stop: false,
            },
            Lease::Stop => v1::LeaseReply {
                task: None,
                stop: true,
            },
        }
    }
}

impl TryFrom<v1::LeaseReply> for Lease {
    type Error = WireError;

    /// A reply that says stop is a stop, whatever else it carries.
    ///
    /// # Errors
    /// A task whose slice ids are not ids.
    fn try_from(reply: v1::LeaseReply) -> Result<Lease, WireError> {
        Ok(match (reply.stop, reply.task) {
            (true, _) => Lease::Stop,
            (false, Some(task)) => Lease::Task(task.try_into()?),
            (false, None) => Lease::Wait,
        })
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
        };
        for lease in [Lease::Task(task), Lease::Wait, Lease::Stop] {
            let reply = v1::LeaseReply::from(lease.clone());
            assert_eq!(Lease::try_from(reply), Ok(lease));
        }
        let both = v1::LeaseReply {
            task: Some(v1::SliceTask::default()),
            stop: true,
        };
        assert_eq!(Lease::try_from(both), Ok(Lease::Stop));
        let hostile = v1::LeaseReply {
            task: Some(v1::SliceTask {
                slice_id: "a\u{1b}[2J".to_string(),
                ..v1::SliceTask::default()
            }),
            stop: false,
        };
        assert!(Lease::try_from(hostile)
            .expect_err("refused")
            .to_string()
            .starts_with("a slice id is"));
    }
}
