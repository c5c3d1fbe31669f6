//! What is worth remembering (seed 003): identity (name, job, employer, location,
//! skills), preferences and dislikes, decisions, corrections of the assistant, task
//! progress — in English and Chinese, by rules. Chit-chat and questions produce nothing.
//! Everything extracted goes through the normal write path (`remember`): PII redaction,
//! dedup, supersession by key.

mod clauses;
mod en;
mod lexicon;
mod rules;
mod zh;

use serde::{Deserialize, Serialize};

use crate::knowledge::graph::EntityRef;
use crate::model::{FactKey, Kind, MemoryInput, Source};
use crate::read::router::{route, Route};

pub use lexicon::category_of;

/// One fact proposed by the extractor.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Extracted {
    pub kind: Kind,
    pub text: String,
    pub key: Option<FactKey>,
    pub importance: f32,
    pub confidence: f32,
    pub tags: Vec<String>,
    /// The relation this fact states between the user and an entity, for the graph
    /// ("works at Alibaba" → `user —works_at→ Alibaba (organization)`).
    pub link: Option<Link>,
}

/// A relation from the user to an entity, stated by an extracted fact.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Link {
    pub rel: String,
    pub object: EntityRef,
}

impl Extracted {
    /// The memory this fact is remembered as (`rule-extracted`).
    pub fn into_input(self) -> MemoryInput {
        let mut m = MemoryInput::new(self.kind, self.text);
        m.key = self.key;
        m.importance = self.importance;
        m.confidence = self.confidence;
        m.tags = self.tags;
        m.source = Source::RuleExtracted;
        m
    }

    /// The same fact, stating `user —rel→ name (kind)`.
    pub(crate) fn linked(mut self, rel: &str, name: &str, kind: &str) -> Self {
        let name = rules::clean(name);
        if !name.is_empty() && name.len() <= 200 {
            self.link = Some(Link { rel: rel.to_owned(), object: EntityRef::new(&name, kind) });
        }
        self
    }
}

/// The entity every extracted relation starts from: the user the memory belongs to.
pub const USER_ENTITY: &str = "user";

/// True for a question: it asks, it does not tell ("what's my name?", "我叫什么？").
pub(crate) fn is_question(s: &str) -> bool {
    let t = s.trim();
    t.ends_with(['?', '？']) || t.ends_with('吗') || t.ends_with("什么") || {
        let lower = t.to_lowercase();
        ["what ", "who ", "where ", "when ", "why ", "how ", "which ", "do you ", "can you ", "could you ", "is it ", "are you "]
            .iter()
            .any(|w| lower.starts_with(w))
    }
}

/// Extract facts from what a user said. Sentences are judged one at a time: the keyed
/// rules of `rules.rs` and `zh.rs` first, then (English) every first-person clause that
/// none of them read and that states something about the speaker (`clauses`, `en`).
pub fn extract(text: &str) -> Vec<Extracted> {
    let mut out: Vec<Extracted> = Vec::new();
    let push = |out: &mut Vec<Extracted>, e: Extracted| {
        if !out.iter().any(|o| o.text == e.text || (o.key.is_some() && o.key == e.key && o.kind == e.kind)) {
            out.push(e);
        }
    };
    for sentence in split_sentences(text) {
        let asked = is_question(sentence);
        let mut read: Vec<std::ops::Range<usize>> = Vec::new();
        if !asked && route(sentence) == Route::Retrieve {
            for rule in rules::rules().iter().chain(zh::rules(sentence)) {
                for caps in rule.re.captures_iter(sentence) {
                    let built = (rule.build)(&caps);
                    if let (Some(m), false) = (caps.get(0), built.is_empty()) {
                        read.push(m.range());
                    }
                    for e in built {
                        push(&mut out, e);
                    }
                }
            }
        }
        if sentence.chars().any(crate::index::lexical::terms::is_cjk) {
            continue;
        }
        for (clause, span) in clauses::clauses(sentence) {
            if read.iter().any(|r| r.start < span.end && span.start < r.end) || clauses::refusal(&clause).is_some() {
                continue;
            }
            if let Some(e) = en::self_fact(&clause) {
                push(&mut out, e);
            }
        }
    }
    out
}

fn split_sentences(text: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut start = 0;
    for (i, c) in text.char_indices() {
        if matches!(c, '.' | '!' | '?' | '。' | '！' | '？' | '\n' | ';' | '；') {
            let end = i + c.len_utf8();
            // "3.5" and "e.g." are not sentence ends.
            let next = text[end..].chars().next();
            if c == '.' && next.is_some_and(|n| !n.is_whitespace()) {
                continue;
            }
            if !text[start..end].trim().is_empty() {
                out.push(text[start..end].trim());
            }
            start = end;
        }
    }
    if !text[start..].trim().is_empty() {
        out.push(text[start..].trim());
    }
    out
}

