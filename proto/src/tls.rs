//! TLS for the cluster (rustls with ring): the coordinator asks every worker
//! for a certificate of the cluster's CA (mutual TLS), `egdb serve` shows a
//! server certificate only. The server side does its own handshakes so that
//! a refused peer is logged with its address and the reason, and a peer
//! that never finishes its handshake is dropped after [`HANDSHAKE_TIMEOUT`].

use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use rustls::pki_types::pem::PemObject;
use rustls::pki_types::{CertificateDer, PrivateKeyDer};
use rustls::server::WebPkiClientVerifier;
use rustls::{RootCertStore, ServerConfig};
use tokio::net::{TcpListener, TcpStream};
use tokio_rustls::server::TlsStream;
use tokio_rustls::TlsAcceptor;
use tokio_stream::wrappers::ReceiverStream;
use tokio_stream::Stream;

/// The largest certificate or key file read: a PEM chain of a few
/// certificates is a few kilobytes.
pub const MAX_PEM_BYTES: u64 = 1 << 20;

/// How long a peer has to finish its TLS handshake.
pub const HANDSHAKE_TIMEOUT: Duration = Duration::from_secs(10);

/// Handshakes in progress at once; a flood of silent peers waits in the
/// listen queue instead of taking memory.
const MAX_HANDSHAKES: usize = 256;

/// What a TLS set-up found wrong with its files.
#[derive(Debug, thiserror::Error)]
pub enum TlsError {
    #[error("cannot read {path}: {source}")]
    Read {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("{path} is larger than {MAX_PEM_BYTES} bytes: not a certificate or key file")]
    TooLarge { path: PathBuf },
    #[error("{path} holds no PEM {what}")]
    Missing { path: PathBuf, what: &'static str },
    #[error("{path}: {reason}")]
    Invalid { path: PathBuf, reason: String },
    #[error("the certificate {cert} and the key {key} do not go together: {reason}")]
    Mismatch {
        cert: PathBuf,
        key: PathBuf,
        reason: String,
    },
}

/// A host's certificate chain, its key and the CA that signs its peers.
#[derive(Debug, Clone)]
pub struct TlsFiles {
    pub cert: PathBuf,
    pub key: PathBuf,
    pub ca: PathBuf,
}

/// The bytes of a PEM file of at most [`MAX_PEM_BYTES`].
fn read_pem(path: &Path) -> Result<Vec<u8>, TlsError> {
    use egdb_games::bounded_file::{read_at_most, BoundedFileError};
    read_at_most(path, MAX_PEM_BYTES).map_err(|e| match e {
        BoundedFileError::TooLarge { .. } => TlsError::TooLarge {
            path: path.to_path_buf(),
        },
        BoundedFileError::Io(source) => TlsError::Read {
            path: path.to_path_buf(),
            source,
        },
        not_a_file => TlsError::Invalid {
            path: path.to_path_buf(),
            reason: not_a_file.to_string(),
        },
    })
}

fn certificates(path: &Path) -> Result<Vec<CertificateDer<'static>>, TlsError> {
    let pem = read_pem(path)?;
    let chain = CertificateDer::pem_slice_iter(&pem)
        .collect::<Result<Vec<_>, _>>()
        .map_err(|e| TlsError::Invalid {
            path: path.to_path_buf(),
            reason: e.to_string(),
        })?;
    if chain.is_empty() {
        return Err(TlsError::Missing {
            path: path.to_path_buf(),
            what: "certificate",
        });
    }
    Ok(chain)
}

fn private_key(path: &Path) -> Result<PrivateKeyDer<'static>, TlsError> {
    let pem = read_pem(path)?;
    PrivateKeyDer::from_pem_slice(&pem).map_err(|e| match e {
        rustls::pki_types::pem::Error::NoItemsFound => TlsError::Missing {
            path: path.to_path_buf(),
            what: "private key",
        },
        other => TlsError::Invalid {
            path: path.to_path_buf(),
            reason: other.to_string(),
        },
    })
}

/// The CA's certificates as trust roots.
fn roots(ca: &Path) -> Result<RootCertStore, TlsError> {
    let mut roots = RootCertStore::empty();
    for certificate in certificates(ca)? {
        roots.add(certificate).map_err(|e| TlsError::Invalid {
            path: ca.to_path_buf(),
            reason: format!("not a CA certificate: {e}"),
        })?;
    }
    Ok(roots)
}

fn provider() -> Arc<rustls::crypto::CryptoProvider> {
    Arc::new(rustls::crypto::ring::default_provider())
}

/// The server side of a TLS listener.
#[derive(Clone)]
pub struct ServerTls {
    acceptor: TlsAcceptor,
    mutual: bool,
}

impl ServerTls {
    /// A server that shows `files.cert` and admits only clients with a
    /// certificate signed by `files.ca` (the coordinator).
    ///
    /// # Errors
    /// Unreadable, malformed or mismatched files.
    pub fn mutual(files: &TlsFiles) -> Result<ServerTls, TlsError> {
        let verifier =
            WebPkiClientVerifier::builder_with_provider(Arc::new(roots(&files.ca)?), provider())
                .build()
                .map_err(|e| TlsError::Invalid {
                    path: files.ca.clone(),
                    reason: e.to_string(),
                })?;
        let builder = ServerConfig::builder_with_provider(provider())
            .with_safe_default_protocol_versions()
            .map_err(|e| TlsError::Invalid {
                path: files.ca.clone(),
                reason: e.to_string(),
            })?
            .with_client_cert_verifier(verifier);
        Self::finish(builder, &files.cert, &files.key, true)
    }

    /// A server that shows `cert` to anyone (`egdb serve`: queries are open).
    ///
    /// # Errors
    /// Unreadable, malformed or mismatched files.
    pub fn server_only(cert: &Path, key: &Path) -> Result<ServerTls, TlsError> {
        let builder = ServerConfig::builder_with_provider(provider())
            .with_safe_default_protocol_versions()
            .map_err(|e| TlsError::Invalid {
                path: cert.to_path_buf(),
                reason: e.to_string(),
            })?
            .with_no_client_auth();
        Self::finish(builder, cert, key, false)
    }

    fn finish(
        builder: rustls::ConfigBuilder<ServerConfig, rustls::server::WantsServerCert>,
        cert: &Path,
        key: &Path,
        mutual: bool,
    ) -> Result<ServerTls, TlsError> {
        let mut config = builder
            .with_single_cert(certificates(cert)?, private_key(key)?)
            .map_err(|e| TlsError::Mismatch {
                cert: cert.to_path_buf(),
                key: key.to_path_buf(),
                reason: e.to_string(),
            })?;
        // gRPC is HTTP/2; tonic's clients insist on it being negotiated.
        config.alpn_protocols = vec![b"h2".to_vec()];
        Ok(ServerTls {
            acceptor: TlsAcceptor::from(Arc::new(config)),
            mutual,
        })
    }

    /// The connections `listener` accepts, each once its handshake has
    /// succeeded; the ones that fail are logged and closed.
    pub fn incoming(
        self,
        listener: TcpListener,
    ) -> impl Stream<Item = std::io::Result<TlsStream<TcpStream>>> {
        let (sender, receiver) = tokio::sync::mpsc::channel(16);
        let permits = Arc::new(tokio::sync::Semaphore::new(MAX_HANDSHAKES));
        tokio::spawn(async move {
            loop {
                let Ok(permit) = permits.clone().acquire_owned().await else {
                    return;
                };
                let (stream, peer) = tokio::select! {
                    accepted = listener.accept() => match accepted {
                        Ok(accepted) => accepted,
                        Err(e) => {
                            // Out of descriptors and the like: wait, go on.
                            tracing::warn!(error = %e, "cannot accept a connection");
                            tokio::time::sleep(Duration::from_millis(100)).await;
                            continue;
                        }
                    },
                    () = sender.closed() => return,
                };
                let _ = stream.set_nodelay(true);
                let acceptor = self.acceptor.clone();
                let sender = sender.clone();
                let mutual = self.mutual;
                tokio::spawn(async move {
                    let _permit = permit;
                    if let Some(tls) = handshake(&acceptor, stream, peer, mutual).await {
                        let _ = sender.send(Ok(tls)).await;
                    }
                });
            }
        });
        ReceiverStream::new(receiver)
    }
}

/// The TLS stream of `stream`, or `None` (logged) when its peer fails the
/// handshake or takes too long.
async fn handshake(
    acceptor: &TlsAcceptor,
    stream: TcpStream,
    peer: SocketAddr,
    mutual: bool,
) -> Option<TlsStream<TcpStream>> {
    let accept = acceptor.accept(stream).into_fallible();
    match tokio::time::timeout(HANDSHAKE_TIMEOUT, accept).await {
        Ok(Ok(tls)) => Some(tls),
        Ok(Err((e, stream))) => {
            tracing::warn!(%peer, reason = %refusal(&e, mutual), "refused a TLS connection");
            linger(stream).await;
            None
        }
        Err(_) => {
            tracing::warn!(%peer, "refused a connection: no TLS handshake within {HANDSHAKE_TIMEOUT:?}");
            None
        }
    }
}

/// Reads and drops what a refused peer still sends, for a moment, before
/// closing: closing at once with its data unread would reset the
/// connection, and the reset can destroy the alert that tells the peer
/// why (TLS 1.3 clients send their first request right after their
/// certificate, before they hear the verdict).
async fn linger(mut stream: TcpStream) {
    use tokio::io::AsyncReadExt;
    let mut sink = [0u8; 4096];
    let _ = tokio::time::timeout(LINGER, async {
        while matches!(stream.read(&mut sink).await, Ok(n) if n > 0) {}
    })
    .await;
}

/// How long a refused peer's connection stays open, see [`linger`].
const LINGER: Duration = Duration::from_secs(1);

/// Why a handshake failed, in the words of someone setting up a cluster.
fn refusal(error: &std::io::Error, mutual: bool) -> String {
    let inner = error
        .get_ref()
        .and_then(|e| e.downcast_ref::<rustls::Error>());
    match inner {
        Some(rustls::Error::InvalidMessage(_)) => {
            "the peer does not speak TLS (a plaintext client? use https:// and --tls-*)".to_string()
        }
        Some(rustls::Error::NoCertificatesPresented) if mutual => {
            "the peer showed no certificate (give the worker --tls-cert and --tls-key)".to_string()
        }
        Some(rustls::Error::InvalidCertificate(reason)) => format!(
            "the peer's certificate is not one of this cluster's CA ({reason:?}); make it with `egdb tls init`"
        ),
        Some(other) => other.to_string(),
        None => error.to_string(),
    }
}

/// The client side: trust `files.ca`, show `files.cert`.
///
/// # Errors
/// Unreadable or malformed files.
pub fn client_config(files: &TlsFiles) -> Result<tonic::transport::ClientTlsConfig, TlsError> {
    Ok(tonic::transport::ClientTlsConfig::new()
        .ca_certificate(tonic::transport::Certificate::from_pem(checked_pem(
            &files.ca,
            certificates,
        )?))
        .identity(tonic::transport::Identity::from_pem(
            checked_pem(&files.cert, certificates)?,
            checked_pem(&files.key, private_key)?,
        )))
}

/// The client side of `egdb query` against a TLS `egdb serve`: trust `ca`.
///
/// # Errors
/// An unreadable or malformed file.
pub fn query_client_config(ca: &Path) -> Result<tonic::transport::ClientTlsConfig, TlsError> {
    Ok(tonic::transport::ClientTlsConfig::new().ca_certificate(
        tonic::transport::Certificate::from_pem(checked_pem(ca, certificates)?),
    ))
}

/// The bytes of `path` once `parse` has accepted them: tonic would report a
/// malformed file only at the first connection.
fn checked_pem<T>(
    path: &Path,
    parse: fn(&Path) -> Result<T, TlsError>,
) -> Result<Vec<u8>, TlsError> {
    parse(path)?;
    read_pem(path)
}

/// What a client's failed connection says about TLS, if it was TLS that
/// failed: a certificate refused either way, or TLS spoken to plaintext.
/// Such a failure is not retried: it will not heal by waiting.
pub fn client_refusal(error: &(dyn std::error::Error + 'static)) -> Option<String> {
    let mut source: Option<&(dyn std::error::Error + 'static)> = Some(error);
    while let Some(e) = source {
        if let Some(tls) = e.downcast_ref::<rustls::Error>() {
            return Some(describe_client_refusal(tls));
        }
        if let Some(io) = e.downcast_ref::<std::io::Error>() {
            if let Some(tls) = io.get_ref().and_then(|i| i.downcast_ref::<rustls::Error>()) {
                return Some(describe_client_refusal(tls));
            }
        }
        // A refusal that comes after the handshake (TLS 1.3 sends the
        // client's certificate last) reaches us as text inside an HTTP/2
        // connection error.
        let text = e.to_string();
        if let Some(at) = text.find("received fatal alert: ") {
            let alert: String = text[at..]
                .chars()
                .skip("received fatal alert: ".len())
                .take_while(char::is_ascii_alphanumeric)
                .collect();
            return Some(format!(
                "the server refused this host's certificate (alert {alert}): is it signed by the cluster's CA?"
            ));
        }
        // A plaintext client reads the server's TLS alert as an HTTP/2
        // frame header, whose length makes no sense; an HTTP/1 answer
        // (`egdb serve --http`'s port) reads the same.
        if text.contains("frame with invalid size") {
            return Some(
                "the server speaks TLS or is no gRPC server (its answer arrived where HTTP/2 was \
                 expected): for TLS use https:// with --tls-* (a worker: --tls-cert, --tls-key, \
                 --tls-ca; a query: --tls-ca); `egdb serve --http` is for browsers, its gRPC port \
                 is --listen's"
                    .to_string(),
            );
        }
        source = e.source();
    }
    None
}

fn describe_client_refusal(error: &rustls::Error) -> String {
    match error {
        rustls::Error::InvalidCertificate(reason) => format!(
            "the server's certificate is not one of this cluster's CA ({reason:?}): check --tls-ca and the host name in the URL"
        ),
        rustls::Error::AlertReceived(alert) => format!(
            "the server refused this host's certificate ({alert:?}): is it signed by the cluster's CA?"
        ),
        rustls::Error::InvalidMessage(_) => {
            "the server does not speak TLS: use http:// without --tls-*".to_string()
        }
        other => format!("TLS failed: {other}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_missing_file_is_named() {
        let error = certificates(Path::new("/nonexistent/egdb.pem")).unwrap_err();
        assert!(
            error.to_string().contains("/nonexistent/egdb.pem"),
            "{error}"
        );
    }

    #[test]
    fn a_file_without_pem_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("junk.pem");
        std::fs::write(&path, b"\x00\x01 not pem at all").unwrap();
        assert!(matches!(certificates(&path), Err(TlsError::Missing { .. })));
        assert!(matches!(private_key(&path), Err(TlsError::Missing { .. })));
    }

    #[test]
    fn a_huge_file_is_refused_before_it_is_read() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("huge.pem");
        let file = std::fs::File::create(&path).unwrap();
        file.set_len(MAX_PEM_BYTES + 1).unwrap();
        assert!(matches!(
            certificates(&path),
            Err(TlsError::TooLarge { .. })
        ));
    }
}
