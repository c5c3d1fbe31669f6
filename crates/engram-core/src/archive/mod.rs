//! Archival memory (layer 4): documents stored by id and recalled as chunks, never whole.
//!
//! A document is records of the user's partition, so the write pipeline, sync ops,
//! tombstones, forgetting, snapshots and the origin's views serve it as they serve
//! memories: one [`Kind::Document`](crate::Kind::Document) record (its id `d/<id>`) holds
//! the title, source, metadata and the ordered list of its chunks (the *manifest*, see
//! [`manifest`]), and one [`Kind::Chunk`](crate::Kind::Chunk) record per distinct chunk
//! (id `c/<id>/<hash of its text>`) holds the text and vector recall searches. Chunk ids
//! come from their text, so re-adding a document writes only the chunks that changed and
//! deletes those that went. Positions live in the manifest only: a chunk that moves is
//! not rewritten. Documents are per user; the documents an operator shares with a whole
//! tenant live in the tenant's library partition ([`library`]) and are searched beside
//! the user's own.
//!
//! ```
//! use engram_core::{archive::DocumentInput, Config, Engram, RecallQuery, Scope};
//! let mut e = Engram::new(Config::default(), 1);
//! let me = Scope::user("acme", "alice");
//! let doc = DocumentInput::new("handbook", "# Leave\n\nStaff get 25 days of paid leave a year.\n\n# Travel\n\nBook trains over flights.");
//! e.put_document(&me, doc, 1_000).unwrap();
//! let hits = e.search_documents(&me, &RecallQuery::text("how many days of paid leave"), 2_000).unwrap();
//! assert_eq!((hits[0].document.as_str(), hits[0].position), ("handbook", 0));
//! assert!(hits[0].text.contains("25 days"));
//! ```

pub mod chunk;
pub mod library;
pub mod manifest;
pub(crate) mod ready;
mod search;
pub(crate) mod store;

use serde::Serialize;

use crate::hlc::Millis;
pub use search::ChunkHit;

/// Default chunk budget in tokens.
pub const CHUNK_TOKENS: usize = 128;
/// Default overlap between consecutive chunks, in tokens.
pub const CHUNK_OVERLAP: usize = 16;
/// Longest document id (bytes): its records' ids stay within the record id limit.
pub const MAX_DOCUMENT_ID: usize = 96;
/// Longest document text (bytes).
pub const MAX_DOCUMENT_BYTES: usize = 2 * 1024 * 1024;
/// Most chunks in one document.
pub const MAX_CHUNKS: usize = 10_000;
/// Longest title, source or metadata (bytes).
pub const MAX_DOCUMENT_FIELD: usize = 16 * 1024;

/// A document to add or replace, as the caller describes it.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct DocumentInput {
    /// The caller's id for it; putting the same id again replaces the document.
    pub id: String,
    pub title: String,
    pub text: String,
    /// Where it came from (a URL, a file name); free text.
    pub source: String,
    pub tags: Vec<String>,
    /// The caller's metadata, stored as given (the SDK passes JSON).
    pub metadata: String,
    /// The chunk budget (default [`CHUNK_TOKENS`]) and overlap (default [`CHUNK_OVERLAP`]).
    pub chunk_tokens: Option<usize>,
    pub chunk_overlap: Option<usize>,
}

impl DocumentInput {
    /// A document with only an id and a text.
    pub fn new(id: impl Into<String>, text: impl Into<String>) -> Self {
        DocumentInput { id: id.into(), text: text.into(), ..DocumentInput::default() }
    }
}

/// A stored document.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Document {
    pub id: String,
    pub title: String,
    /// The whole text (PII redacted as stored), rebuilt from its chunks; `None` in lists.
    pub text: Option<String>,
    pub source: String,
    pub tags: Vec<String>,
    pub metadata: String,
    /// The ids of its chunk records, in order.
    pub chunks: Vec<String>,
    pub created_at: Millis,
    pub updated_at: Millis,
}

/// The record id of document `id`.
pub fn document_record_id(id: &str) -> String {
    format!("d/{id}")
}

/// The document a chunk record id belongs to.
pub fn document_of_chunk(chunk_id: &str) -> Option<&str> {
    chunk_id.strip_prefix("c/")?.rsplit_once('/').map(|(doc, _)| doc)
}
