//! Game and rules files: read with a bound, TOML errors with their line,
//! names written back as TOML strings.

use crate::GameError;

/// Reads a text file of at most `max` bytes (a device, a pipe or a huge
/// file is refused, not read to the end).
///
/// # Errors
/// [`GameError::GameFile`] when it cannot be read, is too long, is no
/// regular file or is not UTF-8.
pub(crate) fn read_bounded(path: &std::path::Path, max: u64) -> Result<String, GameError> {
    let fail = |reason: String| GameError::GameFile {
        path: path.display().to_string(),
        reason,
    };
    let bytes = crate::bounded_file::read_at_most(path, max).map_err(|e| fail(e.to_string()))?;
    String::from_utf8(bytes).map_err(|_| fail("not UTF-8 text".to_string()))
}

/// `text`, at most `max` bytes, read as TOML into `T`; `path` only names
/// the file in errors.
///
/// # Errors
/// [`GameError::GameFile`]: too long, or the TOML error with its line.
pub(crate) fn parse_bounded<T: serde::de::DeserializeOwned>(
    text: &str,
    path: &str,
    max: u64,
) -> Result<T, GameError> {
    let fail = |reason: String| GameError::GameFile {
        path: path.to_string(),
        reason,
    };
    if text.len() as u64 > max {
        return Err(fail(format!("longer than {max} bytes")));
    }
    toml::from_str(text).map_err(|e| fail(toml_error(&e, text)))
}

/// A TOML error as one line, with the line of `text` it is on.
fn toml_error(error: &toml::de::Error, text: &str) -> String {
    let line = error
        .span()
        // Counted in bytes: a span that is not on a character boundary
        // still gives its line.
        .map(|s| {
            let before = &text.as_bytes()[..s.start.min(text.len())];
            before.split(|&b| b == b'\n').count().max(1)
        });
    match line {
        Some(line) => format!("line {line}: {}", error.message()),
        None => error.message().to_string(),
    }
}

/// The longest name a game or rules file may give, in characters.
pub const MAX_NAME_CHARS: usize = 100;

/// A name from a file, printed by `plan`, `stats` and the explorer: 1 to
/// [`MAX_NAME_CHARS`] characters and no control characters (no terminal
/// escapes).
///
/// # Errors
/// The rule it breaks, as one line.
pub(crate) fn plain_name(name: String) -> Result<String, String> {
    let plain = !name.trim().is_empty() && name.chars().all(|c| !c.is_control());
    if !plain || name.chars().count() > MAX_NAME_CHARS {
        return Err(format!(
            "name must be 1 to {MAX_NAME_CHARS} characters without control characters"
        ));
    }
    Ok(name)
}

/// `text` as a TOML basic string. Rust's `{:?}` is not TOML: it writes
/// `\0` and `\u{11d3c}`, which TOML does not read back.
pub(crate) fn toml_string(text: &str) -> String {
    let mut quoted = String::with_capacity(text.len() + 2);
    quoted.push('"');
    for c in text.chars() {
        match c {
            '"' => quoted.push_str("\\\""),
            '\\' => quoted.push_str("\\\\"),
            c if c.is_control() => quoted.push_str(&format!("\\U{:08X}", u32::from(c))),
            c => quoted.push(c),
        }
    }
    quoted.push('"');
    quoted
}
