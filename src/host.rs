//! What this machine gives a command: its cores, its memory, a terminal to
//! draw progress on. `build`, `verify` and `worker` size themselves by it.

use std::io::IsTerminal;

use indicatif::{ProgressBar, ProgressStyle};

use crate::failure::Failure;

/// Sizes the engines' thread pool: `threads`, or every core.
pub fn use_engine_threads(threads: Option<usize>) -> Result<(), Failure> {
    let threads = threads
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()))
        .max(1);
    // Fails only if a pool exists already: one of another size would
    // quietly overrule what was asked.
    let made = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build_global();
    if made.is_err() && rayon::current_num_threads() != threads {
        return Err(Failure::failed(format!(
            "the engines' pool was made with {} threads before {threads} were asked for",
            rayon::current_num_threads()
        )));
    }
    Ok(())
}

/// 80% of the memory the kernel says is available, or 8 GiB if unknown.
pub fn default_memory() -> u64 {
    let available = std::fs::read_to_string("/proc/meminfo")
        .ok()
        .and_then(|text| {
            text.lines()
                .find(|l| l.starts_with("MemAvailable:"))
                .and_then(|l| l.split_whitespace().nth(1))
                .and_then(|kb| kb.parse::<u64>().ok())
        });
    available.map_or(8 << 30, |kb| kb * 1024 / 5 * 4)
}

/// A bar over `positions` on a terminal (positions/s, ETA, a message);
/// hidden otherwise.
pub fn positions_bar(positions: u64) -> ProgressBar {
    if !std::io::stderr().is_terminal() {
        return ProgressBar::hidden();
    }
    let bar = ProgressBar::new(positions);
    bar.set_style(
        ProgressStyle::with_template(
            "{elapsed_precise} [{bar:30}] {human_pos}/{human_len} positions, {per_sec}, ETA {eta} {msg}",
        )
        .unwrap_or_else(|_| ProgressStyle::default_bar())
        .progress_chars("=> "),
    );
    bar
}

/// What ranking late did in a run, for the run's last lines; `None` when
/// it ranked nothing.
pub fn ranked_line(ranked: &egdb_coordinator::Ranked) -> Option<String> {
    let mib = |bytes: u64| bytes as f64 / f64::from(1 << 20);
    (ranked.slices > 0).then(|| {
        format!(
            "ranked {} slices written with zstd: {:.1} MiB -> {:.1} MiB in {:.1} s ({:.1} s CPU)",
            ranked.slices,
            mib(ranked.bytes_before),
            mib(ranked.bytes_after),
            ranked.seconds,
            ranked.cpu_seconds
        )
    })
}

/// Says what is left to rank once a run's workers are gone (the run ends
/// when it is done).
pub fn say_ranking_left(build: &egdb_coordinator::Build) {
    let left = build.ranks_ready();
    if left > 0 {
        eprintln!("ranking the {left} slices still written with zstd");
    }
}

/// Ranks the slices a run left waiting, once its workers are gone.
///
/// # Errors
/// A damaged block or store I/O (the slice stays waiting, readable).
pub fn rank_the_rest(build: &egdb_coordinator::Build) -> Result<(), Failure> {
    if build.ranks_ready() == 0 {
        return Ok(());
    }
    say_ranking_left(build);
    build.close_ranking();
    let ranked = build.rank_late(&std::sync::atomic::AtomicBool::new(false))?;
    if let Some(line) = ranked_line(&ranked) {
        eprintln!("{line}");
    }
    Ok(())
}

/// What a build took from another store (`--reuse`), for people.
pub fn reused_line(reused: &egdb_coordinator::Reused, from: &std::path::Path) -> String {
    format!(
        "took {} slices ({} entries, {:.1} MiB stored) from {}, each block and slice checksum checked",
        reused.slices,
        reused.entries,
        reused.bytes as f64 / f64::from(1 << 20),
        from.display()
    )
}

/// The list of a verified store given with `--verified-crc`, read.
///
/// # Errors
/// A list that cannot be read or is not one.
pub fn verified_list(
    path: Option<&std::path::Path>,
) -> Result<Option<std::sync::Arc<egdb_coordinator::VerifiedList>>, Failure> {
    let Some(path) = path else {
        return Ok(None);
    };
    let list = egdb_coordinator::VerifiedList::read(path)
        .map_err(|e| Failure::bad_input(e.to_string()))?;
    Ok(Some(std::sync::Arc::new(list)))
}

/// What follows "every slice verified as it was stored": how many slices a
/// verified store's list stood for, if one was given.
///
/// # Errors
/// Store I/O.
pub fn vouched_line(build: &egdb_coordinator::Build) -> Result<String, Failure> {
    Ok(match build.vouched_slices()? {
        Some((list, slices)) => format!(
            " ({slices} of them by their checksums in {}, the list of a store verified in full)",
            list.source()
        ),
        None => String::new(),
    })
}

/// What a run's backups did, for its last lines.
pub fn backed_up_line(backed_up: &egdb_coordinator::BackedUp) -> String {
    let newest = backed_up.newest.as_ref().map_or(String::new(), |b| {
        format!("; the newest, backup {}, holds {} slices", b.id, b.slices.0)
    });
    format!(
        "backups: {} taken in {:.1} s, {} failed{newest}",
        backed_up.taken, backed_up.seconds, backed_up.failed
    )
}
