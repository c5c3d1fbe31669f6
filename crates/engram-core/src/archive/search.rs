//! Recall over documents: chunks are found by recall's own channels (BM25 words and
//! vectors, restricted to chunks) and returned with where they sit — their document, their
//! position in it and the chunks either side — never as whole documents.
//!
//! The user's own chunks and their tenant's library's (see `library`) are searched in
//! their own partitions, then ranked together: each partition's words are scored with the
//! statistics of both indexes (document count, lengths, document frequencies), so a BM25
//! score is what one index holding both would give; cosines come from the store's one
//! embedder. Each channel's raw scores are then ranked over both lists and fused again
//! with recall's weights, times each chunk's weight: a strong library match outranks a
//! weak one of the user's and the reverse.

use rustc_hash::FxHashSet;
use serde::Serialize;

use crate::archive::document_of_chunk;
use crate::archive::manifest::Manifest;
use crate::archive::store::chunk_ids;
use crate::engram::partition::Partition;
use crate::engram::recall::{fuse, tied_ranks, Hit, RecallQuery, ScoreParts, LEXICAL_TIE, VECTOR_TIE};
use crate::engram::Engram;
use crate::error::Result;
use crate::hlc::Millis;
use crate::model::{Kind, Scope, UserKey};
use crate::text::{content_hash, normalize};

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
    /// True for a chunk of the tenant's library (shared with every user of the tenant,
    /// read with [`Engram::get_library_document`]), false for the user's own.
    pub shared: bool,
}

impl Engram {
    /// The document chunks relevant to `q` of the scope's user and of their tenant's
    /// library, ranked together (its `kinds` are ignored: only chunks are searched). A
    /// chunk that no current document lists — left by a version replaced on another
    /// replica — is not returned.
    pub fn search_documents(&self, scope: &Scope, q: &RecallQuery, now: Millis) -> Result<Vec<ChunkHit>> {
        let own = self.partition(scope)?;
        let library = self.partitions.get(&UserKey::library(scope.tenant.clone()));
        let has = |p: Option<&Partition>| p.is_some_and(|p| p.chunk_count() > 0);
        let q = RecallQuery { kinds: vec![Kind::Chunk], ..q.clone() };
        let mut hits = Vec::new();
        // Each partition's words scored as in one index of both (see `Bm25::scores_with`).
        let (own, library) = (own.filter(|&p| has(Some(p))), library.filter(|&p| has(Some(p))));
        for (p, also, shared) in [(own, library, false), (library, own, true)] {
            if let Some(p) = p {
                hits.push(self.chunk_hits(p, also, &q, now, shared)?);
            }
        }
        Ok(match hits.len() {
            2 => self.rank_together(hits, q.k),
            _ => hits.pop().unwrap_or_default(),
        })
    }

    /// The chunks of partition `p` relevant to `q`, as recall ranks them there.
    fn chunk_hits(&self, p: &Partition, also: Option<&Partition>, q: &RecallQuery, now: Millis, shared: bool) -> Result<Vec<ChunkHit>> {
        let recall = self.recall_in(Some(p), also, q, now)?;
        let mut out = Vec::with_capacity(recall.hits.len());
        for Hit { record, score, parts } in recall.hits {
            let Some(doc) = document_of_chunk(&record.id) else { continue };
            let Some(rec) = p.get(&crate::archive::document_record_id(doc)).filter(|r| r.kind == Kind::Document) else { continue };
            let ids = chunk_ids(rec)?;
            let Some(pos) = ids.iter().position(|c| *c == record.id) else { continue };
            out.push(ChunkHit {
                chunk: record.id.clone(),
                document: doc.to_owned(),
                title: Manifest::decode(&rec.text)?.title,
                position: pos as u32,
                count: ids.len() as u32,
                text: record.text,
                previous: pos.checked_sub(1).map(|i| ids[i].clone()),
                next: ids.get(pos + 1).cloned(),
                score,
                parts,
                shared,
            });
        }
        Ok(out)
    }

    /// The best `k` of several partitions' hits: each channel re-ranked over all of them by
    /// its raw score (ties shared as recall shares them), fused again, times the hit's
    /// weight; the weak after the rest, as recall orders them; a text seen before skipped.
    fn rank_together(&self, lists: Vec<Vec<ChunkHit>>, k: usize) -> Vec<ChunkHit> {
        let mut all: Vec<ChunkHit> = lists.into_iter().flatten().collect();
        let by = |all: &[ChunkHit], score: &dyn Fn(&ScoreParts) -> Option<f32>| -> Vec<(u32, f32)> {
            let mut v: Vec<(u32, f32)> = all.iter().enumerate().filter_map(|(i, h)| Some((i as u32, score(&h.parts)?))).collect();
            v.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
            v
        };
        let lexical = by(&all, &|p| p.lexical.map(|l| l.1));
        for ((i, s), rank) in lexical.iter().zip(tied_ranks(&lexical, |top| top * (1.0 - LEXICAL_TIE))) {
            all[*i as usize].parts.lexical = Some((rank, *s));
        }
        let vector = by(&all, &|p| p.vector.map(|v| v.1));
        for ((i, s), rank) in vector.iter().zip(tied_ranks(&vector, |top| top - VECTOR_TIE)) {
            all[*i as usize].parts.vector = Some((rank, *s));
        }
        for h in &mut all {
            h.parts.fused = fuse(&h.parts, self.config.weights, self.config.rrf_k);
            h.score = h.parts.fused * h.parts.weight;
        }
        let weak = self.config.weak_threshold;
        // Relevance chooses (fused), then weight orders, as in recall; own before shared on a tie.
        all.sort_by(|a, b| b.parts.fused.total_cmp(&a.parts.fused).then(a.shared.cmp(&b.shared)).then(a.chunk.cmp(&b.chunk)));
        let mut seen = FxHashSet::default();
        let mut chosen: Vec<ChunkHit> = all.into_iter().filter(|h| seen.insert(content_hash(&normalize(&h.text)))).take(k).collect();
        chosen.sort_by(|a, b| (a.parts.weight < weak).cmp(&(b.parts.weight < weak)).then(b.score.total_cmp(&a.score)).then(a.shared.cmp(&b.shared)).then(a.chunk.cmp(&b.chunk)));
        chosen
    }
}
