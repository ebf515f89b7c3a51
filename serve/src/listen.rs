//! The Query service on a listener, beside the standard health and
//! reflection services (so that `grpcurl` and load balancers work), with
//! the connections a public server allows (HTTP's are `http1.rs`'s).

use egdb_proto::client_io::limited;
use egdb_proto::server::{incoming, MAX_MESSAGE_BYTES};
use egdb_proto::tls::ServerTls;
use egdb_proto::v1::query_server::QueryServer;
use egdb_proto::v1::FILE_DESCRIPTOR_SET;

use std::sync::Arc;

use super::{Limits, QueryService};

/// The largest request taken: a batch of [`super::MAX_BATCH`] positions of
/// real games is a few megabytes; every request waiting for its turn holds
/// its own.
const MAX_REQUEST_BYTES: usize = 8 << 20;

/// Requests in flight on one connection: more are queued by HTTP/2 flow.
const MAX_STREAMS: u32 = 64;

/// Serves `service` on `listener` (over TLS with `tls`) within `limits`
/// until `shutdown` completes.
///
/// # Errors
/// The reflection service cannot be built, or the server fails.
pub async fn serve(
    service: Arc<QueryService>,
    listener: tokio::net::TcpListener,
    tls: Option<ServerTls>,
    limits: Limits,
    shutdown: impl std::future::Future<Output = ()> + Send,
) -> Result<(), String> {
    let (health, health_service) = tonic_health::server::health_reporter();
    health.set_serving::<QueryServer<QueryService>>().await;
    let reflection = tonic_reflection::server::Builder::configure()
        .register_encoded_file_descriptor_set(FILE_DESCRIPTOR_SET)
        .build_v1()
        .map_err(|e| format!("no reflection service: {e}"))?;
    let router = tonic::transport::Server::builder()
        .max_concurrent_streams(MAX_STREAMS)
        .add_service(health_service)
        .add_service(reflection)
        .add_service(
            QueryServer::from_arc(service)
                .max_decoding_message_size(MAX_REQUEST_BYTES)
                .max_encoding_message_size(MAX_MESSAGE_BYTES),
        );
    let served = match tls {
        Some(tls) => {
            router
                .serve_with_incoming_shutdown(
                    limited(
                        tls.incoming(listener),
                        limits.max_grpc_connections,
                        limits.idle_timeout,
                    ),
                    shutdown,
                )
                .await
        }
        None => {
            router
                .serve_with_incoming_shutdown(
                    limited(
                        incoming(listener),
                        limits.max_grpc_connections,
                        limits.idle_timeout,
                    ),
                    shutdown,
                )
                .await
        }
    };
    served.map_err(|e| format!("serving failed: {e}"))
}
