//! A store whose RocksDB files were damaged after the build — a flipped
//! byte in a data block, a truncated or missing table file — is named as
//! damaged by every command that meets the damage, with the slice where
//! one is at fault; `compare` vouches only for what it read.

mod common;

use std::path::{Path, PathBuf};

use common::*;

const GAME: &str = "morris:taiwan:4";

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        std::fs::copy(entry.path(), to.join(entry.file_name())).unwrap();
    }
}

/// The store's largest table file: the blocks' column family.
fn largest_sst(store: &Path) -> PathBuf {
    std::fs::read_dir(store)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "sst"))
        .max_by_key(|p| std::fs::metadata(p).unwrap().len())
        .expect("a finished store is flushed to table files")
}

fn run(args: &[&str]) -> (Option<i32>, String, String) {
    let out = egdb(args);
    (out.status.code(), stdout(&out), stderr(&out))
}

#[test]
fn damaged_files_are_named_by_every_command() {
    let dir = tempfile::tempdir().unwrap();
    let intact = dir.path().join("intact");
    build(GAME, &intact, &[]);
    let list = dir.path().join("list.crc");
    let (code, _, err) = run(&[
        "results",
        "--store",
        intact.to_str().unwrap(),
        "--crc",
        list.to_str().unwrap(),
    ]);
    assert_eq!(code, Some(0), "{err}");
    let list = list.to_str().unwrap();

    // A byte flipped in the middle of a data block of the blocks' file.
    let flipped = dir.path().join("flipped");
    copy_dir(&intact, &flipped);
    let sst = largest_sst(&flipped);
    let mut bytes = std::fs::read(&sst).unwrap();
    let middle = bytes.len() / 3;
    bytes[middle] ^= 0x55;
    std::fs::write(&sst, bytes).unwrap();
    let store = flipped.to_str().unwrap();
    let (code, out, err) = run(&["compare", "--store", store, "--crc", list]);
    assert_eq!(code, Some(1), "{out}{err}");
    assert!(
        out.contains("damaged place") || out.contains("damaged move"),
        "{out}"
    );
    assert!(out.contains("the store is damaged"), "{out}");
    assert!(!out.contains("agrees"), "{out}");
    let (code, out, err) = run(&["compare", "--store", store, "--crc", list, "--recorded"]);
    assert_eq!(code, Some(0), "{out}{err}");
    assert!(out.contains("blocks not read"), "{out}");
    let (code, _, err) = run(&["results", "--store", store]);
    assert_eq!(code, Some(1), "{err}");
    assert!(
        err.contains("is damaged") && err.contains("slice "),
        "{err}"
    );
    assert!(!err.contains(dir.path().join("flipped").join("0").to_str().unwrap()));
    let (code, _, err) = run(&["verify", "--store", store]);
    assert_eq!(code, Some(1), "{err}");

    // A table file truncated or missing, a manifest truncated: the store
    // does not open, and says why.
    fn truncate(path: &Path, to: u64) {
        std::fs::File::options()
            .write(true)
            .open(path)
            .unwrap()
            .set_len(to)
            .unwrap();
    }
    for (name, damage) in [
        (
            "truncated",
            (|store: &Path| {
                let sst = largest_sst(store);
                truncate(&sst, std::fs::metadata(&sst).unwrap().len() / 2);
            }) as fn(&Path),
        ),
        ("missing", |store: &Path| {
            std::fs::remove_file(largest_sst(store)).unwrap()
        }),
        ("manifest", |store: &Path| {
            let manifest = std::fs::read_dir(store)
                .unwrap()
                .map(|e| e.unwrap().path())
                .find(|p| {
                    p.file_name()
                        .unwrap()
                        .to_str()
                        .unwrap()
                        .starts_with("MANIFEST-")
                })
                .unwrap();
            truncate(&manifest, 100);
        }),
    ] {
        let damaged = dir.path().join(name);
        copy_dir(&intact, &damaged);
        damage(&damaged);
        let store = damaged.to_str().unwrap();
        for args in [
            vec!["query", "--store", store, "start"],
            vec!["results", "--store", store],
            vec!["compare", "--store", store, "--crc", list],
            vec!["stats", "--store", store],
        ] {
            let (code, out, err) = run(&args);
            assert_eq!(code, Some(1), "{name} {args:?}: {out}{err}");
            assert!(
                err.contains("damaged, truncated or missing"),
                "{name} {args:?}: {err}"
            );
        }
    }
}
