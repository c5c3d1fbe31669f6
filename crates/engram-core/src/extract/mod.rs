//! What is worth remembering (seed 003): identity (name, job, employer, location,
//! skills), preferences and dislikes, decisions, corrections of the assistant, task
//! progress — in English and Chinese, by rules. Chit-chat and questions produce nothing.
//! Everything extracted goes through the normal write path (`remember`): PII redaction,
//! dedup, supersession by key.

mod en;
mod rules;
mod zh;

use serde::{Deserialize, Serialize};

use crate::knowledge::graph::EntityRef;
use crate::statements::{clauses, refer, refusal};
use crate::model::{FactKey, Kind, MemoryInput, Source};
use crate::router::{route, Route};

pub use crate::text::lexicon::category_of;

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

/// The tag of a fact kept about someone the user knows, not about the user ("User's friend
/// is allergic to peanuts"): it carries no key of the user's and stays out of the profile.
pub const PEOPLE_TAG: &str = "category:people";

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
/// none of them read and that states something about the speaker (`statements`, `en`).
pub fn extract(text: &str) -> Vec<Extracted> {
    let mut out: Vec<Extracted> = Vec::new();
    let push = |out: &mut Vec<Extracted>, e: Extracted| {
        if !out.iter().any(|o| o.text == e.text || (o.key.is_some() && o.key == e.key && o.kind == e.kind)) {
            out.push(e);
        }
    };
    // The relative or pet the turn named last, for a sentence that begins "She's …".
    let mut antecedent: Option<String> = None;
    for said in split_sentences(text) {
        let resolved = antecedent.as_deref().and_then(|a| refer::resolved(said, a)).or_else(|| refer::household(said));
        let sentence = resolved.as_deref().unwrap_or(said);
        if let Some(a) = refer::antecedent(sentence) {
            antecedent = Some(a);
        }
        if refusal::is_instruction(sentence) || clauses::is_hearsay(sentence) {
            continue;
        }
        let chinese = sentence.chars().any(crate::index::lexical::terms::is_cjk);
        let clauses = if chinese { Vec::new() } else { clauses::clauses(sentence) };
        // An English sentence that ends in a question may open with a statement ("I'm
        // Larry, what's your name?"): its clauses are what the rules read.
        let question = is_question(sentence);
        let asked = question && (chinese || clauses.is_empty());
        // Why the Chinese rules and reader leave the sentence alone, if they do.
        let blocked = zh::blocked(sentence);
        let mut read: Vec<std::ops::Range<usize>> = Vec::new();
        // Read at all: not a question, not small talk the router skips.
        let reads = !asked && route(sentence) == Route::Retrieve;
        if reads {
            for rule in rules::rules().iter().chain(zh::rules(blocked)) {
                for caps in rule.re.captures_iter(sentence) {
                    // A rule read inside a clause that states nothing as fact ("I don't work at
                    // Acme any more", "if I lived in Paris", "my mom says I moved to Lyon").
                    let at = caps.get(0).map_or(0, |m| m.start());
                    if clauses.iter().any(|(c, span)| span.contains(&at) && refusal::blocks_rules(c)) {
                        continue;
                    }
                    // Nothing is read from the question a statement ends with.
                    if !chinese && question && !clauses.iter().any(|(_, span)| span.contains(&at)) {
                        continue;
                    }
                    let built = (rule.build)(&caps);
                    if let (Some(m), false) = (caps.get(0), built.is_empty()) {
                        read.push(m.range());
                    }
                    for mut e in built {
                        if !chinese {
                            e.text = en::later_persons(&e.text);
                        }
                        push(&mut out, e);
                    }
                }
            }
        }
        if chinese {
            // What no rule read may still be a statement of the user's (`zh::clause`).
            if read.is_empty() && reads && blocked.is_none() {
                if let Some(e) = zh::clause::self_fact(sentence, zh::self_facts::refuses) {
                    push(&mut out, e);
                }
            }
            continue;
        }
        for (clause, span) in clauses {
            if read.iter().any(|r| r.start < span.end && span.start < r.end) {
                continue;
            }
            let fact = match refusal::refusal(&clause) {
                None => en::self_fact(&clause),
                Some(refusal::SOMEONE_ELSE) => en::someone_elses_fact(&clause),
                Some(_) => None,
            };
            if let Some(e) = fact {
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
            // "3.5" and "e.g." are not sentence ends, nor an initial or a title before a
            // name ("J. Cole", "Dr. Smith": a fact cut there names half a person).
            let next = text[end..].chars().next();
            if c == '.' && next.is_some_and(|n| !n.is_whitespace()) {
                continue;
            }
            if c == '.' && text[end..].trim_start().starts_with(char::is_uppercase) {
                let mut words = text[start..i].rsplit(char::is_whitespace);
                let (word, before) = (words.next().unwrap_or(""), words.next().unwrap_or(""));
                // A capital letter alone, but not "I" ("so do I.") nor a letter after an
                // article ("I got an A.").
                let initial = word.chars().count() == 1 && word != "I" && word.chars().all(char::is_uppercase) && !matches!(before, "a" | "an" | "the");
                if initial || matches!(word, "Mr" | "Mrs" | "Ms" | "Dr" | "St" | "Jr" | "Sr" | "Prof") {
                    continue;
                }
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

#[cfg(test)]
mod tests {
    use super::split_sentences;

    #[test]
    fn an_initial_or_a_title_before_a_name_does_not_end_the_sentence() {
        assert_eq!(split_sentences("I'm a big fan of Kendrick Lamar and J. Cole. I live in Paris."), ["I'm a big fan of Kendrick Lamar and J. Cole.", "I live in Paris."]);
        assert_eq!(split_sentences("My doctor is Dr. Smith. She is kind."), ["My doctor is Dr. Smith.", "She is kind."]);
        assert_eq!(split_sentences("I got an A. Then I went home."), ["I got an A.", "Then I went home."]);
        assert_eq!(split_sentences("So do I. But I hate rain."), ["So do I.", "But I hate rain."]);
        assert_eq!(split_sentences("I love The Great Gatsby by F. Scott Fitzgerald."), ["I love The Great Gatsby by F. Scott Fitzgerald."]);
    }
}
