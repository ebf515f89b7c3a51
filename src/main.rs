//! `egdb`: build, inspect and query endgame databases. See README.md.

mod bench;
mod bench_query;
mod build;
mod cli;
mod coordinator;
mod failure;
mod plan;
mod query;
mod results;
mod serve;
mod stats;
mod status;
mod verify;
mod worker;

use clap::Parser;

use cli::{Cli, Command};
use failure::Failure;

fn main() {
    restore_sigpipe();
    let cli = Cli::parse();
    init_logging(cli.verbose);
    let outcome = match cli.command {
        Command::Build(args) => build::run(args),
        Command::Stats(args) => stats::run(args),
        Command::Query(args) => query::run(args),
        Command::Verify(args) => verify::run(args),
        Command::Results(args) => results::run(args),
        Command::Serve(args) => serve::run(args),
        Command::BenchQuery(args) => bench_query::run(args),
        Command::Bench(args) => bench::run(args),
        Command::Plan(args) => plan::run(args),
        Command::Coordinator(args) => coordinator::run(args),
        Command::Worker(args) => worker::run(args),
        Command::Status(args) => status::run(args),
    };
    match outcome {
        Ok(code) => std::process::exit(code),
        Err(failure) => {
            eprintln!("egdb: {}", failure.message);
            std::process::exit(failure.exit_code());
        }
    }
}

/// Rust ignores SIGPIPE, so printing into a closed pipe (`egdb query … |
/// head -1`) would panic; like other Unix filters, egdb ends quietly instead.
fn restore_sigpipe() {
    #[cfg(unix)]
    // SAFETY: resets one signal's disposition to the default before any
    // other thread exists.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    }
}

/// Logs go to standard error: human-readable on a terminal, JSON lines
/// otherwise; `-v` shows each slice, `RUST_LOG` overrides.
fn init_logging(verbose: u8) {
    use std::io::IsTerminal;
    use tracing_subscriber::EnvFilter;
    let default = match verbose {
        0 => "warn",
        1 => "info",
        _ => "debug",
    };
    let filter = EnvFilter::try_from_default_env().unwrap_or_else(|_| EnvFilter::new(default));
    let builder = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr);
    if std::io::stderr().is_terminal() {
        builder.init();
    } else {
        builder.json().init();
    }
}

/// Convenience for commands: `Ok(0)`.
pub type Exit = Result<i32, Failure>;
