//! `egdb bench`: the word engine against the per-position scan of the 2009
//! study, in one run on one machine, with the answers checked equal; with
//! `--depth`, the depth engine as well.

use std::sync::atomic::AtomicBool;
use std::sync::Arc;
use std::time::Instant;

use egdb_db_format::ValueCode;
use egdb_games::nim::NimGame;
use egdb_games::GameSpec;
use egdb_worker::nim::{scan::scan_values, solve_all, value_in, NimEngine};
use egdb_worker::SliceTable;

use crate::cli::BenchArgs;
use crate::failure::Exit;
use crate::failure::Failure;

pub fn run(args: BenchArgs) -> Exit {
    let spec: GameSpec = args.game.parse()?;
    let game = NimGame::from_spec(&spec)?;
    let positions = game.position_count();
    let runs = args.runs.max(1);
    let threads = args
        .threads
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()));
    let engine = NimEngine::new(game);
    let never = AtomicBool::new(false);
    let pool = |n: usize| {
        rayon::ThreadPoolBuilder::new()
            .num_threads(n)
            .build()
            .map_err(|e| Failure::failed(format!("thread pool: {e}")))
    };
    let time_engine = |n: usize, depth: bool| -> Result<(f64, Vec<_>), Failure> {
        let pool = pool(n)?;
        let mut times = Vec::new();
        let mut tables = Vec::new();
        for _ in 0..runs {
            let started = Instant::now();
            tables = pool
                .install(|| solve_all(&engine, depth, &never))
                .map_err(|e| Failure::failed(e.to_string()))?;
            times.push(started.elapsed().as_secs_f64());
        }
        Ok((median(&mut times), tables))
    };
    outln!(
        "game: {spec} ({positions} positions, {} moves)",
        engine.game().moves().len()
    )?;
    outln!(
        "machine: {} cores available",
        std::thread::available_parallelism().map_or(1, |n| n.get())
    )?;
    let (parallel, tables) = time_engine(threads, false)?;
    report(
        &format!("word engine, {threads} threads"),
        parallel,
        positions,
    )?;
    let (single, _) = time_engine(1, false)?;
    report("word engine, 1 thread", single, positions)?;
    if args.depth {
        let (with_depth, depths) = time_engine(threads, true)?;
        report(
            &format!("depth engine, {threads} threads"),
            with_depth,
            positions,
        )?;
        let (depth_single, _) = time_engine(1, true)?;
        report("depth engine, 1 thread", depth_single, positions)?;
        let differing = values_differ(&engine, &tables, &depths);
        if differing > 0 {
            return Err(Failure::failed(format!(
                "{differing} positions differ between the depth and the value engine"
            )));
        }
        outln!("all {positions} values of the depth engine agree")?;
    }
    let start = value_in(&engine, &tables, engine.game().start()).0;
    outln!(
        "start position: {}",
        if start == ValueCode::Win {
            "first player wins"
        } else {
            "first player loses"
        }
    )?;
    if args.no_scan {
        return Ok(0);
    }
    let mut times = Vec::new();
    let mut scan = Vec::new();
    for _ in 0..runs {
        let started = Instant::now();
        scan = scan_values(engine.game());
        times.push(started.elapsed().as_secs_f64());
    }
    let scanned = median(&mut times);
    report("per-position scan, 1 thread", scanned, positions)?;
    let mismatches = (0..positions)
        .filter(|&p| {
            let scan_win = scan[(p >> 6) as usize] >> (p & 63) & 1 == 1;
            (value_in(&engine, &tables, p).0 == ValueCode::Win) != scan_win
        })
        .count();
    if mismatches > 0 {
        return Err(Failure::failed(format!(
            "{mismatches} positions differ between the scan and the engine"
        )));
    }
    outln!("all {positions} values agree")?;
    outln!(
        "speed-up over the scan: {:.0}x ({threads} threads), {:.0}x (1 thread)",
        scanned / parallel,
        scanned / single
    )?;
    Ok(0)
}

/// Positions whose win bit differs between value tables and depth tables.
fn values_differ(
    engine: &NimEngine,
    values: &[Arc<SliceTable>],
    depths: &[Arc<SliceTable>],
) -> u64 {
    let valid = engine.moves().valid;
    values
        .iter()
        .zip(depths)
        .map(|(v, d)| match (v.as_ref(), d.as_ref()) {
            (SliceTable::Bits(bits), SliceTable::Depths(planes)) => bits
                .iter()
                .zip(planes)
                .map(|(b, p)| ((b ^ p.wins()) & valid).count_ones() as u64)
                .sum(),
            _ => u64::MAX,
        })
        .fold(0u64, u64::saturating_add)
}

fn report(what: &str, seconds: f64, positions: u64) -> Result<(), Failure> {
    outln!(
        "{what:<32} median {:>9.4} s  {:>8.1} M positions/s",
        seconds,
        positions as f64 / seconds / 1e6
    )
}

fn median(times: &mut [f64]) -> f64 {
    times.sort_by(f64::total_cmp);
    times[times.len() / 2]
}
