//! The network between the lab's hosts: one TUN device per host, moved into
//! the host's namespace, and a switch in this process that carries IPv4
//! packets between them with a delay, a loss rate and cut links: what
//! `tc netem` on every link would do. This machine's kernel has no
//! `sch_netem`, so the switch does it in user space; the hosts' TCP stacks
//! see real lost and late packets either way.

use std::collections::BinaryHeap;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Condvar, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

/// What the network does to packets now.
#[derive(Debug, Clone, Default)]
pub struct Conditions {
    /// One-way delay of every packet.
    pub delay: Duration,
    /// Share of packets lost, 0.0 to 1.0.
    pub loss: f64,
    /// Hosts whose link is cut: nothing goes to or from them.
    pub cut: Vec<usize>,
}

/// A packet on its way, due at `due`.
struct InFlight {
    due: Instant,
    order: u64,
    to: usize,
    packet: Vec<u8>,
}

impl PartialEq for InFlight {
    fn eq(&self, other: &Self) -> bool {
        (self.due, self.order) == (other.due, other.order)
    }
}
impl Eq for InFlight {}
impl PartialOrd for InFlight {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}
impl Ord for InFlight {
    // The earliest first in a max-heap.
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        (other.due, other.order).cmp(&(self.due, self.order))
    }
}

struct Shared {
    conditions: Mutex<Conditions>,
    queue: Mutex<(BinaryHeap<InFlight>, u64)>,
    ready: Condvar,
    stop: AtomicBool,
    /// The last byte of each host's address, by host.
    hosts: Vec<u8>,
    devices: Vec<OwnedFd>,
}

/// The switch: stops when dropped.
pub struct Wire {
    shared: Arc<Shared>,
    threads: Vec<JoinHandle<()>>,
}

impl Wire {
    /// Carries packets between `devices` (TUN file descriptors, one per
    /// host, whose address ends in `hosts[i]`).
    pub fn start(devices: Vec<OwnedFd>, hosts: Vec<u8>) -> Wire {
        let shared = Arc::new(Shared {
            conditions: Mutex::new(Conditions::default()),
            queue: Mutex::new((BinaryHeap::new(), 0)),
            ready: Condvar::new(),
            stop: AtomicBool::new(false),
            hosts,
            devices,
        });
        let mut threads = Vec::new();
        for from in 0..shared.devices.len() {
            let shared = shared.clone();
            threads.push(std::thread::spawn(move || receive(&shared, from)));
        }
        let sender = shared.clone();
        threads.push(std::thread::spawn(move || deliver(&sender)));
        Wire { shared, threads }
    }

    pub fn set(&self, conditions: Conditions) {
        *self.shared.conditions.lock().unwrap() = conditions;
    }

    pub fn conditions(&self) -> Conditions {
        self.shared.conditions.lock().unwrap().clone()
    }
}

impl Drop for Wire {
    fn drop(&mut self) {
        self.shared.stop.store(true, Ordering::SeqCst);
        self.shared.ready.notify_all();
        for thread in self.threads.drain(..) {
            let _ = thread.join();
        }
    }
}

/// Reads host `from`'s packets and queues those for another host.
fn receive(shared: &Shared, from: usize) {
    let fd = shared.devices[from].as_raw_fd();
    let mut random = 0x9E37_79B9_7F4A_7C15_u64 ^ (from as u64 + 1);
    let mut buffer = vec![0u8; 65536];
    while !shared.stop.load(Ordering::SeqCst) {
        let mut poll = libc::pollfd {
            fd,
            events: libc::POLLIN,
            revents: 0,
        };
        // SAFETY: one valid pollfd.
        if unsafe { libc::poll(&mut poll, 1, 100) } <= 0 {
            continue;
        }
        // SAFETY: reads into a buffer of its length.
        let read = unsafe { libc::read(fd, buffer.as_mut_ptr().cast(), buffer.len()) };
        let Ok(length) = usize::try_from(read) else {
            continue;
        };
        let packet = &buffer[..length];
        // IPv4 only; the destination address ends at byte 20.
        if length < 20 || packet[0] >> 4 != 4 {
            continue;
        }
        let Some(to) = shared.hosts.iter().position(|&h| h == packet[19]) else {
            continue;
        };
        let conditions = shared.conditions.lock().unwrap().clone();
        if conditions.cut.contains(&from) || conditions.cut.contains(&to) {
            continue;
        }
        random ^= random << 13;
        random ^= random >> 7;
        random ^= random << 17;
        let draw = (random >> 11) as f64 / (1u64 << 53) as f64;
        if draw < conditions.loss {
            continue;
        }
        let mut queue = shared.queue.lock().unwrap();
        let order = queue.1;
        queue.1 += 1;
        queue.0.push(InFlight {
            due: Instant::now() + conditions.delay,
            order,
            to,
            packet: packet.to_vec(),
        });
        shared.ready.notify_one();
    }
}

/// Writes each queued packet to its host when it is due.
fn deliver(shared: &Shared) {
    let mut queue = shared.queue.lock().unwrap();
    while !shared.stop.load(Ordering::SeqCst) {
        let now = Instant::now();
        match queue.0.peek() {
            Some(next) if next.due <= now => {
                let InFlight { to, packet, .. } = queue.0.pop().expect("peeked");
                drop(queue);
                let cut = shared.conditions.lock().unwrap().cut.contains(&to);
                if !cut {
                    let fd = shared.devices[to].as_raw_fd();
                    // SAFETY: writes one packet from its buffer.
                    unsafe { libc::write(fd, packet.as_ptr().cast(), packet.len()) };
                }
                queue = shared.queue.lock().unwrap();
            }
            Some(next) => {
                let wait = next.due - now;
                queue = shared.ready.wait_timeout(queue, wait).unwrap().0;
            }
            None => {
                queue = shared
                    .ready
                    .wait_timeout(queue, Duration::from_millis(100))
                    .unwrap()
                    .0;
            }
        }
    }
}

/// A TUN device named `name` (IPv4 packets, no extra header).
pub fn tun(name: &str) -> std::io::Result<OwnedFd> {
    const TUNSETIFF: libc::c_ulong = 0x4004_54ca;
    let path = c"/dev/net/tun";
    // SAFETY: opens a device by a valid C string.
    let fd = unsafe { libc::open(path.as_ptr(), libc::O_RDWR | libc::O_CLOEXEC) };
    if fd < 0 {
        return Err(std::io::Error::last_os_error());
    }
    // SAFETY: `fd` was just opened and is owned here alone.
    let owned = unsafe { OwnedFd::from_raw_fd(fd) };
    // struct ifreq: a 16-byte name, then the flags (a short) in a 24-byte union.
    let mut request = [0u8; 40];
    let bytes = name.as_bytes();
    if bytes.len() >= 16 {
        return Err(std::io::Error::other("interface name too long"));
    }
    request[..bytes.len()].copy_from_slice(bytes);
    let flags = (libc::IFF_TUN | libc::IFF_NO_PI) as u16;
    request[16..18].copy_from_slice(&flags.to_ne_bytes());
    // SAFETY: TUNSETIFF reads and writes one ifreq.
    if unsafe { libc::ioctl(fd, TUNSETIFF, request.as_mut_ptr()) } < 0 {
        return Err(std::io::Error::last_os_error());
    }
    Ok(owned)
}
