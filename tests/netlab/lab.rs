//! Workstations on this machine: one network namespace per host, each with
//! its own address on a network the [`Wire`] carries. Deleted when dropped.

use std::process::{Command, Stdio};

use crate::wire::{tun, Conditions, Wire};

/// The hosts' network; host `i` is 10.77.0.(i + 1). Each lab's namespaces
/// see only their own devices, so labs never meet.
const NETWORK: &str = "10.77.0";

/// Namespace names start so; the rest is the test process and the host.
const PREFIX: &str = "egdb-lab";

pub struct Lab {
    namespaces: Vec<String>,
    wire: Option<Wire>,
}

impl Lab {
    /// `count` hosts, or why they cannot be made here (not root, no
    /// namespaces, no TUN devices).
    pub fn start(tag: &str, count: usize) -> Result<Lab, String> {
        // SAFETY: geteuid has no preconditions.
        if unsafe { libc::geteuid() } != 0 {
            return Err("network namespaces need root".into());
        }
        remove_stale_namespaces();
        let pid = std::process::id();
        let mut lab = Lab {
            namespaces: Vec::new(),
            wire: None,
        };
        let mut devices = Vec::new();
        for host in 0..count {
            let namespace = format!("{PREFIX}-{pid}-{tag}-{host}");
            ip(&["netns", "add", &namespace])?;
            lab.namespaces.push(namespace.clone());
            let device = format!("eg{}{tag}{host}", pid % 100_000);
            let fd = tun(&device).map_err(|e| format!("no TUN device: {e}"))?;
            ip(&["link", "set", &device, "netns", &namespace])?;
            let address = format!("{}/24", lab.address(host));
            ip(&["-n", &namespace, "addr", "add", &address, "dev", &device])?;
            ip(&["-n", &namespace, "link", "set", &device, "up"])?;
            ip(&["-n", &namespace, "link", "set", "lo", "up"])?;
            devices.push(fd);
        }
        let ends = (0..count).map(|h| h as u8 + 1).collect();
        lab.wire = Some(Wire::start(devices, ends));
        Ok(lab)
    }

    /// Host `host`'s address.
    pub fn address(&self, host: usize) -> String {
        format!("{NETWORK}.{}", host + 1)
    }

    /// `program ARGS` to run on `host`.
    pub fn command(&self, host: usize, program: &str) -> Command {
        let mut command = Command::new("ip");
        command.args(["netns", "exec", &self.namespaces[host], program]);
        command
    }

    pub fn set(&self, conditions: Conditions) {
        self.wire.as_ref().expect("started").set(conditions);
    }

    pub fn conditions(&self) -> Conditions {
        self.wire.as_ref().expect("started").conditions()
    }

    /// Cuts `host`'s link (`true`) or restores it.
    pub fn cut(&self, host: usize, cut: bool) {
        let mut conditions = self.conditions();
        conditions.cut.retain(|&h| h != host);
        if cut {
            conditions.cut.push(host);
        }
        self.set(conditions);
    }

    /// The host dies: its link goes and every process on it is killed.
    pub fn kill_host(&self, host: usize) {
        self.cut(host, true);
        kill_all(&self.namespaces[host]);
    }
}

impl Drop for Lab {
    fn drop(&mut self) {
        for namespace in &self.namespaces {
            kill_all(namespace);
            let _ = ip(&["netns", "del", namespace]);
        }
        self.wire.take();
    }
}

/// `ip ARGS`, or what it said.
fn ip(args: &[&str]) -> Result<(), String> {
    let out = Command::new("ip")
        .args(args)
        .stdin(Stdio::null())
        .output()
        .map_err(|e| format!("cannot run ip: {e}"))?;
    if out.status.success() {
        Ok(())
    } else {
        Err(format!(
            "ip {}: {}",
            args.join(" "),
            String::from_utf8_lossy(&out.stderr).trim()
        ))
    }
}

/// SIGKILL to every process in `namespace`.
fn kill_all(namespace: &str) {
    let Ok(out) = Command::new("ip")
        .args(["netns", "pids", namespace])
        .output()
    else {
        return;
    };
    for pid in String::from_utf8_lossy(&out.stdout).split_whitespace() {
        if let Ok(pid) = pid.parse::<libc::pid_t>() {
            // SAFETY: kills a process of this test's own namespace.
            unsafe { libc::kill(pid, libc::SIGKILL) };
        }
    }
}

/// Namespaces of labs whose test process is gone (killed before its
/// clean-up ran).
fn remove_stale_namespaces() {
    let Ok(out) = Command::new("ip").args(["netns", "list"]).output() else {
        return;
    };
    for line in String::from_utf8_lossy(&out.stdout).lines() {
        let name = line.split_whitespace().next().unwrap_or("");
        let Some(rest) = name.strip_prefix(&format!("{PREFIX}-")) else {
            continue;
        };
        let pid = rest.split('-').next().unwrap_or("");
        if !std::path::Path::new(&format!("/proc/{pid}")).exists() {
            kill_all(name);
            let _ = ip(&["netns", "del", name]);
        }
    }
}
