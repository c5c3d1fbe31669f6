//! The memory side of the write pipeline (see `prepare`): after validation and PII,
//! exact dedup → near-duplicate → conflict policy (supersession) → insert → op.

use crate::write::prepare::WriteBatch;
use crate::write::resolution::{ConflictPolicy, Incoming, Resolution};
use crate::store::partition::{Partition, Pool};
use crate::store::ops::{Op, OpBody};
use crate::engram::{id_from_stamp, EmbedderInfo, Engram};
use crate::error::{Error, Result};
use crate::hlc::Millis;
use crate::model::{Kind, Layer, MemoryInput, Record, Scope, WriteAction, WriteOutcome};
use crate::pii::{scrub, PiiKind, Sealed, Scrubbed};
use crate::text::{content_hash, normalize, Substance};

use crate::model::limits::{check_id, check_label, check_tags, check_text, MAX_KEY_PART, MAX_RECORD_ID};

impl Engram {
    /// Remember one memory for the scope's user.
    ///
    /// Same normalized text as a current memory → that memory is reinforced
    /// (`Duplicate`). A vector within `dedup_threshold` of a current memory without a key →
    /// reinforced (`Reinforced`). Same key as current memories with other text → a conflict,
    /// settled by [`crate::ConflictPolicy`]: by default the newer value closes the old ones
    /// (`valid_to`, `superseded_by`); a much less trusted one is flagged for review
    /// (`Flagged`) or kept only for audit (`Rejected`); many-valued attributes merge.
    /// One [`Engram::prepare`] and [`Engram::commit`] with the input's own embedding.
    pub fn remember(&mut self, scope: &Scope, input: MemoryInput, now: Millis) -> Result<WriteOutcome> {
        let mut outs = self.remember_many(scope, vec![input], now)?;
        outs.pop().ok_or_else(|| Error::invalid("memory", "nothing to remember"))
    }

    /// Remember several memories in order as one batch: all are checked before any is written.
    pub fn remember_many(&mut self, scope: &Scope, inputs: Vec<MemoryInput>, now: Millis) -> Result<Vec<WriteOutcome>> {
        let prepared = self.prepare(scope, WriteBatch { memories: inputs, ..WriteBatch::default() }, now)?;
        let none = vec![None; prepared.texts().len()];
        Ok(self.commit(prepared, none, now)?.remembered)
    }

    /// The write steps after PII (`input.text` is redacted, its embedding unit-length):
    /// exact duplicate → near duplicate → conflict policy → insert.
    pub(crate) fn store(&mut self, scope: &Scope, input: MemoryInput, redacted: Vec<PiiKind>, sealed: Vec<Sealed>, now: Millis) -> Result<WriteOutcome> {
        self.check_targets(scope, &input)?;
        if let Some(v) = &input.embedding {
            self.claim_dim(v.len());
        }
        let user = scope.user_key();
        let part = self.partitions.entry(user.clone()).or_insert_with(|| Partition::new(user));
        let hash = content_hash(&normalize(&input.text));
        if let Some((slot, sim)) = exact_duplicate(part, &input, hash, &sealed, now).or_else(|| near_duplicate(part, &input, self.config.dedup_threshold, now)) {
            return Ok(WriteOutcome { redacted, ..self.reinforce(scope, slot, &input, sim, now) });
        }
        let (closing, conflict) = settle_conflict(part, &self.config.conflicts, &input, now);
        Ok(self.insert(scope, input, redacted, sealed, closing, conflict, now))
    }

    /// A memory's `id` must be new and its `replaces` a current memory of the user.
    pub(crate) fn check_targets(&self, scope: &Scope, input: &MemoryInput) -> Result<()> {
        self.check_id_free(scope, input)?;
        self.check_replaces(scope, input)
    }

    /// A memory's own `id` must not be taken.
    pub(crate) fn check_id_free(&self, scope: &Scope, input: &MemoryInput) -> Result<()> {
        if let Some(id) = &input.id {
            if self.partitions.get(&scope.user_key()).is_some_and(|p| p.slot_of(id).is_some()) {
                return Err(Error::invalid("id", format!("{id:?} already exists; use a new id")));
            }
        }
        Ok(())
    }

    /// What a memory `replaces` must be a current memory of the user.
    pub(crate) fn check_replaces(&self, scope: &Scope, input: &MemoryInput) -> Result<()> {
        let part = self.partitions.get(&scope.user_key());
        if let Some(target) = &input.replaces {
            if !part.is_some_and(|p| p.slot_of(target).and_then(|s| p.at(s)).is_some_and(Record::is_current)) {
                return Err(Error::invalid("replaces", format!("{target:?} is not a current memory of this user")));
            }
        }
        Ok(())
    }

    /// Insert the new record, closing what it supersedes, and queue their ops.
    #[allow(clippy::too_many_arguments)]
    fn insert(
        &mut self,
        scope: &Scope,
        input: MemoryInput,
        redacted: Vec<PiiKind>,
        sealed: Vec<Sealed>,
        closing: Vec<u32>,
        conflict: Option<(Resolution, String)>,
        now: Millis,
    ) -> WriteOutcome {
        let observed_at = input.observed_at.unwrap_or(now);
        let stamp = self.next_stamp(now);
        let id = input.id.clone().unwrap_or_else(|| id_from_stamp(stamp));
        let user = scope.user_key();
        let part = self.partitions.entry(user.clone()).or_insert_with(|| Partition::new(user.clone()));
        let mut superseded = Vec::new();
        for &slot in &closing {
            part.update(slot, |r| {
                r.valid_to = Some(now);
                r.superseded_by = Some(id.clone());
                r.updated_at = now;
                r.stamp = stamp;
            });
            superseded.extend(part.at(slot).map(|r| r.id.clone()));
        }
        let (valid_to, superseded_by, pending_review, action) = match &conflict {
            Some((Resolution::KeepOld, winner)) => (Some(now), Some(winner.clone()), false, WriteAction::Rejected),
            Some((Resolution::Flag, _)) => (None, None, true, WriteAction::Flagged),
            _ => (None, None, false, WriteAction::Inserted),
        };
        let record = Record {
            id: id.clone(),
            scope: scope.clone(),
            kind: input.kind,
            layer: input.layer.unwrap_or_else(|| Layer::default_for(input.kind)),
            text: input.text,
            key: input.key,
            embedding: input.embedding,
            importance: input.importance,
            confidence: input.confidence,
            source: input.source,
            tags: input.tags,
            created_at: now,
            updated_at: now,
            last_accessed_at: now,
            times_seen: 1,
            valid_from: observed_at,
            valid_to,
            superseded_by,
            expires_at: input.ttl_ms.map(|t| now.saturating_add(t)),
            sensitivity: input.sensitivity,
            pending_review,
            sealed,
            stamp,
        };
        let slot = part.put(record, &self.config);
        for old in &superseded {
            if let Some(rec) = part.slot_of(old).and_then(|s| part.full_record(s)) {
                self.pending.push(Op { user: user.clone(), stamp, body: OpBody::Upsert(Box::new(rec)) });
            }
        }
        if let Some(rec) = part.full_record(slot) {
            self.pending.push(Op { user, stamp, body: OpBody::Upsert(Box::new(rec)) });
        }
        WriteOutcome { id, action, similarity: None, superseded, redacted, conflict: conflict.map(|(d, _)| d) }
    }

    fn reinforce(&mut self, scope: &Scope, slot: u32, input: &MemoryInput, sim: Option<f32>, now: Millis) -> WriteOutcome {
        let stamp = self.next_stamp(now);
        let user = scope.user_key();
        let Some(part) = self.partitions.get_mut(&user) else {
            return WriteOutcome::nothing(WriteAction::Duplicate, Vec::new());
        };
        part.update(slot, |r| {
            r.times_seen = r.times_seen.saturating_add(1);
            // Each confirmation moves importance a step towards 1 and never lowers it.
            r.importance = r.importance.max(input.importance).max((r.importance + 0.1).min(1.0));
            r.confidence = r.confidence.max(input.confidence);
            r.updated_at = now;
            r.last_accessed_at = now;
            r.stamp = stamp;
            for t in &input.tags {
                if !r.tags.contains(t) {
                    r.tags.push(t.clone());
                }
            }
        });
        let id = part.at(slot).map(|r| r.id.clone()).unwrap_or_default();
        if let Some(rec) = part.full_record(slot) {
            self.pending.push(Op { user, stamp, body: OpBody::Upsert(Box::new(rec)) });
        }
        let action = if sim.is_some() { WriteAction::Reinforced } else { WriteAction::Duplicate };
        WriteOutcome { id, action, similarity: sim, superseded: Vec::new(), redacted: Vec::new(), conflict: None }
    }

    /// Apply the PII policy to `text` as the write path will: what the SDK embeds, so that
    /// vectors never encode a redacted value.
    pub fn scrub(&self, text: &str, tier: crate::model::Sensitivity) -> Scrubbed {
        scrub(text, tier, &self.config.pii, self.redaction_key.as_ref())
    }

    pub(crate) fn validate_text(&self, text: &str) -> Result<()> {
        check_text("text", text, self.config.max_text_bytes)
    }

    pub(crate) fn validate_input(&self, input: &MemoryInput, now: Millis) -> Result<()> {
        self.validate_text(&input.text)?;
        for (field, v) in [("importance", input.importance), ("confidence", input.confidence)] {
            if !(0.0..=1.0).contains(&v) {
                return Err(Error::invalid(field, format!("{} is outside [0, 1]", crate::error::shown(v))));
            }
        }
        check_tags(&input.tags)?;
        if input.kind == Kind::Instruction || input.layer == Some(Layer::Procedural) {
            // Procedural memory is the operator's, in its own partition: never a user's memory.
            return Err(Error::invalid("kind", "instructions are the operator's procedures: write them with put_procedure, not into a user's memory"));
        }
        if let Some(t) = input.observed_at {
            if t > now {
                return Err(Error::invalid("observed_at", "must not be in the future"));
            }
            if t < 0 {
                return Err(Error::invalid("observed_at", "must not be before 1970"));
            }
        }
        if let Some(ttl) = input.ttl_ms {
            if ttl <= 0 {
                return Err(Error::invalid("ttl_ms", "must be positive"));
            }
        }
        if let Some(id) = &input.id {
            check_id("id", id, MAX_RECORD_ID)?;
            if id.starts_with("d/") || id.starts_with("c/") {
                return Err(Error::invalid("id", "ids starting with d/ or c/ are documents' and chunks'"));
            }
        }
        if let Some(k) = &input.key {
            check_label("key.subject", &k.subject, MAX_KEY_PART)?;
            check_label("key.attribute", &k.attribute, MAX_KEY_PART)?;
        }
        Ok(())
    }

    /// Check a vector against the store's embedder (fixing the dimension on first use)
    /// and return it unit-length.
    pub(crate) fn check_embedding(&mut self, v: &[f32]) -> Result<Vec<f32>> {
        let mut dim = self.embedder.as_ref().map(|e| e.dim);
        let unit = self.unit_embedding(v, &mut dim)?;
        self.claim_dim(unit.len());
        Ok(unit)
    }

    /// Fix the store's dimension from the first vector stored (the caller's embedder).
    pub(crate) fn claim_dim(&mut self, dim: usize) {
        if self.embedder.is_none() {
            self.embedder = Some(EmbedderInfo { id: "caller".into(), dim });
        }
    }
}

/// 1. An exact duplicate of a memory in force or under review (with the same key, if any).
fn exact_duplicate(part: &Partition, input: &MemoryInput, hash: u64, sealed: &[Sealed], now: Millis) -> Option<(u32, Option<f32>)> {
    let slot = part.with_hash(hash).iter().copied().find(|&s| {
        part.at(s).is_some_and(|r| r.kind.is_memory() && !r.is_expired(now) && r.key == input.key && r.sealed == sealed)
    })?;
    Some((slot, None))
}

/// How many of the nearest memories by vector a new one is compared with by text.
const NEAR_DUPLICATE_CANDIDATES: usize = 8;
/// From this many memory vectors on, near duplicates are looked for among the memories
/// sharing a rare word with the new one. Below, the exact scan of every vector costs no
/// more than the rest of a write (4,096 int8 rows of 384 dimensions: about 0.1 ms in wasm),
/// so a write's cost stays flat from the first memory on (`pkg/bench/writes.mjs`).
const INDEXED_DEDUP_ROWS: usize = 4_096;
/// A word is rare when at most one memory in this many holds it, and at least
/// [`MIN_RARE_DF`] may: a name or a number, not "discuss" (candidates stay a fraction of
/// a percent of the store).
const RARE_SHARE: usize = 200;
const MIN_RARE_DF: usize = 64;

/// 2. A near duplicate — only for unkeyed memories (same-key different-text is a conflict),
///    and only with the same numbers, polarity, subjects and most words ([`Substance`]).
fn near_duplicate(part: &Partition, input: &MemoryInput, threshold: f32, now: Millis) -> Option<(u32, Option<f32>)> {
    if input.key.is_some() || input.replaces.is_some() || threshold > 1.0 {
        return None;
    }
    let (v, ix) = (input.embedding.as_ref()?, part.vectors(Pool::Memories)?);
    let candidate = |s: u32| part.at(s).is_some_and(|r| r.kind.is_memory() && r.key.is_none() && r.is_current() && !r.is_expired(now));
    // The nearest few by vector, then their texts: comparing texts with every neighbour
    // above the threshold made a write linear in the store's texts when many are alike
    // ("Shipment 1 …", "Shipment 2 …": 10k of them took minutes).
    let near = if ix.len() < INDEXED_DEDUP_ROWS {
        ix.search(v, NEAR_DUPLICATE_CANDIDATES, threshold, candidate)
    } else {
        // A large store: the memories that share a word with the new one that few hold
        // (the words index), scored by vector, so that a write costs what those words
        // hold, not a pass over every vector (a scan made a write at 100k memories 10×
        // dearer than at 1k). A near duplicate must agree on its names, places and numbers
        // anyway (`Substance`), and those are its rare words; a paraphrase sharing none
        // is stored beside the other, not merged.
        let rare = part.bm25(Pool::Memories).rare_holders(&input.text, (ix.len() / RARE_SHARE).max(MIN_RARE_DF));
        ix.search_among(v, &rare, NEAR_DUPLICATE_CANDIDATES, threshold, candidate)
    };
    let mine = Substance::of(&input.text);
    near.into_iter().find(|&(slot, _)| part.at(slot).is_some_and(|r| Substance::of(&r.text).agrees(&mine))).map(|(slot, sim)| (slot, Some(sim)))
}

/// 3. A conflict with the key's current values, settled by the policy: the slots the new
///    record closes, and the decision with the id of the value it met.
fn settle_conflict(part: &Partition, policy: &ConflictPolicy, input: &MemoryInput, now: Millis) -> (Vec<u32>, Option<(Resolution, String)>) {
    let mut closing: Vec<u32> = input.replaces.iter().filter_map(|t| part.slot_of(t)).collect();
    let Some(key) = &input.key else { return (closing, None) };
    let current: Vec<u32> = part.with_key(key).iter().copied().filter(|&s| part.at(s).is_some_and(Record::is_current)).collect();
    if current.is_empty() {
        return (closing, None);
    }
    let records: Vec<&Record> = current.iter().filter_map(|&s| part.at(s)).collect();
    let incoming = Incoming {
        key,
        confidence: input.confidence,
        source: input.source,
        observed_at: input.observed_at.unwrap_or(now),
        on_conflict: input.on_conflict,
    };
    let decision = policy.decide(&incoming, &records);
    if matches!(decision, Resolution::KeepOld | Resolution::Flag) {
        closing.clear(); // a value that does not win replaces nothing, even when asked to
    }
    if decision == Resolution::KeepNew {
        for s in &current {
            if !closing.contains(s) {
                closing.push(*s);
            }
        }
    }
    let met = part.at(current[0]).map(|r| r.id.clone()).unwrap_or_default();
    (closing, Some((decision, met)))
}
