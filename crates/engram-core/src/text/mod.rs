//! Text normalization, the content hash used for exact dedup, and whether a text names a
//! time.

use unicode_segmentation::UnicodeSegmentation;

pub mod lexicon;

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

pub mod subjects;

use std::collections::BTreeSet;

/// Whether two texts that embed close together may be the same memory ([`Substance`]).
pub fn same_substance(a: &str, b: &str) -> bool {
    Substance::of(a).agrees(&Substance::of(b))
}

/// What two texts that embed close together must share to be one memory: the same
/// numbers, the same polarity, the same subjects ([`subjects`]: names, places, third
/// persons), and at least half of their terms. Embeddings — a static token table most of
/// all — put "meeting at 3pm" next to "meeting at 4pm", "likes X" next to "does not like
/// X" and "Alice is allergic to peanuts" next to "Bob is allergic to peanuts"; merging
/// those would lose a memory. Computed once for a new memory, then compared with each
/// neighbour.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Substance {
    numbers: Vec<String>,
    negated: bool,
    subjects: BTreeSet<String>,
    terms: BTreeSet<String>,
}

impl Substance {
    /// The substance of `text`.
    pub fn of(text: &str) -> Self {
        Substance {
            numbers: numbers(text),
            negated: negated(text),
            subjects: subjects::subjects(text),
            terms: crate::sort::set(crate::index::lexical::terms::terms(text)),
        }
    }

    /// Whether a memory of `self` and one of `other` may be the same memory.
    pub fn agrees(&self, other: &Substance) -> bool {
        if self.numbers != other.numbers || self.negated != other.negated || self.subjects != other.subjects {
            return false;
        }
        let union = self.terms.union(&other.terms).count();
        union == 0 || 2 * self.terms.intersection(&other.terms).count() >= union
    }
}

/// The numbers a text states, in digits or in words ("two kids", "两个孩子"), sorted.
fn numbers(text: &str) -> Vec<String> {
    const WORDS: &[(&str, &str)] = &[
        ("one", "1"), ("two", "2"), ("three", "3"), ("four", "4"), ("five", "5"), ("six", "6"), ("seven", "7"),
        ("eight", "8"), ("nine", "9"), ("ten", "10"), ("eleven", "11"), ("twelve", "12"), ("twenty", "20"),
        ("hundred", "100"), ("thousand", "1000"), ("first", "1st"), ("second", "2nd"), ("third", "3rd"),
        ("twice", "2x"), ("once", "1x"), ("dozen", "12"), ("both", "2"),
    ];
    // A Chinese numeral counts before a measure word (两个, 三只, 五岁): alone, 一 is in 一起 and 一样.
    const ZH: &str = "一二两三四五六七八九十百千万";
    const MEASURES: &str = "个只位岁年次天本条件口家名张辆套周月";
    let mut out: Vec<String> = text.split(|c: char| !c.is_ascii_digit()).filter(|s| !s.is_empty()).map(str::to_owned).collect();
    let lower = text.to_lowercase();
    for w in lower.split(|c: char| !c.is_alphanumeric()) {
        if let Some((_, n)) = WORDS.iter().find(|(word, _)| *word == w) {
            out.push((*n).to_owned());
        }
    }
    let chars: Vec<char> = text.chars().collect();
    for (i, w) in chars.windows(2).enumerate() {
        if ZH.contains(w[0]) && MEASURES.contains(w[1]) {
            let mut run = i;
            while run > 0 && ZH.contains(chars[run - 1]) {
                run -= 1;
            }
            out.push(chars[run..=i].iter().collect());
        }
    }
    crate::sort::sort(&mut out);
    out
}

fn negated(text: &str) -> bool {
    const WORDS: &[&str] = &["not", "no", "never", "don't", "doesn't", "didn't", "isn't", "aren't", "won't", "can't", "cannot", "nor", "without"];
    let lower = text.to_lowercase();
    lower.split(|c: char| !(c.is_alphanumeric() || c == '\'' || c == '’')).any(|w| WORDS.contains(&w.replace('’', "'").as_str()))
        || lower.contains(['不', '没', '别', '未', '非'])
}

/// Words that place a statement in time.
const TIME_WORDS: &[&str] = &[
    "yesterday", "today", "tonight", "tomorrow", "ago", "last", "weekend", "week", "weeks", "month", "months", "year",
    "years", "recently", "monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday", "january",
    "february", "march", "april", "may", "june", "july", "august", "september", "october", "november", "december",
    "morning", "evening", "since",
];
const TIME_CJK: &[&str] = &["昨天", "今天", "明天", "前天", "上周", "上个月", "去年", "今年", "星期", "周末", "年", "月", "号"];

/// True when `text` carries a time: a time word, a four-digit year, or a Chinese date word.
pub fn carries_time(text: &str) -> bool {
    text.unicode_words().any(|w| {
        let lower = w.to_lowercase();
        TIME_WORDS.contains(&lower.as_str()) || (w.len() == 4 && w.bytes().all(|b| b.is_ascii_digit()) && (w.starts_with("19") || w.starts_with("20")))
    }) || TIME_CJK.iter().any(|w| text.contains(w))
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
