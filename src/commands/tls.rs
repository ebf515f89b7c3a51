//! `egdb tls init`: a small lab CA and one certificate per host, so that a
//! lab sets up mutual TLS for its cluster in one command.

use std::io::Write;
use std::path::Path;

use rcgen::{
    BasicConstraints, CertificateParams, DnType, ExtendedKeyUsagePurpose, IsCa, Issuer, KeyPair,
    KeyUsagePurpose,
};

use egdb_games::bounded_file::read_at_most;
use egdb_proto::tls::MAX_PEM_BYTES;

use crate::cli::{TlsCommand, TlsInitArgs};
use crate::failure::Exit;
use crate::failure::Failure;

/// The CA's common name.
const CA_NAME: &str = "egdb cluster CA";

/// The longest host name (DNS's limit).
const MAX_HOST: usize = 253;

pub fn run(command: TlsCommand) -> Exit {
    match command {
        TlsCommand::Init(args) => init(&args),
    }
}

fn init(args: &TlsInitArgs) -> Exit {
    let mut hosts: Vec<&str> = Vec::new();
    for host in &args.hosts {
        let host = host.trim();
        if let Some(fault) = host_fault(host) {
            return Err(Failure::bad_input(format!("--hosts: `{host}` {fault}")));
        }
        if !hosts.contains(&host) {
            hosts.push(host);
        }
    }
    let dir = &args.dir;
    std::fs::create_dir_all(dir)
        .map_err(|e| Failure::bad_input(format!("cannot create {}: {e}", dir.display())))?;
    let issuer = ca(dir)?;
    for host in hosts {
        let (cert, key) = (
            dir.join(format!("{host}.pem")),
            dir.join(format!("{host}.key")),
        );
        if cert.exists() && key.exists() {
            outln!("kept {} (already there)", cert.display())?;
            continue;
        }
        let key_pair = KeyPair::generate().map_err(tls_failure)?;
        let mut params = CertificateParams::new(vec![host.to_string()]).map_err(tls_failure)?;
        params.distinguished_name.push(DnType::CommonName, host);
        params.is_ca = IsCa::ExplicitNoCa;
        params.key_usages = vec![KeyUsagePurpose::DigitalSignature];
        // Each host is a server (the coordinator) or a client (a worker).
        params.extended_key_usages = vec![
            ExtendedKeyUsagePurpose::ServerAuth,
            ExtendedKeyUsagePurpose::ClientAuth,
        ];
        let certificate = params.signed_by(&key_pair, &issuer).map_err(tls_failure)?;
        write(&key, &key_pair.serialize_pem(), true)?;
        write(&cert, &certificate.pem(), false)?;
        outln!("made {} and {}", cert.display(), key.display())?;
    }
    outln!(
        "give each host ca.pem, its HOST.pem and HOST.key (--tls-ca, --tls-cert, --tls-key); keep ca.key off the cluster"
    )?;
    Ok(0)
}

/// The CA in `dir`, made there first if it is not.
fn ca(dir: &Path) -> Result<Issuer<'static, KeyPair>, Failure> {
    let (cert, key) = (dir.join("ca.pem"), dir.join("ca.key"));
    if cert.exists() || key.exists() {
        let read = |path: &Path| {
            let fail = |reason: String| {
                Failure::bad_input(format!(
                    "cannot read {} (ca.pem and ca.key go together): {reason}",
                    path.display()
                ))
            };
            let bytes = read_at_most(path, MAX_PEM_BYTES).map_err(|e| fail(e.to_string()))?;
            String::from_utf8(bytes).map_err(|_| fail("not PEM text".to_string()))
        };
        let key_pair = KeyPair::from_pem(&read(&key)?)
            .map_err(|e| Failure::bad_input(format!("{}: {e}", key.display())))?;
        let issuer = Issuer::from_ca_cert_pem(&read(&cert)?, key_pair)
            .map_err(|e| Failure::bad_input(format!("{}: {e}", cert.display())))?;
        outln!("kept {} (already there)", cert.display())?;
        return Ok(issuer);
    }
    let key_pair = KeyPair::generate().map_err(tls_failure)?;
    let mut params = CertificateParams::new(Vec::<String>::new()).map_err(tls_failure)?;
    params.distinguished_name.push(DnType::CommonName, CA_NAME);
    params.is_ca = IsCa::Ca(BasicConstraints::Constrained(0));
    params.key_usages = vec![
        KeyUsagePurpose::KeyCertSign,
        KeyUsagePurpose::CrlSign,
        KeyUsagePurpose::DigitalSignature,
    ];
    let certificate = params.self_signed(&key_pair).map_err(tls_failure)?;
    write(&key, &key_pair.serialize_pem(), true)?;
    write(&cert, &certificate.pem(), false)?;
    outln!("made {} and {}", cert.display(), key.display())?;
    Ok(Issuer::new(params, key_pair))
}

/// What is wrong with `host` as a certificate's name, if anything.
fn host_fault(host: &str) -> Option<&'static str> {
    if host.is_empty() {
        return Some("is empty");
    }
    if host.len() > MAX_HOST {
        return Some("is longer than a host name can be");
    }
    if host.eq_ignore_ascii_case("ca") {
        return Some("is the CA's own file name (ca.pem, ca.key): name the host otherwise");
    }
    if host.parse::<std::net::IpAddr>().is_ok() {
        return None;
    }
    let label_ok = |label: &str| {
        !label.is_empty()
            && label.len() <= 63
            && !label.starts_with('-')
            && !label.ends_with('-')
            && label
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || b == b'-')
    };
    if !host.split('.').all(label_ok) {
        return Some("is neither a DNS name nor an IP address");
    }
    None
}

/// Writes `text` to `path`, readable by its owner only when `secret`.
fn write(path: &Path, text: &str, secret: bool) -> Result<(), Failure> {
    use std::os::unix::fs::OpenOptionsExt;
    let mode = if secret { 0o600 } else { 0o644 };
    std::fs::OpenOptions::new()
        .write(true)
        .create(true)
        .truncate(true)
        .mode(mode)
        .open(path)
        .and_then(|mut file| file.write_all(text.as_bytes()))
        .map_err(|e| Failure::failed(format!("cannot write {}: {e}", path.display())))
}

fn tls_failure(error: rcgen::Error) -> Failure {
    Failure::failed(format!("cannot make a certificate: {error}"))
}

#[cfg(test)]
mod tests {
    use super::host_fault;

    #[test]
    fn host_names_and_addresses_are_accepted() {
        for host in ["coord", "ws-1.lab.example", "10.0.0.1", "::1", "localhost"] {
            assert_eq!(host_fault(host), None, "{host}");
        }
    }

    #[test]
    fn what_could_not_name_a_host_is_refused() {
        let long = "a".repeat(254);
        for host in ["", "-x", "a..b", "a/b", "../ca", "x y", "é", long.as_str()] {
            assert!(host_fault(host).is_some(), "{host:?}");
        }
    }
}
