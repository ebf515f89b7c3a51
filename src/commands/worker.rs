//! `egdb worker`: solves slices for a coordinator across the network.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use egdb_proto::client::RemoteCoordinator;
use egdb_proto::LinkKind;
use egdb_worker::{ShardCache, Worker, WorkerConfig, WorkerError};

use crate::cli::WorkerArgs;
use crate::cluster_access::{plaintext_hint, read_token};
use crate::failure::Exit;
use crate::failure::Failure;
use crate::host::{default_memory, use_engine_threads};
use crate::signals::INTERRUPTED;

/// `egdb worker`'s arguments made into what the worker runs with: the
/// token read, the name chosen and checked, the coordinator's client made.
struct WorkerSetup {
    link: RemoteCoordinator,
    config: WorkerConfig,
    cache: Option<std::path::PathBuf>,
    cache_limit: Option<u64>,
    tls: bool,
}

impl TryFrom<WorkerArgs> for WorkerSetup {
    type Error = Failure;

    fn try_from(args: WorkerArgs) -> Result<WorkerSetup, Failure> {
        if args.cache_limit.is_some() && args.cache.is_none() {
            return Err(Failure::bad_input(
                "--cache-limit bounds a cache: give --cache DIR too".to_string(),
            ));
        }
        let token = read_token(args.token_file.as_deref())?;
        let tls = args.tls.files();
        let memory = args.memory.unwrap_or_else(default_memory);
        let link = RemoteCoordinator::new(&args.coordinator, token, args.patience, tls.as_ref())
            .map_err(|e| Failure::bad_input(e.to_string()))?
            .with_max_shard_bytes(memory);
        let name = args
            .name
            .unwrap_or_else(|| format!("{}-{}", hostname(), std::process::id()));
        if let Some(fault) = egdb_proto::worker_name_fault(&name) {
            return Err(Failure::bad_input(format!("--name: {fault}")));
        }
        Ok(WorkerSetup {
            link,
            config: WorkerConfig {
                game: args.game,
                zstd_level: args.zstd_level,
                keep_for_later: true,
                ..WorkerConfig::named(name, memory)
            },
            cache: args.cache,
            cache_limit: args.cache_limit,
            tls: tls.is_some(),
        })
    }
}

pub fn run(args: WorkerArgs) -> Exit {
    // First: the setup below asks rayon its pool's size, which makes the
    // pool with every core if it does not exist yet.
    use_engine_threads(args.threads)?;
    let WorkerSetup {
        link,
        config,
        cache,
        cache_limit,
        tls,
    } = WorkerSetup::try_from(args)?;
    let name = config.name.clone();
    let cancel = Arc::new(AtomicBool::new(false));
    let flag = cancel.clone();
    // Ctrl-C or SIGTERM: give the slice in progress back and stop; a second
    // one stops at once.
    let _ = ctrlc::set_handler(move || {
        if flag.swap(true, Ordering::SeqCst) {
            std::process::exit(INTERRUPTED);
        }
    });
    let link = link.with_stop(cancel.clone());
    let mut worker = Worker::new(config, &link);
    if let Some(dir) = &cache {
        let cache = ShardCache::open(dir).map_err(|e| Failure::bad_input(e.to_string()))?;
        worker = worker.with_cache(cache.with_limit(cache_limit.unwrap_or(u64::MAX)));
    }
    let outcome = worker.run(&cancel);
    match outcome {
        Ok(report) => {
            outln!(
                "worker {name}: {} slices, {} positions, {:.1} s",
                report.slices,
                report.positions,
                report.seconds
            )?;
            Ok(if cancel.load(Ordering::SeqCst) {
                INTERRUPTED
            } else {
                0
            })
        }
        Err(WorkerError::Link(e))
            if matches!(e.kind, LinkKind::Mismatch | LinkKind::Unauthenticated) =>
        {
            Err(Failure::bad_input(format!(
                "refused by the coordinator: {e}"
            )))
        }
        Err(e) => Err(Failure::failed(format!(
            "worker {name} failed: {e}{}",
            plaintext_hint(&e.to_string(), tls)
        ))),
    }
}

fn hostname() -> String {
    std::fs::read_to_string("/proc/sys/kernel/hostname")
        .map(|h| h.trim().to_string())
        .unwrap_or_else(|_| "worker".to_string())
}
