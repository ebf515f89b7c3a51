//! The Query service on a listener, beside the standard health and
//! reflection services (so that `grpcurl` and load balancers work).

use egdb_proto::server::{serve_router, MAX_MESSAGE_BYTES};
use egdb_proto::tls::ServerTls;
use egdb_proto::v1::query_server::QueryServer;
use egdb_proto::v1::FILE_DESCRIPTOR_SET;

use super::QueryService;

/// Serves `service` on `listener` (over TLS with `tls`) until `shutdown`
/// completes.
///
/// # Errors
/// The reflection service cannot be built, or the server fails.
pub async fn serve(
    service: std::sync::Arc<QueryService>,
    listener: tokio::net::TcpListener,
    tls: Option<ServerTls>,
    shutdown: impl std::future::Future<Output = ()> + Send,
) -> Result<(), String> {
    let (health, health_service) = tonic_health::server::health_reporter();
    health.set_serving::<QueryServer<QueryService>>().await;
    let reflection = tonic_reflection::server::Builder::configure()
        .register_encoded_file_descriptor_set(FILE_DESCRIPTOR_SET)
        .build_v1()
        .map_err(|e| format!("no reflection service: {e}"))?;
    let router = tonic::transport::Server::builder()
        .add_service(health_service)
        .add_service(reflection)
        .add_service(
            QueryServer::from_arc(service)
                .max_decoding_message_size(MAX_MESSAGE_BYTES)
                .max_encoding_message_size(MAX_MESSAGE_BYTES),
        );
    serve_router(router, listener, tls, shutdown)
        .await
        .map_err(|e| format!("serving failed: {e}"))
}
