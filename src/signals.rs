//! How egdb's processes meet signals: filters end quietly on a closed pipe,
//! servers outlive their clients, and SIGTERM stops like Ctrl-C.

/// Exit status after Ctrl-C, as shells report it.
pub const INTERRUPTED: i32 = 130;

/// Rust ignores SIGPIPE, so printing into a closed pipe (`egdb query … |
/// head -1`) would panic; like other Unix filters, egdb's one-shot commands
/// end quietly instead. Servers (`coordinator`, `serve`, `worker`) keep it
/// ignored: a client that drops its connection while they write must cost
/// that connection an error, not the process its life.
pub fn end_quietly_on_closed_pipes() {
    #[cfg(unix)]
    // SAFETY: resets one signal's disposition to the default before any
    // other thread exists.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    }
}

/// Ctrl-C or SIGTERM (`kill`, `systemctl stop`), so that a server stops
/// cleanly either way. The handlers are installed when this is made (inside
/// a runtime, before the server says it listens): a signal sent as soon as
/// it does is caught, not fatal.
pub struct StopSignal {
    interrupt: tokio::signal::unix::Signal,
    terminate: tokio::signal::unix::Signal,
}

impl StopSignal {
    /// # Errors
    /// When the handlers cannot be installed.
    pub fn install() -> std::io::Result<StopSignal> {
        use tokio::signal::unix::{signal, SignalKind};
        Ok(StopSignal {
            interrupt: signal(SignalKind::interrupt())?,
            terminate: signal(SignalKind::terminate())?,
        })
    }

    /// Resolves when either signal arrives (again for each one).
    pub async fn requested(&mut self) {
        tokio::select! {
            _ = self.interrupt.recv() => {}
            _ = self.terminate.recv() => {}
        }
    }
}
