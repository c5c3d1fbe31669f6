//! BERT's uncased tokenizer: the basic tokenizer (clean control characters, space out CJK
//! ideographs, strip accents, lowercase, split on whitespace and punctuation) followed by
//! greedy longest-match-first WordPiece with the `##` continuation prefix.

use rustc_hash::FxHashMap;
use unicode_general_category::{get_general_category, GeneralCategory as G};

use crate::embed::accents::{MULTI, SINGLE};

/// Longest word WordPiece splits; longer words are `[UNK]` (as in BERT).
const MAX_WORD_CHARS: usize = 100;

/// A WordPiece vocabulary: word-initial pieces and `##` continuations, by token id.
#[derive(Debug)]
pub struct WordPiece {
    initial: FxHashMap<Box<str>, u32>,
    continuation: FxHashMap<Box<str>, u32>,
    unk: Option<u32>,
}

impl WordPiece {
    /// A vocabulary from tokens in id order.
    pub fn new<'a>(tokens: impl IntoIterator<Item = &'a str>) -> Self {
        let mut initial = FxHashMap::default();
        let mut continuation = FxHashMap::default();
        let mut unk = None;
        for (id, t) in tokens.into_iter().enumerate() {
            let id = id as u32;
            if t == "[UNK]" {
                unk = Some(id);
            }
            match t.strip_prefix("##") {
                Some(rest) if !rest.is_empty() => continuation.entry(rest.into()).or_insert(id),
                _ => initial.entry(t.into()).or_insert(id),
            };
        }
        WordPiece { initial, continuation, unk }
    }

    /// The id of `[UNK]`, if the vocabulary has one.
    pub fn unk(&self) -> Option<u32> {
        self.unk
    }

    /// Token ids of `text`, `[UNK]` included, in order; at most `max` ids.
    pub fn encode(&self, text: &str, max: usize, out: &mut Vec<u32>) {
        let mut word = String::new();
        let flush = |word: &mut String, out: &mut Vec<u32>| {
            if !word.is_empty() && out.len() < max {
                self.word(word, out);
                out.truncate(max);
            }
            word.clear();
        };
        for c in text.chars() {
            let cp = c as u32;
            if cp == 0 || cp == 0xfffd || (is_control(c) && !matches!(c, '\t' | '\n' | '\r')) {
                continue;
            }
            if is_whitespace(c) {
                flush(&mut word, out);
                continue;
            }
            if is_cjk(cp) || is_punctuation(c) {
                flush(&mut word, out);
                word.push(c);
                flush(&mut word, out);
                continue;
            }
            push_normalized(c, &mut word);
        }
        flush(&mut word, out);
    }

    /// WordPiece one basic-tokenized word.
    fn word(&self, word: &str, out: &mut Vec<u32>) {
        if word.chars().count() > MAX_WORD_CHARS {
            out.extend(self.unk);
            return;
        }
        let start_len = out.len();
        let mut start = 0;
        while start < word.len() {
            let table = if start == 0 { &self.initial } else { &self.continuation };
            let mut end = word.len();
            let mut found = None;
            while end > start {
                if let Some(&id) = table.get(&word[start..end]) {
                    found = Some(id);
                    break;
                }
                end = word[..end].char_indices().next_back().map_or(start, |(i, _)| i);
            }
            match found {
                Some(id) => {
                    out.push(id);
                    start = end;
                }
                None => {
                    out.truncate(start_len);
                    out.extend(self.unk);
                    return;
                }
            }
        }
    }
}

/// Strip accents (NFD, drop nonspacing marks), lowercase, and push onto `word`.
fn push_normalized(c: char, word: &mut String) {
    let cp = c as u32;
    if (0xac00..=0xd7a3).contains(&cp) {
        // Hangul syllables decompose algorithmically into conjoining jamo.
        let s = cp - 0xac00;
        let (l, v, t) = (0x1100 + s / 588, 0x1161 + (s % 588) / 28, s % 28);
        for j in [Some(l), Some(v), (t != 0).then_some(0x11a7 + t)].into_iter().flatten() {
            word.extend(char::from_u32(j));
        }
        return;
    }
    if let Ok(i) = SINGLE.binary_search_by_key(&cp, |&(k, _)| k) {
        if let Some(base) = char::from_u32(SINGLE[i].1) {
            word.extend(base.to_lowercase());
        }
        return;
    }
    if let Ok(i) = MULTI.binary_search_by_key(&cp, |&(k, _)| k) {
        word.extend(MULTI[i].1.chars().flat_map(char::to_lowercase));
        return;
    }
    if get_general_category(c) == G::NonspacingMark {
        return;
    }
    word.extend(c.to_lowercase());
}

fn is_whitespace(c: char) -> bool {
    matches!(c, ' ' | '\t' | '\n' | '\r') || get_general_category(c) == G::SpaceSeparator
}

fn is_control(c: char) -> bool {
    matches!(get_general_category(c), G::Control | G::Format)
}

fn is_punctuation(c: char) -> bool {
    let cp = c as u32;
    (33..=47).contains(&cp)
        || (58..=64).contains(&cp)
        || (91..=96).contains(&cp)
        || (123..=126).contains(&cp)
        || matches!(
            get_general_category(c),
            G::ConnectorPunctuation
                | G::DashPunctuation
                | G::OpenPunctuation
                | G::ClosePunctuation
                | G::InitialPunctuation
                | G::FinalPunctuation
                | G::OtherPunctuation
        )
}

/// BERT's "Chinese character" ranges (CJK ideographs), each its own word.
fn is_cjk(cp: u32) -> bool {
    matches!(cp,
        0x4e00..=0x9fff | 0x3400..=0x4dbf | 0x20000..=0x2a6df | 0x2a700..=0x2b73f
        | 0x2b740..=0x2b81f | 0x2b820..=0x2ceaf | 0xf900..=0xfaff | 0x2f800..=0x2fa1f)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn vocab() -> WordPiece {
        WordPiece::new(["[PAD]", "[UNK]", "un", "##aff", "##able", "hello", "world", "!", "cafe", "naive", "我", "喜", "欢", "go"])
    }

    fn ids(text: &str) -> Vec<u32> {
        let mut out = Vec::new();
        vocab().encode(text, 512, &mut out);
        out
    }

    #[test]
    fn words_split_greedily_into_the_longest_pieces() {
        assert_eq!(ids("unaffable"), vec![2, 3, 4]);
        assert_eq!(ids("Hello, WORLD!"), vec![5, 1, 6, 7], "the comma is not in the vocabulary: [UNK]");
    }

    #[test]
    fn accents_are_stripped_and_cjk_ideographs_stand_alone() {
        assert_eq!(ids("Café naïve"), vec![8, 9]);
        assert_eq!(ids("我喜欢Go"), vec![10, 11, 12, 13]);
    }

    #[test]
    fn an_unknown_word_is_one_unk_and_the_limit_is_kept() {
        assert_eq!(ids("hello zzz world"), vec![5, 1, 6]);
        let mut out = Vec::new();
        vocab().encode("hello hello hello", 2, &mut out);
        assert_eq!(out.len(), 2);
    }
}
