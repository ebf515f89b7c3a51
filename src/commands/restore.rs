//! `egdb restore`: a store brought back from the backups a build took
//! (`--backup`), or the list of them.

use egdb_db_format::{BackupEntry, Backups};

use crate::cli::RestoreArgs;
use crate::failure::Exit;
use crate::failure::Failure;

pub fn run(args: RestoreArgs) -> Exit {
    let mut backups = Backups::open_existing(&args.backup)?;
    let Some(store) = args.store else {
        let entries = backups.list();
        if entries.is_empty() {
            // Said, so that a wrong directory is not taken for an empty list.
            eprintln!("egdb: {} holds no backup", args.backup.display());
        }
        for entry in entries {
            outln!("{}", line(&entry))?;
        }
        return Ok(0);
    };
    // Nothing already there is touched.
    let occupied = store.exists()
        && std::fs::read_dir(&store)
            .map(|mut d| d.next().is_some())
            .unwrap_or(true);
    if occupied {
        return Err(Failure::bad_input(format!(
            "{} is there already: restore into a new or empty directory",
            store.display()
        )));
    }
    let (restored, passed_over) = backups.restore_newest(&store)?;
    for (entry, why) in &passed_over {
        eprintln!("egdb: backup {} refused: {why}", entry.id);
    }
    outln!("restored {}: {}", store.display(), line(&restored))?;
    Ok(0)
}

/// A backup as `--list` shows it.
fn line(entry: &BackupEntry) -> String {
    let (least, most) = entry.slices;
    let slices = if least == most {
        format!("{least} slices")
    } else {
        format!("{least} to {most} slices")
    };
    format!(
        "backup {} of {}, taken {} ({}), {slices}, {:.1} MiB",
        entry.id,
        entry.game,
        time_of(entry.time),
        ago(entry.time),
        entry.bytes as f64 / (1 << 20) as f64
    )
}

/// Seconds since 1970 as a UTC date and time.
fn time_of(seconds: i64) -> String {
    let days = seconds.div_euclid(86_400);
    let of_day = seconds.rem_euclid(86_400);
    // Howard Hinnant's days-to-civil.
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!(
        "{year:04}-{month:02}-{day:02} {:02}:{:02}:{:02} UTC",
        of_day / 3600,
        of_day / 60 % 60,
        of_day % 60
    )
}

fn ago(seconds: i64) -> String {
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs() as i64);
    let age = (now - seconds).max(0);
    match age {
        0..=119 => format!("{age} s ago"),
        120..=7199 => format!("{} min ago", age / 60),
        _ => format!("{:.1} h ago", age as f64 / 3600.0),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn times_are_dates() {
        assert_eq!(time_of(0), "1970-01-01 00:00:00 UTC");
        assert_eq!(time_of(1_796_169_600 + 3661), "2026-12-02 01:01:01 UTC");
        assert_eq!(time_of(951_782_400), "2000-02-29 00:00:00 UTC");
    }
}
