//! Recall over documents: chunks are found by recall's own channels (BM25 words and
//! vectors, restricted to chunks) and returned with where they sit — their document, their
//! position in it and the chunks either side — never as whole documents.

use serde::Serialize;

use crate::archive::document_of_chunk;
use crate::archive::manifest::Manifest;
use crate::engram::recall::{RecallQuery, ScoreParts};
use crate::engram::Engram;
use crate::error::Result;
use crate::hlc::Millis;
use crate::model::{Kind, Scope};

/// One recalled chunk.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ChunkHit {
    /// The id of the chunk record.
    pub chunk: String,
    /// The id of its document, and the document's title.
    pub document: String,
    pub title: String,
    /// Its 0-based position among the document's `count` chunks.
    pub position: u32,
    pub count: u32,
    /// The chunk's text (with its overlap).
    pub text: String,
    /// The chunks before and after it, by record id.
    pub previous: Option<String>,
    pub next: Option<String>,
    pub score: f32,
    pub parts: ScoreParts,
}

impl Engram {
    /// The scope's user's document chunks relevant to `q` (its `kinds` are ignored: only
    /// chunks are searched). A chunk that no current document lists — left by a version
    /// replaced on another replica — is not returned.
    pub fn search_documents(&self, scope: &Scope, q: &RecallQuery, now: Millis) -> Result<Vec<ChunkHit>> {
        if self.partition(scope)?.is_none_or(|p| p.chunk_count() == 0) {
            return Ok(Vec::new());
        }
        let q = RecallQuery { kinds: vec![Kind::Chunk], ..q.clone() };
        let recall = self.recall(scope, &q, now)?;
        let Some(p) = self.partition(scope)? else { return Ok(Vec::new()) };
        let mut out = Vec::with_capacity(recall.hits.len());
        for h in recall.hits {
            let Some(doc) = document_of_chunk(&h.record.id) else { continue };
            let Some(rec) = p.get(&crate::archive::document_record_id(doc)).filter(|r| r.kind == Kind::Document) else { continue };
            // The manifest read once, and only the ids either side formatted (as `chunk_ids`
            // makes them): a document lists ~50 chunks.
            let m = Manifest::decode(&rec.text)?;
            let id = rec.id.strip_prefix("d/").unwrap_or(&rec.id);
            let chunk_id = |i: usize| m.chunks.get(i).map(|(s, _)| format!("c/{id}/{s}"));
            let seq = h.record.id.strip_prefix("c/").and_then(|r| r.strip_prefix(id)).and_then(|r| r.strip_prefix('/'));
            let Some(pos) = m.chunks.iter().position(|(s, _)| seq == Some(s.as_str())) else { continue };
            out.push(ChunkHit {
                chunk: h.record.id.clone(),
                document: doc.to_owned(),
                title: m.title.clone(),
                position: pos as u32,
                count: m.chunks.len() as u32,
                text: h.record.text,
                previous: pos.checked_sub(1).and_then(chunk_id),
                next: chunk_id(pos + 1),
                score: h.score,
                parts: h.parts,
            });
        }
        Ok(out)
    }
}
