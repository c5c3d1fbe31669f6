//! Working memory: per-session state whose TTL refreshes on every write, the session's
//! turns (records of kind `Message`, so they sync and are forgotten like the rest), the
//! recent window of the last N turns, and a rolling-summary slot for turns that left it.

use std::collections::BTreeMap;

use crate::store::partition::Partition;
use crate::pii::Sealed;
use crate::store::ops::{Op, OpBody};
use crate::engram::{id_from_stamp, Engram};
use crate::error::{Error, Result};
use crate::hlc::Millis;
use crate::model::{Kind, Record, Scope, Sensitivity, Source};
use crate::pii::{scrub, PiiAction, Scrubbed};

use crate::model::limits::{check_id, MAX_STATE_KEY, MAX_STATE_KEYS, MAX_STATE_VALUE};

/// A chat turn to append.
#[derive(Debug, Clone, PartialEq)]
pub struct Turn {
    /// `User`, `Assistant`, `Tool` or `System`.
    pub role: Source,
    pub text: String,
    pub embedding: Option<Vec<f32>>,
}

impl Turn {
    /// A user turn.
    pub fn user(text: impl Into<String>) -> Self {
        Turn { role: Source::User, text: text.into(), embedding: None }
    }
    /// An assistant turn.
    pub fn assistant(text: impl Into<String>) -> Self {
        Turn { role: Source::Assistant, text: text.into(), embedding: None }
    }
}

/// A turn checked and redacted by [`Engram::prepare`], waiting to be stored.
#[derive(Debug, Clone)]
pub(crate) struct ReadyTurn {
    pub(crate) role: Source,
    /// Redacted and trimmed: what is stored.
    pub(crate) text: String,
    pub(crate) sealed: Vec<Sealed>,
    pub(crate) embedding: Option<Vec<f32>>,
}

impl Engram {
    /// A turn must have text and a conversational role.
    pub(crate) fn validate_turn(&self, turn: &Turn) -> Result<()> {
        self.validate_text(&turn.text)?;
        if matches!(turn.role, Source::RuleExtracted | Source::LlmExtracted) {
            return Err(Error::invalid("role", "a turn's role is user, assistant, tool or system"));
        }
        Ok(())
    }

    /// Store a checked, redacted turn in the scope's session (the last step of `commit`).
    pub(crate) fn insert_turn(&mut self, scope: &Scope, turn: ReadyTurn, now: Millis) -> Result<String> {
        let session = scope.require_session()?.to_owned();
        if let Some(v) = &turn.embedding {
            self.claim_dim(v.len());
        }
        let ReadyTurn { role, text, sealed, embedding } = turn;
        let question = crate::extract::is_question(&text);
        let stamp = self.next_stamp(now);
        let id = id_from_stamp(stamp);
        let record = Record {
            embedding,
            // What the user states is worth more later than what the assistant said; a question
            // states nothing (and would otherwise echo the very query that recalls it).
            importance: match role {
                Source::User if question => 0.2,
                Source::User => 0.4,
                _ => 0.25,
            },
            source: role,
            sealed,
            ..Record::fresh(id.clone(), scope.clone(), Kind::Message, text, stamp, now)
        };
        let user = scope.user_key();
        let part = self.partitions.entry(user.clone()).or_insert_with(|| Partition::new(user.clone()));
        let slot = part.put(record, &self.config);
        let sess = part.session_mut(session);
        sess.add_turn(&id);
        sess.touch(stamp);
        if let Some(rec) = part.full_record(slot) {
            self.pending.push(Op { user, stamp, body: OpBody::Upsert(Box::new(rec)) });
        }
        Ok(id)
    }

    /// A turn's text as it will be stored: PII redacted by the policy of the personal tier,
    /// where "drop" means redact (a turn is the conversation; it is kept, scrubbed).
    pub fn scrub_turn(&self, text: &str) -> String {
        self.scrub_turn_sealed(text).0
    }

    pub(crate) fn scrub_turn_sealed(&self, text: &str) -> (String, Vec<crate::pii::Sealed>) {
        let mut policy = self.config.pii.clone();
        for a in [&mut policy.public, &mut policy.session, &mut policy.personal] {
            if *a == PiiAction::Drop {
                *a = PiiAction::Redact;
            }
        }
        match scrub(text, Sensitivity::Personal, &policy, self.redaction_key.as_ref()) {
            Scrubbed::Store { text, sealed, .. } => (text, sealed),
            Scrubbed::Drop { .. } => (String::new(), Vec::new()),
        }
    }

    /// The last `n` turns of the scope's session (default: the configured window), oldest first.
    pub fn recent_turns(&self, scope: &Scope, n: Option<usize>) -> Result<Vec<Record>> {
        let n = n.unwrap_or(self.config.recent_turns);
        let turns = self.turn_records(scope)?;
        Ok(turns[turns.len().saturating_sub(n)..].iter().map(|r| (*r).clone()).collect())
    }

    /// Turns that have left the recent window (oldest first): what a rolling summary covers.
    pub fn overflow_turns(&self, scope: &Scope) -> Result<Vec<Record>> {
        Ok(self.overflow_turn_records(scope)?.into_iter().cloned().collect())
    }

    /// [`Engram::overflow_turns`], borrowed.
    pub(crate) fn overflow_turn_records(&self, scope: &Scope) -> Result<Vec<&Record>> {
        let mut all = self.turn_records(scope)?;
        all.truncate(all.len().saturating_sub(self.config.recent_turns));
        Ok(all)
    }

    /// Every turn of the scope's session, oldest first, borrowed.
    fn turn_records(&self, scope: &Scope) -> Result<Vec<&Record>> {
        let session = scope.require_session()?;
        let Some(p) = self.partition(scope)? else { return Ok(Vec::new()) };
        let Some(s) = p.session(session) else { return Ok(Vec::new()) };
        let mut turns: Vec<&Record> = s.turns().iter().filter_map(|id| p.get(id)).collect();
        crate::sort::sort_by(&mut turns, |a, b| a.created_at.cmp(&b.created_at).then(a.stamp.cmp(&b.stamp)));
        Ok(turns)
    }

    /// Set a session state value; refreshes the session's TTL. Made an op, so the value
    /// persists with the op log and syncs (last writer wins per key).
    pub fn session_set(&mut self, scope: &Scope, key: &str, value: &str, now: Millis) -> Result<()> {
        let session = scope.require_session()?.to_owned();
        scope.validate()?;
        check_id("key", key, MAX_STATE_KEY)?;
        if value.len() > MAX_STATE_VALUE {
            return Err(Error::TextTooLarge { len: value.len(), max: MAX_STATE_VALUE });
        }
        let ttl = self.config.session_ttl_ms;
        let sess = self.partition_mut(scope)?.session_mut(session.clone());
        let expired = !sess.state().is_empty() && now.saturating_sub(sess.touched_at()) >= ttl;
        if !expired && !sess.state().contains_key(key) && sess.state().len() >= MAX_STATE_KEYS {
            return Err(Error::invalid("key", format!("a session holds at most {MAX_STATE_KEYS} keys")));
        }
        if expired {
            // Idle past its TTL: the old state goes — as an op, so every replica drops it.
            self.clear_session(scope, &session, now)?;
        }
        let stamp = self.next_stamp(now);
        self.write_op(Op { user: scope.user_key(), stamp, body: OpBody::SessionSet { session, key: key.to_owned(), value: value.to_owned() } })?;
        Ok(())
    }

    /// A session state value, unless the session has been idle past its TTL.
    pub fn session_get(&self, scope: &Scope, key: &str, now: Millis) -> Result<Option<String>> {
        Ok(self.session_state(scope, now)?.remove(key))
    }

    /// The whole live state of the scope's session.
    pub fn session_state(&self, scope: &Scope, now: Millis) -> Result<BTreeMap<String, String>> {
        let session = scope.require_session()?;
        let ttl = self.config.session_ttl_ms;
        Ok(self
            .partition(scope)?
            .and_then(|p| p.session(session))
            .filter(|s| now.saturating_sub(s.touched_at()) < ttl)
            .map(|s| s.state().clone())
            .unwrap_or_default())
    }

    /// Replace the session's rolling summary (an op, like state writes).
    pub fn set_summary(&mut self, scope: &Scope, summary: &str, now: Millis) -> Result<()> {
        let session = scope.require_session()?.to_owned();
        scope.validate()?;
        self.validate_text(summary)?;
        let stamp = self.next_stamp(now);
        self.write_op(Op { user: scope.user_key(), stamp, body: OpBody::SessionSummary { session, text: summary.trim().to_owned() } })?;
        Ok(())
    }

    /// The session's rolling summary.
    pub fn summary(&self, scope: &Scope) -> Result<Option<String>> {
        let session = scope.require_session()?;
        Ok(self.partition(scope)?.and_then(|p| p.session(session)).and_then(|s| s.summary().map(str::to_owned)))
    }

    fn clear_session(&mut self, scope: &Scope, session: &str, now: Millis) -> Result<()> {
        let stamp = self.next_stamp(now);
        self.write_op(Op { user: scope.user_key(), stamp, body: OpBody::SessionClear { session: session.to_owned() } })?;
        Ok(())
    }

    /// End a session: its state goes, and memories of the `Session` sensitivity tier made
    /// in it are deleted (as ops, so every replica deletes them). Turns stay as episodes.
    /// With episodes on ([`crate::consolidate::Episodes`]), an `Episode` memory
    /// summarises the session first; then patterns are learned and old episodes compacted
    /// when those steps are on.
    pub fn end_session(&mut self, scope: &Scope, now: Millis) -> Result<usize> {
        let session = scope.require_session()?.to_owned();
        self.write_episode(scope, now)?;
        self.after_session(scope, now)?;
        if self.partitions.get(&scope.user_key()).is_some_and(|p| p.session(&session).is_some_and(|s| !s.state().is_empty())) {
            self.clear_session(scope, &session, now)?;
        }
        let Some(p) = self.partitions.get_mut(&scope.user_key()) else { return Ok(0) };
        let doomed: Vec<String> = p
            .iter()
            .filter(|(_, r)| r.sensitivity == Sensitivity::Session && r.scope.session.as_deref() == Some(&session))
            .map(|(_, r)| r.id.clone())
            .collect();
        for id in &doomed {
            self.forget(scope, id, now)?;
        }
        Ok(doomed.len())
    }
}


