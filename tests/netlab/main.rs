//! A cluster on real hosts with real faults: network namespaces on this
//! machine as workstations with their own addresses, a coordinator on one,
//! workers on the others, mutual TLS between them; links cut and restored,
//! packets lost and late, a worker host and the coordinator's host killed.
//! Every build must end with the tables `egdb build` makes, verified.
//! Skipped, with the reason on standard error, where the machine cannot
//! make namespaces (not root, no TUN devices).

#[path = "../common/mod.rs"]
mod common;
mod lab;
mod wire;

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use common::*;
use lab::Lab;
use wire::Conditions;

const PORT: u16 = 7070;

/// A lab of a coordinator host (0) and worker hosts, with TLS files for each.
struct Cluster {
    lab: Lab,
    tls: PathBuf,
    game: &'static str,
    hosts: usize,
}

impl Cluster {
    fn start(tag: &str, hosts: usize, game: &'static str, dir: &Path) -> Option<Cluster> {
        let lab = match Lab::start(tag, hosts) {
            Ok(lab) => lab,
            Err(reason) => {
                skip(
                    "lab",
                    &format!("the network-namespace lab cannot start: {reason}"),
                );
                return None;
            }
        };
        let tls = dir.join("tls");
        let names: Vec<String> = (0..hosts).map(|h| lab.address(h)).collect();
        let out = egdb(&["tls", "init", tls.to_str()?, "--hosts", &names.join(",")]);
        assert!(out.status.success(), "{}", stderr(&out));
        Some(Cluster {
            lab,
            tls,
            game,
            hosts,
        })
    }

    fn tls_args(&self, host: usize) -> Vec<String> {
        tls_args(&self.tls, &self.lab.address(host))
    }

    fn url(&self) -> String {
        format!("https://{}:{PORT}", self.lab.address(0))
    }

    /// The coordinator on host 0, with its log collected.
    fn coordinator(&self, store: &Path) -> Logged {
        let mut command = self.lab.command(0, env!("CARGO_BIN_EXE_egdb"));
        command
            .args(["-v", "coordinator", self.game, "--store"])
            .arg(store)
            .args(["--listen", &format!("{}:{PORT}", self.lab.address(0))])
            .args(["--lease-seconds", "4"])
            .args(self.tls_args(0));
        let logged = Logged::spawn(command);
        logged.wait_for("listening", 1, Duration::from_secs(30));
        logged
    }

    fn worker(&self, host: usize) -> Logged {
        let mut command = self.lab.command(host, env!("CARGO_BIN_EXE_egdb"));
        command
            .args(["worker", "--coordinator", &self.url()])
            .args(["--name", &format!("ws{host}"), "--threads", "1"])
            .args(["--memory", "2GiB", "--patience", "120"])
            .args(self.tls_args(host));
        Logged::spawn(command)
    }

    /// A whole build on hosts 1.. with nothing done to it; its seconds.
    fn build(&self, store: &Path) -> f64 {
        let started = Instant::now();
        let coordinator = self.coordinator(store);
        let workers: Vec<Logged> = (1..self.hosts).map(|h| self.worker(h)).collect();
        coordinator.finish("coordinator", Duration::from_secs(600));
        for worker in workers {
            worker.finish("worker", Duration::from_secs(60));
        }
        started.elapsed().as_secs_f64()
    }

    /// The store equals `egdb build`'s and passes `egdb verify`.
    fn assert_same_as_single(&self, store: &Path, dir: &Path) {
        let single = dir.join("single");
        if !single.exists() {
            build(self.game, &single, &[]);
        }
        assert_eq!(checksums(store), checksums(&single), "{}", self.game);
        assert_verified(store);
    }
}

/// A process whose standard error is kept, line by line, as it comes.
struct Logged {
    child: Child,
    lines: Arc<Mutex<Vec<String>>>,
}

impl Logged {
    fn spawn(mut command: std::process::Command) -> Logged {
        let mut child = command
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("starts");
        let lines = Arc::new(Mutex::new(Vec::new()));
        for stream in [
            Box::new(child.stdout.take().expect("piped")) as Box<dyn std::io::Read + Send>,
            Box::new(child.stderr.take().expect("piped")),
        ] {
            let lines = lines.clone();
            std::thread::spawn(move || {
                for line in BufReader::new(stream).lines().map_while(Result::ok) {
                    lines.lock().unwrap().push(line);
                }
            });
        }
        Logged { child, lines }
    }

    fn count(&self, needle: &str) -> usize {
        let lines = self.lines.lock().unwrap();
        lines.iter().filter(|l| l.contains(needle)).count()
    }

    /// Waits until `needle` has been written `times` times.
    fn wait_for(&self, needle: &str, times: usize, limit: Duration) {
        let started = Instant::now();
        while self.count(needle) < times {
            assert!(
                started.elapsed() < limit,
                "no {times} × {needle:?} within {limit:?}: {}",
                self.log()
            );
            std::thread::sleep(Duration::from_millis(100));
        }
    }

    fn log(&self) -> String {
        self.lines.lock().unwrap().join("\n")
    }

    /// Waits for a successful end, killing the process after `limit`.
    fn finish(mut self, what: &str, limit: Duration) {
        let started = Instant::now();
        loop {
            if let Some(status) = self.child.try_wait().unwrap() {
                std::thread::sleep(Duration::from_millis(200));
                assert!(status.success(), "{what}: {status}: {}", self.log());
                return;
            }
            if started.elapsed() > limit {
                let _ = self.child.kill();
                panic!("{what} did not finish in {limit:?}: {}", self.log());
            }
            std::thread::sleep(Duration::from_millis(100));
        }
    }

    fn kill(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

#[test]
fn a_tls_cluster_survives_a_cut_link_a_dead_worker_host_and_a_coordinator_restart() {
    let dir = tempfile::tempdir().unwrap();
    let Some(cluster) = Cluster::start("f", 4, "morris:taiwan:5", dir.path()) else {
        return;
    };
    let store = dir.path().join("cluster");
    let mut coordinator = cluster.coordinator(&store);
    let workers: Vec<Logged> = (1..4).map(|h| cluster.worker(h)).collect();
    let minute = Duration::from_secs(60);
    let done = "slice done";

    // Host 1's link goes for long enough that its lease expires, then
    // comes back: its transfer in progress breaks and is made again.
    coordinator.wait_for(done, 10, 3 * minute);
    cluster.lab.cut(1, true);
    std::thread::sleep(Duration::from_secs(6));
    cluster.lab.cut(1, false);

    // The coordinator's host dies and comes back: the build goes on from
    // what the store holds; the workers wait for it. (Early in the build:
    // the slices of taiwan:5 go by quickly, and a build that finished
    // before the kill would leave nothing to resume.)
    let before = coordinator.count(done);
    coordinator.wait_for(done, before + 5, 3 * minute);
    let killed_at = coordinator.count(done);
    coordinator.kill();
    std::thread::sleep(Duration::from_secs(3));
    let coordinator = cluster.coordinator(&store);

    // Host 2 dies whole; the others take its slices once its lease with
    // the restarted coordinator expires.
    let resumed = coordinator.count(done);
    coordinator.wait_for(done, resumed + 5, 3 * minute);
    eprintln!("coordinator killed after {killed_at} slices; host 2 after 5 more");
    cluster.lab.kill_host(2);
    coordinator.finish("restarted coordinator", 10 * minute);
    for (i, worker) in workers.into_iter().enumerate() {
        if i + 1 != 2 {
            worker.finish("worker", minute);
        }
    }
    cluster.assert_same_as_single(&store, dir.path());
}

#[test]
fn a_tls_cluster_builds_the_same_tables_through_loss_and_latency() {
    let dir = tempfile::tempdir().unwrap();
    let Some(cluster) = Cluster::start("l", 4, "morris:taiwan:4", dir.path()) else {
        return;
    };
    let clean = cluster.build(&dir.path().join("clean"));
    cluster.assert_same_as_single(&dir.path().join("clean"), dir.path());
    cluster.lab.set(Conditions {
        delay: Duration::from_millis(50),
        loss: 0.02,
        cut: Vec::new(),
    });
    let lossy = cluster.build(&dir.path().join("lossy"));
    cluster.lab.set(Conditions::default());
    cluster.assert_same_as_single(&dir.path().join("lossy"), dir.path());
    eprintln!(
        "netlab {}: clean network {clean:.1} s, 2% loss and 50 ms each way {lossy:.1} s ({:.2}×)",
        cluster.game,
        lossy / clean
    );
}

/// `ssh-keygen` a key pair without a passphrase at `path`.
fn ssh_key(path: &Path) -> Result<(), String> {
    let out = std::process::Command::new("ssh-keygen")
        .args(["-q", "-t", "ed25519", "-N", "", "-f"])
        .arg(path)
        .output()
        .map_err(|e| format!("no ssh-keygen (deploy/setup-lab.sh installs it): {e}"))?;
    if out.status.success() {
        Ok(())
    } else {
        Err(format!(
            "ssh-keygen: {}",
            String::from_utf8_lossy(&out.stderr)
        ))
    }
}

/// An sshd on each of `hosts` of the lab, admitting `client_key`.
fn start_sshd(lab: &Lab, hosts: usize, dir: &Path, client_key: &Path) -> Result<(), String> {
    let sshd = Path::new("/usr/sbin/sshd");
    if !sshd.exists() {
        return Err("no /usr/sbin/sshd (deploy/setup-lab.sh installs it)".into());
    }
    // Debian's sshd wants its privilege-separation directory.
    std::fs::create_dir_all("/run/sshd").map_err(|e| e.to_string())?;
    let host_key = dir.join("host_key");
    ssh_key(&host_key)?;
    let authorized = dir.join("authorized_keys");
    std::fs::copy(client_key.with_extension("pub"), &authorized).map_err(|e| e.to_string())?;
    for host in 0..hosts {
        let mut command = lab.command(host, sshd.to_str().unwrap());
        command
            .args(["-f", "/dev/null", "-o"])
            .arg(format!("HostKey={}", host_key.display()))
            .args(["-o"])
            .arg(format!("AuthorizedKeysFile={}", authorized.display()))
            .args(["-o"])
            .arg(format!("ListenAddress={}", lab.address(host)))
            .args(["-o", "PasswordAuthentication=no", "-o", "UsePAM=no"])
            .args(["-o", "StrictModes=no", "-o", "PidFile=none"])
            .args(["-o", "PermitRootLogin=prohibit-password"])
            .stdout(Stdio::null())
            .stderr(Stdio::null());
        let status = command.status().map_err(|e| e.to_string())?;
        if !status.success() {
            return Err(format!("sshd did not start on host {host}: {status}"));
        }
    }
    Ok(())
}

#[test]
fn launch_sh_starts_a_tls_cluster_over_ssh_on_the_lab_hosts() {
    let dir = tempfile::tempdir().unwrap();
    let Some(cluster) = Cluster::start("s", 3, "morris:taiwan:4", dir.path()) else {
        return;
    };
    let client_key = dir.path().join("id");
    let sshd =
        ssh_key(&client_key).and_then(|()| start_sshd(&cluster.lab, 3, dir.path(), &client_key));
    if let Err(reason) = sshd {
        skip("ssh", &format!("no sshd on the lab's hosts: {reason}"));
        return;
    }
    let hosts = dir.path().join("hosts");
    let names: Vec<String> = (0..3).map(|h| cluster.lab.address(h)).collect();
    std::fs::write(&hosts, format!("# the lab\n{}\n", names.join("\n"))).unwrap();
    let token = dir.path().join("token");
    std::fs::write(&token, "lab-token\n").unwrap();
    let store = dir.path().join("cluster");
    let script = repo_file("deploy/cluster/launch.sh");
    let ssh = format!(
        "ssh -F /dev/null -i {} -o BatchMode=yes -o StrictHostKeyChecking=no -o UserKnownHostsFile=/dev/null -o LogLevel=ERROR",
        client_key.display()
    );
    // launch.sh runs on host 0, like an admin's shell on the coordinator.
    let out = cluster
        .lab
        .command(0, "bash")
        .arg(&script)
        .arg(&hosts)
        .arg(cluster.game)
        .arg(&store)
        .arg(&token)
        .env("EGDB", env!("CARGO_BIN_EXE_egdb"))
        .env("TLS_DIR", &cluster.tls)
        .env("WORKDIR", dir.path())
        .env("SSH", &ssh)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr(&out));

    let log = dir.path().join("egdb-coordinator.log");
    let started = Instant::now();
    while !std::fs::read_to_string(&log)
        .unwrap_or_default()
        .contains("built ")
    {
        assert!(
            started.elapsed() < Duration::from_secs(300),
            "the launched build did not end: {}",
            std::fs::read_to_string(&log).unwrap_or_default()
        );
        std::thread::sleep(Duration::from_millis(500));
    }
    // Every host got its worker (its log is made as it starts); the ones
    // that joined before the end said what they did. A worker that came
    // after the end waits for a coordinator that is gone; the lab ends it.
    let logs: Vec<PathBuf> = names
        .iter()
        .map(|name| dir.path().join(format!("egdb-worker-{name}.log")))
        .collect();
    for log in &logs {
        assert!(log.exists(), "no worker was started: {}", log.display());
    }
    let started = Instant::now();
    let reported = || {
        logs.iter().any(|log| {
            std::fs::read_to_string(log)
                .unwrap_or_default()
                .contains("slices,")
        })
    };
    while !reported() {
        assert!(
            started.elapsed() < Duration::from_secs(60),
            "no worker said what it did"
        );
        std::thread::sleep(Duration::from_millis(200));
    }
    cluster.assert_same_as_single(&store, dir.path());
}

/// `deploy/netns-cluster.sh`'s hosts, removed when dropped (however the
/// test ends).
struct ScriptHosts {
    names: String,
}

impl ScriptHosts {
    fn command(&self, args: &[&std::ffi::OsStr]) -> std::process::Command {
        let mut command = std::process::Command::new("bash");
        command
            .arg(repo_file("deploy/netns-cluster.sh"))
            .args(args)
            .env("NETNS", &self.names)
            .env("EGDB_BIN", env!("CARGO_BIN_EXE_egdb"))
            .env("STATUS_EVERY", "1")
            .env("RESTART_AFTER", "1")
            .env("NICE", "0")
            .env("MEMORY", "1GiB")
            .env("MEMORY_WS2", "1.5GiB");
        command
    }

    fn run(&self, args: &[&std::ffi::OsStr]) -> std::process::Output {
        self.command(args).output().unwrap()
    }
}

impl Drop for ScriptHosts {
    fn drop(&mut self) {
        self.run(&["down".as_ref()]);
    }
}

#[test]
fn netns_cluster_sh_builds_on_hosts_of_its_own_starts_a_killed_worker_again_and_records_what_crossed(
) {
    // SAFETY: geteuid has no preconditions.
    if unsafe { libc::geteuid() } != 0 {
        skip("lab", "network namespaces need root");
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let store = dir.path().join("tw4");
    // Named apart from the hosts of a build this machine may be running.
    let hosts = ScriptHosts {
        names: format!("egdbt{}", std::process::id()),
    };
    let script = hosts
        .command(&[
            "morris:taiwan:4".as_ref(),
            store.as_os_str(),
            "2".as_ref(),
            "--".as_ref(),
            "--lease-seconds".as_ref(),
            "3".as_ref(),
            "--verify-as-built".as_ref(),
        ])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // Once ws2 has handed back a slice, it is killed as a machine's
    // out-of-memory killer would; the script starts it again, and the
    // slice it held comes back when its lease expires.
    let home = dir.path().join("tw4.cluster");
    let log = home.join("coordinator.log");
    let deadline = Instant::now() + Duration::from_secs(120);
    let solved_by_ws2 = |line: &str| line.contains("slice done") && line.contains("ws2");
    while !std::fs::read_to_string(&log).is_ok_and(|log| log.lines().any(solved_by_ws2)) {
        assert!(Instant::now() < deadline, "ws2 solved nothing in 2 minutes");
        std::thread::sleep(Duration::from_millis(50));
    }
    let ws2: libc::pid_t = std::fs::read_to_string(home.join("ws2.pid"))
        .unwrap()
        .trim()
        .parse()
        .unwrap();
    // SAFETY: kill has no memory preconditions; the pid is the script's worker.
    assert_eq!(unsafe { libc::kill(ws2, libc::SIGKILL) }, 0);
    let out = script.wait_with_output().unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    let single = dir.path().join("single");
    build("morris:taiwan:4", &single, &[]);
    assert_eq!(checksums(&store), checksums(&single));

    // Every slice came over the network, from one of the two workers.
    for slice in stats_json(&store) {
        let by = &slice["solved_by"];
        assert_eq!(by["path"], "network", "{slice}");
        assert!(by["worker"] == "ws1" || by["worker"] == "ws2", "{slice}");
    }
    // Sampled: each process's peak memory (ws2's when it was alive). Said
    // at the end: what crossed, the coordinator's own count, which the
    // run's end line keeps.
    let samples = std::fs::read_to_string(home.join("status.jsonl")).unwrap();
    let sampled: Vec<serde_json::Value> = samples
        .lines()
        .map(|line| serde_json::from_str(line).unwrap())
        .collect();
    for process in ["coordinator", "ws1", "ws2"] {
        assert!(
            sampled
                .iter()
                .any(|sample| sample["peak_rss_kib"][process].as_u64() > Some(1000)),
            "{samples}"
        );
    }
    // Each worker with its memory: MEMORY, or its own MEMORY_WSn.
    let memory_of = |name: &str| {
        sampled.iter().find_map(|sample| {
            sample["status"]["workers"]
                .as_array()?
                .iter()
                .find(|w| w["name"] == name)?["memory"]
                .as_u64()
        })
    };
    assert_eq!(memory_of("ws1"), Some(1 << 30), "{samples}");
    assert_eq!(memory_of("ws2"), Some(3 << 29), "{samples}");
    // Each worker's log: a line per task, with the time spent fetching.
    let tasks: Vec<serde_json::Value> = ["worker-1.log", "worker-2.log"]
        .iter()
        .flat_map(|log| {
            let text = std::fs::read_to_string(home.join(log)).unwrap();
            text.lines()
                .filter_map(|line| serde_json::from_str::<serde_json::Value>(line).ok())
                .collect::<Vec<_>>()
        })
        .filter(|line| line["fields"]["fetching"].is_f64())
        .collect();
    for kind in ["slice solved", "slice checked"] {
        assert!(
            tasks.iter().any(|t| t["fields"]["message"] == kind
                && t["fields"]["fetching"].as_f64() <= t["fields"]["seconds"].as_f64()),
            "{kind}: {tasks:?}"
        );
    }
    let runs = std::fs::read_to_string(home.join("runs.log")).unwrap();
    assert!(
        runs.contains("ws2: worker exit 137; started again"),
        "{runs}"
    );
    let end = runs.lines().last().unwrap();
    assert!(
        end.contains("end: coordinator exit 0; this run: "),
        "{runs}"
    );
    // The report the published page is made from reads the same files.
    let report = std::process::Command::new("bash")
        .arg(repo_file("deploy/cluster-report.sh"))
        .arg(&store)
        .env("EGDB_BIN", env!("CARGO_BIN_EXE_egdb"))
        .output()
        .unwrap();
    assert!(report.status.success(), "{}", stderr(&report));
    let report = stdout(&report);
    assert!(
        report.contains("| coordinator exit 0 | ws2 at "),
        "{report}"
    );
    let plan = egdb(&["plan", "morris:taiwan:4", "--json"]);
    let slices = serde_json::from_slice::<serde_json::Value>(&plan.stdout).unwrap()["slices"]
        .as_array()
        .unwrap()
        .len();
    assert!(
        report.contains(&format!(
            "{slices} slices passed their check against their moves, 0 failed"
        )),
        "{report}"
    );
    // Its progress: every slice of the plan, all through the network.
    assert!(
        report.contains(&format!("{slices} of {slices} slices, "))
            && report.contains("entries (100.0 % of the plan)")
            && report.contains(&format!("| network | {slices} | ")),
        "{report}"
    );
    assert!(report.contains("| at the end |"), "{report}");
    assert!(
        report.contains("| run | coordinator | ws1 | ws2 |"),
        "{report}"
    );
    // Where the workers' time went: both kinds of task, from their lines.
    let (_, time) = report
        .split_once("\n## Where the workers' time went\n")
        .unwrap_or_else(|| panic!("{report}"));
    for kind in ["| solve | placement |", "| check | placement |"] {
        assert!(time.contains(kind), "{report}");
    }
    // And where their fetching went: both kinds, with bytes to decode.
    let (_, fetching) = time
        .split_once("\n## Where the fetching went\n")
        .unwrap_or_else(|| panic!("{report}"));
    for kind in ["| check |", "| solve |"] {
        assert!(
            fetching
                .lines()
                .any(|l| l.contains(kind) && l.trim_end().ends_with(" s |")),
            "{kind}: {report}"
        );
    }
    // The model of other cache limits: these caches had none, so with none
    // it can count no more than the coordinator sent (which also carried
    // the reads of the task lost with ws2), and with less it counts more.
    let bytes_in = |row: &str| -> u64 {
        let line = report
            .lines()
            .find(|l| l.starts_with(row))
            .unwrap_or_else(|| panic!("no {row:?} in {report}"));
        let cells: Vec<&str> = line.split('|').map(str::trim).collect();
        let sent = cells.iter().find(|c| c.ends_with(" GiB)")).unwrap();
        sent.split(' ').next().unwrap().parse().unwrap()
    };
    let measured = bytes_in("| all |");
    let (unlimited, small) = (bytes_in("| none |"), bytes_in("| 1 GiB |"));
    assert!(
        0 < unlimited && unlimited <= measured && unlimited <= small,
        "{report}"
    );
    // The published page carries it, under the store's own results.
    let results = dir.path().join("results");
    let published = std::process::Command::new("bash")
        .arg(repo_file("deploy/results.sh"))
        .args([
            "morris:taiwan:4".as_ref(),
            "tw4".as_ref(),
            store.as_os_str(),
        ])
        .env("EGDB_BIN", env!("CARGO_BIN_EXE_egdb"))
        .env("BUILD_LOG", home.join("coordinator.out"))
        .env("RESULTS_DIR", &results)
        .output()
        .unwrap();
    assert!(published.status.success(), "{}", stderr(&published));
    let page = std::fs::read_to_string(results.join("tw4.md")).unwrap();
    assert!(
        page.contains("every slice verified as it was stored"),
        "{page}"
    );
    let (values, cluster) = page
        .split_once("\n## The cluster build\n")
        .unwrap_or_else(|| panic!("{page}"));
    assert!(values.contains("Start"), "{page}");
    assert!(cluster.contains("\n### The cluster's runs\n"), "{page}");
    assert!(cluster.contains("| coordinator exit 0 | ws2 at "), "{page}");
    // One run at a time on a store: the lock is free once a run has
    // ended, and while something holds it a next run does not start.
    let lock = std::fs::File::options()
        .append(true)
        .open(home.join("run.lock"))
        .unwrap();
    // SAFETY: flock on a descriptor this test owns while `lock` lives.
    let locked = unsafe {
        libc::flock(
            std::os::fd::AsRawFd::as_raw_fd(&lock),
            libc::LOCK_EX | libc::LOCK_NB,
        )
    };
    assert_eq!(locked, 0, "the ended run still holds its lock");
    let second = hosts
        .command(&["morris:taiwan:4".as_ref(), store.as_os_str()])
        .env("LOCK_WAIT", "1")
        .output()
        .unwrap();
    assert!(!second.status.success());
    let said = stderr(&second);
    assert!(
        said.contains("an earlier run on") && said.contains("still ending"),
        "{said}"
    );
    assert!(said.contains("run.lock"), "{said}");
    drop(lock);
    drop(hosts);
    let left = std::process::Command::new("ip")
        .args(["netns", "list"])
        .output()
        .unwrap();
    assert!(
        !stdout(&left).contains(&format!("egdbt{}-", std::process::id())),
        "{}",
        stdout(&left)
    );
}
