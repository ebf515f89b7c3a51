//! A coordinator (the real process) against a peer that speaks the protocol
//! but lies: results for slices it was never leased, blocks whose headers
//! announce other sizes. Nothing it sends may reach the store.

mod common;

use std::path::Path;
use std::process::Child;
use std::time::Duration;

use common::*;
use egdb_check::identity::cell_encoding;
use egdb_db_format::SliceCounts;
use egdb_db_format::{encode_block, CellEncoding, Packing, Store};
use egdb_games::{Game, GameSpec, SliceId, SliceInfo};
use egdb_proto::client::RemoteCoordinator;
use egdb_proto::{Coordinator, LinkKind, Shard, SliceResult, WorkerInfo};
use egdb_worker::shard::encode_shard;

const GAME: &str = "nim:triangle:4:normal";

struct RunningCoordinator {
    child: Child,
    url: String,
}

impl Drop for RunningCoordinator {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn coordinator(store: &Path) -> RunningCoordinator {
    coordinator_with(store, &[])
}

fn coordinator_with(store: &Path, extra: &[&str]) -> RunningCoordinator {
    let mut args = vec![
        "coordinator",
        GAME,
        "--store",
        store.to_str().unwrap(),
        "--listen",
        "127.0.0.1:0",
    ];
    args.extend_from_slice(extra);
    let (child, url) = spawn_listening(&args);
    RunningCoordinator { child, url }
}

fn peer(url: &str, name: &str) -> RemoteCoordinator {
    let link = RemoteCoordinator::new(url, None, Duration::from_secs(20), None).unwrap();
    link.register(&WorkerInfo {
        name: name.to_string(),
        threads: 1,
        memory: 1 << 30,
        game: None,
        instance: WorkerInfo::new_instance(),
        replaces: None,
    })
    .unwrap();
    link
}

fn plan() -> (Vec<SliceInfo>, CellEncoding) {
    let game = Game::from_spec(&GAME.parse::<GameSpec>().unwrap()).unwrap();
    let encoding = cell_encoding(&game, false);
    (game.slices(), encoding)
}

/// A well-formed result claiming every position of `slice` is lost.
fn forged(slice: &SliceInfo, encoding: CellEncoding) -> SliceResult {
    let raw = vec![0u8; encoding.table_bytes(slice.entries) as usize];
    SliceResult {
        shard: encode_shard(&slice.id, encoding, &raw, 65536, Packing::Small(1)).unwrap(),
        counts: SliceCounts {
            positions: slice.positions,
            loss: slice.positions,
            ..SliceCounts::default()
        },
        solve_time: Duration::ZERO,
    }
}

#[test]
fn results_for_slices_not_leased_to_the_sender_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let store = dir.path().join("t4.egdb");
    let server = coordinator(&store);
    let mallory = peer(&server.url, "mallory");
    let (plan, encoding) = plan();
    // The last slice depends on others, none done: nobody holds it.
    let last = plan.last().unwrap();
    let err = mallory
        .complete("mallory", forged(last, encoding))
        .unwrap_err();
    assert_eq!(err.kind, LinkKind::Refused, "{err}");
    assert!(err.message.contains("not leased"), "{err}");
    // Leased to another worker: still not the sender's.
    let alice = peer(&server.url, "alice");
    let task = alice.lease("alice").unwrap().task().expect("a ready slice");
    let leased = plan.iter().find(|s| s.id == task.slice_id).unwrap();
    let err = mallory
        .complete("mallory", forged(leased, encoding))
        .unwrap_err();
    assert!(err.message.contains("not leased"), "{err}");
    // Giving back what one does not hold, or a slice no build has, is
    // refused too, and alice keeps her lease.
    for slice in [task.slice_id.clone(), SliceId::new("outer-99")] {
        let err = mallory.fail("mallory", &slice, "gone").unwrap_err();
        assert_eq!(err.kind, LinkKind::Refused, "{err}");
        assert!(err.message.contains("holds no lease"), "{err}");
    }
    assert!(
        alice.heartbeat("alice", &task.slice_id).unwrap(),
        "alice still holds it"
    );
    drop(server);
    assert!(stored_slices(&store).is_empty());
}

#[test]
fn blocks_announcing_other_sizes_are_refused_before_inflating() {
    let dir = tempfile::tempdir().unwrap();
    let store = dir.path().join("t4.egdb");
    let server = coordinator(&store);
    let mallory = peer(&server.url, "mallory");
    let (plan, encoding) = plan();
    let task = mallory
        .lease("mallory")
        .unwrap()
        .task()
        .expect("a ready slice");
    let slice = plan.iter().find(|s| s.id == task.slice_id).unwrap();
    let honest = forged(slice, encoding);
    let shard = honest.shard.clone();
    // One block whose header announces twice the slice's bytes (zeros:
    // a few bytes on the wire, as a bomb of gigabytes would be): refused
    // on its header, before anything is inflated.
    let announced = 2 * shard.raw_len;
    let bomb = encode_block(
        0,
        encoding,
        &vec![0u8; announced as usize],
        Packing::Small(1),
    )
    .unwrap();
    let bombed = SliceResult {
        shard: Shard {
            blocks: vec![bomb],
            ..shard.clone()
        },
        ..honest.clone()
    };
    let err = mallory.complete("mallory", bombed).unwrap_err();
    assert!(
        err.message
            .contains(&format!("announces {announced} raw bytes")),
        "{err}"
    );
    // A refused result gives the lease back; take it again. A layout the
    // block size cannot give is refused before any block is received.
    let again = mallory
        .lease("mallory")
        .unwrap()
        .task()
        .expect("the slice again");
    assert_eq!(again.slice_id, task.slice_id);
    let split = SliceResult {
        shard: Shard {
            block_bytes: 1 << 30,
            ..shard.clone()
        },
        ..honest.clone()
    };
    let err = mallory.complete("mallory", split).unwrap_err();
    assert!(err.message.contains("block size"), "{err}");
    // Blocks of a byte each: each would cost the coordinator more to hold
    // than the byte it carries.
    let crumbs = SliceResult {
        shard: Shard {
            block_bytes: 1,
            blocks: vec![vec![0]; shard.raw_len as usize],
            ..shard.clone()
        },
        ..honest.clone()
    };
    let err = mallory.complete("mallory", crumbs).unwrap_err();
    assert!(err.message.contains("at least 1024"), "{err}");
    // A block longer than its raw bytes can compress to is refused as it
    // arrives, not held with the rest until the result is checked.
    let bloated = SliceResult {
        shard: Shard {
            blocks: vec![vec![0; 1 << 20]],
            ..shard
        },
        ..honest
    };
    let err = mallory.complete("mallory", bloated).unwrap_err();
    assert!(err.message.contains("can compress to"), "{err}");
    drop(server);
    assert!(stored_slices(&store).is_empty());
}

#[test]
fn names_and_slice_ids_are_checked_before_they_are_echoed() {
    let dir = tempfile::tempdir().unwrap();
    let store = dir.path().join("t4.egdb");
    let server = coordinator(&store);
    let link = RemoteCoordinator::new(&server.url, None, Duration::from_secs(20), None).unwrap();
    let escape = WorkerInfo {
        name: "evil\u{1b}[2J".to_string(),
        threads: 1,
        memory: 1 << 30,
        game: None,
        instance: 1,
        replaces: None,
    };
    let err = link.register(&escape).unwrap_err();
    assert_eq!(err.kind, LinkKind::Refused, "{err}");
    assert!(err.message.contains("a worker name is"), "{err}");
    assert!(!err.message.contains('\u{1b}'), "{err}");
    let long = WorkerInfo {
        name: "w".repeat(1 << 20),
        ..escape
    };
    let err = link.register(&long).unwrap_err();
    assert!(err.message.contains("1048576 bytes"), "{err}");
    assert!(err.message.len() < 200, "{} bytes", err.message.len());
    let mallory = peer(&server.url, "mallory");
    let err = mallory
        .fetch_shard("mallory", &SliceId::new("x".repeat(1 << 20)))
        .unwrap_err();
    assert!(err.message.contains("a slice id is"), "{err}");
    assert!(err.message.len() < 200, "{} bytes", err.message.len());
}

#[test]
fn a_second_worker_process_under_a_taken_name_waits_until_the_first_falls_silent() {
    let dir = tempfile::tempdir().unwrap();
    let store = dir.path().join("t4.egdb");
    let server = coordinator_with(&store, &["--lease-seconds", "2"]);
    let first = peer(&server.url, "w");
    let held = first.lease("w").unwrap().task().expect("a ready slice");
    let second = WorkerInfo {
        name: "w".into(),
        threads: 1,
        memory: 1 << 30,
        game: None,
        instance: WorkerInfo::new_instance(),
        replaces: None,
    };
    // Impatient: refused at once, saying why.
    let impatient = RemoteCoordinator::new(&server.url, None, Duration::ZERO, None).unwrap();
    let err = impatient.register(&second).unwrap_err();
    assert_eq!(err.kind, LinkKind::Duplicate, "{err}");
    assert!(err.message.contains("another worker named w"), "{err}");
    assert!(err.message.contains("--name"), "{err}");
    // Patient: joins once the first has been silent for a lease length,
    // and the slice the first held is ready again.
    let patient = RemoteCoordinator::new(&server.url, None, Duration::from_secs(20), None).unwrap();
    let started = std::time::Instant::now();
    patient.register(&second).unwrap();
    assert!(
        started.elapsed() >= Duration::from_secs(1),
        "{:?}",
        started.elapsed()
    );
    let task = patient.lease("w").unwrap().task().expect("a ready slice");
    assert_eq!(task.slice_id, held.slice_id);
}

#[test]
fn a_table_that_lies_behind_good_checksums_is_caught_before_anything_is_built_on_it() {
    let dir = tempfile::tempdir().unwrap();
    let (store, reference) = (dir.path().join("t4.egdb"), dir.path().join("reference"));
    build(GAME, &reference, &[]);
    let mut server = coordinator_with(&store, &["--verify-as-built"]);
    let mallory = peer(&server.url, "mallory");
    let task = mallory
        .lease("mallory")
        .unwrap()
        .task()
        .expect("a ready slice");
    // The true table with one value turned: every checksum holds.
    let (record, mut raw) = Store::open_read_only(&reference)
        .unwrap()
        .read_slice(task.slice_id.as_str())
        .unwrap();
    raw[0] ^= 1;
    let lie = SliceResult {
        shard: encode_shard(
            &task.slice_id,
            record.encoding,
            &raw,
            65536,
            Packing::Small(1),
        )
        .unwrap(),
        counts: record.counts.clone(),
        solve_time: Duration::ZERO,
    };
    let _alice = peer(&server.url, "alice");
    mallory
        .complete("mallory", lie)
        .expect("taken: only a check can tell");
    // Its check is not left to the worker that solved it while another is
    // there: mallory would pass its own lie.
    if let Some(next) = mallory.lease("mallory").unwrap().task() {
        assert!(
            !(next.verify && next.slice_id == task.slice_id),
            "the check of its own slice went to mallory"
        );
        mallory.fail("mallory", &next.slice_id, "gone").unwrap();
    }
    // An honest worker checks it before solving anything that reads it.
    let honest = start_worker(&server.url, "bob", &[]);
    let started = std::time::Instant::now();
    let status = loop {
        if let Some(status) = server.child.try_wait().unwrap() {
            break status;
        }
        assert!(
            started.elapsed() < Duration::from_secs(120),
            "the coordinator did not stop"
        );
        std::thread::sleep(Duration::from_millis(50));
    };
    let mut said = String::new();
    std::io::Read::read_to_string(&mut server.child.stdout.take().unwrap(), &mut said).unwrap();
    assert_eq!(status.code(), Some(1), "{said}");
    assert!(
        said.contains(&format!("slice {}: FAILED", task.slice_id)),
        "{said}"
    );
    let worker = finish(honest, "honest worker", Duration::from_secs(60));
    assert!(worker.status.success(), "{}", stderr(&worker));
    let (plan, _) = plan();
    let stored = stored_slices(&store);
    for slice in plan.iter().filter(|s| stored.contains(&s.id.to_string())) {
        assert!(
            !slice.dependencies.contains(&task.slice_id),
            "{} was built on the lie",
            slice.id
        );
    }
    assert!(!Store::open_read_only(&store)
        .unwrap()
        .is_complete()
        .unwrap());
}
