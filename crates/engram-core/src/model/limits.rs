//! Every limit on untrusted input, in one place. The write paths check a caller's input
//! against them before anything is stamped, and [`crate::Op::validate`] checks a received
//! op against the same rules, so what one replica (or the origin) accepts every other
//! replica can apply — a value that could not be stored elsewhere (a NUL byte in a key, a
//! 9 MB attribute) is refused where it is written, with a typed error, instead of blocking
//! sync later.

use crate::error::{Error, Result};

/// Longest tenant, user, agent or session id (bytes).
pub const MAX_SCOPE_ID: usize = 256;
/// Longest record id (bytes).
pub const MAX_RECORD_ID: usize = 128;
/// Longest part of a fact key (`subject`, `attribute`), in bytes.
pub const MAX_KEY_PART: usize = 256;
/// Most tags on a record, and the longest tag (bytes).
pub const MAX_TAGS: usize = 32;
pub const MAX_TAG_LEN: usize = 64;
/// Longest session-state key (bytes), most keys per session, longest value (bytes).
pub const MAX_STATE_KEY: usize = 256;
pub const MAX_STATE_KEYS: usize = 256;
pub const MAX_STATE_VALUE: usize = 64 * 1024;
/// Longest graph name, kind, relation or attribute (bytes), and attribute value.
pub const MAX_LABEL: usize = 200;
pub const MAX_ATTR_VALUE: usize = 1000;
/// The largest `max_text_bytes` a configuration may set, and so the longest text any
/// replica can be asked to apply.
pub const MAX_TEXT_CEILING: usize = 1024 * 1024;
/// Longest text `count_tokens` takes (bytes): counting is linear but not free.
pub const MAX_COUNT_BYTES: usize = 4 * 1024 * 1024;
/// Most results one recall or context request may ask for.
pub const MAX_K: usize = 1000;
/// Longest embedding (dimensions).
pub const MAX_DIM: usize = 8192;

/// A non-empty id of at most `max` bytes without control characters.
pub fn check_id(field: &'static str, v: &str, max: usize) -> Result<()> {
    if v.is_empty() {
        return Err(Error::invalid(field, "must not be empty"));
    }
    if v.len() > max {
        return Err(Error::invalid(field, format!("longer than {max} bytes")));
    }
    if v.chars().any(char::is_control) {
        return Err(Error::invalid(field, "must not contain control characters"));
    }
    Ok(())
}

/// A name that must show something: 1..=`max` bytes, not only spaces, no control characters.
pub fn check_label(field: &'static str, v: &str, max: usize) -> Result<()> {
    if v.trim().is_empty() || v.len() > max {
        return Err(Error::invalid(field, format!("must be 1..={max} bytes")));
    }
    if v.chars().any(char::is_control) {
        return Err(Error::invalid(field, "must not contain control characters"));
    }
    Ok(())
}

/// Text to store: at most `max` bytes and at least one visible character (a text of NUL
/// bytes or other control characters is refused like an empty one).
pub fn check_text(field: &'static str, v: &str, max: usize) -> Result<()> {
    if v.len() > max {
        return Err(Error::TextTooLarge { len: v.len(), max });
    }
    if v.chars().all(|c| c.is_whitespace() || c.is_control()) {
        return Err(Error::invalid(field, "must not be empty (or only control characters)"));
    }
    Ok(())
}

/// Tags: at most [`MAX_TAGS`], each 1..=[`MAX_TAG_LEN`] bytes without control characters.
pub fn check_tags(tags: &[String]) -> Result<()> {
    if tags.len() > MAX_TAGS || tags.iter().any(|t| t.is_empty() || t.len() > MAX_TAG_LEN || t.chars().any(char::is_control)) {
        return Err(Error::invalid("tags", format!("at most {MAX_TAGS} tags of 1..={MAX_TAG_LEN} bytes without control characters")));
    }
    Ok(())
}

/// A value the caller may bound (`k`, a count): at most `max`.
pub fn check_at_most(field: &'static str, v: usize, max: usize) -> Result<()> {
    if v > max {
        return Err(Error::invalid(field, format!("{v} is over the limit of {max}")));
    }
    Ok(())
}

/// Text handed to `count_tokens`.
pub fn check_countable(text: &str) -> Result<()> {
    if text.len() > MAX_COUNT_BYTES {
        return Err(Error::TextTooLarge { len: text.len(), max: MAX_COUNT_BYTES });
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_nul_byte_anywhere_in_an_id_or_label_is_refused() {
        assert!(check_id("id", "a\0b", 10).is_err());
        assert!(check_label("name", "x\0", 10).is_err());
        assert!(check_id("id", "ab", 10).is_ok());
    }

    #[test]
    fn text_of_only_control_characters_counts_as_empty() {
        assert_eq!(check_text("text", "\0\0\0", 100).map_err(|e| e.code()), Err("INVALID_INPUT"));
        assert_eq!(check_text("text", "\u{7} \n", 100).map_err(|e| e.code()), Err("INVALID_INPUT"));
        assert!(check_text("text", "\0hi", 100).is_ok());
        assert_eq!(check_text("text", "hello", 3).map_err(|e| e.code()), Err("TEXT_TOO_LARGE"));
    }

    #[test]
    fn tags_with_control_characters_or_too_many_are_refused() {
        assert!(check_tags(&["a".into(), "b\0".into()]).is_err());
        assert!(check_tags(&vec!["t".to_owned(); MAX_TAGS + 1]).is_err());
        assert!(check_tags(&vec!["t".to_owned(); MAX_TAGS]).is_ok());
    }
}
