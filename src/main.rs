//! `egdb`: build, inspect and query endgame databases. See README.md.
//!
//! This file only dispatches: each command parses its arguments and calls
//! the library crates in its own file of [`commands`]; beside them, what
//! several commands share (arguments, failures, signals, files).

// First: its macros (`outln!`, `out!`) serve the modules below.
#[macro_use]
mod printed;

mod bench_hostile;
mod bench_http;
mod checked;
mod cli;
mod cluster_access;
mod commands;
mod failure;
mod host;
mod open_files;
mod picture;
mod signals;
mod written_file;

use clap::Parser;

use cli::{Cli, Command};
use commands::*;

fn main() {
    require_processor();
    let cli = parse_arguments();
    if !matches!(
        cli.command,
        Command::Serve(_) | Command::Coordinator(_) | Command::Worker(_)
    ) {
        signals::end_quietly_on_closed_pipes();
    }
    init_logging(cli.verbose);
    let outcome = match cli.command {
        Command::Build(args) => build::run(args),
        Command::Stats(args) => stats::run(args),
        Command::Query(args) => query::run(args),
        Command::Verify(args) => verify::run(args),
        Command::Results(args) => results::run(args),
        Command::Book(args) => book::run(args),
        Command::Compare(args) => compare::run(args),
        Command::Serve(args) => serve::run(args),
        Command::BenchQuery(args) => bench_query::run(args),
        Command::BenchStore(args) => bench_store::run(args),
        Command::BenchCache(args) => bench_cache::run(args),
        Command::Bench(args) => bench::run(args),
        Command::Plan(args) => plan::run(args),
        Command::Coordinator(args) => coordinator::run(args),
        Command::Worker(args) => worker::run(args),
        Command::Status(args) => status::run(args),
        Command::Tls(command) => tls::run(command),
        Command::Restore(args) => restore::run(args),
    };
    match outcome {
        Ok(code) => std::process::exit(code),
        Err(failure) => {
            eprintln!("egdb: {}", failure.message);
            std::process::exit(failure.exit_code());
        }
    }
}

/// The command line, or exit: help and the version as clap prints them;
/// a bad argument in one line, as every other bad input (status 2).
fn parse_arguments() -> Cli {
    use clap::error::ErrorKind;
    match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e)
            if matches!(
                e.kind(),
                ErrorKind::DisplayHelp
                    | ErrorKind::DisplayVersion
                    | ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand
            ) =>
        {
            e.exit()
        }
        Err(e) => {
            // Its first paragraph (a list of missing arguments runs over
            // several lines), joined.
            let rendered = e.render().to_string();
            let paragraph: Vec<&str> = rendered
                .lines()
                .take_while(|line| !line.trim().is_empty())
                .map(str::trim)
                .collect();
            let message = paragraph.join(" ");
            let message = message.strip_prefix("error: ").unwrap_or(&message);
            eprintln!("egdb: {message} (try --help)");
            std::process::exit(2);
        }
    }
}

/// The build assumes POPCNT and BMI2 (`.cargo/config.toml`); on an older
/// processor say so rather than die of an illegal instruction later. Asked
/// of the processor itself (CPUID): the feature macros answer from the
/// build's settings.
fn require_processor() {
    #[cfg(target_arch = "x86_64")]
    {
        use std::arch::x86_64::{__cpuid, __cpuid_count};
        #[allow(unused_unsafe)]
        // SAFETY: CPUID exists on every x86-64 processor.
        let (basic, extended, leaf7) = unsafe {
            (
                __cpuid(1).ecx,
                __cpuid(0x8000_0001).ecx,
                __cpuid_count(7, 0).ebx,
            )
        };
        let missing: Vec<&str> = [
            ("popcnt", basic >> 23 & 1 == 1),
            ("bmi1", leaf7 >> 3 & 1 == 1),
            ("bmi2", leaf7 >> 8 & 1 == 1),
            ("lzcnt", extended >> 5 & 1 == 1),
        ]
        .into_iter()
        .filter(|(_, present)| !present)
        .map(|(name, _)| name)
        .collect();
        if !missing.is_empty() {
            eprintln!(
                "egdb: this processor lacks {}; egdb is built for x86-64 processors since 2013 \
                 (Intel Haswell, AMD Zen). Build it without `.cargo/config.toml`'s target \
                 features to run it here.",
                missing.join(", ")
            );
            std::process::exit(2);
        }
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
