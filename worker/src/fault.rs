//! Transfers damaged on purpose, so that tests can show that a damaged
//! shard is caught and sent again. Behind the feature `fault`, which only
//! the tests turn on: no binary carries it.

use std::sync::atomic::{AtomicU64, Ordering};

use egdb_proto::{
    BuildStatus, CheckReport, Coordinator, Lease, Leased, LinkError, Registration, Shard, SliceId,
    SliceResult, WorkerInfo,
};

/// A coordinator link that flips one byte in the first `n` shards it
/// receives and in the first `n` results it sends.
pub struct DamagingLink<'a> {
    inner: &'a dyn Coordinator,
    n: u64,
    fetches_left: AtomicU64,
    results_left: AtomicU64,
}

impl<'a> DamagingLink<'a> {
    pub fn new(inner: &'a dyn Coordinator, n: u64) -> DamagingLink<'a> {
        DamagingLink {
            inner,
            n,
            fetches_left: AtomicU64::new(n),
            results_left: AtomicU64::new(n),
        }
    }

    /// How many shards received and results sent it damaged so far.
    pub fn damaged(&self) -> (u64, u64) {
        let done = |left: &AtomicU64| self.n - left.load(Ordering::SeqCst);
        (done(&self.fetches_left), done(&self.results_left))
    }
}

/// Takes one from `left` unless it is zero.
fn take_one(left: &AtomicU64) -> bool {
    left.fetch_update(Ordering::SeqCst, Ordering::SeqCst, |n| n.checked_sub(1))
        .is_ok()
}

/// Flips a byte in the middle of the shard's first non-empty block.
fn damage(shard: &mut Shard) {
    if let Some((index, block)) = shard
        .blocks
        .iter_mut()
        .enumerate()
        .find(|(_, b)| !b.is_empty())
    {
        let middle = block.len() / 2;
        block[middle] ^= 0x5a;
        tracing::warn!(slice = %shard.slice_id, block = index, "damaged a shard in transfer (test option)");
    }
}

impl Coordinator for DamagingLink<'_> {
    fn register(&self, worker: &WorkerInfo) -> Result<Registration, LinkError> {
        self.inner.register(worker)
    }

    fn lease(&self, worker: &str) -> Result<Lease, LinkError> {
        self.inner.lease(worker)
    }

    fn lease_holding(&self, worker: &str, held: &[SliceId]) -> Result<Leased, LinkError> {
        self.inner.lease_holding(worker, held)
    }

    fn heartbeat(&self, worker: &str, slice_id: &SliceId) -> Result<bool, LinkError> {
        self.inner.heartbeat(worker, slice_id)
    }

    fn fetch_shard(&self, worker: &str, slice_id: &SliceId) -> Result<Shard, LinkError> {
        let mut shard = self.inner.fetch_shard(worker, slice_id)?;
        if take_one(&self.fetches_left) {
            damage(&mut shard);
        }
        Ok(shard)
    }

    fn complete(&self, worker: &str, mut result: SliceResult) -> Result<(), LinkError> {
        if take_one(&self.results_left) {
            damage(&mut result.shard);
        }
        self.inner.complete(worker, result)
    }

    fn fail(&self, worker: &str, slice_id: &SliceId, reason: &str) -> Result<(), LinkError> {
        self.inner.fail(worker, slice_id, reason)
    }

    fn status(&self) -> Result<BuildStatus, LinkError> {
        self.inner.status()
    }

    fn checked(&self, worker: &str, report: CheckReport) -> Result<(), LinkError> {
        self.inner.checked(worker, report)
    }
}
