//! A slice's check as people read it: `verify`, `build --verify-as-built`
//! and `coordinator` print a failed slice the same way.

use egdb_check::verify::SliceCheck;

pub fn failure_line(check: &SliceCheck) -> String {
    match &check.corrupt {
        Some(reason) => format!("slice {}: FAILED: {reason}", check.slice),
        None if check.mismatches == 0 => format!(
            "slice {}: FAILED: {} entries that only repeat a symmetry class hold a value",
            check.slice, check.duplicates_with_values
        ),
        None => format!(
            "slice {}: FAILED: {} of {} positions disagree with their moves",
            check.slice, check.mismatches, check.positions
        ),
    }
}

/// A failed slice's lines: what failed, then the positions kept as examples.
pub fn report(check: &SliceCheck) -> String {
    let mut out = failure_line(check) + "\n";
    for m in &check.examples {
        let stored = m.stored.map_or("no value".to_string(), |p| p.to_string());
        out += &format!(
            "  {}: stored {stored}, its moves say {}\n",
            m.position, m.expected
        );
    }
    out
}
