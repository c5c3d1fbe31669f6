//! Learning from feedback (seed 002's adaptive agent). Each use of memory can be given an
//! outcome — helpful or not, the memories it used, a note, a task — kept as an `event`
//! memory tagged [`FEEDBACK_TAG`] (a record like any other: it syncs, and is forgotten
//! with the user). Once enough are recorded, a batch step distils them by rules:
//!
//! - **best practice**: a memory used in at least [`MIN_EVIDENCE`] helpful uses and in no
//!   unhelpful one gains importance (+0.1, at most 1) and a `pattern` names it;
//! - **pitfall**: a memory used in at least [`MIN_EVIDENCE`] unhelpful uses and in no
//!   helpful one falls to importance 0.1 (a weak memory: last in recall, dropped first from
//!   a tight context) and a `pattern` names it;
//! - **recurring task**: a task named in at least three uses becomes a `pattern` with how
//!   often its answers helped;
//! - **preferences** in the notes ("too long — keep your answers short") are read by the
//!   extractor's rules as what the user said.
//!
//! Patterns are data in the user's memory (never instructions); their ids come from what
//! they name, so two replicas distilling the same records write the same memories.

use crate::consolidate::patterns::{pattern_id, PATTERN_TAG};
use crate::engram::{id_from_stamp, Engram};
use crate::error::{Error, Result};
use crate::hlc::Millis;
use crate::extract::extract;
use crate::model::limits::{check_label, MAX_TAGS, MAX_TAG_LEN};
use crate::model::{Kind, Record, Scope, Source};
use crate::store::ops::{Op, OpBody};

/// The tag of every feedback record.
pub const FEEDBACK_TAG: &str = "feedback";
const HELPFUL: &str = "feedback:helpful";
const UNHELPFUL: &str = "feedback:unhelpful";
const USED: &str = "used:";
const TASK: &str = "task:";
/// Uses that make a memory a best practice or a pitfall.
pub const MIN_EVIDENCE: usize = 2;
/// Uses that make a task recurring.
const RECURRING_TASK: usize = 3;
/// A note is at most this many bytes.
const MAX_NOTE: usize = 2_000;

/// What one distillation wrote.
#[derive(Debug, Clone, Default, PartialEq, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Distilled {
    /// Feedback records read.
    pub interactions: usize,
    /// Patterns written (ids).
    pub patterns: Vec<String>,
    /// Memories whose importance rose (best practices) or fell (pitfalls).
    pub raised: Vec<String>,
    pub lowered: Vec<String>,
    /// Facts read from the notes (their ids).
    pub facts: Vec<String>,
    /// The notes read (for an LLM extractor to read them too).
    pub notes: Vec<String>,
}

#[derive(Default)]
struct Uses {
    helpful: usize,
    unhelpful: usize,
}

impl Engram {
    /// Record the outcome of one use of the scope's user's memory: whether it helped, the
    /// ids of the memories it used (at most 24), a note and a task. Returns the record's id.
    pub fn record_feedback(&mut self, scope: &Scope, helpful: bool, used: &[String], note: Option<&str>, task: Option<&str>, now: Millis) -> Result<String> {
        scope.validate()?;
        let at = Scope { session: None, ..scope.clone() };
        let mut tags = vec![FEEDBACK_TAG.to_owned(), (if helpful { HELPFUL } else { UNHELPFUL }).to_owned()];
        if let Some(t) = task {
            check_label("task", t, MAX_TAG_LEN - TASK.len())?;
            tags.push(format!("{TASK}{}", t.trim().to_lowercase()));
        }
        if used.len() > MAX_TAGS - tags.len() {
            return Err(Error::invalid("used", format!("at most {} memory ids", MAX_TAGS - tags.len())));
        }
        for id in used {
            check_label("used", id, MAX_TAG_LEN - USED.len())?;
            tags.push(format!("{USED}{id}"));
        }
        let note = note.map(str::trim).filter(|n| !n.is_empty());
        if note.is_some_and(|n| n.len() > MAX_NOTE || n.chars().any(|c| c.is_control() && c != '\n')) {
            return Err(Error::invalid("note", format!("at most {MAX_NOTE} bytes of text")));
        }
        let text = match note {
            Some(n) => format!("Feedback ({}): {n}", if helpful { "helpful" } else { "not helpful" }),
            None => format!("Feedback: {}", if helpful { "helpful" } else { "not helpful" }),
        };
        let stamp = self.next_stamp(now);
        let id = id_from_stamp(stamp);
        let record = Record { importance: 0.2, tags, ..Record::fresh(id.clone(), at.clone(), Kind::Event, text, stamp, now) };
        self.write_op(Op { user: at.user_key(), stamp, body: OpBody::Upsert(Box::new(record)) })?;
        Ok(id)
    }

    /// Distil the scope's user's recorded feedback once at least `min_interactions` are
    /// recorded (see the module's rules); nothing is written below that.
    pub fn learn_from_feedback(&mut self, scope: &Scope, min_interactions: usize, now: Millis) -> Result<Distilled> {
        scope.validate()?;
        let at = Scope { session: None, ..scope.clone() };
        let Some(p) = self.partition(&at)? else { return Ok(Distilled::default()) };
        let feedback: Vec<&Record> = p.iter().map(|(_, r)| r).filter(|r| r.kind == Kind::Event && r.is_current() && r.tags.iter().any(|t| t == FEEDBACK_TAG)).collect();
        let mut out = Distilled { interactions: feedback.len(), ..Distilled::default() };
        if feedback.len() < min_interactions.max(1) {
            return Ok(out);
        }
        // Uses per memory id and per task, in the order first seen (a few dozen: a list).
        let mut uses: Vec<(bool, &str, Uses)> = Vec::new();
        let mut notes: Vec<String> = Vec::new();
        for r in &feedback {
            let helpful = r.tags.iter().any(|t| t == HELPFUL);
            for t in &r.tags {
                let (task, name) = match (t.strip_prefix(USED), t.strip_prefix(TASK)) {
                    (Some(id), _) => (false, id),
                    (_, Some(task)) => (true, task),
                    _ => continue,
                };
                let i = uses.iter().position(|u| u.0 == task && u.1 == name).unwrap_or_else(|| {
                    uses.push((task, name, Uses::default()));
                    uses.len() - 1
                });
                let u = &mut uses[i].2;
                if helpful { u.helpful += 1 } else { u.unhelpful += 1 }
            }
            if let Some((_, n)) = r.text.split_once("): ") {
                notes.push(n.to_owned());
            }
        }
        // (memory id or none, its new importance, pattern key, pattern text)
        let mut changes: Vec<(Option<String>, f32, String, String)> = Vec::new();
        for (task, name, u) in &uses {
            let n = u.helpful + u.unhelpful;
            if *task {
                if n >= RECURRING_TASK {
                    changes.push((None, 0.0, format!("feedback:task:{name}"), format!("Recurring task \"{name}\": helped in {} of {n} uses", u.helpful)));
                }
                continue;
            }
            let Some(m) = p.get(name).filter(|m| m.is_current()) else { continue };
            if u.helpful >= MIN_EVIDENCE && u.unhelpful == 0 {
                changes.push((Some(m.id.clone()), (m.importance + 0.1).min(1.0), format!("feedback:best:{name}"), format!("What helped in {n} uses: \"{}\"", m.text)));
            } else if u.unhelpful >= MIN_EVIDENCE && u.helpful == 0 {
                changes.push((Some(m.id.clone()), 0.1, format!("feedback:pitfall:{name}"), format!("Did not help in {n} uses (a pitfall): \"{}\"", m.text)));
            }
        }
        for (id, importance, key, text) in changes {
            // Only with new evidence (its pattern written or rewritten): distilling the same
            // records again changes nothing.
            let Some(pattern) = self.write_pattern(&at, &key, text, now)? else { continue };
            out.patterns.push(pattern);
            let Some(id) = id else { continue };
            if let Some(mut m) = self.partition(&at)?.and_then(|p| p.slot_of(&id).and_then(|s| p.full_record(s))) {
                if (m.importance - importance).abs() > f32::EPSILON {
                    let stamp = self.next_stamp(now);
                    let raised = importance > m.importance;
                    (m.importance, m.updated_at, m.stamp) = (importance, now, stamp);
                    self.write_op(Op { user: at.user_key(), stamp, body: OpBody::Upsert(Box::new(m)) })?;
                    if raised { out.raised.push(id) } else { out.lowered.push(id) }
                }
            }
        }
        // The notes are the user's words: what they state is read as any turn of theirs.
        let facts: Vec<crate::extract::Extracted> = notes.iter().flat_map(|n| extract(n)).collect();
        out.notes = notes;
        if !facts.is_empty() {
            let prepared = self.prepare(&at, crate::write::prepare::WriteBatch { facts, ..Default::default() }, now)?;
            let none = vec![None; prepared.texts().len()];
            let written = self.commit(prepared, none, now)?.remembered;
            out.facts = written.into_iter().filter(|o| o.action == crate::model::WriteAction::Inserted).map(|o| o.id).collect();
        }
        Ok(out)
    }

    /// Write (or rewrite, when its text changed) the pattern of `key`; not after the user
    /// deleted it. Returns its id when written.
    fn write_pattern(&mut self, at: &Scope, key: &str, text: String, now: Millis) -> Result<Option<String>> {
        let id = pattern_id(at, key);
        let Some(p) = self.partition(at)? else { return Ok(None) };
        if p.is_deleted(&id) || p.get(&id).is_some_and(|r| r.text == text && r.is_current()) {
            return Ok(None);
        }
        let created = p.get(&id).map_or(now, |r| r.created_at);
        let stamp = self.next_stamp(now);
        // No `signal:` tag: the session patterns (`patterns.rs`) leave these alone.
        let record = Record {
            importance: 0.75,
            source: Source::RuleExtracted,
            tags: vec![PATTERN_TAG.to_owned(), FEEDBACK_TAG.to_owned()],
            created_at: created,
            ..Record::fresh(id.clone(), at.clone(), Kind::Pattern, text, stamp, now)
        };
        self.write_op(Op { user: at.user_key(), stamp, body: OpBody::Upsert(Box::new(record)) })?;
        Ok(Some(id))
    }
}

#[cfg(test)]
mod tests;
