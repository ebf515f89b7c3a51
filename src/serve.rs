//! `egdb serve`: a finished tablebase over gRPC (`egdb.v1.Query`), with the
//! standard health and reflection services so that `grpcurl` works.

use std::io::Write;

use egdb_coordinator::served::QueryService;
use egdb_proto::server::{bind, incoming, MAX_MESSAGE_BYTES};
use egdb_proto::tls::ServerTls;
use egdb_proto::v1::query_server::QueryServer;
use egdb_proto::v1::FILE_DESCRIPTOR_SET;

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
        let (health, health_service) = tonic_health::server::health_reporter();
        health.set_serving::<QueryServer<QueryService>>().await;
        let reflection = tonic_reflection::server::Builder::configure()
            .register_encoded_file_descriptor_set(FILE_DESCRIPTOR_SET)
            .build_v1()
            .map_err(|e| Failure::failed(format!("no reflection service: {e}")))?;
        let router = tonic::transport::Server::builder()
            .add_service(health_service)
            .add_service(reflection)
            .add_service(
                QueryServer::new(service)
                    .max_decoding_message_size(MAX_MESSAGE_BYTES)
                    .max_encoding_message_size(MAX_MESSAGE_BYTES),
            );
        let served = match tls {
            Some(tls) => {
                router
                    .serve_with_incoming_shutdown(tls.incoming(listener), stop.requested())
                    .await
            }
            None => {
                router
                    .serve_with_incoming_shutdown(incoming(listener), stop.requested())
                    .await
            }
        };
        served.map_err(|e| Failure::failed(format!("serving failed: {e}")))
    })?;
    Ok(INTERRUPTED)
}
