//! The jobs a scheduler hands out, as it sees them.

/// A job as the scheduler sees it: a build's are slices and their checks
/// (`egdb_proto::JobId`); the scheduler only tells ids apart.
#[derive(Debug, Clone)]
pub struct Job<Id> {
    pub id: Id,
    pub dependencies: Vec<Id>,
    /// Bytes a worker needs to take it.
    pub memory: u64,
    pub kind: JobKind,
    /// The jobs whose shards it reads (a check reads its slice's too): a
    /// worker that holds them is sent less (`schedule/locality.rs`).
    pub reads: Vec<Id>,
}

/// What a job asks of a worker. A worker keeps the tables of one kind
/// between jobs (a solve drops what a check read, and the other way
/// round), and jobs of one kind next to each other in the plan read
/// mostly the same slices: so a worker is given another job of the kind
/// it last took while one is ready.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum JobKind {
    #[default]
    Solve,
    Check,
}
