//! `deploy/cluster/slurm.sbatch` run for real under the single-machine Slurm
//! that `deploy/setup-slurm.sh` sets up (two slurmd nodes on this host): a
//! coordinator job and a requeueable array of worker jobs, with mutual TLS.
//! A worker's node dies whole mid-build (its slurmd, its job steps and their
//! processes killed) while the other worker's job is suspended: Slurm
//! notices, requeues the worker's job, the node comes back, the job runs
//! again and joins the build, and the build ends with the tables
//! `egdb build` makes, verified. Skipped, with the reason on standard error,
//! where Slurm cannot start (not root, packages missing).

#[path = "common/mod.rs"]
mod common;

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use common::*;

const GAME: &str = "morris:taiwan:5";

fn manifest_dir() -> PathBuf {
    PathBuf::from(std::env::var_os("CARGO_MANIFEST_DIR").expect("set by cargo test"))
}

/// The lab Slurm of deploy/setup-slurm.sh.
struct Slurm {
    dir: PathBuf,
}

impl Slurm {
    /// Runs the set-up (idempotent: starts what is not running, puts nodes
    /// that are down back into service) and checks that both nodes answer.
    fn start() -> Result<Slurm, String> {
        // SAFETY: geteuid has no preconditions.
        if unsafe { libc::geteuid() } != 0 {
            return Err("Slurm's daemons need root".into());
        }
        let dir = std::env::var_os("EGDB_SLURM_DIR")
            .map(PathBuf::from)
            .unwrap_or_else(|| PathBuf::from("/var/lib/egdb-slurm"));
        let out = Command::new("bash")
            .arg(manifest_dir().join("deploy/setup-slurm.sh"))
            .output()
            .map_err(|e| format!("bash: {e}"))?;
        if !out.status.success() {
            return Err(format!("deploy/setup-slurm.sh failed: {}", stderr(&out)));
        }
        let slurm = Slurm { dir };
        let nodes = slurm.run("sinfo", &["-h", "-N", "-o", "%N %T"])?;
        let serving = ["idle", "mixed", "allocated", "completing"];
        let up = nodes
            .lines()
            .filter(|l| {
                l.split_whitespace()
                    .nth(1)
                    .is_some_and(|s| serving.contains(&s))
            })
            .count();
        if up < 2 {
            return Err(format!(
                "two nodes in service expected, sinfo says: {nodes:?}"
            ));
        }
        Ok(slurm)
    }

    fn command(&self, program: &str) -> Command {
        let mut command = Command::new(program);
        command.env("SLURM_CONF", self.dir.join("slurm.conf"));
        command
    }

    /// A Slurm command's standard output, or why it failed.
    fn run(&self, program: &str, args: &[&str]) -> Result<String, String> {
        let out = self
            .command(program)
            .args(args)
            .output()
            .map_err(|e| format!("{program} (deploy/setup-slurm.sh installs it): {e}"))?;
        if out.status.success() {
            Ok(stdout(&out))
        } else {
            Err(format!("{program} {args:?}: {}", stderr(&out)))
        }
    }

    /// `Key=value` of `scontrol show job` for one job.
    fn job_field(&self, job: &str, key: &str) -> Option<String> {
        let out = self.run("scontrol", &["-o", "show", "job", job]).ok()?;
        let prefix = format!("{key}=");
        out.split_whitespace()
            .find_map(|field| field.strip_prefix(&prefix))
            .map(str::to_string)
    }

    /// (task id, e.g. `53_2`, node, state) of every task of `array`.
    fn tasks(&self, array: &str) -> Vec<(String, String, String)> {
        let out = self
            .run("squeue", &["-h", "-j", array, "-o", "%i %N %T"])
            .unwrap_or_default();
        out.lines()
            .filter_map(|line| {
                let fields: Vec<&str> = line.split_whitespace().collect();
                match fields[..] {
                    [task, node, state] => Some((task.into(), node.into(), state.into())),
                    _ => None,
                }
            })
            .collect()
    }

    /// What Slurm says about its nodes and jobs, and the end of its
    /// controller's log: what a failed wait prints.
    fn state(&self) -> String {
        let jobs = self
            .run("squeue", &["-a", "-o", "%i %j %T %r %N"])
            .unwrap_or_else(|e| e);
        let nodes = self
            .run("sinfo", &["-N", "-o", "%N %T %E"])
            .unwrap_or_else(|e| e);
        let log = read(&self.dir.join("log/slurmctld.log"));
        format!(
            "squeue:\n{jobs}sinfo:\n{nodes}slurmctld.log:\n{}",
            tail(&log, 30)
        )
    }

    /// What a dead host leaves: no slurmd for `node`, no job steps, no
    /// processes of its jobs.
    fn kill_node(&self, node: &str) {
        let pid_file = self.dir.join(format!("slurmd-{node}.pid"));
        let slurmd = std::fs::read_to_string(&pid_file).expect("slurmd's pid file");
        let jobs = self
            .run("squeue", &["-h", "-w", node, "-o", "%A"])
            .unwrap_or_default();
        let mut victims = vec![slurmd.trim().parse::<i32>().expect("a pid")];
        for entry in std::fs::read_dir("/proc").unwrap().flatten() {
            let Ok(pid) = entry.file_name().to_string_lossy().parse::<i32>() else {
                continue;
            };
            let cmdline = std::fs::read(entry.path().join("cmdline")).unwrap_or_default();
            let environ = std::fs::read(entry.path().join("environ")).unwrap_or_default();
            let step_of_node = jobs.split_whitespace().any(|job| {
                String::from_utf8_lossy(&cmdline).starts_with(&format!("slurmstepd: [{job}."))
            });
            let on_node = environ
                .split(|&b| b == 0)
                .any(|var| var == format!("SLURMD_NODENAME={node}").as_bytes());
            if step_of_node || on_node {
                victims.push(pid);
            }
        }
        for pid in victims {
            // SAFETY: SIGKILL to processes this test's Slurm started.
            unsafe { libc::kill(pid, libc::SIGKILL) };
        }
    }
}

/// Cancels the test's jobs however the test ends.
struct Jobs<'a> {
    slurm: &'a Slurm,
    driver: String,
}

impl Drop for Jobs<'_> {
    fn drop(&mut self) {
        let workers = format!("egdb-workers-{}", self.driver);
        let _ = self.slurm.run("scancel", &["--name", &workers]);
        let _ = self.slurm.run("scancel", &[&self.driver]);
    }
}

/// Waits for `done`; past `limit`, fails with what the test saw: the
/// coordinator's log and Slurm's state.
fn wait_until(what: &str, limit: Duration, watch: &Watch, mut done: impl FnMut() -> bool) {
    let started = Instant::now();
    while !done() {
        assert!(
            started.elapsed() < limit,
            "no {what} within {limit:?}\ncoordinator log:\n{}\n{}",
            tail(&read(&watch.coordinator_log), 30),
            watch.slurm.state()
        );
        std::thread::sleep(Duration::from_millis(250));
    }
}

/// What a failed wait reports.
struct Watch<'a> {
    slurm: &'a Slurm,
    coordinator_log: PathBuf,
}

fn tail(text: &str, lines: usize) -> String {
    let all: Vec<&str> = text.lines().collect();
    all[all.len().saturating_sub(lines)..].join("\n")
}

fn read(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap_or_default()
}

fn free_port() -> u16 {
    let listener = std::net::TcpListener::bind("0.0.0.0:0").unwrap();
    listener.local_addr().unwrap().port()
}

#[test]
fn a_slurm_build_survives_a_dead_node_whose_worker_job_is_requeued() {
    let slurm = match Slurm::start() {
        Ok(slurm) => slurm,
        Err(reason) => {
            skip(
                "slurm",
                &format!("the single-machine Slurm cannot start: {reason}"),
            );
            return;
        }
    };
    let dir = tempfile::tempdir().unwrap();
    let path = |name: &str| dir.path().join(name).to_str().unwrap().to_string();
    std::fs::write(dir.path().join("token"), "slurm-lab-token\n").unwrap();
    let host = String::from_utf8(Command::new("hostname").output().unwrap().stdout).unwrap();
    let out = egdb(&["tls", "init", &path("tls"), "--hosts", host.trim()]);
    assert!(out.status.success(), "{}", stderr(&out));

    std::fs::create_dir(dir.path().join("tmp")).unwrap();
    let export = [
        "ALL".to_string(),
        format!("GAME={GAME}"),
        format!("STORE={}", path("store")),
        format!("TOKEN={}", path("token")),
        format!("TLS_DIR={}", path("tls")),
        format!("EGDB={}", env!("CARGO_BIN_EXE_egdb")),
        format!("LOGS={}", dir.path().display()),
        format!("TMPDIR={}", path("tmp")),
        format!("PORT={}", free_port()),
        "WORKERS=2".into(),
        "COORDINATOR_ARGS=--lease-seconds 5".into(),
        "WORKER_ARGS=--memory 2GiB".into(),
    ]
    .join(",");
    let coordinator_log = dir.path().join("coordinator.log");
    let sbatch = manifest_dir().join("deploy/cluster/slurm.sbatch");
    let driver = slurm
        .run(
            "sbatch",
            &[
                "--parsable",
                "--chdir",
                &path(""),
                "--output",
                coordinator_log.to_str().unwrap(),
                "--export",
                &export,
                sbatch.to_str().unwrap(),
            ],
        )
        .expect("sbatch takes the job");
    let jobs = Jobs {
        slurm: &slurm,
        driver: driver.trim().to_string(),
    };
    let minute = Duration::from_secs(60);
    let watch = Watch {
        slurm: &slurm,
        coordinator_log: coordinator_log.clone(),
    };

    // The workers' array: one task shares the coordinator's node, the other
    // has a node to itself (Slurm packs the first node first).
    let mut array = String::new();
    wait_until("worker array", minute, &watch, || {
        let log = read(&coordinator_log);
        // Only the id: the log goes on after it once workers register.
        array = log
            .split("workers: job array ")
            .nth(1)
            .and_then(|rest| rest.split_whitespace().next())
            .unwrap_or_default()
            .to_string();
        !array.is_empty()
    });
    let mut tasks = Vec::new();
    wait_until("both worker tasks running", minute, &watch, || {
        tasks = slurm.tasks(&array);
        tasks.len() == 2 && tasks.iter().all(|t| t.2 == "RUNNING")
    });
    let driver_node = slurm.job_field(&jobs.driver, "NodeList").unwrap();
    let (victim_task, node, _) = tasks
        .iter()
        .find(|t| t.1 != driver_node)
        .unwrap_or_else(|| panic!("no worker off the coordinator's node {driver_node}: {tasks:?}"))
        .clone();
    let (survivor_task, _, _) = tasks.iter().find(|t| t.0 != victim_task).unwrap().clone();
    let array_task = victim_task.rsplit('_').next().unwrap().to_string();
    let victim = format!("\"{node}-{array_task}-0\"");

    // Its worker has solved a slice and goes on to the next: the node dies.
    // The other worker is suspended first (an operator's `scontrol suspend`),
    // or it could finish the build alone before Slurm has requeued and
    // restarted the victim's job: the build now cannot end without it.
    wait_until("a slice solved by the victim", 3 * minute, &watch, || {
        read(&coordinator_log)
            .lines()
            .any(|l| l.contains("slice done") && l.contains(&victim))
    });
    slurm
        .run("scontrol", &["suspend", &survivor_task])
        .expect("the other worker's job is suspended");
    slurm.kill_node(&node);
    let killed = Instant::now();

    // Slurm notices the dead node and requeues the worker's job.
    wait_until("the worker's job requeued", 2 * minute, &watch, || {
        slurm
            .job_field(&victim_task, "Restarts")
            .is_some_and(|n| n != "0")
    });
    let requeued = killed.elapsed();
    Slurm::start().expect("the node comes back");

    // The requeued job runs again under a new name and joins the build.
    let rejoined = format!("\"{node}-{array_task}-1\"");
    let rejoined_any = format!("-{array_task}-1\"");
    wait_until("the requeued worker registered", 4 * minute, &watch, || {
        read(&coordinator_log)
            .lines()
            .any(|l| l.contains("worker registered") && l.contains(&rejoined_any))
    });
    let rejoin = killed.elapsed();
    // The workers' shard caches, in the TMPDIR their jobs were given.
    let caches = || {
        std::fs::read_dir(dir.path().join("tmp"))
            .unwrap()
            .flatten()
            .map(|entry| entry.file_name().to_string_lossy().into_owned())
            .filter(|name| name.starts_with("egdb-shards-"))
            .collect::<Vec<_>>()
    };
    assert!(
        !caches().is_empty(),
        "no shard cache under {:?}",
        dir.path().join("tmp")
    );
    slurm
        .run("scontrol", &["resume", &survivor_task])
        .expect("the other worker's job resumes");
    wait_until("the coordinator job finished", 10 * minute, &watch, || {
        slurm
            .job_field(&jobs.driver, "JobState")
            .is_some_and(|state| state != "RUNNING" && state != "PENDING")
    });
    let log = read(&coordinator_log);
    assert_eq!(
        slurm.job_field(&jobs.driver, "JobState").as_deref(),
        Some("COMPLETED"),
        "{log}"
    );
    assert!(log.contains(&format!("built {GAME}")), "{log}");
    eprintln!(
        "slurm: {node} killed; job {victim_task} requeued after {:.0} s, rejoined after {:.0} s{}",
        requeued.as_secs_f64(),
        rejoin.as_secs_f64(),
        if log.contains(&rejoined) {
            " on the same node"
        } else {
            ""
        }
    );
    drop(jobs);
    // Each worker's shard cache goes with it, cancelled or not; the dead
    // node's was its requeued task's, on this same machine.
    wait_until("the workers' shard caches removed", minute, &watch, || {
        caches().is_empty()
    });

    let single = dir.path().join("single");
    build(GAME, &single, &[]);
    let store = dir.path().join("store");
    assert_eq!(checksums(&store), checksums(&single));
    assert_verified(&store);
}
