//! Mutual TLS between real coordinator and worker processes on loopback:
//! `egdb tls init` makes the files, a TLS cluster builds what `egdb build`
//! builds, and peers without the cluster's certificates are refused with a
//! clear message on both sides.

mod common;

use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::time::Duration;

use common::*;

/// `egdb tls init DIR --hosts HOSTS`, which must succeed.
fn tls_init(dir: &Path, hosts: &str) -> String {
    let out = egdb(&["tls", "init", dir.to_str().unwrap(), "--hosts", hosts]);
    assert!(out.status.success(), "{}", stderr(&out));
    stdout(&out)
}

fn https(url: &str) -> String {
    url.replacen("http://", "https://", 1)
}

fn strs(args: &[String]) -> Vec<&str> {
    args.iter().map(String::as_str).collect()
}

/// A TLS coordinator of `game` on loopback, and its https:// URL.
fn tls_coordinator(game: &str, store: &Path, lab: &Path) -> (Server, String) {
    let mut args = vec!["coordinator", game, "--store", store.to_str().unwrap()];
    args.extend(["--listen", "127.0.0.1:0"]);
    let tls = tls_args(lab, "127.0.0.1");
    args.extend(strs(&tls));
    let (server, url) = listening(&args);
    (server, https(&url))
}

#[test]
fn tls_init_makes_a_ca_and_host_certificates_and_keeps_them_when_run_again() {
    let dir = tempfile::tempdir().unwrap();
    let lab = dir.path().join("lab");
    tls_init(&lab, "127.0.0.1,ws-1");
    let ca = std::fs::read(lab.join("ca.pem")).unwrap();
    let host = std::fs::read(lab.join("ws-1.pem")).unwrap();
    for key in ["ca.key", "ws-1.key", "127.0.0.1.key"] {
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(lab.join(key))
            .unwrap()
            .permissions()
            .mode();
        assert_eq!(mode & 0o077, 0, "{key} is readable by others");
    }
    let again = tls_init(&lab, "ws-1,ws-2");
    assert!(again.contains("kept"), "{again}");
    assert_eq!(
        std::fs::read(lab.join("ca.pem")).unwrap(),
        ca,
        "the CA is kept"
    );
    assert_eq!(std::fs::read(lab.join("ws-1.pem")).unwrap(), host);
    assert!(lab.join("ws-2.pem").exists() && lab.join("ws-2.key").exists());

    let refused = egdb(&["tls", "init", lab.to_str().unwrap(), "--hosts", "../x"]);
    assert_eq!(refused.status.code(), Some(2), "{}", stderr(&refused));
    assert!(stderr(&refused).contains("../x"), "{}", stderr(&refused));
    // `ca` would be the CA's own files, not a host's.
    let ca = std::fs::read(lab.join("ca.pem")).unwrap();
    let refused = egdb(&["tls", "init", lab.to_str().unwrap(), "--hosts", "ws-3,ca"]);
    assert_eq!(refused.status.code(), Some(2), "{}", stderr(&refused));
    assert!(
        stderr(&refused).contains("CA's own file name"),
        "{}",
        stderr(&refused)
    );
    assert_eq!(std::fs::read(lab.join("ca.pem")).unwrap(), ca);
    assert!(
        !lab.join("ws-3.pem").exists(),
        "nothing made of a refused list"
    );
}

#[test]
fn a_tls_cluster_builds_what_egdb_build_builds() {
    let game = "nim:triangle:5:normal";
    let dir = tempfile::tempdir().unwrap();
    let lab = dir.path().join("lab");
    tls_init(&lab, "127.0.0.1,ws-1,ws-2");
    let (cluster, single) = (dir.path().join("cluster"), dir.path().join("single"));
    let (coordinator, url) = tls_coordinator(game, &cluster, &lab);

    let status = egdb_with(&["status", "--coordinator", &url], &tls_args(&lab, "ws-1"));
    assert!(status.status.success(), "{}", stderr(&status));

    let workers: Vec<_> = ["ws-1", "ws-2"]
        .iter()
        .map(|host| start_worker(&url, host, &strs(&tls_args(&lab, host))))
        .collect();
    let limit = Duration::from_secs(300);
    let out = finish(coordinator.take(), "coordinator", limit);
    assert!(out.status.success(), "{}", stderr(&out));
    for worker in workers {
        let out = finish(worker, "worker", limit);
        assert!(out.status.success(), "{}", stderr(&out));
    }
    build(game, &single, &[]);
    assert_eq!(checksums(&cluster), checksums(&single));
    assert_verified(&cluster);
}

/// `egdb ARGS EXTRA`.
fn egdb_with(args: &[&str], extra: &[String]) -> std::process::Output {
    let mut all: Vec<&str> = args.to_vec();
    all.extend(strs(extra));
    egdb(&all)
}

/// A server process, killed when dropped: a failing test leaves none
/// behind.
struct Server(Option<std::process::Child>);

impl Server {
    /// The child, to wait for: no longer killed when dropped.
    fn take(mut self) -> std::process::Child {
        self.0.take().expect("running")
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        if let Some(mut child) = self.0.take() {
            let _ = child.kill();
            let _ = child.wait();
        }
    }
}

/// `spawn_listening`, the child killed when the test ends.
fn listening(args: &[&str]) -> (Server, String) {
    let (child, url) = spawn_listening(args);
    (Server(Some(child)), url)
}

/// Kills the coordinator and gives what it wrote to standard error.
fn stop(server: Server) -> String {
    let mut coordinator = server.take();
    // What it logs of the last refused peer may come just after the peer.
    std::thread::sleep(Duration::from_millis(500));
    let _ = coordinator.kill();
    let mut text = String::new();
    let _ = coordinator
        .stderr
        .take()
        .expect("piped")
        .read_to_string(&mut text);
    let _ = coordinator.wait();
    text
}

#[test]
fn peers_without_the_clusters_certificates_are_refused_on_both_sides() {
    let dir = tempfile::tempdir().unwrap();
    let (lab, other) = (dir.path().join("lab"), dir.path().join("other"));
    tls_init(&lab, "127.0.0.1,ws-1");
    tls_init(&other, "ws-1");
    let (coordinator, url) = tls_coordinator("nim:triangle:4:normal", &dir.path().join("s"), &lab);
    let worker = |url: &str, tls: &[String]| {
        let mut args = vec!["worker", "--coordinator", url, "--name", "intruder"];
        args.extend(["--patience", "5", "--threads", "1", "--memory", "1GiB"]);
        egdb_with(&args, tls)
    };

    // A certificate of another CA: the worker hears why, at once.
    let foreign = worker(&url, &tls_args(&other, "ws-1"));
    assert_eq!(foreign.status.code(), Some(2), "{}", stderr(&foreign));
    assert!(
        stderr(&foreign).contains("certificate"),
        "{}",
        stderr(&foreign)
    );

    // A worker that trusts the lab's CA but shows another CA's certificate.
    let mut mixed = tls_args(&other, "ws-1");
    mixed[5] = lab.join("ca.pem").to_str().unwrap().to_string();
    let impostor = worker(&url, &mixed);
    assert_eq!(impostor.status.code(), Some(2), "{}", stderr(&impostor));
    assert!(
        stderr(&impostor).contains("refused this host's certificate"),
        "{}",
        stderr(&impostor)
    );

    // No TLS at all: refused, never served in clear; the worker is told
    // what to try.
    let plain = worker(&url.replacen("https://", "http://", 1), &[]);
    assert_eq!(plain.status.code(), Some(2), "{}", stderr(&plain));
    assert!(
        stderr(&plain).contains("server speaks TLS or is no gRPC server"),
        "{}",
        stderr(&plain)
    );
    assert!(stderr(&plain).contains("--tls-ca"), "{}", stderr(&plain));

    // An https URL without the files, and files with an http URL.
    let no_files = worker(&url, &[]);
    assert_eq!(no_files.status.code(), Some(2));
    assert!(
        stderr(&no_files).contains("--tls-ca"),
        "{}",
        stderr(&no_files)
    );
    let http_with_files = worker(
        &url.replacen("https://", "http://", 1),
        &tls_args(&lab, "ws-1"),
    );
    assert_eq!(
        http_with_files.status.code(),
        Some(2),
        "{}",
        stderr(&http_with_files)
    );
    assert!(
        stderr(&http_with_files).contains("the coordinator's URL is https://"),
        "{}",
        stderr(&http_with_files)
    );

    // TLS spoken to a plaintext coordinator: the worker says so at once.
    let plaintext = dir.path().join("plain");
    let (plain_coordinator, plain_url) = listening(&[
        "coordinator",
        "nim:triangle:4:normal",
        "--store",
        plaintext.to_str().unwrap(),
        "--listen",
        "127.0.0.1:0",
    ]);
    let wrong_way = worker(&https(&plain_url), &tls_args(&lab, "ws-1"));
    assert_eq!(wrong_way.status.code(), Some(2), "{}", stderr(&wrong_way));
    assert!(
        stderr(&wrong_way).contains("does not speak TLS"),
        "{}",
        stderr(&wrong_way)
    );
    stop(plain_coordinator);

    let log = stop(coordinator);
    assert!(log.contains("refused a TLS connection"), "{log}");
    assert!(log.contains("not one of this cluster's CA"), "{log}");
    assert!(log.contains("does not speak TLS"), "{log}");
}

#[test]
fn the_tls_listener_answers_plaintext_with_nothing_it_would_serve() {
    let dir = tempfile::tempdir().unwrap();
    let lab = dir.path().join("lab");
    tls_init(&lab, "127.0.0.1");
    let (coordinator, url) = tls_coordinator("nim:triangle:4:normal", &dir.path().join("s"), &lab);
    let address = url.trim_start_matches("https://");
    // An HTTP/2 preface and a SETTINGS frame, in clear.
    let mut stream = std::net::TcpStream::connect(address).unwrap();
    stream
        .set_read_timeout(Some(Duration::from_secs(15)))
        .unwrap();
    stream
        .write_all(b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n\x00\x00\x00\x04\x00\x00\x00\x00\x00")
        .unwrap();
    let mut reply = Vec::new();
    let _ = stream.read_to_end(&mut reply);
    // At most a TLS alert record (content type 21), never an HTTP/2 frame.
    assert!(
        reply.is_empty() || reply[0] == 21,
        "plaintext answered with {reply:?}"
    );
    let log = stop(coordinator);
    assert!(log.contains("does not speak TLS"), "{log}");
}

#[test]
fn serve_speaks_tls_to_any_client_that_trusts_its_ca() {
    let game = "nim:triangle:4:normal";
    let dir = tempfile::tempdir().unwrap();
    let lab = dir.path().join("lab");
    tls_init(&lab, "127.0.0.1");
    let store = dir.path().join("store");
    build(game, &store, &[]);
    let cert: PathBuf = lab.join("127.0.0.1.pem");
    let key: PathBuf = lab.join("127.0.0.1.key");
    let (server, url) = listening(&[
        "serve",
        "--store",
        store.to_str().unwrap(),
        "--listen",
        "127.0.0.1:0",
        "--tls-cert",
        cert.to_str().unwrap(),
        "--tls-key",
        key.to_str().unwrap(),
    ]);
    let url = https(&url);
    let ca = lab.join("ca.pem");
    let remote = egdb(&[
        "query",
        "--server",
        &url,
        "--tls-ca",
        ca.to_str().unwrap(),
        "start",
        "--json",
    ]);
    assert!(remote.status.success(), "{}", stderr(&remote));
    let local = query_json(&store, "start");
    let remote: serde_json::Value = serde_json::from_str(&stdout(&remote)).unwrap();
    assert_eq!(remote, local);

    let untrusted = egdb(&["query", "--server", &url, "start"]);
    assert_eq!(untrusted.status.code(), Some(2), "{}", stderr(&untrusted));
    // In clear to a TLS server: refused, and told why.
    let clear = url.replacen("https://", "http://", 1);
    let plain = egdb(&["query", "--server", &clear, "start"]);
    assert_eq!(plain.status.code(), Some(2), "{}", stderr(&plain));
    assert!(
        stderr(&plain).contains("server speaks TLS or is no gRPC server"),
        "{}",
        stderr(&plain)
    );
    stop(server);
}

#[test]
fn a_coordinator_open_to_the_network_without_tls_warns() {
    let dir = tempfile::tempdir().unwrap();
    let store = dir.path().join("s");
    let (coordinator, _) = listening(&[
        "coordinator",
        "nim:triangle:4:normal",
        "--store",
        store.to_str().unwrap(),
        "--listen",
        "0.0.0.0:0",
    ]);
    let log = stop(coordinator);
    assert!(log.contains("WARNING: no TLS and no token"), "{log}");

    let lab = dir.path().join("lab");
    tls_init(&lab, "127.0.0.1");
    let (coordinator, _) = tls_coordinator("nim:triangle:4:normal", &store, &lab);
    let log = stop(coordinator);
    assert!(!log.contains("WARNING"), "{log}");
}
