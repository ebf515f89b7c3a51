//! CPU time: what a piece of work costs while other work shares the
//! cores, which its wall time does not say.

/// CPU seconds the calling thread has used.
pub fn thread_cpu_seconds() -> f64 {
    cpu_seconds(libc::CLOCK_THREAD_CPUTIME_ID)
}

/// CPU seconds this process has used, every thread's.
pub fn process_cpu_seconds() -> f64 {
    cpu_seconds(libc::CLOCK_PROCESS_CPUTIME_ID)
}

/// The seconds of CPU clock `clock`; 0 if it cannot be read.
fn cpu_seconds(clock: libc::clockid_t) -> f64 {
    let mut now = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: clock_gettime writes the timespec it is given, nothing else.
    let status = unsafe { libc::clock_gettime(clock, &mut now) };
    if status != 0 {
        return 0.0;
    }
    now.tv_sec as f64 + now.tv_nsec as f64 * 1e-9
}
