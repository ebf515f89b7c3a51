//! Probes and answers cross the wire as [`ProbeReply`] and [`MovesReply`];
//! the server builds them here and clients (`egdb query --server`) read
//! them back here, so both ends agree on one conversion.

use egdb_proto::v1::{MoveProbe, MovesReply, ProbeReply};
use egdb_proto::values::{probe_of_tag, tag_of};
use egdb_proto::WireError;

use egdb_tablebase::{Answer, MoveAnswer, Probe};

/// A position's probe as sent.
pub fn probe_reply(position: String, probe: Probe) -> ProbeReply {
    ProbeReply {
        position,
        value: tag_of(probe.value),
        depth: probe.depth,
    }
}

/// A position with its moves' probes as sent.
pub fn moves_reply(answer: Answer) -> MovesReply {
    MovesReply {
        probe: Some(probe_reply(answer.position, answer.probe)),
        moves: answer
            .moves
            .into_iter()
            .map(|m| MoveProbe {
                r#move: m.mv,
                value: tag_of(m.probe.value),
                depth: m.probe.depth,
                after: m.after,
            })
            .collect(),
    }
}

/// The position and probe a reply carries.
///
/// # Errors
/// A value tag that names no value.
pub fn probe_of(reply: &ProbeReply) -> Result<(String, Probe), WireError> {
    let probe = probe_of_tag(reply.value, reply.depth)?;
    Ok((reply.position.clone(), probe))
}

/// The answer a moves reply carries.
///
/// # Errors
/// A reply without its probe, or with a value tag that names no value.
pub fn answer_of(reply: &MovesReply) -> Result<Answer, WireError> {
    let (position, probe) = probe_of(reply.probe.as_ref().ok_or(WireError::NoProbe)?)?;
    let moves = reply
        .moves
        .iter()
        .map(|m| {
            Ok(MoveAnswer {
                mv: m.r#move.clone(),
                after: m.after.clone(),
                probe: probe_of_tag(m.value, m.depth)?,
            })
        })
        .collect::<Result<_, WireError>>()?;
    Ok(Answer {
        position,
        probe,
        moves,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use egdb_games::Value;

    #[test]
    fn answers_cross_the_wire_unchanged_and_bad_values_are_refused() {
        let answer = Answer {
            position: "11111 w".to_string(),
            probe: Probe {
                value: Value::Win,
                depth: Some(3),
            },
            moves: vec![
                MoveAnswer {
                    mv: "a1".to_string(),
                    after: "01111 b".to_string(),
                    probe: Probe {
                        value: Value::Loss,
                        depth: Some(2),
                    },
                },
                MoveAnswer {
                    mv: "b2".to_string(),
                    after: "10111 b".to_string(),
                    probe: Probe {
                        value: Value::Draw,
                        depth: None,
                    },
                },
            ],
        };
        let reply = moves_reply(answer.clone());
        assert_eq!(answer_of(&reply), Ok(answer));
        let mut unspecified = reply.clone();
        unspecified.moves[1].value = 0;
        assert!(answer_of(&unspecified).is_err());
        let mut headless = reply;
        headless.probe = None;
        assert!(answer_of(&headless).is_err());
    }
}
