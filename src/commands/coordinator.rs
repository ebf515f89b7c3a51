//! `egdb coordinator`: a build served to workers over gRPC.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

use egdb_coordinator::{BackupPlan, Build, BuildOptions, ReuseSource};
use egdb_games::{Game, GameSpec};
use egdb_proto::server::{bind, serve, Service};
use egdb_proto::tls::ServerTls;

use crate::checked::report;
use crate::cli::CoordinatorArgs;
use crate::cluster_access::read_token;
use crate::failure::Exit;
use crate::failure::Failure;
use crate::host::{
    backed_up_line, rank_the_rest, ranked_line, reused_line, say_ranking_left, verified_list,
    vouched_line,
};
use crate::signals::{StopSignal, INTERRUPTED};

/// How long a finished build keeps answering at most, so that polling
/// workers hear that there is nothing left and stop.
const GRACE: Duration = Duration::from_secs(3);

/// How long the coordinator waits, once it stops serving, for its workers
/// to close their connections.
const DRAIN: Duration = Duration::from_secs(10);

/// `egdb coordinator`'s arguments made into what it runs with: the game
/// made, the token read, the TLS identity loaded, the build opened.
struct CoordinatorSetup {
    spec: GameSpec,
    build: Build,
    store: PathBuf,
    listen: String,
    token: Option<String>,
    tls: Option<ServerTls>,
    backups: Option<BackupPlan>,
}

impl TryFrom<CoordinatorArgs> for CoordinatorSetup {
    type Error = Failure;

    fn try_from(args: CoordinatorArgs) -> Result<CoordinatorSetup, Failure> {
        let spec: GameSpec = args.game.parse()?;
        let game = Game::from_spec(&spec)?;
        let token = read_token(args.token_file.as_deref())?;
        let tls = args
            .tls
            .files()
            .map(|files| ServerTls::mutual(&files))
            .transpose()
            .map_err(|e| Failure::bad_input(format!("TLS: {e}")))?;
        let options = BuildOptions {
            depth: args.depth,
            // Each worker says what it can hold; slices go to those it fits.
            memory_budget: u64::MAX,
            max_slices: None,
            deep_verify: true,
            lease_seconds: args.lease_seconds.as_secs_f64(),
            verify_as_built: args.verify_as_built,
            verified_list: verified_list(args.verified_crc.as_deref())?,
        };
        // Before the build's store is made: a refused one leaves none.
        let reuse = args
            .reuse
            .as_deref()
            .map(|path| ReuseSource::open(path, &game, options.depth))
            .transpose()?;
        let build = if args.verify {
            Build::open_verify(&args.store, &game, options)?
        } else {
            Build::open(&args.store, &game, options)?
        };
        if let (Some(source), Some(path)) = (&reuse, &args.reuse) {
            eprintln!("{}", reused_line(&build.reuse(source)?, path));
        }
        Ok(CoordinatorSetup {
            spec,
            build,
            store: args.store,
            listen: args.listen,
            token,
            tls,
            backups: args.backups.plan(),
        })
    }
}

pub fn run(args: CoordinatorArgs) -> Exit {
    let CoordinatorSetup {
        spec,
        build,
        store,
        listen,
        token,
        tls,
        backups,
    } = CoordinatorSetup::try_from(args)?;
    let build = Arc::new(build);
    if build.is_complete()? {
        rank_the_rest(&build)?;
        if build.is_verifying() {
            return verify_report(&build, &store);
        }
        outln!(
            "{} already holds the complete tablebase of {spec}; nothing to do",
            store.display()
        )?;
        return Ok(0);
    }
    // Beside the service: stored slices are ranked once nothing reads them.
    let stop_ranking = Arc::new(AtomicBool::new(false));
    let ranker = {
        let (build, stop) = (build.clone(), stop_ranking.clone());
        std::thread::spawn(move || build.rank_late(&stop))
    };
    // Beside it: backups, the last once ranking is over.
    let backups_done = Arc::new(AtomicBool::new(false));
    let backer = backups.map(|plan| {
        let (build, done, stopped) = (build.clone(), backups_done.clone(), stop_ranking.clone());
        std::thread::spawn(move || build.back_up(&plan, &done, &stopped))
    });
    let runtime = tokio::runtime::Runtime::new()
        .map_err(|e| Failure::failed(format!("no async runtime: {e}")))?;
    let interrupted = runtime.block_on(async {
        let stop = StopSignal::install()
            .map_err(|e| Failure::failed(format!("no signal handlers: {e}")))?;
        let (listener, address) = bind(&listen)
            .await
            .map_err(|e| Failure::bad_input(format!("cannot listen on {}: {e}", listen)))?;
        warn_if_open(address, token.is_some(), tls.is_some());
        outln!("listening on {address}")?;
        let _ = std::io::stdout().flush();
        tracing::info!(%address, game = %spec, done = build.done(), total = build.plan().len(), "coordinator serving");
        let (finished_tx, finished_rx) = tokio::sync::oneshot::channel::<bool>();
        let (cut_tx, cut_rx) = tokio::sync::oneshot::channel::<()>();
        let watched = build.clone();
        let watch = tokio::spawn(async move {
            let mut stop = stop;
            let interrupted = tokio::select! {
                _ = stop.requested() => true,
                _ = until_complete(&watched) => false,
            };
            if !interrupted {
                // Until every worker heard "stop", or the grace runs out
                // (a worker that died never asks again).
                let _ = tokio::time::timeout(GRACE, until_workers_told(&watched)).await;
            }
            let _ = finished_tx.send(interrupted);
            // The server now waits for its connections to close; one whose
            // worker never hangs up (stopped, wedged) would hold it until
            // the idle timeout, deaf to signals. A stop or the drain's end
            // closes the rest.
            tokio::select! {
                _ = stop.requested() => {}
                _ = tokio::time::sleep(DRAIN) => {}
            }
            let _ = cut_tx.send(());
        });
        let service = Service::new(build.clone(), token);
        let interrupted = AtomicBool::new(false);
        let serving = serve(service, listener, tls, async {
            interrupted.store(finished_rx.await.unwrap_or(true), Ordering::SeqCst);
        });
        tokio::select! {
            served = serving => {
                served.map_err(|e| Failure::failed(format!("serving failed: {e}")))?;
            }
            _ = cut_rx => {
                tracing::warn!(
                    seconds = DRAIN.as_secs(),
                    "workers' connections still open after the end; closed"
                );
            }
        }
        watch.abort();
        Ok::<bool, Failure>(interrupted.load(Ordering::SeqCst))
    });
    // Interrupted: the slice in hand is finished by the next run.
    if matches!(interrupted, Ok(false)) {
        say_ranking_left(&build);
    } else {
        stop_ranking.store(true, Ordering::SeqCst);
    }
    build.close_ranking();
    let ranked = ranker
        .join()
        .map_err(|_| Failure::failed("the ranking thread panicked"))??;
    backups_done.store(true, Ordering::SeqCst);
    if let Some(backed_up) = backer.and_then(|b| b.join().ok()) {
        eprintln!("{}", backed_up_line(&backed_up));
    }
    let interrupted = interrupted?;
    if let Some(line) = ranked_line(&ranked) {
        eprintln!("{line}");
    }
    // What crossed the network in this run, however it ended: a build
    // across sessions adds up these lines.
    let status = build.status_now();
    eprintln!(
        "this run: {} bytes of shards sent to workers, {} received from them",
        status.bytes_sent, status.bytes_received
    );
    let done = build.done();
    let total = build.plan().len();
    if interrupted {
        eprintln!(
            "interrupted: {done} of {total} slices done; start the coordinator again to resume"
        );
        return Ok(INTERRUPTED);
    }
    if build.is_verifying() {
        return verify_report(&build, &store);
    }
    let failures = build.failures();
    if !failures.is_empty() {
        for check in &failures {
            out!("{}", report(check))?;
        }
        return Err(Failure::failed(format!(
            "a stored slice failed its check, so the build stopped at {done} of {total} slices"
        )));
    }
    if build.verifies_as_built() {
        build.finish_verify();
        outln!(
            "built {spec} in {}: {total} slices; every slice verified as it was stored{}",
            store.display(),
            vouched_line(&build)?
        )?;
        return Ok(0);
    }
    outln!("built {spec} in {}: {total} slices", store.display())?;
    Ok(0)
}

/// Prints what a verifying build found; the exit status (1: a slice failed).
fn verify_report(build: &Build, store: &Path) -> Exit {
    let failures = build.failures();
    for check in &failures {
        out!("{}", report(check))?;
    }
    let total = build.plan().len();
    outln!(
        "{}: {} of {total} slices passed",
        store.display(),
        total - failures.len()
    )?;
    build.finish_verify();
    Ok(i32::from(!failures.is_empty()))
}

/// Says loudly when a coordinator reachable from other machines lets
/// anyone in, or lets its token and tables cross the network in clear.
fn warn_if_open(address: std::net::SocketAddr, token: bool, tls: bool) {
    if address.ip().is_loopback() || tls {
        return;
    }
    let warning = if token {
        "WARNING: no TLS: the cluster token and every table cross the network in clear; \
         use --tls-cert/--tls-key/--tls-ca (egdb tls init makes them)"
    } else {
        "WARNING: no TLS and no token: anyone who can reach this address can take slices and \
         hand in results; use --tls-cert/--tls-key/--tls-ca (egdb tls init) and --token-file"
    };
    eprintln!("egdb: {warning}");
    tracing::warn!(%address, "{warning}");
}

async fn until_complete(build: &Build) {
    loop {
        // Halted: a slice failed its check in a build that verifies as it goes.
        if build.is_complete().unwrap_or(false) || build.is_finished() {
            return;
        }
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
}

async fn until_workers_told(build: &Build) {
    while !build.workers_told_to_stop() {
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}
