//! Text from outside as messages repeat it: control characters and the
//! marks that turn or hide text escaped, long text cut.

/// Text from outside as it may be printed (a file's path as a default
/// name, a peer's report): control characters shown as `?`.
pub fn printable(text: &str) -> String {
    text.chars()
        .map(|c| if c.is_control() { '?' } else { c })
        .collect()
}

/// The most characters of a user's text an error message repeats.
pub const SHOWN_CHARS: usize = 64;

/// The most characters of a reason an error message gives (a reason may
/// quote a part of the text).
pub const REASON_CHARS: usize = 512;

/// Text from outside as an error message repeats it: control and
/// direction-changing characters escaped (no terminal escapes, no line
/// read backwards), and cut after [`SHOWN_CHARS`] characters, saying how
/// long it was.
pub fn shown(text: &str) -> String {
    shown_within(text, SHOWN_CHARS)
}

/// [`shown`], cut after `most` characters.
pub fn shown_within(text: &str, most: usize) -> String {
    let mut out = String::new();
    for c in text.chars().take(most) {
        if c.is_control() || is_invisible_format(c) {
            out.push_str(&format!("\\u{{{:x}}}", u32::from(c)));
        } else {
            out.push(c);
        }
    }
    let count = text.chars().count();
    if count > most {
        out.push_str(&format!("… ({count} characters)"));
    }
    out
}

/// Unicode's format characters that turn or hide text: the direction
/// marks, embeddings, overrides and isolates, zero widths, the BOM.
fn is_invisible_format(c: char) -> bool {
    matches!(
        c,
        '\u{61c}' | '\u{200b}'..='\u{200f}' | '\u{202a}'..='\u{202e}' | '\u{2060}'..='\u{2069}' | '\u{feff}'
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shown_text_escapes_controls_and_direction_marks_and_is_cut() {
        assert_eq!(shown("d2-d3"), "d2-d3");
        assert_eq!(
            shown("a\u{1b}[31m\u{200f}b\n"),
            "a\\u{1b}[31m\\u{200f}b\\u{a}"
        );
        let long = "x".repeat(100_000);
        let cut = shown(&long);
        assert!(cut.starts_with(&"x".repeat(SHOWN_CHARS)), "{cut}");
        assert!(cut.ends_with("… (100000 characters)"), "{cut}");
        assert!(cut.chars().count() < SHOWN_CHARS + 30);
    }
}
