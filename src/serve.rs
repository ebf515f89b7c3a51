//! `egdb serve`: a tablebase over gRPC (`egdb.v1.Query`, with health and
//! reflection; `egdb_tablebase::served`), on the address and TLS asked for.

use std::io::Write;

use egdb_proto::server::bind;
use egdb_proto::tls::ServerTls;
use egdb_tablebase::served::QueryService;

use crate::build::INTERRUPTED;
use crate::cli::ServeArgs;
use crate::failure::Failure;
use crate::signals::StopSignal;
use crate::Exit;

pub fn run(args: ServeArgs) -> Exit {
    let service = QueryService::open(&args.store, args.cache)?;
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
        let stop = StopSignal::install()
            .map_err(|e| Failure::failed(format!("no signal handlers: {e}")))?;
        let (listener, address) = bind(&args.listen)
            .await
            .map_err(|e| Failure::bad_input(format!("cannot listen on {}: {e}", args.listen)))?;
        println!("listening on {address}");
        let _ = std::io::stdout().flush();
        tracing::info!(%address, %game, "serving queries");
        egdb_tablebase::served::serve(service, listener, tls, stop.requested())
            .await
            .map_err(Failure::failed)
    })?;
    Ok(INTERRUPTED)
}
