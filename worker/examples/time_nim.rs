use egdb_games::nim::NimGame;
use egdb_worker::nim::{scan::scan_values, solve_all, NimEngine};
use std::sync::atomic::AtomicBool;
use std::time::Instant;
fn main() {
    let spec = std::env::args().nth(1).unwrap();
    let depth = std::env::args().nth(2).as_deref() == Some("depth");
    let scan = std::env::args().nth(2).as_deref() == Some("scan");
    let game = NimGame::from_spec(&spec.parse().unwrap()).unwrap();
    let e = NimEngine::new(game);
    println!(
        "groups {} inner {} word {:?}",
        e.moves().groups.len(),
        e.moves().inner.len(),
        e.game().layout().word_cells()
    );
    count(&e);
    let t = Instant::now();
    let tables = solve_all(&e, depth, &AtomicBool::new(false)).unwrap();
    println!(
        "engine {:.3}s slices {}",
        t.elapsed().as_secs_f64(),
        tables.len()
    );
    if scan {
        let t = Instant::now();
        let s = scan_values(e.game());
        println!("scan {:.3}s {}", t.elapsed().as_secs_f64(), s.len());
    }
}
#[allow(dead_code)]
pub fn count(e: &NimEngine) {
    let l = e.game().layout();
    let (mut same, mut other, mut words) = (0u64, 0u64, 0u64);
    for h in 0..l.slice_count() {
        for row in l.rows(h) {
            words += row.len;
            let b = h - row.high_stones;
            for g in &e.moves().groups {
                if g.high & row.high != g.high || g.removed > h || g.low.count_ones() > b {
                    continue;
                }
                if g.low == 0 {
                    same += row.len
                } else {
                    other += g.pairs[b as usize].len() as u64
                }
            }
        }
    }
    println!(
        "words {words} same {same} ({:.1}/word) other {other} ({:.1}/word)",
        same as f64 / words as f64,
        other as f64 / words as f64
    );
}
