//! Standard output that can fail. `println!` panics when standard output
//! cannot be written (a full disk, a device that refuses); egdb's commands
//! say so in one line and exit 1 instead. A closed pipe still ends a
//! one-shot command quietly ([`crate::signals`]).

use std::io::Write;

use crate::failure::Failure;

/// Writes `text` to standard output, flushed.
pub fn text(text: std::fmt::Arguments) -> Result<(), Failure> {
    let mut out = std::io::stdout().lock();
    out.write_fmt(text)
        .and_then(|()| out.flush())
        .map_err(|e| Failure::failed(format!("cannot write standard output: {e}")))
}

/// `println!` that gives back a [`Failure`] instead of panicking.
macro_rules! outln {
    () => { $crate::printed::text(format_args!("\n")) };
    ($($arg:tt)*) => { $crate::printed::text(format_args!("{}\n", format_args!($($arg)*))) };
}

/// `print!` that gives back a [`Failure`] instead of panicking.
macro_rules! out {
    ($($arg:tt)*) => { $crate::printed::text(format_args!($($arg)*)) };
}
