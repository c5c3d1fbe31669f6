//! Recall over documents: chunks are found by recall's own channels (BM25 words and
//! vectors, restricted to chunks) and returned with where they sit — their document, their
//! position in it and the chunks either side — never as whole documents.
//!
//! The user's own chunks and their tenant's library's (see `library`) are searched in
//! their own partitions, then ranked together: each partition's words are scored with the
//! statistics of both indexes (document count, lengths, document frequencies), so a BM25
//! score is what one index holding both would give; cosines come from the store's one
//! embedder. Each channel's raw scores are then ranked over both partitions' candidates
//! and fused again with recall's weights, and chunks chosen as recall chooses: the result
//! is what one store holding both would give (a test holds it for every split), so a
//! strong library match outranks a weak one of the user's and the reverse.

use serde::Serialize;

use crate::archive::document_of_chunk;
use crate::archive::manifest::Manifest;
use crate::store::partition::Partition;
use crate::read::ranks::{tied_ranks, LEXICAL_TIE, VECTOR_TIE};
use crate::read::recall::{choose, fuse, Hit, RecallQuery, ScoreParts};
use crate::engram::Engram;
use crate::error::Result;
use crate::hlc::Millis;
use crate::model::{Kind, Record, Scope, UserKey};

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
        let has = |p: &&Partition| p.chunk_count() > 0;
        let own = self.partition(scope)?.filter(has);
        let library = self.partitions.get(&UserKey::library(scope.tenant.clone())).filter(has);
        let q = RecallQuery { kinds: vec![Kind::Chunk], ..q.clone() };
        let (p, shared) = match (own, library) {
            (Some(own), Some(library)) => return self.search_both([own, library], &q, now),
            (Some(p), None) => (p, false),
            (None, Some(p)) => (p, true),
            (None, None) => return Ok(Vec::new()),
        };
        let recall = self.recall_in(Some(p), &q, now)?;
        let mut out = Vec::with_capacity(recall.hits.len());
        for Hit { record, score, parts } in recall.hits {
            out.extend(chunk_hit(p, &record, score, parts, shared)?);
        }
        Ok(out)
    }

    /// The user's chunks (`parts[0]`) and the library's (`parts[1]`) ranked as one store
    /// holding both would rank them: each partition's candidates scored with both indexes'
    /// word statistics, then each channel ranked over both by its raw score (ties shared as
    /// recall shares them; past the channel's `candidates_per_channel` unranked, as there),
    /// fused again, and chosen as recall chooses (own before shared on a tie).
    fn search_both(&self, parts: [&Partition; 2], q: &RecallQuery, now: Millis) -> Result<Vec<ChunkHit>> {
        let mut all: Vec<((usize, u32), ScoreParts)> = Vec::new();
        for (i, p) in parts.iter().enumerate() {
            let c = self.candidates(Some(p), Some(parts[1 - i]), q, now)?;
            all.extend(c.scored.into_iter().map(|(slot, sp)| ((i, slot), sp)));
        }
        let n = self.config.candidates_per_channel.max(q.k);
        rerank(&mut all, n, |sp| sp.lexical.map(|l| l.1), |top| top * (1.0 - LEXICAL_TIE), |sp, r| sp.lexical = r);
        rerank(&mut all, n, |sp| sp.vector.map(|v| v.1), |top| top - VECTOR_TIE, |sp, r| sp.vector = r);
        all.retain(|(_, sp)| sp.lexical.is_some() || sp.vector.is_some() || sp.key.is_some() || sp.graph.is_some());
        for (_, sp) in &mut all {
            sp.fused = fuse(sp, self.config.weights, self.config.rrf_k);
        }
        let text = |&(i, slot): &(usize, u32)| parts[i].at(slot).map(|r| r.text.as_str());
        let mut out = Vec::new();
        for ((i, slot), sp, score) in choose(all, q.k, self.config.weak_threshold, text, |&key| key, |_| {}) {
            let Some(rec) = parts[i].at(slot) else { continue };
            out.extend(chunk_hit(parts[i], rec, score, sp, i == 1)?);
        }
        Ok(out)
    }
}

/// Rank one channel over the candidates of several partitions by its raw score (`score`),
/// best first, ties within `tie_floor` of a group's first sharing its rank, the first `n`
/// only (the rest lose that channel, as a single partition ranks only its best `n`).
fn rerank<K: Ord + Copy>(all: &mut [(K, ScoreParts)], n: usize, score: impl Fn(&ScoreParts) -> Option<f32>, tie_floor: impl Fn(f32) -> f32, set: impl Fn(&mut ScoreParts, Option<(u32, f32)>)) {
    let mut ranked: Vec<(usize, f32)> = all.iter().enumerate().filter_map(|(i, (_, sp))| Some((i, score(sp)?))).collect();
    crate::sort::sort_by(&mut ranked, |a, b| b.1.total_cmp(&a.1).then(all[a.0].0.cmp(&all[b.0].0)));
    let as_slots: Vec<(u32, f32)> = ranked.iter().map(|&(i, s)| (i as u32, s)).collect();
    let ranks = tied_ranks(&as_slots, tie_floor);
    for (pos, (&(i, s), rank)) in ranked.iter().zip(ranks).enumerate() {
        set(&mut all[i].1, (pos < n).then_some((rank, s)));
    }
}

/// A recalled chunk record of partition `p` as a hit, with its document, position and
/// neighbours; `None` when no current document of `p` lists it.
fn chunk_hit(p: &Partition, record: &Record, score: f32, parts: ScoreParts, shared: bool) -> Result<Option<ChunkHit>> {
    let Some(doc) = document_of_chunk(&record.id) else { return Ok(None) };
    let Some(rec) = p.get(&crate::archive::document_record_id(doc)).filter(|r| r.kind == Kind::Document) else { return Ok(None) };
    // The manifest read once, and only the ids either side formatted (as `chunk_ids` makes
    // them): a document lists ~50 chunks.
    let m = Manifest::decode(&rec.text)?;
    let id = rec.id.strip_prefix("d/").unwrap_or(&rec.id);
    let chunk_id = |i: usize| m.chunks.get(i).map(|(s, _)| format!("c/{id}/{s}"));
    let seq = record.id.strip_prefix("c/").and_then(|r| r.strip_prefix(id)).and_then(|r| r.strip_prefix('/'));
    let Some(pos) = m.chunks.iter().position(|(s, _)| seq == Some(s.as_str())) else { return Ok(None) };
    Ok(Some(ChunkHit {
        chunk: record.id.clone(),
        document: doc.to_owned(),
        title: m.title.clone(),
        position: pos as u32,
        count: m.chunks.len() as u32,
        text: record.text.clone(),
        previous: pos.checked_sub(1).and_then(chunk_id),
        next: chunk_id(pos + 1),
        score,
        parts,
        shared,
    }))
}
