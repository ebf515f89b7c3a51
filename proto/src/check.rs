//! The report that carries what checking a slice found
//! ([`egdb_games::checked::SliceCheck`]) from a worker to a verifying
//! coordinator ([`CheckReport`]). The report crosses the wire as
//! [`v1::CheckReport`]; these are the two conversions, the incoming one
//! bounded.

use egdb_games::checked::{Mismatch, Probe, SliceCheck, EXAMPLES};
use egdb_games::{printable, SliceId};

use crate::v1::{self, CheckMismatch, CheckedProbe};
use crate::values::{probe_of_tag, tag_of};
use crate::WireError;

pub use crate::wire_limits::MAX_TEXT;

/// What a worker found checking a leased slice.
#[derive(Debug, Clone, PartialEq)]
pub struct CheckReport {
    pub check: SliceCheck,
    /// CRC-32 of the slice's bytes as checked.
    pub raw_crc32: u32,
    pub seconds: f64,
}

/// A report as it crosses the wire (its caller set by the client).
impl From<CheckReport> for v1::CheckReport {
    fn from(report: CheckReport) -> v1::CheckReport {
        let check = report.check;
        v1::CheckReport {
            caller: None,
            slice_id: check.slice.to_string(),
            positions: check.positions,
            mismatches: check.mismatches,
            duplicates_with_values: check.duplicates_with_values,
            corrupt: check.corrupt,
            examples: check
                .examples
                .into_iter()
                .map(|m| CheckMismatch {
                    position: m.position,
                    stored: m.stored.as_ref().map(wire),
                    expected: Some(wire(&m.expected)),
                })
                .collect(),
            seconds: report.seconds,
            raw_crc32: report.raw_crc32,
        }
    }
}

fn wire(p: &Probe) -> CheckedProbe {
    CheckedProbe {
        value: tag_of(p.value),
        depth: p.depth,
    }
}

impl TryFrom<v1::CheckReport> for CheckReport {
    type Error = WireError;

    /// # Errors
    /// A field out of bounds (texts over [`MAX_TEXT`] bytes, more than
    /// [`EXAMPLES`] examples, a value that is none, a time that is not a
    /// number of seconds).
    fn try_from(report: v1::CheckReport) -> Result<CheckReport, WireError> {
        // Texts are printed where the coordinator runs: a control
        // character (a terminal's escape, say) is shown as `?`.
        let text = |s: String, what: &'static str| {
            if s.len() > MAX_TEXT {
                Err(WireError::TooLong { what })
            } else {
                Ok(printable(&s))
            }
        };
        if report.examples.len() > EXAMPLES {
            return Err(WireError::TooManyExamples(report.examples.len()));
        }
        if !(report.seconds.is_finite() && report.seconds >= 0.0) {
            return Err(WireError::NotSeconds {
                what: "a check time",
                seconds: report.seconds,
            });
        }
        let examples = report
            .examples
            .into_iter()
            .map(|m| {
                Ok(Mismatch {
                    position: text(m.position, "a position")?,
                    stored: m.stored.as_ref().map(probe_of).transpose()?,
                    expected: m
                        .expected
                        .as_ref()
                        .map(probe_of)
                        .transpose()?
                        .ok_or(WireError::NoExpected)?,
                })
            })
            .collect::<Result<Vec<_>, WireError>>()?;
        let check = SliceCheck {
            slice: SliceId::parse(&report.slice_id)?,
            positions: report.positions,
            mismatches: report.mismatches,
            duplicates_with_values: report.duplicates_with_values,
            examples,
            corrupt: report.corrupt.map(|c| text(c, "a reason")).transpose()?,
        };
        Ok(CheckReport {
            check,
            raw_crc32: report.raw_crc32,
            seconds: report.seconds,
        })
    }
}

fn probe_of(p: &v1::CheckedProbe) -> Result<Probe, WireError> {
    probe_of_tag(p.value, p.depth)
}

#[cfg(test)]
mod tests {
    use super::*;
    use egdb_games::Value;

    #[test]
    fn a_check_crosses_the_wire_unchanged_and_oversized_ones_are_refused() {
        let report = CheckReport {
            check: SliceCheck {
                slice: SliceId::new("move-03-03"),
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
            },
            raw_crc32: 7,
            seconds: 1.5,
        };
        let wire = v1::CheckReport::from(report.clone());
        assert_eq!(CheckReport::try_from(wire.clone()), Ok(report));
        let refused = |change: fn(&mut v1::CheckReport)| {
            let mut bad = wire.clone();
            change(&mut bad);
            CheckReport::try_from(bad).is_err()
        };
        assert!(refused(|r| r.corrupt = Some("x".repeat(MAX_TEXT + 1))));
        assert!(refused(
            |r| r.examples = vec![r.examples[0].clone(); EXAMPLES + 1]
        ));
        assert!(refused(|r| r.examples[0].expected = None));
        assert!(refused(|r| {
            r.examples[0].expected = Some(CheckedProbe {
                value: 0,
                depth: None,
            })
        }));
        assert!(refused(|r| r.seconds = f64::INFINITY));
        let mut escaping = wire.clone();
        escaping.examples[0].position = "B.\u{1b}[2J w 2 3".to_string();
        escaping.corrupt = Some("block 3\u{7}\n".to_string());
        let shown = CheckReport::try_from(escaping).unwrap().check;
        assert_eq!(shown.examples[0].position, "B.?[2J w 2 3");
        assert_eq!(shown.corrupt.as_deref(), Some("block 3??"));
    }
}
