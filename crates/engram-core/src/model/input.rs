//! What callers hand to the write path.

use serde::{Deserialize, Serialize};

use crate::write::resolution::Resolution;
use crate::hlc::Millis;
use crate::model::record::{FactKey, Kind, Layer, Sensitivity, Source};
use crate::pii::PiiKind;

/// A new memory as the caller describes it. Defaults: a user-stated fact with
/// importance 0.5 and confidence 0.8, personal sensitivity, no TTL.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct MemoryInput {
    pub text: String,
    pub kind: Kind,
    pub layer: Option<Layer>,
    pub key: Option<FactKey>,
    pub embedding: Option<Vec<f32>>,
    pub importance: f32,
    pub confidence: f32,
    pub source: Source,
    pub tags: Vec<String>,
    pub sensitivity: Sensitivity,
    /// Time to live from now, in milliseconds.
    pub ttl_ms: Option<Millis>,
    /// A caller-chosen id; generated from the replica's clock when absent.
    pub id: Option<String>,
    /// When the statement was made, if earlier than the write (imports, late extraction):
    /// it becomes `valid_from`, and a statement older than the current value of its key
    /// does not replace it.
    pub observed_at: Option<Millis>,
    /// How to settle a conflict with the current value of the key, overriding the policy.
    pub on_conflict: Option<Resolution>,
    /// A current record this one replaces (closed with `superseded_by`), for updates of
    /// memories without a key — what an extractor's UPDATE names.
    pub replaces: Option<String>,
}

impl Default for MemoryInput {
    fn default() -> Self {
        MemoryInput::new(Kind::Fact, "")
    }
}

impl MemoryInput {
    /// A memory of `kind` with the defaults above.
    pub fn new(kind: Kind, text: impl Into<String>) -> Self {
        MemoryInput {
            text: text.into(),
            kind,
            layer: None,
            key: None,
            embedding: None,
            importance: 0.5,
            confidence: 0.8,
            source: Source::User,
            tags: Vec::new(),
            sensitivity: Sensitivity::Personal,
            ttl_ms: None,
            id: None,
            observed_at: None,
            on_conflict: None,
            replaces: None,
        }
    }

    /// A fact.
    pub fn fact(text: impl Into<String>) -> Self {
        Self::new(Kind::Fact, text)
    }

    /// Attach a supersession key.
    pub fn with_key(mut self, subject: &str, attribute: &str) -> Self {
        self.key = Some(FactKey::new(subject, attribute));
        self
    }

    /// Attach an embedding.
    pub fn with_embedding(mut self, v: Vec<f32>) -> Self {
        self.embedding = Some(v);
        self
    }

    /// Set the importance in [0, 1].
    pub fn with_importance(mut self, importance: f32) -> Self {
        self.importance = importance;
        self
    }

    /// Set the source.
    pub fn with_source(mut self, source: Source) -> Self {
        self.source = source;
        self
    }

    /// Set a TTL from now.
    pub fn with_ttl_ms(mut self, ttl: Millis) -> Self {
        self.ttl_ms = Some(ttl);
        self
    }
}

impl WriteOutcome {
    /// An outcome that wrote nothing.
    pub(crate) fn nothing(action: WriteAction, redacted: Vec<PiiKind>) -> Self {
        WriteOutcome { id: String::new(), action, similarity: None, superseded: Vec::new(), redacted, conflict: None }
    }
}

/// What the write path did with a `remember` call.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum WriteAction {
    /// A new record was stored.
    Inserted,
    /// The same normalized text was already stored; it was reinforced.
    Duplicate,
    /// A near-duplicate (cosine ≥ threshold) was reinforced instead of adding a record.
    Reinforced,
    /// The PII policy of the memory's tier said not to store it; nothing was written.
    Dropped,
    /// It conflicted with the current value of its key and lost (keep old): stored
    /// already closed, for the audit trail only.
    Rejected,
    /// It conflicted with the current value of its key and waits for review.
    Flagged,
}

/// The outcome of a write.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct WriteOutcome {
    /// The record that now holds this memory (new or reinforced).
    pub id: String,
    pub action: WriteAction,
    /// Similarity to the reinforced record, for near-duplicates.
    pub similarity: Option<f32>,
    /// Records this write closed by supersession (same key, different value).
    pub superseded: Vec<String>,
    /// Kinds of PII replaced by placeholders (or, when dropped, found).
    pub redacted: Vec<PiiKind>,
    /// How a conflict with the key's current value was settled, if there was one.
    pub conflict: Option<Resolution>,
}
