//! Signals: what a user turn says about how the user works, normalised to a key, so the
//! same choice made in different words and sessions counts as one signal — "write it in
//! Go", "I prefer Go", "用Go写" all give `programming language:go`. Found by rules, no LLM:
//! the preferences the rule extractor finds ([`crate::extract`]), and requests naming a
//! known thing (a language, an editor, a database, … — [`crate::extract::category_of`]),
//! questions included ("can you do it in Go?" asks for Go).

use std::sync::OnceLock;

use regex_lite::Regex;

use crate::extract::{category_of, extract};
use crate::model::Kind;

/// One signal found in a turn.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Signal {
    /// The normalised key: `<category>:<thing>` for a known thing chosen or asked for,
    /// `likes:<thing>` / `dislikes:<thing>` for other opinions.
    pub key: String,
    /// What the pattern says, in words ("User keeps choosing Go (programming language)").
    pub label: String,
}

/// Other spellings of the same thing, lowercase.
const ALIASES: &[(&str, &str)] = &[("golang", "go"), ("postgres", "postgresql"), ("vs code", "vscode"), ("nvim", "neovim")];

/// Words without which no preference rule of the extractor matches (see `extract/rules.rs`).
const PREFERENCE_CUES: &[&str] = &[
    "prefer", "love", "like", "enjoy", "hate", "stand", "avoid", "switched", "moved", "migrated", "changed", "偏好", "喜欢", "爱用", "偏爱",
    "讨厌", "改用", "换成", "现在用", "换到", "转到", "迁移到",
];

/// Known things that are also everyday words, counted in English only when capitalised.
const WORDS: &[&str] = &["go", "rust", "c", "r", "swift", "ruby", "dart", "arch", "zed", "cursor", "tea", "coffee", "oracle", "sublime", "julia", "windows", "mistral", "gemini"];

fn canonical(thing: &str) -> String {
    let t = thing.trim().to_lowercase();
    ALIASES.iter().find(|(a, _)| *a == t).map_or(t, |(_, c)| (*c).to_owned())
}

fn chosen(thing: &str, category: &str) -> Signal {
    let thing = thing.trim();
    Signal { key: format!("{category}:{}", canonical(thing)), label: format!("User keeps choosing {thing} ({category})") }
}

fn requests() -> &'static [Regex] {
    static R: OnceLock<Vec<Regex>> = OnceLock::new();
    R.get_or_init(|| {
        [
            r"(?i)\b(?:in|use|using|with|switch to)\s+([a-z][a-z0-9#+.-]{0,19})(?:\s*(?:,|and|or)\s+([a-z][a-z0-9#+.-]{0,19}))?",
            r"(?:用|使用|采用|改用|换成)\s*([A-Za-z][A-Za-z0-9#+.-]{0,19})",
        ]
        .iter()
        .map(|p| Regex::new(p).unwrap_or_else(|e| unreachable!("signal pattern {p}: {e}")))
        .collect()
    })
}

/// The signals in what a user said, each key once, in the order found.
pub fn signals(text: &str) -> Vec<Signal> {
    let mut out: Vec<Signal> = Vec::new();
    let mut push = |s: Signal| {
        if !out.iter().any(|o| o.key == s.key) {
            out.push(s);
        }
    };
    // The extractor runs some thirty rules; only a turn that may state a preference needs them.
    let lower = text.to_lowercase();
    let opinions = if PREFERENCE_CUES.iter().any(|c| lower.contains(c)) { extract(text) } else { Vec::new() };
    for e in opinions {
        let (Kind::Preference, Some(link)) = (e.kind, &e.link) else { continue };
        match (link.rel.as_str(), category_of(&link.object.name)) {
            ("prefers", Some(cat)) => push(chosen(&link.object.name, cat)),
            (rel @ ("likes" | "dislikes" | "prefers"), _) => {
                push(Signal { key: format!("{rel}:{}", canonical(&link.object.name)), label: e.text.clone() });
            }
            _ => {}
        }
    }
    // Nor do the request patterns, unless a word of the turn is a known thing.
    let names_a_thing = lower
        .split(|c: char| !(c.is_ascii_alphanumeric() || matches!(c, '#' | '+' | '.' | '-')))
        .any(|w| category_of(&canonical(w.trim_end_matches(['.', '-']))).is_some());
    for (n, re) in requests().iter().enumerate().filter(|_| names_a_thing) {
        let chinese = n == 1;
        for caps in re.captures_iter(text) {
            for thing in caps.iter().skip(1).flatten() {
                let thing = thing.as_str().trim_end_matches(['.', ',']);
                // "go", "rust", "c" are words too: in English they count written as names.
                let named = chinese || thing.starts_with(|c: char| c.is_ascii_uppercase()) || !WORDS.contains(&thing);
                if let Some(cat) = category_of(&canonical(thing)).filter(|_| named) {
                    push(chosen(thing, cat));
                }
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn keys(text: &str) -> Vec<String> {
        signals(text).into_iter().map(|s| s.key).collect()
    }

    #[test]
    fn asking_for_go_preferring_go_and_writing_golang_are_one_signal() {
        for t in ["Can you write it in Go?", "I prefer Go.", "Please use golang for this", "这个用Go写", "Rewrite the parser with Go, please."] {
            assert_eq!(keys(t), ["programming language:go"], "{t}");
        }
    }

    #[test]
    fn chit_chat_and_lowercase_common_words_give_no_signal() {
        for t in ["ok", "Let's go in a minute.", "I will go with the flow", "what time is it?", "Done in c minutes", "Noted."] {
            assert!(keys(t).is_empty(), "{t}: {:?}", keys(t));
        }
    }

    #[test]
    fn other_opinions_are_keyed_by_what_they_are_about() {
        assert_eq!(keys("I don't like meetings before noon."), ["dislikes:meetings before noon"]);
        assert_eq!(keys("I like hiking"), ["likes:hiking"]);
        assert_eq!(keys("Use PostgreSQL and Rust here"), ["database:postgresql", "programming language:rust"]);
    }
}
