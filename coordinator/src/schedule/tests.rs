use std::time::{Duration, Instant};

use proptest::prelude::*;

use super::*;

const LEASE: Duration = Duration::from_secs(10);

fn job(id: &str, dependencies: &[&str], memory: u64) -> Job<String> {
    Job {
        id: id.to_string(),
        dependencies: dependencies.iter().map(|d| d.to_string()).collect(),
        memory,
        kind: JobKind::Solve,
        reads: dependencies.iter().map(|d| d.to_string()).collect(),
    }
}

fn check(id: &str, dependencies: &[&str]) -> Job<String> {
    Job {
        kind: JobKind::Check,
        ..job(id, dependencies, 1)
    }
}

/// a ← b ← c, and d on its own; b needs more memory than the others.
fn chain(done: &[&str]) -> Scheduler<String> {
    let jobs = vec![
        job("a", &[], 1),
        job("b", &["a"], 100),
        job("c", &["b", "a"], 1),
        job("d", &[], 1),
    ];
    Scheduler::new(jobs, done.iter().copied(), LEASE, false)
}

fn leased(s: &mut Scheduler<String>, worker: &str, now: Instant) -> Option<String> {
    match s.lease(worker, now).unwrap().0 {
        Offer::Slice(i) => Some(s.jobs()[i].id.clone()),
        Offer::Wait | Offer::Stop => None,
    }
}

#[test]
fn slices_are_ready_when_their_dependencies_are_done() {
    let t = Instant::now();
    let mut s = chain(&[]);
    assert_eq!(s.counts(), (0, 2, 2));
    s.register("w", 1, 1, 1000, t).unwrap();
    assert_eq!(leased(&mut s, "w", t).as_deref(), Some("a"));
    assert_eq!(leased(&mut s, "w", t).as_deref(), Some("d"));
    assert_eq!(leased(&mut s, "w", t), None);
    assert!(s.finish("a"));
    assert_eq!(leased(&mut s, "w", t).as_deref(), Some("b"));
    assert!(s.finish("b"));
    assert_eq!(leased(&mut s, "w", t).as_deref(), Some("c"));
}

fn one_worker(jobs: Vec<Job<String>>, t: Instant) -> Scheduler<String> {
    let mut s = Scheduler::new(jobs, std::iter::empty::<&str>(), LEASE, false);
    s.register("w", 1, 1, 1000, t).unwrap();
    s
}

#[test]
fn a_worker_is_given_another_job_of_the_kind_it_last_took_while_one_is_ready() {
    let t = Instant::now();
    let mut s = one_worker(
        vec![
            job("a", &["check x"], 1),
            check("check x", &[]),
            check("check y", &[]),
        ],
        t,
    );
    assert_eq!(leased(&mut s, "w", t).as_deref(), Some("check x"));
    assert!(s.finish("check x"));
    // `a` is first in plan order now, but the worker is on checks.
    assert_eq!(leased(&mut s, "w", t).as_deref(), Some("check y"));
    assert_eq!(leased(&mut s, "w", t).as_deref(), Some("a"));
}

#[test]
fn a_worker_new_to_the_build_takes_plan_order_and_turns_when_its_kind_runs_out() {
    let t = Instant::now();
    let mut s = one_worker(
        vec![job("a", &[], 1), check("check x", &[]), job("b", &[], 1)],
        t,
    );
    assert_eq!(leased(&mut s, "w", t).as_deref(), Some("a"));
    assert_eq!(leased(&mut s, "w", t).as_deref(), Some("b"));
    assert_eq!(leased(&mut s, "w", t).as_deref(), Some("check x"));
}

#[test]
fn a_resumed_schedule_starts_from_what_is_done() {
    let t = Instant::now();
    let mut s = chain(&["a", "b"]);
    assert_eq!(s.done_count(), 2);
    s.register("w", 1, 1, 1000, t).unwrap();
    assert_eq!(leased(&mut s, "w", t).as_deref(), Some("c"));
}

#[test]
fn a_slice_goes_only_to_a_worker_with_the_memory_for_it() {
    let t = Instant::now();
    let mut s = chain(&["a"]);
    s.register("small", 1, 1, 10, t).unwrap();
    s.register("big", 2, 1, 1000, t).unwrap();
    assert_eq!(leased(&mut s, "small", t).as_deref(), Some("d"));
    assert_eq!(leased(&mut s, "small", t), None);
    assert_eq!(leased(&mut s, "big", t).as_deref(), Some("b"));
}

#[test]
fn a_ready_slice_no_live_worker_has_the_memory_for_is_stranded() {
    let t = Instant::now();
    let mut s = chain(&["a"]);
    assert!(s.stranded(t).is_empty(), "no worker yet: nothing to say");
    s.register("small", 1, 1, 10, t).unwrap();
    s.register("smaller", 2, 1, 5, t).unwrap();
    assert_eq!(s.stranded(t), vec![("b".to_string(), 100, 10)]);
    // A big worker that fell silent does not count; one alive does.
    s.register("big", 3, 1, 1000, t).unwrap();
    let later = t + LEASE;
    s.seen("small", later);
    assert_eq!(s.stranded(later), vec![("b".to_string(), 100, 10)]);
    s.seen("big", later);
    assert!(s.stranded(later).is_empty());
    // Leased, it is no longer ready.
    s.seen("big", t);
    assert_eq!(leased(&mut s, "big", t).as_deref(), Some("b"));
    s.register("big", 3, 1, 1, t).unwrap();
    assert!(s.stranded(t).is_empty());
}

#[test]
fn a_lease_without_heartbeats_expires_and_a_heartbeat_keeps_it() {
    let t = Instant::now();
    let mut s = chain(&[]);
    s.register("w1", 1, 1, 1000, t).unwrap();
    s.register("w2", 2, 1, 1000, t).unwrap();
    assert_eq!(leased(&mut s, "w1", t).as_deref(), Some("a"));
    assert!(s.heartbeat("w1", "a", t + LEASE / 2));
    // Renewed: still w1's a lease length after the first.
    assert_eq!(s.expire(t + LEASE), Vec::new());
    assert!(s.holds("w1", "a"));
    let (offer, expired) = s.lease("w2", t + LEASE * 2).unwrap();
    assert_eq!(expired, vec![("a".to_string(), "w1".to_string())]);
    assert_eq!(offer, Offer::Slice(0));
    assert!(!s.heartbeat("w1", "a", t + LEASE * 2));
    assert!(!s.holds("w1", "a"));
}

#[test]
fn finishing_twice_changes_nothing() {
    let t = Instant::now();
    let mut s = chain(&[]);
    assert!(s.finish("a"));
    assert!(!s.finish("a"));
    assert!(!s.finish("not-a-slice"));
    assert_eq!(s.done_count(), 1);
    // b has one dependency left (a counted once): it is ready, c is not.
    s.register("w", 1, 1, 1000, t).unwrap();
    assert_eq!(leased(&mut s, "w", t).as_deref(), Some("b"));
    assert_eq!(leased(&mut s, "w", t).as_deref(), Some("d"));
    assert_eq!(leased(&mut s, "w", t), None);
}

#[test]
fn a_released_slice_is_ready_again_and_only_its_holder_releases_it() {
    let t = Instant::now();
    let mut s = chain(&[]);
    s.register("w1", 1, 1, 1000, t).unwrap();
    s.register("w2", 2, 1, 1000, t).unwrap();
    assert_eq!(leased(&mut s, "w1", t).as_deref(), Some("a"));
    assert!(!s.release("w2", "a"), "w2 does not hold it");
    assert!(!s.release("w1", "nowhere"), "no such slice");
    assert!(s.holds("w1", "a"));
    assert!(s.release("w1", "a"));
    assert_eq!(leased(&mut s, "w2", t).as_deref(), Some("a"));
}

#[test]
fn a_second_process_under_a_name_waits_for_the_first_to_fall_silent() {
    let t = Instant::now();
    let mut s = chain(&[]);
    s.register("w", 1, 1, 1000, t).unwrap();
    assert_eq!(leased(&mut s, "w", t).as_deref(), Some("a"));
    // The same process again (after a cut) keeps its lease.
    s.register("w", 1, 1, 1000, t).unwrap();
    assert!(s.holds("w", "a"));
    let refused = s.register("w", 2, 1, 1000, t + LEASE / 2);
    assert_eq!(refused, Err(Refusal::Duplicate { silent: LEASE / 2 }));
    // Silent for a lease length: the newcomer takes the name over, and
    // the slice the first held is ready again at once.
    assert_eq!(
        s.register("w", 2, 1, 1000, t + LEASE),
        Ok(vec!["a".to_string()])
    );
    assert!(!s.holds("w", "a"));
    assert_eq!(leased(&mut s, "w", t + LEASE).as_deref(), Some("a"));
}

#[test]
fn a_process_that_names_the_one_it_replaces_takes_the_name_at_once() {
    let t = Instant::now();
    let mut s = chain(&[]);
    s.register("w", 1, 1, 1000, t).unwrap();
    assert_eq!(leased(&mut s, "w", t).as_deref(), Some("a"));
    let replacing = |replaces| Process {
        instance: 2,
        replaces: Some(replaces),
    };
    // Naming a process that is not the one under the name changes nothing.
    let refused = s.register("w", replacing(7), 1, 1000, t + LEASE / 4);
    assert_eq!(refused, Err(Refusal::Duplicate { silent: LEASE / 4 }));
    assert!(s.holds("w", "a"));
    // Naming the one that holds it: the name and its slice are free now.
    assert_eq!(
        s.register("w", replacing(1), 1, 1000, t + LEASE / 4),
        Ok(vec!["a".to_string()])
    );
    assert_eq!(leased(&mut s, "w", t + LEASE / 4).as_deref(), Some("a"));
    // The first, back (it was cut off, not gone), is the stranger now.
    let refused = s.register("w", 1, 1, 1000, t + LEASE / 2);
    assert_eq!(refused, Err(Refusal::Duplicate { silent: LEASE / 4 }));
}

#[test]
fn workers_are_told_to_stop_when_the_build_is_complete_or_halted() {
    let t = Instant::now();
    let mut s = chain(&["a", "b", "c"]);
    assert!(s
        .lease("nobody", t)
        .is_err_and(|r| r == Refusal::Unregistered));
    s.register("w", 1, 1, 1000, t).unwrap();
    assert!(!s.workers_told_to_stop());
    s.halt();
    assert_eq!(s.lease("w", t).unwrap().0, Offer::Stop);
    assert!(s.workers_told_to_stop());
    let mut s = chain(&["a", "b", "c", "d"]);
    assert!(s.is_complete());
    s.register("w", 1, 1, 1000, t).unwrap();
    assert_eq!(s.lease("w", t).unwrap().0, Offer::Stop);
}

#[test]
fn checking_a_finished_store_waits_for_nothing() {
    let t = Instant::now();
    let jobs = vec![job("a", &[], 1), job("b", &["a"], 1)];
    let mut s = Scheduler::new(jobs, None::<&str>, LEASE, true);
    s.register("w", 1, 1, 1000, t).unwrap();
    assert_eq!(leased(&mut s, "w", t).as_deref(), Some("a"));
    assert_eq!(leased(&mut s, "w", t).as_deref(), Some("b"));
}

/// What happens next, in a random run.
#[derive(Debug, Clone)]
enum Event {
    /// Worker `w` (a new process when `restart`, naming the last one
    /// that registered under its name when `replacing`) registers.
    Register {
        w: usize,
        restart: bool,
        replacing: bool,
    },
    Lease {
        w: usize,
    },
    Heartbeat {
        w: usize,
        slice: usize,
    },
    /// Worker `w` hands over `slice`: stored only if it holds the lease
    /// and the slice is not done, as `Build::complete` does.
    Complete {
        w: usize,
        slice: usize,
    },
    Release {
        w: usize,
        slice: usize,
    },
    /// The clock moves on by this many tenths of a lease.
    Wait {
        tenths: u32,
    },
    /// The worker says it holds the shards of the slices whose bits are set.
    Hold {
        w: usize,
        slices: u16,
    },
}

fn event(workers: usize, slices: usize) -> impl Strategy<Value = Event> {
    prop_oneof![
        1 => (0..workers, any::<bool>(), any::<bool>())
            .prop_map(|(w, restart, replacing)| Event::Register { w, restart, replacing }),
        3 => (0..workers).prop_map(|w| Event::Lease { w }),
        1 => (0..workers, 0..slices).prop_map(|(w, slice)| Event::Heartbeat { w, slice }),
        3 => (0..workers, 0..slices).prop_map(|(w, slice)| Event::Complete { w, slice }),
        1 => (0..workers, 0..slices).prop_map(|(w, slice)| Event::Release { w, slice }),
        1 => (0u32..15).prop_map(|tenths| Event::Wait { tenths }),
        1 => (0..workers, any::<u16>()).prop_map(|(w, slices)| Event::Hold { w, slices }),
    ]
}

/// A random plan: each slice depends on some earlier ones.
fn plan() -> impl Strategy<Value = Vec<Job<String>>> {
    prop::collection::vec(
        (
            prop::collection::vec(any::<prop::sample::Index>(), 0..3),
            1u64..4,
        ),
        1..10,
    )
    .prop_map(|slices| {
        slices
            .iter()
            .enumerate()
            .map(|(i, (deps, memory))| {
                let mut dependencies: Vec<String> = if i == 0 {
                    Vec::new()
                } else {
                    deps.iter().map(|d| format!("s{}", d.index(i))).collect()
                };
                dependencies.sort();
                dependencies.dedup();
                Job {
                    id: format!("s{i}"),
                    reads: dependencies.clone(),
                    dependencies,
                    memory: *memory,
                    kind: if i % 3 == 2 {
                        JobKind::Check
                    } else {
                        JobKind::Solve
                    },
                }
            })
            .collect()
    })
}

/// What must hold after every event.
fn check_invariants(s: &Scheduler<String>) -> Result<(), TestCaseError> {
    let (running, ready, waiting) = s.counts();
    prop_assert_eq!(running + ready + waiting + s.done_count(), s.jobs().len());
    for (i, job) in s.jobs().iter().enumerate() {
        let leased = s.lease_of(i).is_some();
        let done = s.is_done(&job.id);
        prop_assert!(!(leased && done), "{} leased and done", job.id);
        if leased {
            for d in &job.dependencies {
                prop_assert!(s.is_done(d), "{} leased before {d} is done", job.id);
            }
        }
    }
    Ok(())
}

proptest! {
    #[test]
    fn random_event_orders(
        jobs in plan(),
        events in prop::collection::vec(event(3, 10), 0..120),
    ) {
        let count = jobs.len();
        let mut s = Scheduler::new(jobs, None::<&str>, LEASE, false);
        let mut now = Instant::now();
        let name = |w: usize| format!("w{w}");
        let mut instances = [1u64, 2, 3];
        let mut registered = [None; 3];
        let mut stored = vec![0u32; count];
        for event in events {
            match event {
                Event::Register { w, restart, replacing } => {
                    if restart {
                        instances[w] += 10;
                    }
                    let process = Process {
                        instance: instances[w],
                        replaces: registered[w].filter(|_| replacing),
                    };
                    if s.register(&name(w), process, 1, 2 + w as u64, now).is_ok() {
                        registered[w] = Some(instances[w]);
                    }
                }
                Event::Lease { w } => {
                    if let Ok((Offer::Slice(i), _)) = s.lease(&name(w), now) {
                        prop_assert!(s.holds(&name(w), &s.jobs()[i].id.clone()));
                    }
                }
                Event::Heartbeat { w, slice } => {
                    let id = format!("s{}", slice % count);
                    let held = s.holds(&name(w), &id);
                    prop_assert_eq!(s.heartbeat(&name(w), &id, now), held);
                }
                Event::Complete { w, slice } => {
                    let id = format!("s{}", slice % count);
                    // Build stores a result from the lease holder alone:
                    // counted here without asking whether it is done.
                    if s.holds(&name(w), &id) {
                        stored[slice % count] += 1;
                        prop_assert!(s.finish(&id));
                        s.set_shard_bytes(&id, 1 + slice as u64);
                    }
                }
                Event::Release { w, slice } => {
                    s.release(&name(w), &format!("s{}", slice % count));
                }
                Event::Wait { tenths } => now += LEASE * tenths / 10,
                Event::Hold { w, slices } => {
                    let ids: Vec<String> = (0..16)
                        .filter(|b| slices & (1 << b) != 0)
                        .map(|b| format!("s{b}"))
                        .collect();
                    s.hold(&name(w), &ids);
                    // Held, and read by a job not done.
                    for id in s.still_read(&name(w)) {
                        let read = s.jobs().iter().any(|j| j.reads.contains(&id) && !s.is_done(&j.id));
                        prop_assert!(ids.contains(&id) && read, "{}", id);
                    }
                }
            }
            check_invariants(&s)?;
        }
        // No slice is solved twice.
        prop_assert!(stored.iter().all(|&n| n <= 1), "{:?}", stored);
        // Every lease expires without heartbeats.
        now += LEASE;
        s.expire(now);
        prop_assert_eq!(s.leases().count(), 0);
        // None is lost: a worker with memory for all finishes the rest.
        s.register("last", 99, 1, u64::MAX, now).unwrap();
        for _ in s.done_count()..count {
            match s.lease("last", now).unwrap().0 {
                Offer::Slice(i) => {
                    let id = s.jobs()[i].id.clone();
                    prop_assert!(s.finish(&id));
                }
                other => prop_assert!(false, "{other:?} with {} of {count} done", s.done_count()),
            }
        }
        prop_assert!(s.is_complete());
        prop_assert_eq!(s.lease("last", now).unwrap().0, Offer::Stop);
    }
}

#[test]
fn counts_of_a_range_count_those_jobs_alone() {
    let t = Instant::now();
    let mut s = chain(&["a"]);
    s.register("w", 1, 1, 1000, t).unwrap();
    assert_eq!(leased(&mut s, "w", t).as_deref(), Some("b"));
    // a done, b leased, c waiting, d ready.
    assert_eq!(s.counts_of(0..2), (1, 0, 0));
    assert_eq!(s.counts_of(2..4), (0, 1, 1));
    assert_eq!(s.counts(), (1, 1, 1));
}

#[test]
fn a_job_to_avoid_goes_to_another_live_worker_and_to_its_avoider_only_alone() {
    let t = Instant::now();
    let jobs = vec![job("a", &[], 1), job("check:a", &["a"], 1)];
    let mut s = Scheduler::new(jobs, ["a"], LEASE, false);
    s.avoid("check:a", "solver");
    s.register("solver", 1, 1, 1000, t).unwrap();
    // Alone, the solver takes it rather than leave it undone.
    assert!(s.may_take(1, "solver", t));
    s.register("other", 2, 1, 1000, t).unwrap();
    assert_eq!(leased(&mut s, "solver", t), None);
    assert_eq!(leased(&mut s, "other", t).as_deref(), Some("check:a"));
    // Given back, and the other worker falls silent: the solver may.
    s.release("other", "check:a");
    let later = t + LEASE + Duration::from_secs(1);
    assert_eq!(leased(&mut s, "solver", later).as_deref(), Some("check:a"));
    // A worker without the memory for it does not count.
    let mut s = Scheduler::new(
        vec![job("a", &[], 1), job("check:a", &["a"], 500)],
        ["a"],
        LEASE,
        false,
    );
    s.avoid("check:a", "solver");
    s.register("solver", 1, 1, 1000, t).unwrap();
    s.register("small", 2, 1, 100, t).unwrap();
    assert_eq!(leased(&mut s, "solver", t).as_deref(), Some("check:a"));
}

/// Two workers alive; jobs `r0`.. each read shard `s0`.. of 100 bytes
/// (done), and `both` reads `s0` and `s1`.
fn reading(held_1: &[&str], held_2: &[&str], t: Instant) -> Scheduler<String> {
    let mut jobs: Vec<Job<String>> = (0..4).map(|i| job(&format!("s{i}"), &[], 1)).collect();
    jobs.extend((0..4).map(|i| job(&format!("r{i}"), &[&format!("s{i}")], 1)));
    jobs.push(job("both", &["s0", "s1"], 1));
    let done = ["s0", "s1", "s2", "s3"];
    let mut s = Scheduler::new(jobs, done, LEASE, false);
    for shard in done {
        s.set_shard_bytes(shard, 100);
    }
    s.register("w1", 1, 1, 1000, t).unwrap();
    s.register("w2", 2, 1, 1000, t).unwrap();
    s.hold("w1", held_1.iter().copied());
    s.hold("w2", held_2.iter().copied());
    s
}

#[test]
fn a_worker_is_leased_the_ready_job_whose_shards_it_holds() {
    let t = Instant::now();
    let mut s = reading(&["s2"], &[], t);
    assert_eq!(leased(&mut s, "w1", t).as_deref(), Some("r2"));
    // Nothing held that a job reads: plan order.
    assert_eq!(leased(&mut s, "w2", t).as_deref(), Some("r0"));
}

#[test]
fn a_worker_is_leased_the_job_it_lacks_the_fewest_bytes_of() {
    let t = Instant::now();
    // w1 holds s0 and s1: `both` lacks nothing, r2 everything.
    let mut s = reading(&["s0", "s1"], &["s2"], t);
    assert_eq!(leased(&mut s, "w1", t).as_deref(), Some("r0"));
    assert_eq!(leased(&mut s, "w1", t).as_deref(), Some("r1"));
    assert_eq!(leased(&mut s, "w1", t).as_deref(), Some("both"));
    // w2 holds s2; r2 goes to it, then the rest in plan order.
    assert_eq!(leased(&mut s, "w2", t).as_deref(), Some("r2"));
    assert_eq!(leased(&mut s, "w2", t).as_deref(), Some("r3"));
}

#[test]
fn no_job_waits_for_a_silent_worker() {
    let t = Instant::now();
    // w2 is between tasks and holds s0: r0 waits for it.
    let mut s = reading(&[], &["s0"], t);
    assert_eq!(leased(&mut s, "w1", t).as_deref(), Some("r1"));
    // The same, but w2 was last heard from a lease length ago.
    let mut s = reading(&[], &["s0"], t);
    let later = t + LEASE;
    s.seen("w1", later);
    assert_eq!(leased(&mut s, "w1", later).as_deref(), Some("r0"));
}

#[test]
fn locality_chooses_only_among_the_first_ready_jobs() {
    let t = Instant::now();
    let count = locality::WINDOW + 2;
    let mut jobs = vec![job("s", &[], 1)];
    jobs.extend((0..count).map(|i| {
        let reads: &[&str] = if i == count - 1 { &["s"] } else { &[] };
        job(&format!("j{i}"), reads, 1)
    }));
    let mut s = Scheduler::new(jobs, ["s"], LEASE, false);
    s.set_shard_bytes("s", 100);
    s.register("w", 1, 1, 1000, t).unwrap();
    s.hold("w", ["s"]);
    // The job that reads `s` is past the window: plan order.
    assert_eq!(leased(&mut s, "w", t).as_deref(), Some("j0"));
}

#[test]
fn the_shards_still_read_come_soonest_first_and_those_read_by_none_are_left_out() {
    let t = Instant::now();
    let jobs = vec![
        job("a", &[], 1),
        job("b", &[], 1),
        job("c", &[], 1),
        job("late", &["a", "wait"], 1),
        job("soon", &["b"], 1),
        job("wait", &[], 1),
        check("check c", &["c"]),
    ];
    let mut s = Scheduler::new(jobs, ["a", "b", "c", "check c"], LEASE, false);
    s.register("w", 1, 1, 1000, t).unwrap();
    s.hold("w", ["a", "b", "c", "nowhere"]);
    // `soon` is ready, `late` waits for `wait`; nothing not done reads `c`.
    assert_eq!(s.still_read("w"), vec!["b".to_string(), "a".to_string()]);
    assert!(s.still_read("nobody").is_empty());
}

#[test]
fn a_shard_read_only_by_a_check_kept_from_the_worker_is_not_still_read_there() {
    let t = Instant::now();
    let jobs = vec![
        job("a", &[], 1),
        job("b", &[], 1),
        check("check a", &["a"]),
        check("check b", &["b"]),
    ];
    let mut s = Scheduler::new(jobs, ["a", "b"], LEASE, false);
    s.register("solver", 1, 1, 1000, t).unwrap();
    s.register("other", 2, 1, 1000, t).unwrap();
    // `solver` solved `a`: its check goes to the other worker.
    s.avoid("check a", "solver");
    for worker in ["solver", "other"] {
        s.hold(worker, ["a", "b"]);
    }
    assert_eq!(s.still_read("solver"), vec!["b".to_string()]);
    assert_eq!(
        s.still_read("other"),
        vec!["a".to_string(), "b".to_string()]
    );
}

/// One worker that last solved and holds `held`; ready: the solve `next`,
/// which reads `x` (100 bytes), and the check `check y`, which reads `y`
/// (100 bytes).
fn after_a_solve(held: &[&str], mixed: bool, t: Instant) -> Scheduler<String> {
    let jobs = vec![
        job("x", &[], 1),
        job("y", &[], 1),
        job("first", &[], 1),
        job("next", &["x"], 1),
        check("check y", &["y"]),
    ];
    let mut s = Scheduler::new(jobs, ["x", "y"], LEASE, false);
    for shard in ["x", "y"] {
        s.set_shard_bytes(shard, 100);
    }
    s.register("w", 1, 1, 1000, t).unwrap();
    assert_eq!(leased(&mut s, "w", t).as_deref(), Some("first"));
    s.mix_kinds(mixed);
    s.hold("w", held.iter().copied());
    s
}

#[test]
fn with_kinds_mixed_a_worker_turns_to_the_kind_whose_shards_it_holds() {
    let t = Instant::now();
    // It holds what the check reads: kinds kept together, it solves on.
    let mut s = after_a_solve(&["y"], false, t);
    assert_eq!(leased(&mut s, "w", t).as_deref(), Some("next"));
    let mut s = after_a_solve(&["y"], true, t);
    assert_eq!(leased(&mut s, "w", t).as_deref(), Some("check y"));
    // Where both lack as much, the kind it last took.
    let mut s = after_a_solve(&[], true, t);
    assert_eq!(leased(&mut s, "w", t).as_deref(), Some("next"));
    let mut s = after_a_solve(&["x", "y"], true, t);
    assert_eq!(leased(&mut s, "w", t).as_deref(), Some("next"));
}

/// `next` reads `solved` (100 bytes, done), which `w2` holds; `w1` and
/// `w2` are alive.
fn chain_end(t: Instant) -> Scheduler<String> {
    let jobs = vec![
        job("solved", &[], 1),
        job("next", &["solved"], 1),
        job("other", &[], 1),
    ];
    let mut s = Scheduler::new(jobs, ["solved", "other"], LEASE, false);
    s.set_shard_bytes("solved", 100);
    s.register("w1", 1, 1, 1000, t).unwrap();
    s.register("w2", 2, 1, 1000, t).unwrap();
    s.hold("w2", ["solved"]);
    s
}

#[test]
fn a_job_just_ready_waits_a_moment_for_the_worker_between_tasks_that_holds_its_shards() {
    let t = Instant::now();
    let mut s = chain_end(t);
    // w2 has just sent `solved` and holds no lease: w1, which polled
    // first, waits rather than fetch it all.
    assert_eq!(leased(&mut s, "w1", t), None);
    assert_eq!(leased(&mut s, "w2", t).as_deref(), Some("next"));
}

#[test]
fn the_wait_ends_after_a_moment() {
    let t = Instant::now();
    let mut s = chain_end(t);
    assert_eq!(leased(&mut s, "w1", t), None);
    let later = t + locality::RESERVE;
    s.seen("w2", later);
    assert_eq!(leased(&mut s, "w1", later).as_deref(), Some("next"));
}

#[test]
fn no_job_waits_for_a_worker_that_is_busy() {
    let t = Instant::now();
    let jobs = vec![
        job("solved", &[], 1),
        job("busy", &[], 1),
        job("next", &["solved"], 1),
    ];
    let mut s = Scheduler::new(jobs, ["solved"], LEASE, false);
    s.set_shard_bytes("solved", 100);
    s.register("w1", 1, 1, 1000, t).unwrap();
    s.register("w2", 2, 1, 1000, t).unwrap();
    assert_eq!(leased(&mut s, "w2", t).as_deref(), Some("busy"));
    s.hold("w2", ["solved"]);
    // w2 holds `solved` but works: w1 takes `next` at once.
    assert_eq!(leased(&mut s, "w1", t).as_deref(), Some("next"));
}
