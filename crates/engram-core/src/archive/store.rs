//! Documents in the write pipeline: [`Engram::prepare`] checks, redacts and chunks each
//! document of a batch and asks vectors for the chunks not stored yet; [`Engram::commit`]
//! writes the new chunks, deletes the chunks the new version no longer has (tombstone ops,
//! so every replica and the origin drop them) and writes the document record last. Also
//! get, list and delete.

use std::collections::BTreeSet;

use crate::archive::chunk::chunk;
use crate::archive::manifest::Manifest;
use crate::archive::ready::ReadyDocument;
use crate::archive::{document_of_chunk, document_record_id, Document, DocumentInput, CHUNK_OVERLAP, CHUNK_TOKENS, MAX_CHUNKS, MAX_DOCUMENT_BYTES, MAX_DOCUMENT_FIELD, MAX_DOCUMENT_ID};
use crate::write::prepare::WriteBatch;
use crate::store::partition::Partition;
use crate::engram::Engram;
use crate::error::{Error, Result};
use crate::hlc::{Millis, Stamp};
use crate::model::limits::{check_at_most, check_id, check_tags, check_text};
use crate::model::{Kind, Record, Scope, Sensitivity, UserKey};
use crate::store::ops::{Op, OpBody};
use crate::pii::Scrubbed;
use crate::text::content_hash;

impl Engram {
    /// Add or replace one document (see [`crate::archive`]): one [`Engram::prepare`] and
    /// [`Engram::commit`] without vectors. Returns the ids of its chunk records, in order.
    pub fn put_document(&mut self, scope: &Scope, doc: DocumentInput, now: Millis) -> Result<Vec<String>> {
        let prepared = self.prepare(scope, WriteBatch { documents: vec![doc], ..WriteBatch::default() }, now)?;
        let none = vec![None; prepared.texts().len()];
        Ok(self.commit(prepared, none, now)?.documents.pop().unwrap_or_default())
    }

    /// Check, redact and chunk a document (the `prepare` step).
    pub(crate) fn ready_document(&self, doc: DocumentInput) -> Result<ReadyDocument> {
        check_id("document.id", &doc.id, MAX_DOCUMENT_ID)?;
        check_text("document.text", &doc.text, MAX_DOCUMENT_BYTES)?;
        check_tags(&doc.tags)?;
        for (field, v) in [("document.title", &doc.title), ("document.source", &doc.source), ("document.metadata", &doc.metadata)] {
            check_at_most(field, v.len(), MAX_DOCUMENT_FIELD)?;
        }
        let (chunk_tokens, chunk_overlap) = (doc.chunk_tokens.unwrap_or(CHUNK_TOKENS), doc.chunk_overlap.unwrap_or(CHUNK_OVERLAP));
        let redact = |field: &'static str, text: &str| match self.scrub(text, Sensitivity::Personal) {
            Scrubbed::Store { text, sealed, .. } => Ok((text, sealed)),
            Scrubbed::Drop { found } => Err(Error::invalid(field, format!("holds {found:?}, which the PII policy does not store"))),
        };
        let (text, sealed) = redact("document.text", doc.text.trim())?;
        let spans = chunk(&text, &self.tokenizer, chunk_tokens, chunk_overlap)?;
        check_at_most("document chunks", spans.len(), MAX_CHUNKS)?;
        let mut ids = Vec::with_capacity(spans.len());
        let mut chunks = Vec::with_capacity(spans.len());
        for s in &spans {
            let body = &text[s.start..s.end];
            if body.trim().is_empty() {
                return Err(Error::invalid("document.text", "a run of whitespace is longer than a chunk"));
            }
            let hash = format!("{:016x}", content_hash(body));
            let again = chunks.iter().filter(|(c, _): &&(String, usize)| c.split('-').next() == Some(hash.as_str())).count();
            let suffix = if again == 0 { hash } else { format!("{hash}-{again}") };
            ids.push(format!("c/{}/{suffix}", doc.id));
            chunks.push((suffix, s.overlap));
        }
        let manifest = Manifest {
            title: redact("document.title", &doc.title)?.0,
            source: redact("document.source", &doc.source)?.0,
            metadata: redact("document.metadata", &doc.metadata)?.0,
            chunk_tokens,
            chunk_overlap,
            chunks,
        };
        let n = spans.len();
        Ok(ReadyDocument { id: doc.id, tags: doc.tags, manifest, text, spans, ids, sealed, vectors: vec![None; n] })
    }

    /// Write a ready document (the `commit` step): new chunks, deletes of dropped chunks,
    /// then the document record — each only when it changed. Returns its chunk ids.
    pub(crate) fn write_document(&mut self, scope: &Scope, doc: ReadyDocument, now: Millis) -> Result<Vec<String>> {
        let at = Scope { session: None, ..scope.clone() };
        let user = scope.user_key();
        let rid = document_record_id(&doc.id);
        // The scope was checked by `prepare` (a user's, or a tenant's library).
        let old = self.partitions.get(&user).and_then(|p| p.get(&rid)).filter(|r| r.kind == Kind::Document).cloned();
        if old.is_none() && self.partitions.get(&user).is_some_and(|p| p.get(&rid).is_some()) {
            return Err(Error::invalid("document.id", format!("{rid:?} is taken by a memory")));
        }
        let stamp = self.next_stamp(now);
        let fresh = doc.new_chunks(self.partitions.get(&user));
        for i in fresh {
            let mut rec = record(&at, doc.ids[i].clone(), Kind::Chunk, doc.chunk_text(i).to_owned(), Vec::new(), stamp, now, now);
            rec.sealed = doc.sealed.iter().filter(|s| rec.text.contains(&s.placeholder)).cloned().collect();
            rec.embedding = doc.vectors[i].clone();
            self.put_record(rec);
        }
        if let Some(old) = &old {
            let keep: BTreeSet<&str> = crate::sort::set(doc.ids.iter().map(String::as_str));
            let gone: Vec<String> = chunk_ids(old)?.into_iter().filter(|c| !keep.contains(c.as_str())).collect();
            self.delete_records(&user, gone, stamp)?;
        }
        let text = doc.manifest.encode();
        if old.as_ref().is_none_or(|o| o.text != text || o.tags != doc.tags) {
            let created = old.as_ref().map_or(now, |o| o.created_at);
            self.put_record(record(&at, rid, Kind::Document, text, doc.tags, stamp, created, now));
        }
        Ok(doc.ids)
    }

    /// Store a record as written here and queue its upsert.
    fn put_record(&mut self, rec: Record) {
        if let Some(v) = &rec.embedding {
            self.claim_dim(v.len());
        }
        let user = rec.scope.user_key();
        let stamp = rec.stamp;
        let part = self.partitions.entry(user.clone()).or_insert_with(|| Partition::new(user.clone()));
        let slot = part.put(rec, &self.config);
        if let Some(full) = part.full_record(slot) {
            self.pending.push(Op { user, stamp, body: OpBody::Upsert(Box::new(full)) });
        }
    }

    /// Delete records (tombstones) and queue the ops.
    fn delete_records(&mut self, user: &UserKey, ids: Vec<String>, stamp: Stamp) -> Result<()> {
        for id in ids {
            self.write_op(Op { user: user.clone(), stamp, body: OpBody::Delete { id } })?;
        }
        Ok(())
    }

    /// The scope's user's document `id` with its whole text.
    pub fn get_document(&self, scope: &Scope, id: &str) -> Result<Document> {
        self.get_document_in(self.partition(scope)?, id)
    }

    /// Document `id` of partition `p` with its whole text.
    pub(crate) fn get_document_in(&self, p: Option<&Partition>, id: &str) -> Result<Document> {
        let p = p.ok_or_else(|| Error::NotFound(id.to_owned()))?;
        let rec = p.get(&document_record_id(id)).filter(|r| r.kind == Kind::Document).ok_or_else(|| Error::NotFound(id.to_owned()))?;
        let mut doc = document(rec)?;
        let m = Manifest::decode(&rec.text)?;
        let mut text = String::new();
        for ((cid, (_, overlap)), n) in doc.chunks.iter().zip(&m.chunks).zip(1..) {
            let c = p.get(cid).ok_or_else(|| Error::NotFound(format!("{id}: chunk {n} ({cid}) has not arrived")))?;
            text.push_str(c.text.get(*overlap..).ok_or_else(|| Error::Decode { what: "document", reason: format!("chunk {n} is shorter than its overlap") })?);
        }
        doc.text = Some(text);
        Ok(doc)
    }

    /// The scope's user's documents (without their texts), oldest first.
    pub fn list_documents(&self, scope: &Scope) -> Result<Vec<Document>> {
        self.list_documents_in(self.partition(scope)?)
    }

    /// The documents of partition `p` (without their texts), oldest first.
    pub(crate) fn list_documents_in(&self, p: Option<&Partition>) -> Result<Vec<Document>> {
        // Through `list` (documents never expire): its sort, not a second one in the module.
        let records = Engram::list_in(p, &crate::ListFilter { kinds: vec![Kind::Document], ..Default::default() }, 0);
        records.iter().map(document).collect()
    }

    /// Delete the scope's user's document `id` and all its chunks, as tombstone ops that
    /// sync. False when there was no such document.
    pub fn delete_document(&mut self, scope: &Scope, id: &str, now: Millis) -> Result<bool> {
        scope.validate()?;
        self.delete_document_in(&scope.user_key(), id, now)
    }

    /// Delete document `id` of partition `user` (checked by the caller) and its chunks.
    pub(crate) fn delete_document_in(&mut self, user: &UserKey, id: &str, now: Millis) -> Result<bool> {
        let rid = document_record_id(id);
        let Some(p) = self.partitions.get(user) else { return Ok(false) };
        let Some(rec) = p.get(&rid).filter(|r| r.kind == Kind::Document) else { return Ok(false) };
        let mut ids: BTreeSet<String> = crate::sort::set(chunk_ids(rec)?);
        // Chunks of a version this replica never saw the manifest of (concurrent puts).
        // (By the chunk's own document, not an id prefix: "a" must not sweep "a/b"'s chunks.)
        ids.extend(p.iter().filter(|(_, r)| r.kind == Kind::Chunk && document_of_chunk(&r.id) == Some(id)).map(|(_, r)| r.id.clone()));
        let stamp = self.next_stamp(now);
        let mut all: Vec<String> = ids.into_iter().collect();
        all.push(rid);
        self.delete_records(user, all, stamp)?;
        Ok(true)
    }
}

/// The chunk record ids a document record lists, in order.
pub(crate) fn chunk_ids(rec: &Record) -> Result<Vec<String>> {
    let id = rec.id.strip_prefix("d/").unwrap_or(&rec.id);
    Ok(Manifest::decode(&rec.text)?.chunks.into_iter().map(|(s, _)| format!("c/{id}/{s}")).collect())
}

/// A document record as a [`Document`], without its text.
fn document(rec: &Record) -> Result<Document> {
    let m = Manifest::decode(&rec.text)?;
    let chunks = chunk_ids(rec)?;
    Ok(Document {
        id: rec.id.strip_prefix("d/").unwrap_or(&rec.id).to_owned(),
        title: m.title,
        text: None,
        source: m.source,
        tags: rec.tags.clone(),
        metadata: m.metadata,
        chunks,
        created_at: rec.created_at,
        updated_at: rec.updated_at,
    })
}

#[allow(clippy::too_many_arguments)]
fn record(scope: &Scope, id: String, kind: Kind, text: String, tags: Vec<String>, stamp: Stamp, created: Millis, now: Millis) -> Record {
    Record { tags, created_at: created, valid_from: created, ..Record::fresh(id, scope.clone(), kind, text, stamp, now) }
}
