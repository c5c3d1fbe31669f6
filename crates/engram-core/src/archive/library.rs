//! The tenant library: documents the operator shares with every user of a tenant.
//!
//! They live in one partition per tenant, [`UserKey::library`] (the reserved user id
//! [`crate::model::LIBRARY_USER`], which [`Scope::validate`] refuses, so no user path —
//! `put_document`, `remember`, `forget_user`… — can name it), and are written only here:
//! [`Engram::put_library_document`] (or [`Engram::prepare_library`] and
//! [`Engram::commit`], for vectors) and [`Engram::delete_library_document`]. That is the
//! user documents' own write path (same checks, redaction, chunking, chunk ids from their
//! text, so re-adding writes only what changed), pointed at the library's partition.
//!
//! [`Engram::search_documents`] and the `[documents]` section of
//! [`Engram::build_context`] read the library's chunks beside the user's own, ranked
//! together (see `search`), each hit saying [`ChunkHit::shared`](crate::archive::ChunkHit).
//! They are data like every document: rendered inside the untrusted block, never as
//! instructions. An op on a library partition may only upsert or delete documents and
//! chunks ([`check_op`]), so a forged op cannot plant a memory, a session or a forget
//! there; forgetting a user never touches it. Sync carries it as any partition: an
//! operator's replicas push it with a token naming it, users' replicas pull it read-only.
//!
//! ```
//! use engram_core::{archive::DocumentInput, Config, Engram, RecallQuery, Scope};
//! let mut e = Engram::new(Config::default(), 1);
//! e.put_library_document("acme", DocumentInput::new("leave", "Staff get 25 days of paid leave a year."), 1_000).unwrap();
//! let hits = e.search_documents(&Scope::user("acme", "alice"), &RecallQuery::text("how many days of paid leave"), 2_000).unwrap();
//! assert!(hits[0].shared && hits[0].text.contains("25 days"));
//! ```

use crate::archive::{Document, DocumentInput};
use crate::write::prepare::{Prepared, WriteBatch};
use crate::engram::Engram;
use crate::error::{Error, Result};
use crate::hlc::Millis;
use crate::model::{Kind, Scope, UserKey};
use crate::store::ops::OpBody;

impl Engram {
    /// Check, redact and chunk documents for `tenant`'s library and say which chunks need
    /// vectors: [`Engram::prepare`] of a batch of documents only, in the library's
    /// partition; [`Engram::commit`] writes it.
    pub fn prepare_library(&self, tenant: &str, documents: Vec<DocumentInput>, now: Millis) -> Result<Prepared> {
        self.prepare_in(&Scope::library(tenant), WriteBatch { documents, ..WriteBatch::default() }, now)
    }

    /// Add or replace document `doc.id` of `tenant`'s library (without vectors). Returns
    /// the ids of its chunk records, in order.
    pub fn put_library_document(&mut self, tenant: &str, doc: DocumentInput, now: Millis) -> Result<Vec<String>> {
        let prepared = self.prepare_library(tenant, vec![doc], now)?;
        let none = vec![None; prepared.texts().len()];
        Ok(self.commit(prepared, none, now)?.documents.pop().unwrap_or_default())
    }

    /// Document `id` of `tenant`'s library with its whole text.
    pub fn get_library_document(&self, tenant: &str, id: &str) -> Result<Document> {
        let key = library(tenant)?;
        self.get_document_in(self.partitions.get(&key), id)
    }

    /// The documents of `tenant`'s library (without their texts), oldest first.
    pub fn library_documents(&self, tenant: &str) -> Result<Vec<Document>> {
        let key = library(tenant)?;
        self.list_documents_in(self.partitions.get(&key))
    }

    /// Delete document `id` of `tenant`'s library and all its chunks, as tombstone ops
    /// that sync. False when there was no such document.
    pub fn delete_library_document(&mut self, tenant: &str, id: &str, now: Millis) -> Result<bool> {
        let key = library(tenant)?;
        self.delete_document_in(&key, id, now)
    }
}

/// The library partition of `tenant`, its name checked.
fn library(tenant: &str) -> Result<UserKey> {
    Scope::library(tenant).validate_partition()?;
    Ok(UserKey::library(tenant))
}

/// What an op on a library partition may do: upsert or delete documents (`d/…`) and their
/// chunks (`c/…`), and nothing else — a forged op cannot put a memory, an instruction, a
/// session, a graph edge or a forget there.
pub(crate) fn check_op(body: &OpBody) -> Result<()> {
    let archival = |id: &str| id.starts_with("d/") || id.starts_with("c/");
    match body {
        OpBody::Upsert(r) if (r.kind == Kind::Document && r.id.starts_with("d/")) || (r.kind == Kind::Chunk && r.id.starts_with("c/")) => {
            if r.layer != crate::model::Layer::default_for(r.kind) || r.key.is_some() || r.pending_review {
                return Err(Error::invalid("op", "a library record is a plain document or chunk"));
            }
            Ok(())
        }
        OpBody::Delete { id } if archival(id) => Ok(()),
        _ => Err(Error::invalid("op", "a library partition holds only documents and their chunks (put_library_document, delete_library_document)")),
    }
}
