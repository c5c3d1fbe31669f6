//! Who and what a text is about, for near-duplicate detection: two memories that embed
//! close together ("Alice is allergic to peanuts", "Bob is allergic to peanuts") are one
//! memory only when they name the same people, places and things. A name is told by its
//! capital (for a sentence's first word: when a verb or another name follows it) or, in
//! Chinese, by a surname followed by a given name; a third person ("he", "她") is a subject
//! too. When in doubt a word counts as a name: two memories kept where one would do cost
//! a line of context, one memory where two were meant loses a fact.

use std::collections::BTreeSet;

use crate::index::lexical::terms::is_cjk;

/// Words that begin sentences without naming anyone: function words, the store's own
/// subject ("User"), first and second persons.
const NOT_NAMES: &[&str] = &[
    "a", "an", "the", "and", "or", "but", "if", "so", "of", "to", "in", "on", "at", "for", "with", "from", "by", "as",
    "is", "are", "was", "were", "be", "been", "has", "have", "had", "do", "does", "did", "it", "its", "this", "that",
    "these", "those", "there", "here", "i", "me", "my", "we", "our", "us", "you", "your", "user", "users", "what",
    "which", "who", "whom", "when", "where", "why", "how", "every", "each", "all", "some", "any", "no", "not", "never",
    "always", "often", "usually", "sometimes", "now", "then", "today", "yesterday", "tomorrow", "also", "once",
    "after", "before", "since", "until", "during", "about", "one", "two", "three", "most", "many", "much", "very",
];

/// What follows a name at the start of a sentence besides a third-person or past verb
/// (told by its ending): a verb of being or having, a modal, a conjunction.
const AFTER_A_NAME: &[&str] = &["is", "was", "has", "had", "and", "will", "would", "can", "could", "does", "did", "isn't", "wasn't", "doesn't", "didn't", "won't", "can't", "lives", "works"];

/// Third persons, by who they point at.
const THIRD_PERSONS: &[(&str, &str)] = &[
    ("he", "he"), ("him", "he"), ("his", "he"), ("himself", "he"),
    ("she", "she"), ("her", "she"), ("hers", "she"), ("herself", "she"),
    ("they", "they"), ("them", "they"), ("their", "they"), ("theirs", "they"),
];

/// Common Chinese surnames that are seldom a word of their own (周 "week", 何 "what",
/// 高 "tall" and the like are left out: read as a surname they would keep paraphrases apart).
const SURNAMES: &str = "王李张刘陈杨赵吴徐孙朱郭罗郑梁宋唐冯邓曹彭肖董袁潘蒋蔡杜苏魏吕沈姚卢崔谭汪廖贾韦邹孟秦邱薛闫陶黎郝龚邵覃孔";

/// The Chinese third persons.
const ZH_THIRD_PERSONS: &[(char, &str)] = &[('他', "he"), ('她', "she")];

/// Whether `a` and `b` name the same subjects (see the module's doc).
pub fn same_subjects(a: &str, b: &str) -> bool {
    subjects(a) == subjects(b)
}

/// The names and third persons of `text`, lower-cased.
pub fn subjects(text: &str) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    latin_subjects(text, &mut out);
    chinese_subjects(text, &mut out);
    out
}

fn latin_subjects(text: &str, out: &mut BTreeSet<String>) {
    // Words with the punctuation before them: a sentence starts after . ! ? : or a line.
    let mut words: Vec<(&str, bool)> = Vec::new();
    let mut starts = true;
    let mut word_start: Option<usize> = None;
    for (i, c) in text.char_indices().chain(std::iter::once((text.len(), ' '))) {
        let in_word = c.is_alphanumeric() && !is_cjk(c) || ((c == '\'' || c == '’') && word_start.is_some());
        match (in_word, word_start) {
            (true, None) => word_start = Some(i),
            (false, Some(s)) => {
                words.push((&text[s..i], starts));
                starts = false;
                word_start = None;
            }
            _ => {}
        }
        if matches!(c, '.' | '!' | '?' | ':' | ';' | '\n' | '。' | '！' | '？' | '：' | '；') {
            starts = true;
        }
    }
    for (i, &(word, first)) in words.iter().enumerate() {
        let stem = word.trim_end_matches(['\'', '’']).trim_end_matches("'s").trim_end_matches("’s");
        let lower = stem.to_lowercase();
        if let Some((_, who)) = THIRD_PERSONS.iter().find(|(w, _)| *w == lower) {
            out.insert((*who).to_owned());
            continue;
        }
        if !stem.chars().next().is_some_and(char::is_uppercase) || NOT_NAMES.contains(&lower.as_str()) {
            continue;
        }
        if first && stem.len() == word.len() && !names_someone(&words, i, &lower) {
            continue;
        }
        out.insert(lower);
    }
}

/// Whether a sentence's first word (`lower`, at `i`) names someone: the capitalised words
/// that run on from it ("Alice Smith") are followed by a verb ("is", "likes", "moved"), or,
/// for a first word that does not itself look like a verb, there is such a run. "Enjoys
/// hiking", "Lives in Lyon" and "Prefers Go for work" begin with verbs; "James is",
/// "Jonas Smith likes" and "Alice Smith works" with names.
fn names_someone(words: &[(&str, bool)], i: usize, lower: &str) -> bool {
    let capital = |w: &str| w.chars().next().is_some_and(char::is_uppercase) && !NOT_NAMES.contains(&w.to_lowercase().as_str());
    let verb = |w: &str| {
        let l = w.to_lowercase();
        AFTER_A_NAME.contains(&l.as_str()) || l.len() > 3 && (l.ends_with('s') && !l.ends_with("ss") || l.ends_with("ed"))
    };
    let mut j = i + 1;
    while words.get(j).is_some_and(|w| capital(w.0)) {
        j += 1;
    }
    let run = j;
    // "Alice really enjoys", "Bob also lives": adverbs stand between a name and its verb.
    const ADVERBS: &[&str] = &["really", "also", "usually", "always", "often", "never", "still", "just", "now", "sometimes", "truly", "absolutely", "no", "longer", "only"];
    while words.get(j).is_some_and(|w| ADVERBS.contains(&w.0.to_lowercase().as_str())) {
        j += 1;
    }
    let then_verb = words.get(j).is_some_and(|w| verb(w.0));
    let verb_like = lower.len() > 3 && (lower.ends_with('s') && !lower.ends_with("ss") || lower.ends_with("ed") || lower.ends_with("ing") || lower.ends_with("ly"));
    then_verb || !verb_like && run > i + 1
}

fn chinese_subjects(text: &str, out: &mut BTreeSet<String>) {
    let chars: Vec<char> = text.chars().collect();
    for (i, &c) in chars.iter().enumerate() {
        if let Some((_, who)) = ZH_THIRD_PERSONS.iter().find(|(p, _)| *p == c) {
            out.insert((*who).to_owned());
        } else if SURNAMES.contains(c) && chars.get(i + 1).is_some_and(|&n| is_cjk(n)) {
            // A surname and the first character of the given name: 张伟 and 王伟 differ, and
            // so do 张伟 and 张三.
            out.insert(chars[i..i + 2].iter().collect());
        }
    }
}


#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn different_people_and_places_are_different_subjects() {
        for (a, b) in [
            ("Alice is allergic to peanuts", "Bob is allergic to peanuts"),
            ("Zhang Wei is allergic to peanuts", "Wang Wei is allergic to peanuts"),
            ("Liu Yang lives in Chengdu", "Chen Yang lives in Chengdu"),
            ("Alice Smith works at the hospital", "Alice Jones works at the hospital"),
            ("James is a nurse", "Charles is a nurse"),
            ("Alice's sister is a nurse", "Bob's sister is a nurse"),
            ("Her sister is a nurse", "His sister is a nurse"),
            ("User moved to Lyon", "User moved to Porto"),
            ("张伟对花生过敏", "王伟对花生过敏"),
            ("张伟对花生过敏", "张三对花生过敏"),
            ("他对花生过敏", "她对花生过敏"),
        ] {
            assert!(!same_subjects(a, b), "{a:?} / {b:?}: {:?} {:?}", subjects(a), subjects(b));
        }
    }

    #[test]
    fn the_same_subject_said_another_way_is_the_same_subject() {
        for (a, b) in [
            ("User enjoys hiking in the Alps every summer", "Every summer the user goes hiking in the Alps"),
            ("Alice is allergic to peanuts", "Alice has a peanut allergy"),
            ("Prefers Go for backend services", "Likes Go for backend work"),
            ("Enjoys hiking", "Likes hiking"),
            ("Alice enjoys hiking in the mountains", "Alice really enjoys hiking in the mountains"),
            ("User lives in Chengdu", "Lives in Chengdu"),
            ("The user is vegetarian", "User is a vegetarian"),
            ("张伟对花生过敏", "张伟花生过敏"),
            ("用户喜欢爵士乐", "用户很喜欢爵士乐"),
        ] {
            assert!(same_subjects(a, b), "{a:?} / {b:?}: {:?} {:?}", subjects(a), subjects(b));
        }
    }
}
