//! The worker's shard cache: what is put comes back, per build, across
//! reopening; damage is caught, and the damaged file goes; one worker at a
//! time.

use std::path::{Path, PathBuf};

use egdb_db_format::{CellEncoding, Packing, Store, StoreIdentity};
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
        memory: 0,
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

/// Shards `a` to `e`, of about the same size.
fn five_noise_shards() -> Vec<egdb_proto::Shard> {
    ["a", "b", "c", "d", "e"]
        .iter()
        .zip(1u64..)
        .map(|(name, seed)| noise_shard(name, seed))
        .collect()
}

#[test]
fn past_its_limit_the_cache_drops_the_shards_used_least_recently() {
    let dir = tempfile::tempdir().unwrap();
    let nim = task("nim:triangle:7:normal", false);
    let shards = five_noise_shards();
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
    assert_eq!(held(&tiny), ["b"]);
    // What it counts is what its files take.
    assert_eq!(tiny.bytes(), disk_bytes(other.path()));
    assert!(tiny.bytes() > shards[1].stored_bytes());
}

#[test]
fn past_its_limit_the_cache_drops_first_what_no_job_reads_then_what_is_read_latest() {
    let dir = tempfile::tempdir().unwrap();
    let nim = task("nim:triangle:7:normal", false);
    let shards = five_noise_shards();
    let one = shards[0].stored_bytes();
    let cache = ShardCache::open(dir.path())
        .unwrap()
        .with_limit(3 * one + one / 2);
    let held = |cache: &ShardCache| -> Vec<String> {
        let mut held: Vec<String> = cache.held().iter().map(|s| s.to_string()).collect();
        held.sort();
        held
    };
    assert!(cache.held().is_empty(), "nothing before the first task");
    for shard in &shards[..3] {
        cache.put(&nim, shard).unwrap();
    }
    assert_eq!(held(&cache), ["a", "b", "c"]);
    // The coordinator's answer: c is read first, then a; b by no job.
    cache.still_read(&[SliceId::new("c"), SliceId::new("a")]);
    cache.put(&nim, &shards[3]).unwrap();
    // b went, though a was the least recently used.
    assert_eq!(held(&cache), ["a", "c", "d"]);
    // Then a, read after c; d, put since the answer, stays.
    cache.put(&nim, &shards[4]).unwrap();
    assert_eq!(held(&cache), ["c", "d", "e"]);
}

/// Bytes of every shard file under `dir`.
fn disk_bytes(dir: &Path) -> u64 {
    std::fs::read_dir(dir)
        .unwrap()
        .map(|entry| {
            let entry = entry.unwrap();
            let meta = entry.metadata().unwrap();
            if meta.is_dir() {
                disk_bytes(&entry.path())
            } else if entry.file_name().to_str().unwrap().ends_with(".shard") {
                meta.len()
            } else {
                0
            }
        })
        .sum()
}

/// The file holding `slice`'s shard somewhere under `dir`.
fn shard_file(dir: &Path, slice: &str) -> Option<PathBuf> {
    std::fs::read_dir(dir).unwrap().find_map(|entry| {
        let path = entry.unwrap().path();
        if path.is_dir() {
            shard_file(&path, slice)
        } else {
            (path.file_name()? == format!("{slice}.shard").as_str()).then_some(path)
        }
    })
}

/// A shard of a few blocks, its raw table, and a cache holding it.
fn cached_shard(dir: &Path) -> (Task, egdb_proto::Shard, Vec<u8>, ShardCache) {
    let raw: Vec<u8> = (0..20_000u32).map(|i| (i % 7) as u8).collect();
    let shard = encode_shard(
        &SliceId::new("kept"),
        CellEncoding::ValueDepth8,
        &raw,
        4096,
        Packing::Small(1),
    )
    .unwrap();
    let nim = task("nim:triangle:6:normal", true);
    let cache = ShardCache::open(dir).unwrap().with_max_shard_bytes(1 << 20);
    cache.put(&nim, &shard).unwrap();
    (nim, shard, raw, cache)
}

#[test]
fn a_damaged_file_is_refused_dropped_and_replaced_by_the_next_put() {
    let dir = tempfile::tempdir().unwrap();
    let (nim, shard, _, cache) = cached_shard(dir.path());
    let file = shard_file(dir.path(), "kept").unwrap();
    let good = std::fs::read(&file).unwrap();
    let mut damages: Vec<(&str, Vec<u8>)> = vec![
        ("cut in the header", good[..12].to_vec()),
        ("cut in a block", good[..good.len() / 2].to_vec()),
        ("a byte more", [&good[..], &[0]].concat()),
        ("another format", [&b"egdbshc9"[..], &good[8..]].concat()),
        ("empty", Vec::new()),
    ];
    // The count of blocks (after magic, id, encoding, lengths), then the
    // first block's length, set past anything the file holds.
    let blocks_at = 8 + 1 + "kept".len() + 1 + 8 + 4 + 8;
    for (what, at) in [("blocks", blocks_at), ("block length", blocks_at + 4)] {
        let mut bad = good.clone();
        bad[at..at + 4].copy_from_slice(&u32::MAX.to_le_bytes());
        damages.push((what, bad));
    }
    for (what, bytes) in damages {
        std::fs::write(&file, &bytes).unwrap();
        match cache.get(&nim, &SliceId::new("kept")) {
            Err(WorkerError::Format(e)) => {
                assert!(e.to_string().contains("cached file"), "{what}: {e}")
            }
            other => panic!("{what}: {other:?}"),
        }
        assert!(!file.exists(), "{what}: the damaged file stays");
        assert!(cache.get(&nim, &SliceId::new("kept")).unwrap().is_none());
        cache.put(&nim, &shard).unwrap();
        assert_eq!(
            cache.get(&nim, &SliceId::new("kept")).unwrap(),
            Some(shard.clone())
        );
    }
}

#[test]
fn an_id_naming_a_path_is_neither_cached_nor_read() {
    let dir = tempfile::tempdir().unwrap();
    let (nim, mut shard, _, cache) = cached_shard(dir.path());
    let outside = dir.path().join("outside.shard");
    std::fs::write(&outside, b"not to be read").unwrap();
    let climbing = SliceId::new("../outside");
    assert!(cache.get(&nim, &climbing).unwrap().is_none());
    shard.slice_id = climbing;
    assert!(matches!(
        cache.put(&nim, &shard),
        Err(WorkerError::BadShard { .. })
    ));
    assert_eq!(std::fs::read(&outside).unwrap(), b"not to be read");
}

#[test]
fn links_and_pipes_in_place_of_a_shard_are_not_read_through() {
    let dir = tempfile::tempdir().unwrap();
    let (nim, shard, _, cache) = cached_shard(dir.path());
    let file = shard_file(dir.path(), "kept").unwrap();
    let elsewhere = dir.path().join("elsewhere");
    std::fs::rename(&file, &elsewhere).unwrap();
    std::os::unix::fs::symlink(&elsewhere, &file).unwrap();
    assert!(cache.get(&nim, &SliceId::new("kept")).is_err());
    // The next put writes over the link, not through it.
    cache.put(&nim, &shard).unwrap();
    assert!(!std::fs::symlink_metadata(&file).unwrap().is_symlink());
    assert_eq!(
        std::fs::read(&elsewhere).unwrap(),
        std::fs::read(&file).unwrap()
    );
    std::fs::remove_file(&file).unwrap();
    let made = std::process::Command::new("mkfifo").arg(&file).status();
    assert!(made.unwrap().success());
    assert!(cache.get(&nim, &SliceId::new("kept")).is_err());
    assert!(!file.exists());
}

#[test]
fn a_cache_an_earlier_egdb_kept_as_a_store_is_removed_and_half_written_files_too() {
    let dir = tempfile::tempdir().unwrap();
    let identity = StoreIdentity {
        game: "nim:triangle:6:normal".to_string(),
        fingerprint: u64::from(crc32fast::hash(b"")),
        definition: None,
        depth: true,
    };
    let older = dir.path().join("nim-triangle-6-normal-depth-00000000");
    drop(Store::create_or_open(&older, &identity).unwrap());
    let (nim, shard, _, cache) = cached_shard(dir.path());
    assert!(!older.exists());
    // A put a stopped process left half done.
    let file = shard_file(dir.path(), "kept").unwrap();
    let aside = file.with_file_name("next.shard.new");
    std::fs::write(&aside, b"half").unwrap();
    drop(cache);
    let cache = ShardCache::open(dir.path()).unwrap();
    assert_eq!(cache.get(&nim, &SliceId::new("kept")).unwrap(), Some(shard));
    assert!(!aside.exists());
    assert_eq!(cache.bytes(), disk_bytes(dir.path()));
}

#[test]
fn another_builds_files_under_the_same_name_are_not_served() {
    let dir = tempfile::tempdir().unwrap();
    let (nim, _, _, cache) = cached_shard(dir.path());
    drop(cache);
    // Rules whose fingerprint (CRC-32 of the definition) is the same.
    let build = shard_file(dir.path(), "kept").unwrap();
    let identity = build.with_file_name("IDENTITY");
    let text = std::fs::read_to_string(&identity).unwrap();
    std::fs::write(&identity, text.replace("\"depth\":true", "\"depth\":false")).unwrap();
    let cache = ShardCache::open(dir.path()).unwrap();
    assert!(cache.get(&nim, &SliceId::new("kept")).unwrap().is_none());
    assert!(!build.exists());
}
