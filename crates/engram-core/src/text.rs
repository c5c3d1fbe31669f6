//! Text normalization and the content hash used for exact dedup.

/// Lowercase, trim, collapse whitespace, and drop trailing sentence punctuation, so that
/// "I like tea." and "i like  tea" are the same memory.
pub fn normalize(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for word in text.split_whitespace() {
        if !out.is_empty() {
            out.push(' ');
        }
        out.extend(word.chars().flat_map(char::to_lowercase));
    }
    let trimmed = out.trim_end_matches(['.', '!', '?', '。', '！', '？', '…', ',', '，', ';', '；']);
    trimmed.to_owned()
}

/// FNV-1a 64 of the normalized text: stable across versions and platforms.
pub fn content_hash(normalized: &str) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in normalized.as_bytes() {
        h ^= u64::from(*b);
        h = h.wrapping_mul(0x0100_0000_01b3);
    }
    h
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn case_spacing_and_final_punctuation_do_not_make_a_new_memory() {
        assert_eq!(normalize("  I like   Tea. "), normalize("i like tea"));
        assert_eq!(normalize("我喜欢茶。"), normalize("我喜欢茶"));
        assert_ne!(normalize("I like tea"), normalize("I like coffee"));
    }

    #[test]
    fn the_hash_is_stable() {
        assert_eq!(content_hash(""), 0xcbf2_9ce4_8422_2325);
        assert_eq!(content_hash("a"), 0xaf63_dc4c_8601_ec8c);
    }
}
