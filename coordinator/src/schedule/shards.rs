//! Who reads which job's shard, each shard's bytes, and what each
//! worker's cache holds: what the scheduler weighs to send less.

use std::collections::{HashMap, HashSet};
use std::hash::Hash;
use std::time::Instant;

use super::job::Job;

/// Who reads which shard, each shard's bytes, and what each worker holds.
#[derive(Debug, Default)]
pub(super) struct Shards {
    /// Per job, the jobs whose shards it reads.
    pub(super) reads: Vec<Vec<usize>>,
    /// Per job, the jobs that read its shard.
    pub(super) readers: Vec<Vec<usize>>,
    /// Stored bytes of each done job's shard; 0 until told.
    pub(super) bytes: Vec<u64>,
    /// Per worker, the jobs whose shards it said it holds.
    pub(super) held: HashMap<String, HashSet<usize>>,
    /// When each ready job was first seen ready by a lease.
    pub(super) ready_since: HashMap<usize, Instant>,
}

impl Shards {
    pub(super) fn new<Id: Eq + Hash>(jobs: &[Job<Id>], index: &HashMap<Id, usize>) -> Shards {
        let reads: Vec<Vec<usize>> = jobs
            .iter()
            .map(|job| {
                job.reads
                    .iter()
                    .filter_map(|r| index.get(r).copied())
                    .collect()
            })
            .collect();
        let mut readers = vec![Vec::new(); jobs.len()];
        for (job, read) in reads.iter().enumerate() {
            for &r in read {
                readers[r].push(job);
            }
        }
        Shards {
            reads,
            readers,
            bytes: vec![0; jobs.len()],
            held: HashMap::new(),
            ready_since: HashMap::new(),
        }
    }

    /// Notes the jobs ready now that were not before.
    pub(super) fn seen_ready(&mut self, ready: impl Iterator<Item = usize>, now: Instant) {
        for i in ready {
            self.ready_since.entry(i).or_insert(now);
        }
    }

    /// Job `i` is leased: it is not waiting any more.
    pub(super) fn leased(&mut self, i: usize) {
        self.ready_since.remove(&i);
    }

    /// Bytes of job `i`'s shards that `worker` does not hold.
    pub(super) fn missing(&self, worker: &str, i: usize) -> u64 {
        let held = self.held.get(worker);
        self.reads[i]
            .iter()
            .filter(|r| held.is_none_or(|h| !h.contains(r)))
            .map(|&r| self.bytes[r])
            .sum()
    }
}
