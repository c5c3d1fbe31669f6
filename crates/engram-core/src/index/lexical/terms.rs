//! Terms for BM25: Unicode words (UAX #29), lowercased; runs of CJK characters become
//! overlapping bigrams ("记忆管理" → 记忆, 忆管, 管理), which retrieve Chinese and Japanese
//! well without a 2 MB segmentation dictionary. The index stems English words (Snowball),
//! so "painted" finds "painting": on long conversations (LoCoMo's development split) it
//! lifted BM25's recall@10 from 0.565 to 0.604; crude suffix stripping reached 0.59.

use std::sync::OnceLock;

use rust_stemmers::{Algorithm, Stemmer};
use unicode_segmentation::UnicodeSegmentation;

/// True for Han, Hiragana, Katakana and Hangul characters.
pub fn is_cjk(c: char) -> bool {
    matches!(c as u32,
        0x3040..=0x30FF | 0x3400..=0x4DBF | 0x4E00..=0x9FFF | 0xF900..=0xFAFF |
        0xAC00..=0xD7AF | 0x20000..=0x2FA1F)
}

/// Very common English words that carry no retrieval signal.
const STOP: &[&str] = &[
    "a", "an", "the", "and", "or", "but", "of", "to", "in", "on", "at", "for", "with", "is", "are", "was",
    "were", "be", "been", "it", "this", "that", "do", "does", "did", "i", "me", "my", "you", "your", "we",
    "our", "what", "which", "who", "how", "can", "could", "would", "should", "will", "about", "as", "by",
    "from", "so", "if", "then", "there", "their", "they", "he", "she", "his", "her", "its", "am", "have",
    "has", "had", "not", "no", "yes", "just", "any", "some",
];

/// Split `text` into index terms.
pub fn terms(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut run: Vec<char> = Vec::new();
    let flush = |run: &mut Vec<char>, out: &mut Vec<String>| {
        match run.len() {
            0 => {}
            1 => out.push(run[0].to_string()),
            _ => out.extend(run.windows(2).map(|w| w.iter().collect::<String>())),
        }
        run.clear();
    };
    for word in text.unicode_words() {
        let mut chars = word.chars();
        if let (Some(c), None) = (chars.next(), chars.next()) {
            if is_cjk(c) {
                run.push(c);
                continue;
            }
        }
        flush(&mut run, &mut out);
        if word.chars().any(is_cjk) {
            // Mixed word (e.g. Hangul syllables grouped by UAX #29): bigram its CJK part.
            let mut sub: Vec<char> = Vec::new();
            for c in word.chars() {
                if is_cjk(c) {
                    sub.push(c);
                } else {
                    flush(&mut sub, &mut out);
                }
            }
            flush(&mut sub, &mut out);
            continue;
        }
        let lower = word.to_lowercase();
        let lower = lower.strip_suffix("'s").unwrap_or(&lower).to_owned();
        if !STOP.contains(&lower.as_str()) {
            out.push(lower);
        }
    }
    flush(&mut run, &mut out);
    out
}

/// [`terms`] with every Latin-letter word reduced to its Snowball English stem: the terms
/// BM25 indexes and queries with. Other channels (keys, aliases, near-duplicates) compare
/// the unstemmed words of [`terms`].
pub fn index_terms(text: &str) -> Vec<String> {
    static ENGLISH: OnceLock<Stemmer> = OnceLock::new();
    let stemmer = ENGLISH.get_or_init(|| Stemmer::create(Algorithm::English));
    let mut out = terms(text);
    for t in &mut out {
        if let Some(word) = standard(t) {
            *t = word.to_owned();
        }
        if t.len() > 3 && t.bytes().all(|b| b.is_ascii_lowercase()) {
            let stem = stemmer.stem(t);
            if stem.len() < t.len() {
                *t = stem.into_owned();
            }
        }
    }
    out
}

/// Chat's shorthand and British spellings, read as the word they stand for on both sides of
/// the index: "my fam" finds "family", "fave colour" finds "favorite color", "the kids"
/// finds "children".
fn standard(word: &str) -> Option<&'static str> {
    Some(match word {
        "fam" => "family",
        "edu" => "education",
        "biz" => "business",
        "pic" | "pics" | "photo" | "photos" => "picture",
        "fave" | "fav" | "favourite" | "favourites" => "favorite",
        "colour" | "colours" => "color",
        "convo" => "conversation",
        "bday" => "birthday",
        "vacay" => "vacation",
        "hubby" => "husband",
        "bf" => "boyfriend",
        "gf" => "girlfriend",
        "mum" | "mommy" => "mom",
        "daddy" => "dad",
        "bro" => "brother",
        "sis" => "sister",
        "kiddo" | "kiddos" | "kids" | "child" | "children" => "kid",
        "buddy" | "buddies" | "pal" | "pals" => "friend",
        "uni" => "university",
        "yrs" | "yr" => "year",
        "theatre" => "theater",
        "centre" => "center",
        "travelling" => "traveling",
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn index_terms_share_a_stem_across_inflections() {
        assert_eq!(index_terms("She painted sunrises"), ["paint", "sunris"]);
        assert_eq!(index_terms("painting a sunrise"), ["paint", "sunris"]);
        // Short words, numbers and CJK bigrams are left as they are.
        assert_eq!(index_terms("bus 2023 记忆管理"), ["bus", "2023", "记忆", "忆管", "管理"]);
    }

    #[test]
    fn chat_shorthand_and_british_spellings_are_the_words_they_stand_for() {
        assert_eq!(index_terms("hanging with the fam"), index_terms("hanging with the family"));
        assert_eq!(index_terms("my fave colour"), index_terms("my favorite color"));
        assert_eq!(index_terms("the kids loved it"), index_terms("the children loved it"));
    }

    #[test]
    fn english_words_are_lowercased_and_stopwords_dropped() {
        assert_eq!(terms("The user's favourite Language is Rust!"), ["user", "favourite", "language", "rust"]);
    }

    #[test]
    fn chinese_runs_become_overlapping_bigrams() {
        assert_eq!(terms("记忆管理"), ["记忆", "忆管", "管理"]);
        assert_eq!(terms("我用Python"), ["我用", "python"]);
    }

    #[test]
    fn a_lone_cjk_character_is_its_own_term() {
        assert_eq!(terms("茶 tea"), ["茶", "tea"]);
    }
}
