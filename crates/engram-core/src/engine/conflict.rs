//! Conflicts (seed 002): a new memory with the key of a current one but other text.
//! Four outcomes — keep new, keep old, merge, flag for review — chosen by rules over
//! confidence, source reliability and recency, overridable per store and per write.
//! Every version stays in the audit trail whatever the outcome.

use serde::{Deserialize, Serialize};

use crate::engine::sync::{Op, OpBody};
use crate::engine::Engram;
use crate::error::{Error, Result};
use crate::hlc::Millis;
use crate::model::{FactKey, Record, Scope, Source, WriteAction, WriteOutcome};

/// How a conflict between a current memory and a new one with the same key is settled.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Resolution {
    /// The new value replaces the old; the old version is closed (`valid_to`,
    /// `superseded_by`) and kept for audit.
    KeepNew,
    /// The old value stays in force; the new one is stored already closed, for audit.
    KeepOld,
    /// Both values hold (a many-valued attribute such as skills); nothing is closed.
    Merge,
    /// The new value waits for review: stored, never recalled, until
    /// [`Engram::resolve_review`] settles it.
    Flag,
}

/// The rules that choose a [`Resolution`]. In order: the write's own `on_conflict`;
/// `always`; many-valued attributes merge; a statement older than the current value keeps
/// the old; a new value much less trusted than the current one is flagged (or, when its
/// confidence is low, rejected); otherwise the newer value wins.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct ConflictPolicy {
    /// When set, every conflict is settled this way (a write's `on_conflict` still wins).
    pub always: Option<Resolution>,
    /// Key attributes whose values accumulate instead of replacing each other.
    pub merge_attributes: Vec<String>,
    /// Trust is `confidence × reliability(source)`. A new value whose trust is lower than
    /// the current value's by more than this margin is not applied automatically.
    pub trust_margin: f32,
    /// Such a less-trusted value is flagged for review when its confidence is at least
    /// this, and kept out (keep old) below it.
    pub flag_min_confidence: f32,
}

impl Default for ConflictPolicy {
    fn default() -> Self {
        ConflictPolicy {
            always: None,
            merge_attributes: ["skill", "skills", "language_spoken", "hobby", "pet", "child", "allergy"]
                .into_iter()
                .map(String::from)
                .collect(),
            trust_margin: 0.15,
            flag_min_confidence: 0.5,
        }
    }
}

/// How much a source is believed, in [0, 1]: what the user or operator states outranks
/// what a tool reports, which outranks what was inferred by rules, the assistant or an LLM.
pub fn reliability(source: Source) -> f32 {
    match source {
        Source::System | Source::User => 1.0,
        Source::Tool => 0.9,
        Source::RuleExtracted => 0.85,
        Source::Assistant | Source::LlmExtracted => 0.7,
    }
}

/// What the rules need to know about the incoming value.
pub(crate) struct Incoming<'a> {
    pub key: &'a FactKey,
    pub confidence: f32,
    pub source: Source,
    pub observed_at: Millis,
    pub on_conflict: Option<Resolution>,
}

impl ConflictPolicy {
    /// Choose how `new` settles against the `current` records of its key (non-empty).
    pub(crate) fn decide(&self, new: &Incoming<'_>, current: &[&Record]) -> Resolution {
        if let Some(r) = new.on_conflict.or(self.always) {
            return r;
        }
        if self.merge_attributes.contains(&new.key.attribute) {
            return Resolution::Merge;
        }
        let latest = current.iter().map(|r| r.valid_from).max().unwrap_or(Millis::MIN);
        if new.observed_at < latest {
            return Resolution::KeepOld;
        }
        let trust_old = current.iter().map(|r| r.confidence * reliability(r.source)).fold(0.0, f32::max);
        let trust_new = new.confidence * reliability(new.source);
        if trust_new + self.trust_margin < trust_old {
            return if new.confidence >= self.flag_min_confidence { Resolution::Flag } else { Resolution::KeepOld };
        }
        Resolution::KeepNew
    }
}

impl Engram {
    /// Close a current memory without a successor (it stopped being true, or an extractor
    /// proposed deleting it): it leaves recall and stays in the audit trail. Unlike
    /// [`Engram::forget`], nothing is erased.
    pub fn retract(&mut self, scope: &Scope, id: &str, now: Millis) -> Result<()> {
        let stamp = self.next_stamp(now);
        let user = scope.user_key();
        let part = self.partition_mut(scope)?;
        let slot = part.slot_of(id).ok_or_else(|| Error::NotFound(id.to_owned()))?;
        if !part.at(slot).is_some_and(Record::is_current) {
            return Err(Error::invalid("id", format!("{id:?} is not a current memory")));
        }
        part.update(slot, |r| {
            r.valid_to = Some(now);
            r.updated_at = now;
            r.stamp = stamp;
        });
        if let Some(rec) = part.full_record(slot) {
            self.pending.push(Op { user, stamp, body: OpBody::Upsert(Box::new(rec)) });
        }
        Ok(())
    }

    /// Settle a value flagged for review: `KeepNew` puts it in force and closes the values
    /// it conflicted with; `KeepOld` closes it; `Merge` lets both hold.
    pub fn resolve_review(&mut self, scope: &Scope, id: &str, decision: Resolution, now: Millis) -> Result<WriteOutcome> {
        if decision == Resolution::Flag {
            return Err(Error::invalid("decision", "a review is settled by keep-new, keep-old or merge"));
        }
        let stamp = self.next_stamp(now);
        let user = scope.user_key();
        let part = self.partition_mut(scope)?;
        let slot = part.slot_of(id).ok_or_else(|| Error::NotFound(id.to_owned()))?;
        let Some(flagged) = part.at(slot).filter(|r| r.pending_review).cloned() else {
            return Err(Error::invalid("id", format!("{id:?} is not waiting for review")));
        };
        let others: Vec<u32> = flagged
            .key
            .as_ref()
            .map(|k| part.with_key(k).iter().copied().filter(|&s| s != slot && part.at(s).is_some_and(Record::is_current)).collect())
            .unwrap_or_default();
        let mut touched = vec![slot];
        let mut superseded = Vec::new();
        match decision {
            Resolution::KeepNew => {
                for &s in &others {
                    part.update(s, |r| {
                        r.valid_to = Some(now);
                        r.superseded_by = Some(flagged.id.clone());
                        r.updated_at = now;
                        r.stamp = stamp;
                    });
                    superseded.extend(part.at(s).map(|r| r.id.clone()));
                }
                touched.extend(&others);
            }
            Resolution::KeepOld => {
                let winner = others.first().and_then(|&s| part.at(s)).map(|r| r.id.clone());
                part.update(slot, |r| {
                    r.valid_to = Some(now);
                    r.superseded_by = winner;
                });
            }
            Resolution::Merge | Resolution::Flag => {}
        }
        part.update(slot, |r| {
            r.pending_review = false;
            r.updated_at = now;
            r.stamp = stamp;
        });
        let ops: Vec<Op> = touched
            .iter()
            .filter_map(|&s| part.full_record(s))
            .map(|rec| Op { user: user.clone(), stamp, body: OpBody::Upsert(Box::new(rec)) })
            .collect();
        self.pending.extend(ops);
        let action = if decision == Resolution::KeepOld { WriteAction::Rejected } else { WriteAction::Inserted };
        Ok(WriteOutcome { id: id.to_owned(), action, similarity: None, superseded, redacted: Vec::new(), conflict: Some(decision) })
    }
}
