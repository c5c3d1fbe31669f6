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

/// Whether two texts that embed close together may be the same memory: the same numbers,
/// the same polarity, and at least half of their terms shared. Embeddings — a static token
/// table most of all — put "meeting at 3pm" next to "meeting at 4pm" and "likes X" next to
/// "does not like X"; merging those would lose a memory.
pub fn same_substance(a: &str, b: &str) -> bool {
    if numbers(a) != numbers(b) || negated(a) != negated(b) {
        return false;
    }
    let ta: std::collections::BTreeSet<String> = crate::index::lexical::terms::terms(a).into_iter().collect();
    let tb: std::collections::BTreeSet<String> = crate::index::lexical::terms::terms(b).into_iter().collect();
    let union = ta.union(&tb).count();
    union == 0 || 2 * ta.intersection(&tb).count() >= union
}

fn numbers(text: &str) -> Vec<&str> {
    let mut out: Vec<&str> = text.split(|c: char| !c.is_numeric()).filter(|s| !s.is_empty()).collect();
    out.sort_unstable();
    out
}

fn negated(text: &str) -> bool {
    const WORDS: &[&str] = &["not", "no", "never", "don't", "doesn't", "didn't", "isn't", "aren't", "won't", "can't", "cannot", "nor", "without"];
    let lower = text.to_lowercase();
    lower.split(|c: char| !(c.is_alphanumeric() || c == '\'' || c == '’')).any(|w| WORDS.contains(&w.replace('’', "'").as_str()))
        || lower.contains(['不', '没', '别', '未', '非'])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn different_numbers_polarity_or_words_are_different_memories() {
        assert!(same_substance("User enjoys hiking in the Alps every summer", "Every summer the user goes hiking in the Alps"));
        assert!(!same_substance("fact number 3 about bob's garden", "fact number 4 about bob's garden"));
        assert!(!same_substance("User likes jazz", "User does not like jazz"));
        assert!(!same_substance("用户喜欢爵士乐", "用户不喜欢爵士乐"));
        assert!(!same_substance("Lives in Hangzhou near the lake", "Works in Beijing near the office"));
    }

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
