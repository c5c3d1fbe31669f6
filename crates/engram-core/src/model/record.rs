//! A record is one memory. Every layer — chat turns, episodes, facts, instructions — is
//! made of records, so one write path, one codec, one sync and one forget serve them all.

use serde::{Deserialize, Serialize};

use crate::hlc::{Millis, Stamp};
use crate::model::scope::Scope;

/// What a memory is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Kind {
    /// A chat turn.
    Message,
    /// A fact about the user or the world ("works at Alibaba").
    Fact,
    /// A like or dislike ("prefers Python").
    Preference,
    /// Something that happened.
    Event,
    /// A summary of a past interaction.
    Episode,
    /// Procedural memory: how the agent should behave. Only procedures, in a tenant's own
    /// partition, have it ([`crate::procedures`]); user writes refuse it.
    Instruction,
    /// Progress on a long-running task.
    Task,
    /// A pattern learned across interactions.
    Pattern,
    /// A session's rolling summary.
    Summary,
    /// A piece of an archived document (see [`crate::archive`]): recalled only by document
    /// search, never with memories.
    Chunk,
    /// An archived document's record: its title, metadata and list of chunks; never recalled.
    Document,
}

impl Kind {
    /// Kinds that are deduplicated and may be superseded by key. Chat turns are not:
    /// saying "ok" twice is two turns.
    pub fn is_memory(self) -> bool {
        !matches!(self, Kind::Message | Kind::Summary | Kind::Chunk | Kind::Document)
    }

    /// Kinds of the archival layer (documents and their chunks), kept out of memory recall
    /// and lists unless asked for by kind.
    pub fn is_archival(self) -> bool {
        matches!(self, Kind::Chunk | Kind::Document)
    }

    /// A lowercase name for display.
    pub fn as_str(self) -> &'static str {
        match self {
            Kind::Message => "message",
            Kind::Fact => "fact",
            Kind::Preference => "preference",
            Kind::Event => "event",
            Kind::Episode => "episode",
            Kind::Instruction => "instruction",
            Kind::Task => "task",
            Kind::Pattern => "pattern",
            Kind::Summary => "summary",
            Kind::Chunk => "chunk",
            Kind::Document => "document",
        }
    }
}

/// Which layer of the memory model a record lives in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Layer {
    Working,
    Episodic,
    Semantic,
    Archival,
    /// Skills and instructions for the agent itself; never mixed into user recall.
    Procedural,
}

impl Layer {
    /// The layer a kind goes to when the caller does not say.
    pub fn default_for(kind: Kind) -> Layer {
        match kind {
            Kind::Message | Kind::Summary => Layer::Working,
            Kind::Event | Kind::Episode | Kind::Task => Layer::Episodic,
            Kind::Fact | Kind::Preference | Kind::Pattern => Layer::Semantic,
            Kind::Instruction => Layer::Procedural,
            Kind::Chunk | Kind::Document => Layer::Archival,
        }
    }
}

/// Who or what produced a memory. Ordered roughly by how much it can be trusted.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Source {
    /// The developer or operator. Procedures (see [`crate::procedures`]) carry it;
    /// a user's memory with it is still data, never an instruction.
    System,
    User,
    Assistant,
    Tool,
    RuleExtracted,
    LlmExtracted,
}

impl Source {
    /// A lowercase name for display.
    pub fn as_str(self) -> &'static str {
        match self {
            Source::System => "system",
            Source::User => "user",
            Source::Assistant => "assistant",
            Source::Tool => "tool",
            Source::RuleExtracted => "rule-extracted",
            Source::LlmExtracted => "llm-extracted",
        }
    }
}

/// Privacy tier (seed 002): how widely a memory may travel.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize, Default)]
#[serde(rename_all = "kebab-case")]
pub enum Sensitivity {
    Public,
    /// Lives only as long as its session.
    Session,
    #[default]
    Personal,
}

/// A normalized fact key: a newer fact with the same key supersedes the older one.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub struct FactKey {
    pub subject: String,
    pub attribute: String,
}

impl FactKey {
    /// Build a key, normalizing both parts (trimmed, lowercase, inner whitespace as `_`).
    pub fn new(subject: &str, attribute: &str) -> Self {
        FactKey { subject: normalize_key_part(subject), attribute: normalize_key_part(attribute) }
    }
}

fn normalize_key_part(s: &str) -> String {
    s.split_whitespace().map(str::to_lowercase).collect::<Vec<_>>().join("_")
}

/// One memory.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Record {
    pub id: String,
    pub scope: Scope,
    pub kind: Kind,
    pub layer: Layer,
    /// Already redacted; what is stored is what is shown.
    pub text: String,
    pub key: Option<FactKey>,
    /// Unit-length vector, when the record was embedded.
    pub embedding: Option<Vec<f32>>,
    pub importance: f32,
    pub confidence: f32,
    pub source: Source,
    pub tags: Vec<String>,
    pub created_at: Millis,
    pub updated_at: Millis,
    pub last_accessed_at: Millis,
    pub times_seen: u32,
    /// Bi-temporal audit: when this version became and stopped being true.
    pub valid_from: Millis,
    pub valid_to: Option<Millis>,
    pub superseded_by: Option<String>,
    pub expires_at: Option<Millis>,
    pub sensitivity: Sensitivity,
    /// A value that conflicted with a current one and waits for review: stored and kept
    /// in the indexes, never recalled, until [`crate::Engram::resolve_review`] settles it.
    pub pending_review: bool,
    /// PII values sealed with the user's redaction key, one per `[KIND#tag]` placeholder
    /// in `text`; empty when redaction is irreversible (the default).
    pub sealed: Vec<crate::pii::Sealed>,
    /// HLC stamp of the last write to this record.
    pub stamp: Stamp,
}

impl Record {
    /// A record as a write first makes it: current, unkeyed, unembedded, seen once, in its
    /// kind's default layer, said by the user at `now`, personal, importance 0.5 and
    /// confidence 1. Writers set what differs with struct update syntax.
    pub fn fresh(id: String, scope: Scope, kind: Kind, text: String, stamp: Stamp, now: Millis) -> Record {
        Record {
            id,
            scope,
            kind,
            layer: Layer::default_for(kind),
            text,
            key: None,
            embedding: None,
            importance: 0.5,
            confidence: 1.0,
            source: Source::User,
            tags: Vec::new(),
            created_at: now,
            updated_at: now,
            last_accessed_at: now,
            times_seen: 1,
            valid_from: now,
            valid_to: None,
            superseded_by: None,
            expires_at: None,
            sensitivity: Sensitivity::Personal,
            pending_review: false,
            sealed: Vec::new(),
            stamp,
        }
    }

    /// True when the record's TTL has passed at `now`.
    pub fn is_expired(&self, now: Millis) -> bool {
        self.expires_at.is_some_and(|t| t <= now)
    }

    /// True when a newer version has replaced this one.
    pub fn is_superseded(&self) -> bool {
        self.superseded_by.is_some() || self.valid_to.is_some()
    }

    /// True when the record is the value in force: not replaced, not waiting for review.
    pub fn is_current(&self) -> bool {
        !self.is_superseded() && !self.pending_review
    }

    /// True for the value in force of a fact key (a keyed, current fact or preference):
    /// it holds until a newer value supersedes it, so time does not fade it — "lives in
    /// Hangzhou", said in May, is as true in December. Everything else fades with age.
    pub fn holds_current_value(&self) -> bool {
        self.key.is_some() && self.is_current() && matches!(self.kind, Kind::Fact | Kind::Preference)
    }

    /// The moment decay is measured from: the last time it was written or reinforced.
    pub fn freshness(&self) -> Millis {
        self.updated_at.max(self.last_accessed_at)
    }
}
