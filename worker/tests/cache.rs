//! The worker's shard cache: what is put comes back, per build, across
//! reopening; damage is caught; one worker at a time.

use egdb_db_format::{CellEncoding, Packing};
use egdb_proto::{SliceId, Task};
use egdb_worker::shard::{decode_shard, encode_shard};
use egdb_worker::{ShardCache, WorkerError};

fn task(game: &str, depth: bool) -> Task {
    Task {
        game: game.to_string(),
        depth,
        game_definition: None,
        slice_id: SliceId::new("next"),
        dependencies: Vec::new(),
        verify: false,
        zstd_only: false,
    }
}

#[test]
fn shards_come_back_per_build_and_after_reopening() {
    let dir = tempfile::tempdir().unwrap();
    let raw: Vec<u8> = (0..100_000u32).map(|i| (i * 7 % 251) as u8).collect();
    let shard = encode_shard(
        &SliceId::new("outer-03"),
        CellEncoding::WinBits,
        &raw,
        4096,
        Packing::Small(1),
    )
    .unwrap();
    let nim = task("nim:triangle:6:normal", false);
    {
        let cache = ShardCache::open(dir.path()).unwrap();
        assert!(cache
            .get(&nim, &SliceId::new("outer-03"))
            .unwrap()
            .is_none());
        cache.put(&nim, &shard).unwrap();
        assert_eq!(
            cache.get(&nim, &SliceId::new("outer-03")).unwrap().as_ref(),
            Some(&shard)
        );
        // Same slice name, other build: not there.
        assert!(cache
            .get(
                &task("nim:triangle:6:normal", true),
                &SliceId::new("outer-03")
            )
            .unwrap()
            .is_none());
        assert!(cache
            .get(
                &task("nim:triangle:6:misere", false),
                &SliceId::new("outer-03")
            )
            .unwrap()
            .is_none());
    }
    let cache = ShardCache::open(dir.path()).unwrap();
    let back = cache.get(&nim, &SliceId::new("outer-03")).unwrap().unwrap();
    assert_eq!(decode_shard(&back).unwrap().1, raw);
}

#[test]
fn a_second_worker_cannot_share_the_directory() {
    let dir = tempfile::tempdir().unwrap();
    let _first = ShardCache::open(dir.path()).unwrap();
    match ShardCache::open(dir.path()) {
        Err(WorkerError::Cache { reason, .. }) => assert!(reason.contains("another worker")),
        other => panic!("{other:?}"),
    }
}

#[test]
fn the_instance_recorded_is_the_next_holders_predecessor_and_junk_names_none() {
    let dir = tempfile::tempdir().unwrap();
    {
        let cache = ShardCache::open(dir.path()).unwrap();
        assert_eq!(cache.previous_instance(), None);
        cache.record_instance(7).unwrap();
        cache.record_instance(u64::MAX).unwrap();
    }
    let cache = ShardCache::open(dir.path()).unwrap();
    assert_eq!(cache.previous_instance(), Some(u64::MAX));
    drop(cache);
    let file = dir.path().join("INSTANCE");
    for junk in [
        &b"12"[..],
        b"-3\n",
        b"\n",
        b"18446744073709551616\n",
        &[b'1'; 4096],
    ] {
        std::fs::write(&file, junk).unwrap();
        let cache = ShardCache::open(dir.path()).unwrap();
        assert_eq!(cache.previous_instance(), None, "{junk:?}");
    }
    // A pipe in its place is not read (nothing would ever come).
    std::fs::remove_file(&file).unwrap();
    let made = std::process::Command::new("mkfifo").arg(&file).status();
    assert!(made.unwrap().success());
    let cache = ShardCache::open(dir.path()).unwrap();
    assert_eq!(cache.previous_instance(), None);
    // A link planted where the next is written is replaced, not followed.
    std::fs::remove_file(&file).unwrap();
    let victim = dir.path().join("victim");
    std::fs::write(&victim, "kept").unwrap();
    std::os::unix::fs::symlink(&victim, dir.path().join("INSTANCE.new")).unwrap();
    cache.record_instance(42).unwrap();
    assert_eq!(std::fs::read_to_string(&victim).unwrap(), "kept");
    drop(cache);
    let cache = ShardCache::open(dir.path()).unwrap();
    assert_eq!(cache.previous_instance(), Some(42));
}

#[test]
fn a_cached_block_damaged_on_disk_is_an_error_not_a_shard() {
    let dir = tempfile::tempdir().unwrap();
    let raw = vec![3u8; 10_000];
    let mut shard = encode_shard(
        &SliceId::new("outer-01"),
        CellEncoding::WinBits,
        &raw,
        1024,
        Packing::Small(1),
    )
    .unwrap();
    let nim = task("nim:triangle:5:normal", false);
    let cache = ShardCache::open(dir.path()).unwrap();
    let middle = shard.blocks[2].len() / 2;
    shard.blocks[2][middle] ^= 1;
    cache.put(&nim, &shard).unwrap();
    assert!(cache.get(&nim, &SliceId::new("outer-01")).is_err());
}

#[test]
fn a_cached_shard_larger_than_the_workers_memory_is_refused_before_it_is_inflated() {
    let dir = tempfile::tempdir().unwrap();
    // Zeros: a few hundred stored bytes announce 64 KiB.
    let raw = vec![0u8; 64 << 10];
    let shard = encode_shard(
        &SliceId::new("outer-02"),
        CellEncoding::WinBits,
        &raw,
        4096,
        Packing::Small(1),
    )
    .unwrap();
    let nim = task("nim:triangle:5:normal", false);
    ShardCache::open(dir.path())
        .unwrap()
        .put(&nim, &shard)
        .unwrap();
    let small = ShardCache::open(dir.path())
        .unwrap()
        .with_max_shard_bytes((64 << 10) - 1);
    match small.get(&nim, &SliceId::new("outer-02")) {
        Err(WorkerError::BadShard { slice, reason }) => {
            assert_eq!(slice, "outer-02");
            assert!(reason.contains("65536 raw bytes"), "{reason}");
        }
        other => panic!("{other:?}"),
    }
    drop(small);
    let enough = ShardCache::open(dir.path())
        .unwrap()
        .with_max_shard_bytes(64 << 10);
    let back = enough
        .get(&nim, &SliceId::new("outer-02"))
        .unwrap()
        .unwrap();
    assert_eq!(decode_shard(&back).unwrap().1, raw);
}

/// Shards of incompressible bytes, so that each stores about as many.
fn noise_shard(name: &str, seed: u64) -> egdb_proto::Shard {
    let mut x = seed | 1;
    let raw: Vec<u8> = (0..50_000)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x as u8
        })
        .collect();
    encode_shard(
        &SliceId::new(name),
        CellEncoding::WinBits,
        &raw,
        4096,
        Packing::Small(1),
    )
    .unwrap()
}

#[test]
fn past_its_limit_the_cache_drops_the_shards_used_least_recently() {
    let dir = tempfile::tempdir().unwrap();
    let nim = task("nim:triangle:7:normal", false);
    let shards: Vec<_> = ["a", "b", "c", "d", "e"]
        .iter()
        .zip(1u64..)
        .map(|(name, seed)| noise_shard(name, seed))
        .collect();
    let one = shards[0].stored_bytes();
    let limit = 3 * one + one / 2;
    let held = |cache: &ShardCache| -> Vec<String> {
        ["a", "b", "c", "d", "e"]
            .iter()
            .filter(|name| cache.get(&nim, &SliceId::new(**name)).unwrap().is_some())
            .map(|name| name.to_string())
            .collect()
    };
    {
        let cache = ShardCache::open(dir.path()).unwrap().with_limit(limit);
        for shard in &shards[..3] {
            cache.put(&nim, shard).unwrap();
        }
        // a is read again: b is now the least recently used.
        assert!(cache.get(&nim, &SliceId::new("a")).unwrap().is_some());
        cache.put(&nim, &shards[3]).unwrap();
        assert!(cache.bytes() <= limit, "{} > {limit}", cache.bytes());
        assert!(cache.get(&nim, &SliceId::new("b")).unwrap().is_none());
        assert_eq!(held(&cache), ["a", "c", "d"]);
    }
    // Started again: what an earlier run kept goes before this run's.
    let cache = ShardCache::open(dir.path()).unwrap().with_limit(limit);
    cache.put(&nim, &shards[4]).unwrap();
    let kept = held(&cache);
    assert_eq!(kept.len(), 3, "{kept:?}");
    assert!(kept.contains(&"e".to_string()), "{kept:?}");
    // A shard larger than the limit is kept alone.
    let other = tempfile::tempdir().unwrap();
    let tiny = ShardCache::open(other.path()).unwrap().with_limit(1);
    tiny.put(&nim, &shards[0]).unwrap();
    tiny.put(&nim, &shards[1]).unwrap();
    assert_eq!(tiny.bytes(), shards[1].stored_bytes());
}
