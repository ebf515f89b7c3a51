//! What the commands that reach a coordinator share: the cluster token
//! from its file, and the hint a broken plaintext connection deserves.

use std::path::Path;

use crate::failure::Failure;

/// The longest token file read: a token is a secret of a few dozen
/// characters, and it travels with every request.
pub const MAX_TOKEN_BYTES: u64 = 4096;

/// The cluster token from its file (surrounding white space dropped).
///
/// # Errors
/// An unreadable, empty or over-long file, or one that is no regular file.
pub fn read_token(path: Option<&Path>) -> Result<Option<String>, Failure> {
    let Some(path) = path else {
        return Ok(None);
    };
    let fail = |reason: String| {
        Failure::bad_input(format!(
            "cannot read token file {}: {reason}",
            path.display()
        ))
    };
    let bytes = egdb_games::bounded_file::read_at_most(path, MAX_TOKEN_BYTES)
        .map_err(|e| fail(e.to_string()))?;
    let text = String::from_utf8(bytes).map_err(|_| fail("not UTF-8 text".to_string()))?;
    let token = text.trim();
    if token.is_empty() {
        return Err(Failure::bad_input(format!(
            "token file {} is empty",
            path.display()
        )));
    }
    Ok(Some(token.to_string()))
}

/// What to try when a plaintext client's connections keep breaking: the
/// coordinator may speak TLS.
pub fn plaintext_hint(error: &str, tls: bool) -> &'static str {
    let broken = ["broken pipe", "connection reset"]
        .iter()
        .any(|what| error.contains(what));
    if broken && !tls {
        " (if the coordinator uses TLS: https:// and --tls-cert, --tls-key, --tls-ca)"
    } else {
        ""
    }
}
