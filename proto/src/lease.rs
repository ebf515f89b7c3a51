//! A lease as both ends see it: a slice to solve or check, a wait, or the
//! end of the build. It crosses the wire as [`v1::LeaseReply`]; these are
//! the conversions.

use crate::v1;

/// A slice leased to a worker: what to solve (or check) and what it reads.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Task {
    /// The game spec, e.g. `nim:triangle:7:normal`.
    pub game: String,
    /// The game's definition where the spec alone does not give it (game
    /// files).
    pub game_definition: Option<String>,
    pub slice_id: String,
    /// Whether the build stores depths.
    pub depth: bool,
    /// The slices this one reads, all finished.
    pub dependencies: Vec<String>,
    /// Check the stored slice against its moves instead of solving it.
    pub verify: bool,
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
            slice_id: t.slice_id,
            depth: t.depth,
            dependencies: t.dependencies,
            verify: t.verify,
        }
    }
}

impl From<v1::SliceTask> for Task {
    fn from(t: v1::SliceTask) -> Task {
        Task {
            game: t.game,
            game_definition: t.game_definition,
            slice_id: t.slice_id,
            depth: t.depth,
            dependencies: t.dependencies,
            verify: t.verify,
        }
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

impl From<v1::LeaseReply> for Lease {
    /// A reply that says stop is a stop, whatever else it carries.
    fn from(reply: v1::LeaseReply) -> Lease {
        match (reply.stop, reply.task) {
            (true, _) => Lease::Stop,
            (false, Some(task)) => Lease::Task(task.into()),
            (false, None) => Lease::Wait,
        }
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
            slice_id: "outer-02".to_string(),
            depth: true,
            dependencies: vec!["outer-01".to_string()],
            verify: true,
        };
        for lease in [Lease::Task(task), Lease::Wait, Lease::Stop] {
            let reply = v1::LeaseReply::from(lease.clone());
            assert_eq!(Lease::from(reply), lease);
        }
        let both = v1::LeaseReply {
            task: Some(v1::SliceTask::default()),
            stop: true,
        };
        assert_eq!(Lease::from(both), Lease::Stop);
    }
}
