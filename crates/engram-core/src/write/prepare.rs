//! The one write pipeline. Every write of memories and turns — `remember`, `append_turn`,
//! `observe`, the SDK's batches and its LLM learner — is two steps:
//!
//! 1. [`Engram::prepare`] checks the whole batch (one bad item refuses it, nothing written),
//!    redacts each text once, rule-extracts facts from user turns when asked, and says which
//!    texts need vectors — each exactly as it will be stored, so no vector ever encodes a
//!    redacted value.
//! 2. The caller embeds those texts (asynchronously, in the SDK), and [`Engram::commit`]
//!    writes the batch with the vectors: turns first, then memories, then the graph links
//!    of extracted facts, then documents (their new chunks, see [`crate::archive`]).
//!
//! ```
//! use engram_core::{WriteBatch, Config, Engram, MemoryInput, Kind, Scope};
//! let mut e = Engram::new(Config::default(), 1);
//! let scope = Scope::user("default", "alice");
//! let batch = WriteBatch { memories: vec![MemoryInput::new(Kind::Fact, "Mail me at a@b.co")], ..WriteBatch::default() };
//! let prepared = e.prepare(&scope, batch, 1_000).unwrap();
//! assert_eq!(prepared.texts(), ["Mail me at [EMAIL]"]);
//! let vectors = vec![Some(vec![1.0, 0.0])];
//! let done = e.commit(prepared, vectors, 1_000).unwrap();
//! assert_eq!(done.remembered.len(), 1);
//! ```

use crate::archive::ready::ReadyDocument;
use crate::archive::DocumentInput;
use crate::store::working::{ReadyTurn, Turn};
use crate::engram::Engram;
use crate::error::{Error, Result};
use crate::extract::{extract, Extracted, Link};
use crate::hlc::Millis;
use crate::model::{MemoryInput, Scope, Source, WriteAction, WriteOutcome};
use crate::pii::{PiiKind, Sealed, Scrubbed};

/// What one write holds: memories for the scope's user and/or turns of one session.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct WriteBatch {
    /// Memories, remembered in order after the turns.
    pub memories: Vec<MemoryInput>,
    /// Turns appended to `session` (required when there are turns).
    pub turns: Vec<Turn>,
    /// The session the turns belong to; memories stay in the scope as given.
    pub session: Option<String>,
    /// Facts proposed by the rule extractor: remembered as `rule-extracted` after the
    /// memories, and the relations they state join the graph.
    pub facts: Vec<Extracted>,
    /// Also remember what the user turns state (rule-based extraction, as `observe`), and
    /// join the relations those facts state to the graph.
    pub extract: bool,
    /// Ask vectors for the turns too (memories always get them).
    pub embed_turns: bool,
    /// Documents to add or replace, written last; their new chunks get vectors.
    pub documents: Vec<DocumentInput>,
}

/// A checked, redacted batch waiting for its vectors. Made by [`Engram::prepare`], consumed
/// by [`Engram::commit`].
#[derive(Debug, Clone)]
pub struct Prepared {
    scope: Scope,
    session: Option<String>,
    turns: Vec<ReadyTurn>,
    memories: Vec<ReadyMemory>,
    documents: Vec<ReadyDocument>,
    /// For each text needing a vector, the item it is for.
    wants: Vec<Item>,
    texts: Vec<String>,
    /// The dimension of the vectors given with the batch, when the store has none yet.
    dim: Option<usize>,
}

impl Prepared {
    /// The texts to embed, in order, exactly as they will be stored (PII redacted); one
    /// vector per text is expected by [`Engram::commit`].
    pub fn texts(&self) -> &[String] {
        &self.texts
    }
}

/// The result of a committed batch.
#[derive(Debug, Clone, PartialEq)]
pub struct Committed {
    /// The ids of the appended turns, in order.
    pub turns: Vec<String>,
    /// One outcome per memory (the batch's, then the facts extracted from its user turns).
    pub remembered: Vec<WriteOutcome>,
    /// Per document, the ids of its chunk records in order.
    pub documents: Vec<Vec<String>>,
    /// The episode written for the turns' session before they joined it, when the session
    /// had idled past its TTL (with episodes on; see [`crate::consolidate`]): it
    /// summarises what was said before the pause. `None` otherwise.
    pub episode: Option<String>,
}

#[derive(Debug, Clone, Copy)]
enum Item {
    Turn(usize),
    Memory(usize),
    /// Document, chunk.
    Chunk(usize, usize),
}

/// A memory after the PII step: stored (text redacted, embedding unit-length) or dropped.
// Nearly every item is `Store`: boxing it would cost an allocation per memory and save nothing.
#[allow(clippy::large_enum_variant)]
#[derive(Debug, Clone)]
pub(crate) enum ReadyMemory {
    Store { input: MemoryInput, redacted: Vec<PiiKind>, sealed: Vec<Sealed>, link: Option<Option<Link>> },
    Drop { found: Vec<PiiKind> },
}

impl Engram {
    /// Check and redact a batch, and say which texts need vectors (see the module docs).
    /// Nothing is written; any invalid item refuses the whole batch.
    pub fn prepare(&self, scope: &Scope, batch: WriteBatch, now: Millis) -> Result<Prepared> {
        scope.validate()?;
        self.prepare_in(scope, batch, now)
    }

    /// [`Engram::prepare`] for a scope the caller has checked: a user's, or (documents
    /// only, from [`Engram::prepare_library`]) a tenant's library.
    pub(crate) fn prepare_in(&self, scope: &Scope, batch: WriteBatch, now: Millis) -> Result<Prepared> {
        scope.validate_partition()?;
        let mut dim = self.embedder.as_ref().map(|e| e.dim);
        let mut turns = Vec::with_capacity(batch.turns.len());
        let mut facts = batch.facts;
        if !batch.turns.is_empty() {
            match batch.session.as_deref() {
                Some(s) if !s.is_empty() => Scope { session: Some(s.to_owned()), ..scope.clone() }.validate()?,
                _ => return Err(Error::invalid("session", "turns need a session")),
            }
        }
        for turn in batch.turns {
            self.validate_turn(&turn)?;
            if batch.extract && turn.role == Source::User {
                facts.extend(extract(&turn.text));
            }
            let embedding = turn.embedding.as_deref().map(|v| self.unit_embedding(v, &mut dim)).transpose()?;
            let (text, sealed) = self.scrub_turn_sealed(turn.text.trim());
            turns.push(ReadyTurn { role: turn.role, text, sealed, embedding });
        }
        let given = batch.memories.into_iter().map(|m| (m, None));
        let extracted = facts.into_iter().map(|e| {
            let link = e.link.clone();
            (e.into_input(), Some(link))
        });
        let mut memories = Vec::new();
        for (mut input, link) in given.chain(extracted) {
            self.validate_input(&input, now)?;
            let embedding = input.embedding.take().map(|v| self.unit_embedding(&v, &mut dim)).transpose()?;
            self.check_id_free(scope, &input)?;
            // PII first, and only here: nothing after this step sees the raw value.
            memories.push(match self.scrub(input.text.trim(), input.sensitivity) {
                Scrubbed::Store { text, redacted, sealed } => {
                    self.check_replaces(scope, &input)?;
                    input.text = text;
                    input.embedding = embedding;
                    ReadyMemory::Store { input, redacted, sealed, link }
                }
                Scrubbed::Drop { found } => ReadyMemory::Drop { found },
            });
        }
        let documents = batch.documents.into_iter().map(|d| self.ready_document(d)).collect::<Result<Vec<_>>>()?;
        let mut wants = Vec::new();
        let mut texts = Vec::new();
        for (i, t) in turns.iter().enumerate() {
            if batch.embed_turns && t.embedding.is_none() {
                wants.push(Item::Turn(i));
                texts.push(t.text.clone());
            }
        }
        for (i, m) in memories.iter().enumerate() {
            if let ReadyMemory::Store { input, .. } = m {
                if input.embedding.is_none() {
                    wants.push(Item::Memory(i));
                    texts.push(input.text.clone());
                }
            }
        }
        let part = self.partitions.get(&scope.user_key());
        for (d, doc) in documents.iter().enumerate() {
            for c in doc.new_chunks(part) {
                wants.push(Item::Chunk(d, c));
                texts.push(doc.chunk_text(c).to_owned());
            }
        }
        Ok(Prepared { scope: scope.clone(), session: batch.session, turns, memories, documents, wants, texts, dim })
    }

    /// Write a prepared batch with one vector (or `None`: no vector) per text of
    /// [`Prepared::texts`]: turns, then memories, then the graph links of extracted facts.
    /// Turns joining a session idle past its TTL first summarise it ([`Committed::episode`]).
    /// A vector of the wrong dimension or with NaN refuses the batch before anything is
    /// written.
    pub fn commit(&mut self, prepared: Prepared, vectors: Vec<Option<Vec<f32>>>, now: Millis) -> Result<Committed> {
        let Prepared { scope, session, mut turns, mut memories, mut documents, wants, texts, dim } = prepared;
        if vectors.len() != texts.len() {
            return Err(Error::invalid("vectors", format!("{} vectors for {} texts; give one (or none) per text", vectors.len(), texts.len())));
        }
        let mut dim = self.embedder.as_ref().map(|e| e.dim).or(dim);
        for (want, v) in wants.into_iter().zip(vectors) {
            let Some(v) = v.filter(|v| !v.is_empty()) else { continue };
            let v = Some(self.unit_embedding(&v, &mut dim)?);
            match want {
                Item::Turn(i) => turns[i].embedding = v,
                Item::Memory(i) => {
                    if let ReadyMemory::Store { input, .. } = &mut memories[i] {
                        input.embedding = v;
                    }
                }
                Item::Chunk(d, c) => documents[d].vectors[c] = v,
            }
        }
        let mut out = Committed { turns: Vec::with_capacity(turns.len()), remembered: Vec::with_capacity(memories.len()), documents: Vec::new(), episode: None };
        if let Some(session) = session.filter(|_| !turns.is_empty()) {
            let at = Scope { session: Some(session), ..scope.clone() };
            out.episode = self.before_turns(&at, now)?;
            for turn in turns {
                out.turns.push(self.insert_turn(&at, turn, now)?);
            }
            self.compress_session(&at, now)?;
        }
        for m in memories {
            let (outcome, link) = match m {
                ReadyMemory::Drop { found } => (WriteOutcome::nothing(WriteAction::Dropped, found), None),
                ReadyMemory::Store { input, redacted, sealed, link } => (self.store(&scope, input, redacted, sealed, now)?, link),
            };
            if let Some(link) = link {
                self.link_extracted(&scope, link, &outcome, now)?;
            }
            out.remembered.push(outcome);
        }
        for doc in documents {
            out.documents.push(self.write_document(&scope, doc, now)?);
        }
        Ok(out)
    }

    /// A vector checked against the store's dimension — or, before one is fixed, the
    /// batch's first — and made unit-length. The dimension is fixed when the record is stored.
    pub(crate) fn unit_embedding(&self, v: &[f32], dim: &mut Option<usize>) -> Result<Vec<f32>> {
        let d = match *dim {
            Some(d) => d,
            None => {
                if v.is_empty() || v.len() > 8192 {
                    return Err(Error::invalid("embedding", "must have 1..=8192 dimensions"));
                }
                *dim = Some(v.len());
                v.len()
            }
        };
        crate::index::vector::unit(v, d)
    }
}

mod wrappers;

#[cfg(test)]
mod tests;
