//! Which slice goes to which worker, and when: slices become ready when
//! their count of unfinished dependencies reaches zero; a ready slice is
//! leased to one worker with the memory for it, in plan order, until the
//! lease runs out without a heartbeat; finishing is idempotent. Also who is
//! registered, and the tallies `egdb status` shows.
//!
//! Pure: no store and no clock of its own (every call that needs the time
//! is given it), so every rule is unit-tested in milliseconds. `Build`
//! wraps it with persistence and the checks of results.

use std::borrow::Borrow;
use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::hash::Hash;
use std::time::{Duration, Instant};

/// Who holds a slice, since when and until when.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Lease {
    pub worker: String,
    pub since: Instant,
    pub until: Instant,
}

/// A registered worker, as the scheduler last saw it.
#[derive(Debug, Clone)]
pub struct WorkerRecord {
    /// The process registered under this name.
    pub instance: u64,
    pub threads: u32,
    /// Bytes it may use for one slice.
    pub memory: u64,
    pub last_seen: Instant,
    pub slices_done: u64,
    pub positions_done: u64,
    pub bytes_sent: u64,
    pub bytes_received: u64,
    /// It was told that no more work will come.
    pub told_stop: bool,
    /// The kind of the job it was last given.
    pub last_kind: Option<JobKind>,
}

/// A worker process that registers: its instance, and the instance of the
/// earlier process under its name that it replaces, if it knows that one
/// is gone.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Process {
    pub instance: u64,
    pub replaces: Option<u64>,
}

impl From<u64> for Process {
    fn from(instance: u64) -> Process {
        Process {
            instance,
            replaces: None,
        }
    }
}

/// What a worker asking for work gets.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Offer {
    /// The slice at this index of the plan, now leased to it.
    Slice(usize),
    /// Nothing ready that fits it yet: ask again later.
    Wait,
    /// No more work will come.
    Stop,
}

/// Why a call was refused.
#[derive(Debug, Clone, PartialEq)]
pub enum Refusal {
    /// The worker has not registered (since the coordinator started).
    Unregistered,
    /// Another process under this name was heard from this long ago.
    Duplicate { silent: Duration },
}

/// The jobs workers lost when their leases expired, each with the worker.
pub type Expired<Id> = Vec<(Id, String)>;

pub struct Scheduler<Id> {
    jobs: Vec<Job<Id>>,
    index: HashMap<Id, usize>,
    /// For each slice, the slices that read it.
    dependents: Vec<Vec<usize>>,
    /// For each slice, how many of its dependencies are not done.
    unfinished: Vec<usize>,
    done: Vec<bool>,
    done_count: usize,
    /// Not done, not leased, nothing left to wait for; in plan order.
    ready: BTreeSet<usize>,
    leases: BTreeMap<usize, Lease>,
    workers: BTreeMap<String, WorkerRecord>,
    lease_length: Duration,
    halted: bool,
    /// Jobs not to be left to one worker while another can take them:
    /// the check of a slice, to the worker that solved it.
    avoid: HashMap<usize, String>,
    /// Which shards are read by whom, and what each worker holds.
    shards: shards::Shards,
    /// Leases weigh solves and checks by the bytes they lack alone.
    mixed_kinds: bool,
}

impl<Id: Clone + Eq + Hash> Scheduler<Id> {
    /// A schedule of `jobs` (dependencies first) of which `done` are done.
    /// With `any_order`, no slice waits for another (checking a finished
    /// store reads finished slices only). Dependencies outside the plan
    /// count as done.
    pub fn new<'a, Q: Hash + Eq + ?Sized + 'a>(
        jobs: Vec<Job<Id>>,
        done: impl IntoIterator<Item = &'a Q>,
        lease_length: Duration,
        any_order: bool,
    ) -> Scheduler<Id>
    where
        Id: Borrow<Q>,
    {
        let index: HashMap<Id, usize> = jobs
            .iter()
            .enumerate()
            .map(|(i, j)| (j.id.clone(), i))
            .collect();
        let mut done_flags = vec![false; jobs.len()];
        for id in done {
            if let Some(&i) = index.get(id) {
                done_flags[i] = true;
            }
        }
        let mut dependents = vec![Vec::new(); jobs.len()];
        let mut unfinished = vec![0; jobs.len()];
        for (i, job) in jobs.iter().enumerate() {
            for dependency in &job.dependencies {
                if let Some(&d) = index.get::<Id>(dependency) {
                    dependents[d].push(i);
                    if !done_flags[d] && !any_order {
                        unfinished[i] += 1;
                    }
                }
            }
        }
        let ready = (0..jobs.len())
            .filter(|&i| !done_flags[i] && unfinished[i] == 0)
            .collect();
        let shards = shards::Shards::new(&jobs, &index);
        Scheduler {
            done_count: done_flags.iter().filter(|&&d| d).count(),
            jobs,
            index,
            dependents,
            unfinished,
            done: done_flags,
            ready,
            leases: BTreeMap::new(),
            workers: BTreeMap::new(),
            lease_length,
            halted: false,
            avoid: HashMap::new(),
            shards,
            mixed_kinds: false,
        }
    }

    pub fn jobs(&self) -> &[Job<Id>] {
        &self.jobs
    }

    /// The plan index of a job.
    pub fn position<Q: Hash + Eq + ?Sized>(&self, id: &Q) -> Option<usize>
    where
        Id: Borrow<Q>,
    {
        self.index.get(id).copied()
    }

    /// Joins a worker: a new name, or the same process again (after a cut,
    /// or a coordinator restart), keeps its tallies. Another process under
    /// a name still heard from within a lease length is refused, unless
    /// it names the process it replaces (one it knows is gone); after that
    /// silence, or so named, it takes the name over, and the slices the
    /// earlier process held are ready again at once: those are returned.
    ///
    /// # Errors
    /// [`Refusal::Duplicate`].
    pub fn register(
        &mut self,
        name: &str,
        process: impl Into<Process>,
        threads: u32,
        memory: u64,
        now: Instant,
    ) -> Result<Vec<Id>, Refusal> {
        let Process { instance, replaces } = process.into();
        let mut released = Vec::new();
        let record = self
            .workers
            .entry(name.to_string())
            .or_insert_with(|| WorkerRecord {
                instance,
                threads,
                memory,
                last_seen: now,
                slices_done: 0,
                positions_done: 0,
                bytes_sent: 0,
                bytes_received: 0,
                told_stop: false,
                last_kind: None,
            });
        if record.instance != instance {
            let silent = now.saturating_duration_since(record.last_seen);
            if silent < self.lease_length && replaces != Some(record.instance) {
                return Err(Refusal::Duplicate { silent });
            }
            record.instance = instance;
            let (ready, jobs) = (&mut self.ready, &self.jobs);
            self.leases.retain(|&i, lease| {
                let earlier = lease.worker == name;
                if earlier {
                    ready.insert(i);
                    released.push(jobs[i].id.clone());
                }
                !earlier
            });
        }
        record.threads = threads;
        record.memory = memory;
        record.told_stop = false;
        record.last_seen = now;
        Ok(released)
    }

    /// The worker's record, marked as seen now.
    pub fn seen(&mut self, name: &str, now: Instant) -> Option<&mut WorkerRecord> {
        let record = self.workers.get_mut(name)?;
        record.last_seen = now;
        Some(record)
    }

    pub fn workers(&self) -> &BTreeMap<String, WorkerRecord> {
        &self.workers
    }

    /// Whether every worker that registered was told to stop (none counts).
    pub fn workers_told_to_stop(&self) -> bool {
        self.workers.values().all(|w| w.told_stop)
    }

    /// Ends leases not renewed in time: their slices are ready again.
    /// Returns each (slice, worker) that lost one.
    pub fn expire(&mut self, now: Instant) -> Expired<Id> {
        let gone: Vec<usize> = self
            .leases
            .iter()
            .filter(|(_, l)| l.until <= now)
            .map(|(&i, _)| i)
            .collect();
        gone.into_iter()
            .filter_map(|i| {
                let lease = self.leases.remove(&i)?;
                self.ready.insert(i);
                Some((self.jobs[i].id.clone(), lease.worker))
            })
            .collect()
    }

    /// The next slice for `name`: a ready one that fits its memory, of
    /// the [`JobKind`] it last took if one is ready (with
    /// [`Scheduler::mix_kinds`], of either kind); among the first
    /// [`locality::WINDOW`] of those in plan order, the one whose shards
    /// it lacks the fewest bytes of ([`Scheduler::hold`]); without
    /// holdings, the first. A job that another worker between tasks holds
    /// more of waits for it a moment ([`locality::RESERVE`]). Expired
    /// leases are ended first.
    ///
    /// # Errors
    /// [`Refusal::Unregistered`].
    pub fn lease(&mut self, name: &str, now: Instant) -> Result<(Offer, Expired<Id>), Refusal> {
        let finished = self.is_finished();
        let record = self.seen(name, now).ok_or(Refusal::Unregistered)?;
        if finished {
            record.told_stop = true;
            return Ok((Offer::Stop, Vec::new()));
        }
        let (memory, last_kind) = (record.memory, record.last_kind);
        let expired = self.expire(now);
        self.shards.seen_ready(self.ready.iter().copied(), now);
        let takes: Vec<usize> = self
            .ready
            .iter()
            .copied()
            .filter(|&i| self.jobs[i].memory <= memory && self.may_take(i, name, now))
            .filter(|&i| !self.reserved(i, name, now))
            .collect();
        let Some(&first) = takes.first() else {
            return Ok((Offer::Wait, expired));
        };
        let kind = match last_kind {
            Some(kind) if takes.iter().any(|&i| self.jobs[i].kind == kind) => kind,
            _ => self.jobs[first].kind,
        };
        let i = if self.mixed_kinds {
            self.nearest_of_any_kind(name, takes, kind)
        } else {
            let of_kind = takes.into_iter().filter(|&i| self.jobs[i].kind == kind);
            self.nearest(name, of_kind)
        }
        .unwrap_or(first);
        self.shards.leased(i);
        if let Some(record) = self.workers.get_mut(name) {
            record.last_kind = Some(self.jobs[i].kind);
        }
        self.ready.remove(&i);
        self.leases.insert(
            i,
            Lease {
                worker: name.to_string(),
                since: now,
                until: now + self.lease_length,
            },
        );
        Ok((Offer::Slice(i), expired))
    }

    /// Ready jobs that no worker alive (heard from within a lease length)
    /// has the memory for, each with its need and the most any of them
    /// has; none while no worker is alive. Everything that reads them
    /// waits until a worker with more memory joins.
    pub fn stranded(&self, now: Instant) -> Vec<(Id, u64, u64)> {
        let Some(most) = self
            .workers
            .values()
            .filter(|w| now.saturating_duration_since(w.last_seen) < self.lease_length)
            .map(|w| w.memory)
            .max()
        else {
            return Vec::new();
        };
        self.ready
            .iter()
            .filter(|&&i| self.jobs[i].memory > most)
            .map(|&i| (self.jobs[i].id.clone(), self.jobs[i].memory, most))
            .collect()
    }

    /// `job` is not to go to `worker` while another worker that is alive
    /// (heard from within a lease length) has the memory for it.
    pub fn avoid<Q: Hash + Eq + ?Sized>(&mut self, job: &Q, worker: &str)
    where
        Id: Borrow<Q>,
    {
        if let Some(i) = self.position(job) {
            self.avoid.insert(i, worker.to_string());
        }
    }

    fn may_take(&self, i: usize, name: &str, now: Instant) -> bool {
        if self.avoid.get(&i).is_none_or(|w| w != name) {
            return true;
        }
        !self.workers.iter().any(|(other, w)| {
            other != name
                && w.memory >= self.jobs[i].memory
                && now.saturating_duration_since(w.last_seen) < self.lease_length
        })
    }

    /// Keeps `name`'s lease of `slice` alive; false when it does not hold
    /// it (expired and leased again, finished, or never its).
    pub fn heartbeat<Q: Hash + Eq + ?Sized>(&mut self, name: &str, slice: &Q, now: Instant) -> bool
    where
        Id: Borrow<Q>,
    {
        self.seen(name, now);
        let until = now + self.lease_length;
        match self.position(slice).and_then(|i| self.leases.get_mut(&i)) {
            Some(lease) if lease.worker == name => {
                lease.until = until;
                true
            }
            _ => false,
        }
    }

    /// Whether `name` holds the lease of `slice`.
    pub fn holds<Q: Hash + Eq + ?Sized>(&self, name: &str, slice: &Q) -> bool
    where
        Id: Borrow<Q>,
    {
        self.position(slice)
            .and_then(|i| self.leases.get(&i))
            .is_some_and(|l| l.worker == name)
    }

    /// The lease of the slice at `i`, if it is held.
    pub fn lease_of(&self, i: usize) -> Option<&Lease> {
        self.leases.get(&i)
    }

    /// Gives `name`'s lease of `slice` back (a failed solve, a refused
    /// result): the slice is ready again. Whether it held it (nothing
    /// changes if not).
    pub fn release<Q: Hash + Eq + ?Sized>(&mut self, name: &str, slice: &Q) -> bool
    where
        Id: Borrow<Q>,
    {
        let Some(i) = self.position(slice) else {
            return false;
        };
        if self.leases.get(&i).is_none_or(|l| l.worker != name) {
            return false;
        }
        self.leases.remove(&i);
        self.ready.insert(i);
        true
    }

    /// Whether the job at position `i` is done.
    pub fn is_done_at(&self, i: usize) -> bool {
        self.done.get(i).copied().unwrap_or(false)
    }

    pub fn is_done<Q: Hash + Eq + ?Sized>(&self, slice: &Q) -> bool
    where
        Id: Borrow<Q>,
    {
        self.position(slice).is_some_and(|i| self.done[i])
    }

    /// Marks `slice` done (its table stored, or its check taken): its lease
    /// ends, and slices whose last unfinished dependency it was become
    /// ready. True the first time; marking it again changes nothing.
    pub fn finish<Q: Hash + Eq + ?Sized>(&mut self, slice: &Q) -> bool
    where
        Id: Borrow<Q>,
    {
        let Some(i) = self.position(slice) else {
            return false;
        };
        self.leases.remove(&i);
        if self.done[i] {
            return false;
        }
        self.done[i] = true;
        self.done_count += 1;
        self.ready.remove(&i);
        for &d in &self.dependents[i] {
            if self.unfinished[d] > 0 {
                self.unfinished[d] -= 1;
                if self.unfinished[d] == 0 && !self.done[d] && !self.leases.contains_key(&d) {
                    self.ready.insert(d);
                }
            }
        }
        true
    }

    /// No more leases: the build stops after the slices in flight.
    pub fn halt(&mut self) {
        self.halted = true;
    }

    pub fn is_halted(&self) -> bool {
        self.halted
    }

    pub fn done_count(&self) -> usize {
        self.done_count
    }

    pub fn is_complete(&self) -> bool {
        self.done_count == self.jobs.len()
    }

    /// Complete or halted: workers are told to stop.
    pub fn is_finished(&self) -> bool {
        self.halted || self.is_complete()
    }

    /// Slices leased now, ready to lease, and waiting for dependencies.
    pub fn counts(&self) -> (usize, usize, usize) {
        self.counts_of(0..self.jobs.len())
    }

    /// [`Scheduler::counts`] of the jobs in `range` alone.
    pub fn counts_of(&self, range: std::ops::Range<usize>) -> (usize, usize, usize) {
        let running = self.leases.range(range.clone()).count();
        let ready = self.ready.range(range.clone()).count();
        let waiting = range.len() - self.done_in(range) - running - ready;
        (running, ready, waiting)
    }

    /// Jobs done among those in `range`.
    pub fn done_in(&self, range: std::ops::Range<usize>) -> usize {
        self.done
            .get(range)
            .map_or(0, |d| d.iter().filter(|&&d| d).count())
    }

    /// Every lease, by plan index.
    pub fn leases(&self) -> impl Iterator<Item = (usize, &Lease)> {
        self.leases.iter().map(|(&i, l)| (i, l))
    }
}

mod job;
mod locality;
mod shards;

pub use job::{Job, JobKind};

#[cfg(test)]
mod tests;
