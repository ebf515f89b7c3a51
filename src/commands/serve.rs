//! `egdb serve`: a tablebase over gRPC (`egdb.v1.Query`, with health and
//! reflection; `egdb_serve`), on the address and TLS asked for.

use std::io::Write;
use std::sync::Arc;

use egdb_proto::server::bind;
use egdb_proto::tls::ServerTls;
use egdb_serve::http::serve_http;
use egdb_serve::{serve, QueryService};

use crate::cli::ServeArgs;
use crate::failure::Exit;
use crate::failure::Failure;
use crate::signals::{StopSignal, INTERRUPTED};

pub fn run(args: ServeArgs) -> Exit {
    let limits = args
        .limits(crate::open_files::raise())
        .map_err(Failure::bad_input)?;
    let service = QueryService::open(&args.store, args.cache, &limits)?;
    let tablebase = service.tablebase();
    if !tablebase.is_complete() {
        eprintln!(
            "egdb: {} is still being built; slices not yet in it answer UNAVAILABLE until they are",
            args.store.display()
        );
    }
    let game = tablebase.game().spec().to_string();
    let tls = match (&args.tls_cert, &args.tls_key) {
        (Some(cert), Some(key)) => Some(
            ServerTls::server_only(cert, key)
                .map_err(|e| Failure::bad_input(format!("TLS: {e}")))?,
        ),
        _ => None,
    };
    drop(tablebase);
    let runtime = tokio::runtime::Runtime::new()
        .map_err(|e| Failure::failed(format!("no async runtime: {e}")))?;
    runtime.block_on(async {
        let mut stop = StopSignal::install()
            .map_err(|e| Failure::failed(format!("no signal handlers: {e}")))?;
        let (listener, address) = bind(&args.listen)
            .await
            .map_err(|e| Failure::bad_input(format!("cannot listen on {}: {e}", args.listen)))?;
        outln!("listening on {address}")?;
        let http = match &args.http {
            Some(asked) => {
                let (listener, address) = bind(asked)
                    .await
                    .map_err(|e| Failure::bad_input(format!("cannot listen on {asked}: {e}")))?;
                outln!("http on {address}")?;
                Some(listener)
            }
            None => None,
        };
        let _ = std::io::stdout().flush();
        tracing::info!(%address, %game, "serving queries");
        // Both servers stop on the signal, and either one that ends on its
        // own (a failed listener) stops the other, so `serve` never lingers
        // half up.
        let (stopped, _) = tokio::sync::watch::channel(false);
        let until_stopped = |mut watch: tokio::sync::watch::Receiver<bool>| async move {
            let _ = watch.wait_for(|stop| *stop).await;
        };
        let service = Arc::new(service);
        let http = async {
            let Some(listener) = http else {
                return Ok(());
            };
            let served = serve_http(
                service.clone(),
                listener,
                limits,
                until_stopped(stopped.subscribe()),
            )
            .await;
            stopped.send_replace(true);
            served
        };
        let grpc = async {
            let served = serve(
                service.clone(),
                listener,
                tls,
                limits,
                until_stopped(stopped.subscribe()),
            )
            .await;
            stopped.send_replace(true);
            served
        };
        let signal = async {
            tokio::select! {
                () = stop.requested() => {}
                () = until_stopped(stopped.subscribe()) => {}
            }
            stopped.send_replace(true);
        };
        let (grpc, http, ()) = tokio::join!(grpc, http, signal);
        grpc.map_err(Failure::failed)?;
        http.map_err(|e| Failure::failed(format!("HTTP server: {e}")))?;
        Ok::<(), Failure>(())
    })?;
    Ok(INTERRUPTED)
}
