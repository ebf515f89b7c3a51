//! What a worker found checking a slice crosses the wire as
//! [`v1::CheckReport`] and is kept as [`SliceCheck`]; these are the two
//! conversions, the incoming one bounded.

use egdb_proto::v1::{self, CheckMismatch, CheckReport, CheckedProbe};
use egdb_proto::values::tag_of;

use super::{Mismatch, Probe, SliceCheck, EXAMPLES};

/// Longest position, slice id or reason taken from a report.
pub const MAX_TEXT: usize = 1000;

/// A check as the report a worker sends (without its caller).
pub fn report_of(check: &SliceCheck, raw_crc32: u32, seconds: f64) -> CheckReport {
    CheckReport {
        caller: None,
        slice_id: check.slice.clone(),
        positions: check.positions,
        mismatches: check.mismatches,
        duplicates_with_values: check.duplicates_with_values,
        corrupt: check.corrupt.clone(),
        examples: check
            .examples
            .iter()
            .map(|m| CheckMismatch {
                position: m.position.clone(),
                stored: m.stored.as_ref().map(wire),
                expected: Some(wire(&m.expected)),
            })
            .collect(),
        seconds,
        raw_crc32,
    }
}

fn wire(p: &Probe) -> CheckedProbe {
    CheckedProbe {
        value: tag_of(p.value),
        depth: p.depth,
    }
}

impl TryFrom<&CheckReport> for SliceCheck {
    type Error = String;

    /// # Errors
    /// A field out of bounds (texts over [`MAX_TEXT`] bytes, more than
    /// [`EXAMPLES`] examples, a value that is none).
    fn try_from(report: &CheckReport) -> Result<SliceCheck, String> {
        let text = |s: &str, what: &str| {
            if s.len() > MAX_TEXT {
                Err(format!("{what} longer than {MAX_TEXT} bytes"))
            } else {
                Ok(s.to_string())
            }
        };
        if report.examples.len() > EXAMPLES {
            return Err(format!(
                "{} examples; at most {EXAMPLES}",
                report.examples.len()
            ));
        }
        let examples = report
            .examples
            .iter()
            .map(|m| {
                Ok(Mismatch {
                    position: text(&m.position, "a position")?,
                    stored: m.stored.as_ref().map(probe_of).transpose()?,
                    expected: m
                        .expected
                        .as_ref()
                        .map(probe_of)
                        .transpose()?
                        .ok_or("a mismatch without its expected value")?,
                })
            })
            .collect::<Result<Vec<_>, String>>()?;
        Ok(SliceCheck {
            slice: text(&report.slice_id, "a slice id")?,
            positions: report.positions,
            mismatches: report.mismatches,
            duplicates_with_values: report.duplicates_with_values,
            examples,
            corrupt: report
                .corrupt
                .as_deref()
                .map(|c| text(c, "a reason"))
                .transpose()?,
        })
    }
}

fn probe_of(p: &v1::CheckedProbe) -> Result<Probe, String> {
    Probe::from_wire(p.value, p.depth)
}

#[cfg(test)]
mod tests {
    use super::*;
    use egdb_games::Value;

    #[test]
    fn a_check_crosses_the_wire_unchanged_and_oversized_ones_are_refused() {
        let check = SliceCheck {
            slice: "move-03-03".to_string(),
            positions: 10,
            mismatches: 1,
            duplicates_with_values: 2,
            examples: vec![Mismatch {
                position: "B....................... w 2 3".to_string(),
                stored: None,
                expected: Probe {
                    value: Value::Win,
                    depth: Some(3),
                },
            }],
            corrupt: None,
        };
        let report = report_of(&check, 7, 1.5);
        assert_eq!(SliceCheck::try_from(&report), Ok(check));
        let long = CheckReport {
            corrupt: Some("x".repeat(MAX_TEXT + 1)),
            ..report.clone()
        };
        assert!(SliceCheck::try_from(&long).is_err());
        let many = CheckReport {
            examples: vec![report.examples[0].clone(); EXAMPLES + 1],
            ..report.clone()
        };
        assert!(SliceCheck::try_from(&many).is_err());
        let mut none = report;
        none.examples[0].expected = Some(CheckedProbe {
            value: 0,
            depth: None,
        });
        assert!(SliceCheck::try_from(&none).is_err());
    }
}
