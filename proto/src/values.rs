//! Game values cross the wire as [`GameValue`] tags; these are the two
//! conversions, the incoming one refusing tags that name no value.

use egdb_games::checked::Probe;
use egdb_games::Value;

use crate::v1::GameValue;
use crate::WireError;

impl From<Value> for GameValue {
    fn from(value: Value) -> GameValue {
        match value {
            Value::Win => GameValue::Win,
            Value::Loss => GameValue::Loss,
            Value::Draw => GameValue::Draw,
        }
    }
}

/// The tag a message carries for `value`.
pub fn tag_of(value: Value) -> i32 {
    GameValue::from(value) as i32
}

/// The value a message's tag names.
///
/// # Errors
/// [`WireError::UnknownValue`] for an unspecified or unknown tag.
pub fn value_of(tag: i32) -> Result<Value, WireError> {
    match GameValue::try_from(tag) {
        Ok(GameValue::Win) => Ok(Value::Win),
        Ok(GameValue::Loss) => Ok(Value::Loss),
        Ok(GameValue::Draw) => Ok(Value::Draw),
        _ => Err(WireError::UnknownValue(tag)),
    }
}

/// A probe as a message carries it: a value tag and a depth.
///
/// # Errors
/// [`WireError::UnknownValue`] for a tag that names no value.
pub fn probe_of_tag(tag: i32, depth: Option<u32>) -> Result<Probe, WireError> {
    Ok(Probe {
        value: value_of(tag)?,
        depth,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_cross_the_wire_unchanged_and_other_tags_are_refused() {
        for value in [Value::Win, Value::Loss, Value::Draw] {
            assert_eq!(value_of(tag_of(value)), Ok(value));
        }
        for tag in [0, 4, -1, i32::MAX] {
            assert!(value_of(tag).is_err(), "{tag}");
        }
    }
}
