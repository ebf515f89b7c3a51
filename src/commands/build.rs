//! `egdb build`: an embedded coordinator and local workers over one store.

use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Instant;

use egdb_coordinator::{BackupPlan, Build, BuildOptions, BuildProgress, ReuseSource};
use egdb_db_format::SliceRecord;
use egdb_games::{Game, GameSpec};
use egdb_tablebase::Tablebase;
use egdb_worker::{Worker, WorkerConfig};
use indicatif::ProgressBar;

use crate::checked::report;
use crate::cli::BuildArgs;
use crate::failure::Exit;
use crate::failure::Failure;
use crate::host::{
    backed_up_line, default_memory, positions_bar, rank_the_rest, ranked_line, reused_line,
    say_ranking_left, use_engine_threads, verified_list, vouched_line,
};
use crate::signals::INTERRUPTED;

/// Local workers heartbeat from a thread of their own; a lease only runs out
/// if one hangs.
const LOCAL_LEASE_SECONDS: f64 = 60.0;

/// `egdb build`'s arguments made into what the build runs with: the game
/// (its file read and checked), the store, the options. The numbers were
/// checked as they were parsed (`cli.rs`).
struct BuildConfig {
    spec: GameSpec,
    game: Game,
    store: PathBuf,
    threads: Option<usize>,
    options: BuildOptions,
    workers: usize,
    zstd_level: i32,
    reuse: Option<PathBuf>,
    backups: Option<BackupPlan>,
}

impl TryFrom<BuildArgs> for BuildConfig {
    type Error = Failure;

    fn try_from(args: BuildArgs) -> Result<BuildConfig, Failure> {
        let spec: GameSpec = args.game.parse()?;
        let game = Game::from_spec(&spec)?;
        Ok(BuildConfig {
            store: args.store.unwrap_or_else(|| default_store(&spec)),
            spec,
            game,
            threads: args.threads,
            options: BuildOptions {
                depth: args.depth,
                memory_budget: args.memory.unwrap_or_else(default_memory),
                max_slices: args.max_slices,
                deep_verify: false,
                lease_seconds: LOCAL_LEASE_SECONDS,
                verify_as_built: args.verify_as_built,
                verified_list: verified_list(args.verified_crc.as_deref())?,
            },
            workers: args.workers,
            zstd_level: args.zstd_level,
            backups: args.backups.plan(),
            reuse: args.reuse,
        })
    }
}

pub fn run(args: BuildArgs) -> Exit {
    let BuildConfig {
        spec,
        game,
        store: store_path,
        threads,
        options,
        workers,
        zstd_level,
        reuse,
        backups,
    } = BuildConfig::try_from(args)?;
    use_engine_threads(threads)?;
    let memory_budget = options.memory_budget;
    let started = Instant::now();
    // Before the build's store is made: a refused one leaves none.
    let source = reuse
        .as_deref()
        .map(|path| ReuseSource::open(path, &game, options.depth))
        .transpose()?;
    let build = Build::open(&store_path, &game, options)?;
    if let (Some(source), Some(path)) = (&source, &reuse) {
        eprintln!("{}", reused_line(&build.reuse(source)?, path));
    }
    let positions: u64 = build.plan().iter().map(|s| s.positions).sum();
    let total = build.plan().len();
    if build.is_complete()? {
        rank_the_rest(&build)?;
        // A build that verifies as it goes is complete once every check passed.
        let verified = if build.verifies_as_built() {
            ", every slice verified as it was stored"
        } else {
            ""
        };
        outln!(
            "{} already holds the complete tablebase of {spec} ({total} slices{verified}); nothing to do",
            store_path.display()
        )?;
        return Ok(0);
    }
    let done_before = build.done();
    if done_before > 0 {
        eprintln!(
            "resuming {spec}: {done_before} of {total} slices already in {}",
            store_path.display()
        );
    }
    let bar = progress_bar(&build, positions);
    let build = build.with_progress(Box::new(BarProgress(bar.clone())));

    let cancel = Arc::new(AtomicBool::new(false));
    let flag = cancel.clone();
    // A second Ctrl-C stops at once; finished slices are safe in the store either way.
    let _ = ctrlc::set_handler(move || {
        if flag.swap(true, Ordering::SeqCst) {
            std::process::exit(INTERRUPTED);
        }
        eprintln!("\ninterrupted: stopping; finished slices are kept");
    });

    let backups_done = AtomicBool::new(false);
    let (reports, ranked, backed_up) = std::thread::scope(|scope| {
        // Beside the workers: their slices are ranked once nothing reads them.
        let ranker = scope.spawn(|| build.rank_late(&cancel));
        let backer = backups
            .as_ref()
            .map(|plan| scope.spawn(|| build.back_up(plan, &backups_done, &cancel)));
        let handles: Vec<_> = (0..workers)
            .map(|i| {
                let (build, cancel) = (&build, &cancel);
                let config = WorkerConfig {
                    zstd_level,
                    ..WorkerConfig::named(format!("local-{i}"), memory_budget)
                };
                scope.spawn(move || Worker::new(config, build).run(cancel))
            })
            .collect();
        let reports = handles.into_iter().map(|h| h.join()).collect::<Vec<_>>();
        if !cancel.load(Ordering::SeqCst) {
            say_ranking_left(&build);
        }
        build.close_ranking();
        let ranked = ranker.join();
        // The last backup holds the run's slices, ranked.
        backups_done.store(true, Ordering::SeqCst);
        let backed_up = backer.map(|b| b.join());
        (reports, ranked, backed_up)
    });
    if let Some(Ok(backed_up)) = &backed_up {
        eprintln!("{}", backed_up_line(backed_up));
    }
    bar.finish_and_clear();
    for report in reports {
        match report {
            Ok(Ok(_)) => {}
            Ok(Err(e)) => {
                return Err(Failure::failed(format!(
                    "worker failed: {e}\n{} of {total} slices are stored and kept; once the cause \
                     is mended (a full disk freed, …) the same command goes on from there",
                    build.done()
                )))
            }
            Err(_) => return Err(Failure::failed("a worker thread panicked")),
        }
    }
    // After the workers' errors: a full disk stops both, and theirs says more.
    match ranked {
        Ok(ranked) => {
            if let Some(line) = ranked_line(&ranked?) {
                eprintln!("{line}");
            }
        }
        Err(_) => return Err(Failure::failed("the ranking thread panicked")),
    }
    let done = build.done();
    let failures = build.failures();
    if !failures.is_empty() {
        for check in &failures {
            out!("{}", report(check))?;
        }
        return Err(Failure::failed(format!(
            "a stored slice failed its check, so the build stopped at {done} of {total} slices; \
             `egdb verify --built --store {}` says more",
            store_path.display()
        )));
    }
    if !build.is_complete()? {
        if cancel.load(Ordering::SeqCst) {
            eprintln!(
                "interrupted: {done} of {total} slices done; run the same command again to resume"
            );
            return Ok(INTERRUPTED);
        }
        outln!("stopped as asked: {done} of {total} slices done; run again to go on")?;
        return Ok(0);
    }
    let stored: u64 = build.store().slices()?.iter().map(|r| r.stored_bytes).sum();
    let verified = if build.verifies_as_built() {
        build.finish_verify();
        format!(
            "; every slice verified as it was stored{}",
            vouched_line(&build)?
        )
    } else {
        String::new()
    };
    drop(build);
    let seconds = started.elapsed().as_secs_f64();
    let tablebase = Tablebase::open(&store_path)?;
    let start = tablebase.start()?;
    outln!(
        "built {spec} in {}: {total} slices ({} new), {positions} positions, {seconds:.1} s, {:.1} MiB stored{verified}; start position: {}{}",
        store_path.display(),
        done - done_before,
        stored as f64 / (1 << 20) as f64,
        start.value,
        start.depth.map(|d| format!(" in {d} plies")).unwrap_or_default(),
    )?;
    Ok(0)
}

pub fn default_store(spec: &GameSpec) -> PathBuf {
    let name: String = spec
        .to_string()
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '.' {
                c
            } else {
                '-'
            }
        })
        .collect();
    PathBuf::from(format!("{name}.egdb"))
}

fn progress_bar(build: &Build, positions: u64) -> ProgressBar {
    let bar = positions_bar(positions);
    if bar.is_hidden() {
        return bar;
    }
    let done_positions: u64 = build
        .store()
        .slices()
        .map_or(0, |r| r.iter().map(|r| r.counts.positions).sum());
    bar.set_position(done_positions);
    bar.reset_eta();
    bar.set_message(format!("slices {}/{}", build.done(), build.plan().len()));
    bar
}

struct BarProgress(ProgressBar);

impl BuildProgress for BarProgress {
    fn slice_done(&self, record: &SliceRecord, done: usize, total: usize) {
        self.0.inc(record.counts.positions);
        self.0.set_message(format!("slices {done}/{total}"));
    }
}
