//! Abstractive episodes: the SDK asks the configured LLM to summarise a session once its
//! extractive episode is written, and hands the answer back here. The core runs no LLM; it
//! only checks the text as every write is checked (size, PII policy) and rewrites the
//! episode in place — same id, same `turn:<id>` cites, source `llm-extracted`.

use crate::consolidate::episode::episode_id;
use crate::engram::Engram;
use crate::error::{Error, Result};
use crate::hlc::Millis;
use crate::model::{Kind, MemoryInput, Scope, Source};
use crate::store::ops::{Op, OpBody};
use crate::pii::Scrubbed;

impl Engram {
    /// Replace the text of the scope's session's episode with `text` (an LLM's summary),
    /// after the checks of the write path: `INVALID_INPUT` for an empty or oversized text,
    /// and the PII policy redacts (or seals) as for any memory; a text the policy would
    /// drop entirely (a secret) is refused. The record keeps its id, kind, tags (the turns
    /// it cites), importance and creation time; its source becomes `llm-extracted`. The
    /// record must be the session's current episode: `NOT_FOUND` otherwise (none written,
    /// or forgotten since).
    pub fn rewrite_episode(&mut self, scope: &Scope, text: &str, now: Millis) -> Result<String> {
        scope.require_session()?;
        scope.validate()?;
        let id = episode_id(scope);
        let existing = self
            .partition(scope)?
            .and_then(|p| p.get(&id))
            .filter(|r| r.kind == Kind::Episode && r.is_current())
            .cloned()
            .ok_or_else(|| Error::NotFound(format!("no episode of this session ({id})")))?;
        let input = MemoryInput { source: Source::LlmExtracted, tags: existing.tags.clone(), ..MemoryInput::new(Kind::Episode, text.trim()) };
        self.validate_input(&input, now)?;
        let (text, sealed) = match self.scrub(&input.text, existing.sensitivity) {
            Scrubbed::Store { text, sealed, .. } => (text, sealed),
            Scrubbed::Drop { .. } => return Err(Error::invalid("episode", "the summary holds a value the PII policy does not store")),
        };
        let stamp = self.next_stamp(now);
        let mut record = existing;
        record.text = text;
        record.sealed = sealed;
        record.source = Source::LlmExtracted;
        record.embedding = None;
        record.updated_at = now;
        record.stamp = stamp;
        self.write_op(Op { user: scope.user_key(), stamp, body: OpBody::Upsert(Box::new(record)) })?;
        Ok(id)
    }
}

#[cfg(test)]
mod tests {
    use crate::consolidate::{Consolidation, Episodes};
    use crate::model::{Kind, Source};
    use crate::{Config, Engram, Scope, Turn};

    fn session() -> (Engram, Scope) {
        let mut e = Engram::new(Config::default(), 1);
        e.set_consolidation(Consolidation { episodes: Some(Episodes::default()), ..Consolidation::default() }).unwrap();
        let s = Scope::user("acme", "ana").with_session("s1");
        e.append_turn(&s, Turn::user("I live in Lisbon and we decided to ship on Friday."), 1_000).unwrap();
        (e, s)
    }

    #[test]
    fn a_summary_replaces_the_episode_text_keeping_its_id_and_cites() {
        let (mut e, s) = session();
        let id = e.write_episode(&s, 2_000).unwrap().unwrap();
        let before = e.partition(&s).unwrap().unwrap().get(&id).cloned().unwrap();
        let out = e.rewrite_episode(&s, "Ana (Lisbon) decided to ship on Friday; mail ana@example.com.", 3_000).unwrap();
        assert_eq!(out, id);
        let after = e.partition(&s).unwrap().unwrap().get(&id).cloned().unwrap();
        assert_eq!(after.kind, Kind::Episode);
        assert_eq!(after.source, Source::LlmExtracted);
        assert_eq!(after.tags, before.tags);
        assert!(after.tags.iter().any(|t| t.starts_with("turn:")));
        assert!(after.text.starts_with("Ana (Lisbon) decided") && !after.text.contains("ana@example.com"), "{}", after.text);
        assert_eq!(e.take_pending().len(), 3, "the turn, the episode, its rewrite");
    }

    #[test]
    fn a_rewrite_without_an_episode_or_with_an_empty_text_is_refused() {
        let (mut e, s) = session();
        assert_eq!(e.rewrite_episode(&s, "A summary.", 2_000).unwrap_err().code(), "NOT_FOUND");
        e.write_episode(&s, 2_000).unwrap().unwrap();
        assert_eq!(e.rewrite_episode(&s, "   ", 3_000).unwrap_err().code(), "INVALID_INPUT");
        assert_eq!(e.rewrite_episode(&Scope::user("acme", "ana"), "A summary.", 3_000).unwrap_err().code(), "INVALID_INPUT");
    }
}
