//! Backups taken while a build runs, from a thread of their own: the
//! workers' leases and the ranking go on meanwhile (RocksDB copies files
//! that no longer change). A backup that fails is said, and tried again
//! at the next turn; it never stops the build.

use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use egdb_db_format::{BackupEntry, Backups};

use super::Build;

/// When and where a build backs its store up.
#[derive(Debug, Clone)]
pub struct BackupPlan {
    pub dir: PathBuf,
    pub every: Duration,
    /// Backups kept (the newest).
    pub keep: usize,
}

/// What the backups of one run did.
#[derive(Debug, Clone, Default)]
pub struct BackedUp {
    pub taken: usize,
    pub failed: usize,
    pub newest: Option<BackupEntry>,
    /// Seconds the backups took, all together.
    pub seconds: f64,
}

impl Build {
    /// Backs the store up every `plan.every` until `stop`, and once more
    /// then unless the run was interrupted (`interrupted` set as well):
    /// the last backup holds what the run finished.
    pub fn back_up(
        &self,
        plan: &BackupPlan,
        stop: &AtomicBool,
        interrupted: &AtomicBool,
    ) -> BackedUp {
        let mut done = BackedUp::default();
        let mut backups = match Backups::open(&plan.dir) {
            Ok(backups) => backups,
            Err(e) => {
                say_failed(&e.to_string());
                done.failed += 1;
                return done;
            }
        };
        let mut last = Instant::now();
        loop {
            let stopping = stop.load(Ordering::SeqCst);
            if stopping && interrupted.load(Ordering::SeqCst) {
                return done;
            }
            if stopping || last.elapsed() >= plan.every {
                let started = Instant::now();
                match backups.take(self.store(), plan.keep) {
                    Ok(entry) => {
                        tracing::info!(
                            backup = entry.id,
                            slices = entry.slices.0,
                            bytes = entry.bytes,
                            seconds = started.elapsed().as_secs_f64(),
                            dir = %plan.dir.display(),
                            "backup taken"
                        );
                        done.taken += 1;
                        done.newest = Some(entry);
                    }
                    Err(e) => {
                        say_failed(&e.to_string());
                        done.failed += 1;
                    }
                }
                done.seconds += started.elapsed().as_secs_f64();
                last = Instant::now();
                if stopping {
                    return done;
                }
            }
            std::thread::sleep(Duration::from_millis(200));
        }
    }
}

fn say_failed(error: &str) {
    eprintln!("egdb: no backup this time: {error}; the build goes on");
    tracing::warn!(error, "backup failed; the build goes on");
}
