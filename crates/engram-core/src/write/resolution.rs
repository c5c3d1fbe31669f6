//! The rules that settle a conflict (seed 002) — a new memory with the key of a current one
//! but other text — as pure functions of the two values: confidence, source reliability and
//! recency, overridable per store and per write. The engine applies the outcome
//! ([`crate::write::conflict`]).

use serde::{Deserialize, Serialize};

use crate::hlc::Millis;
use crate::model::{FactKey, Record, Source};

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
