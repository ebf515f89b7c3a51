//! What a coordinator leases, named: a slice's own job, or the check that
//! follows its solve in a build that verifies as it goes. Status replies
//! carry it as text (`move-03-03`, `check:move-03-03`).

use std::fmt;

use egdb_games::{NotASliceId, SliceId};

/// The prefix of a check's text; a slice id holds no `:`, so the text
/// tells the two apart.
const CHECK: &str = "check:";

#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum JobId {
    /// The slice's own job: its solve in a build, its check when a
    /// finished store is verified (the task's `verify` flag tells which).
    Slice(SliceId),
    /// The check that follows the slice's solve in a build that verifies
    /// as it goes.
    Check(SliceId),
}

impl JobId {
    pub fn slice(&self) -> &SliceId {
        match self {
            JobId::Slice(slice) | JobId::Check(slice) => slice,
        }
    }

    /// The job a status reply names.
    ///
    /// # Errors
    /// [`NotASliceId`] when the text names no slice.
    pub fn parse(text: &str) -> Result<JobId, NotASliceId> {
        Ok(match text.strip_prefix(CHECK) {
            Some(slice) => JobId::Check(SliceId::parse(slice)?),
            None => JobId::Slice(SliceId::parse(text)?),
        })
    }
}

impl fmt::Display for JobId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            JobId::Slice(slice) => write!(f, "{slice}"),
            JobId::Check(slice) => write!(f, "{CHECK}{slice}"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn jobs_read_back_from_their_text_and_other_text_is_refused() {
        for job in [
            JobId::Slice(SliceId::new("move-03-03")),
            JobId::Check(SliceId::new("move-03-03")),
            JobId::Slice(SliceId::new("outer-00")),
        ] {
            assert_eq!(JobId::parse(&job.to_string()), Ok(job));
        }
        assert_eq!(
            JobId::Check(SliceId::new("a")).to_string(),
            "check:a",
            "the text status has always shown"
        );
        for bad in ["", "check:", "check:check:a", "solve:a", "a b"] {
            assert!(JobId::parse(bad).is_err(), "{bad}");
        }
    }
}
