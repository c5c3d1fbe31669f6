//! A token estimate for when no rank table is loaded yet. It leans high so that budgets
//! computed with it are safe: about one token per 3 ASCII bytes, one per CJK or other
//! non-ASCII character, two per astral character (emoji).

/// Estimate the token count of `text` without a vocabulary.
pub fn estimate(text: &str) -> usize {
    let mut ascii = 0usize;
    let mut other = 0usize;
    for c in text.chars() {
        if c.is_ascii() {
            ascii += 1;
        } else if c.len_utf8() == 4 {
            other += 2;
        } else {
            other += 1;
        }
    }
    ascii.div_ceil(3) + other
}

/// The longest prefix whose estimate is at most `max_tokens`, on a character boundary.
pub fn truncate(text: &str, max_tokens: usize) -> (&str, usize) {
    let mut ascii = 0usize;
    let mut other = 0usize;
    let mut end = 0usize;
    for (i, c) in text.char_indices() {
        let (a, o) = if c.is_ascii() { (ascii + 1, other) } else { (ascii, other + if c.len_utf8() == 4 { 2 } else { 1 }) };
        if a.div_ceil(3) + o > max_tokens {
            return (&text[..end], ascii.div_ceil(3) + other);
        }
        ascii = a;
        other = o;
        end = i + c.len_utf8();
    }
    (text, ascii.div_ceil(3) + other)
}
